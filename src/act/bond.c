// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bond adapter, on libnl.  libnl 3.7 has no setters for a bond's mode,
 * miimon, lacp_rate or ad_select, so the RTM_NEWLINK is built here with
 * libnl core: IFLA_LINKINFO { IFLA_INFO_KIND "bond", IFLA_INFO_DATA {
 * IFLA_BOND_* } }.  State is read back from netlink too (IFLA_INFO_DATA of
 * the bond, IFLA_INFO_SLAVE_DATA of its ports), never from /proc text.
 * libnl's negative NLE_* codes are turned into messages with nl_geterror().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>

#include <libkmod.h>

#include "act/actuator.h"
#include "act/bond.h"
#include "core/bondopt.h"
#include "shared/progress.h"

const char *gp_bond_mode_name(int mode)
{
	return mode >= 0 ? GP_BOND_NAME(gp_bond_modes, (unsigned)mode) : "unknown";
}

int gp_bond_opts_from_profile(const struct gp_profile *p, struct gp_bond_opts *o)
{
	int mode = GP_BOND_VALUE(gp_bond_modes, p->bond.mode);
	int hash = GP_BOND_VALUE(gp_bond_hashes, p->bond.xmit_hash_policy);
	int sel = GP_BOND_VALUE(gp_bond_selects, p->bond.ad_select);

	memset(o, 0, sizeof(*o));
	if (mode < 0 || hash < 0 || sel < 0)
		return -EINVAL;
	gp_strlcpy(o->name, p->bond.name, sizeof(o->name));
	o->mode = (uint8_t)mode;
	o->miimon = p->bond.miimon;
	o->lacp_rate = GP_BOND_VALUE(gp_bond_rates, p->bond.lacp_rate) == 1;
	o->xmit_hash_policy = (uint8_t)hash;
	o->ad_select = (uint8_t)sel;
	o->min_links = p->bond.min_links;
	return 0;
}

/*
 * The request that creates the bond, down and with its options.  The LACP
 * options exist in 802.3ad mode only, the hash policy in the XOR-based
 * modes only: the kernel refuses them elsewhere.
 */
struct nl_msg *gp_bond_newlink_msg(const struct gp_bond_opts *o)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlattr *info, *data;
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_CREATE |
								     NLM_F_EXCL | NLM_F_ACK);

	if (!msg || nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0)
		goto fail;
	NLA_PUT_STRING(msg, IFLA_IFNAME, o->name);
	info = nla_nest_start(msg, IFLA_LINKINFO);
	if (!info)
		goto fail;
	NLA_PUT_STRING(msg, IFLA_INFO_KIND, "bond");
	data = nla_nest_start(msg, IFLA_INFO_DATA);
	if (!data)
		goto fail;
	NLA_PUT_U8(msg, IFLA_BOND_MODE, o->mode);
	NLA_PUT_U32(msg, IFLA_BOND_MIIMON, o->miimon);
	if (o->mode == GP_BOND_MODE_8023AD) {
		NLA_PUT_U8(msg, IFLA_BOND_AD_LACP_RATE, o->lacp_rate);
		NLA_PUT_U8(msg, IFLA_BOND_AD_SELECT, o->ad_select);
	}
	if (o->mode == GP_BOND_MODE_XOR || o->mode == GP_BOND_MODE_8023AD)
		NLA_PUT_U8(msg, IFLA_BOND_XMIT_HASH_POLICY, o->xmit_hash_policy);
	NLA_PUT_U32(msg, IFLA_BOND_MIN_LINKS, o->min_links);
	nla_nest_end(msg, data);
	nla_nest_end(msg, info);
	return msg;
nla_put_failure:
fail:
	nlmsg_free(msg);
	return NULL;
}

static struct nl_sock *sock_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int rc;

	if (!sk)
		return NULL;
	rc = nl_connect(sk, NETLINK_ROUTE);
	if (rc < 0) {
		gp_err("netlink: %s", nl_geterror(rc));
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

/* Sends one request and waits for the kernel's answer. */
static int send_msg(struct nl_msg *msg, const char *what)
{
	struct nl_sock *sk = sock_open();
	int rc;

	if (!sk) {
		nlmsg_free(msg);
		return -EIO;
	}
	rc = nl_send_auto(sk, msg);
	if (rc >= 0)
		rc = nl_wait_for_ack(sk);
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (rc < 0) {
		gp_err("%s: %s", what, nl_geterror(rc));
		return -EIO;
	}
	return 0;
}

/* Without max_bonds=0 the bonding module makes a bond0 of its own. */
int gp_bond_load_module(void)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	int rc;

	if (!access("/sys/module/bonding", F_OK))
		return 0;
	ctx = kmod_new(NULL, NULL);
	if (!ctx)
		return -ENOMEM;
	rc = kmod_module_new_from_name(ctx, "bonding", &mod);
	if (rc >= 0) {
		rc = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, "max_bonds=0",
						     NULL, NULL, NULL);
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	if (rc > 0)
		gp_err("the bonding module is blacklisted");
	else if (rc < 0)
		gp_err("cannot load the bonding module: %s", strerror(-rc));
	return rc ? -EIO : 0;
}

int gp_bond_create(const struct gp_bond_opts *o)
{
	struct nl_msg *msg = gp_bond_newlink_msg(o);
	char what[64];

	if (!msg)
		return -ENOMEM;
	snprintf(what, sizeof(what), "cannot create bond '%s'", o->name);
	return send_msg(msg, what);
}

/* A change to one link, through libnl's rtnl_link objects. */
static int change(const char *name, void (*edit)(struct rtnl_link *, long), long arg,
		  const char *what)
{
	struct nl_sock *sk = sock_open();
	struct rtnl_link *old = NULL, *req;
	int rc;

	if (!sk)
		return -EIO;
	rc = rtnl_link_get_kernel(sk, 0, name, &old);
	if (rc < 0) {
		gp_err("%s '%s': %s", what, name, nl_geterror(rc));
		nl_socket_free(sk);
		return -ENODEV;
	}
	req = rtnl_link_alloc();
	edit(req, arg);
	rc = rtnl_link_change(sk, old, req, 0);
	rtnl_link_put(req);
	rtnl_link_put(old);
	nl_socket_free(sk);
	if (rc < 0) {
		gp_err("%s '%s': %s", what, name, nl_geterror(rc));
		return -EIO;
	}
	return 0;
}

static void edit_up(struct rtnl_link *l, long up)
{
	if (up)
		rtnl_link_set_flags(l, IFF_UP);
	else
		rtnl_link_unset_flags(l, IFF_UP);
}

static void edit_master(struct rtnl_link *l, long ifindex)
{
	rtnl_link_set_master(l, (int)ifindex);
}

static void edit_mtu(struct rtnl_link *l, long mtu)
{
	rtnl_link_set_mtu(l, (unsigned)mtu);
}

int gp_link_updown(const char *name, bool up)
{
	return change(name, edit_up, up, up ? "cannot bring up" : "cannot take down");
}

int gp_link_master(const char *name, const char *master)
{
	unsigned idx = 0;

	if (master && !(idx = if_nametoindex(master))) {
		gp_err("no interface '%s'", master);
		return -ENODEV;
	}
	return change(name, edit_master, (long)idx, master ? "cannot enslave" : "cannot release");
}

int gp_link_mtu(const char *name, int mtu)
{
	return change(name, edit_mtu, mtu, "cannot set the MTU of");
}

int gp_link_delete(const char *name)
{
	struct nl_sock *sk = sock_open();
	struct rtnl_link *l;
	int rc;

	if (!sk)
		return -EIO;
	l = rtnl_link_alloc();
	rtnl_link_set_name(l, name);
	rc = rtnl_link_delete(sk, l);
	rtnl_link_put(l);
	nl_socket_free(sk);
	if (rc < 0 && rc != -NLE_NODEV && rc != -NLE_OBJ_NOTFOUND) {
		gp_err("cannot delete '%s': %s", name, nl_geterror(rc));
		return -EIO;
	}
	return 0;
}

int gp_link_addr(const char *name, const char *cidr, bool add)
{
	struct nl_sock *sk;
	struct rtnl_addr *a;
	struct nl_addr *local = NULL;
	unsigned idx = if_nametoindex(name);
	int rc;

	if (!idx) {
		gp_err("no interface '%s'", name);
		return -ENODEV;
	}
	rc = nl_addr_parse(cidr, AF_UNSPEC, &local);
	if (rc < 0) {
		gp_err("bad address '%s': %s", cidr, nl_geterror(rc));
		return -EINVAL;
	}
	sk = sock_open();
	if (!sk) {
		nl_addr_put(local);
		return -EIO;
	}
	a = rtnl_addr_alloc();
	rtnl_addr_set_ifindex(a, (int)idx);
	rtnl_addr_set_local(a, local);
	rc = add ? rtnl_addr_add(sk, a, 0) : rtnl_addr_delete(sk, a, 0);
	rtnl_addr_put(a);
	nl_addr_put(local);
	nl_socket_free(sk);
	if (rc < 0 && !(add && rc == -NLE_EXIST) && !(!add && rc == -NLE_NOADDR)) {
		gp_err("cannot %s %s on '%s': %s", add ? "add" : "remove", cidr, name,
		       nl_geterror(rc));
		return -EIO;
	}
	return 0;
}

/* 1 when name carries cidr (address and prefix length), 0 when not, <0 on error. */
int gp_link_has_addr(const char *name, const char *cidr)
{
	struct nl_cache *cache = NULL;
	struct nl_object *o;
	struct nl_addr *want = NULL;
	struct nl_sock *sk;
	int idx = (int)if_nametoindex(name), found = 0;

	if (!idx)
		return -ENODEV;
	if (nl_addr_parse(cidr, AF_UNSPEC, &want) < 0)
		return -EINVAL;
	sk = sock_open();
	if (!sk || rtnl_addr_alloc_cache(sk, &cache) < 0) {
		nl_addr_put(want);
		if (sk)
			nl_socket_free(sk);
		return -EIO;
	}
	for (o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;

		if (rtnl_addr_get_ifindex(a) == idx && !nl_addr_cmp(rtnl_addr_get_local(a), want))
			found = 1;
	}
	nl_cache_free(cache);
	nl_addr_put(want);
	nl_socket_free(sk);
	return found;
}

/* ---- reading the bond back: a link dump, parsed with nla_parse ---- */

struct dump {
	const char *name;
	int ifindex;
	struct gp_bond_state *st;
};

static void parse_bond_data(struct nlattr *data, struct gp_bond_state *st)
{
	struct nlattr *tb[IFLA_BOND_MAX + 1], *ad[IFLA_BOND_AD_INFO_MAX + 1];

	if (nla_parse_nested(tb, IFLA_BOND_MAX, data, NULL) < 0)
		return;
	if (tb[IFLA_BOND_MODE])
		st->opts.mode = nla_get_u8(tb[IFLA_BOND_MODE]);
	if (tb[IFLA_BOND_MIIMON])
		st->opts.miimon = nla_get_u32(tb[IFLA_BOND_MIIMON]);
	if (tb[IFLA_BOND_AD_LACP_RATE])
		st->opts.lacp_rate = nla_get_u8(tb[IFLA_BOND_AD_LACP_RATE]);
	if (tb[IFLA_BOND_XMIT_HASH_POLICY])
		st->opts.xmit_hash_policy = nla_get_u8(tb[IFLA_BOND_XMIT_HASH_POLICY]);
	if (tb[IFLA_BOND_AD_SELECT])
		st->opts.ad_select = nla_get_u8(tb[IFLA_BOND_AD_SELECT]);
	if (tb[IFLA_BOND_MIN_LINKS])
		st->opts.min_links = nla_get_u32(tb[IFLA_BOND_MIN_LINKS]);
	if (!tb[IFLA_BOND_AD_INFO] ||
	    nla_parse_nested(ad, IFLA_BOND_AD_INFO_MAX, tb[IFLA_BOND_AD_INFO], NULL) < 0)
		return;
	if (ad[IFLA_BOND_AD_INFO_AGGREGATOR])
		st->aggregator = nla_get_u16(ad[IFLA_BOND_AD_INFO_AGGREGATOR]);
	if (ad[IFLA_BOND_AD_INFO_NUM_PORTS])
		st->num_ports = nla_get_u16(ad[IFLA_BOND_AD_INFO_NUM_PORTS]);
	if (ad[IFLA_BOND_AD_INFO_PARTNER_MAC] && nla_len(ad[IFLA_BOND_AD_INFO_PARTNER_MAC]) >= 6)
		memcpy(st->partner_mac, nla_data(ad[IFLA_BOND_AD_INFO_PARTNER_MAC]), 6);
}

static void parse_port(struct nlattr *data, struct gp_bond_port *port)
{
	struct nlattr *tb[IFLA_BOND_SLAVE_MAX + 1];

	port->mii_up = port->aggregator = port->actor_state = port->partner_state = -1;
	if (!data || nla_parse_nested(tb, IFLA_BOND_SLAVE_MAX, data, NULL) < 0)
		return;
	if (tb[IFLA_BOND_SLAVE_MII_STATUS])
		port->mii_up = nla_get_u8(tb[IFLA_BOND_SLAVE_MII_STATUS]) == 0; /* BOND_LINK_UP */
	if (tb[IFLA_BOND_SLAVE_AD_AGGREGATOR_ID])
		port->aggregator = nla_get_u16(tb[IFLA_BOND_SLAVE_AD_AGGREGATOR_ID]);
	if (tb[IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE])
		port->actor_state = nla_get_u8(tb[IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE]);
	if (tb[IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE])
		port->partner_state = nla_get_u16(tb[IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE]);
}

static int on_link(struct nl_msg *msg, void *arg)
{
	struct dump *d = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct ifinfomsg *ifi = nlmsg_data(h);
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];
	const char *name;
	bool up = ifi->ifi_flags & IFF_UP;

	if (nlmsg_parse(h, sizeof(*ifi), tb, IFLA_MAX, NULL) < 0 || !tb[IFLA_IFNAME])
		return NL_OK;
	name = nla_get_string(tb[IFLA_IFNAME]);
	if (tb[IFLA_LINKINFO])
		nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL);
	else
		memset(li, 0, sizeof(li));
	if (!strcmp(name, d->name)) {
		d->st->exists = true;
		d->st->up = up;
		d->st->mtu = tb[IFLA_MTU] ? (int)nla_get_u32(tb[IFLA_MTU]) : 0;
		d->st->is_bond =
			li[IFLA_INFO_KIND] && !strcmp(nla_get_string(li[IFLA_INFO_KIND]), "bond");
		if (d->st->is_bond && li[IFLA_INFO_DATA])
			parse_bond_data(li[IFLA_INFO_DATA], d->st);
		return NL_OK;
	}
	if (tb[IFLA_MASTER] && (int)nla_get_u32(tb[IFLA_MASTER]) == d->ifindex &&
	    d->st->nports < GP_BOND_MAX_PORTS) {
		struct gp_bond_port *p = &d->st->ports[d->st->nports++];

		gp_strlcpy(p->name, name, sizeof(p->name));
		p->up = up;
		parse_port(li[IFLA_INFO_SLAVE_DATA], p);
	}
	return NL_OK;
}

int gp_bond_state_read(const char *name, struct gp_bond_state *st)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	struct dump d = { .name = name, .st = st };
	struct nl_sock *sk;
	int rc;

	memset(st, 0, sizeof(*st));
	st->aggregator = -1;
	d.ifindex = (int)if_nametoindex(name);
	sk = sock_open();
	if (!sk)
		return -EIO;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_link, &d);
	rc = nl_send_simple(sk, RTM_GETLINK, NLM_F_DUMP, &g, sizeof(g));
	if (rc >= 0)
		rc = nl_recvmsgs_default(sk);
	nl_socket_free(sk);
	if (rc < 0) {
		gp_err("netlink link dump: %s", nl_geterror(rc));
		return -EIO;
	}
	return 0;
}

int gp_link_info(const char *name, bool *up, int *mtu, char *master, size_t len)
{
	struct nl_sock *sk = sock_open();
	struct rtnl_link *l = NULL;
	int rc, m;

	if (!sk)
		return -EIO;
	rc = rtnl_link_get_kernel(sk, 0, name, &l);
	nl_socket_free(sk);
	if (rc < 0)
		return -ENODEV;
	*up = rtnl_link_get_flags(l) & IFF_UP;
	*mtu = (int)rtnl_link_get_mtu(l);
	m = rtnl_link_get_master(l);
	master[0] = '\0';
	if (m > 0)
		if_indextoname((unsigned)m, master);
	(void)len;
	rtnl_link_put(l);
	return 0;
}

/* Every port in the active aggregator, and a partner on the other side. */
bool gp_bond_lacp_formed(const struct gp_bond_state *st, int nslaves)
{
	static const uint8_t zero[6];
	int i;

	if (st->nports != nslaves || st->aggregator < 0 || !memcmp(st->partner_mac, zero, 6))
		return false;
	for (i = 0; i < st->nports; i++)
		if (st->ports[i].aggregator != st->aggregator)
			return false;
	return st->num_ports == nslaves;
}

/* ================= the actuators: bond.create, bond.enslave, link.up ================= */

static int bond_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->profile)
		return 0;
	gp_err("%s: no bond to build", gp_step_name(st->kind));
	return -EINVAL;
}

/* ---- bond.create ---- */

static int create_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_bond_state s;

	return !gp_bond_state_read(st->subject, &s) && s.exists && s.is_bond;
}

static int create_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			 json_object *undo)
{
	json_object_object_add(undo, "created", json_object_new_string(st->subject));
	return 0;
}

static int create_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_bond_opts o;
	int rc;

	if (gp_bond_opts_from_profile(ctx->profile, &o))
		return -EINVAL;
	rc = gp_bond_load_module();
	return rc ? rc : gp_bond_create(&o);
}

static int create_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_bond_state s;
	struct gp_bond_opts o;

	if (gp_bond_state_read(st->subject, &s) || !s.is_bond) {
		gp_err("bond '%s' does not exist after creating it", st->subject);
		return -EIO;
	}
	gp_bond_opts_from_profile(ctx->profile, &o);
	if (s.opts.mode != o.mode || s.opts.miimon != o.miimon ||
	    (o.mode == GP_BOND_MODE_8023AD && s.opts.lacp_rate != o.lacp_rate)) {
		gp_err("bond '%s' reads back as mode %s, miimon %u", st->subject,
		       gp_bond_mode_name(s.opts.mode), s.opts.miimon);
		return -EIO;
	}
	return 0;
}

static int create_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *c = json_object_object_get(undo, "created");

	return c ? gp_link_delete(json_object_get_string(c)) : 0;
}

static bool create_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "ip link delete %s", st->subject);
	return true;
}

const struct gp_actuator gp_act_bond_create = {
	.kind = GP_S_BOND_CREATE,
	.precheck = bond_precheck,
	.done = create_done,
	.record = create_record,
	.run = create_run,
	.verify = create_verify,
	.undo = create_undo,
	.by_hand = create_by_hand,
};

/* ---- bond.enslave: down, then enslaved, as two requests (kernel 6.1+) ---- */

static int port_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (!if_nametoindex(st->subject)) {
		gp_err("no interface '%s'", st->subject);
		return -ENODEV;
	}
	return 0;
}

static int enslave_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char master[IF_NAMESIZE];
	bool up;
	int mtu;

	return !gp_link_info(st->subject, &up, &mtu, master, sizeof(master)) &&
	       !strcmp(master, st->arg);
}

static int enslave_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			  json_object *undo)
{
	char master[IF_NAMESIZE];
	bool up;
	int mtu;

	if (gp_link_info(st->subject, &up, &mtu, master, sizeof(master)))
		return -ENODEV;
	json_object_object_add(undo, "up", json_object_new_boolean(up));
	json_object_object_add(undo, "mtu", json_object_new_int(mtu));
	json_object_object_add(undo, "master", json_object_new_string(master));
	return 0;
}

static int enslave_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = gp_link_updown(st->subject, false);

	return rc ? rc : gp_link_master(st->subject, st->arg);
}

static int enslave_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (enslave_done(ctx, st) > 0)
		return 0;
	gp_err("'%s' is not in '%s' after enslaving it", st->subject, st->arg);
	return -EIO;
}

/* Out of the bond, its MTU and up/down state as before. */
static int enslave_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *up = json_object_object_get(undo, "up");
	json_object *mtu = json_object_object_get(undo, "mtu");
	char master[IF_NAMESIZE];
	bool now_up;
	int now_mtu, rc = 0;

	if (!up || gp_link_info(st->subject, &now_up, &now_mtu, master, sizeof(master)))
		return 0; /* nothing recorded, or the port is gone with its bond */
	if (master[0])
		rc = gp_link_master(st->subject, NULL);
	if (!rc && mtu && json_object_get_int(mtu) != now_mtu)
		rc = gp_link_mtu(st->subject, json_object_get_int(mtu));
	if (!rc)
		rc = gp_link_updown(st->subject, json_object_get_boolean(up));
	return rc;
}

static bool enslave_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "ip link set dev %s nomaster", st->subject);
	return true;
}

const struct gp_actuator gp_act_bond_enslave = {
	.kind = GP_S_BOND_ENSLAVE,
	.precheck = port_precheck,
	.done = enslave_done,
	.record = enslave_record,
	.run = enslave_run,
	.verify = enslave_verify,
	.undo = enslave_undo,
	.by_hand = enslave_by_hand,
};

/* ---- link.up: MTU, address, up, and for 802.3ad a formed LACP ---- */

static int up_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_bond_state s;

	if (gp_bond_state_read(st->subject, &s) || !s.up || s.mtu != (int)ctx->profile->bond.mtu)
		return 0;
	return s.opts.mode != GP_BOND_MODE_8023AD ||
	       gp_bond_lacp_formed(&s, ctx->profile->bond.nslaves);
}

/*
 * The link as it is before: a bond that already existed keeps its state on
 * undo (up or down, MTU, and an address only removed if we added it).
 */
static int up_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	const char *addr = ctx->profile->bond.address;
	char master[IF_NAMESIZE];
	bool up;
	int mtu, had = 0;

	json_object_object_add(undo, "link", json_object_new_string(st->subject));
	json_object_object_add(undo, "address", json_object_new_string(addr));
	if (gp_link_info(st->subject, &up, &mtu, master, sizeof(master))) {
		json_object_object_add(undo, "existed", json_object_new_boolean(false));
		return 0; /* bond.create makes it in this run; its undo removes it */
	}
	if (addr[0])
		had = gp_link_has_addr(st->subject, addr);
	if (had < 0)
		return had;
	json_object_object_add(undo, "existed", json_object_new_boolean(true));
	json_object_object_add(undo, "up", json_object_new_boolean(up));
	json_object_object_add(undo, "mtu", json_object_new_int(mtu));
	json_object_object_add(undo, "had_address", json_object_new_boolean(had));
	return 0;
}

static int up_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = gp_link_mtu(st->subject, (int)ctx->profile->bond.mtu);

	if (!rc && ctx->profile->bond.address[0])
		rc = gp_link_addr(st->subject, ctx->profile->bond.address, true);
	if (!rc)
		rc = gp_link_updown(st->subject, true);
	return rc;
}

static void mac_text(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/*
 * A port's partner as the wait shows it, from IEEE 802.1AX port state bits:
 * the actor's Defaulted bit says no LACPDU came (the partner's state is then
 * the kernel's administrative default), Expired that they stopped.
 */
static const char *partner_text(const struct gp_bond_port *p)
{
	if (p->actor_state < 0 || p->partner_state < 0)
		return "unknown";
	if (p->actor_state & 0x40)
		return "none";
	if (p->actor_state & 0x80)
		return "expired";
	if ((p->partner_state & 0x38) == 0x38) /* synchronization, collecting, distributing */
		return "in sync, distributing";
	return p->partner_state & 0x08 ? "in sync" : "answering, not in sync";
}

static const struct gp_bond_port *port_named(const struct gp_bond_state *s, const char *name)
{
	int i;

	for (i = 0; i < s->nports; i++)
		if (!strcmp(s->ports[i].name, name))
			return &s->ports[i];
	return NULL;
}

/*
 * The LACP wait on a terminal (up to 90 s with lacp_rate slow): a line each
 * time a port's aggregator or partner changes, and the seconds on the status
 * line.  last: the state shown before (nports 0 the first time).
 */
void gp_bond_lacp_progress(const struct gp_bond_state *s, struct gp_bond_state *last,
			   const char *bond, unsigned waited, unsigned limit, int nslaves)
{
	const struct gp_bond_port *p, *was;
	char mac[24];
	int i;

	for (i = 0; i < s->nports; i++) {
		p = &s->ports[i];
		was = port_named(last, p->name);
		if (was && was->aggregator == p->aggregator &&
		    !strcmp(partner_text(was), partner_text(p)))
			continue;
		gp_progress_line(GP_TONE_NONE, NULL,
				 "%s: port %s in aggregator %d, partner %s (%u s)", bond, p->name,
				 p->aggregator, partner_text(p), waited);
	}
	*last = *s;
	mac_text(s->partner_mac, mac, sizeof(mac));
	gp_progress("%s: LACP wait %u/%u s, aggregator %d has %d/%d ports, partner %s", bond,
		    waited, limit, s->aggregator, s->num_ports, nslaves, mac);
}

/*
 * A bond whose LACP never formed still looks up: wait, bounded, until every
 * port sits in the active aggregator and a partner answers.
 */
static int up_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	const struct gp_profile *p = ctx->profile;
	unsigned limit = p->bond.lacp_timeout		      ? p->bond.lacp_timeout
			 : !strcmp(p->bond.lacp_rate, "fast") ? 15
							      : 90;
	struct timespec tick = { 0, 200 * 1000 * 1000 };
	struct gp_bond_state s, shown = { .nports = 0 };
	char mac[24];
	unsigned waited;
	int i;

	for (waited = 0; waited <= limit * 5; waited++) {
		if (gp_bond_state_read(st->subject, &s))
			return -EIO;
		if (s.up && (s.opts.mode != GP_BOND_MODE_8023AD ||
			     gp_bond_lacp_formed(&s, p->bond.nslaves)))
			return 0;
		if (s.opts.mode == GP_BOND_MODE_8023AD)
			gp_bond_lacp_progress(&s, &shown, st->subject, waited / 5, limit,
					      p->bond.nslaves);
		nanosleep(&tick, NULL);
	}
	mac_text(s.partner_mac, mac, sizeof(mac));
	gp_err("LACP did not form on '%s' within %u s: active aggregator %d with %d of %d "
	       "ports, partner %s; is the switch side one LAG in LACP mode?",
	       st->subject, limit, s.aggregator, s.num_ports, p->bond.nslaves, mac);
	for (i = 0; i < s.nports; i++)
		gp_err("  port %s: aggregator %d", s.ports[i].name, s.ports[i].aggregator);
	return -ETIMEDOUT;
}

static int up_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *link = json_object_object_get(undo, "link");
	json_object *addr = json_object_object_get(undo, "address");

	json_object *existed = json_object_object_get(undo, "existed");
	json_object *had = json_object_object_get(undo, "had_address");
	json_object *up = json_object_object_get(undo, "up");
	json_object *mtu = json_object_object_get(undo, "mtu");
	const char *name = json_object_get_string(link);
	int rc = 0;

	if (!link || !if_nametoindex(name))
		return 0;
	if (addr && json_object_get_string(addr)[0] && !json_object_get_boolean(had))
		rc = gp_link_addr(name, json_object_get_string(addr), false);
	if (!json_object_get_boolean(existed)) /* ours, or an older journal: down */
		return rc ? rc : gp_link_updown(name, false);
	if (!rc && mtu)
		rc = gp_link_mtu(name, json_object_get_int(mtu));
	if (!rc && up)
		rc = gp_link_updown(name, json_object_get_boolean(up));
	return rc;
}

static bool up_by_hand(const struct gp_step *st, char *how, size_t len)
{
	snprintf(how, len, "ip link set dev %s down", st->subject);
	return true;
}

const struct gp_actuator gp_act_link_up = {
	.kind = GP_S_LINK_UP,
	.precheck = bond_precheck,
	.done = up_done,
	.record = up_record,
	.run = up_run,
	.verify = up_verify,
	.undo = up_undo,
	.by_hand = up_by_hand,
};
