// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabric.mask: NVIDIA Fabric Manager stopped and disabled on the host, for
 * [fabric] mode = full, where it runs in the guest (NVIDIA's Fabric Manager
 * user guide, full passthrough).  It runs before the switches are unbound:
 * nv-fabricmanager holds them open.  Stopping is systemd's (systemctl, at
 * its fixed path, with a clean environment, default signals, its output on
 * stderr and a deadline); disabling is the wants link removed by hand, as
 * persist.vfio enables its unit, so that the journal records the link and
 * undo puts it back exactly.  Undo starts the service again when it was
 * running.  Only root's processes named nv-fabricmanager count as it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "act/actuator.h"
#include "act/fabric.h"
#include "act/fstate.h"
#include "act/lock.h"
#include "core/fabric.h"
#include "core/manifest.h"
#include "shared/log.h"

#define FM_UNIT	  "nvidia-fabricmanager.service"
#define FM_WAIT_S 60 /* systemd's own stop timeout is 90 s; FM stops in seconds */

static const char *const systemctl_paths[] = { "/usr/bin/systemctl", "/bin/systemctl" };

/* name of the process directory pidfd, whole (at most len - 1 bytes), in buf */
static bool read_at(int pidfd, const char *name, char *buf, size_t len)
{
	int fd = openat(pidfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* core/fabric.c's rule: the name, and root's (gp_fm_process) */
static bool is_fm(int pidfd)
{
	char comm[32], status[1024];

	return read_at(pidfd, "comm", comm, sizeof(comm)) &&
	       read_at(pidfd, "status", status, sizeof(status)) && gp_fm_process(comm, status);
}

/* Whether root's nv-fabricmanager runs (gp_fm_process says which count). */
int gp_fm_running(const char *proc)
{
	struct dirent *e;
	DIR *dir = opendir(proc);
	int found = 0;

	if (!dir) {
		int rc = -errno;

		gp_err("cannot read %s: %s", proc, strerror(-rc));
		return rc;
	}
	while (!found && (e = readdir(dir))) {
		int pidfd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pidfd = openat(dirfd(dir), e->d_name,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (pidfd < 0)
			continue; /* it exited */
		found = is_fm(pidfd);
		close(pidfd);
	}
	closedir(dir);
	return found;
}

static int fm_running(void)
{
	return gp_fm_running("/proc");
}

static bool fm_enabled(void)
{
	struct stat st;

	return !lstat(GP_FM_WANTS, &st);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* pid's exit within timeout_ms on the monotonic clock, a signal or not; else killed */
static int wait_deadline(pid_t pid, const char *bin, unsigned timeout_ms)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	long long end = now_ms() + timeout_ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
		if (now_ms() >= end)
			break;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	gp_err("%s did not return within %u ms", bin, timeout_ms);
	return -ETIMEDOUT;
}

int gp_fm_spawn(const char *bin, char *const argv[], unsigned timeout_ms)
{
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	pid_t pid;
	int rc;

	sigemptyset(&none);
	sigfillset(&all);
	fflush(NULL);
	posix_spawnattr_init(&attr);
	/* an ignored SIGPIPE (libvirt's) or SIGHUP (confirm's watcher) is not the child's */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	if (gp_lock_fd >= 0)
		posix_spawn_file_actions_addclose(&fa,
						  gp_lock_fd); /* it must not hold the run's lock */
	rc = posix_spawn(&pid, bin, &fa, &attr, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		gp_err("cannot run %s: %s", bin, strerror(rc));
		return -rc;
	}
	return wait_deadline(pid, bin, timeout_ms);
}

/* systemctl VERB nvidia-fabricmanager.service: the binary at its fixed path */
static int systemctl(const char *verb)
{
	char *argv[] = { "systemctl", (char *)verb, FM_UNIT, NULL };
	const char *bin = NULL;
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(systemctl_paths) && !bin; i++)
		if (!access(systemctl_paths[i], X_OK))
			bin = systemctl_paths[i];
	if (!bin) {
		gp_err("no systemctl: %s %s by hand", verb, FM_UNIT);
		return -ENOENT;
	}
	rc = gp_fm_spawn(bin, argv, FM_WAIT_S * 1000);
	if (rc == -EIO)
		gp_err("systemctl %s %s failed (journalctl -u %s says why)", verb, FM_UNIT,
		       FM_UNIT);
	return rc;
}

static int mask_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int running = fm_running();

	(void)ctx;
	(void)st;
	return running < 0 ? running : !running && !fm_enabled();
}

static int mask_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *file;
	int rc, running = fm_running();

	(void)ctx;
	(void)st;
	if (running < 0)
		return running;
	rc = gp_fstate_record(GP_FM_WANTS, &file);
	if (rc)
		return rc;
	json_object_object_add(undo, "file", file);
	json_object_object_add(undo, "running", json_object_new_boolean(running));
	return 0;
}

static int mask_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = fm_running();

	(void)ctx;
	(void)st;
	if (rc < 0 || (rc && (rc = systemctl("stop"))))
		return rc;
	if (unlink(GP_FM_WANTS) && errno != ENOENT) {
		rc = -errno;
		gp_err("cannot remove %s: %s", GP_FM_WANTS, strerror(errno));
		return rc;
	}
	return 0;
}

static int mask_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = mask_done(ctx, st);

	if (rc == 1 || rc < 0)
		return rc < 0 ? rc : 0;
	gp_err("Fabric Manager still %s", fm_running() == 1 ? "runs" : "is enabled");
	return -EIO;
}

static int mask_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *file = json_object_object_get(undo, "file");
	json_object *running = json_object_object_get(undo, "running");
	int rc = 0;

	(void)ctx;
	(void)st;
	if (file && gp_fstate_restore(file))
		rc = -EIO;
	if (json_object_is_type(running, json_type_boolean) && json_object_get_boolean(running) &&
	    fm_running() != 1 && systemctl("start"))
		rc = -EIO;
	return rc;
}

/* What the plan saw (its current: "Fabric Manager running, enabled"), given back. */
static bool mask_by_hand(const struct gp_step *st, char *how, size_t len)
{
	bool running = strstr(st->current, "running"), enabled = strstr(st->current, "enabled");

	snprintf(how, len, "systemctl %s %s",
		 enabled ? (running ? "enable --now" : "enable") : "start", FM_UNIT);
	return true;
}

static bool mask_owns(const char *path)
{
	return !strcmp(path, GP_FM_WANTS);
}

const struct gp_actuator gp_act_fabric_mask = {
	.kind = GP_S_FABRIC_MASK,
	.done = mask_done,
	.record = mask_record,
	.run = mask_run,
	.verify = mask_verify,
	.undo = mask_undo,
	.by_hand = mask_by_hand,
	.owns = mask_owns,
};
