// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What binding needs of the devices in a GPU's IOMMU group: boot VGA,
 * driver_override, modalias and the vfio driver they lead to; driverctl.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "core/fabric.h"
#include "core/hostq.h"
#include "core/manifest.h"
#include "core/model.h"
#include "host/read.h"
#include "sys/kmod.h"

/* The registered driver whose module link names this module, "" when none. */
static void driver_of_module(const struct gp_host *h, const char *module, char *out, size_t len)
{
	char path[PATH_LEN], link[PATH_LEN];
	DIR *dir = open_dir(h, gp_rootp(h, path, "/sys/bus/pci/drivers"));
	struct dirent *e;

	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.' &&
		    read_link(h, gp_rootp(h, path, "/sys/bus/pci/drivers/%s/module", e->d_name),
			      link, sizeof(link)) > 0 &&
		    !strcmp(base_name(link), module)) {
			gp_strlcpy(out, e->d_name, len);
			break;
		}
	if (dir)
		closedir(dir);
}

/*
 * Which vfio driver takes the device: a variant driver whose module's
 * "vfio_pci:" alias matches its modalias, else vfio-pci; named as the loaded
 * driver registered, or as it will (gp_vfio_driver_of) when not loaded yet.
 */
/*
 * What read_vfio_driver found for a modalias: the functions of one GPU model
 * share it, and a libkmod context, its index lookup and a walk of the PCI
 * drivers per device cost more than the rest of the device did.
 */
struct vfio_memo {
	struct {
		const char *modalias, *module, *driver; /* in the host's pool */
		bool loaded;
	} e[16];
	unsigned n;
};

static void read_vfio_driver(struct gp_host *h, struct gp_dev *d, struct vfio_memo *memo)
{
	char path[PATH_LEN], module[GP_DEV_NAME_LEN] = "vfio_pci", driver[GP_DEV_NAME_LEN] = "";
	unsigned i;

	for (i = 0; i < memo->n; i++)
		if (!strcmp(memo->e[i].modalias, d->modalias)) {
			d->vfio_module = memo->e[i].module;
			d->vfio_module_loaded = memo->e[i].loaded;
			d->vfio_driver = memo->e[i].driver;
			return;
		}
	if (d->modalias[0] && h->kernel_release[0])
		gp_vfio_variant(h->root, h->kernel_release, d->modalias, module, sizeof(module));
	d->vfio_module = gp_pool_intern(&h->strs, module, sizeof(module));
	for (i = 0; i < memo->n && strcmp(memo->e[i].module, d->vfio_module); i++)
		;
	if (i < memo->n) { /* another model, the same module: loaded as it was */
		d->vfio_module_loaded = memo->e[i].loaded;
		d->vfio_driver = memo->e[i].driver;
	} else {
		d->vfio_module_loaded = exists(h, gp_rootp(h, path, "/sys/module/%s", module));
		if (d->vfio_module_loaded)
			driver_of_module(h, module, driver, sizeof(driver));
		if (!driver[0])
			gp_vfio_driver_of(module, driver, sizeof(driver));
		d->vfio_driver = gp_pool_intern(&h->strs, driver, sizeof(driver));
	}
	if (memo->n == ARRAY_SIZE(memo->e))
		return;
	memo->e[memo->n].modalias = d->modalias;
	memo->e[memo->n].module = d->vfio_module;
	memo->e[memo->n].loaded = d->vfio_module_loaded;
	memo->e[memo->n].driver = d->vfio_driver;
	memo->n++;
}

/* driver_override, modalias, and the vfio driver they lead to */
static void read_vfio_state(struct gp_host *h, struct gp_dev *d, struct vfio_memo *memo)
{
	char path[PATH_LEN], over[GP_DEV_NAME_LEN] = "", alias[GP_DEV_MODALIAS_LEN] = "";

	read_text(h, gp_rootp(h, path, "/sys/bus/pci/devices/%s/driver_override", d->bdf), over,
		  sizeof(over));
	d->driver_override =
		strcmp(over, "(null)") ? gp_pool_intern(&h->strs, over, sizeof(over)) : "";
	read_text(h, gp_rootp(h, path, "/sys/bus/pci/devices/%s/modalias", d->bdf), alias,
		  sizeof(alias));
	d->modalias = gp_pool_intern(&h->strs, alias, sizeof(alias));
	read_vfio_driver(h, d, memo);
}

void gp_read_binding(struct gp_host *h)
{
	char path[PATH_LEN], text[16];
	struct vfio_memo memo = { .n = 0 };
	size_t i;

	gp_host_mark_gpu_groups(h);
	for (i = 0; i < h->ndevs; i++) {
		struct gp_dev *d = &h->devs[i];

		d->boot_vga = -1;
		/* an NVSwitch: [fabric] mode = full binds it with the GPUs */
		if (!d->with_gpu && !gp_dev_is_nvswitch(d))
			continue;
		if (read_text(h, gp_rootp(h, path, "/sys/bus/pci/devices/%s/boot_vga", d->bdf),
			      text, sizeof(text)) > 0)
			d->boot_vga = !strcmp(text, "1");
		read_vfio_state(h, d, &memo);
	}
	h->driverctl = exists(h, gp_rootp(h, path, GP_DRIVERCTL));
}
