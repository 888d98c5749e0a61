// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libvirt adapter: define and undefine the VM, and tell what is defined.
 * libvirt reports errors through a callback and virGetLastErrorMessage();
 * both are turned into gp_err() here, and its own printing is silenced.
 */
#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "apply.h"
#include "virt.h"

extern char **environ;

static const struct gp_vm_target *target; /* what apply defines */

void gp_virt_set_target(const struct gp_vm_target *t)
{
	target = t;
}

#define EMBED "qemu:///embed?root="

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

/* /ABSOLUTE/DIR in plain characters: no '%' escapes, parameters or "..". */
static bool embed_root(const char *s)
{
	if (s[0] != '/' || !word(s + 1, strlen(s + 1), "/._+-") || strstr(s, "/../") ||
	    (strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "/..")))
		return false;
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
	if (!strncmp(uri, EMBED, strlen(EMBED)))
		return embed_root(uri + strlen(EMBED)) ? 0 : -EINVAL;
	if (strncmp(uri, "qemu+ssh://", 11))
		return -EINVAL;
	auth = uri + 11;
	path = strchr(auth, '/');
	if (!path || !ssh_authority(auth, (size_t)(path - auth)))
		return -EINVAL;
	return !strcmp(path, "/system") || !strcmp(path, "/session") ? 0 : -EINVAL;
}

static void quiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static virConnectPtr connect_to(const char *uri, bool complain)
{
	static bool loop;
	virConnectPtr c;
	const char *why;

	/* every connection, whether its URI came from a profile or a journal */
	if (gp_virt_uri_check(uri, &why)) {
		gp_err("refusing the libvirt URI '%s': %s", uri, why);
		return NULL;
	}
	if (!strncmp(uri, EMBED, strlen(EMBED)) && gp_trust(uri + strlen(EMBED), GP_TRUST_TREE))
		return NULL;
	virSetErrorFunc(NULL, quiet);
	/* qemu:///embed runs the driver in our process: it needs an event loop */
	if (!loop && !virEventRegisterDefaultImpl())
		loop = true;
	c = virConnectOpen(uri);
	if (!c && complain)
		gp_err("cannot connect to libvirt at '%s': %s", uri, virGetLastErrorMessage());
	else if (!c)
		gp_debug("libvirt at '%s': %s", uri, virGetLastErrorMessage());
	return c;
}

/* QEMU's version from the binary itself: "QEMU emulator version 7.2.18 (...)". */
void gp_virt_qemu_version(char *buf, size_t len)
{
	char *argv[] = { "qemu-system-x86_64", "--version", NULL }, out[256] = "";
	posix_spawn_file_actions_t fa;
	int fds[2], status;
	ssize_t n = 0;
	pid_t pid;
	const char *v;

	buf[0] = '\0';
	if (pipe(fds))
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", 1, 0);
	if (!posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		close(fds[1]);
		fds[1] = -1;
		n = read(fds[0], out, sizeof(out) - 1);
		waitpid(pid, &status, 0);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	out[n > 0 ? n : 0] = '\0';
	v = strstr(out, "version ");
	if (v)
		snprintf(buf, len, "%.*s", (int)strspn(v + 8, "0123456789."), v + 8);
}

/* gpuprov's digest in a domain XML: <gp:gpuprov digest='...'/> in <metadata>. */
int gp_virt_digest_of(const char *xml, char *digest, size_t len)
{
	const char *p = xml ? strstr(xml, "urn:gpuprov:1") : NULL;

	digest[0] = '\0';
	if (!p || !(p = strstr(p, "digest=")))
		return 0;
	p += 8; /* digest=" or digest=' */
	snprintf(digest, len, "%.*s", (int)strspn(p, "0123456789abcdef"), p);
	return 1;
}

/* -1: libvirt not reachable; 0: no such domain; 1: defined (digest filled). */
int gp_virt_digest(const char *uri, const char *name, char *digest, size_t len)
{
	virConnectPtr c = connect_to(uri, false);
	virDomainPtr d;
	char *xml;

	digest[0] = '\0';
	if (!c)
		return -1;
	d = virDomainLookupByName(c, name);
	if (!d) {
		virConnectClose(c);
		return 0;
	}
	xml = virDomainGetXMLDesc(d, VIR_DOMAIN_XML_INACTIVE);
	gp_virt_digest_of(xml, digest, len);
	free(xml);
	virDomainFree(d);
	virConnectClose(c);
	return 1;
}

/* ---- the domain.define actuator ---- */

static int define_precheck(const struct gp_step *st)
{
	virConnectPtr c;

	(void)st;
	if (!target) {
		gp_err("domain.define: no domain XML to define");
		return -EINVAL;
	}
	c = connect_to(target->uri, true);
	if (!c)
		return -EIO;
	virConnectClose(c);
	return 0;
}

static int define_done(const struct gp_step *st)
{
	char digest[24];

	(void)st;
	return gp_virt_digest(target->uri, target->name, digest, sizeof(digest)) == 1 &&
	       !strcmp(digest, target->digest);
}

static int define_record(const struct gp_step *st, json_object *undo)
{
	virConnectPtr c = connect_to(target->uri, true);
	virDomainPtr d;
	char *xml;

	(void)st;
	if (!c)
		return -EIO;
	json_object_object_add(undo, "uri", json_object_new_string(target->uri));
	json_object_object_add(undo, "name", json_object_new_string(target->name));
	d = virDomainLookupByName(c, target->name);
	xml = d ? virDomainGetXMLDesc(d, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE) : NULL;
	json_object_object_add(undo, "previous", xml ? json_object_new_string(xml) : NULL);
	free(xml);
	if (d)
		virDomainFree(d);
	virConnectClose(c);
	return 0;
}

static int define_xml(const char *uri, const char *xml)
{
	virConnectPtr c = connect_to(uri, true);
	virDomainPtr d;

	if (!c)
		return -EIO;
	d = virDomainDefineXML(c, xml);
	if (!d)
		gp_err("libvirt refused the domain: %s", virGetLastErrorMessage());
	else
		virDomainFree(d);
	virConnectClose(c);
	return d ? 0 : -EINVAL;
}

static int define_run(const struct gp_step *st)
{
	(void)st;
	return define_xml(target->uri, target->xml);
}

static int define_verify(const struct gp_step *st)
{
	if (define_done(st) > 0)
		return 0;
	gp_err("domain '%s' is not defined as written", target->name);
	return -EIO;
}

/* Put back the previous definition, or undefine the one we added. */
static int define_undo(const struct gp_step *st, json_object *undo)
{
	json_object *uri = json_object_object_get(undo, "uri");
	json_object *name = json_object_object_get(undo, "name");
	json_object *prev = json_object_object_get(undo, "previous");
	virConnectPtr c;
	virDomainPtr d;
	int rc = 0;

	(void)st;
	if (!uri || !name)
		return 0; /* nothing was recorded: nothing was defined */
	if (prev)
		return define_xml(json_object_get_string(uri), json_object_get_string(prev));
	c = connect_to(json_object_get_string(uri), true);
	if (!c)
		return -EIO;
	d = virDomainLookupByName(c, json_object_get_string(name));
	if (d && virDomainUndefineFlags(d, VIR_DOMAIN_UNDEFINE_NVRAM) < 0) {
		gp_err("cannot undefine '%s': %s", json_object_get_string(name),
		       virGetLastErrorMessage());
		rc = -EIO;
	}
	if (d)
		virDomainFree(d);
	virConnectClose(c);
	return rc;
}

const struct gp_actuator gp_act_domain_define = {
	"domain.define", define_precheck, define_done, define_record,
	define_run,	 define_verify,	  define_undo,
};
