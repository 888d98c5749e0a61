/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The apply engine: runs a plan's steps through their actuators
 * (act/actuator.h), under the lock (act/lock.h), keeping the journal
 * (act/journal.h); rollback undoes a journal's steps.
 */
#ifndef GP_APPLY_H
#define GP_APPLY_H

#include "act/actuator.h"
#include "act/journal.h"
#include "act/lock.h"
#include "core/plan.h"

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
