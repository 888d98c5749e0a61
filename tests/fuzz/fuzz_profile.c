// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer: any bytes as a profile give a parsed profile or a file:line error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_profile p;
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	if (gp_profile_parse_string("fuzz.ini", text, &p)) {
		/* an error always names the file and a line */
		if (strncmp(gp_profile_error(), "fuzz.ini:", 9))
			abort();
	} else if (p.nmatch < 1 || p.count < 1) {
		abort(); /* a valid profile has its required keys */
	}
	free(text);
	return 0;
}
