/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steps.c: every step kind, once.  The plan adds an enum gp_step_kind (a
 * mistyped kind does not compile); its string (what plan --json and the
 * journal hold), the group of steps it belongs to, what its subject is and
 * whether undo can take it back are this table's.  The journal reads a kind
 * back through gp_step_kind_find(), act/actuator.c names an actuator per
 * kind, tests/cli/t_docs.sh checks the man page and docs/CONTRACTS.md list
 * each.  A new kind: an enum value, a table line, its actuator.
 */
#ifndef GP_STEPS_H
#define GP_STEPS_H

#include <stdbool.h>

#include "core/findings.h"

/* What a step's subject names; the journal checks a subject by its type. */
enum gp_subject_type {
	GP_SUBJ_PCI,	/* a PCI address: 0000:41:00.0 */
	GP_SUBJ_MODULE, /* a kernel module's name */
	GP_SUBJ_IFACE,	/* a network interface's name */
	GP_SUBJ_PATH,	/* a file gpuprov writes */
	GP_SUBJ_DOMAIN, /* a libvirt domain's name */
	GP_SUBJ_HOST,	/* the host as a whole: "host" */
	GP_SUBJ_NODE,	/* a NUMA node: node0 */
	GP_SUBJ_COUNT
};

enum gp_step_kind {
	GP_S_MODULE_LOAD,
	GP_S_DEVICE_OVERRIDE,
	GP_S_DEVICE_UNBIND,
	GP_S_DEVICE_BIND,
	GP_S_PERSIST_VFIO,
	GP_S_BOND_CREATE,
	GP_S_BOND_ENSLAVE,
	GP_S_LINK_UP,
	GP_S_PERSIST_BOND,
	GP_S_DOMAIN_WRITE,
	GP_S_NCCL_WRITE,
	GP_S_GUEST_WRITE,
	GP_S_DOMAIN_DEFINE,
	GP_S_FABRIC_MASK,
	GP_S_HUGEPAGES_RESERVE,
	GP_S_ACS_SET,
	GP_S_SRIOV_VFS,
	GP_S_COUNT
};

struct gp_step_info {
	const char *kind;	      /* area.verb: a contract (docs/CONTRACTS.md) */
	enum gp_group group;	      /* the steps it is one of (--only) */
	enum gp_subject_type subject; /* what its subject names */
	bool reversible;	      /* undo takes it back */
};

extern const struct gp_step_info gp_step_kinds[GP_S_COUNT];

/* The kind called name: 0, or -EINVAL when no kind is. */
int gp_step_kind_find(const char *name, enum gp_step_kind *kind);
/* The kind's string, as plan --json, the journal and the text print it. */
const char *gp_step_name(enum gp_step_kind kind);
/* The longest kind's string length: the width of a column of kinds (plan's table). */
int gp_step_name_width(void);

/*
 * Whether s is a subject of that type as undo may act on it: a PCI
 * address, a module or an interface name, a NUMA node (node0 to node4095,
 * one spelling).  A path, a domain or "host" is
 * shown only: undo acts on what its record names (the files' records, the
 * domain's URI and name), which the journal checks on their own.
 */
bool gp_subject_ok(enum gp_subject_type type, const char *s);
/* "a PCI address", "an interface name", ...: what a refusal says s is not */
const char *gp_subject_what(enum gp_subject_type type);

#endif
