/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c: the server profile, parsed and validated (errors file:line). */
#ifndef GP_PROFILE_H
#define GP_PROFILE_H

#include "core/model.h"

int gp_profile_load(const char *path, struct gp_profile *p);
int gp_profile_parse_string(const char *name, const char *text, struct gp_profile *p);
const char *gp_profile_error(const struct gp_profile *p);

#endif
