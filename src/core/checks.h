/* SPDX-License-Identifier: GPL-2.0-or-later */
/* checks.c: the findings, pure functions of (host, profile), and the report. */
#ifndef GP_CHECKS_H
#define GP_CHECKS_H

#include <stddef.h>
#include "core/model.h"

enum gp_severity {
	GP_OK,
	GP_WARN,
	GP_FAIL
};

struct gp_finding {
	char id[32];
	enum gp_severity severity;
	char subject[64];
	char message[512];
	char hint[512];
};

struct gp_report {
	struct gp_finding *items;
	size_t n, cap;
};

void gp_report_add(struct gp_report *r, const char *id, enum gp_severity sev, const char *subject,
		   const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void gp_report_release(struct gp_report *r);
int gp_report_count(const struct gp_report *r, enum gp_severity sev);
const char *gp_severity_name(enum gp_severity s);
extern const char *const gp_finding_ids[]; /* NULL-terminated */
void gp_checks_run(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
