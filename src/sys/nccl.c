// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NCCL adapter: the all-reduce the seeds end with, in-process.  The few
 * prototypes are declared here, checked against NVIDIA's nccl.h (2.28):
 * ncclFloat is 7, ncclSum 0, streams are the CUDA driver's CUstream.
 * Bus bandwidth as nccl-tests computes it: algbw * 2(n-1)/n.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/util.h"
#include "sys/nccl.h"

typedef int nccl_ret;
typedef struct nccl_comm *nccl_comm;

#define NCCL_FLOAT 7
#define NCCL_SUM   0

struct nccl {
	void *dl;
	nccl_ret (*version)(int *);
	nccl_ret (*init_all)(nccl_comm *, int, const int *);
	nccl_ret (*destroy)(nccl_comm);
	nccl_ret (*all_reduce)(const void *, void *, size_t, int, int, nccl_comm, void *);
	nccl_ret (*group_start)(void);
	nccl_ret (*group_end)(void);
	const char *(*error_string)(nccl_ret);
};

#define NEED(fld, name) ((*(void **)&l->fld = dlsym(l->dl, name)) != NULL)

static bool resolve(struct nccl *l)
{
	return NEED(version, "ncclGetVersion") && NEED(init_all, "ncclCommInitAll") &&
	       NEED(destroy, "ncclCommDestroy") && NEED(all_reduce, "ncclAllReduce") &&
	       NEED(group_start, "ncclGroupStart") && NEED(group_end, "ncclGroupEnd") &&
	       NEED(error_string, "ncclGetErrorString");
}

struct run {
	struct gp_cuda *c;
	struct nccl *l;
	nccl_comm *comms;
	uint64_t *send, *recv;
	int n;
};

static int fail(struct gp_nccl_runs *out, const struct nccl *l, const char *what, nccl_ret r)
{
	snprintf(out->why, sizeof(out->why), "%s: %s", what, l->error_string(r));
	return -1;
}

static int one_round(struct run *r, size_t count, struct gp_nccl_runs *out)
{
	nccl_ret e;
	int i;

	e = r->l->group_start();
	for (i = 0; !e && i < r->n; i++)
		e = r->l->all_reduce((void *)(uintptr_t)r->send[i], (void *)(uintptr_t)r->recv[i],
				     count, NCCL_FLOAT, NCCL_SUM, r->comms[i],
				     gp_cuda_stream(r->c, i));
	if (!e)
		e = r->l->group_end();
	return e ? fail(out, r->l, "ncclAllReduce", e) : 0;
}

static int mark_all(struct run *r, bool stop, struct gp_nccl_runs *out)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (gp_cuda_mark(r->c, i, stop)) {
			snprintf(out->why, sizeof(out->why), "%s", gp_cuda_error(r->c));
			return -1;
		}
	return 0;
}

/* One size: warm-up, then iters all-reduces between marks; the slowest device counts. */
static int one_size(struct run *r, size_t bytes, int iters, struct gp_nccl_runs *out)
{
	struct gp_nccl_point *pt = &out->points[out->npoints];
	double ms, worst = 0;
	int i;

	if (one_round(r, bytes / 4, out) || mark_all(r, false, out))
		return -1;
	for (i = 0; i < iters; i++)
		if (one_round(r, bytes / 4, out))
			return -1;
	if (mark_all(r, true, out))
		return -1;
	for (i = 0; i < r->n; i++) {
		if (gp_cuda_marked_ms(r->c, i, &ms)) {
			snprintf(out->why, sizeof(out->why), "%s", gp_cuda_error(r->c));
			return -1;
		}
		worst = ms > worst ? ms : worst;
	}
	pt->bytes = bytes;
	pt->ms = worst / iters;
	pt->algbw = pt->ms > 0 ? (double)bytes / (pt->ms * 1e-3) / 1e9 : 0;
	pt->busbw = gp_allreduce_busbw(pt->algbw, r->n);
	out->npoints++;
	return 0;
}

static int buffers(struct run *r, size_t bytes, struct gp_nccl_runs *out)
{
	int i;

	r->send = gp_xcalloc((size_t)r->n, sizeof(*r->send));
	r->recv = gp_xcalloc((size_t)r->n, sizeof(*r->recv));
	for (i = 0; i < r->n; i++)
		if (gp_cuda_alloc(r->c, i, bytes, &r->send[i]) ||
		    gp_cuda_alloc(r->c, i, bytes, &r->recv[i])) {
			snprintf(out->why, sizeof(out->why), "%s", gp_cuda_error(r->c));
			return -1;
		}
	return 0;
}

static void release(struct run *r)
{
	int i;

	for (i = 0; r->comms && i < r->n; i++)
		if (r->comms[i])
			r->l->destroy(r->comms[i]);
	for (i = 0; r->send && i < r->n; i++) {
		gp_cuda_free(r->c, i, r->send[i]);
		gp_cuda_free(r->c, i, r->recv[i]);
	}
	free(r->comms);
	free(r->send);
	free(r->recv);
}

static void run_sizes(struct run *r, const size_t *sizes, int nsizes, int iters,
		      struct gp_nccl_runs *out)
{
	size_t most = 0;
	nccl_ret e;
	int i;

	for (i = 0; i < nsizes; i++)
		most = sizes[i] > most ? sizes[i] : most;
	r->comms = gp_xcalloc((size_t)r->n, sizeof(*r->comms));
	e = r->l->init_all(r->comms, r->n, NULL);
	if (e) {
		fail(out, r->l, "ncclCommInitAll", e);
		memset(r->comms, 0, (size_t)r->n * sizeof(*r->comms));
		return;
	}
	if (buffers(r, most, out))
		return;
	for (i = 0; i < nsizes && i < GP_VERIFY_MAX_SIZES; i++)
		if (one_size(r, sizes[i], iters, out))
			return;
	out->ok = true;
}

void gp_nccl_allreduce(struct gp_cuda *c, const char *lib, const size_t *sizes, int nsizes,
		       int iters, struct gp_nccl_runs *out)
{
	struct nccl l = { 0 };
	struct run r = { .c = c, .l = &l, .n = gp_cuda_count(c) };

	memset(out, 0, sizeof(*out));
	out->tried = true;
	out->ranks = r.n;
	l.dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!l.dl) {
		out->tried = false;
		snprintf(out->why, sizeof(out->why), "NCCL not loadable: %s", dlerror());
		return;
	}
	if (!resolve(&l)) {
		snprintf(out->why, sizeof(out->why), "libnccl.so.2 lacks a function gpuprov needs");
	} else if (l.version(&out->version)) {
		snprintf(out->why, sizeof(out->why), "ncclGetVersion failed");
	} else {
		run_sizes(&r, sizes, nsizes, iters, out);
		release(&r);
	}
	/* NCCL keeps threads and CUDA state of its own: it stays loaded until exit */
}
