/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_server.c: server.model, whether the profile is for this server (a
 * family of checks.c's table).
 */
#ifndef GP_CHECK_SERVER_H
#define GP_CHECK_SERVER_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_server(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
