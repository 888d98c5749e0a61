// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bond's RTM_NEWLINK, parsed back: every IFLA_BOND_* attribute with the
 * kernel's type (u8 or u32) and value, nested where the kernel expects it.
 */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "unit.h"
#include "act/bond.h"
#include "shared/progress.h"
#include "pty.h"
#include "cli/out.h"
#include "core/profile.h"

static struct nlattr *data_of(struct nl_msg *msg, struct nlattr **tb, struct nlattr **bond)
{
	struct nlattr *li[IFLA_INFO_MAX + 1];

	assert_int_equal(nlmsg_parse(nlmsg_hdr(msg), sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL),
			 0);
	assert_non_null(tb[IFLA_LINKINFO]);
	assert_int_equal(nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL), 0);
	assert_string_equal(nla_get_string(li[IFLA_INFO_KIND]), "bond");
	assert_non_null(li[IFLA_INFO_DATA]);
	assert_int_equal(nla_parse_nested(bond, IFLA_BOND_MAX, li[IFLA_INFO_DATA], NULL), 0);
	return li[IFLA_INFO_DATA];
}

static void test_8023ad(void **state)
{
	struct gp_profile p;
	struct gp_bond_opts o;
	struct nlattr *tb[IFLA_MAX + 1], *b[IFLA_BOND_MAX + 1];
	struct nl_msg *msg;
	struct nlmsghdr *h;

	(void)state;
	assert_int_equal(gp_profile_load("profiles/h3c-r5350-g6.ini", &p), 0);
	assert_int_equal(gp_bond_opts_from_profile(&p, &o), 0);
	msg = gp_bond_newlink_msg(&o);
	assert_non_null(msg);
	h = nlmsg_hdr(msg);
	assert_int_equal(h->nlmsg_type, RTM_NEWLINK);
	assert_true(h->nlmsg_flags & NLM_F_CREATE);
	assert_true(h->nlmsg_flags & NLM_F_EXCL);
	data_of(msg, tb, b);
	assert_string_equal(nla_get_string(tb[IFLA_IFNAME]), "bond0");
	/* u8: mode, lacp_rate, xmit_hash_policy, ad_select; u32: miimon, min_links */
	assert_int_equal(nla_len(b[IFLA_BOND_MODE]), 1);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_MODE]), 4);
	assert_int_equal(nla_len(b[IFLA_BOND_MIIMON]), 4);
	assert_int_equal(nla_get_u32(b[IFLA_BOND_MIIMON]), 100);
	assert_int_equal(nla_len(b[IFLA_BOND_AD_LACP_RATE]), 1);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_AD_LACP_RATE]), 1); /* fast */
	assert_int_equal(nla_len(b[IFLA_BOND_XMIT_HASH_POLICY]), 1);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_XMIT_HASH_POLICY]), 1); /* layer3+4 */
	assert_int_equal(nla_len(b[IFLA_BOND_AD_SELECT]), 1);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_AD_SELECT]), 0); /* stable */
	assert_int_equal(nla_len(b[IFLA_BOND_MIN_LINKS]), 4);
	assert_int_equal(nla_get_u32(b[IFLA_BOND_MIN_LINKS]), 1);
	nlmsg_free(msg);
}

static void test_active_backup(void **state)
{
	struct gp_profile p;
	struct gp_bond_opts o;
	struct nlattr *tb[IFLA_MAX + 1], *b[IFLA_BOND_MAX + 1];
	struct nl_msg *msg;

	(void)state;
	unit_profile("[gpus]\nmatch = 10de:20b5\ncount = 2\n[bond]\nname = bond7\n"
		     "slaves = a b\nmode = active-backup\nxmit_hash_policy = layer2+3\n",
		     &p);
	assert_int_equal(gp_bond_opts_from_profile(&p, &o), 0);
	msg = gp_bond_newlink_msg(&o);
	data_of(msg, tb, b);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_MODE]), 1);
	/* the kernel refuses LACP options and a hash policy in this mode */
	assert_null(b[IFLA_BOND_AD_LACP_RATE]);
	assert_null(b[IFLA_BOND_AD_SELECT]);
	assert_null(b[IFLA_BOND_XMIT_HASH_POLICY]);
	nlmsg_free(msg);
	unit_profile("[gpus]\nmatch = 10de:20b5\ncount = 2\n[bond]\nname = bond7\n"
		     "slaves = a b\nmode = balance-xor\nxmit_hash_policy = layer2+3\n",
		     &p);
	gp_bond_opts_from_profile(&p, &o);
	msg = gp_bond_newlink_msg(&o);
	data_of(msg, tb, b);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_MODE]), 2);
	assert_int_equal(nla_get_u8(b[IFLA_BOND_XMIT_HASH_POLICY]), 2);
	assert_null(b[IFLA_BOND_AD_LACP_RATE]);
	nlmsg_free(msg);
}

static void test_lacp_formed(void **state)
{
	struct gp_bond_state s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.nports = 2;
	s.aggregator = 1;
	s.num_ports = 2;
	s.ports[0].aggregator = s.ports[1].aggregator = 1;
	/* no partner: the switch side is not a LAG */
	assert_false(gp_bond_lacp_formed(&s, 2));
	memcpy(s.partner_mac, "\x52\x54\x00\x00\x20\x00", 6);
	assert_true(gp_bond_lacp_formed(&s, 2));
	/* each port in its own aggregator */
	s.ports[1].aggregator = 2;
	s.num_ports = 1;
	assert_false(gp_bond_lacp_formed(&s, 2));
	/* a port missing */
	s.ports[1].aggregator = 1;
	s.num_ports = 2;
	assert_false(gp_bond_lacp_formed(&s, 3));
	assert_string_equal(gp_bond_mode_name(4), "802.3ad");
}

/*
 * The LACP wait on a terminal: a line when a port's aggregator or partner
 * changes (not at every poll), the seconds on the status line.
 */
static void test_lacp_progress(void **state)
{
	struct gp_bond_state s, shown = { .nports = 0 };
	struct unit_pty t;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.nports = 2;
	s.aggregator = 1;
	s.num_ports = 1;
	strcpy(s.ports[0].name, "ens1f0");
	strcpy(s.ports[1].name, "ens1f1");
	s.ports[0].aggregator = 1;
	s.ports[1].aggregator = 2;
	/* no LACPDU yet: the actor is Defaulted, the partner the kernel's default (Activity) */
	s.ports[0].actor_state = s.ports[1].actor_state = 0x45;
	s.ports[0].partner_state = s.ports[1].partner_state = 0x01;
	unit_pty_open(&t);
	gp_progress_setup(false, 1);
	gp_bond_lacp_progress(&s, &shown, "bond0", 0, 90, 2);
	gp_bond_lacp_progress(&s, &shown, "bond0", 1, 90, 2); /* nothing changed */
	s.ports[0].partner_state = 0x03;		      /* a change that shows nothing new */
	gp_bond_lacp_progress(&s, &shown, "bond0", 1, 90, 2);
	s.ports[1].aggregator = 1;
	s.ports[0].actor_state = s.ports[1].actor_state = 0x3d;
	s.ports[0].partner_state = s.ports[1].partner_state = 0x3d;
	s.num_ports = 2;
	memcpy(s.partner_mac, "\x52\x54\x00\x00\x20\x00", 6);
	gp_bond_lacp_progress(&s, &shown, "bond0", 3, 90, 2);
	gp_progress_clear();
	unit_pty_close(&t);
	assert_string_equal(
		t.out,
		"bond0: port ens1f0 in aggregator 1, partner none (0 s)\n"
		"bond0: port ens1f1 in aggregator 2, partner none (0 s)\n"
		"\rbond0: LACP wait 0/90 s, aggregator 1 has 1/2 ports, partner 00:00:00:00:00:00"
		"\r                                                                              \r"
		"bond0: LACP wait 1/90 s, aggregator 1 has 1/2 ports, partner 00:00:00:00:00:00"
		"\r                                                                              \r"
		"bond0: port ens1f0 in aggregator 1, partner in sync, distributing (3 s)\n"
		"bond0: port ens1f1 in aggregator 1, partner in sync, distributing (3 s)\n"
		"\rbond0: LACP wait 3/90 s, aggregator 1 has 2/2 ports, partner 52:54:00:00:20:00"
		"\r                                                                              "
		"\r");
}

int main(void)
{
	gp_term_streams(); /* as main does */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_8023ad),
		cmocka_unit_test(test_active_backup),
		cmocka_unit_test(test_lacp_formed),
		cmocka_unit_test(test_lacp_progress),
	};

	return cmocka_run_group_tests_name("bond", tests, NULL, NULL);
}
