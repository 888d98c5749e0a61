/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVLink as NVML reports it, and what follows from it: the NV# cells of
 * `nvidia-smi topo -m`, a pair's link ceiling, and the record apply keeps
 * so that the links are still known once the GPUs are on vfio-pci.
 * Pure: no reading of the machine (sys/nvml.c fills these).
 */
#ifndef GP_NVLINK_H
#define GP_NVLINK_H

#include <stdbool.h>
#include <stdint.h>

struct json_object;

#define GP_NV_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS */
#define GP_NV_BDF_LEN	16
#define GP_NV_NAME_LEN	96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */

/* nvmlIntNvLinkDeviceType_t */
enum gp_nv_remote {
	GP_NV_REMOTE_GPU = 0,
	GP_NV_REMOTE_NPU = 1,
	GP_NV_REMOTE_SWITCH = 2,
	GP_NV_REMOTE_UNKNOWN = 0xff,
};

struct gp_nv_link {
	bool up;
	int remote_type;	    /* enum gp_nv_remote */
	char remote[GP_NV_BDF_LEN]; /* the far end's PCI address, "" unknown */
};

struct gp_nv_gpu {
	char bdf[GP_NV_BDF_LEN]; /* "0000:41:00.0" */
	char name[GP_NV_NAME_LEN];
	unsigned version; /* nvmlDeviceGetNvLinkVersion of its first link up, 0 none */
	double link_gbps; /* GB/s per link and direction, 0 unknown */
	int nlinks;	  /* links NVML answered for */
	struct gp_nv_link links[GP_NV_MAX_LINKS];
	uint64_t bar1;		  /* BAR1 total bytes (NVML), 0 unknown */
	int pcie_gen, pcie_width; /* the most the GPU's PCIe link can do, 0 unknown */
	/* NVML's fabric info (nvmlDeviceGetGpuFabricInfo[V]), read live only */
	bool fabric_read;
	int fabric_state;  /* enum gp_fabric_state */
	int fabric_status; /* nvmlReturn_t of the registration, once completed */
	unsigned fabric_clique;
};

/* NVML_GPU_FABRIC_STATE_*: an HGX GPU's registration with the NVSwitch fabric */
enum gp_fabric_state {
	GP_FABRIC_NOT_SUPPORTED = 0,
	GP_FABRIC_NOT_STARTED = 1,
	GP_FABRIC_IN_PROGRESS = 2,
	GP_FABRIC_COMPLETED = 3,
};

/* nvmlGpuP2PCapsIndex_t, in the order verify reports them */
enum gp_p2p_cap {
	GP_P2P_READ = 0,
	GP_P2P_WRITE = 1,
	GP_P2P_NVLINK = 2,
	GP_P2P_ATOMICS = 3,
	GP_P2P_NCAPS = 4,
};

/* What is known of the NVLinks, and where from. */
enum gp_nv_source {
	GP_NV_NONE,	  /* not readable: why says so */
	GP_NV_NVML,	  /* read now */
	GP_NV_REMEMBERED, /* recorded earlier (apply), seen_at says when */
};

struct gp_nv_view {
	enum gp_nv_source source;
	char why[160];	  /* GP_NV_NONE: why not */
	char seen_at[32]; /* GP_NV_REMEMBERED: "2026-11-30T21:40:00Z" */
	struct gp_nv_gpu *gpus;
	int n;
};

int gp_nv_links_up(const struct gp_nv_gpu *g);
/* Per-link rate by NVLink generation (NVML version code), 0 unknown. */
double gp_nv_rate_for_version(unsigned version);
double gp_nv_link_rate(const struct gp_nv_gpu *g);
int gp_nv_find(const struct gp_nv_view *v, const char *bdf);
/* The number in nvidia-smi's NV# cell for GPUs a and b (indices), 0 for none. */
int gp_nv_pair_links(const struct gp_nv_view *v, int a, int b);
/* GB/s per direction the NVLinks between a and b can carry, 0 none. */
double gp_nv_pair_ceiling(const struct gp_nv_view *v, int a, int b);
bool gp_nv_via_switch(const struct gp_nv_view *v, int a, int b);
void gp_nv_view_release(struct gp_nv_view *v);

/* The record apply keeps (GP_NV_RECORD under the root): one JSON document. */
#define GP_NV_RECORD "/var/lib/gpuprov/nvlink.json"
struct json_object *gp_nv_to_json(const struct gp_nv_view *v, const char *seen_at);
/* 0, or -EINVAL with why filled: a hostile file gets a message, not a crash. */
int gp_nv_from_json(const char *text, struct gp_nv_view *v, char *why, size_t len);
/* Normalises "00000000:06:00.0" (NVML) or "0000:06:00.0" to "0000:06:00.0". */
int gp_nv_bdf(const char *in, char out[GP_NV_BDF_LEN]);

#endif
