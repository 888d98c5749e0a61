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
/*
 * Whether the count VFs of the port at pf_bdf, whose device directory is
 * dir, are where the plan placed them (core/vfs.c: First VF Offset offset,
 * VF Stride stride): each virtfnI link names that address.  0, or -EIO
 * (said, naming both addresses); offset 0 (a step that carries no
 * placement) checks nothing.
 */
int gp_sriov_placed_at(const char *dir, const char *pf_bdf, unsigned offset, unsigned stride,
		       long count);

#endif
