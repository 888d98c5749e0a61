// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whether root may act on what a path names: the profile apply carries out,
 * the templates it installs (vfio-rebind.sh runs at every boot), libvirt's
 * embedded root.  Nobody but root may be able to change it, now or between
 * this check and the read; then the check cannot be raced either.
 *
 * That holds when, walking the path from '/' as the kernel resolves it, every
 * directory is root's and not writable by others or by a group other than
 * root's (or is sticky, as /tmp: others cannot rename or remove root's entries
 * there), every symbolic link is root's and its target passes the same walk,
 * and the file at the end is root's, of the kind wanted, and not writable by
 * others or by a group other than root's.  That is
 * doas's rule for doas.conf and OpenSSH's safe_path, with links and sticky
 * directories thought through.
 */
#define _GNU_SOURCE /* nftw */
#include <dirent.h>
#include <endian.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/log.h"
#include "shared/trust.h"
#include "shared/util.h"

#define MAX_LINKS   40	  /* the kernel's MAXSYMLINKS */
#define MAX_ENTRIES 10000 /* a tree larger than this is no configuration */

struct walk {
	char cur[PATH_MAX];	 /* resolved so far: a directory found safe */
	char rest[2 * PATH_MAX]; /* what is left to resolve */
	int links;
	char why[PATH_MAX + 128];
};

static int refuse(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	return -EPERM;
}

/* The kernel's POSIX ACL xattr format (linux/posix_acl_xattr.h), little endian. */
#define ACL_XATTR_VERSION 2
#define ACL_USER	  0x02
#define ACL_GROUP	  0x08
#define ACL_MASK	  0x10
#define ACL_WRITE	  0x02

struct acl_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

/*
 * With an access ACL the mode's group bits are the ACL's mask: a file of
 * root's group with mode 0664 may be writable by any named user or group.
 * Refuse a named entry other than root that may write (its perm and the
 * mask's both say write).  The default ACL grants nothing on the directory
 * itself, and what root creates there gets at most the group bits of the
 * mode it creates with (never group write), so it is not looked at.
 */
static int acl_ok(struct walk *w, const char *path)
{
	unsigned char buf[4 + 64 * sizeof(struct acl_entry)];
	struct acl_entry e;
	bool named_write = false, mask_write = true;
	ssize_t n = lgetxattr(path, "system.posix_acl_access", buf, sizeof(buf));
	uint32_t version;

	if (n < 0 && (errno == ENODATA || errno == ENOTSUP))
		return 0;
	if (n < 0 && errno == ERANGE)
		return refuse(w, "'%s' has an access ACL too large to check", path);
	if (n < 0)
		return -errno;
	memcpy(&version, buf, sizeof(version));
	if (n < 4 || le32toh(version) != ACL_XATTR_VERSION || (n - 4) % sizeof(e))
		return refuse(w, "'%s' has an access ACL gpuprov cannot read", path);
	for (ssize_t off = 4; off < n; off += sizeof(e)) {
		memcpy(&e, buf + off, sizeof(e));
		if (le16toh(e.tag) == ACL_MASK)
			mask_write = le16toh(e.perm) & ACL_WRITE;
		else if ((le16toh(e.tag) == ACL_USER || le16toh(e.tag) == ACL_GROUP) &&
			 le32toh(e.id) != 0 && (le16toh(e.perm) & ACL_WRITE))
			named_write = true;
	}
	if (named_write && mask_write)
		return refuse(w, "'%s' has an ACL that lets another user or group write it", path);
	return 0;
}

/* What every entry on the way must be: root's, and not writable by others. */
static int entry_ok(struct walk *w, const char *path, const struct stat *st)
{
	if (st->st_uid != 0)
		return refuse(w, "'%s' is owned by uid %lu, not root", path,
			      (unsigned long)st->st_uid);
	if (S_ISLNK(st->st_mode))
		return 0; /* a link's own mode means nothing */
	/* sticky (as /tmp): others cannot rename or remove root's entries */
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return 0;
	if (!(st->st_mode & S_IWOTH) && !(st->st_mode & S_IWGRP))
		return 0; /* with an ACL the group bits are its mask: nobody else writes */
	/* root's group is root's (libvirt makes its runtime directories 0770) */
	if (!(st->st_mode & S_IWOTH) && st->st_gid == 0)
		return acl_ok(w, path);
	return refuse(w, "'%s' is writable by group or others (mode %lo)", path,
		      (unsigned long)(st->st_mode & 07777));
}

/* The first component of w->rest into comp, and off w->rest. */
static void next_component(struct walk *w, char *comp, size_t len)
{
	char *s = w->rest + strspn(w->rest, "/");
	size_t n = strcspn(s, "/");

	snprintf(comp, len, "%.*s", (int)n, s);
	memmove(w->rest, s + n, strlen(s + n) + 1);
}

static bool more(const struct walk *w)
{
	return w->rest[strspn(w->rest, "/")] != '\0';
}

static void up(struct walk *w)
{
	char *slash = strrchr(w->cur, '/');

	if (slash == w->cur)
		slash[1] = '\0';
	else
		*slash = '\0';
}

/* A link: its target goes in front of what is left, from '/' when absolute. */
static int follow(struct walk *w, const char *path)
{
	char target[PATH_MAX], rest[2 * PATH_MAX];
	ssize_t n;

	if (++w->links > MAX_LINKS)
		return -ELOOP;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if ((size_t)snprintf(rest, sizeof(rest), "%s/%s", target, w->rest) >= sizeof(rest))
		return -ENAMETOOLONG;
	gp_strlcpy(w->rest, rest, sizeof(w->rest));
	if (target[0] == '/')
		gp_strlcpy(w->cur, "/", sizeof(w->cur));
	return 0;
}

/* One step: comp inside w->cur.  0 to go on, 1 at the end, or -errno. */
static int step(struct walk *w, const char *comp, struct stat *st)
{
	char path[PATH_MAX];
	int rc;

	if (!strcmp(comp, ".") || !comp[0])
		return more(w) ? 0 : 1;
	if (!strcmp(comp, "..")) {
		up(w);
		return more(w) ? 0 : 1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", w->cur, strcmp(w->cur, "/") ? "/" : "",
			     comp) >= sizeof(path))
		return -ENAMETOOLONG;
	if (lstat(path, st))
		return -errno;
	rc = entry_ok(w, path, st);
	if (rc)
		return rc;
	if (S_ISLNK(st->st_mode))
		return follow(w, path);
	gp_strlcpy(w->cur, path, sizeof(w->cur));
	if (!more(w))
		return 1;
	return S_ISDIR(st->st_mode) ? 0 : -ENOTDIR;
}

static int walk(struct walk *w, const char *path, struct stat *st)
{
	char comp[NAME_MAX + 1];
	int rc;

	/* a relative path is walked from '/' too: the working directory's chain counts */
	gp_strlcpy(w->cur, "/", sizeof(w->cur));
	w->rest[0] = '\0';
	if (path[0] != '/' && !getcwd(w->rest, PATH_MAX))
		return -errno;
	if (path[0] != '/')
		strcat(w->rest, "/");
	if (strlen(w->rest) + strlen(path) >= sizeof(w->rest))
		return -ENAMETOOLONG;
	strcat(w->rest, path);
	if (lstat("/", st))
		return -errno;
	rc = entry_ok(w, "/", st);
	for (w->links = 0; !rc;) {
		next_component(w, comp, sizeof(comp));
		rc = step(w, comp, st);
	}
	if (rc == 1 && lstat(w->cur, st))
		return -errno; /* ".." at the end: the directory reached */
	return rc == 1 ? 0 : rc;
}

static int tree_entries;
static char tree_why[PATH_MAX + 128];

/* Each entry below a trusted directory: root's, and links lead somewhere safe. */
static int tree_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct walk w = { .why = "" };
	struct stat target;

	(void)ftw;
	if (++tree_entries > MAX_ENTRIES) {
		snprintf(tree_why, sizeof(tree_why), "more than %d entries", MAX_ENTRIES);
		return -E2BIG;
	}
	if (flag == FTW_NS || flag == FTW_DNR) {
		snprintf(tree_why, sizeof(tree_why), "'%s' cannot be read", path);
		return -EACCES;
	}
	if (entry_ok(&w, path, st) || (S_ISLNK(st->st_mode) && walk(&w, path, &target))) {
		if (!w.why[0])
			snprintf(w.why, sizeof(w.why), "the link '%s' leads nowhere", path);
		gp_strlcpy(tree_why, w.why, sizeof(tree_why));
		return -EPERM;
	}
	return 0;
}

/*
 * An entry of a tree that libraries read by path (libpci, libkmod under
 * --root): root's, and writable by nobody else, sticky or not (in a sticky
 * directory others could still add an entry after the check).  Links are
 * not followed here: the root guard sees that they stay inside the tree.
 */
static int owned_acl(const char *path)
{
	struct walk w = { .why = "" }; /* 16 KiB: only for the rare entry that needs it */

	if (!acl_ok(&w, path))
		return 0;
	gp_strlcpy(tree_why, w.why, sizeof(tree_why));
	return -EPERM;
}

/*
 * A device node, a FIFO or a socket: no snapshot or sysfs capture holds one
 * (snapshot copies regular files and links), but tar as root recreates them
 * from a hostile tarball, and libpci or libkmod open by path.
 */
static bool special(const struct stat *st)
{
	return S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) || S_ISFIFO(st->st_mode) ||
	       S_ISSOCK(st->st_mode);
}

static int owned_entry(const char *path, const struct stat *st)
{
	if (special(st))
		snprintf(tree_why, sizeof(tree_why),
			 "'%s' is a device node, a FIFO or a socket, which no snapshot holds",
			 path);
	else if (st->st_uid != 0)
		snprintf(tree_why, sizeof(tree_why), "'%s' is owned by uid %lu, not root", path,
			 (unsigned long)st->st_uid);
	else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWOTH))
		snprintf(tree_why, sizeof(tree_why), "'%s' is writable by others (mode %lo)", path,
			 (unsigned long)(st->st_mode & 07777));
	else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWGRP) && st->st_gid != 0)
		snprintf(tree_why, sizeof(tree_why), "'%s' is writable by group %lu", path,
			 (unsigned long)st->st_gid);
	else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWGRP))
		return owned_acl(path);
	else
		return 0;
	return -EPERM;
}

static int unreadable(const char *path)
{
	snprintf(tree_why, sizeof(tree_why), "'%s' cannot be read", path);
	return -EACCES;
}

/*
 * The walk of the whole tree (112k entries in make bench's): each lookup is
 * one name in its directory's descriptor, and a directory's own check is
 * the fstat of the descriptor its listing is then read from (nftw stats it
 * by name, opens it, stats it again).  path: the entry's, for the message.
 */
static int owned_dir(int fd, char *path, size_t len);

static int owned_name(int dirfd, const char *name, bool dir, char *path, size_t len)
{
	struct stat st;
	int fd, rc;

	if (dir) {
		fd = openat(dirfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno != ENOTDIR && errno != ELOOP)
			return unreadable(path);
		if (fd >= 0) {
			rc = fstat(fd, &st) ? unreadable(path) : owned_entry(path, &st);
			if (!rc)
				return owned_dir(fd, path, len);
			close(fd);
			return rc;
		}
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return unreadable(path);
	if (S_ISDIR(st.st_mode)) /* a directory now, and not a moment ago: once more */
		return dir ? unreadable(path) : owned_name(dirfd, name, true, path, len);
	return owned_entry(path, &st);
}

#define DENTS_LEN 32768

/* One listing's entries: 0 when all are fine, or rc. */
static int owned_dents(int fd, const char *buf, ssize_t n, char *path, size_t len)
{
	const struct dirent64 *e;
	ssize_t off;
	size_t k;
	int rc;

	for (off = 0; off < n; off += e->d_reclen) {
		e = (const struct dirent64 *)(buf + off);
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		k = strlen(e->d_name);
		if (len + k >= PATH_MAX)
			return unreadable(e->d_name);
		memcpy(path + len, e->d_name, k + 1);
		rc = owned_name(fd, e->d_name, e->d_type == DT_DIR || e->d_type == DT_UNKNOWN, path,
				len + k);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Takes fd; each entry is named path/NAME, as nftw names them.  The listing
 * is read with getdents64 itself: opendir would fstat the descriptor again
 * and fcntl it twice, for each of the tree's directories.
 */
static int owned_dir(int fd, char *path, size_t len)
{
	char *buf = gp_xrealloc(NULL, DENTS_LEN, 1); /* not zeroed: getdents64 fills it */
	ssize_t n;
	int rc = 0;

	if (len && path[len - 1] != '/' && len + 1 < PATH_MAX)
		path[len++] = '/';
	while (!rc && (n = getdents64(fd, buf, DENTS_LEN)) > 0)
		rc = owned_dents(fd, buf, n, path, len);
	if (!rc && n < 0) {
		path[len] = '\0';
		rc = unreadable(path);
	}
	free(buf);
	close(fd);
	return rc;
}

/*
 * The directory path leads to, and everything below it.  gp_trust has seen
 * that only root can change the way there, so the directory opened is the
 * one it checked; a root given as a link to a directory is walked too
 * (nftw with FTW_PHYS stopped at such a link: the tree behind it was not
 * looked at).
 */
int gp_trust_owned_tree(const char *path)
{
	char buf[PATH_MAX];
	struct stat st;
	int rc = gp_trust(path, GP_TRUST_DIR), fd;

	if (rc)
		return rc;
	tree_why[0] = '\0';
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (gp_strlcpy(buf, path, sizeof(buf)) >= sizeof(buf) || fd < 0 || fstat(fd, &st))
		rc = unreadable(path);
	else
		rc = owned_entry(path, &st);
	if (!rc)
		rc = owned_dir(fd, buf, strlen(buf));
	else if (fd >= 0)
		close(fd);
	if (!rc)
		return 0;
	gp_err("refusing '%s' as the host to read: %s; libpci and libkmod read it by path, "
	       "so as root only a tree that only root can change is read (gpuprov(8), "
	       "SECURITY CONSIDERATIONS)",
	       path, tree_why[0] ? tree_why : strerror(-rc));
	return -EPERM;
}

int gp_trust(const char *path, enum gp_trust_kind kind)
{
	struct walk w = { .why = "" };
	struct stat st;
	int rc = walk(&w, path, &st);

	if (!rc && kind == GP_TRUST_FILE && !S_ISREG(st.st_mode))
		rc = refuse(&w, "it is not a regular file");
	else if (!rc && kind != GP_TRUST_FILE && !S_ISDIR(st.st_mode))
		rc = refuse(&w, "it is not a directory");
	if (!rc && kind == GP_TRUST_TREE) {
		tree_entries = 0;
		tree_why[0] = '\0';
		rc = nftw(path, tree_entry, 16, FTW_PHYS) ? -EPERM : 0;
		gp_strlcpy(w.why, tree_why, sizeof(w.why));
	}
	if (rc == -EPERM)
		gp_err("refusing '%s': %s; only root may be able to change it (gpuprov(8), "
		       "SECURITY CONSIDERATIONS)",
		       path, w.why);
	else if (rc)
		gp_err("cannot check '%s': %s", path, strerror(-rc));
	return rc;
}

/*
 * The directory a file will be written into, or the nearest one above it
 * that exists (the writer makes the rest, root's): root writes there
 * following whatever the path resolves to, so only root may change that.
 */
int gp_trust_parent(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	if (gp_strlcpy(dir, path, sizeof(dir)) >= sizeof(dir))
		return -ENAMETOOLONG;
	do {
		slash = strrchr(dir, '/');
		if (!slash)
			gp_strlcpy(dir, ".", sizeof(dir));
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	} while (slash && slash != dir && lstat(dir, &st) && errno == ENOENT);
	return gp_trust(dir, GP_TRUST_DIR);
}
