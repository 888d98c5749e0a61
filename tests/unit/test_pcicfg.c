// SPDX-License-Identifier: GPL-2.0-or-later
/* Config-space and resource-file parsers, on hand-made bytes. */
#include "unit.h"
#include "core/pcicfg.h"

static void put16(uint8_t *b, size_t off, unsigned v)
{
	b[off] = v & 0xff;
	b[off + 1] = (v >> 8) & 0xff;
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	put16(b, off, v & 0xffff);
	put16(b, off + 2, v >> 16);
}

/* A bridge with the PCIe capability at 0x60 behind a PM capability at 0x40. */
static void make_cfg(uint8_t *b)
{
	memset(b, 0, 4096);
	put16(b, 0, 0x1000);
	put16(b, 2, 0xc030);
	put16(b, 6, 0x0010);
	b[0x0e] = 0x81; /* multifunction bridge */
	b[0x34] = 0x40;
	b[0x40] = 0x01;
	b[0x41] = 0x60;
	b[0x60] = 0x10;
	put16(b, 0x62, 0x2 | (6 << 4));
	put32(b, 0x60 + 0x0c, 5 | (16 << 4));
	put16(b, 0x60 + 0x12, 4 | (8 << 4));
	put32(b, 0x100, 0x0001 | (1 << 16) | (0x150 << 20)); /* AER, next 0x150 */
	put32(b, 0x150, 0x000d | (1 << 16));
	put16(b, 0x154, 0x5f);
	put16(b, 0x156, 0x001d);
}

static void test_cfg_bridge(void **state)
{
	uint8_t b[4096];
	struct gp_cfg c;

	(void)state;
	make_cfg(b);
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_int_equal(c.vendor, 0x1000);
	assert_int_equal(c.header_type, 1);
	assert_int_equal(c.pcie_type, GP_PCIE_DOWNSTREAM);
	assert_true(c.link.max_speed == 32.0);
	assert_int_equal(c.link.max_width, 16);
	assert_true(c.link.speed == 16.0);
	assert_int_equal(c.link.width, 8);
	assert_true(c.has_acs);
	assert_int_equal(c.acs_pos, 0x150);
	assert_int_equal(c.acs_ctrl, 0x1d);
	assert_int_equal(c.ats, -1); /* no ATS capability */
	/* ATS after ACS: present and off, then enabled (control bit 15) */
	put32(b, 0x150, 0x000d | (1 << 16) | (0x160 << 20));
	put32(b, 0x160, 0x000f | (1 << 16));
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_int_equal(c.ats, 0);
	put16(b, 0x166, 0x8000);
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_int_equal(c.ats, 1);
	assert_true(c.has_acs);
	/* cut before its control register: not read */
	assert_int_equal(gp_cfg_parse(b, 0x164, &c), 0);
	assert_int_equal(c.ats, -1);
}

/* The standard list in order, MSI's length from its flags, MSI-X 12 bytes. */
static void test_cfg_caps(void **state)
{
	uint8_t b[4096];
	struct gp_cfg c;

	(void)state;
	make_cfg(b);
	b[0x61] = 0xb8; /* PCIe -> MSI (64-bit, per-vector mask) -> MSI-X */
	b[0xb8] = 0x05;
	b[0xb9] = 0xc8;
	put16(b, 0xba, 0x0180);
	b[0xc8] = 0x11;
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_int_equal(c.ncaps, 4);
	assert_int_equal(c.caps[0].pos, 0x40);
	assert_int_equal(c.caps[0].len, 0);
	assert_int_equal(c.caps[2].id, 0x05);
	assert_int_equal(c.caps[2].len, 24);
	assert_int_equal(c.caps[3].pos, 0xc8);
	assert_int_equal(c.caps[3].len, 12);
	put16(b, 0xba, 0x0000);
	gp_cfg_parse(b, sizeof(b), &c);
	assert_int_equal(c.caps[2].len, 10);
	/* a loop ends at the bound; 64 bytes (not root) list nothing */
	b[0xc9] = 0x40;
	gp_cfg_parse(b, sizeof(b), &c);
	assert_int_equal(c.ncaps, GP_MAX_CAPS);
	gp_cfg_parse(b, 64, &c);
	assert_int_equal(c.ncaps, 0);
}

static void test_cfg_short_and_loops(void **state)
{
	uint8_t b[4096];
	struct gp_cfg c;

	(void)state;
	make_cfg(b);
	assert_int_not_equal(gp_cfg_parse(b, 32, &c), 0);
	/* 64 bytes: IDs, no capabilities beyond the buffer */
	assert_int_equal(gp_cfg_parse(b, 64, &c), 0);
	assert_int_equal(c.pcie_type, GP_PCIE_NONE);
	assert_int_equal(c.link.width, 0);
	/* a capability list that points at itself ends */
	b[0x41] = 0x40;
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_int_equal(c.pcie_type, GP_PCIE_NONE);
	/* an extended list that loops ends too */
	put32(b, 0x150, 0x0001 | (1 << 16) | (0x100 << 20));
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_false(c.has_acs);
	/* no capability-list bit: nothing is followed */
	make_cfg(b);
	put16(b, 6, 0);
	assert_int_equal(gp_cfg_parse(b, sizeof(b), &c), 0);
	assert_int_equal(c.pcie_type, GP_PCIE_NONE);
}

static void test_link_math(void **state)
{
	(void)state;
	assert_true(gp_link_speed_gts(4) == 16.0);
	assert_true(gp_link_speed_gts(1) == 2.5);
	assert_true(gp_link_speed_gts(9) == 0);
	/* PCIe 4.0 x16: 31.5 GB/s per direction; 1.0 x1: 0.25 GB/s */
	assert_true(gp_link_bandwidth(16.0, 16) > 31.5 && gp_link_bandwidth(16.0, 16) < 31.6);
	assert_true(gp_link_bandwidth(2.5, 1) == 0.25);
	assert_true(gp_link_bandwidth(32.0, 16) > 63.0 && gp_link_bandwidth(32.0, 16) < 63.1);
	assert_true(gp_link_bandwidth(0, 16) == 0);
}

static void test_resource(void **state)
{
	/* the real H200's: 16 MiB, 256 GiB, 32 MiB, all 64-bit prefetchable */
	const char *h200 = "0x0000104003000000 0x0000104003ffffff 0x000000000014220c\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			   "0x0000108000000000 0x000010bfffffffff 0x000000000014220c\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			   "0x0000104004000000 0x0000104005ffffff 0x000000000014220c\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
	struct gp_bar bars[GP_MAX_BARS];

	(void)state;
	assert_int_equal(gp_resource_parse(h200, bars, GP_MAX_BARS), 3);
	assert_int_equal(bars[1].index, 2);
	assert_true(bars[1].size == 256ull << 30);
	assert_true(bars[1].is64 && bars[1].prefetchable && !bars[1].unset);
	assert_true(bars[0].size == 16 << 20);
	assert_int_equal(bars[2].index, 4);
	/* unassigned: start 0 with a size, and the UNSET flag */
	assert_int_equal(gp_resource_parse("0x0 0xfffffff 0x20140200\n", bars, 6), 1);
	assert_true(bars[0].unset);
	/* an I/O BAR */
	assert_int_equal(gp_resource_parse("0x1000 0x101f 0x40101\n", bars, 6), 1);
	assert_true(bars[0].io);
	/* malformed */
	assert_int_equal(gp_resource_parse("0x1000 zz\n", bars, 6), -EINVAL);
	assert_int_equal(gp_resource_parse("0x2000 0x1000 0x200\n", bars, 6), -EINVAL);
	assert_int_equal(gp_resource_parse("0x1000 0x1fff 0x200 junk\n", bars, 6), -EINVAL);
	assert_int_equal(gp_resource_parse("", bars, 6), 0);
}

/*
 * The kernel's spelling ("0x%016llx 0x%016llx 0x%016llx\n", read without
 * strtoull) and any other spelling strtoull takes give the same BARs, and a
 * line that only looks like the kernel's falls back, not through.
 */
static void test_resource_spellings(void **state)
{
	static const unsigned long long lines[][3] = {
		{ 0x0000104003000000ull, 0x0000104003ffffffull, 0x14220c },
		{ 0, 0, 0 },
		{ 0xfffffff000000000ull, 0xffffffffffffffffull, 0x14220c },
		{ 0x1000, 0x101f, 0x40101 },
		{ 0, 0xfffffff, 0x20140200 },
		{ 0xabcdef0000000000ull, 0xabcdef00ffffffffull, 0x200 },
	};
	char kernel[1024], other[1024];
	struct gp_bar a[GP_MAX_BARS], b[GP_MAX_BARS];
	size_t i, k = 0, o = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		k += (size_t)sprintf(kernel + k, "0x%016llx 0x%016llx 0x%016llx\n", lines[i][0],
				     lines[i][1], lines[i][2]);
		o += (size_t)sprintf(other + o, "%llX\t0X%llx  %llx \r\n", lines[i][0], lines[i][1],
				     lines[i][2]);
	}
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	assert_int_equal(gp_resource_parse(kernel, a, GP_MAX_BARS), 5);
	assert_int_equal(gp_resource_parse(other, b, GP_MAX_BARS), 5);
	assert_memory_equal(a, b, sizeof(a));
	assert_true(a[1].addr == 0xfffffff000000000ull && a[1].size == 0x1000000000ull);
	assert_int_equal(a[4].index, 5);
	/* kernel-like, but not quite: 17 digits, no newline at the end, junk, a sign */
	assert_int_equal(
		gp_resource_parse("0x00000000000001000 0x0000000000001fff 0x0000000000000200\n", a,
				  6),
		1);
	assert_true(a[0].addr == 0x1000 && a[0].size == 0x1000);
	assert_int_equal(
		gp_resource_parse("0x0000000000001000 0x0000000000001fff 0x0000000000000200", a, 6),
		1);
	assert_int_equal(
		gp_resource_parse("0x0000000000001000 0x0000000000001fff 0x000000000000020g\n", a,
				  6),
		-EINVAL);
	assert_int_equal(
		gp_resource_parse("0x0000000000002000 0x0000000000001fff 0x0000000000000200\n", a,
				  6),
		-EINVAL);
	assert_int_equal(
		gp_resource_parse("0x0000000000000000 0xffffffffffffffff 0x0000000000000200\n", a,
				  6),
		-EINVAL);
	assert_int_equal(gp_resource_parse("0x0000000000001000 0x0000000000001fff\n", a, 6),
			 -EINVAL);
}

/* aer_dev_*: the kernel's TOTAL_ line, else the sum; anything else is not such a file */
static void test_aer_total(void **state)
{
	(void)state;
	assert_int_equal(gp_aer_total("DLP 1\nSDES 0\nTOTAL_ERR_FATAL 1\n"), 1);
	assert_int_equal(gp_aer_total("RxErr 7\nBadTLP 2\nTOTAL_ERR_COR 9"), 9);
	assert_int_equal(gp_aer_total("RxErr 7\nBadTLP 2\n"), 9);
	assert_int_equal(gp_aer_total(""), -1);
	assert_int_equal(gp_aer_total("TOTAL_ERR_FATAL x\n"), -1);
	assert_int_equal(gp_aer_total("DLP -1\n"), -1);
	assert_int_equal(gp_aer_total("DLP\n"), -1);
	assert_int_equal(gp_aer_total("DLP 99999999999999999999999\n"), -1);
	assert_int_equal(gp_aer_total("A 9223372036854775806\nB 9\n"), 9223372036854775807LL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_bridge),
		cmocka_unit_test(test_cfg_caps),
		cmocka_unit_test(test_cfg_short_and_loops),
		cmocka_unit_test(test_link_math),
		cmocka_unit_test(test_resource),
		cmocka_unit_test(test_aer_total),
		cmocka_unit_test(test_resource_spellings),
	};

	return cmocka_run_group_tests_name("pcicfg", tests, NULL, NULL);
}
