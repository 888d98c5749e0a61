/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The apply engine and its actuators.  Each step kind has an actuator that
 * can check its preconditions, tell whether the step is already done, do it,
 * verify it, and undo it from what it recorded before acting.  Actuators
 * return 0 or a negative errno and say what went wrong with gp_err().
 */
#ifndef GP_APPLY_H
#define GP_APPLY_H

#include <json.h>

#include "core/netconf.h"
#include "act/journal.h"
#include "core/plan.h"

/*
 * What a run acts on besides its steps: rendered by the command before apply,
 * read by the actuators (NULL where the run has no such part; rollback has
 * none, it works from each step's undo record).
 */
struct gp_apply_ctx {
	const struct gp_profile *profile; /* bond.*, link.up */
	const struct gp_persist *persist; /* persist.vfio */
	const struct gp_netconf *netconf; /* persist.bond */
	const struct gp_vm_target *vm;	  /* domain.write, domain.define */
};

/* One step kind.  verify may be NULL: then done() must say the step holds. */
struct gp_actuator {
	const char *kind;
	int (*precheck)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	int (*done)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	/* records in undo what undoing will need, before anything changes */
	int (*record)(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo);
	int (*run)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	int (*verify)(const struct gp_apply_ctx *ctx, const struct gp_step *st);
	int (*undo)(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo);
};

const struct gp_actuator *gp_actuator_find(const char *kind);

/* vfio.c */
extern const struct gp_actuator gp_act_module_load, gp_act_override, gp_act_unbind, gp_act_bind;
/* files.c */
extern const struct gp_actuator gp_act_persist_vfio, gp_act_domain_write, gp_act_nccl_write;

/* bond.c */
extern const struct gp_actuator gp_act_bond_create, gp_act_bond_enslave, gp_act_link_up;
/* files.c: persist.bond */
extern const struct gp_actuator gp_act_persist_bond;
/* virt.c */
extern const struct gp_actuator gp_act_domain_define;

/* persist.vfio's `systemctl enable`: a link it writes and undo puts back */
#define GP_WANTS_LINK "/etc/systemd/system/basic.target.wants/gpuprov-vfio.service"

/* apply.c */
extern int gp_lock_fd;
int gp_lock_take(int wait);
/*
 * Both return 0, -ECANCELED when nothing was changed (a precondition, the
 * journal), -EIO when a step failed and every change was undone (apply), or
 * -ENOTRECOVERABLE when an undo failed: the host is left changed, each such
 * step said with how to finish it by hand.
 */
int gp_apply_run(const struct gp_apply_ctx *ctx, struct gp_plan *plan, const char *profile,
		 struct gp_journal *j);
int gp_rollback_run(struct gp_journal *j);

#endif
