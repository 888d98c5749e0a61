// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov apply / rollback: the only commands that change the host.  Both
 * need root on the live host (no --root), take the lock, show what they
 * will do and ask unless --yes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "cmd.h"
#include "netconf.h"
#include "render.h"

static int confirm(const struct gp_ctx *ctx, const char *question)
{
	char answer[16];

	if (ctx->yes)
		return 0;
	if (!isatty(STDIN_FILENO)) {
		gp_err("not asking on a non-terminal: add --yes to go ahead");
		return GP_EXIT_INPUT;
	}
	fprintf(stderr, "%s [y/N] ", question);
	if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
		gp_err("nothing done");
		return GP_EXIT_INPUT;
	}
	return 0;
}

/* doas's rule: a configuration others can write is no configuration. */
static int profile_safe(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		gp_err("cannot stat '%s'", path);
		return GP_EXIT_INPUT;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		gp_err("'%s' is writable by group or others: refusing to act on it "
		       "(chmod go-w)",
		       path);
		return GP_EXIT_INPUT;
	}
	return 0;
}

static int requirements(const struct gp_ctx *ctx, const char *command)
{
	if (strcmp(ctx->root, "/")) {
		gp_err("'%s' changes the live host: --root is not allowed", command);
		return GP_EXIT_INPUT;
	}
	if (geteuid()) {
		gp_err("'%s' needs root", command);
		return GP_EXIT_HOST;
	}
	return 0;
}

static void print_journal(struct gp_journal *j, const char *command)
{
	json_object *doc = gp_json_doc(command);

	json_object_object_foreach (j->doc, key, val) {
		if (strcmp(key, "schema_version"))
			json_object_object_add(doc, key, json_object_get(val));
	}
	gp_json_print(doc);
}

/* The point of no return is inside gp_apply_run, after every precheck. */
static int run(struct gp_ctx *ctx, struct gp_planned *pl)
{
	struct gp_journal j = { 0 };
	struct gp_netconf nc = { 0 };
	struct gp_persist ps;
	int rc;

	gp_persist_render(&pl->h, ctx->profile, pl->templates, &ps);
	if (ctx->profile->has_bond)
		gp_netconf_render(&pl->h, ctx->profile, &nc);
	gp_files_set_persist(&ps);
	gp_files_set_vm(pl->vm.xml ? &pl->vm : NULL);
	gp_virt_set_target(pl->vm.xml ? &pl->vm : NULL);
	gp_files_set_netconf(&nc);
	gp_bond_set_target(ctx->profile);
	rc = gp_apply_run(&pl->plan, ctx->profile_path, &j) ? GP_EXIT_FAIL : GP_EXIT_OK;
	gp_files_set_persist(NULL);
	gp_files_set_vm(NULL);
	gp_virt_set_target(NULL);
	gp_files_set_netconf(NULL);
	gp_bond_set_target(NULL);
	gp_netconf_release(&nc);
	gp_persist_release(&ps);
	if (j.doc && ctx->json)
		print_journal(&j, "apply");
	else if (j.doc)
		gp_info("%s: run %s", rc ? "failed and rolled back" : "applied", j.run_id);
	gp_journal_close(&j);
	return rc;
}

int gp_cmd_apply(struct gp_ctx *ctx)
{
	struct gp_planned pl;
	int rc = requirements(ctx, "apply");

	if (!rc)
		rc = profile_safe(ctx->profile_path);
	if (rc)
		return rc;
	if (gp_lock_take(0))
		return GP_EXIT_LOCKED;
	rc = gp_ctx_plan(ctx, &pl);
	if (rc)
		return rc;
	if (!ctx->json || pl.plan.nblockers)
		gp_render_plan(ctx->profile, &pl.plan, ctx->json);
	fflush(stdout); /* the plan before the progress on stderr */
	if (pl.plan.nblockers) {
		gp_err("refusing to apply: %d failed check%s make%s these steps unsafe; nothing "
		       "was changed",
		       pl.plan.nblockers, pl.plan.nblockers > 1 ? "s" : "",
		       pl.plan.nblockers > 1 ? "" : "s");
		rc = GP_EXIT_FAIL;
	} else if (!pl.plan.n) {
		gp_info("nothing to do");
	} else if (!(rc = confirm(ctx, "apply these changes?"))) {
		rc = run(ctx, &pl);
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
		fprintf(stderr, "  undo %-16s %-14s back to: %s\n", st.kind, st.subject,
			st.current);
		n++;
	}
	return n;
}

int gp_cmd_rollback(struct gp_ctx *ctx)
{
	struct gp_journal j;
	int rc;

	if (ctx->argc > 1) {
		gp_err("usage: gpuprov rollback [RUN-ID]");
		return GP_EXIT_INPUT;
	}
	rc = requirements(ctx, "rollback");
	if (rc)
		return rc;
	if (gp_lock_take(10))
		return GP_EXIT_LOCKED;
	rc = gp_journal_open(&j, ctx->argc ? ctx->argv[0] : NULL);
	if (rc == -ENOENT && !ctx->argc) {
		gp_info("no journal in '%s': nothing to roll back", gp_journal_dir());
		return GP_EXIT_OK;
	}
	if (rc)
		return GP_EXIT_INPUT;
	fprintf(stderr, "run %s (%s):\n", j.run_id,
		json_object_get_string(json_object_object_get(j.doc, "status")));
	if (!show_undo(&j)) {
		gp_info("nothing to roll back");
		if (ctx->json)
			print_journal(&j, "rollback");
		gp_journal_close(&j);
		return GP_EXIT_OK;
	}
	rc = confirm(ctx, "undo these steps?");
	if (!rc)
		rc = gp_rollback_run(&j) ? GP_EXIT_FAIL : GP_EXIT_OK;
	if (ctx->json)
		print_journal(&j, "rollback");
	gp_journal_close(&j);
	return rc;
}
