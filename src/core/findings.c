// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every finding id, what a failure of it blocks, and whether --accept may let
 * it through.  A finding bears on the steps of its area: nic.* and bond.* on
 * the bond's, vm.* on the VM's, the rest (IOMMU, BARs, GPUs, P2P, vfio,
 * companions, BIOS) on the binding of the GPUs, which a plain apply always
 * includes; drift.* come from check --baseline and block nothing.  No
 * --accept lets through the safety rules (a GPU held open is never unbound;
 * nothing the host lives on is taken from it; a port of another bridge or
 * bond is not stolen) or an IOMMU that is off, without which vfio cannot
 * isolate anything.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/findings.h"
#include "shared/util.h"

#define F(e, i, g)     [e] = { .id = i, .groups = g, .acceptable = true }
#define GUARD(e, i, g) [e] = { .id = i, .groups = g, .acceptable = false }

const struct gp_finding_kind gp_finding_kinds[GP_F_COUNT] = {
	GUARD(GP_F_IOMMU_OFF, "iommu.off", GP_GROUP_VFIO),
	F(GP_F_IOMMU_GROUP_SHARED, "iommu.group_shared", GP_GROUP_VFIO),
	F(GP_F_BIOS_VERSION, "bios.version", GP_GROUP_VFIO),
	F(GP_F_BAR_UNASSIGNED, "bar.unassigned", GP_GROUP_VFIO),
	F(GP_F_BAR_BELOW_4G, "bar.below_4g", GP_GROUP_VFIO),
	F(GP_F_GPU_COUNT, "gpu.count", GP_GROUP_VFIO),
	F(GP_F_GPU_SLOT, "gpu.slot", GP_GROUP_VFIO),
	F(GP_F_GPU_NUMA_SPLIT, "gpu.numa_split", GP_GROUP_VFIO),
	F(GP_F_GPU_LINK, "gpu.link", GP_GROUP_VFIO),
	GUARD(GP_F_GPU_IN_USE, "gpu.in_use", GP_GROUP_VFIO),
	F(GP_F_GPU_RESET, "gpu.reset", GP_GROUP_VFIO),
	F(GP_F_P2P_PATH, "p2p.path", GP_GROUP_VFIO),
	F(GP_F_P2P_ACS, "p2p.acs", GP_GROUP_VFIO),
	F(GP_F_VFIO_MODULE, "vfio.module", GP_GROUP_VFIO),
	F(GP_F_VFIO_IDS_INHERITED, "vfio.ids_inherited", GP_GROUP_VFIO),
	F(GP_F_VM_MMIO, "vm.mmio", GP_GROUP_VM),
	F(GP_F_VM_QEMU_CLIQUE, "vm.qemu_clique", GP_GROUP_VM),
	F(GP_F_VM_MEMORY, "vm.memory", GP_GROUP_VM),
	F(GP_F_NIC_MISSING, "nic.missing", GP_GROUP_BOND),
	F(GP_F_BOND_ROCE_LAG, "bond.roce_lag", GP_GROUP_BOND),
	F(GP_F_BOND_MGMT, "bond.mgmt", GP_GROUP_BOND),
	F(GP_F_BOND_NIC_NUMA, "bond.nic_numa", GP_GROUP_BOND),
	GUARD(GP_F_COMPANION_UNSAFE, "companion.unsafe", GP_GROUP_VFIO),
	F(GP_F_BOND_PERSIST_SHADOWED, "bond.persist_shadowed", GP_GROUP_BOND),
	GUARD(GP_F_BOND_PORT_MASTER, "bond.port_master", GP_GROUP_BOND),
	F(GP_F_VM_DISK, "vm.disk", GP_GROUP_VM),
	F(GP_F_VM_FIRMWARE, "vm.firmware", GP_GROUP_VM),
	F(GP_F_VM_KVM, "vm.kvm", GP_GROUP_VM),
	F(GP_F_VM_RUNNING, "vm.running", GP_GROUP_VM),
	F(GP_F_VM_VCPUS, "vm.vcpus", GP_GROUP_VM),
	F(GP_F_VM_LIBVIRT, "vm.libvirt", GP_GROUP_VM),
	F(GP_F_VM_EMBED, "vm.embed", GP_GROUP_VM),
	F(GP_F_DRIFT_ADDED, "drift.added", 0),
	F(GP_F_DRIFT_MISSING, "drift.missing", 0),
	F(GP_F_DRIFT_MOVED, "drift.moved", 0),
	F(GP_F_DRIFT_LINK, "drift.link", 0),
	F(GP_F_DRIFT_ACS, "drift.acs", 0),
	F(GP_F_DRIFT_IOMMU_GROUP, "drift.iommu_group", 0),
	F(GP_F_DRIFT_BIOS, "drift.bios", 0),
	F(GP_F_DRIFT_CMDLINE, "drift.cmdline", 0),
	F(GP_F_SERVER_MODEL, "server.model", GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM),
	F(GP_F_DRIFT_HOST, "drift.host", 0),
	GUARD(GP_F_PROFILE_TRUST, "profile.trust", GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM),
	F(GP_F_DRIFT_DRIVER, "drift.driver", 0),
	F(GP_F_GPU_HEALTH, "gpu.health", GP_GROUP_VFIO),
	F(GP_F_VM_PINNING, "vm.pinning", GP_GROUP_VM),
	F(GP_F_PERSIST_READONLY, "persist.readonly", GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM),
	F(GP_F_VM_BAR_MMAP, "vm.bar_mmap", GP_GROUP_VM),
	F(GP_F_VM_QEMU_VERSION, "vm.qemu_version", GP_GROUP_VM),
	F(GP_F_FABRIC_BASEBOARD, "fabric.baseboard", GP_GROUP_VFIO | GP_GROUP_VM),
	F(GP_F_FABRIC_PARTIAL, "fabric.partial", GP_GROUP_VFIO | GP_GROUP_VM),
	F(GP_F_FABRIC_MANAGER, "fabric.manager", GP_GROUP_VFIO | GP_GROUP_VM),
	F(GP_F_FABRIC_VERSION, "fabric.version", GP_GROUP_VFIO | GP_GROUP_VM),
	F(GP_F_BOOT_CLAIM, "boot.claim", 0), /* apply's persist.vfio is what settles it */
	F(GP_F_NIC_RAIL, "nic.rail", GP_GROUP_VFIO),
	F(GP_F_NIC_ATS, "nic.ats", GP_GROUP_VM),
	F(GP_F_NIC_ACS, "nic.acs", GP_GROUP_VM),
	F(GP_F_KERNEL_NOATS, "kernel.noats", GP_GROUP_VM),
	F(GP_F_NIC_SRIOV_LAG, "nic.sriov_lag", GP_GROUP_VFIO),
	F(GP_F_NIC_FIRMWARE, "nic.firmware", GP_GROUP_VFIO),
};

const struct gp_finding_kind *gp_finding_kind(const char *id)
{
	int i;

	for (i = 0; i < GP_F_COUNT; i++)
		if (!strcmp(gp_finding_kinds[i].id, id))
			return &gp_finding_kinds[i];
	return NULL;
}

/* ---- the report ---- */

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
