// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An HGX baseboard against [fabric] mode, after NVIDIA's Fabric Manager
 * user guide (its virtualization models):
 * - full passthrough: every GPU and every NVSwitch of the board go to one
 *   VM; Fabric Manager runs in the guest (FABRIC_MODE=0) and not on the
 *   host, whose nv-fabricmanager would hold the switches gpuprov unbinds;
 * - shared NVSwitch: only GPUs go to VMs; the switches stay on the host's
 *   nvidia-nvswitch, where Fabric Manager runs with FABRIC_MODE=1 and
 *   activates the partition of each VM's GPUs.
 * Driver, Fabric Manager and NSCQ must be of one version: Fabric Manager
 * refuses to start on another driver.
 */
#include <stdio.h>
#include <string.h>

#include "core/check_fabric.h"
#include "core/check_gpu.h"
#include "core/fabric.h"
#include "core/manifest.h"
#include "shared/util.h"

#define FM_STOP "systemctl disable --now nvidia-fabricmanager"

static const char *mode_says(const struct gp_profile *p)
{
	return p->fabric == GP_FABRIC_FULL ? "full passthrough" : "shared NVSwitch";
}

/* ---- fabric.baseboard ---- */

static void list_groups(const struct gp_host *h, const struct gp_board *b, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < b->ngpus && n + 16 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? " " : "",
				      h->devs[b->gpus[i]].iommu_group);
}

static void check_board(const struct gp_host *h, const struct gp_profile *p,
			const struct gp_board *b, struct gp_report *r)
{
	const struct gp_dev *sw = &h->devs[b->switches[0]];
	char groups[160], sgroup[64];

	list_groups(h, b, groups, sizeof(groups));
	if (b->switch_group >= 0)
		snprintf(sgroup, sizeof(sgroup), "in IOMMU group %d", b->switch_group);
	else
		gp_strlcpy(sgroup, "in several IOMMU groups", sizeof(sgroup));
	if (p->fabric == GP_FABRIC_NONE) {
		gp_report_add(r, GP_F_FABRIC_BASEBOARD, GP_WARN, "host",
			      "set [fabric] mode = full (GPUs and switches to the VM) or shared "
			      "(the switches and Fabric Manager stay on the host)",
			      "%s: %d NVIDIA GPU%s and %d NVSwitch%s (%04x:%04x), but the profile "
			      "has no [fabric] mode: without the switches or Fabric Manager, CUDA "
			      "fails in the guest with error 802",
			      b->name, b->ngpus, b->ngpus == 1 ? "" : "s", b->nswitches,
			      b->nswitches == 1 ? "" : "es", sw->vendor, sw->device);
		return;
	}
	gp_report_add(r, GP_F_FABRIC_BASEBOARD, GP_OK, "host", NULL,
		      "%s, %s: %d GPU%s (IOMMU groups %s), %d NVSwitch%s %04x:%04x %s, on %s",
		      b->name, mode_says(p), b->ngpus, b->ngpus == 1 ? "" : "s",
		      groups[0] ? groups : "none", b->nswitches, b->nswitches == 1 ? "" : "es",
		      sw->vendor, sw->device, sgroup, sw->driver[0] ? sw->driver : "no driver");
}

/* ---- fabric.partial ---- */

static void check_partial(const struct gp_board *b, const struct gp_profile *p, struct gp_report *r)
{
	if (p->fabric != GP_FABRIC_FULL) {
		gp_report_add(r, GP_F_FABRIC_PARTIAL, GP_OK, "host", NULL,
			      "shared NVSwitch: %d of the board's %d GPUs go to the VM, the "
			      "switches stay on the host",
			      b->selected, b->ngpus);
		return;
	}
	if (b->want_switches && b->nswitches < b->want_switches) {
		gp_report_add(r, GP_F_FABRIC_PARTIAL, GP_FAIL, "host",
			      "a switch is missing from the PCI tree: check the board (lspci, "
			      "the BMC's inventory) before passing it on",
			      "the board shows %d of its %d NVSwitches", b->nswitches,
			      b->want_switches);
		return;
	}
	if (b->selected < b->ngpus || (b->want_gpus && b->ngpus < b->want_gpus)) {
		gp_report_add(r, GP_F_FABRIC_PARTIAL, GP_FAIL, "host",
			      "full passthrough moves the whole board: match every GPU of it in "
			      "[gpus] (count = all of them), or use [fabric] mode = shared",
			      "full passthrough of %d of the board's %d GPU%s%s with all %d "
			      "NVSwitches: Fabric Manager in the guest trains the whole board",
			      b->selected, b->want_gpus > b->ngpus ? b->want_gpus : b->ngpus,
			      b->ngpus == 1 ? "" : "s",
			      b->want_gpus > b->ngpus ? " (some not on the PCI tree)" : "",
			      b->nswitches);
		return;
	}
	gp_report_add(r, GP_F_FABRIC_PARTIAL, GP_OK, "host", NULL,
		      "the whole board goes to the VM: %d GPUs and %d NVSwitches", b->selected,
		      b->nswitches);
}

/* ---- fabric.manager ---- */

static int switches_on(const struct gp_host *h, const struct gp_board *b, const char *driver)
{
	int i, n = 0;

	for (i = 0; i < b->nswitches; i++)
		n += !strcmp(h->devs[b->switches[i]].driver, driver);
	return n;
}

static void manager_full(const struct gp_host *h, const struct gp_board *b, struct gp_report *r)
{
	const struct gp_fabric_host *fm = &h->fm;
	int held = switches_on(h, b, "nvidia-nvswitch");

	if (fm->running == 1 || (fm->enabled == 1 && !fm->masked)) {
		gp_report_add(r, GP_F_FABRIC_MANAGER, GP_WARN, "host",
			      "apply stops and disables it before it unbinds the switches "
			      "(fabric.mask; by hand: " FM_STOP "); run it in the guest with "
			      "FABRIC_MODE=0",
			      "Fabric Manager %s on the host; in full passthrough it runs in "
			      "the guest",
			      fm->running == 1 ? "runs" : "is enabled");
		return;
	}
	gp_report_add(r, GP_F_FABRIC_MANAGER, GP_OK, "host", NULL,
		      "Fabric Manager neither runs nor is enabled on the host; %d of %d "
		      "NVSwitches on nvidia-nvswitch (unbound by the plan); run it in the guest "
		      "with FABRIC_MODE=0",
		      held, b->nswitches);
}

static void manager_shared(const struct gp_host *h, const struct gp_board *b, struct gp_report *r)
{
	const struct gp_fabric_host *fm = &h->fm;
	int held = switches_on(h, b, "nvidia-nvswitch");
	char why[256] = "";
	size_t n = 0;

	if (!fm->installed)
		n += (size_t)snprintf(why + n, sizeof(why) - n, "%snot installed", n ? ", " : "");
	else if (fm->masked || fm->enabled != 1)
		n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s", n ? ", " : "",
				      fm->masked ? "masked" : "not enabled");
	if (fm->mode != 1 && n < sizeof(why))
		n += fm->mode < 0 ? (size_t)snprintf(why + n, sizeof(why) - n,
						     "%sFABRIC_MODE is %s, not 1", n ? ", " : "",
						     fm->mode == -2 ? "not a number" : "not set")
				  : (size_t)snprintf(why + n, sizeof(why) - n,
						     "%sFABRIC_MODE is %d, not 1", n ? ", " : "",
						     fm->mode);
	if (held < b->nswitches && n < sizeof(why))
		snprintf(why + n, sizeof(why) - n, "%s%d of %d NVSwitches on nvidia-nvswitch",
			 n ? ", " : "", held, b->nswitches);
	if (why[0]) {
		gp_report_add(r, GP_F_FABRIC_MANAGER, GP_FAIL, "host",
			      "install nvidia-fabricmanager of the driver's version, set "
			      "FABRIC_MODE=1 in " GP_FM_CONFIG ", keep the switches on "
			      "nvidia-nvswitch, then systemctl enable --now nvidia-fabricmanager",
			      "shared NVSwitch needs Fabric Manager on the host: %s", why);
		return;
	}
	if (fm->running != 1) {
		gp_report_add(r, GP_F_FABRIC_MANAGER, GP_WARN, "host",
			      "systemctl start nvidia-fabricmanager, then activate the VM's "
			      "partition before it starts",
			      "Fabric Manager is enabled with FABRIC_MODE=1 but does not run%s",
			      fm->running < 0 ? " (cannot tell)" : "");
		return;
	}
	gp_report_add(r, GP_F_FABRIC_MANAGER, GP_OK, "host", NULL,
		      "Fabric Manager runs on the host with FABRIC_MODE=1, the %d NVSwitches on "
		      "nvidia-nvswitch: activate the VM's partition (by GPU module ID) before "
		      "it starts",
		      b->nswitches);
}

/* ---- fabric.version ---- */

static void check_version(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	const struct gp_fabric_host *fm = &h->fm;
	const char *drv = fm->driver[0] ? fm->driver : "unknown";
	const char *fmv = fm->fm_version[0] ? fm->fm_version : "unknown";
	const char *nscq = fm->nscq_version[0] ? fm->nscq_version : "unknown";
	bool fm_off = fm->fm_version[0] && fm->driver[0] &&
		      !gp_fabric_versions_match(fm->fm_version, fm->driver);
	bool nscq_off = fm->nscq_version[0] && fm->driver[0] &&
			!gp_fabric_versions_match(fm->nscq_version, fm->driver);

	if (p->fabric == GP_FABRIC_SHARED && (fm_off || nscq_off)) {
		gp_report_add(r, GP_F_FABRIC_VERSION, GP_FAIL, "host",
			      "install the nvidia-fabricmanager and libnvidia-nscq packages of "
			      "the driver's version: Fabric Manager refuses another driver",
			      "driver %s, Fabric Manager %s, NSCQ %s: not one version", drv, fmv,
			      nscq);
		return;
	}
	gp_report_add(r, GP_F_FABRIC_VERSION, GP_OK, "host", NULL,
		      "driver %s, Fabric Manager %s, NSCQ %s%s", drv, fmv, nscq,
		      p->fabric == GP_FABRIC_FULL ? " on the host; in full passthrough the "
						    "guest's three must match"
						  : "");
}

void gp_check_fabric(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	struct gp_board b;
	int i;

	if (gp_fabric_board(h, &b)) {
		if (p->fabric != GP_FABRIC_NONE)
			gp_report_add(r, GP_F_FABRIC_BASEBOARD, GP_FAIL, "host",
				      "[fabric] mode is for HGX baseboards: set mode = none, or "
				      "check that the switches are on the PCI tree (lspci -d "
				      "10de::0680)",
				      "[fabric] mode = %s, but the host has no NVSwitch",
				      gp_fabric_mode_name(p->fabric));
		return;
	}
	check_board(h, p, &b, r);
	if (p->fabric == GP_FABRIC_NONE)
		return;
	check_partial(&b, p, r);
	if (p->fabric == GP_FABRIC_FULL)
		manager_full(h, &b, r);
	else
		manager_shared(h, &b, r);
	check_version(h, p, r);
	for (i = 0; i < b.nswitches && p->fabric == GP_FABRIC_FULL; i++)
		gp_check_reset(&h->devs[b.switches[i]], r);
}
