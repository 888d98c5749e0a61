/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_UDIFF_H
#define GP_UDIFF_H

/*
 * The unified diff (diff -u, 3 lines of context) that turns old into new,
 * under the two labels; NULL when they are the same.  old NULL: the file is
 * absent ("--- /dev/null"); new NULL: it goes.  The caller frees the text.
 */
char *gp_udiff(const char *old, const char *new, const char *old_label, const char *new_label);

#endif
