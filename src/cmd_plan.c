// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov plan: the steps apply would take.  Exit 0 when the host is as the
 * profile wants, 1 when changes are pending, 2 when a failed check makes
 * them unsafe (apply would refuse).
 */
#include <string.h>

#include "cmd.h"
#include "plan.h"

int gp_ctx_plan(struct gp_ctx *ctx, struct gp_host *h, struct gp_report *r,
		struct gp_plan *plan, char *templates[GP_PERSIST_FILES])
{
	unsigned groups = GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM;
	int rc;

	if (ctx->only && gp_parse_groups(ctx->only, &groups)) {
		gp_err("--only takes a list of vfio, bond, vm: '%s'", ctx->only);
		return GP_EXIT_INPUT;
	}
	if (gp_templates_load(templates))
		return GP_EXIT_INPUT;
	rc = gp_ctx_host(ctx, h);
	if (rc) {
		gp_templates_release(templates);
		return rc;
	}
	memset(r, 0, sizeof(*r));
	gp_checks_run(h, ctx->profile, r);
	gp_plan_build(h, ctx->profile, r, templates, groups, plan);
	return 0;
}

int gp_cmd_plan(struct gp_ctx *ctx)
{
	char *templates[GP_PERSIST_FILES];
	struct gp_report r;
	struct gp_plan plan;
	struct gp_host h;
	int rc;

	if (ctx->argc) {
		gp_err("plan takes no arguments");
		return GP_EXIT_INPUT;
	}
	rc = gp_ctx_plan(ctx, &h, &r, &plan, templates);
	if (rc)
		return rc;
	gp_render_plan(ctx->profile, &plan, ctx->json);
	rc = plan.nblockers ? GP_EXIT_FAIL : plan.n ? GP_EXIT_WARN : GP_EXIT_OK;
	gp_plan_release(&plan);
	gp_report_release(&r);
	gp_templates_release(templates);
	gp_host_release(&h);
	return rc;
}
