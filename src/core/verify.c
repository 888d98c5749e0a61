// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify's judgements.  A pair fails when P2P is refused (NVML's read or
 * write status, cuDeviceCanAccessPeer, enabling peer access) or when what
 * one GPU wrote into the other's memory does not read back there (the
 * private-mirror failure NCCL users saw in VMs).  It warns when a copy
 * reaches less than GP_VERIFY_WARN_FRACTION of the ceiling: one direction
 * against the ceiling, both ways against twice it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "core/model.h"
#include "core/pcicfg.h"
#include "core/verify.h"
#include "shared/util.h"

double gp_pcie_gen_gts(int gen)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };

	return gen > 0 && gen < (int)(sizeof(gts) / sizeof(gts[0])) ? gts[gen] : 0;
}

static double pcie_ceiling(const struct gp_nv_gpu *g)
{
	return gp_link_bandwidth(gp_pcie_gen_gts(g->pcie_gen), g->pcie_width);
}

void gp_verify_ceiling(struct gp_vpair *p, const struct gp_vgpu *a, const struct gp_vgpu *b,
		       const struct gp_nv_view *v, int ia, int ib)
{
	double ca, cb;

	const struct gp_vgpu *slow;

	ca = pcie_ceiling(&a->nv);
	cb = pcie_ceiling(&b->nv);
	p->pcie_gbps = !ca ? cb : !cb ? ca : ca < cb ? ca : cb;
	slow = !ca ? b : !cb ? a : ca < cb ? a : b;
	p->nvlinks = gp_nv_pair_links(v, ia, ib);
	p->ceiling_gbps = gp_nv_pair_ceiling(v, ia, ib);
	if (p->ceiling_gbps > 0) {
		p->ceiling_from = "nvlink";
		gp_bw_expect_nvlink(p->nvlinks, gp_nv_link_rate(&a->nv), &p->expected);
		return;
	}
	p->ceiling_gbps = p->pcie_gbps;
	p->ceiling_from = p->ceiling_gbps > 0 ? "pcie" : NULL;
	/* in the guest the path between them is the VM's: taken as one root complex */
	gp_bw_expect_pcie(gp_pcie_gen_gts(slow->nv.pcie_gen), slow->nv.pcie_width, GP_PATH_PHB,
			  true, NULL, 0, &p->expected);
}

/* Why a copy fell short of what the pair can be expected to reach: the likeliest cause. */
static const char *slow_cause(const struct gp_vpair *p)
{
	if (!strcmp(p->ceiling_from, "nvlink") && p->pcie_gbps > 0 &&
	    p->gbps_uni <= 1.1 * p->pcie_gbps)
		return "no faster than PCIe: the copy did not take the NVLinks (links down, or "
		       "the fabric not ready: nvidia-smi nvlink -s, nvidia-smi -q's Fabric)";
	if (!strcmp(p->ceiling_from, "nvlink"))
		return "fewer NVLinks carry it than NVML counts, or the GPUs are held back "
		       "(clocks, power: nvidia-smi -q -d PERFORMANCE)";
	if (p->gbps_uni < 0.5 * p->expected.gbps)
		return "P2P likely goes through the CPU or the IOMMU rather than straight between "
		       "the GPUs (ACS redirect on a bridge, a VM without ATS: gpuprov check's "
		       "p2p.acs on the host)";
	return "a link trained below its maximum (lspci's LnkSta), or other traffic on the path";
}

int gp_verify_predict(const struct gp_vgpu *g, int n, const struct gp_vpair *p, int np,
		      struct gp_expect *e)
{
	const struct gp_bw_ref *ar = gp_bw_find("allreduce-2-nvlink4-x18");
	double slowest = 0;
	bool nv18 = n == 2 && np > 0;
	int i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < np; i++) {
		nv18 = nv18 && p[i].nvlinks == 18 && gp_nv_link_rate(&g[p[i].from].nv) > 26.5 &&
		       gp_nv_link_rate(&g[p[i].from].nv) < 26.6;
		if (p[i].expected.gbps > 0 && (!slowest || p[i].expected.gbps < slowest))
			slowest = p[i].expected.gbps;
	}
	if (nv18 && ar) {
		e->gbps = ar->measured;
		snprintf(e->basis, sizeof(e->basis), "measured: %s", ar->measured_src);
		return 0;
	}
	if (!slowest)
		return -ENOENT;
	e->gbps = slowest;
	snprintf(e->basis, sizeof(e->basis),
		 "the slowest pair's expectation (a ring's bus bandwidth is its slowest link's)");
	return 0;
}

const char *gp_verify_nccl_cause(double busbw, double nop2p_busbw, double predicted)
{
	if (nop2p_busbw > 0 && busbw < 1.5 * nop2p_busbw)
		return "no faster than with NCCL_P2P_DISABLE=1: NCCL did not use P2P between the "
		       "GPUs (its transport, below)";
	if (busbw < 0.5 * predicted)
		return "NCCL chose a slower path than the links offer (its transport and P2P "
		       "level, below; NCCL_P2P_LEVEL, the topology file from nccl-topo)";
	return "other work on the GPUs, or clocks held back (nvidia-smi -q -d PERFORMANCE)";
}

static void add_why(struct gp_vpair *p, const char *s)
{
	size_t n = strlen(p->why);

	snprintf(p->why + n, sizeof(p->why) - n, "%s%s", n ? "; " : "", s);
}

static void judge_p2p(struct gp_vpair *p)
{
	if (p->p2p[0] > 0 || p->p2p[1] > 0) {
		p->verdict = GP_VERDICT_FAIL;
		add_why(p, "the driver refuses P2P reads or writes (NVML)");
	}
	if (!p->can_access) {
		p->verdict = GP_VERDICT_FAIL;
		add_why(p, "CUDA cannot access the peer (cuDeviceCanAccessPeer 0)");
	} else if (p->can_access > 0 && !p->peer_enabled) {
		p->verdict = GP_VERDICT_FAIL;
		add_why(p, "peer access could not be enabled");
	}
	if (p->readback_done && !p->readback_ok) {
		p->verdict = GP_VERDICT_FAIL;
		add_why(p, "what one GPU wrote does not read back on the other");
	}
}

static void judge_speed(struct gp_vpair *p, bool measured)
{
	char s[400];

	if (!measured || p->verdict == GP_VERDICT_FAIL)
		return;
	if (p->gbps_uni <= 0) {
		p->verdict = GP_VERDICT_FAIL;
		add_why(p, "no peer copy could be measured");
		return;
	}
	if (p->ceiling_gbps <= 0)
		return; /* nothing to compare with: said in the output */
	if (p->gbps_uni < GP_VERIFY_WARN_FRACTION * p->ceiling_gbps) {
		snprintf(s, sizeof(s), "one way %.1f GB/s is below %.0f%% of the %s ceiling %.1f",
			 p->gbps_uni, GP_VERIFY_WARN_FRACTION * 100, p->ceiling_from,
			 p->ceiling_gbps);
		p->verdict = GP_VERDICT_WARN;
		add_why(p, s);
	}
	if (p->expected.gbps > 0 && p->gbps_uni < GP_VERIFY_EXPECT_FRACTION * p->expected.gbps) {
		snprintf(s, sizeof(s), "one way %.1f GB/s is %.0f%% of the %.1f expected: %s",
			 p->gbps_uni, 100 * p->gbps_uni / p->expected.gbps, p->expected.gbps,
			 slow_cause(p));
		p->verdict = GP_VERDICT_WARN;
		add_why(p, s);
	}
	if (p->gbps_bidir > 0 && p->gbps_bidir < GP_VERIFY_WARN_FRACTION * 2 * p->ceiling_gbps) {
		snprintf(s, sizeof(s), "both ways %.1f GB/s is below %.0f%% of %.1f", p->gbps_bidir,
			 GP_VERIFY_WARN_FRACTION * 100, 2 * p->ceiling_gbps);
		p->verdict = GP_VERDICT_WARN;
		add_why(p, s);
	}
}

void gp_verify_judge(struct gp_vpair *p, bool measured)
{
	p->verdict = GP_VERDICT_OK;
	p->why[0] = 0;
	judge_p2p(p);
	judge_speed(p, measured);
}

double gp_allreduce_busbw(double algbw, int n)
{
	return n > 0 ? algbw * 2.0 * (n - 1) / n : 0;
}

const char *gp_verdict_name(enum gp_verdict v)
{
	static const char *const names[] = { "ok", "warn", "fail" };

	return names[v];
}

const char *gp_fabric_state_name(int state)
{
	static const char *const names[] = { "Not Supported", "Not Started", "In Progress",
					     "Completed" };

	return state >= 0 && state < 4 ? names[state] : "unknown";
}

enum gp_verdict gp_verify_fabric(const struct gp_nv_gpu *g, char *why, size_t len)
{
	why[0] = '\0';
	if (!g->fabric_read || g->fabric_state == GP_FABRIC_NOT_SUPPORTED)
		return GP_VERDICT_OK;
	if (g->fabric_state == GP_FABRIC_COMPLETED && !g->fabric_status) {
		snprintf(why, len, "fabric: Completed, Success, clique %u", g->fabric_clique);
		return GP_VERDICT_OK;
	}
	if (g->fabric_state == GP_FABRIC_COMPLETED) {
		snprintf(why, len,
			 "fabric: Completed with NVML error %d: Fabric Manager could not register "
			 "the GPU (its log says why; driver, Fabric Manager and NSCQ of one "
			 "version?)",
			 g->fabric_status);
		return GP_VERDICT_FAIL;
	}
	snprintf(why, len,
		 "fabric: %s: CUDA fails with error 802 (system not yet initialized) until "
		 "Fabric Manager has registered the GPU; run Fabric Manager (in the guest in full "
		 "passthrough, on the host with its partition activated in shared NVSwitch), then "
		 "power-cycle the guest",
		 gp_fabric_state_name(g->fabric_state));
	return GP_VERDICT_WARN;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Supported sizes of one ReBAR entry: capability bits 4..31 are 1 MiB..128 TiB. */
static uint64_t rebar_entry_max(uint32_t cap)
{
	int bit;

	for (bit = 31; bit >= 4; bit--)
		if (cap & (1u << bit))
			return (uint64_t)1 << (20 + bit - 4);
	return 0;
}

/* PCIe base spec 7.8.6: extended capability 0x15, entries of 8 bytes after the header. */
uint64_t gp_rebar_max(const uint8_t *cfg, size_t len)
{
	size_t pos = 0x100, hops = 0;
	uint64_t best = 0, m;
	unsigned i, nbars;

	while (pos >= 0x100 && pos + 4 <= len && hops++ < 64) {
		uint32_t h = le32(cfg + pos);

		if ((h & 0xffff) == 0x15 && pos + 12 <= len) {
			nbars = (le32(cfg + pos + 8) >> 5) & 7;
			for (i = 0; i < nbars && pos + 12 + 8 * i <= len; i++) {
				m = rebar_entry_max(le32(cfg + pos + 4 + 8 * i));
				best = m > best ? m : best;
			}
			return best;
		}
		if (!h || (h >> 20) <= pos)
			break; /* the list only goes forward */
		pos = h >> 20;
	}
	return best;
}

/* ---- the record ---- */

char *gp_vrecord_to_json(const struct gp_vrecord *r)
{
	json_object *doc = json_object_new_object(), *pairs = json_object_new_array();
	char *text;
	int i;

	json_object_object_add(doc, "verify_record", json_object_new_int(1));
	json_object_object_add(doc, "seen_at", json_object_new_string(r->when));
	json_object_object_add(doc, "busbw_gbps", json_object_new_double(r->busbw_gbps));
	json_object_object_add(doc, "bytes", json_object_new_int64((int64_t)r->bytes));
	json_object_object_add(doc, "ranks", json_object_new_int(r->ranks));
	for (i = 0; i < r->npairs; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "from", json_object_new_string(r->pairs[i].from));
		json_object_object_add(p, "to", json_object_new_string(r->pairs[i].to));
		json_object_object_add(p, "gbps_uni", json_object_new_double(r->pairs[i].gbps));
		json_object_array_add(pairs, p);
	}
	json_object_object_add(doc, "pairs", pairs);
	text = gp_xstrdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
	json_object_put(doc);
	return text;
}

/* A number member within [0, max], else -1. */
static double num_member(json_object *o, const char *key, double max)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)))
		return -1;
	d = json_object_get_double(v);
	return d >= 0 && d <= max ? d : -1;
}

static int bdf_member(json_object *o, const char *key, char out[GP_BDF_LEN])
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return -EINVAL;
	return gp_parse_bdf(json_object_get_string(v), out);
}

static int pairs_from_json(json_object *a, struct gp_vrecord *r, char *why, size_t len)
{
	size_t i, n = json_object_array_length(a);

	if (n > GP_VREC_MAX_PAIRS) {
		snprintf(why, len, "%zu pairs: too many", n);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(a, i);
		double g = p ? num_member(p, "gbps_uni", 1e5) : -1;

		if (!p || bdf_member(p, "from", r->pairs[i].from) ||
		    bdf_member(p, "to", r->pairs[i].to) || g < 0) {
			snprintf(why, len, "pair %zu: malformed", i);
			return -EINVAL;
		}
		r->pairs[i].gbps = g;
	}
	r->npairs = (int)n;
	return 0;
}

int gp_vrecord_from_json(const char *text, struct gp_vrecord *r, char *why, size_t len)
{
	json_object *doc = json_tokener_parse(text), *v, *pairs;
	int rc = -EINVAL;
	double busbw, bytes, ranks;

	memset(r, 0, sizeof(*r));
	if (!doc || !json_object_object_get_ex(doc, "verify_record", &v) ||
	    !json_object_object_get_ex(doc, "seen_at", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !json_object_object_get_ex(doc, "pairs", &pairs) ||
	    !json_object_is_type(pairs, json_type_array)) {
		snprintf(why, len, "not a verify record");
		goto out;
	}
	gp_strlcpy(r->when, json_object_get_string(v), sizeof(r->when));
	busbw = num_member(doc, "busbw_gbps", 1e5);
	bytes = num_member(doc, "bytes", 1e15);
	ranks = num_member(doc, "ranks", 4096);
	if (busbw < 0 || bytes < 0 || ranks < 0 || !gp_text_valid(r->when)) {
		snprintf(why, len, "not a verify record");
		goto out;
	}
	r->busbw_gbps = busbw;
	r->bytes = (uint64_t)bytes;
	r->ranks = (int)ranks;
	rc = pairs_from_json(pairs, r, why, len);
	r->kept = !rc;
out:
	json_object_put(doc);
	return rc;
}

double gp_vrecord_pair(const struct gp_vrecord *r, const char *a, const char *b)
{
	double back = 0;
	int i;

	for (i = 0; r->kept && i < r->npairs; i++) {
		if (!strcmp(r->pairs[i].from, a) && !strcmp(r->pairs[i].to, b))
			return r->pairs[i].gbps;
		if (!strcmp(r->pairs[i].from, b) && !strcmp(r->pairs[i].to, a))
			back = r->pairs[i].gbps;
	}
	return back;
}
