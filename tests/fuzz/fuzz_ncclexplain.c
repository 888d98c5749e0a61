// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: NCCL's debug output and topology dump as verify captures them,
 * which a process in the guest could have written anything into.  The
 * first byte picks the reader (the log, the dump, both) and what CUDA said
 * of P2P; every bound the explanation has must hold afterwards.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ncclexplain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bounded(const char *s, size_t len)
{
	if (strnlen(s, len) >= len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gp_nccl_explain x;
	const char *t = (const char *)data + 1;
	int i;

	if (size < 1)
		return 0;
	gp_nx_init(&x);
	if (data[0] & 1)
		gp_nx_log(&x, t, size - 1);
	if (data[0] & 2)
		gp_nx_dump(&x, t, size - 1);
	gp_nx_finish(&x, (data[0] >> 2 & 3) - 1);
	if (x.npairs > GP_NX_MAX_PAIRS || x.nranks > GP_NX_MAX_GPUS || x.ngdr > GP_NX_MAX_GDR ||
	    x.nenv > GP_NX_MAX_ENV || x.nwarnings > GP_NX_MAX_WARN || x.nadvice > GP_NX_MAX_ADV)
		abort();
	bounded(x.version, sizeof(x.version));
	for (i = 0; i < x.npairs; i++) {
		bounded(x.pairs[i].transport, sizeof(x.pairs[i].transport));
		if (strlen(x.pairs[i].path) > 3 || strlen(x.pairs[i].p2p_level) > 3)
			abort();
	}
	for (i = 0; i < x.nranks; i++)
		if (x.ranks[i].bdf[0] && strlen(x.ranks[i].bdf) != 12)
			abort();
	for (i = 0; i < x.nadvice; i++)
		bounded(x.advice[i], GP_NX_ADV_LEN);
	return 0;
}
