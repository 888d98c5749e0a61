// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The actuators of module.load and device.*: libkmod (through kmod.c's
 * context) for modules, sysfs for driver binding.
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

#include "act/actuator.h"
#include "act/lock.h"
#include "sys/kmod.h"
#include "core/model.h"
#include "shared/progress.h"
#include "act/vfio.h"

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

static int with_module(const char *name, struct kmod_ctx **kctx, struct kmod_module **mod)
{
	struct kmod_list *list = NULL;
	int rc;

	*kctx = gp_kmod_live();
	if (!*kctx)
		return -ENOMEM;
	rc = kmod_module_new_from_lookup(*kctx, name, &list);
	if (rc < 0 || !list) {
		kmod_unref(*kctx);
		gp_err("module '%s' not found for the running kernel", name);
		return rc < 0 ? rc : -ENOENT;
	}
	*mod = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	return 0;
}

static int module_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct kmod_ctx *kctx;
	struct kmod_module *mod;
	int rc = with_module(st->arg, &kctx, &mod);

	if (rc)
		return rc;
	kmod_module_unref(mod);
	kmod_unref(kctx);
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

static int module_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
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

static int module_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			 json_object *undo)
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

static int module_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct kmod_ctx *kctx;
	struct kmod_module *mod;
	int rc = with_module(st->arg, &kctx, &mod);

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
	kmod_unref(kctx);
	return rc;
}

static int module_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (module_done(ctx, st) > 0)
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
static int module_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *before = json_object_object_get(undo, "loaded_before");
	char names[8][GP_NAME_LEN];
	struct kmod_ctx *kctx;
	int i, n, rc = 0;

	if (!before)
		return 0; /* nothing was recorded: nothing was loaded */
	kctx = gp_kmod_live();
	if (!kctx)
		return -ENOMEM;
	n = undo_modules(st, names, 8);
	for (i = 0; i < n; i++) {
		struct kmod_module *mod;
		int r;

		if (was_loaded(before, names[i]) || !module_loaded(names[i]))
			continue;
		if (kmod_module_new_from_name(kctx, names[i], &mod) < 0)
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
	kmod_unref(kctx);
	return rc;
}

static bool module_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "modprobe -r %s", st->arg);
	return true;
}

const struct gp_actuator gp_act_module_load = {
	.kind = GP_S_MODULE_LOAD,
	.precheck = module_precheck,
	.done = module_done,
	.record = module_record,
	.run = module_run,
	.verify = module_verify,
	.undo = module_undo,
	.by_hand = module_by_hand,
};

/* ---- device.override ---- */

static int device_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char path[256];

	snprintf(path, sizeof(path), SYSPCI "/devices/%s/driver_override", st->subject);
	if (!access(path, W_OK))
		return 0;
	gp_err("cannot write '%s': %s", path, strerror(errno));
	return -errno;
}

static int override_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char cur[64];

	return !read_attr(st->subject, "driver_override", cur, sizeof(cur)) &&
	       !strcmp(cur, st->arg);
}

static int override_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			   json_object *undo)
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

static int override_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = driver_registered(st->subject, st->arg);

	return rc ? rc : set_override(st->subject, st->arg);
}

static int override_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (override_done(ctx, st) > 0)
		return 0;
	gp_err("%s: driver_override does not read back as '%s'", st->subject, st->arg);
	return -EIO;
}

static int override_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			 json_object *undo)
{
	json_object *prev = json_object_object_get(undo, "previous");

	return prev ? set_override(st->subject, json_object_get_string(prev)) : 0;
}

static bool override_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "echo '%s' > " SYSPCI "/devices/%s/driver_override",
		 strcmp(st->current, "(none)") ? st->current : "", st->subject);
	return true;
}

const struct gp_actuator gp_act_override = {
	.kind = GP_S_DEVICE_OVERRIDE,
	.precheck = device_precheck,
	.done = override_done,
	.record = override_record,
	.run = override_run,
	.verify = override_verify,
	.undo = override_undo,
	.by_hand = override_by_hand,
};

/* ---- device.unbind ---- */

static int unbind_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char drv[64];

	current_driver(st->subject, drv, sizeof(drv));
	return strcmp(drv, st->arg) != 0;
}

static int unbind_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			 json_object *undo)
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

static int unbind_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = unbind_from(st->subject, st->arg);

	if (rc && rc != -ETIMEDOUT)
		gp_err("cannot unbind %s from %s: %s", st->subject, st->arg, strerror(-rc));
	return rc;
}

static int unbind_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
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
static int unbind_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
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

/* Give the device back to the driver it was bound to. */
static bool unbind_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "echo %s > " SYSPCI "/drivers/%s/bind", st->subject, st->arg);
	return true;
}

const struct gp_actuator gp_act_unbind = {
	.kind = GP_S_DEVICE_UNBIND,
	.precheck = device_precheck,
	.done = unbind_done,
	.record = unbind_record,
	.run = unbind_run,
	.verify = unbind_verify,
	.undo = unbind_undo,
	.by_hand = unbind_by_hand,
};

/* ---- device.bind ---- */

static int bind_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char drv[64];

	current_driver(st->subject, drv, sizeof(drv));
	return !strcmp(drv, st->arg);
}

static int bind_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	return 0;
}

static int bind_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
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
static int bind_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char path[256], link[256], node[64];
	ssize_t n;

	if (bind_done(ctx, st) <= 0) {
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

static int bind_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	if (bind_done(ctx, st) <= 0)
		return 0;
	return unbind_from(st->subject, st->arg);
}

static bool bind_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "echo %s > " SYSPCI "/drivers/%s/unbind", st->subject, st->arg);
	return true;
}

const struct gp_actuator gp_act_bind = {
	.kind = GP_S_DEVICE_BIND,
	.precheck = device_precheck,
	.done = bind_done,
	.record = bind_record,
	.run = bind_run,
	.verify = bind_verify,
	.undo = bind_undo,
	.by_hand = bind_by_hand,
};
