/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sriov.c: sriov.vfs's actuator, and its access to a port's SR-IOV files
 * in a device directory (/sys/bus/pci/devices/BDF on the host; the unit
 * tests hand it a directory of regular files).
 */
#ifndef GP_ACT_SRIOV_H
#define GP_ACT_SRIOV_H

#include <stdint.h>

struct gp_sriov_port {
	uint16_t vendor, device;
	long numvfs, total; /* sriov_numvfs, sriov_totalvfs */
	char path
		[256]; /* the device's own directory (realpath): the boot script's identity check */
};

/* The port of the device directory dir: 0; -ENOTSUP (said) when it has no SR-IOV; -errno. */
int gp_sriov_read_at(const char *dir, struct gp_sriov_port *port);
/*
 * sriov_numvfs from have to want, read back: 0, or -errno (said); -EBUSY
 * (said) from one nonzero count to another: the kernel takes that only
 * through 0, which destroys the VFs there and what a guest holds of them.
 */
int gp_sriov_set_at(const char *dir, long have, long want);

#endif
