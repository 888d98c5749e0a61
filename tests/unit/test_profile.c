// SPDX-License-Identifier: GPL-2.0-or-later
/* The profile parser: every key, every kind of error, each naming file:line. */
#include "unit.h"
#include "core/hostq.h"
#include "core/uri.h"
#include "core/profile.h"

#define GPUS "[gpus]\nmatch = 10de:20b5\ncount = 2\n"

static void test_shipped(void **state)
{
	struct gp_profile p;

	(void)state;
	assert_int_equal(gp_profile_load("profiles/h3c-r5350-g6.ini", &p), 0);
	assert_string_equal(p.model, "H3C UniServer R5350 G6");
	assert_false(p.verified);
	assert_int_equal(p.nslots, 2);
	assert_string_equal(p.slots[0].root_port, "0000:40:01.1");
	assert_int_equal(p.slots[1].numa_node, 0);
	assert_int_equal(p.slots[1].cpu_direct, 1);
	assert_int_equal(p.nmatch, 3);
	assert_int_equal(p.match[0].vendor, 0x10de);
	assert_int_equal(p.match[0].device, 0x20b5);
	assert_int_equal(p.count, 2);
	assert_int_equal(p.ngpu_slots, 2);
	assert_int_equal(p.p2p, GP_P2P_REQUIRED);
	assert_int_equal(p.companions, GP_COMP_REFUSE);
	assert_true(p.has_vm);
	assert_string_equal(p.vm.name, "a100-vm");
	assert_int_equal(p.vm.vcpus, 32);
	assert_true(p.vm.memory == 256ull << 30);
	assert_true(p.vm.hugepages == 1ull << 30);
	assert_int_equal(p.vm.clique, 0);
	assert_true(p.has_bond);
	assert_int_equal(p.bond.nslaves, 2);
	assert_string_equal(p.bond.slaves[1], "ens1f1np1");
	assert_string_equal(p.bond.lacp_rate, "fast");
	assert_int_equal(p.bond.mtu, 9000);
	assert_string_equal(p.bond.address, "192.168.1.100/24");
	assert_int_equal(gp_profile_load("profiles/generic-2gpu.ini", &p), 0);
	assert_int_equal(p.nslots, 0);
	assert_false(p.has_bond);
}

static void test_defaults_and_values(void **state)
{
	struct gp_profile p;

	(void)state;
	unit_profile(GPUS, &p);
	assert_true(p.same_numa_node);
	assert_int_equal(p.p2p, GP_P2P_REQUIRED);
	assert_int_equal(p.companions, GP_COMP_REFUSE);
	assert_int_equal(p.fabric, GP_FABRIC_NONE);
	assert_false(p.has_vm);
	unit_profile(GPUS "[fabric]\nmode = full\n", &p);
	assert_int_equal(p.fabric, GP_FABRIC_FULL);
	unit_profile(GPUS "[fabric]\nmode = shared\n", &p);
	assert_int_equal(p.fabric, GP_FABRIC_SHARED);
	unit_profile(GPUS "[fabric]\nmode = none\n", &p);
	assert_int_equal(p.fabric, GP_FABRIC_NONE);
	unit_profile("; comment\n[gpus]\nmatch = 0000:41:00.0, 42:00.0 ; inline\ncount = 2\n"
		     "p2p = off\ncompanions = bind\nsame_numa_node = no\n"
		     "[vm]\nname = x\ngpudirect_clique = off\nhugepages = none\n"
		     "[bond]\nname = bond1\nslaves = 0000:c1:00.0 ens2\naddress = fd00::1/64\n",
		     &p);
	assert_true(p.match[0].is_bdf);
	assert_string_equal(p.match[1].bdf, "0000:42:00.0");
	assert_int_equal(p.p2p, GP_P2P_OFF);
	assert_int_equal(p.companions, GP_COMP_BIND);
	assert_false(p.same_numa_node);
	assert_int_equal(p.vm.clique, -1);
	assert_true(p.vm.hugepages == 0);
	assert_string_equal(p.bond.slaves[0], "0000:c1:00.0");
	assert_string_equal(p.bond.mode, "802.3ad");
	assert_string_equal(p.vm.uri, "qemu:///system");
}

/* [nic]: each key, each mode; no [nic]: the host bond alone, as before. */
static void test_nic(void **state)
{
	struct gp_profile p;

	(void)state;
	unit_profile(GPUS, &p);
	assert_false(p.has_nic);
	assert_int_equal(p.nic.mode, GP_NIC_UNSET);
	unit_profile(GPUS "[nic]\nmatch = 15b3:101d, 0000:c2:00.0\nmode = passthrough\n"
			  "addresses = 10.0.0.5/24 fd00::5/64\nmtu = 4200\n",
		     &p);
	assert_true(p.has_nic);
	assert_int_equal(p.nic.nmatch, 2);
	assert_int_equal(p.nic.match[0].vendor, 0x15b3);
	assert_int_equal(p.nic.match[0].device, 0x101d);
	assert_true(p.nic.match[1].is_bdf);
	assert_string_equal(p.nic.match[1].bdf, "0000:c2:00.0");
	assert_int_equal(p.nic.mode, GP_NIC_PASSTHROUGH);
	assert_int_equal(p.nic.guest_bond, GP_GBOND_NONE);
	assert_int_equal(p.nic.naddresses, 2);
	assert_string_equal(p.nic.addresses[1], "fd00::5/64");
	assert_int_equal(p.nic.mtu, 4200);
	assert_int_equal(p.nic.vfs, 0);
	assert_int_equal(p.nmatch, 1); /* the GPUs' match is its own */
	unit_profile(GPUS "[nic]\nmatch = 15b3:1021\nmode = vf\nvfs = 4\n"
			  "guest_bond = active-backup\naddresses = 10.0.0.5/24\n",
		     &p);
	assert_int_equal(p.nic.mode, GP_NIC_VF);
	assert_int_equal(p.nic.vfs, 4);
	assert_int_equal(p.nic.guest_bond, GP_GBOND_AB);
	assert_int_equal(p.nic.mtu, 0);
	unit_profile(GPUS "[bond]\nname = bond0\nslaves = 0000:c1:00.0 0000:c1:00.1\n"
			  "[nic]\nmatch = 0000:c1:00.0\nmode = host\n",
		     &p);
	assert_int_equal(p.nic.mode, GP_NIC_HOST);
	assert_true(p.has_bond);
	unit_profile(GPUS "[nic]\nmatch = 0000:c1:00.0 0000:c1:00.1\nmode = passthrough\n"
			  "guest_bond = 802.3ad\n",
		     &p);
	assert_int_equal(p.nic.guest_bond, GP_GBOND_LACP);
	unit_profile(GPUS "[nic]\nmatch = 15b3:101d\nmode = vf\nvfs = 2\n"
			  "min_firmware = 20.31.1014, 22.36.1010\n",
		     &p);
	assert_int_equal(p.nic.nmin_firmware, 2);
	assert_string_equal(p.nic.min_firmware[1], "22.36.1010");
}

struct bad {
	const char *text;
	int line;
	const char *words;
};

static const struct bad bad[] = {
	{ GPUS "[nic]\nmode = passthrough\n", 4, "missing key 'match' in [nic]" },
	{ GPUS "[nic]\nmatch = 15b3:101d\n", 4, "missing key 'mode' in [nic]" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = vf\n", 4, "missing key 'vfs' in [nic]" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = bridge\n", 6,
	  "bad value for mode: 'bridge': expected passthrough, vf or host" },
	{ GPUS "[nic]\nmatch = mlx5\n", 5, "bad value for match" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\nmin_firmware = 20.31.\n", 7,
	  "bad value for min_firmware" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\nmin_firmware = 20.31.1014-x\n", 7,
	  "expected firmware versions such as 20.31.1014" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\nmin_firmware = 20\n", 7,
	  "expected firmware versions" },
	/* a dotted version longer than its 31 characters: refused, never cut */
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\n"
	       "min_firmware = 22.999999999.999999999.999999999\n",
	  7, "bad value for min_firmware: '22.999999999.999999999.999999999': too long" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\n"
	       "min_firmware = 22.31.1 22.36.1010\n",
	  7, "two versions of one family" },
	{ GPUS "[bond]\nname = bond0\nslaves = 0000:c1:00.0 0000:c1:00.1\n"
	       "[nic]\nmatch = 0000:c1:00.0\nmode = host\nmin_firmware = 22.31.1014\n",
	  10, "min_firmware is for the guest's ports" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = vf\nvfs = 0\n", 7,
	  "bad value for vfs: '0': expected a number from 1 to 255" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = vf\nvfs = 256\n", 7, "bad value for vfs" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nvfs = 2\nmode = passthrough\n", 6,
	  "vfs is for mode = vf" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = host\nmtu = 9000\n", 7,
	  "mtu is for the guest: mode = host keeps the ports on the host" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = host\naddresses = 10.0.0.1/24\n", 7,
	  "addresses is for the guest" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nguest_bond = none\nmode = host\n", 6,
	  "guest_bond is for the guest" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = vf\nvfs = 1\nguest_bond = lacp\n", 8,
	  "bad value for guest_bond: 'lacp': expected none, 802.3ad or active-backup" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\naddresses = 10.0.0.1\n", 7,
	  "bad value for addresses: '10.0.0.1': expected an address with its prefix length" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\nmtu = 67\n", 7, "bad value for mtu" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = passthrough\nguest_bond = 802.3ad\n"
	       "addresses = 10.0.0.1/24 10.0.0.2/24\n",
	  8, "a guest bond takes one address (the bond's), not 2" },
	{ GPUS "[nic]\nmatch = 0000:c1:00.0\nmode = passthrough\nguest_bond = 802.3ad\n", 7,
	  "a guest bond needs two ports" },
	{ GPUS "[nic]\nmatch = 0000:c1:00.0\nmode = passthrough\n"
	       "[bond]\nname = b\nslaves = 0000:c1:00.0 0000:c1:00.1\n",
	  5, "0000:c1:00.0 is a [bond] port on the host and passed to the guest" },
	{ GPUS "[nic]\nmatch = 15b3:101d\nmode = host\nmode = vf\n", 7,
	  "duplicate key 'mode' in [nic]" },
	{ GPUS "[nics]\nmatch = 15b3:101d\n", 4, "unknown section [nics]" },
	{ "[gpu]\nmatch = 10de:20b5\n", 1, "unknown section [gpu]" },
	{ GPUS "colour = red\n", 4, "unknown key 'colour' in section [gpus]" },
	{ GPUS "match = 10de:20b5\n", 4, "duplicate key 'match' in [gpus] (first set on line 2)" },
	{ "match = 1\n" GPUS, 1, "outside of any section" },
	{ GPUS "p2p\n", 4, "syntax error" },
	{ "[gpus\n", 1, "syntax error" },
	{ "[server]\nmodel = x\n", 2, "missing section [gpus]" },
	{ "[server]\nmodel = x\n[gpus]\ncount = 2\n", 3, "missing key 'match' in [gpus]" },
	{ "[gpus]\nmatch = 10de:20b5\n", 1, "missing key 'count' in [gpus]" },
	{ GPUS "[slot.1]\nnuma_node = 0\n", 4, "missing key 'root_port' in [slot.1]" },
	{ GPUS "[vm]\nvcpus = 4\n", 4, "missing key 'name' in [vm]" },
	{ GPUS "[bond]\nslaves = a b\n", 4, "missing key 'name' in [bond]" },
	{ GPUS "[bond]\nname = bond0\n", 4, "missing key 'slaves' in [bond]" },
	{ GPUS "[bond]\nname = bond0\nslaves = a\nmin_links = 2\n", 4, "min_links 2" },
	{ GPUS "slots = 7\n", 4, "slot '7' has no [slot.7] section" },
	{ GPUS "  continued\n", 4, "continuation lines are not supported" },
	{ "[server]\nmodel = "
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n" GPUS,
	  2, "line longer than" },
	{ "[server]\nverified = maybe\n" GPUS, 2, "bad value for verified: 'maybe'" },
	{ "[server]\nmin_bios =\n" GPUS, 2, "bad value for min_bios" },
	{ "[gpus]\nmatch = nvidia\ncount = 2\n", 2, "bad value for match: 'nvidia'" },
	{ "[gpus]\nmatch = 10de:20b5\ncount = 0\n", 3, "bad value for count" },
	{ "[gpus]\nmatch = 10de:20b5\ncount = 17\n", 3, "expected a number from 1 to 16" },
	{ GPUS "p2p = sometimes\n", 4, "bad value for p2p" },
	{ GPUS "companions = share\n", 4, "bad value for companions" },
	{ GPUS "[fabric]\nmode = nvswitch\n", 5, "bad value for mode: 'nvswitch': expected full" },
	{ GPUS "[fabric]\npartition = 0\n", 5, "unknown key 'partition' in section [fabric]" },
	{ GPUS "[fabric]\nmode = full\nmode = none\n", 6, "duplicate key 'mode' in [fabric]" },
	{ GPUS "same_numa_node = 2\n", 4, "bad value for same_numa_node" },
	{ GPUS "[slot.1]\nroot_port = 40:01\n", 5, "bad value for root_port" },
	{ GPUS "[slot.1]\nroot_port = 0000:40:01.1\nnuma_node = -1\n", 6,
	  "bad value for numa_node" },
	{ GPUS "[slot.1]\nroot_port = 0000:40:01.1\ncpu_direct = perhaps\n", 6,
	  "bad value for cpu_direct" },
	{ GPUS "[slot.1]\nroot_port = 0000:40:01.1\nwidth = 16\n", 6, "unknown key 'width'" },
	{ GPUS "[slot.]\nroot_port = 0000:40:01.1\n", 4, "bad section name [slot.]" },
	{ GPUS "[slot.1]\naddress = 00:06\n", 5, "bad value for address" },
	{ GPUS "[slot.1]\naddress = 0000:00:06.0\nroot_port = 0000:00:01.0\n", 4,
	  "[slot.1] has both root_port and address" },
	{ GPUS "[vm]\nname = my vm\n", 5, "bad value for name" },
	{ GPUS "[vm]\nname = v\nvcpus = 0\n", 6, "bad value for vcpus" },
	{ GPUS "[vm]\nname = v\nmemory = 64GB\n", 6, "bad value for memory" },
	{ GPUS "[vm]\nname = v\nhugepages = 4MiB\n", 6, "bad value for hugepages" },
	{ GPUS "[vm]\nname = v\nnuma = interleave\n", 6, "bad value for numa" },
	{ GPUS "[vm]\nname = v\ngpudirect_clique = 16\n", 6, "bad value for gpudirect_clique" },
	{ GPUS "[vm]\nname = v\nuri = system\n", 6, "bad value for uri" },
	{ GPUS "[vm]\nname = v\ndefine = sure\n", 6, "bad value for define" },
	{ GPUS "[vm]\nname = v\ntemplate =\n", 6, "bad value for template" },
	{ GPUS "[vm]\nname = v\noutput =\n", 6, "bad value for output" },
	{ GPUS "[bond]\nname = averyveryverylongname\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = b\nslaves = eth/0\n", 6, "bad value for slaves" },
	/* text that would reach a terminal, XML or JSON raw */
	{ "[server]\nmodel = A\x1b[2J\n" GPUS, 2,
	  "bad value for model: 'A\x1b[2J': expected UTF-8 text without control characters" },
	{ "[server]\nmodel = caf\xe9\n" GPUS, 2, "bad value for model" },
	{ GPUS "[vm]\nname = v\noutput = /var/lib/\x07x.xml\n", 6, "bad value for output" },
	/* interface names that netplan, NetworkManager, ifupdown or networkd misread */
	{ GPUS "[bond]\nname = *x\n", 5, "bad value for name: '*x': expected an interface name" },
	{ GPUS "[bond]\nname = &x\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = {x\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = \"b\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = #x\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = .\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = ..\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = 42\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = all\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = b%1\n", 5, "bad value for name" },
	{ GPUS "[bond]\nname = b\nslaves = ens1 e*\n", 6, "bad value for slaves" },
	{ GPUS "[bond]\nname = b\nslaves = ens1 [x]\n", 6, "bad value for slaves" },
	{ GPUS "[bond]\nname = b\nslaves = eth0:1\n", 6, "bad value for slaves" },
	{ GPUS "[bond]\nname = b\nmode = balance-rr\n", 6, "bad value for mode" },
	{ GPUS "[bond]\nname = b\nmiimon = fast\n", 6, "bad value for miimon" },
	{ GPUS "[bond]\nname = b\nlacp_rate = medium\n", 6, "bad value for lacp_rate" },
	{ GPUS "[bond]\nname = b\nxmit_hash_policy = layer4\n", 6,
	  "bad value for xmit_hash_policy" },
	{ GPUS "[bond]\nname = b\nad_select = best\n", 6, "bad value for ad_select" },
	{ GPUS "[bond]\nname = b\nmin_links = -1\n", 6, "bad value for min_links" },
	{ GPUS "[bond]\nname = b\nmtu = 9\n", 6, "bad value for mtu" },
	{ GPUS "[bond]\nname = b\naddress = 192.168.1.300/24\n", 6, "bad value for address" },
	{ GPUS "[bond]\nname = b\naddress = 192.168.1.3\n", 6, "bad value for address" },
	{ GPUS "[bond]\nname = b\naddress = 192.168.1.3/33\n", 6, "bad value for address" },
	{ GPUS "[bond]\nname = b\npersist = systemd\n", 6, "bad value for persist" },
	{ GPUS "[bond]\nname = b\nlacp_timeout = 0\n", 6,
	  "bad value for lacp_timeout: '0': expected a number from 1 to 600" },
	{ GPUS "[vm]\nname = v\noutput = vm.xml\n", 6,
	  "bad value for output: 'vm.xml': expected an absolute path" },
	{ GPUS "[vm]\nname = v\noutput = /var/lib/gpuprov/../../../etc/x\n", 6,
	  "bad value for output" },
	{ GPUS "[vm]\nname = v\noutput = /var/..\n", 6, "bad value for output" },
	{ GPUS "[vm]\nname = v\nuri = qemu+ext:///system?command=/tmp/x\n", 6,
	  "bad value for uri: 'qemu+ext:///system?command=/tmp/x': expected qemu:///system" },
};

static void test_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gp_profile p;
		char where[32];

		snprintf(where, sizeof(where), "bad.ini:%d: ", bad[i].line);
		if (!gp_profile_parse_string("bad.ini", bad[i].text, &p))
			fail_msg("case %zu accepted: %s", i, bad[i].text);
		if (strncmp(gp_profile_error(&p), where, strlen(where)) ||
		    !strstr(gp_profile_error(&p), bad[i].words))
			fail_msg("case %zu: got '%s', want '%s%s'", i, gp_profile_error(&p), where,
				 bad[i].words);
	}
}

static void test_missing_file(void **state)
{
	struct gp_profile p;

	(void)state;
	assert_int_equal(gp_profile_load("tests/no/such.ini", &p), -ENOENT);
	assert_non_null(strstr(gp_profile_error(&p), "cannot open profile 'tests/no/such.ini'"));
}

static void test_match(void **state)
{
	struct gp_profile p;
	struct gp_dev d;

	(void)state;
	gp_dev_init(&d);
	d.vendor = 0x10de;
	d.device = 0x20b5;
	strcpy(d.bdf, "0000:41:00.0");
	unit_profile(GPUS, &p);
	assert_true(gp_profile_matches(&p, &d));
	d.device = 0x20b7; /* an A30 is not an A100 */
	assert_false(gp_profile_matches(&p, &d));
	unit_profile("[gpus]\nmatch = 0000:41:00.0\ncount = 1\n", &p);
	assert_true(gp_profile_matches(&p, &d));
	strcpy(d.bdf, "0000:42:00.0");
	assert_false(gp_profile_matches(&p, &d));
}

/* Only URIs that make libvirt run nothing of the profile's choosing. */
static void test_uri(void **state)
{
	static const char *const good[] = {
		"qemu:///system",
		"qemu:///session",
		"qemu+ssh://kvm1/system",
		"qemu+ssh://root@kvm1.example.com:2222/system",
		"qemu+ssh://op_1@[fd00::1]:22/session",
		"qemu+ssh://[fd00::1]/system",
		"qemu:///embed?root=/var/tmp/gp-lab.1",
		"qemu:///embed?root=/srv/.vm/a..b/-x",
	};
	static const char *const refused[] = {
		"qemu+ext:///system?command=/tmp/x",
		"qemu+ssh://kvm1/system?netcat=/tmp/x",
		"qemu+ssh://kvm1/system?socket=/tmp/s",
		"qemu+ssh://kvm1/system?keyfile=/tmp/k",
		"qemu+ssh://kvm1/system?no_verify=1",
		"qemu+ssh://-oProxyCommand=x/system",
		"qemu+ssh://kvm1 -oProxyCommand=x/system",
		"qemu+ssh://-l@kvm1/system",
		"qemu+ssh://kvm1:0/system",
		"qemu+ssh://kvm1:65536/system",
		"qemu+ssh://kvm1:/system",
		"qemu+ssh://[fd00::1/system",
		"qemu+ssh://[fd00::1]x/system",
		"qemu+ssh://a@b@kvm1/system",
		"qemu+ssh:///system",
		"qemu+ssh://kvm1/",
		"qemu+ssh://kvm1/system/",
		"qemu+ssh://kvm1",
		"qemu+libssh2://kvm1/system?keyfile=/tmp/k",
		"qemu+tcp://kvm1/system",
		"qemu+unix:///system?socket=/tmp/s",
		"qemu:///system?socket=/tmp/s",
		"qemu:///system#x",
		"qemu:///System",
		"qemu:///embed",
		"qemu:///embed?root=relative",
		"qemu:///embed?root=/",
		"qemu:///embed?root=/x&socket=/tmp/s",
		"qemu:///embed?root=/x/../tmp",
		"qemu:///embed?root=/x/..",
		"qemu:///embed?root=/x%2f..",
		"qemu:///embed?root=/x/./y",
		"qemu:///embed?root=/x/.",
		"qemu:///embed?root=/x//y",
		"qemu:///embed?root=/x/",
		"test:///default",
		"lxc:///system",
		"",
		"system",
	};
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (gp_virt_uri_check(good[i], &why))
			fail_msg("refused: %s", good[i]);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!gp_virt_uri_check(refused[i], &why))
			fail_msg("accepted: %s", refused[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped),	     cmocka_unit_test(test_defaults_and_values),
		cmocka_unit_test(test_nic),	     cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_file), cmocka_unit_test(test_match),
		cmocka_unit_test(test_uri),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
