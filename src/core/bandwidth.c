// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bandwidth table and the expectations drawn from it.  NCCL's figures
 * are its source's: src/graph/topo.h (SM80_NVLINK_BW 20.0, SM90 20.6,
 * SM100 40.1, AMD_ZEN34_BW 24, INTEL_P2P_OVERHEAD 6/5) and topo.cc
 * (kvDictPciGen: a PCIe link is width x per-lane figure / 80 GB/s: Gen3
 * x16 12, Gen4 24, Gen5 48).  The measured references are one way, GPU to
 * GPU, as their sources measured them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/bandwidth.h"
#include "core/nvlink.h"
#include "shared/util.h"

const struct gp_bw_ref gp_bw_refs[] = {
	{ "pcie3-x16", "PCIe Gen3 x16", 15.75, 12.0, 0, NULL },
	{ "pcie4-x16", "PCIe Gen4 x16", 31.5, 24.0, 25.0,
	  "GPU-to-GPU P2P, one way (NVIDIA/nccl-tests#74)" },
	{ "pcie5-x16", "PCIe Gen5 x16, both GPUs on one node's root complex (AMD EPYC Genoa)", 63.0,
	  48.0, 54.0, "p2pBandwidthLatencyTest (voipmonitor/rtx6kpro, pcie-bandwidth.md)" },
	{ "pcie5-x16-sys", "PCIe Gen5 x16 across the two sockets (AMD EPYC Genoa)", 63.0, 24.0,
	  39.0, "p2pBandwidthLatencyTest (voipmonitor/rtx6kpro, pcie-bandwidth.md)" },
	{ "pcie6-x16", "PCIe Gen6 x16", 121.0, 96.0, 0, NULL },
	{ "amd-zen12-sys", "AMD Zen 1/2 socket to socket (NCCL's AMD_ZEN12_BW)", 0, 16.0, 0, NULL },
	{ "amd-zen34-sys", "AMD Zen 3/4 socket to socket (NCCL's AMD_ZEN34_BW)", 0, 24.0, 0, NULL },
	{ "amd-zen5-sys", "AMD Zen 5 socket to socket (NCCL's AMD_ZEN5_BW)", 0, 32.0, 0, NULL },
	{ "nvlink3", "NVLink 3, one link (A100, SM80)", 25.0, 20.0, 0, NULL },
	{ "nvlink4", "NVLink 4, one link (H100, H200, SM90)", 26.5625, 20.6, 0, NULL },
	{ "nvlink5", "NVLink 5, one link (Blackwell, SM100)", 50.0, 40.1, 0, NULL },
	{ "nvlink4-x18", "18 NVLink 4 links between two GPUs (H100/H200 SXM)", 478.125, 370.8,
	  380.0, "p2pBandwidthLatencyTest on H100 SXM (NVIDIA/nccl#1264)" },
	{ "allreduce-2-nvlink4-x18", "2-GPU NCCL all-reduce bus bandwidth over 18 NVLink 4 links",
	  478.125, 370.8, 326.0, "all_reduce_perf, 1 GiB, two H200 SXM in one VM" },
};
const int gp_bw_nrefs = (int)ARRAY_SIZE(gp_bw_refs);

const struct gp_bw_ref *gp_bw_find(const char *key)
{
	int i;

	for (i = 0; i < gp_bw_nrefs; i++)
		if (!strcmp(gp_bw_refs[i].key, key))
			return &gp_bw_refs[i];
	return NULL;
}

/* kvDictPciGen's per-lane figures, in 100 Mbit/s: 15, 30, 60, 120, 240, 480. */
double gp_bw_nccl_pcie(double gts, int width)
{
	static const struct {
		double gts;
		int lane;
	} gen[] = { { 2.5, 15 },   { 5.0, 30 },	  { 8.0, 60 },
		    { 16.0, 120 }, { 32.0, 240 }, { 64.0, 480 } };
	size_t i;

	if (width <= 0)
		return 0;
	for (i = 0; i < ARRAY_SIZE(gen); i++)
		if (gts > gen[i].gts - 0.1 && gts < gen[i].gts + 0.1)
			return width * gen[i].lane / 80.0;
	return width * 60 / 80.0; /* NCCL's own fallback for a speed it does not know */
}

/* NCCL's socket-to-socket figure for an AMD CPU family, 0 unknown. */
static const struct gp_bw_ref *amd_sys(int family)
{
	if (family == 0x17)
		return gp_bw_find("amd-zen12-sys");
	if (family == 0x19)
		return gp_bw_find("amd-zen34-sys");
	if (family == 0x1a)
		return gp_bw_find("amd-zen5-sys");
	return NULL;
}

/*
 * A measured reference for this generation at x16 and path, or NULL: the
 * Gen5 ones were measured through AMD EPYC root complexes, and hold there.
 */
static const struct gp_bw_ref *pcie_measured(double gts, int width, enum gp_path cls, bool amd)
{
	const struct gp_bw_ref *r = NULL;

	if (width != 16)
		return NULL;
	if (gts > 15.9 && gts < 16.1 && cls != GP_PATH_SYS)
		r = gp_bw_find("pcie4-x16");
	else if (gts > 31.9 && gts < 32.1 && amd)
		r = gp_bw_find(cls == GP_PATH_SYS ? "pcie5-x16-sys" : "pcie5-x16");
	return r && r->measured > 0 ? r : NULL;
}

int gp_bw_expect_pcie(double gts, int width, enum gp_path cls, bool gpus, const char *cpu_vendor,
		      int cpu_family, struct gp_expect *e)
{
	bool intel = cpu_vendor && !strcmp(cpu_vendor, "GenuineIntel");
	bool amd = cpu_vendor && !strcmp(cpu_vendor, "AuthenticAMD");
	const struct gp_bw_ref *m = gpus ? pcie_measured(gts, width, cls, amd) : NULL, *sys;
	bool via_cpu = cls == GP_PATH_PHB || cls == GP_PATH_NODE || cls == GP_PATH_SYS;
	double bw = gp_bw_nccl_pcie(gts, width);

	memset(e, 0, sizeof(*e));
	if (gts <= 0 || width <= 0)
		return -ENOENT;
	if (m) {
		e->gbps = m->measured;
		snprintf(e->basis, sizeof(e->basis), "measured: %s", m->measured_src);
		return 0;
	}
	snprintf(e->basis, sizeof(e->basis), "NCCL model: %g GT/s x%d = %.1f GB/s", gts, width, bw);
	sys = cls == GP_PATH_SYS && amd ? amd_sys(cpu_family) : NULL;
	if (sys && sys->nccl < bw) {
		bw = sys->nccl;
		snprintf(e->basis, sizeof(e->basis), "NCCL model: %s, %.1f GB/s", sys->what, bw);
	}
	if (intel && via_cpu) { /* INTEL_P2P_OVERHEAD: 64-byte TLPs through the root complex */
		bw = bw * 5 / 6;
		gp_strlcpy(e->basis + strlen(e->basis), " less Intel's P2P overhead (6/5)",
			   sizeof(e->basis) - strlen(e->basis));
	}
	e->gbps = bw;
	return 0;
}

/* NCCL's per-link figure for NVML's per-link rate: 25 is SM80's 20.0, and so on. */
static const struct gp_bw_ref *nvlink_row(double link_gbps)
{
	if (link_gbps > 24.9 && link_gbps < 25.1)
		return gp_bw_find("nvlink3");
	if (link_gbps > 26.5 && link_gbps < 26.6)
		return gp_bw_find("nvlink4");
	if (link_gbps > 49.9 && link_gbps < 50.1)
		return gp_bw_find("nvlink5");
	return NULL;
}

int gp_bw_expect_nvlink(int n, double link_gbps, struct gp_expect *e)
{
	const struct gp_bw_ref *row = nvlink_row(link_gbps), *pair = gp_bw_find("nvlink4-x18");

	memset(e, 0, sizeof(*e));
	if (n <= 0 || !row)
		return -ENOENT;
	if (n == 18 && !strcmp(row->key, "nvlink4")) {
		e->gbps = pair->measured;
		snprintf(e->basis, sizeof(e->basis), "measured: %s", pair->measured_src);
		return 0;
	}
	e->gbps = n * row->nccl;
	snprintf(e->basis, sizeof(e->basis), "NCCL model: %d x %.1f GB/s (%s)", n, row->nccl,
		 row->what);
	return 0;
}

int gp_bw_expect_pcie_pair(const struct gp_host *h, int a, int b, struct gp_expect *e)
{
	struct gp_hop hop = gp_topo_slowest(h, a, b);

	bool gpus = h->devs[a].role == GP_ROLE_GPU && h->devs[b].role == GP_ROLE_GPU;

	return gp_bw_expect_pcie(hop.speed, hop.width, gp_topo_classify(h, a, b), gpus,
				 h->cpu_vendor, h->cpu_family, e);
}

int gp_bw_expect_nvlink_pair(const struct gp_host *h, int a, int b, struct gp_expect *e)
{
	int ia = gp_nv_find(&h->nv, h->devs[a].bdf), ib = gp_nv_find(&h->nv, h->devs[b].bdf);
	int n = gp_nv_pair_links(&h->nv, ia, ib);

	memset(e, 0, sizeof(*e));
	if (n <= 0 || ia < 0)
		return -ENOENT;
	return gp_bw_expect_nvlink(n, gp_nv_link_rate(&h->nv.gpus[ia]), e);
}

int gp_bw_expect_pair(const struct gp_host *h, int a, int b, struct gp_expect *e)
{
	if (!gp_bw_expect_nvlink_pair(h, a, b, e))
		return 0;
	return gp_bw_expect_pcie_pair(h, a, b, e);
}
