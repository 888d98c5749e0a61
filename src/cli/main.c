// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov: make a KVM host ready to give its GPUs to one VM with full P2P.
 * The one command table; each command's descriptor (cmd.h's struct gp_cmd)
 * says what it needs, checked once, before it runs (git's model), and which
 * options it takes.  Only this file turns results into exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/model.h"
#include "shared/progress.h"
#include "cli/out.h"
#include "core/profile.h"
#include "host/host.h"

/*
 * The commands, one line each, in --help's order: C(NAME) is the descriptor
 * gp_cmd_NAME that its cmd_*.c exports (a '-' of the command's name is '_').
 */
#define COMMANDS(C)     \
	C(scan)         \
	C(topo)         \
	C(check)        \
	C(plan)         \
	C(apply)        \
	C(rollback)     \
	C(confirm)      \
	C(bond)         \
	C(domxml)       \
	C(snapshot)     \
	C(profile)      \
	C(report)       \
	C(nccl_topo)    \
	C(guest_config) \
	C(verify)       \
	C(help)

#define DECLARE(name) extern const struct gp_cmd gp_cmd_##name;
#define ENTRY(name)   &gp_cmd_##name,
COMMANDS(DECLARE)
static const struct gp_cmd *const commands[] = { COMMANDS(ENTRY) NULL };

/* getopt_long's val of an option without a letter: past every letter */
#define LONG_ONLY 0x100

/* getopt_long's array and short options, from the option table */
static void getopt_tables(struct option *longs, char *shorts)
{
	const struct gp_option *o;
	enum gp_opt id;

	*shorts++ = ':'; /* a missing value is ':', not '?' */
	for (id = GP_OPT_NONE + 1; id < GP_OPT_COUNT; id++) {
		o = &gp_options[id];
		longs[id - 1] =
			(struct option){ o->name, o->value ? required_argument : no_argument, NULL,
					 o->letter ? o->letter : LONG_ONLY + (int)id };
		if (o->letter)
			shorts += sprintf(shorts, "%c%s", o->letter, o->value ? ":" : "");
	}
	longs[GP_OPT_COUNT - 1] = (struct option){ 0 };
}

/* The option getopt_long returned c for; GP_OPT_NONE: an error (':', '?'). */
static enum gp_opt option_of(int c)
{
	enum gp_opt id;

	if (c > LONG_ONLY && c < LONG_ONLY + GP_OPT_COUNT)
		return (enum gp_opt)(c - LONG_ONLY);
	for (id = GP_OPT_NONE + 1; id < GP_OPT_COUNT; id++)
		if (gp_options[id].letter && gp_options[id].letter == c)
			return id;
	return GP_OPT_NONE;
}

/*
 * -h anywhere: the command's help when one is named (gpuprov plan -h), else
 * the whole usage; whatever else the line holds is not looked at.
 */
static int help_asked(const struct gp_ctx *ctx, int argc, char **argv)
{
	const struct gp_cmd *c = optind < argc ? gp_cmd_find(commands, argv[optind]) : NULL;

	return gp_help(commands, c, ctx->json);
}

/* An option given that the command does not take: said, exit 4, never ignored. */
static int unused_option(const struct gp_ctx *ctx, const struct gp_cmd *c)
{
	char name[GP_OPT_NAME];
	enum gp_opt id;

	for (id = GP_OPT_NONE + 1; id < GP_OPT_COUNT; id++) {
		if (!ctx->opt[id] || gp_cmd_takes(c, id))
			continue;
		gp_err("'%s' does not use %s (gpuprov help %s: what it takes)", c->name,
		       gp_opt_name(id, name, sizeof(name)), c->name);
		return GP_EXIT_INPUT;
	}
	return 0;
}

/* An unknown long option: the closest one, as for commands. */
static void unknown_option(const char *arg, const struct option *opts)
{
	char name[64];
	const char *names[GP_OPT_COUNT], *near;
	size_t i;

	for (i = 0; opts[i].name; i++)
		names[i] = opts[i].name;
	names[i] = NULL;
	snprintf(name, sizeof(name), "%s", arg + strspn(arg, "-"));
	name[strcspn(name, "=")] = '\0';
	near = strncmp(arg, "--", 2) ? NULL : gp_closest(name, names);
	if (near)
		gp_err("unknown option '%s': did you mean '--%s'? (gpuprov --help)", arg, near);
	else
		gp_err("unknown option '%s' (see gpuprov --help)", arg);
}

/* --size: checked as getopt meets it, the first error said. */
static int size_value(const char *arg, uint64_t *size)
{
	if (!gp_parse_size(arg, size) && *size >= 4096 && *size <= (64ull << 30))
		return 0;
	gp_err("--size '%s': a size from 4KiB to 64GiB, e.g. 256MiB", arg);
	return GP_EXIT_INPUT;
}

/*
 * An option getopt_long met (c): those every command takes act here; any
 * other is kept in ctx->opt[] for the command, whose descriptor says whether
 * it takes it (unused_option).  0, or an exit status.
 */
static int take_option(struct gp_ctx *ctx, int c, char **argv, const struct option *longs,
		       bool *help)
{
	enum gp_opt id = option_of(c);

	switch (id) {
	case GP_OPT_NONE:
		if (c == ':')
			gp_err("option '%s' needs a value (see gpuprov --help)", argv[optind - 1]);
		else
			unknown_option(argv[optind - 1], longs);
		return GP_EXIT_INPUT;
	case GP_OPT_ROOT:
		ctx->root = optarg;
		return 0;
	case GP_OPT_JSON:
		ctx->json = true;
		return 0;
	case GP_OPT_VERBOSE:
		gp_verbosity = 2;
		return 0;
	case GP_OPT_QUIET:
		gp_verbosity = 0;
		return 0;
	case GP_OPT_HELP:
		*help = true;
		return 0;
	case GP_OPT_SIZE:
		if (size_value(optarg, &ctx->size))
			return GP_EXIT_INPUT;
		break;
	default:
		break;
	}
	ctx->opt[id] = gp_options[id].value ? optarg : "";
	return 0;
}

/* --json promises one document on stdout, errors included. */
static void json_error(const char *command, int rc)
{
	char why[32];

	snprintf(why, sizeof(why), "exit status %d", rc);
	gp_doc_begin(NULL, command);
	gp_print_str("error", NULL, gp_last_error[0] ? gp_last_error : why);
	gp_print_int("exit_status", NULL, rc);
	gp_doc_end();
}

/*
 * Every return comes through here: a command that failed before printing
 * its document (a usage error, a bad profile, a missing bond) still prints
 * one under --json.
 */
static int finish(const struct gp_ctx *ctx, const char *command, int rc)
{
	gp_progress_clear();
	if (ctx->json && rc != GP_EXIT_OK && !gp_json_printed)
		json_error(command, rc);
	if (!fflush(stdout) && !ferror(stdout))
		return rc;
	gp_err("cannot write to standard output: %s", strerror(errno));
	/*
	 * As a failed write of -o FILE (the output is the operator's, not the
	 * host's), but only in place of 0 or 1: a failure found, a host that
	 * could not be read, apply's 6 or 7 say more than that the report was
	 * lost, and must not read as "bad input, nothing done".
	 */
	return rc > GP_EXIT_WARN ? rc : GP_EXIT_INPUT;
}

/*
 * Whether --json is asked, known before getopt reaches it (GNU getopt takes
 * options anywhere up to "--"), so that an error before it still answers in
 * JSON; and the command named, for the document's "command".
 */
static bool json_asked(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			return true;
	return false;
}

static const char *command_named(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (gp_cmd_find(commands, argv[i]))
			return gp_cmd_find(commands, argv[i])->name;
	return "gpuprov";
}

/* Under --json the document's head, its "version", is the answer. */
static int version(bool json)
{
	gp_cmd_begin("version", json);
	gp_text("gpuprov %s\n", gp_version);
	gp_doc_end();
	return GP_EXIT_OK;
}

/*
 * What cmd needs before it runs (its descriptor's flags), in order; 0, or an
 * exit status.  profile: where -p's is loaded.
 */
static int ready(struct gp_ctx *ctx, const struct gp_cmd *cmd, struct gp_profile *profile)
{
	const char *path = ctx->opt[GP_OPT_PROFILE], *output = ctx->opt[GP_OPT_OUTPUT];

	if (unused_option(ctx, cmd))
		return GP_EXIT_INPUT;
	if ((cmd->flags & GP_NEED_PROFILE) && !path) {
		gp_err("'%s' needs a profile: -p FILE", cmd->name);
		return GP_EXIT_INPUT;
	}
	/* before a byte of it is read: parsing is acting on it too */
	if ((cmd->flags & GP_TRUST_PROFILE) && path && gp_trust(path, GP_TRUST_FILE))
		return GP_EXIT_INPUT;
	/*
	 * root writes -o's file: a directory on its way that another user can
	 * change could be swapped for a link, and root's file land elsewhere
	 */
	if (output && !geteuid() && gp_trust_parent(output))
		return GP_EXIT_INPUT;
	if ((cmd->flags & (GP_NEED_PROFILE | GP_USE_PROFILE)) && path) {
		if (gp_profile_load(path, profile)) {
			gp_err("%s", gp_profile_error(profile));
			return GP_EXIT_INPUT;
		}
		ctx->profile = profile;
	}
	if ((cmd->flags & GP_NO_ARGS) && ctx->argc) {
		gp_err("'%s' takes no arguments", cmd->name);
		return GP_EXIT_INPUT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct option longs[GP_OPT_COUNT];
	char shorts[2 * GP_OPT_COUNT + 2];
	struct gp_ctx ctx = { .root = "/", .commands = commands };
	struct gp_profile profile;
	const struct gp_cmd *cmd;
	bool help = false;
	int c, rc;

	gp_term_streams(); /* nothing from a host or a profile reaches a terminal raw */
	ctx.json = json_asked(argc, argv);
	ctx.command = command_named(argc, argv);
	getopt_tables(longs, shorts);
	opterr = 0; /* our own message, without the binary's path */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (option_of(c) == GP_OPT_VERSION)
			return finish(&ctx, "version", version(ctx.json));
		if (take_option(&ctx, c, argv, longs, &help))
			return finish(&ctx, ctx.command, GP_EXIT_INPUT);
	}
	gp_progress_setup(ctx.json, gp_verbosity);
	if (help)
		return finish(&ctx, "help", help_asked(&ctx, argc, argv));
	if (optind >= argc) {
		gp_usage(stderr, commands);
		if (ctx.json) /* the document's error; the usage said it already */
			gp_err("no command (see gpuprov --help)");
		return finish(&ctx, ctx.command, GP_EXIT_INPUT);
	}
	cmd = gp_cmd_find(commands, argv[optind]);
	if (!cmd)
		return finish(&ctx, argv[optind], gp_cmd_unknown(commands, argv[optind]));
	ctx.argc = argc - optind - 1;
	ctx.argv = argv + optind + 1;
	rc = ready(&ctx, cmd, &profile);
	if (!rc) {
		ctx.command = cmd->name;
		rc = cmd->run(&ctx);
	}
	return finish(&ctx, cmd->name, rc);
}
