/* SPDX-License-Identifier: GPL-2.0-or-later */
/* domxml.c: the libvirt domain XML of the profile's VM, from the template. */
#ifndef GP_DOMXML_H
#define GP_DOMXML_H

#include <stdbool.h>
#include <stddef.h>
#include "core/model.h"

/* secret (may be NULL): the template read is not readable by all, nor is its XML */
int gp_domxml_build(const struct gp_host *h, const struct gp_profile *p, const char *tmpl_path,
		    char **out, char *digest, size_t dlen, bool *secret);
/*
 * The mode every writer of the VM's XML gives it (domain.write, domxml -o):
 * 0600 when secret, else 0644.  plan --diff and the report show a file of a
 * mode without bits for group and others by digest only: the same rule.
 */
unsigned gp_domxml_mode(bool secret);

#endif
