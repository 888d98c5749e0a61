// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host's network as the reader finds it under the root: interfaces,
 * routes, addresses and sockets (what ties a port to the host's traffic),
 * and who owns the configuration (networkd, NetworkManager, netplan,
 * ifupdown) with what gpuprov persisted of the bond.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hostq.h"
#include "core/manifest.h"
#include "core/model.h"
#include "host/host.h"
#include "host/read.h"

/* ---- network interfaces ---- */

static void iface_pci(struct gp_host *h, struct gp_iface *f, const char *link)
{
	char buf[PATH_LEN], *save = NULL, *tok;

	f->dev = -1;
	gp_strlcpy(buf, link, sizeof(buf));
	/* the last PCI address in the path: a virtio NIC has virtioN below it */
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		if (is_bdf(tok, strlen(tok)))
			gp_strlcpy(f->bdf, tok, sizeof(f->bdf));
	if (f->bdf[0])
		f->dev = gp_host_find(h, f->bdf);
}

static int iface_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gp_iface *)a)->name, ((const struct gp_iface *)b)->name);
}

/*
 * An interface's attributes, read in its directory (the /sys/class/net link
 * resolved once, inside the root): each whole path would resolve the link
 * and the device's path again, and a host whose virtual functions have
 * netdevs has thousands of interfaces.
 */
static void read_iface(const struct gp_root_dir *net, bool plain, const char *ilink,
		       struct gp_iface *f)
{
	char link[PATH_LEN], text[64], real[PATH_LEN];
	struct gp_root_dir dir;
	struct stat st;

	/*
	 * .../BDF/net/NAME from the directory above BDF, which the PCI reader
	 * kept open: a short walk instead of the device's whole path
	 */
	gp_root_dir_at_link(net, plain, f->name, ilink, 3, &dir, real, sizeof(real));
	if (gp_root_dir_readlink(&dir, "master", link, sizeof(link)) > 0)
		gp_strlcpy(f->master, base_name(link), sizeof(f->master));
	read_text_at(&dir, "address", f->mac, sizeof(f->mac));
	read_text_at(&dir, "operstate", f->operstate, sizeof(f->operstate));
	if (read_text_at(&dir, "speed", text, sizeof(text)) > 0)
		f->speed = strtol(text, NULL, 10);
	if (read_text_at(&dir, "mtu", text, sizeof(text)) > 0)
		f->mtu = (int)strtol(text, NULL, 10);
	f->is_bond = !gp_root_dir_stat(&dir, "bonding", &st);
	gp_root_dir_close(&dir);
}

void gp_read_ifaces(struct gp_host *h)
{
	char path[PATH_LEN], link[PATH_LEN];
	struct gp_root_dir net;
	struct dirent *e;
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_SYS_NET));
	bool plain;

	if (!dir)
		return;
	gp_root_dir(h->rootfd, GP_SYS_NET, &net);
	plain = gp_root_dir_plain(&net);
	while ((e = readdir(dir))) {
		struct gp_iface *f;

		/* an interface is a link; bonding_masters is a file */
		if (e->d_name[0] == '.' || strlen(e->d_name) >= GP_NAME_LEN ||
		    gp_root_dir_readlink(&net, e->d_name, link, sizeof(link)) <= 0)
			continue;
		h->ifaces = gp_xrealloc(h->ifaces, h->nifaces + 1, sizeof(*h->ifaces));
		f = &h->ifaces[h->nifaces++];
		memset(f, 0, sizeof(*f));
		gp_strlcpy(f->name, e->d_name, sizeof(f->name));
		f->speed = -1;
		iface_pci(h, f, link);
		read_iface(&net, plain, link, f);
		f->sriov_numvfs = -1; /* read with what check weighs (read_sriov) */
	}
	gp_root_dir_close(&net);
	closedir(dir);
	qsort(h->ifaces, h->nifaces, sizeof(*h->ifaces), iface_cmp);
}

/*
 * What ties an interface to the host's traffic: routes, addresses and
 * established TCP connections, all from /proc (so a snapshot has them too).
 * /proc/net/route and /proc/net/tcp print an IPv4 address as the %08X of a
 * big-endian word in host order: parsed back it compares with inet_pton's
 * bytes copied into a uint32_t.  Sockets map to an interface by their local
 * address, not by $SSH_CONNECTION (which sudo drops).
 */
struct route4 {
	uint32_t dst, mask;
	int iface;
};

struct addr6 {
	uint8_t a[16];
	int iface;
};

struct netfacts {
	struct route4 *r4;
	size_t n4;
	struct addr6 *a6;
	size_t n6;
};

static int iface_index(const struct gp_host *h, const char *name)
{
	int i = gp_host_iface(h, name);

	return i >= 0 && !strcmp(h->ifaces[i].name, name) ? i : -1;
}

static void read_routes4(struct gp_host *h, struct netfacts *nf)
{
	char path[PATH_LEN], ifname[64];
	unsigned long dst, mask, flags;
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_ROUTE)), *cur = text, *line;
	int k;

	while ((line = strsep(&cur, "\n"))) {
		if (sscanf(line, "%63s %lx %*x %lx %*d %*d %*d %lx", ifname, &dst, &flags, &mask) !=
			    4 ||
		    (k = iface_index(h, ifname)) < 0)
			continue;
		h->ifaces[k].routes++;
		h->ifaces[k].default_route |= !dst && !mask;
		if (flags & 0x2) /* RTF_GATEWAY: not where the address lives */
			continue;
		nf->r4 = gp_xrealloc(nf->r4, nf->n4 + 1, sizeof(*nf->r4));
		nf->r4[nf->n4++] = (struct route4){ (uint32_t)dst, (uint32_t)mask, k };
	}
	free(text);
}

/* 32 hex digits in network order (if_inet6, ipv6_route) into 16 bytes. */
static bool ipv6_hex(const char *s, uint8_t *out)
{
	int i;

	for (i = 0; i < 16; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return false;
	return strlen(s) == 32;
}

static void read_routes6(struct gp_host *h)
{
	char path[PATH_LEN], ifname[64], dst[64];
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_ROUTE6)), *cur = text, *line;
	uint8_t a[16];
	int plen, k;

	while ((line = strsep(&cur, "\n"))) {
		if (sscanf(line, "%63s %x %*s %*s %*s %*s %*s %*s %*s %63s", dst, &plen, ifname) !=
			    3 ||
		    !ipv6_hex(dst, a) || !strcmp(ifname, "lo") || (k = iface_index(h, ifname)) < 0)
			continue;
		if ((a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || a[0] == 0xff)
			continue; /* link-local and multicast: every up interface has them */
		h->ifaces[k].routes++;
		h->ifaces[k].default_route |= !plen && strspn(dst, "0") == 32;
	}
	free(text);
}

/* IPv4: the local addresses of the FIB, on the interface of their subnet. */
static int iface_of_v4(const struct netfacts *nf, uint32_t a)
{
	int best = -1, len = -1;
	size_t i;

	for (i = 0; i < nf->n4; i++) {
		int l = __builtin_popcount(nf->r4[i].mask);

		if (nf->r4[i].mask && (a & nf->r4[i].mask) == nf->r4[i].dst && l > len) {
			len = l;
			best = nf->r4[i].iface;
		}
	}
	return best;
}

static void set_addr(struct gp_iface *f, int family, const void *a)
{
	if (!f->addr[0])
		inet_ntop(family, a, f->addr, sizeof(f->addr));
}

static void read_addrs4(struct gp_host *h, const struct netfacts *nf)
{
	char path[PATH_LEN], last[64] = "";
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_FIB_TRIE)), *cur = text, *line;
	struct in_addr in;
	uint32_t a;
	int k;

	while ((line = strsep(&cur, "\n"))) {
		const char *t = line + strspn(line, " |-+");

		if (isdigit((unsigned char)*t)) {
			sscanf(t, "%63s", last);
			continue;
		}
		if (strncmp(t, "/32 host LOCAL", 14) || inet_pton(AF_INET, last, &in) != 1)
			continue;
		memcpy(&a, &in, sizeof(a));
		if ((k = iface_of_v4(nf, a)) >= 0)
			set_addr(&h->ifaces[k], AF_INET, &in);
	}
	free(text);
}

/* IPv6: if_inet6 names each address's interface. */
static void read_addrs6(struct gp_host *h, struct netfacts *nf)
{
	char path[PATH_LEN], hex[64], ifname[64];
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_INET6)), *cur = text, *line;
	unsigned scope;
	uint8_t a[16];
	int k;

	while ((line = strsep(&cur, "\n"))) {
		if (sscanf(line, "%63s %*x %*x %x %*x %63s", hex, &scope, ifname) != 3 ||
		    !ipv6_hex(hex, a) || (k = iface_index(h, ifname)) < 0)
			continue;
		nf->a6 = gp_xrealloc(nf->a6, nf->n6 + 1, sizeof(*nf->a6));
		memcpy(nf->a6[nf->n6].a, a, 16);
		nf->a6[nf->n6++].iface = k;
		if (!scope) /* global: link-local (0x20) and host (0x10) are everyone's */
			set_addr(&h->ifaces[k], AF_INET6, a);
	}
	free(text);
}

static int iface_of_v6(const struct netfacts *nf, const uint8_t *a)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint32_t v4;
	size_t i;

	if (!memcmp(a, mapped, 12)) { /* ::ffff:a.b.c.d, a dual-stack socket */
		memcpy(&v4, a + 12, 4);
		return iface_of_v4(nf, v4);
	}
	for (i = 0; i < nf->n6; i++)
		if (!memcmp(nf->a6[i].a, a, 16))
			return nf->a6[i].iface;
	return -1;
}

/* Established connections (state 01) by local address, IPv4 or IPv6. */
static bool read_tcp(struct gp_host *h, const struct netfacts *nf, bool v6)
{
	char path[PATH_LEN], local[40];
	char *text = read_file(h, gp_rootp(h, path, v6 ? GP_PROC_TCP6 : GP_PROC_TCP)), *cur = text,
	     *line;
	unsigned state;
	int k;

	if (!text)
		return false;
	while ((line = strsep(&cur, "\n"))) {
		uint32_t w[4];
		int i;

		if (sscanf(line, " %*d: %39[0-9A-Fa-f]:%*x %*s %x", local, &state) != 2 ||
		    state != 1 || strlen(local) != (v6 ? 32u : 8u))
			continue;
		for (i = 0; i < (v6 ? 4 : 1); i++) {
			char word[9];

			memcpy(word, local + 8 * i, 8);
			word[8] = '\0';
			w[i] = (uint32_t)strtoul(word, NULL, 16);
		}
		k = v6 ? iface_of_v6(nf, (const uint8_t *)w) : iface_of_v4(nf, w[0]);
		if (k >= 0)
			h->ifaces[k].tcp++;
	}
	free(text);
	return true;
}

/* An upper device (VLAN, macvlan, a bridge or bond above) shows as upper_NAME. */
static void read_uppers(struct gp_host *h)
{
	char path[PATH_LEN];
	size_t i;

	for (i = 0; i < h->nifaces; i++) {
		struct gp_iface *x = &h->ifaces[i];
		DIR *d = open_dir(h, gp_rootp(h, path, "/sys/class/net/%s", x->name));
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "upper_", 6) && strcmp(e->d_name + 6, x->master)) {
				gp_strlcpy(x->upper, e->d_name + 6, sizeof(x->upper));
				break;
			}
		if (d)
			closedir(d);
	}
}

/*
 * The firmware of the port's RDMA device (mlx5_ib's "%d.%d.%04d", from
 * the RDMA core's fw_ver attribute), while its driver holds it: the
 * device is the PCI function's child, PCI_DIR/infiniband/NAME.  One longer
 * than fw_ver holds is unknown, not cut: a cut version is another version.
 */
static void read_fw_ver(struct gp_host *h, struct gp_iface *f)
{
	char path[PATH_LEN], text[64], *v;
	struct dirent *e;
	DIR *d = open_dir(h, gp_rootp(h, path, "/sys/bus/pci/devices/%s/" GP_PCI_IB_DIR, f->bdf));
	ssize_t n;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n = read_text(h,
			      gp_rootp(h, path, "/sys/bus/pci/devices/%s/" GP_PCI_IB_DIR "/%s/%s",
				       f->bdf, e->d_name, gp_ib_dev_files[0]),
			      text, sizeof(text));
		v = n > 0 ? gp_trim(text) : NULL;
		/* text full: the file may go on past it */
		if (v && (size_t)n + 1 < sizeof(text) && strlen(v) < sizeof(f->fw_ver))
			gp_strlcpy(f->fw_ver, v, sizeof(f->fw_ver));
		break;
	}
	if (d)
		closedir(d);
}

/*
 * The VFs of each interface's PCI function: only check weighs them (a RoCE
 * LAG's ports), so scan and topo, which print none, do not pay a lookup of
 * the function's whole path for each of a host's thousands of netdevs.
 */
static void read_sriov(struct gp_host *h)
{
	char path[PATH_LEN], text[64];
	size_t i;

	for (i = 0; i < h->nifaces; i++) {
		struct gp_iface *f = &h->ifaces[i];

		if (!f->bdf[0])
			continue;
		if (read_text(h, gp_rootp(h, path, "/sys/bus/pci/devices/%s/sriov_numvfs", f->bdf),
			      text, sizeof(text)) > 0)
			f->sriov_numvfs = (int)strtol(text, NULL, 10);
		read_fw_ver(h, f);
	}
}

void gp_read_net_use(struct gp_host *h)
{
	struct netfacts nf = { 0 };

	read_sriov(h);
	read_routes4(h, &nf);
	read_routes6(h);
	read_addrs4(h, &nf);
	read_addrs6(h, &nf);
	h->seen_sockets = read_tcp(h, &nf, false);
	read_tcp(h, &nf, true); /* absent when IPv6 is off */
	read_uppers(h);
	free(nf.r4);
	free(nf.a6);
}

/* Whether a file in dir (ending in suffix) names the port as key+port. */
static bool mentions(const struct gp_host *h, const char *dir, const char *suffix, const char *key,
		     const char *port)
{
	char path[PATH_LEN], needle[96];
	struct dirent *e;
	DIR *d = open_dir(h, gp_rootp(h, path, "%s", dir));
	bool found = false;

	if (!d)
		return false;
	snprintf(needle, sizeof(needle), "%s%s", key, port);
	while (!found && (e = readdir(d))) {
		size_t n = strlen(e->d_name), k = strlen(suffix);
		char *text;

		if (e->d_name[0] == '.' || n < k || strcmp(e->d_name + n - k, suffix))
			continue;
		text = read_file(h, gp_rootp(h, path, "%s/%s", dir, e->d_name));
		if (text) {
			const char *m = strstr(text, needle);

			/* the whole name: "ens1" is no mention of "ens1f0np0" */
			found = m && !isalnum((unsigned char)m[strlen(needle)]);
			free(text);
		}
	}
	closedir(d);
	return found;
}

/* The owner whose configuration already names one of the bond's ports. */
static const char *port_owner(const struct gp_host *h, const struct gp_profile *p)
{
	int i, k;

	for (i = 0; i < p->bond.nslaves; i++) {
		const char *port;

		k = gp_host_iface(h, p->bond.slaves[i]);
		port = k >= 0 ? h->ifaces[k].name : p->bond.slaves[i];
		if (mentions(h, GP_NM_CONNECTIONS, ".nmconnection", "interface-name=", port))
			return "networkmanager";
		if (mentions(h, GP_NETPLAN, ".yaml", "", port))
			return "netplan";
		if (mentions(h, gp_networkd_dirs[0], ".network", "Name=", port))
			return "networkd";
		if (mentions(h, GP_IFUPDOWN_DIR, "interfaces", "iface ", port) ||
		    mentions(h, GP_IFUPDOWN_D, "", "iface ", port))
			return "ifupdown";
	}
	return NULL;
}

/*
 * systemd-networkd's .network files: it sorts them by file name across
 * /etc, /run and /usr/lib (a name in /etc hides the same name further down)
 * and applies to an interface only the first whose [Match] takes it.
 * Name= and MACAddress= are kept; other match keys are taken as matching.
 * The directories: gp_networkd_dirs (core/manifest.c).
 */

static bool netfile_known(const struct gp_host *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->nnetfiles; i++)
		if (!strcmp(h->netfiles[i].name, name))
			return true;
	return false;
}

/* [Match] Name= and MACAddress= lists; an empty assignment resets a list. */
static void netfile_match(struct gp_netfile *f, char *text)
{
	char *line, *save = NULL;
	bool match = false;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = gp_trim(line), *dst = NULL;
		size_t len = 0;

		if (*v == '[')
			match = !strncmp(v, "[Match]", 7);
		if (!match)
			continue;
		if (!strncmp(v, "Name=", 5)) {
			dst = f->names;
			len = sizeof(f->names);
		} else if (!strncmp(v, "MACAddress=", 11)) {
			dst = f->macs;
			len = sizeof(f->macs);
		}
		if (!dst)
			continue;
		v = gp_trim(strchr(v, '=') + 1);
		if (!*v)
			*dst = '\0';
		else
			snprintf(dst + strlen(dst), len - strlen(dst), "%s%s", *dst ? " " : "", v);
	}
}

static void read_networkd_dir(struct gp_host *h, const char *dir)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d = open_dir(h, gp_rootp(h, path, "%s", dir));

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		struct gp_netfile *f;
		char *text;

		if (e->d_name[0] == '.' || n < 9 || strcmp(e->d_name + n - 8, ".network") ||
		    n >= sizeof(f->name) || netfile_known(h, e->d_name))
			continue;
		text = read_file(h, gp_rootp(h, path, "%s/%s", dir, e->d_name));
		h->netfiles = gp_xrealloc(h->netfiles, h->nnetfiles + 1, sizeof(*h->netfiles));
		f = &h->netfiles[h->nnetfiles++];
		memset(f, 0, sizeof(*f));
		gp_strlcpy(f->name, e->d_name, sizeof(f->name));
		snprintf(f->path, sizeof(f->path), "%s/%s", dir, e->d_name);
		/* a link to /dev/null (or an empty file) masks the name further down */
		f->masked = !text || !*gp_trim(text);
		if (text)
			netfile_match(f, text);
		free(text);
	}
	closedir(d);
}

static int netfile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gp_netfile *)a)->name, ((const struct gp_netfile *)b)->name);
}

void gp_read_networkd(struct gp_host *h)
{
	size_t i;

	for (i = 0; i < GP_NETWORKD_DIRS; i++)
		read_networkd_dir(h, gp_networkd_dirs[i]);
	if (h->nnetfiles)
		qsort(h->netfiles, h->nnetfiles, sizeof(*h->netfiles), netfile_cmp);
}

/*
 * Who owns the bond's ports: the owner whose configuration names one, else
 * the network service that runs.  persist.bond writes in its format.
 */
void gp_read_net_owner(struct gp_host *h, const struct gp_profile *p)
{
	char path[PATH_LEN];
	const char *owner = p && p->has_bond ? port_owner(h, p) : NULL;
	DIR *d;
	struct dirent *e;
	bool netplan = false;

	if ((d = open_dir(h, gp_rootp(h, path, GP_NETPLAN)))) {
		while ((e = readdir(d)))
			netplan |= strstr(e->d_name, ".yaml") != NULL;
		closedir(d);
	}
	if (owner)
		;
	else if (exists(h, gp_rootp(h, path, GP_NM_RUN)) &&
		 exists(h, gp_rootp(h, path, GP_NM_ETC)) && !netplan)
		owner = "networkmanager";
	else if (netplan)
		owner = "netplan";
	else if (exists(h, gp_rootp(h, path, GP_NETWORKD_RUN)))
		owner = "networkd";
	else if (exists(h, gp_rootp(h, path, GP_IFUPDOWN)))
		owner = "ifupdown";
	else
		owner = "none";
	gp_strlcpy(h->net_owner, owner, sizeof(h->net_owner));
}
