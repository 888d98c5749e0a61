// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one safe reader.  Every file gpuprov reads goes through here: the
 * host's sysfs and /proc, a snapshot or fixture tree under --root, the
 * profile, the templates.  A tree under --root is hostile: its links resolve
 * inside it (openat2's RESOLVE_IN_ROOT, or a walk in userspace on kernels
 * without it), nothing but regular files and directories is read (a FIFO
 * would block, /dev/zero never ends), and every read has a size bound.
 * The type is checked before anything is opened for reading: the lookup
 * takes O_PATH, which runs no driver's open(), and only a regular file or a
 * directory is then reopened through /proc/self/fd -- a device node in a
 * snapshot tarball, or a profile's [vm] output = /dev/watchdog, would
 * otherwise have its driver opened by root (a watchdog arms and reboots the
 * host).  Reopens are O_NONBLOCK|O_NOCTTY all the same.
 *
 * The hot path (a device's attributes, tens of thousands on a big host) is
 * cheaper in a directory opened once (gp_root_dir) that is trusted: nobody
 * but root can change which inode a name in it leads to, so a check of the
 * name and an open of the same name meet the same inode -- the race the
 * O_PATH reopen closes cannot happen there -- and the type of an inode never
 * changes.  Trusted is:
 *  - sysfs and procfs (GP_TRUST_KERNFS): they hold directories, regular
 *    files and links only, never a device node, a FIFO or a socket; the name
 *    is opened at once, O_NOFOLLOW (1 syscall; /proc's magic links to
 *    anything and every other link fail with ELOOP and take the safe path);
 *  - a directory owned by root (or by whoever runs gpuprov) that neither its
 *    group nor others may write (an ACL's mask shows in the group bits), on
 *    a local filesystem whose permissions the kernel itself enforces: ext2-4,
 *    XFS, Btrfs, tmpfs (GP_TRUST_LOCAL).  Not NFS, CIFS, 9p, FUSE or an
 *    overlay: there a server or a lower layer decides what a name is, not
 *    the directory's mode.  fstatat without following the name, and only a
 *    regular file or a directory is opened, O_NOFOLLOW (2 syscalls): a node
 *    tar unpacked there as root is refused as before, never opened.
 * Anything else -- an untrusted directory, a link, a name with a "/" --
 * takes the O_PATH lookup and the reopen.  Which directory holds the name is
 * fixed by the descriptor (renaming a directory above it changes nothing),
 * and the opens stay O_NONBLOCK|O_NOCTTY.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/rootfs.h"
#include "shared/util.h"

#define MAX_LINKS 40  /* as the kernel's ELOOP limit */
#define MAX_DEPTH 256 /* directories deep, in the userspace walk */
#define WALK_LEN  8192

bool gp_root_no_openat2;

int gp_root_open(const char *root)
{
	int fd;

	if (!root || !root[0] || !strcmp(root, "/"))
		return AT_FDCWD; /* the live host: the kernel's own tree */
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void plain_forget(int rootfd);

void gp_root_close(int rootfd)
{
	plain_forget(rootfd);
	if (rootfd >= 0)
		close(rootfd);
}

const char *gp_root_strerror(int rc)
{
	if (rc == -EINVAL)
		return "not a regular file or directory";
	if (rc == -EXDEV)
		return "a link leads outside the root";
	if (rc == -EFBIG)
		return "file too large";
	return strerror(-rc);
}

/* The flags the final open takes: O_PATH allows only a few others. */
static int final_flags(int flags)
{
	if (flags & O_PATH)
		return flags & (O_PATH | O_DIRECTORY | O_NOFOLLOW);
	return flags | O_NONBLOCK | O_NOCTTY;
}

static int by_openat2(int rootfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(final_flags(flags) | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd, tries = 0;

	do /* EAGAIN: a rename raced with "..", as openat2(2) says */
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < 16);
	return fd < 0 ? -errno : fd;
}

/* ---- the walk for kernels without openat2 ---- */

struct walk {
	int fds[MAX_DEPTH + 1]; /* fds[0] is the root, not ours */
	int depth;
	int links;
	char todo[WALK_LEN];
};

static void walk_pop(struct walk *w, int to)
{
	while (w->depth > to)
		close(w->fds[w->depth--]);
}

/* Replaces what is left to walk with the link's target, then the rest. */
static int walk_link(struct walk *w, int fd, const char *rest)
{
	char target[4096], buf[WALK_LEN];
	ssize_t n;

	if (++w->links > MAX_LINKS)
		return -ELOOP;
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (target[0] == '/') /* absolute: from the root, never from "/" */
		walk_pop(w, 0);
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", target, rest) >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(w->todo, buf, sizeof(buf));
	return 0;
}

/* One component: 0 to go on, 1 when *out holds the result, or -errno. */
static int walk_step(struct walk *w, int flags, int *out)
{
	char name[256], *p = w->todo + strspn(w->todo, "/");
	size_t n = strcspn(p, "/");
	int cur = w->fds[w->depth], fd, rc;
	struct stat st;
	bool last;

	if (!n) { /* the path ended on a directory */
		*out = openat(cur, ".", final_flags(flags) | O_CLOEXEC);
		return *out < 0 ? -errno : 1;
	}
	if (n >= sizeof(name))
		return -ENAMETOOLONG;
	memcpy(name, p, n);
	name[n] = '\0';
	p += n;
	p += strspn(p, "/");
	last = !*p;
	memmove(w->todo, p, strlen(p) + 1);
	if (!strcmp(name, "."))
		return 0;
	if (!strcmp(name, "..")) { /* never above the root */
		walk_pop(w, w->depth ? w->depth - 1 : 0);
		return 0;
	}
	fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (S_ISLNK(st.st_mode) && (!last || !(flags & O_NOFOLLOW))) {
		rc = walk_link(w, fd, w->todo);
		close(fd);
		return rc;
	}
	if (last) { /* a link swapped in meanwhile fails with ELOOP */
		close(fd);
		*out = openat(cur, name, final_flags(flags) | O_NOFOLLOW | O_CLOEXEC);
		return *out < 0 ? -errno : 1;
	}
	if (!S_ISDIR(st.st_mode) || w->depth == MAX_DEPTH) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
	}
	w->fds[++w->depth] = fd;
	return 0;
}

/* RESOLVE_IN_ROOT by hand: one component at a time, no link followed by the kernel. */
static int by_walk(int rootfd, const char *path, int flags)
{
	struct walk w; /* not zeroed: todo is PATH_MAX-sized and set below */
	int rc, fd = -1;

	if (strlen(path) >= sizeof(w.todo))
		return -ENAMETOOLONG;
	w.depth = 0;
	w.links = 0;
	w.fds[0] = rootfd;
	strcpy(w.todo, path);
	while (!(rc = walk_step(&w, flags, &fd)))
		;
	walk_pop(&w, 0);
	return rc < 0 ? rc : fd;
}

/* Opens path under the root, links resolved inside it; no type check. */
static int open_in(int rootfd, const char *path, int flags)
{
	static bool no_openat2; /* the kernel said ENOSYS once */
	int fd;

	if (rootfd == AT_FDCWD) {
		fd = open(path, final_flags(flags) | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (!no_openat2 && !gp_root_no_openat2) {
		fd = by_openat2(rootfd, path, flags);
		if (fd != -ENOSYS)
			return fd;
		no_openat2 = true;
	}
	return by_walk(rootfd, path, flags);
}

/* The type check after an O_PATH open, or an O_DIRECTORY one (the kernel saw to the type). */
static int checked(int fd, int flags)
{
	struct stat st;

	if (fd < 0 || (flags & O_DIRECTORY))
		return fd;
	if (fstat(fd, &st)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || (S_ISLNK(st.st_mode) && (flags & O_PATH)))
		return fd;
	close(fd); /* a FIFO, a device, a socket; a link where O_NOFOLLOW was asked */
	return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
}

/*
 * pfd: an O_PATH descriptor of what is to be read.  Only a regular file or
 * a directory is opened for reading, and it is the very inode pfd names:
 * /proc/self/fd/N is a magic link to it, not a path looked up again.  That
 * /proc is the running kernel's, also under --root (the tree's own /proc
 * is never used for it); without /proc mounted nothing can be read.
 */
static int reopen(int pfd, int flags)
{
	char self[32];
	int fd;

	pfd = checked(pfd, O_RDONLY);
	if (pfd < 0)
		return pfd;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, final_flags(flags & ~O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

/* What may be opened for reading is looked up with O_PATH first (see reopen). */
static int lookup_flags(int flags)
{
	return O_PATH | (flags & O_NOFOLLOW);
}

static bool for_reading(int flags)
{
	return !(flags & (O_PATH | O_DIRECTORY));
}

int gp_root_openat(int rootfd, const char *path, int flags)
{
	if (for_reading(flags))
		return reopen(open_in(rootfd, path, lookup_flags(flags)), flags);
	return checked(open_in(rootfd, path, flags), flags);
}

/*
 * size: a regular file's size on a local filesystem, as fstatat said, or -1.
 * Once that much is read the file has ended: no read to see it return 0.
 */
static ssize_t read_upto(int fd, char *buf, size_t len, off_t size)
{
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0)
		return fd;
	while (n + 1 < len && (size < 0 || (off_t)n < size) &&
	       (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	if (r < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return (ssize_t)n;
}

static ssize_t read_fd(int fd, char *buf, size_t len)
{
	return read_upto(fd, buf, len, -1);
}

ssize_t gp_root_read(int rootfd, const char *path, char *buf, size_t len)
{
	return read_fd(gp_root_openat(rootfd, path, O_RDONLY), buf, len);
}

/*
 * st: the metadata of the very descriptor that was read, for a decision about
 * what was read (may it be shown?): a second lookup of path could find
 * another file, swapped in by whoever owns a directory on the way.
 */
ssize_t gp_root_slurp_stat(int rootfd, const char *path, size_t max, char **out, struct stat *st)
{
	int fd = gp_root_openat(rootfd, path, O_RDONLY);
	size_t len = 0, cap = 256;
	ssize_t r;
	char *buf;

	*out = NULL;
	if (fd < 0)
		return fd;
	if (st && fstat(fd, st)) {
		r = -errno;
		close(fd);
		return r;
	}
	buf = gp_xcalloc(cap, 1);
	while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (len > max) { /* sysfs sizes lie: the bound is on what was read */
			r = -EFBIG;
			break;
		}
		if (len + 1 == cap) {
			cap *= 2;
			buf = gp_xrealloc(buf, cap, 1);
		}
	}
	if (r < 0 && r != -EFBIG)
		r = -errno;
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

ssize_t gp_root_slurp(int rootfd, const char *path, size_t max, char **out)
{
	return gp_root_slurp_stat(rootfd, path, max, out, NULL);
}

char *gp_root_read_file(int rootfd, const char *path)
{
	char *text;

	gp_root_slurp(rootfd, path, GP_READ_MAX, &text);
	return text;
}

ssize_t gp_root_readlink(int rootfd, const char *path, char *buf, size_t len)
{
	int fd = gp_root_openat(rootfd, path, O_PATH | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = readlinkat(fd, "", buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

DIR *gp_root_opendir(int rootfd, const char *path)
{
	int fd = gp_root_openat(rootfd, path, O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

int gp_root_stat(int rootfd, const char *path, struct stat *st)
{
	int fd = open_in(rootfd, path, O_PATH), rc = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, st))
		rc = -errno;
	close(fd);
	return rc;
}

/* A name looked up in the directory alone: no "/", no "." or "..". */
static bool plain_name(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/*
 * name in dirfd, the directory gp_root_dir(rootfd, dir) opened: one lookup
 * where dir/name would walk the whole path again (a device's attributes, tens
 * of thousands on a big host).  Under a root a link as name resolves as the
 * whole path does, inside the root; without a directory, so does everything.
 */
static int open_name(const struct gp_root_dir *d, const char *name, int flags)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (d->fd >= 0 && plain_name(name) && d->rootfd == AT_FDCWD) {
		fd = openat(d->fd, name, final_flags(flags) | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (d->fd >= 0 && plain_name(name)) { /* a link: the whole path, resolved in the root */
		fd = openat(d->fd, name, final_flags(flags) | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno != ELOOP)
			return -errno;
		if (fd >= 0 && (!(flags & O_PATH) || fstat(fd, &st) || !S_ISLNK(st.st_mode)))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", d->path, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return open_in(d->rootfd, path, flags);
}

/* A filesystem whose directories' modes the kernel enforces locally (see the header). */
static bool local_fs(long type)
{
	return type == EXT4_SUPER_MAGIC || type == XFS_SUPER_MAGIC || type == BTRFS_SUPER_MAGIC ||
	       type == TMPFS_MAGIC;
}

/*
 * The type of the filesystem st_dev names: one filesystem (a superblock) has
 * one st_dev, so the last one's answer stands for every directory on it (a
 * device's and each interface's directory, thousands on a big host).
 */
static int fs_type(int fd, dev_t dev, long *type)
{
	static dev_t last_dev;
	static long last_type;
	static bool known;
	struct statfs sf;

	if (known && dev == last_dev) {
		*type = last_type;
		return 0;
	}
	if (fstatfs(fd, &sf))
		return -errno;
	last_dev = dev;
	last_type = (long)sf.f_type;
	known = true;
	*type = last_type;
	return 0;
}

/* The trust of d's directory (d->fd); its id where the check fstat'ed it. */
static enum gp_root_trust dir_trust(struct gp_root_dir *d)
{
	struct stat st;
	long type = 0;

	d->has_id = false;
	d->nseen = 0;
	if (d->fd < 0 || fstat(d->fd, &st) || fs_type(d->fd, st.st_dev, &type))
		return GP_TRUST_NONE;
	if (type == SYSFS_MAGIC || type == PROC_SUPER_MAGIC)
		return GP_TRUST_KERNFS;
	if (!local_fs(type))
		return GP_TRUST_NONE;
	d->has_id = true;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	if ((st.st_uid && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return GP_TRUST_NONE;
	return GP_TRUST_LOCAL;
}

void gp_root_dir(int rootfd, const char *path, struct gp_root_dir *d)
{
	d->rootfd = rootfd;
	gp_strlcpy(d->path, path, sizeof(d->path));
	d->fd = open_in(rootfd, path, O_PATH | O_DIRECTORY);
	d->trust = dir_trust(d);
}

/*
 * parent's path/name.  On the live host name is looked up in parent's
 * directory, where the whole path leads too; under a root a link must
 * resolve inside it (RESOLVE_IN_ROOT from the root), so the whole path.
 */
void gp_root_dir_at(const struct gp_root_dir *parent, const char *name, struct gp_root_dir *d)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent->path, name) >= sizeof(path)) {
		d->rootfd = parent->rootfd;
		d->fd = -ENAMETOOLONG;
		d->trust = dir_trust(d);
		gp_strlcpy(d->path, path, sizeof(d->path));
		return;
	}
	if (parent->rootfd != AT_FDCWD || parent->fd < 0 || !plain_name(name)) {
		gp_root_dir(parent->rootfd, path, d);
		return;
	}
	d->rootfd = AT_FDCWD;
	gp_strlcpy(d->path, path, sizeof(d->path));
	d->fd = openat(parent->fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0)
		d->fd = -errno;
	d->trust = dir_trust(d);
}

void gp_root_dir_close(struct gp_root_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/*
 * fstatat(d, name) without following a link, or what gp_root_dir_note found
 * of name: in a GP_TRUST_LOCAL directory nobody else can make name another
 * entry, nor change an entry's type, so the type check stands.
 */
static int local_stat(const struct gp_root_dir *d, const char *name, struct stat *st)
{
	int i;

	for (i = 0; i < d->nseen; i++) {
		if (strcmp(d->seen[i].name, name))
			continue;
		if (d->seen[i].err)
			return d->seen[i].err;
		st->st_mode = d->seen[i].mode;
		st->st_size = d->seen[i].size;
		return 0;
	}
	return fstatat(d->fd, name, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/*
 * A name to read in a trusted directory (see the header): true when *fd is
 * the answer, false when the name takes the safe path (a link, or no trust).
 * *size: a regular file's size where fstatat told it (see read_upto), or -1.
 */
static bool open_trusted(const struct gp_root_dir *d, const char *name, int flags, int *fd,
			 off_t *size)
{
	struct stat st;

	*size = -1;
	if (d->fd < 0 || d->trust == GP_TRUST_NONE || !plain_name(name))
		return false;
	if (d->trust == GP_TRUST_LOCAL) {
		*fd = local_stat(d, name, &st);
		if (*fd)
			return true;
		if (S_ISLNK(st.st_mode))
			return false;
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			*fd = -EINVAL; /* a FIFO, a device, a socket: never opened */
			return true;
		}
		if (S_ISREG(st.st_mode))
			*size = st.st_size;
	}
	*fd = openat(d->fd, name, final_flags(flags) | O_NOFOLLOW | O_CLOEXEC);
	if (*fd >= 0)
		return true;
	*fd = -errno;
	return errno != ELOOP || (flags & O_NOFOLLOW); /* a link: resolved the safe way */
}

/* gp_root_dir_openat; *size as open_trusted's */
static int dir_open(const struct gp_root_dir *d, const char *name, int flags, off_t *size)
{
	int fd;

	*size = -1;
	if (for_reading(flags) && open_trusted(d, name, flags, &fd, size))
		return fd;
	if (for_reading(flags))
		return reopen(open_name(d, name, lookup_flags(flags)), flags);
	return checked(open_name(d, name, flags), flags);
}

int gp_root_dir_openat(const struct gp_root_dir *d, const char *name, int flags)
{
	off_t size;

	return dir_open(d, name, flags, &size);
}

ssize_t gp_root_dir_read(const struct gp_root_dir *d, const char *name, char *buf, size_t len)
{
	off_t size;
	int fd = dir_open(d, name, O_RDONLY, &size);

	return read_upto(fd, buf, len, size);
}

/* What gp_root_readlink says of a name that is no link: -EINVAL only for what it may not open. */
static int not_link(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? -ENOENT : -EINVAL;
}

/* The link itself is never followed: readlinkat on the name is the whole path's answer. */
ssize_t gp_root_dir_readlink(const struct gp_root_dir *d, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	if (d->fd < 0 || !plain_name(name)) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", d->path, name) >= sizeof(path))
			return -ENAMETOOLONG;
		return gp_root_readlink(d->rootfd, path, buf, len);
	}
	n = readlinkat(d->fd, name, buf, len - 1);
	if (n < 0 && errno == EINVAL)
		return not_link(d->fd, name);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* Following a link as the whole path would, inside the root. */
int gp_root_dir_stat(const struct gp_root_dir *d, const char *name, struct stat *st)
{
	char path[PATH_MAX];
	int flag = d->rootfd == AT_FDCWD ? 0 : AT_SYMLINK_NOFOLLOW;

	if (d->fd >= 0 && plain_name(name)) {
		if (fstatat(d->fd, name, st, flag))
			return -errno;
		if (!S_ISLNK(st->st_mode))
			return 0;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", d->path, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return gp_root_stat(d->rootfd, path, st);
}

/*
 * fstatat of a plain name in d, not following a link, for a check of d's
 * entries made before they are read (host/pci.c's guard of -r): in a
 * GP_TRUST_LOCAL directory the answer is kept, and the reader's own type
 * check of that name takes it instead of asking again.  A link is not kept
 * (it takes the safe path), nor anything once GP_ROOT_SEEN_MAX are.
 */
int gp_root_dir_note(struct gp_root_dir *d, const char *name, struct stat *st)
{
	struct gp_root_seen *s;
	int rc;

	if (d->fd < 0 || !plain_name(name))
		return -EINVAL;
	rc = fstatat(d->fd, name, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	if (d->trust != GP_TRUST_LOCAL || d->nseen >= GP_ROOT_SEEN_MAX ||
	    strlen(name) >= sizeof(s->name) || (!rc && S_ISLNK(st->st_mode)))
		return rc;
	s = &d->seen[d->nseen++];
	strcpy(s->name, name);
	s->err = rc;
	s->mode = rc ? 0 : st->st_mode;
	s->size = rc ? 0 : st->st_size;
	return rc;
}

/* The directory's st_dev and st_ino: the trust check's, or one fstat. */
int gp_root_dir_id(const struct gp_root_dir *d, dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (d->fd < 0)
		return -EBADF;
	if (!d->has_id) {
		if (fstat(d->fd, &st))
			return -errno;
		*dev = st.st_dev;
		*ino = st.st_ino;
		return 0;
	}
	*dev = d->dev;
	*ino = d->ino;
	return 0;
}

/*
 * For a library that opens root + path by itself (libpci, libkmod): the
 * kernel's plain resolution must end where the one inside the root does,
 * at a regular file or a directory.  Both finding nothing is fine too.
 * *fd: the plain resolution, left open when it is fine.
 */
static int guard_fd(int rootfd, const char *root, const char *path, int *fd)
{
	char full[PATH_MAX];
	struct stat a, b;
	int fa, fb, rc = 0;

	*fd = -1;
	if ((size_t)snprintf(full, sizeof(full), "%s%s", root, path) >= sizeof(full))
		return -ENAMETOOLONG;
	fa = open(full, O_PATH | O_CLOEXEC);
	fb = open_in(rootfd, path, O_PATH);
	if (fa < 0 && fb < 0)
		return 0;
	if (fa < 0 || fb < 0 || fstat(fa, &a) || fstat(fb, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		rc = -EXDEV;
	else if (!S_ISREG(a.st_mode) && !S_ISDIR(a.st_mode))
		rc = -EINVAL;
	if (fb >= 0)
		close(fb);
	if (!rc)
		*fd = fa;
	else if (fa >= 0)
		close(fa);
	return rc;
}

int gp_root_guard(int rootfd, const char *root, const char *path)
{
	int fd, rc;

	if (rootfd == AT_FDCWD)
		return 0;
	rc = guard_fd(rootfd, root, path, &fd);
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * dir/name; fd: where dir leads by both resolutions, or -1 when they differ.
 * In the same directory a name that is not a link ends at the same entry for
 * both: one fstatat instead of two resolutions of the whole path.
 */
static int guard_name(int rootfd, const char *root, int fd, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (fd >= 0 && !name[0])
		return 0; /* dir itself */
	if (fd >= 0 && plain_name(name)) {
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW))
			return 0; /* nothing there, for either */
		if (!S_ISLNK(st.st_mode))
			return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? 0 : -EINVAL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir, name[0] ? "/" : "", name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return gp_root_guard(rootfd, root, path);
}

/*
 * gp_root_guard of dir/NAME for each of names ("" is dir itself), dir
 * resolved once.  *bad: the index of the name refused.
 */
int gp_root_guard_dir(int rootfd, const char *root, const char *dir, const char *const *names,
		      int *bad)
{
	int fd, rc = 0, i;

	*bad = -1;
	if (rootfd == AT_FDCWD)
		return 0;
	if (guard_fd(rootfd, root, dir, &fd) == 0 && fd < 0)
		return 0; /* dir found by neither: nor anything in it */
	for (i = 0; !rc && names[i]; i++)
		rc = guard_name(rootfd, root, fd, dir, names[ *bad = i]);
	if (fd >= 0)
		close(fd);
	if (!rc)
		*bad = -1;
	return rc;
}

/*
 * The parent directory of path under dirfd, created as needed, following no
 * link at all: for writing into a directory of our own (the snapshot's
 * staging tree) that holds links copied from a hostile tree.
 */
int gp_root_mkparent(int dirfd, const char *path, const char **name)
{
	char comp[256];
	const char *p = path + strspn(path, "/");
	int cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC), next;

	if (cur < 0)
		return -errno;
	for (;;) {
		size_t n = strcspn(p, "/");
		const char *rest = p + n + strspn(p + n, "/");

		if (!n || n >= sizeof(comp) || !strncmp(p, ".", n) || !strncmp(p, "..", n))
			break;
		if (!*rest) {
			*name = p;
			return cur;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (mkdirat(cur, comp, 0755) && errno != EEXIST)
			break;
		next = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		if (next < 0)
			return -errno;
		cur = next;
		p = rest;
	}
	close(cur);
	return -EINVAL;
}

/* A whole file of the live host, or one the operator named. */
char *gp_read_file(const char *path)
{
	return gp_root_read_file(AT_FDCWD, path);
}

/*
 * ---- directories named by a link, found by its text ----
 * Under --root a device's directory is named by a link
 * ("../../../devices/pci0000:00/0000:00:01.1/.../0000:07:00.4"), and
 * RESOLVE_IN_ROOT walks its dozen components again for each of thousands
 * of devices, then again for each iommu_group link below.  Where the path
 * the link starts from has no link in it, and the text is only "../" steps
 * (never above the root) and plain names, the kernel's walk of it ends
 * where the text says: gp_root_lexical resolves it by hand.  The directory
 * above the target is then opened once with RESOLVE_NO_SYMLINKS (a link
 * anywhere on the way fails it, and the caller takes the safe path) and
 * kept; each device in it is one openat, O_NOFOLLOW.  Nothing is trusted
 * that the safe path would not also have found: both walks stay inside the
 * root, and a link on the way always falls back.
 */
#define PLAIN_SLOTS 512 /* open addressing: a big host has a few hundred such directories */
#define PLAIN_PROBE 16	/* slots tried before one is taken over (its descriptor closed) */

static struct plain_slot {
	int rootfd;
	int fd;
	char *path;
} plain_cache[PLAIN_SLOTS];

static void plain_forget(int rootfd)
{
	size_t i;

	for (i = 0; i < PLAIN_SLOTS; i++) {
		struct plain_slot *s = &plain_cache[i];

		if (!s->path || s->rootfd != rootfd)
			continue;
		close(s->fd);
		free(s->path);
		s->path = NULL;
	}
}

int gp_root_lexical(const char *base, const char *link, char *out, size_t len)
{
	size_t n;
	const char *p = link, *e;

	if (base[0] != '/' || link[0] == '/' || gp_strlcpy(out, base, len) >= len)
		return -EINVAL;
	n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	for (; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, '/');
		if (e == p || (e - p == 1 && p[0] == '.'))
			return -EINVAL; /* "//" or ".": not a form the kernel writes */
		if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			if (n <= 1)
				return -EINVAL; /* above the root: the safe path says */
			while (n > 0 && out[n - 1] != '/')
				n--;
			out[n > 1 ? --n : n] = '\0';
			continue;
		}
		if (n + 1 + (size_t)(e - p) >= len)
			return -ENAMETOOLONG;
		if (n > 1)
			out[n++] = '/';
		memcpy(out + n, p, (size_t)(e - p));
		n += (size_t)(e - p);
		out[n] = '\0';
	}
	return 0;
}

static unsigned plain_hash(int rootfd, const char *s, size_t len)
{
	unsigned h = 2166136261u ^ (unsigned)rootfd;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h % PLAIN_SLOTS;
}

/* The slot of path[0..len) under rootfd: its own, a free one, or one to take over. */
static struct plain_slot *plain_slot(int rootfd, const char *path, size_t len)
{
	unsigned h = plain_hash(rootfd, path, len), i;

	for (i = 0; i < PLAIN_PROBE; i++) {
		struct plain_slot *s = &plain_cache[(h + i) % PLAIN_SLOTS];

		if (!s->path ||
		    (s->rootfd == rootfd && !strncmp(s->path, path, len) && !s->path[len]))
			return s;
	}
	return &plain_cache[h];
}

/* The directory at path[0..len), link-free, opened once and kept. */
static int plain_dir(int rootfd, const char *path, size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct plain_slot *s = plain_slot(rootfd, path, len);
	char *copy;
	int fd;

	if (s->path && s->rootfd == rootfd && !strncmp(s->path, path, len) && !s->path[len])
		return s->fd;
	copy = strndup(path, len);
	if (!copy)
		return -ENOMEM;
	fd = (int)syscall(SYS_openat2, rootfd, copy, &how, sizeof(how));
	if (fd < 0) {
		free(copy);
		return -errno;
	}
	if (s->path) {
		close(s->fd);
		free(s->path);
	}
	*s = (struct plain_slot){ .rootfd = rootfd, .fd = fd, .path = copy };
	return fd;
}

/*
 * path (absolute in the root, link-free as gp_root_lexical makes it) opened
 * from the directory up levels above it, kept: one openat (up 1) or a short
 * RESOLVE_BENEATH walk.  -ENOSYS: not under a root, or no openat2; -ELOOP: a
 * link on the way.  Either way the caller takes the safe path.
 */
int gp_root_open_plain(int rootfd, const char *path, int up, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(final_flags(flags) | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *rest = path + strlen(path);
	int i, dfd, fd;

	if (rootfd == AT_FDCWD || gp_root_no_openat2 || path[0] != '/')
		return -ENOSYS;
	for (i = 0; i < up; i++) {
		if (rest == path)
			return -EINVAL; /* fewer names than up */
		while (rest > path && *--rest != '/')
			;
	}
	dfd = plain_dir(rootfd, rest == path ? "/" : path,
			rest == path ? 1 : (size_t)(rest - path));
	if (dfd < 0)
		return dfd;
	if (up == 1)
		fd = openat(dfd, rest + 1, final_flags(flags) | O_NOFOLLOW | O_CLOEXEC);
	else
		fd = (int)syscall(SYS_openat2, dfd, rest + 1, &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* fstatat of a link-free path's last name, not following it, from its kept directory. */
int gp_root_stat_plain(int rootfd, const char *path, struct stat *st)
{
	const char *name = strrchr(path, '/');
	int dfd;

	if (rootfd == AT_FDCWD || gp_root_no_openat2 || path[0] != '/')
		return -ENOSYS;
	dfd = plain_dir(rootfd, name == path ? "/" : path,
			name == path ? 1 : (size_t)(name - path));
	if (dfd < 0)
		return dfd;
	return fstatat(dfd, name + 1, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/*
 * gp_root_dir_at(parent, name, d) for a name that is a link, its text read
 * by the caller: where parent's path holds no link (plain) and the text
 * resolves by hand, the target is opened from the kept directory up levels
 * above it, and real is the target's own path (for a link below it); else
 * the safe path, and real is "".  d's path is parent/name either way.
 */
void gp_root_dir_at_link(const struct gp_root_dir *parent, bool plain, const char *name,
			 const char *link, int up, struct gp_root_dir *d, char *real, size_t len)
{
	int fd = -1;

	real[0] = '\0';
	if (plain && link[0] && !gp_root_lexical(parent->path, link, real, len))
		fd = gp_root_open_plain(parent->rootfd, real, up, O_PATH | O_DIRECTORY);
	if (fd < 0) {
		real[0] = '\0';
		gp_root_dir_at(parent, name, d);
		return;
	}
	d->rootfd = parent->rootfd;
	snprintf(d->path, sizeof(d->path), "%s/%s", parent->path, name);
	d->fd = fd;
	d->trust = dir_trust(d);
}

/* Whether d's path under its root holds no link (a link's text from it resolves by hand). */
bool gp_root_dir_plain(const struct gp_root_dir *d)
{
	int fd = gp_root_open_plain(d->rootfd, d->path, 1, O_PATH | O_DIRECTORY);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}
