// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply --confirm-within: as netplan try does for a network change, the run
 * stays "pending" after its last step; a watcher rolls it back at its
 * deadline unless 'gpuprov confirm' arrives first, from a new connection
 * (proof that the host can still be reached).  The watcher is gpuprov
 * itself, executed afresh (a fork of apply would carry libvirt's threads and
 * locks): double-forked into a session of its own, with no controlling
 * terminal and SIGHUP ignored, so that the operator's SSH session dying
 * does not take it along; no init system is assumed.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "act/confirm.h"
#include "act/lock.h"
#include "shared/log.h"

static json_object *record(struct gp_journal *j)
{
	json_object *c = json_object_object_get(j->doc, "confirm");

	return json_object_is_type(c, json_type_object) ? c : NULL;
}

const char *gp_confirm_state(struct gp_journal *j)
{
	json_object *s = json_object_object_get(record(j), "state");

	return json_object_is_type(s, json_type_string) ? json_object_get_string(s) : NULL;
}

long long gp_confirm_num(struct gp_journal *j, const char *key)
{
	json_object *v = json_object_object_get(record(j), key);

	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

void gp_confirm_settle(struct gp_journal *j, const char *state)
{
	json_object *c = record(j);

	if (!c)
		return;
	json_object_object_add(c, "state", json_object_new_string(state));
	json_object_object_add(c, "at", json_object_new_int64((int64_t)time(NULL)));
}

void gp_confirm_log_path(const char *run_id, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.confirm.log", gp_journal_dir(), run_id);
}

/* Root's log of the watcher, never through a link; appended to. */
static int open_log(const char *run_id)
{
	char path[PATH_MAX];
	int fd;

	gp_confirm_log_path(run_id, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0) {
		gp_err("cannot open the watcher's log '%s': %s", path, strerror(errno));
		return -errno;
	}
	return fd;
}

/*
 * The watcher's process, between fork and exec: only async-signal-safe
 * calls (apply may have threads).  A new session, then a child that is no
 * session leader: it can never acquire a controlling terminal.
 */
static void __attribute__((noreturn)) detach(int report, int log, char *const argv[])
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t pid;

	if (setsid() < 0 || null < 0)
		_exit(127);
	pid = fork();
	if (pid) { /* the middle one: says the watcher's PID, and goes */
		if (pid < 0 || write(report, &pid, sizeof(pid)) != sizeof(pid))
			_exit(127);
		_exit(0);
	}
	signal(SIGHUP, SIG_IGN); /* ignored stays ignored across exec */
	if (chdir("/") || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(log, 2) < 0)
		_exit(127);
	execv("/proc/self/exe", argv);
	_exit(127);
}

/* Forks the watcher; its PID in *watcher. */
static int spawn(const char *run_id, int log, pid_t *watcher)
{
	static char name[] = "gpuprov", cmd[] = "confirm", sub[] = "watch";
	char id[64];
	char *argv[] = { name, cmd, sub, id, NULL };
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	gp_strlcpy(id, run_id, sizeof(id));
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL); /* nothing buffered is written twice */
	pid = fork();
	if (!pid) {
		close(fds[0]);
		detach(fds[1], log, argv);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], watcher, sizeof(*watcher)) : -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (pid < 0 || n != sizeof(*watcher) || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

int gp_confirm_arm(struct gp_journal *j, unsigned within)
{
	time_t deadline = time(NULL) + (time_t)within;
	json_object *c;
	pid_t watcher = 0;
	int log = open_log(j->run_id), rc;

	if (log < 0)
		return log;
	rc = spawn(j->run_id, log, &watcher);
	close(log);
	if (rc) {
		gp_err("cannot start the watcher of run %s", j->run_id);
		return rc;
	}
	c = json_object_new_object();
	json_object_object_add(c, "state", json_object_new_string("pending"));
	json_object_object_add(c, "within", json_object_new_int64(within));
	json_object_object_add(c, "deadline", json_object_new_int64((int64_t)deadline));
	json_object_object_add(c, "watcher", json_object_new_int64(watcher));
	/* confirm refuses apply's own session: a new connection proves the path */
	json_object_object_add(c, "session", json_object_new_int64(getsid(0)));
	json_object_object_add(j->doc, "confirm", c);
	return 0;
}
