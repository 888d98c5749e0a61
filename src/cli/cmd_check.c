// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov check: findings; exit 0 all ok, 1 warnings only, 2 a failure. */
#include "cli/cmd.h"
#include "cli/render.h"

int gp_cmd_check(struct gp_ctx *ctx)
{
	struct gp_report r = { 0 };
	struct gp_host h;
	int rc;

	rc = gp_ctx_host(ctx, &h);
	if (rc)
		return rc;
	rc = gp_ctx_vm_files(ctx, &h);
	if (rc) {
		gp_host_release(&h);
		return rc;
	}
	gp_checks_run(&h, ctx->profile, &r);
	gp_render_check(&h, ctx->profile, &r, ctx->json);
	rc = gp_report_count(&r, GP_FAIL)   ? GP_EXIT_FAIL
	     : gp_report_count(&r, GP_WARN) ? GP_EXIT_WARN
					    : GP_EXIT_OK;
	gp_report_release(&r);
	gp_host_release(&h);
	return rc;
}
