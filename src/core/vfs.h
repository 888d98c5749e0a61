/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs.c: [nic] mode = vf's virtual functions as the VM gets them: where
 * each VF of a port is (the kernel's virtfnN link, else the address its
 * SR-IOV capability predicts), whether that prediction holds, and the MAC
 * libvirt gives the VF the VM gets.  Pure.
 */
#ifndef GP_VFS_H
#define GP_VFS_H

#include <stddef.h>

#include "core/model.h"

#define GP_VF_MAC_LEN 18 /* "52:54:00:xx:xx:xx" and the NUL */

/*
 * VF i of the PF at pf_bdf: routing ID PF + offset + i * stride (PCIe base
 * spec 9.3.3.10, 9.3.3.11), in the PF's domain.  0; -EINVAL for a PF
 * address that is not one; -ERANGE past routing ID 0xffff.
 */
int gp_vf_addr(const char *pf_bdf, unsigned offset, unsigned stride, unsigned i,
	       char out[GP_BDF_LEN]);
/*
 * Whether count VFs of pf can be placed: its capability read, each
 * predicted address within 0xffff and on a bus its parent bridge forwards,
 * and each virtfnN link the kernel already has where the prediction says.
 * 0, or -EINVAL and why (a sentence to block a plan with).
 */
int gp_vf_check(const struct gp_host *h, const struct gp_dev *pf, unsigned count, char *why,
		size_t len);
/* Where VF i of pf is: its virtfn link where the kernel has one, else the prediction. */
int gp_vf_bdf(const struct gp_dev *pf, unsigned i, char out[GP_BDF_LEN]);
/*
 * The MAC libvirt sets on VF i of pf_bdf for the VM vm: 52:54:00 (QEMU's
 * locally administered prefix) and the low 3 bytes of FNV-1a 32 of
 * "VM/PF/I": the same in every run, different between VMs and ports.
 */
void gp_vf_mac(const char *vm, const char *pf_bdf, unsigned i, char out[GP_VF_MAC_LEN]);

#endif
