// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Escaping, one function per output kind.  Values from the host, a snapshot
 * or a profile are hostile: a terminal must not take a control sequence
 * from them, a JSON document must stay JSON, HTML and Markdown must not
 * take markup.  The text outputs print each value through gp_tv(); the
 * report's through gp_xml() or gp_md(), which apply gp_tv() first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/escape.h"
#include "shared/util.h"

/* ---- the terminal ---- */

/*
 * Control characters other than newline and tab (all of them in a value),
 * DEL, C1 controls and bytes that are not UTF-8 become \xNN, so that a name
 * from sysfs, a snapshot or a profile cannot move the cursor, rewrite the
 * title or hide a line.  Valid UTF-8 text is unchanged.
 */
static size_t escape(const char *s, size_t n, char *out, size_t *held, bool value)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;
	int k;

	*held = 0;
	while (i < n) {
		k = gp_utf8_len(u + i, n - i);
		if (k < 0) {
			*held = n - i;
			break;
		}
		if (k == 0 ||
		    (k == 1 && ((u[i] < 0x20 && (value || (u[i] != '\n' && u[i] != '\t'))) ||
				u[i] == 0x7f)) ||
		    (k == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)) {
			o += sprintf(out + o, "\\x%02x", u[i]);
			i++;
			continue;
		}
		memcpy(out + o, u + i, k);
		o += k;
		i += k;
	}
	return o;
}

size_t gp_term_escape(const char *s, size_t n, char *out, size_t *held)
{
	return escape(s, n, out, held, false);
}

/* Bytes 0x20-0x7e only: what escape() copies as they are, even in a value. */
static bool printable_ascii(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + n;

	while (u < end && *u >= 0x20 && *u < 0x7f)
		u++;
	return u == end;
}

/*
 * A value from the host, a snapshot or a profile as the text outputs print
 * it: newline and tab too become \xNN, so that a name cannot start a line
 * of its own (a forged finding or table row); the outputs' own newlines are
 * the only ones.  The result lives until 16 more calls.
 */
const char *gp_tv(const char *s)
{
	static char *ring[16];
	static size_t room[16];
	static unsigned next;
	size_t n = strlen(s), held;
	unsigned k = next++ % 16;
	char **slot = &ring[k];

	/* a slot grows and is kept: no allocation per value */
	if (room[k] < 4 * n + 1) {
		free(*slot);
		room[k] = 4 * n + 1 > 64 ? 4 * n + 1 : 64;
		*slot = gp_xcalloc(room[k], 1);
	}
	if (printable_ascii(s, n)) { /* most values: nothing to escape */
		memcpy(*slot, s, n + 1);
		return *slot;
	}
	n = escape(s, n, *slot, &held, true);
	(*slot)[n] = '\0';
	if (held) /* a cut UTF-8 sequence at the end: its bytes, escaped */
		for (; held; held--)
			n += (size_t)sprintf(*slot + n, "\\x%02x",
					     (unsigned char)s[strlen(s) - held]);
	return *slot;
}

/* ---- JSON strings ---- */

bool gp_json_plain(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + n;

	while (u < end && *u >= 0x20 && *u < 0x7f && *u != '"' && *u != '\\')
		u++;
	return u == end;
}

static size_t json_u(char *out, unsigned c)
{
	static const char digit[] = "0123456789abcdef";

	memcpy(out, "\\u00", 4);
	out[4] = digit[c >> 4 & 0xf];
	out[5] = digit[c & 0xf];
	return 6;
}

size_t gp_json_escape(const char *s, size_t n, char *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;
	int k;

	while (i < n) {
		unsigned char c = u[i];
		const char *e = c == '"'    ? "\\\""
				: c == '\\' ? "\\\\"
				: c == '\b' ? "\\b"
				: c == '\f' ? "\\f"
				: c == '\n' ? "\\n"
				: c == '\r' ? "\\r"
				: c == '\t' ? "\\t"
					    : NULL;

		if (e) {
			memcpy(out + o, e, 2);
			o += 2;
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			o += json_u(out + o, c);
			i++;
			continue;
		}
		k = gp_utf8_len(u + i, n - i);
		if (k <= 0) { /* not UTF-8 (or cut at the end): one U+FFFD a byte */
			memcpy(out + o, "\\ufffd", 6);
			o += 6;
			i++;
			continue;
		}
		if (k == 2 && c == 0xc2 && u[i + 1] < 0xa0) { /* a C1 control */
			o += json_u(out + o, u[i + 1]);
			i += 2;
			continue;
		}
		memcpy(out + o, u + i, (size_t)k);
		o += (size_t)k;
		i += (size_t)k;
	}
	return o;
}

/* ---- HTML, XML and Markdown ---- */

static char *ring_slot(size_t len)
{
	static char *ring[32];
	static unsigned next;
	char **slot = &ring[next++ % 32];

	free(*slot);
	*slot = gp_xcalloc(len, 1);
	return *slot;
}

/* s (already free of control characters and bad UTF-8) with &<>"' as entities */
static size_t xml_into(const char *s, char *out)
{
	size_t o = 0;

	for (; *s; s++) {
		const char *e = *s == '&'    ? "&amp;"
				: *s == '<'  ? "&lt;"
				: *s == '>'  ? "&gt;"
				: *s == '"'  ? "&quot;"
				: *s == '\'' ? "&#39;"
					     : NULL;

		/* U+FFFE and U+FFFF are no XML characters */
		if (!strncmp(s, "\xef\xbf\xbe", 3) || !strncmp(s, "\xef\xbf\xbf", 3)) {
			o += (size_t)sprintf(out + o, "\\xef\\xbf\\x%02x", (unsigned char)s[2]);
			s += 2;
			continue;
		}
		if (e) {
			strcpy(out + o, e);
			o += strlen(e);
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
	return o;
}

const char *gp_xml(const char *s)
{
	const char *t = gp_tv(s ? s : "");
	char *out = ring_slot(12 * strlen(t) + 1);

	xml_into(t, out);
	return out;
}

const char *gp_md(const char *s)
{
	/* what can start markup inside a line; values never start one */
	static const char special[] = "\\`*_{}[]<>#+!|~&$";
	const char *t = gp_tv(s ? s : "");
	char *out = ring_slot(2 * strlen(t) + 1);
	size_t o = 0;

	for (; *t; t++) {
		if (strchr(special, *t))
			out[o++] = '\\';
		out[o++] = *t;
	}
	return out;
}

/* Control characters but newline and tab made visible (\xNN), bad UTF-8 too. */
static char *block_text(const char *s)
{
	size_t n = strlen(s), held, o;
	char *out = gp_xcalloc(4 * n + 1, 1);

	o = gp_term_escape(s, n, out, &held);
	for (; held; held--)
		o += (size_t)sprintf(out + o, "\\x%02x", (unsigned char)s[n - held]);
	out[o] = '\0';
	return out;
}

char *gp_xml_block(const char *s)
{
	char *t = block_text(s), *out = gp_xcalloc(12 * strlen(t) + 1, 1);

	xml_into(t, out);
	free(t);
	return out;
}

char *gp_md_block(const char *s)
{
	return block_text(s);
}

const char *gp_sh_word(const char *s, char *out, size_t len)
{
	size_t n = 0;

	if (len < 8) {
		out[0] = '\0';
		return out;
	}
	out[n++] = '\'';
	for (; *s; s++) {
		if (n + (*s == '\'' ? 4 : 1) + 2 > len) {
			snprintf(out, len, "'...'");
			return out;
		}
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
	return out;
}
