// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * persist.bond's files: the bond in the format of whoever owns the host's
 * network configuration (NetworkManager keyfiles, netplan, systemd-networkd,
 * ifupdown), rendered from templates/.  A bond made behind NetworkManager's
 * back is taken apart by it later: writing its own format avoids that.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/hostq.h"
#include "core/netconf.h"
#include "core/templates.h"

const char *gp_netconf_owner(const struct gp_host *h, const struct gp_profile *p)
{
	return strcmp(p->bond.persist, "auto") ? p->bond.persist : h->net_owner;
}

/* The first file of the set: plan compares it to tell present from absent. */
const char *gp_bond_persist_path(const struct gp_profile *p, const struct gp_host *h, char *path,
				 size_t len)
{
	const char *o = gp_netconf_owner(h, p);

	if (!strcmp(o, "networkmanager"))
		snprintf(path, len,
			 "/etc/NetworkManager/system-connections/gpuprov-%s.nmconnection",
			 p->bond.name);
	else if (!strcmp(o, "netplan"))
		snprintf(path, len, "/etc/netplan/60-gpuprov-%s.yaml", p->bond.name);
	else if (!strcmp(o, "networkd"))
		snprintf(path, len, "/etc/systemd/network/60-gpuprov-%s.netdev", p->bond.name);
	else if (!strcmp(o, "ifupdown"))
		snprintf(path, len, "/etc/network/interfaces.d/gpuprov-%s", p->bond.name);
	else if (len)
		path[0] = '\0';
	return path;
}

/* The ports' interface names: a PCI address in the profile becomes its netdev. */
static int port_names(const struct gp_host *h, const struct gp_profile *p,
		      char names[][GP_NAME_LEN])
{
	int i, k;

	for (i = 0; i < p->bond.nslaves; i++) {
		k = gp_host_iface(h, p->bond.slaves[i]);
		gp_strlcpy(names[i], k >= 0 ? h->ifaces[k].name : p->bond.slaves[i], GP_NAME_LEN);
	}
	return p->bond.nslaves;
}

static void add(struct gp_netconf *nc, const char *path, char *text, int mode)
{
	if (nc->n == GP_NETCONF_MAX) {
		free(text);
		return;
	}
	gp_strlcpy(nc->files[nc->n].path, path, sizeof(nc->files[0].path));
	nc->files[nc->n].text = text;
	nc->files[nc->n++].mode = mode;
}

static char *read_template(const char *name)
{
	char path[512];

	return gp_template_path(name, path, sizeof(path)) ? NULL : gp_read_file(path);
}

/*
 * A line naming a value the profile leaves empty goes: no address, no
 * "address" line; an IPv6 address, no IPv4 address line.
 */
static char *drop_empty_lines(char *text, const char *const *pairs)
{
	char *out = gp_xcalloc(strlen(text) + 1, 1), *line = text, *end;
	const char *const *kv;
	char token[40];

	for (; *line; line = end) {
		bool empty = false, nl;

		end = line + strcspn(line, "\n");
		nl = *end == '\n';
		*end = '\0';
		for (kv = pairs; kv[0] && !empty; kv += 2) {
			snprintf(token, sizeof(token), "@%s@", kv[0]);
			empty = !kv[1][0] && strstr(line, token);
		}
		if (!empty)
			strcat(strcat(out, line), nl ? "\n" : "");
		end += nl;
	}
	free(text);
	return out;
}

static char *render(const char *name, const char *const *pairs)
{
	char *raw = read_template(name), *out;

	if (!raw)
		return NULL;
	raw = drop_empty_lines(raw, pairs);
	out = gp_subst(raw, pairs);
	free(raw);
	return out;
}

/*
 * Names go into YAML, keyfiles, stanzas and networkd's glob matches: each
 * must be one that all of them read as a plain name.  The profile's are
 * checked when it is read; a port named by PCI address gets the host's name.
 */
static int check_names(const struct gp_profile *p, char names[][GP_NAME_LEN], int n, bool say)
{
	int i;

	for (i = 0; i < n; i++)
		if (!gp_ifname_valid(names[i])) {
			if (say)
				gp_err("bond '%s': port '%s' has an interface name that network "
				       "configuration files cannot hold safely",
				       p->bond.name, names[i]);
			return -EINVAL;
		}
	return gp_ifname_valid(p->bond.name) ? 0 : -EINVAL;
}

/* The address split by family: each owner writes IPv6 where IPv6 goes. */
struct addr_vals {
	const char *v4, *v6, *v4_method, *v6_method, *inet, *inet_method;
};

static void addr_vals(const char *address, struct addr_vals *a)
{
	bool v6 = strchr(address, ':') != NULL;

	a->v4 = address[0] && !v6 ? address : "";
	a->v6 = v6 ? address : "";
	a->v4_method = a->v4[0] ? "manual" : "disabled";
	a->v6_method = v6 ? "manual" : "ignore";
	a->inet = v6 ? "inet6" : "inet";
	a->inet_method = address[0] ? "static" : "manual";
}

static int build(const struct gp_host *h, const struct gp_profile *p, struct gp_netconf *nc,
		 bool say)
{
	char ports[GP_MAX_LIST][GP_NAME_LEN], slaves[512] = "", comma[512] = "";
	char plan_ports[1024] = "", mtu[16], miimon[16], minl[16], path[300], first[300];
	const char *o = gp_netconf_owner(h, p), *b = p->bond.name;
	int n = port_names(h, p, ports), i;
	struct addr_vals a;

	memset(nc, 0, sizeof(*nc));
	gp_strlcpy(nc->owner, o, sizeof(nc->owner));
	if (check_names(p, ports, n, say))
		return -EINVAL;
	/* netplan's YAML gets every name quoted, in case a name reads as a number */
	for (i = 0; i < n; i++) {
		snprintf(slaves + strlen(slaves), sizeof(slaves) - strlen(slaves), "%s%s",
			 i ? " " : "", ports[i]);
		snprintf(comma + strlen(comma), sizeof(comma) - strlen(comma), "%s\"%s\"",
			 i ? ", " : "", ports[i]);
		snprintf(plan_ports + strlen(plan_ports), sizeof(plan_ports) - strlen(plan_ports),
			 "%s    \"%s\": {}", i ? "\n" : "", ports[i]);
	}
	snprintf(mtu, sizeof(mtu), "%u", p->bond.mtu);
	snprintf(miimon, sizeof(miimon), "%u", p->bond.miimon);
	snprintf(minl, sizeof(minl), "%u", p->bond.min_links);
	addr_vals(p->bond.address, &a);
	{
		const char *pairs[] = {
			"BOND",
			b,
			"MODE",
			p->bond.mode,
			"MIIMON",
			miimon,
			"LACP_RATE",
			p->bond.lacp_rate,
			"HASH",
			p->bond.xmit_hash_policy,
			"AD_SELECT",
			p->bond.ad_select,
			"MIN_LINKS",
			minl,
			"MTU",
			mtu,
			"ADDRESS",
			p->bond.address,
			"ADDRESS4",
			a.v4,
			"ADDRESS6",
			a.v6,
			"IPV4_METHOD",
			a.v4_method,
			"IPV6_METHOD",
			a.v6_method,
			"INET",
			a.inet,
			"INET_METHOD",
			a.inet_method,
			"SLAVES",
			slaves,
			"SLAVES_COMMA",
			comma,
			"NETPLAN_PORTS",
			plan_ports,
			"PORT",
			"",
			NULL,
		};

		gp_bond_persist_path(p, h, first, sizeof(first));
		if (!strcmp(o, "networkd")) {
			add(nc, first, render("networkd-bond.netdev", pairs), 0644);
			snprintf(path, sizeof(path),
				 "/etc/systemd/network/" GP_NETWORKD_PREFIX "%s.network", b);
			add(nc, path, render("networkd-bond.network", pairs), 0644);
		} else if (!strcmp(o, "networkmanager")) {
			add(nc, first, render("nm-bond.nmconnection", pairs), 0600);
		} else if (!strcmp(o, "netplan")) {
			add(nc, first, render("netplan-bond.yaml", pairs), 0600);
		} else if (!strcmp(o, "ifupdown")) {
			add(nc, first, render("ifupdown-bond", pairs), 0644);
		}
		for (i = 0; i < n && (!strcmp(o, "networkd") || !strcmp(o, "networkmanager"));
		     i++) {
			pairs[ARRAY_SIZE(pairs) - 2] = ports[i];
			if (!strcmp(o, "networkd")) {
				snprintf(path, sizeof(path),
					 "/etc/systemd/network/" GP_NETWORKD_PREFIX "%s.network",
					 ports[i]);
				add(nc, path, render("networkd-port.network", pairs), 0644);
			} else {
				snprintf(path, sizeof(path),
					 "/etc/NetworkManager/system-connections/"
					 "gpuprov-%s-%s.nmconnection",
					 b, ports[i]);
				add(nc, path, render("nm-port.nmconnection", pairs), 0600);
			}
		}
	}
	for (i = 0; i < nc->n; i++)
		if (!nc->files[i].text)
			return -ENOENT; /* a template is missing */
	return 0;
}

int gp_netconf_render(const struct gp_host *h, const struct gp_profile *p, struct gp_netconf *nc)
{
	return build(h, p, nc, true);
}

int gp_netconf_quiet(const struct gp_host *h, const struct gp_profile *p, struct gp_netconf *nc)
{
	return build(h, p, nc, false);
}

/* Whether a [Match] list (blank-separated, "!" in front negates it) takes s. */
static bool list_takes(const char *list, const char *s, bool glob)
{
	char buf[256], *tok, *save = NULL;
	bool neg = list[0] == '!', hit = false;

	gp_strlcpy(buf, list + neg, sizeof(buf));
	for (tok = strtok_r(buf, " \t", &save); tok && !hit; tok = strtok_r(NULL, " \t", &save))
		hit = glob ? !fnmatch(tok, s, 0) : !strcasecmp(tok, s);
	return neg ? !hit : hit;
}

/*
 * The .network file networkd applies to the interface: the first, in name
 * order, whose [Match] takes it (gpuprov's own files left out).  mac is ""
 * when unknown (a bond not made yet): a MACAddress= match does not take it.
 */
const struct gp_netfile *gp_networkd_first(const struct gp_host *h, const char *ifname,
					   const char *mac)
{
	size_t i;

	for (i = 0; i < h->nnetfiles; i++) {
		const struct gp_netfile *f = &h->netfiles[i];

		if (f->masked || !strncmp(f->name, GP_NETWORKD_PREFIX, strlen(GP_NETWORKD_PREFIX)))
			continue;
		if (f->names[0] && !list_takes(f->names, ifname, true))
			continue;
		if (f->macs[0] && (!mac[0] || !list_takes(f->macs, mac, false)))
			continue;
		return f;
	}
	return NULL;
}

void gp_netconf_release(struct gp_netconf *nc)
{
	int i;

	for (i = 0; i < nc->n; i++)
		free(nc->files[i].text);
	memset(nc, 0, sizeof(*nc));
}
