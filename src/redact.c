// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Network configurations as a snapshot keeps them: what gpuprov reads of
 * them (which interfaces each owner configures) stays, every secret goes.
 * One rule per owner's format: ifupdown's option lines, NetworkManager's and
 * systemd-networkd's INI keys and secret sections, netplan's YAML keys and
 * the blocks below them.  A secret value becomes "REDACTED"; a commented-out
 * secret too.
 */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gp.h"

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
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
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

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
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

/* "  # wpa-psk x": the comment's own text, for a commented-out secret. */
static const char *uncomment(const char *line, size_t *skip)
{
	size_t i = indent_of(line);

	*skip = 0;
	if (line[i] != '#' && line[i] != ';')
		return line;
	*skip = i + 1;
	return line + i + 1;
}

/* ifupdown: "wpa-psk VALUE", "wireless-key VALUE": the first word is the key. */
static void line_ifupdown(struct out *o, const char *line)
{
	size_t skip, i, n;
	const char *body = uncomment(line, &skip);

	i = indent_of(body);
	n = strcspn(body + i, " \t");
	if (!secret_key(body + i, n)) {
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

/* "  password: x", "- key: x", "auth:" (a block follows): netplan's YAML. */
static void line_netplan(struct out *o, const char *line, long *block)
{
	size_t skip, i, n, ind = indent_of(line);
	const char *body = uncomment(line, &skip), *colon;

	if (*block >= 0 && line[ind] && (long)ind > *block) {
		colon = strchr(line + ind, ':'); /* inside a secret block: keys stay */
		put(o, line, colon ? (size_t)(colon - line) + 1 : ind);
		puts_(o, colon ? " " REDACTED : REDACTED);
		return;
	}
	if (line[ind])
		*block = -1;
	i = indent_of(body);
	if (body[i] == '-')
		i += 1 + indent_of(body + i + 1);
	colon = strchr(body + i, ':');
	n = colon ? (size_t)(colon - body - i) : 0;
	if (n >= 2 && (body[i] == '"' || body[i] == '\'')) { /* "password": quoted key */
		i++;
		n -= 2;
	}
	if (!colon || (!secret_key(body + i, n) && (n != 4 || strncmp(body + i, "auth", 4)))) {
		puts_(o, line);
		return;
	}
	put(o, line, (size_t)(colon - line) + 1);
	if (colon[1 + indent_of(colon + 1)]) /* a value here; else a block below */
		puts_(o, " " REDACTED);
	if (!skip)
		*block = (long)ind; /* what is indented below it is the secret too */
}

char *gp_net_redact(const char *path, const char *text)
{
	enum format f = format_of(path);
	struct out o = { .buf = gp_xcalloc(1, 1), .cap = 1 };
	const char *p = text;
	bool in_secret = false;
	long block = -1;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = gp_xcalloc(n + 1, 1);

		memcpy(line, p, n);
		if (f == FMT_IFUPDOWN)
			line_ifupdown(&o, line);
		else if (f == FMT_KEYFILE)
			line_keyfile(&o, line, &in_secret);
		else
			line_netplan(&o, line, &block);
		free(line);
		p += n;
		if (*p == '\n') {
			put(&o, "\n", 1);
			p++;
		}
	}
	return o.buf;
}
