// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan --json writes its devices and IOMMU groups directly, one at a time
 * (render.c): byte for byte what json-c writes for gp_scan_json(), on every
 * fixture host and on strings json-c escapes or that are not UTF-8.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <unistd.h>

#include "unit.h"
#include "cli/render.h"

static void stream(const struct gp_host *h)
{
	gp_render_scan(h, NULL, true);
}

static void whole(const struct gp_host *h)
{
	gp_json_print(gp_scan_json(h));
}

/* What fn writes on stdout. */
static char *captured(void (*fn)(const struct gp_host *), const struct gp_host *h)
{
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;

	assert_non_null(f);
	fflush(stdout);
	assert_true(dup2(fileno(f), STDOUT_FILENO) >= 0);
	fn(h);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = getdelim(&text, &cap, '\0', f);
	assert_true(n > 0);
	fclose(f);
	return text;
}

static void same(const struct gp_host *h, const char *name)
{
	char *a = captured(stream, h), *b = captured(whole, h);

	if (strcmp(a, b))
		fail_msg("%s: the streamed scan --json differs from json-c's", name);
	free(a);
	free(b);
}

static void test_fixtures(void **state)
{
	DIR *d = opendir("build/hosts");
	struct dirent *e;
	struct gp_host h;
	int n = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "unreadable"))
			continue;
		unit_host(e->d_name, NULL, &h);
		same(&h, e->d_name);
		gp_host_release(&h);
		n++;
	}
	closedir(d);
	assert_true(n > 40);
}

/* What json-c escapes (quote, backslash, controls), keeps (slash, DEL), and bytes not UTF-8. */
static void test_strings(void **state)
{
	static const char *const odd[] = {
		"a\"b",	   "back\\slash", "sl/ash",   "tab\there",   "nl\nx", "\x01\x1f",
		"del\x7f", "caf\xc3\xa9", "\xff\xfe", "cut\xe2\x82", "",
	};
	struct gp_host h;
	size_t i;

	(void)state;
	unit_host("bars", NULL, &h);
	assert_true(h.ndevs > 2);
	for (i = 0; i < ARRAY_SIZE(odd); i++) {
		h.devs[0].driver = odd[i];
		h.devs[1].slot = odd[i];
		same(&h, odd[i]);
	}
	/* a link at 2.5 GT/s (a double), a bar without an address, no group */
	h.devs[0].link =
		(struct gp_link){ .speed = 2.5, .width = 1, .max_speed = 5, .max_width = 4 };
	for (i = 0; i < h.ndevs && !h.devs[i].nbars; i++)
		;
	assert_true(i < h.ndevs);
	h.devs[i].bars[0].unset = true;
	h.devs[2].iommu_group = -1;
	same(&h, "link, bars, groups");
	gp_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
