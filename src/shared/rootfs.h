/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one safe reader (rootfs.c). */
#ifndef GP_ROOTFS_H
#define GP_ROOTFS_H

#include <dirent.h>
#include <fcntl.h> /* AT_FDCWD */
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * rootfd: gp_root_open(ROOT), or AT_FDCWD for the live host and for files
 * named by the operator (profile, templates).  Under a root, links resolve
 * inside it; only regular files and directories are read; reads are bounded.
 * All return 0, a length or an fd, or a negative errno: -EINVAL for a FIFO,
 * a device or a socket, -EXDEV for a library path leading out of the root.
 */
#define GP_READ_MAX (8u << 20)	/* bytes, for a whole file read into memory */
extern bool gp_root_no_openat2; /* tests: take the userspace walk */
int gp_root_open(const char *root);
void gp_root_close(int rootfd);
const char *gp_root_strerror(int rc);
int gp_root_openat(int rootfd, const char *path, int flags);
ssize_t gp_root_read(int rootfd, const char *path, char *buf, size_t len);
ssize_t gp_root_slurp(int rootfd, const char *path, size_t max, char **out);
ssize_t gp_root_slurp_stat(int rootfd, const char *path, size_t max, char **out, struct stat *st);
char *gp_root_read_file(int rootfd, const char *path);
char *gp_read_file(const char *path);
ssize_t gp_root_readlink(int rootfd, const char *path, char *buf, size_t len);
DIR *gp_root_opendir(int rootfd, const char *path);
int gp_root_stat(int rootfd, const char *path, struct stat *st);
int gp_root_guard(int rootfd, const char *root, const char *path);
int gp_root_guard_dir(int rootfd, const char *root, const char *dir, const char *const *names,
		      int *bad);

/*
 * trust: whether nobody but root can change which entries the directory
 * holds (rootfs.c says why that makes one lookup per read enough).
 */
enum gp_root_trust {
	GP_TRUST_NONE,	/* every read takes the O_PATH lookup and the reopen */
	GP_TRUST_LOCAL, /* a local filesystem; only root (or our own uid) may write the directory */
	GP_TRUST_KERNFS, /* sysfs or procfs: no device node, FIFO or socket exists */
};

/*
 * A directory under the root opened once, for reading names in it with one
 * lookup each: the same answers as the whole path dir/NAME gives the
 * functions above.  fd is -1 when dir did not open (then each read takes the
 * whole path and fails as it does).  trust: see gp_root_trust.
 */
/*
 * seen: what gp_root_dir_note's fstatat found of a name, kept where trust is
 * GP_TRUST_LOCAL (nobody else can change which entry the name is, nor a
 * file's type): the reader's type check of that name is then already done.
 * id: the directory's st_dev/st_ino where its trust check fstat'ed it.
 */
#define GP_ROOT_SEEN_MAX 8
struct gp_root_seen {
	char name[16];
	int err; /* fstatat's -errno, or 0 */
	mode_t mode;
	off_t size;
};

struct gp_root_dir {
	int rootfd;
	int fd;
	enum gp_root_trust trust;
	bool has_id;
	dev_t dev;
	ino_t ino;
	int nseen;
	struct gp_root_seen seen[GP_ROOT_SEEN_MAX];
	char path[PATH_MAX];
};
void gp_root_dir(int rootfd, const char *path, struct gp_root_dir *d);
void gp_root_dir_at(const struct gp_root_dir *parent, const char *name, struct gp_root_dir *d);
void gp_root_dir_close(struct gp_root_dir *d);
int gp_root_dir_openat(const struct gp_root_dir *d, const char *name, int flags);
ssize_t gp_root_dir_read(const struct gp_root_dir *d, const char *name, char *buf, size_t len);
ssize_t gp_root_dir_readlink(const struct gp_root_dir *d, const char *name, char *buf, size_t len);
int gp_root_dir_stat(const struct gp_root_dir *d, const char *name, struct stat *st);
int gp_root_dir_note(struct gp_root_dir *d, const char *name, struct stat *st);
int gp_root_dir_id(const struct gp_root_dir *d, dev_t *dev, ino_t *ino);
int gp_root_mkparent(int dirfd, const char *path, const char **name);

/*
 * A link's target found by its text, where the text and the path it starts
 * from hold no link (rootfs.c says when that is the kernel's answer):
 * gp_root_lexical writes base/link resolved by hand into out (-EINVAL: a
 * form it does not take); gp_root_open_plain opens such a path from its
 * directory up levels above, kept open until gp_root_close; gp_root_stat_plain
 * fstatat's its last name.  Any failure: take the safe path.
 */
int gp_root_lexical(const char *base, const char *link, char *out, size_t len);
int gp_root_open_plain(int rootfd, const char *path, int up, int flags);
int gp_root_stat_plain(int rootfd, const char *path, struct stat *st);
void gp_root_dir_at_link(const struct gp_root_dir *parent, bool plain, const char *name,
			 const char *link, int up, struct gp_root_dir *d, char *real, size_t len);
bool gp_root_dir_plain(const struct gp_root_dir *d);

#endif
