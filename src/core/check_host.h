/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_host.c: the IOMMU, the GPUs' IOMMU groups, vfio-pci (a family of checks.c's table). */
#ifndef GP_CHECK_HOST_H
#define GP_CHECK_HOST_H

#include "core/findings.h"
#include "core/model.h"

void gp_check_iommu(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);
/* Per GPU: g is its index in h->devs. */
void gp_check_iommu_group(const struct gp_host *h, const struct gp_profile *p, int g,
			  struct gp_report *r);
void gp_check_vfio(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);

#endif
