/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_fabric.c: fabric.* and the NVSwitches' gpu.reset, an HGX baseboard
 * against [fabric] mode (a family of checks.c's table).
 */
#ifndef GP_CHECK_FABRIC_H
#define GP_CHECK_FABRIC_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_fabric(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
