/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files a plan's steps write (persist.vfio, persist.bond, domain.write,
 * nccl.write, guest.write, hugepages.reserve),
 * each with what is there now (as the host read it): what plan --diff,
 * plan --json and the report show.
 */
#ifndef GP_PFILES_H
#define GP_PFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/plan.h"

struct gp_pfile {
	char path[GP_OUTPUT_LEN];
	const char *step; /* the step kind that writes it */
	char *text;	  /* what the step writes */
	char *now;	  /* what is there now; NULL: absent or unreadable */
	int now_err;	  /* 0, or the -errno that kept it from being read (not -ENOENT) */
	unsigned mode;
	/* readable by root alone, or the redactor finds a secret in it: digests only */
	bool secret;
	bool link; /* a symbolic link: text its target, now the current one's */
};

struct gp_pfiles {
	struct gp_pfile *f;
	size_t n;
};

/* vm: the VM's XML (NULL without a [vm]); only the steps in plan count. */
void gp_pfiles_build(const struct gp_host *h, const struct gp_profile *p,
		     char *const templates[GP_PERSIST_FILES], const struct gp_vm_target *vm,
		     const struct gp_plan *plan, struct gp_pfiles *out);
void gp_pfiles_release(struct gp_pfiles *pf);
/* The file's diff against what is there now (labels a/PATH, b/PATH); NULL when the same, or a link. */
char *gp_pfile_diff(const struct gp_pfile *f);

#endif
