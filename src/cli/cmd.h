/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What main.c hands every command, and the commands it dispatches to. */
#ifndef GP_CMD_H
#define GP_CMD_H

#include <stdbool.h>
#include <sys/types.h>

#include "act/apply.h"
#include "core/checks.h"
#include "core/model.h"
#include "core/plan.h"

struct gp_ctx {
	const char *root;	    /* "/" unless --root */
	const char *profile_path;   /* NULL unless -p */
	struct gp_profile *profile; /* loaded when the command wants one */
	bool json;
	const char *command;  /* the command's name, for its JSON document */
	const char *output;   /* -o */
	const char *only;     /* --only vfio,bond,vm */
	const char *accept;   /* --accept: failed finding ids to go ahead despite */
	bool yes;	      /* --yes: do not ask */
	bool force_mgmt;      /* --force-mgmt: may bond the management port */
	bool list;	      /* rollback --list */
	bool diff;	      /* plan --diff */
	bool this_host;	      /* nccl-topo --this-host */
	bool quick;	      /* verify --quick */
	uint64_t size;	      /* verify --size, 0: the default */
	bool no_nccl;	      /* verify --no-nccl */
	bool nccl_compare;    /* verify --nccl-compare */
	const char *nccl_lib; /* verify --nccl-lib PATH */
	int argc;	      /* the command's own arguments */
	char **argv;
	/* check --baseline: an unpacked snapshot to compare the host with */
	const char *baseline;
};

/* Each returns an exit status (enum gp_exit). */
int gp_cmd_scan(struct gp_ctx *ctx);
int gp_cmd_topo(struct gp_ctx *ctx);
int gp_cmd_check(struct gp_ctx *ctx);
int gp_cmd_profile(struct gp_ctx *ctx);
int gp_cmd_snapshot(struct gp_ctx *ctx);
int gp_cmd_plan(struct gp_ctx *ctx);
int gp_cmd_domxml(struct gp_ctx *ctx);
int gp_ctx_template(const struct gp_ctx *ctx, char *path, size_t len);
int gp_cmd_apply(struct gp_ctx *ctx);
int gp_cmd_rollback(struct gp_ctx *ctx);
int gp_cmd_bond(struct gp_ctx *ctx);
int gp_cmd_report(struct gp_ctx *ctx);
int gp_cmd_nccl_topo(struct gp_ctx *ctx);
int gp_cmd_verify(struct gp_ctx *ctx);

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

/* Writes a command's document to -o FILE (with mode) or stdout; exit status on failure. */
int gp_ctx_output(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode);

/* Loads the host under ctx->root; exit status on failure, 0 on success. */
int gp_ctx_host(struct gp_ctx *ctx, struct gp_host *h);
/* Only what scan and topo show (GP_HOST_TOPOLOGY) */
int gp_ctx_topology(struct gp_ctx *ctx, struct gp_host *h);
/* gp_ctx_host, then what gpuprov wrote before where the profile puts it
 * (host/owned.c): what check, plan, apply and report compare against. */
int gp_ctx_host_owned(struct gp_ctx *ctx, struct gp_host *h);

#endif
