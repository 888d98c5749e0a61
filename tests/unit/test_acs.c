// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * acs.set: which switch ports it sets (core/acs.c: a passed NIC's path to
 * its GPU within one switch, the ports that redirect without Direct
 * Translated P2P and can take it, no other bridge), and its writer on a
 * regular file standing in for a port's sysfs config: the two bytes of ACS
 * Control at the capability + 6 and nothing else change, a port that drops
 * a bit fails the read-back and gets its old value back, undo restores, a
 * device that is no downstream port with ACS is refused; the boot unit's
 * script, run on such a tree, sets the same bits.  The link wraps pwrite()
 * (Makefile) to play a port that hardwires a bit to 0.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "unit.h"
#include "act/acs.h"
#include "act/actuator.h"
#include "core/acs.h"
#include "shared/log.h"
#include "shared/write.h"

/* pwrite() as a port whose ACS Control drops these bits (0: as written) */
static uint16_t dropped;

ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	uint8_t b[2];

	if (!dropped || n != 2)
		return __real_pwrite(fd, buf, n, off);
	memcpy(b, buf, 2);
	b[0] &= (uint8_t) ~(dropped & 0xff);
	b[1] &= (uint8_t) ~(dropped >> 8);
	return __real_pwrite(fd, b, 2, off) == 2 ? 2 : -1;
}

#define ACS_POS 0x148

/*
 * 4 KiB of config space: a bridge header, the PCIe capability at 0x40 of
 * type (6: downstream port), AER at 0x100 and ACS at 0x148 (acs: with it),
 * capability 0x5f, control ctrl; the bytes around filled with a pattern.
 */
static void make_config(const char *path, int type, bool acs, uint16_t ctrl)
{
	uint8_t c[4096];
	FILE *f;
	int i;

	for (i = 0; i < 4096; i++)
		c[i] = (uint8_t)(i * 7 + 3);
	memset(c, 0, 0x40);
	c[0] = 0xb5, c[1] = 0x10, c[2] = 0x97, c[3] = 0x87; /* 10b5:8797 */
	c[0x06] = 0x10;					    /* a capability list */
	c[0x0e] = 0x01;					    /* a bridge */
	c[0x34] = 0x40;
	c[0x40] = 0x10, c[0x41] = 0x00, c[0x42] = (uint8_t)(type << 4 | 2), c[0x43] = 0;
	/* AER (0x0001), version 1, next ACS_POS or none */
	c[0x100] = 0x01, c[0x101] = 0x00;
	c[0x102] = (uint8_t)(0x1 | ((acs ? ACS_POS : 0) & 0xf) << 4);
	c[0x103] = (uint8_t)((acs ? ACS_POS : 0) >> 4);
	if (acs) {
		c[ACS_POS] = 0x0d, c[ACS_POS + 1] = 0, c[ACS_POS + 2] = 0x01, c[ACS_POS + 3] = 0;
		c[ACS_POS + 4] = 0x5f, c[ACS_POS + 5] = 0x00;
		c[ACS_POS + 6] = (uint8_t)(ctrl & 0xff), c[ACS_POS + 7] = (uint8_t)(ctrl >> 8);
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(c, 1, sizeof(c), f), sizeof(c));
	fclose(f);
}

static void read_all(const char *path, uint8_t c[4096])
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(c, 1, 4096, f), 4096);
	fclose(f);
}

/* every byte of a equals b's but the ACS Control's two, which hold ctrl */
static void only_ctrl(const uint8_t *a, const uint8_t *b, uint16_t ctrl)
{
	int i;

	for (i = 0; i < 4096; i++)
		if (i != ACS_POS + 6 && i != ACS_POS + 7 && a[i] != b[i])
			fail_msg("byte 0x%x changed: 0x%02x -> 0x%02x", i, a[i], b[i]);
	assert_int_equal(b[ACS_POS + 6] | b[ACS_POS + 7] << 8, ctrl);
}

/* the value, the two bytes, read-back and undo */
static void test_write(void **state)
{
	char dir[] = "/tmp/gp-acs.XXXXXX", cfg[64];
	uint8_t before[4096], after[4096];
	struct gp_acs_reg r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	/* the kernel's default on a switch port (pci_std_enable_acs), with I/O blocking */
	make_config(cfg, GP_PCIE_DOWNSTREAM, true, 0x009d);
	read_all(cfg, before);
	assert_int_equal(gp_acs_read_at(cfg, &r), 0);
	assert_int_equal(r.pos, ACS_POS);
	assert_int_equal(r.cap, 0x5f);
	assert_int_equal(r.ctrl, 0x009d);
	assert_int_equal(r.vendor, 0x10b5);
	/* the recipe: SV RR CR UF DT (0x5d), bit 7 kept */
	assert_int_equal(gp_acs_target(r.cap, r.ctrl), 0x00dd);
	assert_int_equal(gp_acs_write_at(cfg, &r, gp_acs_target(r.cap, r.ctrl)), 0);
	read_all(cfg, after);
	only_ctrl(before, after, 0x00dd);

	/* a port that hardwires DT to 0: the write fails and the old value is back */
	assert_int_equal(gp_acs_read_at(cfg, &r), 0);
	r.ctrl = 0x009d;
	dropped = GP_ACS_DT;
	gp_verbosity = 0;
	assert_int_equal(gp_acs_write_at(cfg, &r, 0x00dd), -EIO);
	dropped = 0;
	assert_non_null(strstr(gp_last_error, "reads 0x009d after writing 0x00dd"));
	read_all(cfg, after);
	only_ctrl(before, after, 0x009d);

	/* undo: the journal's feature bits back, today's bits 7-15 left alone */
	make_config(cfg, GP_PCIE_DOWNSTREAM, true, 0x00dd);
	/* another port at the address (the buses renumbered): refused, untouched */
	assert_int_equal(gp_acs_restore_at(cfg, 0x001d, "/sys/devices/pci0000:00/elsewhere"),
			 -ESTALE);
	assert_non_null(strstr(gp_last_error, "renumbered"));
	read_all(cfg, after);
	only_ctrl(before, after, 0x00dd);
	assert_int_equal(gp_acs_read_at(cfg, &r), 0);
	assert_int_equal(gp_acs_restore_at(cfg, 0x001d, r.path), 0);
	read_all(cfg, after);
	only_ctrl(before, after, 0x009d);
	/* power/control: none is nothing to keep; "auto" becomes "on", read back */
	{
		char power[96], val[16];
		FILE *f;

		assert_int_equal(gp_acs_power_read(cfg, val, sizeof(val)), -ENOENT);
		snprintf(power, sizeof(power), "%s/power", dir);
		assert_int_equal(mkdir(power, 0755), 0);
		snprintf(power, sizeof(power), "%s/power/control", dir);
		f = fopen(power, "w");
		fputs("auto\n", f);
		fclose(f);
		assert_int_equal(gp_acs_power_read(cfg, val, sizeof(val)), 0);
		assert_string_equal(val, "auto");
		assert_int_equal(gp_acs_power_write(cfg, "on"), 0);
		assert_int_equal(gp_acs_power_read(cfg, val, sizeof(val)), 0);
		assert_string_equal(val, "on");
		assert_int_equal(gp_acs_power_write(cfg, "off; reboot"), -EINVAL);
		assert_int_equal(gp_acs_power_read(cfg, val, sizeof(val)), 0);
		assert_string_equal(val, "on");
		unlink(power);
		snprintf(power, sizeof(power), "%s/power", dir);
		rmdir(power);
	}
	assert_int_equal(gp_acs_restore_at(cfg, 0x10000, NULL), -EINVAL);
	assert_int_equal(gp_acs_restore_at(cfg, -1, NULL), -EINVAL);
	read_all(cfg, after);
	only_ctrl(before, after, 0x009d);
	unlink(cfg);
	rmdir(dir);
}

/* what is not a downstream port with ACS, or cannot be read whole, is refused untouched */
static void test_refused(void **state)
{
	char dir[] = "/tmp/gp-acs.XXXXXX", cfg[64];
	uint8_t before[4096], after[4096];
	struct gp_acs_reg r;

	(void)state;
	gp_verbosity = 0;
	assert_non_null(mkdtemp(dir));
	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	make_config(cfg, GP_PCIE_ROOT_PORT, true, 0x001d);
	read_all(cfg, before);
	assert_int_equal(gp_acs_read_at(cfg, &r), -EINVAL);
	assert_non_null(strstr(gp_last_error, "not a PCIe switch downstream port"));
	assert_int_equal(gp_acs_restore_at(cfg, 0x005d, NULL), -EINVAL);
	read_all(cfg, after);
	assert_memory_equal(before, after, 4096);
	make_config(cfg, GP_PCIE_UPSTREAM, true, 0x001d);
	assert_int_equal(gp_acs_read_at(cfg, &r), -EINVAL);
	make_config(cfg, GP_PCIE_DOWNSTREAM, false, 0);
	assert_int_equal(gp_acs_read_at(cfg, &r), -EINVAL);
	assert_non_null(strstr(gp_last_error, "no ACS capability"));
	/* an unprivileged reader's 64 bytes */
	make_config(cfg, GP_PCIE_DOWNSTREAM, true, 0x001d);
	assert_int_equal(truncate(cfg, 64), 0);
	assert_int_equal(gp_acs_read_at(cfg, &r), -EACCES);
	/* a link is not followed */
	unlink(cfg);
	assert_int_equal(symlink("/dev/null", cfg), 0);
	assert_int_equal(gp_acs_read_at(cfg, &r), -ELOOP);
	unlink(cfg);
	rmdir(dir);
}

/*
 * Which ports: roce-rails' node-0 switch redirects without DT on both
 * downstream ports (NIC 44:00.0 and GPU 43:00.0 under them), node 1's have
 * DT already; the root ports and upstream ports are never named.
 */
static void test_ports(void **state)
{
	static const char nic[] = "[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\n"
				  "[vm]\nname = v\nvcpus = 8\nmemory = 8GiB\nnuma = none\n"
				  "[nic]\nmatch = 15b3:101d 15b3:1021\nmode = ";
	struct gp_profile *p = calloc(1, sizeof(*p));
	struct gp_host *h = calloc(1, sizeof(*h));
	char text[512];
	int ports[8], n;

	(void)state;
	snprintf(text, sizeof(text), "%spassthrough\n", nic);
	unit_profile(text, p);
	unit_host("roce-rails", p, h);
	n = gp_acs_ports(h, p, ports, 8);
	assert_int_equal(n, 2);
	assert_string_equal(h->devs[ports[0]].bdf, "0000:42:01.0");
	assert_string_equal(h->devs[ports[1]].bdf, "0000:42:00.0");
	assert_false(gp_acs_settable(&h->devs[unit_index(h, "0000:40:01.1")]));
	assert_false(gp_acs_settable(&h->devs[unit_index(h, "0000:84:00.0")]));
	/* a port whose capability lacks DT is left to the operator */
	h->devs[ports[0]].acs_cap &= (uint16_t)~GP_ACS_DT;
	assert_int_equal(gp_acs_ports(h, p, ports, 8), 1);
	assert_string_equal(h->devs[ports[0]].bdf, "0000:42:00.0");
	gp_host_release(h);
	/* no passed NIC: no port */
	snprintf(text, sizeof(text), "%shost\n", nic);
	unit_profile(text, p);
	unit_host("roce-rails", p, h);
	assert_int_equal(gp_acs_ports(h, p, ports, 8), 0);
	gp_host_release(h);
	free(h);
	free(p);
}

/* the boot unit's script on a tree like sysfs: the port's bits set, an unknown port left alone */
static void test_script(void **state)
{
	char dir[] = "/tmp/gp-acs.XXXXXX", path[160], cmd[512], where[256], text[400];
	uint8_t before[4096], after[4096];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0", dir);
	assert_int_equal(gp_write_mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/acs.d", dir);
	assert_int_equal(gp_write_mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/config", dir);
	make_config(path, GP_PCIE_DOWNSTREAM, true, 0x009d);
	read_all(path, before);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/vendor", dir);
	f = fopen(path, "w");
	fputs("0x10b5\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/device", dir);
	f = fopen(path, "w");
	fputs("0x8797\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0", dir);
	assert_int_equal(gp_dev_where(path, where, sizeof(where)), 0);
	snprintf(path, sizeof(path), "%s/acs.d/0000:42:00.0", dir);
	gp_acs_file_text(0x10b5, 0x8797, 0x5d, where, cmd, sizeof(cmd));
	f = fopen(path, "w");
	fputs(cmd, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/acs-set", dir);
	f = fopen(path, "w");
	fputs(gp_acs_script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "sed -e 's#/etc/gpuprov/acs.d#%s/acs.d#' -e 's#/sys/bus/pci/devices#%s/devices#' "
		 "%s/acs-set | sh >%s/out 2>&1",
		 dir, dir, dir, dir);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/power", dir);
	assert_int_equal(gp_write_mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/power/control", dir);
	f = fopen(path, "w");
	fputs("auto\n", f);
	fclose(f);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/config", dir);
	read_all(path, after);
	only_ctrl(before, after, 0x00dd);
	/* and kept out of runtime D3hot, whose resume writes the kernel's ACS policy */
	assert_int_equal(gp_acs_power_read(path, text, sizeof(text)), 0);
	assert_string_equal(text, "on");
	/* a port whose IDs are not the file's: untouched, and the unit fails */
	make_config(path, GP_PCIE_DOWNSTREAM, true, 0x009d);
	snprintf(path, sizeof(path), "%s/acs.d/0000:42:00.0", dir);
	f = fopen(path, "w");
	fputs("0x10b5 0x8796 0x5d\n", f);
	fclose(f);
	assert_int_not_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/config", dir);
	read_all(path, after);
	only_ctrl(before, after, 0x009d);
	/* the right IDs at another place (renumbered buses): untouched, the unit fails */
	snprintf(path, sizeof(path), "%s/acs.d/0000:42:00.0", dir);
	snprintf(text, sizeof(text), "0x10b5 0x8797 0x5d %s/elsewhere\n", where);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	assert_int_not_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/devices/0000:42:00.0/config", dir);
	read_all(path, after);
	only_ctrl(before, after, 0x009d);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* what its undo record may name */
static void test_owns(void **state)
{
	char bdf[GP_BDF_LEN];

	(void)state;
	assert_true(gp_path_owned(GP_S_ACS_SET, "/etc/gpuprov/acs.d/0000:42:00.0"));
	assert_true(gp_path_owned(GP_S_ACS_SET, "/etc/gpuprov/acs-set"));
	assert_true(gp_path_owned(GP_S_ACS_SET, "/etc/systemd/system/gpuprov-acs.service"));
	assert_true(gp_path_owned(GP_S_ACS_SET, GP_ACS_WANTS));
	assert_false(gp_path_owned(GP_S_ACS_SET, "/etc/gpuprov/acs.d/42:00.0"));
	assert_false(gp_path_owned(GP_S_ACS_SET, "/etc/gpuprov/acs.d/passwd"));
	assert_false(gp_path_owned(GP_S_ACS_SET, "/etc/gpuprov/hugepages-reserve"));
	assert_false(gp_path_owned(GP_S_HUGEPAGES_RESERVE, "/etc/gpuprov/acs-set"));
	assert_int_equal(gp_acs_file_parse("/etc/gpuprov/acs.d/0000:42:00.0", bdf), 0);
	assert_string_equal(bdf, "0000:42:00.0");
	assert_int_equal(gp_acs_file_parse("/etc/gpuprov/acs.d/0000:42:00.0/x", bdf), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write), cmocka_unit_test(test_refused),
		cmocka_unit_test(test_ports), cmocka_unit_test(test_script),
		cmocka_unit_test(test_owns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
