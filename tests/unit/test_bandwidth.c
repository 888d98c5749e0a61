// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bandwidth table: docs/BANDWIDTH.md shows every row of the compiled
 * table with the same figures, NCCL's PCIe model is its formula, and each
 * expectation comes from the row the rules name.
 */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"
#include "core/bandwidth.h"
#include "core/verify.h"

/* A figure of the document's row as the table has it ("0" for none). */
static void same(const char *cell, double want, const char *key)
{
	double got = strtod(cell, NULL);

	if (got < want - 1e-9 || got > want + 1e-9)
		fail_msg("%s: docs/BANDWIDTH.md says %s, the table %g", key, cell, want);
}

/* Every table row in the document, cells split on '|', in the table's order. */
static void test_doc_matches(void **state)
{
	FILE *f = fopen("docs/BANDWIDTH.md", "r");
	char line[1024], *cell[8], *p;
	int row = 0, n;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '|' || !strncmp(line, "| key", 5) || !strncmp(line, "|---", 4))
			continue;
		for (n = 0, p = strtok(line + 1, "|"); p && n < 8; p = strtok(NULL, "|"))
			cell[n++] = p;
		assert_true(n >= 5);
		for (int i = 0; i < n; i++) { /* trim */
			while (*cell[i] == ' ')
				cell[i]++;
			for (p = cell[i] + strlen(cell[i]);
			     p > cell[i] && (p[-1] == ' ' || p[-1] == '\n');)
				*--p = '\0';
		}
		assert_true(row < gp_bw_nrefs);
		assert_string_equal(cell[0], gp_bw_refs[row].key);
		assert_string_equal(cell[1], gp_bw_refs[row].what);
		same(cell[2], gp_bw_refs[row].theoretical, cell[0]);
		same(cell[3], gp_bw_refs[row].nccl, cell[0]);
		same(cell[4], gp_bw_refs[row].measured, cell[0]);
		assert_string_equal(n > 5 ? cell[5] : "", gp_bw_refs[row].measured_src
								  ? gp_bw_refs[row].measured_src
								  : "");
		row++;
	}
	fclose(f);
	assert_int_equal(row, gp_bw_nrefs);
}

/* NCCL's kvDictPciGen: width x per-lane / 80. */
static void test_nccl_pcie(void **state)
{
	(void)state;
	assert_true(gp_bw_nccl_pcie(8.0, 16) == 12.0);
	assert_true(gp_bw_nccl_pcie(16.0, 16) == 24.0);
	assert_true(gp_bw_nccl_pcie(32.0, 16) == 48.0);
	assert_true(gp_bw_nccl_pcie(16.0, 8) == 12.0);
	assert_true(gp_bw_nccl_pcie(2.5, 1) == 15 / 80.0);
	assert_true(gp_bw_nccl_pcie(16.0, 0) == 0);
}

static void test_expect(void **state)
{
	struct gp_expect e;

	(void)state;
	/* Gen4 x16 through one root complex: the measured 25 */
	assert_int_equal(gp_bw_expect_pcie(16.0, 16, GP_PATH_PHB, true, "AuthenticAMD", 0x19, &e),
			 0);
	assert_true(e.gbps == 25.0);
	assert_non_null(strstr(e.basis, "measured: "));
	assert_non_null(strstr(e.basis, "nccl-tests#74"));
	/* Gen5 x16: 54 on one node, 39 across sockets */
	gp_bw_expect_pcie(32.0, 16, GP_PATH_NODE, true, "AuthenticAMD", 0x19, &e);
	assert_true(e.gbps == 54.0);
	gp_bw_expect_pcie(32.0, 16, GP_PATH_SYS, true, "AuthenticAMD", 0x19, &e);
	assert_true(e.gbps == 39.0);
	/* Gen5 behind an Intel root complex: NCCL's 48 less the overhead, not AMD's measurement */
	gp_bw_expect_pcie(32.0, 16, GP_PATH_PHB, true, "GenuineIntel", 6, &e);
	assert_true(e.gbps == 40.0);
	/* Gen4 across an AMD Zen 3 pair of sockets: NCCL's 24 (the socket link) */
	gp_bw_expect_pcie(16.0, 16, GP_PATH_SYS, true, "AuthenticAMD", 0x19, &e);
	assert_true(e.gbps == 24.0);
	gp_bw_expect_pcie(16.0, 16, GP_PATH_SYS, true, "AuthenticAMD", 0x17, &e);
	assert_true(e.gbps == 16.0);
	assert_non_null(strstr(e.basis, "Zen 1/2"));
	/* Gen4 x8 behind an Intel root complex: 12 less the 6/5 overhead */
	gp_bw_expect_pcie(16.0, 8, GP_PATH_PHB, true, "GenuineIntel", 6, &e);
	assert_true(e.gbps > 9.99 && e.gbps < 10.01);
	assert_non_null(strstr(e.basis, "Intel"));
	/* behind one switch the root complex is not crossed */
	gp_bw_expect_pcie(16.0, 8, GP_PATH_PIX, true, "GenuineIntel", 6, &e);
	assert_true(e.gbps == 12.0);
	assert_int_equal(gp_bw_expect_pcie(0, 0, GP_PATH_PIX, true, NULL, 0, &e), -ENOENT);
	/* a NIC's path: GPU-to-GPU measurements do not apply, NCCL's model does */
	gp_bw_expect_pcie(16.0, 16, GP_PATH_PHB, false, "AuthenticAMD", 0x19, &e);
	assert_true(e.gbps == 24.0);
	assert_non_null(strstr(e.basis, "NCCL model"));
	/* NVLink: 18 of NVLink 4 measured, else NCCL's per link */
	assert_int_equal(gp_bw_expect_nvlink(18, 26.5625, &e), 0);
	assert_true(e.gbps == 380.0);
	gp_bw_expect_nvlink(12, 25.0, &e);
	assert_true(e.gbps > 239.99 && e.gbps < 240.01);
	gp_bw_expect_nvlink(4, 26.5625, &e);
	assert_true(e.gbps > 82.39 && e.gbps < 82.41);
	assert_int_equal(gp_bw_expect_nvlink(4, 0, &e), -ENOENT);
}

/* verify's prediction and the cause it names when NCCL falls short. */
static void test_verify_predict(void **state)
{
	struct gp_vgpu g[3];
	struct gp_vpair p[2];
	struct gp_expect e;

	(void)state;
	memset(g, 0, sizeof(g));
	memset(p, 0, sizeof(p));
	/* two PCIe pairs: the slower one's expectation is the ring's */
	p[0].expected.gbps = 25.0;
	p[1].expected.gbps = 12.0;
	p[1].to = 2;
	assert_int_equal(gp_verify_predict(g, 3, p, 2, &e), 0);
	assert_true(e.gbps == 12.0);
	assert_non_null(strstr(e.basis, "slowest pair"));
	/* two GPUs over 18 NVLink 4 links: the measured all-reduce */
	g[0].nv.version = 6;
	p[0].nvlinks = 18;
	p[0].expected.gbps = 380.0;
	p[0].to = 1;
	assert_int_equal(gp_verify_predict(g, 2, p, 1, &e), 0);
	assert_true(e.gbps == gp_bw_find("allreduce-2-nvlink4-x18")->measured);
	p[0].expected.gbps = 0;
	p[0].nvlinks = 0;
	assert_int_equal(gp_verify_predict(g, 2, p, 1, &e), -ENOENT);
	assert_non_null(strstr(gp_verify_nccl_cause(30, 27, 326), "NCCL_P2P_DISABLE"));
	assert_non_null(strstr(gp_verify_nccl_cause(150, 27, 326), "slower path"));
	assert_non_null(strstr(gp_verify_nccl_cause(250, 27, 326), "clocks"));
}

/* verify's record: written and read back the same; what is not one is refused, bounded. */
static void test_vrecord(void **state)
{
	struct gp_vrecord *r = calloc(2, sizeof(*r));
	char why[96], *text;

	(void)state;
	gp_strlcpy(r[0].when, "2026-12-02T10:00:00Z", sizeof(r[0].when));
	r[0].busbw_gbps = 327.4;
	r[0].bytes = 1 << 30;
	r[0].ranks = 2;
	r[0].npairs = 1;
	gp_strlcpy(r[0].pairs[0].from, "0000:00:06.0", GP_BDF_LEN);
	gp_strlcpy(r[0].pairs[0].to, "0000:00:07.0", GP_BDF_LEN);
	r[0].pairs[0].gbps = 394.6;
	text = gp_vrecord_to_json(&r[0]);
	assert_int_equal(gp_vrecord_from_json(text, &r[1], why, sizeof(why)), 0);
	free(text);
	assert_true(r[1].kept && r[1].ranks == 2 && r[1].bytes == 1 << 30);
	assert_true(r[1].busbw_gbps == 327.4);
	assert_true(gp_vrecord_pair(&r[1], "0000:00:06.0", "0000:00:07.0") == 394.6);
	/* the other direction, unmeasured, is the pair's measured one; a stranger has none */
	assert_true(gp_vrecord_pair(&r[1], "0000:00:07.0", "0000:00:06.0") == 394.6);
	assert_true(gp_vrecord_pair(&r[1], "0000:41:00.0", "0000:00:07.0") == 0);
	assert_int_equal(gp_vrecord_from_json("{\"nvlink_record\": 1}", &r[1], why, sizeof(why)),
			 -EINVAL);
	assert_false(r[1].kept);
	assert_int_equal(gp_vrecord_from_json("{\"verify_record\": 1, \"seen_at\": \"x\", "
					      "\"busbw_gbps\": 1, \"bytes\": 1, \"ranks\": 2, "
					      "\"pairs\": [{\"from\": \"../../x\", \"to\": "
					      "\"0000:00:07.0\", \"gbps_uni\": 1}]}",
					      &r[1], why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(gp_vrecord_from_json("{\"verify_record\": 1, \"seen_at\": \"x\", "
					      "\"busbw_gbps\": -5, \"bytes\": 1, \"ranks\": 2, "
					      "\"pairs\": []}",
					      &r[1], why, sizeof(why)),
			 -EINVAL);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_matches), cmocka_unit_test(test_nccl_pcie),
		cmocka_unit_test(test_expect),	    cmocka_unit_test(test_verify_predict),
		cmocka_unit_test(test_vrecord),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
