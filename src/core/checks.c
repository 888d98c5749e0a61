// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Preflight checks: pure functions of (host, profile) that append findings.
 * Each check reports "ok" too, so a report shows what was looked at, and each
 * finding carries a hint an operator can act on.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostq.h"
#include "core/model.h"
#include "core/netconf.h"
#include "core/vm.h"
#include "core/checks.h"
#include "core/pcicfg.h"
#include "core/topo.h"

const char *gp_severity_name(enum gp_severity s)
{
	static const char *const names[] = { "ok", "warn", "fail" };

	return names[s];
}

void gp_report_add(struct gp_report *r, enum gp_fid id, enum gp_severity sev, const char *subject,
		   const char *hint, const char *fmt, ...)
{
	char message[GP_FINDING_TEXT_LEN];
	struct gp_finding *f;
	va_list ap;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->items = gp_xrealloc(r->items, r->cap, sizeof(*r->items));
	}
	f = &r->items[r->n++];
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	f->fid = id;
	f->id = gp_finding_kinds[id].id;
	/* hints and most messages repeat (a pair check on 150 GPUs): kept once */
	f->severity = sev;
	f->subject = gp_pool_copy(&r->strs, subject, GP_FINDING_SUBJECT_LEN);
	f->hint = gp_pool_intern(&r->strs, sev == GP_OK || !hint ? "" : hint, GP_FINDING_TEXT_LEN);
	f->message = gp_pool_intern(&r->strs, message, sizeof(message));
}

void gp_report_release(struct gp_report *r)
{
	free(r->items);
	gp_pool_release(&r->strs);
	memset(r, 0, sizeof(*r));
}

int gp_report_count(const struct gp_report *r, enum gp_severity sev)
{
	size_t i;
	int n = 0;

	for (i = 0; i < r->n; i++)
		n += r->items[i].severity == sev;
	return n;
}

static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t len = strlen(word);
	const char *p = cmdline;

	while ((p = strstr(p, word))) {
		if ((p == cmdline || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* ---- iommu.* ---- */

static void check_iommu_off(const struct gp_host *h, struct gp_report *r)
{
	static const char *const off[] = { "iommu=off", "amd_iommu=off", "intel_iommu=off" };
	/*
	 * From the kernel's kernel-parameters.txt: amd_iommu= knows no "on"
	 * (the AMD IOMMU is on whenever the BIOS exposes it); intel_iommu=on
	 * is needed where the kernel's default is off; iommu=pt leaves the
	 * host's own DMA untranslated while assigned devices still are.
	 */
	const char *hint = "enable the IOMMU in the BIOS (AMD: 'IOMMU' and 'SVM Mode'; "
			   "Intel: 'VT-d'); AMD needs no kernel parameter, Intel boots with "
			   "'intel_iommu=on'; add 'iommu=pt' for host DMA performance";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(off); i++)
		if (cmdline_has(h->cmdline, off[i])) {
			gp_report_add(r, GP_F_IOMMU_OFF, GP_FAIL, "host",
				      "remove it from the kernel command line (GRUB_CMDLINE_LINUX) "
				      "and reboot",
				      "the kernel command line turns the IOMMU off ('%s')", off[i]);
			return;
		}
	if (!h->iommu_groups) {
		gp_report_add(r, GP_F_IOMMU_OFF, GP_FAIL, "host", hint,
			      "no IOMMU groups: the IOMMU is off or missing, so no device can be "
			      "passed through");
		return;
	}
	gp_report_add(r, GP_F_IOMMU_OFF, GP_OK, "host", NULL, "IOMMU on: %d groups",
		      h->iommu_groups);
}

static void check_group(const struct gp_host *h, const struct gp_profile *p, int g,
			struct gp_report *r)
{
	const struct gp_dev *gpu = &h->devs[g];
	char others[400] = "";
	size_t i, len = 0;
	int n = 0;

	if (gpu->iommu_error[0]) {
		gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, GP_FAIL, gpu->bdf,
			      "check the IOMMU and the device in 'ls -l /sys/bus/pci/devices/*/"
			      "iommu_group' and the kernel log (dmesg | grep -i -e DMAR -e AMD-Vi)",
			      "cannot tell its IOMMU group: %s", gpu->iommu_error);
		return;
	}
	if (gpu->iommu_group < 0 && h->iommu_groups) {
		gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, GP_FAIL, gpu->bdf,
			      "the IOMMU is on but does not cover this device: check the BIOS "
			      "(AMD: 'IOMMU', Intel: 'VT-d') and the kernel log",
			      "in no IOMMU group: it cannot be passed through");
		return;
	}
	if (gpu->iommu_group < 0)
		return; /* iommu.off says why */
	for (i = 0; i < h->ndevs; i++) {
		const struct gp_dev *d = &h->devs[i];

		if ((int)i == g || d->iommu_group != gpu->iommu_group || d->is_bridge)
			continue;
		if (d->role == GP_ROLE_GPU)
			continue; /* both go to the same VM */
		if (len < sizeof(others) - 40)
			len += (size_t)snprintf(others + len, sizeof(others) - len,
						"%s%s (%04x:%04x%s%s)", n ? ", " : "", d->bdf,
						d->vendor, d->device, d->driver[0] ? ", " : "",
						d->driver);
		n++;
	}
	if (!n) {
		gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, GP_OK, gpu->bdf, NULL,
			      "IOMMU group %d holds no other endpoint", gpu->iommu_group);
		return;
	}
	gp_report_add(r, GP_F_IOMMU_GROUP_SHARED, p->companions == GP_COMP_BIND ? GP_WARN : GP_FAIL,
		      gpu->bdf,
		      p->companions == GP_COMP_BIND
			      ? "these endpoints will be bound to vfio-pci too and leave the host"
			      : "move the card to a slot with its own IOMMU group, enable ACS in "
				"the BIOS, or set 'companions = bind' to pass them through too",
		      "IOMMU group %d also holds %d other endpoint%s: %s", gpu->iommu_group, n,
		      n > 1 ? "s" : "", others);
}

/* ---- companion.unsafe ---- */

/* Appends "; " and a formatted reason to buf. */
static void because(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void because(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 4 >= len)
		return;
	if (n)
		n += (size_t)snprintf(buf + n, len - n, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* Its netdevs: routes, addresses, sessions, and the bridge or bond they serve. */
static void nic_use(const struct gp_host *h, int dev, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < h->nifaces; i++) {
		const struct gp_iface *f = &h->ifaces[i];

		if (f->dev != dev)
			continue;
		if (f->default_route)
			because(why, len, "%s carries the default route", f->name);
		else if (f->routes)
			because(why, len, "%s has %d route%s", f->name, f->routes,
				f->routes > 1 ? "s" : "");
		if (f->addr[0])
			because(why, len, "%s has address %s", f->name, f->addr);
		if (f->tcp)
			because(why, len, "%s holds %d established TCP connection%s", f->name,
				f->tcp, f->tcp > 1 ? "s" : "");
		if (f->master[0])
			because(why, len, "%s is a port of %s", f->name, f->master);
		if (f->upper[0])
			because(why, len, "%s carries %s", f->name, f->upper);
		if (!h->seen_sockets)
			because(why, len, "cannot read /proc/net/tcp to see %s's connections",
				f->name);
	}
}

static void disk_use(const struct gp_host *h, int dev, char *why, size_t len)
{
	bool any = false;
	size_t i;

	for (i = 0; i < h->nblocks; i++) {
		const struct gp_block *b = &h->blocks[i];

		if (b->dev != dev)
			continue;
		any = true;
		if (b->mount[0])
			because(why, len, "%s is mounted on %s", b->name, b->mount);
		if (b->swap)
			because(why, len, "%s is swap", b->name);
		if (b->holder[0])
			because(why, len, "%s is held by %s (LVM, MD or device mapper)", b->name,
				b->holder);
	}
	if (any && !h->seen_mounts)
		because(why, len,
			"cannot read /proc/self/mountinfo to see whether its disks are "
			"mounted");
	if (!h->seen_blocks && (h->devs[dev].class >> 8) == 0x01)
		because(why, len, "a storage controller, and /sys/class/block cannot be read");
}

static void console_use(const struct gp_host *h, int dev, char *why, size_t len)
{
	const struct gp_dev *d = &h->devs[dev];
	size_t i;
	int b;

	if (d->boot_vga == 1)
		because(why, len, "the boot VGA device%s",
			h->fbcon ? ", and the console is on a framebuffer" : "");
	for (i = 0; i < h->nfbs; i++)
		for (b = 0; b < d->nbars; b++)
			if (!d->bars[b].io && !d->bars[b].unset &&
			    h->fbs[i].start <= d->bars[b].addr + d->bars[b].size - 1 &&
			    h->fbs[i].end >= d->bars[b].addr)
				because(why, len, "framebuffer %s holds its BAR%d", h->fbs[i].name,
					d->bars[b].index);
	if ((d->class >> 8) == 0x03 && !h->seen_iomem)
		because(why, len,
			"a display device, and /proc/iomem cannot be read (run as "
			"root) to see a framebuffer on it");
}

/*
 * With companions = bind, every endpoint in a GPU's group leaves the host.
 * Refuse the ones the host lives on; a card's own audio or USB function has
 * none of these and binds.
 */
static void check_companions(const struct gp_host *h, const struct gp_profile *p,
			     struct gp_report *r)
{
	size_t i;

	if (p->companions != GP_COMP_BIND)
		return;
	for (i = 0; i < h->ndevs; i++) {
		const struct gp_dev *d = &h->devs[i];
		char why[480] = "";

		if (!d->with_gpu || d->role == GP_ROLE_GPU || d->is_bridge)
			continue;
		nic_use(h, (int)i, why, sizeof(why));
		disk_use(h, (int)i, why, sizeof(why));
		console_use(h, (int)i, why, sizeof(why));
		if (!why[0]) {
			gp_report_add(r, GP_F_COMPANION_UNSAFE, GP_OK, d->bdf, NULL,
				      "%04x:%04x (class %04x): no mounted disk, network use or "
				      "framebuffer; it can go to the VM",
				      d->vendor, d->device, d->class);
			continue;
		}
		gp_report_add(r, GP_F_COMPANION_UNSAFE, GP_FAIL, d->bdf,
			      "it shares the GPU's IOMMU group and would leave the host: free it "
			      "first, or move the GPU to a slot with a group of its own",
			      "%04x:%04x%s%s: %s", d->vendor, d->device, d->driver[0] ? " on " : "",
			      d->driver, why);
	}
}

/* ---- bios.version ---- */

static void check_bios(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	if (!p->min_bios[0]) {
		gp_report_add(r, GP_F_BIOS_VERSION, GP_OK, "host", NULL, "BIOS %s (no minimum set)",
			      h->bios_version[0] ? h->bios_version : "unknown");
		return;
	}
	if (!h->bios_version[0]) {
		gp_report_add(r, GP_F_BIOS_VERSION, GP_WARN, "host",
			      "check the BIOS version in the BMC or with 'dmidecode -s "
			      "bios-version'",
			      "cannot read the BIOS version (/sys/class/dmi/id/bios_version); the "
			      "profile wants %s or later",
			      p->min_bios);
		return;
	}
	if (gp_version_cmp(h->bios_version, p->min_bios) < 0) {
		gp_report_add(r, GP_F_BIOS_VERSION, GP_WARN, "host",
			      "update the BIOS from the vendor's support site before the change",
			      "BIOS %s is older than %s, the minimum in the profile",
			      h->bios_version, p->min_bios);
		return;
	}
	gp_report_add(r, GP_F_BIOS_VERSION, GP_OK, "host", NULL, "BIOS %s (minimum %s)",
		      h->bios_version, p->min_bios);
}

/* ---- bar.* ---- */

static int memory_bars(const struct gp_dev *d)
{
	int i, n = 0;

	for (i = 0; i < d->nbars; i++)
		n += !d->bars[i].io;
	return n;
}

static void check_bars(const struct gp_dev *d, struct gp_report *r)
{
	char size[32], list[256] = "";
	size_t len = 0;
	int i, unset = 0, low = 0;

	if (!d->bars_bad && !memory_bars(d)) {
		gp_report_add(r, GP_F_BAR_UNASSIGNED, GP_FAIL, d->bdf,
			      "check the kernel log (dmesg | grep -i BAR) and the resource file: "
			      "a GPU has memory BARs",
			      "no memory BAR in its resource file");
		return;
	}
	if (d->bars_bad) {
		gp_report_add(r, GP_F_BAR_UNASSIGNED, GP_FAIL, d->bdf,
			      "check the kernel log (dmesg | grep -i BAR) for resource errors",
			      "cannot read the BARs (resource file missing or malformed)");
		return;
	}
	for (i = 0; i < d->nbars; i++) {
		const struct gp_bar *b = &d->bars[i];

		if (b->io)
			continue;
		gp_format_size(b->size, size, sizeof(size));
		if (b->unset) {
			gp_report_add(r, GP_F_BAR_UNASSIGNED, GP_FAIL, d->bdf,
				      "enable 'Above 4G Decoding' (and 'Re-Size BAR Support') in "
				      "the BIOS, or boot with pci=realloc",
				      "BAR%d (%s) has no address assigned", b->index, size);
			unset++;
			continue;
		}
		if (b->is64 && b->prefetchable && b->size >= (256ull << 20) &&
		    b->addr + b->size <= (1ull << 32)) {
			gp_report_add(r, GP_F_BAR_BELOW_4G, GP_WARN, d->bdf,
				      "enable 'Above 4G Decoding' in the BIOS so large BARs are "
				      "mapped above 4 GiB",
				      "BAR%d (%s, 64-bit) is mapped below 4 GiB at 0x%" PRIx64,
				      b->index, size, b->addr);
			low++;
		}
		if (len < sizeof(list) - 40)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%sBAR%d %s",
						len ? ", " : "", b->index, size);
	}
	if (!unset)
		gp_report_add(r, GP_F_BAR_UNASSIGNED, GP_OK, d->bdf, NULL, "all BARs assigned: %s",
			      len ? list : "none");
	if (!low)
		gp_report_add(r, GP_F_BAR_BELOW_4G, GP_OK, d->bdf, NULL,
			      "large 64-bit BARs are above 4 GiB");
}

/* ---- gpu.* ---- */

static void check_count(const struct gp_profile *p, int n, struct gp_report *r)
{
	if (n == p->count) {
		gp_report_add(r, GP_F_GPU_COUNT, GP_OK, "host", NULL, "%d GPU%s match the profile",
			      n, n == 1 ? "" : "s");
		return;
	}
	gp_report_add(r, GP_F_GPU_COUNT, GP_FAIL, "host",
		      "check that every card is seated and powered (lspci -nn -d 10de:), and "
		      "the [gpus] match list",
		      "%d GPU%s match the profile, which expects %d", n, n == 1 ? "" : "s",
		      p->count);
}

/* The [slot.*] naming this address, as root_port or (on a root bus) address. */
static const struct gp_slot *slot_at(const struct gp_profile *p, const char *bdf, bool own)
{
	int i;

	for (i = 0; i < p->nslots; i++)
		if (!strcmp(own ? p->slots[i].address : p->slots[i].root_port, bdf))
			return &p->slots[i];
	return NULL;
}

/*
 * The slot a GPU sits in: the one naming the GPU itself (a slot on a root
 * bus), else the one naming the nearest bridge above it, so that a slot
 * behind a switch wins over one naming the switch's root port, whatever the
 * order of the sections.
 */
static const struct gp_slot *slot_of(const struct gp_host *h, const struct gp_profile *p, int g)
{
	const struct gp_slot *s = slot_at(p, h->devs[g].bdf, true);
	int i, depth;

	for (i = h->devs[g].parent, depth = 0; !s && i >= 0 && depth < 64;
	     i = h->devs[i].parent, depth++)
		s = slot_at(p, h->devs[i].bdf, false);
	return s;
}

static bool slot_wanted(const struct gp_profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->ngpu_slots; i++)
		if (!strcmp(p->gpu_slots[i], name))
			return true;
	return false;
}

/* A GPU on a root bus has no bridge above it: the root complex is. */
static bool on_root_bus(const struct gp_dev *d)
{
	return d->parent < 0 && !d->parent_bdf[0];
}

static void slot_where(const struct gp_host *h, const struct gp_dev *d, char *buf, size_t len)
{
	if (d->parent >= 0)
		snprintf(buf, len, "below %s", h->devs[d->parent].bdf);
	else if (on_root_bus(d))
		snprintf(buf, len, "on the root bus of %s", d->rc[0] ? d->rc : "its host bridge");
	else
		snprintf(buf, len, "below %s (not found)", d->parent_bdf);
}

static int slot_unwanted(const struct gp_profile *p, const struct gp_slot *s,
			 const struct gp_dev *d, const char *where, struct gp_report *r)
{
	char allowed[256] = "";
	size_t len = 0;
	int i;

	if (!p->ngpu_slots || (s && slot_wanted(p, s->name)))
		return 0;
	for (i = 0; i < p->ngpu_slots && len < sizeof(allowed) - GP_NAME_LEN; i++)
		len += (size_t)snprintf(allowed + len, sizeof(allowed) - len, "%s%s", i ? ", " : "",
					p->gpu_slots[i]);
	gp_report_add(r, GP_F_GPU_SLOT, GP_FAIL, d->bdf,
		      "move the card to one of the slots the profile names ([gpus] slots), or "
		      "correct the slot map",
		      "%s%s (%s); the profile wants slot %s",
		      s ? "in slot " : "in no slot of the profile", s ? s->name : "", where,
		      allowed);
	return 1;
}

static int slot_numa(const struct gp_slot *s, const struct gp_dev *d, struct gp_report *r)
{
	if (!s || s->numa_node < 0 || d->numa_node < 0 || s->numa_node == d->numa_node)
		return 0;
	gp_report_add(r, GP_F_GPU_SLOT, GP_WARN, d->bdf,
		      "the profile's slot map is wrong for this host: correct numa_node in "
		      "[slot.*]",
		      "slot %s is on NUMA node %d per the profile, but the kernel says %d", s->name,
		      s->numa_node, d->numa_node);
	return 1;
}

static int slot_direct(const struct gp_slot *s, const struct gp_dev *d, bool direct,
		       const char *where, struct gp_report *r)
{
	const char *hint = "use a slot wired to a CPU root port: P2P through a switch or "
			   "bridge depends on its ACS and bandwidth";

	if (!direct) {
		gp_report_add(r, GP_F_GPU_SLOT, GP_WARN, d->bdf, hint,
			      "%s, which is not a CPU root port%s%s", where, s ? "; slot " : "",
			      s ? s->name : "");
		return 1;
	}
	if (s && s->cpu_direct == 0) {
		gp_report_add(r, GP_F_GPU_SLOT, GP_WARN, d->bdf, hint,
			      "slot %s is behind a switch or bridge per the profile "
			      "(cpu_direct = no)",
			      s->name);
		return 1;
	}
	return 0;
}

/* Each problem of a GPU's slot is its own finding: one must not hide another. */
static void check_slot(const struct gp_host *h, const struct gp_profile *p, int g,
		       struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[g];
	const struct gp_slot *s = slot_of(h, p, g);
	bool direct = on_root_bus(d) ||
		      (d->parent >= 0 && h->devs[d->parent].pcie_type == GP_PCIE_ROOT_PORT);
	char where[96];
	int problems = 0;

	slot_where(h, d, where, sizeof(where));
	problems += slot_unwanted(p, s, d, where, r);
	problems += slot_numa(s, d, r);
	problems += slot_direct(s, d, direct, where, r);
	if (problems)
		return;
	if (d->parent >= 0)
		snprintf(where, sizeof(where), "root port %s", h->devs[d->parent].bdf);
	gp_report_add(r, GP_F_GPU_SLOT, GP_OK, d->bdf, NULL, "CPU-direct: %s%s%s%s%s", where,
		      s ? ", slot " : "", s ? s->name : "", d->slot[0] ? ", physical slot " : "",
		      d->slot);
}

static void check_numa(const struct gp_host *h, const struct gp_profile *p, const int *gpus, int n,
		       struct gp_report *r)
{
	char list[256] = "";
	size_t len = 0;
	int i, first = n ? h->devs[gpus[0]].numa_node : -1;
	bool split = false, unknown = false;

	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[gpus[i]];

		split |= d->numa_node != first;
		unknown |= d->numa_node < 0;
		if (len < sizeof(list) - 40 && d->numa_node >= 0)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s on node %d",
						i ? ", " : "", d->bdf, d->numa_node);
		else if (len < sizeof(list) - 40)
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%s on an unknown node", i ? ", " : "", d->bdf);
	}
	if (n < 2)
		return;
	if (split && p->same_numa_node) {
		gp_report_add(r, GP_F_GPU_NUMA_SPLIT, GP_FAIL, "gpus",
			      "move the cards to slots of one NUMA node (see [slot.*] numa_node), "
			      "or set 'same_numa_node = no'",
			      "the GPUs are on different NUMA nodes: %s", list);
		return;
	}
	if (unknown) {
		gp_report_add(r, GP_F_GPU_NUMA_SPLIT, GP_WARN, "gpus",
			      "enable NUMA reporting in the BIOS (AMD: 'NUMA nodes per socket' "
			      "NPS1 or higher, ACPI SRAT)",
			      "the kernel does not know the GPUs' NUMA node: %s", list);
		return;
	}
	gp_report_add(r, GP_F_GPU_NUMA_SPLIT, GP_OK, "gpus", NULL, "%s", list);
}

/* A numa_node the kernel wrote but nobody can parse is no "unknown node". */
static void check_numa_readable(const struct gp_dev *d, struct gp_report *r)
{
	if (!d->numa_error[0])
		return;
	gp_report_add(r, GP_F_GPU_NUMA_SPLIT, GP_FAIL, d->bdf,
		      "check /sys/bus/pci/devices/<address>/numa_node: it holds a node number "
		      "or -1",
		      "cannot read its NUMA node: %s", d->numa_error);
}

static void check_link(const struct gp_host *h, int g, struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[g];
	const struct gp_link *l = &d->link;
	int parent = d->parent;

	if (!l->max_width && !d->config_short) {
		gp_report_add(r, GP_F_GPU_LINK, GP_WARN, d->bdf,
			      "a GPU in a PCIe slot should be a PCI Express device: check what "
			      "the profile's match selects",
			      "conventional PCI device: no PCIe link to train");
		return;
	}
	if (!l->max_width) {
		gp_report_add(r, GP_F_GPU_LINK, GP_WARN, d->bdf,
			      "run as root: the PCIe capability is in config space beyond the "
			      "first 64 bytes",
			      "cannot read the PCIe link (no PCI Express capability visible)");
		return;
	}
	if (l->width < l->max_width) {
		gp_report_add(r, GP_F_GPU_LINK, GP_FAIL, d->bdf,
			      "reseat the card, check the riser and that the slot is wired x16 "
			      "(not shared with a neighbour)",
			      "link trained at x%d, the card supports x%d (%g GT/s)", l->width,
			      l->max_width, l->speed);
		return;
	}
	if (l->speed < l->max_speed) {
		gp_report_add(r, GP_F_GPU_LINK, GP_WARN, d->bdf,
			      "GPUs lower the link speed when idle: check again under load; "
			      "if it stays low, set the slot's 'PCIe Link Speed' to Auto/Gen in "
			      "the BIOS",
			      "link at %g GT/s x%d, the card supports %g GT/s", l->speed, l->width,
			      l->max_speed);
		return;
	}
	if (parent >= 0 && h->devs[parent].link.max_speed &&
	    h->devs[parent].link.max_speed < l->max_speed) {
		gp_report_add(r, GP_F_GPU_LINK, GP_WARN, d->bdf,
			      "use a slot whose port supports the card's PCIe generation",
			      "the port above (%s) supports %g GT/s, the card %g GT/s",
			      h->devs[parent].bdf, h->devs[parent].link.max_speed, l->max_speed);
		return;
	}
	gp_report_add(r, GP_F_GPU_LINK, GP_OK, d->bdf, NULL,
		      "%g GT/s x%d (%.1f GB/s per direction)", l->speed, l->width,
		      gp_link_bandwidth(l->speed, l->width));
}

static bool holder_has(const struct gp_host *h, const struct gp_holder *x, int g)
{
	const struct gp_dev *d = &h->devs[g];

	if (x->dev >= 0)
		return x->dev == g;
	if (x->dev <= -2)
		return d->iommu_group >= 0 && -2 - x->dev == d->iommu_group;
	/* /dev/nvidiactl, nvidia-uvm, ...: every GPU the nvidia driver holds */
	return !strcmp(d->driver, "nvidia");
}

static void check_in_use(const struct gp_host *h, int g, struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[g];
	char who[400] = "";
	size_t i, len = 0;
	int n = 0;

	for (i = 0; i < h->nholders; i++) {
		const struct gp_holder *x = &h->holders[i];

		if (!holder_has(h, x, g))
			continue;
		if (len < sizeof(who) - 64)
			len += (size_t)snprintf(who + len, sizeof(who) - len, "%sPID %d (%s) %s",
						n ? ", " : "", x->pid, x->comm, x->path);
		n++;
	}
	if (!n) {
		gp_report_add(r, GP_F_GPU_IN_USE, GP_OK, d->bdf, NULL, "no process holds it open");
		return;
	}
	/* on its vfio driver already (a VM runs on it): nothing will be unbound */
	if (d->vfio_driver[0] && !strcmp(d->driver, d->vfio_driver)) {
		gp_report_add(r, GP_F_GPU_IN_USE, GP_OK, d->bdf, NULL,
			      "held open by %s; already on %s, so nothing is unbound", who,
			      d->driver);
		return;
	}
	gp_report_add(r, GP_F_GPU_IN_USE, GP_FAIL, d->bdf,
		      "stop these first (systemctl stop nvidia-persistenced, DCGM exporters, "
		      "running VMs): unbinding a GPU in use hangs in the kernel",
		      "held open by %s", who);
}

static void check_reset(const struct gp_dev *d, struct gp_report *r)
{
	if (!d->has_reset_method) {
		gp_report_add(r, GP_F_GPU_RESET, GP_OK, d->bdf, NULL,
			      "reset methods not exposed by this kernel (reset_method absent)");
		return;
	}
	if (!d->reset_method[0]) {
		gp_report_add(r, GP_F_GPU_RESET, GP_WARN, d->bdf,
			      "the GPU may not come back clean after a VM stops: plan a host "
			      "reboot between VM runs, or check the card's firmware",
			      "the kernel has no reset method for it (reset_method is empty)");
		return;
	}
	gp_report_add(r, GP_F_GPU_RESET, GP_OK, d->bdf, NULL, "reset methods: %s", d->reset_method);
}

/* ---- p2p.* ---- */

/* What the PCIe-only verdict says of NVLink: not there, or why it is not known. */
static void nvlink_said(const struct gp_nv_view *v, char *buf, size_t len)
{
	if (v->source == GP_NV_NONE)
		snprintf(buf, len, "NVLink not known: %s", v->why);
	else
		snprintf(buf, len, "no NVLink between them");
}

/*
 * Joined by NVLink, a pair does P2P over it whatever its PCIe class: the
 * ceiling is the links' rate, links x per-link rate of their generation.
 */
static bool nvlink_pair(const struct gp_host *h, int a, int b, enum gp_path cls, const char *link,
			struct gp_report *r, const char *subject)
{
	int na = gp_nv_find(&h->nv, h->devs[a].bdf), nb = gp_nv_find(&h->nv, h->devs[b].bdf);
	int n = gp_nv_pair_links(&h->nv, na, nb);
	char when[64] = "";

	if (!n)
		return false;
	if (h->nv.source == GP_NV_REMEMBERED)
		snprintf(when, sizeof(when), ", remembered from %s", h->nv.seen_at);
	gp_report_add(r, GP_F_P2P_PATH, GP_OK, subject, NULL,
		      "NV%d: %d NVLinks%s, %.1f GB/s per direction%s; PCIe %s (%s)", n, n,
		      gp_nv_via_switch(&h->nv, na, nb) ? " through NVSwitch" : "",
		      gp_nv_pair_ceiling(&h->nv, na, nb), when, gp_path_name(cls), link);
	return true;
}

/* "slowest hop 16 GT/s x16, 31.5 GB/s per direction", from topo.c's words */
static void hop_text(struct gp_hop_words *w, const struct gp_hop *hop, char *buf, size_t len)
{
	const char *part[5];
	size_t n = 0;
	int i;

	gp_hop_words(w, hop);
	part[0] = "slowest hop ";
	part[1] = w->link;
	part[2] = ", ";
	part[3] = w->gbs;
	part[4] = " GB/s per direction";
	for (i = 0; i < 5 && n < len; i++)
		n += gp_strlcpy(buf + n, part[i], len - n);
}

/* "BDF-BDF", as snprintf(subject, 64, "%s-%s") had it */
static void pair_subject(const struct gp_host *h, int a, int b, char subject[64])
{
	size_t n = gp_strlcpy(subject, h->devs[a].bdf, 64);

	if (n >= 63) {
		subject[63] = '\0';
		return;
	}
	subject[n++] = '-';
	gp_strlcpy(subject + n, h->devs[b].bdf, 64 - n);
}

static void check_p2p_pair(const struct gp_host *h, const struct gp_profile *p, int a, int b,
			   struct gp_hop_words *w, struct gp_report *r)
{
	enum gp_path cls = gp_topo_classify(h, a, b);
	struct gp_hop hop = gp_topo_slowest(h, a, b);
	char subject[64], link[128] = "link unknown", nv[200];
	enum gp_severity sev = GP_OK;
	const char *hint = NULL;

	pair_subject(h, a, b, subject);
	if (hop.width)
		hop_text(w, &hop, link, sizeof(link));
	if (gp_hop_trained_lower(&hop))
		snprintf(link + strlen(link), sizeof(link) - strlen(link),
			 "; trained at %g GT/s x%d now", hop.cur_speed, hop.cur_width);
	if (p->p2p == GP_P2P_OFF) {
		gp_report_add(r, GP_F_P2P_PATH, GP_OK, subject, NULL, "%s (%s); P2P not wanted",
			      gp_path_name(cls), link);
		return;
	}
	if (nvlink_pair(h, a, b, cls, link, r, subject))
		return;
	if (cls == GP_PATH_NODE) {
		sev = GP_WARN;
		hint = "P2P crosses two host bridges of one socket; for full bandwidth put both "
		       "cards under one root complex, or join them with an NVLink bridge";
	} else if (cls == GP_PATH_SYS) {
		sev = p->p2p == GP_P2P_REQUIRED ? GP_FAIL : GP_WARN;
		hint = "P2P across the CPU interconnect is slow or refused by the driver: move "
		       "both cards to slots of one NUMA node, or join them with an NVLink bridge";
	}
	nvlink_said(&h->nv, nv, sizeof(nv));
	gp_report_add(r, GP_F_P2P_PATH, sev, subject, hint, "%s (%s); %s", gp_path_name(cls), link,
		      nv);
}

static void check_acs_pair(const struct gp_host *h, int a, int b, struct gp_report *r)
{
	int bridges[64], n = gp_topo_path_bridges(h, a, b, bridges, 64), i;
	enum gp_path cls = gp_topo_classify(h, a, b);
	char subject[64], list[256] = "";
	size_t len = 0;

	pair_subject(h, a, b, subject);
	if (cls != GP_PATH_PIX && cls != GP_PATH_PXB) {
		gp_report_add(r, GP_F_P2P_ACS, GP_OK, subject, NULL,
			      "no switch between the GPUs: traffic goes through the root "
			      "complex (%s)",
			      gp_path_name(cls));
		return;
	}
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[bridges[i]];

		if (!d->has_acs || !(d->acs_ctrl & (GP_ACS_RR | GP_ACS_CR)))
			continue;
		if (len < sizeof(list) - 48)
			len += (size_t)snprintf(
				list + len, sizeof(list) - len, "%s%s (%s%s)", len ? ", " : "",
				d->bdf, d->acs_ctrl & GP_ACS_RR ? "ReqRedir" : "",
				d->acs_ctrl & GP_ACS_CR
					? (d->acs_ctrl & GP_ACS_RR ? " CmpltRedir" : "CmpltRedir")
					: "");
	}
	if (!len) {
		gp_report_add(r, GP_F_P2P_ACS, GP_OK, subject, NULL,
			      "no bridge on the path redirects peer requests");
		return;
	}
	gp_report_add(r, GP_F_P2P_ACS, GP_WARN, subject,
		      "disable ACS on the switch ports (BIOS 'ACS Enable' or the switch's "
		      "firmware); the GPUs may then share an IOMMU group, which is fine when "
		      "both go to the same VM",
		      "ACS sends P2P requests up to the root complex at %s", list);
}

/* ---- vfio.* ---- */

static void check_vfio(const struct gp_host *h, struct gp_report *r)
{
	if (h->vfio_blacklisted)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_FAIL, "vfio-pci",
			      "remove 'blacklist vfio_pci' from /etc/modprobe.d",
			      "vfio-pci is blacklisted in modprobe.d");
	else if (h->vfio_loaded)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_OK, "vfio-pci", NULL, "loaded");
	else if (h->vfio_available == 1)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_OK, "vfio-pci", NULL,
			      "available for kernel %s, not loaded yet (apply loads it)",
			      h->kernel_release);
	else if (h->vfio_available == 0)
		gp_report_add(r, GP_F_VFIO_MODULE, GP_FAIL, "vfio-pci",
			      "install the kernel's modules package (Debian: linux-image-amd64)",
			      "kernel %s has no vfio-pci module", h->kernel_release);
	else
		gp_report_add(r, GP_F_VFIO_MODULE, GP_WARN, "vfio-pci",
			      "check with 'modinfo vfio-pci'",
			      "cannot tell whether vfio-pci exists for kernel %s (no "
			      "/lib/modules tree)",
			      h->kernel_release[0] ? h->kernel_release : "unknown");
	if (!h->vfio_ids[0]) {
		gp_report_add(r, GP_F_VFIO_IDS_INHERITED, GP_OK, "vfio-pci", NULL,
			      "no 'vfio-pci ids=' on the command line or in modprobe.d");
		return;
	}
	gp_report_add(r, GP_F_VFIO_IDS_INHERITED, GP_WARN, "vfio-pci",
		      "remove it: vfio-pci then binds every device with these IDs at boot; "
		      "gpuprov binds by PCI address",
		      "'ids=%s' is set in %s", h->vfio_ids, h->vfio_ids_source);
}

/* ---- vm.* ---- */

/*
 * The window vm.c lays out, where OVMF opens it (the first multiple of its
 * largest power of two above RAM), must end within the guest's physical
 * address bits, which are the host's (maxphysaddr passthrough).
 */
static void check_mmio(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_vm_layout *l, struct gp_report *r)
{
	char bars[32], win[32], end[32];
	uint64_t top = gp_vm_mmio_end(l, p->vm.memory);

	gp_format_size(l->bar64_total, bars, sizeof(bars));
	gp_format_size(l->mmio_window, win, sizeof(win));
	gp_format_size(top, end, sizeof(end));
	if (!l->bar64_total) {
		gp_report_add(r, GP_F_VM_MMIO, GP_OK, p->vm.name, NULL,
			      "no 64-bit BARs: the default window does");
		return;
	}
	if (!h->phys_bits) {
		gp_report_add(r, GP_F_VM_MMIO, GP_WARN, p->vm.name,
			      "check 'address sizes' in /proc/cpuinfo",
			      "64-bit BARs of %s need a %s window ending at %s; the CPU's address "
			      "width is unknown",
			      bars, win, end);
		return;
	}
	if (h->phys_bits < 64 && top > (1ull << h->phys_bits)) {
		gp_report_add(
			r, GP_F_VM_MMIO, GP_FAIL, p->vm.name,
			"fewer or smaller-BAR GPUs per VM, less VM memory, or a CPU with "
			"more physical address bits",
			"64-bit BARs of %s need a %s window, which OVMF opens above RAM at "
			"a multiple of its size's largest power of two: it ends at %s, beyond "
			"the %d-bit guest address space",
			bars, win, end, h->phys_bits);
		return;
	}
	if (l->mmio_window <= (32ull << 30)) {
		gp_report_add(r, GP_F_VM_MMIO, GP_OK, p->vm.name, NULL,
			      "64-bit BARs %s: OVMF's default %s window, ending at %s, within %d "
			      "address bits",
			      bars, win, end, h->phys_bits);
		return;
	}
	gp_report_add(r, GP_F_VM_MMIO, GP_OK, p->vm.name, NULL,
		      "64-bit BARs %s: X-PciMmio64Mb=%" PRIu64 " (%s), ending at %s, within %d "
		      "address bits (assumes OVMF opens that size, or a larger window of its own)",
		      bars, l->mmio_window >> 20, win, end, h->phys_bits);
}

#define BACKPORTS                                                                          \
	"install QEMU 8.1 or later: on Debian 12, bookworm-backports has QEMU 10.0.2 and " \
	"libvirt 11.3.0 (add the bookworm-backports suite, then 'apt-get install -t "      \
	"bookworm-backports qemu-system-x86 libvirt-daemon-system')"

/* The clique on QEMU before 8.1, or with no room at all (vm.c decides). */
static void clique_blocked(const struct gp_host *h, const struct gp_profile *p,
			   const struct gp_vm_layout *l, const char *gpu, struct gp_report *r)
{
	bool old = l->clique_fit == GP_CLIQUE_OLD_QEMU;
	char why[200];

	if (old)
		snprintf(why, sizeof(why),
			 "QEMU %s puts x-nv-gpudirect-clique at config offset 0xC8, where %s "
			 "has a capability (MSI-X on Turing and later; QEMU 8.1 moves it to 0xD4)",
			 h->qemu_version, gpu);
	else
		snprintf(why, sizeof(why),
			 "%s has capabilities at both offsets QEMU can put "
			 "x-nv-gpudirect-clique at (0xC8 and 0xD4)",
			 gpu);
	if (l->clique_left_out) {
		gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_WARN, p->vm.name,
			      old ? BACKPORTS : "keep p2p = preferred, or pass other GPUs",
			      "%s: the clique is left out of the domain XML (p2p = preferred) so "
			      "the VM starts, and the guest driver refuses P2P",
			      why);
		return;
	}
	gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_FAIL, p->vm.name,
		      old ? BACKPORTS "; or set p2p = preferred to start the VM without the clique"
			  : "set p2p = preferred or gpudirect_clique = off",
		      "%s: the two overlap and QEMU does not start the VM", why);
}

/*
 * QEMU accepts x-nv-gpudirect-clique on NVIDIA devices only ("invalid device
 * vendor": the VM does not start), so the XML sets it on those alone; a
 * [gpus] match that selects another vendor's accelerator is said here.  True
 * when that leaves no NVIDIA GPU to judge.
 */
static bool other_vendor(const struct gp_host *h, const struct gp_vm_layout *l, struct gp_report *r,
			 const struct gp_profile *p)
{
	const struct gp_dev *d;
	int i;

	for (i = 0; i < l->ndevs; i++) {
		if (!l->devs[i].gpu || l->devs[i].nvidia)
			continue;
		d = &h->devs[l->devs[i].dev];
		gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_OK, d->bdf, NULL,
			      "vendor %04x is not NVIDIA: no GPUDirect clique on this device "
			      "(QEMU accepts x-nv-gpudirect-clique on NVIDIA devices only)",
			      d->vendor);
	}
	if (l->clique_dev >= 0)
		return false;
	gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_OK, p->vm.name, NULL,
		      "clique %d; no NVIDIA GPU in the VM: the domain XML sets none", p->vm.clique);
	return true;
}

static void check_clique(const struct gp_host *h, const struct gp_profile *p,
			 const struct gp_vm_layout *l, struct gp_report *r)
{
	const char *gpu;

	if (p->vm.clique < 0) {
		gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_OK, p->vm.name, NULL,
			      "no GPUDirect clique set (the guest driver will refuse P2P)");
		return;
	}
	if (other_vendor(h, l, r, p))
		return;
	gpu = h->devs[l->devs[l->clique_dev].dev].bdf;
	switch (l->clique_fit) {
	case GP_CLIQUE_FITS:
		if (h->qemu_version[0] && gp_version_cmp(h->qemu_version, "8.1") >= 0)
			gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_OK, p->vm.name, NULL,
				      "QEMU %s places the clique capability for Turing and later",
				      h->qemu_version);
		else
			gp_report_add(r, GP_F_VM_QEMU_CLIQUE, GP_OK, p->vm.name, NULL,
				      "clique %d: offset 0xC8, where QEMU before 8.1 puts it, is "
				      "free on every GPU",
				      p->vm.clique);
		return;
	case GP_CLIQUE_UNKNOWN:
		gp_report_add(
			r, GP_F_VM_QEMU_CLIQUE, GP_WARN, p->vm.name,
			"check 'qemu-system-x86_64 --version': 8.1 or later is needed",
			"cannot tell QEMU's version; QEMU before 8.1 puts the clique at 0xC8, "
			"where %s has a capability, and the VM does not start",
			gpu);
		return;
	default:
		clique_blocked(h, p, l, gpu, r);
	}
}

/* Free memory (or free huge pages) on the host nodes the VM's cells use. */
static uint64_t node_free(const struct gp_numa *nn, uint64_t page)
{
	if (page == (1ull << 30))
		return nn->hugepages_1g_free > 0 ? (uint64_t)nn->hugepages_1g_free << 30 : 0;
	if (page == (2ull << 20))
		return nn->hugepages_2m_free > 0 ? (uint64_t)nn->hugepages_2m_free << 21 : 0;
	return nn->mem_free;
}

static void check_memory(const struct gp_host *h, const struct gp_profile *p,
			 const struct gp_vm_layout *l, struct gp_report *r)
{
	const char *kind = p->vm.hugepages ? "free huge pages" : "free memory";
	char want[32], have[32];
	uint64_t free_bytes = 0;
	size_t i;
	int c;

	if (l->numa_known) {
		for (c = 0; c < l->ncells; c++) {
			const struct gp_numa *nn = gp_host_numa(h, l->cells[c].host_node);

			if (!nn)
				continue;
			gp_format_size(l->cells[c].memory, want, sizeof(want));
			gp_format_size(node_free(nn, p->vm.hugepages), have, sizeof(have));
			if (node_free(nn, p->vm.hugepages) < l->cells[c].memory) {
				gp_report_add(
					r, GP_F_VM_MEMORY, GP_FAIL, p->vm.name,
					p->vm.hugepages
						? "reserve more huge pages on that node "
						  "(hugepages= on the kernel command line, or "
						  "nr_hugepages in /sys/devices/system/node)"
						: "give the VM less memory, or free memory on "
						  "that node",
					"cell %d wants %s on node %d, which has %s of %s", c, want,
					l->cells[c].host_node, have, kind);
				return;
			}
		}
		gp_format_size(p->vm.memory, want, sizeof(want));
		gp_report_add(r, GP_F_VM_MEMORY, GP_OK, p->vm.name, NULL,
			      "%s fits in the %s of the GPUs' node%s", want, kind,
			      l->ncells > 1 ? "s" : "");
		return;
	}
	for (i = 0; i < h->nnuma; i++)
		free_bytes += node_free(&h->numa[i], p->vm.hugepages);
	gp_format_size(p->vm.memory, want, sizeof(want));
	gp_format_size(free_bytes, have, sizeof(have));
	if (free_bytes < p->vm.memory)
		gp_report_add(r, GP_F_VM_MEMORY, GP_FAIL, p->vm.name,
			      "give the VM less memory, or reserve more huge pages",
			      "the VM wants %s; the host has %s of %s", want, have, kind);
	else
		gp_report_add(r, GP_F_VM_MEMORY, GP_OK, p->vm.name, NULL,
			      "%s fits in the host's %s of %s", want, have, kind);
}

/* ---- nic.* and bond.* ---- */

/* The bond's ports as interfaces of this host; -1 for those missing. */
static int bond_ports(const struct gp_host *h, const struct gp_profile *p, int *idx)
{
	int i, found = 0;

	for (i = 0; i < p->bond.nslaves; i++) {
		idx[i] = gp_host_iface(h, p->bond.slaves[i]);
		found += idx[i] >= 0;
	}
	return found;
}

static void check_nic_missing(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			      struct gp_report *r)
{
	char missing[256] = "";
	size_t len = 0;
	int i;

	for (i = 0; i < p->bond.nslaves; i++)
		if (idx[i] < 0 && len < sizeof(missing) - GP_NAME_LEN)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", p->bond.slaves[i]);
	if (len)
		gp_report_add(r, GP_F_NIC_MISSING, GP_FAIL, p->bond.name,
			      "check the names with 'ip link' (or the addresses with 'lspci -D "
			      "-d 15b3:'), and that the NIC driver is loaded",
			      "no such interface on this host: %s", missing);
	else
		gp_report_add(r, GP_F_NIC_MISSING, GP_OK, p->bond.name, NULL,
			      "all %d ports present", p->bond.nslaves);
	(void)h;
}

/*
 * mlx5 makes one RoCE LAG device only from both ports of one card, and
 * nothing else, in mode 1, 2 or 4, with SR-IOV off.
 */
static void check_roce_lag(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			   struct gp_report *r)
{
	const struct gp_iface *a = idx[0] >= 0 ? &h->ifaces[idx[0]] : NULL;
	const struct gp_iface *b = p->bond.nslaves > 1 && idx[1] >= 0 ? &h->ifaces[idx[1]] : NULL;
	int i;

	for (i = 0; i < p->bond.nslaves; i++)
		if (idx[i] >= 0 && h->ifaces[idx[i]].sriov_numvfs > 0) {
			gp_report_add(
				r, GP_F_BOND_ROCE_LAG, GP_WARN, p->bond.name,
				"set sriov_numvfs to 0 on the ports for a RoCE LAG; the bond "
				"itself works either way",
				"SR-IOV is on for %s (%d VFs): the card will not form a RoCE LAG",
				h->ifaces[idx[i]].name, h->ifaces[idx[i]].sriov_numvfs);
			return;
		}
	if (p->bond.nslaves != 2 || !a || !b || !a->bdf[0] || !b->bdf[0] ||
	    strncmp(a->bdf, b->bdf, 10) || !strcmp(a->bdf, b->bdf)) {
		gp_report_add(r, GP_F_BOND_ROCE_LAG, GP_WARN, p->bond.name,
			      "use the two ports of one ConnectX card for a single RoCE LAG device "
			      "(mlx5_bond_0); the Ethernet bond works as it is",
			      "the ports are not the two functions of one card: no RoCE LAG");
		return;
	}
	gp_report_add(r, GP_F_BOND_ROCE_LAG, GP_OK, p->bond.name, NULL,
		      "%s and %s are two functions of one card (%.10s): RoCE LAG possible in %s",
		      a->name, b->name, a->bdf, p->bond.mode);
}

/* What makes an interface the host's way in: the default route, live TCP sessions. */
static bool mgmt_use(const struct gp_iface *f, char *buf, size_t len)
{
	if (f->default_route)
		snprintf(buf, len, "the default route");
	else if (f->tcp)
		snprintf(buf, len, "%d established TCP connection%s (an SSH session?)", f->tcp,
			 f->tcp > 1 ? "s" : "");
	else
		return false;
	return true;
}

/* The bridge, bond, team or VRF a port belongs to, when it is not ours. */
static const struct gp_iface *foreign_master(const struct gp_host *h, const struct gp_profile *p,
					     const struct gp_iface *f)
{
	int m;

	if (!f->master[0] || !strcmp(f->master, p->bond.name))
		return NULL;
	m = gp_host_iface(h, f->master);
	return m >= 0 ? &h->ifaces[m] : NULL;
}

static void check_mgmt(const struct gp_host *h, const struct gp_profile *p, const int *idx,
		       struct gp_report *r)
{
	const char *hint = "bonding it cuts the host off: pick other ports, or run from the "
			   "console with --force-mgmt";
	char why[128];
	int i;

	for (i = 0; i < p->bond.nslaves; i++) {
		const struct gp_iface *f = idx[i] >= 0 ? &h->ifaces[idx[i]] : NULL;
		const struct gp_iface *m = f ? foreign_master(h, p, f) : NULL;

		if (f && mgmt_use(f, why, sizeof(why))) {
			gp_report_add(r, GP_F_BOND_MGMT, GP_FAIL, p->bond.name, hint,
				      "%s carries %s", f->name, why);
			return;
		}
		if (m && mgmt_use(m, why, sizeof(why))) {
			gp_report_add(r, GP_F_BOND_MGMT, GP_FAIL, p->bond.name, hint,
				      "%s is a port of %s, which carries %s", f->name, m->name,
				      why);
			return;
		}
	}
	gp_report_add(r, GP_F_BOND_MGMT, GP_OK, p->bond.name, NULL,
		      "no port, nor its bridge or bond, carries the default route or an "
		      "established TCP connection");
}

/*
 * A port of a bridge or of another bond: enslaving takes it out, and undo
 * cannot put it back where it was.  Refused even with --force-mgmt.
 */
static void check_port_master(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			      struct gp_report *r)
{
	int i, n = 0;

	for (i = 0; i < p->bond.nslaves; i++) {
		const struct gp_iface *f = idx[i] >= 0 ? &h->ifaces[idx[i]] : NULL;
		const struct gp_iface *m = f ? foreign_master(h, p, f) : NULL;
		char what[160];

		if (f && f->master[0] && strcmp(f->master, p->bond.name))
			snprintf(what, sizeof(what), "already a port of %s%s", f->master,
				 m && m->is_bond ? " (a bond)" : "");
		else if (f && f->upper[0])
			snprintf(what, sizeof(what), "%s sits on top of it", f->upper);
		else
			continue;
		gp_report_add(r, GP_F_BOND_PORT_MASTER, GP_FAIL, f->name,
			      "take it out first ('ip link set PORT nomaster', or remove the VLAN) "
			      "and move what that interface carries: gpuprov does not take a "
			      "port from another bridge or bond, its undo could not put it back",
			      "%s", what);
		n++;
	}
	if (!n)
		gp_report_add(r, GP_F_BOND_PORT_MASTER, GP_OK, p->bond.name, NULL,
			      "no port belongs to another bridge or bond, or carries a VLAN");
}

static void check_nic_numa(const struct gp_host *h, const struct gp_profile *p, const int *idx,
			   struct gp_report *r)
{
	int n, *gpus = gp_gpus(h, &n), i, gnode = n ? h->devs[gpus[0]].numa_node : -1;

	free(gpus);
	for (i = 0; i < p->bond.nslaves; i++) {
		const struct gp_iface *f = idx[i] >= 0 ? &h->ifaces[idx[i]] : NULL;
		int node = f && f->dev >= 0 ? h->devs[f->dev].numa_node : -1;

		if (!f || node < 0 || gnode < 0 || node == gnode)
			continue;
		gp_report_add(r, GP_F_BOND_NIC_NUMA, GP_WARN, p->bond.name,
			      "put the RoCE card in a slot of the GPUs' node: GPUDirect RDMA "
			      "then stays on one socket",
			      "%s is on NUMA node %d, the GPUs on node %d", f->name, node, gnode);
		return;
	}
	gp_report_add(r, GP_F_BOND_NIC_NUMA, GP_OK, p->bond.name, NULL,
		      gnode < 0 ? "NUMA nodes unknown or no GPU: nothing to compare"
				: "the ports share the GPUs' NUMA node");
}

/*
 * systemd-networkd applies to an interface only the first .network file, in
 * name order, that matches it: an older file of the operator's that sorts
 * before gpuprov's 60-gpuprov-*.network keeps a port out of the bond after
 * a reboot, although the live bond works.
 */
static int shadowed(const struct gp_host *h, const struct gp_profile *p, const char *name,
		    const char *mac, struct gp_report *r)
{
	const struct gp_netfile *f = gp_networkd_first(h, name, mac);
	char ours[GP_NAME_LEN + 32];

	snprintf(ours, sizeof(ours), GP_NETWORKD_PREFIX "%s.network", name);
	if (!f || strcmp(f->name, ours) > 0)
		return 0;
	gp_report_add(r, GP_F_BOND_PERSIST_SHADOWED, GP_FAIL, name,
		      "make gpuprov's file come first: rename that file to sort after it, "
		      "or stop it matching (or set persist = none)",
		      "%s matches %s and sorts before %s: networkd applies only the first, so "
		      "after a reboot %s would not be %s",
		      f->path, name, ours, name,
		      strcmp(name, p->bond.name) ? "a port of the bond" : "configured as the bond");
	return 1;
}

static void check_persist_shadowed(const struct gp_host *h, const struct gp_profile *p,
				   const int *idx, struct gp_report *r)
{
	int i, bad;

	if (strcmp(gp_netconf_owner(h, p), "networkd"))
		return;
	bad = shadowed(h, p, p->bond.name, "", r);
	for (i = 0; i < p->bond.nslaves; i++)
		bad += shadowed(h, p, idx[i] >= 0 ? h->ifaces[idx[i]].name : p->bond.slaves[i],
				idx[i] >= 0 ? h->ifaces[idx[i]].mac : "", r);
	if (!bad)
		gp_report_add(r, GP_F_BOND_PERSIST_SHADOWED, GP_OK, p->bond.name, NULL,
			      "gpuprov's .network files come first for the bond and its ports");
}

static void check_bond(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int idx[GP_MAX_LIST];

	if (!p->has_bond)
		return;
	bond_ports(h, p, idx);
	check_nic_missing(h, p, idx, r);
	check_roce_lag(h, p, idx, r);
	check_mgmt(h, p, idx, r);
	check_port_master(h, p, idx, r);
	check_nic_numa(h, p, idx, r);
	check_persist_shadowed(h, p, idx, r);
}

/* ---- the VM's preflight: what its first start needs ---- */

/* Disk images may come after apply (the runbook creates them): a warning. */
static void check_disks(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int i;

	for (i = 0; i < h->nvm_files; i++) {
		const struct gp_vm_file *f = &h->vm_files[i];

		if (strcmp(f->role, "disk") || f->exists < 0)
			continue;
		if (f->exists)
			gp_report_add(r, GP_F_VM_DISK, GP_OK, p->vm.name, NULL,
				      "disk image %s exists", f->path);
		else
			gp_report_add(r, GP_F_VM_DISK, GP_WARN, p->vm.name,
				      "create it before 'virsh start' (qemu-img create -f qcow2 "
				      "PATH 100G, or copy a cloud image), or point the template's "
				      "<disk> at an image you have",
				      "disk image %s does not exist: the VM cannot start", f->path);
	}
}

static void check_firmware(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int i;

	for (i = 0; i < h->nvm_files; i++) {
		const struct gp_vm_file *f = &h->vm_files[i];

		if (!strcmp(f->role, "disk") || f->exists < 0)
			continue;
		if (f->exists)
			gp_report_add(r, GP_F_VM_FIRMWARE, GP_OK, p->vm.name, NULL, "%s %s exists",
				      f->role, f->path);
		else
			gp_report_add(r, GP_F_VM_FIRMWARE, GP_FAIL, p->vm.name,
				      "install the OVMF firmware (Debian/Ubuntu: apt install "
				      "ovmf), or correct the path in the domain template",
				      "%s %s does not exist: the VM cannot boot UEFI", f->role,
				      f->path);
	}
}

static void check_kvm(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	if (h->kvm < 0)
		return;
	if (h->kvm)
		gp_report_add(r, GP_F_VM_KVM, GP_OK, p->vm.name, NULL, "/dev/kvm exists");
	else
		gp_report_add(r, GP_F_VM_KVM, GP_FAIL, p->vm.name,
			      "enable SVM (AMD) or VT-x (Intel) in the BIOS and load kvm_amd or "
			      "kvm_intel",
			      "no /dev/kvm: the VM would run without hardware virtualization");
}

static void check_running(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	if (h->vm_running < 0)
		return;
	if (!h->vm_running)
		gp_report_add(r, GP_F_VM_RUNNING, GP_OK, p->vm.name, NULL,
			      "no domain of this name is running");
	else
		gp_report_add(r, GP_F_VM_RUNNING, GP_FAIL, p->vm.name,
			      "shut it down first (virsh shutdown): its GPUs and its definition "
			      "are what apply changes",
			      "a domain of this name is running: virsh -c %s shutdown %s",
			      p->vm.uri, p->vm.name);
}

/* Said plainly, not only with -v: what apply will not know until it runs. */
static void check_libvirt(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	if (!h->libvirt_error[0])
		return;
	/* not a libvirt that is down: a root apply's domain.define refuses too */
	if (h->libvirt_refused) {
		gp_report_add(r, GP_F_VM_EMBED, GP_FAIL, p->vm.name,
			      "make the embedded root and all it holds root's and writable by "
			      "no one else (gpuprov(8), SECURITY CONSIDERATIONS)",
			      "libvirt at %s is not opened: %s", p->vm.uri, h->libvirt_error);
		return;
	}
	gp_report_add(r, GP_F_VM_LIBVIRT, GP_WARN, p->vm.name,
		      "start libvirtd (systemctl start libvirtd), or correct [vm] uri; "
		      "apply's domain.define needs it",
		      "libvirt at %s cannot be reached: %s", p->vm.uri, h->libvirt_error);
}

/* numa = strict pins each cell's vCPUs to its node's CPUs: more would share them. */
static void check_vcpus(const struct gp_host *h, const struct gp_profile *p,
			const struct gp_vm_layout *l, struct gp_report *r)
{
	int c, cpus, total = 0;

	if (!l->numa_known) {
		total = 0;
		for (c = 0; c < (int)h->nnuma; c++)
			total += gp_cpulist_count(h->numa[c].cpus) > 0
					 ? gp_cpulist_count(h->numa[c].cpus)
					 : 0;
		if (total && (int)p->vm.vcpus > total)
			gp_report_add(r, GP_F_VM_VCPUS, GP_FAIL, p->vm.name,
				      "give the VM fewer vCPUs", "%u vCPUs, the host has %d CPUs",
				      p->vm.vcpus, total);
		else if (total)
			gp_report_add(r, GP_F_VM_VCPUS, GP_OK, p->vm.name, NULL,
				      "%u vCPUs, the host has %d CPUs", p->vm.vcpus, total);
		return;
	}
	for (c = 0; c < l->ncells; c++) {
		cpus = gp_cpulist_count(l->cells[c].cpus);
		if (cpus > 0 && (int)l->cells[c].vcpus > cpus) {
			gp_report_add(r, GP_F_VM_VCPUS, GP_FAIL, p->vm.name,
				      "give the VM fewer vCPUs, or set [vm] numa = none",
				      "cell %d has %u vCPUs pinned to node %d, which has %d CPUs",
				      c, l->cells[c].vcpus, l->cells[c].host_node, cpus);
			return;
		}
		total += cpus > 0 ? cpus : 0;
	}
	gp_report_add(r, GP_F_VM_VCPUS, GP_OK, p->vm.name, NULL,
		      "%u vCPUs on the %d CPUs of the node%s they are pinned to", p->vm.vcpus,
		      total, l->ncells > 1 ? "s" : "");
}

static void check_vm(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	struct gp_vm_layout l;

	if (!p->has_vm)
		return;
	gp_vm_layout(h, p, &l);
	check_mmio(h, p, &l, r);
	check_clique(h, p, &l, r);
	check_memory(h, p, &l, r);
	check_vcpus(h, p, &l, r);
	check_kvm(h, p, r);
	check_firmware(h, p, r);
	check_disks(h, p, r);
	check_running(h, p, r);
	check_libvirt(h, p, r);
}

void gp_checks_run(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int n, *gpus = gp_gpus(h, &n), i, j;
	struct gp_hop_words words = { .n = 0 };

	check_iommu_off(h, r);
	check_bios(h, p, r);
	check_count(p, n, r);
	check_numa(h, p, gpus, n, r);
	for (i = 0; i < n; i++) {
		check_group(h, p, gpus[i], r);
		check_numa_readable(&h->devs[gpus[i]], r);
		check_bars(&h->devs[gpus[i]], r);
		check_slot(h, p, gpus[i], r);
		check_link(h, gpus[i], r);
		check_in_use(h, gpus[i], r);
		check_reset(&h->devs[gpus[i]], r);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			check_p2p_pair(h, p, gpus[i], gpus[j], &words, r);
			check_acs_pair(h, gpus[i], gpus[j], r);
		}
	check_companions(h, p, r);
	check_vfio(h, r);
	check_vm(h, p, r);
	check_bond(h, p, r);
	free(gpus);
}
