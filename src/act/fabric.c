// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabric.mask: NVIDIA Fabric Manager stopped and disabled on the host, for
 * [fabric] mode = full, where it runs in the guest (NVIDIA's Fabric Manager
 * user guide, full passthrough).  It runs before the switches are unbound:
 * nv-fabricmanager holds them open.  Stopping is systemd's (systemctl, at
 * its fixed path, with a clean environment and a deadline); disabling is
 * the wants link removed by hand, as persist.vfio enables its unit, so that
 * the journal records the link and undo puts it back exactly.  Undo starts
 * the service again when it was running.
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
#include "act/fstate.h"
#include "act/lock.h"
#include "core/fabric.h"
#include "core/manifest.h"
#include "shared/log.h"

#define FM_UNIT	  "nvidia-fabricmanager.service"
#define FM_WAIT_S 60 /* systemd's own stop timeout is 90 s; FM stops in seconds */

static const char *const systemctl_paths[] = { "/usr/bin/systemctl", "/bin/systemctl" };

/* Whether nv-fabricmanager runs: a process of that name in /proc. */
static bool fm_running(void)
{
	char path[64], comm[32];
	struct dirent *e;
	DIR *dir = opendir("/proc");
	bool found = false;

	while (dir && !found && (e = readdir(dir))) {
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]) || strlen(e->d_name) > 20)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		found = fgets(comm, sizeof(comm), f) &&
			!strcmp(strtok(comm, "\n") ?: "", GP_FM_PROCESS);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

static bool fm_enabled(void)
{
	struct stat st;

	return !lstat(GP_FM_WANTS, &st);
}

static int wait_deadline(pid_t pid, const char *verb)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int status, i;

	for (i = 0; i < FM_WAIT_S * 20; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r < 0)
			return -errno;
		if (r == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	gp_err("systemctl %s %s did not return within %d s", verb, FM_UNIT, FM_WAIT_S);
	return -ETIMEDOUT;
}

/* systemctl VERB nvidia-fabricmanager.service: the binary at its fixed path, no shell */
static int systemctl(const char *verb)
{
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	char *argv[] = { "systemctl", (char *)verb, FM_UNIT, NULL };
	posix_spawn_file_actions_t fa;
	const char *bin = NULL;
	size_t i;
	pid_t pid;
	int rc;

	for (i = 0; i < ARRAY_SIZE(systemctl_paths) && !bin; i++)
		if (!access(systemctl_paths[i], X_OK))
			bin = systemctl_paths[i];
	if (!bin) {
		gp_err("no systemctl: %s %s by hand", verb, FM_UNIT);
		return -ENOENT;
	}
	fflush(NULL);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (gp_lock_fd >= 0)
		posix_spawn_file_actions_addclose(&fa,
						  gp_lock_fd); /* it must not hold the run's lock */
	rc = posix_spawn(&pid, bin, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		gp_err("cannot run %s: %s", bin, strerror(rc));
		return -rc;
	}
	rc = wait_deadline(pid, verb);
	if (rc == -EIO)
		gp_err("systemctl %s %s failed (journalctl -u %s says why)", verb, FM_UNIT,
		       FM_UNIT);
	return rc;
}

static int mask_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	(void)ctx;
	(void)st;
	return !fm_running() && !fm_enabled();
}

static int mask_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *file;
	int rc;

	(void)ctx;
	(void)st;
	rc = gp_fstate_record(GP_FM_WANTS, &file);
	if (rc)
		return rc;
	json_object_object_add(undo, "file", file);
	json_object_object_add(undo, "running", json_object_new_boolean(fm_running()));
	return 0;
}

static int mask_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc;

	(void)ctx;
	(void)st;
	if (fm_running() && (rc = systemctl("stop")))
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
	if (mask_done(ctx, st) == 1)
		return 0;
	gp_err("Fabric Manager still %s", fm_running() ? "runs" : "is enabled");
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
	if (json_object_get_boolean(running) && !fm_running() && systemctl("start"))
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
