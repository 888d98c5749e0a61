/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NCCL, loaded at run time (dlopen of libnccl.so.2) when it is there: optional. */
#ifndef GP_NCCL_H
#define GP_NCCL_H

#include <stddef.h>

#include "sys/cudadrv.h"
#include "core/verify.h"

/*
 * An all-reduce (float sum) over every CUDA device, one communicator each
 * (ncclCommInitAll), at each size, iters times after a warm-up, timed with
 * events on each device's stream.  lib: the library to load (a path, or
 * "libnccl.so.2" for the loader's search).  Fills out (tried, ok, why, points).
 */
void gp_nccl_allreduce(struct gp_cuda *c, const char *lib, const size_t *sizes, int nsizes,
		       int iters, struct gp_nccl_runs *out);

#endif
