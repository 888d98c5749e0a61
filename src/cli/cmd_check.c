// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov check: findings; exit 0 all ok, 1 warnings only, 2 a failure.
 * With --baseline, the drift.* findings against a snapshot taken when the
 * host was verified come after the profile's own.
 */
#include <stdio.h>

#include "cli/cmd.h"
#include "cli/out.h"
#include "core/drift.h"
#include "host/host.h"
#include "shared/progress.h"

static void check_json(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_report *r)
{
	size_t i;

	gp_doc_begin(NULL, "check");
	gp_doc_host(h, p);
	/* verified = no, for automation as the header says it: null without a slot map */
	if (p->nslots)
		gp_print_bool("slot_map_verified", NULL, p->verified);
	else
		gp_print_null("slot_map_verified");
	gp_open_array("findings");
	for (i = 0; i < r->n; i++) {
		const struct gp_finding *f = &r->items[i];

		gp_open_object(NULL);
		gp_print_str("id", NULL, f->id);
		gp_print_str("severity", NULL, gp_severity_name(f->severity));
		gp_print_str("subject", NULL, f->subject);
		gp_print_str("message", NULL, f->message);
		gp_print_str("hint", NULL, f->hint);
		gp_close_object();
	}
	gp_close_array();
	gp_open_object("summary");
	gp_print_int("ok", NULL, gp_report_count(r, GP_OK));
	gp_print_int("warn", NULL, gp_report_count(r, GP_WARN));
	gp_print_int("fail", NULL, gp_report_count(r, GP_FAIL));
	gp_close_object();
	gp_doc_end();
}

/*
 * One finding: severity, id and subject, the message wrapped under them,
 * the hint under it with its text aligned after "hint: ".  The subject
 * column is as wide as a PCI address; a longer subject (a GPU pair, a path)
 * pushes the message on rather than the column for all.
 */
static void finding_text(const struct gp_finding *f, bool hint)
{
	static const char *const label[] = { "ok", "WARN", "FAIL" };
	static const enum gp_tone tone[] = { GP_TONE_OK, GP_TONE_WARN, GP_TONE_FAIL };

	gp_fprintf_tone(stdout, tone[f->severity], "%-4s", label[f->severity]);
	gp_wrapf(4, 6, "  %-18s %-12s  %s", f->id, gp_tv(f->subject), gp_tv(f->message));
	if (hint && f->hint[0]) {
		printf("%6s", "");
		gp_wrapf(6, 12, "hint: %s", gp_tv(f->hint));
	}
}

/* -q: the failures and warnings alone, a line each without its hint; nothing when all is ok. */
static void check_quiet(const struct gp_report *r)
{
	static const enum gp_severity order[] = { GP_FAIL, GP_WARN };
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(order); k++)
		for (i = 0; i < r->n; i++)
			if (r->items[i].severity == order[k])
				finding_text(&r->items[i], false);
}

/*
 * What needs the reader first: failures, then warnings, then how many
 * passed (each ok finding only with -v); JSON keeps the checks' order.
 */
static void check_out(const struct gp_host *h, const struct gp_profile *p,
		      const struct gp_report *r, bool json, bool list_ok)
{
	static const enum gp_severity order[] = { GP_FAIL, GP_WARN, GP_OK };
	int nok = gp_report_count(r, GP_OK);
	size_t i, k;

	if (json) {
		check_json(h, p, r);
		return;
	}
	if (!gp_verbosity) {
		check_quiet(r);
		return;
	}
	gp_wrapf(0, 2, "check against %s%s%s%s", gp_tv(p->path), p->model[0] ? " (" : "",
		 p->model[0] ? gp_tv(p->model) : "", p->model[0] ? ")" : "");
	gp_host_line(h, p);
	printf("\n");
	for (k = 0; k < ARRAY_SIZE(order); k++)
		for (i = 0; i < r->n; i++)
			if (r->items[i].severity == order[k] && (order[k] != GP_OK || list_ok))
				finding_text(&r->items[i], true);
	if (gp_report_count(r, GP_FAIL) || gp_report_count(r, GP_WARN) || (list_ok && nok))
		printf("\n");
	printf("%d fail, %d warn, %d ok%s\n", gp_report_count(r, GP_FAIL),
	       gp_report_count(r, GP_WARN), nok,
	       nok && !list_ok ? " (-v lists the ok findings)" : "");
}

/* The baseline is the operator's input: one that cannot be read is exit 4. */
static int drift(struct gp_ctx *ctx, const struct gp_host *h, struct gp_report *r)
{
	struct gp_host base;

	if (gp_host_load(ctx->opt[GP_OPT_BASELINE], ctx->profile, &base)) {
		gp_err("cannot read the baseline '%s' (a snapshot unpacked with tar xzf)",
		       ctx->opt[GP_OPT_BASELINE]);
		return GP_EXIT_INPUT;
	}
	gp_drift_run(&base, h, ctx->profile, r);
	gp_host_release(&base);
	return 0;
}

static int do_check(struct gp_ctx *ctx)
{
	struct gp_report r = { 0 };
	struct gp_host h;
	int rc;

	rc = gp_ctx_host_owned(ctx, &h);
	if (rc)
		return rc;
	rc = gp_ctx_vm_files(ctx, &h);
	if (rc) {
		gp_host_release(&h);
		return rc;
	}
	gp_checks_run(&h, ctx->profile, &r);
	gp_ctx_trust_finding(ctx, &r);
	rc = ctx->opt[GP_OPT_BASELINE] ? drift(ctx, &h, &r) : 0;
	if (rc) {
		gp_report_release(&r);
		gp_host_release(&h);
		return rc;
	}
	check_out(&h, ctx->profile, &r, ctx->json, gp_verbosity >= 2);
	rc = gp_report_count(&r, GP_FAIL)   ? GP_EXIT_FAIL
	     : gp_report_count(&r, GP_WARN) ? GP_EXIT_WARN
					    : GP_EXIT_OK;
	gp_report_release(&r);
	gp_host_release(&h);
	return rc;
}

const struct gp_cmd gp_cmd_check = {
	.name = "check",
	.run = do_check,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_BASELINE },
	.help = "preflight of the host against the profile",
};
