// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: the template merges.  The input is the operator's domain
 * template, which gpuprov merges its parts into (the result is well-formed
 * XML or an error naming the template), and also the text of a persistence
 * template gp_subst() fills in.
 */
#include "fuzz.h"
#include "core/plan.h"
#include "core/vm.h"
#include "core/domxml.h"
#include "core/profile.h"
#include "core/templates.h"

static const char profile[] = "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
			      "[vm]\nname = fuzz-vm\nvcpus = 8\nmemory = 16GiB\n";

static void subst(const uint8_t *data, size_t size)
{
	static const char *const pairs[] = { "BOND", "bond0",	  "ADDRESS", "",
					     "IDS",  "10de:20b5", NULL };
	char *text = fuzz_text(data, size), *out = gp_subst(text, pairs);

	/* every byte is copied or replaced: only @NAME@ of a known name changes */
	if (!strstr(text, "@") && strcmp(out, text))
		abort();
	free(out);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gp_profile p;
	static bool parsed;
	char path[128], *xml, digest[24];

	if (!parsed && gp_profile_parse_string("fuzz.ini", profile, &p))
		abort();
	parsed = true;
	subst(data, size);
	fuzz_file("template.xml", data, size, path, sizeof(path));
	if (!gp_domxml_build(fuzz_host(&p), &p, path, &xml, digest, sizeof(digest), NULL)) {
		fuzz_xml_ok(xml);
		free(xml);
	}
	return 0;
}
