// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabric.mask's reads of the live host and its command: only root's
 * processes named nv-fabricmanager count as Fabric Manager (any user can
 * name a process so), an unreadable /proc is an error, not "not running";
 * systemctl runs with an empty environment, default signals, its output off
 * gpuprov's stdout (a --json document) and a deadline.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "act/fabric.h"
#include "core/fabric.h"

static void put(const char *dir, const char *pid, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A /proc of files: what a name and a Uid line make of a process. */
static void test_running_tree(void **state)
{
	char dir[] = "/tmp/gp-proc.XXXXXX", cmd[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "1", "comm", "systemd\n");
	put(dir, "1", "status", "Name:\tsystemd\nUid:\t0\t0\t0\t0\n");
	assert_int_equal(gp_fm_running(dir), 0);
	/* a user's process of that name, also with root's effective uid */
	put(dir, "4000", "comm", GP_FM_PROCESS "\n");
	put(dir, "4000", "status", "Name:\t" GP_FM_PROCESS "\nUmask:\t0022\nUid:\t1000\t0\t0\t0\n");
	assert_int_equal(gp_fm_running(dir), 0);
	/* a name that only begins as Fabric Manager's, root's */
	put(dir, "4001", "comm", GP_FM_PROCESS "x\n");
	put(dir, "4001", "status", "Uid:\t0\t0\t0\t0\n");
	assert_int_equal(gp_fm_running(dir), 0);
	/* no status to say whose: not counted */
	put(dir, "4002", "comm", GP_FM_PROCESS "\n");
	assert_int_equal(gp_fm_running(dir), 0);
	/* root's: it runs */
	put(dir, "4242", "comm", GP_FM_PROCESS "\n");
	put(dir, "4242", "status", "Name:\t" GP_FM_PROCESS "\nUmask:\t0022\nUid:\t0\t0\t0\t0\n");
	assert_int_equal(gp_fm_running(dir), 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	/* no /proc to read: an error, never "not running" */
	assert_int_equal(gp_fm_running(dir), -ENOENT);
}

/* The real /proc: a child named as Fabric Manager counts when it is root's. */
static void test_running_live(void **state)
{
	int p[2], status;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		prctl(PR_SET_NAME, GP_FM_PROCESS);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(p[0], &c, 1), 1);
	/* as root the child is root's; otherwise it is a user's, and must not count */
	assert_int_equal(gp_fm_running("/proc"), geteuid() == 0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(p[0]);
	close(p[1]);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sh(const char *script, unsigned timeout_ms)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	return gp_fm_spawn("/bin/sh", argv, timeout_ms);
}

/* fd redirected to a fresh file while f runs; the file's first bytes back */
static void capture(int fd, const char *script, char *out, size_t len)
{
	char path[] = "/tmp/gp-out.XXXXXX";
	int tmp = mkstemp(path), saved = dup(fd);
	ssize_t n;

	assert_true(tmp >= 0 && saved >= 0);
	fflush(NULL);
	dup2(tmp, fd);
	assert_int_equal(sh(script, 5000), 0);
	dup2(saved, fd);
	close(saved);
	n = pread(tmp, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(tmp);
	unlink(path);
}

static void test_spawn(void **state)
{
	char out[64], err[64];
	double t0;
	sigset_t term, old;

	(void)state;
	gp_verbosity = 0;
	assert_int_equal(sh("exit 0", 5000), 0);
	assert_int_equal(sh("exit 3", 5000), -EIO);
	assert_int_equal(gp_fm_spawn("/nonexistent/systemctl", (char *[]){ "x", NULL }, 5000),
			 -ENOENT);
	/* the deadline: the child killed, the call back in time */
	t0 = now();
	assert_int_equal(sh("sleep 10", 300), -ETIMEDOUT);
	assert_true(now() - t0 < 3.0);
	/* nothing of gpuprov's environment but PATH and LC_ALL */
	setenv("GP_TEST_LEAK", "1", 1);
	assert_int_equal(sh("test -z \"${GP_TEST_LEAK-}\" && test \"$LC_ALL\" = C && "
			    "test \"$PATH\" = /usr/sbin:/usr/bin:/sbin:/bin",
			    5000),
			 0);
	unsetenv("GP_TEST_LEAK");
	/* what it prints goes to stderr: stdout may be a --json document */
	capture(STDOUT_FILENO, "echo systemctl-said", out, sizeof(out));
	assert_string_equal(out, "");
	capture(STDERR_FILENO, "echo systemctl-said", err, sizeof(err));
	assert_string_equal(err, "systemctl-said\n");
	/* SIGHUP ignored (confirm's watcher) and SIGTERM blocked here: not in the child */
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	assert_int_equal(sh("kill -HUP $$; exit 0", 5000), -EIO);
	assert_int_equal(sh("kill -TERM $$; exit 0", 5000), -EIO);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGHUP, SIG_DFL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_tree),
		cmocka_unit_test(test_running_live),
		cmocka_unit_test(test_spawn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
