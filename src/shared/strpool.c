// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A string pool: bump allocation in blocks, and an open-addressing table
 * for the interned strings (FNV-1a).  Blocks grow with the pool so that a
 * host of 16k functions takes a few dozen allocations, not 16k.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/strpool.h"
#include "shared/util.h"

#define BLOCK_MIN 4096

struct gp_pool_block {
	struct gp_pool_block *next;
	size_t size, used;
	char data[];
};

static char *room(struct gp_strpool *p, size_t n)
{
	struct gp_pool_block *b = p->blocks;
	size_t size;

	if (!b || b->size - b->used < n) {
		/* twice the last block, up to 1 MiB; a longer string gets its own */
		size = b ? b->size * 2 : BLOCK_MIN;
		if (size > (1u << 20))
			size = 1u << 20;
		if (size < n)
			size = n;
		b = gp_xcalloc(1, sizeof(*b) + size);
		b->size = size;
		b->next = p->blocks;
		p->blocks = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

static size_t cut(const char *s, size_t max)
{
	return max ? strnlen(s, max - 1) : 0;
}

static const char *store(struct gp_strpool *p, const char *s, size_t len)
{
	char *d;

	if (!len)
		return "";
	d = room(p, len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

const char *gp_pool_copy(struct gp_strpool *p, const char *s, size_t max)
{
	return store(p, s, cut(s, max));
}

const void *gp_pool_bytes(struct gp_strpool *p, const void *data, size_t n)
{
	char *d = room(p, n ? n : 1);

	memcpy(d, data, n);
	return d;
}

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static void grow(struct gp_strpool *p)
{
	const char **old = p->slots;
	size_t n = p->nslots, i, j;

	p->nslots = n ? n * 2 : 64;
	p->slots = gp_xcalloc(p->nslots, sizeof(*p->slots));
	for (i = 0; i < n; i++) {
		if (!old[i])
			continue;
		j = hash(old[i], strlen(old[i])) & (p->nslots - 1);
		while (p->slots[j])
			j = (j + 1) & (p->nslots - 1);
		p->slots[j] = old[i];
	}
	free(old);
}

const char *gp_pool_intern(struct gp_strpool *p, const char *s, size_t max)
{
	size_t len = cut(s, max), j;
	const char *hit;

	if (!len)
		return "";
	if (2 * (p->nused + 1) > p->nslots)
		grow(p);
	j = hash(s, len) & (p->nslots - 1);
	for (; (hit = p->slots[j]); j = (j + 1) & (p->nslots - 1))
		if (!strncmp(hit, s, len) && !hit[len])
			return hit;
	p->nused++;
	return p->slots[j] = store(p, s, len);
}

void gp_pool_release(struct gp_strpool *p)
{
	struct gp_pool_block *b, *next;

	for (b = p->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(p->slots);
	memset(p, 0, sizeof(*p));
}
