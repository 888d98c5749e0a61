/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drift of a host against a baseline snapshot (drift.c): drift.* findings. */
#ifndef GP_DRIFT_H
#define GP_DRIFT_H

#include "core/checks.h"
#include "core/model.h"

/* Appends drift.* findings (an ok one per kind that did not drift) to r. */
void gp_drift_run(const struct gp_host *base, const struct gp_host *h, const struct gp_profile *p,
		  struct gp_report *r);

#endif
