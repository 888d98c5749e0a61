// SPDX-License-Identifier: GPL-2.0-or-later
/* Text laid out for a reader: gp_wrap() keeps every line within 80 columns. */
#include "unit.h"
#include <unistd.h>

#include "cli/render.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short),	  cmocka_unit_test(test_width),
		cmocka_unit_test(test_long_word), cmocka_unit_test(test_units_quotes),
		cmocka_unit_test(test_utf8),	  cmocka_unit_test(test_term_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
