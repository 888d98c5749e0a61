/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_nic.c: the RoCE ports [nic] hands to the VM (a family of checks.c's table). */
#ifndef GP_CHECK_NIC_H
#define GP_CHECK_NIC_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_nic(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
