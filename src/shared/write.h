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

int gp_write_file(const char *path, const void *data, size_t len, mode_t mode);
/* Every byte to fd (short writes retried); 0 or the -errno that stopped it. */
int gp_write_all(int fd, const char *p, size_t len);
int gp_write_file_attrs(const char *path, const void *data, size_t len,
			const struct gp_file_attrs *a);
int gp_write_link(const char *path, const char *target, const struct gp_file_attrs *a);

#endif
