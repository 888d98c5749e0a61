// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: a JSON document of hostile strings, printed as gpuprov prints
 * it (the writer through gp_term_streams' terminal filter), must parse
 * back as JSON and hold the same strings (bytes that are not UTF-8 as
 * U+FFFD): the filter never changes a document (review2 F3).  Both ways of
 * writing one: a json-c tree (data gpuprov keeps, the journal: gp_print_tree),
 * and the writer's values (cli/out.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "cli/out.h"
#include "fuzz.h"

static int out_fd = -1;

/* stdout to a scratch file, through the terminal filter, once */
static void setup(void)
{
	char path[96];

	if (out_fd >= 0)
		return;
	fuzz_file("out.json", NULL, 0, path, sizeof(path));
	out_fd = open(path, O_RDWR);
	if (out_fd < 0 || dup2(out_fd, 1) < 0)
		abort();
	gp_term_streams();
}

/* s with each byte that is not UTF-8 as U+FFFD, as gp_json_escape writes it */
static char *as_printed(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = malloc(3 * n + 1);
	int k;

	while (n) {
		k = gp_utf8_len((const unsigned char *)s, n);
		if (k <= 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			k = 1;
		} else {
			memcpy(out + o, s, (size_t)k);
			o += (size_t)k;
		}
		s += k;
		n -= (size_t)k;
	}
	out[o] = '\0';
	return out;
}

/* The document printed, parsed back: its "value" must be want. */
static void check(const char *want)
{
	json_object *back, *v;
	char *text;
	off_t len;

	if (fflush(stdout))
		abort();
	len = lseek(1, 0, SEEK_END);
	text = calloc((size_t)len + 1, 1);
	if (pread(1, text, (size_t)len, 0) != len)
		abort();
	back = json_tokener_parse(text);
	if (!back || !json_object_object_get_ex(back, "value", &v) ||
	    strcmp(json_object_get_string(v), want))
		abort(); /* not JSON, or the string changed on its way */
	json_object_put(back);
	free(text);
}

static void rewind_out(void)
{
	if (ftruncate(1, 0) || lseek(1, 0, SEEK_SET))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size), *want = as_printed(s);
	json_object *doc;

	setup();
	/* a json-c tree, as apply prints its journal's members */
	rewind_out();
	doc = json_object_new_object();
	json_object_object_add(doc, "value", json_object_new_string(s));
	json_object_object_add(doc, "list", json_object_new_array());
	json_object_array_add(json_object_object_get(doc, "list"), json_object_new_string(s));
	gp_doc_begin(NULL, "fuzz");
	json_object_object_foreach (doc, key, val)
		gp_print_tree(key, json_object_get(val));
	gp_doc_end();
	json_object_put(doc);
	check(want);
	/* written a value at a time, as scan, topo, check and plan write theirs; the string as a key too */
	rewind_out();
	gp_doc_begin(NULL, "fuzz");
	gp_print_str("value", NULL, s);
	gp_open_array("list");
	gp_print_str(NULL, NULL, s);
	gp_close_array();
	gp_open_object("keys");
	gp_print_str(s, NULL, s);
	gp_close_object();
	gp_doc_end();
	check(want);
	free(want);
	free(s);
	return 0;
}
