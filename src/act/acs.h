/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * acs.c: acs.set's actuator, and its access to a port's ACS Control register
 * through a config-space file (sysfs's config on the host; the unit tests
 * hand it a regular file).
 */
#ifndef GP_ACT_ACS_H
#define GP_ACT_ACS_H

#include <stdint.h>

/* What a port's config space says of its ACS. */
struct gp_acs_reg {
	uint16_t vendor, device;
	int pos; /* the ACS extended capability's offset */
	uint16_t cap, ctrl;
	char path
		[256]; /* the device's own directory (realpath): the boot script's identity check */
};

/*
 * The ACS of the switch downstream port whose config space config is: 0;
 * -EINVAL (said) for a device that is not one, or has no ACS capability;
 * -errno when config cannot be read whole (extended space: root only).
 */
int gp_acs_read_at(const char *config, struct gp_acs_reg *r);
/*
 * ACS Control := val (2 bytes at r->pos + 6, nothing else), read back; on a
 * mismatch r->ctrl is written back and -EIO said.  0 or -errno.
 */
int gp_acs_write_at(const char *config, const struct gp_acs_reg *r, uint16_t val);

/*
 * Undo: old's feature bits (0-6, the only bits acs.set changes) back into the
 * port's ACS Control, the rest as it is now; old comes from the journal,
 * hostile: a port that is no downstream port with ACS is refused, and so is
 * one whose directory is not where (the port acs.set wrote, when the record
 * names it: after a renumbering another port has the address).  0 or -errno.
 */
int gp_acs_restore_at(const char *config, long old, const char *where);

/*
 * The port's power/control beside config ("on" or "auto"; anything else is
 * -EINVAL, no file -ENOENT), and its write, read back.  acs.set sets "on":
 * a port resumed from D3hot gets the kernel's ACS policy back (acs.c).
 */
int gp_acs_power_read(const char *config, char *val, size_t len);
int gp_acs_power_write(const char *config, const char *val);

#endif
