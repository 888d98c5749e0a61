// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * [nic] mode = vf: where a port's virtual functions are, before the kernel
 * makes them.  The SR-IOV capability says it (PCIe base spec 9.3.3): VF i
 * has routing ID (bus << 8 | devfn) PF + First VF Offset + i * VF Stride,
 * on the PF's segment; the kernel refuses VFs on a bus past what the
 * bridge above forwards ("not enough bus numbers").  The spec lets offset
 * and stride change with NumVFs (mlx5's stay): sriov.vfs reads the links
 * back at apply and fails where they differ.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/vfs.h"
#include "shared/util.h"

int gp_vf_addr(const char *pf_bdf, unsigned offset, unsigned stride, unsigned i,
	       char out[GP_BDF_LEN])
{
	unsigned dom, bus, dev, fn;
	unsigned long rid;

	if (!gp_bdf_canonical(pf_bdf, &dom, &bus, &dev, &fn))
		return -EINVAL;
	rid = (unsigned long)(bus << 8 | dev << 3 | fn) + offset + (unsigned long)i * stride;
	if (rid > 0xffff)
		return -ERANGE;
	snprintf(out, GP_BDF_LEN, "%04x:%02lx:%02lx.%lu", dom, rid >> 8, (rid >> 3) & 0x1f,
		 rid & 7);
	return 0;
}

static int predict(const struct gp_dev *pf, unsigned i, char out[GP_BDF_LEN])
{
	if (!pf->has_sriov || !pf->vf_offset)
		return -ENOENT;
	return gp_vf_addr(pf->bdf, pf->vf_offset, pf->vf_stride, i, out);
}

int gp_vf_bdf(const struct gp_dev *pf, unsigned i, char out[GP_BDF_LEN])
{
	if (i < (unsigned)pf->nvirtfn) {
		gp_strlcpy(out, pf->virtfn[i], GP_BDF_LEN);
		return 0;
	}
	return predict(pf, i, out);
}

static int no_capability(const struct gp_dev *pf, char *why, size_t len)
{
	if (!pf->has_sriov)
		snprintf(why, len, "%s: %s: its virtual functions' addresses cannot be predicted",
			 pf->bdf,
			 pf->config_short ? "its SR-IOV capability was not read (config space "
					    "past 64 bytes needs root)"
					  : "its config space shows no SR-IOV capability");
	else
		snprintf(why, len,
			 "%s: its SR-IOV capability says First VF Offset 0: no virtual function "
			 "can be placed",
			 pf->bdf);
	return -EINVAL;
}

/* The bus the kernel may number VF i on: within the bridge above (its subordinate). */
static int bus_fits(const struct gp_host *h, const struct gp_dev *pf, unsigned i, const char *vf,
		    char *why, size_t len)
{
	const struct gp_dev *up = pf->parent >= 0 ? &h->devs[pf->parent] : NULL;
	unsigned dom, bus, dev, fn;
	char hint[48] = "";

	if (!up || up->sub_bus < 0 || !gp_bdf_canonical(vf, &dom, &bus, &dev, &fn) ||
	    bus <= (unsigned)up->sub_bus)
		return 0;
	if (i)
		snprintf(hint, sizeof(hint), "[nic] vfs = %u fits, or ", i);
	snprintf(why, len,
		 "%s: virtual function %u would be %s, on bus %02x past the buses %s forwards "
		 "(up to %02x): the kernel would fail with \"not enough bus numbers\"; %shave "
		 "the BIOS reserve bus numbers for SR-IOV",
		 pf->bdf, i, vf, bus, up->bdf, (unsigned)up->sub_bus, hint);
	return -EINVAL;
}

int gp_vf_check(const struct gp_host *h, const struct gp_dev *pf, unsigned count, char *why,
		size_t len)
{
	char vf[GP_BDF_LEN];
	unsigned i;
	int rc;

	/* the kernel made them all already: its links are the addresses */
	if (count && (unsigned)pf->nvirtfn >= count && (!pf->has_sriov || !pf->vf_offset))
		return 0;
	if (count && (!pf->has_sriov || !pf->vf_offset))
		return no_capability(pf, why, len);
	for (i = 0; i < count; i++) {
		rc = predict(pf, i, vf);
		if (rc == -ERANGE) {
			snprintf(why, len,
				 "%s: virtual function %u's routing ID (offset %u, stride %u) is "
				 "past 0xffff",
				 pf->bdf, i, pf->vf_offset, pf->vf_stride);
			return -EINVAL;
		}
		if (rc)
			return no_capability(pf, why, len);
		if (i < (unsigned)pf->nvirtfn && strcmp(pf->virtfn[i], vf)) {
			snprintf(why, len,
				 "%s: virtual function %u is %s (virtfn%u), its SR-IOV capability "
				 "says %s (offset %u, stride %u): the VFs' addresses cannot be "
				 "trusted",
				 pf->bdf, i, pf->virtfn[i], i, vf, pf->vf_offset, pf->vf_stride);
			return -EINVAL;
		}
		if (bus_fits(h, pf, i, vf, why, len))
			return -EINVAL;
	}
	return 0;
}

static uint32_t fnv1a(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u; /* FNV's 32-bit prime */
	return h;
}

void gp_vf_mac(const char *vm, const char *pf_bdf, unsigned i, char out[GP_VF_MAC_LEN])
{
	char idx[16];
	uint32_t h = 2166136261u; /* FNV-1a 32's offset basis */

	snprintf(idx, sizeof(idx), "%u", i);
	h = fnv1a(fnv1a(fnv1a(fnv1a(fnv1a(h, vm), "/"), pf_bdf), "/"), idx);
	snprintf(out, GP_VF_MAC_LEN, "52:54:00:%02x:%02x:%02x", (h >> 16) & 0xff, (h >> 8) & 0xff,
		 h & 0xff);
}
