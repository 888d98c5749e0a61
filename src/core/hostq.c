// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Queries of the host model: pure functions of struct gp_host that the
 * reader, the checks, the plan and the renderers share (no reading of the
 * machine here), and the one rule for what is a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostq.h"

void gp_dev_init(struct gp_dev *d)
{
	static const struct gp_cap no_caps[1];

	memset(d, 0, sizeof(*d));
	d->caps = no_caps;
	d->driver = d->slot = d->rc = d->numa_error = d->iommu_error = d->parent_bdf = "";
	d->reset_method = d->driver_override = d->modalias = d->vfio_driver = d->vfio_module = "";
	d->parent = -1;
	d->numa_node = -1;
	d->iommu_group = -1;
	d->boot_vga = -1;
	d->sriov_total = d->sriov_numvfs = -1;
	d->sub_bus = -1;
	d->ats = -1;
}

int gp_dev_cmp(const void *a, const void *b)
{
	const struct gp_dev *x = a, *y = b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return 0;
}

int gp_host_find(const struct gp_host *host, const char *bdf)
{
	struct gp_dev key;
	const struct gp_dev *d;

	if (!gp_bdf_canonical(bdf, &key.domain, &key.bus, &key.dev, &key.func) &&
	    sscanf(bdf, "%x:%x:%x.%u", &key.domain, &key.bus, &key.dev, &key.func) != 4)
		return -1;
	d = bsearch(&key, host->devs, host->ndevs, sizeof(key), gp_dev_cmp);
	return d ? (int)(d - host->devs) : -1;
}

/*
 * Without a profile, the one rule for what is a GPU (scan, topo, profile
 * discover): every 3D controller, and the display controllers of the GPU
 * vendors.  A server's BMC VGA (ASPEED, Matrox, Hisilicon) is a display
 * controller too, but nothing anyone passes through.
 */
bool gp_same_card(const struct gp_dev *a, const struct gp_dev *b)
{
	return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

bool gp_dev_is_gpu(const struct gp_dev *d)
{
	if (d->class == 0x0302)
		return true;
	return (d->class >> 8) == 0x03 &&
	       (d->vendor == 0x10de || d->vendor == 0x1002 || d->vendor == 0x8086);
}

bool gp_profile_matches(const struct gp_profile *p, const struct gp_dev *d)
{
	int i;

	for (i = 0; i < p->nmatch; i++) {
		const struct gp_match *m = &p->match[i];

		if (m->is_bdf ? !strcmp(m->bdf, d->bdf)
			      : m->vendor == d->vendor && m->device == d->device)
			return true;
	}
	return false;
}

enum gp_role gp_dev_role(const struct gp_dev *d, const struct gp_profile *p)
{
	if (p ? gp_profile_matches(p, d) : gp_dev_is_gpu(d))
		return GP_ROLE_GPU;
	if ((d->class >> 8) == 0x02)
		return GP_ROLE_NIC;
	if (d->is_bridge || d->class == 0x0604 || d->class == 0x0609)
		return GP_ROLE_BRIDGE;
	return GP_ROLE_OTHER;
}

bool gp_nic_passed(const struct gp_profile *p, const struct gp_dev *d)
{
	return p->nic.mode == GP_NIC_PASSTHROUGH && gp_nic_matches(p, d);
}

bool gp_nic_to_vm(const struct gp_profile *p)
{
	return p->has_nic && (p->nic.mode == GP_NIC_PASSTHROUGH || p->nic.mode == GP_NIC_VF);
}

bool gp_nic_matches(const struct gp_profile *p, const struct gp_dev *d)
{
	int i;

	if (!p->has_nic || gp_dev_role(d, p) != GP_ROLE_NIC)
		return false;
	for (i = 0; i < p->nic.nmatch; i++) {
		const struct gp_match *m = &p->nic.match[i];

		if (m->is_bdf ? !strcmp(m->bdf, d->bdf)
			      : m->vendor == d->vendor && m->device == d->device)
			return true;
	}
	return false;
}

const struct gp_numa *gp_host_numa(const struct gp_host *host, int id)
{
	size_t i;

	for (i = 0; i < host->nnuma; i++)
		if (host->numa[i].id == id)
			return &host->numa[i];
	return NULL;
}

int gp_host_iface(const struct gp_host *host, const char *spec)
{
	size_t i;

	for (i = 0; i < host->nifaces; i++)
		if (!strcmp(host->ifaces[i].name, spec) || !strcmp(host->ifaces[i].bdf, spec))
			return (int)i;
	return -1;
}

const struct gp_owned *gp_host_owned(const struct gp_host *h, const char *path)
{
	size_t i;

	for (i = 0; i < h->nowned; i++)
		if (!strcmp(h->owned[i].path, path))
			return &h->owned[i];
	return NULL;
}

/*
 * Marks the GPUs and the other members of their IOMMU groups, once: the GPUs
 * are few, so this is one pass over the devices, not one per device.
 */
void gp_host_mark_gpu_groups(struct gp_host *h)
{
	int *groups = gp_xcalloc(h->ndevs + 1, sizeof(*groups)), n = 0, k;
	size_t i;

	/* as many as there are GPUs (and passed NICs): a group left out would
	 * hide a companion */
	for (i = 0; i < h->ndevs; i++)
		if ((h->devs[i].role == GP_ROLE_GPU || h->devs[i].nic_passed) &&
		    h->devs[i].iommu_group >= 0)
			groups[n++] = h->devs[i].iommu_group;
	for (i = 0; i < h->ndevs; i++) {
		struct gp_dev *d = &h->devs[i];

		d->with_gpu = d->role == GP_ROLE_GPU || d->nic_passed;
		for (k = 0; k < n && !d->with_gpu && d->iommu_group >= 0; k++)
			d->with_gpu = groups[k] == d->iommu_group;
	}
	free(groups);
}

/* The GPUs' indices, as many as the host has (free() the array). */
int *gp_gpus(const struct gp_host *h, int *n)
{
	int *out = gp_xcalloc(h->ndevs + 1, sizeof(*out));
	size_t i;

	*n = 0;
	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].role == GP_ROLE_GPU)
			out[(*n)++] = (int)i;
	return out;
}
