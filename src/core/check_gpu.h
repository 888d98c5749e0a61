/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_gpu.c: the BIOS, the GPUs as a set and one by one, their companions
 * (a family of checks.c's table).
 */
#ifndef GP_CHECK_GPU_H
#define GP_CHECK_GPU_H

#include "core/findings.h"
#include "core/model.h"

/* The BIOS version, the GPUs' count, their NUMA nodes. */
void gp_check_gpu_host(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);
/* One GPU (g: its index in h->devs): NUMA node, BARs, slot, link, holders, reset. */
void gp_check_gpu(const struct gp_host *h, const struct gp_profile *p, int g, struct gp_report *r);
/* gpu.reset of one function: a GPU, or an NVSwitch that goes with them */
void gp_check_reset(const struct gp_dev *d, struct gp_report *r);
void gp_check_companions(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
