// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report as a change request: what the change takes from whom (impact),
 * how long it takes, what to check afterwards and when to roll back.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli/out.h"
#include "cli/report.h"
#include "cli/report_doc.h"
#include "core/checks.h"
#include "core/hostq.h"
#include "core/nvlink.h"
#include "core/topo.h"
#include "core/pcicfg.h"
#include "core/verify.h"
#include "shared/rootfs.h"

static const char *risk(const struct doc *o, const char *word)
{
	static char buf[2][64];
	static unsigned next;
	char *b = buf[next++ % 2];

	snprintf(b, sizeof(buf[0]), o->html ? "<span class=\"risk\">%s</span>" : "**%s**", word);
	return b;
}

/* Who holds device i now: its processes and the profile's VM when it runs. */
static void holders_of(const struct gp_dossier *d, int i, char *buf, size_t len)
{
	const struct gp_host *h = d->h;
	size_t k;

	buf[0] = '\0';
	for (k = 0; k < h->nholders; k++) {
		const struct gp_holder *x = &h->holders[k];

		if (x->dev != i && !(x->dev < 0 && h->devs[i].role == GP_ROLE_GPU))
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s (pid %d) on %s",
			 buf[0] ? "; " : "", x->comm, x->pid, x->path);
	}
	if (d->p->has_vm && h->vm_running == 1)
		snprintf(buf + strlen(buf), len - strlen(buf), "%sthe VM %s, running",
			 buf[0] ? "; " : "", d->p->vm.name);
}

static void impact_devices(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;
	char who[1024], now[96], after[96];
	const char *cells[5];
	size_t i;
	int n = 0, dev;

	heading(o, "Devices that change driver");
	for (i = 0; i < d->plan->n; i++) {
		const struct gp_step *st = &d->plan->steps[i];

		if (st->kind != GP_S_DEVICE_BIND || (dev = gp_host_find(h, st->subject)) < 0)
			continue;
		if (!n++)
			table(o, "impact", "Device|Name|Driver now|After|Who loses it");
		holders_of(d, dev, who, sizeof(who));
		snprintf(now, sizeof(now), "%s",
			 h->devs[dev].driver[0] ? h->devs[dev].driver : "no driver");
		snprintf(after, sizeof(after), "%s%s%s", st->target, d->p->has_vm ? ", for " : "",
			 d->p->has_vm ? d->p->vm.name : "");
		cells[0] = E(o, st->subject);
		cells[1] = E(o, d->names[dev][0] ? d->names[dev] : "not in pci.ids");
		cells[2] = E(o, now);
		cells[3] = E(o, after);
		cells[4] =
			who[0] ? E(o, who) : "nothing holds it now (processes read with the host)";
		row(o, who[0] ? "class=\"WARN\"" : NULL, cells);
	}
	if (n)
		table_end(o);
	else
		para(o, "No device changes driver.");
}

/* What a port loses when it joins the bond: its own addresses, routes and MTU. */
static void impact_ports(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;
	char was[300];
	size_t i;
	int n = 0, k;

	heading(o, "Network ports that flap");
	for (i = 0; i < d->plan->n; i++) {
		const struct gp_step *st = &d->plan->steps[i];
		const struct gp_iface *f;

		if (st->kind != GP_S_BOND_ENSLAVE)
			continue;
		k = gp_host_iface(h, st->subject);
		f = k >= 0 ? &h->ifaces[k] : NULL;
		snprintf(was, sizeof(was), "address %s, %d route%s, MTU %d, %d TCP connection%s",
			 f && f->addr[0] ? f->addr : "none", f ? f->routes : 0,
			 f && f->routes == 1 ? "" : "s", f ? f->mtu : 0, f ? f->tcp : 0,
			 f && f->tcp == 1 ? "" : "s");
		if (!n++)
			list_begin(o, "ports");
		item(o,
		     "%s: goes down and up as it joins %s, and loses its own configuration (%s); "
		     "%s carries the address from then on",
		     E(o, st->subject), E(o, d->p->bond.name), E(o, was), E(o, d->p->bond.name));
	}
	if (n)
		list_end(o);
	else
		para(o, "No step touches a network port.");
}

/* The SSH path: bond.mgmt's verdict, or where the default route goes. */
static void impact_mgmt(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;
	const char *route = NULL;
	size_t i;

	heading(o, "The management (SSH) path");
	for (i = 0; i < d->r->n; i++) {
		const struct gp_finding *f = &d->r->items[i];

		if (strcmp(f->id, "bond.mgmt") || f->severity == GP_OK)
			continue;
		para(o, "%s: %s %s", risk(o, "AT RISK"), E(o, f->subject), E(o, f->message));
		return;
	}
	for (i = 0; i < h->nifaces && !route; i++)
		if (h->ifaces[i].default_route)
			route = h->ifaces[i].name;
	if (!d->p->has_bond)
		para(o, "Not at risk: no step touches the network%s%s.",
		     route ? "; the default route is on " : "", route ? E(o, route) : "");
	else
		para(o,
		     "Not at risk by what was read: no port of %s carries the default route or a "
		     "connection (bond.mgmt)%s%s. Keep a console open all the same.",
		     E(o, d->p->bond.name), route ? "; the default route is on " : "",
		     route ? E(o, route) : "");
}

static void impact_reboot(struct doc *o, const struct gp_dossier *d)
{
	char ids[400] = "";
	size_t i;

	heading(o, "Reboot");
	/* a BIOS setting or the kernel's command line take a reboot; the steps never do */
	for (i = 0; i < d->r->n; i++) {
		const struct gp_finding *f = &d->r->items[i];

		if (f->severity == GP_OK ||
		    (!strstr(f->hint, "BIOS") && !strstr(f->hint, "command line")))
			continue;
		if (!strstr(ids, f->id))
			snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%s",
				 ids[0] ? ", " : "", f->id);
	}
	if (ids[0])
		para(o,
		     "%s before apply: the BIOS or the kernel command line must change first (%s); "
		     "the steps themselves need none.",
		     risk(o, "Reboot needed"), E(o, ids));
	else
		para(o, "No reboot: every step takes effect at once; the files persist.vfio and "
			"persist.bond write make the next boot the same.");
}

void gp_report_impact(struct doc *o, const struct gp_dossier *d)
{
	section(o, "impact", "Impact");
	impact_devices(o, d);
	impact_ports(o, d);
	impact_mgmt(o, d);
	impact_reboot(o, d);
}

/* Seconds a step takes, usually and at worst (its waits: unbind, LACP). */
static void step_seconds(const struct gp_dossier *d, enum gp_step_kind k, unsigned *usual,
			 unsigned *worst)
{
	unsigned lacp = d->p->bond.lacp_timeout			? d->p->bond.lacp_timeout
			: !strcmp(d->p->bond.lacp_rate, "fast") ? 15
								: 90;

	*usual = *worst = 1;
	if (k == GP_S_DEVICE_UNBIND) {
		*usual = 2;
		*worst = d->unbind_timeout + 1;
	} else if (k == GP_S_LINK_UP) {
		*usual = 5;
		*worst = lacp + 1;
	} else if (k == GP_S_DOMAIN_DEFINE || k == GP_S_BOND_ENSLAVE) {
		*usual = *worst = 2;
	} else if (k == GP_S_HUGEPAGES_RESERVE) {
		/* the kernel compacts memory to find each page: 1 GiB pages take longest */
		*usual = 5;
		*worst = 60;
	}
}

void gp_report_duration(struct doc *o, const struct gp_dossier *d)
{
	unsigned usual = 0, worst = 0, u, w;
	size_t i;

	section(o, "duration", "Expected duration");
	for (i = 0; i < d->plan->n; i++) {
		step_seconds(d, d->plan->steps[i].kind, &u, &w);
		usual += u;
		worst += w;
	}
	para(o,
	     "apply: about %u s for the %zu step%s, at most %u s (an unbind waits up to %u s for "
	     "its device to be let go, the bond up to its LACP timeout for a partner); a failed "
	     "step is undone in about as long. With the VM's start and the checks below, plan a "
	     "window of %u minutes.",
	     usual, d->plan->n, d->plan->n == 1 ? "" : "s", worst, d->unbind_timeout,
	     (worst + 2 * usual + 15 * 60 + 59) / 60);
}

/* The GPU pairs' ceilings, for what verify in the guest should come near. */
static void expected_pairs(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;
	struct gp_hop_words w = { .n = 0 };
	int *g = gp_xcalloc(h->ndevs + 1, sizeof(*g)), n = 0, i, j;
	size_t k;

	for (k = 0; k < h->ndevs; k++)
		if (h->devs[k].role == GP_ROLE_GPU)
			g[n++] = (int)k;
	for (i = 0; i < n && i < 8; i++)
		for (j = i + 1; j < n && j < 8; j++) {
			struct gp_hop s = gp_topo_slowest(h, g[i], g[j]);

			if (!s.width)
				continue;
			gp_hop_words(&w, &s);
			item(o,
			     "GPU%d-GPU%d (%s): P2P read and write, read-back ok; at least %.1f "
			     "GB/s "
			     "one way (verify's threshold, %.0f%% of the %s GB/s ceiling of %s), "
			     "below it verify exits 1",
			     i, j, gp_path_name(gp_topo_classify(h, g[i], g[j])),
			     GP_VERIFY_WARN_FRACTION * gp_link_bandwidth(s.speed, s.width),
			     GP_VERIFY_WARN_FRACTION * 100, w.gbs, w.link);
		}
	free(g);
}

void gp_report_verification(struct doc *o, const struct gp_dossier *d)
{
	const char *prof = shq(d->profile_path ? d->profile_path : "PROFILE");

	section(o, "verification", "Verification after the change");
	para(o, "On the host, as root:");
	command(o,
		"gpuprov -p %s plan    # nothing to do: exit 0\n"
		"gpuprov -p %s check   # no FAIL\n",
		prof, prof);
	if (d->p->has_bond)
		command(o,
			"gpuprov bond %s   # every port in the active aggregator, a partner MAC\n",
			shq(d->p->bond.name));
	if (!d->p->has_vm) {
		para(o, "The profile has no [vm] section: no VM to start.");
		return;
	}
	command(o, "virsh -c %s start %s\n", shq(d->vm ? d->vm->uri : "qemu:///system"),
		shq(d->p->vm.name));
	para(o, "Inside the VM, with gpuprov installed there:");
	command(o, "gpuprov verify        # exit 0: every GPU pair ok\n");
	para(o, "What verify should report: %u GPU%s; for each pair:", (unsigned)d->map.ngpus,
	     d->map.ngpus == 1 ? "" : "s");
	list_begin(o, "expected");
	expected_pairs(o, d);
	list_end(o);
}

static void rollback_criteria(struct doc *o, const struct gp_dossier *d)
{
	heading(o, "Roll back when");
	list_begin(o, "criteria");
	item(o, "apply exits 6 (it undid every step itself: nothing to roll back) or 7 (an undo "
		"failed: do what its messages say by hand, then gpuprov rollback RUN-ID)");
	item(o, "a check above fails: plan has steps left, check a FAIL%s",
	     d->p->has_bond ? ", the bond has no partner or a port outside the aggregator" : "");
	if (d->p->has_bond)
		item(o, "the management (SSH) path is lost: from the console");
	if (d->p->has_vm)
		item(o, "the VM does not start, or verify in it exits 2 (P2P missing, a read-back "
			"mismatch) or 3 (a GPU missing, no driver)");
	list_end(o);
}

void gp_report_rollback(struct doc *o, const struct gp_dossier *d)
{
	size_t i;
	int n = 0;

	section(o, "rollback", "Rollback");
	para(o, "After apply, as root on this host:");
	if (o->html)
		out(o, "<pre class=\"cmd\">gpuprov rollback</pre>\n");
	else
		fence(o, "sh", "gpuprov rollback\n");
	para(o, "It undoes the last run left to undo, in reverse order, from its journal in "
		"/var/lib/gpuprov/journal; gpuprov rollback --list names every run, and "
		"gpuprov rollback RUN-ID undoes the one apply named.");
	for (i = 0; i < d->plan->n; i++)
		if (!gp_step_kinds[d->plan->steps[i].kind].reversible) {
			if (!n++)
				para(o, "Not undone by it:");
			para(o, "%s %s", E(o, gp_step_name(d->plan->steps[i].kind)),
			     E(o, d->plan->steps[i].subject));
		}
	rollback_criteria(o, d);
}
