/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers (util.c): allocation that exits on failure, strings, parsers. */
#ifndef GP_UTIL_H
#define GP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GP_BDF_LEN  16 /* "0000:41:00.0" plus slack */
#define GP_NAME_LEN 64

/* the number of elements of an array (not of a pointer) */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* version.c: debian/changelog's, through the Makefile */
extern const char gp_version[];

void *gp_xcalloc(size_t n, size_t size);
void *gp_xrealloc(void *p, size_t n, size_t size);
char *gp_xstrdup(const char *s);
/* A record gpuprov keeps: GPUPROV_STATE_DIR/name when that is set (tests), else dflt. */
const char *gp_state_file(const char *name, const char *dflt, char *buf, size_t len);
size_t gp_strlcpy(char *dst, const char *src, size_t size);
bool gp_ifname_valid(const char *s);
int gp_utf8_len(const unsigned char *s, size_t n);
bool gp_text_valid(const char *s);
char *gp_trim(char *s);
int gp_parse_size(const char *s, uint64_t *out);
int gp_parse_uint(const char *s, unsigned long max, unsigned long *out);
int gp_parse_bool(const char *s, bool *out);
int gp_parse_bdf(const char *s, char out[GP_BDF_LEN]);
int gp_parse_id_pair(const char *s, uint16_t *vendor, uint16_t *device);
int gp_split_list(char *s, char **items, int max);
/* The word of list (NULL-terminated) closest to word, NULL when none is close. */
const char *gp_closest(const char *word, const char *const *list);
int gp_cpulist_count(const char *list);
int gp_cpulist_parse(const char *list, int *out, int max);
void gp_cpulist_format(const int *cpus, int n, char *buf, size_t len);
int gp_version_cmp(const char *a, const char *b);
/* Whether s is 2 to 4 numbers of 1 to 9 digits joined by dots ("20.31.1014"). */
bool gp_version_dotted(const char *s);
void gp_format_size(uint64_t bytes, char *buf, size_t len);
/* Absolute, shorter than PATH_MAX, no ".", ".." or empty component, a name of its own. */
bool gp_path_clean(const char *path);
/* A device directory's resolved path, one word (a boot script's identity check): 0 or -errno. */
int gp_dev_where(const char *dir, char *out, size_t len);
/* why = the formatted reason; returns -EINVAL (a check that says why it refuses) */
int gp_bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A hex digit's value, either case; -1 for any other byte (NUL included). */
static inline int gp_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * "0000:41:00.0" as sysfs spells every address, its four numbers as
 * sscanf("%x:%x:%x.%u") reads them; false for any other spelling (that
 * sscanf may still take).  A lookup per device without sscanf's cost.
 */
static inline bool gp_bdf_canonical(const char *s, unsigned *dom, unsigned *bus, unsigned *dev,
				    unsigned *fn)
{
	static const char form[] = "xxxx:xx:xx.";
	unsigned v[3] = { 0 }, k = 0;
	int i, d;

	for (i = 0; form[i]; i++) {
		if (form[i] != 'x') {
			if (s[i] != form[i])
				return false;
			k++;
			continue;
		}
		d = gp_hex_digit(s[i]);
		if (d < 0)
			return false;
		v[k] = v[k] << 4 | (unsigned)d;
	}
	/* one decimal digit: %u would read a second */
	if (s[11] < '0' || s[11] > '9' || (s[12] >= '0' && s[12] <= '9'))
		return false;
	*dom = v[0];
	*bus = v[1];
	*dev = v[2];
	*fn = (unsigned)(s[11] - '0');
	return true;
}

#endif
