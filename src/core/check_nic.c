// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guest's RoCE ports ([nic] passthrough or vf): each beside a GPU
 * (nic.rail), and what GPUDirect RDMA through a shared switch needs in a
 * VM: ATS on the NIC (nic.ats), ACS Direct Translated P2P on the switch's
 * ports (nic.acs), no pci=noats (kernel.noats); and that VFs are not asked
 * of ports the host's RoCE LAG holds (nic.sriov_lag); that each port's
 * firmware is at least [nic] min_firmware (nic.firmware).  [nic] mode = host,
 * or no [nic], is the bond's business (check_bond.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/acs.h"
#include "core/check_host.h"
#include "core/check_nic.h"
#include "core/hostq.h"
#include "core/topo.h"
#include "core/vm.h"

#define MAX_PATH_BRIDGES 16

/* NCCL's default NCCL_NET_GDR_LEVEL: GPUDirect RDMA only up to PXB (paths.cc). */
static bool gdr_near(enum gp_path c)
{
	return c <= GP_PATH_PXB;
}

/* Whether the kernel command line has noats in a pci= option. */
static bool noats(const char *cmdline)
{
	const char *s;

	for (s = cmdline; (s = strstr(s, "pci=")); s += 4) {
		char opt[256];

		if (s != cmdline && s[-1] != ' ' && s[-1] != '\t')
			continue;
		/* pci=noats or pci=...,noats,... */
		snprintf(opt, sizeof(opt), ",%.*s,", (int)strcspn(s + 4, " \t\n"), s + 4);
		if (strstr(opt, ",noats,"))
			return true;
	}
	return false;
}

static void rail(const struct gp_host *h, const struct gp_vm_layout *l, int i, struct gp_report *r)
{
	const struct gp_dev *nic = &h->devs[l->devs[i].dev], *gpu;
	enum gp_path c;

	if (l->devs[i].rail < 0) {
		gp_report_add(r, GP_F_NIC_RAIL, GP_WARN, nic->bdf,
			      "NCCL in the guest still uses it, without GPUDirect RDMA",
			      "goes into the VM with no GPU to serve");
		return;
	}
	gpu = &h->devs[l->devs[l->devs[i].rail].dev];
	c = gp_topo_classify(h, l->devs[i].dev, l->devs[l->devs[i].rail].dev);
	if (gdr_near(c)) {
		gp_report_add(r, GP_F_NIC_RAIL, GP_OK, nic->bdf, NULL,
			      "serves GPU %s (%s): GPUDirect RDMA within NCCL's default "
			      "NCCL_NET_GDR_LEVEL (PXB)",
			      gpu->bdf, gp_path_name(c));
		return;
	}
	gp_report_add(r, GP_F_NIC_RAIL, GP_WARN, nic->bdf,
		      "a NIC under the GPU's PCIe switch keeps GPUDirect RDMA; NCCL_NET_GDR_LEVEL "
		      "in the guest can allow a longer path where the root complex forwards P2P "
		      "well",
		      "nearest GPU %s is %s away: NCCL stages its traffic through host memory "
		      "(GPUDirect RDMA only up to PXB by default)",
		      gpu->bdf, gp_path_name(c));
}

/* The GPUs no passed NIC serves, where there are NICs: they share another's. */
static void unserved(const struct gp_host *h, const struct gp_vm_layout *l, struct gp_report *r)
{
	int g, i;

	for (g = 0; g < l->ndevs; g++) {
		bool served = false;

		if (!l->devs[g].gpu)
			continue;
		for (i = 0; i < l->ndevs; i++)
			served |= l->devs[i].nic && l->devs[i].rail == g;
		if (!served)
			gp_report_add(r, GP_F_NIC_RAIL, GP_WARN, h->devs[l->devs[g].dev].bdf,
				      "NCCL prefers a NIC per GPU: pass one more port, near it",
				      "no RoCE port of its own: it shares another GPU's");
	}
}

/*
 * Between a NIC and its GPU under one switch, a VM's DMA carries guest
 * addresses; with ACS redirect on the switch's ports each request goes up
 * to the root complex for translation unless the NIC translated it first
 * (ATS) and the ports let translated requests through directly (ACS Direct
 * Translated P2P).  NVIDIA's and IBM's recipe: 0x5D on those ports only
 * (SV, RR, CR, UF kept, DT added), not a blanket write.
 */
static void path_acs(const struct gp_host *h, int nic, int gpu, struct gp_report *r)
{
	int b[MAX_PATH_BRIDGES], n = gp_topo_path_bridges(h, nic, gpu, b, MAX_PATH_BRIDGES), k;
	bool settable = true;
	char list[256] = "";
	size_t len = 0;

	for (k = 0; k < n; k++) {
		const struct gp_dev *d = &h->devs[b[k]];

		if (!gp_acs_redirects_translated(d))
			continue;
		settable &= gp_acs_settable(d);
		if (len < sizeof(list) - GP_BDF_LEN - 2)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						len ? ", " : "", d->bdf);
	}
	if (!len) {
		gp_report_add(r, GP_F_NIC_ACS, GP_OK, h->devs[nic].bdf, NULL,
			      "no port between it and GPU %s redirects translated P2P",
			      h->devs[gpu].bdf);
		return;
	}
	/* the plan's acs.set steps are core/acs.c's gp_acs_ports: these ports */
	gp_report_add(r, GP_F_NIC_ACS, GP_WARN, h->devs[nic].bdf,
		      settable ? "the plan sets ACS Direct Translated P2P on these ports only "
				 "(acs.set), keeping the redirect, and again at every boot"
			       : "set ACS Direct Translated P2P on these ports only, keeping the "
				 "redirect (setpci -s PORT ECAP_ACS+6.w=5d), again at every boot; "
				 "a port whose ACS capability lacks it cannot",
		      "ACS redirect without Direct Translated P2P on %s: GPUDirect RDMA to GPU %s "
		      "goes up to the root complex",
		      list, h->devs[gpu].bdf);
}

static void ats(const struct gp_host *h, int nic, struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[nic];

	if (d->config_short) {
		gp_report_add(r, GP_F_NIC_ATS, GP_WARN, d->bdf,
			      "run as root: the ATS capability is in extended config space",
			      "cannot tell whether it has ATS");
		return;
	}
	if (d->ats < 0) {
		gp_report_add(r, GP_F_NIC_ATS, GP_WARN, d->bdf,
			      "enable it in the NIC's firmware (ConnectX: mlxconfig -d BDF set "
			      "ATS_ENABLED=true) and power-cycle the host",
			      "no ATS capability: GPUDirect RDMA through the switch needs the NIC "
			      "to translate its own addresses");
		return;
	}
	gp_report_add(r, GP_F_NIC_ATS, GP_OK, d->bdf, NULL, "ATS capability present (%s)",
		      d->ats ? "enabled" : "the IOMMU enables it when it attaches");
}

/* mlx5: a RoCE LAG needs SR-IOV off (kernel commit 86b39a66b75f). */
static void sriov_lag(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < h->nifaces; i++) {
		const struct gp_iface *f = &h->ifaces[i];

		if (f->dev < 0 || !f->master[0] || !gp_nic_matches(p, &h->devs[f->dev]))
			continue;
		bad++;
		gp_report_add(r, GP_F_NIC_SRIOV_LAG, GP_FAIL, f->name,
			      "take the port out of the bond (or use mode = host): mlx5 makes no "
			      "virtual functions on a port of a RoCE LAG",
			      "a port of %s: the host's RoCE LAG and SR-IOV exclude each other",
			      f->master);
	}
	if (!bad)
		gp_report_add(r, GP_F_NIC_SRIOV_LAG, GP_OK, "host", NULL,
			      "no port [nic] makes virtual functions on is in a bond");
}

/* The firmware its host interface's RDMA device reports; NULL when none does. */
static const char *port_fw(const struct gp_host *h, int dev)
{
	size_t i;

	for (i = 0; i < h->nifaces; i++)
		if (h->ifaces[i].dev == dev && h->ifaces[i].fw_ver[0])
			return h->ifaces[i].fw_ver;
	return NULL;
}

/* The profile's minimum for fw's family (its first number), or NULL. */
static const char *family_min(const struct gp_profile *p, const char *fw)
{
	int i;

	for (i = 0; i < p->nic.nmin_firmware; i++)
		if (strtoul(p->nic.min_firmware[i], NULL, 10) == strtoul(fw, NULL, 10))
			return p->nic.min_firmware[i];
	return NULL;
}

/*
 * Each port [nic] match names against [nic] min_firmware, as its RDMA
 * device reports it (mlx5_ib prints "%d.%d.%04d": compared number by
 * number), the version of its family: a ConnectX's firmware major names
 * the device (20 ConnectX-6, 22 ConnectX-6 Dx, 28 ConnectX-7), so 28.x says
 * nothing of a 22.x minimum.  Only the host's driver shows it: once
 * vfio-pci holds a port the host cannot tell, and says so.
 */
static void firmware(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	size_t i;

	if (!p->nic.nmin_firmware)
		return;
	for (i = 0; i < h->ndevs; i++) {
		const struct gp_dev *d = &h->devs[i];
		const char *fw, *min;

		if (!gp_nic_matches(p, d))
			continue;
		fw = port_fw(h, (int)i);
		min = fw && gp_version_dotted(fw) ? family_min(p, fw) : NULL;
		if (!fw || !gp_version_dotted(fw))
			gp_report_add(
				r, GP_F_NIC_FIRMWARE, GP_WARN, d->bdf,
				"read it while the host's driver holds the port (mlx5_core with "
				"mlx5_ib: /sys/class/infiniband/*/fw_ver), or in the guest",
				"cannot tell its firmware (%s)",
				fw ? "not a dotted version"
				   : "no RDMA device of the host's, or a version too long to be "
				     "one");
		else if (!min)
			gp_report_add(r, GP_F_NIC_FIRMWARE, GP_WARN, d->bdf,
				      "add its family's minimum to [nic] min_firmware",
				      "firmware %s: [nic] min_firmware names no version of its "
				      "family (%lu.x)",
				      fw, strtoul(fw, NULL, 10));
		else if (gp_version_cmp(fw, min) < 0)
			gp_report_add(
				r, GP_F_NIC_FIRMWARE, GP_FAIL, d->bdf,
				"update the NIC's firmware (ConnectX: mlxfwmanager, or mstflint "
				"with the image for its PSID) and reset it or power-cycle the "
				"host",
				"firmware %s is older than [nic] min_firmware %s", fw, min);
		else
			gp_report_add(r, GP_F_NIC_FIRMWARE, GP_OK, d->bdf, NULL,
				      "firmware %s (at least %s)", fw, min);
	}
}

static void ports(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	struct gp_vm_layout l;
	bool through_switch = false, any = false;
	int i;

	if (p->nic.mode == GP_NIC_VF) {
		sriov_lag(h, p, r);
		return;
	}
	gp_vm_layout(h, p, &l);
	for (i = 0; i < l.ndevs; i++) {
		int g = l.devs[i].rail;

		if (!l.devs[i].nic)
			continue;
		any = true;
		gp_check_iommu_group(h, p, l.devs[i].dev, r);
		rail(h, &l, i, r);
		if (g < 0 || !gdr_near(gp_topo_classify(h, l.devs[i].dev, l.devs[g].dev)))
			continue;
		through_switch = true;
		ats(h, l.devs[i].dev, r);
		path_acs(h, l.devs[i].dev, l.devs[g].dev, r);
	}
	if (!any) {
		gp_report_add(r, GP_F_NIC_RAIL, GP_FAIL, "host",
			      "check [nic] match against 'lspci -D -d 15b3:' (a network function, "
			      "class 02)",
			      "no network function of this host matches [nic] match");
		return;
	}
	unserved(h, &l, r);
	if (through_switch)
		gp_report_add(r, GP_F_KERNEL_NOATS, noats(h->cmdline) ? GP_WARN : GP_OK, "host",
			      noats(h->cmdline) ? "remove noats from pci= on the kernel command "
						  "line and reboot"
						: NULL,
			      noats(h->cmdline) ? "pci=noats: no device may send translated "
						  "requests, so GPUDirect RDMA between a NIC and "
						  "its GPU goes through the root complex"
						: "ATS allowed (no pci=noats)");
}

void gp_check_nic(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	if (!p->has_nic || p->nic.mode == GP_NIC_HOST)
		return;
	ports(h, p, r);
	firmware(h, p, r);
}
