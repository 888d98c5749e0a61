// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: the journal reader, as rollback uses it.  Any bytes as a
 * journal are accepted (checked: paths, kinds, modes) or refused with a
 * reason, the same from a buffer and from the file; never a crash.
 */
#include "act/apply.h"
#include "fuzz.h"
#include "core/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], why[256] = "";
	json_object *doc;
	struct gp_journal j;
	struct gp_step st;
	size_t i, n;
	int parsed, opened;

	setenv("GPUPROV_STATE_DIR", fuzz_dir(), 1);
	parsed = gp_journal_parse((const char *)data, size, &doc, why, sizeof(why));
	if (parsed && !why[0])
		abort(); /* a refusal says why */
	json_object_put(doc);
	fuzz_file("fuzz.json", data, size, path, sizeof(path));
	opened = gp_journal_open(&j, "fuzz");
	if (!parsed != !opened)
		abort();
	if (opened)
		return 0;
	n = gp_journal_nsteps(&j);
	for (i = 0; i < n; i++)
		gp_step_from_json(gp_journal_step(&j, i), &st);
	gp_journal_close(&j);
	return 0;
}
