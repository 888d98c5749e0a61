// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Network configurations as a snapshot keeps them: what gpuprov reads of
 * them (which interfaces each owner configures) stays, every secret goes.
 * One rule per owner's format: ifupdown's option lines and hook commands,
 * NetworkManager's and systemd-networkd's INI keys and secret sections,
 * netplan's YAML keys and the blocks below them.  A secret value becomes "REDACTED"; a commented-out
 * secret too.
 */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/model.h"
#include "core/redact.h"

#define REDACTED "REDACTED"

enum format {
	FMT_IFUPDOWN,
	FMT_KEYFILE, /* NetworkManager's keyfiles, systemd-networkd's units */
	FMT_NETPLAN,
};

struct out {
	char *buf;
	size_t len, cap;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->buf = gp_xrealloc(o->buf, o->cap, 1);
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A key that names a secret in any owner's format, or might. */
static bool secret_key(const char *key, size_t n)
{
	static const char *const words[] = {
		"psk", "pass", "secret", "key", "token", "cak", "ckn", "wep", "private",
	};
	char k[128];
	size_t i;

	if (!n || n >= sizeof(k))
		return n != 0; /* too long to judge: better gone */
	memcpy(k, key, n);
	k[n] = '\0';
	if (!strncasecmp(k, "wpa-", 4) || !strcasecmp(k, "pin") ||
	    (n > 4 && !strcasecmp(k + n - 4, "-pin")))
		return true;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasestr(k, words[i]))
			return true;
	return false;
}

/* INI sections whose every value is a secret (NetworkManager, networkd). */
static bool secret_section(const char *name, size_t n)
{
	static const char *const prefixes[] = {
		"wifi-security", "802-11-wireless-security",
		"802-1x",	 "vpn-secrets",
		"wireguard",	 "macsec",
		"pppoe",	 "gsm",
		"cdma",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (n >= strlen(prefixes[i]) &&
		    !strncasecmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static enum format format_of(const char *path)
{
	if (strstr(path, "/NetworkManager/") || strstr(path, "/systemd/network/"))
		return FMT_KEYFILE;
	if (strstr(path, "/netplan/"))
		return FMT_NETPLAN;
	return FMT_IFUPDOWN;
}

static size_t indent_of(const char *line)
{
	return strspn(line, " \t");
}

/* "  # wpa-psk x", "## up ...", "#; pre-up ...": the comment's own text, for
 * a commented-out secret, however many comment marks stand before it. */
static const char *uncomment(const char *line, size_t *skip)
{
	size_t i = indent_of(line);

	*skip = 0;
	while (line[i] == '#' || line[i] == ';') {
		*skip = i + 1;
		i = *skip + indent_of(line + *skip);
	}
	return line + *skip;
}

/*
 * ifupdown's hooks run a shell command ("pre-up wpa_passphrase home SECRET",
 * "up iwconfig wlan0 key s:SECRET"): no scanner can tell which of its words
 * is a secret, and gpuprov reads none of them, so the whole command goes.
 */
static bool ifupdown_hook(const char *word, size_t n)
{
	static const char *const hooks[] = {
		"pre-up", "up", "post-up", "down", "pre-down", "post-down",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		if (n == strlen(hooks[i]) && !strncmp(word, hooks[i], n))
			return true;
	return false;
}

/*
 * ifupdown: "wpa-psk VALUE", "wireless-key VALUE": the first word is the key;
 * a hook's command is a value too.
 */
static void line_ifupdown(struct out *o, const char *line)
{
	size_t skip, i, n;
	const char *body = uncomment(line, &skip);

	i = indent_of(body);
	n = strcspn(body + i, " \t");
	if (!secret_key(body + i, n) && !ifupdown_hook(body + i, n)) {
		puts_(o, line);
		return;
	}
	put(o, line, skip + i + n);
	puts_(o, " " REDACTED);
}

/* key=value in INI files; a [section] of secrets makes every value one. */
static void line_keyfile(struct out *o, const char *line, bool *in_secret)
{
	size_t skip, i, n;
	const char *body = uncomment(line, &skip), *eq;

	i = indent_of(body);
	if (!skip && body[i] == '[') {
		*in_secret = secret_section(body + i + 1, strcspn(body + i + 1, "]"));
		puts_(o, line);
		return;
	}
	eq = strchr(body + i, '=');
	for (n = eq ? (size_t)(eq - body - i) : 0; n && isspace((unsigned char)body[i + n - 1]);)
		n--;
	if (!eq || (!*in_secret && !secret_key(body + i, n))) {
		puts_(o, line);
		return;
	}
	put(o, line, (size_t)(eq - line) + 1);
	puts_(o, REDACTED);
}

#define NO_BLOCK (-2L)

/*
 * What this scanner can misread is a leak, so it reads only block-style
 * "key: value" lines with plain or simply quoted keys and plain values.
 * Flow collections ({...}, except an empty one; [...] of plain scalars is a
 * bond's interface list), complex keys (?, :), anchors, aliases, tags, block
 * scalars, escapes and quotes it cannot pair are not understood.
 */
static bool yaml_plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr("{}[]&*!?|>\\\"'%@`", s[i]))
			return false;
	return true;
}

/* The key at body[i], its length; false when it is not simply readable. */
static bool yaml_key(const char *body, size_t *i, size_t *n, const char **colon)
{
	const char *k = body + *i, *e;

	if (*k == '"' || *k == '\'') {
		e = strchr(k + 1, *k);
		if (!e || e[1] != ':' || memchr(k + 1, '\\', (size_t)(e - k - 1)))
			return false;
		*colon = e + 1;
		*i += 1;
		*n = (size_t)(e - k - 1);
		return true;
	}
	for (e = k; (e = strchr(e, ':')) && e[1] && !isspace((unsigned char)e[1]);)
		e++;
	if (!e || e == k || !yaml_plain(k, (size_t)(e - k)))
		return false;
	*colon = e;
	*n = (size_t)(e - k);
	return true;
}

/* A value left as it is: plain, a quoted scalar closed on its line, {} or []. */
static bool yaml_value(const char *v)
{
	size_t n = strlen(v);

	while (n && isspace((unsigned char)v[n - 1]))
		n--;
	if (!n || (n == 2 && (!strncmp(v, "{}", 2) || !strncmp(v, "[]", 2))))
		return true;
	if (v[0] == '[' && v[n - 1] == ']')
		return yaml_plain(v + 1, n - 2) && !memchr(v, ':', n);
	if ((v[0] == '"' || v[0] == '\'') && n >= 2 && v[n - 1] == v[0])
		return !memchr(v + 1, v[0], n - 2) && !memchr(v, '\\', n);
	return yaml_plain(v, n);
}

/* A line the scanner does not understand: all of it goes, and what follows
 * at its indentation or deeper (it may continue it). */
static void netplan_unknown(struct out *o, const char *line, size_t skip, long *block)
{
	put(o, line, skip ? skip : indent_of(line));
	puts_(o, REDACTED);
	if (!skip)
		*block = (long)indent_of(line) - 1;
}

/* "  password: x", "- key: x", "auth:" (a block follows): netplan's YAML. */
static void line_netplan(struct out *o, const char *line, long *block)
{
	size_t skip, i, n, ind = indent_of(line);
	const char *body = uncomment(line, &skip), *colon, *v;

	if (*block != NO_BLOCK && line[ind] && (long)ind > *block) {
		put(o, line, ind); /* inside a secret block: all of it goes */
		puts_(o, REDACTED);
		return;
	}
	if (line[ind])
		*block = NO_BLOCK;
	i = indent_of(body);
	if (!body[i] || !strcmp(line, "---") || !strcmp(line, "...")) {
		puts_(o, line);
		return;
	}
	if (body[i] == '-' && (!body[i + 1] || isspace((unsigned char)body[i + 1]))) {
		i += 1 + indent_of(body + i + 1);
		if (!strchr(body + i, ':') && yaml_value(body + i)) { /* "- ens1f0np0" */
			puts_(o, line);
			return;
		}
	}
	if (!yaml_key(body, &i, &n, &colon)) {
		netplan_unknown(o, line, skip, block);
		return;
	}
	v = colon + 1 + indent_of(colon + 1);
	if (!secret_key(body + i, n) && (n != 4 || strncmp(body + i, "auth", 4))) {
		if (yaml_value(v)) {
			puts_(o, line);
			return;
		}
		put(o, line, (size_t)(colon - line) + 1); /* the key reads well */
		puts_(o, " " REDACTED);
		if (!skip)
			*block = (long)ind - 1;
		return;
	}
	put(o, line, (size_t)(colon - line) + 1);
	if (*v) /* a value here; else a block below */
		puts_(o, " " REDACTED);
	if (!skip)
		*block = (long)ind; /* what is indented below it is the secret too */
}

/* One logical line: the physical ones joined where one ends in '\'. */
static void logical_line(struct out *o, enum format f, const char *line, bool *in_secret,
			 long *block)
{
	if (f == FMT_IFUPDOWN)
		line_ifupdown(o, line);
	else if (f == FMT_KEYFILE)
		line_keyfile(o, line, in_secret);
	else
		line_netplan(o, line, block);
}

/*
 * ifupdown and systemd continue a line ending in '\' on the next one: the
 * key is read on the joined line (with and without the space systemd puts
 * in), and a secret takes every physical line it spans.
 */
static void continued(struct out *o, enum format f, const char *p, size_t n, size_t lines,
		      bool *in_secret)
{
	char *a = gp_xcalloc(n + 1, 1), *b = gp_xcalloc(n + 1, 1);
	struct out ra = { .buf = gp_xcalloc(1, 1), .cap = 1 };
	struct out rb = { .buf = gp_xcalloc(1, 1), .cap = 1 };
	bool sa = *in_secret, sb = *in_secret;
	size_t i, ja = 0, jb = 0;
	long block = NO_BLOCK;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\' && p[i + 1] == '\n') {
			b[jb++] = ' ';
			i++;
			continue;
		}
		a[ja++] = p[i];
		b[jb++] = p[i];
	}
	logical_line(&ra, f, a, &sa, &block);
	logical_line(&rb, f, b, &sb, &block);
	if (!strcmp(ra.buf, a) && !strcmp(rb.buf, b)) {
		put(o, p, n); /* no secret in it: as it was */
	} else {
		puts_(o, strcmp(ra.buf, a) ? ra.buf : rb.buf);
		for (i = 1; i < lines; i++)
			put(o, "\n", 1); /* the continuation lines, emptied */
	}
	*in_secret = sa;
	free(a);
	free(b);
	free(ra.buf);
	free(rb.buf);
}

char *gp_net_redact(const char *path, const char *text)
{
	enum format f = format_of(path);
	struct out o = { .buf = gp_xcalloc(1, 1), .cap = 1 };
	const char *p = text;
	bool in_secret = false;
	long block = NO_BLOCK;

	while (*p) {
		size_t n = strcspn(p, "\n"), lines = 1;
		char *line;

		while (f != FMT_NETPLAN && n && p[n - 1] == '\\' && p[n] == '\n') {
			n += 1 + strcspn(p + n + 1, "\n"); /* continued on the next */
			lines++;
		}
		if (lines > 1) {
			continued(&o, f, p, n, lines, &in_secret);
		} else {
			line = gp_xcalloc(n + 1, 1);
			memcpy(line, p, n);
			logical_line(&o, f, line, &in_secret, &block);
			free(line);
		}
		p += n;
		if (*p == '\n') {
			put(&o, "\n", 1);
			p++;
		}
	}
	return o.buf;
}
