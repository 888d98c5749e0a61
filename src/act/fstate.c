// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A file's state before gpuprov replaces it, as the journal keeps it, and
 * undo's restoring of exactly that state: absent, a symbolic link (its
 * target), or a regular file (every byte, mode, owner, extended attributes).
 * Which paths a record may name is its step's actuator's (gp_path_owned).
 *
 *   { "path": "/etc/...", "type": "absent" | "link" | "file",
 *     "target": "...",                                  (link)
 *     "size": N, "sha256": "...", "content": "base64",  (file)
 *     "mode": 420, "uid": 0, "gid": 0,                  (file, link: uid/gid)
 *     "xattrs": { "user.x": "base64", ... },
 *     "absent_dirs": [ "/etc/gpuprov", ... ] }          (absent)
 *
 * absent_dirs are the directories above an absent path that did not exist
 * either, outermost first: writing the file makes them, undo removes them
 * again where they are still empty (a real reboot's check found an empty
 * /etc/gpuprov/override.d and basic.target.wants left after rollback).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "act/fstate.h"
#include "shared/codec.h"
#include "shared/log.h"
#include "shared/rootfs.h"
#include "shared/trust.h"
#include "shared/util.h"
#include "shared/write.h"

/* ---- recording ---- */

static json_object *xattrs_of(int fd, const char *path)
{
	char names[65536], value[65536], *n;
	ssize_t len = fd >= 0 ? flistxattr(fd, names, sizeof(names))
			      : llistxattr(path, names, sizeof(names));
	json_object *o = json_object_new_object();

	for (n = names; len > 0 && n < names + len; n += strlen(n) + 1) {
		ssize_t v = fd >= 0 ? fgetxattr(fd, n, value, sizeof(value))
				    : lgetxattr(path, n, value, sizeof(value));
		char *b;

		if (v < 0)
			continue;
		b = gp_base64_encode(value, (size_t)v);
		json_object_object_add(o, n, json_object_new_string(b));
		free(b);
	}
	return o;
}

static void add_int(json_object *o, const char *key, long long v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static int record_link(const char *path, const struct stat *st, json_object *o)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	json_object_object_add(o, "type", json_object_new_string("link"));
	json_object_object_add(o, "target", json_object_new_string(target));
	add_int(o, "uid", st->st_uid);
	add_int(o, "gid", st->st_gid);
	json_object_object_add(o, "xattrs", xattrs_of(-1, path));
	return 0;
}

/* Every byte, up to GP_RECORD_MAX: a bigger file is refused, never cut. */
static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = gp_xcalloc(cap, 1);
	ssize_t r;

	for (;;) {
		if (n == cap) {
			if (cap > GP_RECORD_MAX) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			buf = gp_xrealloc(buf, cap, 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n > GP_RECORD_MAX) {
		free(buf);
		return -EFBIG;
	}
	*out = buf;
	*len = n;
	return 0;
}

static int record_file(const char *path, json_object *o)
{
	int fd = gp_root_openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW); /* never a node's driver */
	char sha[65], *data = NULL, *b;
	struct stat st;
	size_t len = 0;
	int rc;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	rc = read_all(fd, &data, &len);
	if (!rc)
		json_object_object_add(o, "xattrs", xattrs_of(fd, path));
	close(fd);
	if (rc)
		return rc;
	gp_sha256_hex(data, len, sha);
	b = gp_base64_encode(data, len);
	free(data);
	json_object_object_add(o, "type", json_object_new_string("file"));
	add_int(o, "size", (long long)len);
	json_object_object_add(o, "sha256", json_object_new_string(sha));
	json_object_object_add(o, "content", json_object_new_string(b));
	free(b);
	add_int(o, "mode", st.st_mode & 07777);
	add_int(o, "uid", st.st_uid);
	add_int(o, "gid", st.st_gid);
	return 0;
}

/* The directories above path that do not exist, outermost first. */
static json_object *absent_dirs(const char *path)
{
	json_object *dirs = json_object_new_array();
	char dir[PATH_MAX], *slash, *top = NULL;
	struct stat st;

	gp_strlcpy(dir, path, sizeof(dir));
	/* walk up to the first that exists; top marks the outermost missing one */
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (!lstat(dir, &st) || errno != ENOENT)
			break;
		top = slash;
	}
	if (!top)
		return dirs;
	/* dir now ends where the existing ancestor ends: add back one name at a time */
	gp_strlcpy(dir, path, sizeof(dir));
	for (slash = top; slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		json_object_array_add(dirs, json_object_new_string(dir));
		*slash = '/';
	}
	return dirs;
}

static int record_any(const char *path, json_object *o)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		json_object_object_add(o, "type", json_object_new_string("absent"));
		json_object_object_add(o, "absent_dirs", absent_dirs(path));
		return 0;
	}
	if (S_ISLNK(st.st_mode))
		return record_link(path, &st, o);
	if (S_ISREG(st.st_mode))
		return record_file(path, o);
	return -EINVAL; /* a directory, a device: not ours to replace */
}

int gp_fstate_record(const char *path, json_object **out)
{
	json_object *o = json_object_new_object();
	int rc;

	json_object_object_add(o, "path", json_object_new_string(path));
	rc = record_any(path, o);
	if (rc) {
		gp_err("cannot record '%s' before replacing it: %s", path,
		       rc == -EFBIG ? "larger than the journal keeps" : strerror(-rc));
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* ---- restoring ---- */

static const char *str(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static long long num(json_object *o, const char *key, long long dflt)
{
	json_object *v = json_object_object_get(o, key);

	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : dflt;
}

/* The record's xattrs, decoded; the caller frees values and the array. */
static struct gp_xattr *xattrs_from(json_object *rec, size_t *n)
{
	json_object *x = json_object_object_get(rec, "xattrs");
	struct gp_xattr *xa;
	size_t i = 0;

	*n = json_object_is_type(x, json_type_object) ? (size_t)json_object_object_length(x) : 0;
	xa = gp_xcalloc(*n, sizeof(*xa));
	if (!*n)
		return xa;
	json_object_object_foreach (x, key, val) {
		if (!json_object_is_type(val, json_type_string) ||
		    gp_base64_decode(json_object_get_string(val), &xa[i].value, &xa[i].len))
			continue;
		gp_strlcpy(xa[i++].name, key, sizeof(xa[0].name));
	}
	*n = i;
	return xa;
}

static void xattrs_free(struct gp_xattr *xa, size_t n)
{
	while (n--)
		free(xa[n].value);
	free(xa);
}

static int restore_present(const char *path, json_object *rec, bool link)
{
	struct gp_file_attrs a = {
		.mode = (mode_t)num(rec, "mode", 0644),
		.owner = true,
		.uid = (uid_t)num(rec, "uid", 0),
		.gid = (gid_t)num(rec, "gid", 0),
	};
	struct gp_xattr *xa = xattrs_from(rec, &a.nxattrs);
	char *data = NULL;
	size_t len = 0;
	int rc;

	/* the writer makes the directories that are gone again, root's */
	a.xattrs = xa;
	if (link)
		rc = gp_write_link(path, str(rec, "target"), &a);
	else if (!gp_base64_decode(str(rec, "content"), &data, &len))
		rc = gp_write_file_attrs(path, data, len, &a);
	else
		rc = -EINVAL;
	free(data);
	xattrs_free(xa, a.nxattrs);
	return rc;
}

/* Journals written before records had a type: "previous" text (or null) and mode. */
static int restore_legacy(const char *path, json_object *rec)
{
	json_object *prev = json_object_object_get(rec, "previous");
	const char *text = json_object_get_string(prev);

	if (!prev)
		return unlink(path) && errno != ENOENT && errno != ENOTDIR ? -errno : 0;
	return gp_write_file(path, text, strlen(text), (mode_t)num(rec, "mode", 0644));
}

/*
 * The directories writing an absent path made, deepest first, where they are
 * empty now and nobody but root can swap them; one still in use stays.
 */
static void remove_absent_dirs(json_object *rec)
{
	json_object *dirs = json_object_object_get(rec, "absent_dirs");
	size_t i = json_object_is_type(dirs, json_type_array) ? json_object_array_length(dirs) : 0;

	while (i--) {
		const char *dir = json_object_get_string(json_object_array_get_idx(dirs, i));

		if (dir && !gp_trust_parent(dir))
			rmdir(dir);
	}
}

int gp_fstate_restore(json_object *rec)
{
	const char *path = str(rec, "path"), *type = str(rec, "type");
	struct stat st;
	int rc;

	if (!path)
		return 0;
	/* absent then and now (its directory may be gone, or not a directory): done */
	if (type && !strcmp(type, "absent") && lstat(path, &st) &&
	    (errno == ENOENT || errno == ENOTDIR)) {
		remove_absent_dirs(rec);
		return 0;
	}
	/* the journal names the path; its directory may have changed since */
	rc = gp_trust_parent(path);
	if (rc)
		return rc;
	if (!type)
		rc = restore_legacy(path, rec);
	else if (!strcmp(type, "absent")) /* its directory may be gone too: fine */
		rc = unlink(path) && errno != ENOENT && errno != ENOTDIR ? -errno : 0;
	else
		rc = restore_present(path, rec, !strcmp(type, "link"));
	if (!rc && type && !strcmp(type, "absent"))
		remove_absent_dirs(rec);
	if (rc)
		gp_err("cannot restore '%s': %s", path, gp_write_strerror(rc));
	return rc;
}

/* ---- checking a record read from a journal ---- */

static int check_content(json_object *rec, char *why, size_t len)
{
	const char *b = str(rec, "content"), *sha = str(rec, "sha256");
	char got[65], *data;
	size_t n;

	if (!b || !sha || gp_base64_decode(b, &data, &n))
		return gp_bad(why, len, "%s: no content, or not base64", str(rec, "path"));
	gp_sha256_hex(data, n, got);
	free(data);
	if (strcmp(got, sha) || num(rec, "size", -1) != (long long)n)
		return gp_bad(why, len, "%s: content does not match its sha256 and size",
			      str(rec, "path"));
	return 0;
}

/* absent_dirs: only on an absent record, each a directory above its path. */
static int check_absent_dirs(json_object *rec, const char *path, const char *type, char *why,
			     size_t len)
{
	json_object *dirs = json_object_object_get(rec, "absent_dirs");
	size_t i, n;

	if (!dirs)
		return 0;
	if (strcmp(type, "absent") || !json_object_is_type(dirs, json_type_array))
		return gp_bad(why, len, "%s: absent_dirs on a record that is not absent", path);
	n = json_object_array_length(dirs);
	for (i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(dirs, i);
		const char *dir = json_object_get_string(d);
		size_t dl = dir ? strlen(dir) : 0;

		if (!json_object_is_type(d, json_type_string) || !gp_path_clean(dir) ||
		    strncmp(path, dir, dl) || path[dl] != '/')
			return gp_bad(why, len, "%s: '%s' is not a directory above it", path,
				      dir ? dir : "(none)");
	}
	return 0;
}

/*
 * A record of a path its step kind writes (the journal asked the kind's
 * actuator): a mode has no bits beyond 07777, and setuid/setgid only in the
 * record of an existing file (gpuprov never creates such a file, undo only
 * puts one back).
 */
int gp_fstate_check(json_object *rec, char *why, size_t len)
{
	const char *path = str(rec, "path"), *type = str(rec, "type");
	long long mode = num(rec, "mode", 0644);

	if (!type) /* legacy: text or null, and a mode */
		type = json_object_object_get(rec, "previous") ? "legacy" : "absent";
	if (mode < 0 || mode > 07777 || num(rec, "uid", 0) < 0 || num(rec, "gid", 0) < 0 ||
	    num(rec, "uid", 0) > UINT32_MAX - 1 || num(rec, "gid", 0) > UINT32_MAX - 1)
		return gp_bad(why, len, "%s: bad mode, uid or gid", path);
	if ((mode & (S_ISUID | S_ISGID)) && strcmp(type, "file"))
		return gp_bad(why, len, "%s: setuid or setgid, not recorded from a file", path);
	if (!strcmp(type, "file"))
		return check_content(rec, why, len);
	if (!strcmp(type, "link") && (!str(rec, "target") || !str(rec, "target")[0]))
		return gp_bad(why, len, "%s: a link without a target", path);
	if (strcmp(type, "absent") && strcmp(type, "link") && strcmp(type, "legacy"))
		return gp_bad(why, len, "%s: unknown type", path);
	if (!strcmp(type, "legacy") && !str(rec, "previous"))
		return gp_bad(why, len, "%s: previous content is not text", path);
	return check_absent_dirs(rec, path, type, why, len);
}
