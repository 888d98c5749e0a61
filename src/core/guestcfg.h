/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guestcfg.c: what the guest needs for its RoCE ports, as files (guest-config). */
#ifndef GP_GUESTCFG_H
#define GP_GUESTCFG_H

#include "core/model.h"

enum gp_guest_file {
	GP_GUEST_NETWORK, /* network-config: cloud-init version 2 (netplan) */
	GP_GUEST_NCCL,	  /* nccl.conf */
	GP_GUEST_TOPO,	  /* nccl-topo.xml, NCCL_TOPO_FILE */
	GP_GUEST_FILES
};

extern const char *const gp_guest_file_names[GP_GUEST_FILES];
/* Where nccl.conf tells NCCL its topology file is in the guest. */
#define GP_GUEST_TOPO_PATH "/etc/nccl-topo.xml"

/*
 * The directory guest.write puts the three files in, beside the VM's XML:
 * "X.guest" for an output "X.xml".
 */
void gp_guest_dir(const char *vm_output, char *out, size_t len);
/* Whether path is one of the three in such a directory (a journal's record). */
bool gp_guest_path_ok(const char *path);

/* The three texts for [nic] mode = passthrough: 0, or -EINVAL after gp_err(). */
int gp_guest_config(const struct gp_host *h, const struct gp_profile *p, char *out[GP_GUEST_FILES]);
void gp_guest_config_release(char *out[GP_GUEST_FILES]);

#endif
