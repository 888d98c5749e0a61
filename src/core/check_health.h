/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_health.c: gpu.health, whether a GPU is fit to hand to a VM (a family
 * of checks.c's table).
 */
#ifndef GP_CHECK_HEALTH_H
#define GP_CHECK_HEALTH_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_health(const struct gp_host *h, const struct gp_profile *p, int g,
		     struct gp_report *r);

#endif
