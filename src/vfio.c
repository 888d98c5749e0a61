// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vfio adapter: libkmod for modules, sysfs for driver binding, and the
 * actuators of module.load and device.*.  libkmod logs through its
 * own function; we route that into gp_debug() so it never prints on its own,
 * and turn its negative-errno results into ours at this edge.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libkmod.h>

#include "apply.h"
#include "gp.h"
#include "progress.h"
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

static const char *const kmod_configs[] = { "/etc/modprobe.d", "/run/modprobe.d",
					    "/lib/modprobe.d" };

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

/*
 * libkmod opens ROOT/lib/modules/RELEASE/modules.* and the modprobe.d files
 * by itself, following links as the kernel does: under --root, each must
 * lead where the safe reader's does, to a regular file or a directory.
 */
static bool kmod_tree_safe(const char *root, const char *release)
{
	static bool warned;
	char dir[4096];
	int rootfd = gp_root_open(root), rc = 0;
	size_t i;

	if (rootfd == AT_FDCWD)
		return true;
	if (rootfd < 0)
		return false;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", release);
	rc = guard_dir(rootfd, root, dir, "modules.");
	for (i = 0; !rc && i < sizeof(kmod_configs) / sizeof(kmod_configs[0]); i++)
		rc = guard_dir(rootfd, root, kmod_configs[i], "");
	gp_root_close(rootfd);
	if (rc && !warned)
		gp_warn("'%s': %s: vfio-pci's availability is unknown", root, gp_root_strerror(rc));
	warned |= rc != 0;
	return !rc;
}

static struct kmod_ctx *kmod_open(const char *root, const char *release)
{
	char dir[4096], c1[4096], c2[4096], c3[4096];
	const char *configs[4];
	struct kmod_ctx *ctx;
	struct stat st;

	/* the release comes from the tree: a name, never a path */
	if (!release[0] || strchr(release, '/') || !strcmp(release, "..") ||
	    !kmod_tree_safe(root, release))
		return NULL;
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

/*
 * The name a module's PCI driver registers under, before it is loaded:
 * vfio-pci names itself so; variant drivers use KBUILD_MODNAME, the module
 * name with its underscores (nvgrace_gpu_vfio_pci, mlx5_vfio_pci).  host.c
 * prefers /sys/bus/pci/drivers/<name>/module once the module is loaded.
 */
void gp_vfio_driver_of(const char *module, char *driver, size_t len)
{
	gp_strlcpy(driver, strcmp(module, "vfio_pci") ? module : "vfio-pci", len);
}

/* ================= the actuators: module.load and device.* ================= */

#define SYSPCI "/sys/bus/pci"

/* vfio-pci and what it pulls in, the order in which undo unloads them */
static const char *const vfio_modules[] = {
	"vfio_pci", "vfio_pci_core", "vfio_virqfd", "vfio_iommu_type1", "vfio", "irqbypass", NULL,
};

static bool module_loaded(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !access(path, F_OK);
}

static int read_attr(const char *bdf, const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;

	snprintf(path, sizeof(path), SYSPCI "/devices/%s/%s", bdf, attr);
	n = gp_root_read(AT_FDCWD, path, buf, len);
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The driver bound to bdf, "" when none. */
static void current_driver(const char *bdf, char *buf, size_t len)
{
	char path[256], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), SYSPCI "/devices/%s/driver", bdf);
	n = gp_root_readlink(AT_FDCWD, path, link, sizeof(link));
	buf[0] = '\0';
	if (n <= 0)
		return;
	gp_strlcpy(buf, strrchr(link, '/') ? strrchr(link, '/') + 1 : link, len);
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

static double env_seconds(const char *name, double fallback)
{
	const char *s = getenv(name);
	double v = s ? atof(s) : 0;

	return v > 0 ? v : fallback;
}

/*
 * A write that has not returned after half a second (a driver that does not
 * let go of its device): the deadline counting down, on a terminal.
 */
static void deadline_progress(const char *path, const char *value, double waited, double limit)
{
	if (waited < 0.5)
		return;
	if (waited >= limit) {
		gp_progress_clear();
		return;
	}
	/* the seconds first: a narrow terminal cuts the end */
	gp_progress("giving up in %d s: writing %s to %s has not returned (a busy driver?)",
		    (int)(limit - waited + 0.999), value, path);
}

/*
 * An unbind (or any sysfs write that can block) runs in a child: unbinding
 * a device in use hangs in the kernel and cannot be interrupted, so we stop
 * waiting at the deadline (GPUPROV_UNBIND_TIMEOUT, 10 s) and say so.
 */
int gp_write_deadline(const char *path, const char *value)
{
	double limit = env_seconds("GPUPROV_UNBIND_TIMEOUT", 10);
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	double waited = 0;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (gp_lock_fd >= 0)
			close(gp_lock_fd); /* a child stuck in the kernel must not hold it */
		_exit(-write_file(path, value) & 0xff);
	}
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0)
			return -errno;
		deadline_progress(path, value, waited, limit);
		if (waited >= limit) {
			kill(pid, SIGKILL); /* ends it only if the write ever returns */
			for (r = 0; r < 5 && !waitpid(pid, &status, WNOHANG); r++)
				nanosleep(&tick, NULL); /* reap it when it did die */
			gp_err("writing '%s' to '%s' did not return within %g s: the device is "
			       "probably in use; the kernel keeps the write blocked",
			       value, path, limit);
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
		waited += 0.02;
	}
	gp_progress_clear();
	if (!WIFEXITED(status))
		return -EIO;
	return -WEXITSTATUS(status);
}

/* ---- module.load ---- */

static struct kmod_ctx *kmod_live(void)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);

	if (ctx)
		kmod_set_log_fn(ctx, kmod_log, NULL);
	return ctx;
}

static int with_module(const char *name, struct kmod_ctx **ctx, struct kmod_module **mod)
{
	struct kmod_list *list = NULL;
	int rc;

	*ctx = kmod_live();
	if (!*ctx)
		return -ENOMEM;
	rc = kmod_module_new_from_lookup(*ctx, name, &list);
	if (rc < 0 || !list) {
		kmod_unref(*ctx);
		gp_err("module '%s' not found for the running kernel", name);
		return rc < 0 ? rc : -ENOENT;
	}
	*mod = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	return 0;
}

static int module_precheck(const struct gp_step *st)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	int rc = with_module(st->arg, &ctx, &mod);

	if (rc)
		return rc;
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return 0;
}

/* The step's own module (a variant driver's, or vfio_pci) with underscores. */
static void step_module(const struct gp_step *st, char *name, size_t len)
{
	char *c;

	gp_strlcpy(name, st->arg, len);
	for (c = name; *c; c++)
		if (*c == '-')
			*c = '_';
}

static int module_done(const struct gp_step *st)
{
	char name[GP_NAME_LEN];

	step_module(st, name, sizeof(name));
	return module_loaded(name);
}

/* What undo may unload: the step's module first, then vfio-pci's stack. */
static int undo_modules(const struct gp_step *st, char names[][GP_NAME_LEN], int max)
{
	int i, n = 1;

	step_module(st, names[0], GP_NAME_LEN);
	for (i = 0; vfio_modules[i] && n < max; i++)
		if (strcmp(vfio_modules[i], names[0]))
			gp_strlcpy(names[n++], vfio_modules[i], GP_NAME_LEN);
	return n;
}

static int module_record(const struct gp_step *st, json_object *undo)
{
	json_object *before = json_object_new_array();
	char names[8][GP_NAME_LEN];
	int i, n = undo_modules(st, names, 8);

	for (i = 0; i < n; i++)
		if (module_loaded(names[i]))
			json_object_array_add(before, json_object_new_string(names[i]));
	json_object_object_add(undo, "loaded_before", before);
	return 0;
}

static int module_run(const struct gp_step *st)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	int rc = with_module(st->arg, &ctx, &mod);

	if (rc)
		return rc;
	rc = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL,
					     NULL);
	if (rc > 0) {
		gp_err("module '%s' is blacklisted (modprobe.d)", st->arg);
		rc = -EPERM;
	} else if (rc < 0) {
		gp_err("cannot load '%s': %s", st->arg, strerror(-rc));
	}
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return rc;
}

static int module_verify(const struct gp_step *st)
{
	if (module_done(st) > 0)
		return 0;
	gp_err("'%s' does not show in /sys/module after loading", st->arg);
	return -EIO;
}

static bool was_loaded(json_object *before, const char *name)
{
	size_t i;

	for (i = 0; before && i < json_object_array_length(before); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(before, i)), name))
			return true;
	return false;
}

/* Unloads what the load brought in; a built-in or busy module stays. */
static int module_undo(const struct gp_step *st, json_object *undo)
{
	json_object *before = json_object_object_get(undo, "loaded_before");
	char names[8][GP_NAME_LEN];
	struct kmod_ctx *ctx;
	int i, n, rc = 0;

	if (!before)
		return 0; /* nothing was recorded: nothing was loaded */
	ctx = kmod_live();
	if (!ctx)
		return -ENOMEM;
	n = undo_modules(st, names, 8);
	for (i = 0; i < n; i++) {
		struct kmod_module *mod;
		int r;

		if (was_loaded(before, names[i]) || !module_loaded(names[i]))
			continue;
		if (kmod_module_new_from_name(ctx, names[i], &mod) < 0)
			continue;
		if (kmod_module_get_initstate(mod) != KMOD_MODULE_BUILTIN) {
			r = kmod_module_remove_module(mod, 0);
			if (r < 0 && r != -ENOENT) {
				gp_err("cannot unload '%s': %s", names[i], strerror(-r));
				rc = r;
			}
		}
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	return rc;
}

const struct gp_actuator gp_act_module_load = {
	"module.load", module_precheck, module_done, module_record,
	module_run,    module_verify,	module_undo,
};

/* ---- device.override ---- */

static int device_precheck(const struct gp_step *st)
{
	char path[256];

	snprintf(path, sizeof(path), SYSPCI "/devices/%s/driver_override", st->subject);
	if (!access(path, W_OK))
		return 0;
	gp_err("cannot write '%s': %s", path, strerror(errno));
	return -errno;
}

static int override_done(const struct gp_step *st)
{
	char cur[64];

	return !read_attr(st->subject, "driver_override", cur, sizeof(cur)) &&
	       !strcmp(cur, st->arg);
}

static int override_record(const struct gp_step *st, json_object *undo)
{
	char cur[64];
	int rc = read_attr(st->subject, "driver_override", cur, sizeof(cur));

	if (rc)
		return rc;
	json_object_object_add(undo, "previous", json_object_new_string(cur));
	return 0;
}

static int set_override(const char *bdf, const char *value)
{
	char path[256];
	int rc;

	snprintf(path, sizeof(path), SYSPCI "/devices/%s/driver_override", bdf);
	/* "\n" clears an override; "(null)" is how the kernel shows none */
	rc = write_file(path, !value[0] || !strcmp(value, "(null)") ? "\n" : value);
	if (rc)
		gp_err("cannot write '%s': %s", path, strerror(-rc));
	return rc;
}

/*
 * driver_override takes any string; a name no driver registers leaves the
 * device with no driver at all.  The driver's directory must exist first.
 */
static int driver_registered(const char *bdf, const char *driver)
{
	char path[256];

	snprintf(path, sizeof(path), SYSPCI "/drivers/%s", driver);
	if (!access(path, F_OK))
		return 0;
	gp_err("%s: no PCI driver '%s' is registered (%s): its module is not loaded, or it "
	       "registers under another name",
	       bdf, driver, path);
	return -ENOENT;
}

static int override_run(const struct gp_step *st)
{
	int rc = driver_registered(st->subject, st->arg);

	return rc ? rc : set_override(st->subject, st->arg);
}

static int override_verify(const struct gp_step *st)
{
	if (override_done(st) > 0)
		return 0;
	gp_err("%s: driver_override does not read back as '%s'", st->subject, st->arg);
	return -EIO;
}

static int override_undo(const struct gp_step *st, json_object *undo)
{
	json_object *prev = json_object_object_get(undo, "previous");

	return prev ? set_override(st->subject, json_object_get_string(prev)) : 0;
}

const struct gp_actuator gp_act_override = {
	"device.override", device_precheck, override_done, override_record,
	override_run,	   override_verify, override_undo,
};

/* ---- device.unbind ---- */

static int unbind_done(const struct gp_step *st)
{
	char drv[64];

	current_driver(st->subject, drv, sizeof(drv));
	return strcmp(drv, st->arg) != 0;
}

static int unbind_record(const struct gp_step *st, json_object *undo)
{
	char drv[64];

	current_driver(st->subject, drv, sizeof(drv));
	json_object_object_add(undo, "driver", json_object_new_string(drv));
	return 0;
}

static int unbind_from(const char *bdf, const char *driver)
{
	char path[256];

	snprintf(path, sizeof(path), SYSPCI "/drivers/%s/unbind", driver);
	return gp_write_deadline(path, bdf);
}

static int unbind_run(const struct gp_step *st)
{
	int rc = unbind_from(st->subject, st->arg);

	if (rc && rc != -ETIMEDOUT)
		gp_err("cannot unbind %s from %s: %s", st->subject, st->arg, strerror(-rc));
	return rc;
}

static int unbind_verify(const struct gp_step *st)
{
	char drv[64];

	current_driver(st->subject, drv, sizeof(drv));
	if (!drv[0])
		return 0;
	gp_err("%s is still bound to %s", st->subject, drv);
	return -EIO;
}

/* Gives the device its driver back: the override must go first, or the
 * kernel will not match the device to any other driver. */
static int unbind_undo(const struct gp_step *st, json_object *undo)
{
	json_object *o = json_object_object_get(undo, "driver");
	const char *orig = o ? json_object_get_string(o) : "";
	char drv[64], path[256];
	int rc;

	current_driver(st->subject, drv, sizeof(drv));
	if (!orig[0] || !strcmp(drv, orig))
		return 0;
	if (drv[0]) {
		rc = unbind_from(st->subject, drv);
		if (rc)
			return rc;
	}
	set_override(st->subject, "");
	snprintf(path, sizeof(path), SYSPCI "/drivers/%s/bind", orig);
	rc = write_file(path, st->subject);
	if (rc) /* the driver may be gone: let the kernel pick */
		rc = write_file(SYSPCI "/drivers_probe", st->subject);
	current_driver(st->subject, drv, sizeof(drv));
	if (strcmp(drv, orig)) {
		gp_err("cannot give %s back to %s (now: %s)", st->subject, orig,
		       drv[0] ? drv : "no driver");
		return rc ? rc : -EIO;
	}
	return 0;
}

const struct gp_actuator gp_act_unbind = {
	"device.unbind", device_precheck, unbind_done, unbind_record,
	unbind_run,	 unbind_verify,	  unbind_undo,
};

/* ---- device.bind ---- */

static int bind_done(const struct gp_step *st)
{
	char drv[64];

	current_driver(st->subject, drv, sizeof(drv));
	return !strcmp(drv, st->arg);
}

static int bind_record(const struct gp_step *st, json_object *undo)
{
	(void)st;
	(void)undo;
	return 0;
}

static int bind_run(const struct gp_step *st)
{
	int rc = driver_registered(st->subject, st->arg);

	if (rc)
		return rc;
	rc = write_file(SYSPCI "/drivers_probe", st->subject);

	if (rc)
		gp_err("probing %s for %s failed: %s", st->subject, st->arg, strerror(-rc));
	return rc;
}

/* The driver link and the group's /dev/vfio node are what QEMU needs. */
static int bind_verify(const struct gp_step *st)
{
	char path[256], link[256], node[64];
	ssize_t n;

	if (bind_done(st) <= 0) {
		char drv[64];

		current_driver(st->subject, drv, sizeof(drv));
		gp_err("%s did not bind to %s (driver: %s)", st->subject, st->arg,
		       drv[0] ? drv : "none");
		return -EIO;
	}
	snprintf(path, sizeof(path), SYSPCI "/devices/%s/iommu_group", st->subject);
	n = gp_root_readlink(AT_FDCWD, path, link, sizeof(link));
	if (n <= 0)
		return 0; /* no IOMMU group: plan/check refused that already */
	snprintf(node, sizeof(node), "/dev/vfio/%s",
		 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	if (access(node, F_OK)) {
		gp_err("%s is bound to %s but %s does not exist", st->subject, st->arg, node);
		return -ENOENT;
	}
	return 0;
}

static int bind_undo(const struct gp_step *st, json_object *undo)
{
	(void)undo;
	if (bind_done(st) <= 0)
		return 0;
	return unbind_from(st->subject, st->arg);
}

const struct gp_actuator gp_act_bind = {
	"device.bind", device_precheck, bind_done, bind_record, bind_run, bind_verify, bind_undo,
};
