// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SVG of the PCI tree (pcimap.c lays it out).  Valid XML on its own, so
 * that it can be checked with xmllint and cut out of the page; styled by the
 * page's stylesheet through classes; every box has a <title> (what a screen
 * reader says, and the tooltip) and carries its PCI address in data-bdf.
 */
#include <stdio.h>
#include <string.h>

#include "cli/out.h"
#include "cli/report.h"
#include "core/hostq.h"
#include "core/topo.h"

/*
 * What a box's line holds: 11px monospace is about 6.7px a character, the
 * box GP_MAP_BOXW wide with 6px inside each edge.  The <title> has it all.
 */
#define LABEL_CHARS ((GP_MAP_BOXW - 12) * 10 / 67)

/* The first max characters of s, cut between UTF-8 sequences, "…" when cut. */
static const char *clip(const char *s, size_t max)
{
	static char buf[4][160];
	static unsigned next;
	char *out = buf[next++ % 4];
	size_t i = 0, chars = 0;
	int k;

	while (s[i] && chars < max && i < 150) {
		k = gp_utf8_len((const unsigned char *)s + i, strlen(s + i));
		if (k <= 0)
			k = 1; /* the escaper shows the byte */
		i += (size_t)k;
		chars++;
	}
	memcpy(out, s, i);
	out[i] = '\0';
	if (s[i])
		strcpy(out + i, "\xe2\x80\xa6"); /* i < 154: the buffer holds it */
	return out;
}

static const char *bridge_kind(const struct gp_dev *d)
{
	switch (d->pcie_type) {
	case GP_PCIE_ROOT_PORT:
		return "root port";
	case GP_PCIE_UPSTREAM:
		return "switch upstream port";
	case GP_PCIE_DOWNSTREAM:
		return "switch downstream port";
	default:
		return "PCI bridge";
	}
}

static void lines_numa(const struct gp_dossier *d, const struct gp_map_node *n, char *l1, char *l2,
		       size_t len)
{
	const struct gp_numa *nn = gp_host_numa(d->h, n->numa);
	char mem[32] = "";

	if (n->numa < 0) {
		snprintf(l1, len, "NUMA node unknown");
		snprintf(l2, len, "the kernel does not say");
		return;
	}
	snprintf(l1, len, "NUMA node %d", n->numa);
	if (nn)
		gp_format_size(nn->mem_total, mem, sizeof(mem));
	snprintf(l2, len, "CPUs %s%s%s", nn ? nn->cpus : "?", mem[0] ? " \xc2\xb7 " : "", mem);
}

static void lines_dev(const struct gp_dossier *d, const struct gp_map_node *n, char *l1, char *l2,
		      size_t len)
{
	const struct gp_dev *v = &d->h->devs[n->dev];
	char id[16];

	snprintf(id, sizeof(id), "%04x:%04x", v->vendor, v->device);
	switch (n->kind) {
	case GP_MAP_GPU:
		snprintf(l1, len, "GPU%d %s", n->label, v->bdf);
		break;
	case GP_MAP_NIC:
		snprintf(l1, len, "NIC%d %s%s%s", n->label, n->ifname ? n->ifname : "",
			 n->ifname ? " " : "", v->bdf);
		break;
	case GP_MAP_BRIDGE:
		snprintf(l1, len, "%s %s", v->bdf, bridge_kind(v));
		break;
	default:
		snprintf(l1, len, "%s", v->bdf);
	}
	snprintf(l2, len, "%s %s%s%s%s%s", id, v->driver[0] ? v->driver : "no driver",
		 v->slot[0] ? " \xc2\xb7 slot " : "", v->slot,
		 n->acs_redirect ? " \xc2\xb7 ACS redirect" : "",
		 n->bond_port ? " \xc2\xb7 bond port" : "");
}

static void lines_of(const struct gp_dossier *d, const struct gp_map_node *n, char *l1, char *l2,
		     size_t len)
{
	switch (n->kind) {
	case GP_MAP_NUMA:
		lines_numa(d, n, l1, l2, len);
		return;
	case GP_MAP_RC:
		snprintf(l1, len, "%s", n->rc);
		snprintf(l2, len, "root complex (host bridge)");
		return;
	case GP_MAP_MORE:
		snprintf(l1, len, "+%d more function%s", n->count, n->count == 1 ? "" : "s");
		snprintf(l2, len, "not on a GPU or NIC path");
		return;
	default:
		lines_dev(d, n, l1, l2, len);
	}
}

static const char *const kind_class[] = {
	[GP_MAP_NUMA] = "numa", [GP_MAP_RC] = "rc",   [GP_MAP_BRIDGE] = "bridge",
	[GP_MAP_GPU] = "gpu",	[GP_MAP_NIC] = "nic", [GP_MAP_DEV] = "dev",
	[GP_MAP_MORE] = "more",
};

/* The <title>: everything the box says and what its marks mean, for readers and tooltips. */
static void node_title(FILE *f, const struct gp_dossier *d, const struct gp_map_node *n,
		       const char *l1, const char *l2)
{
	char link[64] = "";

	fprintf(f, "<title>%s; ", gp_xml(l1));
	fprintf(f, "%s", gp_xml(l2));
	if (n->dev >= 0) {
		const struct gp_dev *v = &d->h->devs[n->dev];

		if (d->names[n->dev][0]) /* as people know it: the box has room for its IDs only */
			fprintf(f, "; %s", gp_xml(d->names[n->dev]));
		gp_link_text(&v->link, link, sizeof(link));
		if (link[0])
			fprintf(f, "; link %s%s", link,
				n->degraded ? " (trained below what it supports)" : "");
		if (v->iommu_group >= 0)
			fprintf(f, "; IOMMU group %d", v->iommu_group);
		if (v->numa_node >= 0)
			fprintf(f, "; NUMA node %d", v->numa_node);
	}
	if (n->p2p)
		fprintf(f, "; on the GPUs' P2P path");
	fprintf(f, "</title>");
}

static void node(FILE *f, const struct gp_dossier *d, const struct gp_map_node *n)
{
	char l1[200], l2[300];
	double x = gp_map_x(n), y = gp_map_y(n);

	lines_of(d, n, l1, l2, sizeof(l1));
	fprintf(f, "<g role=\"img\" class=\"node %s%s%s%s%s\"", kind_class[n->kind],
		n->p2p ? " p2p" : "", n->degraded ? " degraded" : "", n->acs_redirect ? " acs" : "",
		n->bond_port ? " bond" : "");
	if (n->dev >= 0)
		fprintf(f, " data-bdf=\"%s\"", gp_xml(d->h->devs[n->dev].bdf));
	fprintf(f, ">");
	node_title(f, d, n, l1, l2);
	fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%d\" height=\"%d\" rx=\"4\"/>", x, y,
		GP_MAP_BOXW, GP_MAP_BOXH);
	fprintf(f, "<text x=\"%g\" y=\"%g\" class=\"l1\">%s</text>", x + 6, y + 16,
		gp_xml(clip(l1, LABEL_CHARS)));
	fprintf(f, "<text x=\"%g\" y=\"%g\" class=\"l2\">%s</text></g>\n", x + 6, y + 32,
		gp_xml(clip(l2, LABEL_CHARS)));
}

/* An elbow from the parent's right edge to the child's left edge, the link's label above it. */
static void edge(FILE *f, const struct gp_dossier *d, const struct gp_map_node *n)
{
	const struct gp_map_node *p = &d->map.n[n->parent];
	double x1 = gp_map_x(p) + GP_MAP_BOXW, y1 = gp_map_y(p) + GP_MAP_BOXH / 2.0;
	double x2 = gp_map_x(n), y2 = gp_map_y(n) + GP_MAP_BOXH / 2.0, xm = x1 + 14;
	bool p2p = n->p2p && p->p2p;
	char link[64] = "";

	if (n->dev >= 0)
		gp_link_text(&d->h->devs[n->dev].link, link, sizeof(link));
	fprintf(f, "<path class=\"edge%s%s\" d=\"M%g %gH%gV%gH%g\"/>", p2p ? " p2p" : "",
		n->degraded ? " degraded" : "", x1, y1, xm, y2, x2);
	if (link[0])
		fprintf(f, "<text class=\"link%s\" x=\"%g\" y=\"%g\">%s%s</text>",
			n->degraded ? " degraded" : "", x2 - 3, y2 - 4,
			n->degraded ? "\xe2\x9a\xa0 " : "", link);
	fputc('\n', f);
}

static void group(FILE *f, const struct gp_map_group *g)
{
	double x = GP_MAP_LEFT + g->depth_min * GP_MAP_COL - 5;
	double y = GP_MAP_TOP + g->first * GP_MAP_ROW + 1;
	double w = (g->depth_max - g->depth_min) * GP_MAP_COL + GP_MAP_BOXW + 10;
	double hgt = (g->last - g->first + 1) * GP_MAP_ROW - 2;

	fprintf(f,
		"<g role=\"img\" class=\"iommu\"><title>IOMMU group %d</title>"
		"<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" rx=\"6\"/>"
		"<text x=\"%g\" y=\"%g\">group %d</text></g>\n",
		g->id, x, y, w, hgt, x + w + 4, y + hgt / 2 + 4, g->id);
}

/* NUMA nodes joined by the SMP interconnect, drawn when a GPU pair crosses it. */
static void interconnect(FILE *f, const struct gp_map *m)
{
	double top = -1, bottom = -1, y;
	size_t i;

	for (i = 0; i < m->nn; i++) {
		if (m->n[i].kind != GP_MAP_NUMA || !m->n[i].p2p)
			continue;
		y = gp_map_y(&m->n[i]) + GP_MAP_BOXH / 2.0;
		top = top < 0 || y < top ? y : top;
		bottom = y > bottom ? y : bottom;
	}
	if (top < 0 || bottom <= top)
		return;
	fprintf(f,
		"<path class=\"edge p2p smp\" d=\"M%d %gH%dV%gH%d\"><title>SMP interconnect "
		"between NUMA nodes (SYS)</title></path>\n",
		GP_MAP_LEFT, top, GP_MAP_LEFT / 3, bottom, GP_MAP_LEFT);
}

static void legend(FILE *f, const struct gp_dossier *d)
{
	const struct gp_map *m = &d->map;

	fprintf(f, "<text class=\"legend\" x=\"%d\" y=\"16\">", GP_MAP_LEFT);
	if (m->ngpus >= 2)
		fprintf(f,
			"P2P path between the GPUs (highlighted): <tspan "
			"class=\"p2pclass\">%s</tspan>%s",
			gp_path_name(m->worst), m->ngpus > 2 ? ", the worst of every pair" : "");
	else
		fprintf(f, "%d GPU%s: no P2P path", m->ngpus, m->ngpus == 1 ? "" : "s");
	if (m->nv_pairs)
		fprintf(f, "; NVLink <tspan class=\"nvclass\">NV%d</tspan>%s on %d of %d pair%s",
			m->nv_min, m->nv_max != m->nv_min ? "+" : "", m->nv_pairs, m->pairs,
			m->pairs == 1 ? "" : "s");
	fprintf(f,
		"</text><text class=\"legend\" x=\"%d\" y=\"32\">links: trained speed and width"
		" (trained/max, \xe2\x9a\xa0 and dashed red where lower); blue: the P2P path;"
		" amber box: ACS redirect; purple box: bond port; dashed outline: IOMMU group"
		"</text>\n",
		GP_MAP_LEFT);
}

void gp_report_svg(FILE *f, const struct gp_dossier *d)
{
	const struct gp_map *m = &d->map;
	int w = m->width + 90, h = m->height;
	size_t i;

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pcimap\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"group\" "
		"aria-labelledby=\"pcimap-title\">\n"
		"<title id=\"pcimap-title\">PCI tree: %d GPU%s, NUMA nodes, root complexes, the "
		"bridges above the GPUs and NICs; %s%s</title>\n",
		w, h, w, h, m->ngpus, m->ngpus == 1 ? "" : "s",
		m->ngpus >= 2 ? "P2P class " : "no GPU pair", /* X is no class of a path */
		m->ngpus >= 2 ? gp_path_name(m->worst) : "");
	legend(f, d);
	for (i = 0; i < m->ng; i++)
		group(f, &m->g[i]);
	interconnect(f, m);
	for (i = 0; i < m->nn; i++)
		if (m->n[i].parent >= 0)
			edge(f, d, &m->n[i]);
	for (i = 0; i < m->nn; i++)
		node(f, d, &m->n[i]);
	fprintf(f, "</svg>\n");
}
