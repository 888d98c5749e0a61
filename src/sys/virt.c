// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libvirt adapter: connect (to a URI uri.c accepts), tell what is
 * defined and its digest, define and undefine, and QEMU's version.
 * libvirt is loaded at run time (dlopen of libvirt.so.0) the first time a
 * connection is wanted: linked, its 50 shared objects cost every command
 * 8 MB of memory before main() ran, and most commands never talk to it.
 * Its header still gives the types, and typeof() of its prototypes the
 * pointers' types, so a wrong signature does not compile.
 * libvirt reports errors through a callback and virGetLastErrorMessage();
 * both are turned into gp_err() here, and its own printing is silenced.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "core/model.h"
#include "core/uri.h"
#include "sys/virt.h"

extern char **environ;

/* the functions gpuprov calls, with the types of libvirt's own prototypes */
struct virt_api {
	__typeof__(virSetErrorFunc) *set_error_func;
	__typeof__(virEventRegisterDefaultImpl) *event_register_default;
	__typeof__(virConnectOpen) *connect_open;
	__typeof__(virConnectClose) *connect_close;
	__typeof__(virConnectRef) *connect_ref;
	__typeof__(virGetLastError) *last_error;
	__typeof__(virGetLastErrorMessage) *last_error_message;
	__typeof__(virDomainLookupByName) *lookup;
	__typeof__(virDomainGetXMLDesc) *xml_desc;
	__typeof__(virDomainIsActive) *is_active;
	__typeof__(virDomainDefineXML) *define_xml;
	__typeof__(virDomainUndefineFlags) *undefine;
	__typeof__(virDomainFree) *domain_free;
};

static struct virt_api api;
static int load_rc = 1; /* 1: not tried yet; then 0 or a negative errno */
static char load_why[256];

#define NEED(fld, name) ((*(void **)&api.fld = dlsym(dl, name)) != NULL)

static bool resolve(void *dl)
{
	return NEED(set_error_func, "virSetErrorFunc") &&
	       NEED(event_register_default, "virEventRegisterDefaultImpl") &&
	       NEED(connect_open, "virConnectOpen") && NEED(connect_close, "virConnectClose") &&
	       NEED(connect_ref, "virConnectRef") && NEED(last_error, "virGetLastError") &&
	       NEED(last_error_message, "virGetLastErrorMessage") &&
	       NEED(lookup, "virDomainLookupByName") && NEED(xml_desc, "virDomainGetXMLDesc") &&
	       NEED(is_active, "virDomainIsActive") && NEED(define_xml, "virDomainDefineXML") &&
	       NEED(undefine, "virDomainUndefineFlags") && NEED(domain_free, "virDomainFree");
}

static int load(const char *soname)
{
	void *dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!dl) {
		/* short: plan quotes it in a step's 128-byte state */
		e = dlerror();
		snprintf(load_why, sizeof(load_why), "cannot load %s", e ? e : soname);
		return -ENOENT;
	}
	if (!resolve(dl)) {
		snprintf(load_why, sizeof(load_why),
			 "%s lacks a function gpuprov needs (libvirt too old)", soname);
		memset(&api, 0, sizeof(api));
		dlclose(dl);
		return -ENOSYS;
	}
	/* kept loaded: libvirt's threads and event loop live as long as we do */
	return 0;
}

int gp_virt_load(const char *soname, char *why, size_t len)
{
	if (load_rc > 0)
		load_rc = load(soname);
	if (load_rc && why)
		snprintf(why, len, "%s", load_why);
	return load_rc;
}

static void quiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

/* libvirt's last error in words, or what kept libvirt from being asked */
static const char *last_error(void)
{
	if (load_rc < 0)
		return load_why;
	if (load_rc > 0) /* refused before loading: gp_err said why */
		return gp_last_error;
	return api.last_error() ? api.last_error_message() : gp_last_error;
}

/*
 * 0 when gpuprov may open uri, else -EPERM after gp_err: every connection,
 * whether its URI came from a profile or a journal, and for an embedded
 * root, before libvirt reads a byte of it (its driver runs the emulators
 * its domains name, as root): what the root leads to, and all in it.
 */
static int may_open(const char *uri)
{
	const char *why;

	if (gp_virt_uri_check(uri, &why)) {
		gp_err("refusing the libvirt URI '%s': %s", uri, why);
		return -EPERM;
	}
	if (!strncmp(uri, GP_URI_EMBED, strlen(GP_URI_EMBED)) &&
	    gp_trust(uri + strlen(GP_URI_EMBED), GP_TRUST_LIBVIRT))
		return -EPERM;
	return 0;
}

/*
 * The embedded driver shuts down when its last connection closes; with a
 * domain running, its reconnect to that domain's monitor may still be at
 * work then, and libvirt 9.0 crashes (SIGSEGV, as virsh does at exit too):
 * a refused apply exited 139 instead of 2.  The first connection to an
 * embedded root is held until gpuprov exits, so the driver is never shut
 * down under it.
 */
static void hold_embedded(const char *uri, virConnectPtr c)
{
	static virConnectPtr held;

	if (!c || held || strncmp(uri, GP_URI_EMBED, strlen(GP_URI_EMBED)))
		return;
	if (!api.connect_ref(c))
		held = c;
}

/* A connection to uri, which may_open passed. */
static virConnectPtr open_uri(const char *uri, bool complain)
{
	static bool loop;
	virConnectPtr c;

	if (gp_virt_load(GP_LIBVIRT_SONAME, NULL, 0)) {
		if (complain)
			gp_err("cannot connect to libvirt at '%s': %s (is libvirt0 installed?)",
			       uri, load_why);
		else
			gp_debug("libvirt at '%s': %s", uri, load_why);
		return NULL;
	}
	api.set_error_func(NULL, quiet);
	/*
	 * A remote transport (ssh) writes to a socket whose other end may be
	 * gone: that write must fail, not kill gpuprov with SIGPIPE (exit 141
	 * now and then instead of "libvirt cannot be reached").  The output
	 * streams still end gpuprov quietly when their reader goes (cli/term.c).
	 */
	signal(SIGPIPE, SIG_IGN);
	/* qemu:///embed runs the driver in our process: it needs an event loop */
	if (!loop && !api.event_register_default())
		loop = true;
	c = api.connect_open(uri);
	hold_embedded(uri, c);
	if (!c && complain)
		gp_err("cannot connect to libvirt at '%s': %s", uri, api.last_error_message());
	else if (!c)
		gp_debug("libvirt at '%s': %s", uri, api.last_error_message());
	return c;
}

virConnectPtr gp_virt_connect(const char *uri, bool complain)
{
	return may_open(uri) ? NULL : open_uri(uri, complain);
}

void gp_virt_close(virConnectPtr c)
{
	if (c)
		api.connect_close(c);
}

char *gp_virt_xml(virConnectPtr c, const char *name, bool secure)
{
	virDomainPtr d = api.lookup(c, name);
	char *xml;

	if (!d)
		return NULL;
	xml = api.xml_desc(d, VIR_DOMAIN_XML_INACTIVE | (secure ? VIR_DOMAIN_XML_SECURE : 0));
	api.domain_free(d);
	return xml;
}

int gp_virt_define(const char *uri, const char *xml)
{
	virConnectPtr c = gp_virt_connect(uri, true);
	virDomainPtr d;

	if (!c)
		return -EIO;
	d = api.define_xml(c, xml);
	if (!d)
		gp_err("libvirt refused the domain: %s", api.last_error_message());
	else
		api.domain_free(d);
	api.connect_close(c);
	return d ? 0 : -EINVAL;
}

int gp_virt_undefine(const char *uri, const char *name)
{
	virConnectPtr c = gp_virt_connect(uri, true);
	virDomainPtr d;
	int rc = 0;

	if (!c)
		return -EIO;
	d = api.lookup(c, name);
	if (d && api.undefine(d, VIR_DOMAIN_UNDEFINE_NVRAM) < 0) {
		gp_err("cannot undefine '%s': %s", name, api.last_error_message());
		rc = -EIO;
	}
	if (d)
		api.domain_free(d);
	api.connect_close(c);
	return rc;
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

int gp_virt_digest(const char *uri, const char *name, char *digest, size_t len, int *running,
		   char *why, size_t wlen)
{
	virConnectPtr c;
	virDomainPtr d;
	char *xml;

	digest[0] = '\0';
	*running = -1;
	if (may_open(uri)) { /* libvirt is not asked: gp_err said why */
		snprintf(why, wlen, "%s", gp_last_error);
		return -2;
	}
	c = open_uri(uri, false);
	if (!c) {
		snprintf(why, wlen, "%s", last_error());
		return -1;
	}
	d = api.lookup(c, name);
	if (!d) {
		api.connect_close(c);
		*running = 0;
		return 0;
	}
	xml = api.xml_desc(d, VIR_DOMAIN_XML_INACTIVE);
	gp_virt_digest_of(xml, digest, len);
	free(xml);
	*running = api.is_active(d) == 1;
	api.domain_free(d);
	api.connect_close(c);
	return 1;
}
