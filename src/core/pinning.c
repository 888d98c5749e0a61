// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vCPU pinning, one to one.  Each cell's vCPUs run on the CPUs of the host
 * node its GPUs are on, one vCPU to one CPU, walked core by core so that
 * consecutive vCPUs are SMT siblings (and the guest is told so: threads = 2);
 * the first core of each node (with its siblings) is kept from the vCPUs for
 * the emulator's and I/O threads, so that QEMU's own work never preempts a
 * vCPU.  A node with too few CPUs beside that core lets its cell's vCPUs
 * float over what it has, and vm.pinning says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pinning.h"
#include "shared/util.h"

struct cpu_key {
	int core; /* the first of its SMT siblings, or itself when unknown */
	int id;
};

static int by_core(const void *a, const void *b)
{
	const struct cpu_key *x = a, *y = b;

	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int by_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int core_of(const struct gp_host *h, int cpu, bool *known)
{
	if (cpu < h->ncpu_core && h->cpu_core[cpu] >= 0) {
		*known = true;
		return h->cpu_core[cpu];
	}
	return cpu;
}

/* A node's CPUs core by core; their number, or -EINVAL for an unreadable list. */
static int node_cores(const struct gp_host *h, const char *cpus, struct cpu_key **out, bool *known)
{
	int n = gp_cpulist_count(cpus), i, *ids;

	*out = NULL;
	if (n <= 0 || n > GP_PIN_MAX_CPUS)
		return -EINVAL;
	ids = gp_xcalloc((size_t)n, sizeof(*ids));
	gp_cpulist_parse(cpus, ids, n);
	*out = gp_xcalloc((size_t)n, sizeof(**out));
	for (i = 0; i < n; i++)
		(*out)[i] = (struct cpu_key){ core_of(h, ids[i], known), ids[i] };
	free(ids);
	qsort(*out, (size_t)n, sizeof(**out), by_core);
	return n;
}

/* The CPUs of one core from k[i]. */
static int core_run(const struct cpu_key *k, int n, int i)
{
	int run = 1;

	while (i + run < n && k[i + run].core == k[i].core)
		run++;
	return run;
}

/* Threads per core among k[from..n), when every core has as many; 0 otherwise. */
static int uniform_threads(const struct cpu_key *k, int n, int from)
{
	int t = 0, run, i;

	for (i = from; i < n; i += run) {
		run = core_run(k, n, i);
		if (t && run != t)
			return 0;
		t = run;
	}
	return t;
}

static void format_ids(const struct cpu_key *k, int n, char *buf, size_t len)
{
	int *ids = gp_xcalloc((size_t)n + 1, sizeof(*ids)), i;

	for (i = 0; i < n; i++)
		ids[i] = k[i].id;
	qsort(ids, (size_t)n, sizeof(*ids), by_id);
	gp_cpulist_format(ids, n, buf, len);
	free(ids);
}

/* One cell: its vCPUs, its node's housekeeping core (appended to hk); its threads per core. */
static int cell_pins(const struct gp_host *h, const struct gp_vm_cell *cell, int c,
		     struct gp_vm_pins *pins, struct cpu_key *hk, int *nhk)
{
	struct cpu_key *k;
	int n = node_cores(h, cell->cpus, &k, &pins->smt_known), first, t, j;

	if (n < 0) {
		gp_strlcpy(pins->floats[c], cell->cpus, sizeof(pins->floats[c]));
		return 0;
	}
	first = core_run(k, n, 0);
	memcpy(hk + *nhk, k, (size_t)first * sizeof(*k));
	*nhk += first;
	t = uniform_threads(k, n, first);
	if (n - first < (int)cell->vcpus) {
		if (pins->short_cell < 0) {
			pins->short_cell = c;
			pins->short_have = n - first;
		}
		if (n > first)
			format_ids(k + first, n - first, pins->floats[c], sizeof(pins->floats[c]));
		else
			gp_strlcpy(pins->floats[c], cell->cpus, sizeof(pins->floats[c]));
		free(k);
		return 0;
	}
	for (j = 0; j < (int)cell->vcpus; j++)
		pins->cpu[cell->first_vcpu + (unsigned)j] = k[first + j].id;
	free(k);
	return t;
}

/*
 * node_cores refuses a list longer than GP_PIN_MAX_CPUS: counted here it
 * would only size the housekeeping array (a hostile tree's "0-1048576" on
 * each of eight cells asked for hundreds of MiB).
 */
size_t gp_vm_pins_room(const struct gp_vm_layout *l)
{
	size_t cpus = 0;
	int c, n;

	for (c = 0; c < l->ncells; c++) {
		n = gp_cpulist_count(l->cells[c].cpus);
		if (n > 0 && n <= GP_PIN_MAX_CPUS)
			cpus += (size_t)n;
	}
	return cpus;
}

int gp_vm_pins(const struct gp_host *h, const struct gp_vm_layout *l, struct gp_vm_pins *pins)
{
	struct cpu_key *hk;
	int c, nhk = 0, t, threads = -1;
	unsigned v;

	memset(pins, 0, sizeof(*pins));
	pins->short_cell = -1;
	pins->threads = 1;
	if (!l->numa_known || !l->ncells)
		return 0;
	for (c = 0; c < l->ncells; c++)
		pins->nvcpus += l->cells[c].vcpus;
	pins->cpu = gp_xcalloc(pins->nvcpus + 1, sizeof(*pins->cpu));
	for (v = 0; v < pins->nvcpus; v++)
		pins->cpu[v] = -1;
	hk = gp_xcalloc(gp_vm_pins_room(l) + 1, sizeof(*hk));
	for (c = 0; c < l->ncells; c++) {
		t = cell_pins(h, &l->cells[c], c, pins, hk, &nhk);
		/* the guest's topology is one for all cells: equal cells of whole cores */
		if (threads < 0)
			threads = t;
		if (t != threads || l->cells[c].vcpus != l->cells[0].vcpus ||
		    (t > 0 && l->cells[c].vcpus % (unsigned)t))
			threads = 0;
	}
	if (threads > 1 && pins->smt_known && pins->short_cell < 0)
		pins->threads = (unsigned)threads;
	format_ids(hk, nhk, pins->housekeeping, sizeof(pins->housekeeping));
	free(hk);
	return 0;
}

void gp_vm_pins_release(struct gp_vm_pins *pins)
{
	free(pins->cpu);
	pins->cpu = NULL;
}
