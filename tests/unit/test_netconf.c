// SPDX-License-Identifier: GPL-2.0-or-later
/* persist.bond's files in each owner's format, from the shipped templates. */
#include "unit.h"
#include "netconf.h"

#define BOND                                                           \
	"[gpus]\nmatch = 10de:20b5\ncount = 2\n[bond]\nname = bond0\n" \
	"slaves = 0000:01:00.0 ens1f1np1\nlacp_rate = fast\nmtu = 9000\n"

static void render_on(const char *host, const char *profile, struct gp_netconf *nc,
		      struct gp_host *h)
{
	struct gp_profile p;

	setenv("GPUPROV_TEMPLATES", "templates", 1);
	unit_profile(profile, &p);
	unit_host(host, &p, h);
	assert_int_equal(gp_netconf_render(h, &p, nc), 0);
}

static void render(const char *profile, struct gp_netconf *nc, struct gp_host *h)
{
	render_on("r5350-ready", profile, nc, h);
}

static const char *file(const struct gp_netconf *nc, const char *path)
{
	int i;

	for (i = 0; i < nc->n; i++)
		if (!strcmp(nc->files[i].path, path))
			return nc->files[i].text;
	fail_msg("no %s", path);
	return NULL;
}

static void test_owners(void **state)
{
	struct gp_netconf nc;
	struct gp_host h;
	const char *t;

	(void)state;
	/* the fixture's owner: ifupdown; a port named by PCI address gets its name */
	render(BOND "address = 192.0.2.10/24\n", &nc, &h);
	assert_string_equal(nc.owner, "ifupdown");
	t = file(&nc, "/etc/network/interfaces.d/gpuprov-bond0");
	assert_non_null(strstr(t, "bond-slaves ens1f0np0 ens1f1np1\n"));
	assert_non_null(strstr(t, "bond-mode 802.3ad\n"));
	assert_non_null(strstr(t, "address 192.0.2.10/24\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = networkd\n", &nc, &h);
	assert_int_equal(nc.n, 4); /* netdev, bond network, one network per port */
	t = file(&nc, "/etc/systemd/network/60-gpuprov-bond0.netdev");
	assert_non_null(strstr(t, "Kind=bond\n"));
	assert_non_null(strstr(t, "LACPTransmitRate=fast\n"));
	/* no address in the profile: no Address= line at all */
	assert_null(strstr(file(&nc, "/etc/systemd/network/60-gpuprov-bond0.network"), "Address"));
	assert_non_null(strstr(file(&nc, "/etc/systemd/network/60-gpuprov-ens1f0np0.network"),
			       "Bond=bond0\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = networkmanager\n", &nc, &h);
	assert_int_equal(nc.n, 3);
	assert_int_equal(nc.files[0].mode, 0600); /* NetworkManager ignores others */
	assert_non_null(strstr(nc.files[0].text, "method=disabled\n"));
	assert_non_null(strstr(file(&nc, "/etc/NetworkManager/system-connections/"
					 "gpuprov-bond0-ens1f1np1.nmconnection"),
			       "master=bond0\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = netplan\naddress = fd00::1/64\n", &nc, &h);
	t = file(&nc, "/etc/netplan/60-gpuprov-bond0.yaml");
	assert_non_null(strstr(t, "interfaces: [ens1f0np0, ens1f1np1]\n"));
	assert_non_null(strstr(t, "    ens1f0np0: {}\n"));
	assert_non_null(strstr(t, "addresses: [fd00::1/64]\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	/* the owner that already configures a port wins over the service that runs */
	render_on("bond-owner", BOND, &nc, &h);
	assert_string_equal(nc.owner, "networkd");
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = none\n", &nc, &h);
	assert_int_equal(nc.n, 0);
	gp_netconf_release(&nc);
	gp_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),
	};

	return cmocka_run_group_tests_name("netconf", tests, NULL, NULL);
}
