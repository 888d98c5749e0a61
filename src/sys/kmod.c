// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libkmod adapter: is a module there for a kernel under a root, which
 * vfio variant driver matches a device, and a context on the running kernel
 * for the actuators.  libkmod logs through its own function; we route that
 * into gp_debug() so it never prints on its own, and turn its negative-errno
 * results into ours at this edge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libkmod.h>

#include "core/manifest.h"
#include "sys/kmod.h"
#include "core/model.h"

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

/* Every entry of dir whose name starts with prefix passes gp_root_guard(). */
static int guard_dir(int rootfd, const char *root, const char *dir, const char *prefix)
{
	char path[4096];
	struct dirent *e;
	DIR *d;
	int rc = gp_root_guard(rootfd, root, dir);

	if (rc || !(d = gp_root_opendir(rootfd, dir)))
		return rc;
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		rc = gp_root_guard(rootfd, root, path);
	}
	closedir(d);
	return rc;
}

/* A release comes from the tree: a directory's name under /lib/modules, never a path. */
bool gp_kmod_release_ok(const char *release)
{
	return release[0] && !strchr(release, '/') && strcmp(release, "..") && strcmp(release, ".");
}

/*
 * What libkmod opens by itself, following links as the kernel does, for
 * kmod_open's context: ROOT/lib/modules/RELEASE/modules.* (its indexes;
 * the directory is only stat()ed), and each modprobe directory with every
 * entry in it (a regular file there is read whatever its name).  It also
 * stat()s the module files modules.dep names, and opens none of them for
 * what gpuprov asks.  0 paths when libkmod is not run for release.
 */
size_t gp_kmod_lib_paths(const char *release, struct gp_lib_path *paths)
{
	size_t i;

	if (!gp_kmod_release_ok(release))
		return 0;
	snprintf(paths[0].path, sizeof(paths[0].path), GP_LIB_MODULES "/%s", release);
	paths[0].entries = "modules.";
	paths[0].name = NULL;
	for (i = 0; i < GP_MODPROBE_DIRS; i++) {
		gp_strlcpy(paths[i + 1].path, gp_modprobe_dirs[i], sizeof(paths[i + 1].path));
		paths[i + 1].entries = "";
		paths[i + 1].name = NULL;
	}
	return GP_KMOD_LIB_PATHS;
}

/*
 * Under --root each of those must lead where the safe reader's resolution
 * does, to a regular file or a directory.
 */
static bool kmod_tree_safe(const char *root, const char *release)
{
	static bool warned;
	struct gp_lib_path paths[GP_KMOD_LIB_PATHS];
	int rootfd = gp_root_open(root), rc = 0;
	size_t i, n = gp_kmod_lib_paths(release, paths);

	if (rootfd == AT_FDCWD)
		return true;
	if (rootfd < 0)
		return false;
	for (i = 0; !rc && i < n; i++)
		rc = guard_dir(rootfd, root, paths[i].path, paths[i].entries);
	gp_root_close(rootfd);
	if (rc && !warned)
		gp_warn("'%s': %s: vfio-pci's availability is unknown", root, gp_root_strerror(rc));
	warned |= rc != 0;
	return !rc;
}

static struct kmod_ctx *kmod_open(const char *root, const char *release)
{
	char dir[4096], conf[GP_MODPROBE_DIRS][4096];
	const char *configs[GP_MODPROBE_DIRS + 1];
	struct kmod_ctx *ctx;
	struct stat st;
	size_t i;

	if (!gp_kmod_release_ok(release) || !kmod_tree_safe(root, release))
		return NULL;
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", root, release);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	for (i = 0; i < GP_MODPROBE_DIRS; i++) {
		snprintf(conf[i], sizeof(conf[i]), "%s%s", root, gp_modprobe_dirs[i]);
		configs[i] = conf[i];
	}
	configs[i] = NULL;
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

/*
 * A variant driver (nvgrace_gpu_vfio_pci, ...) declares "vfio_pci:" aliases
 * that match the device's modalias; its module is the one to load instead of
 * vfio_pci.  module keeps "vfio_pci" when none matches.
 */
void gp_vfio_variant(const char *root, const char *release, const char *modalias, char *module,
		     size_t len)
{
	struct kmod_ctx *ctx = kmod_open(root, release);
	struct kmod_list *list = NULL, *l;
	char alias[256];

	if (!ctx)
		return;
	snprintf(alias, sizeof(alias), "vfio_%s", modalias);
	if (kmod_module_new_from_lookup(ctx, alias, &list) >= 0) {
		kmod_list_foreach (l, list) {
			struct kmod_module *m = kmod_module_get_module(l);

			gp_strlcpy(module, kmod_module_get_name(m), len);
			kmod_module_unref(m);
			break;
		}
		kmod_module_unref_list(list);
	}
	kmod_unref(ctx);
}

/* "install M /bin/false" and the like: modprobe runs that instead of loading M. */
static bool install_disables(const char *cmd)
{
	static const char *const nop[] = { "/bin/false",    "/bin/true", "/usr/bin/false",
					   "/usr/bin/true", "false",	 "true" };
	size_t i, n;

	if (!cmd)
		return false;
	cmd += strspn(cmd, " \t");
	n = strcspn(cmd, " \t;");
	for (i = 0; i < ARRAY_SIZE(nop); i++)
		if (n == strlen(nop[i]) && !strncmp(cmd, nop[i], n))
			return true;
	return false;
}

static bool in_list(struct kmod_list *list, const char *name)
{
	struct kmod_list *l;

	kmod_list_foreach (l, list) {
		struct kmod_module *m = kmod_module_get_module(l);
		bool same = !strcmp(kmod_module_get_name(m), name);

		kmod_module_unref(m);
		if (same)
			return true;
	}
	return false;
}

static void describe(struct kmod_module *m, struct kmod_list *allowed, const char *vfio_module,
		     struct gp_claimant *c)
{
	struct kmod_list *pre = NULL, *post = NULL;

	memset(c, 0, sizeof(*c));
	gp_strlcpy(c->module, kmod_module_get_name(m), sizeof(c->module));
	c->blacklisted = !in_list(allowed, c->module);
	c->disabled = install_disables(kmod_module_get_install_commands(m));
	if (kmod_module_get_softdeps(m, &pre, &post) >= 0)
		c->vfio_first = in_list(pre, vfio_module) || in_list(pre, "vfio_pci");
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
}

struct kmod_ctx *gp_kmod_open(const char *root, const char *release)
{
	return kmod_open(root, release);
}

void gp_kmod_close(struct kmod_ctx *ctx)
{
	if (ctx)
		kmod_unref(ctx);
}

int gp_kmod_claimants(struct kmod_ctx *ctx, const char *modalias, const char *vfio_module,
		      struct gp_claimant *out, int max)
{
	struct kmod_list *list = NULL, *allowed = NULL, *l;
	int n = 0;

	if (!ctx)
		return -1;
	if (kmod_module_new_from_lookup(ctx, modalias, &list) < 0 ||
	    kmod_module_apply_filter(ctx, KMOD_FILTER_BLACKLIST, list, &allowed) < 0) {
		kmod_module_unref_list(list);
		return -1;
	}
	kmod_list_foreach (l, list) {
		struct kmod_module *m = kmod_module_get_module(l);

		if (n < max)
			describe(m, allowed, vfio_module, &out[n++]);
		kmod_module_unref(m);
	}
	kmod_module_unref_list(allowed);
	kmod_module_unref_list(list);
	return n;
}

/*
 * The name a module's PCI driver registers under, before it is loaded:
 * vfio-pci names itself so; variant drivers use KBUILD_MODNAME, the module
 * name with its underscores (nvgrace_gpu_vfio_pci, mlx5_vfio_pci).  host/bind.c
 * prefers /sys/bus/pci/drivers/<name>/module once the module is loaded.
 */
void gp_vfio_driver_of(const char *module, char *driver, size_t len)
{
	gp_strlcpy(driver, strcmp(module, "vfio_pci") ? module : "vfio-pci", len);
}

/* A context on the running kernel, its logging routed like the others'. */
struct kmod_ctx *gp_kmod_live(void)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);

	if (ctx)
		kmod_set_log_fn(ctx, kmod_log, NULL);
	return ctx;
}
