// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVLink seen from the host: NVML answers only for GPUs on the nvidia
 * driver, so once apply has moved them to vfio-pci what it recorded before
 * is all that is left.  A snapshot or fixture (--root) has no driver to
 * ask: only its record counts there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/pcicfg.h"
#include "host/nvread.h"
#include "sys/nvml.h"
#include "core/verify.h"
#include "shared/log.h"
#include "shared/util.h"

static void read_record(int rootfd, struct gp_nv_view *v, const char *nvml_why)
{
	char why[128], *text = NULL;
	ssize_t n = rootfd == -1 ? -ENOENT : gp_root_slurp(rootfd, GP_NV_RECORD, 1u << 20, &text);

	if (n < 0) {
		snprintf(v->why, sizeof(v->why), "%s; no record of earlier NVLinks (%s)", nvml_why,
			 n == -ENOENT ? "none kept" : gp_root_strerror((int)n));
		return;
	}
	if (gp_nv_from_json(text, v, why, sizeof(why))) {
		v->source = GP_NV_NONE;
		snprintf(v->why, sizeof(v->why), "%s; %s: %s", nvml_why, GP_NV_RECORD, why);
	}
	free(text);
}

void gp_host_nv_read(int rootfd, bool live, bool ask_nvml, struct gp_nv_view *v)
{
	char why[160];

	memset(v, 0, sizeof(*v));
	if (!live || !ask_nvml) {
		/* the same words live and from a snapshot of that host (the lab compares them) */
		read_record(rootfd, v,
			    !ask_nvml ? "no GPU is on the nvidia driver"
				      : "NVML is read on the live host only");
		return;
	}
	gp_nvml_view(v);
	if (v->source == GP_NV_NVML && v->n)
		return;
	snprintf(why, sizeof(why), "%s", v->why[0] ? v->why : "NVML sees no GPU");
	gp_nv_view_release(v);
	memset(v, 0, sizeof(*v));
	read_record(rootfd, v, why);
}

int gp_host_bar_max(int rootfd, const char *bdf, uint64_t *bytes)
{
	struct gp_bar bars[GP_MAX_BARS];
	char path[96], *text = NULL;
	ssize_t len;
	int i, n;
	uint64_t rebar;

	*bytes = 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	len = gp_root_slurp(rootfd, path, 4096, &text);
	if (len < 0)
		return (int)len;
	n = gp_resource_parse(text, bars, GP_MAX_BARS);
	free(text);
	for (i = 0; i < n; i++)
		if (!bars[i].io && bars[i].size > *bytes)
			*bytes = bars[i].size;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	text = NULL;
	len = gp_root_slurp(rootfd, path, 4096, &text);
	if (len > 0) {
		rebar = gp_rebar_max((const uint8_t *)text, (size_t)len);
		*bytes = rebar > *bytes ? rebar : *bytes;
	}
	free(text);
	return n < 0 ? n : 0;
}

void gp_host_vrec_read(int rootfd, bool live, struct gp_vrecord *r)
{
	char buf[512], why[96], *text = NULL;
	const char *path = live ? gp_state_file("verify.json", GP_VERIFY_RECORD, buf, sizeof(buf))
				: GP_VERIFY_RECORD;
	ssize_t n = rootfd == -1 ? -ENOENT : gp_root_slurp(rootfd, path, 1u << 20, &text);

	memset(r, 0, sizeof(*r));
	if (n < 0)
		return;
	if (gp_vrecord_from_json(text, r, why, sizeof(why)))
		gp_debug("%s: %s", path, why);
	free(text);
}
