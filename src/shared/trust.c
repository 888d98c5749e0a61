// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whether root may act on what a path names: the profile apply carries out,
 * the templates it installs (vfio-rebind.sh runs at every boot), libvirt's
 * embedded root.  Nobody but root may be able to change it, now or between
 * this check and the read; then the check cannot be raced either.
 *
 * That holds when, walking the path from '/' as the kernel resolves it, every
 * directory is root's and not writable by group or others (or is sticky, as
 * /tmp: others cannot rename or remove root's entries there), every symbolic
 * link is root's and its target passes the same walk, and the file at the end
 * is root's, of the kind wanted, and not writable by group or others.  That
 * is doas's rule for doas.conf and OpenSSH's safe_path (StrictModes), with
 * links and sticky directories thought through.  Group write is refused
 * whatever the group: a member of root's group is another user too.
 *
 * A tree (the templates, an embedded libvirt root) is what the path leads
 * to, links resolved, and everything in it, and there a sticky directory is
 * refused too: anyone may add an entry to it after the check.
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
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/log.h"
#include "shared/trust.h"
#include "shared/util.h"

#define MAX_LINKS   40	       /* the kernel's MAXSYMLINKS */
#define PROC_MAGIC  0x9fa0     /* linux/magic.h PROC_SUPER_MAGIC */
#define FUSE_MAGIC  0x65735546 /* linux/magic.h FUSE_SUPER_MAGIC */
#define MAX_ENTRIES 10000      /* a tree larger than this is no configuration */

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
 * With an access ACL the mode's group bits are the ACL's mask: without group
 * write, no named user or group may write either.  A directory let pass with
 * group write (libvirt_dbus) must have no named entry other than root that
 * may write (its perm and the mask's both say write).  The default ACL
 * grants nothing on the directory itself, and is not looked at.
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

/*
 * Root's, and not writable by group or others.  On the way to what is
 * checked a sticky directory (as /tmp) passes: others cannot rename or
 * remove root's entries in it.  In a tree (strict) it does not: anyone who
 * may write it may add an entry after the check.
 */
static int owner_ok(struct walk *w, const char *path, const struct stat *st, bool strict)
{
	mode_t mode = st->st_mode;

	if (st->st_uid != 0)
		return refuse(w, "'%s' is owned by uid %lu, not root", path,
			      (unsigned long)st->st_uid);
	if (S_ISLNK(mode))
		return 0; /* a link's own mode means nothing */
	if (S_ISDIR(mode) && (mode & S_ISVTX) && !strict)
		return 0;
	if (!(mode & (S_IWGRP | S_IWOTH)))
		return 0; /* with an ACL the group bits are its mask: nobody else writes */
	if (S_ISDIR(mode) && (mode & S_ISVTX))
		return refuse(w,
			      "'%s' is writable by group or others (mode %lo): sticky or not, "
			      "they may add entries to it",
			      path, (unsigned long)(mode & 07777));
	return refuse(w, "'%s' is writable by group or others (mode %lo)", path,
		      (unsigned long)(mode & 07777));
}

int (*gp_trust_statfs)(const char *path, struct statfs *sf) = statfs;

bool gp_trust_fs_foreign(unsigned long f_type)
{
	return f_type == FUSE_MAGIC;
}

/*
 * A FUSE filesystem answers lstat with whatever owner and mode its server
 * likes (a user's mount with allow_other too), and can stall or change any
 * open: its entries say nothing about who can change them.  A link is on
 * its directory's filesystem, checked as the directory was reached (statfs
 * would follow the link).  1 when path is on such a filesystem, 0 when not,
 * or -errno.
 */
static int fs_foreign(const char *path, const struct stat *st)
{
	struct statfs sf;

	if (S_ISLNK(st->st_mode))
		return 0;
	if (gp_trust_statfs(path, &sf))
		return -errno;
	return gp_trust_fs_foreign((unsigned long)sf.f_type);
}

#define FOREIGN_WHY "'%s' is on a FUSE filesystem, whose owners and modes its server makes up"

static int fs_ok(struct walk *w, const char *path, const struct stat *st)
{
	int rc = fs_foreign(path, st);

	return rc > 0 ? refuse(w, FOREIGN_WHY, path) : rc;
}

/* What every entry must be: root's, not writable by others (owner_ok), off FUSE. */
static int entry_ok(struct walk *w, const char *path, const struct stat *st, bool strict)
{
	int rc = owner_ok(w, path, st, strict);

	return rc ? rc : fs_ok(w, path, st);
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

/*
 * Whether the link path lives on procfs.  Its links (/proc/PID/root, cwd,
 * fd/N, exe) are not resolved by their text: the kernel goes to the file
 * itself, in whatever mount namespace it is, while readlink gives a path
 * of ours.  A walk by the text would check files the kernel never opens.
 */
static int proc_link(const char *path)
{
	char dir[PATH_MAX];
	struct statfs sf;
	char *slash;

	gp_strlcpy(dir, path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (!slash)
		gp_strlcpy(dir, ".", sizeof(dir));
	else
		slash[slash == dir] = '\0';
	if (statfs(dir, &sf))
		return -errno;
	return sf.f_type == PROC_MAGIC;
}

/* A link: its target goes in front of what is left, from '/' when absolute. */
static int follow(struct walk *w, const char *path)
{
	char target[PATH_MAX], rest[2 * PATH_MAX];
	ssize_t n;

	if (++w->links > MAX_LINKS)
		return -ELOOP;
	n = proc_link(path);
	if (n < 0)
		return n;
	if (n)
		return refuse(w,
			      "'%s' is a link in /proc, which the kernel may resolve elsewhere "
			      "(another mount namespace) than its text says",
			      path);
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
	rc = entry_ok(w, path, st, false);
	if (rc)
		return rc;
	if (S_ISLNK(st->st_mode))
		return follow(w, path);
	gp_strlcpy(w->cur, path, sizeof(w->cur));
	if (!more(w))
		return 1;
	return S_ISDIR(st->st_mode) ? 0 : -ENOTDIR;
}

/* What the walk reached (st) is what the kernel resolves path to. */
static int same_file(struct walk *w, const char *path, const struct stat *st)
{
	struct stat k;

	if (stat(path, &k))
		return -errno;
	if (k.st_dev != st->st_dev || k.st_ino != st->st_ino)
		return refuse(w, "the kernel resolves it elsewhere than its links' text says");
	return 0;
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
	rc = entry_ok(w, "/", st, false);
	for (w->links = 0; !rc;) {
		next_component(w, comp, sizeof(comp));
		rc = step(w, comp, st);
	}
	if (rc == 1 && lstat(w->cur, st))
		return -errno; /* ".." at the end: the directory reached */
	return rc == 1 ? same_file(w, path, st) : rc;
}

/* gp_trust's message for rc (0: none). */
static void report(const char *path, const struct walk *w, int rc)
{
	if (rc == -EPERM)
		gp_err("refusing '%s': %s; only root may be able to change it (gpuprov(8), "
		       "SECURITY CONSIDERATIONS)",
		       path, w->why);
	else if (rc)
		gp_err("cannot check '%s': %s", path, strerror(-rc));
}

#define MAX_TREE_LINKS 8 /* links to directories, one inside what another leads to */

static int tree_entries, tree_depth;
static char tree_why[PATH_MAX + 128];
static char tree_dbus[PATH_MAX]; /* libvirt_dbus's directory, or "" */

/*
 * libvirt's embedded driver makes ROOT/run/qemu/dbus itself, mode 0770 for
 * the user and group its qemu.conf names (root's, in a root gpuprov opens):
 * the one directory of a tree let pass with group write, for root's group
 * and without an ACL that lets another write.  It holds the D-Bus daemons
 * of running domains, and gpuprov starts none.
 */
static int libvirt_dbus(struct walk *w, const char *path, const struct stat *st)
{
	if (!tree_dbus[0] || strcmp(path, tree_dbus) || !S_ISDIR(st->st_mode) || st->st_uid ||
	    st->st_gid || (st->st_mode & (S_IWOTH | S_ISVTX)))
		return 1;
	return acl_ok(w, path);
}

/*
 * A socket in a tree (a running domain's monitor.sock, which QEMU makes mode
 * 0775) is never opened as a file: its mode says who may connect, not who
 * may change what libvirt reads, and its directory is held to the tree's
 * rule.  In a libvirt root it passes when root's: 0; else 1 (the tree's
 * rule decides).
 */
static int libvirt_socket(struct walk *w, const char *path, const struct stat *st)
{
	if (!tree_dbus[0] || !S_ISSOCK(st->st_mode)) /* tree_dbus: a libvirt root's walk */
		return 1;
	if (st->st_uid != 0)
		return refuse(w, "'%s' is owned by uid %lu, not root", path,
			      (unsigned long)st->st_uid);
	return 0;
}

static int subtree(struct walk *w, const char *dir);

/*
 * A link in a tree: what it leads to is in the tree too, walked as any path
 * is, then held to the tree's rule: a directory with everything in it.
 */
static int tree_link(struct walk *w, const char *path)
{
	struct stat st;
	int rc = walk(w, path, &st);

	if (rc && !w->why[0])
		return refuse(w, "the link '%s' leads nowhere", path);
	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return 0; /* walk's rule for the file it ends on is the tree's */
	return subtree(w, w->cur);
}

/* Each entry of a tree, its top included: root's, nobody else's to write, sticky or not. */
static int tree_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct walk w = { .why = "" };
	int rc;

	(void)ftw;
	if (++tree_entries > MAX_ENTRIES) {
		snprintf(tree_why, sizeof(tree_why), "more than %d entries", MAX_ENTRIES);
		return -E2BIG;
	}
	if (flag == FTW_NS || flag == FTW_DNR) {
		snprintf(tree_why, sizeof(tree_why), "'%s' cannot be read", path);
		return -EACCES;
	}
	/* a FIFO hangs who opens it (libvirt reading qemu.conf), a node runs its
	 * driver's open(): nothing a template or libvirt's root holds; a socket
	 * is libvirt's own (a running domain's monitor) and is never opened */
	if (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		snprintf(tree_why, sizeof(tree_why), "'%s' is a device node or a FIFO", path);
		return -EPERM;
	}
	rc = libvirt_dbus(&w, path, st);
	if (rc > 0)
		rc = libvirt_socket(&w, path, st);
	if (rc > 0)
		rc = owner_ok(&w, path, st, true);
	if (!rc)
		rc = fs_ok(&w, path, st);
	if (!rc && S_ISLNK(st->st_mode))
		rc = tree_link(&w, path);
	if (!rc)
		return 0;
	if (w.why[0])
		gp_strlcpy(tree_why, w.why, sizeof(tree_why));
	else if (!tree_why[0])
		snprintf(tree_why, sizeof(tree_why), "'%s': %s", path, strerror(-rc));
	return -EPERM;
}

/* dir (resolved, its way checked) and everything in it, as tree_entry wants. */
static int subtree(struct walk *w, const char *dir)
{
	int rc;

	if (tree_depth >= MAX_TREE_LINKS)
		return refuse(w, "links lead into directories more than %d deep at '%s'",
			      MAX_TREE_LINKS, dir);
	tree_depth++;
	rc = nftw(dir, tree_entry, 16, FTW_PHYS);
	tree_depth--;
	if (!rc)
		return 0;
	if (tree_why[0]) /* tree_entry says why it stopped */
		return refuse(w, "%s", tree_why);
	return refuse(w, "'%s': %s", dir, strerror(errno)); /* nftw itself failed */
}

/*
 * A tree at path: what path leads to (walk), then that directory and all it
 * holds, named as resolved: nftw of path would stop at a link at its end.
 */
static int tree(struct walk *w, enum gp_trust_kind kind)
{
	tree_entries = tree_depth = 0;
	tree_why[0] = '\0';
	tree_dbus[0] = '\0';
	if (kind == GP_TRUST_LIBVIRT && (size_t)snprintf(tree_dbus, sizeof(tree_dbus), "%s%s",
							 strcmp(w->cur, "/") ? w->cur : "",
							 "/run/qemu/dbus") >= sizeof(tree_dbus))
		return -ENAMETOOLONG;
	return subtree(w, w->cur);
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

/*
 * An entry on a path a library opens by itself (libpci, libkmod under
 * --root): root's, and writable by nobody else, sticky or not (in a sticky
 * directory others could still add the name the library looks for).
 * shown: the entry under the -r path as given, for the message.
 */
static int owned_entry(const char *shown, const struct stat *st)
{
	if (special(st))
		snprintf(tree_why, sizeof(tree_why),
			 "'%s' is a device node, a FIFO or a socket, which no snapshot holds",
			 shown);
	else if (st->st_uid != 0)
		snprintf(tree_why, sizeof(tree_why), "'%s' is owned by uid %lu, not root", shown,
			 (unsigned long)st->st_uid);
	else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWOTH))
		snprintf(tree_why, sizeof(tree_why), "'%s' is writable by others (mode %lo)", shown,
			 (unsigned long)(st->st_mode & 07777));
	else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWGRP))
		snprintf(tree_why, sizeof(tree_why), "'%s' is writable by group %lu (mode %lo)",
			 shown, (unsigned long)st->st_gid, (unsigned long)(st->st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

/*
 * ---- the paths libpci and libkmod open by themselves under --root ----
 * They open ROOT/PATH as the kernel resolves it, after gp_root_guard saw
 * that it leads where the safe reader's resolution does.  Nobody but root
 * may be able to change what that resolution passes: each directory (names
 * are looked up in it), each link (its target is walked the same way) and
 * the entry at the end.  A name not there is fine in a directory only root
 * can change: nobody else can make it appear.  Everything else in the tree
 * is read through the safe reader alone, which needs no such promise.
 */
struct lib_walk {
	const char *root; /* as given, for messages */
	char phys[PATH_MAX];
	size_t plen; /* where root leads, without links */
};

/* Whether phys is root's directory or below it. */
static bool under(const struct lib_walk *l, const char *phys)
{
	return l->plen == 1 ||
	       (!strncmp(phys, l->phys, l->plen) && (phys[l->plen] == '/' || !phys[l->plen]));
}

/* phys as the operator named it: under the -r path as given when below it. */
static const char *shown(const struct lib_walk *l, const char *phys, char *buf, size_t len)
{
	if (l->plen > 1 && under(l, phys))
		snprintf(buf, len, "%s%s", l->root, phys + l->plen);
	else
		snprintf(buf, len, "%s", phys);
	return buf;
}

static int unreadable(const char *shown)
{
	snprintf(tree_why, sizeof(tree_why), "'%s' cannot be read", shown);
	return -EACCES;
}

/* The rule of entry_ok for an entry on a library path (or the -r root). */
static int lib_fs(const char *phys, const char *shown, const struct stat *st)
{
	int rc = fs_foreign(phys, st);

	if (rc < 0)
		return unreadable(shown);
	if (!rc)
		return 0;
	snprintf(tree_why, sizeof(tree_why), FOREIGN_WHY, shown);
	return -EPERM;
}

static int lib_lstat(const struct lib_walk *l, const char *phys, struct stat *st)
{
	char buf[PATH_MAX];
	int rc;

	if (!lstat(phys, st)) {
		shown(l, phys, buf, sizeof(buf));
		rc = owned_entry(buf, st);
		return rc ? rc : lib_fs(phys, buf, st);
	}
	if (errno == ENOENT || errno == ENOTDIR)
		return 1; /* not there, and nobody but root can put it there */
	return unreadable(shown(l, phys, buf, sizeof(buf)));
}

/*
 * A link on a library path leads nowhere out of the tree: real sysfs slots
 * and module directories never need it (snapshot rewrites absolute links),
 * and out there may be what root daemons mount on a user's request.
 */
static int left(const struct lib_walk *l, const char *link)
{
	char buf[PATH_MAX];

	snprintf(tree_why, sizeof(tree_why),
		 "the link '%s' leads out of the tree (no sysfs or module tree needs that)",
		 shown(l, link, buf, sizeof(buf)));
	return -EPERM;
}

/*
 * rel resolved from the root as the kernel does for the library.  w->cur
 * is always a directory in the tree that passed, and so is every directory
 * above it up to the root; a link that leaves the tree is refused.
 * *dir: whether the walk ended on a directory (then w->cur).
 */
static int lib_path(const struct lib_walk *l, struct walk *w, const char *rel, bool *dir)
{
	char comp[NAME_MAX + 1], path[PATH_MAX], link[PATH_MAX] = "";
	struct stat st;
	int rc;

	*dir = false;
	gp_strlcpy(w->cur, l->phys, sizeof(w->cur));
	if (gp_strlcpy(w->rest, rel, sizeof(w->rest)) >= sizeof(w->rest))
		return -ENAMETOOLONG;
	for (w->links = 0; more(w);) {
		next_component(w, comp, sizeof(comp));
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			up(w);
			if (!under(l, w->cur))
				return left(l, link);
			continue;
		}
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", w->cur,
				     strcmp(w->cur, "/") ? "/" : "", comp) >= sizeof(path))
			return -ENAMETOOLONG;
		rc = lib_lstat(l, path, &st);
		if (rc)
			return rc < 0 ? rc : 0;
		if (S_ISLNK(st.st_mode)) {
			rc = follow(w, path);
			if (rc == -EPERM)
				gp_strlcpy(tree_why, w->why, sizeof(tree_why));
			if (rc)
				return rc;
			gp_strlcpy(link, path, sizeof(link));
			if (!under(l, w->cur))
				return left(l, link); /* absolute: from '/' */
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			return 0; /* a file: the end, or ENOTDIR for the library too */
		gp_strlcpy(w->cur, path, sizeof(w->cur));
	}
	*dir = true;
	return 0;
}

/* lib_path, with a message for what stops the walk without naming an entry */
static int lib_rel(const struct lib_walk *l, struct walk *w, const char *rel, bool *dir)
{
	int rc = lib_path(l, w, rel, dir);

	if (rc < 0 && !tree_why[0]) /* a loop of links, a name too long */
		snprintf(tree_why, sizeof(tree_why), "'%s%s': %s", l->root, rel, strerror(-rc));
	return rc;
}

/* p->path, and each entry of it that the library opens (p->entries). */
static int lib_one(const struct lib_walk *l, struct walk *w, const struct gp_lib_path *p)
{
	char rel[PATH_MAX], buf[PATH_MAX];
	struct dirent *e;
	bool dir;
	DIR *d;
	int rc = lib_rel(l, w, p->path, &dir), fd;

	if (rc || !p->entries || !dir)
		return rc;
	/* the directory passed: its listing cannot change now */
	fd = open(w->cur, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return unreadable(shown(l, w->cur, buf, sizeof(buf)));
	}
	while (!rc && (e = readdir(d))) {
		/* both libraries pass over names starting with '.' */
		if (e->d_name[0] == '.' || strncmp(e->d_name, p->entries, strlen(p->entries)))
			continue;
		if ((size_t)snprintf(rel, sizeof(rel), "%s/%s%s%s", p->path, e->d_name,
				     p->name ? "/" : "", p->name ? p->name : "") >= sizeof(rel))
			rc = unreadable(rel);
		else
			rc = lib_rel(l, w, rel, &dir);
	}
	closedir(d);
	return rc;
}

int gp_trust_lib_paths(const char *root, const struct gp_lib_path *paths, size_t n)
{
	struct lib_walk l = { .root = root };
	struct walk w = { .why = "" };
	struct stat st;
	size_t i;
	int rc = walk(&w, root, &st);

	if (!rc && !S_ISDIR(st.st_mode))
		rc = refuse(&w, "it is not a directory");
	if (rc) {
		report(root, &w, rc);
		return rc;
	}
	gp_strlcpy(l.phys, w.cur, sizeof(l.phys));
	l.plen = strlen(l.phys);
	tree_why[0] = '\0';
	rc = owned_entry(root, &st);
	if (!rc)
		rc = lib_fs(l.phys, root, &st);
	for (i = 0; !rc && i < n; i++)
		rc = lib_one(&l, &w, &paths[i]);
	if (!rc)
		return 0;
	gp_err("refusing '%s' as the host to read: %s; libpci and libkmod open that path by "
	       "themselves, so as root only root may be able to change it (gpuprov(8), "
	       "SECURITY CONSIDERATIONS)",
	       root, tree_why[0] ? tree_why : strerror(-rc));
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
	if (!rc && kind != GP_TRUST_FILE && kind != GP_TRUST_DIR)
		rc = tree(&w, kind);
	report(path, &w, rc);
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
