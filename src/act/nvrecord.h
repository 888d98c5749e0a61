/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_NVRECORD_H
#define GP_NVRECORD_H

#include "core/model.h"
#include "core/nvlink.h"

/* Writes GP_NV_RECORD from what NVML sees now; 0 when nothing to keep. */
int gp_nv_remember(const struct gp_nv_view *v);

/*
 * Writes verify's record (GP_VERIFY_RECORD, or GPUPROV_STATE_DIR/verify.json)
 * whole or not at all; a machine where it cannot be written (verify run
 * without root) only loses topo's measured column.  0 or a negative errno.
 */
int gp_verify_remember(const struct gp_vrecord *r);

#endif
