/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostq.c: pure queries of the host model, and the one rule for what is a GPU. */
#ifndef GP_HOSTQ_H
#define GP_HOSTQ_H

#include <stdbool.h>

#include "core/model.h"

/* a function with nothing read yet: its strings "", no parent, node or group */
void gp_dev_init(struct gp_dev *d);
/* the order of host->devs: domain, bus, device, function */
int gp_dev_cmp(const void *a, const void *b);
/* the index of bdf in host->devs, -1 when absent */
int gp_host_find(const struct gp_host *host, const char *bdf);
/* functions of one card: the same domain, bus and device */
bool gp_same_card(const struct gp_dev *a, const struct gp_dev *b);
/* without a profile: a 3D controller, or a display controller of a GPU vendor */
bool gp_dev_is_gpu(const struct gp_dev *d);
/* whether d is one of the profile's [gpus] matches: its vendor:device, or its address */
bool gp_profile_matches(const struct gp_profile *p, const struct gp_dev *d);
/* GPU (the profile's match, else gp_dev_is_gpu), NIC, bridge or other */
enum gp_role gp_dev_role(const struct gp_dev *d, const struct gp_profile *p);
/* Whether [nic] hands this network function to the VM whole (mode = passthrough). */
bool gp_nic_passed(const struct gp_profile *p, const struct gp_dev *d);
/* Whether [nic] gives the VM RoCE ports: whole functions (passthrough) or VFs (vf). */
bool gp_nic_to_vm(const struct gp_profile *p);
/* Whether a network function is one of [nic] match's, whatever the mode. */
bool gp_nic_matches(const struct gp_profile *p, const struct gp_dev *d);
/* the index of the interface named so, or of the PCI function's, -1 when absent */
int gp_host_iface(const struct gp_host *host, const char *name_or_bdf);
const struct gp_numa *gp_host_numa(const struct gp_host *host, int id);
/* the file as the host had it when read; NULL when not read (absent) */
const struct gp_owned *gp_host_owned(const struct gp_host *host, const char *path);
/* sets with_gpu on the GPUs and the other members of their IOMMU groups */
void gp_host_mark_gpu_groups(struct gp_host *h);
/* the GPUs' indices, as many as the host has (free() the array) */
int *gp_gpus(const struct gp_host *h, int *n);

#endif
