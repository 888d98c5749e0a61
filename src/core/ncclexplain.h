/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why NCCL did what it did: its own NCCL_DEBUG=INFO lines (with
 * NCCL_DEBUG_SUBSYS=INIT,ENV,GRAPH) and the topology it resolved
 * (NCCL_TOPO_DUMP_FILE), read into the transport it chose per GPU pair,
 * the path and P2P level it judged the pair by, GPUDirect RDMA, the CPU it
 * saw, its version and warnings; then what to change.  Pure: `verify`
 * captures the text (cli/cmd_verify.c), this reads it.  Both are hostile
 * input: every line is cut at GP_NX_LINE_MAX, every list is bounded, every
 * string is copied bounded and escaped by whoever prints it.
 */
#ifndef GP_NCCLEXPLAIN_H
#define GP_NCCLEXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/util.h"

#define GP_NX_LINE_MAX	1024 /* NCCL's own lines are at most 1024 (its debug.cc buffer) */
#define GP_NX_MAX_GPUS	32
#define GP_NX_MAX_PAIRS 64
#define GP_NX_MAX_GDR	16
#define GP_NX_MAX_ENV	24
#define GP_NX_MAX_WARN	16
#define GP_NX_MAX_ADV	8
#define GP_NX_WARN_LEN	240
#define GP_NX_ADV_LEN	480

/* What NCCL's "Channel NN/N : A[a] -> B[b] via ..." line names, by family. */
enum gp_nx_kind {
	GP_NX_UNKNOWN,
	GP_NX_P2P,  /* P2P/direct pointer, P2P/CUMEM, P2P/IPC, P2P/indirect/..., P2P/MNNVL */
	GP_NX_SHM,  /* through host memory */
	GP_NX_NET,  /* through a network device, even inside one machine */
	GP_NX_COLL, /* CollNet/NVLS: not a pair's own path */
};

/* One rank as NCCL's Init line (or the dump's <gpu rank=>) names it. */
struct gp_nx_rank {
	int rank;
	char bdf[GP_BDF_LEN]; /* from NCCL's busId, "" unknown */
};

/* A directed pair of ranks and how NCCL connected it. */
struct gp_nx_pair {
	int a, b; /* ranks */
	char transport
		[40]; /* as NCCL says it: "P2P/CUMEM", "SHM/direct/direct", "NET/IB/0/GDRDMA" */
	enum gp_nx_kind kind;
	bool mixed;   /* another channel of the pair went another way */
	int channels; /* channel lines seen for it */
	int gdr;      /* NET: 1 through GPUDirect RDMA (/GDRDMA), 0 not; -1 not NET */
	char path
		[4]; /* the GPU-to-GPU path class NCCL computed (GRAPH): NVL, PIX, ... "" unknown */
	char p2p_level
		[4]; /* the P2P level NCCL applies to it (its default or the user's), "" unknown */
};

/* "GPU Direct RDMA Enabled|Disabled for ..." (paths.cc 2.21 to 2.28, topo.cc for an HCA). */
struct gp_nx_gdr {
	char gpu[20]; /* as NCCL printed it (rank, or busId before 2.24); "" for an HCA's support line */
	char hca[40]; /* the HCA's id or name */
	bool enabled;
	char distance[4]; /* path class name the decision was made on ("" when not said) */
	char level[4];	  /* NCCL_NET_GDR_LEVEL in force (its default PXB, or the user's) */
};

struct gp_nx_env {
	char name[40];
	char value[80];
};

struct gp_nccl_explain {
	int lines;	  /* NCCL lines read (INFO and WARN) */
	char version[40]; /* "2.28.9+cuda13.0", "" unseen */
	int vcode;	  /* 22809, 0 unknown */
	struct {
		bool known;
		char arch[16];	   /* the dump's <cpu arch=>: x86_64, arm64, ppc64 */
		char vendor[24];   /* GenuineIntel, AuthenticAMD, ... */
		int family, model; /* -1 unknown */
	} cpu;
	int ngpus_dump; /* GPUs in the dump (NCCL's GPU count, for its AMD rule) */
	struct gp_nx_rank ranks[GP_NX_MAX_GPUS];
	int nranks;
	struct gp_nx_pair pairs[GP_NX_MAX_PAIRS];
	int npairs;
	struct gp_nx_gdr gdr[GP_NX_MAX_GDR];
	int ngdr;
	struct gp_nx_env env[GP_NX_MAX_ENV];
	int nenv;
	int p2p_off[GP_NX_MAX_GPUS][2]; /* "P2P is disabled between ... GPUs A and B" (NVML devs) */
	int np2p_off;
	char warnings[GP_NX_MAX_WARN][GP_NX_WARN_LEN]; /* NCCL WARN lines, first ones */
	int nwarnings;
	int warnings_dropped;
	char advice[GP_NX_MAX_ADV][GP_NX_ADV_LEN];
	int nadvice;
	/* GRAPH's GPU-to-GPU path classes, by NCCL busId (internal to the parse) */
	struct {
		int64_t from, to;
		char type[4];
	} paths[GP_NX_MAX_PAIRS];
	int npaths;
};

/* Fresh: nothing seen (families -1). */
void gp_nx_init(struct gp_nccl_explain *x);
/* Reads NCCL's debug output (len bytes, NULs and all); call once per log. */
void gp_nx_log(struct gp_nccl_explain *x, const char *text, size_t len);
/* Reads NCCL_TOPO_DUMP_FILE's XML: the CPU NCCL saw, its GPUs' ranks and bus IDs. */
void gp_nx_dump(struct gp_nccl_explain *x, const char *xml, size_t len);
/*
 * After both: each pair's path and P2P level, then the advice.  cuda_p2p:
 * 1 CUDA could map every pair's peer memory (P2P was expected), 0 it could
 * not for some pair, -1 unknown.
 */
void gp_nx_finish(struct gp_nccl_explain *x, int cuda_p2p);

/* The value NCCL said it took from the environment for name, NULL when it said none. */
const char *gp_nx_env_get(const struct gp_nccl_explain *x, const char *name);
/* Rank r's bus ID, "" unknown. */
const char *gp_nx_rank_bdf(const struct gp_nccl_explain *x, int r);
/*
 * The CPU NCCL's dump shows, in words: "x86_64 AuthenticAMD" then sep (the
 * advice "", verify's line ",") and " family F model M" where the dump says them.
 */
void gp_nx_cpu_words(const struct gp_nccl_explain *x, const char *sep, char *out, size_t len);
/* The family's word: "P2P", "SHM", "NET", "CollNet", "unknown". */
const char *gp_nx_kind_name(enum gp_nx_kind k);
/* NCCL's int64 busId (hex digits of "0000:41:00.0") as a bus ID; -EINVAL when out of range. */
int gp_nx_busid(int64_t id, char out[GP_BDF_LEN]);

#endif
