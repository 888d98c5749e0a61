// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vfio adapter: libkmod for module questions.  libkmod logs through its
 * own function; we route that into gp_debug() so it never prints on its own,
 * and turn its negative-errno results into ours at this edge.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <libkmod.h>

#include "gp.h"
#include "vfio.h"

static void kmod_log(void *data, int priority, const char *file, int line, const char *fn,
		     const char *fmt, va_list args)
{
	char buf[512];

	(void)data;
	(void)priority;
	(void)file;
	(void)line;
	(void)fn;
	vsnprintf(buf, sizeof(buf), fmt, args);
	buf[strcspn(buf, "\n")] = '\0';
	gp_debug("libkmod: %s", buf);
}

static struct kmod_ctx *kmod_open(const char *root, const char *release)
{
	char dir[4096], c1[4096], c2[4096], c3[4096];
	const char *configs[4];
	struct kmod_ctx *ctx;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", root, release);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	snprintf(c1, sizeof(c1), "%s/etc/modprobe.d", root);
	snprintf(c2, sizeof(c2), "%s/run/modprobe.d", root);
	snprintf(c3, sizeof(c3), "%s/lib/modprobe.d", root);
	configs[0] = c1;
	configs[1] = c2;
	configs[2] = c3;
	configs[3] = NULL;
	ctx = kmod_new(dir, configs);
	if (ctx)
		kmod_set_log_fn(ctx, kmod_log, NULL);
	return ctx;
}

/* 1: vfio-pci is a module of this kernel or built in; 0: it is not; -1: unknown. */
int gp_vfio_module_available(const char *root, const char *release)
{
	struct kmod_ctx *ctx = kmod_open(root, release);
	struct kmod_list *list = NULL;
	int rc;

	if (!ctx)
		return -1;
	rc = kmod_module_new_from_lookup(ctx, "vfio-pci", &list);
	if (rc < 0) {
		gp_debug("libkmod: lookup of vfio-pci: %s", strerror(-rc));
		kmod_unref(ctx);
		return -1;
	}
	rc = list != NULL;
	kmod_module_unref_list(list);
	kmod_unref(ctx);
	return rc;
}
