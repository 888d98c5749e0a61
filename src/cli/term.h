/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The terminal (term.c): stdout and stderr through gp_term_escape(), and the
 * width text output is laid out for.
 */
#ifndef GP_TERM_H
#define GP_TERM_H

/* text output fits this many columns (gp_text_width(), man page: OUTPUT) */
#define GP_TEXT_WIDTH 80

void gp_term_streams(void);
int gp_text_width(void);

#endif
