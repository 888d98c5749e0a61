// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov verify: inside the VM (or on bare metal), that the GPUs really do
 * P2P — NVML's P2P status, cuDeviceCanAccessPeer, a pattern one GPU writes
 * into the other's memory read back there, peer copy bandwidth against the
 * link's ceiling, and NCCL's all-reduce when libnccl.so.2 is there.
 * Read-only: it enables peer access in its own CUDA contexts and changes no
 * GPU setting.  Exit: 0 ok, 1 a pair below its ceiling's fraction, 2 P2P
 * refused or read-back wrong, 3 no driver/NVML/CUDA or fewer than two GPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "sys/cudadrv.h"
#include "core/model.h"
#include "host/host.h"
#include "host/nvread.h"
#include "sys/nccl.h"
#include "sys/nvml.h"
#include "shared/progress.h"
#include "cli/out.h"
#include "core/verify.h"
#include "core/nccl_topo.h"
#include "cli/verify_nccl.h"
#include "act/nvrecord.h"
#include "shared/rootfs.h"
#include "shared/trust.h"

#define MiB (1ull << 20)

static const size_t nccl_sizes[] = { 64 * MiB, 256 * MiB, 1024 * MiB };

struct vrun {
	const struct gp_ctx *ctx;
	struct gp_nv_view nv; /* NVML's GPUs, index for index with g */
	struct gp_vgpu *g;
	int n;
	struct gp_vpair *p;
	int np;
	char driver[80];
	size_t bytes, rb_bytes;
	int iters;
	bool measured;
	struct gp_nccl_runs nccl, cmp;
	enum gp_verdict nccl_verdict;
	char nccl_why[600];
	struct gp_expect predicted; /* the all-reduce's bus bandwidth; gbps 0 unknown */
	const char *topo_path;	    /* NCCL_TOPO_FILE, NULL when unset */
	int topo_read_rc;	    /* the file could not be read: why */
	int topo_rc;		    /* -EINVAL: no topology file */
	struct gp_nccl_match topo;
	struct gp_nccl_explain *nx; /* NCCL's own account of the all-reduce, NULL: nx_why */
	char nx_why[200];
	char nx_cause[160];
};

static void sizes(const struct gp_ctx *ctx, struct vrun *v)
{
	v->bytes = ctx->size ? ctx->size : ctx->opt[GP_OPT_QUICK] ? 16 * MiB : 256 * MiB;
	v->iters = ctx->opt[GP_OPT_QUICK] ? 5 : 20;
	v->rb_bytes = v->bytes < 64 * MiB ? v->bytes : 64 * MiB;
	if (ctx->opt[GP_OPT_QUICK] && v->rb_bytes > MiB)
		v->rb_bytes = MiB;
}

static const char *nccl_lib(const struct gp_ctx *ctx)
{
	return ctx->opt[GP_OPT_NCCL_LIB] ? ctx->opt[GP_OPT_NCCL_LIB] : "libnccl.so.2";
}

static bool nccl_wanted(const struct gp_ctx *ctx)
{
	return !ctx->opt[GP_OPT_QUICK] && !ctx->opt[GP_OPT_NO_NCCL];
}

/*
 * As root, --nccl-lib's file runs as root once loaded: only root may be
 * able to change it, as for the templates (a virtualenv's copy is its
 * user's).  A name without '/' is looked up by the loader, not at the path
 * checked, so as root it must be a path.
 */
static int nccl_lib_safe(const struct gp_ctx *ctx)
{
	const char *lib = ctx->opt[GP_OPT_NCCL_LIB];

	if (!lib || !nccl_wanted(ctx) || geteuid())
		return 0;
	if (!strchr(lib, '/')) {
		gp_err("--nccl-lib '%s': as root give a path (with a '/'): a name is looked up "
		       "by the loader, not where gpuprov can check who may change it",
		       lib);
		return GP_EXIT_INPUT;
	}
	return gp_trust(lib, GP_TRUST_FILE) ? GP_EXIT_INPUT : 0;
}

/*
 * NCCL reads NCCL_P2P_DISABLE once per process: the run without P2P is a
 * child of its own, started before this process touches CUDA (a fork after
 * cuInit is not allowed), its numbers sent back through a pipe.
 */
static void compare_run(const struct gp_ctx *ctx, struct gp_nccl_runs *out)
{
	struct gp_cuda *c;
	char why[160];
	int fd[2], status;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->tried = true;
	gp_progress("NCCL all-reduce with P2P off (NCCL_P2P_DISABLE=1), in a child");
	fflush(NULL);
	if (pipe(fd) || (pid = fork()) < 0) {
		snprintf(out->why, sizeof(out->why), "cannot start the run: %s", strerror(errno));
		return;
	}
	if (!pid) {
		close(fd[0]);
		setenv("NCCL_P2P_DISABLE", "1", 1);
		if (gp_cuda_open(&c, why, sizeof(why)))
			snprintf(out->why, sizeof(out->why), "%s", why);
		else
			gp_nccl_allreduce(c, nccl_lib(ctx), nccl_sizes, 3, 5, out);
		if (write(fd[1], out, sizeof(*out)) != (ssize_t)sizeof(*out))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], out, sizeof(*out)) != (ssize_t)sizeof(*out)) {
		memset(out, 0, sizeof(*out));
		out->tried = true;
		snprintf(out->why, sizeof(out->why), "the run without P2P ended without a result");
	}
	close(fd[0]);
	waitpid(pid, &status, 0);
	out->why[sizeof(out->why) - 1] = 0;
}

static int cuda_index(struct gp_cuda *c, const char *bdf)
{
	int i;

	for (i = 0; i < gp_cuda_count(c); i++)
		if (!strcmp(gp_cuda_bdf(c, i), bdf))
			return i;
	return -1;
}

static void gpus(struct vrun *v, struct gp_cuda *c)
{
	int rootfd = gp_root_open(v->ctx->root), i;

	v->n = v->nv.n;
	v->g = gp_xcalloc((size_t)v->n + 1, sizeof(*v->g));
	for (i = 0; i < v->n; i++) {
		struct gp_vgpu *g = &v->g[i];

		g->nv = v->nv.gpus[i];
		g->cuda = cuda_index(c, g->nv.bdf);
		if (rootfd >= 0 || rootfd == AT_FDCWD)
			gp_host_bar_max(rootfd, g->nv.bdf, &g->bar_bytes);
		g->bar_small = g->nv.bar1 && g->bar_bytes && g->nv.bar1 < g->bar_bytes;
	}
	gp_root_close(rootfd);
}

/* NVML's and CUDA's view of one ordered pair, peer access enabled where allowed. */
static void pair_access(struct vrun *v, struct gp_nvml *nv, struct gp_cuda *c, int i, int j)
{
	struct gp_vpair *p = &v->p[v->np++];

	p->from = i;
	p->to = j;
	gp_nvml_p2p(nv, i, j, p->p2p);
	p->can_access = gp_cuda_can_access(c, v->g[i].cuda, v->g[j].cuda);
	if (p->can_access > 0)
		p->peer_enabled = !gp_cuda_enable_peer(c, v->g[i].cuda, v->g[j].cuda);
	if (p->can_access > 0 && !p->peer_enabled)
		gp_warn("GPU%d->GPU%d: %s", i, j, gp_cuda_error(c));
	gp_verify_ceiling(p, &v->g[i], &v->g[j], &v->nv, i, j);
}

static void pair_tests(struct vrun *v, struct gp_cuda *c, struct gp_vpair *p)
{
	struct gp_readback rb;
	int a = v->g[p->from].cuda, b = v->g[p->to].cuda;

	gp_progress("GPU%d->GPU%d: read-back, then peer copies of %zu MiB x %d", p->from, p->to,
		    v->bytes >> 20, v->iters);
	if (p->peer_enabled) {
		if (gp_cuda_readback(c, a, b, v->rb_bytes, &rb))
			gp_warn("GPU%d->GPU%d read-back: %s", p->from, p->to, gp_cuda_error(c));
		else {
			p->readback_done = true;
			p->readback_ok = rb.ok;
			p->readback_kernel = rb.by_kernel;
			p->mismatches = rb.mismatches;
			p->words = rb.words;
		}
	}
	if (gp_cuda_bandwidth(c, a, b, v->bytes, v->iters, &p->gbps_uni, &p->gbps_bidir))
		gp_warn("GPU%d->GPU%d bandwidth: %s", p->from, p->to, gp_cuda_error(c));
}

static void pairs(struct vrun *v, struct gp_nvml *nv, struct gp_cuda *c)
{
	int i, j;

	v->p = gp_xcalloc((size_t)v->n * (size_t)v->n + 1, sizeof(*v->p));
	for (i = 0; i < v->n; i++)
		for (j = 0; j < v->n; j++)
			if (i != j && v->g[i].cuda >= 0 && v->g[j].cuda >= 0)
				pair_access(v, nv, c, i, j);
	for (i = 0; i < v->np; i++) {
		pair_tests(v, c, &v->p[i]);
		gp_verify_judge(&v->p[i], true);
	}
	v->measured = true;
}

/* NCCL's own word when it connected a pair without P2P: the cause, before any guess. */
static const char *without_p2p(struct vrun *v)
{
	static const char fmt[] = "NCCL itself connected ranks %d and %d through %s, not P2P "
				  "(its own account below says why)";
	int i;

	for (i = 0; v->nx && i < v->nx->npairs; i++) {
		const struct gp_nx_pair *p = &v->nx->pairs[i];

		if (p->kind == GP_NX_SHM || p->kind == GP_NX_NET) {
			snprintf(v->nx_cause, sizeof(v->nx_cause), fmt, p->a, p->b,
				 gp_tv(p->transport));
			return v->nx_cause;
		}
	}
	return NULL;
}

/* Below GP_VERIFY_EXPECT_FRACTION of the prediction: a warning naming the likely cause. */
static void nccl_vs_prediction(struct vrun *v, const struct gp_nccl_point *last)
{
	double nop2p = v->cmp.ok && v->cmp.npoints ? v->cmp.points[v->cmp.npoints - 1].busbw : 0;
	size_t n = strlen(v->nccl_why);

	if (v->predicted.gbps <= 0 || last->busbw >= GP_VERIFY_EXPECT_FRACTION * v->predicted.gbps)
		return;
	v->nccl_verdict = GP_VERDICT_WARN;
	snprintf(v->nccl_why + n, sizeof(v->nccl_why) - n,
		 "%sbus bandwidth %.1f GB/s is %.0f%% of the predicted %.1f: %s", n ? "; " : "",
		 last->busbw, 100 * last->busbw / v->predicted.gbps, v->predicted.gbps,
		 without_p2p(v) ? without_p2p(v)
				: gp_verify_nccl_cause(last->busbw, nop2p, v->predicted.gbps));
}

/* The all-reduce: a failure fails, a bus bandwidth below the fraction of the slowest pair warns. */
static void nccl_judge(struct vrun *v)
{
	const struct gp_nccl_point *last;
	double floor = 0;
	int i;

	if (!v->nccl.tried)
		return;
	if (!v->nccl.ok || !v->nccl.npoints) {
		v->nccl_verdict = GP_VERDICT_FAIL;
		snprintf(v->nccl_why, sizeof(v->nccl_why), "the all-reduce failed: %s",
			 v->nccl.why);
		return;
	}
	last = &v->nccl.points[v->nccl.npoints - 1];
	for (i = 0; i < v->np; i++)
		if (v->p[i].ceiling_gbps > 0 && (!floor || v->p[i].ceiling_gbps < floor))
			floor = v->p[i].ceiling_gbps;
	if (floor && last->busbw < GP_VERIFY_WARN_FRACTION * floor) {
		v->nccl_verdict = GP_VERDICT_WARN;
		snprintf(v->nccl_why, sizeof(v->nccl_why),
			 "bus bandwidth %.1f GB/s is below %.0f%% of the slowest pair's ceiling "
			 "%.1f GB/s",
			 last->busbw, GP_VERIFY_WARN_FRACTION * 100, floor);
	}
	nccl_vs_prediction(v, last);
}

static bool topo_matches(const struct vrun *v)
{
	return !v->topo_read_rc && !v->topo_rc && !v->topo.nmissing && !v->topo.nunknown;
}

/*
 * NCCL_TOPO_FILE as this process inherited it, against the GPUs NVML sees: a
 * stale file makes NCCL ignore it or place GPUs that are not there.  The file
 * is the operator's but hostile all the same: the one safe reader, bounded,
 * refusing a FIFO or a device.
 */
static void topo_check(struct vrun *v)
{
	char(*seen)[GP_BDF_LEN];
	char *text;
	ssize_t len;
	int i;

	v->topo_path = getenv("NCCL_TOPO_FILE");
	if (v->topo_path && !v->topo_path[0])
		v->topo_path = NULL;
	if (!v->topo_path)
		return;
	len = gp_root_slurp(AT_FDCWD, v->topo_path, GP_READ_MAX, &text);
	if (len < 0) {
		v->topo_read_rc = (int)len;
		return;
	}
	seen = gp_xcalloc((size_t)v->n + 1, sizeof(*seen));
	for (i = 0; i < v->n; i++)
		gp_strlcpy(seen[i], v->g[i].nv.bdf, sizeof(seen[i]));
	v->topo_rc = gp_nccl_topo_match(text, (size_t)len, (const char(*)[GP_BDF_LEN])seen, v->n,
					&v->topo);
	free(seen);
	free(text);
}

static const char *topo_error(const struct vrun *v)
{
	if (v->topo_read_rc)
		return gp_root_strerror(v->topo_read_rc);
	return v->topo_rc ? "not an NCCL topology file (no <system>)" : NULL;
}

static int overall(const struct vrun *v)
{
	enum gp_verdict worst = v->nccl_verdict;
	int i;

	if (v->topo_path && !topo_matches(v) && worst < GP_VERDICT_WARN)
		worst = GP_VERDICT_WARN; /* never lowers an NCCL failure */

	for (i = 0; i < v->np; i++)
		worst = v->p[i].verdict > worst ? v->p[i].verdict : worst;
	for (i = 0; i < v->n; i++)
		if (v->g[i].bar_small && worst < GP_VERDICT_WARN)
			worst = GP_VERDICT_WARN;
	for (i = 0; i < v->n; i++) {
		char why[400];
		enum gp_verdict f = gp_verify_fabric(&v->g[i].nv, why, sizeof(why));

		worst = f > worst ? f : worst;
	}
	return worst == GP_VERDICT_FAIL	  ? GP_EXIT_FAIL
	       : worst == GP_VERDICT_WARN ? GP_EXIT_WARN
					  : GP_EXIT_OK;
}

/* ---- text ---- */

static void size_text(uint64_t b, char *buf, size_t len)
{
	if (!b)
		snprintf(buf, len, "-");
	else
		gp_format_size(b, buf, len);
}

/* The NAME column as wide as the longest name (NVML's, such as "NVIDIA H200"). */
static int name_width(const struct vrun *v)
{
	int i, w = 4, k;

	for (i = 0; i < v->n; i++) {
		k = (int)strlen(gp_tv(v->g[i].nv.name));
		if (k > w)
			w = k;
	}
	return w;
}

/* Under a GPU of an NVSwitch fabric: its registration, and what to do while it is not done. */
static void fabric_text(const struct gp_vgpu *g)
{
	char why[400];

	gp_verify_fabric(&g->nv, why, sizeof(why));
	if (!why[0])
		return;
	printf("%6s", "");
	gp_wrapf(6, 6, "%s", why);
}

/* A GPU's row: its cells as sizes and words, a note wrapped under it. */
static void gpu_text(const struct gp_vgpu *g, int i, int nw)
{
	char bar1[32], bar[32], links[64];

	size_text(g->nv.bar1, bar1, sizeof(bar1));
	size_text(g->bar_bytes, bar, sizeof(bar));
	snprintf(links, sizeof(links), "%d up", gp_nv_links_up(&g->nv));
	if (gp_nv_links_up(&g->nv) && gp_nv_link_rate(&g->nv) > 0)
		snprintf(links + strlen(links), sizeof(links) - strlen(links), ", %.3f GB/s each",
			 gp_nv_link_rate(&g->nv));
	gp_wrapf(0, 6, "GPU%-2d %-13s %-*s  %-8s %-8s %s%s", i, gp_tv(g->nv.bdf), nw,
		 gp_tv(g->nv.name), bar1, bar, links,
		 g->cuda < 0 ? "  (not visible to CUDA: not tested)" : "");
	fabric_text(g);
	if (g->bar_small) {
		printf("%6s", "");
		gp_wrapf(6, 6,
			 "vm.mmio: BAR1 is %s, the card advertises %s: the VM's 64-bit "
			 "MMIO window is too small (see gpuprov check on the host)",
			 bar1, bar);
	}
}

static enum gp_tone tone(enum gp_verdict v)
{
	return v == GP_VERDICT_OK ? GP_TONE_OK : v == GP_VERDICT_WARN ? GP_TONE_WARN : GP_TONE_FAIL;
}

static const char *p2p_short(int s)
{
	return s == 0 ? "ok" : s < 0 ? "?" : "no";
}

/*
 * A pair's row, its verdict last; under it how far one way got of the
 * ceiling, and what went wrong, wrapped under the row.
 */
static void pair_text(const struct gp_vpair *p)
{
	char cell[16], uni[24], bidir[24];

	snprintf(cell, sizeof(cell), "GPU%d->GPU%d", p->from, p->to);
	snprintf(uni, sizeof(uni), "%.1f GB/s", p->gbps_uni);
	snprintf(bidir, sizeof(bidir), "%.1f GB/s", p->gbps_bidir);
	printf("%-11s %s/%s/%s/%s  %-5s %-9s %-11s %-11s ", cell, p2p_short(p->p2p[GP_P2P_READ]),
	       p2p_short(p->p2p[GP_P2P_WRITE]), p2p_short(p->p2p[GP_P2P_NVLINK]),
	       p2p_short(p->p2p[GP_P2P_ATOMICS]),
	       p->can_access > 0    ? "yes"
	       : p->can_access == 0 ? "no"
				    : "?",
	       !p->readback_done ? "-"
	       : p->readback_ok	 ? "ok"
				 : "MISMATCH",
	       uni, bidir);
	gp_fprintf_tone(stdout, tone(p->verdict), "%s", gp_verdict_name(p->verdict));
	printf("\n");
	if (p->ceiling_gbps > 0 && p->expected.gbps > 0)
		gp_wrapf(0, 12,
			 "%12sone way %.0f%% of the %s ceiling, %.1f GB/s; %.0f%% of the %.1f "
			 "expected (%s)",
			 "", 100 * p->gbps_uni / p->ceiling_gbps,
			 !strcmp(p->ceiling_from, "nvlink") ? "NVLink" : "PCIe", p->ceiling_gbps,
			 100 * p->gbps_uni / p->expected.gbps, p->expected.gbps, p->expected.basis);
	else if (p->ceiling_gbps > 0)
		gp_wrapf(0, 12, "%12sone way %.0f%% of the %s ceiling, %.1f GB/s", "",
			 100 * p->gbps_uni / p->ceiling_gbps,
			 !strcmp(p->ceiling_from, "nvlink") ? "NVLink" : "PCIe", p->ceiling_gbps);
	if (p->why[0])
		gp_wrapf(0, 12, "%12s%s", "", p->why);
	if (p->readback_done && !p->readback_ok)
		gp_wrapf(0, 12,
			 "%12s%" PRIu64 " of %" PRIu64 " words differ: P2P writes land "
			 "somewhere the other GPU does not read (NCCL would hang or corrupt data)",
			 "", p->mismatches, p->words);
}

static void nccl_rows(const struct gp_nccl_runs *r, const char *label)
{
	char sz[32];
	int i;

	if (!r->ok) {
		gp_wrapf(0, 4, "  %s: %s", label, r->why);
		return;
	}
	for (i = 0; i < r->npoints; i++) {
		gp_format_size(r->points[i].bytes, sz, sizeof(sz));
		printf("  %-8s %-9s %9.3f ms %8.1f GB/s %8.1f GB/s\n", i ? "" : label, sz,
		       r->points[i].ms, r->points[i].algbw, r->points[i].busbw);
	}
}

static void nccl_text(const struct vrun *v)
{
	if (!v->nccl.tried) {
		printf("\n");
		gp_wrapf(0, 2, "NCCL: %s", v->nccl.why[0] ? v->nccl.why : "not run");
		return;
	}
	printf("\nNCCL %d.%d.%d all-reduce over %d GPUs (float sum; busbw = algbw x 2(n-1)/n):\n",
	       v->nccl.version / 10000, v->nccl.version / 100 % 100, v->nccl.version % 100,
	       v->np ? v->n : 0);
	printf("  %-8s %-9s %12s %13s %13s\n", "", "SIZE", "TIME", "ALGBW", "BUSBW");
	nccl_rows(&v->nccl, "P2P");
	if (v->cmp.tried)
		nccl_rows(&v->cmp, "no P2P");
	if (v->predicted.gbps > 0)
		gp_wrapf(0, 4, "  predicted bus bandwidth %.1f GB/s (%s)", v->predicted.gbps,
			 v->predicted.basis);
	if (v->nccl_why[0])
		gp_wrapf(0, 4, "  %s: %s", gp_verdict_name(v->nccl_verdict), v->nccl_why);
	gp_nccl_explain_text(v->nx, v->nx_why);
}

static void topo_list(const char *label, const char (*ids)[GP_BDF_LEN], int n)
{
	int i;

	for (i = 0; i < n; i++)
		printf("%s%s", i ? ", " : label, ids[i]);
}

static void topo_text(const struct vrun *v)
{
	printf("\nNCCL_TOPO_FILE: ");
	if (!v->topo_path) {
		printf("not set\n");
		return;
	}
	printf("%s: ", gp_tv(v->topo_path));
	if (topo_error(v)) {
		gp_fprintf_tone(stdout, GP_TONE_WARN, "%s%s", v->topo_read_rc ? "unreadable: " : "",
				topo_error(v));
	} else if (topo_matches(v)) {
		gp_fprintf_tone(stdout, GP_TONE_OK, "its bus IDs match the %d GPUs seen", v->n);
	} else {
		gp_fprintf_tone(stdout, GP_TONE_WARN, "does not match the %d GPUs seen", v->n);
		topo_list("; missing from it: ", v->topo.missing, v->topo.nmissing);
		topo_list("; not here: ", v->topo.unknown, v->topo.nunknown);
	}
	printf("\n");
}

/* The machine the GPUs are in (the guest, when verify runs in the VM). */
static void host_line(void)
{
	struct utsname u;

	if (uname(&u)) {
		printf("host (name unknown), kernel unknown\n");
		return;
	}
	gp_wrapf(0, 2, "host %s, kernel %s", u.nodename[0] ? gp_tv(u.nodename) : "(name unknown)",
		 gp_tv(u.release));
}

/* ---- JSON ---- */

/* NVML's P2P status by name, null when it could not be asked */
static void print_p2p(const char *key, int s)
{
	gp_print_str(key, NULL, s < 0 ? NULL : gp_nvml_p2p_name(s));
}

/* GB/s, null when not measured */
static void print_gbps(const char *key, double v)
{
	if (v > 0)
		gp_print_double(key, NULL, v);
	else
		gp_print_null(key);
}

/* bytes, null when unknown */
static void print_bytes(const char *key, uint64_t b)
{
	if (b)
		gp_print_uint(key, NULL, b);
	else
		gp_print_null(key);
}

/* NVML's fabric info, null for a GPU without a fabric (or a driver without the call) */
static void fabric_json(const struct gp_nv_gpu *g)
{
	char why[400];
	enum gp_verdict v = gp_verify_fabric(g, why, sizeof(why));

	if (!g->fabric_read || g->fabric_state == GP_FABRIC_NOT_SUPPORTED) {
		gp_print_null("fabric");
		return;
	}
	gp_open_object("fabric");
	gp_print_str("state", NULL, gp_fabric_state_name(g->fabric_state));
	gp_print_int("status", NULL, g->fabric_status);
	gp_print_uint("clique", NULL, g->fabric_clique);
	gp_print_str("verdict", NULL, gp_verdict_name(v));
	gp_close_object();
}

static void gpu_json(const struct gp_vgpu *g)
{
	gp_open_object(NULL);
	gp_print_str("bdf", NULL, g->nv.bdf);
	gp_print_str("name", NULL, g->nv.name);
	gp_print_int_or_null("cuda_device", NULL, g->cuda);
	print_bytes("bar1_bytes", g->nv.bar1);
	print_bytes("bar_bytes", g->bar_bytes);
	gp_print_bool("bar_small", NULL, g->bar_small);
	gp_print_int("nvlinks", NULL, gp_nv_links_up(&g->nv));
	print_gbps("nvlink_gbps", gp_nv_link_rate(&g->nv));
	fabric_json(&g->nv);
	gp_close_object();
}

static void readback_json(const struct gp_vpair *p)
{
	if (p->readback_done)
		gp_print_bool("readback_ok", NULL, p->readback_ok);
	else
		gp_print_null("readback_ok");
	gp_print_str("readback_by", NULL,
		     !p->readback_done	  ? NULL
		     : p->readback_kernel ? "kernel"
					  : "copy");
	gp_print_uint("readback_mismatches", NULL, p->mismatches);
}

static void pair_json(const struct gp_vpair *p)
{
	gp_open_object(NULL);
	gp_print_int("from", NULL, p->from);
	gp_print_int("to", NULL, p->to);
	gp_open_object("p2p");
	print_p2p("read", p->p2p[GP_P2P_READ]);
	print_p2p("write", p->p2p[GP_P2P_WRITE]);
	print_p2p("atomics", p->p2p[GP_P2P_ATOMICS]);
	print_p2p("nvlink", p->p2p[GP_P2P_NVLINK]);
	gp_close_object();
	if (p->can_access < 0)
		gp_print_null("can_access_peer");
	else
		gp_print_bool("can_access_peer", NULL, p->can_access);
	gp_print_bool("peer_enabled", NULL, p->peer_enabled);
	readback_json(p);
	print_gbps("gbps_uni", p->gbps_uni);
	print_gbps("gbps_bidir", p->gbps_bidir);
	print_gbps("ceiling_gbps", p->ceiling_gbps);
	gp_print_str("ceiling_from", NULL, p->ceiling_from);
	print_gbps("expected_gbps", p->expected.gbps);
	gp_print_str_or_null("expected_basis", NULL, p->expected.basis);
	gp_print_int("nvlinks", NULL, p->nvlinks);
	gp_print_str("verdict", NULL, gp_verdict_name(p->verdict));
	gp_print_str_or_null("why", NULL, p->why);
	gp_close_object();
}

/* One all-reduce (with P2P or without), null when not tried. */
static void runs_json(const char *key, const struct gp_nccl_runs *r)
{
	int i;

	if (!r->tried) {
		gp_print_null(key);
		return;
	}
	gp_open_object(key);
	gp_print_bool("ok", NULL, r->ok);
	gp_print_str_or_null("why", NULL, r->why);
	gp_open_array("results");
	for (i = 0; i < r->npoints; i++) {
		gp_open_object(NULL);
		gp_print_uint("bytes", NULL, r->points[i].bytes);
		gp_print_double("time_ms", NULL, r->points[i].ms);
		gp_print_double("algbw_gbps", NULL, r->points[i].algbw);
		gp_print_double("busbw_gbps", NULL, r->points[i].busbw);
		gp_close_object();
	}
	gp_close_array();
	gp_close_object();
}

static void nccl_json(const struct vrun *v)
{
	if (v->predicted.gbps > 0) {
		gp_open_object("predicted");
		gp_print_double("busbw_gbps", NULL, v->predicted.gbps);
		gp_print_str("basis", NULL, v->predicted.basis);
		gp_close_object();
	} else {
		gp_print_null("predicted");
	}
	gp_open_object("nccl");
	gp_print_int_or_null("version", NULL, v->nccl.version ? v->nccl.version : -1);
	gp_print_bool("ran", NULL, v->nccl.tried);
	gp_print_str_or_null("why", NULL, v->nccl.tried ? NULL : v->nccl.why);
	runs_json("p2p", &v->nccl);
	runs_json("no_p2p", &v->cmp);
	gp_print_str("verdict", NULL, gp_verdict_name(v->nccl_verdict));
	gp_print_str_or_null("verdict_why", NULL, v->nccl_why);
	gp_nccl_explain_json(v->nx, v->nx_why[0] ? v->nx_why : v->nccl.why);
	gp_close_object();
}

static void ids_json(const char *key, const char (*ids)[GP_BDF_LEN], int n)
{
	int i;

	gp_open_array(key);
	for (i = 0; i < n; i++)
		gp_print_str(NULL, NULL, ids[i]);
	gp_close_array();
}

static void topo_json(const struct vrun *v)
{
	if (!v->topo_path) {
		gp_print_null("nccl_topo_file");
		return;
	}
	gp_open_object("nccl_topo_file");
	gp_print_bool("set", NULL, true);
	gp_print_str("path", NULL, v->topo_path);
	if (topo_error(v))
		gp_print_null("match");
	else
		gp_print_bool("match", NULL, topo_matches(v));
	ids_json("missing", v->topo.missing, v->topo.nmissing);
	ids_json("extra", v->topo.unknown, v->topo.nunknown);
	gp_print_str("error", NULL, topo_error(v));
	gp_close_object();
}

/*
 * ---- the output ----
 * Said once, section by section in the document's order (the run, the
 * GPUs, the pairs, NCCL, NCCL_TOPO_FILE, the verdict).  Within a section a
 * GPU, a pair, an all-reduce is a table row as text and an object as JSON:
 * the text's cells are derived from the values (sizes in GiB, "ok/no/?",
 * a percentage of the ceiling) and wrapped in the table's column order,
 * where JSON keeps the raw values in its members' order.
 */

static void head_out(const struct vrun *v)
{
	char sz[32];

	if (!gp_out_is_json()) {
		gp_format_size(v->bytes, sz, sizeof(sz));
		host_line();
		gp_wrapf(0, 2, "NVIDIA driver %s; peer copies of %s x %d, timed with CUDA events",
			 v->driver[0] ? gp_tv(v->driver) : "unknown", sz, v->iters);
	}
	gp_print_str("driver", NULL, v->driver);
	gp_print_uint("bytes", NULL, v->bytes);
	gp_print_int("iterations", NULL, v->iters);
	gp_print_double("warn_fraction", NULL, GP_VERIFY_WARN_FRACTION);
	gp_print_double("expect_fraction", NULL, GP_VERIFY_EXPECT_FRACTION);
}

static void gpus_out(const struct vrun *v)
{
	int i, nw = name_width(v);

	gp_text("\n%-5s %-13s %-*s  %-8s %-8s %s\n", "GPU", "ADDRESS", nw, "NAME", "BAR1", "BAR",
		"NVLINKS");
	gp_open_array("gpus");
	for (i = 0; i < v->n; i++)
		if (gp_out_is_json())
			gpu_json(&v->g[i]);
		else
			gpu_text(&v->g[i], i, nw);
	gp_close_array();
}

static void pairs_out(const struct vrun *v)
{
	int i;

	gp_text("\n%-11s %-12s %-5s %-9s %-11s %-11s %s\n", "PAIR", "P2P R/W/N/A", "PEER",
		"READBACK", "ONE WAY", "BOTH WAYS", "VERDICT");
	gp_open_array("pairs");
	for (i = 0; i < v->np; i++)
		if (gp_out_is_json())
			pair_json(&v->p[i]);
		else
			pair_text(&v->p[i]);
	gp_close_array();
}

static void verify_out(const struct vrun *v, int rc, bool json)
{
	gp_cmd_begin("verify", json);
	head_out(v);
	gpus_out(v);
	pairs_out(v);
	if (json) {
		nccl_json(v);
		topo_json(v);
	} else {
		nccl_text(v);
		topo_text(v);
	}
	gp_print_int("exit_status", NULL, rc);
	gp_text("\nverdict: %s (below %.0f%% of a ceiling or %.0f%% of the expected warns)\n",
		rc == GP_EXIT_OK     ? "ok"
		: rc == GP_EXIT_WARN ? "warn"
				     : "fail",
		GP_VERIFY_WARN_FRACTION * 100, GP_VERIFY_EXPECT_FRACTION * 100);
	gp_doc_end();
}

/* ---- the run ---- */

/* 1 CUDA mapped every pair's peer memory, 0 it refused one, -1 not known. */
static int cuda_p2p(const struct vrun *v)
{
	int i, all = v->np > 0;

	for (i = 0; i < v->np; i++) {
		if (!v->p[i].can_access)
			return 0;
		all &= v->p[i].can_access > 0 && v->p[i].peer_enabled;
	}
	return all ? 1 : -1;
}

/* The all-reduce with NCCL's own debug output and topology dump captured, then read. */
static void explained_allreduce(struct vrun *v, struct gp_cuda *c)
{
	struct gp_nccl_capture cap;

	gp_nccl_capture_begin(&cap);
	gp_nccl_allreduce(c, nccl_lib(v->ctx), nccl_sizes, 3, 20, &v->nccl);
	v->nx = gp_nccl_capture_end(&cap, cuda_p2p(v), v->nx_why, sizeof(v->nx_why));
	if (!v->nccl.tried) {
		free(v->nx);
		v->nx = NULL;
		snprintf(v->nx_why, sizeof(v->nx_why), "NCCL did not run");
	}
}

static int with_cuda(struct vrun *v, struct gp_nvml *nv)
{
	struct gp_cuda *c;
	char why[200];
	int usable = 0, i;

	if (gp_cuda_open(&c, why, sizeof(why))) {
		gp_err("%s", why);
		return GP_EXIT_HOST;
	}
	gpus(v, c);
	for (i = 0; i < v->n; i++)
		usable += v->g[i].cuda >= 0;
	if (usable < 2) {
		gp_err("CUDA sees %d of NVML's %d GPUs: verify needs two (CUDA_VISIBLE_DEVICES?)",
		       usable, v->n);
		gp_cuda_close(c);
		return GP_EXIT_HOST;
	}
	pairs(v, nv, c);
	gp_verify_predict(v->g, v->n, v->p, v->np, &v->predicted);
	if (nccl_wanted(v->ctx))
		gp_progress("NCCL all-reduce over %d GPUs, up to 1 GiB", gp_cuda_count(c));
	if (nccl_wanted(v->ctx))
		explained_allreduce(v, c);
	else
		snprintf(v->nccl.why, sizeof(v->nccl.why), "not run (%s)",
			 v->ctx->opt[GP_OPT_QUICK] ? "--quick" : "--no-nccl");
	gp_cuda_close(c);
	nccl_judge(v);
	return 0;
}

/*
 * Run on the hypervisor, where the GPUs are vfio-pci's: say where verify
 * belongs.  Read only when NVML cannot be had, so a guest pays nothing.
 */
static void where_hint(const struct gp_ctx *ctx, char *buf, size_t len)
{
	struct gp_host h;
	size_t i;
	int n = 0, rc;

	buf[0] = '\0';
	gp_err_kept++; /* a host that cannot be read only leaves the hint out */
	rc = gp_host_load_part(ctx->root, NULL, GP_HOST_TOPOLOGY, &h);
	gp_err_kept--;
	if (rc)
		return;
	for (i = 0; i < h.ndevs; i++)
		n += h.devs[i].role == GP_ROLE_GPU && !strcmp(h.devs[i].driver, "vfio-pci");
	gp_host_release(&h);
	if (n)
		snprintf(buf, len,
			 "; %d GPU%s here %s on vfio-pci: this is the hypervisor, run 'gpuprov "
			 "verify' inside the VM that has them",
			 n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

static int with_nvml(struct vrun *v)
{
	struct gp_nvml *nv;
	char why[200], where[160];
	int rc;

	if (gp_nvml_open(&nv, why, sizeof(why))) {
		where_hint(v->ctx, where, sizeof(where));
		gp_err("%s: verify needs the NVIDIA driver%s", why, where);
		return GP_EXIT_HOST;
	}
	snprintf(v->driver, sizeof(v->driver), "%s", gp_nvml_driver(nv));
	if (gp_nvml_fill(nv, &v->nv) || v->nv.n < 2) {
		where_hint(v->ctx, where, sizeof(where));
		gp_err("NVML sees %d GPU%s: verify needs two%s", v->nv.n, v->nv.n == 1 ? "" : "s",
		       where);
		gp_nvml_close(nv);
		return GP_EXIT_HOST;
	}
	rc = with_cuda(v, nv);
	gp_nvml_close(nv);
	return rc;
}

/*
 * What a full run measured, kept for topo and report on this machine (a
 * --quick run's small copies would understate it): each pair one way, the
 * all-reduce at its largest size.
 */
static void remember(const struct vrun *v)
{
	struct gp_vrecord *r;
	time_t now = time(NULL);
	struct tm tm;
	int i;

	if (v->ctx->opt[GP_OPT_QUICK] || !v->measured)
		return;
	r = gp_xcalloc(1, sizeof(*r));
	strftime(r->when, sizeof(r->when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (v->nccl.ok && v->nccl.npoints) {
		r->busbw_gbps = v->nccl.points[v->nccl.npoints - 1].busbw;
		r->bytes = v->nccl.points[v->nccl.npoints - 1].bytes;
	}
	r->ranks = v->n;
	for (i = 0; i < v->np && r->npairs < GP_VREC_MAX_PAIRS; i++) {
		if (v->p[i].gbps_uni <= 0)
			continue;
		gp_strlcpy(r->pairs[r->npairs].from, v->g[v->p[i].from].nv.bdf, GP_BDF_LEN);
		gp_strlcpy(r->pairs[r->npairs].to, v->g[v->p[i].to].nv.bdf, GP_BDF_LEN);
		r->pairs[r->npairs++].gbps = v->p[i].gbps_uni;
	}
	gp_verify_remember(r);
	free(r);
}

static int do_verify(struct gp_ctx *ctx)
{
	struct vrun v;
	int rc;

	rc = nccl_lib_safe(ctx);
	if (rc)
		return rc;
	memset(&v, 0, sizeof(v));
	v.ctx = ctx;
	sizes(ctx, &v);
	if (ctx->opt[GP_OPT_NCCL_COMPARE] && nccl_wanted(ctx))
		compare_run(ctx, &v.cmp);
	rc = with_nvml(&v);
	gp_progress_clear();
	if (!rc) {
		topo_check(&v);
		rc = overall(&v);
		verify_out(&v, rc, ctx->json);
		remember(&v);
	}
	gp_nv_view_release(&v.nv);
	free(v.nx);
	free(v.g);
	free(v.p);
	return rc;
}

const struct gp_cmd gp_cmd_verify = {
	.name = "verify",
	.run = do_verify,
	.flags = GP_NO_ARGS,
	.opts = { GP_OPT_QUICK, GP_OPT_SIZE, GP_OPT_NO_NCCL, GP_OPT_NCCL_COMPARE, GP_OPT_NCCL_LIB },
	.help = "in the VM: P2P, read-back, bandwidth per GPU pair, NCCL all-reduce",
};
