// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The files actuator: persistent configuration, written atomically (temp
 * file, fsync, rename), each file's previous content kept in the journal so
 * that undo puts back exactly what was there, or removes what was not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/apply.h"
#include "core/domxml.h"
#include "core/netconf.h"
#include "act/fstate.h"

#define WANTS_LINK   GP_WANTS_LINK
#define WANTS_TARGET "../gpuprov-vfio.service"

/* Missing directories are made by the writer, root's, never followed into another's. */
static int write_atomic(const char *path, const char *text, mode_t mode)
{
	return gp_write_file(path, text, strlen(text), mode);
}

static int targets(const struct gp_apply_ctx *ctx, struct gp_persist_file *t, int max)
{
	return ctx->persist ? gp_persist_files(ctx->persist, t, max) : 0;
}

/* Each file as it is now, into undo's "files" (or under key): absent, a link or every byte. */
static int record_files(json_object *undo, const char *key, const char *const *paths, int n)
{
	json_object *files = json_object_new_array(), *rec;
	int i, rc;

	for (i = 0; i < n; i++) {
		rc = gp_fstate_record(paths[i], &rec);
		if (rc) {
			json_object_put(files);
			return rc;
		}
		json_object_array_add(files, rec);
	}
	if (key) { /* one file: the record itself */
		json_object_object_add(undo, key,
				       json_object_get(json_object_array_get_idx(files, 0)));
		json_object_put(files);
	} else {
		json_object_object_add(undo, "files", files);
	}
	return 0;
}

static bool same(const char *path, const char *text)
{
	char *cur = gp_read_file(path);
	bool eq;

	if (!cur)
		return false;
	/* override files hold the bare driver name; a newline is fine too */
	eq = !strcmp(cur, text) || (strlen(cur) == strlen(text) + 1 &&
				    !strncmp(cur, text, strlen(text)) && cur[strlen(text)] == '\n');
	free(cur);
	return eq;
}

static int persist_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (!ctx->persist) {
		gp_err("persist.vfio: nothing rendered to write");
		return -EINVAL;
	}
	if (geteuid()) {
		gp_err("persist.vfio: writing under /etc needs root");
		return -EPERM;
	}
	return 0;
}

static int persist_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_persist_file t[GP_PERSIST_FILES + GP_MAX_OVERRIDES];
	int i, n = targets(ctx, t, GP_PERSIST_FILES + GP_MAX_OVERRIDES);

	for (i = 0; i < n; i++)
		if (!same(t[i].path, t[i].text))
			return 0;
	return 1;
}

/* Every file it writes, and the boot unit's enabling link, as they are now. */
static int persist_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			  json_object *undo)
{
	struct gp_persist_file t[GP_PERSIST_FILES + GP_MAX_OVERRIDES];
	const char *paths[GP_PERSIST_FILES + GP_MAX_OVERRIDES + 1];
	int i, n = targets(ctx, t, GP_PERSIST_FILES + GP_MAX_OVERRIDES);

	for (i = 0; i < n; i++)
		paths[i] = t[i].path;
	if (!ctx->persist->driverctl)
		paths[n++] = WANTS_LINK;
	return record_files(undo, NULL, paths, n);
}

static int persist_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_persist_file t[GP_PERSIST_FILES + GP_MAX_OVERRIDES];
	int i, rc, n = targets(ctx, t, GP_PERSIST_FILES + GP_MAX_OVERRIDES);

	for (i = 0; i < n; i++) {
		rc = write_atomic(t[i].path, t[i].text, t[i].mode);
		if (rc) {
			gp_err("cannot write '%s': %s", t[i].path, gp_write_strerror(rc));
			return rc;
		}
	}
	if (ctx->persist->driverctl)
		return 0;
	/* `systemctl enable`, done by hand so it works without a running systemd */
	rc = gp_write_link(WANTS_LINK, WANTS_TARGET, NULL);
	if (rc)
		gp_err("cannot enable gpuprov-vfio.service: %s", gp_write_strerror(rc));
	return rc;
}

static int persist_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (persist_done(ctx, st) > 0)
		return 0;
	gp_err("persist.vfio: the files do not read back as written");
	return -EIO;
}

static int persist_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files = json_object_object_get(undo, "files");
	json_object *wl = json_object_object_get(undo, "wants_link_existed");
	size_t i;
	int rc = 0;

	for (i = 0; files && i < json_object_array_length(files); i++)
		if (gp_fstate_restore(json_object_array_get_idx(files, i)))
			rc = -EIO;
	if (files && wl && !json_object_get_boolean(wl)) /* journals before the link was a file */
		unlink(WANTS_LINK);
	return rc;
}

const struct gp_actuator gp_act_persist_vfio = {
	.kind = "persist.vfio",
	.precheck = persist_precheck,
	.done = persist_done,
	.record = persist_record,
	.run = persist_run,
	.verify = persist_verify,
	.undo = persist_undo,
};

/* ---- domain.write: the VM's XML where the profile says ---- */

static int domain_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->vm)
		return 0;
	gp_err("domain.write: no domain XML to write");
	return -EINVAL;
}

/* The XML as it would be written; a secret one readable by others is to be written again. */
static int domain_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct stat s;

	if (ctx->vm->secret && (stat(ctx->vm->output, &s) || (s.st_mode & S_IROTH)))
		return 0;
	return same(ctx->vm->output, ctx->vm->xml);
}

static int domain_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			 json_object *undo)
{
	return record_files(undo, "file", &ctx->vm->output, 1);
}

static int domain_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = write_atomic(ctx->vm->output, ctx->vm->xml, gp_domxml_mode(ctx->vm->secret));

	if (rc)
		gp_err("cannot write '%s': %s", ctx->vm->output, gp_write_strerror(rc));
	return rc;
}

static int domain_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (domain_done(ctx, st) > 0)
		return 0;
	gp_err("'%s' does not read back as written", ctx->vm->output);
	return -EIO;
}

static int domain_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *f = json_object_object_get(undo, "file");

	return f ? gp_fstate_restore(f) : 0;
}

const struct gp_actuator gp_act_domain_write = {
	.kind = "domain.write",
	.precheck = domain_precheck,
	.done = domain_done,
	.record = domain_record,
	.run = domain_run,
	.verify = domain_verify,
	.undo = domain_undo,
};

/* ---- nccl.write: NCCL's topology file beside the VM's XML ---- */

static int nccl_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->vm && ctx->vm->nccl && !strcmp(st->subject, ctx->vm->nccl_path))
		return 0;
	gp_err("nccl.write: no NCCL topology file to write");
	return -EINVAL;
}

static int nccl_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	return same(ctx->vm->nccl_path, ctx->vm->nccl);
}

static int nccl_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	const char *path = ctx->vm->nccl_path;

	return record_files(undo, "file", &path, 1);
}

static int nccl_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int rc = write_atomic(ctx->vm->nccl_path, ctx->vm->nccl, 0644);

	if (rc)
		gp_err("cannot write '%s': %s", ctx->vm->nccl_path, gp_write_strerror(rc));
	return rc;
}

static int nccl_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (nccl_done(ctx, st) > 0)
		return 0;
	gp_err("'%s' does not read back as written", ctx->vm->nccl_path);
	return -EIO;
}

/* Its undo is domain.write's: the file as it was, or no file. */
const struct gp_actuator gp_act_nccl_write = {
	.kind = "nccl.write",
	.precheck = nccl_precheck,
	.done = nccl_done,
	.record = nccl_record,
	.run = nccl_run,
	.verify = nccl_verify,
	.undo = domain_undo,
};

/* ---- persist.bond: the bond in the network owner's format ---- */

static int bondfiles_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->netconf && ctx->netconf->n)
		return 0;
	gp_err("persist.bond: nothing rendered to write");
	return -EINVAL;
}

static int bondfiles_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int i;

	for (i = 0; i < ctx->netconf->n; i++)
		if (!same(ctx->netconf->files[i].path, ctx->netconf->files[i].text))
			return 0;
	return 1;
}

static int bondfiles_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			    json_object *undo)
{
	const char *paths[GP_NETCONF_MAX];
	int i;

	for (i = 0; i < ctx->netconf->n; i++)
		paths[i] = ctx->netconf->files[i].path;
	return record_files(undo, NULL, paths, ctx->netconf->n);
}

static int bondfiles_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int i, rc;

	for (i = 0; i < ctx->netconf->n; i++) {
		rc = write_atomic(ctx->netconf->files[i].path, ctx->netconf->files[i].text,
				  (mode_t)ctx->netconf->files[i].mode);
		if (rc) {
			gp_err("cannot write '%s': %s", ctx->netconf->files[i].path,
			       gp_write_strerror(rc));
			return rc;
		}
	}
	return 0;
}

static int bondfiles_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (bondfiles_done(ctx, st) > 0)
		return 0;
	gp_err("persist.bond: the files do not read back as written");
	return -EIO;
}

const struct gp_actuator gp_act_persist_bond = {
	.kind = "persist.bond",
	.precheck = bondfiles_precheck,
	.done = bondfiles_done,
	.record = bondfiles_record,
	.run = bondfiles_run,
	.verify = bondfiles_verify,
	.undo = persist_undo,
};
