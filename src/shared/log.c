// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging: to stderr by verbosity, the last error kept for --json. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shared/log.h"
#include "shared/progress.h"

int gp_verbosity = 1;
char gp_last_error[512];
const char *gp_progname = "gpuprov";

static void vlog(const char *level, const char *fmt, va_list ap)
{
	gp_progress_clear(); /* a message starts on a clean line */
	fprintf(stderr, "%s: %s", gp_progname, level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void gp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(gp_last_error, sizeof(gp_last_error), fmt, ap);
	va_end(ap);
	gp_progress_clear();
	fprintf(stderr, "%s: error: %s\n", gp_progname, gp_last_error);
}

void gp_warn(const char *fmt, ...)
{
	va_list ap;

	if (gp_verbosity < 1)
		return;
	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void gp_info(const char *fmt, ...)
{
	va_list ap;

	if (gp_verbosity < 1)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void gp_debug(const char *fmt, ...)
{
	va_list ap;

	if (gp_verbosity < 2)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}
