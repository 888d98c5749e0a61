// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov guest-config: the files the guest needs for the RoCE ports
 * [nic] mode = passthrough gives it (core/guestcfg.c): network-config,
 * nccl.conf and nccl-topo.xml.  Standard output (each file under a
 * "==> NAME <==" line, as head(1) separates files), or -o DIR.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/out.h"
#include "core/guestcfg.h"
#include "core/hostq.h"
#include "host/host.h"
#include "shared/write.h"

static int write_dir(const char *dir, char *const text[GP_GUEST_FILES])
{
	char path[GP_GUEST_FILES][PATH_MAX];
	int i, rc;

	/* every path first: a cut one would write another file than the one named */
	for (i = 0; i < GP_GUEST_FILES; i++)
		if ((size_t)snprintf(path[i], sizeof(path[i]), "%s/%s", dir,
				     gp_guest_file_names[i]) >= sizeof(path[i])) {
			gp_err("-o: '%s' is too long: its files' paths would be cut", dir);
			return GP_EXIT_INPUT;
		}
	rc = gp_write_mkdir(dir, 0755);
	if (rc) {
		gp_err("cannot make the directory '%s': %s", dir, gp_write_strerror(rc));
		return GP_EXIT_INPUT;
	}
	for (i = 0; i < GP_GUEST_FILES; i++) {
		rc = gp_ctx_write(path[i], text[i], strlen(text[i]), 0644);
		if (rc)
			return rc;
	}
	return 0;
}

static int print(const struct gp_ctx *ctx, char *const text[GP_GUEST_FILES])
{
	const char *dir = ctx->opt[GP_OPT_OUTPUT];
	int i;

	if (!ctx->json) {
		for (i = 0; !dir && i < GP_GUEST_FILES; i++)
			printf("%s==> %s <==\n%s", i ? "\n" : "", gp_guest_file_names[i], text[i]);
		return 0;
	}
	gp_doc_begin(NULL, ctx->command);
	gp_print_str("dir", NULL, dir);
	gp_open_array("files");
	for (i = 0; i < GP_GUEST_FILES; i++) {
		gp_open_object(NULL);
		gp_print_str("name", NULL, gp_guest_file_names[i]);
		if (dir)
			gp_print_null("text");
		else
			gp_print_str("text", NULL, text[i]);
		gp_close_object();
	}
	gp_close_array();
	gp_doc_end();
	return 0;
}

static int do_guest_config(struct gp_ctx *ctx)
{
	char *text[GP_GUEST_FILES];
	struct gp_host h;
	int rc;

	if (!ctx->profile->has_vm || !gp_nic_to_vm(ctx->profile)) {
		gp_err("'%s' needs a [vm] section and [nic] mode = passthrough or vf",
		       ctx->opt[GP_OPT_PROFILE]);
		return GP_EXIT_INPUT;
	}
	rc = gp_ctx_host(ctx, &h);
	if (rc)
		return rc;
	rc = gp_guest_config(&h, ctx->profile, text);
	gp_host_release(&h);
	if (rc)
		return GP_EXIT_FAIL; /* said why */
	rc = ctx->opt[GP_OPT_OUTPUT] ? write_dir(ctx->opt[GP_OPT_OUTPUT], text) : 0;
	if (!rc)
		rc = print(ctx, text);
	gp_guest_config_release(text);
	return rc;
}

const struct gp_cmd gp_cmd_guest_config = {
	.name = "guest-config",
	.run = do_guest_config,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_OUTPUT },
	.help = "the guest's network-config, nccl.conf, topology ([nic])",
};
