/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bond.c: the 802.3ad bond through libnl (netlink), and its live state. */
#ifndef GP_BOND_H
#define GP_BOND_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"

#define GP_BOND_MAX_PORTS 16

/* The bond's options as the kernel encodes them (IFLA_BOND_*). */
struct gp_bond_opts {
	char name[16];
	uint8_t mode; /* 1 active-backup, 2 balance-xor, 4 802.3ad */
	uint32_t miimon;
	uint8_t lacp_rate;	  /* 0 slow, 1 fast */
	uint8_t xmit_hash_policy; /* 0 layer2, 1 layer3+4, 2 layer2+3, ... */
	uint8_t ad_select;	  /* 0 stable, 1 bandwidth, 2 count */
	uint32_t min_links;
};

struct gp_bond_port {
	char name[16];
	bool up;
	int mii_up;	/* -1 unknown */
	int aggregator; /* -1 unknown */
	int actor_state, partner_state;
};

struct gp_bond_state {
	bool exists, is_bond, up;
	struct gp_bond_opts opts;
	int mtu;
	int aggregator; /* the active one */
	int num_ports;
	uint8_t partner_mac[6];
	struct gp_bond_port ports[GP_BOND_MAX_PORTS];
	int nports;
};

int gp_bond_opts_from_profile(const struct gp_profile *p, struct gp_bond_opts *o);
const char *gp_bond_mode_name(int mode);

struct nl_msg;
struct nl_msg *gp_bond_newlink_msg(const struct gp_bond_opts *o);

int gp_bond_load_module(void);
int gp_bond_create(const struct gp_bond_opts *o);
int gp_link_delete(const char *name);
int gp_link_updown(const char *name, bool up);
int gp_link_master(const char *name, const char *master);
int gp_link_mtu(const char *name, int mtu);
int gp_link_addr(const char *name, const char *cidr, bool add);
int gp_link_has_addr(const char *name, const char *cidr);
int gp_bond_state_read(const char *name, struct gp_bond_state *st);
int gp_link_info(const char *name, bool *up, int *mtu, char *master, size_t len);
bool gp_bond_lacp_formed(const struct gp_bond_state *st, int nslaves);
void gp_bond_lacp_progress(const struct gp_bond_state *s, struct gp_bond_state *last,
			   const char *bond, unsigned waited, unsigned limit, int nslaves);

#endif
