/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fstate.c: a file's state before gpuprov replaces it, and undo's restoring it. */
#ifndef GP_FSTATE_H
#define GP_FSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <json.h>

#define GP_RECORD_MAX (16u << 20) /* bigger files are refused, never cut */
int gp_fstate_record(const char *path, json_object **out);
int gp_fstate_restore(json_object *rec);
/* a record read from a journal, its path owned already (gp_path_owned) */
int gp_fstate_check(json_object *rec, char *why, size_t len);

#endif
