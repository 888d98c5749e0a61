// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov scan: what the host has, GPUs and NICs first; with --json
 * everything read of its devices, groups, nodes and interfaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/cmd_scan.h"
#include "cli/out.h"
#include "core/hostq.h"
#include "core/nvlink.h"
#include "host/host.h"

/* ---- text ---- */

/* Where a GPU's links go, each far end once with its count: "18 to 0000:00:07.0". */
static void nv_ends(const struct gp_nv_gpu *g, char *buf, size_t len)
{
	const char *ends[GP_NV_MAX_LINKS];
	int count[GP_NV_MAX_LINKS], n = 0, l, k;
	size_t o = strlen(buf);

	for (l = 0; l < g->nlinks; l++) {
		const struct gp_nv_link *x = &g->links[l];
		const char *to = x->remote_type == GP_NV_REMOTE_SWITCH ? "NVSwitch"
				 : x->remote[0]			       ? x->remote
								       : "?";

		if (!x->up)
			continue;
		for (k = 0; k < n && strcmp(ends[k], to); k++)
			;
		if (k == n) {
			ends[n] = to;
			count[n++] = 0;
		}
		count[k]++;
	}
	for (k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s %d to %s", k ? "," : ":", count[k],
				      gp_tv(ends[k]));
}

/* One line per GPU: its links up, and where they go. */
static void nv_text(const struct gp_nv_view *v)
{
	char line[1024];
	int i;

	if (v->source == GP_NV_NONE) {
		printf("\n");
		gp_wrapf(0, 2, "NVLink not readable: %s", gp_tv(v->why));
		return;
	}
	if (v->source == GP_NV_NVML)
		printf("\nNVLink (NVML now):\n");
	else {
		printf("\n");
		gp_wrapf(0, 2, "NVLink (remembered from %s):", gp_tv(v->seen_at));
	}
	for (i = 0; i < v->n; i++) {
		const struct gp_nv_gpu *g = &v->gpus[i];
		size_t o;

		o = (size_t)snprintf(line, sizeof(line), "  %s  %d of %d links up", gp_tv(g->bdf),
				     gp_nv_links_up(g), g->nlinks);
		if (gp_nv_link_rate(g) > 0 && o < sizeof(line))
			snprintf(line + o, sizeof(line) - o, ", %.3f GB/s each",
				 gp_nv_link_rate(g));
		nv_ends(g, line, sizeof(line));
		gp_wrap(line, 0, 16);
	}
}

/* "100 Gb/s", "2.5 Gb/s", "100 Mb/s": an interface speed (Mb/s) in a unit that fits */
static void speed_text(long mbps, char *buf, size_t len)
{
	if (mbps <= 0)
		snprintf(buf, len, "-");
	else if (mbps >= 1000)
		snprintf(buf, len, "%g Gb/s", (double)mbps / 1000);
	else
		snprintf(buf, len, "%ld Mb/s", mbps);
}

/* "BAR1 128 GiB 64-bit pf": one BAR as the BARS list shows it */
/* "BAR1 128 GiB 64-bit pf": into buf (room for 96), its length */
static size_t bar_text(const struct gp_bar *b, char *buf)
{
	char size[32];
	size_t n = 3;

	gp_format_size(b->size, size, sizeof(size));
	memcpy(buf, "BAR", 3);
	n += gp_fmt_long(buf + n, b->index);
	buf[n++] = ' ';
	n += gp_strlcpy(buf + n, size, sizeof(size));
	buf[n++] = ' ';
	n += gp_strlcpy(buf + n, b->io ? "io" : b->is64 ? "64-bit" : "32-bit", 8);
	if (!b->io && b->prefetchable)
		n += gp_strlcpy(buf + n, " pf", 4);
	if (b->unset)
		n += gp_strlcpy(buf + n, " unassigned", 12);
	return n;
}

/*
 * A device's BARs on one line, wrapped between BARs (never inside one) under
 * the first: "0000:41:00.0  BAR0 16 MiB 32-bit, BAR1 128 GiB 64-bit pf".
 */
static void bars_row(const struct gp_dev *d)
{
	int width = gp_text_width(), col, i, n;
	char bar[96];
	struct gp_obuf o;

	o.f = NULL;
	o.n = 0;
	gp_ob_str(&o, d->bdf); /* "%-12s " */
	col = (int)strlen(d->bdf);
	gp_ob_blanks(&o, 12 - col);
	gp_ob_char(&o, ' ');
	col = (col > 12 ? col : 12) + 1;
	if (d->bars_bad) {
		gp_ob_str(&o, " unreadable\n");
		gp_ob_flush(&o);
		return;
	}
	for (i = 0; i < d->nbars; i++) {
		n = (int)bar_text(&d->bars[i], bar) + (i + 1 < d->nbars ? 1 : 0);
		if (i && col + 1 + n > width) {
			gp_ob_char(&o, '\n');
			gp_ob_blanks(&o, 13);
			col = 13;
		}
		gp_ob_char(&o, ' ');
		gp_ob_str(&o, bar);
		if (i + 1 < d->nbars)
			gp_ob_char(&o, ',');
		col += 1 + n;
	}
	gp_ob_char(&o, '\n');
	gp_ob_flush(&o);
}

enum {
	SC_DEV,
	SC_ROLE,
	SC_ID,
	SC_CLASS,
	SC_DRIVER,
	SC_NUMA,
	SC_GROUP,
	SC_LINK,
	SC_SLOT,
	SC_N
};

static void cell_int_or_dash(struct gp_rows *t, int c, int v)
{
	if (v >= 0)
		gp_fmt_long(t->cell[c], v);
	else
		gp_cell(t, c, "-");
}

/* One row of scan's device table, each cell as printed (escaped). */
static void dev_cells(const struct gp_dev *d, struct gp_rows *t)
{
	size_t n;

	gp_cell(t, SC_DEV, d->bdf);
	gp_cell(t, SC_ROLE, gp_role_name(d->role));
	n = gp_fmt_hex4(t->cell[SC_ID], d->vendor);
	t->cell[SC_ID][n++] = ':';
	gp_fmt_hex4(t->cell[SC_ID] + n, d->device);
	gp_fmt_hex4(t->cell[SC_CLASS], d->class);
	gp_cell(t, SC_DRIVER, d->driver[0] ? gp_tv(d->driver) : "-");
	cell_int_or_dash(t, SC_NUMA, d->numa_node);
	cell_int_or_dash(t, SC_GROUP, d->iommu_group);
	gp_link_cell(&d->link, t->cell[SC_LINK], GP_CELL);
	gp_cell(t, SC_SLOT, d->slot[0] ? gp_tv(d->slot) : "-");
}

static const enum gp_role scan_order[] = { GP_ROLE_GPU, GP_ROLE_NIC, GP_ROLE_BRIDGE,
					   GP_ROLE_OTHER };

/* GPUs first, then NICs, bridges, the rest: each column as wide as its widest cell. */
static void scan_devices(const struct gp_host *h)
{
	static const char *const head[SC_N] = { "DEVICE", "ROLE",  "ID",   "CLASS", "DRIVER",
						"NUMA",	  "GROUP", "LINK", "SLOT" };
	struct gp_rows t;
	size_t i, k;

	gp_rows_init(&t, SC_N, head);
	for (i = 0; i < h->ndevs; i++) {
		dev_cells(&h->devs[i], &t);
		gp_rows_widen(&t);
	}
	gp_rows_head(&t);
	gp_rows_print(&t);
	for (k = 0; k < ARRAY_SIZE(scan_order); k++)
		for (i = 0; i < h->ndevs; i++)
			if (h->devs[i].role == scan_order[k]) {
				dev_cells(&h->devs[i], &t);
				gp_rows_print(&t);
			}
}

static void scan_bars(const struct gp_host *h)
{
	size_t i, k;

	printf("\nBARS (pf: prefetchable)\n");
	for (k = 0; k < ARRAY_SIZE(scan_order); k++)
		for (i = 0; i < h->ndevs; i++)
			if (h->devs[i].role == scan_order[k] &&
			    (h->devs[i].nbars || h->devs[i].bars_bad))
				bars_row(&h->devs[i]);
}

static void numa_cells(const struct gp_numa *nn, struct gp_rows *t)
{
	gp_fmt_long(t->cell[0], nn->id);
	gp_cell(t, 1, gp_tv(nn->cpus));
	gp_format_size(nn->mem_total, t->cell[2], GP_CELL);
}

static void scan_numa(const struct gp_host *h)
{
	static const char *const head[3] = { "NODE", "CPUS", "MEMORY" };
	struct gp_rows t;
	size_t i;

	gp_rows_init(&t, 3, head);
	for (i = 0; i < h->nnuma; i++) {
		numa_cells(&h->numa[i], &t);
		gp_rows_widen(&t);
	}
	gp_rows_head(&t);
	gp_rows_print(&t);
	for (i = 0; i < h->nnuma; i++) {
		numa_cells(&h->numa[i], &t);
		gp_rows_print(&t);
	}
}

static void iface_cells(const struct gp_iface *f, struct gp_rows *t)
{
	gp_cell(t, 0, gp_tv(f->name));
	gp_cell(t, 1, f->bdf[0] ? gp_tv(f->bdf) : "-");
	gp_cell(t, 2, f->mac[0] ? gp_tv(f->mac) : "-");
	speed_text(f->speed, t->cell[3], GP_CELL);
	gp_cell(t, 4, f->operstate[0] ? gp_tv(f->operstate) : "-");
	gp_cell(t, 5, f->master[0] ? gp_tv(f->master) : (f->is_bond ? "(bond)" : "-"));
}

static void scan_ifaces(const struct gp_host *h)
{
	static const char *const head[6] = { "INTERFACE", "DEVICE", "MAC",
					     "SPEED",	  "STATE",  "MASTER" };
	struct gp_rows t;
	size_t i;

	gp_rows_init(&t, 6, head);
	for (i = 0; i < h->nifaces; i++) {
		iface_cells(&h->ifaces[i], &t);
		gp_rows_widen(&t);
	}
	gp_rows_head(&t);
	printf("\n");
	gp_rows_print(&t);
	for (i = 0; i < h->nifaces; i++) {
		iface_cells(&h->ifaces[i], &t);
		gp_rows_print(&t);
	}
}

static void scan_text(const struct gp_host *h, const struct gp_profile *p)
{
	gp_host_header(h, p);
	gp_wrapf(0, 2, "IOMMU groups %d, BIOS %s, CPU %d-bit physical addresses", h->iommu_groups,
		 h->bios_version[0] ? gp_tv(h->bios_version) : "unknown", h->phys_bits);
	printf("\n");
	scan_devices(h);
	scan_bars(h);
	if (h->nnuma) {
		printf("\n");
		scan_numa(h);
	}
	if (h->nifaces)
		scan_ifaces(h);
	nv_text(&h->nv);
}

/* ---- scan --json: written a value at a time, never held as one document ---- */

static void link_json(const struct gp_link *l)
{
	if (!l->max_width && !l->width) {
		gp_print_null("link");
		return;
	}
	gp_open_object("link");
	gp_print_gts("speed_gts", l->speed);
	gp_print_int("width", NULL, l->width);
	gp_print_gts("max_speed_gts", l->max_speed);
	gp_print_int("max_width", NULL, l->max_width);
	gp_close_object();
}

static void dev_json(const struct gp_host *h, const struct gp_dev *d)
{
	int i;

	gp_open_object(NULL);
	gp_print_str("bdf", NULL, d->bdf);
	gp_print_hex("vendor", d->vendor, 4);
	gp_print_hex("device", d->device, 4);
	gp_print_hex("class", d->class, 4);
	gp_print_hex("subsystem_vendor", d->svendor, 4);
	gp_print_hex("subsystem_device", d->sdevice, 4);
	gp_print_str("role", NULL, gp_role_name(d->role));
	gp_print_str_or_null("driver", NULL, d->driver);
	gp_print_int_or_null("numa_node", NULL, d->numa_node);
	gp_print_int_or_null("iommu_group", NULL, d->iommu_group);
	gp_print_str_or_null("slot", NULL, d->slot);
	gp_print_str("parent", NULL, d->parent >= 0 ? h->devs[d->parent].bdf : NULL);
	link_json(&d->link);
	gp_open_array("bars");
	for (i = 0; i < d->nbars; i++) {
		const struct gp_bar *b = &d->bars[i];

		gp_open_object(NULL);
		gp_print_int("index", NULL, b->index);
		gp_print_uint("size", NULL, b->size);
		gp_print_bool("is64", NULL, b->is64);
		gp_print_bool("prefetchable", NULL, b->prefetchable);
		gp_print_bool("io", NULL, b->io);
		if (b->unset)
			gp_print_null("address");
		else
			gp_print_uint("address", NULL, b->addr);
		gp_close_object();
	}
	gp_close_array();
	gp_close_object();
}

static int group_cmp(const void *a, const void *b)
{
	const struct gp_dev *x = *(const struct gp_dev *const *)a;
	const struct gp_dev *y = *(const struct gp_dev *const *)b;

	return x->iommu_group != y->iommu_group ? (x->iommu_group < y->iommu_group ? -1 : 1)
						: (x < y ? -1 : x > y);
}

/* Each IOMMU group and its devices, by group number. */
static void groups_json(const struct gp_host *h)
{
	const struct gp_dev **byg = gp_xcalloc(h->ndevs ? h->ndevs : 1, sizeof(*byg));
	size_t i, n = 0;

	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].iommu_group >= 0)
			byg[n++] = &h->devs[i];
	qsort(byg, n, sizeof(*byg), group_cmp);
	gp_open_array("iommu_groups");
	for (i = 0; i < n; i++) {
		if (!i || byg[i]->iommu_group != byg[i - 1]->iommu_group) {
			if (i) {
				gp_close_array();
				gp_close_object();
			}
			gp_open_object(NULL);
			gp_print_int("id", NULL, byg[i]->iommu_group);
			gp_open_array("devices");
		}
		gp_print_str(NULL, NULL, byg[i]->bdf);
	}
	if (n) {
		gp_close_array();
		gp_close_object();
	}
	gp_close_array();
	free(byg);
}

static void host_json(const struct gp_host *h)
{
	gp_open_object("host");
	gp_print_str_or_null("kernel_release", NULL, h->kernel_release);
	gp_print_str("cmdline", NULL, h->cmdline);
	gp_print_str_or_null("bios_vendor", NULL, h->bios_vendor);
	gp_print_str_or_null("bios_version", NULL, h->bios_version);
	gp_print_str_or_null("product", NULL, h->product);
	gp_print_str_or_null("hostname", NULL, h->hostname);
	gp_print_int_or_null("phys_bits", NULL, h->phys_bits ? h->phys_bits : -1);
	gp_print_int("iommu_groups", NULL, h->iommu_groups);
	gp_close_object();
}

static const char *remote_name(int t)
{
	return t == GP_NV_REMOTE_GPU	  ? "gpu"
	       : t == GP_NV_REMOTE_SWITCH ? "switch"
	       : t == GP_NV_REMOTE_NPU	  ? "npu"
					  : "unknown";
}

/* "nvlink": where from, and each GPU's links as NVML gave them */
static void nv_json(const struct gp_nv_view *v)
{
	int i, l;

	gp_open_object("nvlink");
	gp_print_nv_source(v);
	gp_open_array("gpus");
	for (i = 0; i < v->n; i++) {
		const struct gp_nv_gpu *g = &v->gpus[i];

		gp_open_object(NULL);
		gp_print_str("bdf", NULL, g->bdf);
		gp_print_str("name", NULL, g->name);
		gp_print_int("version", NULL, (int)g->version);
		gp_print_double("link_gbps", NULL, gp_nv_link_rate(g));
		gp_print_int("links_up", NULL, gp_nv_links_up(g));
		gp_open_array("links");
		for (l = 0; l < g->nlinks; l++) {
			gp_open_object(NULL);
			gp_print_int("link", NULL, l);
			gp_print_bool("up", NULL, g->links[l].up);
			gp_print_str_or_null("remote", NULL, g->links[l].remote);
			gp_print_str("remote_type", NULL,
				     g->links[l].up ? remote_name(g->links[l].remote_type) : NULL);
			gp_close_object();
		}
		gp_close_array();
		gp_close_object();
	}
	gp_close_array();
	gp_close_object();
}

void gp_scan_doc(FILE *out, const struct gp_host *h)
{
	size_t i;

	gp_doc_begin(out, "scan");
	host_json(h);
	gp_open_array("devices");
	for (i = 0; i < h->ndevs; i++)
		dev_json(h, &h->devs[i]);
	gp_close_array();
	groups_json(h);
	gp_open_array("numa_nodes");
	for (i = 0; i < h->nnuma; i++) {
		gp_open_object(NULL);
		gp_print_int("id", NULL, h->numa[i].id);
		gp_print_str("cpus", NULL, h->numa[i].cpus);
		gp_print_uint("memory_bytes", NULL, h->numa[i].mem_total);
		gp_close_object();
	}
	gp_close_array();
	gp_open_array("interfaces");
	for (i = 0; i < h->nifaces; i++) {
		const struct gp_iface *f = &h->ifaces[i];

		gp_open_object(NULL);
		gp_print_str("name", NULL, f->name);
		gp_print_str_or_null("pci", NULL, f->bdf);
		gp_print_str_or_null("mac", NULL, f->mac);
		gp_print_str_or_null("operstate", NULL, f->operstate);
		gp_print_int_or_null("speed_mbps", NULL, f->speed);
		gp_print_int_or_null("mtu", NULL, f->mtu ? f->mtu : -1);
		gp_print_str_or_null("master", NULL, f->master);
		gp_print_bool("is_bond", NULL, f->is_bond);
		gp_close_object();
	}
	gp_close_array();
	nv_json(&h->nv);
	gp_doc_end();
}

static int do_scan(struct gp_ctx *ctx)
{
	struct gp_host h;
	int rc;

	rc = gp_ctx_topology(ctx, &h);
	if (rc)
		return rc;
	if (ctx->json)
		gp_scan_doc(NULL, &h);
	else
		scan_text(&h, ctx->profile);
	gp_host_release(&h);
	return GP_EXIT_OK;
}

const struct gp_cmd gp_cmd_scan = {
	.name = "scan",
	.run = do_scan,
	.flags = GP_USE_PROFILE | GP_NO_ARGS,
	.help = "GPUs, NICs, bridges, IOMMU groups, NUMA nodes, links, BARs",
};
