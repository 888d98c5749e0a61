// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov check: findings; exit 0 all ok, 1 warnings only, 2 a failure.
 * With --baseline, the drift.* findings against a snapshot taken when the
 * host was verified come after the profile's own.
 */
#include "cli/cmd.h"
#include "cli/render.h"
#include "core/drift.h"
#include "host/host.h"

/* The baseline is the operator's input: one that cannot be read is exit 4. */
static int drift(struct gp_ctx *ctx, const struct gp_host *h, struct gp_report *r)
{
	struct gp_host base;

	if (gp_host_load(ctx->opt[GP_OPT_BASELINE], ctx->profile, &base)) {
		gp_err("cannot read the baseline '%s' (a snapshot unpacked with tar xzf)",
		       ctx->opt[GP_OPT_BASELINE]);
		return GP_EXIT_INPUT;
	}
	gp_drift_run(&base, h, ctx->profile, r);
	gp_host_release(&base);
	return 0;
}

static int do_check(struct gp_ctx *ctx)
{
	struct gp_report r = { 0 };
	struct gp_host h;
	int rc;

	rc = gp_ctx_host_owned(ctx, &h);
	if (rc)
		return rc;
	rc = gp_ctx_vm_files(ctx, &h);
	if (rc) {
		gp_host_release(&h);
		return rc;
	}
	gp_checks_run(&h, ctx->profile, &r);
	rc = ctx->opt[GP_OPT_BASELINE] ? drift(ctx, &h, &r) : 0;
	if (rc) {
		gp_report_release(&r);
		gp_host_release(&h);
		return rc;
	}
	gp_render_check(&h, ctx->profile, &r, ctx->json, gp_verbosity >= 2);
	rc = gp_report_count(&r, GP_FAIL)   ? GP_EXIT_FAIL
	     : gp_report_count(&r, GP_WARN) ? GP_EXIT_WARN
					    : GP_EXIT_OK;
	gp_report_release(&r);
	gp_host_release(&h);
	return rc;
}

const struct gp_cmd gp_cmd_check = {
	.name = "check",
	.run = do_check,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_BASELINE },
	.help = "preflight of the host against the profile",
};
