// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one writer of gpuprov's files: journals, persistent configuration, the
 * VM's XML, -o outputs, and the files undo puts back.  Its directory is
 * reached and made by the walk below, never by a path resolved again.  A
 * file is replaced whole or not at all: a fresh temp file beside it
 * (O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted at its name is followed or
 * reused), every byte written (a short write is retried, the error that
 * stops it is returned), owner, mode and extended attributes set on the
 * descriptor, fsync, rename over the target, fsync of the directory.  On
 * every failure the temp file goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/util.h"
#include "shared/write.h"

/*
 * ---- the directory a file goes into ----
 * Walked one name at a time from '/' (or the working directory), each opened
 * relative to the one before with O_NOFOLLOW: a missing directory is made
 * here (mkdirat), so nobody else can make it first and have root write into
 * theirs; every directory passed, found or made, must be root's (or the
 * caller's) and writable by nobody else, unless sticky (others cannot rename
 * or remove what is root's there: the next name is checked in turn); a link
 * is followed only when root's (or the caller's), its target walked by the
 * same rule.  The writer then works on the descriptor alone.
 */
#define MAX_LINKS 40 /* the kernel's MAXSYMLINKS */

struct dwalk {
	char rest[2 * PATH_MAX]; /* what is left to walk */
	char shown[PATH_MAX];	 /* what was walked, for messages */
	int fd;
	int links;
};

static char refused[PATH_MAX + 128]; /* why the last walk refused, for gp_write_strerror */

static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(refused, sizeof(refused), fmt, ap);
	va_end(ap);
	return -EPERM;
}

const char *gp_write_strerror(int rc)
{
	return rc == -EPERM && refused[0] ? refused : strerror(-rc);
}

/* Root, or the caller: who may own a directory or a link on the way. */
static bool own_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

static const char *owners(void)
{
	return geteuid() ? "root or you" : "root";
}

/*
 * Nobody else can add, swap or remove its entries: not writable by others,
 * nor by a group (the caller's own group aside when not root: a user
 * private group); sticky, they can add names only, and each name the walk
 * takes there is checked in turn.  A mode's group bits are an ACL's mask.
 */
static int dir_safe(const struct dwalk *w)
{
	struct stat st;

	if (fstat(w->fd, &st))
		return -errno;
	if (!own_uid(st.st_uid))
		return refuse("'%s' is owned by uid %lu, not %s", w->shown,
			      (unsigned long)st.st_uid, owners());
	if (st.st_mode & S_ISVTX)
		return 0;
	if ((st.st_mode & S_IWOTH) ||
	    ((st.st_mode & S_IWGRP) && (!geteuid() || st.st_gid != getegid())))
		return refuse("'%s' is writable by group or others (mode %lo)", w->shown,
			      (unsigned long)(st.st_mode & 07777));
	return 0;
}

/* The first name of w->rest into comp, and off w->rest: 1, 0 when none is left, or -errno. */
static int next_name(struct dwalk *w, char *comp, size_t len)
{
	char *s = w->rest + strspn(w->rest, "/");
	size_t n = strcspn(s, "/");

	if (!n)
		return 0;
	if (n >= len)
		return -ENAMETOOLONG; /* never cut: that would be another name */
	snprintf(comp, len, "%.*s", (int)n, s);
	memmove(w->rest, s + n, strlen(s + n) + 1);
	return 1;
}

/* w->fd becomes fd (a directory reached as shown), checked. */
static int enter(struct dwalk *w, int fd, const char *comp)
{
	size_t n = strlen(w->shown);

	if (fd < 0)
		return -errno;
	close(w->fd);
	w->fd = fd;
	if (!strcmp(comp, "/"))
		gp_strlcpy(w->shown, "/", sizeof(w->shown));
	else if (!strcmp(comp, ".."))
		snprintf(w->shown + n, sizeof(w->shown) - n, "/..");
	else
		snprintf(w->shown + n, sizeof(w->shown) - n, "%s%s",
			 n && w->shown[n - 1] == '/' ? "" : "/", comp);
	return dir_safe(w);
}

/* comp is a link in w->fd: root's (or the caller's), its target goes in front of the rest. */
static int follow(struct dwalk *w, const char *comp)
{
	char target[PATH_MAX], rest[2 * PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstatat(w->fd, comp, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISLNK(st.st_mode))
		return -ENOTDIR;
	if (!own_uid(st.st_uid))
		return refuse("'%s%s%s' is a link of uid %lu, not %s", w->shown,
			      strcmp(w->shown, "/") ? "/" : "", comp, (unsigned long)st.st_uid,
			      owners());
	if (++w->links > MAX_LINKS)
		return -ELOOP;
	n = readlinkat(w->fd, comp, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if ((size_t)snprintf(rest, sizeof(rest), "%s/%s", target, w->rest) >= sizeof(rest))
		return -ENAMETOOLONG;
	gp_strlcpy(w->rest, rest, sizeof(w->rest));
	if (target[0] != '/')
		return 0;
	return enter(w, open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), "/");
}

/*
 * One name: a directory entered, made first when missing (with mode exactly,
 * whatever the umask), or a link followed.
 */
static int step(struct dwalk *w, const char *comp, mode_t mode)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	bool made = false;
	int fd, rc;

	if (!strcmp(comp, "."))
		return 0;
	fd = openat(w->fd, comp, flags);
	if (fd < 0 && errno == ENOENT && strcmp(comp, "..")) {
		/* made here, or made by someone else just now: checked all the same */
		made = !mkdirat(w->fd, comp, mode);
		if (!made && errno != EEXIST)
			return -errno;
		fd = openat(w->fd, comp, flags);
	}
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return follow(w, comp);
	rc = enter(w, fd, comp);
	if (!rc && made && fchmod(w->fd, mode))
		rc = -errno;
	return rc;
}

/*
 * The directory dir, walked as above, its missing parents made 0755 and
 * itself with last_mode: its descriptor, or -errno (-EPERM: refused, see
 * gp_write_strerror).
 */
static int open_dir(const char *dir, mode_t last_mode)
{
	struct dwalk w = { .fd = -1 };
	char comp[NAME_MAX + 1];
	int rc;

	refused[0] = '\0';
	if (gp_strlcpy(w.rest, dir, sizeof(w.rest)) >= PATH_MAX)
		return -ENAMETOOLONG;
	w.fd = open(dir[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.fd < 0)
		return -errno;
	gp_strlcpy(w.shown, dir[0] == '/' ? "/" : ".", sizeof(w.shown));
	rc = dir_safe(&w);
	while (!rc && (rc = next_name(&w, comp, sizeof(comp))) > 0)
		rc = step(&w, comp, w.rest[strspn(w.rest, "/")] ? 0755 : last_mode);
	if (!rc)
		return w.fd;
	close(w.fd);
	return rc;
}

int gp_write_mkdir(const char *path, mode_t mode)
{
	int fd = open_dir(path, mode);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int gp_write_dir_open(const char *path, char *base, size_t len)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!*path || (slash && !slash[1]) || !strcmp(slash ? slash + 1 : path, ".") ||
	    !strcmp(slash ? slash + 1 : path, ".."))
		return -EISDIR;
	if (!slash)
		gp_strlcpy(dir, ".", sizeof(dir));
	else if (slash == path)
		gp_strlcpy(dir, "/", sizeof(dir));
	else if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (gp_strlcpy(base, slash ? slash + 1 : path, len) >= len)
		return -ENAMETOOLONG;
	return open_dir(dir, 0755);
}

/* ".BASE.gpuprov-XXXXXXXX": hidden, and never a name a configuration reader loads. */
static int temp_name(char *buf, size_t len, const char *base)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[4];
	char suffix[9];
	int i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	for (i = 0; i < 4; i++) {
		suffix[2 * i] = hex[r[i] >> 4];
		suffix[2 * i + 1] = hex[r[i] & 15];
	}
	suffix[8] = '\0';
	if ((size_t)snprintf(buf, len, ".%s.gpuprov-%s", base, suffix) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int gp_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Owner before mode: chown clears setuid and setgid. */
static int set_attrs(int fd, const struct gp_file_attrs *a)
{
	size_t i;

	if (a->owner && fchown(fd, a->uid, a->gid))
		return -errno;
	if (fchmod(fd, a->mode & 07777))
		return -errno;
	for (i = 0; i < a->nxattrs; i++)
		if (fsetxattr(fd, a->xattrs[i].name, a->xattrs[i].value, a->xattrs[i].len, 0))
			return -errno;
	return 0;
}

static int fill(int fd, const void *data, size_t len, const struct gp_file_attrs *a)
{
	int rc = gp_write_all(fd, data, len);

	if (!rc)
		rc = set_attrs(fd, a);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

/* Renames tmp over base and syncs the directory; removes tmp if that fails. */
static int commit(int dfd, const char *tmp, const char *base)
{
	if (renameat(dfd, tmp, dfd, base)) {
		int rc = -errno;

		unlinkat(dfd, tmp, 0);
		return rc;
	}
	return fsync(dfd) ? -errno : 0;
}

int gp_write_at(int dfd, const char *base, const void *data, size_t len,
		const struct gp_file_attrs *a)
{
	char tmp[NAME_MAX + 32];
	int fd = -1, rc = -EEXIST, tries;

	for (tries = 0; fd < 0 && tries < 16; tries++) {
		rc = temp_name(tmp, sizeof(tmp), base);
		if (rc)
			break;
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    a->mode & 0777);
		rc = fd < 0 ? -errno : 0;
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return rc;
	rc = fill(fd, data, len, a);
	rc = rc ? rc : commit(dfd, tmp, base);
	if (rc)
		unlinkat(dfd, tmp, 0);
	return rc;
}

int gp_write_file_attrs(const char *path, const void *data, size_t len,
			const struct gp_file_attrs *a)
{
	char base[NAME_MAX + 1];
	int dfd = gp_write_dir_open(path, base, sizeof(base)), rc;

	if (dfd < 0)
		return dfd;
	rc = gp_write_at(dfd, base, data, len, a);
	close(dfd);
	return rc;
}

int gp_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	struct gp_file_attrs a = { .mode = mode };

	return gp_write_file_attrs(path, data, len, &a);
}

/*
 * A symbolic link, put in place the same way (owner and xattrs on the link
 * itself: no descriptor of a link takes them, so its name in the directory
 * already opened, /proc/self/fd/DFD/TMP).
 */
int gp_write_link(const char *path, const char *target, const struct gp_file_attrs *a)
{
	char base[NAME_MAX + 1], tmp[NAME_MAX + 32], full[NAME_MAX + 64];
	int dfd, rc = -EEXIST, tries;
	size_t i;

	dfd = gp_write_dir_open(path, base, sizeof(base));
	if (dfd < 0)
		return dfd;
	for (tries = 0; rc == -EEXIST && tries < 16; tries++) {
		rc = temp_name(tmp, sizeof(tmp), base);
		if (!rc && symlinkat(target, dfd, tmp))
			rc = -errno;
	}
	if (!rc && a && a->owner && fchownat(dfd, tmp, a->uid, a->gid, AT_SYMLINK_NOFOLLOW))
		rc = -errno;
	snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", dfd, tmp);
	for (i = 0; !rc && a && i < a->nxattrs; i++)
		if (lsetxattr(full, a->xattrs[i].name, a->xattrs[i].value, a->xattrs[i].len, 0))
			rc = -errno;
	if (!rc)
		rc = commit(dfd, tmp, base);
	else if (rc != -EEXIST)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}
