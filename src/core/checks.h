/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * checks.c: the findings, pure functions of (host, profile), family by family
 * (check_host.c, check_gpu.c, check_p2p.c, check_vm.c, check_bond.c); the
 * report that collects them is findings.h's.
 */
#ifndef GP_CHECKS_H
#define GP_CHECKS_H

#include "core/findings.h"
#include "core/model.h"

void gp_checks_run(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
