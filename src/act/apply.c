// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The apply engine: lock, journal, then each step in order: record what
 * undoing needs, do it, verify it.  On the first failure the steps already
 * done are undone in reverse order.  Rollback runs the same undo from a
 * journal, after a crash or a reboot too, and does nothing the second time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "act/apply.h"
#include "act/confirm.h"
#include "shared/progress.h"

/* GPUPROV_STEP_DELAY: seconds to pause after each step (demonstrations, tests). */
static void step_delay(void)
{
	const char *s = getenv("GPUPROV_STEP_DELAY");
	double secs = s ? atof(s) : 0;
	struct timespec ts;

	if (secs <= 0)
		return;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/*
 * What an operator types to finish an undo that failed: the actuator's
 * command that gives back what the step changed, or else the files of its
 * undo record (the journal keeps their previous content and the previous
 * domain XML for rollback to retry).
 */
static void by_hand(const struct gp_journal *j, size_t i, const struct gp_step *st)
{
	const struct gp_actuator *a = gp_actuator_find(st->kind);
	char how[400];

	if (!a->by_hand || !a->by_hand(st, how, sizeof(how)))
		snprintf(how, sizeof(how), "put back or remove the files of step %zu's undo record",
			 i + 1);
	gp_err("left changed: step %zu %s %s (was: %s); by hand: %s; the record is in '%s'", i + 1,
	       gp_step_name(st->kind), st->subject, st->current, how, j->path);
}

/*
 * A step's line when it starts and when it is verified (or undone), with its
 * duration: on a terminal only (progress.c); a log keeps its gp_info lines.
 */
static void step_started(const char *word, size_t i, size_t n, const struct gp_step *st,
			 const char *from, const char *to)
{
	gp_progress_line(GP_TONE_NONE, word, "[%zu/%zu] %s %s: %s -> %s", i + 1, n,
			 gp_step_name(st->kind), st->subject, from, to);
}

static void step_ended(int rc, const char *what, size_t i, size_t n, const struct gp_step *st,
		       double t0)
{
	gp_progress_line(rc ? GP_TONE_FAIL : GP_TONE_OK, rc ? "FAIL " : "ok   ",
			 "[%zu/%zu] %s %s: %s in %.2f s", i + 1, n, gp_step_name(st->kind),
			 st->subject, rc ? "failed" : what, gp_now() - t0);
}

/* Undo works from the journal's record alone: no context. */
static const struct gp_apply_ctx none;

static int undo_one(struct gp_journal *j, size_t i)
{
	json_object *o = gp_journal_step(j, i), *undo;
	const char *state = json_object_get_string(json_object_object_get(o, "state"));
	const struct gp_actuator *a;
	struct gp_step st;
	double t0;
	int rc;

	if (!state || (strcmp(state, "done") && strcmp(state, "doing")))
		return 0;
	a = gp_step_from_json(o, &st) ? NULL : gp_actuator_find(st.kind);
	if (!a) {
		const char *kind = json_object_get_string(json_object_object_get(o, "kind"));

		gp_err("step %zu: unknown kind '%s' in the journal", i + 1, kind ? kind : "");
		return -EINVAL;
	}
	undo = json_object_object_get(o, "undo");
	if (gp_progress_on()) /* undoing goes back from the target */
		step_started("undo ", i, gp_journal_nsteps(j), &st, st.target, st.current);
	else
		gp_info("undo %s %s", gp_step_name(st.kind), st.subject);
	t0 = gp_now();
	rc = a->undo(&none, &st, undo);
	step_ended(rc, "undone", i, gp_journal_nsteps(j), &st, t0);
	if (rc) {
		by_hand(j, i, &st);
		return rc;
	}
	gp_journal_set(j, i, "undone");
	return gp_journal_save(j);
}

/*
 * Undoes steps [0, upto) in reverse; keeps going past a failure, reports it.
 * -ENOTRECOVERABLE when a step is left changed.
 */
static int undo_range(struct gp_journal *j, size_t upto)
{
	int rc = 0;

	while (upto-- > 0)
		if (undo_one(j, upto))
			rc = -ENOTRECOVERABLE;
	return rc;
}

/* apply's failure: steps [0, upto) undone; -EIO, or -ENOTRECOVERABLE when one is left changed */
static int undo_all(struct gp_journal *j, size_t upto)
{
	int rc = undo_range(j, upto);

	gp_journal_status(j, rc ? "rollback_failed" : "rolled_back");
	if (gp_journal_save(j))
		rc = -ENOTRECOVERABLE; /* rollback must find the run unfinished */
	return rc ? rc : -EIO;
}

static int precheck_all(const struct gp_apply_ctx *ctx, const struct gp_plan *plan)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < plan->n; i++) {
		const struct gp_actuator *a = gp_actuator_find(plan->steps[i].kind);

		if (!a) {
			gp_err("no actuator for '%s'", gp_step_name(plan->steps[i].kind));
			return -EINVAL;
		}
		if (a->precheck && a->precheck(ctx, &plan->steps[i]))
			rc = -EINVAL;
	}
	return rc;
}

/* The actuator's verify, or else: done() must say the step holds now. */
static int verify(const struct gp_apply_ctx *ctx, const struct gp_actuator *a,
		  const struct gp_step *st)
{
	if (a->verify)
		return a->verify(ctx, st);
	if (a->done(ctx, st) > 0)
		return 0;
	gp_err("%s %s: not as the step left it", gp_step_name(st->kind), st->subject);
	return -EIO;
}

static int run_one(const struct gp_apply_ctx *ctx, struct gp_journal *j, const struct gp_step *st,
		   size_t i, size_t n)
{
	const struct gp_actuator *a = gp_actuator_find(st->kind);
	json_object *undo = json_object_object_get(gp_journal_step(j, i), "undo");
	double t0 = gp_now();
	int rc;

	if (a->done(ctx, st) > 0) {
		if (gp_progress_on())
			gp_progress_line(GP_TONE_OK, "ok   ", "[%zu/%zu] %s %s: already done",
					 i + 1, n, gp_step_name(st->kind), st->subject);
		else
			gp_info("[%zu] %s %s: already done", i + 1, gp_step_name(st->kind),
				st->subject);
		gp_journal_set(j, i, "skipped");
		return gp_journal_save(j);
	}
	rc = a->record(ctx, st, undo);
	if (rc)
		return rc;
	gp_journal_set(j, i, "doing");
	rc = gp_journal_save(j); /* on disk before the host changes */
	if (rc)
		return rc;
	if (gp_progress_on())
		step_started("start", i, n, st, st->current, st->target);
	else
		gp_info("[%zu] %s %s: %s -> %s", i + 1, gp_step_name(st->kind), st->subject,
			st->current, st->target);
	rc = a->run(ctx, st);
	if (!rc)
		rc = verify(ctx, a, st);
	step_ended(rc, "verified", i, n, st, t0);
	if (rc)
		return rc;
	gp_journal_set(j, i, "done");
	rc = gp_journal_save(j);
	step_delay();
	return rc;
}

int gp_apply_run(const struct gp_apply_ctx *ctx, struct gp_plan *plan, const char *profile,
		 struct gp_journal *j)
{
	size_t i;
	int rc;

	rc = precheck_all(ctx, plan);
	if (rc) {
		gp_err("a precondition does not hold: nothing was changed");
		return -ECANCELED;
	}
	rc = gp_journal_create(j, profile, plan);
	if (rc)
		return -ECANCELED;
	gp_info("run %s: journal %s", j->run_id, j->path);
	/* the point of no return: from here on the host changes */
	for (i = 0; i < plan->n; i++) {
		rc = run_one(ctx, j, &plan->steps[i], i, plan->n);
		if (!rc)
			continue;
		gp_err("step %zu (%s %s) failed: undoing the steps before it", i + 1,
		       gp_step_name(plan->steps[i].kind), plan->steps[i].subject);
		gp_journal_set(j, i, "doing"); /* it may have half-happened */
		gp_journal_save(j);
		return undo_all(j, i + 1);
	}
	/*
	 * The watcher's record is saved with "done", in one write: a run is never
	 * done without the safety net it was asked for.  No watcher, no run.
	 */
	if (ctx->confirm_within && gp_confirm_arm(j, ctx->confirm_within)) {
		gp_err("no watcher to roll the run back unless confirmed: undoing every step");
		return undo_all(j, plan->n);
	}
	gp_journal_status(j, "done");
	return gp_journal_save(j);
}

/*
 * Every step left to undo may be undone now: a domain the run defined that
 * is running holds the devices (QEMU has their VFIO groups open; unbinding
 * one waits on QEMU), so nothing is undone while it runs.
 */
static int undo_ready(struct gp_journal *j)
{
	size_t i, n = gp_journal_nsteps(j);
	int rc = 0;

	for (i = 0; i < n; i++) {
		json_object *o = gp_journal_step(j, i);
		const char *state = json_object_get_string(json_object_object_get(o, "state"));
		const struct gp_actuator *a;
		struct gp_step st;

		if (!state || (strcmp(state, "done") && strcmp(state, "doing")))
			continue;
		a = gp_step_from_json(o, &st) ? NULL : gp_actuator_find(st.kind);
		if (a && a->undo_ready && a->undo_ready(&st, json_object_object_get(o, "undo")))
			rc = -EBUSY;
	}
	return rc;
}

int gp_rollback_run(struct gp_journal *j)
{
	int rc;

	if (undo_ready(j)) {
		gp_err("nothing was undone");
		return -ECANCELED;
	}
	gp_journal_status(j, "rolling_back"); /* killed now, it is still interrupted */
	rc = gp_journal_save(j);
	if (rc)
		return -ECANCELED;
	rc = undo_range(j, gp_journal_nsteps(j));

	gp_journal_status(j, rc ? "rollback_failed" : "rolled_back");
	if (gp_journal_save(j))
		return -ENOTRECOVERABLE;
	return rc;
}
