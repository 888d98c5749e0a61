// SPDX-License-Identifier: GPL-2.0-or-later
/* The small parsers and helpers shared by the profile and the host reader. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shared/exit.h"
#include "shared/log.h"
#include "shared/util.h"

/* The end of the run: said even while gp_err_kept holds other messages back. */
static void oom(void)
{
	gp_err_kept = 0;
	gp_err("out of memory");
	exit(GP_EXIT_HOST);
}

void *gp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		oom();
	}
	return p;
}

void *gp_xrealloc(void *p, size_t n, size_t size)
{
	void *q;

	if (size && n > SIZE_MAX / size) {
		oom();
	}
	q = realloc(p, n && size ? n * size : 1);
	if (!q) {
		oom();
	}
	return q;
}

char *gp_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		oom();
	}
	return p;
}

size_t gp_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

/*
 * An interface name that every network configuration gpuprov writes can hold.
 * The kernel (dev_valid_name) takes 1..15 bytes other than '/', ':' and
 * whitespace, except "." and ".."; systemd-networkd also refuses '%', names
 * that are all digits, "all" and "default" (sysctl's directories), and
 * [Match] Name= reads glob characters; netplan's YAML and ifupdown's
 * stanzas give meaning to most punctuation.  What is left, and what real
 * names use: letters, digits, '-', '_' and '.', starting with a letter or
 * digit.
 */
bool gp_ifname_valid(const char *s)
{
	static const char alnum[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(s);
	size_t i;

	if (n < 1 || n > 15 || !strchr(alnum, s[0]) || strspn(s, "0123456789") == n)
		return false;
	if (!strcmp(s, "all") || !strcmp(s, "default"))
		return false;
	for (i = 0; i < n; i++)
		if (!strchr(alnum, s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/*
 * The length of the UTF-8 sequence at s (at most n bytes): 1 to 4, 0 when
 * it is not UTF-8 (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF), -1 when n cuts a sequence that may be valid.
 */
int gp_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
	}
	return len;
}

/* Text a profile, XML and JSON can hold: UTF-8 without control characters. */
bool gp_text_valid(const char *s)
{
	size_t n = strlen(s);
	int k;

	for (; n; s += k, n -= k) {
		k = gp_utf8_len((const unsigned char *)s, n);
		if (k <= 0 || (unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
		/* C1 controls, U+0080 to U+009F */
		if (k == 2 && (unsigned char)s[0] == 0xc2 && (unsigned char)s[1] < 0xa0)
			return false;
	}
	return true;
}

char *gp_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* "64GiB", "2MiB", "1024" (bytes); binary units only, as the man page says. */
int gp_parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {
		{ "", 0 }, { "B", 0 }, { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 },
	};
	char *end;
	unsigned long long v;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		*out = (uint64_t)v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

int gp_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int gp_parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* Accepts "0000:41:00.0" or "41:00.0" (domain 0); writes the full form. */
int gp_parse_bdf(const char *s, char out[GP_BDF_LEN])
{
	unsigned dom = 0, bus, dev, fn;
	int n = 0;

	if (strspn(s, "0123456789abcdefABCDEF:.") != strlen(s))
		return -EINVAL; /* sscanf's %x would take signs and blanks */
	if (sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) == 4 && !s[n] && n == 12)
		goto ok;
	dom = 0;
	n = 0;
	if (sscanf(s, "%2x:%2x.%1u%n", &bus, &dev, &fn, &n) == 3 && !s[n] && n == 7)
		goto ok;
	return -EINVAL;
ok:
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, GP_BDF_LEN, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return 0;
}

int gp_parse_id_pair(const char *s, uint16_t *vendor, uint16_t *device)
{
	unsigned v, d;
	int n = 0;

	if (strspn(s, "0123456789abcdefABCDEF:") != strlen(s) ||
	    sscanf(s, "%4x:%4x%n", &v, &d, &n) != 2 || s[n] || n != 9)
		return -EINVAL;
	*vendor = (uint16_t)v;
	*device = (uint16_t)d;
	return 0;
}

/* Splits on spaces and commas in place; returns the count or -E2BIG. */
int gp_split_list(char *s, char **items, int max)
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(s, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		if (n == max)
			return -E2BIG;
		items[n++] = tok;
	}
	return n;
}

/* Edit distance (insert, delete, substitute), capped: names are short. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[65], cur[65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(prev));
	}
	return prev[lb];
}

/*
 * As git's "did you mean": a word within a third of its length of edits, or
 * one the typed word begins (a command typed short).
 */
const char *gp_closest(const char *word, const char *const *list)
{
	size_t best = SIZE_MAX, d, n = strlen(word);
	const char *found = NULL;

	for (; *list; list++) {
		d = distance(word, *list);
		if (n >= 2 && !strncmp(*list, word, n))
			d = 1;
		if (d < best) {
			best = d;
			found = *list;
		}
	}
	return best <= (n + 2) / 3 ? found : NULL;
}

/*
 * The CPUs of a kernel cpulist ("0-47,96-143"), the first max of them into
 * out (NULL: only counted); their number, or -1 when malformed.
 */
int gp_cpulist_parse(const char *list, int *out, int max)
{
	const char *p = list;
	int count = 0;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a > 1 << 20)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b > 1 << 20)
				return -1;
			p = end;
		}
		if (count > (1 << 22))
			return -1;
		for (; out && a <= b && count < max; a++)
			out[count++] = (int)a;
		count += (int)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return count;
}

int gp_cpulist_count(const char *list)
{
	return gp_cpulist_parse(list, NULL, 0);
}

/* n CPU numbers in ascending order as a cpulist, ranges joined; "" when it does not fit. */
void gp_cpulist_format(const int *cpus, int n, char *buf, size_t len)
{
	size_t used = 0;
	int i = 0, j;

	buf[0] = '\0';
	while (i < n) {
		for (j = i; j + 1 < n && cpus[j + 1] == cpus[j] + 1; j++)
			;
		used += (size_t)(j > i ? snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "",
						  cpus[i], cpus[j])
				       : snprintf(buf + used, len - used, "%s%d", i ? "," : "",
						  cpus[i]));
		if (used >= len) {
			buf[0] = '\0';
			return;
		}
		i = j + 1;
	}
}

/* Compares dotted versions numerically ("5.9" < "5.20"); text parts as text. */
int gp_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long long x = strtoull(a, (char **)&a, 10);
			unsigned long long y = strtoull(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}

bool gp_version_dotted(const char *s)
{
	int parts = 0;
	size_t n;

	for (;;) {
		n = strspn(s, "0123456789");
		if (!n || n > 9 || ++parts > 4)
			return false;
		s += n;
		if (!*s)
			return parts >= 2;
		if (*s++ != '.')
			return false;
	}
}

/*
 * Exact sizes as "256 GiB"; others to one decimal in the largest unit
 * ("4.6 GiB"): a space between number and unit, as every text gpuprov
 * prints writes it ("16 GT/s").  Profile values and options take "256GiB".
 */
void gp_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	uint64_t v = bytes;
	int u = 0;

	while (u < 5 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	if (v < 1024 || u == 5) { /* "%" PRIu64 " %s", without printf: a BAR each */
		char text[32], *p = text + sizeof(text);
		size_t k = strlen(units[u]);

		p -= k + 1;
		memcpy(p, units[u], k + 1);
		*--p = ' ';
		do {
			*--p = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		gp_strlcpy(buf, p, len);
		return;
	}
	for (u = 0; u < 5 && (double)bytes / (double)(1ull << (10 * (u + 1))) >= 1.0; u++)
		;
	snprintf(buf, len, "%.1f %s", (double)bytes / (double)(1ull << (10 * u)), units[u]);
}

/* Absolute, no ".", ".." or empty component, a name of its own. */
bool gp_path_clean(const char *path)
{
	const char *p = path;

	if (path[0] != '/' || strlen(path) >= PATH_MAX)
		return false;
	while (*p == '/') {
		const char *next = strchr(p + 1, '/');
		size_t n = next ? (size_t)(next - p - 1) : strlen(p + 1);

		if (!n || (n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.'))
			return false;
		if (!next)
			return true;
		p = next;
	}
	return false;
}

/* why = the formatted reason; -EINVAL, for checks that say why they refuse */
int gp_bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *gp_state_file(const char *name, const char *dflt, char *buf, size_t len)
{
	const char *d = getenv("GPUPROV_STATE_DIR");

	if (!d || !*d)
		return dflt;
	snprintf(buf, len, "%s/%s", d, name);
	return buf;
}

int gp_dev_where(const char *dir, char *out, size_t len)
{
	char *real = realpath(dir, NULL);
	int rc = real ? 0 : -errno;

	if (!rc && (strlen(real) >= len || strpbrk(real, " \t\n\\'\"$`")))
		rc = -ENAMETOOLONG; /* no room, or not one plain word for the script's read */
	if (!rc)
		strcpy(out, real);
	free(real);
	return rc;
}
