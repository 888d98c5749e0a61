// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bond's findings (nic.*, bond.*): its ports, a RoCE LAG, the host's way
 * in, ports of another master, the NICs' NUMA node, networkd files that
 * would shadow gpuprov's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check_bond.h"
#include "core/hostq.h"
#include "core/netconf.h"
#include "shared/util.h"

/* ---- nic.* and bond.* ---- */

/* The bond's ports as interfaces of this host; -1 for those missing. */
static int bond_ports(const struct gp_host *h, const struct gp_profile *p, int *idx)
{
	int i, found = 0;

	for (i = 0; i < p->bond.nslaves; i++) {
		idx[i] = gp_host_iface(h, p->bond.slaves[i]);
		found += idx[i] >= 0;
	}
	return found;
}

static void check_nic_missing(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			      struct gp_report *r)
{
	char missing[256] = "";
	size_t len = 0;
	int i;

	for (i = 0; i < p->bond.nslaves; i++)
		if (idx[i] < 0 && len < sizeof(missing) - GP_NAME_LEN)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", p->bond.slaves[i]);
	if (len)
		gp_report_add(r, GP_F_NIC_MISSING, GP_FAIL, p->bond.name,
			      "check the names with 'ip link' (or the addresses with 'lspci -D "
			      "-d 15b3:'), and that the NIC driver is loaded",
			      "no such interface on this host: %s", missing);
	else
		gp_report_add(r, GP_F_NIC_MISSING, GP_OK, p->bond.name, NULL,
			      "all %d ports present", p->bond.nslaves);
	(void)h;
}

/*
 * mlx5 makes one RoCE LAG device only from both ports of one card, and
 * nothing else, in mode 1, 2 or 4, with SR-IOV off.
 */
static void check_roce_lag(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			   struct gp_report *r)
{
	const struct gp_iface *a = idx[0] >= 0 ? &h->ifaces[idx[0]] : NULL;
	const struct gp_iface *b = p->bond.nslaves > 1 && idx[1] >= 0 ? &h->ifaces[idx[1]] : NULL;
	int i;

	for (i = 0; i < p->bond.nslaves; i++)
		if (idx[i] >= 0 && h->ifaces[idx[i]].sriov_numvfs > 0) {
			gp_report_add(
				r, GP_F_BOND_ROCE_LAG, GP_WARN, p->bond.name,
				"set sriov_numvfs to 0 on the ports for a RoCE LAG; the bond "
				"itself works either way",
				"SR-IOV is on for %s (%d VFs): the card will not form a RoCE LAG",
				h->ifaces[idx[i]].name, h->ifaces[idx[i]].sriov_numvfs);
			return;
		}
	if (p->bond.nslaves != 2 || !a || !b || !a->bdf[0] || !b->bdf[0] ||
	    strncmp(a->bdf, b->bdf, 10) || !strcmp(a->bdf, b->bdf)) {
		gp_report_add(r, GP_F_BOND_ROCE_LAG, GP_WARN, p->bond.name,
			      "use the two ports of one ConnectX card for a single RoCE LAG device "
			      "(mlx5_bond_0); the Ethernet bond works as it is",
			      "the ports are not the two functions of one card: no RoCE LAG");
		return;
	}
	gp_report_add(r, GP_F_BOND_ROCE_LAG, GP_OK, p->bond.name, NULL,
		      "%s and %s are two functions of one card (%.10s): RoCE LAG possible in %s",
		      a->name, b->name, a->bdf, p->bond.mode);
}

/* What makes an interface the host's way in: the default route, live TCP sessions. */
static bool mgmt_use(const struct gp_iface *f, char *buf, size_t len)
{
	if (f->default_route)
		snprintf(buf, len, "the default route");
	else if (f->tcp)
		snprintf(buf, len, "%d established TCP connection%s (an SSH session?)", f->tcp,
			 f->tcp > 1 ? "s" : "");
	else
		return false;
	return true;
}

/* The bridge, bond, team or VRF a port belongs to, when it is not ours. */
static const struct gp_iface *foreign_master(const struct gp_host *h, const struct gp_profile *p,
					     const struct gp_iface *f)
{
	int m;

	if (!f->master[0] || !strcmp(f->master, p->bond.name))
		return NULL;
	m = gp_host_iface(h, f->master);
	return m >= 0 ? &h->ifaces[m] : NULL;
}

static void check_mgmt(const struct gp_host *h, const struct gp_profile *p, const int *idx,
		       struct gp_report *r)
{
	const char *hint = "bonding it cuts the host off: pick other ports, or run from the "
			   "console with --force-mgmt";
	char why[128];
	int i;

	for (i = 0; i < p->bond.nslaves; i++) {
		const struct gp_iface *f = idx[i] >= 0 ? &h->ifaces[idx[i]] : NULL;
		const struct gp_iface *m = f ? foreign_master(h, p, f) : NULL;

		if (f && mgmt_use(f, why, sizeof(why))) {
			gp_report_add(r, GP_F_BOND_MGMT, GP_FAIL, p->bond.name, hint,
				      "%s carries %s", f->name, why);
			return;
		}
		if (m && mgmt_use(m, why, sizeof(why))) {
			gp_report_add(r, GP_F_BOND_MGMT, GP_FAIL, p->bond.name, hint,
				      "%s is a port of %s, which carries %s", f->name, m->name,
				      why);
			return;
		}
	}
	gp_report_add(r, GP_F_BOND_MGMT, GP_OK, p->bond.name, NULL,
		      "no port, nor its bridge or bond, carries the default route or an "
		      "established TCP connection");
}

/*
 * A port of a bridge or of another bond: enslaving takes it out, and undo
 * cannot put it back where it was.  Refused even with --force-mgmt.
 */
static void check_port_master(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			      struct gp_report *r)
{
	int i, n = 0;

	for (i = 0; i < p->bond.nslaves; i++) {
		const struct gp_iface *f = idx[i] >= 0 ? &h->ifaces[idx[i]] : NULL;
		const struct gp_iface *m = f ? foreign_master(h, p, f) : NULL;
		char what[160];

		if (f && f->master[0] && strcmp(f->master, p->bond.name))
			snprintf(what, sizeof(what), "already a port of %s%s", f->master,
				 m && m->is_bond ? " (a bond)" : "");
		else if (f && f->upper[0])
			snprintf(what, sizeof(what), "%s sits on top of it", f->upper);
		else
			continue;
		gp_report_add(r, GP_F_BOND_PORT_MASTER, GP_FAIL, f->name,
			      "take it out first ('ip link set PORT nomaster', or remove the VLAN) "
			      "and move what that interface carries: gpuprov does not take a "
			      "port from another bridge or bond, its undo could not put it back",
			      "%s", what);
		n++;
	}
	if (!n)
		gp_report_add(r, GP_F_BOND_PORT_MASTER, GP_OK, p->bond.name, NULL,
			      "no port belongs to another bridge or bond, or carries a VLAN");
}

static void check_nic_numa(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			   struct gp_report *r)
{
	int n, *gpus = gp_gpus(h, &n), i, gnode = n ? h->devs[gpus[0]].numa_node : -1;

	free(gpus);
	for (i = 0; i < p->bond.nslaves; i++) {
		const struct gp_iface *f = idx[i] >= 0 ? &h->ifaces[idx[i]] : NULL;
		int node = f && f->dev >= 0 ? h->devs[f->dev].numa_node : -1;

		if (!f || node < 0 || gnode < 0 || node == gnode)
			continue;
		gp_report_add(r, GP_F_BOND_NIC_NUMA, GP_WARN, p->bond.name,
			      "put the RoCE card in a slot of the GPUs' node: GPUDirect RDMA "
			      "then stays on one socket",
			      "%s is on NUMA node %d, the GPUs on node %d", f->name, node, gnode);
		return;
	}
	gp_report_add(r, GP_F_BOND_NIC_NUMA, GP_OK, p->bond.name, NULL,
		      gnode < 0 ? "NUMA nodes unknown or no GPU: nothing to compare"
				: "the ports share the GPUs' NUMA node");
}

/*
 * systemd-networkd applies to an interface only the first .network file, in
 * name order, that matches it: an older file of the operator's that sorts
 * before gpuprov's 60-gpuprov-*.network keeps a port out of the bond after
 * a reboot, although the live bond works.
 */
static int shadowed(const struct gp_host *h, const struct gp_profile *p, const char *name,
		    const char *mac, struct gp_report *r)
{
	const struct gp_netfile *f = gp_networkd_first(h, name, mac);
	char ours[GP_NAME_LEN + 32];

	snprintf(ours, sizeof(ours), GP_NETWORKD_PREFIX "%s.network", name);
	if (!f || strcmp(f->name, ours) > 0)
		return 0;
	gp_report_add(r, GP_F_BOND_PERSIST_SHADOWED, GP_FAIL, name,
		      "make gpuprov's file come first: rename that file to sort after it, "
		      "or stop it matching (or set persist = none)",
		      "%s matches %s and sorts before %s: networkd applies only the first, so "
		      "after a reboot %s would not be %s",
		      f->path, name, ours, name,
		      strcmp(name, p->bond.name) ? "a port of the bond" : "configured as the bond");
	return 1;
}

static void check_persist_shadowed(const struct gp_host *h, const struct gp_profile *p,
				   const int *idx, struct gp_report *r)
{
	int i, bad;

	if (strcmp(gp_netconf_owner(h, p), "networkd"))
		return;
	bad = shadowed(h, p, p->bond.name, "", r);
	for (i = 0; i < p->bond.nslaves; i++)
		bad += shadowed(h, p, idx[i] >= 0 ? h->ifaces[idx[i]].name : p->bond.slaves[i],
				idx[i] >= 0 ? h->ifaces[idx[i]].mac : "", r);
	if (!bad)
		gp_report_add(r, GP_F_BOND_PERSIST_SHADOWED, GP_OK, p->bond.name, NULL,
			      "gpuprov's .network files come first for the bond and its ports");
}

void gp_check_bond(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int idx[GP_MAX_LIST];

	if (!p->has_bond)
		return;
	bond_ports(h, p, idx);
	check_nic_missing(h, p, idx, r);
	check_roce_lag(h, p, idx, r);
	check_mgmt(h, p, idx, r);
	check_port_master(h, p, idx, r);
	check_nic_numa(h, p, idx, r);
	check_persist_shadowed(h, p, idx, r);
}
