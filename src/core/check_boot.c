// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * boot.claim: which driver takes each device gpuprov binds, or finds bound,
 * when the machine boots next.  From what the kernel and udev will do
 * (host/boot.c read it): a persisted override by address (gpuprov's, with
 * its udev rule or boot unit; driverctl's), vfio-pci's ids= on the next
 * command line or in modprobe.d, else the modules whose alias matches the
 * device's modalias in the next kernel's modules.alias, less those
 * modprobe.d blacklists (udev loads by alias with the blacklist applied) or
 * disables ("install M /bin/false").  A built-in driver registers before
 * udev loads any module; a "softdep M pre: vfio-pci" loads vfio-pci first.
 * And a boot framebuffer on the device's BAR: the firmware sets it up again
 * at every boot.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/check_boot.h"
#include "core/hostq.h"
#include "core/manifest.h"

/* The module behind a driver name an override holds. */
static void module_of(const struct gp_dev *d, const char *driver, char *out, size_t len)
{
	if (d->vfio_driver[0] && !strcmp(driver, d->vfio_driver) && d->vfio_module[0])
		gp_strlcpy(out, d->vfio_module, len);
	else if (!strcmp(driver, "vfio-pci"))
		gp_strlcpy(out, "vfio_pci", len);
	else
		gp_strlcpy(out, driver, len);
}

static const char *vfio_module(const struct gp_dev *d)
{
	return d->vfio_module[0] ? d->vfio_module : "vfio_pci";
}

static const struct gp_override *override_of(const struct gp_host *h, const char *bdf)
{
	int i;

	for (i = 0; i < h->noverrides; i++)
		if (!strcmp(h->overrides[i].bdf, bdf))
			return &h->overrides[i];
	return NULL;
}

static bool active(const struct gp_claimant *c)
{
	return !c->blacklisted && !c->disabled;
}

/* The first active claimant that is built in, else the first active one; NULL: none. */
static const struct gp_claimant *first_claimant(const struct gp_boot_dev *b, int *nactive)
{
	const struct gp_claimant *first = NULL;
	int i;

	*nactive = 0;
	for (i = 0; i < b->nclaim; i++) {
		if (!active(&b->claim[i]))
			continue;
		(*nactive)++;
		if (!first || (b->claim[i].builtin && !first->builtin))
			first = &b->claim[i];
	}
	return first;
}

/* An active claimant other than first, and as early as it: the order decides. */
static const struct gp_claimant *rival(const struct gp_boot_dev *b, const struct gp_claimant *first)
{
	int i;

	for (i = 0; i < b->nclaim; i++)
		if (active(&b->claim[i]) && &b->claim[i] != first &&
		    b->claim[i].builtin == first->builtin &&
		    strcmp(b->claim[i].module, first->module))
			return &b->claim[i];
	return NULL;
}

/* An override by address: the udev rule sets it as the device appears, the unit rebinds. */
static bool by_override(const struct gp_host *h, const struct gp_dev *d,
			const struct gp_boot_dev *b, struct gp_boot_pred *out)
{
	const struct gp_override *o = override_of(h, d->bdf);
	bool rule = h->persist[3] != NULL, unit = h->persist[4] != NULL;
	const struct gp_claimant *first;
	int n;

	if (!o || (!o->driverctl && !rule && !unit) || (o->driverctl && !h->driverctl))
		return false;
	module_of(d, o->driver, out->module, sizeof(out->module));
	if (o->driverctl) {
		/* driverctl's udev rule runs its set-override, which loads the driver's module */
		snprintf(out->why, sizeof(out->why), "driverctl's override in %s",
			 GP_DRIVERCTL_DIR);
		return true;
	}
	snprintf(out->why, sizeof(out->why), "gpuprov's override in %s%s%s", GP_OVERRIDE_DIR,
		 rule ? ", its udev rule" : "", unit ? ", its boot unit" : "");
	/* the override keeps other drivers off, but loads no module */
	if (strcmp(out->module, "vfio_pci") ? false : !h->boot_vfio_loads) {
		snprintf(out->why + strlen(out->why), sizeof(out->why) - strlen(out->why),
			 "; but nothing loads vfio_pci at boot");
		out->module[0] = '\0';
		return true;
	}
	first = first_claimant(b, &n);
	if (first && first->builtin && strcmp(first->module, out->module)) {
		/* a built-in driver binds as the device is added, before udev's rule runs */
		snprintf(out->why + strlen(out->why), sizeof(out->why) - strlen(out->why),
			 "; %s, built in, binds it first%s", first->module,
			 unit ? " and the boot unit hands it over" : "");
		if (!unit) /* the override then waits for an unbind nothing does */
			gp_strlcpy(out->module, first->module, sizeof(out->module));
	}
	return true;
}

/* vfio-pci's ids=: it takes the device if it loads before any other claimant. */
static bool by_ids(const struct gp_host *h, const struct gp_dev *d, const struct gp_boot_dev *b,
		   struct gp_boot_pred *out)
{
	bool loads = h->boot_vfio_loads, all_after = true;
	const struct gp_claimant *late = NULL;
	int i;

	if (!b->ids)
		return false;
	for (i = 0; i < b->nclaim; i++) {
		const struct gp_claimant *c = &b->claim[i];

		if (!active(c))
			continue;
		loads |= c->vfio_first;
		if (c->vfio_first || (h->boot_vfio_builtin && !c->builtin))
			continue;
		all_after = false;
		late = late ? late : c;
	}
	if (!loads)
		return false; /* ids= of a module nothing loads */
	gp_strlcpy(out->module, "vfio_pci", sizeof(out->module));
	snprintf(out->why, sizeof(out->why), "vfio-pci ids=%s from %s; kernel %s", h->boot_ids,
		 h->boot_ids_source, h->boot_release);
	(void)d;
	if (!all_after) {
		gp_strlcpy(out->other, late->module, sizeof(out->other));
		out->ordered = true;
	}
	return true;
}

int gp_boot_predict(const struct gp_host *h, const struct gp_boot_dev *b, struct gp_boot_pred *out)
{
	const struct gp_dev *d = &h->devs[b->dev];
	const struct gp_claimant *first, *other;
	int n;

	memset(out, 0, sizeof(*out));
	if (by_override(h, d, b, out))
		return 0;
	if (b->nclaim < 0)
		return -ENOENT;
	if (by_ids(h, d, b, out))
		return 0;
	first = first_claimant(b, &n);
	if (!first) {
		snprintf(out->why, sizeof(out->why), "no module of kernel %s, %s, matches %s%s",
			 h->boot_release, h->boot_source,
			 b->nclaim ? "but blacklisted or disabled ones, for " : "",
			 d->modalias[0] ? d->modalias : "its IDs");
		return 0;
	}
	gp_strlcpy(out->module, first->module, sizeof(out->module));
	snprintf(out->why, sizeof(out->why), "%s of kernel %s, %s",
		 first->builtin ? "built in" : "modules.alias", h->boot_release, h->boot_source);
	other = rival(b, first);
	if (other) {
		gp_strlcpy(out->other, other->module, sizeof(out->other));
		out->ordered = true;
	}
	return 0;
}

/* Whether gpuprov binds d, or has: it must come back on its vfio driver. */
static bool must_vfio(const struct gp_host *h, const struct gp_dev *d)
{
	const struct gp_override *o = override_of(h, d->bdf);

	return !strcmp(d->driver, "vfio-pci") ||
	       (d->vfio_driver[0] && !strcmp(d->driver, d->vfio_driver)) ||
	       (o && !strcmp(o->driver, d->vfio_driver[0] ? d->vfio_driver : "vfio-pci"));
}

/* The boot framebuffer on one of its BARs, "" when none. */
static const char *fb_on(const struct gp_host *h, const struct gp_dev *d, int *bar)
{
	size_t i;
	int k;

	for (i = 0; i < h->nfbs; i++)
		for (k = 0; k < d->nbars; k++)
			if (!d->bars[k].io && !d->bars[k].unset && d->bars[k].size &&
			    h->fbs[i].start <= d->bars[k].addr + d->bars[k].size - 1 &&
			    h->fbs[i].end >= d->bars[k].addr) {
				*bar = d->bars[k].index;
				return h->fbs[i].name;
			}
	return "";
}

#define HINT_FAIL                                                                          \
	"nothing keeps it on vfio-pci: gpuprov apply writes persist.vfio (an override by " \
	"address, its udev rule and boot unit); by hand, 'driverctl set-override BDF vfio-pci'"
#define HINT_ORDER                                                                    \
	"make it certain: an override by address (gpuprov apply's persist.vfio), or " \
	"'softdep MODULE pre: vfio-pci' in /etc/modprobe.d (then update-initramfs -u)"
#define HINT_NONE "it comes back without a driver: gpuprov apply's persist.vfio binds it at boot"
#define HINT_FB                                                                              \
	"the firmware's console is on this device: QEMU cannot map that BAR ('BAR N: can't " \
	"reserve'); boot with 'video=efifb:off' (simplefb: 'video=simplefb:off'), or make "  \
	"another device the boot display in the BIOS"

static void one(const struct gp_host *h, const struct gp_boot_dev *b, struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[b->dev];
	struct gp_boot_pred pr;
	bool must = must_vfio(h, d), vfio;
	char what[400];
	int bar = -1;
	const char *fb = fb_on(h, d, &bar);

	if (gp_boot_predict(h, b, &pr)) {
		gp_report_add(r, GP_F_BOOT_CLAIM, must ? GP_WARN : GP_OK, d->bdf,
			      must ? "check 'modinfo -k RELEASE' and modprobe.d by hand" : NULL,
			      "next boot: unknown (the modules of kernel %s, %s, cannot be read)",
			      h->boot_release[0] ? h->boot_release : "?", h->boot_source);
		return;
	}
	vfio = !strcmp(pr.module, vfio_module(d)) || !strcmp(pr.module, "vfio_pci");
	snprintf(what, sizeof(what), "next boot: %s%s%s%s (%s)", pr.module[0] ? pr.module : "none",
		 pr.ordered ? " or " : "", pr.ordered ? pr.other : "",
		 pr.ordered ? ", whichever loads first" : "", pr.why);
	if (fb[0] && must)
		gp_report_add(r, GP_F_BOOT_CLAIM, GP_WARN, d->bdf, HINT_FB,
			      "%s; framebuffer %s holds its BAR%d at every boot", what, fb, bar);
	else if (!must)
		gp_report_add(r, GP_F_BOOT_CLAIM, GP_OK, d->bdf, NULL, "%s", what);
	else if (vfio && !pr.ordered)
		gp_report_add(r, GP_F_BOOT_CLAIM, GP_OK, d->bdf, NULL, "%s", what);
	else if (pr.ordered && (vfio || !strcmp(pr.other, vfio_module(d))))
		gp_report_add(r, GP_F_BOOT_CLAIM, GP_WARN, d->bdf, HINT_ORDER, "%s", what);
	else if (!pr.module[0])
		gp_report_add(r, GP_F_BOOT_CLAIM, GP_WARN, d->bdf, HINT_NONE, "%s", what);
	else
		gp_report_add(r, GP_F_BOOT_CLAIM, GP_FAIL, d->bdf, HINT_FAIL,
			      "%s, not %s: it leaves vfio-pci at the next boot", what,
			      vfio_module(d));
}

void gp_check_boot(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	size_t i;

	(void)p;
	for (i = 0; i < h->nboot_devs; i++)
		one(h, &h->boot_devs[i], r);
}
