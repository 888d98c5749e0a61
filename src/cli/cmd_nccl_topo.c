// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov nccl-topo: NCCL's topology file (NCCL_TOPO_FILE) for the
 * profile's VM, at the addresses the guest has; with --this-host, for the
 * machine it runs on (or the tree under -r) at its own addresses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/hostq.h"
#include "core/nccl_topo.h"
#include "host/host.h"

static bool has_gpu(const struct gp_host *h)
{
	size_t i;

	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].role == GP_ROLE_GPU)
			return true;
	return false;
}

static int do_nccl_topo(struct gp_ctx *ctx)
{
	struct gp_host h;
	char *xml;
	int rc;

	if (!ctx->opt[GP_OPT_THIS_HOST] && !ctx->profile) {
		gp_err("'nccl-topo' needs a profile with a [vm] section (-p FILE), or --this-host");
		return GP_EXIT_INPUT;
	}
	if (!ctx->opt[GP_OPT_THIS_HOST] && !ctx->profile->has_vm) {
		gp_err("'%s' has no [vm] section (or use --this-host)", ctx->opt[GP_OPT_PROFILE]);
		return GP_EXIT_INPUT;
	}
	rc = gp_ctx_host(ctx, &h);
	if (rc)
		return rc;
	if (ctx->opt[GP_OPT_THIS_HOST] && !has_gpu(&h)) {
		gp_err("no GPU under '%s': a topology of NICs alone gives NCCL nothing to place; "
		       "run it where the GPUs are (in the VM: the GPUs on their NVIDIA driver)",
		       ctx->root);
		gp_host_release(&h);
		return GP_EXIT_FAIL;
	}
	rc = gp_nccl_topo_build(&h, ctx->profile, ctx->opt[GP_OPT_THIS_HOST], &xml);
	gp_host_release(&h);
	if (rc == -ERANGE || rc == -E2BIG)
		return GP_EXIT_INPUT; /* no guest bus for a card, or too big for NCCL: said why */
	if (rc) {
		gp_err("cannot build the NCCL topology: %s", strerror(-rc));
		return GP_EXIT_HOST;
	}
	rc = gp_ctx_output(ctx, xml, strlen(xml), 0644);
	free(xml);
	return rc;
}

const struct gp_cmd gp_cmd_nccl_topo = {
	.name = "nccl-topo",
	.run = do_nccl_topo,
	.flags = GP_USE_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_OUTPUT, GP_OPT_THIS_HOST },
	.help = "NCCL_TOPO_FILE for the profile's VM (--this-host: this machine)",
};
