// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The VM's findings (vm.*): its MMIO window, the GPUDirect clique, what
 * the host's QEMU and kernel lack for its GPUs, BAR mmap left on, memory
 * and vCPUs on the GPUs' nodes, and what its first start needs (KVM,
 * firmware, disks, no domain of its name running, libvirt).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/check_vm.h"
#include "core/hostq.h"
#include "core/hugepages.h"
#include "core/pinning.h"
#include "core/vm.h"
#include "shared/util.h"

/* ---- vm.* ---- */

/* A BAR from which faulting it 4 KiB at a time slows the VM's start (vm.qemu_version). */
#define GP_LARGE_BAR (64ull << 30)

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

/* A node that lacks pages and cannot get them at runtime: why, and how else. */
static void huge_fail(const struct gp_profile *p, const struct gp_vm_layout *l,
		      const struct gp_huge_node *n, struct gp_report *r)
{
	const char *size = gp_hugepages_size_name(n->size_kb);
	char want[32], have[32], mem[32], boot[80], hint[200];

	gp_format_size(l->cells[n->cell].memory, want, sizeof(want));
	gp_format_size((uint64_t)(n->free > 0 ? n->free : 0) * ((uint64_t)n->size_kb << 10), have,
		       sizeof(have));
	gp_format_size(n->mem_free, mem, sizeof(mem));
	gp_hugepages_cmdline(n, n->need, boot, sizeof(boot));
	if (n->verdict == GP_HUGE_NO_POOL) {
		snprintf(hint, sizeof(hint),
			 "give the kernel a pool of that size at boot (kernel command line: %s%s), "
			 "or set [vm] hugepages to a size the host has",
			 boot, n->size_kb == 1048576 ? "; 1 GiB pages need the CPU's pdpe1gb" : "");
		gp_report_add(r, GP_F_VM_MEMORY, GP_FAIL, p->vm.name, hint,
			      "cell %d wants %s on node %d, which has no pool of %s pages "
			      "(no hugepages-%ukB in /sys/devices/system/node/node%d/hugepages)",
			      n->cell, want, n->node, size, n->size_kb, n->node);
		return;
	}
	snprintf(hint, sizeof(hint),
		 "give the VM less memory, free memory on that node, or reserve the pages at "
		 "boot (kernel command line: %s)",
		 boot);
	gp_report_add(r, GP_F_VM_MEMORY, GP_FAIL, p->vm.name, hint,
		      "cell %d wants %s on node %d, which has %s of free huge pages and %s of free "
		      "memory: too little to reserve the other %ld pages of %s",
		      n->cell, want, n->node, have, mem, n->add, size);
}

/* What hugepages.reserve will do on a node; 1 GiB pages are often not found at runtime. */
static void huge_reserve(const struct gp_profile *p, const struct gp_vm_layout *l,
			 const struct gp_huge_node *n, struct gp_report *r)
{
	const char *size = gp_hugepages_size_name(n->size_kb);
	char want[32], have[32], boot[80], hint[200];

	gp_format_size(l->cells[n->cell].memory, want, sizeof(want));
	gp_format_size((uint64_t)n->free * ((uint64_t)n->size_kb << 10), have, sizeof(have));
	gp_hugepages_cmdline(n, n->nr + n->add, boot, sizeof(boot));
	/* not "command line": the report's reboot section would ask for one the step saves */
	snprintf(hint, sizeof(hint),
		 n->size_kb == 1048576 ? "1 GiB pages are often not found at runtime: when the "
					 "kernel finds fewer, "
					 "apply undoes the step; then have the kernel reserve them "
					 "as it starts: %s"
				       : "apply reserves them now and at each boot "
					 "(gpuprov-hugepages.service); the "
					 "kernel can also reserve them as it starts: %s",
		 boot);
	gp_report_add(r, GP_F_VM_MEMORY, GP_WARN, p->vm.name, hint,
		      "cell %d wants %s on node %d, which has %s of free huge pages: the plan "
		      "reserves %ld more pages of %s there (hugepages.reserve)",
		      n->cell, want, n->node, have, n->add, size);
}

/*
 * Each cell's node, by its pool of the page size: enough free, a step that
 * reserves the rest (a warning: the plan acts), or a failure that says why
 * it cannot.  False when no node lacks pages.
 */
static bool check_huge_nodes(const struct gp_host *h, const struct gp_profile *p,
			     const struct gp_vm_layout *l, struct gp_report *r)
{
	struct gp_hugepages hp;
	bool lacking = false;
	int i;

	gp_hugepages_from(h, p, l, &hp);
	for (i = 0; i < hp.n; i++)
		if (hp.nodes[i].verdict == GP_HUGE_NO_POOL ||
		    hp.nodes[i].verdict == GP_HUGE_NO_MEMORY) {
			huge_fail(p, l, &hp.nodes[i], r);
			return true;
		}
	for (i = 0; i < hp.n; i++)
		if (hp.nodes[i].verdict == GP_HUGE_RESERVE) {
			huge_reserve(p, l, &hp.nodes[i], r);
			lacking = true;
		}
	return lacking;
}

static void check_memory(const struct gp_host *h, const struct gp_profile *p,
			 const struct gp_vm_layout *l, struct gp_report *r)
{
	const char *kind = p->vm.hugepages ? "free huge pages" : "free memory";
	char want[32], have[32];
	uint64_t free_bytes = 0;
	size_t i;
	int c;

	if (l->numa_known && p->vm.hugepages && check_huge_nodes(h, p, l, r))
		return;
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

/* ---- vm.pinning: what pinning.c chose ---- */

static void check_pinning(const struct gp_host *h, const struct gp_profile *p,
			  const struct gp_vm_layout *l, struct gp_report *r)
{
	struct gp_vm_pins pins;
	const struct gp_vm_cell *sc;

	gp_vm_pins(h, l, &pins);
	if (!pins.nvcpus) {
		gp_report_add(r, GP_F_VM_PINNING, GP_OK, p->vm.name, NULL,
			      "vCPUs not pinned: the NUMA nodes of the VM's devices are not known");
	} else if (pins.short_cell >= 0) {
		sc = &l->cells[pins.short_cell];
		gp_report_add(r, GP_F_VM_PINNING, GP_WARN, p->vm.name,
			      "give the VM fewer vCPUs, so that each has a CPU of its own",
			      "node %d has %d CPUs beside its housekeeping core, cell %d has %u "
			      "vCPUs: they float over %s",
			      sc->host_node, pins.short_have, pins.short_cell, sc->vcpus,
			      pins.floats[pins.short_cell]);
	} else {
		gp_report_add(r, GP_F_VM_PINNING, GP_OK, p->vm.name, NULL,
			      "each vCPU on a CPU of its own%s; emulator and I/O threads on %s",
			      pins.threads > 1 ? ", SMT siblings paired (the guest sees "
						 "2 threads a core)"
			      : pins.smt_known ? ""
					       : " (the host does not say its CPUs' SMT siblings)",
			      pins.housekeeping);
	}
	gp_vm_pins_release(&pins);
}

/* ---- what the VM's QEMU and the host's kernel give the GPUs ---- */

/* The passed GPU an x-no-mmap names (its alias or host address), or -1. */
static int nommap_gpu(const struct gp_host *h, const struct gp_vm_layout *l, const char *target)
{
	const char *bdf;
	int i;

	for (i = 0; i < l->ndevs; i++) {
		if (!l->devs[i].gpu)
			continue;
		bdf = h->devs[l->devs[i].dev].bdf;
		if (!strcmp(target, l->devs[i].alias) || !strcmp(target, bdf) ||
		    (strlen(target) == 7 && !strcmp(bdf + 5, target)))
			return i;
	}
	return -1;
}

/*
 * x-no-mmap makes QEMU trap every access to the BAR instead of mapping it,
 * and QEMU maps into the IOMMU only the BARs it mmaps (RAM device regions):
 * a peer's DMA to that GPU's BAR then faults.  A template that does it fails.
 */
static void check_bar_mmap(const struct gp_host *h, const struct gp_profile *p,
			   const struct gp_vm_layout *l, struct gp_report *r)
{
	bool failed = false;
	int i, g;

	if (!h->vm_xml_read)
		return;
	for (i = 0; i < h->nvm_nommap; i++) {
		const struct gp_vm_nommap *m = &h->vm_nommap[i];
		bool all = !strcmp(m->target, "*");

		g = all ? -1 : nommap_gpu(h, l, m->target);
		if (!all && g < 0)
			continue;
		failed = true;
		gp_report_add(r, GP_F_VM_BAR_MMAP, GP_FAIL,
			      all ? p->vm.name : h->devs[l->devs[g].dev].bdf,
			      "remove x-no-mmap from the domain template",
			      "'%s' turns BAR mmap off on %s: QEMU traps every access to its "
			      "BARs and leaves them out of the IOMMU, where a peer's DMA to them "
			      "faults: P2P between the GPUs stops",
			      m->how, all ? "every passed GPU" : "this GPU");
	}
	if (!failed)
		gp_report_add(r, GP_F_VM_BAR_MMAP, GP_OK, p->vm.name, NULL,
			      "no x-no-mmap on a passed GPU: QEMU maps their BARs for the "
			      "guest and for P2P");
}

/* The largest 64-bit BAR of a passed GPU. */
static uint64_t largest_bar(const struct gp_host *h, const struct gp_vm_layout *l)
{
	uint64_t big = 0;
	int i, b;

	for (i = 0; i < l->ndevs; i++) {
		const struct gp_dev *d = &h->devs[l->devs[i].dev];

		for (b = 0; l->devs[i].gpu && b < GP_MAX_BARS; b++)
			if (d->bars[b].is64 && d->bars[b].size > big)
				big = d->bars[b].size;
	}
	return big;
}

static void lack(char *buf, size_t len, const char *what)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? "; " : "", what);
}

/* What QEMU and the kernel lack for BARs this large, said in buf. */
static void lacks_large_bars(const struct gp_host *h, const struct gp_vm_layout *l, char *buf,
			     size_t len)
{
	char size[32];

	if (largest_bar(h, l) < GP_LARGE_BAR)
		return;
	gp_format_size(largest_bar(h, l), size, sizeof(size));
	if (gp_version_cmp(h->qemu_version, "9.2") < 0)
		lack(buf, len,
		     "QEMU 9.2 aligns its BAR mmaps to the BAR's size (commit 00b519c0 "
		     "'vfio/helpers: Align mmaps'): before it the kernel cannot map a BAR with "
		     "1 GiB pages");
	if (h->kernel_release[0] && gp_version_cmp(h->kernel_release, "6.12") < 0)
		lack(buf, len,
		     "Linux 6.12 maps BARs with huge pages on a fault (commit f9e54c3a2f5b "
		     "'vfio/pci: implement huge_fault support')");
	if (buf[0]) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n,
			 " (a %s BAR mapped in small pages: the VM can take minutes to start)",
			 size);
	}
}

/*
 * What the host's QEMU and kernel lack for this VM: a slower start is said
 * (ok, the gap named: the VM works), a gap that stops P2P warns.
 */
static void check_qemu_version(const struct gp_host *h, const struct gp_profile *p,
			       const struct gp_vm_layout *l, struct gp_report *r)
{
	const char *kernel = h->kernel_release[0] ? h->kernel_release : "(unknown)";
	char buf[900] = "";

	if (h->vm_iommufd &&
	    (!h->kernel_release[0] || gp_version_cmp(h->kernel_release, "6.19") < 0)) {
		gp_report_add(r, GP_F_VM_QEMU_VERSION, GP_WARN, p->vm.name,
			      "leave iommufd off (the VFIO container maps the BARs), or run Linux "
			      "6.19 or later",
			      "Linux %s: the VM uses iommufd, which maps a peer's BARs for DMA "
			      "only from Linux 6.19 (VFIO_DEVICE_FEATURE_DMA_BUF): before it QEMU "
			      "says 'PCI peer-to-peer transactions on BARs are not supported' and "
			      "P2P between the GPUs stops",
			      kernel);
		return;
	}
	if (!h->qemu_version[0]) {
		gp_report_add(r, GP_F_VM_QEMU_VERSION, GP_OK, p->vm.name, NULL,
			      "cannot tell QEMU's version: the clique's offset (8.1) and aligned "
			      "BAR mmaps (9.2) are not judged");
		return;
	}
	if (l->clique_fit == GP_CLIQUE_OLD_QEMU)
		lack(buf, sizeof(buf),
		     "QEMU 8.1 moves the GPUDirect clique to config offset 0xD4 (vm.qemu_clique)");
	lacks_large_bars(h, l, buf, sizeof(buf));
	if (buf[0])
		gp_report_add(r, GP_F_VM_QEMU_VERSION, GP_OK, p->vm.name, NULL,
			      "QEMU %s, Linux %s lack: %s; QEMU 9.2 or later and Linux 6.12 or "
			      "later (Debian 12: bookworm-backports) have it",
			      h->qemu_version, kernel, buf);
	else
		gp_report_add(r, GP_F_VM_QEMU_VERSION, GP_OK, p->vm.name, NULL,
			      "QEMU %s, Linux %s: what the GPUs' clique and BARs need is there",
			      h->qemu_version, kernel);
}

void gp_check_vm(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	struct gp_vm_layout l;

	if (!p->has_vm)
		return;
	gp_vm_layout(h, p, &l);
	check_mmio(h, p, &l, r);
	check_clique(h, p, &l, r);
	check_qemu_version(h, p, &l, r);
	check_bar_mmap(h, p, &l, r);
	check_memory(h, p, &l, r);
	check_vcpus(h, p, &l, r);
	check_pinning(h, p, &l, r);
	check_kvm(h, p, r);
	check_firmware(h, p, r);
	check_disks(h, p, r);
	check_running(h, p, r);
	check_libvirt(h, p, r);
}
