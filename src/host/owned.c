// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What gpuprov wrote before, as the host has it now: the files persist.vfio,
 * persist.bond, domain.write, nccl.write, guest.write and hugepages.reserve
 * own, the persisted
 * overrides, and the domain libvirt holds under the profile's name.  Where
 * they are depends on the profile, so the plan pipeline (check, plan, apply,
 * report) reads them, after gp_host_load, which reads the machine.  Each file
 * is kept whole in h->owned (plan --diff, the report) and read once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/guestcfg.h"
#include "core/hostq.h"
#include "core/hugepages.h"
#include "core/manifest.h"
#include "core/nccl_topo.h"
#include "core/netconf.h"
#include "core/plan.h"
#include "host/owned.h"
#include "host/read.h"
#include "sys/virt.h"

/*
 * A path a profile names (say [vm] output = /etc/shadow) must not print a
 * file only root may read.  Decided from the descriptor that was read: a
 * second open of the path could find another file (a link swapped in a
 * directory a user owns).
 */
static bool owned_public(const struct stat *st)
{
	return st->st_uid == 0 && (st->st_mode & S_IROTH);
}

/*
 * A file gpuprov may write, read whole and kept as it is (h->owned), so that
 * plan --diff and the report show what would change without reading the host
 * again; returns a copy for the fields the checks and the plan compare.
 */
static char *read_owned(struct gp_host *h, const char *path)
{
	struct gp_owned *o;
	struct stat st;
	ssize_t n;
	size_t i;

	for (i = 0; i < h->nowned; i++)
		if (!strcmp(h->owned[i].path, path))
			return h->owned[i].text ? gp_xstrdup(h->owned[i].text) : NULL;
	h->owned = gp_xrealloc(h->owned, h->nowned + 1, sizeof(*h->owned));
	o = &h->owned[h->nowned++];
	memset(o, 0, sizeof(*o));
	gp_strlcpy(o->path, path, sizeof(o->path));
	n = gp_root_slurp_stat(h->rootfd, path, GP_READ_MAX, &o->text, &st);
	if (n < 0 && n != -ENOENT)
		o->err = (int)n;
	o->private = o->text && !owned_public(&st);
	o->readable = o->text && (st.st_mode & S_IROTH);
	return o->text ? gp_xstrdup(o->text) : NULL;
}

/* A link gpuprov may make, kept in h->owned with its target as its text. */
static void read_owned_link(struct gp_host *h, const char *path)
{
	char target[PATH_LEN];
	struct gp_owned *o;
	ssize_t n = read_link(h, path, target, sizeof(target));

	h->owned = gp_xrealloc(h->owned, h->nowned + 1, sizeof(*h->owned));
	o = &h->owned[h->nowned++];
	memset(o, 0, sizeof(*o));
	gp_strlcpy(o->path, path, sizeof(o->path));
	o->link = true;
	if (n > 0 && (size_t)n + 1 < sizeof(target)) /* not cut at the buffer's end */
		o->text = gp_xstrdup(target);
	else if (n < 0 && n != -ENOENT)
		o->err = (int)n;
}

/* hugepages.reserve's files: each node's count, the boot unit's script, unit and link. */
static void read_huge_files(struct gp_host *h, const struct gp_profile *p)
{
	char path[PATH_LEN];
	struct dirent *e;
	unsigned kb;
	int node;
	DIR *d;

	if (!p || !p->has_vm || !p->vm.hugepages)
		return;
	d = open_dir(h, gp_rootp(h, path, GP_HUGE_DIR));
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), GP_HUGE_DIR "/%s", e->d_name);
		if (!gp_hugepages_file_parse(path, &node, &kb))
			free(read_owned(h, path));
	}
	if (d)
		closedir(d);
	free(read_owned(h, GP_HUGE_SCRIPT));
	free(read_owned(h, GP_HUGE_UNIT));
	read_owned_link(h, GP_HUGE_WANTS);
}

/* Persistent overrides: one file per device, named by address, holding a driver. */
static void read_overrides(struct gp_host *h, const char *dir, const char *prefix)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d = open_dir(h, gp_rootp(h, path, "%s", dir));
	size_t plen = strlen(prefix);

	if (!d)
		return;
	while ((e = readdir(d)) && h->noverrides < GP_MAX_OVERRIDES) {
		struct gp_override *o = &h->overrides[h->noverrides];

		char *text;

		if (strncmp(e->d_name, prefix, plen) || gp_parse_bdf(e->d_name + plen, o->bdf))
			continue;
		text = read_owned(h, gp_rootp(h, path, "%s/%s", dir, e->d_name));
		if (!text)
			continue;
		gp_strlcpy(o->driver, gp_trim(text), sizeof(o->driver));
		o->driverctl = plen != 0;
		free(text);
		h->noverrides++;
	}
	closedir(d);
}

/* The other files persist.bond writes (the ports' files), as they are. */
static void read_bond_files(struct gp_host *h, const struct gp_profile *p)
{
	struct gp_netconf nc;
	char first[300];
	int i;

	if (!p || !p->has_bond)
		return;
	h->bond_persisted = read_owned(h, gp_bond_persist_path(p, h, first, sizeof(first)));
	if (!gp_netconf_quiet(h, p, &nc))
		for (i = 0; i < nc.n; i++)
			free(read_owned(h, nc.files[i].path));
	gp_netconf_release(&nc);
}

/* Under -r, a running domain of libvirt's QEMU driver leaves its PID file. */
static int running_in_tree(const struct gp_host *h, const char *name)
{
	char path[PATH_LEN];

	if (!exists(h, gp_rootp(h, path, GP_LIBVIRT_QEMU_RUN)))
		return -1;
	return exists(h, gp_rootp(h, path, GP_LIBVIRT_QEMU_RUN "/%s.pid", name));
}

/* guest.write's files, kept in h->owned: the plan compares them. */
static void read_guest_files(struct gp_host *h, const struct gp_profile *p)
{
	char dir[GP_OUTPUT_LEN], path[PATH_LEN];
	int i;

	if (!gp_nic_to_vm(p))
		return;
	gp_guest_dir(p->vm.output, dir, sizeof(dir));
	for (i = 0; i < GP_GUEST_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, gp_guest_file_names[i]);
		free(read_owned(h, path));
	}
}

/* The VM's XML and NCCL's file where the profile puts them; libvirt's domain of its name. */
static void read_vm(struct gp_host *h, const struct gp_profile *p)
{
	char nccl[PATH_LEN];
	int rc;

	if (!p || !p->has_vm)
		return;
	h->vm_xml = read_owned(h, p->vm.output);
	gp_nccl_topo_path(p->vm.output, nccl, sizeof(nccl));
	h->nccl_xml = read_owned(h, nccl);
	read_guest_files(h, p);
	/* libvirt answers for the live host only, not for a tree under --root */
	if (!h->root[0] && p->vm.define) {
		rc = gp_virt_digest(p->vm.uri, p->vm.name, h->vm_digest, sizeof(h->vm_digest),
				    &h->vm_running, h->libvirt_error, sizeof(h->libvirt_error));
		h->vm_defined = rc < 0 ? -1 : rc;
		h->libvirt_refused = rc == -2;
	} else if (h->root[0])
		h->vm_running = running_in_tree(h, p->vm.name);
}

/* Whether /etc/gpuprov is there (apply makes it): 1 a directory, 0 absent, -1 cannot tell. */
static int etc_dir(const struct gp_host *h)
{
	struct stat st;
	int rc = gp_root_stat(h->rootfd, GP_ETC_DIR, &st);

	if (rc == -ENOENT)
		return 0;
	return rc ? -1 : S_ISDIR(st.st_mode) ? 1 : -1;
}

int gp_host_read_owned(struct gp_host *h, const struct gp_profile *p)
{
	int i;

	h->rootfd = gp_root_open(h->root);
	if (h->rootfd < 0 && h->rootfd != AT_FDCWD) {
		int rc = h->rootfd;

		gp_err("cannot read host state: '%s': %s", h->root, gp_root_strerror(rc));
		h->rootfd = -1;
		return rc;
	}
	h->etc_gpuprov = etc_dir(h);
	for (i = 0; i < GP_PERSIST_FILES; i++)
		h->persist[i] = read_owned(h, gp_persist_paths[i]);
	read_overrides(h, GP_OVERRIDE_DIR, "");
	read_overrides(h, GP_DRIVERCTL_DIR, "pci-");
	read_vm(h, p);
	read_bond_files(h, p);
	read_huge_files(h, p);
	gp_root_close(h->rootfd);
	h->rootfd = -1;
	return 0;
}
