// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: config-space bytes and resource-file text as sysfs might hand
 * them over, truncated or corrupt, and AER statistics text.  The first byte
 * picks the parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/pcicfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_bar bars[GP_MAX_BARS];
	struct gp_cfg c;
	char *text;
	int n, i;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		if (!gp_cfg_parse(data + 1, size - 1, &c) &&
		    (c.link.width > 63 || c.link.max_width > 63 || c.pcie_type > 15 ||
		     (c.has_acs && (c.acs_pos < 0x100 || (size_t)c.acs_pos + 8 > size - 1))))
			abort();
		return 0;
	}
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	n = gp_resource_parse(text, bars, GP_MAX_BARS);
	for (i = 0; i < n; i++)
		if (!bars[i].size || bars[i].index > 5 ||
		    bars[i].addr + (bars[i].size - 1) < bars[i].addr)
			abort();
	if (data[0] & 2 && gp_aer_total(text) < -1)
		abort(); /* a count, or -1: never negative otherwise */
	free(text);
	return 0;
}
