// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The files actuator: persistent configuration, written atomically (temp
 * file, fsync, rename), each file's previous content kept in the journal so
 * that undo puts back exactly what was there, or removes what was not.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/actuator.h"
#include "act/fstate.h"
#include "core/domxml.h"
#include "core/guestcfg.h"
#include "core/manifest.h"
#include "core/netconf.h"
#include "core/vm.h"
#include "shared/escape.h"

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

/* Whether path fits one of patterns (fnmatch(3), FNM_PATHNAME: '*' stays in one name). */
static bool matches(const char *path, const char *const *patterns)
{
	for (; *patterns; patterns++)
		if (!fnmatch(*patterns, path, FNM_PATHNAME))
			return true;
	return false;
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
		gp_err("%s: nothing rendered to write", gp_step_name(st->kind));
		return -EINVAL;
	}
	if (geteuid()) {
		gp_err("%s: writing under /etc needs root", gp_step_name(st->kind));
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
	gp_err("%s: the files do not read back as written", gp_step_name(st->kind));
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

/* What it writes: gp_persist_paths, the overrides, the boot unit's enabling link. */
static bool persist_owns(const char *path)
{
	static const char *const patterns[] = {
		"/etc/gpuprov/override.d/[0-9a-f]*:[0-9a-f]*:[0-9a-f]*.[0-7]",
		"/etc/driverctl.d/pci-[0-9a-f]*:[0-9a-f]*:[0-9a-f]*.[0-7]",
		WANTS_LINK,
		NULL,
	};
	int i;

	for (i = 0; i < GP_PERSIST_FILES; i++)
		if (!strcmp(path, gp_persist_paths[i]))
			return true;
	return matches(path, patterns);
}

const struct gp_actuator gp_act_persist_vfio = {
	.kind = GP_S_PERSIST_VFIO,
	.precheck = persist_precheck,
	.done = persist_done,
	.record = persist_record,
	.run = persist_run,
	.verify = persist_verify,
	.undo = persist_undo,
	.owns = persist_owns,
};

/* ---- domain.write: the VM's XML where the profile says ---- */

static int domain_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->vm)
		return 0;
	gp_err("%s: no domain XML to write", gp_step_name(st->kind));
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

/* A file that was not there: remove it. */
static bool domain_by_hand(const struct gp_step *st, char *how, size_t len)
{
	char word[300];

	if (strcmp(st->current, "absent"))
		return false; /* the journal's record: put back */
	snprintf(how, len, "rm -f -- %s", gp_sh_word(st->subject, word, sizeof(word)));
	return true;
}

/* What [vm] output may name: the profile's rule. */
static bool domain_owns(const char *path)
{
	const char *why;

	return !gp_vm_output_check(path, &why);
}

const struct gp_actuator gp_act_domain_write = {
	.kind = GP_S_DOMAIN_WRITE,
	.precheck = domain_precheck,
	.done = domain_done,
	.record = domain_record,
	.run = domain_run,
	.verify = domain_verify,
	.undo = domain_undo,
	.by_hand = domain_by_hand,
	.owns = domain_owns,
};

/* ---- nccl.write: NCCL's topology file beside the VM's XML ---- */

static int nccl_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->vm && ctx->vm->nccl && !strcmp(st->subject, ctx->vm->nccl_path))
		return 0;
	gp_err("%s: no NCCL topology file to write", gp_step_name(st->kind));
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

/* Its undo is domain.write's: the file as it was, or no file; beside the VM's XML. */
const struct gp_actuator gp_act_nccl_write = {
	.kind = GP_S_NCCL_WRITE,
	.precheck = nccl_precheck,
	.done = nccl_done,
	.record = nccl_record,
	.run = nccl_run,
	.verify = nccl_verify,
	.undo = domain_undo,
	.owns = gp_vm_nccl_path_ok,
};

/* ---- guest.write: guest-config's files in a directory beside the VM's XML ---- */

/* The i-th file's path: vm->guest_dir/NAME. */
static const char *guest_path(const struct gp_apply_ctx *ctx, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", ctx->vm->guest_dir, gp_guest_file_names[i]);
	return buf;
}

static int guest_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	int i;

	for (i = 0; ctx->vm && i < GP_GUEST_FILES; i++)
		if (!ctx->vm->guest[i])
			break;
	if (ctx->vm && i == GP_GUEST_FILES && !strcmp(st->subject, ctx->vm->guest_dir))
		return 0;
	gp_err("%s: the guest's files were not made%s%s", gp_step_name(st->kind),
	       ctx->vm && ctx->vm->guest_why[0] ? ": " : "", ctx->vm ? ctx->vm->guest_why : "");
	return -EINVAL;
}

static int guest_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char path[GP_OUTPUT_LEN];
	int i;

	for (i = 0; i < GP_GUEST_FILES; i++)
		if (!same(guest_path(ctx, i, path, sizeof(path)), ctx->vm->guest[i]))
			return 0;
	return 1;
}

/* Each of the three as it is now: undo removes what was not there, puts back what was. */
static int guest_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	char buf[GP_GUEST_FILES][GP_OUTPUT_LEN];
	const char *paths[GP_GUEST_FILES];
	int i;

	for (i = 0; i < GP_GUEST_FILES; i++)
		paths[i] = guest_path(ctx, i, buf[i], sizeof(buf[i]));
	return record_files(undo, NULL, paths, GP_GUEST_FILES);
}

static int guest_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char path[GP_OUTPUT_LEN];
	int i, rc;

	for (i = 0; i < GP_GUEST_FILES; i++) {
		rc = write_atomic(guest_path(ctx, i, path, sizeof(path)), ctx->vm->guest[i], 0644);
		if (rc) {
			gp_err("cannot write '%s': %s", path, gp_write_strerror(rc));
			return rc;
		}
	}
	return 0;
}

static int guest_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (guest_done(ctx, st) > 0)
		return 0;
	gp_err("%s: the files do not read back as written", gp_step_name(st->kind));
	return -EIO;
}

/* Its undo is persist.vfio's: each file as it was, or none (and the directories made). */
const struct gp_actuator gp_act_guest_write = {
	.kind = GP_S_GUEST_WRITE,
	.precheck = guest_precheck,
	.done = guest_done,
	.record = guest_record,
	.run = guest_run,
	.verify = guest_verify,
	.undo = persist_undo,
	.owns = gp_guest_path_ok,
};

/* ---- persist.bond: the bond in the network owner's format ---- */

static int bondfiles_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (ctx->netconf && ctx->netconf->n)
		return 0;
	gp_err("%s: nothing rendered to write", gp_step_name(st->kind));
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
	gp_err("%s: the files do not read back as written", gp_step_name(st->kind));
	return -EIO;
}

/* The names netconf.c makes, in each network owner's format. */
static bool bondfiles_owns(const char *path)
{
	static const char *const patterns[] = {
		"/etc/systemd/network/60-gpuprov-*.netdev",
		"/etc/systemd/network/60-gpuprov-*.network",
		"/etc/NetworkManager/system-connections/gpuprov-*.nmconnection",
		"/etc/netplan/60-gpuprov-*.yaml",
		"/etc/network/interfaces.d/gpuprov-*",
		NULL,
	};

	return matches(path, patterns);
}

const struct gp_actuator gp_act_persist_bond = {
	.kind = GP_S_PERSIST_BOND,
	.precheck = bondfiles_precheck,
	.done = bondfiles_done,
	.record = bondfiles_record,
	.run = bondfiles_run,
	.verify = bondfiles_verify,
	.undo = persist_undo,
	.owns = bondfiles_owns,
};
