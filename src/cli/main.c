// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov: make a KVM host ready to give its GPUs to one VM with full P2P.
 * The one command table; requirements are flags checked once, before any
 * command runs (git's model).  Only this file turns results into exit codes.
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
#include "cli/render.h"
#include "core/profile.h"
#include "host/host.h"

enum {
	NEED_PROFILE = 1 << 0,	/* fails without -p */
	USE_PROFILE = 1 << 1,	/* loads -p when given */
	NO_ARGS = 1 << 2,	/* takes no arguments after its name */
	TRUST_PROFILE = 1 << 3, /* acts on -p as root: only root may be able to change it */
};

/*
 * The options a command uses, beyond those every command takes (-r, --json,
 * -v, -q, -h): any other one given is an error, not silently ignored.
 */
enum {
	OPT_PROFILE = 1 << 0, /* -p */
	OPT_OUTPUT = 1 << 1,  /* -o */
	OPT_YES = 1 << 2,     /* -y */
	OPT_ONLY = 1 << 3,
	OPT_FORCE_MGMT = 1 << 4,
	OPT_LIST = 1 << 5,
	OPT_ACCEPT = 1 << 6,
	OPT_DIFF = 1 << 7,
	OPT_BASELINE = 1 << 8,
	OPT_THIS_HOST = 1 << 9,
	OPT_QUICK = 1 << 10,
	OPT_SIZE = 1 << 11,
	OPT_NO_NCCL = 1 << 12,
	OPT_NCCL_COMPARE = 1 << 13,
	OPT_NCCL_LIB = 1 << 14,
};

static const struct {
	unsigned opt;
	const char *name;
} option_names[] = {
	{ OPT_PROFILE, "-p" },
	{ OPT_OUTPUT, "-o" },
	{ OPT_YES, "--yes" },
	{ OPT_ONLY, "--only" },
	{ OPT_FORCE_MGMT, "--force-mgmt" },
	{ OPT_LIST, "--list" },
	{ OPT_DIFF, "--diff" },
	{ OPT_ACCEPT, "--accept" },
	{ OPT_BASELINE, "--baseline" },
	{ OPT_THIS_HOST, "--this-host" },
	{ OPT_QUICK, "--quick" },
	{ OPT_SIZE, "--size" },
	{ OPT_NO_NCCL, "--no-nccl" },
	{ OPT_NCCL_COMPARE, "--nccl-compare" },
	{ OPT_NCCL_LIB, "--nccl-lib" },
};

struct gp_cmd {
	const char *name;
	int (*fn)(struct gp_ctx *ctx);
	unsigned flags;
	unsigned opts;
	const char *args; /* what follows the name, for help COMMAND */
	const char *help;
};

static int gp_cmd_help(struct gp_ctx *ctx);

#define PLAN_OPTS   (OPT_PROFILE | OPT_ONLY | OPT_FORCE_MGMT | OPT_ACCEPT)
#define VERIFY_OPTS (OPT_QUICK | OPT_SIZE | OPT_NO_NCCL | OPT_NCCL_COMPARE | OPT_NCCL_LIB)

static const struct gp_cmd commands[] = {
	{ "scan", gp_cmd_scan, USE_PROFILE | NO_ARGS, OPT_PROFILE, "",
	  "GPUs, NICs, bridges, IOMMU groups, NUMA nodes, links, BARs" },
	{ "topo", gp_cmd_topo, USE_PROFILE | NO_ARGS, OPT_PROFILE, "",
	  "GPU/NIC path matrix (X PIX PXB PHB NODE SYS) with the slowest link" },
	{ "check", gp_cmd_check, NEED_PROFILE | NO_ARGS, OPT_PROFILE | OPT_BASELINE, "",
	  "preflight of the host against the profile" },
	{ "plan", gp_cmd_plan, NEED_PROFILE | NO_ARGS, PLAN_OPTS | OPT_DIFF, "",
	  "dry run: the steps apply would take, with current and target state" },
	{ "apply", gp_cmd_apply, NEED_PROFILE | NO_ARGS | TRUST_PROFILE, PLAN_OPTS | OPT_YES, "",
	  "carry out the plan (root, live host): --yes, --only vfio,bond,vm" },
	{ "rollback", gp_cmd_rollback, 0, OPT_YES | OPT_LIST, " [RUN-ID]",
	  "undo the last run left to undo: rollback [--list | RUN-ID]" },
	{ "bond", gp_cmd_bond, USE_PROFILE, OPT_PROFILE, " [NAME]",
	  "the bond's live state: mode, ports, aggregator IDs, partner MAC" },
	{ "domxml", gp_cmd_domxml, NEED_PROFILE | NO_ARGS, OPT_PROFILE | OPT_OUTPUT, "",
	  "the libvirt domain XML for the profile's VM (stdout or -o FILE)" },
	{ "snapshot", gp_cmd_snapshot, 0, OPT_OUTPUT, "",
	  "save what gpuprov reads of this host: snapshot -o FILE.tar.gz" },
	{ "profile", gp_cmd_profile, 0, OPT_OUTPUT, " validate FILE | discover",
	  "validate FILE | discover" },
	{ "report", gp_cmd_report, NEED_PROFILE | NO_ARGS, OPT_PROFILE | OPT_OUTPUT, "",
	  "the maintenance-window dossier: Markdown, or HTML (-o FILE.html)" },
	{ "nccl-topo", gp_cmd_nccl_topo, USE_PROFILE | NO_ARGS,
	  OPT_PROFILE | OPT_OUTPUT | OPT_THIS_HOST, "",
	  "NCCL_TOPO_FILE for the profile's VM (--this-host: this machine)" },
	{ "verify", gp_cmd_verify, NO_ARGS, VERIFY_OPTS, "",
	  "in the VM: P2P, read-back, bandwidth per GPU pair, NCCL all-reduce" },
	{ "help", gp_cmd_help, 0, 0, " [COMMAND]", "this list, or what COMMAND takes" },
};

#define NCOMMANDS (ARRAY_SIZE(commands))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: gpuprov [-p PROFILE] [-r ROOT] [--json] [-v|-q] [-y] [--only LIST]\n"
		"               [--force-mgmt] [--accept IDS] [--list] [--diff] [--baseline DIR]\n"
		"               [--this-host] [--quick] [--size SIZE] [--no-nccl]\n"
		"               [--nccl-compare] [--nccl-lib PATH] [-o FILE] COMMAND [ARGS]\n\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\noptions:\n"
		"  -p, --profile FILE  the server profile (INI, see gpuprov.ini(5))\n"
		"  -r, --root DIR      read the host under DIR (a snapshot or fixture)\n"
		"  -o, --output FILE   where a command writes its file\n"
		"      --json          one JSON document on stdout\n"
		"  -y, --yes           apply, rollback: do not ask\n"
		"      --only LIST     plan, apply: only vfio, bond, vm steps\n"
		"      --force-mgmt    plan, apply: accept bond.mgmt (bond the management port)\n"
		"      --accept IDS    plan, apply: go ahead despite these failed findings\n"
		"      --list          rollback: every journaled run and its status\n"
		"      --diff          plan: unified diffs of the files the steps write\n"
		"      --baseline DIR  check: drift against this unpacked snapshot\n"
		"      --this-host     nccl-topo: for this machine, at its own addresses\n"
		"      --quick         verify: small buffers, no NCCL (under 5 s)\n"
		"      --size SIZE     verify: bytes per peer copy (default 256MiB)\n"
		"      --no-nccl       verify: skip the NCCL all-reduce\n"
		"      --nccl-compare  verify: the all-reduce again with P2P off\n"
		"      --nccl-lib PATH verify: the NCCL library (default libnccl.so.2)\n"
		"  -v, --verbose       more messages on stderr\n"
		"  -q, --quiet         errors only\n"
		"  -h, --help          this text\n"
		"  -V, --version       the version\n"
		"\nexit: 0 ok, 1 warnings / changes pending, 2 failure / refused (nothing\n"
		"      changed), 3 host unreadable, 4 bad input (apply not as root too),\n"
		"      5 locked, 6 apply failed and rolled back, 7 an undo failed: the host\n"
		"      is left changed\n");
}

static const struct gp_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The command closest to a mistyped one, NULL when none is close. */
static const char *near_cmd(const char *name)
{
	const char *names[NCOMMANDS + 1];
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = NULL;
	return gp_closest(name, names);
}

static int unknown_cmd(const char *name)
{
	const char *near = near_cmd(name);

	if (near)
		gp_err("unknown command '%s': did you mean '%s'? (gpuprov help %s)", name, near,
		       near);
	else
		gp_err("unknown command '%s' (gpuprov help: the commands)", name);
	return GP_EXIT_INPUT;
}

#define HELP_COLUMNS	80
#define SYNOPSIS_INDENT 15 /* under "usage: gpuprov " */
#define SYNOPSIS_WORDS	24
#define SYNOPSIS_WORD	48 /* bytes of one, "profile validate FILE | discover" */

/* An option's value, as the synopsis names it. */
static const char *option_value(unsigned opt)
{
	switch (opt) {
	case OPT_OUTPUT:
		return " FILE";
	case OPT_ONLY:
		return " LIST";
	case OPT_ACCEPT:
		return " IDS";
	case OPT_BASELINE:
		return " DIR";
	case OPT_SIZE:
		return " SIZE";
	case OPT_NCCL_LIB:
		return " PATH";
	default:
		return "";
	}
}

/* c's synopsis after "gpuprov", a word at a time (a word is never broken). */
static int synopsis(const struct gp_cmd *c, char words[][SYNOPSIS_WORD])
{
	int n = 0;
	size_t i;

	if (c->flags & NEED_PROFILE)
		snprintf(words[n++], SYNOPSIS_WORD, "-p PROFILE");
	else if (c->opts & OPT_PROFILE)
		snprintf(words[n++], SYNOPSIS_WORD, "[-p PROFILE]");
	snprintf(words[n++], SYNOPSIS_WORD, "[-r ROOT]");
	snprintf(words[n++], SYNOPSIS_WORD, "[--json]");
	snprintf(words[n++], SYNOPSIS_WORD, "[-v|-q]");
	for (i = 0; i < ARRAY_SIZE(option_names); i++)
		if ((c->opts & option_names[i].opt) && option_names[i].opt != OPT_PROFILE)
			snprintf(words[n++], SYNOPSIS_WORD, "[%s%s]", option_names[i].name,
				 option_value(option_names[i].opt));
	snprintf(words[n++], SYNOPSIS_WORD, "%s%s", c->name, c->args);
	return n;
}

/* The words from "usage: gpuprov", wrapped under it: no line over 80 columns. */
static void print_wrapped(char words[][SYNOPSIS_WORD], int n)
{
	int col = printf("usage: gpuprov"), i, len;

	for (i = 0; i < n; i++) {
		len = (int)strlen(words[i]);
		if (col + 1 + len > HELP_COLUMNS)
			col = printf("\n%*s", SYNOPSIS_INDENT - 1, "") - 1;
		col += printf(" %s", words[i]);
	}
	putchar('\n');
}

/* help --json: each command (or the one asked) with its synopsis and options. */
static void help_json(const struct gp_cmd *only)
{
	json_object *doc = gp_json_doc("help"), *arr = json_object_new_array();
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD], line[SYNOPSIS_WORDS * SYNOPSIS_WORD];
	size_t i, k;
	int n, w;

	for (i = 0; i < NCOMMANDS; i++) {
		const struct gp_cmd *c = &commands[i];
		json_object *o, *opts;

		if (only && only != c)
			continue;
		opts = json_object_new_array();
		n = synopsis(c, words);
		for (w = 0, line[0] = '\0'; w < n; w++)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
				 w ? " " : "", words[w]);
		for (k = 0; k < ARRAY_SIZE(option_names); k++)
			if (c->opts & option_names[k].opt)
				json_object_array_add(opts,
						      json_object_new_string(option_names[k].name));
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c->name));
		json_object_object_add(o, "synopsis", json_object_new_string(line));
		json_object_object_add(o, "summary", json_object_new_string(c->help));
		json_object_object_add(o, "options", opts);
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "commands", arr);
	gp_json_print(doc);
}

/* One command's synopsis and line; under --json, its entry of help --json. */
static int command_help(const struct gp_cmd *c, bool json)
{
	char words[SYNOPSIS_WORDS][SYNOPSIS_WORD];

	if (json) {
		help_json(c);
		return GP_EXIT_OK;
	}
	print_wrapped(words, synopsis(c, words));
	printf("\n  %s\n\nSee gpuprov(8), COMMANDS.\n", c->help);
	return GP_EXIT_OK;
}

/* gpuprov help [COMMAND]: the whole list, or one command's line and options. */
static int gp_cmd_help(struct gp_ctx *ctx)
{
	const struct gp_cmd *c;

	if (!ctx->argc && ctx->json) {
		help_json(NULL);
		return GP_EXIT_OK;
	}
	if (!ctx->argc) {
		usage(stdout);
		return GP_EXIT_OK;
	}
	if (ctx->argc > 1) {
		gp_err("usage: gpuprov help [COMMAND]");
		return GP_EXIT_INPUT;
	}
	c = find_cmd(ctx->argv[0]);
	return c ? command_help(c, ctx->json) : unknown_cmd(ctx->argv[0]);
}

/*
 * -h anywhere: the command's help when one is named (gpuprov plan -h), else
 * the whole usage; whatever else the line holds is not looked at.
 */
static int help_asked(const struct gp_ctx *ctx, int argc, char **argv)
{
	const struct gp_cmd *c = optind < argc ? find_cmd(argv[optind]) : NULL;

	if (c)
		return command_help(c, ctx->json);
	if (ctx->json)
		help_json(NULL);
	else
		usage(stdout);
	return GP_EXIT_OK;
}

/* An option given that the command does not use: said, exit 4, never ignored. */
static int unused_option(const struct gp_cmd *c, unsigned given)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(option_names); i++) {
		if (!(given & option_names[i].opt) || (c->opts & option_names[i].opt))
			continue;
		gp_err("'%s' does not use %s (gpuprov help %s: what it takes)", c->name,
		       option_names[i].name, c->name);
		return GP_EXIT_INPUT;
	}
	return 0;
}

/* An unknown long option: the closest one, as for commands. */
static void unknown_option(const char *arg, const struct option *opts)
{
	char name[64];
	const char *names[24], *near;
	size_t i;

	for (i = 0; opts[i].name && i < 23; i++)
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

/* --json promises one document on stdout, errors included. */
static void json_error(const char *command, int rc)
{
	json_object *doc = gp_json_doc(command);
	char why[SYNOPSIS_WORD];

	snprintf(why, sizeof(why), "exit status %d", rc);
	json_object_object_add(doc, "error",
			       json_object_new_string(gp_last_error[0] ? gp_last_error : why));
	json_object_object_add(doc, "exit_status", json_object_new_int(rc));
	gp_json_print(doc);
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
		if (find_cmd(argv[i]))
			return find_cmd(argv[i])->name;
	return "gpuprov";
}

/* Under --json the header's "version" is the answer. */
static int version(bool json)
{
	if (json)
		gp_json_print(gp_json_doc("version"));
	else
		printf("gpuprov %s\n", gp_version);
	return GP_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "yes", no_argument, NULL, 'y' },
		{ "only", required_argument, NULL, 'O' },
		{ "force-mgmt", no_argument, NULL, 'F' },
		{ "accept", required_argument, NULL, 'A' },
		{ "list", no_argument, NULL, 'L' },
		{ "diff", no_argument, NULL, 'D' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "this-host", no_argument, NULL, 'T' },
		{ "quick", no_argument, NULL, 'Q' },
		{ "size", required_argument, NULL, 'S' },
		{ "no-nccl", no_argument, NULL, 'N' },
		{ "nccl-compare", no_argument, NULL, 'C' },
		{ "nccl-lib", required_argument, NULL, 'X' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_ctx ctx = { .root = "/" };
	struct gp_profile profile;
	const struct gp_cmd *cmd;
	unsigned given = 0; /* OPT_* seen */
	bool help = false;
	int c;

	gp_term_streams(); /* nothing from a host or a profile reaches a terminal raw */
	ctx.json = json_asked(argc, argv);
	ctx.command = command_named(argc, argv);
	opterr = 0; /* our own message, without the binary's path */
	while ((c = getopt_long(argc, argv, ":p:r:o:yvqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			ctx.profile_path = optarg;
			given |= OPT_PROFILE;
			break;
		case 'r':
			ctx.root = optarg;
			break;
		case 'o':
			ctx.output = optarg;
			given |= OPT_OUTPUT;
			break;
		case 'j':
			ctx.json = true;
			break;
		case 'y':
			ctx.yes = true;
			given |= OPT_YES;
			break;
		case 'O':
			ctx.only = optarg;
			given |= OPT_ONLY;
			break;
		case 'F':
			ctx.force_mgmt = true;
			given |= OPT_FORCE_MGMT;
			break;
		case 'A':
			ctx.accept = optarg;
			given |= OPT_ACCEPT;
			break;
		case 'L':
			ctx.list = true;
			given |= OPT_LIST;
			break;
		case 'D':
			ctx.diff = true;
			given |= OPT_DIFF;
			break;
		case 'B':
			ctx.baseline = optarg;
			given |= OPT_BASELINE;
			break;
		case 'T':
			ctx.this_host = true;
			given |= OPT_THIS_HOST;
			break;
		case 'Q':
			ctx.quick = true;
			given |= OPT_QUICK;
			break;
		case 'S':
			if (gp_parse_size(optarg, &ctx.size) || ctx.size < 4096 ||
			    ctx.size > (64ull << 30)) {
				gp_err("--size '%s': a size from 4KiB to 64GiB, e.g. 256MiB",
				       optarg);
				return finish(&ctx, ctx.command, GP_EXIT_INPUT);
			}
			given |= OPT_SIZE;
			break;
		case 'N':
			ctx.no_nccl = true;
			given |= OPT_NO_NCCL;
			break;
		case 'C':
			ctx.nccl_compare = true;
			given |= OPT_NCCL_COMPARE;
			break;
		case 'X':
			ctx.nccl_lib = optarg;
			given |= OPT_NCCL_LIB;
			break;
		case 'v':
			gp_verbosity = 2;
			break;
		case 'q':
			gp_verbosity = 0;
			break;
		case 'h':
			help = true;
			break;
		case 'V':
			return finish(&ctx, "version", version(ctx.json));
		case ':':
			gp_err("option '%s' needs a value (see gpuprov --help)", argv[optind - 1]);
			return finish(&ctx, ctx.command, GP_EXIT_INPUT);
		default:
			unknown_option(argv[optind - 1], opts);
			return finish(&ctx, ctx.command, GP_EXIT_INPUT);
		}
	}
	gp_progress_setup(ctx.json, gp_verbosity);
	if (help)
		return finish(&ctx, "help", help_asked(&ctx, argc, argv));
	if (optind >= argc) {
		usage(stderr);
		if (ctx.json) /* the document's error; the usage said it already */
			gp_err("no command (see gpuprov --help)");
		return finish(&ctx, ctx.command, GP_EXIT_INPUT);
	}
	cmd = find_cmd(argv[optind]);
	if (!cmd)
		return finish(&ctx, argv[optind], unknown_cmd(argv[optind]));
	if (unused_option(cmd, given))
		return finish(&ctx, cmd->name, GP_EXIT_INPUT);
	if ((cmd->flags & NEED_PROFILE) && !ctx.profile_path) {
		gp_err("'%s' needs a profile: -p FILE", cmd->name);
		return finish(&ctx, cmd->name, GP_EXIT_INPUT);
	}
	/* before a byte of it is read: parsing is acting on it too */
	if ((cmd->flags & TRUST_PROFILE) && ctx.profile_path &&
	    gp_trust(ctx.profile_path, GP_TRUST_FILE))
		return finish(&ctx, cmd->name, GP_EXIT_INPUT);
	/*
	 * root writes -o's file: a directory on its way that another user can
	 * change could be swapped for a link, and root's file land elsewhere
	 */
	if (ctx.output && !geteuid() && gp_trust_parent(ctx.output))
		return finish(&ctx, cmd->name, GP_EXIT_INPUT);
	if ((cmd->flags & (NEED_PROFILE | USE_PROFILE)) && ctx.profile_path) {
		if (gp_profile_load(ctx.profile_path, &profile)) {
			gp_err("%s", gp_profile_error(&profile));
			return finish(&ctx, cmd->name, GP_EXIT_INPUT);
		}
		ctx.profile = &profile;
	}
	ctx.command = cmd->name;
	ctx.argc = argc - optind - 1;
	ctx.argv = argv + optind + 1;
	if ((cmd->flags & NO_ARGS) && ctx.argc) {
		gp_err("'%s' takes no arguments", cmd->name);
		return finish(&ctx, cmd->name, GP_EXIT_INPUT);
	}
	return finish(&ctx, cmd->name, cmd->fn(&ctx));
}
