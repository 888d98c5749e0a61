// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * server.model: whether the profile is for this server at all, said first.
 * A profile of another machine otherwise reads as a host in trouble ("0
 * GPUs match... check that every card is seated").  The profile's
 * [server] product is a shell pattern for the DMI product name
 * (/sys/class/dmi/id/product_name), compared without regard to case; a
 * profile without one (a generic profile) is not judged.
 */
#include <fnmatch.h>

#include "core/check_server.h"

void gp_check_server(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	if (!p->product[0])
		return;
	if (!h->product[0]) {
		gp_report_add(r, GP_F_SERVER_MODEL, GP_WARN, "host",
			      "read it with 'dmidecode -s system-product-name' and compare it with "
			      "the profile's [server] product",
			      "cannot read this host's DMI product name (/sys/class/dmi/id/"
			      "product_name): whether the profile (for '%s') is for this server is "
			      "unknown",
			      p->product);
		return;
	}
	if (!fnmatch(p->product, h->product, FNM_CASEFOLD)) {
		gp_report_add(r, GP_F_SERVER_MODEL, GP_OK, "host", NULL,
			      "this host is a '%s', as the profile's product '%s' says", h->product,
			      p->product);
		return;
	}
	gp_report_add(r, GP_F_SERVER_MODEL, GP_FAIL, "host",
		      "use this server's own profile ('gpuprov profile discover' writes a "
		      "skeleton); the findings below compare this host with another server's slots",
		      "this host is a '%s' (DMI product name), the profile is for '%s' (product "
		      "'%s')",
		      h->product, p->model[0] ? p->model : p->product, p->product);
}
