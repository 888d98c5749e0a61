// SPDX-License-Identifier: GPL-2.0-or-later
/* gpuprov topo: the nvidia-smi topo -m matrix, from the PCI tree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/verify.h"
#include "cli/out.h"
#include "core/bandwidth.h"
#include "core/hostq.h"
#include "core/nvlink.h"
#include "core/pcicfg.h"
#include "core/topo.h"
#include "host/host.h"

#define MAX_TOPO 256

struct topo_item {
	int dev;
	char label[16];
	const char *ifname;
};

static int topo_items(const struct gp_host *h, struct topo_item *it, int max)
{
	size_t i, j;
	int n = 0, ngpu = 0, nnic = 0;

	for (i = 0; i < h->ndevs && n < max; i++)
		if (h->devs[i].role == GP_ROLE_GPU) {
			it[n].dev = (int)i;
			it[n].ifname = NULL;
			snprintf(it[n++].label, sizeof(it->label), "GPU%d", ngpu++);
		}
	for (i = 0; i < h->ndevs && n < max; i++) {
		if (h->devs[i].role != GP_ROLE_NIC)
			continue;
		it[n].dev = (int)i;
		it[n].ifname = NULL;
		for (j = 0; j < h->nifaces; j++)
			if (h->ifaces[j].dev == (int)i)
				it[n].ifname = h->ifaces[j].name;
		snprintf(it[n++].label, sizeof(it->label), "NIC%d", nnic++);
	}
	return n;
}

/* NVLinks between two topo items (0: none or unknown): nvidia-smi's NV# */
static int nv_links(const struct gp_host *h, const struct topo_item *a, const struct topo_item *b)
{
	if (h->devs[a->dev].role != GP_ROLE_GPU || h->devs[b->dev].role != GP_ROLE_GPU)
		return 0;
	return gp_nv_pair_links(&h->nv, gp_nv_find(&h->nv, h->devs[a->dev].bdf),
				gp_nv_find(&h->nv, h->devs[b->dev].bdf));
}

static double nv_ceiling(const struct gp_host *h, const struct topo_item *a,
			 const struct topo_item *b)
{
	return gp_nv_pair_ceiling(&h->nv, gp_nv_find(&h->nv, h->devs[a->dev].bdf),
				  gp_nv_find(&h->nv, h->devs[b->dev].bdf));
}

/* A matrix cell as nvidia-smi prints it: NV# where NVLink joins the pair, else the PCIe class. */
static const char *cell(const struct gp_host *h, const struct topo_item *it, int i, int j,
			char *buf, size_t len)
{
	int n = i == j ? 0 : nv_links(h, &it[i], &it[j]);

	if (!n)
		return gp_path_name(gp_topo_classify(h, it[i].dev, it[j].dev));
	snprintf(buf, len, "NV%d", n);
	return buf;
}

/* What the pair can be expected to reach one way (NVLink when joined), and why. */
static void expect_json(const struct gp_host *h, int a, int b)
{
	struct gp_expect e;

	if (a == b || gp_bw_expect_pair(h, a, b, &e)) {
		gp_print_null("expected_bytes_per_second");
		gp_print_null("expected_basis");
		return;
	}
	gp_print_uint("expected_bytes_per_second", NULL, (uint64_t)(e.gbps * 1e9));
	gp_print_str("expected_basis", NULL, e.basis);
}

/* One way as this host's last verify measured it (a GPU pair; never made up: null without). */
static double measured(const struct gp_host *h, int a, int b)
{
	return a == b ? 0 : gp_vrecord_pair(&h->vrec, h->devs[a].bdf, h->devs[b].bdf);
}

static void measured_json(const struct gp_host *h, int a, int b)
{
	double m = measured(h, a, b);

	if (m > 0)
		gp_print_uint("measured_bytes_per_second", NULL, (uint64_t)(m * 1e9));
	else
		gp_print_null("measured_bytes_per_second");
}

/* The record verify kept on this machine, null without one. */
static void vrec_json(const struct gp_vrecord *r)
{
	if (!r->kept) {
		gp_print_null("verify_record");
		return;
	}
	gp_open_object("verify_record");
	gp_print_str("seen_at", NULL, r->when);
	if (r->busbw_gbps > 0)
		gp_print_double("busbw_gbps", NULL, r->busbw_gbps);
	else
		gp_print_null("busbw_gbps");
	gp_print_uint("bytes", NULL, r->bytes);
	gp_print_int("ranks", NULL, r->ranks);
	gp_close_object();
}

/* The links of the pair i, j: the slowest hop's, NVLink's ceiling, the expectation */
static void link_json(const struct gp_host *h, const struct topo_item *it, int i, int j)
{
	struct gp_hop hop = gp_topo_slowest(h, it[i].dev, it[j].dev);

	if (!hop.width) {
		gp_print_null(NULL);
		return;
	}
	gp_open_object(NULL);
	gp_print_gts("speed_gts", hop.speed);
	gp_print_int("width", NULL, hop.width);
	gp_print_uint("bytes_per_second", NULL,
		      (uint64_t)(gp_link_bandwidth(hop.speed, hop.width) * 1e9));
	if (hop.cur_width)
		gp_print_gts("trained_speed_gts", hop.cur_speed);
	else
		gp_print_null("trained_speed_gts");
	gp_print_int_or_null("trained_width", NULL, hop.cur_width ? hop.cur_width : -1);
	if (nv_links(h, &it[i], &it[j]))
		gp_print_uint("nvlink_bytes_per_second", NULL,
			      (uint64_t)(nv_ceiling(h, &it[i], &it[j]) * 1e9));
	expect_json(h, it[i].dev, it[j].dev);
	measured_json(h, it[i].dev, it[j].dev);
	gp_close_object();
}

static void topo_json(const struct gp_host *h, const struct gp_profile *p,
		      const struct topo_item *it, int n)
{
	int i, j;

	gp_doc_begin(NULL, "topo");
	gp_doc_host(h, p);
	gp_open_array("devices");
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[it[i].dev];

		gp_open_object(NULL);
		gp_print_str("label", NULL, it[i].label);
		gp_print_str("bdf", NULL, d->bdf);
		gp_print_str("role", NULL, gp_role_name(d->role));
		gp_print_int_or_null("numa_node", NULL, d->numa_node);
		gp_print_str_or_null("interface", NULL, it[i].ifname);
		gp_close_object();
	}
	gp_close_array();
	gp_open_array("matrix");
	for (i = 0; i < n; i++) {
		gp_open_array(NULL);
		for (j = 0; j < n; j++)
			gp_print_str(NULL, NULL,
				     gp_path_name(gp_topo_classify(h, it[i].dev, it[j].dev)));
		gp_close_array();
	}
	gp_close_array();
	gp_open_array("links");
	for (i = 0; i < n; i++) {
		gp_open_array(NULL);
		for (j = 0; j < n; j++)
			link_json(h, it, i, j);
		gp_close_array();
	}
	gp_close_array();
	if (h->nv.source == GP_NV_NONE)
		gp_print_null("nvlink");
	else {
		gp_open_array("nvlink");
		for (i = 0; i < n; i++) {
			gp_open_array(NULL);
			for (j = 0; j < n; j++)
				if (h->devs[it[i].dev].role == GP_ROLE_GPU &&
				    h->devs[it[j].dev].role == GP_ROLE_GPU)
					gp_print_int(NULL, NULL, nv_links(h, &it[i], &it[j]));
				else
					gp_print_null(NULL);
			gp_close_array();
		}
		gp_close_array();
	}
	gp_open_object("nvlink_source");
	gp_print_nv_source(&h->nv);
	gp_close_object();
	vrec_json(&h->vrec);
	gp_doc_end();
}

/* Where the NV# cells come from, or why there are none. */
static void nv_footer(const struct gp_nv_view *v)
{
	if (v->source == GP_NV_NVML)
		printf("NVLink: read from NVML now.\n");
	else if (v->source == GP_NV_REMEMBERED)
		gp_wrapf(0, 2,
			 "NVLink: remembered, as NVML saw it at %s (NVML cannot see GPUs "
			 "off the nvidia driver, nor a snapshot's).",
			 gp_tv(v->seen_at));
	else
		gp_wrapf(0, 2, "NVLink not readable: %s; a bridged pair shows its PCIe path.",
			 gp_tv(v->why));
}

/* nvidia-smi's legend, wrapped under its text */
static const char *const legend[] = {
	"  X    = Self",
	"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
	"(e.g., QPI/UPI)",
	"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
	"within a NUMA node",
	"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
	"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
	"Bridge)",
	"  PIX  = Connection traversing at most a single PCIe bridge",
	"  NV#  = Connection traversing a bonded set of # NVLinks",
};

/* One pair under Paths: its class or NVLinks, the slowest hop, its ceiling / expected. */
static void path_line(const struct gp_host *h, const struct topo_item *it, int i, int j,
		      struct gp_hop_words *w)
{
	struct gp_hop hop = gp_topo_slowest(h, it[i].dev, it[j].dev);
	char nvbuf[16];
	const char *c = cell(h, it, i, j, nvbuf, sizeof(nvbuf));
	struct gp_expect e;
	struct gp_obuf o;

	o.f = NULL;
	o.n = 0;
	gp_ob_str(&o, "  ");
	gp_ob_str(&o, it[i].label);
	gp_ob_char(&o, '-');
	gp_ob_str(&o, it[j].label);
	gp_ob_char(&o, '\t');
	gp_ob_str(&o, c); /* %-4s */
	gp_ob_blanks(&o, 4 - (int)strlen(c));
	gp_ob_str(&o, "  ");
	if (nv_links(h, &it[i], &it[j])) {
		gp_ob_flush(&o);
		printf("%d NVLinks  %.1f", nv_links(h, &it[i], &it[j]),
		       nv_ceiling(h, &it[i], &it[j]));
		if (!gp_bw_expect_nvlink_pair(h, it[i].dev, it[j].dev, &e))
			printf(" / %.1f", e.gbps);
		if (measured(h, it[i].dev, it[j].dev) > 0)
			printf(" / %.1f", measured(h, it[i].dev, it[j].dev));
		/* the PCIe path beside it on a line of its own: 80 columns */
		printf(" GB/s;\n\t      PCIe %s  ",
		       gp_path_name(gp_topo_classify(h, it[i].dev, it[j].dev)));
	}
	if (!hop.width) {
		gp_ob_str(&o, "link unknown\n");
		gp_ob_flush(&o);
		return;
	}
	gp_hop_words(w, &hop); /* "16 GT/s x16  31.5 GB/s" */
	gp_ob_str(&o, w->link);
	gp_ob_str(&o, "  ");
	gp_ob_str(&o, w->gbs);
	if (!gp_bw_expect_pcie_pair(h, it[i].dev, it[j].dev, &e)) {
		gp_ob_flush(&o);
		printf(" / %.1f", e.gbps);
	}
	if (!nv_links(h, &it[i], &it[j]) && measured(h, it[i].dev, it[j].dev) > 0) {
		gp_ob_flush(&o);
		printf(" / %.1f", measured(h, it[i].dev, it[j].dev));
	}
	gp_ob_str(&o, " GB/s");
	if (gp_hop_trained_lower(&hop)) {
		gp_ob_flush(&o);
		printf("  (now %g GT/s x%d)", hop.cur_speed, hop.cur_width);
	}
	gp_ob_char(&o, '\n');
	gp_ob_flush(&o);
}

/*
 * nvidia-smi's layout: the matrix (tab-separated, as scripts parse it; with
 * more than five GPUs and NICs its rows pass 80 columns, as nvidia-smi's
 * do), the devices, each pair's path, the legend.
 */
static void topo_text(const struct gp_host *h, const struct gp_profile *p,
		      const struct topo_item *it, int n)
{
	char nvbuf[16];
	int i, j;
	struct gp_hop_words words = { .n = 0 };

	gp_host_header(h, p);
	printf("\n");
	if (!n) {
		printf("no GPUs or NICs found\n");
		return;
	}
	printf("\t");
	for (i = 0; i < n; i++)
		printf("%s\t", it[i].label);
	printf("CPU Affinity\tNUMA Affinity\n");
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[it[i].dev];
		const struct gp_numa *nn = gp_host_numa(h, d->numa_node);
		struct gp_obuf o;

		o.f = NULL;
		o.n = 0;
		gp_ob_str(&o, it[i].label);
		gp_ob_char(&o, '\t');
		for (j = 0; j < n; j++) {
			if (i == j)
				gp_ob_char(&o, ' ');
			gp_ob_str(&o, cell(h, it, i, j, nvbuf, sizeof(nvbuf)));
			gp_ob_char(&o, '\t');
		}
		gp_ob_flush(&o);
		if (d->numa_node >= 0)
			printf("%s\t\t%d\n", nn && nn->cpus[0] ? gp_tv(nn->cpus) : "N/A",
			       d->numa_node);
		else
			printf("N/A\t\tN/A\n");
	}
	printf("\nDevices:\n");
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[it[i].dev];
		char link[48];

		gp_link_cell(&d->link, link, sizeof(link));
		printf("  %-5s %s  %04x:%04x  %s%s%s\n", it[i].label, d->bdf, d->vendor, d->device,
		       link, it[i].ifname ? "  " : "", it[i].ifname ? gp_tv(it[i].ifname) : "");
	}
	if (h->vrec.kept)
		gp_wrapf(0, 2,
			 "\nPaths (slowest hop both ends support; P2P ceiling / expected / "
			 "measured by verify here at %s, one way):",
			 gp_tv(h->vrec.when));
	else
		printf("\nPaths (slowest hop both ends support; P2P ceiling / expected, one "
		       "way):\n");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			path_line(h, it, i, j, &words);
	if (h->vrec.kept && h->vrec.busbw_gbps > 0)
		gp_wrapf(0, 4, "  verify's all-reduce over %d GPUs here: bus bandwidth %.1f GB/s",
			 h->vrec.ranks, h->vrec.busbw_gbps);
	printf("\nLegend:\n\n");
	for (i = 0; i < (int)ARRAY_SIZE(legend); i++)
		gp_wrap(legend[i], 0, 9);
	printf("\n");
	nv_footer(&h->nv);
}

static int do_topo(struct gp_ctx *ctx)
{
	struct topo_item *it;
	struct gp_host h;
	int rc, n;

	rc = gp_ctx_topology(ctx, &h);
	if (rc)
		return rc;
	it = gp_xcalloc(MAX_TOPO, sizeof(*it));
	n = topo_items(&h, it, MAX_TOPO);
	if (ctx->json)
		topo_json(&h, ctx->profile, it, n);
	else
		topo_text(&h, ctx->profile, it, n);
	free(it);
	gp_host_release(&h);
	return GP_EXIT_OK;
}

const struct gp_cmd gp_cmd_topo = {
	.name = "topo",
	.run = do_topo,
	.flags = GP_USE_PROFILE | GP_NO_ARGS,
	.help = "GPU/NIC path matrix (X PIX PXB PHB NODE SYS) with the slowest link",
};
