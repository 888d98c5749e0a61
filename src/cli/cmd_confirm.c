// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov confirm: keeps the run that apply --confirm-within left pending.
 * Run from a NEW connection to the host: an SSH session opened before the
 * change may outlive a path the change broke, a new one proves the path
 * works; confirm refuses apply's own session.  And 'confirm watch RUN-ID',
 * the watcher apply starts (act/confirm.c): it rolls its run back at the
 * deadline unless confirm came first, under the lock and journaled, as
 * 'gpuprov rollback' does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "act/apply.h"
#include "act/confirm.h"
#include "act/lock.h"
#include "cli/cmd.h"
#include "cli/out.h"

/* A moment as the operator reads it, UTC. */
static const char *stamp(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;

	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", gmtime(&tt));
	return buf;
}

static const char *status_of(struct gp_journal *j)
{
	return json_object_get_string(json_object_object_get(j->doc, "status"));
}

/* The newest run's ID (runs are in seq order), or GP_EXIT_FAIL when it has no deadline. */
static int newest_pending(char *run_id, size_t len)
{
	struct gp_run *runs;
	char why[256] = "";
	size_t n;
	int rc = gp_journal_runs(&runs, &n, why, sizeof(why));

	if (rc) {
		gp_err("cannot read the journals in '%s': %s", gp_journal_dir(),
		       why[0] ? why : strerror(-rc));
		return GP_EXIT_INPUT;
	}
	rc = GP_EXIT_FAIL;
	if (!n || !runs[n - 1].confirm[0])
		gp_err("nothing to confirm: the last run was not applied with --confirm-within");
	else if (!runs[n - 1].valid)
		gp_err("nothing to confirm: the journal of run %s is refused (%s)",
		       runs[n - 1].run_id, runs[n - 1].error);
	else
		rc = 0, gp_strlcpy(run_id, runs[n - 1].run_id, len);
	free(runs);
	return rc;
}

/* A run that is not pending: why confirm has nothing to do, as an exit status. */
static int settled(struct gp_journal *j, const char *state)
{
	char when[40];

	stamp(gp_confirm_num(j, "at"), when, sizeof(when));
	if (!strcmp(state, "confirmed")) {
		gp_err("nothing to confirm: run %s was confirmed at %s", j->run_id, when);
		return GP_EXIT_FAIL;
	}
	if (!strcmp(state, "timed_out") && !strcmp(status_of(j), "rolled_back")) {
		gp_err("too late: run %s was not confirmed by its deadline and its watcher rolled "
		       "it "
		       "back at %s; the host is as before the run",
		       j->run_id, when);
		return GP_EXIT_ROLLED_BACK;
	}
	if (!strcmp(state, "timed_out")) {
		gp_err("too late: run %s was not confirmed by its deadline; its rollback at %s is "
		       "%s: "
		       "see 'gpuprov rollback --list', then 'gpuprov rollback %s'",
		       j->run_id, when, status_of(j), j->run_id);
		return GP_EXIT_UNDO_FAILED;
	}
	gp_err("nothing to confirm: run %s is %s", j->run_id, status_of(j));
	return GP_EXIT_FAIL;
}

/* The run and its confirm record, as the journal keeps it (data, not a tree built to print). */
static void print_confirmed(struct gp_journal *j)
{
	gp_doc_begin(NULL, "confirm");
	gp_print_str("run_id", NULL, j->run_id);
	gp_print_tree("confirm", json_object_get(json_object_object_get(j->doc, "confirm")));
	gp_doc_end();
}

/* Under the lock: the watcher cannot act between the check and the save. */
static int confirm_run(const struct gp_ctx *ctx, struct gp_journal *j)
{
	const char *state = gp_confirm_state(j);
	long long deadline = gp_confirm_num(j, "deadline"), now = (long long)time(NULL);
	char when[40];

	if (!state || strcmp(state, "pending") || strcmp(status_of(j), "done"))
		return settled(j, state ? state : "");
	if (now >= deadline) {
		gp_err("too late: the deadline of run %s passed at %s; its watcher rolls it back "
		       "(if 'gpuprov rollback --list' does not show it timed_out soon, the watcher "
		       "is gone: run 'gpuprov rollback')",
		       j->run_id, stamp(deadline, when, sizeof(when)));
		return GP_EXIT_FAIL;
	}
	if (gp_confirm_num(j, "session") == (long long)getsid(0)) {
		/* getsid() says 0 where the session leader is outside this PID
		 * namespace: every such session looks alike, setsid tells them apart */
		gp_err("refusing to confirm run %s from the session that applied it: an open "
		       "connection can outlive a path the change broke; open a NEW connection to "
		       "the host and run 'gpuprov confirm' there%s",
		       j->run_id,
		       getsid(0) ? ""
				 : " (as 'setsid -w gpuprov confirm': this session is "
				   "outside gpuprov's PID namespace)");
		return GP_EXIT_FAIL;
	}
	gp_confirm_settle(j, "confirmed");
	if (gp_journal_save(j))
		return GP_EXIT_HOST;
	gp_info("confirmed run %s, %lld s before its deadline: its changes stay", j->run_id,
		deadline - now);
	if (ctx->json)
		print_confirmed(j);
	return GP_EXIT_OK;
}

static int confirm(const struct gp_ctx *ctx)
{
	struct gp_journal j;
	char run_id[64];
	int rc = gp_ctx_live(ctx, "confirm");

	if (rc)
		return rc;
	rc = gp_lock_take(10);
	if (rc)
		return rc == -EWOULDBLOCK ? GP_EXIT_LOCKED : GP_EXIT_HOST;
	rc = newest_pending(run_id, sizeof(run_id));
	if (rc)
		return rc;
	if (gp_journal_open(&j, run_id))
		return GP_EXIT_INPUT;
	rc = confirm_run(ctx, &j);
	gp_journal_close(&j);
	return rc;
}

/* ---- the watcher ---- */

enum look {
	WAIT,
	ACT,
	LEAVE
};

/*
 * What the watcher does about its run now: wait (the deadline is ahead, or
 * apply has not saved the record yet), act (the deadline passed, still
 * pending), or leave (confirmed, rolled back by hand, or not its run: the
 * record must name this process, so a watcher never acts on another run).
 */
static enum look look(const char *run_id, struct gp_journal *j)
{
	const char *state;
	char when[40];

	if (gp_journal_open(j, run_id))
		return LEAVE;
	state = gp_confirm_state(j);
	if (!state && !strcmp(status_of(j), "running") && gp_lock_held() == 1)
		return WAIT; /* apply is still at it: it saves the record with "done" */
	if (!state || gp_confirm_num(j, "watcher") != (long long)getpid()) {
		gp_info("run %s does not name this watcher (PID %d): nothing to do", run_id,
			(int)getpid());
		return LEAVE;
	}
	if (strcmp(state, "pending") || strcmp(status_of(j), "done")) {
		gp_info("run %s is %s (%s), at %s: nothing to do", run_id, status_of(j), state,
			stamp(time(NULL), when, sizeof(when)));
		return LEAVE;
	}
	return time(NULL) >= gp_confirm_num(j, "deadline") ? ACT : WAIT;
}

/* The lock, however long another run holds it: the rollback must happen. */
static int lock_wait(void)
{
	int rc;

	while ((rc = gp_lock_take(30)) == -EWOULDBLOCK)
		;
	return rc;
}

/* At the deadline, under the lock, the same rollback as 'gpuprov rollback'. */
static int roll_back(const char *run_id)
{
	struct gp_journal j;
	char when[40];
	int rc;

	if (lock_wait())
		return GP_EXIT_HOST;
	if (look(run_id, &j) != ACT) { /* confirmed while we waited for the lock */
		gp_journal_close(&j);
		return GP_EXIT_OK;
	}
	gp_warn("run %s was not confirmed by its deadline (%s): rolling it back", run_id,
		stamp(gp_confirm_num(&j, "deadline"), when, sizeof(when)));
	gp_confirm_settle(&j, "timed_out"); /* saved by the rollback's first write */
	rc = gp_rollback_run(&j);
	if (!rc)
		gp_warn("rolled back run %s at %s: every change was undone", run_id,
			stamp(time(NULL), when, sizeof(when)));
	else
		gp_err("ROLLBACK FAILED: run %s left the host changed (the steps above); run "
		       "'gpuprov rollback %s' to retry",
		       run_id, run_id);
	gp_journal_close(&j);
	return rc ? GP_EXIT_UNDO_FAILED : GP_EXIT_OK;
}

static int watch(const char *run_id)
{
	struct timespec tick = { 0, 250 * 1000 * 1000 };
	struct gp_journal j;
	enum look l;
	char when[40];

	signal(SIGHUP, SIG_IGN);
	gp_log_syslog();
	gp_info("watcher of run %s (PID %d) started at %s", run_id, (int)getpid(),
		stamp(time(NULL), when, sizeof(when)));
	while ((l = look(run_id, &j)) == WAIT) {
		gp_journal_close(&j);
		nanosleep(&tick, NULL);
	}
	gp_journal_close(&j);
	return l == ACT ? roll_back(run_id) : GP_EXIT_OK;
}

static int do_confirm(struct gp_ctx *ctx)
{
	if (ctx->argc == 2 && !strcmp(ctx->argv[0], "watch")) {
		int rc = gp_ctx_live(ctx, "confirm watch");

		return rc ? rc : watch(ctx->argv[1]);
	}
	if (ctx->argc) {
		gp_err("usage: gpuprov confirm (from a new connection to the host)");
		return GP_EXIT_INPUT;
	}
	return confirm(ctx);
}

const struct gp_cmd gp_cmd_confirm = {
	.name = "confirm",
	.run = do_confirm,
	.help = "keep the pending --confirm-within run (root, from a new connection)",
};
