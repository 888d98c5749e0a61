/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator.c: each step kind's actuator, one per enum gp_step_kind
 * (core/steps.h).  An actuator can check its preconditions, tell whether its
 * step is already done, do it, verify it, and undo it from what it recorded
 * before acting; it says what an operator types when its undo failed, and
 * which paths its undo record may name.  Actuators return 0 or a negative
 * errno and say what went wrong with gp_err().
 */
#ifndef GP_ACTUATOR_H
#define GP_ACTUATOR_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "core/hugepages.h"
#include "core/netconf.h"
#include "core/plan.h"

/*
 * What a run acts on besides its steps: rendered by the command before apply,
 * read by the actuators (NULL where the run has no such part; rollback has
 * none, it works from each step's undo record).
 */
struct gp_apply_ctx {
	const struct gp_profile *profile; /* bond.*, link.up, sriov.vfs */
	const struct gp_persist *persist; /* persist.vfio */
	const struct gp_netconf *netconf; /* persist.bond */
	const struct gp_vm_target *vm;	  /* domain.write, nccl.write, guest.write, domain.define */
	const struct gp_hugepages *huge;  /* hugepages.reserve: each node's need */
	const char *nodes;	 /* hugepages.reserve: GP_SYS_NODES (NULL), or a test's tree */
	unsigned confirm_within; /* apply --confirm-within: seconds, 0 without */
};

/* One step kind.  verify may be NULL: then done() must say the step holds. */
struct gp_actuator {
	enum gp_step_kind kind;
	int (*precheck)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	int (*done)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	/* records in undo what undoing will need, before anything changes */
	int (*record)(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo);
	int (*run)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	int (*verify)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	int (*undo)(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo);
	/*
	 * Whether undo may begin now, asked of every step to undo before the
	 * first is (a running VM holds the devices the other undos give back):
	 * 0, or -EBUSY after gp_err says why; NULL: always.
	 */
	int (*undo_ready)(const struct gp_step *st, json_object *undo);
	/*
	 * After a failed undo, the command that gives back what the step changed,
	 * into how; false (or NULL): the files of its undo record are to be put
	 * back (the journal keeps their previous content for rollback to retry).
	 */
	bool (*by_hand)(const struct gp_step *st, char *how, size_t len);
	/* Whether its undo record may name path (clean already); NULL: it names none. */
	bool (*owns)(const char *path);
};

/* The actuator of kind (every kind has one: test_steps checks). */
const struct gp_actuator *gp_actuator_find(enum gp_step_kind kind);
/* Whether an undo record of kind may name path: a clean path its actuator owns. */
bool gp_path_owned(enum gp_step_kind kind, const char *path);

/* vfio.c */
extern const struct gp_actuator gp_act_module_load, gp_act_override, gp_act_unbind, gp_act_bind;
/* files.c */
extern const struct gp_actuator gp_act_persist_vfio, gp_act_domain_write, gp_act_nccl_write,
	gp_act_guest_write, gp_act_persist_bond;
/* bond.c */
extern const struct gp_actuator gp_act_bond_create, gp_act_bond_enslave, gp_act_link_up;
/* domain.c */
extern const struct gp_actuator gp_act_domain_define;
/* fabric.c */
extern const struct gp_actuator gp_act_fabric_mask;
/* hugepages.c */
extern const struct gp_actuator gp_act_hugepages_reserve;
/* acs.c */
extern const struct gp_actuator gp_act_acs_set;
/* sriov.c */
extern const struct gp_actuator gp_act_sriov_vfs;

/* persist.vfio's `systemctl enable`: a link it writes and undo puts back */
#define GP_WANTS_LINK "/etc/systemd/system/basic.target.wants/gpuprov-vfio.service"

#endif
