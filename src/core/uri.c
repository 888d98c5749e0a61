// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libvirt URIs gpuprov may open: pure, so that the profile's validator
 * and the journal's checker use the very rule the libvirt adapter applies.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/uri.h"
#include "shared/util.h"

/* Letters, digits and the characters of extra, at least one, not starting with '-'. */
static bool word(const char *s, size_t n, const char *extra)
{
	size_t i;

	if (!n || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

/* [USER@]HOST[:PORT]: nothing ssh could take for an option or a second host. */
static bool ssh_authority(const char *s, size_t n)
{
	const char *at = memchr(s, '@', n), *host = at ? at + 1 : s, *end = s + n, *colon;
	unsigned long port;
	char buf[8];

	if (at && !word(s, (size_t)(at - s), "._-"))
		return false;
	if (*host == '[') { /* an IPv6 address */
		colon = memchr(host, ']', (size_t)(end - host));
		if (!colon || colon == host + 1 ||
		    strspn(host + 1, "0123456789abcdefABCDEF:.") != (size_t)(colon - host - 1))
			return false;
		colon = colon + 1 < end ? colon + 1 : NULL;
		if (colon && *colon != ':')
			return false;
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		if (!word(host, (size_t)((colon ? colon : end) - host), ".-") || *host == '.')
			return false;
	}
	if (!colon)
		return true;
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - colon - 1), colon + 1);
	return end - colon - 1 <= 5 && !gp_parse_uint(buf, 65535, &port) && port;
}

/*
 * /ABSOLUTE/DIR in plain characters (no '%' escapes or parameters), each
 * component a name (not "", "." or ".."): the directory the trust check
 * walks and names is the one libvirt is given, spelled one way.
 */
static bool embed_root(const char *s)
{
	size_t n;

	if (s[0] != '/' || !word(s + 1, strlen(s + 1), "/._+-"))
		return false;
	for (; *s == '/'; s += n) {
		n = strcspn(++s, "/");
		if (!n || (n == 1 && s[0] == '.') || (n == 2 && !strncmp(s, "..", 2)))
			return false;
	}
	return true;
}

/*
 * The URIs gpuprov opens, and nothing else: libvirt runs programs for others
 * (the ext transport runs command=; ssh's netcat=, socket=, keyfile= and the
 * like change what runs where; the embedded driver executes what its root's
 * configuration names, so that root is checked when connecting).
 */
int gp_virt_uri_check(const char *uri, const char **why)
{
	const char *auth, *path;

	*why = "expected qemu:///system, qemu:///session, qemu+ssh://[user@]host[:port]/system "
	       "(no parameters) or qemu:///embed?root=/dir";
	if (!strcmp(uri, "qemu:///system") || !strcmp(uri, "qemu:///session"))
		return 0;
	if (!strncmp(uri, GP_URI_EMBED, strlen(GP_URI_EMBED)))
		return embed_root(uri + strlen(GP_URI_EMBED)) ? 0 : -EINVAL;
	if (strncmp(uri, "qemu+ssh://", 11))
		return -EINVAL;
	auth = uri + 11;
	path = strchr(auth, '/');
	if (!path || !ssh_authority(auth, (size_t)(path - auth)))
		return -EINVAL;
	return !strcmp(path, "/system") || !strcmp(path, "/session") ? 0 : -EINVAL;
}
