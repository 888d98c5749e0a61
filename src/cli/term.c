// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal: stdout and stderr through gp_term_escape(), so that nothing
 * from a host or a profile reaches it raw, and the width text is laid out
 * for.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/term.h"
#include "shared/escape.h"
#include "shared/progress.h"
#include "shared/util.h"

static int text_width; /* gp_text_width(), once gp_term_streams asked; 0: ask each time */

static int terminal_width(bool tty)
{
	struct winsize ws;

	if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40 &&
	    ws.ws_col < GP_TEXT_WIDTH)
		return ws.ws_col;
	return GP_TEXT_WIDTH;
}

struct term {
	int fd;
	char held[4];
	size_t nheld;
};

/* -1 (errno set) when the descriptor takes less than all of it: a full disk. */
static int write_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (!w) {
			errno = EIO;
			return -1;
		}
		buf += w;
		n -= w;
	}
	return 0;
}

/* Whether any of the 8 bytes in x is below 0x20 or above 0x7e (a word at a time). */
static bool word_unplain(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	/* a byte below 0x20; a byte above 0x7e (or with its top bit) */
	return ((x - 0x20 * ones) & ~x & highs) || ((x + (0x7f - 0x7e) * ones) | x) & highs;
}

static bool plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
}

/* Printable ASCII, newlines and tabs: what gp_term_escape() leaves as it is. */
static bool plain_text(const char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)buf, *end = u + size;
	uint64_t x;
	int k;

	for (; end - u >= 8; u += 8) {
		memcpy(&x, u, 8);
		if (!word_unplain(x)) /* 8 printable bytes */
			continue;
		for (k = 0; k < 8; k++) /* a newline or a tab, or worse */
			if (!plain_byte(u[k]))
				return false;
	}
	for (; u < end; u++)
		if (!plain_byte(*u))
			return false;
	return true;
}

/* What the stream is told: every byte, or -1 and errno (its error flag). */
static ssize_t written(int err, size_t size)
{
	if (err == EPIPE) { /* the reader went (| head): as if SIGPIPE were not ignored */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (!err)
		return (ssize_t)size;
	errno = err; /* a report cut short must not exit 0 */
	return -1;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
	struct term *t = cookie;
	size_t n = t->nheld + size, held;
	char *in, *out;
	int rc;

	if (!t->nheld && plain_text(buf, size)) /* most of it: a table, a JSON document */
		return written(write_all(t->fd, buf, size) ? errno : 0, size);
	in = gp_xcalloc(n, 1);
	out = gp_xcalloc(4 * n + 1, 1);
	memcpy(in, t->held, t->nheld);
	memcpy(in + t->nheld, buf, size);
	rc = write_all(t->fd, out, gp_term_escape(in, n, out, &held)) ? errno : 0;
	memcpy(t->held, in + n - held, held);
	t->nheld = held;
	free(in);
	free(out);
	return written(rc, size);
}

/*
 * stdout and stderr through gp_term_escape(): every text gpuprov prints
 * (tables, findings, plans, messages) is safe for a terminal, however it
 * was formatted.  A document must pass unchanged, so its writer leaves
 * nothing here to escape: the writer (out.c) writes bad UTF-8, DEL and
 * the C1 controls as \u escapes (gp_json_escape), the domain
 * XML writes them as character references (domxml.c), and the report's
 * HTML and SVG have each value through gp_tv() first.
 */
void gp_term_streams(void)
{
	static struct term out = { .fd = 1 }, err = { .fd = 2 };
	cookie_io_functions_t io = { .write = term_write };
	FILE *o = fopencookie(&out, "w", io), *e = fopencookie(&err, "w", io);

	bool tty = isatty(STDOUT_FILENO);

	/* asked once here, not per line: a table's rows, a check's findings */
	text_width = terminal_width(tty);
	gp_color_stdout_tty(tty);
	if (o) {
		fflush(stdout);
		setvbuf(o, NULL, tty ? _IOLBF : _IOFBF, BUFSIZ);
		stdout = o;
	}
	if (e) {
		setvbuf(e, NULL, _IONBF, 0);
		stderr = e;
	}
}

/*
 * The width text output is laid out for: 80 columns, so that what is pasted
 * into a ticket, piped, or kept as a golden file reads the same everywhere
 * ($COLUMNS is not read).  A terminal narrower than that gets its own width,
 * down to 40.  JSON and XML are never wrapped.
 */
int gp_text_width(void)
{
	return text_width ? text_width : terminal_width(isatty(STDOUT_FILENO));
}
