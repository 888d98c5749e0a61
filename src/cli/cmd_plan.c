// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov plan: the steps apply would take.  Exit 0 when the host is as the
 * profile wants, 1 when changes are pending, 2 when a failed check not
 * accepted by name (--accept) blocks them (apply would refuse).
 */
#include "cli/cmd.h"
#include "cli/render.h"
#include "core/pfiles.h"

static int do_plan(struct gp_ctx *ctx)
{
	struct gp_pfiles files = { 0 };
	struct gp_planned pl;
	int rc = gp_ctx_plan(ctx, &pl);

	if (rc)
		return rc;
	/* the files the steps write, for --diff and for JSON (Ansible's diff mode) */
	if (ctx->opt[GP_OPT_DIFF] || ctx->json)
		gp_pfiles_build(&pl.h, ctx->profile, pl.templates, pl.vm.xml ? &pl.vm : NULL,
				&pl.plan, &files);
	gp_render_plan(&pl.h, ctx->profile, &pl.plan, ctx->json ? &files : NULL, ctx->json);
	if (ctx->opt[GP_OPT_DIFF] && !ctx->json)
		gp_render_plan_diff(&files);
	gp_pfiles_release(&files);
	rc = pl.plan.nblockers ? GP_EXIT_FAIL : pl.plan.n ? GP_EXIT_WARN : GP_EXIT_OK;
	gp_planned_release(&pl);
	return rc;
}

const struct gp_cmd gp_cmd_plan = {
	.name = "plan",
	.run = do_plan,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_ONLY, GP_OPT_FORCE_MGMT, GP_OPT_DIFF, GP_OPT_ACCEPT },
	.help = "dry run: the steps apply would take, with current and target state",
};
