/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vfio.c: the actuators' vfio-pci sysfs interface. */
#ifndef GP_VFIO_H
#define GP_VFIO_H

#include <stddef.h>

/* a sysfs write that may block for good, in a child, bounded in time */
int gp_write_deadline(const char *path, const char *value);

#endif
