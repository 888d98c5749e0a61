// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov topo: the nvidia-smi topo -m matrix, from the PCI tree. */
#include "cli/cmd.h"
#include "cli/render.h"
#include "host/host.h"

int gp_cmd_topo(struct gp_ctx *ctx)
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
