/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_p2p.c: each pair of GPUs, path and ACS (a family of checks.c's table). */
#ifndef GP_CHECK_P2P_H
#define GP_CHECK_P2P_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_p2p(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
