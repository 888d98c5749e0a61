// SPDX-License-Identifier: GPL-2.0-or-later
/* The readers' helpers under the root that are not inline (read.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "core/manifest.h"
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

#define GP_DPKG_MAX (64u << 20) /* dpkg's status of a big host */

/*
 * dpkg's status read through (a server's is megabytes: never held whole):
 * a file over GP_DPKG_MAX, or one that cannot be read through, says
 * nothing (-EIO: what fn was told is to be forgotten); the text ends at a
 * NUL byte; lines are cut at 4 KiB (a Package or Version line that long
 * matches nothing anyway).
 */
int gp_read_dpkg(const struct gp_host *h, gp_dpkg_fn fn, void *ctx)
{
	int fd = gp_root_openat(h->rootfd, GP_DPKG_STATUS, O_RDONLY), state = 0;
	char buf[4096], line[4096];
	size_t len = 0, total = 0;
	bool text = true;
	ssize_t n, i;

	if (fd < 0)
		return fd;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && (total += (size_t)n) <= GP_DPKG_MAX)
		for (i = 0; text && i < n; i++) {
			if (!buf[i])
				text = false;
			else if (buf[i] != '\n' && len < sizeof(line) - 1)
				line[len++] = buf[i];
			if (buf[i] != '\n')
				continue;
			line[len] = '\0';
			fn(ctx, line, &state);
			len = 0;
		}
	close(fd);
	if (n < 0 || total > GP_DPKG_MAX)
		return -EIO;
	line[len] = '\0'; /* the last line, without its newline or up to the NUL */
	fn(ctx, line, &state);
	return 0;
}
