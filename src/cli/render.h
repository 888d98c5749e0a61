/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_RENDER_H
#define GP_RENDER_H

#include <stdbool.h>

#include <json.h>

#include "core/checks.h"
#include "core/model.h"
#include "core/plan.h"

extern bool gp_json_printed;
json_object *gp_json_doc(const char *command);
void gp_json_print(json_object *doc);
size_t gp_term_escape(const char *s, size_t n, char *out, size_t *held);
const char *gp_tv(const char *s);
void gp_term_streams(void);
/* text output fits this many columns (gp_text_width(), man page: OUTPUT) */
#define GP_TEXT_WIDTH 80
int gp_text_width(void);
void gp_wrap(const char *s, int col, int indent);
void gp_wrapf(int col, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* scan's document: everything read of the host's devices, groups, nodes and interfaces */
json_object *gp_scan_json(const struct gp_host *h);
void gp_render_scan(const struct gp_host *h, const struct gp_profile *p, bool json);
void gp_render_topo(const struct gp_host *h, const struct gp_profile *p, bool json);
struct gp_pfiles;
/* pf: the files the steps write, into the JSON document's "files" (NULL: none) */
void gp_render_plan(const struct gp_host *h, const struct gp_profile *p, const struct gp_plan *plan,
		    const struct gp_pfiles *pf, bool json);
void gp_render_plan_diff(const struct gp_pfiles *pf);
void gp_render_check(const struct gp_host *h, const struct gp_profile *p, const struct gp_report *r,
		     bool json, bool list_ok);
void gp_render_host_line(const struct gp_host *h, const struct gp_profile *p);

#endif
