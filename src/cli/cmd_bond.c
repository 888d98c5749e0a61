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

/*
 * The bond's settings and LACP's state as JSON.  The text says them in a
 * sentence of its own (print_text): its state first and only the options
 * its mode uses, wrapped as one line, where JSON's members keep their order.
 */
static void settings_json(const char *name, const struct gp_bond_state *s, bool formed)
{
	char mac[24];

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", s->partner_mac[0],
		 s->partner_mac[1], s->partner_mac[2], s->partner_mac[3], s->partner_mac[4],
		 s->partner_mac[5]);
	gp_print_str("name", NULL, name);
	gp_print_str("mode", NULL, gp_bond_mode_name(s->opts.mode));
	gp_print_int("miimon", NULL, (int)s->opts.miimon);
	gp_print_str("lacp_rate", NULL, GP_BOND_NAME(gp_bond_rates, s->opts.lacp_rate));
	gp_print_str("xmit_hash_policy", NULL,
		     GP_BOND_NAME(gp_bond_hashes, s->opts.xmit_hash_policy));
	gp_print_str("ad_select", NULL, GP_BOND_NAME(gp_bond_selects, s->opts.ad_select));
	gp_print_int("min_links", NULL, (int)s->opts.min_links);
	gp_print_bool("up", NULL, s->up);
	gp_print_int("mtu", NULL, s->mtu);
	gp_print_int("aggregator", NULL, s->aggregator);
	gp_print_int("num_ports", NULL, s->num_ports);
	gp_print_str("partner_mac", NULL, mac);
	gp_print_bool("lacp_formed", NULL, formed);
}

/* The bond's settings, wrapped to 80 columns; the LACP state. */
static void settings_text(const char *name, const struct gp_bond_state *s, bool formed)
{
	char line[512];
	size_t o;

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
}

/* A line a port, said once: its name, state and aggregator; LACP's states JSON's alone. */
static void ports_out(const struct gp_bond_state *s)
{
	int i;

	gp_open_array("ports");
	for (i = 0; i < s->nports; i++) {
		const struct gp_bond_port *p = &s->ports[i];

		gp_open_object(NULL);
		gp_print_str("name", "  %-16s ", p->name);
		gp_print_flag("up", "%-5s ", p->up, "up", "down");
		gp_print_flag("mii_up", "mii %-4s ", p->mii_up == 1, "up", "down");
		gp_print_int("aggregator", "aggregator %lld\n", p->aggregator);
		gp_print_int("actor_state", NULL, p->actor_state);
		gp_print_int("partner_state", NULL, p->partner_state);
		gp_close_object();
	}
	gp_close_array();
}

static void bond_out(const char *name, const struct gp_bond_state *s, bool formed, bool json)
{
	gp_cmd_begin("bond", json);
	if (json)
		settings_json(name, s, formed);
	else
		settings_text(name, s, formed);
	ports_out(s);
	gp_doc_end();
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
	bond_out(name, &s, formed, ctx->json);
	return formed ? GP_EXIT_OK : GP_EXIT_WARN;
}

const struct gp_cmd gp_cmd_bond = {
	.name = "bond",
	.run = do_bond,
	.flags = GP_USE_PROFILE,
	.args = "[NAME]",
	.help = "the bond's live state: mode, ports, aggregator IDs, partner MAC",
};
