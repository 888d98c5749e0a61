// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: the journal reader, as rollback uses it.  Any bytes as a
 * journal are read into steps or refused with a message; never a crash.
 */
#include "apply.h"
#include "fuzz.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128];
	struct gp_journal j;
	struct gp_step st;
	size_t i, n;

	setenv("GPUPROV_STATE_DIR", fuzz_dir(), 1);
	fuzz_file("fuzz.json", data, size, path, sizeof(path));
	if (gp_journal_open(&j, "fuzz"))
		return 0;
	n = gp_journal_nsteps(&j);
	for (i = 0; i < n; i++)
		gp_step_from_json(gp_journal_step(&j, i), &st);
	gp_journal_close(&j);
	return 0;
}
