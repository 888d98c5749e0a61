/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bandwidth.c: what a GPU pair can be expected to reach, beside the raw
 * link ceiling: one table of figures (theoretical, NCCL's own model,
 * measured references), each with its source, that docs/BANDWIDTH.md
 * shows row for row (test_bandwidth compares the two).
 */
#ifndef GP_BANDWIDTH_H
#define GP_BANDWIDTH_H

#include "core/topo.h"

/* One row: GB/s one way (0: none known), and where each figure comes from. */
struct gp_bw_ref {
	const char *key;	  /* "pcie4-x16", "nvlink4-x18", "allreduce-2-nvlink4-x18" */
	const char *what;	  /* in words */
	double theoretical;	  /* the signalling rate after encoding */
	double nccl;		  /* NCCL's model of it (src/graph/topo.h, topo.cc) */
	double measured;	  /* a measured reference */
	const char *measured_src; /* where that was measured, NULL with none */
};

extern const struct gp_bw_ref gp_bw_refs[];
extern const int gp_bw_nrefs;
const struct gp_bw_ref *gp_bw_find(const char *key);

/* An expectation: GB/s one way and its basis ("measured: ...", "NCCL model: ..."). */
struct gp_expect {
	double gbps;
	char basis[160];
};

/* NCCL's PCIe model of a link: width x its per-lane figure / 80 (GB/s). */
double gp_bw_nccl_pcie(double gts, int width);
/*
 * A PCIe path: its slowest hop, its class, whether both ends are GPUs, and
 * the CPU NCCL sees (vendor_id, family): between GPUs a measured reference
 * for the generation where one exists, else NCCL's model (the inter-socket link for SYS, the
 * 6/5 overhead of Intel root complexes).  0 when the hop is unknown.
 */
int gp_bw_expect_pcie(double gts, int width, enum gp_path cls, bool gpus, const char *cpu_vendor,
		      int cpu_family, struct gp_expect *e);
/* n NVLinks of per-link rate link_gbps (NVML's): the measured pair, else NCCL's per link x n. */
int gp_bw_expect_nvlink(int n, double link_gbps, struct gp_expect *e);

/* Host devices a and b (indices in h->devs): over their PCIe path, and over
 * NVLink when NVLinks join them (else -ENOENT); the pair: NVLink first. */
int gp_bw_expect_pcie_pair(const struct gp_host *h, int a, int b, struct gp_expect *e);
int gp_bw_expect_nvlink_pair(const struct gp_host *h, int a, int b, struct gp_expect *e);
int gp_bw_expect_pair(const struct gp_host *h, int a, int b, struct gp_expect *e);
#endif
