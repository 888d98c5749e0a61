// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Path classes between two devices, as `nvidia-smi topo -m` names them,
 * worked out from the PCI tree alone:
 *   X    the device itself
 *   PIX  at most one PCIe switch or bridge, not through a root port
 *   PXB  more than one switch or bridge, still below the host bridge
 *   PHB  through one host bridge: different root ports of one root complex
 *   NODE different host bridges of one NUMA node
 *   SYS  different (or unknown) NUMA nodes
 * NVLink cannot be seen in config space; the report says so.
 */
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "core/pcicfg.h"
#include "core/topo.h"
#include "shared/util.h"

#define MAX_DEPTH 64

const char *gp_path_name(enum gp_path p)
{
	static const char *const names[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS" };

	return names[p];
}

/* The chain of indices from dev up to its root bus, dev first. */
static int chain(const struct gp_host *h, int dev, int *out)
{
	int n = 0;

	while (dev >= 0 && n < MAX_DEPTH) {
		out[n++] = dev;
		dev = h->devs[dev].parent;
	}
	return n;
}

/* Index of the lowest common ancestor of a and b, or -1. */
static int common_ancestor(const int *ca, int na, const int *cb, int nb, int *ia, int *ib)
{
	int i, j;

	for (i = 1; i < na; i++)
		for (j = 1; j < nb; j++)
			if (ca[i] == cb[j]) {
				*ia = i;
				*ib = j;
				return ca[i];
			}
	return -1;
}

static bool same_device(const struct gp_dev *a, const struct gp_dev *b)
{
	return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

/*
 * Bridges between a device and the common ancestor, not counting the
 * downstream port right below a switch's upstream port: that pair is the
 * switch itself, which the ancestor already stands for.
 */
static int bridges_below(const struct gp_host *h, const int *c, int upto, int lca)
{
	int i, n = 0;

	for (i = 1; i < upto; i++) {
		const struct gp_dev *d = &h->devs[c[i]];

		if (d->parent == lca && h->devs[lca].pcie_type == GP_PCIE_UPSTREAM &&
		    d->pcie_type == GP_PCIE_DOWNSTREAM)
			continue;
		n++;
	}
	return n;
}

static bool is_root_port(const struct gp_dev *d)
{
	return d->pcie_type == GP_PCIE_ROOT_PORT || d->parent < 0;
}

enum gp_path gp_topo_classify(const struct gp_host *h, int a, int b)
{
	const struct gp_dev *da = &h->devs[a], *db = &h->devs[b];
	int ca[MAX_DEPTH], cb[MAX_DEPTH], na, nb, ia = 0, ib = 0, lca;

	if (a == b)
		return GP_PATH_X;
	if (!da->rc[0] || !db->rc[0])
		return GP_PATH_SYS; /* where it hangs is unknown: assume the worst */
	if (strcmp(da->rc, db->rc)) {
		if (da->numa_node >= 0 && da->numa_node == db->numa_node)
			return GP_PATH_NODE;
		return GP_PATH_SYS;
	}
	na = chain(h, a, ca);
	nb = chain(h, b, cb);
	lca = common_ancestor(ca, na, cb, nb, &ia, &ib);
	if (lca < 0)
		return GP_PATH_PHB;
	if (is_root_port(&h->devs[lca]))
		return same_device(da, db) && ia == 1 && ib == 1 ? GP_PATH_PIX : GP_PATH_PHB;
	if (!bridges_below(h, ca, ia, lca) && !bridges_below(h, cb, ib, lca))
		return GP_PATH_PIX;
	return GP_PATH_PXB;
}

/* The root port above dev (the bridge on the root bus), or -1. */
int gp_host_root_port(const struct gp_host *h, int dev)
{
	int c[MAX_DEPTH], n = chain(h, dev, c);

	return n >= 2 ? c[n - 1] : -1;
}

/*
 * The bridges a transfer between a and b passes through, the common ancestor
 * included (its ACS settings decide whether it forwards peer requests).
 */
int gp_topo_path_bridges(const struct gp_host *h, int a, int b, int *out, int max)
{
	int ca[MAX_DEPTH], cb[MAX_DEPTH], na, nb, ia = 0, ib = 0, lca, i, n = 0;

	na = chain(h, a, ca);
	nb = chain(h, b, cb);
	lca = common_ancestor(ca, na, cb, nb, &ia, &ib);
	if (lca < 0) {
		ia = na;
		ib = nb;
	}
	for (i = 1; i < ia && n < max; i++)
		out[n++] = ca[i];
	for (i = 1; i < ib && n < max; i++)
		out[n++] = cb[i];
	if (lca >= 0 && n < max)
		out[n++] = lca;
	return n;
}

/* The slowest link seen so far: by what it supports, and by what it trained at. */
struct walk {
	struct gp_hop hop;
	double cap_bw, cur_bw;
};

static double min_known(double a, double b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * One link, read at its lower end d (an endpoint, a switch's upstream port,
 * a PCI bridge) and at the port above it.  It supports the lower of the two
 * ends' maximum speeds and widths; its trained state is the same at both.
 */
static void link_of(const struct gp_host *h, const struct gp_dev *d, struct gp_link *out)
{
	const struct gp_link *up = d->parent >= 0 ? &h->devs[d->parent].link : NULL;

	*out = d->link.width || !up ? d->link : *up;
	if (!out->max_speed)
		out->max_speed = out->speed;
	if (!out->max_width)
		out->max_width = out->width;
	if (up && d->link.width && up->width) {
		out->max_speed = min_known(out->max_speed, up->max_speed);
		out->max_width = (int)min_known(out->max_width, up->max_width);
	}
}

void gp_topo_link(const struct gp_host *h, int dev, struct gp_link *out)
{
	link_of(h, &h->devs[dev], out);
}

static void hop_add(struct walk *w, const struct gp_link *l)
{
	double cap = gp_link_bandwidth(l->max_speed, l->max_width);
	double cur = gp_link_bandwidth(l->speed, l->width);

	if (cap > 0 && (!w->cap_bw || cap < w->cap_bw)) {
		w->cap_bw = cap;
		w->hop.speed = l->max_speed;
		w->hop.width = l->max_width;
	}
	if (cur > 0 && (!w->cur_bw || cur < w->cur_bw)) {
		w->cur_bw = cur;
		w->hop.cur_speed = l->speed;
		w->hop.cur_width = l->width;
	}
}

/*
 * Each link is counted once, at its lower end: root and downstream ports
 * are the upper ends of links their children count.  A bridge on a root bus
 * is part of the root complex; an endpoint there (a GPU in a VM) has its own
 * link to it.
 */
static void walk_links(const struct gp_host *h, const int *c, int upto, struct walk *w)
{
	struct gp_link l;
	int i;

	for (i = 0; i < upto; i++) {
		const struct gp_dev *d = &h->devs[c[i]];

		if (d->parent < 0) {
			if (!d->is_bridge && d->link.width) {
				link_of(h, d, &l);
				hop_add(w, &l);
			}
			break;
		}
		if (d->pcie_type == GP_PCIE_ROOT_PORT || d->pcie_type == GP_PCIE_DOWNSTREAM)
			continue;
		link_of(h, d, &l);
		hop_add(w, &l);
	}
}

struct gp_hop gp_topo_slowest(const struct gp_host *h, int a, int b)
{
	int ca[MAX_DEPTH], cb[MAX_DEPTH], na, nb, ia = 0, ib = 0;
	struct walk w;

	memset(&w, 0, sizeof(w));
	na = chain(h, a, ca);
	if (a == b) {
		walk_links(h, ca, 1, &w);
		return w.hop;
	}
	nb = chain(h, b, cb);
	if (common_ancestor(ca, na, cb, nb, &ia, &ib) < 0) {
		ia = na;
		ib = nb;
	}
	walk_links(h, ca, ia, &w);
	walk_links(h, cb, ib, &w);
	return w.hop;
}

bool gp_hop_trained_lower(const struct gp_hop *hop)
{
	return hop->cur_width && gp_link_bandwidth(hop->cur_speed, hop->cur_width) <
					 gp_link_bandwidth(hop->speed, hop->width);
}

static unsigned hop_kind(struct gp_hop_words *w, const struct gp_hop *hop)
{
	unsigned k;

	for (k = 0; k < w->n && k < ARRAY_SIZE(w->seen); k++)
		if (!memcmp(&w->seen[k].speed, &hop->speed, sizeof(double)) &&
		    w->seen[k].width == hop->width)
			return k;
	k = w->n++ % ARRAY_SIZE(w->seen);
	w->seen[k].speed = hop->speed;
	w->seen[k].width = hop->width;
	snprintf(w->seen[k].link, sizeof(w->seen[k].link), "%g GT/s x%d", hop->speed, hop->width);
	snprintf(w->seen[k].gbs, sizeof(w->seen[k].gbs), "%.1f",
		 gp_link_bandwidth(hop->speed, hop->width));
	return k;
}

void gp_hop_words(struct gp_hop_words *w, const struct gp_hop *hop)
{
	unsigned k = hop_kind(w, hop);

	w->link = w->seen[k].link;
	w->gbs = w->seen[k].gbs;
}
