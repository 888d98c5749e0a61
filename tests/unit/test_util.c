// SPDX-License-Identifier: GPL-2.0-or-later
#include "unit.h"
#include "cli/out.h"
#include "core/findings.h"
#include "shared/strpool.h"
#include "host/read.h"

static void test_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(gp_parse_size("64GiB", &v), 0);
	assert_true(v == 64ull << 30);
	assert_int_equal(gp_parse_size("2MiB", &v), 0);
	assert_true(v == 2ull << 20);
	assert_int_equal(gp_parse_size("4096", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(gp_parse_size("1 TiB", &v), 0);
	assert_true(v == 1ull << 40);
	assert_int_not_equal(gp_parse_size("64GB", &v), 0);
	assert_int_not_equal(gp_parse_size("-1GiB", &v), 0);
	assert_int_not_equal(gp_parse_size("GiB", &v), 0);
	assert_int_not_equal(gp_parse_size("99999999999999999999TiB", &v), 0);
	assert_int_not_equal(gp_parse_size("20000000TiB", &v), 0);
}

static void test_bdf(void **state)
{
	char out[GP_BDF_LEN];

	(void)state;
	assert_int_equal(gp_parse_bdf("0000:41:00.0", out), 0);
	assert_string_equal(out, "0000:41:00.0");
	assert_int_equal(gp_parse_bdf("c1:00.1", out), 0);
	assert_string_equal(out, "0000:c1:00.1");
	assert_int_not_equal(gp_parse_bdf("0000:41:20.0", out), 0);
	assert_int_not_equal(gp_parse_bdf("0000:41:00.8", out), 0);
	assert_int_not_equal(gp_parse_bdf("0000:41:00", out), 0);
	assert_int_not_equal(gp_parse_bdf("0000:41:00.0x", out), 0);
	assert_int_not_equal(gp_parse_bdf("10de:20b5", out), 0);
}

static void test_ids(void **state)
{
	uint16_t v, d;

	(void)state;
	assert_int_equal(gp_parse_id_pair("10de:20b5", &v, &d), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(d, 0x20b5);
	assert_int_not_equal(gp_parse_id_pair("10de:20b", &v, &d), 0);
	assert_int_not_equal(gp_parse_id_pair("10de:20b5:1", &v, &d), 0);
}

static void test_cpulist(void **state)
{
	(void)state;
	assert_int_equal(gp_cpulist_count("0-63,128-191"), 128);
	assert_int_equal(gp_cpulist_count("5"), 1);
	assert_int_equal(gp_cpulist_count("0-3\n"), 4);
	assert_int_equal(gp_cpulist_count(""), 0);
	assert_int_equal(gp_cpulist_count("3-1"), -1);
	assert_int_equal(gp_cpulist_count("a"), -1);
	{
		int ids[4], back[] = { 0, 1, 2, 5, 7, 8 };
		char buf[32];

		assert_int_equal(gp_cpulist_parse("3,8-10,12", ids, 4), 5);
		assert_int_equal(ids[0], 3);
		assert_int_equal(ids[3], 10);
		gp_cpulist_format(back, 6, buf, sizeof(buf));
		assert_string_equal(buf, "0-2,5,7-8");
		gp_cpulist_format(back, 6, buf, 5);
		assert_string_equal(buf, "");
	}
}

static void test_version(void **state)
{
	(void)state;
	assert_true(gp_version_cmp("5.9", "5.20") < 0);
	assert_true(gp_version_cmp("5.20", "5.20") == 0);
	assert_true(gp_version_cmp("5.32", "5.20") > 0);
	assert_true(gp_version_cmp("2.10.1", "2.9") > 0);
	assert_true(gp_version_cmp("1.0a", "1.0b") < 0);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	gp_format_size(256ull << 30, buf, sizeof(buf));
	assert_string_equal(buf, "256 GiB");
	gp_format_size(16 << 20, buf, sizeof(buf));
	assert_string_equal(buf, "16 MiB");
	gp_format_size(4812272ull * 1024, buf, sizeof(buf));
	assert_string_equal(buf, "4.6 GiB");
	gp_format_size(0, buf, sizeof(buf));
	assert_string_equal(buf, "0 B");
	/* the integer cases are written without printf: every digit, the unit, the cut */
	gp_format_size(1023, buf, sizeof(buf));
	assert_string_equal(buf, "1023 B");
	gp_format_size(1024, buf, sizeof(buf));
	assert_string_equal(buf, "1 KiB");
	gp_format_size(UINT64_MAX - (1ull << 50) + 1, buf, sizeof(buf));
	assert_string_equal(buf, "16383 PiB");
	gp_format_size(1000ull << 40, buf, sizeof(buf));
	assert_string_equal(buf, "1000 TiB");
	gp_format_size(1000ull << 40, buf, 4);
	assert_string_equal(buf, "100");
}

/* Interface names: the kernel's rule, narrowed to what every network manager reads. */
static void test_ifname(void **state)
{
	static const char *const good[] = { "bond0", "ens1f0np0",	"eth0.100", "br-lan",
					    "v_1",   "enx001122334455", "0eth" };
	static const char *const bad[] = { "",
					   ".",
					   "..",
					   "a/b",
					   "a:b",
					   "a b",
					   "a\tb",
					   "*x",
					   "&x",
					   "{x",
					   "\"b",
					   "#x",
					   "-x",
					   ".x",
					   "x%d",
					   "e*",
					   "e?",
					   "e[1]",
					   "12",
					   "all",
					   "default",
					   "enx0011223344556",
					   "caf\xc3\xa9",
					   "a\x1b[2J" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!gp_ifname_valid(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gp_ifname_valid(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

/* UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing past U+10FFFF. */
static void test_utf8(void **state)
{
	(void)state;
	assert_int_equal(gp_utf8_len((const unsigned char *)"a", 1), 1);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xe2\x82", 2), -1);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xe9-", 2), 0);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xc0\xaf", 2), 0);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	assert_int_equal(gp_utf8_len((const unsigned char *)"\x80", 1), 0);
	assert_true(gp_text_valid("H3C UniServer R5350 G6 \xc3\xa9"));
	assert_false(gp_text_valid("a\x1b[2J"));
	assert_false(gp_text_valid("a\tb"));
	assert_false(gp_text_valid("a\x7f"));
	assert_false(gp_text_valid("a\xc2\x9b"));
	assert_false(gp_text_valid("caf\xe9"));
}

/* For the terminal: controls, C1 and stray bytes as \xNN; text unchanged. */
static void test_term_escape(void **state)
{
	char out[64];
	size_t n, held;

	(void)state;
	n = gp_term_escape("ok \xc3\xa9\t\n", 7, out, &held);
	assert_int_equal(n, 7);
	assert_memory_equal(out, "ok \xc3\xa9\t\n", 7);
	n = gp_term_escape("\x1b]0;x\x07\x7f\xc2\x9b\xe9-", 11, out, &held);
	out[n] = '\0';
	assert_string_equal(out, "\\x1b]0;x\\x07\\x7f\\xc2\\x9b\\xe9-");
	assert_int_equal(held, 0);
	/* a sequence cut at the end is held back for the next write */
	n = gp_term_escape("a\xe2\x82", 3, out, &held);
	assert_int_equal(n, 1);
	assert_int_equal(held, 2);
}

/*
 * gp_tv keeps its 16 slots and reuses them: a short escaped value written
 * where a long plain one was ends where it should, and plain text is copied.
 */
static void test_tv_reuse(void **state)
{
	char big[300];
	const char *v[16];
	int i;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (i = 0; i < 16; i++)
		assert_string_equal(gp_tv(big), big);
	assert_string_equal(gp_tv("a\x01"), "a\\x01");
	assert_string_equal(gp_tv("tab\there\n"), "tab\\x09here\\x0a");
	assert_string_equal(gp_tv("cut \xe2\x82"), "cut \\xe2\\x82");
	assert_string_equal(gp_tv("caf\xc3\xa9"), "caf\xc3\xa9");
	assert_string_equal(gp_tv(""), "");
	/* 16 values at once are all alive */
	for (i = 0; i < 16; i++)
		v[i] = gp_tv(i % 2 ? "odd\x7f" : "even");
	for (i = 0; i < 16; i++)
		assert_string_equal(v[i], i % 2 ? "odd\\x7f" : "even");
}

/* is_bdf: the canonical spelling without sscanf, every other one as sscanf reads it */
static void test_is_bdf(void **state)
{
	static const struct {
		const char *s;
		bool want;
	} cases[] = {
		{ "0000:41:00.0", true },   { "0000:c1:1f.7", true },
		{ "ABCD:EF:01.2", true },   { "0000:41:00.12", true },
		{ "10000:41:00.0", true },  { "0000:41:00.x", false },
		{ "0000:41:00:0", false },  { "0000-41:00.0", false },
		{ "pci0000:00", false },    { "0000:4g:00.0", false },
		{ "0000:41:00.0a", false }, { "0000:41:0.00", true },
		{ "devices", false },	    { "", false },
	};
	size_t i;

	unsigned f[4], g[4];
	int n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (is_bdf(cases[i].s, strlen(cases[i].s)) != cases[i].want)
			fail_msg("is_bdf(\"%s\") is not %d", cases[i].s, cases[i].want);
		/* the fast path reads what sscanf reads, where it reads at all */
		if (!gp_bdf_canonical(cases[i].s, &f[0], &f[1], &f[2], &f[3]))
			continue;
		n = sscanf(cases[i].s, "%x:%x:%x.%u", &g[0], &g[1], &g[2], &g[3]);
		assert_int_equal(n, 4);
		assert_memory_equal(f, g, sizeof(f));
	}
	assert_true(gp_bdf_canonical("abCD:eF:1f.7 trailing", &f[0], &f[1], &f[2], &f[3]));
	assert_true(f[0] == 0xabcd && f[1] == 0xef && f[2] == 0x1f && f[3] == 7);
	assert_false(gp_bdf_canonical("0000:41:00.12", &f[0], &f[1], &f[2], &f[3]));
	assert_false(gp_bdf_canonical("0000:41:00.", &f[0], &f[1], &f[2], &f[3]));
}

/* "did you mean": near words and prefixes, nothing for what is far from all */
/* every enum value has its table line: an id of the area.name form, found by name */
static void test_findings_table(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < GP_F_COUNT; i++) {
		const char *id = gp_finding_kinds[i].id;

		assert_non_null(id);
		assert_non_null(strchr(id, '.'));
		assert_ptr_equal(gp_finding_kind(id), &gp_finding_kinds[i]);
		/* drift.* block nothing, nor boot.claim (apply's persist.vfio is
		 * what settles it); every other finding blocks some steps */
		assert_true((!strncmp(id, "drift.", 6) || !strcmp(id, "boot.claim")) ==
			    !gp_finding_kinds[i].groups);
	}
	assert_null(gp_finding_kind("gpu.slots"));
	assert_false(gp_finding_kind("gpu.in_use")->acceptable);
	assert_true(gp_finding_kind("vm.kvm")->acceptable);
}

static void test_closest(void **state)
{
	static const char *const words[] = { "scan", "check", "plan", "apply", "rollback", NULL };
	static const char *const ids[] = { "gpu.count", "gpu.slot", "gpu.link", NULL };

	(void)state;
	assert_string_equal(gp_closest("chekc", words), "check");
	assert_string_equal(gp_closest("aply", words), "apply");
	assert_string_equal(gp_closest("roll", words), "rollback");
	assert_string_equal(gp_closest("gpu.slots", ids), "gpu.slot");
	assert_null(gp_closest("frobnicate", words));
	assert_null(gp_closest("x", words));
}

/* The pool cuts as gp_strlcpy into the array it replaces, and keeps interned values once. */
static void test_strpool(void **state)
{
	struct gp_strpool p = { 0 };
	char big[9000], name[32], arr[8];
	const char *a, *b, *first[3000];
	int i;

	(void)state;
	assert_string_equal(gp_pool_copy(&p, "", 64), "");
	assert_string_equal(gp_pool_intern(&p, "", 64), "");
	gp_strlcpy(arr, "vfio-pci-long", sizeof(arr));
	assert_string_equal(gp_pool_copy(&p, "vfio-pci-long", sizeof(arr)), arr);
	assert_string_equal(gp_pool_intern(&p, "vfio-pci-long", sizeof(arr)), arr);
	a = gp_pool_intern(&p, "mlx5_core", 64);
	b = gp_pool_intern(&p, "mlx5_core", 64);
	assert_ptr_equal(a, b);
	/* equal up to the cut (9 characters of 10 bytes): one string */
	assert_ptr_equal(gp_pool_intern(&p, "mlx5_core_other", 10), a);
	assert_ptr_not_equal(gp_pool_copy(&p, "mlx5_core", 64), a);
	/* many: the table grows, every value still found once, none moved */
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "drv%d", i);
		first[i] = gp_pool_intern(&p, name, sizeof(name));
	}
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "drv%d", i);
		assert_ptr_equal(gp_pool_intern(&p, name, sizeof(name)), first[i]);
		assert_string_equal(first[i], name);
	}
	/* longer than a block */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(strlen(gp_pool_copy(&p, big, sizeof(big))), sizeof(big) - 1);
	assert_int_equal(strlen(gp_pool_copy(&p, big, 512)), 511);
	assert_string_equal(a, "mlx5_core");
	gp_pool_release(&p);
	assert_null(p.blocks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_bdf),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_ifname),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_term_escape),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_findings_table),
		cmocka_unit_test(test_strpool),
		cmocka_unit_test(test_tv_reuse),
		cmocka_unit_test(test_is_bdf),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
