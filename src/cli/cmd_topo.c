// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov topo: the nvidia-smi topo -m matrix, from the PCI tree. */
#include "cli/cmd.h"
#include "cli/render.h"
#include "host/host.h"

static int do_topo(struct gp_ctx *ctx)
{
	struct gp_host h;
	int rc;

	rc = gp_ctx_topology(ctx, &h);
	if (rc)
		return rc;
	gp_render_topo(&h, ctx->profile, ctx->json);
	gp_host_release(&h);
	return GP_EXIT_OK;
}

const struct gp_cmd gp_cmd_topo = {
	.name = "topo",
	.run = do_topo,
	.flags = GP_USE_PROFILE | GP_NO_ARGS,
	.help = "GPU/NIC path matrix (X PIX PXB PHB NODE SYS) with the slowest link",
};
