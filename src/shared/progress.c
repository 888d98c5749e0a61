// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Progress and colour for a person at a terminal.  A long wait (LACP
 * forming, an unbind held by a busy driver, a bandwidth run) rewrites one
 * status line on stderr; apply's steps print a line when they start and one
 * when they are verified; ok, warn and fail get their colours.
 *
 * Only the control bytes written here reach the terminal raw: the text goes
 * through stdout and stderr, whose streams escape every control character
 * (gp_term_streams), so a name from the host cannot move the cursor.  The
 * status line is erased with a carriage return and blanks, not an escape
 * sequence, so that it works on any terminal, a dumb one included.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "shared/log.h"
#include "shared/util.h"
#include "shared/progress.h"

static bool progress_on;
static int stdout_tty = -1;   /* gp_color_stdout_tty's answer; -1: ask isatty() */
static size_t status_len;     /* the status line's columns on screen; 0: none */
static char status_text[512]; /* what it says: the same again is not rewritten */

void gp_progress_setup(bool json, int verbosity)
{
	progress_on = !json && verbosity > 0 && isatty(STDERR_FILENO);
	gp_log_before(gp_progress_clear);
}

bool gp_progress_on(void)
{
	return progress_on;
}

static int stream_fd(FILE *f)
{
	/* stdout and stderr are cookie streams once gp_term_streams ran */
	if (f == stdout)
		return STDOUT_FILENO;
	if (f == stderr)
		return STDERR_FILENO;
	return fileno(f);
}

/* Control bytes of our own, after whatever f still holds. */
static void raw(FILE *f, const char *bytes, size_t n)
{
	int fd = stream_fd(f);
	ssize_t w;

	fflush(f);
	while (fd >= 0 && n) {
		w = write(fd, bytes, n);
		if (w <= 0)
			return;
		bytes += w;
		n -= (size_t)w;
	}
}

static void blank_status(void)
{
	char line[512];
	size_t n = status_len < sizeof(line) - 2 ? status_len : sizeof(line) - 2;

	line[0] = '\r';
	memset(line + 1, ' ', n);
	line[n + 1] = '\r';
	raw(stderr, line, n + 2);
	status_len = 0;
}

void gp_progress_clear(void)
{
	if (progress_on && status_len)
		blank_status();
}

/* The terminal's width less one: a line that wraps cannot be rewritten. */
static size_t status_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20)
		return 79;
	return (size_t)ws.ws_col - 1;
}

/*
 * The columns text takes once stderr's stream has escaped it (gp_term_escape:
 * a control byte, a C1 control or a byte that is not UTF-8 becomes \xNN),
 * cut to width at a character's start.  Newline, tab and carriage return
 * become blanks: the status line stays one line.
 */
static size_t fit(char *text, size_t width)
{
	unsigned char *u = (unsigned char *)text;
	size_t i = 0, n = strlen(text), cols = 0, w;
	int k;

	while (i < n) {
		if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r')
			u[i] = ' ';
		k = gp_utf8_len(u + i, n - i);
		if (k < 0)
			break; /* a cut sequence: the stream would hold it back */
		if (k == 0 || (k == 1 && (u[i] < 0x20 || u[i] == 0x7f)))
			w = 4, k = 1;
		else if (k == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)
			w = 8;
		else
			w = 1;
		if (cols + w > width)
			break;
		cols += w;
		i += (size_t)k;
	}
	u[i] = '\0';
	return cols;
}

void gp_progress(const char *fmt, ...)
{
	char text[512];
	va_list ap;
	size_t cols;

	if (!progress_on)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cols = fit(text, status_width());
	if (status_len && !strcmp(text, status_text))
		return; /* a wait polling every 20 ms redraws when something changed */
	memcpy(status_text, text, sizeof(text));
	if (status_len)
		blank_status(); /* ends at the line's start */
	else
		raw(stderr, "\r", 1);
	fputs(text, stderr);
	fflush(stderr);
	status_len = cols;
}

void gp_progress_line(enum gp_tone tone, const char *word, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!progress_on)
		return;
	gp_progress_clear();
	if (word) {
		gp_fprintf_tone(stderr, tone, "%s", word);
		fputc(' ', stderr);
	}
	va_start(ap, fmt); /* a message: a name in it cannot start a line */
	msg = gp_msg_format(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", msg ? msg : "(out of memory)");
	free(msg);
	fflush(stderr);
}

void gp_color_stdout_tty(bool tty)
{
	stdout_tty = tty;
}

/* https://no-color.org: present and not empty turns colour off; TERM as git reads it. */
bool gp_color_on(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	int fd = stream_fd(f);

	if ((no && *no) || !term || !strcmp(term, "dumb") || fd < 0)
		return false;
	if (fd == STDOUT_FILENO && stdout_tty >= 0)
		return stdout_tty;
	return isatty(fd);
}

static const char *tone_sgr(enum gp_tone tone)
{
	switch (tone) {
	case GP_TONE_OK:
		return "\033[32m";
	case GP_TONE_WARN:
		return "\033[33m";
	case GP_TONE_FAIL:
		return "\033[1;31m";
	default:
		return NULL;
	}
}

void gp_fprintf_tone(FILE *f, enum gp_tone tone, const char *fmt, ...)
{
	const char *sgr = tone_sgr(tone);
	bool color = sgr && gp_color_on(f);
	va_list ap;

	if (color)
		raw(f, sgr, strlen(sgr));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (color)
		raw(f, "\033[0m", 4);
}

double gp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
