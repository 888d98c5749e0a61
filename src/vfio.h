/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vfio.c: libkmod and the vfio-pci sysfs interface. */
#ifndef GP_VFIO_H
#define GP_VFIO_H

#include <stddef.h>

int gp_vfio_module_available(const char *root, const char *release);
void gp_vfio_variant(const char *root, const char *release, const char *modalias, char *module,
		     size_t len);
void gp_vfio_driver_of(const char *module, char *driver, size_t len);

/* a sysfs write that may block for good, in a child, bounded in time */
int gp_write_deadline(const char *path, const char *value);

#endif
