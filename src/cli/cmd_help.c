// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov help [COMMAND]: the command table (main.c) and the option table
 * (cmd.h's GP_OPTIONS) as --help, help COMMAND and help --json show them.
 * Nothing here names a command or an option: a new one shows up by itself.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/out.h"

#define GP_OPT_ROW(id, letter, name, value, help) [GP_OPT_##id] = { letter, name, value, help },
const struct gp_option gp_options[GP_OPT_COUNT] = { GP_OPTIONS(GP_OPT_ROW) };
#undef GP_OPT_ROW

#define HELP_COLUMNS	80
#define SYNOPSIS_INDENT 15 /* under "usage: gpuprov " */
#define SYNOPSIS_WORDS	(GP_OPT_COUNT + 5)
#define SYNOPSIS_WORD	48 /* bytes of one, "profile validate FILE | discover" */

/* By its letter when it takes a value (-p FILE), else by its name (--yes). */
const char *gp_opt_name(enum gp_opt id, char *buf, size_t len)
{
	const struct gp_option *o = &gp_options[id];

	if (o->letter && o->value)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/*
 * c's options in its synopsis's order, GP_OPT_NONE after the last: -p first
 * when its flags load a profile, then its list's.
 */
static void options_of(const struct gp_cmd *c, enum gp_opt ids[GP_CMD_OPTS + 2])
{
	size_t i, n = 0;

	if (c->flags & (GP_NEED_PROFILE | GP_USE_PROFILE))
		ids[n++] = GP_OPT_PROFILE;
	for (i = 0; i < GP_CMD_OPTS && c->opts[i]; i++)
		if (c->opts[i] != GP_OPT_PROFILE)
			ids[n++] = c->opts[i];
	ids[n] = GP_OPT_NONE;
}

const struct gp_cmd *gp_cmd_find(const struct gp_cmd *const *cmds, const char *name)
{
	for (; *cmds; cmds++)
		if (!strcmp((*cmds)->name, name))
			return *cmds;
	return NULL;
}

/* The command closest to a mistyped one, NULL when none is close. */
static const char *near_cmd(const struct gp_cmd *const *cmds, const char *name)
{
	const char *names[64];
	size_t n = 0;

	for (; *cmds && n < ARRAY_SIZE(names) - 1; cmds++)
		names[n++] = (*cmds)->name;
	names[n] = NULL;
	return gp_closest(name, names);
}

int gp_cmd_unknown(const struct gp_cmd *const *cmds, const char *name)
{
	const char *near = near_cmd(cmds, name);

	/* "gpuprov version": an option, not a command (the closest command is verify) */
	if (!strcmp(name, gp_options[GP_OPT_VERSION].name))
		gp_err("unknown command '%s': did you mean 'gpuprov --%s'?", name, name);
	else if (near)
		gp_err("unknown command '%s': did you mean '%s'? (gpuprov help %s)", name, near,
		       near);
	else
		gp_err("unknown command '%s' (gpuprov help: the commands)", name);
	return GP_EXIT_INPUT;
}

/* "[NAME VALUE]": an option as a synopsis shows it, named as said. */
static void option_word(char *word, const char *name, enum gp_opt id)
{
	const char *value = gp_options[id].value;

	snprintf(word, SYNOPSIS_WORD, "[%s%s%s]", name, value ? " " : "", value ? value : "");
}

/* What every command takes, after -p: the same in every synopsis. */
static int every_command(char words[][SYNOPSIS_WORD])
{
	snprintf(words[0], SYNOPSIS_WORD, "[-r ROOT]");
	snprintf(words[1], SYNOPSIS_WORD, "[--json]");
	snprintf(words[2], SYNOPSIS_WORD, "[-v|-q]");
	return 3;
}

/* c's synopsis after "gpuprov", a word at a time (a word is never broken). */
static int synopsis(const struct gp_cmd *c, char words[][SYNOPSIS_WORD])
{
	enum gp_opt ids[GP_CMD_OPTS + 2];
	char name[GP_OPT_NAME];
	int n = 0;
	size_t i;

	options_of(c, ids);
	if (ids[0] == GP_OPT_PROFILE)
		snprintf(words[n++], SYNOPSIS_WORD, "%s",
			 c->flags & GP_NEED_PROFILE ? "-p PROFILE" : "[-p PROFILE]");
	n += every_command(words + n);
	for (i = ids[0] == GP_OPT_PROFILE; ids[i]; i++)
		option_word(words[n++], gp_opt_name(ids[i], name, sizeof(name)), ids[i]);
	snprintf(words[n++], SYNOPSIS_WORD, "%s%s%s", c->name, c->args ? " " : "",
		 c->args ? c->args : "");
	return n;
}

bool gp_cmd_takes(const struct gp_cmd *c, enum gp_opt id)
{
	enum gp_opt ids[GP_CMD_OPTS + 2];
	size_t i;

	options_of(c, ids);
	for (i = 0; ids[i]; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Whether a command of the table takes option id. */
static bool taken(const struct gp_cmd *const *cmds, enum gp_opt id)
{
	for (; *cmds; cmds++)
		if (gp_cmd_takes(*cmds, id))
			return true;
	return false;
}

/*
 * --help's synopsis: every option a command takes, by its letter where it has
 * one; -o last, beside the command whose file it names.
 */
static int overall_synopsis(const struct gp_cmd *const *cmds, char words[][SYNOPSIS_WORD])
{
	char name[GP_OPT_NAME];
	int n = 0;
	enum gp_opt id;

	snprintf(words[n++], SYNOPSIS_WORD, "[-p PROFILE]");
	n += every_command(words + n);
	for (id = GP_OPT_NONE + 1; id < GP_OPT_COUNT; id++) {
		if (id == GP_OPT_PROFILE || id == GP_OPT_OUTPUT || !taken(cmds, id))
			continue;
		if (gp_options[id].letter)
			snprintf(name, sizeof(name), "-%c", gp_options[id].letter);
		else
			snprintf(name, sizeof(name), "--%s", gp_options[id].name);
		option_word(words[n++], name, id);
	}
	option_word(words[n++], gp_opt_name(GP_OPT_OUTPUT, name, sizeof(name)), GP_OPT_OUTPUT);
	snprintf(words[n++], SYNOPSIS_WORD, "COMMAND [ARGS]");
	return n;
}

/* The words from "usage: gpuprov", wrapped under it: no line over 80 columns. */
static void print_wrapped(char words[][SYNOPSIS_WORD], int n)
{
	int col = (int)strlen("usage: gpuprov"), i, len;

	gp_text("usage: gpuprov");
	for (i = 0; i < n; i++) {
		len = (int)strlen(words[i]);
		if (col + 1 + len > HELP_COLUMNS) {
			gp_text("\n%*s", SYNOPSIS_INDENT - 1, "");
			col = SYNOPSIS_INDENT - 1;
		}
		gp_text(" %s", words[i]);
		col += 1 + len;
	}
	gp_text("\n");
}

/* An option's line of --help: "  -p, --profile FILE  the server profile ..." */
static void option_line(const struct gp_option *o)
{
	char left[GP_OPT_NAME + SYNOPSIS_WORD];

	snprintf(left, sizeof(left), "--%s%s%s", o->name, o->value ? " " : "",
		 o->value ? o->value : "");
	if (o->letter)
		gp_text("  -%c, %-15s %s\n", o->letter, left, o->help);
	else
		gp_text("      %-15s %s\n", left, o->help);
}

/* c's synopsis as one line, as help --json gives it: the words joined by blanks */
static void synopsis_line(char words[][SYNOPSIS_WORD], int n, char *line, size_t len)
{
	int w;

	for (w = 0, line[0] = '\0'; w < n; w++)
		snprintf(line + strlen(line), len - strlen(line), "%s%s", w ? " " : "", words[w]);
}

/*
 * One command: under --json its entry (name, synopsis, summary, options);
 * as text a line of --help's list, or alone (help COMMAND) its synopsis
 * wrapped under "usage: gpuprov" (a word is never broken: the text's own
 * layout of the words JSON joins) and its summary.
 */
static void command_out(const struct gp_cmd *c, bool alone)
{
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD], line[SYNOPSIS_WORDS * SYNOPSIS_WORD];
	enum gp_opt ids[GP_CMD_OPTS + 2];
	char name[GP_OPT_NAME];
	int n = synopsis(c, words);
	size_t i;

	gp_open_object(NULL);
	gp_print_str("name", alone ? NULL : "  %-10s ", c->name);
	if (alone)
		print_wrapped(words, n);
	synopsis_line(words, n, line, sizeof(line));
	gp_print_str("synopsis", NULL, line);
	gp_print_str("summary", alone ? "\n  %s\n\nSee gpuprov(8), COMMANDS.\n" : "%s\n", c->help);
	options_of(c, ids);
	gp_open_array("options");
	for (i = 0; ids[i]; i++)
		gp_print_str(NULL, NULL, gp_opt_name(ids[i], name, sizeof(name)));
	gp_close_array();
	gp_close_object();
}

/* The ids --accept takes: a failure of theirs blocks a step, and it is not a safety rule. */
static void accept_out(void)
{
	int i;

	gp_open_array("accept");
	for (i = 0; i < GP_F_COUNT; i++)
		if (gp_finding_kinds[i].groups && gp_finding_kinds[i].acceptable)
			gp_print_str(NULL, NULL, gp_finding_kinds[i].id);
	gp_close_array();
}

/* --help's text after the list of commands: every option, the exit statuses. */
static void options_text(void)
{
	enum gp_opt id;

	gp_text("\noptions:\n");
	for (id = GP_OPT_NONE + 1; id < GP_OPT_COUNT; id++)
		option_line(&gp_options[id]);
	gp_text("\nexit: 0 ok, 1 warnings / changes pending, 2 failure / refused (nothing\n"
		"      changed), 3 host unreadable, 4 bad input (apply not as root too),\n"
		"      5 locked, 6 apply failed and rolled back, 7 an undo failed: the host\n"
		"      is left changed\n");
}

/*
 * --help, help COMMAND, help --json: each command (or the one asked) said
 * once; the text's synopsis and options list are its own (help --json gives
 * each command's synopsis and options instead).
 */
static void help_out(const struct gp_cmd *const *cmds, const struct gp_cmd *only)
{
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD];

	if (!only) {
		print_wrapped(words, overall_synopsis(cmds, words));
		gp_text("\n");
	}
	gp_open_array("commands");
	for (; *cmds; cmds++)
		if (!only || only == *cmds)
			command_out(*cmds, only != NULL);
	gp_close_array();
	if (only)
		return;
	accept_out();
	options_text();
}

/* The usage on f: stderr when no command was given. */
void gp_usage(FILE *f, const struct gp_cmd *const *cmds)
{
	gp_out_begin(f, false);
	help_out(cmds, NULL);
	gp_out_end();
}

int gp_help(const struct gp_cmd *const *cmds, const struct gp_cmd *c, bool json)
{
	gp_cmd_begin("help", json);
	help_out(cmds, c);
	gp_doc_end();
	return GP_EXIT_OK;
}

static int do_help(struct gp_ctx *ctx)
{
	const struct gp_cmd *c;

	if (ctx->argc > 1) {
		gp_err("usage: gpuprov help [COMMAND]");
		return GP_EXIT_INPUT;
	}
	if (!ctx->argc)
		return gp_help(ctx->commands, NULL, ctx->json);
	c = gp_cmd_find(ctx->commands, ctx->argv[0]);
	return c ? gp_help(ctx->commands, c, ctx->json)
		 : gp_cmd_unknown(ctx->commands, ctx->argv[0]);
}

const struct gp_cmd gp_cmd_help = {
	.name = "help",
	.run = do_help,
	.args = "[COMMAND]",
	.help = "this list, or what COMMAND takes",
};
