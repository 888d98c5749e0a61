/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_CMD_PLAN_H
#define GP_CMD_PLAN_H

#include <stdbool.h>

#include "core/model.h"
#include "core/pfiles.h"
#include "core/plan.h"

/* The plan as plan prints it (apply too, first); pf: the files the steps write, into --json's "files" (NULL: none) */
void gp_plan_out(const struct gp_host *h, const struct gp_profile *p, const struct gp_plan *plan,
		 const struct gp_pfiles *pf, bool json);
/* plan --diff: each file as diff -u shows it against the host's copy */
void gp_plan_diff_out(const struct gp_pfiles *pf);

#endif
