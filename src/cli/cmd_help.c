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
static void print_wrapped(FILE *f, char words[][SYNOPSIS_WORD], int n)
{
	int col = fprintf(f, "usage: gpuprov"), i, len;

	for (i = 0; i < n; i++) {
		len = (int)strlen(words[i]);
		if (col + 1 + len > HELP_COLUMNS)
			col = fprintf(f, "\n%*s", SYNOPSIS_INDENT - 1, "") - 1;
		col += fprintf(f, " %s", words[i]);
	}
	fputc('\n', f);
}

/* An option's line of --help: "  -p, --profile FILE  the server profile ..." */
static void option_line(FILE *f, const struct gp_option *o)
{
	char left[GP_OPT_NAME + SYNOPSIS_WORD];

	snprintf(left, sizeof(left), "--%s%s%s", o->name, o->value ? " " : "",
		 o->value ? o->value : "");
	if (o->letter)
		fprintf(f, "  -%c, %-15s %s\n", o->letter, left, o->help);
	else
		fprintf(f, "      %-15s %s\n", left, o->help);
}

void gp_usage(FILE *f, const struct gp_cmd *const *cmds)
{
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD];
	const struct gp_cmd *const *c;
	enum gp_opt id;

	print_wrapped(f, words, overall_synopsis(cmds, words));
	fputc('\n', f);
	for (c = cmds; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->help);
	fprintf(f, "\noptions:\n");
	for (id = GP_OPT_NONE + 1; id < GP_OPT_COUNT; id++)
		option_line(f, &gp_options[id]);
	fprintf(f, "\nexit: 0 ok, 1 warnings / changes pending, 2 failure / refused (nothing\n"
		   "      changed), 3 host unreadable, 4 bad input (apply not as root too),\n"
		   "      5 locked, 6 apply failed and rolled back, 7 an undo failed: the host\n"
		   "      is left changed\n");
}

/* help --json's entry of a command: its synopsis and options. */
static json_object *command_json(const struct gp_cmd *c)
{
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD], line[SYNOPSIS_WORDS * SYNOPSIS_WORD];
	json_object *o = json_object_new_object(), *opts = json_object_new_array();
	enum gp_opt ids[GP_CMD_OPTS + 2];
	char name[GP_OPT_NAME];
	size_t i;
	int n, w;

	n = synopsis(c, words);
	for (w = 0, line[0] = '\0'; w < n; w++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", w ? " " : "",
			 words[w]);
	options_of(c, ids);
	for (i = 0; ids[i]; i++)
		json_object_array_add(
			opts, json_object_new_string(gp_opt_name(ids[i], name, sizeof(name))));
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "synopsis", json_object_new_string(line));
	json_object_object_add(o, "summary", json_object_new_string(c->help));
	json_object_object_add(o, "options", opts);
	return o;
}

/* help --json: each command (or the one asked) with its synopsis and options. */
/* The ids --accept takes: a failure of theirs blocks a step, and it is not a safety rule. */
static json_object *accept_json(void)
{
	json_object *arr = json_object_new_array();
	int i;

	for (i = 0; i < GP_F_COUNT; i++)
		if (gp_finding_kinds[i].groups && gp_finding_kinds[i].acceptable)
			json_object_array_add(arr, json_object_new_string(gp_finding_kinds[i].id));
	return arr;
}

static void help_json(const struct gp_cmd *const *cmds, const struct gp_cmd *only)
{
	json_object *doc = gp_json_doc("help"), *arr = json_object_new_array();

	for (; *cmds; cmds++)
		if (!only || only == *cmds)
			json_object_array_add(arr, command_json(*cmds));
	json_object_object_add(doc, "commands", arr);
	if (!only)
		json_object_object_add(doc, "accept", accept_json());
	gp_json_print(doc);
}

/* help COMMAND: its synopsis and line */
static void command_text(const struct gp_cmd *c)
{
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD];

	print_wrapped(stdout, words, synopsis(c, words));
	printf("\n  %s\n\nSee gpuprov(8), COMMANDS.\n", c->help);
}

int gp_help(const struct gp_cmd *const *cmds, const struct gp_cmd *c, bool json)
{
	if (json)
		help_json(cmds, c);
	else if (c)
		command_text(c);
	else
		gp_usage(stdout, cmds);
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
