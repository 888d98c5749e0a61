// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov domxml: the libvirt domain XML of the profile's VM (stdout or -o). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/plan.h"
#include "core/vm.h"
#include "core/domxml.h"
#include "core/templates.h"
#include "host/host.h"

static int do_domxml(struct gp_ctx *ctx)
{
	char tmpl[PATH_MAX], *xml, digest[24];
	struct gp_host h;
	bool secret;
	int rc;

	if (!ctx->profile->has_vm) {
		gp_err("'%s' has no [vm] section", ctx->opt[GP_OPT_PROFILE]);
		return GP_EXIT_INPUT;
	}
	if (gp_ctx_template(ctx, tmpl, sizeof(tmpl)))
		return GP_EXIT_INPUT;
	rc = gp_ctx_host(ctx, &h);
	if (rc)
		return rc;
	if (gp_domxml_build(&h, ctx->profile, tmpl, &xml, digest, sizeof(digest), &secret)) {
		gp_host_release(&h);
		return GP_EXIT_INPUT;
	}
	gp_host_release(&h);
	/* a template only root may read may hold a password: so may -o's file */
	rc = gp_ctx_output(ctx, xml, strlen(xml), gp_domxml_mode(secret));
	free(xml);
	return rc;
}

const struct gp_cmd gp_cmd_domxml = {
	.name = "domxml",
	.run = do_domxml,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_OUTPUT },
	.help = "the libvirt domain XML for the profile's VM (stdout or -o FILE)",
};
