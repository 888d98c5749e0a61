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

enum {
	NEED_PROFILE = 1 << 0,	/* fails without -p */
	USE_PROFILE = 1 << 1,	/* loads -p when given */
	NO_ARGS = 1 << 2,	/* takes no arguments after its name */
	TRUST_PROFILE = 1 << 3, /* acts on -p as root: only root may be able to change it */
};

struct gp_cmd {
	const char *name;
	int (*fn)(struct gp_ctx *ctx);
	unsigned flags;
	const char *help;
};

static const struct gp_cmd commands[] = {
	{ "scan", gp_cmd_scan, USE_PROFILE | NO_ARGS,
	  "GPUs, NICs, bridges, IOMMU groups, NUMA nodes, links, BARs" },
	{ "topo", gp_cmd_topo, USE_PROFILE | NO_ARGS,
	  "GPU/NIC path matrix (X PIX PXB PHB NODE SYS) with the slowest link" },
	{ "check", gp_cmd_check, NEED_PROFILE | NO_ARGS,
	  "preflight of the host against the profile" },
	{ "plan", gp_cmd_plan, NEED_PROFILE | NO_ARGS,
	  "dry run: the steps apply would take, with current and target state" },
	{ "apply", gp_cmd_apply, NEED_PROFILE | NO_ARGS | TRUST_PROFILE,
	  "carry out the plan (root, live host): --yes, --only vfio,bond,vm" },
	{ "rollback", gp_cmd_rollback, 0,
	  "undo the last run left to undo: rollback [--list | RUN-ID]" },
	{ "bond", gp_cmd_bond, USE_PROFILE,
	  "the bond's live state: mode, ports, aggregator IDs, partner MAC" },
	{ "domxml", gp_cmd_domxml, NEED_PROFILE | NO_ARGS,
	  "the libvirt domain XML for the profile's VM (stdout or -o FILE)" },
	{ "snapshot", gp_cmd_snapshot, 0,
	  "save what gpuprov reads of this host: snapshot -o FILE.tar.gz" },
	{ "profile", gp_cmd_profile, 0, "validate FILE | discover" },
	{ "report", gp_cmd_report, NEED_PROFILE | NO_ARGS,
	  "the maintenance-window dossier: Markdown, or HTML with an SVG (-o FILE.html)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: gpuprov [-p PROFILE] [-r ROOT] [--json] [-v|-q] [-y] [--only LIST]\n"
		   "               [--force-mgmt] [--list] [--diff] [-o FILE] COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\noptions:\n"
		   "  -p, --profile FILE  the server profile (INI, see gpuprov.ini(5))\n"
		   "  -r, --root DIR      read the host under DIR (a snapshot or fixture)\n"
		   "  -o, --output FILE   where a command writes its file\n"
		   "      --json          one JSON document on stdout\n"
		   "  -y, --yes           apply, rollback: do not ask\n"
		   "      --only LIST     plan, apply: only vfio, bond, vm steps\n"
		   "      --force-mgmt    apply: bond a port that carries the management path\n"
		   "      --accept IDS    plan, apply: go ahead despite these failed findings\n"
		   "      --list          rollback: every journaled run and its status\n"
		   "      --diff          plan: unified diffs of the files the steps write\n"
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

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* --json promises one document on stdout, errors included. */
static void json_error(const char *command, int rc)
{
	json_object *doc = gp_json_doc(command);
	char why[32];

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
	fflush(stdout);
	return rc;
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

int gp_ctx_host(struct gp_ctx *ctx, struct gp_host *h)
{
	return gp_host_load(ctx->root, ctx->profile, h) ? GP_EXIT_HOST : 0;
}

/*
 * -o naming a character device or a FIFO (/dev/null, /dev/full, a pipe) is
 * written through, as a shell redirection would, and its errors count: the
 * one writer would put a regular file in its place.  A link to one is refused:
 * replacing /dev/stdout is not what was asked, and a link someone else planted
 * must not lead root's write into a device.  1: a file for the one writer.
 */
static int output_node(const char *path, const char *text, size_t len)
{
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) || S_ISREG(st.st_mode))
		return 1;
	if (S_ISLNK(st.st_mode) && (stat(path, &st) || S_ISREG(st.st_mode)))
		return 1; /* the writer replaces the link, never writes through it */
	if (S_ISLNK(st.st_mode) || (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))) {
		gp_err("cannot write '%s': not a regular file, a character device or a FIFO "
		       "(a link to a device: name the device itself)",
		       path);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) ||
	    fcntl(fd, F_SETFL, 0))
		rc = fd < 0 ? -errno : -EINVAL;
	else
		rc = gp_write_all(fd, text, len);
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	if (rc)
		gp_err("cannot write '%s': %s", path, strerror(-rc));
	return rc;
}

/* A command's document to -o FILE (through the one writer) or to stdout. */
static int output_file(const char *path, const char *text, size_t len)
{
	int rc = output_node(path, text, len);

	if (rc <= 0)
		return rc ? GP_EXIT_INPUT : 0;
	rc = gp_write_file(path, text, len, 0644);
	if (rc) {
		gp_err("cannot write '%s': %s", path, strerror(-rc));
		return GP_EXIT_INPUT;
	}
	return 0;
}

/* Under --json the text goes into the one document (or -o FILE, named there). */
static int output_json(const struct gp_ctx *ctx, const char *text, size_t len)
{
	json_object *doc;
	int rc = ctx->output ? output_file(ctx->output, text, len) : 0;

	if (rc)
		return rc;
	doc = gp_json_doc(ctx->command);
	json_object_object_add(doc, "file",
			       ctx->output ? json_object_new_string(ctx->output) : NULL);
	json_object_object_add(doc, "text",
			       ctx->output ? NULL : json_object_new_string_len(text, (int)len));
	gp_json_print(doc);
	return 0;
}

int gp_ctx_output(const struct gp_ctx *ctx, const char *text, size_t len)
{
	if (ctx->json)
		return output_json(ctx, text, len);
	if (ctx->output)
		return output_file(ctx->output, text, len);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
		gp_err("cannot write to standard output: %s", strerror(errno));
		return GP_EXIT_INPUT;
	}
	return 0;
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
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_ctx ctx = { .root = "/" };
	struct gp_profile profile;
	const struct gp_cmd *cmd;
	int c, rc;

	gp_term_streams(); /* nothing from a host or a profile reaches a terminal raw */
	ctx.json = json_asked(argc, argv);
	ctx.command = command_named(argc, argv);
	opterr = 0; /* our own message, without the binary's path */
	while ((c = getopt_long(argc, argv, ":p:r:o:yvqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			ctx.profile_path = optarg;
			break;
		case 'r':
			ctx.root = optarg;
			break;
		case 'o':
			ctx.output = optarg;
			break;
		case 'j':
			ctx.json = true;
			break;
		case 'y':
			ctx.yes = true;
			break;
		case 'O':
			ctx.only = optarg;
			break;
		case 'F':
			ctx.force_mgmt = true;
			break;
		case 'A':
			ctx.accept = optarg;
			break;
		case 'L':
			ctx.list = true;
			break;
		case 'D':
			ctx.diff = true;
			break;
		case 'v':
			gp_verbosity = 2;
			break;
		case 'q':
			gp_verbosity = 0;
			break;
		case 'h':
			usage(stdout);
			return GP_EXIT_OK;
		case 'V':
			return version(ctx.json);
		case ':':
			gp_err("option '%s' needs a value (see gpuprov --help)", argv[optind - 1]);
			return finish(&ctx, ctx.command, GP_EXIT_INPUT);
		default:
			gp_err("unknown option '%s' (see gpuprov --help)", argv[optind - 1]);
			return finish(&ctx, ctx.command, GP_EXIT_INPUT);
		}
	}
	gp_progress_setup(ctx.json, gp_verbosity);
	if (optind >= argc) {
		usage(stderr);
		if (ctx.json) /* the document's error; the usage said it already */
			gp_err("no command (see gpuprov --help)");
		return finish(&ctx, ctx.command, GP_EXIT_INPUT);
	}
	cmd = find_cmd(argv[optind]);
	if (!cmd) {
		gp_err("unknown command '%s' (see gpuprov --help)", argv[optind]);
		return finish(&ctx, argv[optind], GP_EXIT_INPUT);
	}
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
			gp_err("%s", gp_profile_error());
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
	rc = finish(&ctx, cmd->name, cmd->fn(&ctx));
	if (ferror(stdout)) {
		gp_err("cannot write the output");
		return GP_EXIT_HOST;
	}
	return rc;
}
