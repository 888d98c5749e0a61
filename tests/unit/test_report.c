// SPDX-License-Identifier: GPL-2.0-or-later
/* The report's picture of the PCI tree (pcimap.c) and its escapers (report.c). */
#include "unit.h"
#include "core/pcimap.h"
#include "cli/report.h"
#include "shared/escape.h"

static const struct gp_map_node *node_of(const struct gp_host *h, const struct gp_map *m,
					 const char *bdf)
{
	int i = unit_index(h, bdf);
	size_t k;

	for (k = 0; k < m->nn; k++)
		if (m->n[k].dev == i)
			return &m->n[k];
	fail_msg("%s is not drawn", bdf);
	return NULL;
}

static int count(const struct gp_map *m, enum gp_map_kind kind)
{
	size_t k;
	int n = 0;

	for (k = 0; k < m->nn; k++)
		n += m->n[k].kind == kind;
	return n;
}

/* Every function is drawn or counted in a "more" box, exactly once. */
static void assert_all_counted(const struct gp_host *h, const struct gp_map *m)
{
	size_t k;
	int drawn = 0, folded = 0;

	for (k = 0; k < m->nn; k++) {
		drawn += m->n[k].dev >= 0;
		folded += m->n[k].kind == GP_MAP_MORE ? m->n[k].count : 0;
	}
	assert_int_equal(drawn + folded, (int)h->ndevs);
}

static void test_r5350(void **state)
{
	struct gp_profile p;
	struct gp_host h;
	struct gp_map m;

	(void)state;
	unit_profile("[gpus]\nmatch = 10de:20b5\ncount = 2\n[bond]\nname = bond0\n"
		     "slaves = ens1f0np0 0000:01:00.1\n",
		     &p);
	unit_host("r5350-ready", &p, &h);
	gp_map_build(&h, &p, &m);
	assert_all_counted(&h, &m);
	assert_int_equal(count(&m, GP_MAP_NUMA), 2);
	assert_int_equal(count(&m, GP_MAP_RC), 4);
	assert_int_equal(count(&m, GP_MAP_GPU), 2);
	assert_int_equal(count(&m, GP_MAP_NIC), 3);
	assert_int_equal(m.worst, GP_PATH_PHB);
	assert_false(m.numa_hop);
	/* the path: both GPUs, their root ports, the root complex; not the NICs */
	assert_true(node_of(&h, &m, "0000:41:00.0")->p2p);
	assert_true(node_of(&h, &m, "0000:40:03.1")->p2p);
	assert_true(m.n[node_of(&h, &m, "0000:40:01.1")->parent].p2p);
	assert_false(node_of(&h, &m, "0000:01:00.0")->p2p);
	assert_true(node_of(&h, &m, "0000:01:00.0")->bond_port);
	assert_true(node_of(&h, &m, "0000:01:00.1")->bond_port);
	assert_false(node_of(&h, &m, "0000:c1:00.0")->bond_port);
	assert_true(node_of(&h, &m, "0000:40:01.1")->acs_redirect);
	assert_false(node_of(&h, &m, "0000:41:00.0")->degraded);
	/* the GPUs are numbered as topo numbers them */
	assert_int_equal(node_of(&h, &m, "0000:42:00.0")->label, 1);
	assert_int_equal(m.ng, 5); /* the GPUs' and NICs' own groups */
	gp_map_release(&m);
	gp_host_release(&h);
}

static void test_switch16(void **state)
{
	struct gp_profile p;
	struct gp_host h;
	struct gp_map m;

	(void)state;
	unit_profile("[gpus]\nmatch = 10de:2331\ncount = 16\n", &p);
	unit_host("switch16", &p, &h);
	gp_map_build(&h, &p, &m);
	assert_all_counted(&h, &m);
	assert_int_equal(count(&m, GP_MAP_GPU), 16);
	assert_int_equal(count(&m, GP_MAP_NIC), 5);
	assert_int_equal(m.worst, GP_PATH_SYS);
	assert_true(m.numa_hop);
	assert_true(node_of(&h, &m, "0000:02:00.0")->acs_redirect);
	/* rows: one per leaf, a parent between its children */
	assert_true(m.rows < 60);
	assert_true(node_of(&h, &m, "0000:01:00.0")->y > node_of(&h, &m, "0000:03:00.0")->y);
	gp_map_release(&m);
	gp_host_release(&h);
}

static void test_degraded(void **state)
{
	struct gp_host h;
	struct gp_map m;

	(void)state;
	unit_host("link", NULL, &h);
	gp_map_build(&h, NULL, &m);
	assert_true(node_of(&h, &m, "0000:41:00.0")->degraded);
	assert_true(node_of(&h, &m, "0000:42:00.0")->degraded);
	assert_false(node_of(&h, &m, "0000:40:01.1")->degraded);
	gp_map_release(&m);
	gp_host_release(&h);
}

/* NVLink as a snapshot of a 2 x H200 host recorded it: NV18, whatever the PCIe class. */
static void test_nvlink(void **state)
{
	struct gp_host h;
	struct gp_map m;

	(void)state;
	unit_host("h200x2-nvlink", NULL, &h);
	gp_map_build(&h, NULL, &m);
	assert_int_equal(m.pairs, 1);
	assert_int_equal(m.nv_pairs, 1);
	assert_int_equal(m.nv_min, 18);
	assert_int_equal(
		gp_map_nv_links(&h, unit_index(&h, "0000:00:06.0"), unit_index(&h, "0000:00:07.0")),
		18);
	assert_int_equal(
		gp_map_nv_links(&h, unit_index(&h, "0000:00:06.0"), unit_index(&h, "0000:00:03.0")),
		0);
	gp_map_release(&m);
	gp_host_release(&h);
}

static void test_escape(void **state)
{
	char *b;

	(void)state;
	assert_string_equal(gp_xml("<a href=\"x\">&'</a>"),
			    "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
	/* control characters, a newline and bytes that are not UTF-8: visible, never raw */
	assert_string_equal(gp_xml("a\x1b[2J\nb\xff"), "a\\x1b[2J\\x0ab\\xff");
	/* U+FFFE is no XML character */
	assert_string_equal(gp_xml("x\xef\xbf\xbey"), "x\\xef\\xbf\\xbey");
	assert_string_equal(gp_xml("]]> <!-- é"), "]]&gt; &lt;!-- é");
	assert_string_equal(
		gp_md("a|b *c* _d_ `e` [f](g) <h> \\ # ! ~ & $"),
		"a\\|b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) \\<h\\> \\\\ \\# \\! \\~ \\& \\$");
	/* the escape shows as \x0a once rendered: its backslash is escaped too */
	assert_string_equal(gp_md("x\ny\r\tz"), "x\\\\x0ay\\\\x0d\\\\x09z");
	assert_string_equal(gp_md(NULL), "");
	/* blocks keep newlines and tabs, nothing else */
	b = gp_xml_block("a\tb\n<c>\x07\n");
	assert_string_equal(b, "a\tb\n&lt;c&gt;\\x07\n");
	free(b);
	b = gp_md_block("x\x1b\n\xc3");
	assert_string_equal(b, "x\\x1b\n\\xc3");
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_r5350),	 cmocka_unit_test(test_switch16),
		cmocka_unit_test(test_degraded), cmocka_unit_test(test_nvlink),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
