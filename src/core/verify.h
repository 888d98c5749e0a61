/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `gpuprov verify` measured, and the verdicts that follow: pure.
 * sys/ fills the numbers (NVML, CUDA, NCCL); cli/cmd_verify.c prints them.
 */
#ifndef GP_VERIFY_H
#define GP_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bandwidth.h"
#include "core/nvlink.h"

/* Below this fraction of the link ceiling a pair is a warning (exit 1). */
#define GP_VERIFY_WARN_FRACTION 0.5
/* Below this fraction of what it can be expected to reach (bandwidth.c), too. */
#define GP_VERIFY_EXPECT_FRACTION 0.8

#define GP_VERIFY_MAX_SIZES	  8

enum gp_verdict {
	GP_VERDICT_OK,
	GP_VERDICT_WARN,
	GP_VERDICT_FAIL,
};

struct gp_vgpu {
	struct gp_nv_gpu nv; /* NVML's view: bdf, name, BAR1, links */
	int cuda;	     /* CUDA's device index, -1 when CUDA does not see it */
	uint64_t bar_bytes;  /* the largest BAR the card advertises (sysfs/ReBAR), 0 unknown */
	bool bar_small;	     /* BAR1 smaller than that: the VM's MMIO window */
};

struct gp_vpair {
	int from, to;	       /* indices into the GPU list */
	int p2p[GP_P2P_NCAPS]; /* NVML status per enum gp_p2p_cap; -1 unknown */
	int can_access;	       /* cuDeviceCanAccessPeer: 1, 0, -1 unknown */
	bool peer_enabled;     /* cuCtxEnablePeerAccess succeeded */
	bool readback_done;
	bool readback_ok;
	bool readback_kernel; /* the writer's threads stored it (else its copy engine) */
	uint64_t mismatches, words;
	double gbps_uni, gbps_bidir; /* 0 when not measured */
	double ceiling_gbps;	     /* per direction; 0 unknown */
	const char *ceiling_from;    /* "nvlink", "pcie" or NULL */
	double pcie_gbps;	     /* the slower PCIe link's ceiling, 0 unknown */
	struct gp_expect expected;   /* what it can be expected to reach one way; gbps 0 unknown */
	int nvlinks;
	enum gp_verdict verdict;
	char why[640];
};

struct gp_nccl_point {
	uint64_t bytes;
	double ms;	     /* per all-reduce */
	double algbw, busbw; /* GB/s */
};

struct gp_nccl_runs {
	bool tried;
	bool ok;
	char why[200];
	int version; /* ncclGetVersion: 22803 */
	int ranks;   /* GPUs in the all-reduce */
	int npoints;
	struct gp_nccl_point points[GP_VERIFY_MAX_SIZES];
};

/*
 * verify's record of what it measured on this machine (struct gp_vrecord,
 * core/model.h), beside the NVLink record; under GPUPROV_STATE_DIR when set.
 */
#define GP_VERIFY_RECORD "/var/lib/gpuprov/verify.json"
/* The record as JSON text (malloc'ed). */
char *gp_vrecord_to_json(const struct gp_vrecord *r);
/* Parses one (hostile: bounded, every bus ID checked); -EINVAL with why. */
int gp_vrecord_from_json(const char *text, struct gp_vrecord *r, char *why, size_t len);
/* The one-way rate measured from a to b (else b to a, the pair's other direction); 0 none. */
double gp_vrecord_pair(const struct gp_vrecord *r, const char *a, const char *b);

/* PCIe generation to GT/s, 0 unknown. */
double gp_pcie_gen_gts(int gen);
/* A pair's ceiling per direction: NVLink when joined, else the slower PCIe link. */
void gp_verify_ceiling(struct gp_vpair *p, const struct gp_vgpu *a, const struct gp_vgpu *b,
		       const struct gp_nv_view *v, int ia, int ib);
/*
 * The all-reduce's predicted bus bandwidth over the n GPUs of g and their
 * np pairs: the measured reference of two GPUs over 18 NVLink 4 links, else
 * the slowest pair's expectation (a ring's bus bandwidth is its slowest
 * link's one-way rate).  -ENOENT when no pair has one.
 */
int gp_verify_predict(const struct gp_vgpu *g, int n, const struct gp_vpair *p, int np,
		      struct gp_expect *e);
/* Why an all-reduce's bus bandwidth fell short of the prediction, in words. */
const char *gp_verify_nccl_cause(double busbw, double nop2p_busbw, double predicted);
/* Verdict and why, from what was measured. */
void gp_verify_judge(struct gp_vpair *p, bool measured);
/* nccl-tests' bus bandwidth of an all-reduce over n ranks. */
double gp_allreduce_busbw(double algbw, int n);
const char *gp_verdict_name(enum gp_verdict v);
/*
 * A GPU's NVSwitch fabric registration as NVML says it (HGX boards): ok when
 * completed with success or when the GPU has no fabric; warn while not
 * started or in progress (CUDA fails with error 802 meanwhile: Fabric
 * Manager must run, and the guest be power-cycled after it starts); fail
 * when completed with an error.  why: what to say, "" when nothing.
 */
enum gp_verdict gp_verify_fabric(const struct gp_nv_gpu *g, char *why, size_t len);
/* NVML's words for a fabric state: "Completed", "In Progress", ... */
const char *gp_fabric_state_name(int state);
/* The largest BAR size in the ReBAR capability of config space, 0 without one. */
uint64_t gp_rebar_max(const uint8_t *cfg, size_t len);

#endif
