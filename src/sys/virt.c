// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libvirt adapter: connect (to a URI uri.c accepts), tell what is
 * defined and its digest, and QEMU's version.
 * libvirt reports errors through a callback and virGetLastErrorMessage();
 * both are turned into gp_err() here, and its own printing is silenced.
 */
#include <ctype.h>
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

static void quiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

virConnectPtr gp_virt_connect(const char *uri, bool complain)
{
	static bool loop;
	virConnectPtr c;
	const char *why;

	/* every connection, whether its URI came from a profile or a journal */
	if (gp_virt_uri_check(uri, &why)) {
		gp_err("refusing the libvirt URI '%s': %s", uri, why);
		return NULL;
	}
	if (!strncmp(uri, GP_URI_EMBED, strlen(GP_URI_EMBED)) &&
	    gp_trust(uri + strlen(GP_URI_EMBED), GP_TRUST_TREE))
		return NULL;
	virSetErrorFunc(NULL, quiet);
	/*
	 * A remote transport (ssh) writes to a socket whose other end may be
	 * gone: that write must fail, not kill gpuprov with SIGPIPE (exit 141
	 * now and then instead of "libvirt cannot be reached").  The output
	 * streams still end gpuprov quietly when their reader goes (render.c).
	 */
	signal(SIGPIPE, SIG_IGN);
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

/*
 * -1: libvirt not reachable (why says so); 0: no such domain; 1: defined
 * (digest filled, *running 1 when it runs).
 */
int gp_virt_digest(const char *uri, const char *name, char *digest, size_t len, int *running,
		   char *why, size_t wlen)
{
	virConnectPtr c = gp_virt_connect(uri, false);
	virDomainPtr d;
	char *xml;

	digest[0] = '\0';
	*running = -1;
	if (!c) { /* refused before libvirt was asked: gp_err said why */
		snprintf(why, wlen, "%s",
			 virGetLastError() ? virGetLastErrorMessage() : gp_last_error);
		return -1;
	}
	d = virDomainLookupByName(c, name);
	if (!d) {
		virConnectClose(c);
		*running = 0;
		return 0;
	}
	xml = virDomainGetXMLDesc(d, VIR_DOMAIN_XML_INACTIVE);
	gp_virt_digest_of(xml, digest, len);
	free(xml);
	*running = virDomainIsActive(d) == 1;
	virDomainFree(d);
	virConnectClose(c);
	return 1;
}
