// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the commands share (cli/cmd.h): the host under --root, the VM's
 * template, the plan with its findings and the VM's XML, and -o output.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/apply.h"
#include "cli/cmd.h"
#include "cli/out.h"
#include "core/domxml.h"
#include "core/hostq.h"
#include "core/model.h"
#include "core/nccl_topo.h"
#include "core/plan.h"
#include "core/templates.h"
#include "core/vm.h"
#include "host/host.h"
#include "host/owned.h"
#include "shared/log.h"
#include "shared/trust.h"

int gp_ctx_host(struct gp_ctx *ctx, struct gp_host *h)
{
	return gp_host_load(ctx->root, ctx->profile, h) ? GP_EXIT_HOST : 0;
}

int gp_ctx_topology(struct gp_ctx *ctx, struct gp_host *h)
{
	return gp_host_load_part(ctx->root, ctx->profile, GP_HOST_TOPOLOGY, h) ? GP_EXIT_HOST : 0;
}

int gp_ctx_host_owned(struct gp_ctx *ctx, struct gp_host *h)
{
	int rc = gp_ctx_host(ctx, h);

	if (rc)
		return rc;
	if (!gp_host_read_owned(h, ctx->profile))
		return 0;
	gp_host_release(h);
	return GP_EXIT_HOST;
}

/*
 * -o naming a character device or a FIFO (/dev/null, /dev/full, a pipe) is
 * written through, as a shell redirection would, and its errors count: the
 * one writer would put a regular file in its place.  Only root's or the
 * caller's: a FIFO another user made at that name (in /tmp) would hand them
 * the document.  A link to one is refused: replacing /dev/stdout is not what
 * was asked, and a link someone else planted must not lead root's write into
 * a device.  Looked up in the directory the writer opened (dfd), never by the
 * path again.  1: a file for the one writer.
 */
static bool node_ok(const struct stat *st)
{
	return (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) &&
	       (!st->st_uid || st->st_uid == geteuid());
}

static int output_node(int dfd, const char *path, const char *base, const char *text, size_t len)
{
	struct stat st;
	bool link;
	int fd, rc;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) || S_ISREG(st.st_mode))
		return 1;
	link = S_ISLNK(st.st_mode);
	if (link && (fstatat(dfd, base, &st, 0) || S_ISREG(st.st_mode)))
		return 1; /* the writer replaces the link, never writes through it */
	if (link || (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))) {
		gp_err("cannot write '%s': not a regular file, a character device or a FIFO "
		       "(a link to a device: name the device itself)",
		       path);
		return -EINVAL;
	}
	if (!node_ok(&st)) {
		gp_err("cannot write '%s': the device or FIFO is owned by uid %lu, not %s", path,
		       (unsigned long)st.st_uid, geteuid() ? "root or you" : "root");
		return -EPERM;
	}
	fd = openat(dfd, base, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !node_ok(&st) || fcntl(fd, F_SETFL, 0))
		rc = fd < 0 ? -errno : -EINVAL;
	else
		rc = gp_write_all(fd, text, len);
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	if (rc)
		gp_err("cannot write '%s': %s", path, strerror(-rc));
	return rc;
}

/*
 * A command's document to -o FILE through the one writer (its directory
 * walked and made there, see gp_write_dir_open), with mode.
 */
enum keep {
	KEEP_NONE,
	KEEP_REFUSE,
	KEEP_BACKUP
};

/*
 * A file someone may have edited (a profile): refused, or with --force kept
 * as NAME.bak first: a second name of the same file (its bytes, owner and
 * mode as they were; a link is linked, never followed), so that a write that
 * fails (a full disk) leaves NAME as it was.  1: go on.
 */
static int output_kept(int dfd, const char *path, const char *base, enum keep keep)
{
	char bak[NAME_MAX + 8], tmp[NAME_MAX + 32];
	struct stat st;

	if (keep == KEEP_NONE || fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW))
		return 1;
	if (keep == KEEP_REFUSE) {
		gp_err("'%s' exists: not replaced (add --force to replace it; the old one is "
		       "kept as '%s.bak')",
		       path, path);
		return -EEXIST;
	}
	/* a new name first, then over the old .bak: it goes only once the new one is there */
	snprintf(bak, sizeof(bak), "%s.bak", base);
	snprintf(tmp, sizeof(tmp), ".%s.bak.gpuprov-%d", base, (int)getpid());
	if (linkat(dfd, base, dfd, tmp, 0) || renameat(dfd, tmp, dfd, bak)) {
		int err = errno;

		unlinkat(dfd, tmp, 0);
		gp_err("cannot keep '%s' as '%s.bak': %s", path, path, strerror(err));
		return -err;
	}
	gp_info("kept the previous '%s' as '%s.bak'", path, path);
	return 1;
}

static int output_file(const char *path, const char *text, size_t len, mode_t mode, enum keep keep)
{
	struct gp_file_attrs a = { .mode = mode };
	char base[NAME_MAX + 1];
	int dfd = gp_write_dir_open(path, base, sizeof(base)), rc;

	if (dfd < 0) {
		gp_err("cannot write '%s': %s", path, gp_write_strerror(dfd));
		return GP_EXIT_INPUT;
	}
	rc = output_node(dfd, path, base, text, len); /* < 0: said why */
	if (rc > 0)
		rc = output_kept(dfd, path, base, keep);
	if (rc > 0) {
		rc = gp_write_at(dfd, base, text, len, &a);
		if (rc)
			gp_err("cannot write '%s': %s", path, gp_write_strerror(rc));
	}
	close(dfd);
	return rc ? GP_EXIT_INPUT : 0;
}

/* Under --json the text goes into the one document (or -o FILE, named there). */
static int output_json(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode,
		       enum keep keep)
{
	const char *output = ctx->opt[GP_OPT_OUTPUT];
	int rc = output ? output_file(output, text, len, mode, keep) : 0;

	if (rc)
		return rc;
	gp_doc_begin(NULL, ctx->command);
	gp_print_str("file", NULL, output);
	if (output)
		gp_print_null("text");
	else
		gp_print_strn("text", text, len);
	gp_doc_end();
	return 0;
}

static int output(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode,
		  enum keep keep)
{
	if (ctx->json)
		return output_json(ctx, text, len, mode, keep);
	if (ctx->opt[GP_OPT_OUTPUT])
		return output_file(ctx->opt[GP_OPT_OUTPUT], text, len, mode, keep);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
		gp_err("cannot write to standard output: %s", strerror(errno));
		clearerr(stdout); /* said: main need not say it again */
		return GP_EXIT_INPUT;
	}
	return 0;
}

int gp_ctx_write(const char *path, const char *text, size_t len, mode_t mode)
{
	return output_file(path, text, len, mode, KEEP_NONE);
}

int gp_ctx_output(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode)
{
	return output(ctx, text, len, mode, KEEP_NONE);
}

int gp_ctx_output_new(const struct gp_ctx *ctx, const char *text, size_t len, mode_t mode)
{
	return output(ctx, text, len, mode, ctx->opt[GP_OPT_FORCE] ? KEEP_BACKUP : KEEP_REFUSE);
}

/*
 * [vm] template: an absolute path as it is; a relative one in the profile's
 * directory, else among the templates (never in the working directory, which
 * may be anyone's); without one, the shipped domain-q35-ovmf.xml.
 */
int gp_ctx_template(const struct gp_ctx *ctx, char *path, size_t len)
{
	const char *t = ctx->profile->vm.template;
	const char *slash = strrchr(ctx->opt[GP_OPT_PROFILE], '/');
	char shipped[PATH_MAX];

	if (!t[0])
		return gp_template_path("domain-q35-ovmf.xml", path, len);
	if (t[0] == '/') {
		snprintf(path, len, "%s", t);
		return 0;
	}
	if (slash)
		snprintf(path, len, "%.*s%s", (int)(slash - ctx->opt[GP_OPT_PROFILE] + 1),
			 ctx->opt[GP_OPT_PROFILE], t);
	else
		snprintf(path, len, "./%s", t);
	if (!access(path, F_OK) || errno != ENOENT)
		return 0;
	if (!gp_template_path(t, shipped, sizeof(shipped)) && !access(shipped, F_OK))
		snprintf(path, len, "%s", shipped);
	return 0; /* not found: the message names the profile's directory */
}

/* Whether what the domain needs (disks, firmware) is on the host: the VM's preflight. */
static void vm_files(struct gp_host *h, const char *xml)
{
	struct gp_vm_file files[GP_VM_FILES];
	int n = gp_domxml_files(xml, files, GP_VM_FILES);

	if (n > 0)
		gp_host_vm_files(h, files, n);
	n = gp_domxml_nommap(xml, h->vm_nommap, GP_VM_NOMMAP, &h->vm_iommufd);
	h->vm_xml_read = n >= 0;
	h->nvm_nommap = n > 0 ? n : 0;
}

/*
 * [nic] mode = passthrough: guest-config's files for guest.write.  Made
 * quietly: where they cannot be (the ports' MACs are gone once vfio-pci
 * holds them) the plan says why, and the files already written stand.
 */
static void guest_target(struct gp_ctx *ctx, const struct gp_host *h, struct gp_vm_target *vm)
{
	char *text[GP_GUEST_FILES];
	int i;

	if (!gp_nic_to_vm(ctx->profile))
		return;
	gp_guest_dir(ctx->profile->vm.output, vm->guest_dir, sizeof(vm->guest_dir));
	gp_err_kept++;
	if (gp_guest_config(h, ctx->profile, text))
		gp_strlcpy(vm->guest_why, gp_last_error, sizeof(vm->guest_why));
	else
		for (i = 0; i < GP_GUEST_FILES; i++)
			vm->guest[i] = text[i];
	gp_err_kept--;
}

static void vm_target_release(struct gp_vm_target *vm)
{
	int i;

	free((char *)vm->xml);
	free((char *)vm->nccl);
	for (i = 0; i < GP_GUEST_FILES; i++)
		free((char *)vm->guest[i]);
}

/* The VM's XML and where it goes, when the profile has a [vm]. */
static int vm_target(struct gp_ctx *ctx, struct gp_host *h, struct gp_vm_target *vm)
{
	char tmpl[PATH_MAX], *xml;

	memset(vm, 0, sizeof(*vm));
	if (!ctx->profile->has_vm)
		return 0;
	if (gp_ctx_template(ctx, tmpl, sizeof(tmpl)) ||
	    gp_domxml_build(h, ctx->profile, tmpl, &xml, vm->digest, sizeof(vm->digest),
			    &vm->secret))
		return GP_EXIT_INPUT;
	vm->xml = xml;
	vm_files(h, xml);
	if (gp_nccl_topo_build(h, ctx->profile, false, &xml)) {
		free((char *)vm->xml); /* said why: the guest cannot number its buses */
		vm->xml = NULL;
		return GP_EXIT_INPUT;
	}
	vm->nccl = xml;
	gp_nccl_topo_path(ctx->profile->vm.output, vm->nccl_path, sizeof(vm->nccl_path));
	vm->output = ctx->profile->vm.output;
	vm->uri = ctx->profile->vm.uri;
	vm->name = ctx->profile->vm.name;
	guest_target(ctx, h, vm);
	return 0;
}

/* --accept's one id: known (the closest named when not), and acceptable. */
static int accept_one(const char *id)
{
	const struct gp_finding_kind *k = gp_finding_kind(id);
	const char *names[GP_F_COUNT + 1], *near;
	int i, n = 0;

	if (k && k->groups && !k->acceptable) {
		gp_err("--accept: '%s' cannot be accepted: it guards the host itself (see "
		       "gpuprov(8), --accept); fix what it reports",
		       id);
		return GP_EXIT_INPUT;
	}
	if (k && k->groups)
		return 0;
	for (i = 0; i < GP_F_COUNT; i++) /* what blocks a step: drift.* never does */
		if (gp_finding_kinds[i].groups)
			names[n++] = gp_finding_kinds[i].id;
	names[n] = NULL;
	near = gp_closest(id, names);
	gp_err("--accept: no finding is called '%s'%s%s%s (the ids are in gpuprov(8), "
	       "FINDINGS)",
	       id, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	return GP_EXIT_INPUT;
}

/* --accept names finding ids: a typo would otherwise accept nothing, silently. */
static int accept_valid(const char *accept)
{
	char buf[512], *items[64];
	int n, i, rc;

	gp_strlcpy(buf, accept, sizeof(buf));
	n = gp_split_list(buf, items, 64);
	if (n <= 0 || strlen(accept) >= sizeof(buf)) {
		gp_err("--accept takes a list of finding ids: '%s'", accept);
		return GP_EXIT_INPUT;
	}
	for (i = 0; i < n; i++) {
		rc = accept_one(items[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int gp_ctx_plan(struct gp_ctx *ctx, struct gp_planned *pl)
{
	struct gp_host *h = &pl->h;
	struct gp_vm_target *vm = &pl->vm;
	unsigned groups = GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM;
	int rc;

	if (ctx->opt[GP_OPT_ONLY] && gp_parse_groups(ctx->opt[GP_OPT_ONLY], &groups)) {
		gp_err("--only takes a list of vfio, bond, vm: '%s'", ctx->opt[GP_OPT_ONLY]);
		return GP_EXIT_INPUT;
	}
	if (ctx->opt[GP_OPT_ACCEPT] && accept_valid(ctx->opt[GP_OPT_ACCEPT]))
		return GP_EXIT_INPUT;
	if (ctx->opt[GP_OPT_FORCE_MGMT])
		groups |= GP_FORCE_MGMT;
	memset(pl, 0, sizeof(*pl));
	if (gp_templates_load(pl->templates))
		return GP_EXIT_INPUT;
	rc = gp_ctx_host_owned(ctx, h);
	if (rc) {
		gp_templates_release(pl->templates);
		return rc;
	}
	rc = (groups & GP_GROUP_VM) ? vm_target(ctx, h, vm) : 0;
	if (rc) {
		gp_templates_release(pl->templates);
		gp_host_release(h);
		return rc;
	}
	gp_checks_run(h, ctx->profile, &pl->r);
	gp_ctx_trust_finding(ctx, &pl->r);
	gp_plan_build(h, ctx->profile, &pl->r, pl->templates, vm->xml ? vm : NULL, groups,
		      ctx->opt[GP_OPT_ACCEPT], &pl->plan);
	return 0;
}

/* The profile, then the [vm] template: the first that root cannot trust, or 0. */
static int trust_first(const struct gp_ctx *ctx)
{
	char tmpl[PATH_MAX];

	if (gp_trust(ctx->opt[GP_OPT_PROFILE], GP_TRUST_FILE))
		return -EPERM;
	if (ctx->profile->has_vm && !gp_ctx_template(ctx, tmpl, sizeof(tmpl)) &&
	    !access(tmpl, F_OK) && gp_trust(tmpl, GP_TRUST_FILE))
		return -EPERM;
	return 0;
}

void gp_ctx_trust_finding(const struct gp_ctx *ctx, struct gp_report *r)
{
	int rc;

	/*
	 * -r reads another host's tree, where apply never runs: the profile is
	 * this machine's file, judged where apply will read it, on the live host
	 */
	if (!ctx->profile || !ctx->opt[GP_OPT_PROFILE] || strcmp(ctx->root, "/"))
		return;
	gp_err_kept++; /* the refusal is the finding's message, not an error */
	rc = trust_first(ctx);
	gp_err_kept--;
	if (!rc) {
		gp_report_add(r, GP_F_PROFILE_TRUST, GP_OK, "profile", NULL,
			      "only root can change the profile%s",
			      ctx->profile->has_vm ? " and the VM's template" : "");
		return;
	}
	/* a user's own copy for a dry run: what apply, as root, will refuse */
	gp_report_add(r, GP_F_PROFILE_TRUST, geteuid() ? GP_WARN : GP_FAIL, "profile",
		      "make it root's and writable by root alone (chown root:root FILE; chmod "
		      "go-w FILE and each directory above it): apply refuses it otherwise",
		      "%s", gp_last_error);
}

/*
 * check: the VM's preflight needs its XML too.  A template that does not
 * build is said (domxml and plan refuse it) and check goes on without the
 * file checks: the rest of its report stands.
 */
int gp_ctx_vm_files(struct gp_ctx *ctx, struct gp_host *h)
{
	struct gp_vm_target vm;
	int verbosity = gp_verbosity, rc;

	/* its warnings are check's findings too (vm.qemu_clique): said once */
	gp_verbosity = verbosity > 0 ? 0 : verbosity;
	rc = vm_target(ctx, h, &vm);
	gp_verbosity = verbosity;
	if (!rc)
		vm_target_release(&vm);
	return 0;
}

void gp_planned_release(struct gp_planned *pl)
{
	vm_target_release(&pl->vm);
	gp_plan_release(&pl->plan);
	gp_report_release(&pl->r);
	gp_templates_release(pl->templates);
	gp_host_release(&pl->h);
}

int gp_ctx_live(const struct gp_ctx *ctx, const char *command)
{
	if (strcmp(ctx->root, "/")) {
		gp_err("'%s' changes the live host: --root is not allowed", command);
		return GP_EXIT_INPUT;
	}
	/* a usage error: nothing of the host was read, and it is not unreadable */
	if (geteuid()) {
		gp_err("'%s' changes the host: run it as root (sudo gpuprov ...)", command);
		return GP_EXIT_INPUT;
	}
	return 0;
}
