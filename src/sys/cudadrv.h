/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CUDA driver API, loaded at run time (dlopen of libcuda.so.1), and the
 * peer tests verify runs with it.  It enables peer access in gpuprov's own
 * contexts only: no GPU setting (persistence, clocks, compute mode, MIG,
 * ECC) is ever touched.
 */
#ifndef GP_CUDADRV_H
#define GP_CUDADRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gp_cuda;

/* 0, or -ENOENT (no libcuda.so.1), -ENOSYS (a symbol missing), -ENODEV (cuInit failed). */
int gp_cuda_open(struct gp_cuda **out, char *why, size_t len);
void gp_cuda_close(struct gp_cuda *c);
int gp_cuda_count(const struct gp_cuda *c);
/* "0000:06:00.0" of device i, "" when CUDA does not say. */
const char *gp_cuda_bdf(const struct gp_cuda *c, int i);
const char *gp_cuda_error(const struct gp_cuda *c); /* the last failure, in words */

/* cuDeviceCanAccessPeer: 1, 0, or -1 when it failed. */
int gp_cuda_can_access(struct gp_cuda *c, int i, int j);
/* Lets device i's context reach j's memory (cuCtxEnablePeerAccess); 0 or -EIO. */
int gp_cuda_enable_peer(struct gp_cuda *c, int i, int j);

/* The pattern word i of a read-back test: the same here and in the kernel. */
uint32_t gp_cuda_pattern(uint32_t i, uint32_t seed);

struct gp_readback {
	bool ok;
	uint64_t words, mismatches;
	uint64_t first_bad; /* index of the first word that differed */
	bool by_kernel;	    /* the writer's own threads stored it (else its copy engine) */
};
/*
 * GPU writer stores a pattern into owner's memory through the peer
 * mapping; owner then reads its own memory back and compares.  0 (result in
 * out) or -EIO when CUDA failed.
 */
int gp_cuda_readback(struct gp_cuda *c, int writer, int owner, size_t bytes,
		     struct gp_readback *out);

/*
 * Peer copies of bytes, iters times after warm-up, timed with events:
 * a to b alone (uni), then both ways at once (bidir, bytes counted both
 * ways).  GB/s, 1e9 bytes.  0 or -EIO.
 */
int gp_cuda_bandwidth(struct gp_cuda *c, int a, int b, size_t bytes, int iters, double *uni,
		      double *bidir);

/* For NCCL: per device a stream, buffers and event timing. */
void *gp_cuda_stream(struct gp_cuda *c, int i);
int gp_cuda_alloc(struct gp_cuda *c, int i, size_t bytes, uint64_t *ptr);
void gp_cuda_free(struct gp_cuda *c, int i, uint64_t ptr);
int gp_cuda_mark(struct gp_cuda *c, int i, bool stop);
/* Milliseconds between device i's start and stop marks, once its stream is done. */
int gp_cuda_marked_ms(struct gp_cuda *c, int i, double *ms);

#endif
