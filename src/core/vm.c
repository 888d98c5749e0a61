// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The VM's layout, a pure function of host and profile: which devices go in,
 * one guest NUMA cell per host node that holds them, vCPUs and memory per
 * cell, and the 64-bit MMIO window the guest firmware must open for the
 * real BAR sizes.  domxml.c turns it into XML; checks.c judges it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/hostq.h"
#include "core/topo.h"
#include "core/vm.h"

#define STR_(x) #x
#define STR(x)	STR_(x)

_Static_assert(GP_VM_OUTPUT_MAX + 10 < GP_OUTPUT_LEN, "the NCCL file's path fits");

int gp_vm_output_check(const char *path, const char **why)
{
	static const char *const never[] = { "/proc/", "/sys/", "/dev/" };
	size_t n = strlen(path), i;

	*why = "expected an absolute path without '.', '..' or empty components";
	if (!gp_path_clean(path))
		return -EINVAL;
	*why = "too long: at most " STR(GP_VM_OUTPUT_MAX) " characters (its NCCL file goes "
							  "beside it, 10 longer)";
	if (n > GP_VM_OUTPUT_MAX)
		return -EINVAL;
	*why = "expected a file name ending in .xml";
	if (n < 6 || strcmp(path + n - 4, ".xml") || path[n - 5] == '/')
		return -EINVAL;
	*why = "expected a path outside /proc, /sys and /dev (the kernel's trees, where "
	       "rollback puts nothing back)";
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (!strncmp(path, never[i], strlen(never[i])))
			return -EINVAL;
	*why = NULL;
	return 0;
}

/* "X.nccl-topo.xml" for an output "X.xml" the rule above accepts. */
bool gp_vm_nccl_path_ok(const char *path)
{
	static const char suffix[] = ".nccl-topo.xml";
	char out[GP_OUTPUT_LEN];
	const char *why;
	size_t n = strlen(path), s = sizeof(suffix) - 1;

	if (n <= s || strcmp(path + n - s, suffix) || n - s + 4 >= sizeof(out))
		return false;
	snprintf(out, sizeof(out), "%.*s.xml", (int)(n - s), path);
	return !gp_vm_output_check(out, &why);
}

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

/* The GPUs, with [fabric] mode = full the NVSwitches, the RoCE functions of
 * [nic] mode = passthrough, and with companions = bind the other endpoints
 * of their groups: what is bound to vfio-pci and what goes into the VM. */
bool gp_vm_passed(const struct gp_host *h, const struct gp_profile *p, size_t i)
{
	const struct gp_dev *d = &h->devs[i];

	if (d->role == GP_ROLE_GPU || gp_fabric_passed(p, d) || d->nic_passed)
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

		/* a VF is a card of its own: one function, its own port */
		for (k = 0; k < i && (v->vf >= 0 || l->devs[k].vf >= 0 ||
				      !gp_same_card(&h->devs[l->devs[k].dev], d));
		     k++)
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
		l->devs[i].fn = l->devs[i].vf >= 0 ? 0 : has_fn0 ? d->func : below;
	}
}

/*
 * Where each card sits in the guest.  Each cell gets a pcie-expander-bus,
 * their bus numbers counting down from 240, 16 apart; its root ports take
 * slots 0, 1, ... in the order of the cards (an emulated switch at the
 * place of its first card).  The guest firmware (OVMF, SeaBIOS) numbers the
 * buses behind an expander bus depth first from its busNr + 1, in slot
 * order, and Linux keeps those numbers: a root port with one card below it
 * takes one bus; a switch takes the root port's (its upstream port's bus),
 * the upstream port's (its downstream ports' bus) and one a downstream
 * port, in their slot order (tests/lab/ovmf.sh reads them back in a booted
 * guest).
 */
#define PXB_BUS_TOP 256

static void addresses(struct gp_vm_layout *l)
{
	unsigned used[GP_VM_MAX_CELLS] = { 0 }, next[GP_VM_MAX_CELLS];
	int c, p, k;

	for (c = 0; c < l->ncells; c++) {
		l->cells[c].bus_nr = PXB_BUS_TOP - 16 * (unsigned)(c + 1);
		next[c] = l->cells[c].bus_nr + 1;
	}
	for (p = 0; p < l->nports; p++) {
		struct gp_vm_port *port = &l->ports[p];
		struct gp_vm_switch *s;
		unsigned down = 0;

		c = port->cell;
		if (port->sw < 0) {
			port->slot = used[c]++;
			port->bus = next[c]++;
			continue;
		}
		s = &l->switches[port->sw];
		for (k = 0; k < p && l->ports[k].sw != port->sw; k++)
			;
		if (k < p)
			continue; /* numbered with the switch's first port */
		s->slot = used[c]++;
		s->up_bus = next[c]++;
		s->bus = next[c]++;
		for (k = p; k < l->nports; k++)
			if (l->ports[k].sw == port->sw) {
				l->ports[k].slot = down++;
				l->ports[k].bus = next[c]++;
			}
	}
}

/* Whether a passed NIC of one port and a device of the other share a host switch. */
static bool ports_share_switch(const struct gp_host *h, const struct gp_vm_layout *l, int a, int b)
{
	int i, k;

	for (i = 0; i < l->ndevs; i++) {
		if (l->devs[i].port != a && l->devs[i].port != b)
			continue;
		for (k = 0; k < l->ndevs; k++) {
			enum gp_path c;

			if (l->devs[k].port != (l->devs[i].port == a ? b : a))
				continue;
			if (!l->devs[i].nic && !l->devs[k].nic)
				continue;
			c = gp_topo_classify(h, l->devs[i].dev, l->devs[k].dev);
			if (c == GP_PATH_PIX || c == GP_PATH_PXB)
				return true;
		}
	}
	return false;
}

/*
 * The cards a passed NIC shares a host PCIe switch with go under one
 * emulated switch with it, so that the guest's own tree has them behind
 * one switch (NCCL's PIX or PXB, where GPUDirect RDMA stays on), not
 * behind separate root ports (PHB).  Without a passed NIC nothing changes:
 * each card keeps a root port of its own.
 */
static void switches(const struct gp_host *h, struct gp_vm_layout *l)
{
	int a, b, k;

	for (a = 0; a < l->nports; a++)
		l->ports[a].sw = -1;
	for (a = 0; a < l->nports; a++)
		for (b = a + 1; b < l->nports; b++) {
			int from, to;

			if (l->ports[a].cell != l->ports[b].cell ||
			    (l->ports[a].sw >= 0 && l->ports[a].sw == l->ports[b].sw) ||
			    !ports_share_switch(h, l, a, b))
				continue;
			if (l->ports[a].sw < 0 && l->ports[b].sw < 0) {
				l->switches[l->nswitches].cell = l->ports[a].cell;
				l->ports[a].sw = l->ports[b].sw = l->nswitches++;
				continue;
			}
			if (l->ports[b].sw < 0 || l->ports[a].sw < 0) {
				l->ports[l->ports[b].sw < 0 ? b : a].sw =
					l->ports[b].sw < 0 ? l->ports[a].sw : l->ports[b].sw;
				continue;
			}
			/* two switches met: b's joins a's (its entry stays, unused) */
			from = l->ports[b].sw;
			to = l->ports[a].sw;
			for (k = 0; k < l->nports; k++)
				if (l->ports[k].sw == from)
					l->ports[k].sw = to;
		}
}

int gp_vm_guest_bdf(const struct gp_vm_layout *l, int i, char *out, size_t len)
{
	const struct gp_vm_port *port = &l->ports[l->devs[i].port];

	/* the buses up to the next expander bus's busNr (or 255) are this one's */
	if (port->bus - l->cells[port->cell].bus_nr > GP_VM_PORTS_PER_CELL)
		return -ERANGE;
	snprintf(out, len, "0000:%02x:00.%x", port->bus, l->devs[i].fn);
	return 0;
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

		if (!l->devs[i].nvidia)
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

/*
 * The 64-bit MMIO window, laid out as OVMF lays it out (PciHostBridgeDxe and
 * PciBusDxe, seen on edk2 2022.11): the root bridges in bus-number order,
 * pcie.0 first, then each expander bus aligned to its largest BAR; behind an
 * expander bus, one root port window per card, largest alignment first,
 * each aligned to its own largest BAR and as long as its BARs packed largest
 * first.  Every alignment leaves a gap: a 256 GiB BAR after pcie.0's few MiB
 * starts 256 GiB into the window.
 */
struct window {
	uint64_t size, align;
};

/* What the template's own devices on pcie.0 (disk, NIC, USB) may use: OVMF
 * gives them a few MiB; any use at all pushes the first expander bus to its
 * alignment. */
#define PCIE0_ALLOWANCE (4 * GIB)
/* OVMF's 64-bit window when X-PciMmio64Mb is not given */
#define OVMF_DEFAULT_WINDOW (32 * GIB)

/* Largest alignment first; among equal ones the window with the least tail
 * to its next alignment last, so the sum is the worst order OVMF could pick. */
static int window_cmp(const void *a, const void *b)
{
	const struct window *x = a, *y = b;
	uint64_t tx, ty;

	if (x->align != y->align)
		return x->align < y->align ? 1 : -1;
	tx = align_up(x->size, x->align) - x->size;
	ty = align_up(y->size, y->align) - y->size;
	return tx < ty ? 1 : tx > ty ? -1 : 0;
}

/* One guest root port's window: the 64-bit BARs of the card's functions
 * behind it, largest first, each naturally aligned. */
static struct window port_window(const struct gp_host *h, struct gp_vm_layout *l, int port)
{
	struct window w = { 0, 0 };
	uint64_t sizes[GP_VM_MAX_DEVS * GP_MAX_BARS];
	int n = 0, i, k;

	for (i = 0; i < l->ndevs; i++) {
		const struct gp_dev *d = &h->devs[l->devs[i].dev];

		/* a VF's BARs are not the PF's: sized by its capability, not read (small) */
		if (l->devs[i].port != port || l->devs[i].vf >= 0)
			continue;
		for (k = 0; k < d->nbars; k++)
			if (d->bars[k].is64 && !d->bars[k].io)
				sizes[n++] = pow2_up(d->bars[k].size);
	}
	while (n) {
		int best = 0;

		for (k = 1; k < n; k++)
			if (sizes[k] > sizes[best])
				best = k;
		if (!w.align)
			w.align = sizes[best];
		w.size = align_up(w.size, sizes[best]) + sizes[best];
		l->bar64_total += sizes[best];
		sizes[best] = sizes[--n];
	}
	w.size = align_up(w.size, MIB); /* bridge window granularity */
	return w;
}

/* Windows packed as a bridge above them holds them: largest alignment first. */
static struct window pack(struct window *w, int n)
{
	struct window all = { 0, 0 };
	int k;

	qsort(w, (size_t)n, sizeof(w[0]), window_cmp);
	for (k = 0; k < n; k++) {
		if (w[k].align > all.align)
			all.align = w[k].align;
		all.size = align_up(all.size, w[k].align) + w[k].size;
	}
	all.size = align_up(all.size, MIB);
	return all;
}

/* An emulated switch's root port window: its downstream ports' windows. */
static struct window switch_window(const struct gp_host *h, struct gp_vm_layout *l, int sw)
{
	struct window w[GP_VM_MAX_DEVS];
	int p, n = 0;

	for (p = 0; p < l->nports; p++) {
		if (l->ports[p].sw != sw)
			continue;
		w[n] = port_window(h, l, p);
		if (w[n].size)
			n++;
	}
	return pack(w, n);
}

/* Where the expander bus of one cell ends, starting at off. */
static uint64_t cell_end(const struct gp_host *h, struct gp_vm_layout *l, int cell, uint64_t off)
{
	struct window w[GP_VM_MAX_DEVS];
	int p, k, n = 0;

	for (p = 0; p < l->nports; p++) {
		if (l->ports[p].cell != cell)
			continue;
		for (k = 0; l->ports[p].sw >= 0 && k < p && l->ports[k].sw != l->ports[p].sw; k++)
			;
		if (l->ports[p].sw >= 0 && k < p)
			continue; /* the switch's window counted at its first port */
		w[n] = l->ports[p].sw >= 0 ? switch_window(h, l, l->ports[p].sw)
					   : port_window(h, l, p);
		if (w[n].size)
			n++;
	}
	if (!n)
		return off;
	qsort(w, (size_t)n, sizeof(w[0]), window_cmp);
	for (p = 0; p < n; p++)
		off = align_up(off, w[p].align) + w[p].size;
	return off;
}

static void mmio(const struct gp_host *h, struct gp_vm_layout *l)
{
	uint64_t off = PCIE0_ALLOWANCE;
	int c;

	/* domxml numbers the expander buses down from 240: the last cell's
	 * has the lowest bus number, and OVMF places it first */
	for (c = l->ncells - 1; c >= 0; c--)
		off = cell_end(h, l, c, off);
	if (!l->bar64_total)
		return;
	/* in whole GiB: OVMF rounds a size such as 1 TiB + 1 MiB up itself
	 * (docs/FACTS-firmware.md), so asking for whole GiB costs nothing */
	l->mmio_window = align_up(off, GIB);
	if (l->mmio_window < OVMF_DEFAULT_WINDOW)
		l->mmio_window = OVMF_DEFAULT_WINDOW;
}

/*
 * The end of the window in the guest's physical address space: OVMF opens
 * it at the first multiple of its largest power of two above RAM (above
 * 4 GiB + memory, at most).
 */
uint64_t gp_vm_mmio_end(const struct gp_vm_layout *l, uint64_t memory)
{
	uint64_t a = 1;

	if (!l->mmio_window)
		return 0;
	while (a <= l->mmio_window / 2)
		a <<= 1;
	return align_up(4 * GIB + memory, a) + l->mmio_window;
}

/* How many passed NICs serve GPU g (in l->devs). */
static int rail_load(const struct gp_vm_layout *l, int g)
{
	int i, n = 0;

	for (i = 0; i < l->ndevs; i++)
		n += l->devs[i].nic && l->devs[i].rail == g;
	return n;
}

/*
 * Each passed NIC serves the GPU nearest to it on the host (topo's class:
 * a shared switch before the root complex before the node), and among
 * equally near ones the GPU fewest NICs serve yet: a NIC per GPU where the
 * counts allow.  NCCL in the guest pairs GPUs and NICs itself, by
 * distance; this names the pairs gpuprov places and checks.
 */
static void rails(const struct gp_host *h, struct gp_vm_layout *l)
{
	int i, g;

	for (i = 0; i < l->ndevs; i++) {
		struct gp_vm_dev *v = &l->devs[i];
		enum gp_path best = GP_PATH_SYS;
		int load = 0;

		v->rail = -1;
		for (g = 0; v->nic && g < l->ndevs; g++) {
			enum gp_path c;
			int n;

			if (!l->devs[g].gpu)
				continue;
			c = gp_topo_classify(h, v->dev, l->devs[g].dev);
			n = rail_load(l, g);
			if (v->rail < 0 || c < best || (c == best && n < load)) {
				v->rail = g;
				best = c;
				load = n;
			}
		}
	}
}

/*
 * [nic] mode = vf: the first VF of each port [nic] match names, where its
 * address is known (plan.c blocks where it is not); the others stay.
 */
static bool vf_of(const struct gp_host *h, const struct gp_profile *p, size_t i,
		  struct gp_vm_dev *v, int *vfs)
{
	const struct gp_dev *d = &h->devs[i];

	if (!p->has_nic || p->nic.mode != GP_NIC_VF || !gp_nic_matches(p, d) ||
	    gp_vf_bdf(d, 0, v->vf_bdf))
		return false;
	v->vf = 0;
	gp_vf_mac(p->vm.name, d->bdf, 0, v->mac);
	snprintf(v->alias, sizeof(v->alias), "ua-gpuprov-vf%d", (*vfs)++);
	return true;
}

void gp_vm_layout(const struct gp_host *h, const struct gp_profile *p, struct gp_vm_layout *l)
{
	unsigned vcpus = p->vm.vcpus, left;
	size_t i;
	int c, gpus = 0, nics = 0, vfs = 0;

	memset(l, 0, sizeof(*l));
	l->numa_known = true;
	for (i = 0; i < h->ndevs && l->ndevs < GP_VM_MAX_DEVS; i++) {
		struct gp_vm_dev *v = &l->devs[l->ndevs];
		bool gpu = h->devs[i].role == GP_ROLE_GPU;

		v->vf = -1;
		if (vf_of(h, p, i, v, &vfs)) {
			v->dev = (int)i;
			v->nic = true;
			l->numa_known &= h->devs[i].numa_node >= 0;
			l->ndevs++;
			continue;
		}
		if (!gp_vm_passed(h, p, i))
			continue;
		if (h->devs[i].numa_node < 0)
			l->numa_known = false;
		v->dev = (int)i;
		v->gpu = gpu;
		v->nic = h->devs[i].nic_passed;
		v->nvidia = gpu && h->devs[i].vendor == 0x10de; /* NVIDIA */
		if (v->nic)
			snprintf(v->alias, sizeof(v->alias), "ua-gpuprov-nic%d", nics++);
		else
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
	rails(h, l);
	switches(h, l);
	addresses(l);
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
	for (c = 1; c < l->ncells; c++)
		l->cells[c].first_vcpu = l->cells[c - 1].first_vcpu + l->cells[c - 1].vcpus;
	mmio(h, l);
	clique(h, p, l);
}
