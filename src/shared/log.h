/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging (log.c): to stderr, by verbosity; the last error kept for --json. */
#ifndef GP_LOG_H
#define GP_LOG_H

#include <stdarg.h>

extern int gp_verbosity; /* 0 quiet, 1 normal, 2 verbose */
extern const char *gp_progname;
extern char gp_last_error[512]; /* the last gp_err() message, for --json */
/*
 * While above 0, gp_err() only keeps its message in gp_last_error: a caller
 * that turns a refusal into a finding (check's profile.trust) says it there.
 */
extern int gp_err_kept;
void gp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * fn runs before each message, NULL for nothing: the status line of
 * progress.c (above this module: it uses the messages' format) is cleared.
 */
void gp_log_before(void (*fn)(void));
/* From now on every message goes to syslog(3) as well (daemon facility). */
void gp_log_syslog(void);
/* fmt and ap as a message: one line, each control character as \xNN; free()
 * it.  NULL when memory ran out.  Every message on stderr is made so. */
char *gp_msg_format(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
