// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host's findings (iommu.*, vfio.*): whether the IOMMU is on, each GPU's
 * IOMMU group, the vfio-pci module and the IDs it would bind at boot.
 */
#include <stdio.h>
#include <string.h>

#include "core/check_host.h"
#include "core/hostq.h"
#include "shared/util.h"

static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t len = strlen(word);
	const char *p = cmdline;

	while ((p = strstr(p, word))) {
		if ((p == cmdline || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* ---- iommu.* ---- */

static void check_iommu_off(const struct gp_host *h, struct gp_report *r)
{
	static const char *const off[] = { "iommu=off", "amd_iommu=off", "intel_iommu=off" };
	/*
	 * From the kernel's kernel-parameters.txt: amd_iommu= knows no "on"
	 * (the AMD IOMMU is on whenever the BIOS exposes it); intel_iommu=on
	 * is needed where the kernel's default is off; iommu=pt leaves the
	 * host's own DMA untranslated while assigned devices still are.
	 */
	const char *hint = "enable the IOMMU in the BIOS (AMD: 'IOMMU' and 'SVM Mode'; "
			   "Intel: 'VT-d'); AMD needs no kernel parameter, Intel boots with "
			   "'intel_iommu=on'; add 'iommu=pt' for host DMA performance";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(off); i++)
		if (cmdline_has(h->cmdline, off[i])) {
			gp_report_add(r, GP_F_IOMMU_OFF, GP_FAIL, "host",
				      "remove it from the kernel command line (GRUB_CMDLINE_LINUX) "
				      "and reboot",
				      "the kernel command line turns the IOMMU off ('%s')", off[i]);
			return;
		}
	if (!h->iommu_groups) {
		gp_report_add(r, GP_F_IOMMU_OFF, GP_FAIL, "host", hint,
			      "no IOMMU groups: the IOMMU is off or missing, so no device can be "
			      "passed through");
		return;
	}
	gp_report_add(r, GP_F_IOMMU_OFF, GP_OK, "host", NULL, "IOMMU on: %d groups",
		      h->iommu_groups);
}

void gp_check_iommu_group(const struct gp_host *h, const struct gp_profile *p, int g,
			  struct gp_report *r)
{
	const struct gp_dev *gpu = &h->devs[g];
	char others[400] = "";
	size_t i, len = 0;
	int n = 0;

	if (gpu->iommu_error[0]) {
		gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, GP_FAIL, gpu->bdf,
			      "check the IOMMU and the device in 'ls -l /sys/bus/pci/devices/*/"
			      "iommu_group' and the kernel log (dmesg | grep -i -e DMAR -e AMD-Vi)",
			      "cannot tell its IOMMU group: %s", gpu->iommu_error);
		return;
	}
	if (gpu->iommu_group < 0 && h->iommu_groups) {
		gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, GP_FAIL, gpu->bdf,
			      "the IOMMU is on but does not cover this device: check the BIOS "
			      "(AMD: 'IOMMU', Intel: 'VT-d') and the kernel log",
			      "in no IOMMU group: it cannot be passed through");
		return;
	}
	if (gpu->iommu_group < 0)
		return; /* iommu.off says why */
	for (i = 0; i < h->ndevs; i++) {
		const struct gp_dev *d = &h->devs[i];

		if ((int)i == g || d->iommu_group != gpu->iommu_group || d->is_bridge)
			continue;
		if (d->role == GP_ROLE_GPU)
			continue; /* both go to the same VM */
		if (len < sizeof(others) - 40)
			len += (size_t)snprintf(others + len, sizeof(others) - len,
						"%s%s (%04x:%04x%s%s)", n ? ", " : "", d->bdf,
						d->vendor, d->device, d->driver[0] ? ", " : "",
						d->driver);
		n++;
	}
	if (!n) {
		gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, GP_OK, gpu->bdf, NULL,
			      "IOMMU group %d holds no other endpoint", gpu->iommu_group);
		return;
	}
	gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, p->companions == GP_COMP_BIND ? GP_WARN : GP_FAIL,
		      gpu->bdf,
		      p->companions == GP_COMP_BIND
			      ? "these endpoints will be bound to vfio-pci too and leave the host"
			      : "move the card to a slot with its own IOMMU group, enable ACS in "
				"the BIOS, or set 'companions = bind' to pass them through too",
		      "IOMMU group %d also holds %d other endpoint%s: %s", gpu->iommu_group, n,
		      n > 1 ? "s" : "", others);
}

/* ---- vfio.* ---- */

static void check_vfio_module(const struct gp_host *h, struct gp_report *r)
{
	if (h->vfio_blacklisted)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_FAIL, "vfio-pci",
			      "remove 'blacklist vfio_pci' from /etc/modprobe.d",
			      "vfio-pci is blacklisted in modprobe.d");
	else if (h->vfio_loaded)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_OK, "vfio-pci", NULL, "loaded");
	else if (h->vfio_available == 1)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_OK, "vfio-pci", NULL,
			      "available for kernel %s, not loaded yet (apply loads it)",
			      h->kernel_release);
	else if (h->vfio_available == 0)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_FAIL, "vfio-pci",
			      "install the kernel's modules package (Debian: linux-image-amd64)",
			      "kernel %s has no vfio-pci module", h->kernel_release);
	else
		gp_report_add(r, GP_F_VFIO_MODULE, GP_WARN, "vfio-pci",
			      "check with 'modinfo vfio-pci'",
			      "cannot tell whether vfio-pci exists for kernel %s (no "
			      "/lib/modules tree)",
			      h->kernel_release[0] ? h->kernel_release : "unknown");
	if (!h->vfio_ids[0]) {
		gp_report_add(r, GP_F_VFIO_IDS_INHERITED, GP_OK, "vfio-pci", NULL,
			      "no 'vfio-pci ids=' on the command line or in modprobe.d");
		return;
	}
	gp_report_add(r, GP_F_VFIO_IDS_INHERITED, GP_WARN, "vfio-pci",
		      "remove it: vfio-pci then binds every device with these IDs at boot; "
		      "gpuprov binds by PCI address",
		      "'ids=%s' is set in %s", h->vfio_ids, h->vfio_ids_source);
}

void gp_check_iommu(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	(void)p;
	check_iommu_off(h, r);
}

void gp_check_vfio(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	(void)p;
	check_vfio_module(h, r);
}
