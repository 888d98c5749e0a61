/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmod.c: libkmod under a root (what host/ asks) and on the running kernel. */
#ifndef GP_KMOD_H
#define GP_KMOD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/manifest.h"
#include "core/model.h"
#include "shared/trust.h"

struct kmod_ctx;

/* whether a release read from the tree is a plain directory name */
bool gp_kmod_release_ok(const char *release);

/* the paths libkmod opens by itself under a root (the guard's, the walk's as root) */
#define GP_KMOD_LIB_PATHS (1 + GP_MODPROBE_DIRS)
size_t gp_kmod_lib_paths(const char *release, struct gp_lib_path *paths);

int gp_vfio_module_available(const char *root, const char *release);
void gp_vfio_variant(const char *root, const char *release, const char *modalias, char *module,
		     size_t len);
void gp_vfio_driver_of(const char *module, char *driver, size_t len);
/*
 * A context on release's modules under root (its tree guarded as above), for
 * every device's lookup: one per host, not one per device.  NULL when
 * libkmod cannot read that kernel under root.
 */
struct kmod_ctx *gp_kmod_open(const char *root, const char *release);
void gp_kmod_close(struct kmod_ctx *ctx);
/*
 * The modules whose alias matches modalias in the context's modules.alias
 * (or an alias line of modprobe.d), at most max, with what modprobe.d says
 * of each (blacklisted, disabled by an install command, softdep pre:
 * vfio_module); builtin is the caller's.  The count, or -1 without a
 * context or when the lookup fails.
 */
int gp_kmod_claimants(struct kmod_ctx *ctx, const char *modalias, const char *vfio_module,
		      struct gp_claimant *out, int max);
/* a context on the running kernel, for the actuators; NULL when out of memory */
struct kmod_ctx *gp_kmod_live(void);

#endif
