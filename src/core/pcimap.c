// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's picture of the PCI tree, laid out as a tree that grows to the
 * right: one column per depth (NUMA node, root complex, root port, switch
 * ports, endpoint), one row per leaf, a parent centred on its children.
 * Only what matters for passthrough is drawn: the GPUs, the NICs, what shares
 * a GPU's IOMMU group, and the bridges above them; everything else under a
 * box is folded into one "N more functions" box, so that a 4,000-function
 * host stays a few dozen rows.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pcimap.h"
#include "core/hostq.h"
#include "core/topo.h"

struct build {
	const struct gp_host *h;
	const struct gp_profile *p;
	struct gp_map *m;
	bool *keep;
	int *more;	   /* per device: functions folded below it */
	int *first, *next; /* kept children of each kept device, in device order */
	int *dev2node;
	char (*rcs)[GP_NAME_LEN];
	int *rc_numa, *rc_more, *rc_first;
	int nrc;
};

static const struct gp_iface *iface_of(const struct gp_host *h, size_t i)
{
	size_t k;

	for (k = 0; k < h->nifaces; k++)
		if (h->ifaces[k].dev == (int)i)
			return &h->ifaces[k];
	return NULL;
}

static bool bond_port(const struct gp_host *h, const struct gp_profile *p, size_t i)
{
	const struct gp_iface *f = iface_of(h, i);
	int k;

	if (!p || !p->has_bond)
		return false;
	for (k = 0; k < p->bond.nslaves; k++)
		if (!strcmp(p->bond.slaves[k], h->devs[i].bdf) ||
		    (f && !strcmp(p->bond.slaves[k], f->name)))
			return true;
	return false;
}

/* Its port's first function: 00.0 of its bus, what a card without a driver shows. */
bool gp_map_nic_shown(const struct gp_host *h, const struct gp_profile *p, size_t i)
{
	const struct gp_dev *d = &h->devs[i];

	if (d->role != GP_ROLE_NIC)
		return false;
	return (d->dev == 0 && d->func == 0) || iface_of(h, i) || bond_port(h, p, i);
}

static bool shown_endpoint(const struct gp_host *h, const struct gp_profile *p, size_t i)
{
	const struct gp_dev *d = &h->devs[i];

	return d->role == GP_ROLE_GPU || gp_map_nic_shown(h, p, i) ||
	       (d->with_gpu && d->iommu_group >= 0 && !d->is_bridge);
}

static int rc_index(struct build *b, const char *rc)
{
	int k;

	for (k = 0; k < b->nrc; k++)
		if (!strcmp(b->rcs[k], rc))
			return k;
	gp_strlcpy(b->rcs[b->nrc], rc, GP_NAME_LEN);
	b->rc_numa[b->nrc] = -1;
	b->rc_first[b->nrc] = -1;
	return b->nrc++;
}

/* Which devices are drawn, and what each drawn box folds. */
static void choose(struct build *b)
{
	const struct gp_host *h = b->h;
	size_t i;
	int a, r;

	for (i = 0; i < h->ndevs; i++)
		if (shown_endpoint(h, b->p, i))
			for (a = (int)i; a >= 0 && !b->keep[a]; a = h->devs[a].parent)
				b->keep[a] = true;
	for (i = 0; i < h->ndevs; i++) {
		r = rc_index(b, h->devs[i].rc);
		if (b->rc_numa[r] < 0)
			b->rc_numa[r] = h->devs[i].numa_node;
		if (b->keep[i])
			continue;
		for (a = h->devs[i].parent; a >= 0 && !b->keep[a]; a = h->devs[a].parent)
			;
		if (a >= 0)
			b->more[a]++;
		else
			b->rc_more[r]++;
	}
	/* children lists, built backwards so that each stays in device order */
	for (i = h->ndevs; i-- > 0;) {
		int *head;

		if (!b->keep[i])
			continue;
		a = h->devs[i].parent;
		head = a >= 0 ? &b->first[a] : &b->rc_first[rc_index(b, h->devs[i].rc)];
		b->next[i] = *head;
		*head = (int)i;
	}
}

static int add(struct gp_map *m, enum gp_map_kind kind, int dev, int parent, int depth)
{
	struct gp_map_node *n;

	m->n = gp_xrealloc(m->n, m->nn + 1, sizeof(*m->n));
	n = &m->n[m->nn];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->dev = dev;
	n->parent = parent;
	n->depth = depth;
	n->label = -1;
	n->numa = parent >= 0 ? m->n[parent].numa : -1;
	if (depth + 1 > m->depths)
		m->depths = depth + 1;
	return (int)m->nn++;
}

/* A leaf takes the next row; a parent sits between its first and last child. */
static void place(struct gp_map *m, int node, int first_child)
{
	struct gp_map_node *n = &m->n[node];
	size_t k;
	int last = -1;

	if (first_child < 0) {
		n->row = m->rows++;
		n->y = n->row;
		return;
	}
	for (k = (size_t)first_child; k < m->nn; k++)
		if (m->n[k].parent == node)
			last = (int)k;
	n->row = m->n[first_child].row;
	n->y = (m->n[first_child].y + m->n[last].y) / 2;
}

static enum gp_map_kind kind_of(const struct gp_dev *d)
{
	if (d->role == GP_ROLE_GPU)
		return GP_MAP_GPU;
	if (d->role == GP_ROLE_NIC)
		return GP_MAP_NIC;
	return d->is_bridge ? GP_MAP_BRIDGE : GP_MAP_DEV;
}

static void mark(struct build *b, int node)
{
	const struct gp_dev *d = &b->h->devs[b->m->n[node].dev];
	const struct gp_link *l = &d->link;

	b->m->n[node].degraded =
		l->width && l->max_width && (l->speed < l->max_speed || l->width < l->max_width);
	b->m->n[node].acs_redirect = d->has_acs && (d->acs_ctrl & (GP_ACS_RR | GP_ACS_CR));
	b->m->n[node].bond_port = bond_port(b->h, b->p, (size_t)b->m->n[node].dev);
	if (d->role == GP_ROLE_NIC) {
		const struct gp_iface *f = iface_of(b->h, (size_t)b->m->n[node].dev);

		b->m->n[node].ifname = f ? f->name : NULL;
	}
}

static void add_more(struct gp_map *m, int parent, int count, int depth)
{
	int k;

	if (!count)
		return;
	k = add(m, GP_MAP_MORE, -1, parent, depth);
	m->n[k].count = count;
	place(m, k, -1);
}

static void add_dev(struct build *b, int dev, int parent, int depth)
{
	struct gp_map *m = b->m;
	int node = add(m, kind_of(&b->h->devs[dev]), dev, parent, depth), c, first;

	b->dev2node[dev] = node;
	if (b->h->devs[dev].numa_node >= 0)
		m->n[node].numa = b->h->devs[dev].numa_node;
	mark(b, node);
	first = (int)m->nn;
	for (c = b->first[dev]; c >= 0; c = b->next[c])
		add_dev(b, c, node, depth + 1);
	add_more(m, node, b->more[dev], depth + 1);
	place(m, node, (int)m->nn > first ? first : -1);
}

static void add_rc(struct build *b, int r, int parent)
{
	struct gp_map *m = b->m;
	int node = add(m, GP_MAP_RC, -1, parent, 1), c, first = (int)m->nn;

	gp_strlcpy(m->n[node].rc, b->rcs[r], sizeof(m->n[node].rc));
	for (c = b->rc_first[r]; c >= 0; c = b->next[c])
		add_dev(b, c, node, 2);
	add_more(m, node, b->rc_more[r], 2);
	place(m, node, (int)m->nn > first ? first : -1);
}

static void add_numa(struct build *b, int id)
{
	struct gp_map *m = b->m;
	int node = add(m, GP_MAP_NUMA, -1, -1, 0), r, first = (int)m->nn;

	m->n[node].numa = id;
	for (r = 0; r < b->nrc; r++)
		if (b->rc_numa[r] == id || (id < 0 && !gp_host_numa(b->h, b->rc_numa[r])))
			add_rc(b, r, node);
	place(m, node, (int)m->nn > first ? first : -1);
}

/* Marks the boxes between a GPU and the box where its path meets b's. */
static void mark_path(struct gp_map *m, int a, int b)
{
	int x, y;

	for (x = a; x >= 0; x = m->n[x].parent)
		for (y = b; y >= 0; y = m->n[y].parent)
			if (x == y)
				goto met;
	m->numa_hop = true; /* no box in common: the SMP interconnect */
	x = -1;
met:
	for (y = a; y >= 0 && y != x; y = m->n[y].parent)
		m->n[y].p2p = true;
	for (y = b; y >= 0 && y != x; y = m->n[y].parent)
		m->n[y].p2p = true;
	if (x >= 0)
		m->n[x].p2p = true;
}

/* GPU and NIC numbers as topo gives them: in device order, every NIC function counted. */
static void number(struct build *b)
{
	const struct gp_host *h = b->h;
	size_t i;
	int ngpu = 0, nnic = 0, node;

	for (i = 0; i < h->ndevs; i++) {
		node = b->dev2node[i];
		if (h->devs[i].role == GP_ROLE_GPU && node >= 0)
			b->m->n[node].label = ngpu;
		if (h->devs[i].role == GP_ROLE_NIC && node >= 0)
			b->m->n[node].label = nnic;
		ngpu += h->devs[i].role == GP_ROLE_GPU;
		nnic += h->devs[i].role == GP_ROLE_NIC;
	}
	b->m->ngpus = ngpu;
}

int gp_map_nv_links(const struct gp_host *h, int a, int b)
{
	if (a == b || h->devs[a].role != GP_ROLE_GPU || h->devs[b].role != GP_ROLE_GPU)
		return 0;
	return gp_nv_pair_links(&h->nv, gp_nv_find(&h->nv, h->devs[a].bdf),
				gp_nv_find(&h->nv, h->devs[b].bdf));
}

/* A pair's NVLinks into the counts the legend states. */
static void nv_count(struct gp_map *m, int links)
{
	m->pairs++;
	if (!links)
		return;
	m->nv_min = m->nv_pairs++ ? (links < m->nv_min ? links : m->nv_min) : links;
	m->nv_max = links > m->nv_max ? links : m->nv_max;
}

static void p2p(struct build *b)
{
	struct gp_map *m = b->m;
	size_t i, j;
	enum gp_path c;

	m->worst = GP_PATH_X;
	number(b);
	for (i = 0; i < m->nn; i++)
		for (j = i + 1; j < m->nn && m->n[i].kind == GP_MAP_GPU; j++) {
			if (m->n[j].kind != GP_MAP_GPU)
				continue;
			c = gp_topo_classify(b->h, m->n[i].dev, m->n[j].dev);
			if (c > m->worst)
				m->worst = c;
			mark_path(m, (int)i, (int)j);
			nv_count(m, gp_map_nv_links(b->h, m->n[i].dev, m->n[j].dev));
		}
}

static void group_add(struct gp_map *m, const struct gp_map_node *n, int id)
{
	struct gp_map_group *g = NULL;
	size_t k;

	for (k = 0; k < m->ng && !g; k++)
		if (m->g[k].id == id)
			g = &m->g[k];
	if (!g) {
		m->g = gp_xrealloc(m->g, m->ng + 1, sizeof(*m->g));
		g = &m->g[m->ng++];
		g->id = id;
		g->first = g->last = n->row;
		g->depth_min = g->depth_max = n->depth;
		return;
	}
	g->first = n->row < g->first ? n->row : g->first;
	g->last = n->row > g->last ? n->row : g->last;
	g->depth_min = n->depth < g->depth_min ? n->depth : g->depth_min;
	g->depth_max = n->depth > g->depth_max ? n->depth : g->depth_max;
}

/* The IOMMU groups of the drawn endpoints (bridges have groups of their own). */
static void groups(const struct gp_host *h, struct gp_map *m)
{
	size_t i;

	for (i = 0; i < m->nn; i++) {
		const struct gp_map_node *n = &m->n[i];

		if (n->dev < 0 || h->devs[n->dev].is_bridge || h->devs[n->dev].iommu_group < 0)
			continue;
		group_add(m, n, h->devs[n->dev].iommu_group);
	}
}

void gp_map_build(const struct gp_host *h, const struct gp_profile *p, struct gp_map *m)
{
	size_t nd = h->ndevs + 1, i;
	struct build b = {
		.h = h,
		.p = p,
		.m = m,
		.keep = gp_xcalloc(nd, sizeof(bool)),
		.more = gp_xcalloc(nd, sizeof(int)),
		.first = gp_xcalloc(nd, sizeof(int)),
		.next = gp_xcalloc(nd, sizeof(int)),
		.dev2node = gp_xcalloc(nd, sizeof(int)),
		.rcs = gp_xcalloc(nd, GP_NAME_LEN),
		.rc_numa = gp_xcalloc(nd, sizeof(int)),
		.rc_more = gp_xcalloc(nd, sizeof(int)),
		.rc_first = gp_xcalloc(nd, sizeof(int)),
	};

	memset(m, 0, sizeof(*m));
	for (i = 0; i < nd; i++)
		b.first[i] = b.next[i] = b.dev2node[i] = -1;
	choose(&b);
	for (i = 0; i < h->nnuma; i++)
		add_numa(&b, h->numa[i].id);
	for (i = 0; i < (size_t)b.nrc; i++)
		if (!gp_host_numa(h, b.rc_numa[i])) {
			add_numa(&b, -1); /* the root complexes no NUMA node claims */
			break;
		}
	p2p(&b);
	groups(h, m);
	m->width = GP_MAP_LEFT * 2 + (m->depths - 1) * GP_MAP_COL + GP_MAP_BOXW;
	m->height = GP_MAP_TOP + m->rows * GP_MAP_ROW + 10;
	free(b.keep);
	free(b.more);
	free(b.first);
	free(b.next);
	free(b.dev2node);
	free(b.rcs);
	free(b.rc_numa);
	free(b.rc_more);
	free(b.rc_first);
}

void gp_map_release(struct gp_map *m)
{
	free(m->n);
	free(m->g);
	memset(m, 0, sizeof(*m));
}

double gp_map_x(const struct gp_map_node *n)
{
	return GP_MAP_LEFT + n->depth * GP_MAP_COL;
}

double gp_map_y(const struct gp_map_node *n)
{
	return GP_MAP_TOP + n->y * GP_MAP_ROW + (GP_MAP_ROW - GP_MAP_BOXH) / 2.0;
}
