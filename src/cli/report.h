/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The maintenance-window dossier (gpuprov report): one model, the one check,
 * topo and plan compute, written as Markdown or as self-contained HTML with
 * an SVG of the PCI tree.  Every value from a host, a snapshot or a profile
 * goes through one escaper per output kind (HTML/XML, Markdown:
 * shared/escape.h).
 */
#ifndef GP_REPORT_H
#define GP_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/model.h"
#include "core/pcimap.h"
#include "core/pfiles.h"
#include "core/plan.h"
#include "core/vm.h"

struct gp_dossier {
	const struct gp_host *h;
	const struct gp_profile *p;
	const struct gp_report *r;
	const struct gp_plan *plan;
	const struct gp_vm_target *vm; /* NULL without a [vm] */
	const struct gp_pfiles *files;
	struct gp_vm_layout layout;
	struct gp_map map;
	char profile_sha[65];
	const char *root;   /* NULL for the live host */
	char model_sha[65]; /* of what was read of the host (the scan document) */
	const char *version;
	char date[40]; /* UTC, SOURCE_DATE_EPOCH when set */
	/* the change request's fields (--change-id, --owner, --approver); NULL: not given */
	const char *change_id, *owner, *approver;
	const char *profile_path; /* -p, as given: the commands the report asks for name it */
	/* by device index: its name in the system's pci.ids, "" none (GPUs and NICs only) */
	char (*names)[GP_NAME_LEN];
	unsigned unbind_timeout; /* seconds apply waits for a device to be let go */
};

void gp_report_svg(FILE *f, const struct gp_dossier *d);
void gp_report_html(FILE *f, const struct gp_dossier *d);
void gp_report_md(FILE *f, const struct gp_dossier *d);

#endif
