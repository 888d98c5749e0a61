/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pseudo-terminal in place of stderr, for what gpuprov prints only to a
 * person at a terminal: raw mode, so the bytes read back are the bytes written.
 */
#ifndef GP_UNIT_PTY_H
#define GP_UNIT_PTY_H

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

struct unit_pty {
	int master, saved;
	char out[8192];
	size_t len;
};

static inline void unit_pty_open(struct unit_pty *t)
{
	struct termios tio;
	int slave;

	memset(t, 0, sizeof(*t));
	assert_int_equal(openpty(&t->master, &slave, NULL, NULL, NULL), 0);
	assert_int_equal(tcgetattr(slave, &tio), 0);
	cfmakeraw(&tio);
	assert_int_equal(tcsetattr(slave, TCSANOW, &tio), 0);
	fflush(stderr);
	t->saved = dup(STDERR_FILENO);
	assert_true(dup2(slave, STDERR_FILENO) >= 0);
	close(slave);
	fcntl(t->master, F_SETFL, O_NONBLOCK);
}

/* Puts stderr back; what was written is in t->out. */
static inline void unit_pty_close(struct unit_pty *t)
{
	ssize_t n;

	fflush(stderr);
	dup2(t->saved, STDERR_FILENO);
	close(t->saved);
	usleep(20000); /* the line discipline hands the bytes over */
	while ((n = read(t->master, t->out + t->len, sizeof(t->out) - 1 - t->len)) > 0)
		t->len += (size_t)n;
	t->out[t->len] = '\0';
	close(t->master);
}

#endif
