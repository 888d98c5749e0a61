/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sriov.c: [nic] mode = vf's virtual functions: what sriov.vfs sets on each
 * port (its sriov_numvfs), and the boot unit that sets it again at every
 * boot (the kernel keeps no count across one).  Pure; the actuator is
 * act/sriov.c.
 */
#ifndef GP_SRIOV_H
#define GP_SRIOV_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* The boot unit's files: it sets each sriov.d file's count before libvirt. */
#define GP_SRIOV_DIR	  "/etc/gpuprov/sriov.d"
#define GP_SRIOV_SCRIPT	  "/etc/gpuprov/sriov-vfs"
#define GP_SRIOV_UNIT	  "/etc/systemd/system/gpuprov-sriov.service"
#define GP_SRIOV_WANTS	  "/etc/systemd/system/basic.target.wants/gpuprov-sriov.service"
#define GP_SRIOV_WANTS_TO "../gpuprov-sriov.service"
/* the most VFs a function can have: TotalVFs is a 16-bit field (PCIe base spec 9.3.3.5) */
#define GP_SRIOV_MAX 65535
extern const char gp_sriov_script[];
extern const char gp_sriov_unit[];
/* A port's file, GP_SRIOV_DIR/BDF. */
void gp_sriov_file(const char *bdf, char *path, size_t len);
/* Its text: "0xVVVV 0xDDDD N": the port's vendor and device IDs, its count. */
void gp_sriov_file_text(uint16_t vendor, uint16_t device, long count, const char *where, char *text,
			size_t len);
/* The port a file's path names (a clean path, as the journal checks it): 0, or -EINVAL. */
int gp_sriov_file_parse(const char *path, char bdf[GP_BDF_LEN]);

#endif
