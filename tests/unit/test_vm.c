// SPDX-License-Identifier: GPL-2.0-or-later
/* The VM layout (cells, devices, MMIO window) and the vm.* checks. */
#include "unit.h"
#include "core/hugepages.h"
#include "core/nccl_topo.h"
#include "core/pinning.h"
#include "core/vm.h"
#include "core/checks.h"
#include "host/host.h"

#define GIB (1ull << 30)

struct run {
	struct gp_host h;
	struct gp_profile p;
	struct gp_vm_layout l;
};

static void layout(struct run *x, const char *host, const char *profile)
{
	memset(x, 0, sizeof(*x));
	unit_profile(profile, &x->p);
	unit_host(host, &x->p, &x->h);
	gp_vm_layout(&x->h, &x->p, &x->l);
}

static const struct gp_finding *finding(const struct gp_report *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].id, id))
			return &r->items[i];
	fail_msg("no %s", id);
	return NULL;
}

static void test_a100(void **state)
{
	struct run x;

	(void)state;
	layout(&x, "r5350-ready",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
	       "[vm]\nname = v\nvcpus = 32\nmemory = 256GiB\n");
	assert_int_equal(x.l.ndevs, 2);
	assert_string_equal(x.l.devs[1].alias, "ua-gpu1");
	assert_int_equal(x.l.ncells, 1);
	assert_int_equal(x.l.cells[0].host_node, 0);
	assert_string_equal(x.l.cells[0].cpus, "0-63,128-191");
	assert_int_equal(x.l.cells[0].vcpus, 32);
	/* 2 x (128 GiB + 32 MiB) behind one expander bus, which OVMF aligns to
	 * 128 GiB after pcie.0's devices: root port windows at 128 and 384 GiB */
	assert_true(x.l.bar64_total == 2 * (128 * GIB + (32ull << 20)));
	assert_true(x.l.mmio_window == 513 * GIB);
	gp_host_release(&x.h);
}

static void test_h200(void **state)
{
	struct run x;

	(void)state;
	layout(&x, "h200x2-guest", "[gpus]\nmatch = 10de:2335\ncount = 2\n[vm]\nname = v\n");
	/* 16 MiB + 256 GiB + 32 MiB, all 64-bit, twice */
	assert_true(x.l.bar64_total == 2 * (256 * GIB + (48ull << 20)));
	/* the gap before the expander bus (256 GiB), the first GPU (256 GiB +
	 * 48 MiB), the second at the next 256 GiB: 1 TiB + 48 MiB, in whole GiB.
	 * 1 TiB leaves the second BAR without an address (tests/lab/ovmf.sh). */
	assert_true(x.l.mmio_window == 1025 * GIB);
	/* a VM of one node: the kernel's -1 is node 0, one guest cell there */
	assert_true(x.l.numa_known);
	assert_int_equal(x.l.ncells, 1);
	assert_int_equal(x.l.cells[0].host_node, 0);
	/* OVMF opens it at 1 TiB: it ends at 2 TiB + 1 GiB */
	assert_true(gp_vm_mmio_end(&x.l, x.p.vm.memory) == 2049 * GIB);
	gp_host_release(&x.h);
}

/* Root port windows of one alignment: the one with the least tail to the
 * next alignment goes last, the worst order OVMF could pick. */
static void test_equal_alignment(void **state)
{
	struct run x;
	int g, k;

	(void)state;
	layout(&x, "h200x2-guest", "[gpus]\nmatch = 10de:2335\ncount = 2\n[vm]\nname = v\n");
	g = x.l.devs[0].dev; /* the first GPU keeps only its 256 GiB BAR */
	for (k = 0; k < x.h.devs[g].nbars; k++)
		if (x.h.devs[g].bars[k].size < 256 * GIB)
			x.h.devs[g].bars[k].is64 = false;
	gp_vm_layout(&x.h, &x.p, &x.l);
	/* gap, 256 GiB + 48 MiB padded to 512 GiB, then 256 GiB: 1 TiB; the
	 * other order would end at 768 GiB + 48 MiB */
	assert_true(x.l.mmio_window == 1024 * GIB);
	gp_host_release(&x.h);
}

/* Two expander buses: a gap before each. */
static void test_h200_nodes(void **state)
{
	struct gp_report r = { 0 };
	struct run x;

	(void)state;
	layout(&x, "h200-2node",
	       "[gpus]\nmatch = 10de:2335\ncount = 2\n[vm]\nname = v\nmemory = 8GiB\n");
	assert_int_equal(x.l.ncells, 2);
	/* gap 256 GiB, node 1's GPU, gap to 768 GiB, node 0's GPU */
	assert_true(x.l.mmio_window == 1025 * GIB);
	x.h.phys_bits = 41; /* 2 TiB: the window ends 1 GiB beyond */
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_FAIL);
	gp_report_release(&r);
	x.h.phys_bits = 42;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_OK);
	assert_non_null(strstr(finding(&r, "vm.mmio")->message, "or a larger window of its own"));
	gp_report_release(&r);
	gp_host_release(&x.h);
}

/* Eight: 2 TiB of BARs need a 4 TiB window, opened at 4 TiB: 44 bits. */
static void test_h200x8(void **state)
{
	struct gp_report r = { 0 };
	struct run x;

	(void)state;
	layout(&x, "h200x8",
	       "[gpus]\nmatch = 10de:2335\ncount = 8\n[vm]\nname = v\nmemory = 64GiB\n");
	/* per node 3 x 512 GiB + 256 GiB + 48 MiB, each bus after a gap to the
	 * next 256 GiB: 256 GiB + 1792 GiB + 48 MiB + (gap) 2304 GiB + ... */
	assert_true(x.l.mmio_window == 4097 * GIB);
	assert_true(gp_vm_mmio_end(&x.l, x.p.vm.memory) == 8193 * GIB);
	x.h.phys_bits = 43;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_FAIL);
	gp_report_release(&r);
	x.h.phys_bits = 44;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_OK);
	gp_report_release(&r);
	gp_host_release(&x.h);
}

/*
 * Where the guest finds each card (the OVMF lab reads them back in a booted
 * guest): two cells, expander buses 240 and 224, four root ports each; and
 * the same addresses in the NCCL topology file, read back as verify reads it.
 */
static void test_guest_addresses(void **state)
{
	static const char seen[2][GP_BDF_LEN] = { "0000:f1:00.0", "0000:41:00.0" };
	char bdf[GP_BDF_LEN], ids[16][GP_BDF_LEN], *xml;
	struct gp_nccl_match m;
	struct run x;
	int i, n;

	(void)state;
	layout(&x, "h200x8",
	       "[gpus]\nmatch = 10de:2335\ncount = 8\n[vm]\nname = v\nvcpus = 8\nmemory = 64GiB\n");
	assert_int_equal(x.l.ncells, 2);
	assert_int_equal(x.l.cells[0].bus_nr, 240);
	assert_int_equal(x.l.cells[1].bus_nr, 224);
	assert_int_equal(x.l.cells[1].first_vcpu, 4);
	for (i = 0; i < x.l.ndevs; i++) {
		const struct gp_vm_port *port = &x.l.ports[x.l.devs[i].port];

		assert_int_equal(gp_vm_guest_bdf(&x.l, i, bdf, sizeof(bdf)), 0);
		assert_int_equal(port->bus, x.l.cells[port->cell].bus_nr + 1 + port->slot);
		assert_true(port->slot < 4);
	}
	assert_int_equal(gp_vm_guest_bdf(&x.l, 0, bdf, sizeof(bdf)), 0);
	assert_string_equal(bdf, "0000:f1:00.0");
	assert_int_equal(gp_nccl_topo_build(&x.h, &x.p, false, &xml), 0);
	n = gp_nccl_topo_gpus(xml, strlen(xml), ids, 16);
	assert_int_equal(n, 8);
	for (i = 0; i < x.l.ndevs; i++) {
		gp_vm_guest_bdf(&x.l, i, bdf, sizeof(bdf));
		assert_string_equal(ids[i], bdf); /* one cell after the other, in layout order */
	}
	/* as verify compares it with the GPUs it sees */
	assert_int_equal(gp_nccl_topo_match(xml, strlen(xml), seen, 2, &m), 0);
	assert_int_equal(m.nfile, 8);
	assert_int_equal(m.nmissing, 1);
	assert_string_equal(m.missing[0], "0000:41:00.0");
	assert_int_equal(m.nunknown, 7);
	assert_int_equal(gp_nccl_topo_match("x", 1, seen, 2, &m), -EINVAL);
	free(xml);
	assert_int_equal(gp_nccl_topo_gpus("<domain/>", 9, ids, 16), -EINVAL);
	assert_int_equal(gp_nccl_topo_gpus("<system", 7, ids, 16), -EINVAL);
	/* a bus past the 15 an expander bus can number */
	x.l.ports[x.l.devs[0].port].bus = x.l.cells[0].bus_nr + 1 + GP_VM_PORTS_PER_CELL;
	assert_int_equal(gp_vm_guest_bdf(&x.l, 0, bdf, sizeof(bdf)), -ERANGE);
	gp_host_release(&x.h);
}

#define ROCE                                                                    \
	"[gpus]\nmatch = 10de:2335 10de:20b5\ncount = 2\nsame_numa_node = no\n" \
	"[vm]\nname = v\nvcpus = 8\nmemory = 8GiB\n"                            \
	"[nic]\nmatch = 15b3:101d 15b3:1021\nmode = passthrough\n"

/* [nic] passthrough: each port beside its GPU, under one emulated switch
 * where the host has them under one, on its own root port where not. */
static void test_roce(void **state)
{
	char bdf[GP_BDF_LEN];
	struct run x;
	int i;

	(void)state;
	layout(&x, "roce-rails", ROCE);
	assert_int_equal(x.l.ndevs, 4);
	assert_int_equal(x.l.ncells, 2);
	/* in host order: GPU 43, NIC 44 (node 0), GPU 85, NIC 86 (node 1) */
	assert_true(x.l.devs[1].nic && !x.l.devs[1].gpu);
	assert_string_equal(x.l.devs[1].alias, "ua-gpuprov-nic0");
	assert_string_equal(x.l.devs[3].alias, "ua-gpuprov-nic1");
	assert_int_equal(x.l.devs[1].rail, 0);
	assert_int_equal(x.l.devs[3].rail, 2);
	assert_int_equal(x.l.devs[0].rail, -1);
	for (i = 0; i < 4; i += 2) {
		const struct gp_vm_port *g = &x.l.ports[x.l.devs[i].port];
		const struct gp_vm_port *n = &x.l.ports[x.l.devs[i + 1].port];
		const struct gp_vm_switch *s = &x.l.switches[g->sw];

		assert_true(g->sw >= 0 && g->sw == n->sw);
		assert_int_equal(g->cell, n->cell);
		/* root port busNr + 1, upstream port's bus + 1, a bus per downstream port */
		assert_int_equal(s->slot, 0);
		assert_int_equal(s->up_bus, x.l.cells[g->cell].bus_nr + 1);
		assert_int_equal(s->bus, s->up_bus + 1);
		assert_int_equal(g->slot, 0);
		assert_int_equal(n->slot, 1);
		assert_int_equal(g->bus, s->bus + 1);
		assert_int_equal(n->bus, s->bus + 2);
	}
	assert_int_equal(gp_vm_guest_bdf(&x.l, 1, bdf, sizeof(bdf)), 0);
	assert_string_equal(bdf, "0000:f4:00.0");
	/* both BARs of a cell in the switch's one window: 256 GiB + 32 MiB + 32 MiB */
	assert_true(x.l.bar64_total ==
		    2 * (256 * GIB + (32ull << 20)) + (32ull << 20) + (64ull << 20));
	gp_host_release(&x.h);
	/* no shared switch (the ConnectX on its own root port): root ports only,
	 * the card's two ports on one; each port serves a GPU of its own */
	layout(&x, "r5350-ready", ROCE);
	assert_int_equal(x.l.ndevs, 4);
	for (i = 0; i < x.l.nports; i++)
		assert_int_equal(x.l.ports[i].sw, -1);
	assert_int_equal(x.l.devs[0].port, x.l.devs[1].port);
	assert_int_equal(x.l.devs[0].rail, 2);
	assert_int_equal(x.l.devs[1].rail, 3);
	gp_host_release(&x.h);
	/* a host switch of two GPUs and a NIC: all three behind one emulated switch */
	layout(&x, "nccl-switch", ROCE);
	for (i = 0; i < x.l.ndevs; i++)
		if (!strcmp(x.h.devs[x.l.devs[i].dev].bdf, "0000:45:00.0"))
			break;
	assert_true(i >= 2 && i < x.l.ndevs && x.l.devs[i].nic);
	assert_int_equal(x.l.ports[x.l.devs[i].port].sw, x.l.ports[x.l.devs[i - 1].port].sw);
	assert_int_equal(x.l.ports[x.l.devs[i].port].sw, x.l.ports[x.l.devs[i - 2].port].sw);
	gp_host_release(&x.h);
	/* without [nic], the same host keeps a root port per card */
	layout(&x, "roce-rails",
	       "[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\n"
	       "[vm]\nname = v\nvcpus = 8\nmemory = 8GiB\n");
	assert_int_equal(x.l.ndevs, 2);
	assert_int_equal(x.l.nswitches, 0);
	gp_host_release(&x.h);
}

static void test_cells(void **state)
{
	struct run x;

	(void)state;
	layout(&x, "lab-messy",
	       "[gpus]\nmatch = 1b36:0005\ncount = 4\ncompanions = bind\n"
	       "[vm]\nname = v\nvcpus = 5\nmemory = 3GiB\n");
	assert_int_equal(x.l.ndevs, 5); /* four testdevs and the bridged e1000 */
	assert_int_equal(x.l.ncells, 2);
	assert_int_equal(x.l.cells[0].vcpus, 3);
	assert_int_equal(x.l.cells[1].vcpus, 2);
	assert_true(x.l.cells[0].memory + x.l.cells[1].memory == 3 * GIB);
	assert_int_equal(x.l.devs[x.l.ndevs - 1].cell, 1);
	assert_false(x.l.devs[1].gpu);
	assert_string_equal(x.l.devs[1].alias, "ua-gpuprov-dev1");
	assert_true(x.l.mmio_window == 0); /* no 64-bit BARs */
	gp_host_release(&x.h);
}

/* A card's functions share one guest root port, at the host's function numbers. */
static void test_cards(void **state)
{
	struct run x;

	(void)state;
	layout(&x, "group-shared",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\ncompanions = bind\n[vm]\nname = v\n");
	assert_int_equal(x.l.ndevs, 3);
	assert_int_equal(x.l.nports, 2);
	assert_string_equal(x.h.devs[x.l.devs[1].dev].bdf, "0000:41:00.1");
	assert_int_equal(x.l.devs[0].port, x.l.devs[1].port);
	assert_int_equal(x.l.devs[0].fn, 0);
	assert_int_equal(x.l.devs[1].fn, 1);
	assert_int_equal(x.l.ports[x.l.devs[0].port].nfuncs, 2);
	assert_int_not_equal(x.l.devs[2].port, x.l.devs[0].port);
	assert_int_equal(x.l.ports[x.l.devs[2].port].nfuncs, 1);
	gp_host_release(&x.h);
	/* function 1 without its function 0: the guest finds it only as function 0 */
	layout(&x, "group-shared", "[gpus]\nmatch = 0000:41:00.1\ncount = 1\n[vm]\nname = v\n");
	assert_int_equal(x.l.ndevs, 1);
	assert_int_equal(x.l.devs[0].fn, 0);
	gp_host_release(&x.h);
}

static void test_checks(void **state)
{
	struct gp_report r = { 0 };
	struct run x;

	(void)state;
	layout(&x, "qemu72",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
	       "[vm]\nname = v\nmemory = 256GiB\nhugepages = 1GiB\ngpudirect_clique = 0\n");
	gp_checks_run(&x.h, &x.p, &r);
	/* 128 of the 256 pages free, and the node's free memory holds the rest: a step */
	assert_int_equal(finding(&r, "vm.memory")->severity, GP_WARN);
	assert_non_null(strstr(finding(&r, "vm.memory")->message, "128 GiB of free huge pages"));
	assert_non_null(strstr(finding(&r, "vm.memory")->message, "(hugepages.reserve)"));
	assert_non_null(strstr(finding(&r, "vm.memory")->hint, "hugepagesz=1G hugepages=0:256"));
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_OK);
	gp_report_release(&r);
	/* a CPU with 40 address bits cannot hold 256 GiB of RAM and a 512 GiB window */
	x.h.phys_bits = 39;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_FAIL);
	gp_report_release(&r);
	/* 2 MiB pages: the fixture's nodes have no pool of them */
	x.p.vm.hugepages = 2ull << 20;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.memory")->severity, GP_FAIL);
	assert_non_null(strstr(finding(&r, "vm.memory")->message, "no pool of 2 MiB pages"));
	gp_report_release(&r);
	gp_host_release(&x.h);
}

#define HUGE_VM                                                                  \
	"[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\np2p = off\n" \
	"[vm]\nname = v\nvcpus = 4\nmemory = 16GiB\nhugepages = 2MiB\nnuma = strict\n"

/*
 * [vm] hugepages node by node: a cell's pages, what its node's pool has
 * free, and whether the node's free memory holds the rest (a step) or not
 * (vm.memory fails, saying why and the boot parameter).
 */
static void test_hugepages(void **state)
{
	const struct gp_huge_node *n;
	struct gp_report r = { 0 };
	struct gp_hugepages hp;
	struct run x;
	char line[80];
	uint64_t room;

	(void)state;
	layout(&x, "hugepages", HUGE_VM);
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(hp.n, 2);
	n = gp_hugepages_node(&hp, 0);
	/* 8 GiB of 2 MiB pages; 512 of the pool's 1024 free */
	assert_int_equal(n->need, 4096);
	assert_int_equal(n->nr, 1024);
	assert_int_equal(n->free, 512);
	assert_int_equal(n->add, 3584);
	assert_int_equal(n->verdict, GP_HUGE_RESERVE);
	n = gp_hugepages_node(&hp, 1);
	assert_int_equal(n->add, 4096);
	assert_int_equal(n->verdict, GP_HUGE_RESERVE);
	assert_null(gp_hugepages_node(&hp, 2));
	gp_hugepages_cmdline(n, n->nr + n->add, line, sizeof(line));
	assert_string_equal(line, "hugepagesz=2M hugepages=1:4096");
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(gp_report_count(&r, GP_FAIL), 0);
	assert_int_equal(finding(&r, "vm.memory")->severity, GP_WARN);
	gp_report_release(&r);
	/* node 1's free memory beyond its headroom (a twentieth, at least 1 GiB):
	 * one page short of the 4096 it lacks, then just enough; the pages alone
	 * with nothing left over are not enough */
	assert_true(x.h.numa[1].mem_total >= 4 * GIB); /* else the floor is a quarter of it */
	room = x.h.numa[1].mem_total / 20 > GIB ? x.h.numa[1].mem_total / 20 : GIB;
	x.h.numa[1].mem_free = (4095ull << 21) + (1ull << 20) + room;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(gp_hugepages_node(&hp, 1)->verdict, GP_HUGE_NO_MEMORY);
	x.h.numa[1].mem_free = (4096ull << 21) + room;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(gp_hugepages_node(&hp, 1)->verdict, GP_HUGE_RESERVE);
	x.h.numa[1].mem_free = 4096ull << 21;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(gp_hugepages_node(&hp, 1)->verdict, GP_HUGE_NO_MEMORY);
	/* enough free: nothing to reserve there */
	x.h.numa[0].hugepages_2m_free = 4096;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(gp_hugepages_node(&hp, 0)->verdict, GP_HUGE_ENOUGH);
	assert_int_equal(gp_hugepages_node(&hp, 0)->add, 0);
	/* 1 GiB pages: the fixture's nodes have no pool of them */
	x.p.vm.hugepages = GIB;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(gp_hugepages_node(&hp, 0)->verdict, GP_HUGE_NO_POOL);
	assert_int_equal(gp_hugepages_node(&hp, 0)->need, 8);
	/* no huge pages, or the VM's nodes not known: nothing judged */
	x.p.vm.hugepages = 0;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(hp.n, 0);
	x.p.vm.hugepages = 2ull << 20;
	x.l.numa_known = false;
	gp_hugepages_from(&x.h, &x.p, &x.l, &hp);
	assert_int_equal(hp.n, 0);
	gp_host_release(&x.h);

	/* node 1 with 4 GiB free for its 8 GiB: vm.memory fails and names the boot parameter */
	layout(&x, "hugepages-short", HUGE_VM);
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.memory")->severity, GP_FAIL);
	assert_non_null(strstr(finding(&r, "vm.memory")->message, "cell 1 wants 8 GiB on node 1"));
	assert_non_null(strstr(finding(&r, "vm.memory")->hint, "hugepagesz=2M hugepages=1:4096"));
	gp_report_release(&r);
	gp_host_release(&x.h);
}

/* The boot unit's node files: one spelling of a node and a page size, nothing else. */
static void test_hugepages_files(void **state)
{
	static const char *const bad[] = {
		"/etc/gpuprov/hugepages.d/node0-4096kB",
		"/etc/gpuprov/hugepages.d/node00-2048kB",
		"/etc/gpuprov/hugepages.d/node+1-2048kB",
		"/etc/gpuprov/hugepages.d/node4096-2048kB",
		"/etc/gpuprov/hugepages.d/node1-2048kB/x",
		"/etc/gpuprov/hugepages.d/node1-2048kBx",
		"/etc/gpuprov/hugepages.d/../node1-2048kB",
		"/etc/gpuprov/node1-2048kB",
	};
	char path[128];
	unsigned kb;
	size_t i;
	int node;

	(void)state;
	gp_hugepages_file(3, 1048576, path, sizeof(path));
	assert_string_equal(path, "/etc/gpuprov/hugepages.d/node3-1048576kB");
	assert_int_equal(gp_hugepages_file_parse(path, &node, &kb), 0);
	assert_int_equal(node, 3);
	assert_int_equal(kb, 1048576);
	assert_int_equal(
		gp_hugepages_file_parse("/etc/gpuprov/hugepages.d/node4095-2048kB", &node, &kb), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(gp_hugepages_file_parse(bad[i], &node, &kb), -EINVAL);
}

/* The clique check and layout on h (QEMU qemu, GPU caps as given). */
static enum gp_severity clique_on(struct run *x, const char *qemu, const char *p2p)
{
	struct gp_report r = { 0 };
	enum gp_severity sev;

	strcpy(x->h.qemu_version, qemu);
	x->p.p2p = !strcmp(p2p, "preferred") ? GP_P2P_PREFERRED : GP_P2P_REQUIRED;
	gp_vm_layout(&x->h, &x->p, &x->l);
	gp_checks_run(&x->h, &x->p, &r);
	sev = finding(&r, "vm.qemu_clique")->severity;
	gp_report_release(&r);
	return sev;
}

static void set_caps(struct gp_host *h, uint8_t pos1, uint8_t len1, uint8_t pos2)
{
	static struct gp_cap caps[16][GP_MAX_CAPS];
	size_t i, k = 0;

	for (i = 0; i < h->ndevs; i++) {
		if (h->devs[i].role != GP_ROLE_GPU)
			continue;
		assert_true(k < 16);
		caps[k][0] = h->devs[i].ncaps ? h->devs[i].caps[0] : (struct gp_cap){ 0 };
		caps[k][1] = (struct gp_cap){ 0x11, pos1, len1 };
		caps[k][2] = (struct gp_cap){ 0x09, pos2, 0 };
		h->devs[i].caps = caps[k++];
		h->devs[i].ncaps = pos2 ? 3 : 2;
	}
}

/*
 * QEMU 7.2 puts the clique at 0xC8, 8.1 at 0xD4 when a capability starts at
 * 0xC8: decided from the GPUs' capability lists, not from their IDs.
 */
static void test_clique(void **state)
{
	struct run x;
	int i;

	(void)state;
	layout(&x, "qemu72",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n[vm]\nname = v\ngpudirect_clique = 0\n");
	/* the fixture's A100s have MSI-X at 0xC8, read from their config space */
	assert_int_equal(x.h.devs[x.l.devs[0].dev].caps[1].pos, 0xc8);
	assert_int_equal(clique_on(&x, "7.2", "required"), GP_FAIL);
	assert_int_equal(x.l.clique_fit, GP_CLIQUE_OLD_QEMU);
	assert_int_equal(x.l.clique, 0);
	assert_int_equal(clique_on(&x, "7.2", "preferred"), GP_WARN);
	assert_true(x.l.clique_left_out);
	assert_int_equal(x.l.clique, -1);
	assert_int_equal(clique_on(&x, "8.1", "required"), GP_OK);
	assert_int_equal(x.l.clique_pos, 0xd4);
	assert_int_equal(clique_on(&x, "", "required"), GP_WARN);
	assert_int_equal(x.l.clique_fit, GP_CLIQUE_UNKNOWN);
	/* MSI-X at 0xB0 (as the H200 capture): 7.2 fits the clique at 0xC8 */
	set_caps(&x.h, 0xb0, 12, 0);
	assert_int_equal(clique_on(&x, "7.2", "required"), GP_OK);
	assert_int_equal(clique_on(&x, "", "required"), GP_OK);
	/* MSI-X reaching into 0xC8 from 0xC0 clashes too; 8.1 keeps 0xC8 and clashes */
	set_caps(&x.h, 0xc0, 12, 0);
	assert_int_equal(clique_on(&x, "7.2", "required"), GP_FAIL);
	assert_int_equal(clique_on(&x, "9.0", "required"), GP_FAIL);
	assert_int_equal(x.l.clique_fit, GP_CLIQUE_NO_ROOM);
	/* capabilities at 0xC8 and 0xD4: no QEMU has room */
	set_caps(&x.h, 0xc8, 12, 0xd4);
	assert_int_equal(clique_on(&x, "10.0.2", "required"), GP_FAIL);
	assert_int_equal(clique_on(&x, "10.0.2", "preferred"), GP_WARN);
	assert_true(x.l.clique_left_out);
	/* not root: only the ID says; from 0x1e00 (Turing) MSI-X is taken to be at 0xC8 */
	for (i = 0; i < x.l.ndevs; i++)
		x.h.devs[x.l.devs[i].dev].config_short = true;
	assert_int_equal(clique_on(&x, "7.2", "required"), GP_FAIL);
	for (i = 0; i < x.l.ndevs; i++)
		x.h.devs[x.l.devs[i].dev].device = 0x1db6; /* a Volta V100 */
	assert_int_equal(clique_on(&x, "7.2", "required"), GP_OK);
	/* clique off: nothing to judge */
	x.p.vm.clique = -1;
	assert_int_equal(clique_on(&x, "7.2", "required"), GP_OK);
	gp_host_release(&x.h);
}

/* The finding id's severity after the checks on x; its message in msg. */
static enum gp_severity sev_of(struct run *x, const char *id, char *msg, size_t len)
{
	struct gp_report r = { 0 };
	enum gp_severity sev;

	gp_vm_layout(&x->h, &x->p, &x->l);
	gp_checks_run(&x->h, &x->p, &r);
	sev = finding(&r, id)->severity;
	snprintf(msg, len, "%s", finding(&r, id)->message);
	gp_report_release(&r);
	return sev;
}

#define DOM_HEAD "<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>"

/* What in a domain XML turns BAR mmap off, read as QEMU would take it. */
static void test_nommap_xml(void **state)
{
	struct gp_vm_nommap m[GP_VM_NOMMAP];
	bool fd;

	(void)state;
	assert_int_equal(gp_domxml_nommap(DOM_HEAD "</domain>", m, GP_VM_NOMMAP, &fd), 0);
	assert_false(fd);
	assert_int_equal(
		gp_domxml_nommap(DOM_HEAD
				 "<qemu:commandline><qemu:arg value='-set'/>"
				 "<qemu:arg value='device.ua-gpu1.x-no-mmap=on'/>"
				 "<qemu:arg value='-global'/>"
				 "<qemu:arg value='vfio-pci.x-no-mmap=true'/>"
				 "<qemu:arg value='-global'/>"
				 "<qemu:arg value='vfio-pci.x-no-mmap=off'/>"
				 "<qemu:arg value='-device'/>"
				 "<qemu:arg value='vfio-pci,host=41:00.0,x-no-mmap=yes'/>"
				 "<qemu:arg value='-device'/><qemu:arg value='{\"driver\":"
				 "\"vfio-pci\",\"host\":\"0000:42:00.0\",\"x-no-mmap\":true}'/>"
				 "<qemu:arg value='-object'/><qemu:arg value='iommufd,id=i0'/>"
				 "</qemu:commandline></domain>",
				 m, GP_VM_NOMMAP, &fd),
		4);
	assert_string_equal(m[0].target, "ua-gpu1");
	assert_string_equal(m[0].how, "-set device.ua-gpu1.x-no-mmap=on");
	assert_string_equal(m[1].target, "*");
	assert_string_equal(m[2].target, "41:00.0");
	assert_string_equal(m[3].target, "0000:42:00.0");
	assert_true(fd);
	assert_int_equal(gp_domxml_nommap(DOM_HEAD "<qemu:override><qemu:device alias='hostdev0'>"
						   "<qemu:frontend><qemu:property name='x-no-mmap' "
						   "type='bool' value='true'/><qemu:property "
						   "name='x-no-mmap' type='bool' value='false'/>"
						   "</qemu:frontend></qemu:device></qemu:override>"
						   "<iommufd enabled='yes'/></domain>",
					  m, GP_VM_NOMMAP, &fd),
			 1);
	assert_string_equal(m[0].target, "hostdev0");
	assert_true(fd);
	/* outside the qemu namespace libvirt ignores it, and so does this */
	assert_int_equal(gp_domxml_nommap("<domain><commandline><arg value='-global'/><arg "
					  "value='vfio-pci.x-no-mmap=on'/></commandline></domain>",
					  m, GP_VM_NOMMAP, &fd),
			 0);
	assert_int_equal(gp_domxml_nommap("<domain", m, GP_VM_NOMMAP, &fd), -EINVAL);
}

/* vm.bar_mmap fails x-no-mmap on a passed GPU, by alias, address or -global. */
static void test_bar_mmap(void **state)
{
	struct run x;
	char msg[512];

	(void)state;
	layout(&x, "r5350-ready", "[gpus]\nmatch = 10de:20b5\ncount = 2\n[vm]\nname = v\n");
	x.h.vm_xml_read = true;
	assert_int_equal(sev_of(&x, "vm.bar_mmap", msg, sizeof(msg)), GP_OK);
	x.h.nvm_nommap = 1;
	strcpy(x.h.vm_nommap[0].target, "hostdev7"); /* not a GPU of this VM */
	strcpy(x.h.vm_nommap[0].how, "-set device.hostdev7.x-no-mmap=on");
	assert_int_equal(sev_of(&x, "vm.bar_mmap", msg, sizeof(msg)), GP_OK);
	strcpy(x.h.vm_nommap[0].target, "ua-gpu1");
	assert_int_equal(sev_of(&x, "vm.bar_mmap", msg, sizeof(msg)), GP_FAIL);
	assert_non_null(strstr(msg, "P2P between the GPUs stops"));
	strcpy(x.h.vm_nommap[0].target, x.h.devs[x.l.devs[0].dev].bdf + 5);
	assert_int_equal(sev_of(&x, "vm.bar_mmap", msg, sizeof(msg)), GP_FAIL);
	strcpy(x.h.vm_nommap[0].target, "*");
	assert_int_equal(sev_of(&x, "vm.bar_mmap", msg, sizeof(msg)), GP_FAIL);
	assert_non_null(strstr(msg, "every passed GPU"));
	/* no XML built: nothing to judge, no finding */
	x.h.vm_xml_read = false;
	{
		struct gp_report r = { 0 };
		size_t i;

		gp_checks_run(&x.h, &x.p, &r);
		for (i = 0; i < r.n; i++)
			assert_string_not_equal(r.items[i].id, "vm.bar_mmap");
		gp_report_release(&r);
	}
	gp_host_release(&x.h);
}

/* vm.qemu_version: 9.2's aligned mmaps and 6.12's huge faults for large BARs. */
static void test_qemu_version(void **state)
{
	struct run x;
	char msg[1024];

	(void)state;
	/* two H200s: 256 GiB BARs */
	layout(&x, "h200x2-guest", "[gpus]\nmatch = 10de:2335\ncount = 2\n[vm]\nname = v\n");
	strcpy(x.h.qemu_version, "10.0.2");
	strcpy(x.h.kernel_release, "6.12.48+deb13-amd64");
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_OK);
	assert_non_null(strstr(msg, "need is there"));
	/* a slower start is said, not warned: the VM works */
	strcpy(x.h.qemu_version, "9.1.2");
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_OK);
	assert_non_null(strstr(msg, "QEMU 9.2 aligns"));
	assert_null(strstr(msg, "Linux 6.12 maps"));
	assert_non_null(strstr(msg, "256 GiB BAR"));
	strcpy(x.h.qemu_version, "9.2.0");
	strcpy(x.h.kernel_release, "6.1.0-18-amd64");
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_OK);
	assert_null(strstr(msg, "QEMU 9.2 aligns"));
	assert_non_null(strstr(msg, "Linux 6.12 maps"));
	/* iommufd before 6.19: no P2P to a peer's BARs */
	strcpy(x.h.kernel_release, "6.12.48");
	x.h.vm_iommufd = true;
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_WARN);
	assert_non_null(strstr(msg, "iommufd"));
	strcpy(x.h.kernel_release, "6.19.1");
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_OK);
	assert_non_null(strstr(msg, "need is there"));
	strcpy(x.h.qemu_version, "");
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_OK);
	assert_non_null(strstr(msg, "cannot tell"));
	/* 32 GiB BARs: an old QEMU and kernel lack nothing such BARs need */
	strcpy(x.h.qemu_version, "9.1.2");
	strcpy(x.h.kernel_release, "6.1.0");
	x.h.vm_iommufd = false;
	{
		size_t i;
		int b;

		for (i = 0; i < x.h.ndevs; i++)
			for (b = 0; b < GP_MAX_BARS; b++)
				if (x.h.devs[i].bars[b].size > 32 * GIB)
					x.h.devs[i].bars[b].size = 32 * GIB;
	}
	assert_int_equal(sev_of(&x, "vm.qemu_version", msg, sizeof(msg)), GP_OK);
	assert_non_null(strstr(msg, "need is there"));
	gp_host_release(&x.h);
}

/*
 * One vCPU to one CPU, core by core so that vCPU pairs are SMT sibling
 * pairs; the node's first core (0 and its sibling 128) kept for QEMU.
 */
static void test_pinning(void **state)
{
	struct gp_vm_pins pins;
	struct run x;
	int i;

	(void)state;
	layout(&x, "r5350-ready",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
	       "[vm]\nname = v\nvcpus = 32\nmemory = 256GiB\n");
	assert_int_equal(gp_vm_pins(&x.h, &x.l, &pins), 0);
	assert_int_equal(pins.nvcpus, 32);
	assert_int_equal(pins.cpu[0], 1);
	assert_int_equal(pins.cpu[1], 129);
	assert_int_equal(pins.cpu[31], 144);
	assert_string_equal(pins.housekeeping, "0,128");
	assert_int_equal(pins.threads, 2);
	assert_true(pins.smt_known);
	assert_int_equal(pins.short_cell, -1);
	for (i = 0; i < 32; i++)
		assert_true(pins.cpu[i] != 0 && pins.cpu[i] != 128);
	gp_vm_pins_release(&pins);
	/* the host does not say its siblings: one to one still, the guest not told */
	for (i = 0; i < x.h.ncpu_core; i++)
		x.h.cpu_core[i] = -1;
	assert_int_equal(gp_vm_pins(&x.h, &x.l, &pins), 0);
	assert_int_equal(pins.cpu[0], 1);
	assert_int_equal(pins.cpu[1], 2);
	assert_string_equal(pins.housekeeping, "0");
	assert_int_equal(pins.threads, 1);
	assert_false(pins.smt_known);
	gp_vm_pins_release(&pins);
	/* room for the node's 128 CPUs; a hostile list longer than any node is neither
	 * pinned to nor made room for */
	assert_int_equal(gp_vm_pins_room(&x.l), 128);
	gp_strlcpy(x.l.cells[0].cpus, "0-1048576", sizeof(x.l.cells[0].cpus));
	assert_int_equal(gp_vm_pins_room(&x.l), 0);
	assert_int_equal(gp_vm_pins(&x.h, &x.l, &pins), 0);
	assert_int_equal(pins.cpu[0], -1);
	assert_string_equal(pins.floats[0], "0-1048576");
	assert_string_equal(pins.housekeeping, "");
	gp_vm_pins_release(&pins);
	gp_host_release(&x.h);
	/* more vCPUs than the node has beside its housekeeping core: they float */
	layout(&x, "r5350-ready",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
	       "[vm]\nname = v\nvcpus = 127\nmemory = 256GiB\n");
	assert_int_equal(gp_vm_pins(&x.h, &x.l, &pins), 0);
	assert_int_equal(pins.short_cell, 0);
	assert_int_equal(pins.short_have, 126);
	assert_string_equal(pins.floats[0], "1-63,129-191");
	assert_int_equal(pins.cpu[5], -1);
	assert_int_equal(pins.threads, 1);
	gp_vm_pins_release(&pins);
	gp_host_release(&x.h);
}

/* vm.pinning says what was chosen, and warns when a node is short */
static void test_pinning_check(void **state)
{
	struct gp_report r = { 0 };
	struct run x;

	(void)state;
	layout(&x, "numa-split",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
	       "[vm]\nname = v\nvcpus = 254\nmemory = 64GiB\n");
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.pinning")->severity, GP_WARN);
	assert_non_null(strstr(finding(&r, "vm.pinning")->message, "node 0 has 126 CPUs"));
	gp_report_release(&r);
	gp_host_release(&x.h);
	layout(&x, "numa-split",
	       "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
	       "[vm]\nname = v\nvcpus = 16\nmemory = 64GiB\n");
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.pinning")->severity, GP_OK);
	assert_non_null(strstr(finding(&r, "vm.pinning")->message, "on 0,64,128,192"));
	gp_report_release(&r);
	gp_host_release(&x.h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a100),
		cmocka_unit_test(test_h200),
		cmocka_unit_test(test_equal_alignment),
		cmocka_unit_test(test_h200_nodes),
		cmocka_unit_test(test_h200x8),
		cmocka_unit_test(test_guest_addresses),
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_cards),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_clique),
		cmocka_unit_test(test_nommap_xml),
		cmocka_unit_test(test_bar_mmap),
		cmocka_unit_test(test_qemu_version),
		cmocka_unit_test(test_pinning),
		cmocka_unit_test(test_pinning_check),
		cmocka_unit_test(test_hugepages),
		cmocka_unit_test(test_hugepages_files),
	};

	return cmocka_run_group_tests_name("vm", tests, NULL, NULL);
}
