// SPDX-License-Identifier: GPL-2.0-or-later
/* persist.bond's files in each owner's format, from the shipped templates. */
#include "core/hostq.h"
#include "unit.h"
#include "core/netconf.h"
#include "host/host.h"

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
	assert_non_null(strstr(t, "interfaces: [\"ens1f0np0\", \"ens1f1np1\"]\n"));
	assert_non_null(strstr(t, "    \"ens1f0np0\": {}\n"));
	assert_non_null(strstr(t, "addresses: [\"fd00::1/64\"]\n"));
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

/* Every YAML file gpuprov writes is one that a YAML parser reads back as meant. */
static void assert_yaml(const char *text, const char *expr)
{
	char cmd[512];
	FILE *f = fopen("build/test/netconf.yaml", "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import yaml,sys; d=yaml.safe_load(open(\"build/test/netconf.yaml\"));"
		 " sys.exit(0 if (%s) else 1)'",
		 expr);
	assert_int_equal(system(cmd), 0);
}

/* IPv6 goes where each owner keeps IPv6, never into an IPv4 setting. */
static void test_ipv6(void **state)
{
	struct gp_netconf nc;
	struct gp_host h;
	const char *t;

	(void)state;
	render(BOND "address = fd00::1/64\n", &nc, &h);
	t = file(&nc, "/etc/network/interfaces.d/gpuprov-bond0");
	assert_non_null(strstr(t, "iface bond0 inet6 static\n    address fd00::1/64\n"));
	assert_null(strstr(t, " inet static"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "address = 192.0.2.10/24\n", &nc, &h);
	assert_non_null(strstr(file(&nc, "/etc/network/interfaces.d/gpuprov-bond0"),
			       "iface bond0 inet static\n    address 192.0.2.10/24\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	/* no address: ifupdown's "static" would want one */
	render(BOND, &nc, &h);
	t = file(&nc, "/etc/network/interfaces.d/gpuprov-bond0");
	assert_non_null(strstr(t, "iface bond0 inet manual\n"));
	assert_null(strstr(t, "address"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = networkmanager\naddress = fd00::1/64\n", &nc, &h);
	t = nc.files[0].text;
	assert_non_null(strstr(t, "[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=manual\n"
				  "address1=fd00::1/64\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = networkmanager\naddress = 192.0.2.10/24\n", &nc, &h);
	assert_non_null(strstr(nc.files[0].text, "[ipv4]\nmethod=manual\naddress1=192.0.2.10/24\n"
						 "\n[ipv6]\nmethod=ignore\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = networkd\naddress = fd00::1/64\n", &nc, &h);
	assert_non_null(strstr(file(&nc, "/etc/systemd/network/60-gpuprov-bond0.network"),
			       "Address=fd00::1/64\n"));
	gp_netconf_release(&nc);
	gp_host_release(&h);

	render(BOND "persist = netplan\naddress = fd00::1/64\n", &nc, &h);
	assert_yaml(nc.files[0].text,
		    "d[\"network\"][\"bonds\"][\"bond0\"][\"addresses\"] == [\"fd00::1/64\"]"
		    " and d[\"network\"][\"bonds\"][\"bond0\"][\"interfaces\"] == "
		    "[\"ens1f0np0\", \"ens1f1np1\"]");
	gp_netconf_release(&nc);
	gp_host_release(&h);
}

/* A port's name from the host that no configuration file can hold: refused. */
static void test_hostile_port_name(void **state)
{
	static const char *const names[] = { "e*x", "&x", "{x", "\"b", "#x", "a:b", "x\ny" };
	struct gp_netconf nc;
	struct gp_profile p;
	struct gp_host h;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unit_profile(BOND "persist = netplan\n", &p);
		unit_host("r5350-ready", &p, &h);
		k = gp_host_iface(&h, "0000:01:00.0");
		assert_true(k >= 0);
		gp_strlcpy(h.ifaces[k].name, names[i], sizeof(h.ifaces[k].name));
		assert_int_equal(gp_netconf_render(&h, &p, &nc), -EINVAL);
		assert_non_null(strstr(gp_last_error, "cannot hold safely"));
		gp_netconf_release(&nc);
		gp_host_release(&h);
	}
	/* a name that YAML would read as a number stays a string */
	unit_profile(BOND "persist = netplan\n", &p);
	unit_host("r5350-ready", &p, &h);
	gp_strlcpy(h.ifaces[gp_host_iface(&h, "0000:01:00.0")].name, "1e3", GP_NAME_LEN);
	assert_int_equal(gp_netconf_render(&h, &p, &nc), 0);
	assert_yaml(nc.files[0].text, "\"1e3\" in d[\"network\"][\"ethernets\"]");
	gp_netconf_release(&nc);
	gp_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_hostile_port_name),
	};

	return cmocka_run_group_tests_name("netconf", tests, NULL, NULL);
}
