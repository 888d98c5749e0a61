/* SPDX-License-Identifier: GPL-2.0-or-later */
/* templates.c: the templates of the persistent files and the domain XML. */
#ifndef GP_TEMPLATES_H
#define GP_TEMPLATES_H

#include <stddef.h>
#include "core/model.h"

int gp_templates_load(char *out[GP_PERSIST_FILES]);
int gp_template_path(const char *name, char *path, size_t len);
/* The directory the templates come from (GPUPROV_TEMPLATES, the source tree, DATADIR). */
int gp_templates_dir(char *dir, size_t len);
void gp_templates_release(char *t[GP_PERSIST_FILES]);
char *gp_subst(const char *tmpl, const char *const *pairs);

#endif
