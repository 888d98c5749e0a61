// SPDX-License-Identifier: GPL-2.0-or-later
/* The readers' helpers under the root that are not inline (read.h). */
#include <stdarg.h>
#include <stdio.h>

#include "host/read.h"

const char *gp_rootp(const struct gp_host *h, char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)h;
	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_LEN)
		buf[0] = '\0'; /* too long: a path nothing opens */
	return buf;
}
