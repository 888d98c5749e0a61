/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_persist.c: where apply writes, writable (a family of checks.c's table). */
#ifndef GP_CHECK_PERSIST_H
#define GP_CHECK_PERSIST_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_persist(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
