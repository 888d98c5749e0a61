// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov scan: what the host has, GPUs and NICs first. */
#include "cli/cmd.h"
#include "cli/render.h"
#include "host/host.h"

static int do_scan(struct gp_ctx *ctx)
{
	struct gp_host h;
	int rc;

	rc = gp_ctx_topology(ctx, &h);
	if (rc)
		return rc;
	gp_render_scan(&h, ctx->profile, ctx->json);
	gp_host_release(&h);
	return GP_EXIT_OK;
}

const struct gp_cmd gp_cmd_scan = {
	.name = "scan",
	.run = do_scan,
	.flags = GP_USE_PROFILE | GP_NO_ARGS,
	.help = "GPUs, NICs, bridges, IOMMU groups, NUMA nodes, links, BARs",
};
