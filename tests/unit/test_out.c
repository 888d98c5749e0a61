// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The output layer: the JSON writer writes what json-c's pretty printer
 * writes, and a string whatever it holds as JSON; text laid out for a
 * reader: gp_wrap() keeps every line within 80 columns.
 */
#include "unit.h"
#include <unistd.h>

#include "cli/out.h"

#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* What gp_wrap(s, col, indent) prints, after col columns already on the line. */
static char *wrapped(const char *s, int col, int indent)
{
	FILE *saved = stdout, *f = tmpfile();
	static char out[4096];
	size_t n;

	assert_non_null(f);
	stdout = f;
	printf("%*s", col, "");
	gp_wrap(s, col, indent);
	fflush(f);
	stdout = saved;
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

/* Every line at most width columns, but for one that holds a single word. */
static void assert_fits(const char *text, int width)
{
	const char *line = text, *nl;

	for (; (nl = strchr(line, '\n')); line = nl + 1) {
		int len = (int)(nl - line);
		const char *word = line;

		while (*word == ' ')
			word++;
		if (len > width && memchr(word, ' ', (size_t)(nl - word)))
			fail_msg("line of %d columns: '%.*s'", len, len, line);
	}
}

static void test_short(void **state)
{
	(void)state;
	assert_string_equal(wrapped("IOMMU on: 14 groups", 0, 2), "IOMMU on: 14 groups\n");
	/* spaces the caller laid out stay where the line does not break */
	assert_string_equal(wrapped("  bar.unassigned     host", 4, 6),
			    "      bar.unassigned     host\n");
}

/* Lines break between words only: joined back, the text is whole again. */
static void test_width(void **state)
{
	const char *hint = "P2P across the CPU interconnect is slow or refused by the driver: "
			   "move both cards to slots of one NUMA node, or join them with an "
			   "NVLink bridge";
	char *out, joined[512], *o = joined;
	const char *p;

	(void)state;
	out = wrapped(hint, 6, 12);
	assert_fits(out, GP_TEXT_WIDTH);
	assert_int_equal(strncmp(out, "      P2P", 9), 0);
	assert_non_null(strstr(out, "\n            ")); /* it did wrap, under the text */
	for (p = out + 6; *p; p++) {
		if (*p == '\n' && p[1]) {
			assert_int_equal(strspn(p + 1, " "), 12);
			*o++ = ' ';
			p += 12;
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
	assert_string_equal(joined,
			    "P2P across the CPU interconnect is slow or refused by the driver: "
			    "move both cards to slots of one NUMA node, or join them with "
			    "an NVLink bridge\n");
}

/* A path or an address wider than a line is printed whole, on a line of its own. */
static void test_long_word(void **state)
{
	char path[120], text[200], *out;

	(void)state;
	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	snprintf(text, sizeof(text), "cannot read %s: gone", path);
	out = wrapped(text, 0, 2);
	assert_non_null(strstr(out, path));
	assert_int_equal(strncmp(strstr(out, path) - 3, "\n  ", 3), 0);
	assert_fits(out, GP_TEXT_WIDTH);
}

/* "4 GiB" and a short quoted command are not split across lines. */
static void test_units_quotes(void **state)
{
	char *out;

	(void)state;
	out = wrapped("BAR1 (256 MiB, 64-bit) is mapped below 4 GiB at 0xd0000000", 39, 6);
	assert_non_null(strstr(out, "\n      4 GiB at"));
	out = wrapped("hint: check the IOMMU and the device in 'ls -l "
		      "/sys/bus/pci/devices/*/iommu_group' and the kernel log",
		      6, 12);
	assert_non_null(strstr(out, "\n            'ls -l /sys/bus/pci/devices/*/iommu_group'"));
	assert_fits(out, GP_TEXT_WIDTH);
}

/* Columns are characters, not bytes: a UTF-8 name does not break a line early. */
static void test_utf8(void **state)
{
	char text[512] = "";
	int i;

	(void)state;
	for (i = 0; i < 19; i++)
		strcat(text, "\xc3\xa9t\xc3\xa9 "); /* "été ": 4 columns, 6 bytes */
	/* 19 x 4 - 1 = 75 columns: one line */
	assert_int_equal(strchr(wrapped(text, 0, 2), '\n')[1], '\0');
}

/*
 * stdout through gp_term_streams: a text checked 8 bytes at a time still has
 * every control byte escaped, wherever in the word it falls (term_write's
 * plain_text), exactly as gp_term_escape writes it.
 */
static void test_term_words(void **state)
{
	static const unsigned char odd[] = { 0x01, 0x1b, 0x1f, 0x7f, 0x80,
					     0x9b, 0xc2, 0xff, '\n', '\t' };
	char text[64], want[512], got[512];
	FILE *saved = stdout;
	size_t len, pos, k, n, held;
	int p[2], fd = dup(STDOUT_FILENO);
	ssize_t r;

	(void)state;
	gp_term_streams();
	for (len = 1; len < 40; len += 3)
		for (pos = 0; pos < len; pos++)
			for (k = 0; k < sizeof(odd); k++) {
				memset(text, 'a' + (int)(len % 26), len);
				text[pos] = (char)odd[k];
				n = gp_term_escape(text, len, want, &held);
				if (held) /* a sequence cut at the end: not written yet */
					continue;
				assert_int_equal(pipe(p), 0);
				assert_true(dup2(p[1], STDOUT_FILENO) >= 0);
				fwrite(text, 1, len, stdout);
				fflush(stdout);
				close(p[1]);
				dup2(fd, STDOUT_FILENO);
				r = read(p[0], got, sizeof(got));
				close(p[0]);
				assert_int_equal(r, (ssize_t)n);
				assert_memory_equal(got, want, n);
			}
	close(fd);
	stdout = saved;
}

/* What the writer wrote between gp_out_begin and gp_out_end (the caller frees it). */
static FILE *mem;
static char *mem_text;
static size_t mem_len;

static void out_open(bool json)
{
	mem = open_memstream(&mem_text, &mem_len);
	assert_non_null(mem);
	gp_out_begin(mem, json);
}

static char *out_close(void)
{
	gp_out_end();
	fclose(mem);
	return mem_text;
}

/* A tree of each kind of value, empty and nested containers: as json-c prints it. */
static void test_json_as_jsonc(void **state)
{
	static const char *const docs[] = {
		"{}",
		"[]",
		"{\"a\": [1, -2, 2.5, 1e300, true, false, null, \"s/t\\\"\\\\\\n\\u0001\"], \"o\": "
		"{},"
		" \"e\": [], \"n\": {\"x\": {\"y\": [[], {}, [[1]]]}}, \"big\": "
		"18446744073709551615,"
		" \"neg\": -9223372036854775808}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(docs); i++) {
		json_object *doc = json_tokener_parse(docs[i]);
		char want[1024], *got;

		assert_non_null(doc);
		snprintf(want, sizeof(want), "%s\n",
			 json_object_to_json_string_ext(doc, JSON_FLAGS));
		out_open(true);
		gp_print_tree(NULL, doc);
		got = out_close();
		assert_string_equal(got, want);
		free(got);
	}
}

/*
 * Strings: json-c's escapes (the slash as it is), DEL and the C1 controls as
 * \u escapes, each byte that is not UTF-8 as U+FFFD; keys likewise.
 */
static void test_json_strings(void **state)
{
	static const char *const in[][2] = {
		{ "a\"b", "\"a\\\"b\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "sl/ash", "\"sl/ash\"" },
		{ "tab\there\nx\r\b\f", "\"tab\\there\\nx\\r\\b\\f\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "del\x7f", "\"del\\u007f\"" },
		{ "\xc2\x9b[2J", "\"\\u009b[2J\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xff\xfe", "\"\\ufffd\\ufffd\"" },
		{ "cut\xe2\x82", "\"cut\\ufffd\\ufffd\"" },
		{ "\xe2\n", "\"\\ufffd\\n\"" },
		{ "", "\"\"" },
	};
	char want[128], *got;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		out_open(true);
		gp_open_object(NULL);
		gp_print_str(in[i][0], NULL, in[i][0]);
		gp_close_object();
		got = out_close();
		snprintf(want, sizeof(want), "{\n  %s: %s\n}\n", in[i][1], in[i][1]);
		assert_string_equal(got, want);
		free(got);
	}
}

/* As text, a value prints its format (through gp_tv) or nothing; the containers nothing. */
static void test_text_mode(void **state)
{
	char *got;

	(void)state;
	out_open(false);
	gp_open_object(NULL);
	gp_print_str("name", "name %s\n", "eth\n0");
	gp_print_int("n", "%lld items\n", 3);
	gp_print_int_or_null("numa", NULL, -1);
	gp_print_tree("tree", json_object_new_int(1));
	gp_print_flag("up", "link %s\n", false, "up", "down");
	gp_print_strn("text", "a\0b", 3);
	gp_text("%d of %s\n", 2, "3");
	gp_close_object();
	got = out_close();
	assert_string_equal(got, "name eth\\x0a0\n3 items\nlink down\n2 of 3\n");
	free(got);
}

/*
 * Under --json the text's own words are left out, a flag is a bool and a
 * string with a NUL in it is whole, as json-c writes them.
 */
static void test_json_mode(void **state)
{
	json_object *doc = json_object_new_object();
	char want[256], *got;

	(void)state;
	json_object_object_add(doc, "up", json_object_new_boolean(1));
	json_object_object_add(doc, "text", json_object_new_string_len("a\0b\n", 4));
	snprintf(want, sizeof(want), "%s\n", json_object_to_json_string_ext(doc, JSON_FLAGS));
	json_object_put(doc);
	out_open(true);
	gp_open_object(NULL);
	gp_text("%s\n", "heading");
	gp_print_flag("up", "link %s\n", true, "up", "down");
	gp_print_strn("text", "a\0b\n", 4);
	gp_close_object();
	got = out_close();
	assert_string_equal(got, want);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short),	      cmocka_unit_test(test_width),
		cmocka_unit_test(test_long_word),     cmocka_unit_test(test_units_quotes),
		cmocka_unit_test(test_utf8),	      cmocka_unit_test(test_term_words),
		cmocka_unit_test(test_json_as_jsonc), cmocka_unit_test(test_json_strings),
		cmocka_unit_test(test_text_mode),     cmocka_unit_test(test_json_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
