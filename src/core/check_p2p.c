// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The findings of each pair of GPUs (p2p.*): the path between them, NVLink,
 * ACS on the switches they share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check_p2p.h"
#include "core/hostq.h"
#include "core/nvlink.h"
#include "core/topo.h"
#include "shared/util.h"

/* ---- p2p.* ---- */

/* What the PCIe-only verdict says of NVLink: not there, or why it is not known. */
static void nvlink_said(const struct gp_nv_view *v, char *buf, size_t len)
{
	if (v->source == GP_NV_NONE)
		snprintf(buf, len, "NVLink not known: %s", v->why);
	else
		snprintf(buf, len, "no NVLink between them");
}

/*
 * Joined by NVLink, a pair does P2P over it whatever its PCIe class: the
 * ceiling is the links' rate, links x per-link rate of their generation.
 */
static bool nvlink_pair(const struct gp_host *h, int a, int b, enum gp_path cls, const char *link,
			struct gp_report *r, const char *subject)
{
	int na = gp_nv_find(&h->nv, h->devs[a].bdf), nb = gp_nv_find(&h->nv, h->devs[b].bdf);
	int n = gp_nv_pair_links(&h->nv, na, nb);
	char when[64] = "";

	if (!n)
		return false;
	if (h->nv.source == GP_NV_REMEMBERED)
		snprintf(when, sizeof(when), ", remembered from %s", h->nv.seen_at);
	gp_report_add(r, GP_F_P2P_PATH, GP_OK, subject, NULL,
		      "NV%d: %d NVLinks%s, %.1f GB/s per direction%s; PCIe %s (%s)", n, n,
		      gp_nv_via_switch(&h->nv, na, nb) ? " through NVSwitch" : "",
		      gp_nv_pair_ceiling(&h->nv, na, nb), when, gp_path_name(cls), link);
	return true;
}

/* "slowest hop 16 GT/s x16, 31.5 GB/s per direction", from topo.c's words */
static void hop_text(struct gp_hop_words *w, const struct gp_hop *hop, char *buf, size_t len)
{
	const char *part[5];
	size_t n = 0;
	int i;

	gp_hop_words(w, hop);
	part[0] = "slowest hop ";
	part[1] = w->link;
	part[2] = ", ";
	part[3] = w->gbs;
	part[4] = " GB/s per direction";
	for (i = 0; i < 5 && n < len; i++)
		n += gp_strlcpy(buf + n, part[i], len - n);
}

/* "BDF-BDF", as snprintf(subject, 64, "%s-%s") had it */
static void pair_subject(const struct gp_host *h, int a, int b, char subject[64])
{
	size_t n = gp_strlcpy(subject, h->devs[a].bdf, 64);

	if (n >= 63) {
		subject[63] = '\0';
		return;
	}
	subject[n++] = '-';
	gp_strlcpy(subject + n, h->devs[b].bdf, 64 - n);
}

static void check_p2p_pair(const struct gp_host *h, const struct gp_profile *p, int a, int b,
			   struct gp_hop_words *w, struct gp_report *r)
{
	enum gp_path cls = gp_topo_classify(h, a, b);
	struct gp_hop hop = gp_topo_slowest(h, a, b);
	char subject[64], link[128] = "link unknown", nv[200];
	enum gp_severity sev = GP_OK;
	const char *hint = NULL;

	pair_subject(h, a, b, subject);
	if (hop.width)
		hop_text(w, &hop, link, sizeof(link));
	if (gp_hop_trained_lower(&hop))
		snprintf(link + strlen(link), sizeof(link) - strlen(link),
			 "; trained at %g GT/s x%d now", hop.cur_speed, hop.cur_width);
	if (p->p2p == GP_P2P_OFF) {
		gp_report_add(r, GP_F_P2P_PATH, GP_OK, subject, NULL, "%s (%s); P2P not wanted",
			      gp_path_name(cls), link);
		return;
	}
	if (nvlink_pair(h, a, b, cls, link, r, subject))
		return;
	if (cls == GP_PATH_NODE) {
		sev = GP_WARN;
		hint = "P2P crosses two host bridges of one socket; for full bandwidth put both "
		       "cards under one root complex, or join them with an NVLink bridge";
	} else if (cls == GP_PATH_SYS) {
		sev = p->p2p == GP_P2P_REQUIRED ? GP_FAIL : GP_WARN;
		hint = "P2P across the CPU interconnect is slow or refused by the driver: move "
		       "both cards to slots of one NUMA node, or join them with an NVLink bridge";
	}
	nvlink_said(&h->nv, nv, sizeof(nv));
	gp_report_add(r, GP_F_P2P_PATH, sev, subject, hint, "%s (%s); %s", gp_path_name(cls), link,
		      nv);
}

static void check_acs_pair(const struct gp_host *h, int a, int b, struct gp_report *r)
{
	int bridges[64], n = gp_topo_path_bridges(h, a, b, bridges, 64), i;
	enum gp_path cls = gp_topo_classify(h, a, b);
	char subject[64], list[256] = "";
	size_t len = 0;

	pair_subject(h, a, b, subject);
	if (cls != GP_PATH_PIX && cls != GP_PATH_PXB) {
		gp_report_add(r, GP_F_P2P_ACS, GP_OK, subject, NULL,
			      "no switch between the GPUs: traffic goes through the root "
			      "complex (%s)",
			      gp_path_name(cls));
		return;
	}
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[bridges[i]];

		if (!d->has_acs || !(d->acs_ctrl & (GP_ACS_RR | GP_ACS_CR)))
			continue;
		if (len < sizeof(list) - 48)
			len += (size_t)snprintf(
				list + len, sizeof(list) - len, "%s%s (%s%s)", len ? ", " : "",
				d->bdf, d->acs_ctrl & GP_ACS_RR ? "ReqRedir" : "",
				d->acs_ctrl & GP_ACS_CR
					? (d->acs_ctrl & GP_ACS_RR ? " CmpltRedir" : "CmpltRedir")
					: "");
	}
	if (!len) {
		gp_report_add(r, GP_F_P2P_ACS, GP_OK, subject, NULL,
			      "no bridge on the path redirects peer requests");
		return;
	}
	gp_report_add(r, GP_F_P2P_ACS, GP_WARN, subject,
		      "disable ACS on the switch ports (BIOS 'ACS Enable' or the switch's "
		      "firmware); the GPUs may then share an IOMMU group, which is fine when "
		      "both go to the same VM",
		      "ACS sends P2P requests up to the root complex at %s", list);
}

void gp_check_p2p(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int n, *gpus = gp_gpus(h, &n), i, j;
	struct gp_hop_words words = { .n = 0 };

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			check_p2p_pair(h, p, gpus[i], gpus[j], &words, r);
			check_acs_pair(h, gpus[i], gpus[j], r);
		}
	free(gpus);
}
