/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.c: the machine as the reader finds it under root; what gpuprov wrote: owned.h. */
#ifndef GP_HOST_H
#define GP_HOST_H

#include "core/model.h"

int gp_host_load(const char *root, const struct gp_profile *p, struct gp_host *host);
/*
 * All of the machine, or only what scan and topo show (GP_HOST_TOPOLOGY:
 * the PCI functions, NUMA nodes, interfaces, kernel facts, NVLink); not the
 * vfio module, sockets, processes, bindings, disks, VM state and network
 * owners that check, plan and apply weigh: on a live host QEMU's version
 * alone runs a program.  What is not read stays as a host without it.
 */
enum gp_host_part {
	GP_HOST_ALL,
	GP_HOST_TOPOLOGY
};
int gp_host_load_part(const char *root, const struct gp_profile *p, enum gp_host_part part,
		      struct gp_host *host);
void gp_host_release(struct gp_host *host);
/* host->qemu_version from QEMU's binary on the live host (gp_host_load asks it for a [vm] only) */
void gp_host_qemu_binary(struct gp_host *host);
/* Whether each file the VM's XML names exists under the host's root (n <= GP_VM_FILES). */
void gp_host_vm_files(struct gp_host *h, const struct gp_vm_file *files, int n);

/* Each of devs' names in the system's pci.ids (lspci's), "" where it has none (pci.c). */
void gp_pci_names(const struct gp_host *h, const int *devs, int n, char (*names)[GP_NAME_LEN]);
/*
 * The release the next boot runs where GRUB's default entry names another
 * than running and its /lib/modules tree is there (boot.c), else running:
 * what the snapshot copies the module indexes of, besides the running one's.
 */
void gp_boot_release_at(int rootfd, const char *running, char *release, size_t len);

#endif
