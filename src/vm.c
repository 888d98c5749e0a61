// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The VM's layout, a pure function of host and profile: which devices go in,
 * one guest NUMA cell per host node that holds them, vCPUs and memory per
 * cell, and the 64-bit MMIO window the guest firmware must open for the
 * real BAR sizes.  domxml.c turns it into XML; checks.c judges it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static uint64_t pow2_up(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (1ull << 62))
		p <<= 1;
	return p;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* The GPUs, and with companions = bind the other endpoints of their groups:
 * what is bound to vfio-pci and what goes into the VM. */
bool gp_vm_passed(const struct gp_host *h, const struct gp_profile *p, size_t i)
{
	const struct gp_dev *d = &h->devs[i];

	if (d->role == GP_ROLE_GPU)
		return true;
	return p->companions == GP_COMP_BIND && !d->is_bridge && d->with_gpu;
}

static int cell_of(struct gp_vm_layout *l, const struct gp_host *h, int node)
{
	const struct gp_numa *nn;
	int c;

	for (c = 0; c < l->ncells; c++)
		if (l->cells[c].host_node == node)
			return c;
	if (l->ncells == GP_VM_MAX_CELLS)
		return l->ncells - 1;
	c = l->ncells++;
	l->cells[c].host_node = node;
	nn = gp_host_numa(h, node);
	gp_strlcpy(l->cells[c].cpus, nn ? nn->cpus : "", sizeof(l->cells[c].cpus));
	return c;
}

static bool same_card(const struct gp_dev *a, const struct gp_dev *b)
{
	return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

/*
 * The functions of one host card share one guest root port, at their host
 * function numbers: the guest driver finds the card's audio or companion
 * function where it expects it.  A guest only looks past function 0 when
 * there is one, so a card whose function 0 stays on the host has its
 * functions renumbered from 0, in the host's order.
 */
static void cards(const struct gp_host *h, struct gp_vm_layout *l)
{
	int i, k;

	for (i = 0; i < l->ndevs; i++) {
		struct gp_vm_dev *v = &l->devs[i];
		const struct gp_dev *d = &h->devs[v->dev];

		for (k = 0; k < i && !same_card(&h->devs[l->devs[k].dev], d); k++)
			;
		if (k < i) {
			v->port = l->devs[k].port;
			v->cell = l->devs[k].cell; /* a card sits on one node */
		} else {
			v->port = l->nports++;
			l->ports[v->port].cell = v->cell;
		}
		l->ports[v->port].nfuncs++;
	}
	for (i = 0; i < l->ndevs; i++) {
		const struct gp_dev *d = &h->devs[l->devs[i].dev];
		bool has_fn0 = false;
		unsigned below = 0;

		for (k = 0; k < l->ndevs; k++) {
			const struct gp_dev *o = &h->devs[l->devs[k].dev];

			if (l->devs[k].port != l->devs[i].port)
				continue;
			has_fn0 |= o->func == 0;
			below += o->func < d->func;
		}
		l->devs[i].fn = has_fn0 ? d->func : below;
	}
}

/*
 * The GPUDirect clique is an 8-byte vendor capability QEMU adds before the
 * device's own.  QEMU before 8.1 always puts it at 0xC8; 8.1 and later at
 * 0xD4 when a capability starts at 0xC8 (hw/vfio/pci-quirks.c).  QEMU
 * emulates MSI and MSI-X at their exact length and ends every other
 * capability where the next one begins, so only their first bytes can
 * clash.  Without readable config space (not root), NVIDIA device IDs
 * from 0x1e00 (Turing) on are taken to have MSI-X at 0xC8, as the A100 has.
 */
static bool cap_overlaps(const struct gp_cap *c, int n, int at)
{
	int k;

	for (k = 0; k < n; k++)
		if (c[k].pos < at + 8 && c[k].pos + (c[k].len ? c[k].len : 2) > at)
			return true;
	return false;
}

static bool cap_starts(const struct gp_cap *c, int n, int at)
{
	int k;

	for (k = 0; k < n; k++)
		if (c[k].pos == at)
			return true;
	return false;
}

static enum gp_clique_fit clique_fit(const struct gp_dev *d, const char *qemu, int *pos)
{
	static const struct gp_cap turing[] = { { 0x11, 0xc8, 12 } };
	const struct gp_cap *c = d->caps;
	int n = d->ncaps, at;
	bool old_ok, new_ok;

	if (d->config_short) {
		c = turing;
		n = d->device >= 0x1e00 ? 1 : 0;
	}
	at = cap_starts(c, n, 0xc8) ? 0xd4 : 0xc8;
	old_ok = !cap_overlaps(c, n, 0xc8);
	new_ok = !(at == 0xd4 && cap_starts(c, n, 0xd4)) && !cap_overlaps(c, n, at);
	*pos = 0xc8;
	if (!qemu[0])
		return old_ok ? GP_CLIQUE_FITS : new_ok ? GP_CLIQUE_UNKNOWN : GP_CLIQUE_NO_ROOM;
	if (gp_version_cmp(qemu, "8.1") < 0)
		return old_ok ? GP_CLIQUE_FITS : new_ok ? GP_CLIQUE_OLD_QEMU : GP_CLIQUE_NO_ROOM;
	*pos = at;
	return new_ok ? GP_CLIQUE_FITS : GP_CLIQUE_NO_ROOM;
}

/* The worst GPU decides; with p2p = preferred a clique QEMU cannot add is left out. */
static void clique(const struct gp_host *h, const struct gp_profile *p, struct gp_vm_layout *l)
{
	int i, pos;

	l->clique = p->vm.clique;
	l->clique_dev = -1;
	for (i = 0; p->vm.clique >= 0 && i < l->ndevs; i++) {
		const struct gp_dev *d = &h->devs[l->devs[i].dev];
		enum gp_clique_fit f;

		if (!l->devs[i].gpu || d->vendor != 0x10de)
			continue;
		f = clique_fit(d, h->qemu_version, &pos);
		if (l->clique_dev < 0 || f > l->clique_fit) {
			l->clique_fit = f;
			l->clique_dev = i;
			l->clique_pos = pos;
		}
	}
	if (l->clique_fit >= GP_CLIQUE_OLD_QEMU && p->p2p == GP_P2P_PREFERRED) {
		l->clique = -1;
		l->clique_left_out = true;
	}
}

/* One root port window per device, packed largest alignment first. */
struct window {
	uint64_t size, align;
};

static int window_cmp(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return x->align < y->align ? 1 : x->align > y->align ? -1 : 0;
}

static void mmio(const struct gp_host *h, struct gp_vm_layout *l)
{
	struct window w[GP_VM_MAX_DEVS];
	uint64_t addr = 0;
	int i, k;

	for (i = 0; i < l->ndevs; i++) {
		const struct gp_dev *d = &h->devs[l->devs[i].dev];
		uint64_t sizes[GP_MAX_BARS];
		int n = 0;

		for (k = 0; k < d->nbars; k++)
			if (d->bars[k].is64 && !d->bars[k].io)
				sizes[n++] = pow2_up(d->bars[k].size);
		w[i].size = w[i].align = 0;
		/* BARs of one device: largest first, each then naturally aligned */
		while (n) {
			int best = 0;

			for (k = 1; k < n; k++)
				if (sizes[k] > sizes[best])
					best = k;
			if (!w[i].align)
				w[i].align = sizes[best];
			w[i].size += sizes[best];
			l->bar64_total += sizes[best];
			sizes[best] = sizes[--n];
		}
		w[i].size = align_up(w[i].size, MIB); /* bridge window granularity */
	}
	qsort(w, (size_t)l->ndevs, sizeof(w[0]), window_cmp);
	for (i = 0; i < l->ndevs; i++)
		addr = align_up(addr, w[i].align) + w[i].size;
	/* a quarter more for what the firmware places there too, then a power of two */
	l->mmio_window = addr ? pow2_up(addr + addr / 4) : 0;
	if (l->mmio_window && l->mmio_window < 32 * GIB)
		l->mmio_window = 32 * GIB;
}

void gp_vm_layout(const struct gp_host *h, const struct gp_profile *p, struct gp_vm_layout *l)
{
	unsigned vcpus = p->vm.vcpus, left;
	size_t i;
	int c, gpus = 0;

	memset(l, 0, sizeof(*l));
	l->numa_known = true;
	for (i = 0; i < h->ndevs && l->ndevs < GP_VM_MAX_DEVS; i++) {
		struct gp_vm_dev *v = &l->devs[l->ndevs];
		bool gpu = h->devs[i].role == GP_ROLE_GPU;

		if (!gp_vm_passed(h, p, i))
			continue;
		if (h->devs[i].numa_node < 0)
			l->numa_known = false;
		v->dev = (int)i;
		v->gpu = gpu;
		snprintf(v->alias, sizeof(v->alias), gpu ? "ua-gpu%d" : "ua-gpuprov-dev%d",
			 gpu ? gpus++ : l->ndevs);
		l->ndevs++;
	}
	if (!l->ndevs)
		l->numa_known = false; /* nothing to place: no pinning either */
	for (i = 0; i < (size_t)l->ndevs; i++)
		l->devs[i].cell =
			cell_of(l, h, l->numa_known ? h->devs[l->devs[i].dev].numa_node : -1);
	if (!l->ncells)
		cell_of(l, h, -1);
	cards(h, l);
	for (c = 0; c < l->ncells; c++)
		if (!l->cells[c].cpus[0])
			l->numa_known = false; /* the host does not list the node's CPUs */
	/* vCPUs and memory split over the cells, the remainder to the first */
	left = vcpus;
	for (c = 0; c < l->ncells; c++) {
		l->cells[c].vcpus = vcpus / (unsigned)l->ncells;
		left -= l->cells[c].vcpus;
		l->cells[c].memory = p->vm.memory / (uint64_t)l->ncells;
	}
	l->cells[0].vcpus += left;
	l->cells[0].memory += p->vm.memory % (uint64_t)l->ncells;
	mmio(h, l);
	clique(h, p, l);
}
