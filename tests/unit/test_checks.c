// SPDX-License-Identifier: GPL-2.0-or-later
/* Every check, on the fixture host that provokes it and on the one that does not. */
#include "unit.h"
#include "core/check_boot.h"
#include "core/checks.h"
#include "core/pcicfg.h"
#include "core/topo.h"
#include "host/host.h"

#define A100 "[gpus]\nmatch = 10de:20b5\ncount = 2\n"

struct run {
	struct gp_host h;
	struct gp_profile p;
	struct gp_report r;
};

static void run_checks(struct run *x, const char *host, const char *profile)
{
	memset(x, 0, sizeof(*x));
	unit_profile(profile, &x->p);
	unit_host(host, &x->p, &x->h);
	gp_checks_run(&x->h, &x->p, &x->r);
}

static void done(struct run *x)
{
	gp_report_release(&x->r);
	gp_host_release(&x->h);
}

/* The finding with this id and subject; fails the test when absent. */
static const struct gp_finding *get(const struct run *x, const char *id, const char *subject)
{
	size_t i;

	for (i = 0; i < x->r.n; i++)
		if (!strcmp(x->r.items[i].id, id) && !strcmp(x->r.items[i].subject, subject))
			return &x->r.items[i];
	fail_msg("no finding %s for %s", id, subject);
	return NULL;
}

static void expect(const struct run *x, const char *id, const char *subject, enum gp_severity sev,
		   const char *words)
{
	const struct gp_finding *f = get(x, id, subject);

	if (f->severity != sev)
		fail_msg("%s %s: severity %s, want %s (%s)", id, subject,
			 gp_severity_name(f->severity), gp_severity_name(sev), f->message);
	if (words && !strstr(f->message, words))
		fail_msg("%s %s: '%s' lacks '%s'", id, subject, f->message, words);
	if (sev != GP_OK && !f->hint[0])
		fail_msg("%s %s: no hint", id, subject);
}

static void test_ready(void **state)
{
	static const char *const ids[] = {
		"iommu.off",	"iommu.group_shared", "bios.version",	    "bar.unassigned",
		"bar.below_4g", "gpu.count",	      "gpu.slot",	    "gpu.numa_split",
		"gpu.link",	"gpu.in_use",	      "gpu.reset",	    "p2p.path",
		"p2p.acs",	"vfio.module",	      "vfio.ids_inherited",
	};
	struct run x;
	size_t i, j;

	(void)state;
	run_checks(&x, "r5350-ready", A100);
	assert_int_equal(gp_report_count(&x.r, GP_WARN), 0);
	assert_int_equal(gp_report_count(&x.r, GP_FAIL), 0);
	/* every check reports, even when it passes */
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		for (j = 0; j < x.r.n && strcmp(x.r.items[j].id, ids[i]); j++)
			;
		if (j == x.r.n)
			fail_msg("no %s finding", ids[i]);
	}
	expect(&x, "p2p.path", "0000:41:00.0-0000:42:00.0", GP_OK, "PHB");
	expect(&x, "gpu.link", "0000:41:00.0", GP_OK, "16 GT/s x16");
	done(&x);
}

static void test_numa_and_p2p(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "numa-split", A100);
	expect(&x, "gpu.numa_split", "gpus", GP_FAIL, "0000:82:00.0 on node 1");
	expect(&x, "p2p.path", "0000:41:00.0-0000:82:00.0", GP_FAIL, "SYS");
	done(&x);
	run_checks(&x, "numa-split", A100 "p2p = preferred\nsame_numa_node = no\n");
	expect(&x, "gpu.numa_split", "gpus", GP_OK, NULL);
	expect(&x, "p2p.path", "0000:41:00.0-0000:82:00.0", GP_WARN, "SYS");
	done(&x);
	run_checks(&x, "numa-split", A100 "p2p = off\n");
	expect(&x, "p2p.path", "0000:41:00.0-0000:82:00.0", GP_OK, "not wanted");
	done(&x);
	run_checks(&x, "node", A100);
	expect(&x, "p2p.path", "0000:02:00.0-0000:41:00.0", GP_WARN, "NODE");
	done(&x);
	run_checks(&x, "malformed", A100);
	expect(&x, "gpu.numa_split", "gpus", GP_WARN, "unknown node");
	done(&x);
}

/* One NUMA node (the real H200 VM): the kernel says -1, and there is no split. */
static void test_single_node(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "h200x2-guest", "[gpus]\nmatch = 10de:2335\ncount = 2\n");
	expect(&x, "gpu.numa_split", "gpus", GP_OK, "0000:00:07.0 on node 0");
	assert_int_equal(x.h.devs[unit_index(&x.h, "0000:00:06.0")].numa_node, 0);
	done(&x);
	/* two nodes and -1: still unknown */
	run_checks(&x, "malformed", A100);
	expect(&x, "gpu.numa_split", "gpus", GP_WARN, "unknown node");
	done(&x);
}

static void test_groups(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "group-shared", A100);
	expect(&x, "iommu.group_shared", "0000:41:00.0", GP_FAIL, "0000:41:00.1 (10de:1aef");
	expect(&x, "iommu.group_shared", "0000:42:00.0", GP_OK, NULL);
	done(&x);
	run_checks(&x, "group-shared", A100 "companions = bind\n");
	expect(&x, "iommu.group_shared", "0000:41:00.0", GP_WARN, "snd_hda_intel");
	done(&x);
	run_checks(&x, "iommu-off", A100);
	expect(&x, "iommu.off", "host", GP_FAIL, "no IOMMU groups");
	done(&x);
	/* the switch host's GPUs are in separate groups: the ACS is on */
	run_checks(&x, "switch", A100);
	expect(&x, "iommu.group_shared", "0000:43:00.0", GP_OK, NULL);
	done(&x);
}

static void test_iommu_cmdline(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "r5350-ready", A100);
	gp_report_release(&x.r);
	strcpy(x.h.cmdline, "ro quiet amd_iommu=off");
	gp_checks_run(&x.h, &x.p, &x.r);
	expect(&x, "iommu.off", "host", GP_FAIL, "'amd_iommu=off'");
	done(&x);
}

/* The hint names only documented kernel parameters (kernel-parameters.txt). */
static void test_iommu_hint(void **state)
{
	const struct gp_finding *f;
	struct run x;

	(void)state;
	run_checks(&x, "iommu-off", A100);
	f = get(&x, "iommu.off", "host");
	assert_null(strstr(f->hint, "amd_iommu=on"));
	assert_non_null(strstr(f->hint, "intel_iommu=on"));
	assert_non_null(strstr(f->hint, "iommu=pt"));
	done(&x);
}

static void test_bars(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "bars", A100);
	expect(&x, "bar.unassigned", "0000:41:00.0", GP_FAIL, "BAR1 (128 GiB)");
	expect(&x, "bar.below_4g", "0000:42:00.0", GP_WARN, "0xd0000000");
	expect(&x, "bar.unassigned", "0000:42:00.0", GP_OK, NULL);
	done(&x);
	run_checks(&x, "malformed", A100);
	expect(&x, "bar.unassigned", "0000:41:00.0", GP_FAIL, "cannot read the BARs");
	done(&x);
}

/*
 * Each pair's hop is said as snprintf says it, on hosts of many kinds of
 * link checked one after another: the texts check_p2p_pair keeps per kind
 * of hop are never another kind's.
 */
static void test_hop_texts(void **state)
{
	static const char *const hosts[] = { "link",	   "many-gpus", "switch", "r5350-ready",
					     "numa-split", "switch2",	"link",	  "many-gpus" };
	char want[128], bdf[GP_BDF_LEN];
	size_t i, k, pairs = 0;
	struct gp_hop hop;
	struct run x;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(hosts); k++) {
		run_checks(&x, hosts[k], A100);
		for (i = 0; i < x.r.n; i++) {
			const struct gp_finding *f = &x.r.items[i];
			int a, b;

			if (strcmp(f->id, "p2p.path") || strlen(f->subject) != 25)
				continue;
			gp_strlcpy(bdf, f->subject, 13);
			a = gp_host_find(&x.h, bdf);
			b = gp_host_find(&x.h, f->subject + 13);
			assert_true(a >= 0 && b >= 0);
			hop = gp_topo_slowest(&x.h, a, b);
			if (!hop.width)
				continue;
			snprintf(want, sizeof(want),
				 "slowest hop %g GT/s x%d, %.1f GB/s per direction", hop.speed,
				 hop.width, gp_link_bandwidth(hop.speed, hop.width));
			if (!strstr(f->message, want))
				fail_msg("%s %s: '%s' lacks '%s'", hosts[k], f->subject, f->message,
					 want);
			pairs++;
		}
		done(&x);
	}
	assert_true(pairs > 100);
}

static void test_links(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "link", A100);
	expect(&x, "gpu.link", "0000:41:00.0", GP_FAIL, "x8, the card supports x16");
	expect(&x, "gpu.link", "0000:42:00.0", GP_WARN, "2.5 GT/s");
	/* the ceiling is what the links support; the idle card's 2.5 GT/s is said */
	expect(&x, "p2p.path", "0000:41:00.0-0000:42:00.0", GP_OK,
	       "slowest hop 16 GT/s x16, 31.5 GB/s per direction; trained at 2.5 GT/s x16 now");
	done(&x);
	run_checks(&x, "malformed", A100);
	expect(&x, "gpu.link", "0000:42:00.0", GP_WARN, "cannot read the PCIe link");
	done(&x);
}

static void test_slots(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "r5350-ready",
		   A100 "slots = 1 3\n"
			"[slot.1]\nroot_port = 0000:40:01.1\nnuma_node = 0\n"
			"[slot.3]\nroot_port = 0000:40:03.1\nnuma_node = 1\n");
	expect(&x, "gpu.slot", "0000:41:00.0", GP_OK, "slot 1");
	expect(&x, "gpu.slot", "0000:42:00.0", GP_WARN, "NUMA node 1 per the profile");
	done(&x);
	run_checks(&x, "numa-split",
		   A100 "slots = 1 3\n"
			"[slot.1]\nroot_port = 0000:40:01.1\n"
			"[slot.3]\nroot_port = 0000:40:03.1\n");
	expect(&x, "gpu.slot", "0000:82:00.0", GP_FAIL, "the profile wants slot 1, 3");
	done(&x);
	run_checks(&x, "switch", A100);
	expect(&x, "gpu.slot", "0000:43:00.0", GP_WARN, "not a CPU root port");
	done(&x);
	run_checks(&x, "r5350-ready", A100 "[slot.1]\nroot_port = 0000:40:01.1\ncpu_direct = no\n");
	expect(&x, "gpu.slot", "0000:41:00.0", GP_WARN, "slot 1");
	done(&x);
}

/* How many findings with this id, subject and severity, and one of them has words. */
static int count_with(const struct run *x, const char *id, const char *subject,
		      enum gp_severity sev, const char *words)
{
	size_t i;
	int n = 0;

	for (i = 0; i < x->r.n; i++) {
		const struct gp_finding *f = &x->r.items[i];

		n += !strcmp(f->id, id) && !strcmp(f->subject, subject) && f->severity == sev &&
		     (!words || strstr(f->message, words));
	}
	return n;
}

/* The nearest slot wins whatever the order of the sections; each problem is reported. */
static void test_slot_nearest(void **state)
{
	static const char *const orders[] = {
		"[slot.sw]\nroot_port = 0000:40:01.1\n[slot.a]\nroot_port = 0000:42:00.0\n"
		"[slot.b]\nroot_port = 0000:42:01.0\n",
		"[slot.a]\nroot_port = 0000:42:00.0\n[slot.b]\nroot_port = 0000:42:01.0\n"
		"[slot.sw]\nroot_port = 0000:40:01.1\n",
	};
	char profile[512];
	struct run x;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		snprintf(profile, sizeof(profile), A100 "slots = a b\n%s", orders[i]);
		run_checks(&x, "switch", profile);
		assert_int_equal(count_with(&x, "gpu.slot", "0000:43:00.0", GP_FAIL, NULL), 0);
		expect(&x, "gpu.slot", "0000:43:00.0", GP_WARN, "slot a");
		expect(&x, "gpu.slot", "0000:44:00.0", GP_WARN, "slot b");
		done(&x);
	}
	/* in the wrong slot, on the wrong node per the profile, and not CPU-direct */
	run_checks(&x, "switch",
		   A100 "slots = b\n[slot.a]\nroot_port = 0000:42:00.0\nnuma_node = 1\n"
			"[slot.b]\nroot_port = 0000:42:01.0\n");
	assert_int_equal(count_with(&x, "gpu.slot", "0000:43:00.0", GP_FAIL, "in slot a"), 1);
	assert_int_equal(count_with(&x, "gpu.slot", "0000:43:00.0", GP_WARN, "NUMA node 1"), 1);
	assert_int_equal(count_with(&x, "gpu.slot", "0000:43:00.0", GP_WARN, "not a CPU root port"),
			 1);
	assert_int_equal(count_with(&x, "gpu.slot", "0000:43:00.0", GP_OK, NULL), 0);
	done(&x);
}

/* A GPU on a root bus (the real H200 VM): its slot names it by address. */
static void test_slot_root_bus(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "h200x2-guest",
		   "[gpus]\nmatch = 10de:2335\ncount = 2\nslots = g0 g1\n"
		   "[slot.g0]\naddress = 0000:00:06.0\ncpu_direct = yes\n"
		   "[slot.g1]\naddress = 0000:00:07.0\n");
	expect(&x, "gpu.slot", "0000:00:06.0", GP_OK, "root bus of pci0000:00, slot g0");
	expect(&x, "gpu.slot", "0000:00:07.0", GP_OK, "slot g1");
	done(&x);
}

static void test_count(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "r5350-ready", "[gpus]\nmatch = 10de:20b5\ncount = 4\n");
	expect(&x, "gpu.count", "host", GP_FAIL, "2 GPUs match the profile, which expects 4");
	done(&x);
	run_checks(&x, "r5350-ready", "[gpus]\nmatch = 0000:42:00.0\ncount = 1\n");
	expect(&x, "gpu.count", "host", GP_OK, "1 GPU match");
	done(&x);
}

static void test_acs(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "switch", A100);
	expect(&x, "p2p.path", "0000:43:00.0-0000:44:00.0", GP_OK, "PIX");
	expect(&x, "p2p.acs", "0000:43:00.0-0000:44:00.0", GP_WARN,
	       "0000:42:00.0 (ReqRedir CmpltRedir)");
	done(&x);
	run_checks(&x, "switch2", A100);
	expect(&x, "p2p.path", "0000:45:00.0-0000:48:00.0", GP_OK, "PXB");
	expect(&x, "p2p.acs", "0000:45:00.0-0000:48:00.0", GP_OK, "no bridge");
	done(&x);
}

static void test_in_use_and_reset(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "in-use", A100);
	expect(&x, "gpu.in_use", "0000:41:00.0", GP_FAIL,
	       "PID 2817 (nvidia-persiste) /dev/nvidia0");
	expect(&x, "gpu.in_use", "0000:42:00.0", GP_FAIL, "PID 40211 (python3) /dev/nvidia1");
	assert_null(strstr(get(&x, "gpu.in_use", "0000:41:00.0")->message, "40211"));
	done(&x);
	/* a VM running on GPUs already on vfio-pci: nothing to unbind, not a blocker */
	run_checks(&x, "vm-running", A100);
	expect(&x, "gpu.in_use", "0000:42:00.0", GP_OK,
	       "PID 7311 (qemu-system-x86) /dev/vfio/6; already on vfio-pci");
	done(&x);
	run_checks(&x, "r5350-ready", A100);
	expect(&x, "gpu.in_use", "0000:41:00.0", GP_OK, NULL);
	expect(&x, "gpu.reset", "0000:41:00.0", GP_OK, "flr bus");
	/* an empty reset_method: the kernel cannot reset the card */
	gp_report_release(&x.r);
	x.h.devs[unit_index(&x.h, "0000:41:00.0")].reset_method = "";
	gp_checks_run(&x.h, &x.p, &x.r);
	expect(&x, "gpu.reset", "0000:41:00.0", GP_WARN, "no reset method");
	done(&x);
}

/* gpu.health: a lost card, fatal errors counted by the port, non-fatal by the card */
static void test_health(void **state)
{
	struct run x;
	struct gp_dev *d;

	(void)state;
	run_checks(&x, "health", A100);
	expect(&x, "gpu.health", "0000:41:00.0", GP_FAIL, "reads all ones");
	expect(&x, "gpu.link", "0000:41:00.0", GP_WARN, "does not answer");
	expect(&x, "gpu.health", "0000:42:00.0", GP_FAIL,
	       "1 fatal AER error since boot, "
	       "counted by 0000:40:03.1");
	/* the port's fatal count gone: the card's own non-fatal ones warn */
	gp_report_release(&x.r);
	x.h.devs[unit_index(&x.h, "0000:40:03.1")].aer_fatal = 0;
	gp_checks_run(&x.h, &x.p, &x.r);
	expect(&x, "gpu.health", "0000:42:00.0", GP_WARN,
	       "2 non-fatal AER errors since boot, "
	       "counted by 0000:42:00.0");
	done(&x);
	run_checks(&x, "r5350-ready", A100);
	expect(&x, "gpu.health", "0000:41:00.0", GP_OK, "0 fatal, 0 non-fatal, 0 correctable");
	/* no aer_dev_* files at all: said, not failed */
	gp_report_release(&x.r);
	d = &x.h.devs[unit_index(&x.h, "0000:41:00.0")];
	d->aer_fatal = d->aer_nonfatal = d->aer_cor = -1;
	d = &x.h.devs[d->parent];
	d->aer_fatal = d->aer_nonfatal = d->aer_cor = -1;
	gp_checks_run(&x.h, &x.p, &x.r);
	expect(&x, "gpu.health", "0000:41:00.0", GP_OK, "AER counters not exposed");
	done(&x);
}

static void test_bios_and_vfio(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "vfio-inherited", "[server]\nmin_bios = 5.20\n" A100);
	expect(&x, "bios.version", "host", GP_WARN, "BIOS 4.10 is older than 5.20");
	expect(&x, "vfio.module", "vfio-pci", GP_FAIL, "has no vfio-pci module");
	expect(&x, "vfio.ids_inherited", "vfio-pci", GP_WARN,
	       "/proc/cmdline, /etc/modprobe.d/fixture.conf");
	done(&x);
	run_checks(&x, "r5350-ready", "[server]\nmin_bios = 5.9\n" A100);
	expect(&x, "bios.version", "host", GP_OK, "BIOS 5.32 (minimum 5.9)");
	expect(&x, "vfio.module", "vfio-pci", GP_OK, "loaded");
	done(&x);
	run_checks(&x, "h200x2-guest", A100);
	expect(&x, "vfio.module", "vfio-pci", GP_WARN, "cannot tell");
	expect(&x, "iommu.off", "host", GP_FAIL, NULL);
	expect(&x, "gpu.count", "host", GP_FAIL, "0 GPUs");
	done(&x);
}

/* A tree captured from a real kernel in the lab (tests/lab, messy topology). */
static void test_lab_capture(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "lab-messy", "[gpus]\nmatch = 1b36:0005 8086:10d3\ncount = 5\n");
	expect(&x, "iommu.group_shared", "0000:42:01.0", GP_FAIL, "0000:42:02.0 (8086:100e)");
	expect(&x, "p2p.path", "0000:45:00.0-0000:46:00.0", GP_OK, "PIX");
	expect(&x, "p2p.path", "0000:45:00.0-0000:81:00.0", GP_FAIL, "SYS");
	expect(&x, "gpu.link", "0000:47:00.0", GP_OK, "2.5 GT/s x1");
	expect(&x, "gpu.link", "0000:45:00.0", GP_WARN, "conventional PCI");
	expect(&x, "vfio.module", "vfio-pci", GP_OK, "available for kernel 6.1");
	done(&x);
}

static void test_bond(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "r5350-ready",
		   A100 "[bond]\nname = bond0\nslaves = 0000:01:00.0 ens1f1np1\n");
	expect(&x, "nic.missing", "bond0", GP_OK, NULL);
	expect(&x, "bond.roce_lag", "bond0", GP_OK, "two functions of one card (0000:01:00)");
	expect(&x, "bond.mgmt", "bond0", GP_OK, NULL);
	expect(&x, "bond.nic_numa", "bond0", GP_OK, NULL);
	done(&x);
	run_checks(&x, "r5350-ready", A100 "[bond]\nname = bond0\nslaves = eno1 ens7\n");
	expect(&x, "nic.missing", "bond0", GP_FAIL, "ens7");
	expect(&x, "bond.mgmt", "bond0", GP_FAIL, "eno1 carries the default route");
	done(&x);
	run_checks(&x, "bond-problems",
		   A100 "[bond]\nname = bond0\nslaves = ens1f1np1 ens4f0np0\n");
	expect(&x, "bond.roce_lag", "bond0", GP_WARN, "not the two functions of one card");
	expect(&x, "bond.nic_numa", "bond0", GP_WARN, "ens4f0np0 is on NUMA node 1");
	expect(&x, "bond.mgmt", "bond0", GP_FAIL, "ens1f1np1");
	done(&x);
	run_checks(&x, "bond-problems",
		   A100 "[bond]\nname = bond0\nslaves = ens1f0np0 ens1f1np1\n");
	expect(&x, "bond.roce_lag", "bond0", GP_WARN, "SR-IOV is on for ens1f0np0 (8 VFs)");
	done(&x);
}

/* Facts that cannot be read are failures, never a default. */
static void test_unreadable(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "unreadable", "[gpus]\nmatch = 10de:20b5\ncount = 3\n");
	expect(&x, "iommu.group_shared", "0000:41:00.0", GP_FAIL, "'garbage', not a group");
	expect(&x, "iommu.group_shared", "0000:42:00.0", GP_FAIL, "is a link loop");
	expect(&x, "iommu.group_shared", "0000:44:00.0", GP_FAIL, "in no IOMMU group");
	expect(&x, "gpu.numa_split", "0000:41:00.0", GP_FAIL, "numa_node reads 'zz'");
	expect(&x, "bar.unassigned", "0000:42:00.0", GP_FAIL, "no memory BAR");
	expect(&x, "bar.unassigned", "0000:41:00.0", GP_OK, NULL);
	assert_int_equal(x.h.devs[unit_index(&x.h, "0000:41:00.0")].numa_node, -1);
	assert_int_equal(x.h.devs[unit_index(&x.h, "0000:42:00.0")].iommu_group, -1);
	done(&x);
}

/* companions = bind refuses what the host lives on. */
static void test_companions(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "companions", A100 "companions = bind\n");
	expect(&x, "companion.unsafe", "0000:41:00.1", GP_OK, "class 0403");
	expect(&x, "companion.unsafe", "0000:41:00.2", GP_OK, "class 0c03");
	expect(&x, "companion.unsafe", "0000:41:00.3", GP_FAIL, "nvme0n1p1 is mounted on /");
	expect(&x, "companion.unsafe", "0000:41:00.3", GP_FAIL, "nvme0n1p2 is swap");
	expect(&x, "companion.unsafe", "0000:41:00.3", GP_FAIL, "nvme0n1p3 is held by dm-0");
	expect(&x, "companion.unsafe", "0000:41:00.4", GP_FAIL,
	       "enp65s0f4 carries the default route");
	expect(&x, "companion.unsafe", "0000:41:00.4", GP_FAIL, "address 10.0.0.5");
	expect(&x, "companion.unsafe", "0000:41:00.4", GP_FAIL, "1 established TCP connection");
	expect(&x, "companion.unsafe", "0000:42:00.1", GP_FAIL, "enp66s0f1 is a port of br0");
	expect(&x, "companion.unsafe", "0000:42:00.2", GP_FAIL, "the boot VGA device");
	expect(&x, "companion.unsafe", "0000:42:00.2", GP_FAIL, "efifb holds its BAR0");
	expect(&x, "companion.unsafe", "0000:42:00.3", GP_FAIL, "carries enp66s0f3.100");
	expect(&x, "companion.unsafe", "0000:42:00.4", GP_OK, NULL);
	done(&x);
	/* with companions = refuse nothing is unbound: iommu.group_shared says so */
	run_checks(&x, "companions", A100);
	expect(&x, "iommu.group_shared", "0000:41:00.0", GP_FAIL, "0000:41:00.3");
	for (size_t i = 0; i < x.r.n; i++)
		assert_string_not_equal(x.r.items[i].id, "companion.unsafe");
	done(&x);
}

/* A port of a bridge or of another bond is refused. */
static void test_ports_taken(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "ports-taken", A100 "[bond]\nname = bond0\nslaves = ens1f0np0 ens1f1np1\n");
	expect(&x, "bond.mgmt", "bond0", GP_FAIL,
	       "ens1f0np0 is a port of br1, which carries the default route");
	expect(&x, "bond.port_master", "ens1f0np0", GP_FAIL, "already a port of br1");
	expect(&x, "bond.port_master", "ens1f1np1", GP_FAIL, "already a port of bond9 (a bond)");
	done(&x);
	run_checks(&x, "r5350-ready", A100 "[bond]\nname = bond0\nslaves = ens1f0np0 ens1f1np1\n");
	expect(&x, "bond.port_master", "bond0", GP_OK, NULL);
	done(&x);
}

/*
 * networkd applies only the first .network file (in name order) that
 * matches: an operator's earlier file for a port keeps it out of the bond
 * after a reboot.
 */
static void test_persist_shadowed(void **state)
{
	static const char bond[] = A100 "[bond]\nname = bond0\nslaves = 0000:01:00.0 ens1f1np1\n";
	struct run x;
	size_t i;

	(void)state;
	/* a glob, and a MAC address in other case, both before 60-gpuprov-* */
	run_checks(&x, "bond-shadowed", bond);
	expect(&x, "bond.persist_shadowed", "ens1f0np0", GP_FAIL,
	       "/etc/systemd/network/10-roce.network matches ens1f0np0 and sorts before "
	       "60-gpuprov-ens1f0np0.network");
	expect(&x, "bond.persist_shadowed", "ens1f1np1", GP_FAIL,
	       "/etc/systemd/network/05-mac.network matches ens1f1np1");
	done(&x);
	/* the file that picked networkd as the owner is itself first */
	run_checks(&x, "bond-owner", bond);
	expect(&x, "bond.persist_shadowed", "ens1f0np0", GP_FAIL, "10-roce.network");
	done(&x);
	/* later files, a negated catch-all, a masked early file: gpuprov's come first */
	run_checks(&x, "bond-networkd", bond);
	expect(&x, "bond.persist_shadowed", "bond0", GP_OK, NULL);
	done(&x);
	/* another owner: no such finding */
	run_checks(&x, "r5350-ready", bond);
	for (i = 0; i < x.r.n; i++)
		assert_string_not_equal(x.r.items[i].id, "bond.persist_shadowed");
	done(&x);
}

#define HGX(mode)                                                                \
	"[gpus]\nmatch = 10de:2335\ncount = 8\np2p = off\nsame_numa_node = no\n" \
	"[fabric]\nmode = " mode "\n"

/* An HGX board: what each [fabric] mode asks of its switches and Fabric Manager. */
static void test_fabric(void **state)
{
	struct run x;
	int i;

	(void)state;
	run_checks(&x, "hgx-board", HGX("full"));
	expect(&x, "fabric.baseboard", "host", GP_OK, "4 NVSwitches 10de:22a3 in IOMMU group 114");
	expect(&x, "fabric.baseboard", "host", GP_OK, "8 GPUs (IOMMU groups");
	expect(&x, "fabric.partial", "host", GP_OK, "8 GPUs and 4 NVSwitches");
	expect(&x, "fabric.manager", "host", GP_OK, "4 of 4 NVSwitches on nvidia-nvswitch");
	expect(&x, "fabric.version", "host", GP_OK,
	       "driver 570.133.20, Fabric Manager 570.133.20-1");
	for (i = 0x12; i <= 0x15; i++) {
		char bdf[16];

		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", i);
		get(&x, "gpu.reset", bdf);
	}
	done(&x);
	/* Fabric Manager running on the host holds the switches: fabric.mask stops it */
	run_checks(&x, "hgx-h200", HGX("full"));
	expect(&x, "fabric.manager", "host", GP_WARN, "runs on the host");
	expect(&x, "gpu.in_use", "0000:01:00.0", GP_OK, "no process holds it"); /* switch nodes */
	done(&x);
	run_checks(&x, "hgx-fmctl", HGX("full"));
	expect(&x, "gpu.in_use", "0000:01:00.0", GP_OK, "no process holds it");
	done(&x);
	run_checks(&x, "hgx-fmctl", HGX("shared"));
	expect(&x, "gpu.in_use", "0000:01:00.0", GP_FAIL, "nv-fabricmanage");
	done(&x);
	/* the same host, shared: FABRIC_MODE=0 is bare metal's, not shared's */
	run_checks(&x, "hgx-h200", HGX("shared"));
	expect(&x, "fabric.manager", "host", GP_FAIL, "FABRIC_MODE is 0, not 1");
	expect(&x, "fabric.partial", "host", GP_OK, "the switches stay on the host");
	done(&x);
	run_checks(&x, "hgx-board", HGX("shared"));
	expect(&x, "fabric.manager", "host", GP_FAIL, "not enabled");
	done(&x);
	run_checks(&x, "hgx-shared", HGX("shared"));
	expect(&x, "fabric.manager", "host", GP_OK, "FABRIC_MODE=1");
	expect(&x, "fabric.version", "host", GP_OK, NULL);
	done(&x);
	/* a user's process named nv-fabricmanager is not Fabric Manager (fabric.mask's rule) */
	run_checks(&x, "hgx-fmuser", HGX("shared"));
	assert_int_equal(x.h.fm.running, 0);
	expect(&x, "fabric.manager", "host", GP_WARN, "does not run");
	done(&x);
	/* the last FABRIC_MODE wins, as in Fabric Manager's parser; "1x" is no mode */
	run_checks(&x, "hgx-badmode", HGX("shared"));
	expect(&x, "fabric.manager", "host", GP_FAIL, "FABRIC_MODE is not a number, not 1");
	done(&x);
	run_checks(&x, "hgx-oldfm", HGX("shared"));
	expect(&x, "fabric.version", "host", GP_FAIL, "driver 575.57.08");
	done(&x);
	/* a switch gone from the tree, or half the GPUs: not the whole board */
	run_checks(&x, "hgx-3sw", HGX("full"));
	expect(&x, "fabric.partial", "host", GP_FAIL, "3 of its 4 NVSwitches");
	done(&x);
	run_checks(&x, "hgx-board",
		   "[gpus]\nmatch = 0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0\n"
		   "count = 4\np2p = off\n[fabric]\nmode = full\n");
	expect(&x, "fabric.partial", "host", GP_FAIL, "4 of the board's 8 GPUs");
	done(&x);
	/* a board and no [fabric] mode: said; a mode and no board: fails */
	run_checks(&x, "hgx-board", "[gpus]\nmatch = 10de:2335\ncount = 8\np2p = off\n");
	expect(&x, "fabric.baseboard", "host", GP_WARN, "no [fabric] mode");
	done(&x);
	run_checks(&x, "h200x8", HGX("full"));
	expect(&x, "fabric.baseboard", "host", GP_FAIL, "no NVSwitch");
	done(&x);
}

/*
 * boot.claim on fixture hosts: nvidia's alias takes back a GPU bound by hand
 * (nouveau blacklisted), driverctl's override keeps the other; GRUB's first
 * entry names another kernel whose ids= race nvidia; an override with the
 * firmware's console on a BAR; gpuprov's own persistence.
 */
static void test_boot_claim(void **state)
{
	struct run x;

	(void)state;
	run_checks(&x, "boot-claim", A100);
	expect(&x, "boot.claim", "0000:41:00.0", GP_FAIL, "next boot: nvidia (modules.alias");
	expect(&x, "boot.claim", "0000:42:00.0", GP_OK, "next boot: vfio_pci (driverctl's");
	done(&x);
	run_checks(&x, "boot-order", A100);
	assert_string_equal(x.h.boot_release, "6.1.0-20-amd64");
	expect(&x, "boot.claim", "0000:41:00.0", GP_WARN,
	       "next boot: vfio_pci or nvidia, whichever loads first (vfio-pci ids=10de:20b5");
	expect(&x, "boot.claim", "0000:42:00.0", GP_WARN, "efifb holds its BAR1");
	done(&x);
	run_checks(&x, "vfio-applied", A100);
	expect(&x, "boot.claim", "0000:41:00.0", GP_OK,
	       "next boot: vfio_pci (gpuprov's override in /etc/gpuprov/override.d, its udev "
	       "rule, its boot unit)");
	done(&x);
	/* not on vfio-pci yet: the prediction is said, nothing fails */
	run_checks(&x, "r5350-ready", A100);
	expect(&x, "boot.claim", "0000:41:00.0", GP_OK, "next boot: unknown");
	done(&x);
}

/* The decision alone, on a host built here: one device, the claimants given. */
struct boot_case {
	struct gp_host h;
	struct gp_dev d;
	struct gp_boot_dev b;
	struct gp_boot_pred pr;
};

static void boot_case(struct boot_case *c)
{
	memset(c, 0, sizeof(*c));
	gp_strlcpy(c->d.bdf, "0000:41:00.0", sizeof(c->d.bdf));
	c->d.vendor = 0x10de;
	c->d.device = 0x20b5;
	c->d.driver = "vfio-pci";
	c->d.vfio_driver = "vfio-pci";
	c->d.vfio_module = "vfio_pci";
	c->d.modalias = "";
	c->h.devs = &c->d;
	c->h.ndevs = 1;
	gp_strlcpy(c->h.boot_release, "6.1.0-18-amd64", sizeof(c->h.boot_release));
}

static void claim(struct boot_case *c, const char *module, bool builtin, bool blacklisted,
		  bool vfio_first)
{
	struct gp_claimant *k = &c->b.claim[c->b.nclaim++];

	gp_strlcpy(k->module, module, sizeof(k->module));
	k->builtin = builtin;
	k->blacklisted = blacklisted;
	k->vfio_first = vfio_first;
}

static void predict(struct boot_case *c, const char *module, const char *other)
{
	assert_int_equal(gp_boot_predict(&c->h, &c->b, &c->pr), 0);
	assert_string_equal(c->pr.module, module);
	assert_string_equal(c->pr.other, other);
	assert_int_equal(c->pr.ordered, other[0] != 0);
}

static void test_boot_predict(void **state)
{
	struct boot_case c;

	(void)state;
	boot_case(&c); /* nothing matches: no driver */
	predict(&c, "", "");
	boot_case(&c); /* blacklisted, and disabled by an install command */
	claim(&c, "nouveau", false, true, false);
	claim(&c, "nvidia", false, false, false);
	c.b.claim[1].disabled = true;
	predict(&c, "", "");
	boot_case(&c); /* two modules by alias: whichever udev loads first */
	claim(&c, "nouveau", false, false, false);
	claim(&c, "nvidia", false, false, false);
	predict(&c, "nouveau", "nvidia");
	boot_case(&c); /* a built-in driver registers before udev loads any module */
	claim(&c, "nvidia", false, false, false);
	claim(&c, "simpledrv", true, false, false);
	predict(&c, "simpledrv", "");
	boot_case(&c); /* ids= of a vfio-pci nothing loads: the alias wins */
	claim(&c, "nvidia", false, false, false);
	c.b.ids = true;
	predict(&c, "nvidia", "");
	boot_case(&c); /* ids= with vfio-pci loaded by modules-load.d: a race */
	claim(&c, "nvidia", false, false, false);
	c.b.ids = true;
	c.h.boot_vfio_loads = 1;
	predict(&c, "vfio_pci", "nvidia");
	boot_case(&c); /* ... settled by a softdep, which also loads it */
	claim(&c, "nvidia", false, false, true);
	c.b.ids = true;
	predict(&c, "vfio_pci", "");
	boot_case(&c); /* ... or by vfio-pci built in */
	claim(&c, "nvidia", false, false, false);
	c.b.ids = true;
	c.h.boot_vfio_loads = 1;
	c.h.boot_vfio_builtin = true;
	predict(&c, "vfio_pci", "");
	boot_case(&c); /* gpuprov's override with its rule, vfio-pci loaded at boot */
	claim(&c, "nvidia", false, false, false);
	c.h.noverrides = 1;
	gp_strlcpy(c.h.overrides[0].bdf, c.d.bdf, sizeof(c.h.overrides[0].bdf));
	gp_strlcpy(c.h.overrides[0].driver, "vfio-pci", sizeof(c.h.overrides[0].driver));
	c.h.persist[3] = "rule";
	c.h.boot_vfio_loads = 1;
	predict(&c, "vfio_pci", "");
	c.h.boot_vfio_loads = 0; /* the override keeps nvidia off, nothing loads vfio-pci */
	predict(&c, "", "");
	c.h.boot_vfio_loads = 1; /* a built-in driver binds before the rule runs */
	c.b.claim[0].builtin = true;
	predict(&c, "nvidia", "");
	c.h.persist[4] = "unit"; /* and the boot unit hands it over */
	predict(&c, "vfio_pci", "");
	assert_non_null(strstr(c.pr.why, "nvidia, built in, binds it first and the boot unit"));
	c.h.persist[3] = c.h.persist[4] = NULL; /* an override file alone does nothing */
	c.b.claim[0].builtin = false;
	predict(&c, "nvidia", "");
	c.b.nclaim = -1; /* the next kernel's modules unread */
	assert_int_equal(gp_boot_predict(&c.h, &c.b, &c.pr), -ENOENT);
}

/*
 * nic.firmware: each port against its family's [nic] min_firmware, as its
 * RDMA device reports it (roce-rails: 22.31.1014 and 28.39.1002), compared
 * number by number; a family without a minimum, or a port the host has no
 * RDMA device of (r5350-ready's), is said, not passed.
 */
static void test_nic_firmware(void **state)
{
#define FW_PROFILE(min)                                                         \
	"[gpus]\nmatch = 10de:20b5 10de:2335\ncount = 2\nsame_numa_node = no\n" \
	"[vm]\nname = v\nvcpus = 8\nmemory = 8GiB\nnuma = none\n[nic]\n"        \
	"match = 15b3:101d 15b3:1021\nmode = passthrough\nmin_firmware = " min "\n"
	struct run x;
	size_t i;
	int n = 0;

	(void)state;
	run_checks(&x, "roce-rails", FW_PROFILE("22.36.1010 28.39.1002"));
	expect(&x, "nic.firmware", "0000:44:00.0", GP_FAIL, "22.31.1014 is older than");
	expect(&x, "nic.firmware", "0000:86:00.0", GP_OK, "28.39.1002 (at least 28.39.1002)");
	done(&x);
	/* 22.31.1014 against 22.9.1: 31 > 9 as numbers, not as text */
	run_checks(&x, "roce-rails", FW_PROFILE("22.9.1 28.39.1003"));
	expect(&x, "nic.firmware", "0000:44:00.0", GP_OK, NULL);
	expect(&x, "nic.firmware", "0000:86:00.0", GP_FAIL,
	       "older than [nic] min_firmware 28.39.1003");
	done(&x);
	/* no minimum of the ConnectX-7's family: 22.x says nothing of 28.x */
	run_checks(&x, "roce-rails", FW_PROFILE("20.99.9999 22.31.1014"));
	expect(&x, "nic.firmware", "0000:44:00.0", GP_OK, NULL);
	expect(&x, "nic.firmware", "0000:86:00.0", GP_WARN,
	       "names no version of its family (28.x)");
	done(&x);
	/* a fw_ver longer than a version (cut, 22.999999999.999999999.99999999 passed) */
	run_checks(&x, "roce-longfw", FW_PROFILE("22.36.1010 28.39.1002"));
	expect(&x, "nic.firmware", "0000:44:00.0", GP_WARN, "a version too long to be one");
	expect(&x, "nic.firmware", "0000:86:00.0", GP_OK, "28.39.1002 (at least 28.39.1002)");
	done(&x);
	run_checks(&x, "r5350-ready", FW_PROFILE("22.36.1010"));
	for (i = 0; i < x.r.n; i++)
		if (!strcmp(x.r.items[i].id, "nic.firmware")) {
			expect(&x, "nic.firmware", x.r.items[i].subject, GP_WARN,
			       "cannot tell its firmware (no RDMA device");
			n++;
		}
	assert_true(n > 0);
	done(&x);
#undef FW_PROFILE
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready),	      cmocka_unit_test(test_numa_and_p2p),
		cmocka_unit_test(test_groups),	      cmocka_unit_test(test_iommu_cmdline),
		cmocka_unit_test(test_bars),	      cmocka_unit_test(test_links),
		cmocka_unit_test(test_slots),	      cmocka_unit_test(test_count),
		cmocka_unit_test(test_acs),	      cmocka_unit_test(test_in_use_and_reset),
		cmocka_unit_test(test_bios_and_vfio), cmocka_unit_test(test_lab_capture),
		cmocka_unit_test(test_bond),	      cmocka_unit_test(test_persist_shadowed),
		cmocka_unit_test(test_iommu_hint),    cmocka_unit_test(test_single_node),
		cmocka_unit_test(test_unreadable),    cmocka_unit_test(test_companions),
		cmocka_unit_test(test_health),	      cmocka_unit_test(test_ports_taken),
		cmocka_unit_test(test_slot_nearest),  cmocka_unit_test(test_slot_root_bus),
		cmocka_unit_test(test_hop_texts),     cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_boot_claim),    cmocka_unit_test(test_boot_predict),
		cmocka_unit_test(test_nic_firmware),
	};

	return cmocka_run_group_tests_name("checks", tests, NULL, NULL);
}
