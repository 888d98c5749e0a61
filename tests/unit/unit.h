/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the cmocka unit tests; they run from the repository root. */
#ifndef GP_UNIT_H
#define GP_UNIT_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hostq.h"
#include "core/model.h"
#include "core/profile.h"
#include "host/host.h"
#include "host/owned.h"

/* Loads build/hosts/NAME for the profile p (NULL: none), as the plan pipeline
 * does: the machine, then what gpuprov wrote before. */
static inline void unit_host(const char *name, const struct gp_profile *p, struct gp_host *h)
{
	char root[256];

	snprintf(root, sizeof(root), "build/hosts/%s", name);
	assert_int_equal(gp_host_load(root, p, h), 0);
	assert_int_equal(gp_host_read_owned(h, p), 0);
}

static inline void unit_profile(const char *text, struct gp_profile *p)
{
	int rc = gp_profile_parse_string("test.ini", text, p);

	if (rc)
		fail_msg("profile: %s", gp_profile_error(p));
}

static inline int unit_index(const struct gp_host *h, const char *bdf)
{
	int i = gp_host_find(h, bdf);

	if (i < 0)
		fail_msg("no device %s", bdf);
	return i;
}

#endif
