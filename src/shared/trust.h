/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trust in what root acts on (trust.c). */
#ifndef GP_TRUST_H
#define GP_TRUST_H

enum gp_trust_kind {
	GP_TRUST_FILE, /* a regular file */
	GP_TRUST_DIR,  /* a directory (not what is in it) */
	GP_TRUST_TREE, /* a directory and everything below it */
};
/* 0 when only root can change what path names; else -EPERM or -errno, after gp_err(). */
int gp_trust(const char *path, enum gp_trust_kind kind);
/* gp_trust of the directory path will be written into (or the nearest that exists) */
int gp_trust_parent(const char *path);
/* every entry of the tree root's and writable by nobody else (a --root read as root) */
int gp_trust_owned_tree(const char *path);

#endif
