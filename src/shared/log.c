// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging: to stderr by verbosity, the last error kept for --json. */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "shared/log.h"

int gp_verbosity = 1;
char gp_last_error[512];
int gp_err_kept;
const char *gp_progname = "gpuprov";
/* each message to syslog(3) too: a process with no terminal (confirm's watcher) */
static bool to_syslog;
/* what runs before a message: progress.c's clearing of its status line */
static void (*before_message)(void);

void gp_log_syslog(void)
{
	openlog("gpuprov", LOG_PID, LOG_DAEMON);
	to_syslog = true;
}

static void also_syslog(int prio, const char *msg)
{
	if (to_syslog)
		syslog(prio, "%s", msg ? msg : "(out of memory)");
}

void gp_log_before(void (*fn)(void))
{
	before_message = fn;
}

/* a message starts on a clean line */
static void clean_line(void)
{
	if (before_message)
		before_message();
}

static bool control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * A message is one line: a control character in what it quotes (an -r
 * tree's entry name, a profile's value, a library's text), newline and tab
 * included, becomes \xNN as gp_tv() writes it, so that no name can forge a
 * "gpuprov: ..." line on stderr or in --json's "error".  Done here, once,
 * every message is safe whatever its call site quotes.  (C1 controls and
 * bytes that are not UTF-8 are left to the streams' filter and to the JSON
 * writer, which escape them everywhere.)  Returns a string to free(), or
 * NULL when memory ran out: the allocators report that through here, so
 * this cannot call them.
 */
char *gp_msg_format(const char *fmt, va_list ap)
{
	char *raw = NULL, *out;
	const unsigned char *u;
	size_t n, o = 0;

	if (vasprintf(&raw, fmt, ap) < 0)
		return NULL;
	for (u = (const unsigned char *)raw, n = 0; *u; u++)
		n += control(*u);
	if (!n) /* most messages: nothing to escape */
		return raw;
	out = malloc(strlen(raw) + 3 * n + 1);
	if (out) {
		for (u = (const unsigned char *)raw; *u; u++)
			if (control(*u))
				o += (size_t)sprintf(out + o, "\\x%02x", *u);
			else
				out[o++] = (char)*u;
		out[o] = '\0';
	}
	free(raw);
	return out;
}

static void vlog(int prio, const char *level, const char *fmt, va_list ap)
{
	char *msg = gp_msg_format(fmt, ap);

	also_syslog(prio, msg);
	clean_line();
	fprintf(stderr, "%s: %s%s\n", gp_progname, level, msg ? msg : "(out of memory)");
	free(msg);
}

void gp_err(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = gp_msg_format(fmt, ap);
	va_end(ap);
	snprintf(gp_last_error, sizeof(gp_last_error), "%s", msg ? msg : "out of memory");
	if (gp_err_kept > 0) {
		free(msg);
		return;
	}
	also_syslog(LOG_ERR, msg);
	clean_line();
	fprintf(stderr, "%s: error: %s\n", gp_progname, msg ? msg : gp_last_error);
	free(msg);
}

void gp_warn(const char *fmt, ...)
{
	va_list ap;

	if (gp_verbosity < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_WARNING, "warning: ", fmt, ap);
	va_end(ap);
}

void gp_info(const char *fmt, ...)
{
	va_list ap;

	if (gp_verbosity < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_NOTICE, "", fmt, ap);
	va_end(ap);
}

void gp_debug(const char *fmt, ...)
{
	va_list ap;

	if (gp_verbosity < 2)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, "debug: ", fmt, ap);
	va_end(ap);
}
