/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * findings.c: every finding id, once.  A check reports an enum gp_fid (a
 * mistyped id does not compile); its string, the steps a failure blocks and
 * whether --accept may let it through are this table's.  --accept, the plan
 * and tests/cli/t_docs.sh (the man page and docs/CONTRACTS.md list each) read
 * it.  A new finding: an enum value, a table line, the check that reports it.
 * And the report: the findings a run of the checks (or a drift) adds, in order.
 */
#ifndef GP_FINDINGS_H
#define GP_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "shared/strpool.h"

/* The steps a failed finding blocks (plan.c); 0: none (drift.*, a report). */
enum gp_group {
	GP_GROUP_VFIO = 1,
	GP_GROUP_BOND = 2,
	GP_GROUP_VM = 4
};

enum gp_fid {
	GP_F_IOMMU_OFF,
	GP_F_IOMMU_GROUP_SHARED,
	GP_F_BIOS_VERSION,
	GP_F_BAR_UNASSIGNED,
	GP_F_BAR_BELOW_4G,
	GP_F_GPU_COUNT,
	GP_F_GPU_SLOT,
	GP_F_GPU_NUMA_SPLIT,
	GP_F_GPU_LINK,
	GP_F_GPU_IN_USE,
	GP_F_GPU_RESET,
	GP_F_P2P_PATH,
	GP_F_P2P_ACS,
	GP_F_VFIO_MODULE,
	GP_F_VFIO_IDS_INHERITED,
	GP_F_VM_MMIO,
	GP_F_VM_QEMU_CLIQUE,
	GP_F_VM_MEMORY,
	GP_F_NIC_MISSING,
	GP_F_BOND_ROCE_LAG,
	GP_F_BOND_MGMT,
	GP_F_BOND_NIC_NUMA,
	GP_F_COMPANION_UNSAFE,
	GP_F_BOND_PERSIST_SHADOWED,
	GP_F_BOND_PORT_MASTER,
	GP_F_VM_DISK,
	GP_F_VM_FIRMWARE,
	GP_F_VM_KVM,
	GP_F_VM_RUNNING,
	GP_F_VM_VCPUS,
	GP_F_VM_LIBVIRT,
	GP_F_VM_EMBED,
	GP_F_DRIFT_ADDED,
	GP_F_DRIFT_MISSING,
	GP_F_DRIFT_MOVED,
	GP_F_DRIFT_LINK,
	GP_F_DRIFT_ACS,
	GP_F_DRIFT_IOMMU_GROUP,
	GP_F_DRIFT_BIOS,
	GP_F_DRIFT_CMDLINE,
	GP_F_DRIFT_DRIVER,
	GP_F_SERVER_MODEL,
	GP_F_DRIFT_HOST,
	GP_F_PROFILE_TRUST,
	GP_F_GPU_HEALTH,
	GP_F_VM_PINNING,
	GP_F_PERSIST_READONLY,
	GP_F_VM_BAR_MMAP,
	GP_F_VM_QEMU_VERSION,
	GP_F_FABRIC_BASEBOARD,
	GP_F_FABRIC_PARTIAL,
	GP_F_FABRIC_MANAGER,
	GP_F_FABRIC_VERSION,
	GP_F_BOOT_CLAIM,
	GP_F_NIC_RAIL,
	GP_F_NIC_ATS,
	GP_F_NIC_ACS,
	GP_F_KERNEL_NOATS,
	GP_F_NIC_SRIOV_LAG,
	GP_F_NIC_FIRMWARE,
	GP_F_COUNT
};

struct gp_finding_kind {
	const char *id;	 /* area.name: a contract (docs/CONTRACTS.md) */
	unsigned groups; /* enum gp_group: the steps a failure blocks */
	bool acceptable; /* --accept may let a failure through */
};

extern const struct gp_finding_kind gp_finding_kinds[GP_F_COUNT];
/* The kind called id, NULL when none is. */
const struct gp_finding_kind *gp_finding_kind(const char *id);

enum gp_severity {
	GP_OK,
	GP_WARN,
	GP_FAIL
};

/* A finding's strings are in its report's pool: never NULL, "" when empty. */
struct gp_finding {
	enum gp_fid fid;
	const char *id; /* gp_finding_kinds[fid].id */
	enum gp_severity severity;
	const char *subject;
	const char *message;
	const char *hint;
};

/* The lengths a finding's strings are cut to (with their NUL). */
#define GP_FINDING_ID_LEN      32
#define GP_FINDING_SUBJECT_LEN 64
#define GP_FINDING_TEXT_LEN    512

struct gp_report {
	struct gp_finding *items;
	size_t n, cap;
	struct gp_strpool strs;
};

/* A finding added to r: a check calls it with the enum of its kind. */
void gp_report_add(struct gp_report *r, enum gp_fid id, enum gp_severity sev, const char *subject,
		   const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void gp_report_release(struct gp_report *r);
int gp_report_count(const struct gp_report *r, enum gp_severity sev);
const char *gp_severity_name(enum gp_severity s);

#endif
