/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strpool.c: the strings of a model (a host's devices, a report's findings)
 * in blocks that live as long as the model: each string takes its length,
 * not the fixed array its longest value would need, and interned values
 * (a driver's name on 500 functions) are kept once.  Nothing is freed
 * before gp_pool_release.  A zeroed pool is an empty one.
 */
#ifndef GP_STRPOOL_H
#define GP_STRPOOL_H

#include <stddef.h>

struct gp_pool_block;

struct gp_strpool {
	struct gp_pool_block *blocks;
	const char **slots; /* the interned strings: open addressing */
	size_t nslots, nused;
};

/*
 * A copy of s cut as gp_strlcpy into a buffer of max bytes would cut it
 * (max - 1 characters at most), so that a value reads the same as it did
 * from the fixed array it replaces.
 */
const char *gp_pool_copy(struct gp_strpool *p, const char *s, size_t max);
/* The same, kept once: an equal string interned before is returned. */
const char *gp_pool_intern(struct gp_strpool *p, const char *s, size_t max);
/* A copy of n bytes of data (byte-aligned: arrays of uint8_t records). */
const void *gp_pool_bytes(struct gp_strpool *p, const void *data, size_t n);
void gp_pool_release(struct gp_strpool *p);

#endif
