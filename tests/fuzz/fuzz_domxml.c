// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: the domain XML builder, from any profile, on the fixture host
 * with the shipped template, under any profile path.  Built XML is
 * well-formed, or the builder says why and fails.
 */
#include "fuzz.h"
#include "core/vm.h"
#include "core/domxml.h"
#include "core/profile.h"

/* ";path:NAME" on the first line (an INI comment): the profile's path. */
static const char *profile_path(const char *text, char *buf, size_t len)
{
	if (strncmp(text, ";path:", 6))
		return "fuzz.ini";
	snprintf(buf, len, "%.*s", (int)strcspn(text + 6, "\n"), text + 6);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *xml, digest[24], path[256];
	struct gp_profile p;

	if (!gp_profile_parse_string(profile_path(text, path, sizeof(path)), text, &p) &&
	    p.has_vm &&
	    !gp_domxml_build(fuzz_host(NULL), &p, "templates/domain-q35-ovmf.xml", &xml, digest,
			     sizeof(digest), NULL)) {
		fuzz_xml_ok(xml);
		free(xml);
	}
	free(text);
	return 0;
}
