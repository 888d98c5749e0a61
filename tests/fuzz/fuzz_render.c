// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: a JSON document of hostile strings, printed as gpuprov prints
 * it (gp_json_print through gp_term_streams' terminal filter), must parse
 * back as JSON and hold the same strings (bytes that are not UTF-8 as
 * U+FFFD): the filter never changes a document (review2 F3).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "cli/render.h"
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

/* s with each byte that is not UTF-8 as U+FFFD, as json_put writes it */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size), *want = as_printed(s), *text;
	json_object *doc, *back, *v;
	off_t len;

	setup();
	if (ftruncate(1, 0) || lseek(1, 0, SEEK_SET))
		abort();
	doc = gp_json_doc("fuzz");
	json_object_object_add(doc, "value", json_object_new_string(s));
	json_object_object_add(doc, "list", json_object_new_array());
	json_object_array_add(json_object_object_get(doc, "list"), json_object_new_string(s));
	gp_json_print(doc);
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
	free(want);
	free(s);
	return 0;
}
