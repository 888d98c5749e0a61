// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Progress and colour (progress.c) on a pseudo-terminal: the status line is
 * rewritten in place and erased before any message; nothing at all under
 * --json, with -q or when stderr is a pipe; colour only on a terminal, off
 * with NO_COLOR or TERM=dumb.  The unbind deadline counts down on it.
 */
#include <sys/stat.h>

#include "unit.h"
#include "pty.h"
#include "shared/progress.h"
#include "cli/out.h"
#include "act/vfio.h"

static void test_status_line(void **state)
{
	struct unit_pty t;

	(void)state;
	unit_pty_open(&t);
	gp_progress_setup(false, 1);
	assert_true(gp_progress_on());
	gp_progress("bond0: LACP %d s of %d", 1, 90);
	gp_progress("bond0: LACP %d s", 2);
	gp_err("a message");
	gp_progress("x\033]0;title\007");
	gp_progress_clear();
	unit_pty_close(&t);
	/* the stream escapes the status text: \x1b]0;title\x07, 17 columns */
	assert_string_equal(t.out, "\rbond0: LACP 1 s of 90"
				   "\r                     \rbond0: LACP 2 s"
				   "\r               \rgpuprov: error: a message\n"
				   "\rx\\x1b]0;title\\x07"
				   "\r                 \r");
}

/* A line longer than the terminal would wrap, and \r could not rewrite it. */
static void test_status_width(void **state)
{
	char longer[300];
	struct unit_pty t;

	(void)state;
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	unit_pty_open(&t);
	gp_progress_setup(false, 1);
	gp_progress("%s", longer);
	gp_progress_clear();
	unit_pty_close(&t);
	/* openpty's terminal has 0 columns, taken as 80: 79 a's, erased by 79 blanks */
	assert_int_equal(t.len, 1 + 79 + 1 + 79 + 1);
}

static void quiet_cases(bool json, int verbosity)
{
	struct unit_pty t;

	unit_pty_open(&t);
	gp_progress_setup(json, verbosity);
	assert_false(gp_progress_on());
	gp_progress("waiting %d s", 3);
	gp_progress_line(GP_TONE_OK, "ok", "step %d", 1);
	gp_progress_clear();
	unit_pty_close(&t);
	assert_int_equal(t.len, 0);
}

static void test_off(void **state)
{
	int p[2], saved;
	char buf[64];

	(void)state;
	quiet_cases(true, 1);  /* --json */
	quiet_cases(false, 0); /* -q */
	/* stderr a pipe: a log, not a person */
	assert_int_equal(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	gp_progress_setup(false, 2);
	gp_progress("waiting %d s", 3);
	gp_progress_line(GP_TONE_OK, "ok", "step %d", 1);
	gp_fprintf_tone(stderr, GP_TONE_FAIL, "%s", "FAIL");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(p[1]);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 4);
	assert_string_equal(buf, "FAIL");
	close(p[0]);
	assert_false(gp_progress_on());
}

static void tone(const char *term, const char *no_color, const char *want)
{
	struct unit_pty t;

	if (term)
		setenv("TERM", term, 1);
	else
		unsetenv("TERM");
	if (no_color)
		setenv("NO_COLOR", no_color, 1);
	else
		unsetenv("NO_COLOR");
	unit_pty_open(&t);
	gp_fprintf_tone(stderr, GP_TONE_OK, "%-4s", "ok");
	gp_fprintf_tone(stderr, GP_TONE_WARN, "%s", "WARN");
	gp_fprintf_tone(stderr, GP_TONE_FAIL, "%s", "FAIL");
	gp_fprintf_tone(stderr, GP_TONE_NONE, "%s", ".");
	unit_pty_close(&t);
	assert_string_equal(t.out, want);
}

static void test_color(void **state)
{
	(void)state;
	tone("xterm", NULL, "\033[32mok  \033[0m\033[33mWARN\033[0m\033[1;31mFAIL\033[0m.");
	tone("xterm", "", "\033[32mok  \033[0m\033[33mWARN\033[0m\033[1;31mFAIL\033[0m.");
	tone("xterm", "1", "ok  WARNFAIL.");
	tone("dumb", NULL, "ok  WARNFAIL.");
	tone(NULL, NULL, "ok  WARNFAIL.");
}

static void test_step_line(void **state)
{
	struct unit_pty t;

	(void)state;
	setenv("TERM", "xterm", 1);
	unsetenv("NO_COLOR");
	unit_pty_open(&t);
	gp_progress_setup(false, 1);
	gp_progress("waiting");
	gp_progress_line(GP_TONE_OK, "ok", "[1/2] %s verified (%.1f s)", "device.bind", 0.25);
	gp_progress_line(GP_TONE_NONE, NULL, "[2/2] %s", "link.up");
	unit_pty_close(&t);
	assert_string_equal(t.out, "\rwaiting\r       \r\033[32mok\033[0m [1/2] device.bind "
				   "verified (0.2 s)\n[2/2] link.up\n");
}

/* A step's line is a message: a newline in a subject cannot start a line of its own. */
static void test_step_line_one_line(void **state)
{
	struct unit_pty t;

	(void)state;
	unsetenv("TERM");
	unit_pty_open(&t);
	gp_progress_setup(false, 1);
	gp_progress_line(GP_TONE_NONE, NULL, "[1/1] %s", "link.up x\ngpuprov: all clear\t.");
	unit_pty_close(&t);
	assert_string_equal(t.out, "[1/1] link.up x\\x0agpuprov: all clear\\x09.\n");
}

/* A busy driver's unbind: the seconds left, counting down, then erased. */
static void test_deadline_countdown(void **state)
{
	char dir[] = "/tmp/gp-fifo.XXXXXX", fifo[64];
	struct unit_pty t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/unbind", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	setenv("GPUPROV_UNBIND_TIMEOUT", "2.2", 1);
	unit_pty_open(&t);
	gp_progress_setup(false, 1);
	assert_int_equal(gp_write_deadline(fifo, "0000:41:00.0"), -ETIMEDOUT);
	unit_pty_close(&t);
	unlink(fifo);
	rmdir(dir);
	assert_non_null(strstr(t.out, "\rgiving up in 2 s: writing 0000:41:00.0 to /tmp/gp-fifo."));
	assert_non_null(strstr(t.out, "\rgiving up in 1 s: writing"));
	assert_true(strstr(t.out, "giving up in 2 s") < strstr(t.out, "giving up in 1 s"));
	/* erased before the error, which starts its own line */
	assert_non_null(strstr(t.out, "\rgpuprov: error: writing '0000:41:00.0'"));
	assert_null(strstr(t.out, "giving up in 3 s"));
	assert_true(t.len < 1200); /* redrawn when the seconds change, not at every poll */
}

int main(void)
{
	gp_term_streams(); /* as main does: the text on stderr is escaped */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_line),
		cmocka_unit_test(test_status_width),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_color),
		cmocka_unit_test(test_step_line),
		cmocka_unit_test(test_step_line_one_line),
		cmocka_unit_test(test_deadline_countdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
