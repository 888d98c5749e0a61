// SPDX-License-Identifier: GPL-2.0-or-later
/* The VM layout (cells, devices, MMIO window) and the vm.* checks. */
#include "unit.h"
#include "vm.h"

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
	/* 2 x (128 GiB + 32 MiB): windows at 0 and 256 GiB, +25%, power of two */
	assert_true(x.l.bar64_total == 2 * (128 * GIB + (32ull << 20)));
	assert_true(x.l.mmio_window == 512 * GIB);
	gp_host_release(&x.h);
}

static void test_h200(void **state)
{
	struct run x;

	(void)state;
	layout(&x, "h200x2-guest", "[gpus]\nmatch = 10de:2335\ncount = 2\n[vm]\nname = v\n");
	/* 16 MiB + 256 GiB + 32 MiB, all 64-bit, twice */
	assert_true(x.l.bar64_total == 2 * (256 * GIB + (48ull << 20)));
	assert_true(x.l.mmio_window == 1024 * GIB);
	/* a VM of one node: the kernel's -1 is node 0, one guest cell there */
	assert_true(x.l.numa_known);
	assert_int_equal(x.l.ncells, 1);
	assert_int_equal(x.l.cells[0].host_node, 0);
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
	assert_int_equal(finding(&r, "vm.qemu_clique")->severity, GP_WARN);
	assert_non_null(strstr(finding(&r, "vm.qemu_clique")->message, "QEMU 7.2"));
	assert_int_equal(finding(&r, "vm.memory")->severity, GP_FAIL);
	assert_non_null(strstr(finding(&r, "vm.memory")->message, "128GiB of free huge pages"));
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_OK);
	gp_report_release(&r);
	/* a CPU with 40 address bits cannot hold 256 GiB of RAM and a 512 GiB window */
	x.h.phys_bits = 39;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.mmio")->severity, GP_FAIL);
	gp_report_release(&r);
	/* QEMU 8.2 places the clique; clique off is fine with any QEMU */
	strcpy(x.h.qemu_version, "8.2.1");
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.qemu_clique")->severity, GP_OK);
	gp_report_release(&r);
	strcpy(x.h.qemu_version, "7.2");
	x.p.vm.clique = -1;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.qemu_clique")->severity, GP_OK);
	gp_report_release(&r);
	/* 2 MiB pages: none free on the fixture */
	x.p.vm.hugepages = 2ull << 20;
	gp_checks_run(&x.h, &x.p, &r);
	assert_int_equal(finding(&r, "vm.memory")->severity, GP_FAIL);
	gp_report_release(&r);
	gp_host_release(&x.h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a100),   cmocka_unit_test(test_h200),
		cmocka_unit_test(test_cells),  cmocka_unit_test(test_cards),
		cmocka_unit_test(test_checks),
	};

	return cmocka_run_group_tests_name("vm", tests, NULL, NULL);
}
