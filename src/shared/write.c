// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one writer of gpuprov's files: journals, persistent configuration, the
 * VM's XML, -o outputs, and the files undo puts back.  A file is replaced
 * whole or not at all: a fresh temp file beside it (O_CREAT|O_EXCL|O_NOFOLLOW,
 * so nothing planted at its name is followed or reused), every byte written
 * (a short write is retried, the error that stops it is returned), owner,
 * mode and extended attributes set on the descriptor, fsync, rename over the
 * target, fsync of the directory.  On every failure the temp file goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/util.h"
#include "shared/write.h"

/* The directory of path, opened, and path's last component in base. */
static int open_parent(const char *path, char *base, size_t len)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!*path || (slash && !slash[1]))
		return -EISDIR;
	if (!slash) {
		gp_strlcpy(dir, ".", sizeof(dir));
		slash = path - 1;
	} else if (slash == path) {
		gp_strlcpy(dir, "/", sizeof(dir));
	} else if ((size_t)(slash - path) >= sizeof(dir)) {
		return -ENAMETOOLONG;
	} else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	if (gp_strlcpy(base, slash + 1, len) >= len)
		return -ENAMETOOLONG;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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

int gp_write_file_attrs(const char *path, const void *data, size_t len,
			const struct gp_file_attrs *a)
{
	char base[256], tmp[300];
	int dfd, fd = -1, rc, tries;

	dfd = open_parent(path, base, sizeof(base));
	if (dfd < 0)
		return dfd;
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
	if (fd >= 0) {
		rc = fill(fd, data, len, a);
		rc = rc ? rc : commit(dfd, tmp, base);
		if (rc)
			unlinkat(dfd, tmp, 0);
	}
	close(dfd);
	return rc;
}

int gp_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	struct gp_file_attrs a = { .mode = mode };

	return gp_write_file_attrs(path, data, len, &a);
}

/* A symbolic link, put in place the same way (owner and xattrs on the link itself). */
int gp_write_link(const char *path, const char *target, const struct gp_file_attrs *a)
{
	char base[256], tmp[300];
	int dfd, rc = -EEXIST, tries;
	size_t i;

	dfd = open_parent(path, base, sizeof(base));
	if (dfd < 0)
		return dfd;
	for (tries = 0; rc == -EEXIST && tries < 16; tries++) {
		rc = temp_name(tmp, sizeof(tmp), base);
		if (!rc && symlinkat(target, dfd, tmp))
			rc = -errno;
	}
	if (!rc && a && a->owner && fchownat(dfd, tmp, a->uid, a->gid, AT_SYMLINK_NOFOLLOW))
		rc = -errno;
	for (i = 0; !rc && a && i < a->nxattrs; i++) {
		char full[4400];
		const char *slash = strrchr(path, '/');

		/* no fd for a link: its name, tmp beside path */
		snprintf(full, sizeof(full), "%.*s%s", slash ? (int)(slash - path + 1) : 0, path,
			 tmp);
		if (lsetxattr(full, a->xattrs[i].name, a->xattrs[i].value, a->xattrs[i].len, 0))
			rc = -errno;
	}
	if (!rc)
		rc = commit(dfd, tmp, base);
	else if (rc != -EEXIST)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}
