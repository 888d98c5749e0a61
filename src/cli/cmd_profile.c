// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov profile validate FILE: parse and validate, file:line on error.
 * gpuprov profile discover: a profile skeleton from what this host shows.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/hostq.h"
#include "cli/cmd.h"
#include "cli/out.h"
#include "core/profile.h"
#include "host/host.h"

/* "FILE: ok: 2 GPUs, ..." or, under --json, file, valid and error; a bad one said on stderr. */
static int validate(struct gp_ctx *ctx, const char *path)
{
	struct gp_profile p;
	int rc = gp_profile_load(path, &p);

	gp_cmd_begin("profile", ctx->json);
	gp_print_str("file", rc ? NULL : "%s: ok: ", path);
	gp_print_bool("valid", NULL, !rc);
	gp_print_str("error", NULL, rc ? gp_profile_error(&p) : NULL);
	if (!rc) /* what the profile holds, for the operator: JSON's readers load it */
		gp_text("%d GPU%s, %d slot%s%s%s\n", p.count, p.count == 1 ? "" : "s", p.nslots,
			p.nslots == 1 ? "" : "s", p.has_vm ? ", vm" : "",
			p.has_bond ? ", bond" : "");
	gp_doc_end();
	if (rc) {
		gp_err("%s", gp_profile_error(&p));
		return GP_EXIT_INPUT;
	}
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

/*
 * [server] product: the DMI name as a shell pattern that matches exactly it
 * (fnmatch's specials escaped), so that check says so on another server.
 */
static void product_line(FILE *f, const char *product)
{
	char out[sizeof(((struct gp_profile *)0)->product)];
	size_t n = 0;

	for (; *product; product++) {
		bool special = strchr("*?[]\\", *product);

		if (n + special + 1 >= sizeof(out))
			break; /* with its NUL, it would not fit */
		if (special)
			out[n++] = '\\';
		out[n++] = *product;
	}
	if (*product) {
		fprintf(f, "; product: this host's DMI product name, escaped, is longer than a\n"
			   "; profile holds\n");
		return;
	}
	out[n] = '\0';
	fprintf(f, "product = %s\n", out);
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
		product_line(f, h->product);
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

/* The GPUs' one NUMA node, or -1 when they span several or the host does not say. */
static int gpus_node(const struct gp_host *h, const int *gpus, int n)
{
	int i, node = h->devs[gpus[0]].numa_node;

	for (i = 1; i < n; i++)
		if (h->devs[gpus[i]].numa_node != node)
			return -1;
	return node;
}

static int host_cpus(const struct gp_host *h)
{
	size_t i;
	int cpus = 0;

	for (i = 0; i < h->nnuma; i++)
		cpus += gp_cpulist_count(h->numa[i].cpus) > 0 ? gp_cpulist_count(h->numa[i].cpus)
							      : 0;
	return cpus;
}

/*
 * A [vm] that passes check on this host: half the CPUs of the GPUs' node (at
 * most 32), 64 GiB or what that node has free (in 1 GiB huge pages when
 * reserved), pinned to it; the clique where the host's QEMU can place it.
 */
static void discover_vm(FILE *f, const struct gp_host *h, const int *gpus, int n)
{
	int node = gpus_node(h, gpus, n), cpus;
	const struct gp_numa *nn = node >= 0 ? gp_host_numa(h, node) : NULL;
	uint64_t gib = 64, have;
	bool huge;

	cpus = nn ? gp_cpulist_count(nn->cpus) : host_cpus(h);
	huge = nn && nn->hugepages_1g_free > 0;
	have = huge ? (uint64_t)nn->hugepages_1g_free : nn ? (nn->mem_free >> 30) / 2 : 0;
	if (nn && have < gib)
		gib = have ? have : 1;
	fprintf(f,
		"\n[vm]\n; the VM that gets the GPUs: size and name are yours to choose\n"
		"name = gpu-vm\nvcpus = %d\nmemory = %lluGiB\nhugepages = %s\nnuma = %s\n",
		cpus > 1 ? (cpus / 2 < 32 ? cpus / 2 : 32) : 1, (unsigned long long)gib,
		huge ? "1GiB" : "none", nn ? "strict" : "none");
	if (h->qemu_version[0] && gp_version_cmp(h->qemu_version, "8.1") >= 0)
		fprintf(f, "gpudirect_clique = 0\n");
	else
		fprintf(f,
			"; P2P in the guest: QEMU %s may not place the clique\n"
			"; gpudirect_clique = 0\n",
			h->qemu_version[0] ? h->qemu_version : "(version unknown)");
	fprintf(f, "; template = /etc/gpuprov/domain.xml   ; your disks and networks\n"
		   "output = /var/lib/gpuprov/gpu-vm.xml\ndefine = yes\nuri = qemu:///system\n");
}

/* Drivers of NICs that do RoCE (their RDMA driver binds beside them). */
static bool roce_driver(const char *drv)
{
	static const char *const drivers[] = { "mlx5_core", "mlx4_core", "bnxt_en", "qede",
					       "ice",	    "hns3",	 NULL };
	int i;

	for (i = 0; drivers[i]; i++)
		if (!strcmp(drivers[i], drv))
			return true;
	return false;
}

/*
 * [bond] stays commented: which ports, the address and the switch's LACP
 * set-up are the operator's to say; the RoCE ports found are listed for it.
 */
static void discover_bond(FILE *f, const struct gp_host *h)
{
	char slaves[256] = "", node[16];
	size_t i, len;
	int n = 0;

	fprintf(f, "\n; RoCE-capable ports on this host (none carries the default route):\n");
	for (i = 0; i < h->nifaces; i++) {
		const struct gp_iface *x = &h->ifaces[i];
		const struct gp_dev *d = x->dev >= 0 ? &h->devs[x->dev] : NULL;

		/* a name written into the INI must be one: a renamed link could add keys */
		if (!d || !roce_driver(d->driver) || x->default_route || x->is_bond ||
		    !gp_ifname_valid(x->name))
			continue;
		snprintf(node, sizeof(node), "%d", d->numa_node);
		fprintf(f, ";   %s  %s  NUMA node %s  %s  %ld Mb/s\n", gp_tv(x->name), x->bdf,
			d->numa_node >= 0 ? node : "unknown", d->driver, x->speed);
		len = strlen(slaves);
		if (n++ < 2)
			snprintf(slaves + len, sizeof(slaves) - len, "%s%s", len ? " " : "",
				 x->name);
	}
	if (!n) {
		fprintf(f, ";   none found (mlx5_core, mlx4_core, bnxt_en, qede, ice, hns3)\n");
		return;
	}
	fprintf(f,
		"; [bond]\n; name = bond0\n; slaves = %s\n; mode = 802.3ad\n"
		"; lacp_rate = fast\n; xmit_hash_policy = layer3+4\n; mtu = 9000\n"
		"; address = 192.0.2.10/24   ; yours\n; persist = auto\n",
		slaves);
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
	gp_host_qemu_binary(&h); /* the [vm] it writes depends on it */
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
	discover_vm(f, &h, gpus, n);
	discover_bond(f, &h);
	fclose(f);
	gp_host_release(&h);
	rc = gp_ctx_output_new(ctx, text, len, 0644);
	free(text);
	return rc;
}

static int do_profile(struct gp_ctx *ctx)
{
	if (ctx->argc == 2 && !strcmp(ctx->argv[0], "validate"))
		return validate(ctx, ctx->argv[1]);
	if (ctx->argc == 1 && !strcmp(ctx->argv[0], "discover"))
		return discover(ctx);
	gp_err("usage: gpuprov profile validate FILE | gpuprov profile discover");
	return GP_EXIT_INPUT;
}

const struct gp_cmd gp_cmd_profile = {
	.name = "profile",
	.run = do_profile,
	.opts = { GP_OPT_OUTPUT, GP_OPT_FORCE },
	.args = "validate FILE | discover",
	.help = "validate FILE | discover",
};
