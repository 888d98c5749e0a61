// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NCCL's debug output and topology dump, read: see ncclexplain.h.
 *
 * The lines, as NVIDIA/nccl prints them (checked against v2.28.9-1; the
 * older forms where they differ):
 *   debug.cc      "HOST:PID:TID [DEV] NCCL INFO MSG", "... [DEV] FILE:LINE NCCL WARN MSG"
 *                 (a 1024-byte buffer: no line is longer)
 *   init.cc       "NCCL version 2.28.9+cuda13.0"
 *                 "ncclCommInitRankConfig comm 0x.. rank R nranks N cudaDev C nvmlDev D busId B ..."
 *   p2p.cc        "Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer" (one process),
 *                 "... via P2P/CUMEM", "... via P2P/IPC", "... via P2P/indirect/2[2]",
 *                 "/read" or "/CE" after it
 *   shm.cc        "Channel 00 : 0[0] -> 1[1] via SHM/direct/direct"
 *   net.cc        "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA", "[receive] ..."
 *   paths.cc      GRAPH: "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL) ..."
 *                 (before 2.19 "GPU/60 :GPU/60 (0/5000.000000/LOC) ...");
 *                 "NCCL_P2P_LEVEL set by environment to PHB", "NCCL_P2P_DISABLE set by
 *                 environment to 1", "P2P is disabled between connected GPUs 0 and 1. ...",
 *                 2.24 to 2.28: "GPU Direct RDMA Disabled for GPU 0 / HCA 1 (distance 9 > 5)",
 *                 "GPU Direct RDMA Enabled for GPU 0 / HCA 1 (distance 5 <= 5), read 0 mode
 *                 Default" (2.21 to 2.23: "for GPU 41000 / HCA ..." by busId; 2.29 makes
 *                 them TRACE, not printed)
 *   topo.cc       "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'", the dump's
 *                 <cpu arch= vendor= familyid= modelid=>, <pci busid=><gpu rank=>
 *   param.cc      "NCCL_X set by environment to 0."
 * The distance in the GDR lines is the index of topoPathTypeStr (topo.h),
 * whose list changed with the versions (path_names below).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ncclexplain.h"

/* topoPathTypeStr of each NCCL (src/graph/topo.cc, topo.h's PATH_* values) */
static const char *const paths_2_21[] = { "LOC", "NVL", "NVB", "PIX", "PXB", "PXN",
					  "PHB", "SYS", "NET", "DIS", NULL };
static const char *const paths_2_26[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
					  "PXN", "PHB", "SYS", "NET", "DIS", NULL };
static const char *const paths_2_27_3[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN",
					    "P2C", "PHB", "SYS", "NET", "DIS", NULL };
static const char *const paths_2_27_5[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C",
					    "PXN", "PHB", "SYS", "NET", "DIS", NULL };

static const char *const *path_names(int vcode)
{
	if (vcode && vcode < 22602)
		return paths_2_21;
	if (vcode && vcode < 22703)
		return paths_2_26;
	if (vcode && vcode < 22705)
		return paths_2_27_3;
	return paths_2_27_5;
}

/* A class's place in the newest order: the order between P2P levels is the same in all. */
static int path_rank(const char *name)
{
	int i;

	for (i = 0; paths_2_27_5[i]; i++)
		if (!strcmp(paths_2_27_5[i], name))
			return i;
	return -1;
}

void gp_nx_init(struct gp_nccl_explain *x)
{
	memset(x, 0, sizeof(*x));
	x->cpu.family = x->cpu.model = -1;
}

/* ---- small bounded scanners ---- */

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* A decimal int at *s (sign allowed), within [lo, hi]; advances *s. */
static bool dec(const char **s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(*s, &end, 10);
	if (end == *s || errno || v < lo || v > hi)
		return false;
	*out = (int)v;
	*s = end;
	return true;
}

static int hexdigit(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* Hex digits at *s (no sign, no 0x), at most 12 of them; advances *s. */
static bool hex(const char **s, int64_t *out)
{
	const char *p = *s;
	int64_t v = 0;
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; n < 13 && hexdigit(*p) >= 0; n++, p++)
		v = v * 16 + hexdigit(*p);
	if (!n || n > 12)
		return false;
	*out = v;
	*s = p;
	return true;
}

static bool lit(const char **s, const char *want)
{
	size_t n = strlen(want);

	if (strncmp(*s, want, n))
		return false;
	*s += n;
	return true;
}

/* A word (no space, no control) into out, bounded. */
static void word(const char *s, char *out, size_t len)
{
	size_t i = 0;

	while (s[i] && s[i] > ' ' && i + 1 < len) {
		out[i] = s[i];
		i++;
	}
	out[i] = '\0';
}

int gp_nx_busid(int64_t id, char out[GP_BDF_LEN])
{
	unsigned fn = (unsigned)(id & 0xf), dev = (unsigned)(id >> 4 & 0xff),
		 bus = (unsigned)(id >> 12 & 0xff), dom = (unsigned)(id >> 20);

	out[0] = '\0';
	if (id < 0 || id >> 20 > 0xffff || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, GP_BDF_LEN, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* NCCL's busIdToInt64: the hex digits of "0000:41:00.0" as one number; -1 for none. */
static int64_t busid_of(const char *bdf)
{
	int64_t v = 0;
	int n = 0;

	for (; *bdf && n < 12; bdf++) {
		if (*bdf == ':' || *bdf == '.')
			continue;
		if (hexdigit(*bdf) < 0)
			return -1;
		v = v * 16 + hexdigit(*bdf);
		n++;
	}
	return n ? v : -1;
}

/* ---- the log ---- */

static struct gp_nx_rank *rank_slot(struct gp_nccl_explain *x, int r)
{
	int i;

	for (i = 0; i < x->nranks; i++)
		if (x->ranks[i].rank == r)
			return &x->ranks[i];
	if (x->nranks >= GP_NX_MAX_GPUS)
		return NULL;
	x->ranks[x->nranks].rank = r;
	return &x->ranks[x->nranks++];
}

static void set_rank(struct gp_nccl_explain *x, int r, int64_t busid)
{
	struct gp_nx_rank *k = rank_slot(x, r);

	if (k && !k->bdf[0])
		gp_nx_busid(busid, k->bdf);
}

/* "ncclCommInit... rank R nranks N ... busId B ..." */
static void init_line(struct gp_nccl_explain *x, const char *m)
{
	const char *r = strstr(m, " rank "), *b = strstr(m, " busId ");
	int64_t id;
	int rank;

	if (!r || !b)
		return;
	r += 6;
	b += 7;
	if (dec(&r, 0, 1 << 20, &rank) && hex(&b, &id))
		set_rank(x, rank, id);
}

static enum gp_nx_kind kind_of(const char *t)
{
	if (prefix(t, "P2P/"))
		return GP_NX_P2P;
	if (prefix(t, "SHM/"))
		return GP_NX_SHM;
	if (prefix(t, "NET/"))
		return GP_NX_NET;
	if (prefix(t, "CollNet") || prefix(t, "NVLS"))
		return GP_NX_COLL;
	return GP_NX_UNKNOWN;
}

static void add_pair(struct gp_nccl_explain *x, int a, int b, const char *via)
{
	struct gp_nx_pair *p;
	char t[sizeof(p->transport)];
	int i;

	gp_strlcpy(t, via, sizeof(t));
	t[strcspn(t, "\r\n")] = '\0';
	for (i = 0; i < x->npairs; i++) {
		p = &x->pairs[i];
		if (p->a == a && p->b == b) {
			p->channels++;
			p->mixed |= strcmp(p->transport, t) != 0;
			return;
		}
	}
	if (x->npairs >= GP_NX_MAX_PAIRS)
		return;
	p = &x->pairs[x->npairs++];
	p->a = a;
	p->b = b;
	gp_strlcpy(p->transport, t, sizeof(p->transport));
	p->kind = kind_of(t);
	p->channels = 1;
	p->gdr = p->kind != GP_NX_NET ? -1 : strstr(t, "/GDRDMA") != NULL;
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA" */
static void channel_line(struct gp_nccl_explain *x, const char *m)
{
	const char *s = strstr(m, " : "), *via = strstr(m, " via ");
	int a, b, da, db;

	if (!s || !via)
		return;
	s += 3;
	if (!dec(&s, 0, 1 << 20, &a) || !lit(&s, "[") || !dec(&s, -1, 1 << 20, &da) ||
	    !lit(&s, "] -> ") || !dec(&s, 0, 1 << 20, &b) || !lit(&s, "[") ||
	    !dec(&s, -1, 1 << 20, &db) || !lit(&s, "]") || a == b)
		return;
	add_pair(x, a, b, via + 5);
}

/* One "ID" of a GRAPH line: "0-60" (system-local) or "60", the local part. */
static bool node_id(const char **s, int64_t *id)
{
	const char *p = *s;
	int64_t sys;

	if (!hex(&p, &sys))
		return false;
	if (*p == '-') {
		p++;
		if (!hex(&p, id))
			return false;
	} else {
		*id = sys;
	}
	*s = p;
	return true;
}

static void add_path(struct gp_nccl_explain *x, int64_t from, int64_t to, const char *type)
{
	int i;

	if (from == to)
		return;
	for (i = 0; i < x->npaths; i++)
		if (x->paths[i].from == from && x->paths[i].to == to)
			return;
	if (x->npaths >= GP_NX_MAX_PAIRS)
		return;
	x->paths[x->npaths].from = from;
	x->paths[x->npaths].to = to;
	gp_strlcpy(x->paths[x->npaths].type, type, sizeof(x->paths[0].type));
	x->npaths++;
}

/* "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL) NVS/0-0 (1/370.8/NVL) ..." */
static void graph_line(struct gp_nccl_explain *x, const char *m)
{
	const char *s = m + 4, *t, *q, *slash;
	int64_t from, to;
	char type[4];
	int n;

	if (!node_id(&s, &from) || !lit(&s, " :"))
		return;
	while ((t = strstr(s, "GPU/")) != NULL) {
		s = t + 4;
		if (!node_id(&s, &to) || !lit(&s, " (") || !(t = strchr(s, ')')))
			continue;
		/* "COUNT/BW/TYPE)": the type is after the last '/' before ')' */
		for (slash = NULL, q = s; q < t; q++)
			if (*q == '/')
				slash = q;
		n = slash ? (int)(t - slash - 1) : 0;
		if (n < 1 || n > 3)
			continue;
		memcpy(type, slash + 1, (size_t)n);
		type[n] = '\0';
		if (path_rank(type) < 0) /* only NCCL's own path names, never other bytes */
			continue;
		add_path(x, from, to, type);
	}
}

static void path_name(const struct gp_nccl_explain *x, int d, char out[4])
{
	const char *const *names = path_names(x->vcode);
	int i;

	out[0] = '\0';
	for (i = 0; names[i] && i < d; i++)
		;
	if (d >= 0 && names[i])
		gp_strlcpy(out, names[i], 4);
}

/*
 * "GPU Direct RDMA Disabled for GPU 0 / HCA 1 (distance 9 > 5)",
 * "GPU Direct RDMA Enabled for GPU 0 / HCA 1 (distance 5 <= 5), read 0 mode Default",
 * "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'"
 */
static void gdr_line(struct gp_nccl_explain *x, const char *m)
{
	const char *s = strstr(m, "GPU Direct RDMA ") + 16, *h;
	struct gp_nx_gdr *g;
	int d, lvl;

	if (x->ngdr >= GP_NX_MAX_GDR)
		return;
	g = &x->gdr[x->ngdr];
	memset(g, 0, sizeof(*g));
	if (lit(&s, "Enabled for "))
		g->enabled = true;
	else if (!lit(&s, "Disabled for "))
		return;
	if (lit(&s, "GPU ")) {
		word(s, g->gpu, sizeof(g->gpu));
		h = strstr(s, "/ HCA ");
		if (!h)
			return;
		word(h + 6, g->hca, sizeof(g->hca));
		s = strstr(h, "(distance ");
		if (s && (s += 10, dec(&s, 0, 64, &d)) && (lit(&s, " <= ") || lit(&s, " > ")) &&
		    dec(&s, 0, 64, &lvl)) {
			path_name(x, d, g->distance);
			path_name(x, lvl, g->level);
		}
	} else if (lit(&s, "HCA ")) {
		h = strchr(s, '\'');
		gp_strlcpy(g->hca, h ? h + 1 : s, sizeof(g->hca));
		g->hca[strcspn(g->hca, "'\r\n")] = '\0';
	} else {
		return;
	}
	x->ngdr++;
}

/* "NCCL_P2P_LEVEL set by environment to PHB", "NCCL_NVLS_ENABLE set by environment to 0." */
static void env_line(struct gp_nccl_explain *x, const char *m, const char *at)
{
	struct gp_nx_env *e;
	size_t n = (size_t)(at - m), v;
	int i;

	if (!prefix(m, "NCCL_") || n >= sizeof(e->name) || memchr(m, ' ', n))
		return;
	for (i = 0; i < x->nenv; i++)
		if (strlen(x->env[i].name) == n && !strncmp(x->env[i].name, m, n))
			return;
	if (x->nenv >= GP_NX_MAX_ENV)
		return;
	e = &x->env[x->nenv++];
	memcpy(e->name, m, n);
	e->name[n] = '\0';
	gp_strlcpy(e->value, at + strlen(" set by environment to "), sizeof(e->value));
	v = strcspn(e->value, "\r\n");
	e->value[v] = '\0';
	/* param.cc ends a number with '.': "0." */
	if (v > 1 && e->value[v - 1] == '.' && strspn(e->value, "-0123456789") == v - 1)
		e->value[v - 1] = '\0';
}

/* "P2P is disabled between connected GPUs 0 and 1" (and NVLINK connected ones, a WARN) */
static void p2p_off_line(struct gp_nccl_explain *x, const char *m)
{
	const char *s = strstr(m, "GPUs ");
	int a, b;

	if (!s || x->np2p_off >= GP_NX_MAX_GPUS)
		return;
	s += 5;
	if (!dec(&s, 0, 1 << 20, &a) || !lit(&s, " and ") || !dec(&s, 0, 1 << 20, &b))
		return;
	x->p2p_off[x->np2p_off][0] = a;
	x->p2p_off[x->np2p_off][1] = b;
	x->np2p_off++;
}

static void version_line(struct gp_nccl_explain *x, const char *m)
{
	const char *s = m + strlen("NCCL version ");
	int maj, min, pat;

	if (x->version[0])
		return;
	word(s, x->version, sizeof(x->version));
	if (dec(&s, 2, 9, &maj) && lit(&s, ".") && dec(&s, 0, 99, &min) && lit(&s, ".") &&
	    dec(&s, 0, 99, &pat))
		x->vcode = maj * 10000 + min * 100 + pat;
}

static void info(struct gp_nccl_explain *x, const char *m)
{
	const char *env = strstr(m, " set by environment to ");

	if (prefix(m, "NCCL version "))
		version_line(x, m);
	else if (prefix(m, "ncclCommInit"))
		init_line(x, m);
	else if (prefix(m, "Channel ") && strstr(m, " via "))
		channel_line(x, m);
	else if (prefix(m, "GPU/") && strstr(m, " :"))
		graph_line(x, m);
	else if (strstr(m, "GPU Direct RDMA "))
		gdr_line(x, m);
	else if (env)
		env_line(x, m, env);
	if (prefix(m, "P2P is disabled between "))
		p2p_off_line(x, m);
}

static void warn(struct gp_nccl_explain *x, const char *m)
{
	if (prefix(m, "P2P is disabled between "))
		p2p_off_line(x, m);
	if (x->nwarnings >= GP_NX_MAX_WARN) {
		x->warnings_dropped++;
		return;
	}
	gp_strlcpy(x->warnings[x->nwarnings], m, GP_NX_WARN_LEN);
	x->warnings[x->nwarnings][strcspn(x->warnings[x->nwarnings], "\r")] = '\0';
	x->nwarnings++;
}

static void one_line(struct gp_nccl_explain *x, char *l)
{
	char *m;

	if ((m = strstr(l, "NCCL INFO ")) != NULL) {
		x->lines++;
		info(x, m + 10);
	} else if ((m = strstr(l, "NCCL WARN ")) != NULL) {
		x->lines++;
		warn(x, m + 10);
	}
}

void gp_nx_log(struct gp_nccl_explain *x, const char *text, size_t len)
{
	char line[GP_NX_LINE_MAX];
	size_t at = 0, n;
	const char *nl;

	while (at < len) {
		nl = memchr(text + at, '\n', len - at);
		n = nl ? (size_t)(nl - (text + at)) : len - at;
		/* a longer line than NCCL writes is not NCCL's: its head is read all the same */
		memcpy(line, text + at, n < sizeof(line) ? n : sizeof(line) - 1);
		line[n < sizeof(line) ? n : sizeof(line) - 1] = '\0';
		one_line(x, line);
		at += n + 1;
	}
}

/* ---- the dump ---- */

/* Attribute name's value in the tag text [t, t+n) ('name="value"'), bounded into out. */
static bool attr(const char *t, size_t n, const char *name, char *out, size_t len)
{
	size_t k = strlen(name), i, j;

	for (i = 1; i + k + 2 <= n; i++) {
		if ((t[i - 1] != ' ' && t[i - 1] != '\t' && t[i - 1] != '\n') ||
		    strncmp(t + i, name, k) || t[i + k] != '=' || t[i + k + 1] != '"')
			continue;
		for (i += k + 2, j = 0; i < n && t[i] != '"' && t[i]; i++)
			if (j + 1 < len)
				out[j++] = t[i];
		out[j] = '\0';
		return true;
	}
	return false;
}

static int attr_int(const char *t, size_t n, const char *name)
{
	char v[16];
	const char *s = v;
	int64_t h;
	int d;

	if (!attr(t, n, name, v, sizeof(v)))
		return -1;
	if (prefix(v, "0x"))
		return hex(&s, &h) && h <= 1 << 20 ? (int)h : -1;
	return dec(&s, 0, 1 << 20, &d) ? d : -1;
}

static void cpu_tag(struct gp_nccl_explain *x, const char *t, size_t n)
{
	if (x->cpu.known) /* NCCL judges by its first CPU (ncclTopoCpuType) */
		return;
	x->cpu.known = true;
	attr(t, n, "arch", x->cpu.arch, sizeof(x->cpu.arch));
	attr(t, n, "vendor", x->cpu.vendor, sizeof(x->cpu.vendor));
	x->cpu.family = attr_int(t, n, "familyid");
	x->cpu.model = attr_int(t, n, "modelid");
}

void gp_nx_dump(struct gp_nccl_explain *x, const char *xml, size_t len)
{
	char busid[GP_BDF_LEN] = "";
	const char *t, *end;
	size_t at = 0, n;
	int rank;

	while (at < len && (t = memchr(xml + at, '<', len - at)) != NULL) {
		end = memchr(t, '>', len - (size_t)(t - xml));
		n = end ? (size_t)(end - t) : len - (size_t)(t - xml);
		if (n > 4 && !strncmp(t, "<cpu", 4) && (t[4] == ' ' || t[4] == '>'))
			cpu_tag(x, t, n);
		else if (n > 4 && !strncmp(t, "<pci ", 5) &&
			 !attr(t, n, "busid", busid, sizeof(busid)))
			busid[0] = '\0';
		else if (n > 4 && !strncmp(t, "<gpu ", 5)) {
			x->ngpus_dump++;
			rank = attr_int(t, n, "rank");
			if (rank >= 0 && busid[0])
				set_rank(x, rank, busid_of(busid));
		}
		at = (size_t)(t - xml) + n + 1;
	}
}

/* ---- the judgement ---- */

const char *gp_nx_env_get(const struct gp_nccl_explain *x, const char *name)
{
	int i;

	for (i = 0; i < x->nenv; i++)
		if (!strcmp(x->env[i].name, name))
			return x->env[i].value;
	return NULL;
}

const char *gp_nx_rank_bdf(const struct gp_nccl_explain *x, int r)
{
	int i;

	for (i = 0; i < x->nranks; i++)
		if (x->ranks[i].rank == r)
			return x->ranks[i].bdf;
	return "";
}

const char *gp_nx_kind_name(enum gp_nx_kind k)
{
	static const char *const names[] = { "unknown", "P2P", "SHM", "NET", "CollNet" };

	return k <= GP_NX_COLL ? names[k] : "unknown";
}

static const char *pair_path(const struct gp_nccl_explain *x, int a, int b)
{
	int64_t fa = busid_of(gp_nx_rank_bdf(x, a)), fb = busid_of(gp_nx_rank_bdf(x, b));
	int i;

	for (i = 0; fa >= 0 && fb >= 0 && i < x->npaths; i++)
		if (x->paths[i].from == fa && x->paths[i].to == fb)
			return x->paths[i].type;
	return "";
}

static bool amd_x86(const struct gp_nccl_explain *x)
{
	return !strcmp(x->cpu.arch, "x86_64") && !strcmp(x->cpu.vendor, "AuthenticAMD");
}

/*
 * The P2P level NCCL applies (paths.cc ncclTopoCheckP2p): NCCL_P2P_DISABLE=1
 * is LOC, NCCL_P2P_LEVEL is the user's; else PXB, and SYS on an x86 AMD CPU
 * with at most two GPUs.
 */
static const char *p2p_level(const struct gp_nccl_explain *x)
{
	const char *dis = gp_nx_env_get(x, "NCCL_P2P_DISABLE"),
		   *lvl = gp_nx_env_get(x, "NCCL_P2P_LEVEL");
	int ngpus = x->ngpus_dump ? x->ngpus_dump : x->nranks;

	if (dis && !strcmp(dis, "1"))
		return "LOC";
	if (lvl && path_rank(lvl) >= 0)
		return lvl;
	if (!x->cpu.known)
		return "";
	return amd_x86(x) && ngpus <= 2 ? "SYS" : "PXB";
}

static void advise(struct gp_nccl_explain *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void advise(struct gp_nccl_explain *x, const char *fmt, ...)
{
	char buf[GP_NX_ADV_LEN];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < x->nadvice; i++)
		if (!strcmp(x->advice[i], buf))
			return;
	if (x->nadvice < GP_NX_MAX_ADV)
		gp_strlcpy(x->advice[x->nadvice++], buf, GP_NX_ADV_LEN);
}

void gp_nx_cpu_words(const struct gp_nccl_explain *x, const char *sep, char *out, size_t len)
{
	if (!x->cpu.known)
		snprintf(out, len, "a CPU its dump does not show");
	else if (x->cpu.family >= 0)
		snprintf(out, len, "%s %s%s family %d model %d", x->cpu.arch, x->cpu.vendor, sep,
			 x->cpu.family, x->cpu.model);
	else
		snprintf(out, len, "%s %s", x->cpu.arch, x->cpu.vendor);
}

/* A pair in words, lower rank first: both directions give one piece of advice. */
static int lo(const struct gp_nx_pair *p)
{
	return p->a < p->b ? p->a : p->b;
}

static int hi(const struct gp_nx_pair *p)
{
	return p->a < p->b ? p->b : p->a;
}

/* A pair NCCL did not connect by P2P though its distance is beyond the level. */
static void beyond_level(struct gp_nccl_explain *x, const struct gp_nx_pair *p, int cuda_p2p)
{
	const char *user = gp_nx_env_get(x, "NCCL_P2P_LEVEL");
	char cpu[96];

	if (user) {
		advise(x,
		       "NCCL_P2P_LEVEL=%s is nearer than the path %s NCCL sees between ranks %d "
		       "and "
		       "%d: set NCCL_P2P_LEVEL=%s, or unset it",
		       p->p2p_level, p->path, lo(p), hi(p), p->path);
		return;
	}
	gp_nx_cpu_words(x, "", cpu, sizeof(cpu));
	advise(x,
	       "NCCL allows P2P up to %s by default (SYS only for an x86 AMD CPU with at most two "
	       "GPUs), saw %s and the path %s between ranks %d and %d: give the guest the file of "
	       "'gpuprov nccl-topo' in NCCL_TOPO_FILE, which places the GPUs as the host has "
	       "them; on an AMD host pass its CPU model to the VM (host-passthrough) so NCCL sees "
	       "AuthenticAMD%s",
	       p->p2p_level, cpu, p->path, lo(p), hi(p),
	       cuda_p2p > 0 ? "; or set NCCL_P2P_LEVEL=SYS: CUDA's peer access works here" : "");
}

/* A pair NCCL did not connect by P2P though the level allowed it: refused below NCCL. */
static void within_level(struct gp_nccl_explain *x, const struct gp_nx_pair *p, int cuda_p2p)
{
	if (x->np2p_off)
		advise(x,
		       "NVML reports P2P disabled between GPUs %d and %d (NCCL: 'P2P is disabled "
		       "between connected GPUs'): on the hypervisor run 'gpuprov check' (p2p.acs, "
		       "p2p.path, vm.qemu_clique)",
		       x->p2p_off[0][0], x->p2p_off[0][1]);
	else if (!cuda_p2p)
		advise(x,
		       "CUDA cannot map peer memory between the GPUs (the pairs above), so NCCL "
		       "went through %s: on the hypervisor run 'gpuprov check'",
		       gp_nx_kind_name(p->kind));
	else
		advise(x,
		       "NCCL chose %s between ranks %d and %d though its P2P level %s covers the "
		       "path "
		       "%s: run again with NCCL_DEBUG_SUBSYS=INIT,P2P to see why",
		       p->transport, lo(p), hi(p), p->p2p_level,
		       p->path[0] ? p->path : "(unknown)");
}

static void pair_advice(struct gp_nccl_explain *x, const struct gp_nx_pair *p, int cuda_p2p)
{
	const char *dis = gp_nx_env_get(x, "NCCL_P2P_DISABLE");

	if (p->kind != GP_NX_SHM && p->kind != GP_NX_NET)
		return;
	if (dis && !strcmp(dis, "1")) {
		advise(x, "NCCL_P2P_DISABLE=1 is set: NCCL uses no P2P at all; unset it");
		return;
	}
	if (!p->path[0] || !p->p2p_level[0]) {
		advise(x,
		       "NCCL chose %s between ranks %d and %d and its log does not show the path "
		       "it judged: give the guest the file of 'gpuprov nccl-topo' in "
		       "NCCL_TOPO_FILE",
		       p->transport, lo(p), hi(p));
		return;
	}
	if (path_rank(p->path) > path_rank(p->p2p_level))
		beyond_level(x, p, cuda_p2p);
	else
		within_level(x, p, cuda_p2p);
}

static void gdr_advice(struct gp_nccl_explain *x, const struct gp_nx_gdr *g)
{
	if (g->enabled)
		return;
	if (!g->gpu[0]) {
		advise(x,
		       "HCA %s has no GPUDirect RDMA (neither NVIDIA's peer memory module nor "
		       "dma-buf in the guest): load nvidia-peermem, or use a kernel and driver "
		       "with dma-buf",
		       g->hca);
		return;
	}
	if (g->distance[0] && g->level[0])
		advise(x,
		       "GPUDirect RDMA is off between GPU %s and HCA %s: their path %s is farther "
		       "than NCCL_NET_GDR_LEVEL %s; pass the NIC beside its GPU ([nic] mode = "
		       "passthrough, the file of 'gpuprov nccl-topo'), or set "
		       "NCCL_NET_GDR_LEVEL=%s "
		       "where the host's path carries it",
		       g->gpu, g->hca, g->distance, g->level, g->distance);
}

void gp_nx_finish(struct gp_nccl_explain *x, int cuda_p2p)
{
	const char *lvl = p2p_level(x);
	int i;

	for (i = 0; i < x->npairs; i++) {
		struct gp_nx_pair *p = &x->pairs[i];

		gp_strlcpy(p->path, pair_path(x, p->a, p->b), sizeof(p->path));
		gp_strlcpy(p->p2p_level, lvl, sizeof(p->p2p_level));
	}
	for (i = 0; i < x->npairs; i++)
		pair_advice(x, &x->pairs[i], cuda_p2p);
	for (i = 0; i < x->ngdr; i++)
		gdr_advice(x, &x->gdr[i]);
	if (x->lines && !x->npairs)
		advise(x, "NCCL's log names no channel: it connected no pair (see its warnings)");
}
