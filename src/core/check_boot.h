/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_boot.c: boot.claim, which driver takes each device gpuprov binds (or
 * finds bound) at the next boot (a family of checks.c's table), and the pure
 * prediction it rests on.
 */
#ifndef GP_CHECK_BOOT_H
#define GP_CHECK_BOOT_H

#include "core/findings.h"
#include "core/model.h"

struct gp_boot_pred {
	char module[GP_NAME_LEN]; /* the module whose driver takes it; "": none */
	char other[GP_NAME_LEN];  /* with ordered: the one that may take it instead */
	bool ordered;		  /* which of the two wins depends on the order of loading */
	char why[320];		  /* what decides it, in words */
};

/* 0, or -ENOENT when the next kernel's modules could not be read (and no override decides). */
int gp_boot_predict(const struct gp_host *h, const struct gp_boot_dev *b, struct gp_boot_pred *out);
void gp_check_boot(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
