/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmod.c: libkmod under a root (what host/ asks) and on the running kernel. */
#ifndef GP_KMOD_H
#define GP_KMOD_H

#include <stddef.h>

#include "core/manifest.h"
#include "shared/trust.h"

struct kmod_ctx;

/* the paths libkmod opens by itself under a root (the guard's, the walk's as root) */
#define GP_KMOD_LIB_PATHS (1 + GP_MODPROBE_DIRS)
size_t gp_kmod_lib_paths(const char *release, struct gp_lib_path *paths);

int gp_vfio_module_available(const char *root, const char *release);
void gp_vfio_variant(const char *root, const char *release, const char *modalias, char *module,
		     size_t len);
void gp_vfio_driver_of(const char *module, char *driver, size_t len);
/* a context on the running kernel, for the actuators; NULL when out of memory */
struct kmod_ctx *gp_kmod_live(void);

#endif
