/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_NETCONF_H
#define GP_NETCONF_H

#include "core/model.h"

#define GP_NETCONF_MAX 20
/* gpuprov's systemd-networkd files: 60-gpuprov-NAME.network and .netdev */
#define GP_NETWORKD_PREFIX "60-gpuprov-"

struct gp_netconf {
	char owner[16];
	struct {
		char path[300];
		char *text;
		int mode;
	} files[GP_NETCONF_MAX];
	int n;
};

const char *gp_netconf_owner(const struct gp_host *h, const struct gp_profile *p);
const struct gp_netfile *gp_networkd_first(const struct gp_host *h, const char *ifname,
					   const char *mac);
/* The bond's first persistence file into path (empty when none is written): path */
const char *gp_bond_persist_path(const struct gp_profile *p, const struct gp_host *h, char *path,
				 size_t len);
int gp_netconf_render(const struct gp_host *h, const struct gp_profile *p, struct gp_netconf *nc);
/* The same, saying nothing of a bad name: the host reads the files it would write. */
int gp_netconf_quiet(const struct gp_host *h, const struct gp_profile *p, struct gp_netconf *nc);
void gp_netconf_release(struct gp_netconf *nc);

#endif
