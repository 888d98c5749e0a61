// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The GPUs' findings (bios.*, gpu.*, bar.*, companion.*): the BIOS, the
 * GPUs' count and NUMA nodes, each GPU's slot, link, BARs, holders and reset,
 * and the endpoints that would leave the host with them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check_gpu.h"
#include "core/fabric.h"
#include "core/hostq.h"
#include "core/pcicfg.h"
#include "core/topo.h"
#include "shared/util.h"

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

	if (d->config_dead) {
		gp_report_add(r, GP_F_GPU_LINK, GP_WARN, d->bdf, "see gpu.health",
			      "cannot read the PCIe link: the card's config space does not answer");
		return;
	}
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

/*
 * Fabric Manager on the host holds the NVSwitches' nodes (and with them, for
 * this check, every GPU of the nvidia driver); in full passthrough fabric.mask
 * stops it before the first unbind, so it is no holder to refuse on.
 */
static bool stopped_by_plan(const struct gp_host *h, const struct gp_profile *p,
			    const struct gp_holder *x)
{
	return p->fabric == GP_FABRIC_FULL && h->fm.read && h->fm.running == 1 &&
	       !strcmp(x->comm, GP_FM_PROCESS);
}

static void check_in_use(const struct gp_host *h, const struct gp_profile *p, int g,
			 struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[g];
	char who[400] = "";
	size_t i, len = 0;
	int n = 0;

	for (i = 0; i < h->nholders; i++) {
		const struct gp_holder *x = &h->holders[i];

		if (!holder_has(h, x, g) || stopped_by_plan(h, p, x))
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

void gp_check_reset(const struct gp_dev *d, struct gp_report *r)
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
void gp_check_companions(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
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

void gp_check_gpu_host(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int n, *gpus = gp_gpus(h, &n);

	check_bios(h, p, r);
	check_count(p, n, r);
	check_numa(h, p, gpus, n, r);
	free(gpus);
}

void gp_check_gpu(const struct gp_host *h, const struct gp_profile *p, int g, struct gp_report *r)
{
	check_numa_readable(&h->devs[g], r);
	check_bars(&h->devs[g], r);
	check_slot(h, p, g, r);
	check_link(h, g, r);
	check_in_use(h, p, g, r);
	gp_check_reset(&h->devs[g], r);
}
