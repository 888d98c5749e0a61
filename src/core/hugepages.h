/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hugepages.c: [vm] hugepages on each host node of the VM's cells: the pages
 * the cell needs, what the node's pool has free, and whether the node's free
 * memory can hold the rest.  vm.memory says it, the plan adds a
 * hugepages.reserve step for each node that can get its pages at runtime,
 * apply's actuator (act/hugepages.c) raises the node's nr_hugepages and
 * writes the boot unit's files named here.  Pure.
 */
#ifndef GP_HUGEPAGES_H
#define GP_HUGEPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/manifest.h"
#include "core/model.h"
#include "core/vm.h"

enum gp_huge_verdict {
	GP_HUGE_ENOUGH,	   /* the node's pool has the pages free */
	GP_HUGE_RESERVE,   /* it lacks some, the node's free memory holds them: a step */
	GP_HUGE_NO_POOL,   /* the kernel has no pool of that size on the node */
	GP_HUGE_NO_MEMORY, /* too little free memory on the node for the rest */
	GP_HUGE_UNREAD,	   /* the node is not among those the host listed */
};

struct gp_huge_node {
	int cell;
	int node;	   /* the host node */
	unsigned size_kb;  /* the page size: 2048 or 1048576 */
	long need;	   /* the pages the cell wants */
	long free;	   /* free_hugepages now; -1: not said */
	long nr;	   /* nr_hugepages now; -1: no pool */
	long add;	   /* pages to reserve: need - free (0 when enough) */
	uint64_t mem_free; /* MemFree of the node */
	enum gp_huge_verdict verdict;
};

struct gp_hugepages {
	struct gp_huge_node nodes[GP_VM_MAX_CELLS];
	int n;
};

/* For l's cells; n = 0 without [vm] hugepages or with the VM's nodes unknown. */
void gp_hugepages_from(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_vm_layout *l, struct gp_hugepages *out);
/* The same, laying out the VM first (the plan, apply). */
void gp_hugepages_plan(const struct gp_host *h, const struct gp_profile *p,
		       struct gp_hugepages *out);
/*
 * The headroom rule: add pages of size_kb fit in a node's free memory
 * (bytes) and leave what the node needs free (a twentieth of mem_total, at
 * least 1 GiB or a quarter).  The plan judges by it, apply again just
 * before it writes nr_hugepages.
 */
bool gp_hugepages_room(uint64_t mem_total, uint64_t mem_free, unsigned size_kb, long add);
/* A node's meminfo line "Node N FIELD  KB kB" (field "MemFree:") in bytes; 0 absent. */
uint64_t gp_meminfo_field(const char *text, const char *field);
/* The entry of host node node, or NULL (also without hp). */
const struct gp_huge_node *gp_hugepages_node(const struct gp_hugepages *hp, int node);
/*
 * What reserves a node's pages at boot instead: "hugepagesz=2M hugepages=0:N"
 * (the per-node form, Linux 5.16 and later), into out.
 */
void gp_hugepages_cmdline(const struct gp_huge_node *n, long count, char *out, size_t len);
/* "2 MiB", "1 GiB" */
const char *gp_hugepages_size_name(unsigned size_kb);

/* The boot unit's files (GP_HUGE_*, core/manifest.h): its script and unit, as written. */
extern const char gp_hugepages_script[];
extern const char gp_hugepages_unit[];
/* A node's file, GP_HUGE_DIR/nodeN-SIZEkB: it holds the node's nr_hugepages. */
void gp_hugepages_file(int node, unsigned size_kb, char *path, size_t len);
/* The node and page size of such a path (clean, as the journal checks it): 0, or -EINVAL. */
int gp_hugepages_file_parse(const char *path, int *node, unsigned *size_kb);

#endif
