// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host discovery: the only code that reads the machine.  Every path goes
 * through the root prefix, so the same code reads a live host, a snapshot or
 * a fixture tree.  This file runs the readers in order, one file per concern:
 * pci.c (libpci and its guards), kernel.c (NUMA nodes, the kernel, the CPU,
 * vfio-pci), net.c (interfaces), proc.c (holders of GPU nodes), bind.c (what
 * binding needs), users.c (what the host holds on a device), vmenv.c (KVM,
 * QEMU, the VM's files), nvread.c (NVLink).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hostq.h"
#include "core/model.h"
#include "host/host.h"
#include "host/nvread.h"
#include "host/read.h"
#include "sys/kmod.h"

/* ---- the whole host ---- */

/*
 * A -r directory without sys/bus/pci/devices is not a snapshot or root tree;
 * where one directory inside it is (the folder a snapshot was unpacked
 * into, named one level too high), the message names that one.
 */
static void not_a_tree(const struct gp_host *h)
{
	char one[256] = "";
	int n = 0, dfd = openat(h->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	while (dir && n < 2 && (e = readdir(dir))) {
		char rel[300];
		int fd;

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		snprintf(rel, sizeof(rel), "/%s/sys/bus/pci/devices", e->d_name);
		fd = gp_root_openat(h->rootfd, rel, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			continue;
		close(fd);
		if (!n++)
			gp_strlcpy(one, e->d_name, sizeof(one));
	}
	if (dir)
		closedir(dir);
	else if (dfd >= 0)
		close(dfd);
	if (n == 1)
		gp_err("cannot read host state: '%s' is not a snapshot or root tree (it has no "
		       "sys/bus/pci/devices); '%s/%s' is one: name that",
		       h->root, h->root, one);
	else
		gp_err("cannot read host state: '%s' is not a snapshot or root tree (it has no "
		       "sys/bus/pci/devices)",
		       h->root);
}

/*
 * NVML starts the driver's state for every GPU it opens (seconds without
 * persistence mode): ask it only when a GPU is on the nvidia driver.
 */
static void read_nvlink(struct gp_host *h)
{
	size_t i;

	for (i = 0; i < h->ndevs; i++)
		if (gp_dev_is_gpu(&h->devs[i]) && !strcmp(h->devs[i].driver, "nvidia"))
			break;
	gp_host_nv_read(h->rootfd, !h->root[0], i < h->ndevs, &h->nv);
}

int gp_host_load(const char *root, const struct gp_profile *p, struct gp_host *h)
{
	return gp_host_load_part(root, p, GP_HOST_ALL, h);
}

/* What check, plan and apply weigh besides the topology. */
static void read_use(struct gp_host *h, const struct gp_profile *p)
{
	gp_read_vfio_module(h);
	gp_read_net_use(h);
	gp_read_holders(h);
	gp_read_binding(h);
	gp_read_fabric(h, p);
	gp_read_health(h);
	gp_read_boot(h); /* after binding: the vfio driver each device leads to */
	gp_read_host_use(h);
	gp_read_vm_env(h, p);
	gp_read_net_owner(h, p);
	gp_read_networkd(h);
}

/*
 * libpci and libkmod open their paths under --root by themselves, after
 * gp_root_guard saw where they lead: run as root, whoever else could change
 * one of them could swap a FIFO or a link in between.  So those paths, and
 * only those (the safe reader needs no such promise), must be ones only root
 * can change.  libpci's for pci_scan_bus and pci_fill_info(PCI_FILL_PHYS_SLOT)
 * (lib/sysfs.c since 3.8: the devices listing, whose entries it does not
 * follow, and each slot's address); libkmod's: gp_kmod_lib_paths.
 */
static const struct gp_lib_path libpci_paths[] = {
	{ "/sys/bus/pci/devices", NULL, NULL },
	{ "/sys/bus/pci/slots", "", "address" },
};

static int owned_lib_paths(const struct gp_host *h, const struct gp_lib_path *paths, size_t n)
{
	if (h->rootfd < 0 || geteuid() != 0)
		return 0;
	return gp_trust_lib_paths(h->root, paths, n);
}

/* After gp_read_kernel: the releases libkmod will be given are the ones walked. */
static int owned_libkmod(const struct gp_host *h)
{
	struct gp_lib_path paths[GP_KMOD_LIB_PATHS];
	int rc = owned_lib_paths(h, paths, gp_kmod_lib_paths(h->kernel_release, paths));

	if (rc || !strcmp(h->boot_release, h->kernel_release))
		return rc;
	return owned_lib_paths(h, paths, gp_kmod_lib_paths(h->boot_release, paths));
}

int gp_host_load_part(const char *root, const struct gp_profile *p, enum gp_host_part part,
		      struct gp_host *h)
{
	char path[PATH_LEN];
	int rc = 0, fd;

	memset(h, 0, sizeof(*h));
	h->etc_gpuprov = -1; /* read with what gpuprov wrote (owned.c) */
	/* "/" and "" both mean the live host; a trailing slash is dropped */
	h->root = gp_xstrdup(root && strcmp(root, "/") ? root : "");
	if (h->root[0] && h->root[strlen(h->root) - 1] == '/')
		h->root[strlen(h->root) - 1] = '\0';
	h->rootfd = gp_root_open(h->root);
	if (h->rootfd >= 0 && owned_lib_paths(h, libpci_paths, ARRAY_SIZE(libpci_paths))) {
		gp_root_close(h->rootfd);
		h->rootfd = -1;
		rc = -EPERM;
		goto fail;
	}
	if (h->rootfd == -ENOTDIR) {
		gp_err("cannot read host state: '%s' is a file, not a directory: a snapshot "
		       "(gpuprov snapshot -o FILE.tar.gz) is unpacked first: mkdir DIR && tar xzf "
		       "'%s' -C DIR, then name DIR",
		       h->root, h->root);
		h->rootfd = -1;
		rc = -ENOTDIR;
		goto fail;
	}
	if (h->rootfd == -ENOENT)
		h->rootfd = -1; /* reported below, with the path that is missing */
	else if (h->rootfd < 0 && h->rootfd != AT_FDCWD)
		goto bad_root;
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", h->root);
	fd = h->rootfd == -1
		     ? -ENOENT
		     : gp_root_openat(h->rootfd, "/sys/bus/pci/devices", O_RDONLY | O_DIRECTORY);
	if (fd == -ENOENT && h->rootfd >= 0) {
		not_a_tree(h);
		goto fail;
	}
	if (fd < 0) {
		gp_err("cannot read host state: '%s': %s", path, gp_root_strerror(fd));
		goto fail;
	}
	close(fd);
	rc = gp_read_pci(h, p);
	if (rc)
		goto fail;
	gp_read_numa(h);
	gp_read_ifaces(h);
	gp_read_kernel(h);
	if (part == GP_HOST_ALL)
		gp_read_boot_kernel(h);
	if (part == GP_HOST_ALL && owned_libkmod(h)) {
		rc = -EPERM;
		goto fail;
	}
	if (part == GP_HOST_ALL)
		read_use(h, p);
	read_nvlink(h);
	gp_host_vrec_read(h->rootfd, !h->root[0], &h->vrec);
	gp_root_close(h->rootfd);
	h->rootfd = -1; /* everything is read: the struct is all there is */
	return 0;
bad_root:
	gp_err("cannot read host state: '%s': %s", h->root, gp_root_strerror(h->rootfd));
	rc = -ENOENT;
fail:
	gp_root_close(h->rootfd);
	gp_host_release(h);
	return rc ? rc : -ENOENT;
}

void gp_host_release(struct gp_host *h)
{
	size_t i;

	gp_nv_view_release(&h->nv);
	for (i = 0; i < GP_PERSIST_FILES; i++)
		free(h->persist[i]);
	free(h->vm_xml);
	free(h->nccl_xml);
	free(h->bond_persisted);
	for (i = 0; i < h->nowned; i++)
		free(h->owned[i].text);
	free(h->owned);
	free(h->netfiles);
	free(h->boot_devs);
	free(h->root);
	free(h->devs);
	gp_pool_release(&h->strs);
	free(h->numa);
	free(h->cpu_core);
	free(h->ifaces);
	free(h->holders);
	free(h->blocks);
	free(h->fbs);
	free(h->mounts);
	memset(h, 0, sizeof(*h));
}
