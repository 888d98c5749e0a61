// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov plan: the steps apply would take.  Exit 0 when the host is as the
 * profile wants, 1 when changes are pending, 2 when a failed check not
 * accepted by name (--accept) blocks them (apply would refuse).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "act/apply.h"
#include "cli/cmd.h"
#include "core/nccl_topo.h"
#include "core/pfiles.h"
#include "core/plan.h"
#include "core/vm.h"
#include "cli/render.h"
#include "core/domxml.h"
#include "core/templates.h"
#include "host/host.h"

/* Whether what the domain needs (disks, firmware) is on the host: the VM's preflight. */
static void vm_files(struct gp_host *h, const char *xml)
{
	struct gp_vm_file files[GP_VM_FILES];
	int n = gp_domxml_files(xml, files, GP_VM_FILES);

	if (n > 0)
		gp_host_vm_files(h, files, n);
}

/* A template only root may read can hold a password (VNC, SPICE): so can its XML. */
static bool world_readable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && (st.st_mode & S_IROTH);
}

/* The VM's XML and where it goes, when the profile has a [vm]. */
static int vm_target(struct gp_ctx *ctx, struct gp_host *h, struct gp_vm_target *vm)
{
	char tmpl[PATH_MAX], *xml;

	memset(vm, 0, sizeof(*vm));
	if (!ctx->profile->has_vm)
		return 0;
	if (gp_ctx_template(ctx, tmpl, sizeof(tmpl)) ||
	    gp_domxml_build(h, ctx->profile, tmpl, &xml, vm->digest, sizeof(vm->digest)))
		return GP_EXIT_INPUT;
	vm->xml = xml;
	vm->secret = !world_readable(tmpl);
	vm_files(h, xml);
	if (gp_nccl_topo_build(h, ctx->profile, false, &xml)) {
		free((char *)vm->xml); /* said why: the guest cannot number its buses */
		vm->xml = NULL;
		return GP_EXIT_INPUT;
	}
	vm->nccl = xml;
	gp_nccl_topo_path(ctx->profile->vm.output, vm->nccl_path, sizeof(vm->nccl_path));
	vm->output = ctx->profile->vm.output;
	vm->uri = ctx->profile->vm.uri;
	vm->name = ctx->profile->vm.name;
	return 0;
}

/* --accept names finding ids: a typo would otherwise accept nothing, silently. */
static int accept_valid(const char *accept)
{
	char buf[512], *items[64];
	const char *near;
	int n, i, k;

	gp_strlcpy(buf, accept, sizeof(buf));
	n = gp_split_list(buf, items, 64);
	if (n <= 0 || strlen(accept) >= sizeof(buf)) {
		gp_err("--accept takes a list of finding ids: '%s'", accept);
		return GP_EXIT_INPUT;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; gp_finding_ids[k] && strcmp(gp_finding_ids[k], items[i]); k++)
			;
		if (gp_finding_ids[k] && !gp_finding_acceptable(items[i])) {
			gp_err("--accept: '%s' cannot be accepted: it guards the host itself (see "
			       "gpuprov(8), --accept); fix what it reports",
			       items[i]);
			return GP_EXIT_INPUT;
		}
		if (gp_finding_ids[k])
			continue;
		near = gp_closest(items[i], gp_finding_ids);
		gp_err("--accept: no finding is called '%s'%s%s%s (the ids are in gpuprov(8), "
		       "FINDINGS)",
		       items[i], near ? "; did you mean '" : "", near ? near : "",
		       near ? "'?" : "");
		return GP_EXIT_INPUT;
	}
	return 0;
}

int gp_ctx_plan(struct gp_ctx *ctx, struct gp_planned *pl)
{
	struct gp_host *h = &pl->h;
	struct gp_vm_target *vm = &pl->vm;
	unsigned groups = GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM;
	int rc;

	if (ctx->only && gp_parse_groups(ctx->only, &groups)) {
		gp_err("--only takes a list of vfio, bond, vm: '%s'", ctx->only);
		return GP_EXIT_INPUT;
	}
	if (ctx->accept && accept_valid(ctx->accept))
		return GP_EXIT_INPUT;
	if (ctx->force_mgmt)
		groups |= GP_FORCE_MGMT;
	memset(pl, 0, sizeof(*pl));
	if (gp_templates_load(pl->templates))
		return GP_EXIT_INPUT;
	rc = gp_ctx_host(ctx, h);
	if (rc) {
		gp_templates_release(pl->templates);
		return rc;
	}
	rc = (groups & GP_GROUP_VM) ? vm_target(ctx, h, vm) : 0;
	if (rc) {
		gp_templates_release(pl->templates);
		gp_host_release(h);
		return rc;
	}
	gp_checks_run(h, ctx->profile, &pl->r);
	gp_plan_build(h, ctx->profile, &pl->r, pl->templates, vm->xml ? vm : NULL, groups,
		      ctx->accept, &pl->plan);
	return 0;
}

/*
 * check: the VM's preflight needs its XML too.  A template that does not
 * build is said (domxml and plan refuse it) and check goes on without the
 * file checks: the rest of its report stands.
 */
int gp_ctx_vm_files(struct gp_ctx *ctx, struct gp_host *h)
{
	struct gp_vm_target vm;
	int verbosity = gp_verbosity, rc;

	/* its warnings are check's findings too (vm.qemu_clique): said once */
	gp_verbosity = verbosity > 0 ? 0 : verbosity;
	rc = vm_target(ctx, h, &vm);
	gp_verbosity = verbosity;
	if (!rc) {
		free((char *)vm.xml);
		free((char *)vm.nccl);
	}
	return 0;
}

void gp_planned_release(struct gp_planned *pl)
{
	free((char *)pl->vm.xml);
	free((char *)pl->vm.nccl);
	gp_plan_release(&pl->plan);
	gp_report_release(&pl->r);
	gp_templates_release(pl->templates);
	gp_host_release(&pl->h);
}

int gp_cmd_plan(struct gp_ctx *ctx)
{
	struct gp_pfiles files = { 0 };
	struct gp_planned pl;
	int rc = gp_ctx_plan(ctx, &pl);

	if (rc)
		return rc;
	/* the files the steps write, for --diff and for JSON (Ansible's diff mode) */
	if (ctx->diff || ctx->json)
		gp_pfiles_build(&pl.h, ctx->profile, pl.templates, pl.vm.xml ? &pl.vm : NULL,
				&pl.plan, &files);
	gp_render_plan(&pl.h, ctx->profile, &pl.plan, ctx->json ? &files : NULL, ctx->json);
	if (ctx->diff && !ctx->json)
		gp_render_plan_diff(&files);
	gp_pfiles_release(&files);
	rc = pl.plan.nblockers ? GP_EXIT_FAIL : pl.plan.n ? GP_EXIT_WARN : GP_EXIT_OK;
	gp_planned_release(&pl);
	return rc;
}
