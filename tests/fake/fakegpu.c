// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A test double for NVIDIA's run-time libraries: the few NVML, CUDA driver
 * and NCCL symbols gpuprov resolves, answering from the fixture file named
 * by GP_FAKE_GPU.  Built once as libfakegpu.so; a test puts links named
 * libnvidia-ml.so.1, libcuda.so.1 and libnccl.so.2 to it (or leaves one out)
 * in a directory on LD_LIBRARY_PATH.  The real run on two H200s is the proof;
 * this only lets every branch of verify and topo run without a GPU.
 *
 * Fixture lines (one GPU line per GPU, in NVML's order):
 *   driver VERSION
 *   gpu BDF NAME bar1=BYTES pcie=GENxWIDTH version=N mbps=N
 *   link GPU FIRST-LAST gpu|switch BDF      links up to that far end
 *   linkdown GPU FIRST-LAST                 links present but down
 *   p2p A B STATUS                          NVML read/write status (default 0)
 *   noaccess A B                            cuDeviceCanAccessPeer 0
 *   mirror A B                              A's writes into B land elsewhere
 *   bw A B GBPS                             peer copy rate A to B (default 250)
 *   nccl BUSBW NOP2P_BUSBW | nccl fail
 *   nccl_log PATH | nccl_log_nop2p PATH     what NCCL_DEBUG=INFO writes to NCCL_DEBUG_FILE
 *                                           (with NCCL_P2P_DISABLE=1: the second)
 *   nccl_dump PATH                          what NCCL_TOPO_DUMP_FILE receives
 *   nvml initfail | cuda initfail | cuda hide GPU | cuda nojit
 *   fabric GPU STATE STATUS CLIQUE          nvmlDeviceGetGpuFabricInfo[V] (NVML's
 *                                           state numbers; without it: NOT_SUPPORTED)
 * Device memory is mmap'd and written only where a test reads it back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#define MAXG 8
#define MAXL 18
#define MAXA 256

struct flink {
	int up, type;
	char remote[32];
};

struct fgpu {
	char bdf[16], name[96];
	unsigned long long bar1;
	unsigned gen, width, version, mbps;
	int nlinks;
	struct flink links[MAXL];
	int fabric; /* a fabric line was given */
	unsigned fabric_state, fabric_clique;
	int fabric_status;
};

static struct {
	int loaded, n;
	struct fgpu g[MAXG];
	char driver[32];
	int p2p[MAXG][MAXG], noaccess[MAXG][MAXG], mirror[MAXG][MAXG];
	double bw[MAXG][MAXG];
	double nccl, nccl_nop2p;
	char nccl_log[256], nccl_log_nop2p[256], nccl_dump[256];
	int nccl_fail, nvml_initfail, cuda_initfail, nojit, hidden[MAXG];
	int cur;	      /* current context's device */
	double now;	      /* ms: what a synchronize has waited for; idle streams start there */
	int peer[MAXG][MAXG]; /* access enabled */
	struct {
		char *p;
		size_t len;
		int dev;
	} mem[MAXA];
} F;

static void parse_line(char *l)
{
	char a[64], b[96], c[64];
	int x, y, lo, hi, k;
	unsigned lo_u, hi_u;
	double v, w;

	if (sscanf(l, "driver %31s", F.driver) == 1)
		return;
	if (sscanf(l, "gpu %15s %95s", a, b) == 2 && F.n < MAXG) {
		struct fgpu *g = &F.g[F.n++];
		char *t;

		snprintf(g->bdf, sizeof(g->bdf), "%s", a);
		snprintf(g->name, sizeof(g->name), "%s", b);
		for (t = g->name; *t; t++)
			*t = *t == '_' ? ' ' : *t;
		if ((t = strstr(l, "bar1=")))
			g->bar1 = strtoull(t + 5, NULL, 0);
		if ((t = strstr(l, "pcie=")))
			sscanf(t + 5, "%ux%u", &g->gen, &g->width);
		if ((t = strstr(l, "version=")))
			g->version = (unsigned)atoi(t + 8);
		if ((t = strstr(l, "mbps=")))
			g->mbps = (unsigned)atoi(t + 5);
		return;
	}
	if (sscanf(l, "link %d %d-%d %63s %63s", &x, &lo, &hi, a, c) == 5 && x < F.n) {
		for (k = lo; k <= hi && k < MAXL; k++) {
			F.g[x].links[k].up = 1;
			F.g[x].links[k].type = !strcmp(a, "switch") ? 2 : 0;
			snprintf(F.g[x].links[k].remote, 32, "%s", c);
			if (k + 1 > F.g[x].nlinks)
				F.g[x].nlinks = k + 1;
		}
		return;
	}
	if (sscanf(l, "linkdown %d %d-%d", &x, &lo, &hi) == 3 && x < F.n) {
		for (k = lo; k <= hi && k < MAXL; k++)
			if (k + 1 > F.g[x].nlinks)
				F.g[x].nlinks = k + 1;
		return;
	}
	if (sscanf(l, "p2p %d %d %d", &x, &y, &k) == 3 && x < MAXG && y < MAXG)
		F.p2p[x][y] = k;
	else if (sscanf(l, "noaccess %d %d", &x, &y) == 2 && x < MAXG && y < MAXG)
		F.noaccess[x][y] = 1;
	else if (sscanf(l, "mirror %d %d", &x, &y) == 2 && x < MAXG && y < MAXG)
		F.mirror[x][y] = 1;
	else if (sscanf(l, "bw %d %d %lf", &x, &y, &v) == 3 && x < MAXG && y < MAXG)
		F.bw[x][y] = v;
	/* the longer name first: "nccl_log %s" would take "_nop2p" as its path */
	else if (sscanf(l, "nccl_log_nop2p %255s", F.nccl_log_nop2p) == 1 ||
		 sscanf(l, "nccl_log %255s", F.nccl_log) == 1 ||
		 sscanf(l, "nccl_dump %255s", F.nccl_dump) == 1)
		return;
	else if (sscanf(l, "nccl %lf %lf", &v, &w) == 2) {
		F.nccl = v;
		F.nccl_nop2p = w;
	} else if (!strncmp(l, "nccl fail", 9))
		F.nccl_fail = 1;
	else if (!strncmp(l, "nvml initfail", 13))
		F.nvml_initfail = 1;
	else if (!strncmp(l, "cuda initfail", 13))
		F.cuda_initfail = 1;
	else if (!strncmp(l, "cuda nojit", 10))
		F.nojit = 1;
	else if (sscanf(l, "fabric %d %u %d %u", &x, &lo_u, &k, &hi_u) == 4 && x < F.n) {
		F.g[x].fabric = 1;
		F.g[x].fabric_state = lo_u;
		F.g[x].fabric_status = k;
		F.g[x].fabric_clique = hi_u;
	} else if (sscanf(l, "cuda hide %d", &x) == 1 && x < MAXG)
		F.hidden[x] = 1;
}

static void load(void)
{
	const char *path = getenv("GP_FAKE_GPU");
	char line[512];
	FILE *f;
	int i, j;

	if (F.loaded)
		return;
	F.loaded = 1;
	for (i = 0; i < MAXG; i++)
		for (j = 0; j < MAXG; j++)
			F.bw[i][j] = 250;
	strcpy(F.driver, "580.159.04");
	if (!path || !(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#')
			parse_line(line);
	fclose(f);
}

/* ---- NVML ---- */

struct nvml_pci {
	char legacy[16];
	unsigned domain, bus, device, id, subsys;
	char bus_id[32];
};

static int gi(void *h)
{
	return (int)(intptr_t)h - 1;
}

static void nvml_bdf(const char *bdf, char *out)
{
	unsigned d, b, s, f;

	sscanf(bdf, "%x:%x:%x.%x", &d, &b, &s, &f);
	snprintf(out, 32, "%08X:%02X:%02X.%u", d, b, s, f); /* NVML's own form */
}

int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
	load();
	return F.nvml_initfail ? 9 : 0;
}

int nvmlShutdown(void);
int nvmlShutdown(void)
{
	return 0;
}

const char *nvmlErrorString(int r);
const char *nvmlErrorString(int r)
{
	return r == 9 ? "Driver Not Loaded" : "Fake Error";
}

int nvmlSystemGetDriverVersion(char *v, unsigned len);
int nvmlSystemGetDriverVersion(char *v, unsigned len)
{
	snprintf(v, len, "%s", F.driver);
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = (unsigned)F.n;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h)
{
	*h = (void *)(intptr_t)(i + 1);
	return 0;
}

int nvmlDeviceGetPciInfo_v3(void *h, struct nvml_pci *p);
int nvmlDeviceGetPciInfo_v3(void *h, struct nvml_pci *p)
{
	memset(p, 0, sizeof(*p));
	nvml_bdf(F.g[gi(h)].bdf, p->bus_id);
	return 0;
}

int nvmlDeviceGetName(void *h, char *name, unsigned len);
int nvmlDeviceGetName(void *h, char *name, unsigned len)
{
	snprintf(name, len, "%s", F.g[gi(h)].name);
	return 0;
}

/* nvmlGpuFabricInfo_t, and the V form's v2 (its version first) */
struct fabric_v1 {
	unsigned char uuid[16];
	int status;
	unsigned clique;
	unsigned char state;
};

int nvmlDeviceGetGpuFabricInfo(void *h, struct fabric_v1 *f);
int nvmlDeviceGetGpuFabricInfo(void *h, struct fabric_v1 *f)
{
	const struct fgpu *g = &F.g[gi(h)];

	if (!g->fabric)
		return 3; /* NVML_ERROR_NOT_SUPPORTED */
	memset(f, 0, sizeof(*f));
	f->status = g->fabric_status;
	f->clique = g->fabric_clique;
	f->state = (unsigned char)g->fabric_state;
	return 0;
}

struct fabric_v2 {
	unsigned version;
	unsigned char uuid[16];
	int status;
	unsigned clique;
	unsigned char state;
	unsigned health_mask;
};

/* checks the version as NVML does: a caller's struct of another size is refused */
int nvmlDeviceGetGpuFabricInfoV(void *h, struct fabric_v2 *f);
int nvmlDeviceGetGpuFabricInfoV(void *h, struct fabric_v2 *f)
{
	const struct fgpu *g = &F.g[gi(h)];

	if (f->version != ((unsigned)sizeof(*f) | 2u << 24))
		return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	if (!g->fabric)
		return 3;
	f->status = g->fabric_status;
	f->clique = g->fabric_clique;
	f->state = (unsigned char)g->fabric_state;
	f->health_mask = 0;
	return 0;
}

int nvmlDeviceGetBAR1MemoryInfo(void *h, unsigned long long *b);
int nvmlDeviceGetBAR1MemoryInfo(void *h, unsigned long long *b)
{
	b[0] = F.g[gi(h)].bar1;
	b[1] = b[0];
	b[2] = 0;
	return 0;
}

int nvmlDeviceGetMaxPcieLinkGeneration(void *h, unsigned *v);
int nvmlDeviceGetMaxPcieLinkGeneration(void *h, unsigned *v)
{
	*v = F.g[gi(h)].gen;
	return *v ? 0 : 3;
}

int nvmlDeviceGetMaxPcieLinkWidth(void *h, unsigned *v);
int nvmlDeviceGetMaxPcieLinkWidth(void *h, unsigned *v)
{
	*v = F.g[gi(h)].width;
	return *v ? 0 : 3;
}

int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status);
int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status)
{
	*status = index <= 1 ? F.p2p[gi(a)][gi(b)] : index == 4 ? 5 : 0;
	return 0;
}

int nvmlDeviceGetNvLinkState(void *h, unsigned l, int *s);
int nvmlDeviceGetNvLinkState(void *h, unsigned l, int *s)
{
	if ((int)l >= F.g[gi(h)].nlinks)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT: no such link */
	*s = F.g[gi(h)].links[l].up;
	return 0;
}

int nvmlDeviceGetNvLinkVersion(void *h, unsigned l, unsigned *v);
int nvmlDeviceGetNvLinkVersion(void *h, unsigned l, unsigned *v)
{
	(void)l;
	*v = F.g[gi(h)].version;
	return 0;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(void *h, unsigned l, struct nvml_pci *p);
int nvmlDeviceGetNvLinkRemotePciInfo_v2(void *h, unsigned l, struct nvml_pci *p)
{
	memset(p, 0, sizeof(*p));
	nvml_bdf(F.g[gi(h)].links[l].remote, p->bus_id);
	return 0;
}

int nvmlDeviceGetNvLinkRemoteDeviceType(void *h, unsigned l, int *t);
int nvmlDeviceGetNvLinkRemoteDeviceType(void *h, unsigned l, int *t)
{
	*t = F.g[gi(h)].links[l].type;
	return 0;
}

struct nvml_field {
	unsigned id, scope;
	long long ts, lat;
	int type, ret;
	unsigned long long value;
};

int nvmlDeviceGetFieldValues(void *h, int n, struct nvml_field *f);
int nvmlDeviceGetFieldValues(void *h, int n, struct nvml_field *f)
{
	int i;

	for (i = 0; i < n; i++) {
		f[i].ret = f[i].id == 90 && F.g[gi(h)].mbps ? 0 : 3;
		f[i].type = 0; /* unsigned int */
		f[i].value = F.g[gi(h)].mbps;
	}
	return 0;
}

/* ---- CUDA ---- */

struct fstream {
	int dev;
	double ms;
};

struct fevent {
	double ms;
};

static int cuda_devs[MAXG], ncuda;

int cuInit(unsigned flags);
int cuInit(unsigned flags)
{
	int i;

	(void)flags;
	load();
	if (F.cuda_initfail)
		return 100; /* CUDA_ERROR_NO_DEVICE */
	for (ncuda = 0, i = 0; i < F.n; i++)
		if (!F.hidden[i])
			cuda_devs[ncuda++] = i;
	return 0;
}

int cuGetErrorString(int r, const char **s);
int cuGetErrorString(int r, const char **s)
{
	*s = r == 217 ? "peer access is not supported between these two devices" : "fake error";
	return 0;
}

int cuDeviceGetCount(int *n);
int cuDeviceGetCount(int *n)
{
	*n = ncuda;
	return 0;
}

int cuDeviceGet(int *d, int i);
int cuDeviceGet(int *d, int i)
{
	*d = cuda_devs[i]; /* the fixture's GPU index stands for the device */
	return 0;
}

int cuDeviceGetPCIBusId(char *buf, int len, int d);
int cuDeviceGetPCIBusId(char *buf, int len, int d)
{
	snprintf(buf, (size_t)len, "%s", F.g[d].bdf);
	return 0;
}

int cuDeviceCanAccessPeer(int *can, int a, int b);
int cuDeviceCanAccessPeer(int *can, int a, int b)
{
	*can = !F.noaccess[a][b];
	return 0;
}

static int ctx_dev[MAXG];

int cuDevicePrimaryCtxRetain(void **ctx, int d);
int cuDevicePrimaryCtxRetain(void **ctx, int d)
{
	ctx_dev[d] = d;
	*ctx = &ctx_dev[d];
	return 0;
}

int cuDevicePrimaryCtxRelease_v2(int d);
int cuDevicePrimaryCtxRelease_v2(int d)
{
	(void)d;
	return 0;
}

int cuCtxSetCurrent(int *ctx);
int cuCtxSetCurrent(int *ctx)
{
	F.cur = *ctx;
	return 0;
}

int cuCtxSynchronize(void);
int cuCtxSynchronize(void)
{
	return 0;
}

int cuCtxEnablePeerAccess(int *peer, unsigned flags);
int cuCtxEnablePeerAccess(int *peer, unsigned flags)
{
	(void)flags;
	if (F.noaccess[F.cur][*peer])
		return 217;
	if (F.peer[F.cur][*peer])
		return 704;
	F.peer[F.cur][*peer] = 1;
	return 0;
}

int cuMemAlloc_v2(unsigned long long *p, size_t len);
int cuMemAlloc_v2(unsigned long long *p, size_t len)
{
	int i;
	void *m;

	for (i = 0; i < MAXA && F.mem[i].p; i++)
		;
	if (i == MAXA)
		return 2; /* out of memory */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		 0);
	if (m == MAP_FAILED)
		return 2;
	F.mem[i].p = m;
	F.mem[i].len = len;
	F.mem[i].dev = F.cur;
	*p = (unsigned long long)(uintptr_t)m;
	return 0;
}

static int owner(unsigned long long p)
{
	char *c = (char *)(uintptr_t)p;
	int i;

	for (i = 0; i < MAXA; i++)
		if (F.mem[i].p && c >= F.mem[i].p && c < F.mem[i].p + F.mem[i].len)
			return i;
	return -1;
}

int cuMemFree_v2(unsigned long long p);
int cuMemFree_v2(unsigned long long p)
{
	int i = owner(p);

	if (i < 0)
		return 1;
	munmap(F.mem[i].p, F.mem[i].len);
	F.mem[i].p = NULL;
	return 0;
}

#define TOUCH_MAX (64u << 20) /* bigger buffers are only timed, never written */

int cuMemsetD32_v2(unsigned long long p, unsigned v, size_t n);
int cuMemsetD32_v2(unsigned long long p, unsigned v, size_t n)
{
	uint32_t *w = (uint32_t *)(uintptr_t)p;
	size_t i;

	if (n * 4 > TOUCH_MAX)
		return 0;
	for (i = 0; i < n; i++)
		w[i] = v;
	return 0;
}

int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n);
int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n)
{
	memcpy(dst, (void *)(uintptr_t)src, n);
	return 0;
}

int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n);
int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

/* A write from the current device into p's owner: lost when the fixture says "mirror". */
static int lost(unsigned long long p)
{
	int i = owner(p);

	return i >= 0 && F.mirror[F.cur][F.mem[i].dev];
}

int cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, size_t n, void *s);
int cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, size_t n, void *s)
{
	(void)s;
	if (!lost(dst))
		memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	return 0;
}

int cuMemcpyPeerAsync(unsigned long long dst, int *dctx, unsigned long long src, int *sctx,
		      size_t n, struct fstream *s);
/* An idle stream's work starts now, not when it last finished. */
static void wake(struct fstream *s)
{
	if (s->ms < F.now)
		s->ms = F.now;
}

int cuMemcpyPeerAsync(unsigned long long dst, int *dctx, unsigned long long src, int *sctx,
		      size_t n, struct fstream *s)
{
	(void)dst;
	(void)src;
	wake(s);
	s->ms += (double)n / (F.bw[*sctx][*dctx] * 1e9) * 1e3;
	return 0;
}

int cuStreamCreate(struct fstream **s, unsigned flags);
int cuStreamCreate(struct fstream **s, unsigned flags)
{
	(void)flags;
	*s = calloc(1, sizeof(**s));
	(*s)->dev = F.cur;
	return 0;
}

int cuStreamDestroy_v2(struct fstream *s);
int cuStreamDestroy_v2(struct fstream *s)
{
	free(s);
	return 0;
}

int cuStreamSynchronize(struct fstream *s);
int cuStreamSynchronize(struct fstream *s)
{
	if (s->ms > F.now)
		F.now = s->ms;
	return 0;
}

int cuStreamWaitEvent(struct fstream *s, struct fevent *e, unsigned flags);
int cuStreamWaitEvent(struct fstream *s, struct fevent *e, unsigned flags)
{
	(void)flags;
	if (e->ms > s->ms)
		s->ms = e->ms;
	return 0;
}

int cuEventCreate(struct fevent **e, unsigned flags);
int cuEventCreate(struct fevent **e, unsigned flags)
{
	(void)flags;
	*e = calloc(1, sizeof(**e));
	return 0;
}

int cuEventDestroy_v2(struct fevent *e);
int cuEventDestroy_v2(struct fevent *e)
{
	free(e);
	return 0;
}

int cuEventRecord(struct fevent *e, struct fstream *s);
int cuEventRecord(struct fevent *e, struct fstream *s)
{
	wake(s);
	e->ms = s->ms;
	return 0;
}

int cuEventSynchronize(struct fevent *e);
int cuEventSynchronize(struct fevent *e)
{
	if (e->ms > F.now)
		F.now = e->ms;
	return 0;
}

int cuEventElapsedTime(float *ms, struct fevent *a, struct fevent *b);
int cuEventElapsedTime(float *ms, struct fevent *a, struct fevent *b)
{
	*ms = (float)(b->ms - a->ms);
	return 0;
}

static int module_token;

int cuModuleLoadData(void **m, const void *image);
int cuModuleLoadData(void **m, const void *image)
{
	if (F.nojit || !strstr(image, ".entry gp_fill"))
		return 218; /* CUDA_ERROR_INVALID_PTX */
	*m = &module_token;
	return 0;
}

int cuModuleUnload(void *m);
int cuModuleUnload(void *m)
{
	(void)m;
	return 0;
}

int cuModuleGetFunction(void **f, void *m, const char *name);
int cuModuleGetFunction(void **f, void *m, const char *name)
{
	*f = m;
	return strcmp(name, "gp_fill") ? 500 : 0;
}

/* The fill kernel, done on the CPU: word i = i * 2654435761 ^ seed. */
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned shm, void *s, void **args, void **extra);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned shm, void *s, void **args, void **extra)
{
	unsigned long long p = *(unsigned long long *)args[0];
	uint32_t n = *(uint32_t *)args[1], seed = *(uint32_t *)args[2], i;
	uint32_t *w = (uint32_t *)(uintptr_t)p;

	(void)f, (void)gy, (void)gz, (void)by, (void)bz, (void)shm, (void)s, (void)extra;
	if ((unsigned long long)gx * bx < n)
		return 1;
	if (lost(p))
		return 0;
	for (i = 0; i < n; i++)
		w[i] = (i * 2654435761u) ^ seed;
	return 0;
}

/* ---- NCCL ---- */

struct fcomm {
	int n;
};

int ncclGetVersion(int *v);
int ncclGetVersion(int *v)
{
	*v = 22803;
	return 0;
}

const char *ncclGetErrorString(int r);
const char *ncclGetErrorString(int r)
{
	return r ? "unhandled system error" : "no error";
}

/* A captured file copied where NCCL would write its own. */
static void replay(const char *from, const char *env)
{
	const char *to = getenv(env);
	char buf[4096];
	FILE *in, *out;
	size_t n;

	if (!from[0] || !to || !to[0] || !(in = fopen(from, "r")))
		return;
	out = fopen(to, "w");
	while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (out)
		fclose(out);
	fclose(in);
}

/* What NCCL_DEBUG=INFO and NCCL_TOPO_DUMP_FILE make NCCL write, at its init. */
static void debug_output(void)
{
	const char *level = getenv("NCCL_DEBUG"), *off = getenv("NCCL_P2P_DISABLE");
	int nop2p = off && !strcmp(off, "1") && F.nccl_log_nop2p[0];

	if (level && !strcasecmp(level, "INFO"))
		replay(nop2p ? F.nccl_log_nop2p : F.nccl_log, "NCCL_DEBUG_FILE");
	replay(F.nccl_dump, "NCCL_TOPO_DUMP_FILE");
}

int ncclCommInitAll(struct fcomm **c, int n, const int *list);
int ncclCommInitAll(struct fcomm **c, int n, const int *list)
{
	int i;

	(void)list;
	load();
	debug_output();
	if (F.nccl_fail)
		return 2;
	for (i = 0; i < n; i++) {
		c[i] = calloc(1, sizeof(**c));
		c[i]->n = n;
	}
	return 0;
}

int ncclCommDestroy(struct fcomm *c);
int ncclCommDestroy(struct fcomm *c)
{
	free(c);
	return 0;
}

int ncclGroupStart(void);
int ncclGroupStart(void)
{
	return 0;
}

int ncclGroupEnd(void);
int ncclGroupEnd(void)
{
	return 0;
}

int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, struct fcomm *c,
		  struct fstream *st);
int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, struct fcomm *c,
		  struct fstream *st)
{
	const char *off = getenv("NCCL_P2P_DISABLE");
	double busbw = off && !strcmp(off, "1") ? F.nccl_nop2p : F.nccl;
	double algbw = busbw / (2.0 * (c->n - 1) / c->n);

	(void)s, (void)r, (void)type, (void)op;
	wake(st);
	if (algbw <= 0)
		algbw = 100;
	st->ms += (double)count * 4 / (algbw * 1e9) * 1e3;
	return 0;
}
