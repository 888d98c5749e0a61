// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVLink cells and ceilings from what NVML said of each GPU's links, and the
 * record of it that apply keeps.  `nvidia-smi topo -m` prints NV# where #
 * is the number of links joining the two GPUs: links from one straight to
 * the other, or, on NVSwitch systems, the links each GPU has into the
 * switches (every GPU reaches every other through them), the smaller of
 * the two counts when they differ.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "shared/util.h"
#include "core/nvlink.h"

int gp_nv_links_up(const struct gp_nv_gpu *g)
{
	int i, n = 0;

	for (i = 0; i < g->nlinks && i < GP_NV_MAX_LINKS; i++)
		n += g->links[i].up;
	return n;
}

/*
 * GB/s per link and direction by the version code NVML gives
 * (nvmlNvlinkVersion_t): 1.0 20, 2.x and 3.x 25, 4.0 (Hopper) 26.5625 as
 * nvidia-smi prints it (26.562), 5.0 (Blackwell) 50.
 */
double gp_nv_rate_for_version(unsigned version)
{
	if (version == 1)
		return 20.0;
	if (version >= 2 && version <= 5)
		return 25.0;
	if (version == 6)
		return 26.5625;
	if (version == 7)
		return 50.0;
	return 0;
}

double gp_nv_link_rate(const struct gp_nv_gpu *g)
{
	return g->link_gbps > 0 ? g->link_gbps : gp_nv_rate_for_version(g->version);
}

int gp_nv_find(const struct gp_nv_view *v, const char *bdf)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->gpus[i].bdf, bdf))
			return i;
	return -1;
}

static int links_to(const struct gp_nv_gpu *g, const char *bdf)
{
	int i, n = 0;

	for (i = 0; i < g->nlinks && i < GP_NV_MAX_LINKS; i++)
		n += g->links[i].up && g->links[i].remote_type == GP_NV_REMOTE_GPU &&
		     !strcmp(g->links[i].remote, bdf);
	return n;
}

static int links_to_switch(const struct gp_nv_gpu *g)
{
	int i, n = 0;

	for (i = 0; i < g->nlinks && i < GP_NV_MAX_LINKS; i++)
		n += g->links[i].up && g->links[i].remote_type == GP_NV_REMOTE_SWITCH;
	return n;
}

bool gp_nv_via_switch(const struct gp_nv_view *v, int a, int b)
{
	if (a < 0 || b < 0 || a >= v->n || b >= v->n || a == b)
		return false;
	return !links_to(&v->gpus[a], v->gpus[b].bdf) && links_to_switch(&v->gpus[a]) &&
	       links_to_switch(&v->gpus[b]);
}

int gp_nv_pair_links(const struct gp_nv_view *v, int a, int b)
{
	int na, nb;

	if (a < 0 || b < 0 || a >= v->n || b >= v->n || a == b)
		return 0;
	na = links_to(&v->gpus[a], v->gpus[b].bdf);
	if (na)
		return na;
	na = links_to_switch(&v->gpus[a]);
	nb = links_to_switch(&v->gpus[b]);
	return na < nb ? na : nb;
}

double gp_nv_pair_ceiling(const struct gp_nv_view *v, int a, int b)
{
	double ra, rb;
	int n = gp_nv_pair_links(v, a, b);

	if (!n)
		return 0;
	ra = gp_nv_link_rate(&v->gpus[a]);
	rb = gp_nv_link_rate(&v->gpus[b]);
	if (!ra || (rb && rb < ra))
		ra = rb;
	return n * ra;
}

void gp_nv_view_release(struct gp_nv_view *v)
{
	free(v->gpus);
	v->gpus = NULL;
	v->n = 0;
}

int gp_nv_bdf(const char *in, char out[GP_NV_BDF_LEN])
{
	char buf[GP_BDF_LEN];
	const char *colon = strchr(in, ':');
	unsigned long dom;
	char *end;

	/* NVML writes an 8-digit domain: "00000000:06:00.0" */
	if (colon && colon - in == 8) {
		dom = strtoul(in, &end, 16);
		if (end != colon || dom > 0xffff)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%04lx%.12s", dom, colon);
		in = buf;
	}
	return gp_parse_bdf(in, out);
}

/* ---- the record ---- */

static json_object *link_json(const struct gp_nv_link *l)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "up", json_object_new_boolean(l->up));
	json_object_object_add(o, "remote_type", json_object_new_int(l->remote_type));
	json_object_object_add(o, "remote", json_object_new_string(l->remote));
	return o;
}

static json_object *gpu_json(const struct gp_nv_gpu *g)
{
	json_object *o = json_object_new_object(), *links = json_object_new_array();
	int i;

	json_object_object_add(o, "bdf", json_object_new_string(g->bdf));
	json_object_object_add(o, "name", json_object_new_string(g->name));
	json_object_object_add(o, "version", json_object_new_int((int)g->version));
	json_object_object_add(o, "link_gbps", json_object_new_double(g->link_gbps));
	json_object_object_add(o, "bar1_bytes", json_object_new_uint64(g->bar1));
	for (i = 0; i < g->nlinks && i < GP_NV_MAX_LINKS; i++)
		json_object_array_add(links, link_json(&g->links[i]));
	json_object_object_add(o, "links", links);
	return o;
}

json_object *gp_nv_to_json(const struct gp_nv_view *v, const char *seen_at)
{
	json_object *o = json_object_new_object(), *gpus = json_object_new_array();
	int i;

	json_object_object_add(o, "nvlink_record", json_object_new_int(1));
	json_object_object_add(o, "seen_at", json_object_new_string(seen_at));
	for (i = 0; i < v->n; i++)
		json_object_array_add(gpus, gpu_json(&v->gpus[i]));
	json_object_object_add(o, "gpus", gpus);
	return o;
}

static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) || !json_object_is_type(m, type))
		return NULL;
	return m;
}

static int str_member(json_object *o, const char *key, char *out, size_t len)
{
	json_object *m = member(o, key, json_type_string);

	if (!m || (size_t)json_object_get_string_len(m) >= len)
		return -EINVAL;
	memcpy(out, json_object_get_string(m), (size_t)json_object_get_string_len(m) + 1);
	return 0;
}

static int link_from_json(json_object *o, struct gp_nv_link *l)
{
	json_object *up = member(o, "up", json_type_boolean);
	json_object *type = member(o, "remote_type", json_type_int);
	char remote[GP_NV_BDF_LEN];

	if (!up || !type || str_member(o, "remote", remote, sizeof(remote)))
		return -EINVAL;
	l->up = json_object_get_boolean(up);
	l->remote_type = json_object_get_int(type);
	if (remote[0] && gp_nv_bdf(remote, l->remote))
		return -EINVAL;
	return 0;
}

static int gpu_from_json(json_object *o, struct gp_nv_gpu *g)
{
	json_object *links = member(o, "links", json_type_array);
	json_object *ver = member(o, "version", json_type_int);
	json_object *rate = json_object_object_get(o, "link_gbps");
	json_object *bar1 = member(o, "bar1_bytes", json_type_int);
	char bdf[GP_NV_BDF_LEN];
	size_t i;

	if (!links || !ver || str_member(o, "bdf", bdf, sizeof(bdf)) || gp_nv_bdf(bdf, g->bdf) ||
	    str_member(o, "name", g->name, sizeof(g->name)) ||
	    json_object_array_length(links) > GP_NV_MAX_LINKS)
		return -EINVAL;
	if (json_object_get_int(ver) < 0)
		return -EINVAL;
	g->version = (unsigned)json_object_get_int(ver);
	g->link_gbps = rate ? json_object_get_double(rate) : 0;
	if (!(g->link_gbps >= 0 && g->link_gbps < 1e4))
		return -EINVAL; /* NaN, negative or absurd */
	g->bar1 = bar1 ? json_object_get_uint64(bar1) : 0;
	g->nlinks = (int)json_object_array_length(links);
	for (i = 0; i < (size_t)g->nlinks; i++)
		if (link_from_json(json_object_array_get_idx(links, i), &g->links[i]))
			return -EINVAL;
	return 0;
}

int gp_nv_from_json(const char *text, struct gp_nv_view *v, char *why, size_t len)
{
	json_object *doc = json_tokener_parse(text), *gpus;
	size_t i, n;
	int rc = -EINVAL;

	memset(v, 0, sizeof(*v));
	gpus = doc ? member(doc, "gpus", json_type_array) : NULL;
	if (!gpus || !member(doc, "nvlink_record", json_type_int) ||
	    str_member(doc, "seen_at", v->seen_at, sizeof(v->seen_at))) {
		snprintf(why, len, "not an NVLink record");
		goto out;
	}
	n = json_object_array_length(gpus);
	if (n > 4096) {
		snprintf(why, len, "%zu GPUs: too many", n);
		goto out;
	}
	v->gpus = gp_xcalloc(n ? n : 1, sizeof(*v->gpus));
	for (i = 0; i < n; i++)
		if (gpu_from_json(json_object_array_get_idx(gpus, i), &v->gpus[i])) {
			snprintf(why, len, "GPU %zu: malformed", i);
			gp_nv_view_release(v);
			goto out;
		}
	v->n = (int)n;
	v->source = GP_NV_REMEMBERED;
	rc = 0;
out:
	json_object_put(doc);
	return rc;
}
