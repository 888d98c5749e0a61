// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hugepages.reserve: a node's pool of huge pages raised by the pages the
 * VM's cell needs beyond what it has free, through the node's nr_hugepages
 * (Documentation/admin-guide/mm/hugetlbpage.rst), read back: the kernel
 * gives what it finds, and 1 GiB pages often are not found on a running
 * host.  Short, the step fails, and the engine's undo puts the old count
 * back.  Made to last by gpuprov-hugepages.service, which writes the same
 * count at each boot before libvirt (core/hugepages.c's unit and script, a
 * node's file in /etc/gpuprov/hugepages.d); the journal keeps the old count
 * and the files as they were, and undo restores both.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/actuator.h"
#include "act/fstate.h"
#include "core/hugepages.h"
#include "shared/log.h"
#include "shared/rootfs.h"
#include "shared/util.h"
#include "shared/write.h"

/* a count no node holds: a journal's "nr" above it is refused */
#define HUGE_MAX_PAGES (1L << 31)

/* The node and page size a step names: subject nodeN, arg SIZEkB. */
static int step_pool(const struct gp_step *st, int *node, unsigned *kb)
{
	char path[128];

	if (!gp_subject_ok(GP_SUBJ_NODE, st->subject)) {
		gp_err("%s: '%s' is not a NUMA node", gp_step_name(st->kind), st->subject);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), GP_HUGE_DIR "/%s-%s", st->subject, st->arg);
	if (gp_hugepages_file_parse(path, node, kb)) {
		gp_err("%s %s: '%s' is not a huge page size", gp_step_name(st->kind), st->subject,
		       st->arg);
		return -EINVAL;
	}
	return 0;
}

/* GP_SYS_NODES, or the tree a test gives in its place */
static const char *nodes_dir(const struct gp_apply_ctx *ctx)
{
	return ctx && ctx->nodes ? ctx->nodes : GP_SYS_NODES;
}

static void pool_path(const struct gp_apply_ctx *ctx, int node, unsigned kb, const char *file,
		      char *path, size_t len)
{
	snprintf(path, len, "%s/node%d/hugepages/hugepages-%ukB/%s", nodes_dir(ctx), node, kb,
		 file);
}

/* A count of the node's pool (nr_hugepages, free_hugepages): 0 or -errno. */
static int read_count(const struct gp_apply_ctx *ctx, int node, unsigned kb, const char *file,
		      long *v)
{
	char path[PATH_MAX], text[32], *end;
	ssize_t n;
	int fd, rc;

	pool_path(ctx, node, kb, file, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = -errno;
		gp_err("cannot read '%s': %s", path, strerror(errno));
		return rc;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	*v = strtol(text, &end, 10);
	if (n <= 0 || end == text || *v < 0) {
		gp_err("'%s' holds no count", path);
		return -EIO;
	}
	return 0;
}

/* The kernel allocates (or frees) as it writes: it returns once the pool is what it could make. */
static int write_count(const struct gp_apply_ctx *ctx, int node, unsigned kb, long v)
{
	char path[PATH_MAX], text[32];
	int fd, rc = 0, len = snprintf(text, sizeof(text), "%ld\n", v);

	pool_path(ctx, node, kb, "nr_hugepages", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || write(fd, text, (size_t)len) != len)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (rc)
		gp_err("cannot write %ld to '%s': %s", v, path, strerror(-rc));
	return rc;
}

/* The node's file, the script, the unit, its enabling link: what a run writes and undo restores. */
static void files_of(int node, unsigned kb, char node_file[128], const char *paths[4])
{
	gp_hugepages_file(node, kb, node_file, 128);
	paths[0] = node_file;
	paths[1] = GP_HUGE_SCRIPT;
	paths[2] = GP_HUGE_UNIT;
	paths[3] = GP_HUGE_WANTS;
}

static bool same(const char *path, const char *text)
{
	char *cur = gp_read_file(path);
	bool eq = cur && !strcmp(cur, text);

	free(cur);
	return eq;
}

/* The boot unit's files hold count for the node, and the unit is enabled. */
static bool persisted(int node, unsigned kb, long count)
{
	char file[128], text[32], target[64];
	ssize_t n = readlink(GP_HUGE_WANTS, target, sizeof(target) - 1);

	gp_hugepages_file(node, kb, file, sizeof(file));
	snprintf(text, sizeof(text), "%ld\n", count);
	return same(file, text) && same(GP_HUGE_SCRIPT, gp_hugepages_script) &&
	       same(GP_HUGE_UNIT, gp_hugepages_unit) && n > 0 &&
	       (size_t)n == strlen(GP_HUGE_WANTS_TO) &&
	       !memcmp(target, GP_HUGE_WANTS_TO, (size_t)n);
}

static int huge_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	const struct gp_huge_node *n;
	char path[160];
	unsigned kb;
	int node;

	if (step_pool(st, &node, &kb))
		return -EINVAL;
	n = ctx->huge ? gp_hugepages_node(ctx->huge, node) : NULL;
	if (!n || n->size_kb != kb) {
		gp_err("%s %s: the VM has no cell there", gp_step_name(st->kind), st->subject);
		return -EINVAL;
	}
	pool_path(ctx, node, kb, "nr_hugepages", path, sizeof(path));
	if (access(path, W_OK)) {
		gp_err("cannot write '%s': %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static int huge_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	const struct gp_huge_node *n;
	long nr, free_pages;
	unsigned kb;
	int node;

	if (step_pool(st, &node, &kb) || !(n = gp_hugepages_node(ctx->huge, node)))
		return 0;
	if (read_count(ctx, node, kb, "nr_hugepages", &nr) ||
	    read_count(ctx, node, kb, "free_hugepages", &free_pages))
		return 0;
	return free_pages >= n->need && persisted(node, kb, nr);
}

static int huge_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files = json_object_new_array(), *rec;
	const char *paths[4];
	char file[128];
	unsigned kb;
	int node, i, rc;
	long nr;

	rc = step_pool(st, &node, &kb);
	if (!rc)
		rc = read_count(ctx, node, kb, "nr_hugepages", &nr);
	if (rc) {
		json_object_put(files);
		return rc;
	}
	files_of(node, kb, file, paths);
	for (i = 0; !rc && i < 4; i++) {
		rc = gp_fstate_record(paths[i], &rec);
		if (!rc)
			json_object_array_add(files, rec);
	}
	if (rc) {
		json_object_put(files);
		return rc;
	}
	json_object_object_add(undo, "nr", json_object_new_int64(nr));
	json_object_object_add(undo, "files", files);
	return 0;
}

static int write_files(int node, unsigned kb, long count)
{
	char file[128], text[32];
	int rc;

	gp_hugepages_file(node, kb, file, sizeof(file));
	snprintf(text, sizeof(text), "%ld\n", count);
	rc = gp_write_file(file, text, strlen(text), 0644);
	if (!rc)
		rc = gp_write_file(GP_HUGE_SCRIPT, gp_hugepages_script, strlen(gp_hugepages_script),
				   0755);
	if (!rc)
		rc = gp_write_file(GP_HUGE_UNIT, gp_hugepages_unit, strlen(gp_hugepages_unit),
				   0644);
	if (rc) {
		gp_err("cannot write the boot unit's files: %s", gp_write_strerror(rc));
		return rc;
	}
	/* `systemctl enable`, by hand, as persist.vfio enables its unit */
	rc = gp_write_link(GP_HUGE_WANTS, GP_HUGE_WANTS_TO, NULL);
	if (rc)
		gp_err("cannot enable gpuprov-hugepages.service: %s", gp_write_strerror(rc));
	return rc;
}

/*
 * Whether the node's free memory holds add more pages now, by the plan's
 * own rule (gp_hugepages_room): the plan's MemFree may be minutes old, and
 * a guest started since would meet the OOM killer on a drained node.
 */
static int room_now(const struct gp_apply_ctx *ctx, int node, unsigned kb, long add)
{
	char path[PATH_MAX], text[4096];
	uint64_t total, mem_free;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/node%d/meminfo", nodes_dir(ctx), node);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	total = gp_meminfo_field(text, "MemTotal:");
	mem_free = gp_meminfo_field(text, "MemFree:");
	if (!total) {
		gp_err("cannot read node%d's MemTotal and MemFree from '%s'", node, path);
		return -EIO;
	}
	if (gp_hugepages_room(total, mem_free, kb, add))
		return 0;
	gp_err("node%d: %ld pages of %s no longer fit in its free memory (%llu MiB now) and "
	       "the headroom the plan keeps: nothing written; free memory there, or run plan "
	       "again",
	       node, add, gp_hugepages_size_name(kb), (unsigned long long)(mem_free >> 20));
	return -ENOMEM;
}

/* The pool raised by what the cell needs beyond its free pages, as they are now. */
static int huge_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	const struct gp_huge_node *n;
	long nr, free_pages, count;
	unsigned kb;
	int node, rc;

	rc = step_pool(st, &node, &kb);
	if (rc)
		return rc;
	n = gp_hugepages_node(ctx->huge, node);
	if ((rc = read_count(ctx, node, kb, "nr_hugepages", &nr)) ||
	    (rc = read_count(ctx, node, kb, "free_hugepages", &free_pages)))
		return rc;
	count = nr + (free_pages < n->need ? n->need - free_pages : 0);
	if (count != nr && (rc = room_now(ctx, node, kb, count - nr)))
		return rc;
	if (count != nr && (rc = write_count(ctx, node, kb, count)))
		return rc;
	return write_files(node, kb, count);
}

/* The count the node's file asks for, against what the kernel made. */
static int huge_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_huge_node boot = { 0 };
	char file[128], line[80], *text;
	long want = -1, nr;
	unsigned kb;
	int node, rc;

	if ((rc = step_pool(st, &node, &kb)) ||
	    (rc = read_count(ctx, node, kb, "nr_hugepages", &nr)))
		return rc;
	gp_hugepages_file(node, kb, file, sizeof(file));
	text = gp_read_file(file);
	if (text)
		want = strtol(text, NULL, 10);
	free(text);
	if (want < 0 || !persisted(node, kb, want)) {
		gp_err("%s %s: the boot unit's files do not read back as written",
		       gp_step_name(st->kind), st->subject);
		return -EIO;
	}
	if (nr >= want)
		return 0;
	boot.node = node;
	boot.size_kb = kb;
	gp_hugepages_cmdline(&boot, want, line, sizeof(line));
	gp_err("%s: the kernel found %ld of the %ld pages of %s asked for (too little "
	       "contiguous free memory now): reserve them at boot instead, '%s' on the kernel "
	       "command line (Linux 5.16 and later; see gpuprov(8), hugepages.reserve)",
	       st->subject, nr, want, gp_hugepages_size_name(kb), line);
	return -EIO;
}

static int huge_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files = json_object_object_get(undo, "files");
	json_object *old = json_object_object_get(undo, "nr");
	long nr, back;
	unsigned kb;
	int node, rc = 0;
	size_t i;

	if (!old)
		return 0; /* recorded nothing: nothing changed */
	nr = (long)json_object_get_int64(old);
	if (step_pool(st, &node, &kb) || !json_object_is_type(old, json_type_int) || nr < 0 ||
	    nr > HUGE_MAX_PAGES)
		return -EINVAL;
	/* the step only raised the pool: an old count above today's is no record of it */
	if (read_count(ctx, node, kb, "nr_hugepages", &back))
		return -EIO;
	if (nr > back) {
		gp_err("%s: the journal's count %ld is above today's %ld: not what this step did",
		       st->subject, nr, back);
		return -EINVAL;
	}
	/* the unit's link first, the node's file last: directories made are left empty */
	for (i = files ? json_object_array_length(files) : 0; i-- > 0;)
		if (gp_fstate_restore(json_object_array_get_idx(files, i)))
			rc = -EIO;
	if (write_count(ctx, node, kb, nr) || read_count(ctx, node, kb, "nr_hugepages", &back))
		return -EIO;
	if (back != nr) {
		gp_err("%s: nr_hugepages reads %ld after writing %ld back", st->subject, back, nr);
		return -EIO;
	}
	return rc;
}

/* The count the plan saw (its current: "nr_hugepages N, M free"), written back. */
static bool huge_by_hand(const struct gp_step *st, char *how, size_t len)
{
	char path[160];
	unsigned kb;
	long nr;
	int node;

	if (step_pool(st, &node, &kb) || sscanf(st->current, "nr_hugepages %ld", &nr) != 1)
		return false;
	pool_path(NULL, node, kb, "nr_hugepages", path, sizeof(path));
	snprintf(how, len,
		 "echo %ld > %s; and put back or remove the files of the step's undo record", nr,
		 path);
	return true;
}

static bool huge_owns(const char *path)
{
	unsigned kb;
	int node;

	return !gp_hugepages_file_parse(path, &node, &kb) || !strcmp(path, GP_HUGE_SCRIPT) ||
	       !strcmp(path, GP_HUGE_UNIT) || !strcmp(path, GP_HUGE_WANTS);
}

const struct gp_actuator gp_act_hugepages_reserve = {
	.kind = GP_S_HUGEPAGES_RESERVE,
	.precheck = huge_precheck,
	.done = huge_done,
	.record = huge_record,
	.run = huge_run,
	.verify = huge_verify,
	.undo = huge_undo,
	.by_hand = huge_by_hand,
	.owns = huge_owns,
};
