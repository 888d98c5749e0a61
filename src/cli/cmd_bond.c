// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov bond [NAME]: the bond's live state, read through netlink: mode,
 * options, ports with their aggregator IDs, the partner's MAC, and whether
 * LACP formed.  NAME defaults to the profile's [bond] name.
 */
#include <stdio.h>
#include <string.h>

#include "act/bond.h"
#include "core/bondopt.h"
#include "cli/cmd.h"
#include "cli/out.h"

static void print_json(const char *name, const struct gp_bond_state *s, bool formed)
{
	json_object *doc = gp_json_doc("bond"), *ports = json_object_new_array();
	char mac[24];
	int i;

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", s->partner_mac[0],
		 s->partner_mac[1], s->partner_mac[2], s->partner_mac[3], s->partner_mac[4],
		 s->partner_mac[5]);
	json_object_object_add(doc, "name", json_object_new_string(name));
	json_object_object_add(doc, "mode",
			       json_object_new_string(gp_bond_mode_name(s->opts.mode)));
	json_object_object_add(doc, "miimon", json_object_new_int((int)s->opts.miimon));
	json_object_object_add(
		doc, "lacp_rate",
		json_object_new_string(GP_BOND_NAME(gp_bond_rates, s->opts.lacp_rate)));
	json_object_object_add(
		doc, "xmit_hash_policy",
		json_object_new_string(GP_BOND_NAME(gp_bond_hashes, s->opts.xmit_hash_policy)));
	json_object_object_add(
		doc, "ad_select",
		json_object_new_string(GP_BOND_NAME(gp_bond_selects, s->opts.ad_select)));
	json_object_object_add(doc, "min_links", json_object_new_int((int)s->opts.min_links));
	json_object_object_add(doc, "up", json_object_new_boolean(s->up));
	json_object_object_add(doc, "mtu", json_object_new_int(s->mtu));
	json_object_object_add(doc, "aggregator", json_object_new_int(s->aggregator));
	json_object_object_add(doc, "num_ports", json_object_new_int(s->num_ports));
	json_object_object_add(doc, "partner_mac", json_object_new_string(mac));
	json_object_object_add(doc, "lacp_formed", json_object_new_boolean(formed));
	for (i = 0; i < s->nports; i++) {
		const struct gp_bond_port *p = &s->ports[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(p->name));
		json_object_object_add(o, "up", json_object_new_boolean(p->up));
		json_object_object_add(o, "mii_up", json_object_new_boolean(p->mii_up == 1));
		json_object_object_add(o, "aggregator", json_object_new_int(p->aggregator));
		json_object_object_add(o, "actor_state", json_object_new_int(p->actor_state));
		json_object_object_add(o, "partner_state", json_object_new_int(p->partner_state));
		json_object_array_add(ports, o);
	}
	json_object_object_add(doc, "ports", ports);
	gp_json_print(doc);
}

/* The bond's settings, wrapped to 80 columns; the LACP state; a line per port. */
static void print_text(const char *name, const struct gp_bond_state *s, bool formed)
{
	char line[512];
	size_t o;
	int i;

	o = (size_t)snprintf(line, sizeof(line), "%s: %s, %s, mtu %d, miimon %u", gp_tv(name),
			     gp_bond_mode_name(s->opts.mode), s->up ? "up" : "down", s->mtu,
			     s->opts.miimon);
	if (s->opts.mode == GP_BOND_MODE_8023AD && o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", lacp_rate %s, ad_select %s",
				      GP_BOND_NAME(gp_bond_rates, s->opts.lacp_rate),
				      GP_BOND_NAME(gp_bond_selects, s->opts.ad_select));
	if ((s->opts.mode == GP_BOND_MODE_XOR || s->opts.mode == GP_BOND_MODE_8023AD) &&
	    o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", xmit_hash_policy %s",
				      GP_BOND_NAME(gp_bond_hashes, s->opts.xmit_hash_policy));
	if (o < sizeof(line))
		snprintf(line + o, sizeof(line) - o, ", min_links %u", s->opts.min_links);
	gp_wrap(line, 0, 2);
	if (s->opts.mode == GP_BOND_MODE_8023AD)
		gp_wrapf(0, 2,
			 "LACP: %s; active aggregator %d with %d port%s; partner "
			 "%02x:%02x:%02x:%02x:%02x:%02x",
			 formed ? "formed" : "NOT formed", s->aggregator, s->num_ports,
			 s->num_ports == 1 ? "" : "s", s->partner_mac[0], s->partner_mac[1],
			 s->partner_mac[2], s->partner_mac[3], s->partner_mac[4],
			 s->partner_mac[5]);
	for (i = 0; i < s->nports; i++)
		printf("  %-16s %-5s mii %-4s aggregator %d\n", gp_tv(s->ports[i].name),
		       s->ports[i].up ? "up" : "down", s->ports[i].mii_up == 1 ? "up" : "down",
		       s->ports[i].aggregator);
}

static int do_bond(struct gp_ctx *ctx)
{
	const char *name = ctx->argc ? ctx->argv[0] : NULL;
	struct gp_bond_state s;
	bool formed;

	if (ctx->argc > 1) {
		gp_err("usage: gpuprov bond [NAME]");
		return GP_EXIT_INPUT;
	}
	if (strcmp(ctx->root, "/")) {
		gp_err("'bond' reads the live kernel through netlink: --root is not allowed");
		return GP_EXIT_INPUT;
	}
	if (!name && ctx->profile && ctx->profile->has_bond)
		name = ctx->profile->bond.name;
	if (!name) {
		gp_err("which bond? gpuprov bond NAME, or a profile with [bond]");
		return GP_EXIT_INPUT;
	}
	if (gp_bond_state_read(name, &s))
		return GP_EXIT_HOST;
	if (!s.exists || !s.is_bond) {
		gp_err("'%s' is %s", name, s.exists ? "not a bond" : "not there");
		return GP_EXIT_FAIL;
	}
	formed = s.opts.mode != GP_BOND_MODE_8023AD || gp_bond_lacp_formed(&s, s.nports);
	if (ctx->json)
		print_json(name, &s, formed);
	else
		print_text(name, &s, formed);
	return formed ? GP_EXIT_OK : GP_EXIT_WARN;
}

const struct gp_cmd gp_cmd_bond = {
	.name = "bond",
	.run = do_bond,
	.flags = GP_USE_PROFILE,
	.args = "[NAME]",
	.help = "the bond's live state: mode, ports, aggregator IDs, partner MAC",
};
