/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVML, loaded at run time (dlopen of libnvidia-ml.so.1): no build-time
 * dependency on NVIDIA's headers or libraries.  Read-only: nothing here
 * changes a GPU setting.
 */
#ifndef GP_NVML_H
#define GP_NVML_H

#include <stddef.h>

#include "core/nvlink.h"

struct gp_nvml;

/*
 * 0, or -ENOENT (no libnvidia-ml.so.1), -ENOSYS (a symbol missing), -ENODEV
 * (nvmlInit failed: no driver); why says which in words.
 */
int gp_nvml_open(struct gp_nvml **out, char *why, size_t len);
void gp_nvml_close(struct gp_nvml *n);
int gp_nvml_count(const struct gp_nvml *n);
const char *gp_nvml_driver(const struct gp_nvml *n);
/* GPU i: address, name, BAR1, PCIe maximum, its NVLinks. 0 or -EIO. */
int gp_nvml_gpu(struct gp_nvml *n, int i, struct gp_nv_gpu *g);
/* nvmlGpuP2PStatus_t per capability (0 OK); -1 where NVML did not answer. */
void gp_nvml_p2p(struct gp_nvml *n, int i, int j, int status[GP_P2P_NCAPS]);
const char *gp_nvml_p2p_name(int status);
/* Every GPU NVML sees, into v, index for index (source GP_NV_NVML); 0 or -EIO. */
int gp_nvml_fill(struct gp_nvml *n, struct gp_nv_view *v);
/* Every GPU NVML sees, into v (source GP_NV_NVML, or GP_NV_NONE with why). */
void gp_nvml_view(struct gp_nv_view *v);

#endif
