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

/* fstate.c: a file's state before gpuprov replaces it, and undo's restoring it */
#define GP_RECORD_MAX (16u << 20) /* bigger files are refused, never cut */
int gp_fstate_record(const char *path, json_object **out);
int gp_fstate_restore(json_object *rec);
int gp_fstate_check(json_object *rec, const char *kind, char *why, size_t len);
bool gp_path_owned(const char *kind, const char *path);

/* journal.c */
struct gp_journal {
	char path[512];
	char run_id[64];
	json_object *doc; /* the whole journal, rewritten on each change */
};

/* One journal as --list shows it. */
struct gp_run {
	char run_id[64];
	long long seq;	 /* order of the runs: 1 + the highest before it */
	char status[24]; /* the journal's, or "invalid" */
	char profile[256];
	size_t nsteps, undoable; /* undoable: steps done or being done */
	bool valid, interrupted;
	char error[256]; /* why an invalid journal is refused */
};

int gp_journal_create(struct gp_journal *j, const char *profile, const struct gp_plan *plan);
int gp_journal_open(struct gp_journal *j, const char *run_id);
/* checking: pure, from a buffer (fuzzed), and from a file (owner, mode, size) */
int gp_journal_check(json_object *doc, char *why, size_t len);
int gp_journal_parse(const char *buf, size_t len, json_object **doc, char *why, size_t wlen);
int gp_journal_load(const char *path, json_object **doc, char *why, size_t len);
int gp_journal_runs(struct gp_run **runs, size_t *n, char *why, size_t len);
bool gp_run_pending(const struct gp_run *r);
const struct gp_run *gp_run_next(const struct gp_run *runs, size_t n);
const struct gp_run *gp_run_blocking(const struct gp_run *runs, size_t n);
json_object *gp_journal_public(struct gp_journal *j);
int gp_journal_save(struct gp_journal *j);
void gp_journal_close(struct gp_journal *j);
json_object *gp_journal_step(struct gp_journal *j, size_t i);
size_t gp_journal_nsteps(struct gp_journal *j);
void gp_journal_set(struct gp_journal *j, size_t i, const char *state);
void gp_journal_status(struct gp_journal *j, const char *status);
const char *gp_journal_dir(void);

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
