// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: the network file renderers (persist.bond) for every owner.  The
 * input's first line names the host's first RoCE port (a name from sysfs or
 * a snapshot), the rest is a profile.  What is rendered holds no control
 * character and no name the interface-name rule refuses.
 */
#include "core/hostq.h"
#include "fuzz.h"
#include "core/netconf.h"
#include "core/profile.h"

static const char *const owners[] = { "networkd", "networkmanager", "netplan", "ifupdown" };

static void check_text(const char *t)
{
	for (; *t; t++)
		if ((unsigned char)*t < 0x20 && *t != '\n')
			abort();
}

static void render_all(struct gp_host *h, struct gp_profile *p)
{
	struct gp_netconf nc;
	size_t o;
	int i, rc;

	for (o = 0; o < sizeof(owners) / sizeof(owners[0]); o++) {
		gp_strlcpy(p->bond.persist, owners[o], sizeof(p->bond.persist));
		rc = gp_netconf_render(h, p, &nc);
		for (i = 0; !rc && i < nc.n; i++) {
			if (!nc.files[i].text)
				abort();
			check_text(nc.files[i].text);
		}
		/* rendered: every name in it passed the rule */
		if (!rc && !gp_ifname_valid(p->bond.name))
			abort();
		gp_netconf_release(&nc);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *nl = strchr(text, '\n');
	char saved[GP_NAME_LEN];
	struct gp_profile p;
	struct gp_host *h;
	int k;

	setenv("GPUPROV_TEMPLATES", "templates", 1);
	if (!nl || gp_profile_parse_string("fuzz.ini", nl + 1, &p) || !p.has_bond) {
		free(text);
		return 0;
	}
	*nl = '\0';
	h = (struct gp_host *)fuzz_host(NULL);
	k = gp_host_iface(h, "0000:01:00.0");
	if (k < 0)
		abort();
	gp_strlcpy(saved, h->ifaces[k].name, sizeof(saved));
	gp_strlcpy(h->ifaces[k].name, text, sizeof(h->ifaces[k].name));
	render_all(h, &p);
	gp_strlcpy(h->ifaces[k].name, saved, sizeof(h->ifaces[k].name));
	free(text);
	return 0;
}
