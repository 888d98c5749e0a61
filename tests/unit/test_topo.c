// SPDX-License-Identifier: GPL-2.0-or-later
/* Path classes and slowest hops, on fixture hosts and on hand-built trees. */
#include "unit.h"
#include "core/hostq.h"
#include "core/topo.h"
#include "host/host.h"

static enum gp_path cls(const struct gp_host *h, const char *a, const char *b)
{
	enum gp_path x = gp_topo_classify(h, unit_index(h, a), unit_index(h, b));

	/* the relation is symmetric */
	assert_int_equal(x, gp_topo_classify(h, unit_index(h, b), unit_index(h, a)));
	return x;
}

static void test_r5350(void **state)
{
	struct gp_host h;
	struct gp_hop hop;

	(void)state;
	unit_host("r5350-ready", NULL, &h);
	assert_int_equal(cls(&h, "0000:41:00.0", "0000:41:00.0"), GP_PATH_X);
	assert_int_equal(cls(&h, "0000:41:00.0", "0000:42:00.0"), GP_PATH_PHB);
	assert_int_equal(cls(&h, "0000:41:00.0", "0000:01:00.0"), GP_PATH_NODE);
	assert_int_equal(cls(&h, "0000:01:00.0", "0000:01:00.1"), GP_PATH_PIX);
	assert_int_equal(cls(&h, "0000:41:00.0", "0000:c1:00.0"), GP_PATH_SYS);
	hop = gp_topo_slowest(&h, unit_index(&h, "0000:41:00.0"), unit_index(&h, "0000:c1:00.0"));
	assert_true(hop.speed == 5.0);
	assert_int_equal(hop.width, 1);
	hop = gp_topo_slowest(&h, unit_index(&h, "0000:41:00.0"), unit_index(&h, "0000:42:00.0"));
	assert_true(hop.speed == 16.0);
	assert_int_equal(hop.width, 16);
	assert_int_equal(gp_host_root_port(&h, unit_index(&h, "0000:41:00.0")),
			 unit_index(&h, "0000:40:01.1"));
	gp_host_release(&h);
}

static void test_fixtures(void **state)
{
	struct gp_host h;
	struct gp_hop hop;
	int path[16];

	(void)state;
	unit_host("switch", NULL, &h);
	assert_int_equal(cls(&h, "0000:43:00.0", "0000:44:00.0"), GP_PATH_PIX);
	/* both downstream ports and the upstream port are on the path */
	assert_int_equal(gp_topo_path_bridges(&h, unit_index(&h, "0000:43:00.0"),
					      unit_index(&h, "0000:44:00.0"), path, 16),
			 3);
	gp_host_release(&h);

	unit_host("switch2", NULL, &h);
	assert_int_equal(cls(&h, "0000:45:00.0", "0000:48:00.0"), GP_PATH_PXB);
	hop = gp_topo_slowest(&h, unit_index(&h, "0000:45:00.0"), unit_index(&h, "0000:48:00.0"));
	assert_true(hop.speed == 8.0); /* the Gen3 card */
	gp_host_release(&h);

	unit_host("node", NULL, &h);
	assert_int_equal(cls(&h, "0000:41:00.0", "0000:02:00.0"), GP_PATH_NODE);
	gp_host_release(&h);

	unit_host("numa-split", NULL, &h);
	assert_int_equal(cls(&h, "0000:41:00.0", "0000:82:00.0"), GP_PATH_SYS);
	gp_host_release(&h);

	unit_host("h200x2-guest", NULL, &h);
	assert_int_equal(cls(&h, "0000:00:06.0", "0000:00:07.0"), GP_PATH_PHB);
	hop = gp_topo_slowest(&h, unit_index(&h, "0000:00:06.0"), unit_index(&h, "0000:00:07.0"));
	/* endpoints on the root bus: each one's own link to the root complex */
	assert_true(hop.speed == 32.0);
	assert_int_equal(hop.width, 16);
	assert_false(gp_hop_trained_lower(&hop));
	gp_host_release(&h);
}

/* A tree made by hand: the classes must not depend on the fixture builder. */
static struct gp_dev mk(const char *bdf, int parent, const char *rc, int numa, int type)
{
	struct gp_dev d;

	gp_dev_init(&d);
	strcpy(d.bdf, bdf);
	sscanf(bdf, "%x:%x:%x.%u", &d.domain, &d.bus, &d.dev, &d.func);
	d.parent = parent;
	d.rc = rc;
	d.numa_node = numa;
	d.pcie_type = type;
	d.link = (struct gp_link){ 16, 16, 16, 16 };
	return d;
}

static void test_synthetic(void **state)
{
	struct gp_dev devs[8];
	struct gp_host h = { .devs = devs, .ndevs = 8 };

	(void)state;
	devs[0] = mk("0000:00:01.0", -1, "pci0000:00", -1, GP_PCIE_ROOT_PORT);
	devs[1] = mk("0000:01:00.0", 0, "pci0000:00", -1, GP_PCIE_ENDPOINT);
	devs[2] = mk("0000:01:00.1", 0, "pci0000:00", -1, GP_PCIE_ENDPOINT);
	devs[3] = mk("0000:00:02.0", -1, "pci0000:00", -1, GP_PCIE_ROOT_PORT);
	devs[4] = mk("0000:02:00.0", 3, "pci0000:00", -1, GP_PCIE_ENDPOINT);
	devs[5] = mk("0000:80:01.0", -1, "pci0000:80", -1, GP_PCIE_ROOT_PORT);
	devs[6] = mk("0000:81:00.0", 5, "pci0000:80", -1, GP_PCIE_ENDPOINT);
	devs[7] = mk("0001:00:00.0", -1, "", 0, GP_PCIE_RC_ENDPOINT);
	assert_int_equal(gp_topo_classify(&h, 1, 2), GP_PATH_PIX); /* functions of one card */
	assert_int_equal(gp_topo_classify(&h, 1, 4), GP_PATH_PHB);
	/* another host bridge and no NUMA information: SYS, never a guess */
	assert_int_equal(gp_topo_classify(&h, 1, 6), GP_PATH_SYS);
	devs[1].numa_node = devs[6].numa_node = 0;
	assert_int_equal(gp_topo_classify(&h, 1, 6), GP_PATH_NODE);
	/* an unknown root complex is SYS too */
	assert_int_equal(gp_topo_classify(&h, 7, 1), GP_PATH_SYS);
	/* the slowest hop: a narrower link on one side */
	devs[6].link.width = devs[6].link.max_width = 4;
	assert_int_equal(gp_topo_slowest(&h, 1, 6).width, 4);
	/* a Gen4 card in a Gen3 port: the link supports what both ends do */
	devs[6].link = (struct gp_link){ 8, 16, 16, 16 };
	devs[5].link = (struct gp_link){ 8, 16, 8, 16 };
	assert_true(gp_topo_slowest(&h, 1, 6).speed == 8.0);
	assert_false(gp_hop_trained_lower(&(struct gp_hop){ 8, 16, 8, 16 }));
	assert_string_equal(gp_path_name(GP_PATH_NODE), "NODE");
}

/* The P2P ceiling is what the links support, not what an idle GPU trained at. */
static void test_ceiling(void **state)
{
	struct gp_host h;
	struct gp_hop hop;

	(void)state;
	unit_host("link", NULL, &h);
	hop = gp_topo_slowest(&h, unit_index(&h, "0000:41:00.0"), unit_index(&h, "0000:42:00.0"));
	assert_true(hop.speed == 16.0);
	assert_int_equal(hop.width, 16);
	/* the idle card at 2.5 GT/s is the slowest trained hop, and it is said */
	assert_true(hop.cur_speed == 2.5);
	assert_int_equal(hop.cur_width, 16);
	assert_true(gp_hop_trained_lower(&hop));
	gp_host_release(&h);
	unit_host("r5350-ready", NULL, &h);
	hop = gp_topo_slowest(&h, unit_index(&h, "0000:41:00.0"), unit_index(&h, "0000:42:00.0"));
	assert_false(gp_hop_trained_lower(&hop));
	gp_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_r5350),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_ceiling),
	};

	return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}
