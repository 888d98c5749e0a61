// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What says whether a GPU is fit to hand to a VM, besides its config space,
 * link and reset (pci.c): the kernel's AER statistics since boot, of the GPU
 * and of the port above it, because an error on a link is often counted by
 * its partner only (the kernel's ABI document sysfs-bus-pci-devices-aer_stats).
 */
#include <stdio.h>

#include "core/model.h"
#include "core/pcicfg.h"
#include "host/read.h"

static long long aer_file(const struct gp_host *h, const char *bdf, const char *name)
{
	char path[PATH_LEN], text[2048];

	if (read_text(h, gp_rootp(h, path, "/sys/bus/pci/devices/%s/%s", bdf, name), text,
		      sizeof(text)) <= 0)
		return -1;
	return gp_aer_total(text);
}

static void read_aer(const struct gp_host *h, struct gp_dev *d)
{
	d->aer_fatal = aer_file(h, d->bdf, "aer_dev_fatal");
	d->aer_nonfatal = aer_file(h, d->bdf, "aer_dev_nonfatal");
	d->aer_cor = aer_file(h, d->bdf, "aer_dev_correctable");
}

/* A PCIe port links to one device: a GPU's parent is its own port, read once. */
void gp_read_health(struct gp_host *h)
{
	size_t i;

	for (i = 0; i < h->ndevs; i++)
		h->devs[i].aer_fatal = h->devs[i].aer_nonfatal = h->devs[i].aer_cor = -1;
	for (i = 0; i < h->ndevs; i++) {
		struct gp_dev *d = &h->devs[i];

		if (d->role != GP_ROLE_GPU)
			continue;
		read_aer(h, d);
		if (d->parent >= 0)
			read_aer(h, &h->devs[d->parent]);
	}
}
