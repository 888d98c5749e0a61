/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trust in what root acts on (trust.c). */
#ifndef GP_TRUST_H
#define GP_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/vfs.h>

enum gp_trust_kind {
	GP_TRUST_FILE,	  /* a regular file */
	GP_TRUST_DIR,	  /* a directory (not what is in it) */
	GP_TRUST_TREE,	  /* the directory path leads to and all in it, sticky or not */
	GP_TRUST_LIBVIRT, /* a tree that is libvirt's embedded root (its run/qemu/dbus is 0770) */
};
/*
 * 0 when only root can change what path names (a tree: what it leads to,
 * and all in it); else -EPERM or -errno, after gp_err().
 */
int gp_trust(const char *path, enum gp_trust_kind kind);
/* gp_trust of the directory path will be written into (or the nearest that exists) */
int gp_trust_parent(const char *path);
/*
 * A path under a --root tree that a library opens by itself (libpci,
 * libkmod): path, or with entries set, path and each of its entries whose
 * name starts with entries ("" for all), then /name in it when name is set.
 */
struct gp_lib_path {
	char path[320];
	const char *entries;
	const char *name;
};
/*
 * Run as root: the way to root, root and everything the kernel passes
 * resolving ROOT/PATH for each of paths is root's and writable by nobody
 * else, and no device node, FIFO or socket; else -EPERM after gp_err().
 */
int gp_trust_lib_paths(const char *root, const struct gp_lib_path *paths, size_t n);
/* Whether a filesystem (statfs f_type) is one whose owners and modes mean nothing (FUSE). */
bool gp_trust_fs_foreign(unsigned long f_type);
/*
 * statfs as both walks call it for each entry (not a link) they pass: the
 * unit test sets another to put an entry "on FUSE", as no FUSE filesystem
 * can be mounted where the tests run.
 */
extern int (*gp_trust_statfs)(const char *path, struct statfs *sf);

#endif
