// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov profile validate FILE: parse and validate, file:line on error.
 * gpuprov profile discover: a profile skeleton from what this host shows.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/render.h"

static int validate(struct gp_ctx *ctx, const char *path)
{
	struct gp_profile p;
	int rc = gp_profile_load(path, &p);

	if (ctx->json) {
		json_object *doc = gp_json_doc("profile");

		json_object_object_add(doc, "file", json_object_new_string(path));
		json_object_object_add(doc, "valid", json_object_new_boolean(!rc));
		json_object_object_add(doc, "error",
				       rc ? json_object_new_string(gp_profile_error()) : NULL);
		gp_json_print(doc);
	}
	if (rc) {
		gp_err("%s", gp_profile_error());
		return GP_EXIT_INPUT;
	}
	if (!ctx->json)
		printf("%s: ok: %d GPU%s, %d slot%s%s%s\n", gp_tv(path), p.count,
		       p.count == 1 ? "" : "s", p.nslots, p.nslots == 1 ? "" : "s",
		       p.has_vm ? ", vm" : "", p.has_bond ? ", bond" : "");
	return GP_EXIT_OK;
}

static void slot_name(const struct gp_dev *d, int i, char *buf, size_t len)
{
	const char *c;

	for (c = d->slot; *c && (isalnum((unsigned char)*c) || *c == '-' || *c == '_'); c++)
		;
	if (d->slot[0] && !*c)
		snprintf(buf, len, "%s", d->slot);
	else
		snprintf(buf, len, "gpu%d", i);
}

/*
 * Whether a DMI string reads back from a profile as exactly itself.  inih ends
 * a value at the line's end, trims blanks at both ends and takes ';' (and '#'
 * in some builds) for a comment, and a profile has no escapes: printable ASCII
 * without those, or nothing.  A key that said less than the machine, or one
 * that opened a section of its own, would be worse than none.
 */
static bool ini_value_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || s[0] == ' ' || s[n - 1] == ' ')
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == ';' || s[i] == '#')
			return false;
	return true;
}

static void discover_server(FILE *f, const struct gp_host *h)
{
	fprintf(f, "; written by 'gpuprov profile discover': check every value, then set\n"
		   "; verified = yes once the slot map is confirmed on this hardware\n\n"
		   "[server]\n");
	if (!h->product[0]) {
		fprintf(f, "model = unknown\n");
	} else if (ini_value_ok(h->product)) {
		fprintf(f, "model = %s\n", h->product);
	} else {
		gp_warn("the DMI product name cannot be written into a profile as it is: "
			"[server] model left out");
		fprintf(f, "; model: this host's DMI product name cannot be written here as it\n"
			   "; is (control characters, ';', '#' or blanks at its ends)\n");
	}
	fprintf(f, "verified = no\n");
}

static void discover_print(FILE *f, const struct gp_host *h, const int *gpus, int n)
{
	char ids[GP_MAX_MATCH][10], names[GP_MAX_MATCH][GP_NAME_LEN];
	int i, j, nids = 0, rp;

	discover_server(f, h);
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[gpus[i]];

		rp = d->parent;
		slot_name(d, i, names[i], sizeof(names[i]));
		/* on a root bus (a VM, an integrated GPU) no bridge is above the slot */
		if (rp >= 0 || d->parent_bdf[0])
			fprintf(f, "\n[slot.%s]\nroot_port = %s\n", names[i],
				rp >= 0 ? h->devs[rp].bdf : d->parent_bdf);
		else
			fprintf(f, "\n[slot.%s]\naddress = %s\n", names[i], d->bdf);
		if (d->numa_node >= 0)
			fprintf(f, "numa_node = %d\n", d->numa_node);
		fprintf(f, "cpu_direct = %s\n",
			(rp < 0 && !d->parent_bdf[0]) ||
					(rp >= 0 && h->devs[rp].pcie_type == GP_PCIE_ROOT_PORT)
				? "yes"
				: "no");
		snprintf(ids[nids], sizeof(ids[0]), "%04x:%04x", d->vendor, d->device);
		for (j = 0; j < nids && strcmp(ids[j], ids[nids]); j++)
			;
		if (j == nids) /* at most one ID per GPU: n <= GP_MAX_MATCH */
			nids++;
	}
	fprintf(f, "\n[gpus]\nmatch =");
	for (i = 0; i < nids; i++)
		fprintf(f, " %s", ids[i]);
	fprintf(f, "\ncount = %d\nslots =", n);
	for (i = 0; i < n; i++)
		fprintf(f, " %s", names[i]);
	fprintf(f, "\nsame_numa_node = yes\np2p = required\ncompanions = refuse\n");
}

static int discover(struct gp_ctx *ctx)
{
	struct gp_host h;
	int gpus[GP_MAX_MATCH], n, rc;
	size_t i, len;
	FILE *f;
	char *text;

	rc = gp_ctx_host(ctx, &h);
	if (rc)
		return rc;
	for (n = 0, i = 0; i < h.ndevs; i++) {
		if (h.devs[i].role != GP_ROLE_GPU) /* no profile: gp_dev_is_gpu() */
			continue;
		if (n == GP_MAX_MATCH) {
			/* a profile holds at most 16 (count, match): refuse, never cut */
			gp_err("more than %d GPUs under '%s': a profile holds at most %d; write "
			       "one by hand for the GPUs one VM gets",
			       GP_MAX_MATCH, ctx->root, GP_MAX_MATCH);
			gp_host_release(&h);
			return GP_EXIT_FAIL;
		}
		gpus[n++] = (int)i;
	}
	if (!n) {
		gp_err("no GPUs (3D controllers, NVIDIA, AMD or Intel display controllers) under "
		       "'%s'",
		       ctx->root);
		gp_host_release(&h);
		return GP_EXIT_FAIL;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		gp_host_release(&h);
		return GP_EXIT_HOST;
	}
	discover_print(f, &h, gpus, n);
	fclose(f);
	gp_host_release(&h);
	rc = gp_ctx_output(ctx, text, len);
	free(text);
	return rc;
}

int gp_cmd_profile(struct gp_ctx *ctx)
{
	if (ctx->argc == 2 && !strcmp(ctx->argv[0], "validate"))
		return validate(ctx, ctx->argv[1]);
	if (ctx->argc == 1 && !strcmp(ctx->argv[0], "discover"))
		return discover(ctx);
	gp_err("usage: gpuprov profile validate FILE | gpuprov profile discover");
	return GP_EXIT_INPUT;
}
