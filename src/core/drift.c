// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Drift: what changed between a host as it was verified (a snapshot, the
 * baseline) and the host now.  A pure function of the two hosts and the
 * profile: devices are matched by address first, then by identity (IDs and
 * subsystem IDs), so that a card moved to another slot reads as moved, not
 * as one missing and one added.  Each drift.* id is reported once as ok when
 * nothing of its kind changed, so the report shows what was compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/drift.h"
#include "core/hostq.h"
#include "shared/util.h"

/* Each kind, and what its ok finding says. */
static const struct {
	enum gp_fid id;
	const char *ok;
} drift_kinds[] = {
	{ GP_F_DRIFT_ADDED, "no device the baseline lacks" },
	{ GP_F_DRIFT_MISSING, "every device of the baseline is present" },
	{ GP_F_DRIFT_MOVED, "every device at its baseline address, slot and NUMA node" },
	{ GP_F_DRIFT_LINK, "no link trained lower than in the baseline" },
	{ GP_F_DRIFT_ACS, "the ACS control of every bridge as in the baseline" },
	{ GP_F_DRIFT_IOMMU_GROUP, "every IOMMU group holds what it held in the baseline" },
	{ GP_F_DRIFT_BIOS, "the BIOS version of the baseline" },
	{ GP_F_DRIFT_CMDLINE, "the kernel command line of the baseline" },
	{ GP_F_DRIFT_DRIVER, "GPUs, their group peers and the bond ports keep their drivers" },
};

struct drift {
	const struct gp_host *b; /* baseline */
	const struct gp_host *h; /* now */
	const struct gp_profile *p;
	int *match;  /* baseline index -> live index, -1 when none */
	bool *taken; /* live index already matched */
	bool *port;  /* baseline index: a port of the profile's bond */
	struct gp_report *r;
};

/* The same kind of device: enough at the same address (a reseated card). */
static bool same_kind(const struct gp_dev *a, const struct gp_dev *b)
{
	return a->vendor == b->vendor && a->device == b->device && a->class == b->class;
}

/* The same card elsewhere: subsystem IDs too, so that one GPU of two is not taken for another. */
static bool same_ids(const struct gp_dev *a, const struct gp_dev *b)
{
	return same_kind(a, b) && a->svendor == b->svendor && a->sdevice == b->sdevice;
}

/*
 * An ancestor bridge of a GPU: its ACS and its link decide the GPUs' paths.
 * The loader refuses bus links that loop; the walk still stops after as many
 * steps as there are devices, so that no model can make it go round forever.
 */
static bool above_gpu(const struct gp_host *h, int dev)
{
	size_t i, n;
	int k;

	for (i = 0; i < h->ndevs; i++) {
		if (h->devs[i].role != GP_ROLE_GPU)
			continue;
		for (k = h->devs[i].parent, n = 0; k >= 0 && n < h->ndevs;
		     k = h->devs[k].parent, n++)
			if (k == dev)
				return true;
	}
	return false;
}

/* What passthrough depends on: GPUs, their group peers, bond ports, bridges above GPUs. */
static bool important(const struct drift *d, int bi)
{
	const struct gp_dev *x = &d->b->devs[bi];

	return x->role == GP_ROLE_GPU || x->with_gpu || d->port[bi] || above_gpu(d->b, bi);
}

static enum gp_severity sev_of(const struct drift *d, int bi)
{
	return important(d, bi) ? GP_FAIL : GP_WARN;
}

static void mark_ports(struct drift *d)
{
	int i, f;

	if (!d->p || !d->p->has_bond)
		return;
	for (i = 0; i < d->p->bond.nslaves; i++) {
		f = gp_host_iface(d->b, d->p->bond.slaves[i]);
		if (f >= 0 && d->b->ifaces[f].dev >= 0)
			d->port[d->b->ifaces[f].dev] = true;
	}
}

/* Same address and same IDs first; then the same IDs at an address the baseline lacks. */
static void match_devices(struct drift *d)
{
	size_t i, j;
	int k;

	for (i = 0; i < d->b->ndevs; i++) {
		k = gp_host_find(d->h, d->b->devs[i].bdf);
		d->match[i] = k >= 0 && same_kind(&d->b->devs[i], &d->h->devs[k]) ? k : -1;
		if (k >= 0 && d->match[i] == k)
			d->taken[k] = true;
	}
	for (i = 0; i < d->b->ndevs; i++) {
		if (d->match[i] >= 0)
			continue;
		for (j = 0; j < d->h->ndevs; j++) {
			if (d->taken[j] || gp_host_find(d->b, d->h->devs[j].bdf) >= 0 ||
			    !same_ids(&d->b->devs[i], &d->h->devs[j]))
				continue;
			d->match[i] = (int)j;
			d->taken[j] = true;
			break;
		}
	}
}

static void describe(const struct gp_dev *x, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x (class %04x%s%s)", x->vendor, x->device, x->class,
		 x->slot[0] ? ", slot " : "", x->slot);
}

static void report_presence(struct drift *d)
{
	char what[96];
	size_t i;

	for (i = 0; i < d->b->ndevs; i++) {
		if (d->match[i] >= 0)
			continue;
		describe(&d->b->devs[i], what, sizeof(what));
		gp_report_add(d->r, GP_F_DRIFT_MISSING, sev_of(d, (int)i), d->b->devs[i].bdf,
			      "reseat the card or check the slot and its riser; a BIOS setting "
			      "may have disabled the slot",
			      "%s%s is in the baseline but not on the host",
			      d->b->devs[i].role == GP_ROLE_GPU ? "GPU " : "", what);
	}
	for (i = 0; i < d->h->ndevs; i++) {
		if (d->taken[i])
			continue;
		describe(&d->h->devs[i], what, sizeof(what));
		gp_report_add(d->r, GP_F_DRIFT_ADDED, GP_WARN, d->h->devs[i].bdf,
			      "take a new snapshot once the host is verified with it",
			      "%s is on the host but not in the baseline", what);
	}
}

static void report_moved(struct drift *d, int bi)
{
	const struct gp_dev *x = &d->b->devs[bi], *y = &d->h->devs[d->match[bi]];
	const char *hint = "put the card back where it was verified, or verify the host "
			   "again and take a new snapshot";
	enum gp_severity sev = sev_of(d, bi);

	if (strcmp(x->bdf, y->bdf))
		gp_report_add(d->r, GP_F_DRIFT_MOVED, sev, y->bdf, hint,
			      "was %s in the baseline (slot %s, NUMA node %d), now slot %s, "
			      "NUMA node %d",
			      x->bdf, x->slot[0] ? x->slot : "none", x->numa_node,
			      y->slot[0] ? y->slot : "none", y->numa_node);
	else if (strcmp(x->slot, y->slot))
		gp_report_add(d->r, GP_F_DRIFT_MOVED, sev, y->bdf, hint,
			      "physical slot %s in the baseline, now %s",
			      x->slot[0] ? x->slot : "none", y->slot[0] ? y->slot : "none");
	else if (x->numa_node != y->numa_node)
		gp_report_add(d->r, GP_F_DRIFT_MOVED, sev, y->bdf, hint,
			      "NUMA node %d in the baseline, now %d", x->numa_node, y->numa_node);
}

static void report_link(struct drift *d, int bi)
{
	const struct gp_link *x = &d->b->devs[bi].link, *y = &d->h->devs[d->match[bi]].link;
	const char *bdf = d->h->devs[d->match[bi]].bdf;

	if (y->width < x->width || y->max_width < x->max_width || y->max_speed < x->max_speed)
		gp_report_add(d->r, GP_F_DRIFT_LINK, sev_of(d, bi), bdf,
			      "reseat the card, check the riser and the slot's BIOS settings",
			      "link %g GT/s x%d (of %g GT/s x%d) in the baseline, now %g GT/s x%d "
			      "(of %g GT/s x%d)",
			      x->speed, x->width, x->max_speed, x->max_width, y->speed, y->width,
			      y->max_speed, y->max_width);
	else if (y->speed < x->speed)
		gp_report_add(d->r, GP_F_DRIFT_LINK, GP_WARN, bdf,
			      "GPUs lower the link speed when idle: check again under load; "
			      "otherwise check the BIOS's PCIe speed setting",
			      "link trained at %g GT/s, %g GT/s in the baseline", y->speed,
			      x->speed);
}

static void report_acs(struct drift *d, int bi)
{
	const struct gp_dev *x = &d->b->devs[bi], *y = &d->h->devs[d->match[bi]];

	if (x->has_acs == y->has_acs && (!x->has_acs || x->acs_ctrl == y->acs_ctrl))
		return;
	gp_report_add(d->r, GP_F_DRIFT_ACS, above_gpu(d->b, bi) ? GP_FAIL : GP_WARN, y->bdf,
		      "a BIOS update or reset may have changed the ACS setting: set it as it "
		      "was when the host was verified",
		      "ACS control %s%04x in the baseline, now %s%04x", x->has_acs ? "" : "(none) ",
		      x->acs_ctrl, y->has_acs ? "" : "(none) ", y->acs_ctrl);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The addresses of dev's IOMMU group, blank-separated ("" when it has none),
 * sorted; map (baseline only) names a moved device by its address now.
 */
static void group_of(const struct drift *d, const struct gp_host *h, int dev, const int *map,
		     char *buf, size_t len)
{
	const char *bdf[64];
	size_t i, n = 0, k = 0;

	buf[0] = '\0';
	if (h->devs[dev].iommu_group < 0)
		return;
	for (i = 0; i < h->ndevs && k < sizeof(bdf) / sizeof(bdf[0]); i++)
		if (h->devs[i].iommu_group == h->devs[dev].iommu_group)
			bdf[k++] = map && map[i] >= 0 ? d->h->devs[map[i]].bdf : h->devs[i].bdf;
	qsort(bdf, k, sizeof(bdf[0]), cmp_str);
	for (i = 0; i < k && n + GP_BDF_LEN < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", bdf[i]);
}

/* Group membership, by address: group numbers change with boot order. */
static void report_group(struct drift *d, int bi, bool *seen)
{
	char was[512], now[512];
	int li = d->match[bi];
	size_t i;

	if (seen[li])
		return;
	group_of(d, d->b, bi, d->match, was, sizeof(was));
	group_of(d, d->h, li, NULL, now, sizeof(now));
	if (!strcmp(was, now))
		return;
	for (i = 0; i < d->h->ndevs; i++) /* one finding per group */
		if (d->h->devs[li].iommu_group >= 0 &&
		    d->h->devs[i].iommu_group == d->h->devs[li].iommu_group)
			seen[i] = true;
	seen[li] = true;
	gp_report_add(d->r, GP_F_DRIFT_IOMMU_GROUP, sev_of(d, bi), d->h->devs[li].bdf,
		      "ACS, the IOMMU setting or a moved card changed the groups: passthrough "
		      "needs every endpoint of a group",
		      "IOMMU group [%s] in the baseline, now [%s]", was[0] ? was : "none",
		      now[0] ? now : "none");
}

static void report_driver(struct drift *d, int bi)
{
	const struct gp_dev *x = &d->b->devs[bi], *y = &d->h->devs[d->match[bi]];

	if (!strcmp(x->driver, y->driver) ||
	    !(x->role == GP_ROLE_GPU || x->with_gpu || d->port[bi]))
		return;
	gp_report_add(d->r, GP_F_DRIFT_DRIVER, GP_FAIL, y->bdf,
		      "see 'gpuprov plan': a driver update or a missing persistence may have "
		      "taken the device back",
		      "%s bound to %s in the baseline, now %s",
		      x->role == GP_ROLE_GPU ? "GPU"
		      : d->port[bi]	     ? "bond port"
					     : "group peer",
		      x->driver[0] ? x->driver : "no driver", y->driver[0] ? y->driver : "none");
}

static void report_devices(struct drift *d)
{
	bool *seen = gp_xcalloc(d->h->ndevs + 1, sizeof(*seen));
	size_t i;

	for (i = 0; i < d->b->ndevs; i++) {
		if (d->match[i] < 0)
			continue;
		report_moved(d, (int)i);
		report_link(d, (int)i);
		report_acs(d, (int)i);
		report_group(d, (int)i, seen);
		report_driver(d, (int)i);
	}
	free(seen);
}

static void report_bios(struct drift *d)
{
	if (!strcmp(d->b->bios_version, d->h->bios_version))
		return;
	gp_report_add(d->r, GP_F_DRIFT_BIOS, GP_WARN, "host",
		      "a BIOS update can reset IOMMU, ACS, Above 4G decoding and slot settings: "
		      "check them, then take a new snapshot",
		      "BIOS version '%s' in the baseline, now '%s'", d->b->bios_version,
		      d->h->bios_version);
}

/* Parameters that decide IOMMU, binding, ACS or memory for the VM. */
static bool cmdline_matters(const char *word)
{
	static const char *const prefix[] = {
		"iommu",     "amd_iommu",	   "intel_iommu",
		"vfio",	     "pcie_acs_override",  "pci=",
		"hugepages", "hugepagesz",	   "default_hugepagesz",
		"isolcpus",  "modprobe.blacklist", "module_blacklist",
	};
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(word, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/* Words of a that b lacks, into out; whether one of them matters. */
static bool words_only_in(const char *a, const char *b, char *out, size_t len)
{
	char *copy = gp_xstrdup(a), *w, *save = NULL;
	bool matters = false;
	size_t n = 0, wl, more = 0;
	const char *p;

	out[0] = '\0';
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(w, "BOOT_IMAGE=", 11))
			continue; /* the kernel's path: every kernel update changes it */
		wl = strlen(w);
		for (p = strstr(b, w); p; p = strstr(p + 1, w))
			if ((p == b || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\n' || !p[wl]))
				break;
		if (p)
			continue;
		matters |= cmdline_matters(w);
		/* whole words only, and room kept to say how many did not fit */
		if (!more && n + wl + 1 < len - 24)
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", w);
		else
			more++;
	}
	if (more)
		snprintf(out + n, len - n, "%sand %zu more", n ? " " : "", more);
	free(copy);
	return matters;
}

static void report_cmdline(struct drift *d)
{
	char added[200], removed[200]; /* both fit a finding's text */
	bool m;

	m = words_only_in(d->h->cmdline, d->b->cmdline, added, sizeof(added));
	m |= words_only_in(d->b->cmdline, d->h->cmdline, removed, sizeof(removed));
	if (!added[0] && !removed[0])
		return;
	gp_report_add(d->r, GP_F_DRIFT_CMDLINE, m ? GP_FAIL : GP_WARN, "host",
		      "check GRUB_CMDLINE_LINUX and /etc/default/grub.d, then reboot",
		      "kernel command line: added [%s], removed [%s]", added, removed);
}

static void report_unchanged(struct drift *d, size_t from)
{
	size_t i, k;
	bool any;

	for (k = 0; k < sizeof(drift_kinds) / sizeof(drift_kinds[0]); k++) {
		any = false;
		for (i = from; i < d->r->n && !any; i++)
			any = d->r->items[i].fid == drift_kinds[k].id;
		if (!any)
			gp_report_add(d->r, drift_kinds[k].id, GP_OK, "host", NULL,
				      "%s (%zu devices compared)", drift_kinds[k].ok, d->b->ndevs);
	}
}

/*
 * Whether the baseline is of this machine: its serial where both say one
 * (root reads it), else its DMI product, else its hostname.  Another
 * machine's snapshot is said first, and nothing else is compared: its
 * devices would read as 25 cards to reseat.
 */
static bool differs(const char *a, const char *b)
{
	return a[0] && b[0] && strcmp(a, b);
}

/* A serial a board maker left as it came (whitebox boards): no machine's own. */
static bool placeholder(const char *s)
{
	static const char *const words[] = { "To Be Filled By O.E.M.",
					     "Default string",
					     "System Serial Number",
					     "Not Specified",
					     "Not Applicable",
					     "None",
					     "0123456789",
					     "0",
					     "" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return strspn(s, "0 .-") == strlen(s) || strspn(s, "Xx") == strlen(s);
}

/* Whether the two trees name a machine by something both have. */
static bool comparable(const struct gp_host *b, const struct gp_host *h)
{
	return (b->product[0] && h->product[0]) || (b->hostname[0] && h->hostname[0]) ||
	       (!placeholder(b->serial) && !placeholder(h->serial));
}

static bool same_machine(const struct gp_host *b, const struct gp_host *h, char *why, size_t len)
{
	if (!placeholder(b->serial) && !placeholder(h->serial)) {
		if (!differs(b->serial, h->serial))
			return true;
		snprintf(why, len, "serial number '%s', this host's '%s'", b->serial, h->serial);
	} else if (differs(b->product, h->product)) {
		snprintf(why, len, "a '%s', this host a '%s' (DMI product name)", b->product,
			 h->product);
	} else if (differs(b->hostname, h->hostname)) {
		snprintf(why, len, "host '%s', this one '%s'", b->hostname, h->hostname);
	} else {
		return true;
	}
	return false;
}

/* What the verdict rests on, as the comparison took it. */
static const char *compared(const struct gp_host *b, const struct gp_host *h)
{
	bool product = b->product[0] && h->product[0], name = b->hostname[0] && h->hostname[0];

	if (!placeholder(b->serial) && !placeholder(h->serial))
		return "its serial number";
	if (product && name)
		return "its DMI product and hostname";
	return product ? "its DMI product" : "its hostname";
}

static bool report_host(struct drift *d)
{
	char why[400];

	if (!comparable(d->b, d->h)) {
		gp_report_add(d->r, GP_F_DRIFT_HOST, GP_WARN, "host",
			      "take the baseline on this host with 'gpuprov snapshot', which keeps "
			      "them",
			      "whether the baseline is of this machine is unknown: the two trees "
			      "share no serial number, DMI product or hostname to compare");
		return true;
	}
	if (same_machine(d->b, d->h, why, sizeof(why))) {
		gp_report_add(d->r, GP_F_DRIFT_HOST, GP_OK, "host", NULL,
			      "the baseline is of this machine (%s)", compared(d->b, d->h));
		return true;
	}
	gp_report_add(d->r, GP_F_DRIFT_HOST, GP_FAIL, "host",
		      "take the baseline on this host ('gpuprov snapshot' after its check passes)",
		      "the baseline is of another machine: %s; nothing else was compared", why);
	return false;
}

void gp_drift_run(const struct gp_host *base, const struct gp_host *h, const struct gp_profile *p,
		  struct gp_report *r)
{
	struct drift d = { .b = base, .h = h, .p = p, .r = r };
	size_t from = r->n;

	if (!report_host(&d))
		return;
	d.match = gp_xcalloc(base->ndevs + 1, sizeof(*d.match));
	d.port = gp_xcalloc(base->ndevs + 1, sizeof(*d.port));
	d.taken = gp_xcalloc(h->ndevs + 1, sizeof(*d.taken));
	mark_ports(&d);
	match_devices(&d);
	report_presence(&d);
	report_devices(&d);
	report_bios(&d);
	report_cmdline(&d);
	report_unchanged(&d, from);
	free(d.match);
	free(d.port);
	free(d.taken);
}
