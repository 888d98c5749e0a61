/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * owned.c: what gpuprov wrote before, where the profile p puts it, read into
 * a host gp_host_load has read (the plan pipeline calls it; scan and topo do
 * not need it).  0, or a negative errno when the root cannot be opened again.
 */
#ifndef GP_OWNED_H
#define GP_OWNED_H

#include "core/model.h"

int gp_host_read_owned(struct gp_host *h, const struct gp_profile *p);

#endif
