// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CUDA driver API adapter and verify's peer tests.  Prototypes are
 * declared here, checked against NVIDIA's cuda.h (13.0), with the _v2 symbol
 * names the header maps the plain ones to.  Each device works in its
 * primary context, the one the CUDA runtime and NCCL use too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cudadrv.h"
#include "shared/util.h"

typedef int cu_ret;
typedef int cu_dev;
typedef unsigned long long cu_ptr;
typedef struct cu_ctx_st *cu_ctx;
typedef struct cu_stream_st *cu_stream;
typedef struct cu_event_st *cu_event;
typedef struct cu_module_st *cu_module;
typedef struct cu_func_st *cu_func;

#define CU_OK				     0
#define CU_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define CU_STREAM_NON_BLOCKING		     1

/*
 * The writer's threads store the pattern: word i = i * 2654435761 ^ seed
 * (gp_cuda_pattern).  PTX, compiled by the driver for whatever GPU it is.
 */
static const char fill_ptx[] =
	".version 6.0\n"
	".target sm_50\n"
	".address_size 64\n"
	".visible .entry gp_fill(.param .u64 gp_fill_p, .param .u32 gp_fill_n,"
	" .param .u32 gp_fill_seed)\n"
	"{\n"
	"	.reg .pred %p<2>;\n"
	"	.reg .b32 %r<9>;\n"
	"	.reg .b64 %rd<5>;\n"
	"	ld.param.u64 %rd1, [gp_fill_p];\n"
	"	ld.param.u32 %r1, [gp_fill_n];\n"
	"	ld.param.u32 %r2, [gp_fill_seed];\n"
	"	mov.u32 %r3, %ctaid.x;\n"
	"	mov.u32 %r4, %ntid.x;\n"
	"	mov.u32 %r5, %tid.x;\n"
	"	mad.lo.s32 %r6, %r3, %r4, %r5;\n"
	"	setp.ge.u32 %p1, %r6, %r1;\n"
	"	@%p1 bra DONE;\n"
	"	mul.lo.s32 %r7, %r6, -1640531535;\n"
	"	xor.b32 %r8, %r7, %r2;\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	mul.wide.u32 %rd3, %r6, 4;\n"
	"	add.s64 %rd4, %rd2, %rd3;\n"
	"	st.global.u32 [%rd4], %r8;\n"
	"DONE:\n"
	"	ret;\n"
	"}\n";

struct cu_gpu {
	cu_dev dev;
	cu_ctx ctx;
	cu_stream stream;
	cu_event mark[2];
	char bdf[GP_BDF_LEN];
	cu_module mod;
	cu_func fill;
	bool fill_tried;
};

struct gp_cuda {
	void *dl;
	int n;
	struct cu_gpu *g;
	char error[160];
	cu_ret (*init)(unsigned);
	cu_ret (*error_string)(cu_ret, const char **);
	cu_ret (*dev_count)(int *);
	cu_ret (*dev_get)(cu_dev *, int);
	cu_ret (*bus_id)(char *, int, cu_dev);
	cu_ret (*can_access)(int *, cu_dev, cu_dev);
	cu_ret (*ctx_retain)(cu_ctx *, cu_dev);
	cu_ret (*ctx_release)(cu_dev);
	cu_ret (*ctx_set)(cu_ctx);
	cu_ret (*ctx_sync)(void);
	cu_ret (*peer_enable)(cu_ctx, unsigned);
	cu_ret (*mem_alloc)(cu_ptr *, size_t);
	cu_ret (*mem_free)(cu_ptr);
	cu_ret (*memset32)(cu_ptr, unsigned, size_t);
	cu_ret (*dtoh)(void *, cu_ptr, size_t);
	cu_ret (*htod)(cu_ptr, const void *, size_t);
	cu_ret (*dtod_async)(cu_ptr, cu_ptr, size_t, cu_stream);
	cu_ret (*peer_async)(cu_ptr, cu_ctx, cu_ptr, cu_ctx, size_t, cu_stream);
	cu_ret (*stream_create)(cu_stream *, unsigned);
	cu_ret (*stream_destroy)(cu_stream);
	cu_ret (*stream_sync)(cu_stream);
	cu_ret (*stream_wait)(cu_stream, cu_event, unsigned);
	cu_ret (*event_create)(cu_event *, unsigned);
	cu_ret (*event_destroy)(cu_event);
	cu_ret (*event_record)(cu_event, cu_stream);
	cu_ret (*event_sync)(cu_event);
	cu_ret (*event_ms)(float *, cu_event, cu_event);
	cu_ret (*module_load)(cu_module *, const void *);
	cu_ret (*module_unload)(cu_module);
	cu_ret (*module_func)(cu_func *, cu_module, const char *);
	cu_ret (*launch)(cu_func, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			 unsigned, cu_stream, void **, void **);
};

#define NEED(fld, name)	  ((*(void **)&c->fld = dlsym(c->dl, name)) != NULL)
#define EITHER(fld, a, b) (NEED(fld, a) || NEED(fld, b))

static bool resolve(struct gp_cuda *c)
{
	return NEED(init, "cuInit") && NEED(error_string, "cuGetErrorString") &&
	       NEED(dev_count, "cuDeviceGetCount") && NEED(dev_get, "cuDeviceGet") &&
	       NEED(bus_id, "cuDeviceGetPCIBusId") && NEED(can_access, "cuDeviceCanAccessPeer") &&
	       NEED(ctx_retain, "cuDevicePrimaryCtxRetain") &&
	       EITHER(ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease") &&
	       NEED(ctx_set, "cuCtxSetCurrent") && NEED(ctx_sync, "cuCtxSynchronize") &&
	       NEED(peer_enable, "cuCtxEnablePeerAccess") && NEED(mem_alloc, "cuMemAlloc_v2") &&
	       NEED(mem_free, "cuMemFree_v2") && NEED(memset32, "cuMemsetD32_v2") &&
	       NEED(dtoh, "cuMemcpyDtoH_v2") && NEED(htod, "cuMemcpyHtoD_v2") &&
	       NEED(dtod_async, "cuMemcpyDtoDAsync_v2") && NEED(peer_async, "cuMemcpyPeerAsync") &&
	       NEED(stream_create, "cuStreamCreate") &&
	       NEED(stream_destroy, "cuStreamDestroy_v2") &&
	       NEED(stream_sync, "cuStreamSynchronize") && NEED(stream_wait, "cuStreamWaitEvent") &&
	       NEED(event_create, "cuEventCreate") && NEED(event_destroy, "cuEventDestroy_v2") &&
	       NEED(event_record, "cuEventRecord") && NEED(event_sync, "cuEventSynchronize") &&
	       NEED(event_ms, "cuEventElapsedTime") && NEED(module_load, "cuModuleLoadData") &&
	       NEED(module_unload, "cuModuleUnload") && NEED(module_func, "cuModuleGetFunction") &&
	       NEED(launch, "cuLaunchKernel");
}

/* Records what failed, in words; -EIO. */
static int fail(struct gp_cuda *c, const char *what, cu_ret r)
{
	const char *s = NULL;

	if (c->error_string(r, &s) != CU_OK || !s)
		s = "unknown error";
	snprintf(c->error, sizeof(c->error), "%s: %s (CUDA error %d)", what, s, r);
	return -EIO;
}

#define TRY(c, what, call)                            \
	do {                                          \
		cu_ret r_ = (call);                   \
		if (r_ != CU_OK)                      \
			return fail((c), (what), r_); \
	} while (0)

static int use(struct gp_cuda *c, int i)
{
	TRY(c, "cuCtxSetCurrent", c->ctx_set(c->g[i].ctx));
	return 0;
}

static int setup_gpu(struct gp_cuda *c, int i)
{
	struct cu_gpu *g = &c->g[i];
	char bus[32] = "";

	TRY(c, "cuDeviceGet", c->dev_get(&g->dev, i));
	if (c->bus_id(bus, sizeof(bus), g->dev) != CU_OK || gp_parse_bdf(bus, g->bdf))
		g->bdf[0] = 0;
	TRY(c, "cuDevicePrimaryCtxRetain", c->ctx_retain(&g->ctx, g->dev));
	if (use(c, i))
		return -EIO;
	TRY(c, "cuStreamCreate", c->stream_create(&g->stream, CU_STREAM_NON_BLOCKING));
	TRY(c, "cuEventCreate", c->event_create(&g->mark[0], 0));
	TRY(c, "cuEventCreate", c->event_create(&g->mark[1], 0));
	return 0;
}

static int open_fail(struct gp_cuda *c, int rc, char *why, size_t len)
{
	snprintf(why, len, "%s", c->error);
	gp_cuda_close(c);
	return rc;
}

int gp_cuda_open(struct gp_cuda **out, char *why, size_t len)
{
	struct gp_cuda *c = gp_xcalloc(1, sizeof(*c));
	cu_ret r;
	int i;

	*out = NULL;
	c->dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!c->dl) {
		snprintf(c->error, sizeof(c->error),
			 "the CUDA driver library is not installed "
			 "(no libcuda.so.1)");
		return open_fail(c, -ENOENT, why, len);
	}
	if (!resolve(c)) {
		snprintf(c->error, sizeof(c->error),
			 "libcuda.so.1 lacks a function gpuprov needs (driver too old)");
		return open_fail(c, -ENOSYS, why, len);
	}
	r = c->init(0);
	if (r != CU_OK || c->dev_count(&c->n) != CU_OK) {
		fail(c, "CUDA could not start (cuInit)", r);
		c->n = 0;
		return open_fail(c, -ENODEV, why, len);
	}
	c->g = gp_xcalloc(c->n ? (size_t)c->n : 1, sizeof(*c->g));
	for (i = 0; i < c->n; i++)
		if (setup_gpu(c, i))
			return open_fail(c, -EIO, why, len);
	*out = c;
	return 0;
}

void gp_cuda_close(struct gp_cuda *c)
{
	int i, k;

	if (!c)
		return;
	for (i = 0; c->g && i < c->n; i++) {
		struct cu_gpu *g = &c->g[i];

		if (!g->ctx || c->ctx_set(g->ctx) != CU_OK)
			continue;
		if (g->mod)
			c->module_unload(g->mod);
		for (k = 0; k < 2; k++)
			if (g->mark[k])
				c->event_destroy(g->mark[k]);
		if (g->stream)
			c->stream_destroy(g->stream);
		c->ctx_release(g->dev);
	}
	if (c->dl)
		dlclose(c->dl);
	free(c->g);
	free(c);
}

int gp_cuda_count(const struct gp_cuda *c)
{
	return c->n;
}

const char *gp_cuda_bdf(const struct gp_cuda *c, int i)
{
	return c->g[i].bdf;
}

const char *gp_cuda_error(const struct gp_cuda *c)
{
	return c->error;
}

int gp_cuda_can_access(struct gp_cuda *c, int i, int j)
{
	int can = 0;

	if (c->can_access(&can, c->g[i].dev, c->g[j].dev) != CU_OK)
		return -1;
	return can ? 1 : 0;
}

int gp_cuda_enable_peer(struct gp_cuda *c, int i, int j)
{
	cu_ret r;

	if (use(c, i))
		return -EIO;
	r = c->peer_enable(c->g[j].ctx, 0);
	if (r != CU_OK && r != CU_ERROR_PEER_ACCESS_ALREADY_ENABLED)
		return fail(c, "cuCtxEnablePeerAccess", r);
	return 0;
}

uint32_t gp_cuda_pattern(uint32_t i, uint32_t seed)
{
	return (i * 2654435761u) ^ seed;
}

/* The fill kernel in device i's context, loaded once; false when the driver cannot JIT it. */
static bool fill_kernel(struct gp_cuda *c, int i)
{
	struct cu_gpu *g = &c->g[i];

	if (g->fill_tried)
		return g->fill != NULL;
	g->fill_tried = true;
	if (c->module_load(&g->mod, fill_ptx) != CU_OK) {
		g->mod = NULL;
		return false;
	}
	if (c->module_func(&g->fill, g->mod, "gp_fill") != CU_OK)
		g->fill = NULL;
	return g->fill != NULL;
}

static int fill_by_kernel(struct gp_cuda *c, int w, cu_ptr dst, uint32_t n, uint32_t seed)
{
	void *args[] = { &dst, &n, &seed };

	TRY(c, "cuLaunchKernel",
	    c->launch(c->g[w].fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, c->g[w].stream, args,
		      NULL));
	TRY(c, "cuStreamSynchronize", c->stream_sync(c->g[w].stream));
	return 0;
}

/* Without the kernel: the pattern into the writer's memory, its copy engine pushes it over. */
static int fill_by_copy(struct gp_cuda *c, int w, cu_ptr dst, const uint32_t *pat, size_t bytes)
{
	cu_ptr src;
	int rc;

	TRY(c, "cuMemAlloc", c->mem_alloc(&src, bytes));
	rc = c->htod(src, pat, bytes);
	if (rc == CU_OK)
		rc = c->dtod_async(dst, src, bytes, c->g[w].stream);
	if (rc == CU_OK)
		rc = c->stream_sync(c->g[w].stream);
	c->mem_free(src);
	return rc == CU_OK ? 0 : fail(c, "peer write by copy", rc);
}

static void compare(const uint32_t *got, const uint32_t *want, uint32_t n, struct gp_readback *out)
{
	uint32_t i;

	out->words = n;
	for (i = 0; i < n; i++)
		if (got[i] != want[i] && !out->mismatches++)
			out->first_bad = i;
	out->ok = !out->mismatches;
}

/* Zero owner's buffer, let the writer store the pattern, read owner's memory back. */
static int readback_steps(struct gp_cuda *c, int w, int o, cu_ptr buf, uint32_t n, uint32_t seed,
			  const uint32_t *want, uint32_t *got, bool *by_kernel)
{
	size_t bytes = (size_t)n * 4;

	if (use(c, o))
		return -EIO;
	TRY(c, "cuMemsetD32", c->memset32(buf, 0, n));
	if (use(c, w))
		return -EIO;
	*by_kernel = fill_kernel(c, w);
	if (*by_kernel ? fill_by_kernel(c, w, buf, n, seed) : fill_by_copy(c, w, buf, want, bytes))
		return -EIO;
	if (use(c, o))
		return -EIO;
	TRY(c, "cuMemcpyDtoH", c->dtoh(got, buf, bytes));
	return 0;
}

static int readback_on(struct gp_cuda *c, int w, int o, cu_ptr buf, uint32_t n,
		       struct gp_readback *out)
{
	uint32_t seed = 0xa5000000u | (uint32_t)(w & 0xff) << 8 | (uint32_t)(o & 0xff), i;
	uint32_t *want = gp_xcalloc(n, 4), *got = gp_xcalloc(n, 4);
	int rc;

	for (i = 0; i < n; i++)
		want[i] = gp_cuda_pattern(i, seed);
	rc = readback_steps(c, w, o, buf, n, seed, want, got, &out->by_kernel);
	if (!rc)
		compare(got, want, n, out);
	free(want);
	free(got);
	return rc;
}

int gp_cuda_readback(struct gp_cuda *c, int writer, int owner, size_t bytes,
		     struct gp_readback *out)
{
	uint32_t n = (uint32_t)(bytes / 4 > UINT32_MAX ? UINT32_MAX : bytes / 4);
	cu_ptr buf;
	int rc;

	memset(out, 0, sizeof(*out));
	if (use(c, owner))
		return -EIO;
	TRY(c, "cuMemAlloc", c->mem_alloc(&buf, (size_t)n * 4));
	rc = readback_on(c, writer, owner, buf, n, out);
	if (!use(c, owner))
		c->mem_free(buf);
	return rc;
}

/* ---- bandwidth ---- */

struct bw {
	cu_ptr a_src, a_dst, b_src, b_dst;
	cu_event start, stop, b_done;
};

static int bw_alloc(struct gp_cuda *c, int a, int b, size_t bytes, struct bw *w)
{
	if (use(c, a))
		return -EIO;
	TRY(c, "cuMemAlloc", c->mem_alloc(&w->a_src, bytes));
	TRY(c, "cuMemAlloc", c->mem_alloc(&w->a_dst, bytes));
	TRY(c, "cuEventCreate", c->event_create(&w->start, 0));
	TRY(c, "cuEventCreate", c->event_create(&w->stop, 0));
	TRY(c, "cuMemsetD32", c->memset32(w->a_src, 0x5a5a5a5a, bytes / 4));
	if (use(c, b))
		return -EIO;
	TRY(c, "cuMemAlloc", c->mem_alloc(&w->b_src, bytes));
	TRY(c, "cuMemAlloc", c->mem_alloc(&w->b_dst, bytes));
	TRY(c, "cuEventCreate", c->event_create(&w->b_done, 0));
	TRY(c, "cuMemsetD32", c->memset32(w->b_src, 0xa5a5a5a5, bytes / 4));
	return 0;
}

static void bw_free(struct gp_cuda *c, int a, int b, struct bw *w)
{
	if (!use(c, a)) {
		if (w->a_src)
			c->mem_free(w->a_src);
		if (w->a_dst)
			c->mem_free(w->a_dst);
		if (w->start)
			c->event_destroy(w->start);
		if (w->stop)
			c->event_destroy(w->stop);
	}
	if (!use(c, b)) {
		if (w->b_src)
			c->mem_free(w->b_src);
		if (w->b_dst)
			c->mem_free(w->b_dst);
		if (w->b_done)
			c->event_destroy(w->b_done);
	}
}

static int copy_ab(struct gp_cuda *c, int a, int b, const struct bw *w, size_t bytes)
{
	TRY(c, "cuMemcpyPeerAsync",
	    c->peer_async(w->b_dst, c->g[b].ctx, w->a_src, c->g[a].ctx, bytes, c->g[a].stream));
	return 0;
}

static int copy_ba(struct gp_cuda *c, int a, int b, const struct bw *w, size_t bytes)
{
	TRY(c, "cuMemcpyPeerAsync",
	    c->peer_async(w->a_dst, c->g[a].ctx, w->b_src, c->g[b].ctx, bytes, c->g[b].stream));
	return 0;
}

static int elapsed(struct gp_cuda *c, const struct bw *w, double *ms)
{
	float f = 0;

	TRY(c, "cuEventSynchronize", c->event_sync(w->stop));
	TRY(c, "cuEventElapsedTime", c->event_ms(&f, w->start, w->stop));
	*ms = f;
	return 0;
}

static int bw_uni(struct gp_cuda *c, int a, int b, const struct bw *w, size_t bytes, int iters,
		  double *gbps)
{
	double ms;
	int i;

	for (i = 0; i < 2; i++) /* warm-up: first copies map the peer's pages */
		if (copy_ab(c, a, b, w, bytes))
			return -EIO;
	TRY(c, "cuEventRecord", c->event_record(w->start, c->g[a].stream));
	for (i = 0; i < iters; i++)
		if (copy_ab(c, a, b, w, bytes))
			return -EIO;
	TRY(c, "cuEventRecord", c->event_record(w->stop, c->g[a].stream));
	if (elapsed(c, w, &ms))
		return -EIO;
	*gbps = ms > 0 ? (double)bytes * iters / (ms * 1e-3) / 1e9 : 0;
	return 0;
}

/*
 * Both ways at once: b's stream starts when a's start mark is passed, a's
 * stop mark waits for b's last copy; one interval, in a's context.
 */
static int bw_bidir(struct gp_cuda *c, int a, int b, const struct bw *w, size_t bytes, int iters,
		    double *gbps)
{
	double ms;
	int i;

	TRY(c, "cuEventRecord", c->event_record(w->start, c->g[a].stream));
	TRY(c, "cuStreamWaitEvent", c->stream_wait(c->g[b].stream, w->start, 0));
	for (i = 0; i < iters; i++)
		if (copy_ab(c, a, b, w, bytes) || copy_ba(c, a, b, w, bytes))
			return -EIO;
	TRY(c, "cuEventRecord", c->event_record(w->b_done, c->g[b].stream));
	TRY(c, "cuStreamWaitEvent", c->stream_wait(c->g[a].stream, w->b_done, 0));
	TRY(c, "cuEventRecord", c->event_record(w->stop, c->g[a].stream));
	if (elapsed(c, w, &ms))
		return -EIO;
	*gbps = ms > 0 ? 2.0 * (double)bytes * iters / (ms * 1e-3) / 1e9 : 0;
	return 0;
}

int gp_cuda_bandwidth(struct gp_cuda *c, int a, int b, size_t bytes, int iters, double *uni,
		      double *bidir)
{
	struct bw w;
	int rc;

	memset(&w, 0, sizeof(w));
	rc = bw_alloc(c, a, b, bytes, &w);
	if (!rc)
		rc = use(c, a);
	if (!rc)
		rc = bw_uni(c, a, b, &w, bytes, iters, uni);
	if (!rc)
		rc = bw_bidir(c, a, b, &w, bytes, iters, bidir);
	if (!rc && c->stream_sync(c->g[b].stream) != CU_OK)
		rc = -EIO;
	bw_free(c, a, b, &w);
	return rc;
}

/* ---- what the NCCL run needs ---- */

void *gp_cuda_stream(struct gp_cuda *c, int i)
{
	return c->g[i].stream;
}

int gp_cuda_alloc(struct gp_cuda *c, int i, size_t bytes, uint64_t *ptr)
{
	cu_ptr p;

	if (use(c, i))
		return -EIO;
	TRY(c, "cuMemAlloc", c->mem_alloc(&p, bytes));
	TRY(c, "cuMemsetD32", c->memset32(p, 0x3f800000, bytes / 4)); /* 1.0f */
	*ptr = p;
	return 0;
}

void gp_cuda_free(struct gp_cuda *c, int i, uint64_t ptr)
{
	if (ptr && !use(c, i))
		c->mem_free(ptr);
}

int gp_cuda_mark(struct gp_cuda *c, int i, bool stop)
{
	if (use(c, i))
		return -EIO;
	TRY(c, "cuEventRecord", c->event_record(c->g[i].mark[stop], c->g[i].stream));
	return 0;
}

int gp_cuda_marked_ms(struct gp_cuda *c, int i, double *ms)
{
	float f = 0;

	if (use(c, i))
		return -EIO;
	TRY(c, "cuEventSynchronize", c->event_sync(c->g[i].mark[1]));
	TRY(c, "cuEventElapsedTime", c->event_ms(&f, c->g[i].mark[0], c->g[i].mark[1]));
	*ms = f;
	return 0;
}
