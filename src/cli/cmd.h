/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What main.c hands every command: the options, the command descriptors. */
#ifndef GP_CMD_H
#define GP_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "act/apply.h"
#include "core/checks.h"
#include "core/model.h"
#include "core/plan.h"

/*
 * The options, one line each, in --help's order: getopt_long's array and
 * short options (main.c), --help's synopsis and list, each command's synopsis,
 * help --json and the "does not use" refusal (cmd_help.c) are made from them.
 * O(ID, letter, name, value, help): GP_OPT_ID names the option in a command's
 * descriptor and in ctx->opt[]; letter: 'p' for -p, 0 for none; value: what
 * it takes, as --help's list names it (NULL: nothing); help: its line there.
 * Those every command takes (-r, --json, -v, -q, -h, -V) act in main.c; any
 * other reaches, in ctx->opt[], the commands whose descriptor lists it, and
 * the others refuse it.
 */
#define GP_OPTIONS(O)                                                                           \
	O(PROFILE, 'p', "profile", "FILE", "the server profile (INI, see gpuprov.ini(5))")      \
	O(ROOT, 'r', "root", "DIR", "read the host under DIR (a snapshot or fixture)")          \
	O(OUTPUT, 'o', "output", "FILE", "where a command writes its file")                     \
	O(JSON, 0, "json", NULL, "one JSON document on stdout")                                 \
	O(YES, 'y', "yes", NULL, "apply, rollback: do not ask")                                 \
	O(ONLY, 0, "only", "LIST", "plan, apply: only vfio, bond, vm steps")                    \
	O(FORCE_MGMT, 0, "force-mgmt", NULL,                                                    \
	  "plan, apply: accept bond.mgmt (bond the management port)")                           \
	O(ACCEPT, 0, "accept", "IDS", "plan, apply: go ahead despite these failed findings")    \
	O(CONFIRM_WITHIN, 0, "confirm-within", "SECONDS",                                       \
	  "apply: undone by itself unless confirmed in time")                                   \
	O(LIST, 0, "list", NULL, "rollback: every journaled run and its status")                \
	O(FORCE, 0, "force", NULL, "profile discover: replace -o FILE, keeping FILE.bak")       \
	O(DIFF, 0, "diff", NULL, "plan: unified diffs of the files the steps write")            \
	O(BASELINE, 0, "baseline", "DIR", "check: drift against this unpacked snapshot")        \
	O(CHANGE_ID, 0, "change-id", "ID", "report: the change request's number")               \
	O(OWNER, 0, "owner", "WHO", "report: who carries out the change")                       \
	O(APPROVER, 0, "approver", "WHO", "report: who approves the change")                    \
	O(THIS_HOST, 0, "this-host", NULL, "nccl-topo: for this machine, at its own addresses") \
	O(QUICK, 0, "quick", NULL, "verify: small buffers, no NCCL (under 5 s)")                \
	O(SIZE, 0, "size", "SIZE", "verify: bytes per peer copy (default 256MiB)")              \
	O(NO_NCCL, 0, "no-nccl", NULL, "verify: skip the NCCL all-reduce")                      \
	O(NCCL_COMPARE, 0, "nccl-compare", NULL, "verify: the all-reduce again with P2P off")   \
	O(NCCL_LIB, 0, "nccl-lib", "PATH", "verify: the NCCL library (default libnccl.so.2)")   \
	O(VERBOSE, 'v', "verbose", NULL, "more messages on stderr")                             \
	O(QUIET, 'q', "quiet", NULL, "errors only")                                             \
	O(HELP, 'h', "help", NULL, "this text")                                                 \
	O(VERSION, 'V', "version", NULL, "the version")

#define GP_OPT_ID(id, letter, name, value, help) GP_OPT_##id,
enum gp_opt {
	GP_OPT_NONE, /* ends a command's list */
	GP_OPTIONS(GP_OPT_ID) GP_OPT_COUNT
};
#undef GP_OPT_ID

struct gp_option {
	int letter;	   /* -l, 0: none */
	const char *name;  /* --name */
	const char *value; /* what it takes, NULL: nothing */
	const char *help;
};

/* GP_OPTIONS as a table, by enum gp_opt (cli/cmd_help.c) */
extern const struct gp_option gp_options[GP_OPT_COUNT];
/* How a command's synopsis and its refusals name an option: -p, -o, --yes, --only */
#define GP_OPT_NAME 32
const char *gp_opt_name(enum gp_opt id, char *buf, size_t len);

struct gp_ctx {
	const char *root;	    /* "/" unless --root */
	struct gp_profile *profile; /* -p's, loaded when the command wants one */
	bool json;
	const char *command; /* the command's name, for its JSON document */
	/*
	 * The options the command takes (its descriptor's), by enum gp_opt, as
	 * given: NULL when not, "" for one that takes no value.  -r and --json
	 * are root and json.
	 */
	const char *opt[GP_OPT_COUNT];
	uint64_t size; /* --size, parsed: 0 when not given */
	int argc;      /* the command's own arguments */
	char **argv;
	const struct gp_cmd *const *commands; /* main.c's table, for help */
};

/* What a command needs, checked once before it runs (main.c; git's model). */
enum {
	GP_NEED_PROFILE = 1 << 0,  /* fails without -p */
	GP_USE_PROFILE = 1 << 1,   /* loads -p when given */
	GP_NO_ARGS = 1 << 2,	   /* takes no arguments after its name */
	GP_TRUST_PROFILE = 1 << 3, /* acts on -p as root: only root may be able to change it */
};

/* the most options a command lists */
#define GP_CMD_OPTS 8

/*
 * A command: what a cmd_*.c exports as gp_cmd_NAME, one line of main.c's
 * table.  It takes -p when its flags load a profile, the options it lists,
 * and those every command takes; any other is refused, never ignored.
 */
struct gp_cmd {
	const char *name;
	int (*run)(struct gp_ctx *ctx); /* returns an exit status (enum gp_exit) */
	unsigned flags;			/* GP_NEED_PROFILE, ... */
	enum gp_opt opts[GP_CMD_OPTS];	/* its options but -p, in its synopsis's order */
	const char *args;		/* what its synopsis shows after its name */
	const char *help;		/* its line in gpuprov --help */
};

/* cmd_help.c: the commands of a table (NULL-terminated) and their help */
const struct gp_cmd *gp_cmd_find(const struct gp_cmd *const *cmds, const char *name);
/* Whether c takes option id (-p: when its flags load a profile; others: its list) */
bool gp_cmd_takes(const struct gp_cmd *c, enum gp_opt id);
int gp_cmd_unknown(const struct gp_cmd *const *cmds, const char *name); /* exit status */
void gp_usage(FILE *f, const struct gp_cmd *const *cmds);
/* One command's help, or with c NULL every command's (--help, help --json) */
int gp_help(const struct gp_cmd *const *cmds, const struct gp_cmd *c, bool json);

int gp_ctx_template(const struct gp_ctx *ctx, char *path, size_t len);
/*
 * What a command that changes the host needs (apply, rollback, confirm):
 * the live host (no --root) and root; 0, or exit 4 (said).
 */
int gp_ctx_live(const struct gp_ctx *ctx, const char *command);

/* What plan and apply work from: the host, its findings, the VM's XML, the plan. */
struct gp_planned {
	struct gp_host h;
	struct gp_report r;
	struct gp_plan plan;
	char *templates[GP_PERSIST_FILES];
	struct gp_vm_target vm;
};

/* Fills pl for ctx's profile; an exit status on failure (pl then released). */
int gp_ctx_plan(struct gp_ctx *ctx, struct gp_planned *pl);
void gp_planned_release(struct gp_planned *pl);
/* Reads what the profile's VM needs from the host (check's VM preflight). */
int gp_ctx_vm_files(struct gp_ctx *ctx, struct gp_host *h);
/*
 * profile.trust: whether only root can change the profile and the [vm]
 * template, as apply demands before it reads them, said by check and plan
 * on the live host (not under -r).
 */
void gp_ctx_trust_finding(const struct gp_ctx *ctx, struct gp_report *r);

/* Writes a command's document to -o FILE (with mode) or stdout; exit status on failure. */
int gp_ctx_output(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode);
/* text into the file path, as -o writes one (a command writing several files) */
int gp_ctx_write(const char *path, const char *text, size_t len, mode_t mode);
/* The same, refusing to replace an existing -o FILE unless --force (then kept as FILE.bak). */
int gp_ctx_output_new(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode);

/* Loads the host under ctx->root; exit status on failure, 0 on success. */
int gp_ctx_host(struct gp_ctx *ctx, struct gp_host *h);
/* Only what scan and topo show (GP_HOST_TOPOLOGY) */
int gp_ctx_topology(struct gp_ctx *ctx, struct gp_host *h);
/* gp_ctx_host, then what gpuprov wrote before where the profile puts it
 * (host/owned.c): what check, plan, apply and report compare against. */
int gp_ctx_host_owned(struct gp_ctx *ctx, struct gp_host *h);

#endif
