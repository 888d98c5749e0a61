// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: any bytes as a profile file give a parsed profile or a
 * file:line error, through the same reader `-p FILE` uses.
 */

#include "fuzz.h"
#include "core/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_profile p;
	char path[128], where[140];

	fuzz_file("fuzz.ini", data, size, path, sizeof(path));
	snprintf(where, sizeof(where), "%s:", path);
	if (gp_profile_load(path, &p)) {
		/* an error always names the file (and a line, unless unreadable) */
		if (strncmp(gp_profile_error(&p), where, strlen(where)) &&
		    !strstr(gp_profile_error(&p), path))
			abort();
	} else if (p.nmatch < 1 || p.count < 1) {
		abort(); /* a valid profile has its required keys */
	}
	return 0;
}
