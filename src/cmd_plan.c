// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov plan: the steps apply would take.  Exit 0 when the host is as the
 * profile wants, 1 when changes are pending, 2 when a failed check makes
 * them unsafe (apply would refuse).
 */
#include <string.h>

#include <limits.h>
#include <stdlib.h>

#include "apply.h"
#include "cmd.h"
#include "plan.h"
#include "vm.h"

/* The VM's XML and where it goes, when the profile has a [vm]. */
static int vm_target(struct gp_ctx *ctx, const struct gp_host *h, struct gp_vm_target *vm)
{
	char tmpl[PATH_MAX], *xml;

	memset(vm, 0, sizeof(*vm));
	if (!ctx->profile->has_vm)
		return 0;
	if (gp_ctx_template(ctx, tmpl, sizeof(tmpl)) ||
	    gp_domxml_build(h, ctx->profile, tmpl, &xml, vm->digest, sizeof(vm->digest)))
		return GP_EXIT_INPUT;
	vm->xml = xml;
	vm->output = ctx->profile->vm.output;
	vm->uri = ctx->profile->vm.uri;
	vm->name = ctx->profile->vm.name;
	return 0;
}

int gp_ctx_plan(struct gp_ctx *ctx, struct gp_host *h, struct gp_report *r,
		struct gp_plan *plan, char *templates[GP_PERSIST_FILES], struct gp_vm_target *vm)
{
	unsigned groups = GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM;
	int rc;

	if (ctx->only && gp_parse_groups(ctx->only, &groups)) {
		gp_err("--only takes a list of vfio, bond, vm: '%s'", ctx->only);
		return GP_EXIT_INPUT;
	}
	if (ctx->force_mgmt)
		groups |= GP_FORCE_MGMT;
	if (gp_templates_load(templates))
		return GP_EXIT_INPUT;
	rc = gp_ctx_host(ctx, h);
	if (rc) {
		gp_templates_release(templates);
		return rc;
	}
	rc = (groups & GP_GROUP_VM) ? vm_target(ctx, h, vm) : 0;
	if (!(groups & GP_GROUP_VM))
		memset(vm, 0, sizeof(*vm));
	if (rc) {
		gp_templates_release(templates);
		gp_host_release(h);
		return rc;
	}
	memset(r, 0, sizeof(*r));
	gp_checks_run(h, ctx->profile, r);
	gp_plan_build(h, ctx->profile, r, templates, vm->xml ? vm : NULL, groups, plan);
	return 0;
}

int gp_cmd_plan(struct gp_ctx *ctx)
{
	char *templates[GP_PERSIST_FILES];
	struct gp_vm_target vm;
	struct gp_report r;
	struct gp_plan plan;
	struct gp_host h;
	int rc;

	rc = gp_ctx_plan(ctx, &h, &r, &plan, templates, &vm);
	if (rc)
		return rc;
	gp_render_plan(ctx->profile, &plan, ctx->json);
	rc = plan.nblockers ? GP_EXIT_FAIL : plan.n ? GP_EXIT_WARN : GP_EXIT_OK;
	free((char *)vm.xml);
	gp_plan_release(&plan);
	gp_report_release(&r);
	gp_templates_release(templates);
	gp_host_release(&h);
	return rc;
}
