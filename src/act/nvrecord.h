/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_NVRECORD_H
#define GP_NVRECORD_H

#include "core/nvlink.h"

/* Writes GP_NV_RECORD from what NVML sees now; 0 when nothing to keep. */
int gp_nv_remember(const struct gp_nv_view *v);

#endif
