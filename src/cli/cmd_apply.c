// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov apply / rollback: the only commands that change the host.  Both
 * need root on the live host (no --root), take the lock, show what they
 * will do and ask unless --yes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "act/apply.h"
#include "act/confirm.h"
#include "act/lock.h"
#include "act/nvrecord.h"
#include "cli/cmd.h"
#include "core/hugepages.h"
#include "core/netconf.h"
#include "cli/cmd_plan.h"
#include "cli/out.h"
#include "core/templates.h"

static int confirm(const struct gp_ctx *ctx, const char *question)
{
	char answer[16];

	if (ctx->opt[GP_OPT_YES])
		return 0;
	if (!isatty(STDIN_FILENO)) {
		gp_err("not asking on a non-terminal: add --yes to go ahead");
		return GP_EXIT_INPUT;
	}
	fprintf(stderr, "%s [y/N] ", question);
	/* no is the operator's answer, not bad input: a status of its own */
	if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
		gp_err("declined: nothing was changed");
		return GP_EXIT_DECLINED;
	}
	return 0;
}

/*
 * Everything apply installs comes from the templates directory (vfio-rebind.sh
 * runs as root at every boot) or from [vm] template: only root may be able to
 * change them, as for the profile (main.c checked that one).
 */
static int templates_safe(const struct gp_ctx *ctx)
{
	char dir[PATH_MAX], tmpl[PATH_MAX];

	if (gp_templates_dir(dir, sizeof(dir)) || gp_trust(dir, GP_TRUST_TREE))
		return GP_EXIT_INPUT;
	if (ctx->profile->has_vm &&
	    (gp_ctx_template(ctx, tmpl, sizeof(tmpl)) || gp_trust(tmpl, GP_TRUST_FILE)))
		return GP_EXIT_INPUT;
	/* root writes the VM's XML there: a link swapped in would send it elsewhere */
	if (ctx->profile->has_vm && gp_trust_parent(ctx->profile->vm.output))
		return GP_EXIT_INPUT;
	return 0;
}

/*
 * The journal without file contents or the previous domain XML: digests
 * stand in.  The journal is data apply keeps (json-c parses and writes it):
 * its members follow the document's head as they are, but for the head's
 * own keys.
 */
static void print_journal(struct gp_journal *j, const char *command)
{
	json_object *pub = gp_journal_public(j);

	gp_doc_begin(NULL, command);
	json_object_object_foreach (pub, key, val) {
		if (strcmp(key, "schema_version") && strcmp(key, "version") &&
		    strcmp(key, "command"))
			gp_print_tree(key, json_object_get(val));
	}
	gp_doc_end();
	json_object_put(pub);
}

/* --json: one document also when refusing; exit status 2. */
static int refused(const struct gp_ctx *ctx, const char *command, const struct gp_run *r)
{
	if (!ctx->json)
		return GP_EXIT_FAIL;
	gp_doc_begin(NULL, command);
	gp_print_str("error", NULL, gp_last_error);
	gp_print_str("pending_run", NULL, r->run_id);
	gp_doc_end();
	return GP_EXIT_FAIL;
}

/* apply --json with nothing to do: no run was made, no step taken. */
static void print_nothing(const struct gp_ctx *ctx)
{
	gp_doc_begin(NULL, ctx->command);
	gp_print_null("run_id");
	gp_open_array("steps");
	gp_close_array();
	gp_doc_end();
}

/* Every journaled run, or GP_EXIT_INPUT (said) when the journals cannot be read. */
static int load_runs(struct gp_run **runs, size_t *n)
{
	char why[256] = "";
	int rc = gp_journal_runs(runs, n, why, sizeof(why));

	if (!rc)
		return 0;
	gp_err("cannot read the journals in '%s': %s", gp_journal_dir(),
	       why[0] ? why : strerror(-rc));
	return GP_EXIT_INPUT;
}

/* The run that waits for confirmation, if one does (there is at most one). */
static const struct gp_run *unconfirmed(const struct gp_run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (gp_run_unconfirmed(&runs[i]))
			return &runs[i];
	return NULL;
}

static void say_unconfirmed(const struct gp_run *r)
{
	char when[32];
	time_t t = (time_t)r->deadline;

	strftime(when, sizeof(when), "%H:%M:%S UTC", gmtime(&t));
	if (time(NULL) < t)
		gp_err("refusing to apply: run %s waits for 'gpuprov confirm' until %s (else its "
		       "watcher rolls it back); nothing was changed; confirm it or roll it back "
		       "first",
		       r->run_id, when);
	else
		gp_err("refusing to apply: run %s was neither confirmed nor rolled back by its "
		       "deadline (%s: its watcher did not act); nothing was changed; run 'gpuprov "
		       "rollback' first",
		       r->run_id, when);
}

/*
 * As dpkg does after an interruption: no new run on a host that a run left
 * half-changed, or whose journals cannot be read; rollback first.
 */
static int runs_settled(const struct gp_ctx *ctx)
{
	struct gp_run *runs;
	const struct gp_run *r;
	size_t n;
	int rc = load_runs(&runs, &n);

	if (rc)
		return rc;
	r = gp_run_blocking(runs, n);
	if (!r && (r = unconfirmed(runs, n))) {
		say_unconfirmed(r);
		rc = refused(ctx, "apply", r);
		free(runs);
		return rc;
	}
	if (r && !r->valid)
		gp_err("refusing to apply: the journal of run %s is refused (%s); nothing was "
		       "changed; move it out of '%s' once the host is as it should be",
		       r->run_id, r->error, gp_journal_dir());
	else if (r)
		gp_err("refusing to apply: run %s %s (%zu step%s to undo); nothing was changed; "
		       "run 'gpuprov rollback' first",
		       r->run_id,
		       r->interrupted ? "was interrupted" : "could not be rolled back completely",
		       r->undoable, r->undoable == 1 ? "" : "s");
	rc = r ? refused(ctx, "apply", r) : 0;
	free(runs);
	return rc;
}

/* gp_apply_run's and gp_rollback_run's outcome as an exit status. */
static int outcome(int rc)
{
	if (!rc)
		return GP_EXIT_OK;
	if (rc == -ECANCELED)
		return GP_EXIT_FAIL;
	return rc == -EIO ? GP_EXIT_ROLLED_BACK : GP_EXIT_UNDO_FAILED;
}

/* Says which of the outcomes it was, and for a host left changed, what next. */
static void say_outcome(const char *what, int status, const char *run_id)
{
	if (status == GP_EXIT_OK)
		gp_info("%s run %s", what, run_id);
	else if (status == GP_EXIT_FAIL)
		gp_err("refused: run %s changed nothing", run_id);
	else if (status == GP_EXIT_ROLLED_BACK)
		gp_err("failed and rolled back: run %s; every change was undone, the host is as "
		       "before",
		       run_id);
	else
		gp_err("ROLLBACK FAILED: run %s left the host changed (the steps above, with what "
		       "to do by hand); fix the cause, then run 'gpuprov rollback %s' again: it "
		       "retries what is left",
		       run_id, run_id);
}

/* What the operator must do now, said where they look: the terminal. */
static void say_pending(struct gp_journal *j)
{
	char when[32];
	time_t t = (time_t)gp_confirm_num(j, "deadline");

	strftime(when, sizeof(when), "%H:%M:%S UTC", gmtime(&t));
	gp_warn("run %s is NOT confirmed: open a NEW connection to this host and run 'gpuprov "
		"confirm' before %s (%lld s), or its watcher (PID %lld) rolls every change back",
		j->run_id, when, gp_confirm_num(j, "within"), gp_confirm_num(j, "watcher"));
}

/* --confirm-within SECONDS: 1 to a day; 0 without it, -1 (said) when bad. */
static long within_arg(const struct gp_ctx *ctx)
{
	const char *arg = ctx->opt[GP_OPT_CONFIRM_WITHIN];
	char *end;
	long v;

	if (!arg)
		return 0;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || v < 1 || v > GP_CONFIRM_MAX) {
		gp_err("--confirm-within '%s': seconds, from 1 to %d", arg, GP_CONFIRM_MAX);
		return -1;
	}
	return v;
}

/* The point of no return is inside gp_apply_run, after every precheck. */
static int run(struct gp_ctx *ctx, struct gp_planned *pl, unsigned within)
{
	struct gp_journal j = { 0 };
	struct gp_netconf nc = { 0 };
	struct gp_hugepages hp;
	struct gp_persist ps;
	struct gp_apply_ctx ac;
	int rc;

	gp_persist_render(&pl->h, ctx->profile, pl->templates, &ps);
	gp_hugepages_plan(&pl->h, ctx->profile, &hp);
	if (ctx->profile->has_bond)
		gp_netconf_render(&pl->h, ctx->profile, &nc);
	ac = (struct gp_apply_ctx){
		.profile = ctx->profile,
		.persist = &ps,
		.netconf = &nc,
		.vm = pl->vm.xml ? &pl->vm : NULL,
		.huge = &hp,
		.confirm_within = within,
	};
	/* what NVML sees now is gone once the GPUs are on vfio-pci: keep it first */
	gp_nv_remember(&pl->h.nv);
	rc = outcome(gp_apply_run(&ac, &pl->plan, ctx->opt[GP_OPT_PROFILE], &j));
	gp_netconf_release(&nc);
	gp_persist_release(&ps);
	if (j.doc)
		say_outcome("applied", rc, j.run_id);
	else if (rc == GP_EXIT_FAIL)
		gp_err("refusing to apply: nothing was changed");
	if (j.doc && rc == GP_EXIT_OK && within)
		say_pending(&j);
	if (j.doc && ctx->json)
		print_journal(&j, "apply");
	gp_journal_close(&j);
	return rc;
}

static int do_apply(struct gp_ctx *ctx)
{
	struct gp_planned pl;
	long within = within_arg(ctx);
	int rc = within < 0 ? GP_EXIT_INPUT : gp_ctx_live(ctx, "apply");

	if (!rc)
		rc = templates_safe(ctx);
	if (rc)
		return rc;
	rc = gp_lock_take(0);
	if (rc)
		return rc == -EWOULDBLOCK ? GP_EXIT_LOCKED : GP_EXIT_HOST;
	rc = runs_settled(ctx);
	if (rc)
		return rc;
	rc = gp_ctx_plan(ctx, &pl);
	if (rc)
		return rc;
	if (!ctx->json || pl.plan.nblockers)
		gp_plan_out(&pl.h, ctx->profile, &pl.plan, NULL, ctx->json);
	fflush(stdout); /* the plan before the progress on stderr */
	if (pl.plan.nblockers) {
		gp_err("refusing to apply: %d failed check%s block%s these steps; nothing "
		       "was changed",
		       pl.plan.nblockers, pl.plan.nblockers > 1 ? "s" : "",
		       pl.plan.nblockers > 1 ? "" : "s");
		rc = GP_EXIT_FAIL;
	} else if (!pl.plan.n) {
		gp_info("nothing to do");
		if (ctx->json) /* no run: no journal to print, yet one document */
			print_nothing(ctx);
	} else if (!(rc = confirm(ctx, "apply these changes?"))) {
		rc = run(ctx, &pl, (unsigned)within);
	}
	gp_planned_release(&pl);
	return rc;
}

/* What rollback would undo, newest first. */
static int show_undo(struct gp_journal *j)
{
	size_t i = gp_journal_nsteps(j);
	int n = 0;

	while (i-- > 0) {
		json_object *o = gp_journal_step(j, i);
		const char *state = json_object_get_string(json_object_object_get(o, "state"));
		struct gp_step st;

		if (!state || (strcmp(state, "done") && strcmp(state, "doing")))
			continue;
		gp_step_from_json(o, &st);
		fprintf(stderr, "  undo %-*s %-14s back to: %s\n", gp_step_name_width(),
			gp_step_name(st.kind), st.subject, st.current);
		n++;
	}
	return n;
}

/*
 * rollback -q --list: a line a run, fields split by a tab, no header and no
 * wrapping, for a script without a JSON reader (the package's prerm): the
 * text's columns wrap a long reason or profile onto lines of their own.  A
 * run ID is a file's name: its tabs and newlines print as \xNN.
 */
static void porcelain_run(const struct gp_run *r, const char *status, bool next)
{
	printf("%s\t%s\t%zu\t%zu\t%s\t%s\n", gp_tv(r->run_id), status, r->undoable, r->nsteps,
	       next ? "next" : "-", r->confirm[0] ? r->confirm : "-");
}

/*
 * The text's status of a run applied with --confirm-within: unconfirmed
 * (waiting, or its deadline passed with no watcher acting), confirmed, or
 * timed_out (its watcher rolled it back at the deadline).
 */
static const char *shown_status(const struct gp_run *r)
{
	if (r->interrupted)
		return "interrupted";
	if (gp_run_unconfirmed(r))
		return "unconfirmed";
	if (!strcmp(r->confirm, "confirmed") && !strcmp(r->status, "done"))
		return "confirmed";
	if (!strcmp(r->confirm, "timed_out") && !strcmp(r->status, "rolled_back"))
		return "timed_out";
	return r->status;
}

/* --json's "confirm": null without --confirm-within */
static void confirm_out(const struct gp_run *r)
{
	if (!r->confirm[0]) {
		gp_print_null("confirm");
		return;
	}
	gp_open_object("confirm");
	gp_print_str("state", NULL, r->confirm);
	gp_print_int("deadline", NULL, r->deadline);
	gp_close_object();
}

/*
 * rollback --list: every run, oldest first, and which one rollback takes next.
 * It only reads: no lock (a completion or the prerm never waits on a running
 * apply: journals are replaced whole, never written in place), no root where
 * the journals are readable.  The journals are this host's: -r names a tree
 * to read, which has none of gpuprov's runs.
 */
/*
 * A run whose journal says running (or rolling back) is interrupted only if
 * no run holds the lock: while one does, the newest such run is that run,
 * in progress, and not for rollback to take.  Who cannot see the lock (not
 * root) is told that an "interrupted" run may be running.
 */
static void live(struct gp_run *runs, size_t n)
{
	int held = gp_lock_held();
	size_t i = n;

	if (held < 0) {
		for (i = 0; i < n && !runs[i].interrupted; i++)
			;
		if (i < n)
			gp_warn("whether a run is in progress cannot be told without root: an "
				"interrupted run may be one still running");
		return;
	}
	while (held && i-- > 0)
		if (runs[i].interrupted) {
			runs[i].interrupted = false; /* its status says running or rolling_back */
			return;
		}
}

/* A run of rollback --list --json. */
static void run_json(const struct gp_run *r, bool next)
{
	gp_open_object(NULL);
	gp_print_str("run_id", NULL, r->run_id);
	gp_print_int("seq", NULL, r->seq);
	gp_print_str("status", NULL, r->status);
	gp_print_bool("interrupted", NULL, r->interrupted);
	gp_print_uint("steps", NULL, r->nsteps);
	gp_print_uint("to_undo", NULL, r->undoable);
	gp_print_str("profile", NULL, r->profile);
	gp_print_bool("next", NULL, next);
	confirm_out(r);
	if (!r->valid)
		gp_print_str("error", NULL, r->error);
	gp_close_object();
}

/*
 * A run of rollback --list as text: a row under the header (-v), a long
 * profile path wrapped under the run, or a line for a script (porcelain_run).
 * Its columns are the operator's (seq first, the status as the run is now,
 * the profile or why the journal is refused); JSON's members are run_json's.
 */
static void run_text(const struct gp_run *r, bool next)
{
	const char *status = r->interrupted ? "interrupted" : r->status;

	if (!gp_verbosity)
		porcelain_run(r, status, next);
	else
		gp_wrapf(0, 5, "%-4lld %-28s %-16s %zu/%-5zu %s%s", r->seq, gp_tv(r->run_id),
			 shown_status(r), r->undoable, r->nsteps,
			 gp_tv(r->valid ? r->profile : r->error), next ? "  <- next" : "");
}

static void runs_out(const struct gp_ctx *ctx, const struct gp_run *runs, size_t n)
{
	const struct gp_run *next = gp_run_next(runs, n);
	size_t i;

	gp_cmd_begin("rollback", ctx->json);
	if (gp_verbosity > 0 && !n)
		gp_text("no runs: nothing gpuprov applied is journaled in '%s'\n",
			gp_tv(gp_journal_dir()));
	else if (gp_verbosity > 0)
		gp_text("%-4s %-28s %-16s %-7s %s\n", "SEQ", "RUN", "STATUS", "UNDO", "PROFILE");
	gp_open_array("runs");
	for (i = 0; i < n; i++)
		if (ctx->json)
			run_json(&runs[i], &runs[i] == next);
		else
			run_text(&runs[i], &runs[i] == next);
	gp_close_array();
	gp_doc_end();
}

static int list_runs(const struct gp_ctx *ctx)
{
	struct gp_run *runs;
	char why[256] = "";
	size_t n;
	int rc;

	if (strcmp(ctx->root, "/")) {
		gp_err("rollback --list lists this host's runs (in '%s'): -r does not apply to it",
		       gp_journal_dir());
		return GP_EXIT_INPUT;
	}
	rc = gp_journal_runs(&runs, &n, why, sizeof(why));
	if (rc) {
		gp_err("cannot read the journals in '%s': %s%s", gp_journal_dir(),
		       why[0] ? why : strerror(-rc),
		       rc == -EACCES && geteuid()
			       ? " (they are root's: sudo gpuprov rollback --list)"
			       : "");
		return GP_EXIT_INPUT;
	}
	live(runs, n);
	runs_out(ctx, runs, n);
	free(runs);
	return GP_EXIT_OK;
}

/* A run killed before it changed anything: nothing to undo, only to close. */
static int close_untouched(const struct gp_ctx *ctx, struct gp_journal *j)
{
	gp_journal_status(j, "rolled_back");
	if (gp_journal_save(j))
		return GP_EXIT_FAIL;
	gp_info("run %s was interrupted before it changed anything: marked rolled back", j->run_id);
	if (ctx->json)
		print_journal(j, "rollback");
	return GP_EXIT_OK;
}

/* Which run plain rollback takes: interrupted ones first, then the newest left. */
static int pick_run(const struct gp_ctx *ctx, char *run_id, size_t len)
{
	struct gp_run *runs;
	const struct gp_run *r;
	size_t n;
	int rc = load_runs(&runs, &n);

	if (rc)
		return rc;
	r = gp_run_next(runs, n);
	if (r && !r->valid) {
		gp_err("refusing the journal of run %s: %s; nothing was changed", r->run_id,
		       r->error);
		rc = GP_EXIT_INPUT;
	} else if (r) {
		gp_strlcpy(run_id, r->run_id, len);
	} else {
		gp_info("nothing to roll back");
		if (ctx->json) { /* no run: the document's head alone */
			gp_doc_begin(NULL, "rollback");
			gp_doc_end();
		}
		rc = -1;
	}
	free(runs);
	return rc;
}

static int do_rollback(struct gp_ctx *ctx)
{
	struct gp_journal j;
	char run_id[64];
	int rc;

	if (ctx->argc > 1 || (ctx->opt[GP_OPT_LIST] && ctx->argc)) {
		gp_err("usage: gpuprov rollback [--list | RUN-ID]");
		return GP_EXIT_INPUT;
	}
	if (ctx->opt[GP_OPT_LIST])
		return list_runs(ctx);
	rc = gp_ctx_live(ctx, "rollback");
	if (rc)
		return rc;
	rc = gp_lock_take(10);
	if (rc)
		return rc == -EWOULDBLOCK ? GP_EXIT_LOCKED : GP_EXIT_HOST;
	if (ctx->argc)
		gp_strlcpy(run_id, ctx->argv[0], sizeof(run_id));
	else if ((rc = pick_run(ctx, run_id, sizeof(run_id))))
		return rc < 0 ? GP_EXIT_OK : rc;
	if (gp_journal_open(&j, run_id))
		return GP_EXIT_INPUT;
	fprintf(stderr, "run %s (%s):\n", j.run_id,
		json_object_get_string(json_object_object_get(j.doc, "status")));
	if (!show_undo(&j)) {
		const char *status =
			json_object_get_string(json_object_object_get(j.doc, "status"));

		if (!strcmp(status, "running") || !strcmp(status, "rolling_back")) {
			rc = close_untouched(ctx, &j);
			gp_journal_close(&j);
			return rc;
		}
		gp_info("nothing to roll back");
		if (ctx->json)
			print_journal(&j, "rollback");
		gp_journal_close(&j);
		return GP_EXIT_OK;
	}
	rc = confirm(ctx, "undo these steps?");
	if (!rc) {
		rc = outcome(gp_rollback_run(&j));
		say_outcome("rolled back", rc, j.run_id);
	}
	if (ctx->json)
		print_journal(&j, "rollback");
	gp_journal_close(&j);
	return rc;
}

const struct gp_cmd gp_cmd_apply = {
	.name = "apply",
	.run = do_apply,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS | GP_TRUST_PROFILE,
	.opts = { GP_OPT_YES, GP_OPT_ONLY, GP_OPT_FORCE_MGMT, GP_OPT_ACCEPT,
		  GP_OPT_CONFIRM_WITHIN },
	.help = "carry out the plan (root, live host): --yes, --only vfio,bond,vm",
};

const struct gp_cmd gp_cmd_rollback = {
	.name = "rollback",
	.run = do_rollback,
	.opts = { GP_OPT_YES, GP_OPT_LIST },
	.args = "[RUN-ID]",
	.help = "undo the last run left to undo: rollback [--list | RUN-ID]",
};
