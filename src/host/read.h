/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside host/: reading under the root (the helpers every reader uses) and
 * the readers gp_host_load() runs, one file per concern.
 */
#ifndef GP_HOST_READ_H
#define GP_HOST_READ_H

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/model.h"

#define PATH_LEN 4096

/*
 * ---- paths under the root ----
 * Paths are formatted as on the host ("/sys/..."); the safe reader (rootfs.c)
 * opens them under h->rootfd, links resolved inside the root.
 */

/* The path fmt formats, in buf (PATH_LEN bytes): "" when too long, a path nothing opens. */
const char *gp_rootp(const struct gp_host *h, char *buf, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reads a small file whole; returns its length or -errno.  Trailing newline cut. */
static inline ssize_t read_text(const struct gp_host *h, const char *path, char *buf, size_t len)
{
	ssize_t n = gp_root_read(h->rootfd, path, buf, len);

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

/* read_text of a name in a directory opened once (gp_root_dir): one lookup, not the whole path */
static inline ssize_t read_text_at(const struct gp_root_dir *dir, const char *name, char *buf,
				   size_t len)
{
	ssize_t n = gp_root_dir_read(dir, name, buf, len);

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

static inline ssize_t read_link(const struct gp_host *h, const char *path, char *buf, size_t len)
{
	return gp_root_readlink(h->rootfd, path, buf, len);
}

static inline char *read_file(const struct gp_host *h, const char *path)
{
	return gp_root_read_file(h->rootfd, path);
}

static inline DIR *open_dir(const struct gp_host *h, const char *path)
{
	return gp_root_opendir(h->rootfd, path);
}

static inline bool exists(const struct gp_host *h, const char *path)
{
	struct stat st;

	return !gp_root_stat(h->rootfd, path, &st);
}

static inline const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static inline bool is_bdf(const char *s, size_t len)
{
	unsigned d, b, dv, f;
	int n = 0;

	if (len == 12 && gp_bdf_canonical(s, &d, &b, &dv, &f))
		return true; /* the common case, without sscanf */
	return len >= 12 && sscanf(s, "%x:%x:%x.%u%n", &d, &b, &dv, &f, &n) == 4 &&
	       (size_t)n == len;
}

/*
 * dpkg's status, a line at a time, to fn (state: 0 before the first line,
 * fn's own afterwards).  0, or -errno: no status, or one too large or
 * unreadable, whose lines told so far are to be forgotten.
 */
typedef void (*gp_dpkg_fn)(void *ctx, const char *line, int *state);
int gp_read_dpkg(const struct gp_host *h, gp_dpkg_fn fn, void *ctx);

/* fabric.c: NVIDIA Fabric Manager's unit, config and versions (with an NVSwitch) */
void gp_read_fabric(struct gp_host *h, const struct gp_profile *p);

/* pci.c: the PCI functions, through libpci (0, or -errno after gp_err) */
int gp_read_pci(struct gp_host *h, const struct gp_profile *p);
/* kernel.c */
void gp_read_numa(struct gp_host *h);
void gp_read_kernel(struct gp_host *h);
void gp_read_vfio_module(struct gp_host *h); /* after gp_read_kernel: its release */
/* bind.c: of the devices in a GPU's group */
void gp_read_binding(struct gp_host *h);
/* users.c: disks, swap, framebuffers, the console */
void gp_read_host_use(struct gp_host *h);
/* vmenv.c: KVM and QEMU */
void gp_read_vm_env(struct gp_host *h, const struct gp_profile *p);
/* net.c */
void gp_read_ifaces(struct gp_host *h);
void gp_read_net_use(struct gp_host *h);
void gp_read_net_owner(struct gp_host *h, const struct gp_profile *p);
void gp_read_networkd(struct gp_host *h);
/* proc.c */
void gp_read_holders(struct gp_host *h);
/* boot.c: the next boot's kernel and command line (before libkmod), then what claims each device */
void gp_read_boot_kernel(struct gp_host *h);
void gp_read_boot(struct gp_host *h);
/* AER counters of the GPUs and their ports (health.c) */
void gp_read_health(struct gp_host *h);

#endif
