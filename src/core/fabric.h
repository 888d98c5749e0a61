/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabric.c: an HGX baseboard as the PCI tree shows it: its NVSwitches
 * (NVIDIA, class 0x0680) and its GPUs, and what each [fabric] mode does
 * with them.  Pure.
 */
#ifndef GP_FABRIC_H
#define GP_FABRIC_H

#include <stdbool.h>

#include "core/model.h"

#define GP_BOARD_MAX 16
/* nv-fabricmanager as /proc/PID/comm keeps it (15 characters) */
#define GP_FM_PROCESS "nv-fabricmanage"

struct gp_board {
	const char *name;	      /* "HGX H100/H200 8-GPU", or a generic name */
	int want_gpus, want_switches; /* what a whole board of that switch has; 0 unknown */
	int switches[GP_BOARD_MAX];   /* indices in host->devs */
	int nswitches;
	int gpus[GP_BOARD_MAX]; /* the host's NVIDIA GPUs, the profile's or not */
	int ngpus;
	int selected;	   /* of those, the profile's [gpus] (role GPU) */
	int switch_group;  /* the switches' one IOMMU group; -1 none or several */
	bool groups_split; /* the switches are in more than one group */
};

/* an NVSwitch as the host's PCI tree shows it: NVIDIA, class 0x0680 (other bridge) */
bool gp_dev_is_nvswitch(const struct gp_dev *d);
/* the host's baseboard: 0 with one (its switches and GPUs in b), -ENOENT without a switch */
int gp_fabric_board(const struct gp_host *h, struct gp_board *b);
/*
 * A process is Fabric Manager: /proc/PID/comm's text (newline or not) is
 * GP_FM_PROCESS and /proc/PID/status's text says root's (real uid 0).
 */
bool gp_fm_process(const char *comm, const char *status);
/* dpkg's package name: 1 Fabric Manager, 2 NSCQ, 0 another (a branch suffix allowed) */
int gp_fabric_package(const char *name);
/* "570.133.20-1" and "570.133.20" agree: the upstream version, the Debian revision aside */
bool gp_fabric_versions_match(const char *a, const char *b);
/* whether [fabric] mode passes the function to the VM with the GPUs: full mode's switches */
bool gp_fabric_passed(const struct gp_profile *p, const struct gp_dev *d);
const char *gp_fabric_mode_name(enum gp_fabric_mode m);

#endif
