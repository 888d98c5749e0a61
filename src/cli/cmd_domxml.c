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

/*
 * [vm] template: an absolute path as it is; a relative one in the profile's
 * directory, else among the templates (never in the working directory, which
 * may be anyone's); without one, the shipped domain-q35-ovmf.xml.
 */
int gp_ctx_template(const struct gp_ctx *ctx, char *path, size_t len)
{
	const char *t = ctx->profile->vm.template;
	const char *slash = strrchr(ctx->profile_path, '/');
	char shipped[PATH_MAX];

	if (!t[0])
		return gp_template_path("domain-q35-ovmf.xml", path, len);
	if (t[0] == '/') {
		snprintf(path, len, "%s", t);
		return 0;
	}
	if (slash)
		snprintf(path, len, "%.*s%s", (int)(slash - ctx->profile_path + 1),
			 ctx->profile_path, t);
	else
		snprintf(path, len, "./%s", t);
	if (!access(path, F_OK) || errno != ENOENT)
		return 0;
	if (!gp_template_path(t, shipped, sizeof(shipped)) && !access(shipped, F_OK))
		snprintf(path, len, "%s", shipped);
	return 0; /* not found: the message names the profile's directory */
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
