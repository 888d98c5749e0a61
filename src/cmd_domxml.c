// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov domxml: the libvirt domain XML of the profile's VM (stdout or -o). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "plan.h"
#include "vm.h"

/*
 * [vm] template, relative to the working directory or else to the profile's
 * own directory; without one, the shipped domain-q35-ovmf.xml.
 */
int gp_ctx_template(const struct gp_ctx *ctx, char *path, size_t len)
{
	const char *t = ctx->profile->vm.template;
	const char *slash;

	if (!t[0])
		return gp_template_path("domain-q35-ovmf.xml", path, len);
	snprintf(path, len, "%s", t);
	if (t[0] == '/' || !access(path, R_OK))
		return 0;
	slash = strrchr(ctx->profile_path, '/');
	if (slash)
		snprintf(path, len, "%.*s/%s", (int)(slash - ctx->profile_path), ctx->profile_path,
			 t);
	return 0;
}

int gp_cmd_domxml(struct gp_ctx *ctx)
{
	char tmpl[PATH_MAX], *xml, digest[24];
	struct gp_host h;
	int rc;

	if (!ctx->profile->has_vm) {
		gp_err("'%s' has no [vm] section", ctx->profile_path);
		return GP_EXIT_INPUT;
	}
	if (gp_ctx_template(ctx, tmpl, sizeof(tmpl)))
		return GP_EXIT_INPUT;
	rc = gp_ctx_host(ctx, &h);
	if (rc)
		return rc;
	if (gp_domxml_build(&h, ctx->profile, tmpl, &xml, digest, sizeof(digest))) {
		gp_host_release(&h);
		return GP_EXIT_INPUT;
	}
	gp_host_release(&h);
	rc = gp_ctx_output(ctx, xml, strlen(xml));
	free(xml);
	return rc;
}
