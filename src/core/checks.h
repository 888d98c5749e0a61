/* SPDX-License-Identifier: GPL-2.0-or-later */
/* checks.c: the findings, pure functions of (host, profile), and the report. */
#ifndef GP_CHECKS_H
#define GP_CHECKS_H

#include <stddef.h>
#include "core/findings.h"
#include "core/model.h"
#include "shared/strpool.h"

enum gp_severity {
	GP_OK,
	GP_WARN,
	GP_FAIL
};

/* A finding's strings are in its report's pool: never NULL, "" when empty. */
struct gp_finding {
	enum gp_fid fid;
	const char *id; /* gp_finding_kinds[fid].id */
	enum gp_severity severity;
	const char *subject;
	const char *message;
	const char *hint;
};

/* The lengths a finding's strings are cut to (with their NUL). */
#define GP_FINDING_ID_LEN      32
#define GP_FINDING_SUBJECT_LEN 64
#define GP_FINDING_TEXT_LEN    512

struct gp_report {
	struct gp_finding *items;
	size_t n, cap;
	struct gp_strpool strs;
};

void gp_report_add(struct gp_report *r, enum gp_fid id, enum gp_severity sev, const char *subject,
		   const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void gp_report_release(struct gp_report *r);
int gp_report_count(const struct gp_report *r, enum gp_severity sev);
const char *gp_severity_name(enum gp_severity s);
void gp_checks_run(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
