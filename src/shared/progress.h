/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress and colour, for a person at a terminal (progress.c).  Nothing
 * here prints under --json, with -q, or when the stream is not a terminal:
 * logs, pipes and Ansible see the same text as before.
 */
#ifndef GP_PROGRESS_H
#define GP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

enum gp_tone {
	GP_TONE_NONE,
	GP_TONE_OK,
	GP_TONE_WARN,
	GP_TONE_FAIL,
};

/* Decided once, by main: on when stderr is a terminal, not --json, not -q. */
void gp_progress_setup(bool json, int verbosity);
bool gp_progress_on(void);
/* The status line on stderr, rewritten in place: what a wait is waiting for. */
void gp_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Erases the status line (every message on stderr does so first). */
void gp_progress_clear(void);
/* A line that stays on stderr (a step started, a step verified); word in its tone. */
void gp_progress_line(enum gp_tone tone, const char *word, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Whether f (stdout or stderr) gets colour: a terminal, NO_COLOR unset, TERM not dumb. */
bool gp_color_on(FILE *f);
/*
 * Whether stdout is a terminal, told once by whoever set the stream up
 * (gp_term_streams): a table or a check's findings then cost no ioctl per
 * line.  Until told, each gp_color_on(stdout) asks.
 */
void gp_color_stdout_tty(bool tty);
/* fprintf of one word or column, in the tone's colour when f gets colour. */
void gp_fprintf_tone(FILE *f, enum gp_tone tone, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Seconds since an arbitrary start, monotonic: for durations. */
double gp_now(void);

#endif
