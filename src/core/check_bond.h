/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_bond.c: the profile's bond, when it has one (a family of checks.c's table). */
#ifndef GP_CHECK_BOND_H
#define GP_CHECK_BOND_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_bond(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
