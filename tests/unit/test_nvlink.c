// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVLink cells and ceilings (direct, bridged, NVSwitch, links down), the
 * record apply keeps (round trip, hostile files), and verify's judgements.
 */
#include <json-c/json.h>

#include "unit.h"
#include "core/verify.h"

static void direct(struct gp_nv_gpu *g, const char *bdf, const char *peer, int up, int down)
{
	int i;

	memset(g, 0, sizeof(*g));
	snprintf(g->bdf, sizeof(g->bdf), "%s", bdf);
	snprintf(g->name, sizeof(g->name), "GPU %s", bdf);
	g->version = 4;
	g->nlinks = up + down;
	for (i = 0; i < up; i++) {
		g->links[i].up = true;
		g->links[i].remote_type = peer ? GP_NV_REMOTE_GPU : GP_NV_REMOTE_SWITCH;
		snprintf(g->links[i].remote, sizeof(g->links[i].remote), "%s",
			 peer ? peer : "0000:a5:00.0");
	}
}

static void test_direct(void **state)
{
	struct gp_nv_gpu g[3];
	struct gp_nv_view v = { .source = GP_NV_NVML, .gpus = g, .n = 3 };

	(void)state;
	direct(&g[0], "0000:41:00.0", "0000:42:00.0", 12, 0);
	direct(&g[1], "0000:42:00.0", "0000:41:00.0", 12, 0);
	direct(&g[2], "0000:c1:00.0", NULL, 0, 12); /* links, all down */
	assert_int_equal(gp_nv_pair_links(&v, 0, 1), 12);
	assert_int_equal(gp_nv_pair_links(&v, 1, 0), 12);
	assert_int_equal(gp_nv_pair_links(&v, 0, 2), 0);
	assert_int_equal(gp_nv_pair_links(&v, 0, 0), 0);
	assert_int_equal(gp_nv_pair_links(&v, 0, -1), 0);
	assert_false(gp_nv_via_switch(&v, 0, 1));
	/* NVLink 3 (A100): 25 GB/s a link and direction */
	assert_true(gp_nv_pair_ceiling(&v, 0, 1) == 300.0);
	assert_true(gp_nv_pair_ceiling(&v, 0, 2) == 0);
	/* NVML's own rate wins over the table */
	g[1].link_gbps = 20.0;
	assert_true(gp_nv_pair_ceiling(&v, 0, 1) == 240.0);
	g[1].links[3].up = false;
	assert_int_equal(gp_nv_pair_links(&v, 1, 0), 11);
}

static void test_switch(void **state)
{
	struct gp_nv_gpu g[3];
	struct gp_nv_view v = { .source = GP_NV_NVML, .gpus = g, .n = 3 };

	(void)state;
	direct(&g[0], "0000:18:00.0", NULL, 18, 0);
	direct(&g[1], "0000:2a:00.0", NULL, 18, 0);
	direct(&g[2], "0000:3a:00.0", NULL, 12, 6);
	g[0].version = g[1].version = g[2].version = 6;
	assert_int_equal(gp_nv_pair_links(&v, 0, 1), 18);
	assert_int_equal(gp_nv_pair_links(&v, 2, 0), 12); /* the smaller count */
	assert_true(gp_nv_via_switch(&v, 0, 1));
	assert_true(gp_nv_pair_ceiling(&v, 0, 1) == 18 * 26.5625);
}

static void test_rates(void **state)
{
	(void)state;
	assert_true(gp_nv_rate_for_version(1) == 20.0);
	assert_true(gp_nv_rate_for_version(4) == 25.0);
	assert_true(gp_nv_rate_for_version(6) == 26.5625);
	assert_true(gp_nv_rate_for_version(7) == 50.0);
	assert_true(gp_nv_rate_for_version(0) == 0);
	assert_true(gp_nv_rate_for_version(99) == 0);
}

static void test_bdf(void **state)
{
	char out[GP_NV_BDF_LEN];

	(void)state;
	assert_int_equal(gp_nv_bdf("00000000:06:00.0", out), 0);
	assert_string_equal(out, "0000:06:00.0");
	assert_int_equal(gp_nv_bdf("00000001:C1:00.0", out), 0);
	assert_string_equal(out, "0001:c1:00.0");
	assert_int_equal(gp_nv_bdf("0000:41:00.0", out), 0);
	assert_string_equal(out, "0000:41:00.0");
	/* NVSwitch's far end in a VM: no PCI address there */
	assert_int_equal(gp_nv_bdf("FFFFFFFF:FF:FF.0", out), -EINVAL);
	assert_int_equal(gp_nv_bdf("0000000x:06:00.0", out), -EINVAL);
	assert_int_equal(gp_nv_bdf("", out), -EINVAL);
}

static void test_record(void **state)
{
	struct gp_nv_gpu g[2];
	struct gp_nv_view v = { .source = GP_NV_NVML, .gpus = g, .n = 2 }, back;
	json_object *doc;
	char why[128];

	(void)state;
	direct(&g[0], "0000:41:00.0", "0000:42:00.0", 12, 2);
	direct(&g[1], "0000:42:00.0", "0000:41:00.0", 12, 2);
	g[1].bar1 = 64ull << 30;
	g[1].link_gbps = 25.0;
	doc = gp_nv_to_json(&v, "2026-11-30T21:40:00Z");
	assert_int_equal(gp_nv_from_json(json_object_to_json_string(doc), &back, why, sizeof(why)),
			 0);
	json_object_put(doc);
	assert_int_equal(back.source, GP_NV_REMEMBERED);
	assert_string_equal(back.seen_at, "2026-11-30T21:40:00Z");
	assert_int_equal(back.n, 2);
	assert_int_equal(back.gpus[0].nlinks, 14);
	assert_int_equal(gp_nv_pair_links(&back, 0, 1), 12);
	assert_true(back.gpus[1].bar1 == 64ull << 30 && back.gpus[1].link_gbps == 25.0);
	assert_string_equal(back.gpus[1].links[0].remote, "0000:41:00.0");
	gp_nv_view_release(&back);
}

/* A record under a hostile root: a message, never a crash or an overflow. */
static void test_record_hostile(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"nvlink_record\":1,\"seen_at\":\"x\"}",
		"{\"nvlink_record\":1,\"seen_at\":\"x\",\"gpus\":[{}]}",
		"{\"nvlink_record\":1,\"seen_at\":\"x\",\"gpus\":[{\"bdf\":\"0000:41:00.0\","
		"\"name\":\"a\",\"version\":4,\"links\":[{\"up\":true,\"remote_type\":0,"
		"\"remote\":\"junk\"}]}]}",
		"{\"nvlink_record\":1,\"seen_at\":\"x\",\"gpus\":[{\"bdf\":\"0000:41:00.0\","
		"\"name\":\"a\",\"version\":-1,\"links\":[]}]}",
		"{\"nvlink_record\":1,\"seen_at\":\"x\",\"gpus\":[{\"bdf\":\"0000:41:00.0\","
		"\"name\":\"a\",\"version\":4,\"link_gbps\":-5,\"links\":[]}]}",
		"{\"nvlink_record\":1,\"seen_at\":\"0123456789012345678901234567890123456789\","
		"\"gpus\":[]}",
	};
	char why[128], many[4096];
	struct gp_nv_view v;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_int_equal(gp_nv_from_json(bad[i], &v, why, sizeof(why)), -EINVAL);
		assert_true(why[0]);
		assert_null(v.gpus);
	}
	/* more links than a GPU has */
	n = snprintf(many, sizeof(many),
		     "{\"nvlink_record\":1,\"seen_at\":\"x\",\"gpus\":[{"
		     "\"bdf\":\"0000:41:00.0\",\"name\":\"a\",\"version\":4,"
		     "\"links\":[");
	for (i = 0; i < 19; i++)
		n += snprintf(many + n, sizeof(many) - (size_t)n,
			      "%s{\"up\":true,\"remote_type\":0,\"remote\":\"\"}", i ? "," : "");
	snprintf(many + n, sizeof(many) - (size_t)n, "]}]}");
	assert_int_equal(gp_nv_from_json(many, &v, why, sizeof(why)), -EINVAL);
}

static void test_judge(void **state)
{
	struct gp_vpair p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.can_access = 1;
	p.peer_enabled = true;
	p.readback_done = p.readback_ok = true;
	p.ceiling_gbps = 478.125;
	p.ceiling_from = "nvlink";
	p.gbps_uni = 394.6;
	p.gbps_bidir = 778.7;
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_OK);
	p.gbps_uni = 200; /* below half of 478 */
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_WARN);
	p.gbps_uni = 394.6;
	p.gbps_bidir = 400; /* below half of 956 */
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_WARN);
	p.gbps_bidir = 778.7;
	p.readback_ok = false;
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_FAIL);
	assert_non_null(strstr(p.why, "does not read back"));
	p.readback_ok = true;
	p.p2p[GP_P2P_WRITE] = 5;
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_FAIL);
	p.p2p[GP_P2P_WRITE] = 0;
	p.can_access = 0;
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_FAIL);
	p.can_access = 1;
	p.gbps_uni = 0; /* nothing measured: no proof */
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_FAIL);
	p.ceiling_gbps = 0; /* nothing to compare with: no warning */
	p.gbps_uni = 1;
	gp_verify_judge(&p, true);
	assert_int_equal(p.verdict, GP_VERDICT_OK);
}

static void test_busbw(void **state)
{
	(void)state;
	assert_true(gp_allreduce_busbw(327.4, 2) == 327.4);
	assert_true(gp_allreduce_busbw(100, 8) == 175);
	assert_true(gp_allreduce_busbw(100, 0) == 0);
	assert_true(gp_pcie_gen_gts(5) == 32 && gp_pcie_gen_gts(4) == 16 && !gp_pcie_gen_gts(9));
}

static void test_rebar(void **state)
{
	uint8_t cfg[4096];

	(void)state;
	memset(cfg, 0, sizeof(cfg));
	assert_true(gp_rebar_max(cfg, sizeof(cfg)) == 0);
	/* 0x100: AER (id 1) -> 0x150: ReBAR (id 0x15), one BAR, sizes 1 MiB..256 GiB */
	cfg[0x100] = 0x01;
	cfg[0x102] = 0x00; /* next = 0x150: bits 31..20 */
	cfg[0x103] = 0x15;
	cfg[0x150] = 0x15;
	cfg[0x154] = 0xf0;
	cfg[0x155] = 0xff;
	cfg[0x156] = 0xff;
	cfg[0x157] = 0x7f; /* bits 4..30: up to 2^(30-4) MiB = 64 TiB */
	cfg[0x158] = 1 << 5;
	assert_true(gp_rebar_max(cfg, sizeof(cfg)) == 64ull << 40);
	/* a list that loops back is cut, not followed forever */
	cfg[0x150] = 0x01;
	cfg[0x152] = 0x00;
	cfg[0x153] = 0x10; /* next = 0x100 */
	assert_true(gp_rebar_max(cfg, sizeof(cfg)) == 0);
	assert_true(gp_rebar_max(cfg, 0x104) == 0);
}

/* The capture of the two-H200 VM: NVML's links into NVSwitch give NV18, as nvidia-smi said. */
static void test_capture(void **state)
{
	struct gp_host h;
	int a, b;

	(void)state;
	unit_host("h200x2-nvlink", NULL, &h);
	assert_int_equal(h.nv.source, GP_NV_REMEMBERED);
	a = gp_nv_find(&h.nv, "0000:00:06.0");
	b = gp_nv_find(&h.nv, "0000:00:07.0");
	assert_true(a >= 0 && b >= 0);
	assert_int_equal(gp_nv_pair_links(&h.nv, a, b), 18);
	assert_true(gp_nv_via_switch(&h.nv, a, b));
	assert_true(gp_nv_pair_ceiling(&h.nv, a, b) == 478.125);
	gp_host_release(&h);
	unit_host("h200x2-guest", NULL, &h); /* captured before: no record */
	assert_int_equal(h.nv.source, GP_NV_NONE);
	assert_non_null(strstr(h.nv.why, "live host only"));
	gp_host_release(&h);
}

/* A GPU's fabric registration: said and judged only where NVML has one. */
static void test_fabric(void **state)
{
	struct gp_nv_gpu g;
	char why[400];

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(gp_verify_fabric(&g, why, sizeof(why)), GP_VERDICT_OK);
	assert_string_equal(why, "");
	g.fabric_read = true; /* NOT_SUPPORTED: a PCIe card, nothing to say */
	assert_int_equal(gp_verify_fabric(&g, why, sizeof(why)), GP_VERDICT_OK);
	assert_string_equal(why, "");
	g.fabric_state = GP_FABRIC_COMPLETED;
	g.fabric_clique = 7;
	assert_int_equal(gp_verify_fabric(&g, why, sizeof(why)), GP_VERDICT_OK);
	assert_string_equal(why, "fabric: Completed, Success, clique 7");
	g.fabric_state = GP_FABRIC_IN_PROGRESS;
	assert_int_equal(gp_verify_fabric(&g, why, sizeof(why)), GP_VERDICT_WARN);
	assert_non_null(strstr(why, "In Progress: CUDA fails with error 802"));
	assert_non_null(strstr(why, "power-cycle the guest"));
	g.fabric_state = GP_FABRIC_NOT_STARTED;
	assert_int_equal(gp_verify_fabric(&g, why, sizeof(why)), GP_VERDICT_WARN);
	assert_non_null(strstr(why, "Not Started"));
	g.fabric_state = GP_FABRIC_COMPLETED;
	g.fabric_status = 999;
	assert_int_equal(gp_verify_fabric(&g, why, sizeof(why)), GP_VERDICT_FAIL);
	assert_non_null(strstr(why, "NVML error 999"));
	assert_string_equal(gp_fabric_state_name(9), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct), cmocka_unit_test(test_switch),
		cmocka_unit_test(test_rates),  cmocka_unit_test(test_bdf),
		cmocka_unit_test(test_record), cmocka_unit_test(test_record_hostile),
		cmocka_unit_test(test_judge),  cmocka_unit_test(test_busbw),
		cmocka_unit_test(test_rebar),  cmocka_unit_test(test_capture),
		cmocka_unit_test(test_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
