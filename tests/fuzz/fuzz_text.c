// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer: the small text parsers that read sysfs values and profile values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), bdf[GP_BDF_LEN], buf[64];
	uint64_t v;
	uint16_t a, b;
	unsigned long u;
	bool t;

	memcpy(s, data, size);
	s[size] = '\0';
	(void)gp_cpulist_count(s);
	if (!gp_parse_bdf(s, bdf) && strlen(bdf) != 12)
		abort();
	if (!gp_parse_size(s, &v))
		gp_format_size(v, buf, sizeof(buf));
	(void)gp_parse_id_pair(s, &a, &b);
	(void)gp_parse_uint(s, 100, &u);
	(void)gp_parse_bool(s, &t);
	if (gp_version_cmp(s, s))
		abort();
	(void)gp_version_cmp(s, "5.20");
	free(s);
	return 0;
}
