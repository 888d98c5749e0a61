/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the host layer reads for NVLink and for verify's BAR check. */
#ifndef GP_NVREAD_H
#define GP_NVREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/nvlink.h"

/*
 * The NVLinks: from NVML on the live host while it sees GPUs, else from
 * the record apply kept (GP_NV_RECORD under root), else none with why.
 */
void gp_host_nv_read(int rootfd, bool live, bool ask_nvml, struct gp_nv_view *v);
/*
 * The largest memory BAR the card at bdf advertises under root: its sysfs
 * resource, or its Resizable BAR capability's largest size when that is
 * larger.  0, or a negative errno.
 */
int gp_host_bar_max(int rootfd, const char *bdf, uint64_t *bytes);

/*
 * verify's record of this machine (GP_VERIFY_RECORD under root; on the live
 * host GPUPROV_STATE_DIR/verify.json when that is set): r->kept false when
 * there is none or it is malformed (never a failure: topo only shows less).
 */
void gp_host_vrec_read(int rootfd, bool live, struct gp_vrecord *r);

#endif
