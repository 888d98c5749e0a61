/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one writer of files (write.c): whole file or nothing, synced. */
#ifndef GP_WRITE_H
#define GP_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct gp_xattr {
	char name[256];
	char *value;
	size_t len;
};

struct gp_file_attrs {
	mode_t mode; /* permission bits, setuid/setgid/sticky included */
	bool owner;  /* set uid and gid too (else the writer's) */
	uid_t uid;
	gid_t gid;
	const struct gp_xattr *xattrs;
	size_t nxattrs;
};

/*
 * Each writes into the directory of path as gp_write_dir_open reaches it:
 * 0, or -errno (-EPERM with a reason for gp_write_strerror).
 */
int gp_write_file(const char *path, const void *data, size_t len, mode_t mode);
/* Every byte to fd (short writes retried); 0 or the -errno that stopped it. */
int gp_write_all(int fd, const char *p, size_t len);
int gp_write_file_attrs(const char *path, const void *data, size_t len,
			const struct gp_file_attrs *a);
int gp_write_link(const char *path, const char *target, const struct gp_file_attrs *a);
/*
 * The directory path goes into, opened one name at a time from '/' (or the
 * working directory) without following a link that is not root's (or the
 * caller's); missing directories are made (0755), and every directory on the
 * way must be root's (or the caller's) and writable by nobody else, unless
 * sticky.  Its descriptor, path's last name in base; or -errno.
 */
int gp_write_dir_open(const char *path, char *base, size_t len);
/* data as base in the directory dfd, as gp_write_file_attrs writes it */
int gp_write_at(int dfd, const char *base, const void *data, size_t len,
		const struct gp_file_attrs *a);
/* The directory path, made with mode when missing (its parents 0755), as above. */
int gp_write_mkdir(const char *path, mode_t mode);
/* The reason a writer refused (-EPERM), else strerror(-rc). */
const char *gp_write_strerror(int rc);

#endif
