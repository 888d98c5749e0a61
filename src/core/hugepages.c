// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * [vm] hugepages, node by node: each cell of the VM takes its memory from
 * its host node's pool of that page size (numa = strict binds it there), so
 * a node whose pool has too few pages free is one the VM does not start on.
 * The pool grows at runtime through the node's nr_hugepages, from the
 * node's free memory (Documentation/admin-guide/mm/hugetlbpage.rst, "the
 * per node hugepages attributes"); a 1 GiB page needs 1 GiB of contiguous
 * free memory, which a running host often lacks: the actuator reads the
 * pool back and fails when the kernel found fewer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostq.h"
#include "core/hugepages.h"
#include "shared/util.h"

static void pool(const struct gp_numa *nn, unsigned size_kb, long *nr, long *free_pages)
{
	bool big = size_kb == 1048576;

	*nr = big ? nn->hugepages_1g_nr : nn->hugepages_2m_nr;
	*free_pages = big ? nn->hugepages_1g_free : nn->hugepages_2m_free;
}

/*
 * What a reservation must leave free on the node: the kernel reclaims and
 * compacts to find the pages, and whatever else runs there (other guests,
 * libvirt, sshd) would meet the OOM killer on a node drained to its
 * watermark.  A twentieth of the node, and never less than 1 GiB (a quarter
 * of a node smaller than 4 GiB).
 */
static uint64_t headroom(uint64_t mem_total)
{
	uint64_t part = mem_total / 20, floor = mem_total / 4;

	if (floor > 1ull << 30)
		floor = 1ull << 30;
	return part > floor ? part : floor;
}

/* what the node has free now, less the headroom, not counting what the kernel could reclaim */
bool gp_hugepages_room(uint64_t mem_total, uint64_t mem_free, unsigned size_kb, long add)
{
	uint64_t page = (uint64_t)size_kb << 10, room = headroom(mem_total);
	uint64_t spare = mem_free > room ? mem_free - room : 0;

	return add <= 0 || (page && (uint64_t)add <= spare / page);
}

uint64_t gp_meminfo_field(const char *text, const char *field)
{
	const char *p = strstr(text, field);
	unsigned long long kb;

	if (!p || sscanf(p + strlen(field), " %llu", &kb) != 1 || kb > UINT64_MAX / 1024)
		return 0;
	return (uint64_t)kb * 1024;
}

static void judge(const struct gp_host *h, const struct gp_vm_cell *c, unsigned size_kb,
		  struct gp_huge_node *n)
{
	const struct gp_numa *nn = gp_host_numa(h, c->host_node);
	uint64_t page = (uint64_t)size_kb << 10;

	n->node = c->host_node;
	n->size_kb = size_kb;
	n->need = (long)(c->memory / page + (c->memory % page != 0)); /* no wrap near 2^64 */
	n->nr = n->free = -1;
	if (!nn) {
		n->verdict = GP_HUGE_UNREAD;
		return;
	}
	pool(nn, size_kb, &n->nr, &n->free);
	n->mem_free = nn->mem_free;
	if (n->free < 0)
		n->free = n->nr < 0 ? -1 : 0;
	if (n->free >= n->need) {
		n->verdict = GP_HUGE_ENOUGH;
		return;
	}
	if (n->nr < 0) {
		n->verdict = GP_HUGE_NO_POOL;
		return;
	}
	n->add = n->need - n->free;
	n->verdict = gp_hugepages_room(nn->mem_total, nn->mem_free, size_kb, n->add)
			     ? GP_HUGE_RESERVE
			     : GP_HUGE_NO_MEMORY;
}

void gp_hugepages_from(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_vm_layout *l, struct gp_hugepages *out)
{
	int c;

	memset(out, 0, sizeof(*out));
	if (!p->vm.hugepages || !l->numa_known)
		return;
	for (c = 0; c < l->ncells && out->n < GP_VM_MAX_CELLS; c++) {
		struct gp_huge_node *n = &out->nodes[out->n++];

		n->cell = c;
		judge(h, &l->cells[c], (unsigned)(p->vm.hugepages >> 10), n);
	}
}

void gp_hugepages_plan(const struct gp_host *h, const struct gp_profile *p,
		       struct gp_hugepages *out)
{
	struct gp_vm_layout *l = gp_xcalloc(1, sizeof(*l));

	memset(out, 0, sizeof(*out));
	if (p->has_vm && p->vm.hugepages) {
		gp_vm_layout(h, p, l);
		gp_hugepages_from(h, p, l, out);
	}
	free(l);
}

const struct gp_huge_node *gp_hugepages_node(const struct gp_hugepages *hp, int node)
{
	int i;

	for (i = 0; hp && i < hp->n; i++)
		if (hp->nodes[i].node == node)
			return &hp->nodes[i];
	return NULL;
}

const char *gp_hugepages_size_name(unsigned size_kb)
{
	return size_kb == 1048576 ? "1 GiB" : size_kb == 2048 ? "2 MiB" : "?";
}

/*
 * Documentation/admin-guide/kernel-parameters.txt and mm/hugetlbpage.rst:
 * hugepagesz= names the pool the following hugepages= fills; its node form
 * "hugepages=0:1,1:2" (Linux 5.16 and later) fills each node's.
 */
void gp_hugepages_cmdline(const struct gp_huge_node *n, long count, char *out, size_t len)
{
	snprintf(out, len, "hugepagesz=%s hugepages=%d:%ld", n->size_kb == 1048576 ? "1G" : "2M",
		 n->node, count);
}

void gp_hugepages_file(int node, unsigned size_kb, char *path, size_t len)
{
	snprintf(path, len, GP_HUGE_DIR "/node%d-%ukB", node, size_kb);
}

int gp_hugepages_file_parse(const char *path, int *node, unsigned *size_kb)
{
	char back[128];
	unsigned n, kb;
	int used = 0;

	if (strncmp(path, GP_HUGE_DIR "/node", strlen(GP_HUGE_DIR "/node")) ||
	    sscanf(path + strlen(GP_HUGE_DIR "/node"), "%4u-%7ukB%n", &n, &kb, &used) != 2 ||
	    path[strlen(GP_HUGE_DIR "/node") + (size_t)used] || n > 4095 ||
	    (kb != 2048 && kb != 1048576))
		return -EINVAL;
	/* one spelling only: node007 or +1 would name the same node twice */
	gp_hugepages_file((int)n, kb, back, sizeof(back));
	if (strcmp(back, path))
		return -EINVAL;
	*node = (int)n;
	*size_kb = kb;
	return 0;
}

const char gp_hugepages_script[] =
	"#!/bin/sh\n"
	"# Written by gpuprov (hugepages.reserve); `gpuprov rollback` removes it.\n"
	"# Reserves on each NUMA node the huge pages its file in /etc/gpuprov/hugepages.d/\n"
	"# asks for (nodeN-SIZEkB, holding the node's nr_hugepages): at boot, while\n"
	"# memory is least fragmented, and before libvirt starts the VM on them.  A\n"
	"# pool already as large is left alone; one the kernel could not fill is said,\n"
	"# and the unit fails: then reserve them on the kernel command line.\n"
	"rc=0\n"
	"for f in /etc/gpuprov/hugepages.d/node*-*kB; do\n"
	"\t[ -f \"$f\" ] || continue\n"
	"\tn=${f##*/}\n"
	"\tp=/sys/devices/system/node/${n%%-*}/hugepages/hugepages-${n#*-}/nr_hugepages\n"
	"\twant=$(cat \"$f\")\n"
	"\tcase $want in\n"
	"\t'' | *[!0-9]*)\n"
	"\t\techo \"gpuprov-hugepages: $f: not a count\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\t\t;;\n"
	"\tesac\n"
	"\tif [ ! -w \"$p\" ]; then\n"
	"\t\techo \"gpuprov-hugepages: $n: no $p\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\t[ \"$(cat \"$p\")\" -ge \"$want\" ] || echo \"$want\" >\"$p\"\n"
	"\tgot=$(cat \"$p\")\n"
	"\techo \"gpuprov-hugepages: ${n%%-*}: $got pages of ${n#*-} (asked for $want)\"\n"
	"\tif [ \"$got\" -lt \"$want\" ]; then\n"
	"\t\techo \"gpuprov-hugepages: ${n%%-*}: the kernel found $got of $want pages:\" \\\n"
	"\t\t\t\"reserve them on the kernel command line\" >&2\n"
	"\t\trc=1\n"
	"\tfi\n"
	"done\n"
	"exit $rc\n";

/*
 * Before basic.target, which libvirtd and virtqemud follow (named too, for
 * who reads it); after systemd-sysctl, so that a vm.nr_hugepages of
 * sysctl.d does not undo a node's count.
 */
const char gp_hugepages_unit[] =
	"# Written by gpuprov (hugepages.reserve); `gpuprov rollback` removes it.\n"
	"[Unit]\n"
	"Description=Reserve the huge pages named in /etc/gpuprov/hugepages.d for the VM\n"
	"DefaultDependencies=no\n"
	"After=systemd-sysctl.service\n"
	"Before=basic.target libvirtd.service virtqemud.service\n"
	"ConditionDirectoryNotEmpty=/etc/gpuprov/hugepages.d\n"
	"\n"
	"[Service]\n"
	"Type=oneshot\n"
	"RemainAfterExit=yes\n"
	"ExecStart=/bin/sh /etc/gpuprov/hugepages-reserve\n"
	"\n"
	"[Install]\n"
	"WantedBy=basic.target\n";
