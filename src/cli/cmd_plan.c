// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov plan: the steps apply would take.  Exit 0 when the host is as the
 * profile wants, 1 when changes are pending, 2 when a failed check not
 * accepted by name (--accept) blocks them (apply would refuse).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/cmd_plan.h"
#include "cli/out.h"
#include "core/pfiles.h"
#include "core/steps.h"
#include "shared/codec.h"
#include "shared/rootfs.h"

/* ---- plan --json ---- */

/* A digest of text, null for none */
static void print_sha(const char *key, const char *text)
{
	char sha[65];

	if (!text) {
		gp_print_null(key);
		return;
	}
	gp_sha256_hex(text, strlen(text), sha);
	gp_print_str(key, NULL, sha);
}

/* One file a persist step writes: its new content, or only digests for a secret. */
static void pfile_json(const struct gp_pfile *f)
{
	char *diff = f->secret ? NULL : gp_pfile_diff(f);
	char mode[8];

	/* "0644": a file mode as chmod and Ansible write it */
	snprintf(mode, sizeof(mode), "%04o", f->mode & 07777);
	gp_open_object(NULL);
	gp_print_str("path", NULL, f->path);
	gp_print_str("step", NULL, f->step);
	gp_print_str("mode", NULL, mode);
	gp_print_bool("secret", NULL, f->secret);
	gp_print_bool("link", NULL, f->link);
	gp_print_str("content", NULL, f->secret ? NULL : f->text);
	print_sha("sha256", f->text);
	gp_print_bool("exists", NULL, f->now != NULL);
	print_sha("current_sha256", f->now);
	gp_print_str("current_error", NULL, f->now_err ? gp_root_strerror(f->now_err) : NULL);
	gp_print_bool("changed", NULL, !f->now || strcmp(f->now, f->text));
	gp_print_str("diff", NULL, diff);
	gp_close_object();
	free(diff);
}

static void plan_json(const struct gp_host *h, const struct gp_profile *p,
		      const struct gp_plan *plan, const struct gp_pfiles *pf)
{
	char buf[256], *items[32];
	size_t i;
	int k, n;

	gp_doc_begin(NULL, "plan");
	gp_doc_host(h, p);
	gp_open_array("steps");
	for (i = 0; i < plan->n; i++)
		gp_print_tree(NULL, gp_step_json(&plan->steps[i]));
	gp_close_array();
	gp_print_int("changes", NULL, (int)plan->n);
	gp_open_array("blocked");
	for (k = 0; k < plan->nblockers; k++)
		gp_print_str(NULL, NULL, plan->blockers[k]);
	gp_close_array();
	gp_open_array("accepted");
	for (k = 0; k < plan->naccepted; k++)
		gp_print_str(NULL, NULL, plan->accepted[k]);
	gp_close_array();
	/* the blocking ids --accept would let through, as a list for automation */
	gp_strlcpy(buf, plan->acceptable, sizeof(buf));
	n = gp_split_list(buf, items, 32);
	gp_open_array("acceptable");
	for (k = 0; k < n; k++)
		gp_print_str(NULL, NULL, items[k]);
	gp_close_array();
	gp_print_str_or_null("note", NULL, plan->note);
	if (pf) {
		gp_open_array("files");
		for (i = 0; i < pf->n; i++)
			pfile_json(&pf->f[i]);
		gp_close_array();
	}
	gp_doc_end();
}

/* ---- text ---- */

/* A link: its target, and the one there now where it differs. */
static void plink_text(const struct gp_pfile *f)
{
	printf("\n%s %s (a link to %s)", f->step, gp_tv(f->path), gp_tv(f->text));
	if (f->now_err)
		printf(": cannot read the current link: %s; made again\n",
		       gp_root_strerror(f->now_err));
	else if (!f->now)
		printf(": new\n");
	else if (!strcmp(f->now, f->text))
		printf(": unchanged\n");
	else
		printf(": changed, now a link to %s\n", gp_tv(f->now));
}

/* plan --diff: each file as diff -u would show it against the host's copy. */
static void pfile_text(const struct gp_pfile *f)
{
	char now[65], after[65], *diff;

	if (f->link) {
		plink_text(f);
		return;
	}
	printf("\n%s %s (mode %04o)", f->step, gp_tv(f->path), f->mode & 07777);
	if (f->now_err) {
		printf(": cannot read the current file: %s; written whole\n",
		       gp_root_strerror(f->now_err));
	} else if (f->now && !strcmp(f->now, f->text)) {
		printf(": unchanged\n");
		return;
	} else {
		printf(": %s\n", f->now ? "changed" : "new");
	}
	if (f->secret) {
		gp_sha256_hex(f->text, strlen(f->text), after);
		if (f->now)
			gp_sha256_hex(f->now, strlen(f->now), now);
		printf("  holds a secret (or is readable by root alone): not shown\n"
		       "  sha256 now %s\n  sha256 after %s\n",
		       f->now ? now : "(absent)", after);
		return;
	}
	diff = gp_pfile_diff(f);
	if (diff)
		fputs(diff, stdout);
	free(diff);
}

void gp_plan_diff_out(const struct gp_pfiles *pf)
{
	size_t i;

	if (!pf->n)
		printf("\nno file to write\n");
	for (i = 0; i < pf->n; i++)
		pfile_text(&pf->f[i]);
}

void gp_plan_out(const struct gp_host *h, const struct gp_profile *p, const struct gp_plan *plan,
		 const struct gp_pfiles *pf, bool json)
{
	size_t i;
	int k, kw = gp_step_name_width(); /* the kind column: as wide as the longest kind */

	if (json) {
		plan_json(h, p, plan, pf);
		return;
	}
	gp_wrapf(0, 2, "plan for %s: %zu change%s", gp_tv(p->path), plan->n,
		 plan->n == 1 ? "" : "s");
	gp_host_line(h, NULL);
	if (plan->n)
		printf("\n");
	for (i = 0; i < plan->n; i++) {
		const struct gp_step *st = &plan->steps[i];

		/* a long target goes on under the states (number, kind, subject), clear of them */
		gp_wrapf(0, 20 + kw, "%3zu  %-*s %-13s %s -> %s", i + 1, kw, gp_step_name(st->kind),
			 gp_tv(st->subject), gp_tv(st->current), gp_tv(st->target));
	}
	if (plan->note[0]) {
		putchar('\n');
		gp_wrapf(0, 6, "note: %s", gp_tv(plan->note));
	}
	if (plan->naccepted)
		printf("\naccepted: apply goes ahead despite these failed checks:\n");
	for (k = 0; k < plan->naccepted; k++)
		gp_wrapf(0, 6, "  %s", gp_tv(plan->accepted[k]));
	if (!plan->nblockers)
		return;
	printf("\nblocked: apply refuses while these checks fail:\n");
	for (k = 0; k < plan->nblockers; k++)
		gp_wrapf(0, 6, "  %s", gp_tv(plan->blockers[k]));
	if (plan->acceptable[0])
		printf("fix them and run check again, or, once reviewed, go ahead despite them:\n"
		       "  --accept %s\n",
		       gp_tv(plan->acceptable));
}

static int do_plan(struct gp_ctx *ctx)
{
	struct gp_pfiles files = { 0 };
	struct gp_planned pl;
	int rc = gp_ctx_plan(ctx, &pl);

	if (rc)
		return rc;
	/* the files the steps write, for --diff and for JSON (Ansible's diff mode) */
	if (ctx->opt[GP_OPT_DIFF] || ctx->json)
		gp_pfiles_build(&pl.h, ctx->profile, pl.templates, pl.vm.xml ? &pl.vm : NULL,
				&pl.plan, &files);
	gp_plan_out(&pl.h, ctx->profile, &pl.plan, ctx->json ? &files : NULL, ctx->json);
	if (ctx->opt[GP_OPT_DIFF] && !ctx->json)
		gp_plan_diff_out(&files);
	gp_pfiles_release(&files);
	rc = pl.plan.nblockers ? GP_EXIT_FAIL : pl.plan.n ? GP_EXIT_WARN : GP_EXIT_OK;
	gp_planned_release(&pl);
	return rc;
}

const struct gp_cmd gp_cmd_plan = {
	.name = "plan",
	.run = do_plan,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_ONLY, GP_OPT_FORCE_MGMT, GP_OPT_DIFF, GP_OPT_ACCEPT },
	.help = "dry run: the steps apply would take, with current and target state",
};
