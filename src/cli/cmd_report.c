// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov report: the maintenance-window dossier.  The same model check,
 * topo and plan compute (gp_ctx_plan), written once more: Markdown to
 * standard output or FILE.md, self-contained HTML to FILE.html.  Reads
 * nothing they do not, the profile's bytes aside (for its digest).
 * Exit status as plan's: 0 nothing to do, 1 changes pending, 2 no-go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>

#include "cli/cmd.h"
#include "cli/cmd_scan.h"
#include "cli/out.h"
#include "cli/report.h"
#include "host/host.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* 1 HTML, 0 Markdown, -1 a name that says neither. */
static int format_of(const char *output)
{
	if (!output || !strcmp(output, "-"))
		return 0;
	if (ends_with(output, ".html") || ends_with(output, ".htm"))
		return 1;
	if (ends_with(output, ".md") || ends_with(output, ".markdown"))
		return 0;
	return -1;
}

/* UTC; SOURCE_DATE_EPOCH (reproducible documents) when it holds a number. */
static void report_date(char *buf, size_t len)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	unsigned long v;
	time_t t = time(NULL);
	struct tm tm;

	if (env && !gp_parse_uint(env, 253402300799ul, &v))
		t = (time_t)v;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void digests(const struct gp_ctx *ctx, const struct gp_host *h, struct gp_dossier *d)
{
	char *profile = gp_read_file(ctx->opt[GP_OPT_PROFILE]), *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	/* what was read of the host: the bytes scan --json prints for it */
	if (f) {
		gp_scan_doc(f, h);
		fclose(f);
		gp_sha256_hex(text, len, d->model_sha);
	} else {
		snprintf(d->model_sha, sizeof(d->model_sha), "unavailable");
	}
	free(text);
	if (profile)
		gp_sha256_hex(profile, strlen(profile), d->profile_sha);
	else
		snprintf(d->profile_sha, sizeof(d->profile_sha), "unreadable");
	free(profile);
}

/* The GPUs' and NICs' names as people know them (libpci's pci.ids). */
static char (*names_of(const struct gp_host *h))[GP_NAME_LEN]
{
	char(*names)[GP_NAME_LEN] = gp_xcalloc(h->ndevs + 1, sizeof(*names));
	char(*found)[GP_NAME_LEN] = gp_xcalloc(h->ndevs + 1, sizeof(*found));
	int *devs = gp_xcalloc(h->ndevs + 1, sizeof(*devs)), n = 0, i;
	size_t k;

	for (k = 0; k < h->ndevs; k++)
		if (h->devs[k].role == GP_ROLE_GPU || h->devs[k].role == GP_ROLE_NIC)
			devs[n++] = (int)k;
	gp_pci_names(h, devs, n, found);
	for (i = 0; i < n; i++)
		memcpy(names[devs[i]], found[i], sizeof(found[i]));
	free(found);
	free(devs);
	return names;
}

/* What apply waits for a device to be let go: its GPUPROV_UNBIND_TIMEOUT, 10 s. */
static unsigned unbind_timeout(void)
{
	const char *s = getenv("GPUPROV_UNBIND_TIMEOUT");
	unsigned long v;

	return s && !gp_parse_uint(s, 3600, &v) ? (unsigned)v : 10;
}

static char *render(const struct gp_dossier *d, bool html, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort(); /* no memory, as gp_xcalloc */
	if (html)
		gp_report_html(f, d);
	else
		gp_report_md(f, d);
	fclose(f);
	return text;
}

static int do_report(struct gp_ctx *ctx)
{
	int html = format_of(ctx->opt[GP_OPT_OUTPUT]), rc;
	struct gp_pfiles files;
	struct gp_dossier d;
	struct gp_planned pl;
	char *text;
	size_t len;

	if (html < 0) {
		gp_err("report: cannot tell the format of '%s': name it FILE.html or FILE.md",
		       ctx->opt[GP_OPT_OUTPUT]);
		return GP_EXIT_INPUT;
	}
	rc = gp_ctx_plan(ctx, &pl);
	if (rc)
		return rc;
	memset(&d, 0, sizeof(d));
	gp_pfiles_build(&pl.h, ctx->profile, pl.templates, pl.vm.xml ? &pl.vm : NULL, &pl.plan,
			&files);
	d.h = &pl.h;
	d.p = ctx->profile;
	d.r = &pl.r;
	d.plan = &pl.plan;
	d.vm = pl.vm.xml ? &pl.vm : NULL;
	d.files = &files;
	d.root = strcmp(ctx->root, "/") ? ctx->root : NULL;
	d.version = gp_version;
	if (ctx->profile->has_vm)
		gp_vm_layout(&pl.h, ctx->profile, &d.layout);
	gp_map_build(&pl.h, ctx->profile, &d.map);
	digests(ctx, &pl.h, &d);
	d.change_id = ctx->opt[GP_OPT_CHANGE_ID];
	d.owner = ctx->opt[GP_OPT_OWNER];
	d.approver = ctx->opt[GP_OPT_APPROVER];
	d.profile_path = ctx->opt[GP_OPT_PROFILE];
	d.names = names_of(&pl.h);
	d.unbind_timeout = unbind_timeout();
	report_date(d.date, sizeof(d.date));
	text = render(&d, html, &len);
	rc = gp_ctx_output(ctx, text, len, 0644);
	if (!rc)
		rc = pl.plan.nblockers || gp_report_count(&pl.r, GP_FAIL) ? GP_EXIT_FAIL
		     : pl.plan.n					  ? GP_EXIT_WARN
									  : GP_EXIT_OK;
	free(text);
	free(d.names);
	gp_map_release(&d.map);
	gp_pfiles_release(&files);
	gp_planned_release(&pl);
	return rc;
}

const struct gp_cmd gp_cmd_report = {
	.name = "report",
	.run = do_report,
	.flags = GP_NEED_PROFILE | GP_NO_ARGS,
	.opts = { GP_OPT_OUTPUT, GP_OPT_CHANGE_ID, GP_OPT_OWNER, GP_OPT_APPROVER },
	.help = "the maintenance-window dossier: Markdown, or HTML (-o FILE.html)",
};
