// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NCCL's topology file (NCCL_TOPO_FILE), in the format NCCL's own parser
 * reads (NVIDIA/nccl src/graph/xml.cc, topo.cc; checked against 2.28.3):
 *
 *   <system version="1">
 *     <cpu numaid affinity arch vendor familyid modelid>
 *       <pci busid class vendor device subsystem_vendor subsystem_device
 *            link_speed link_width>        a switch: class 0x060400
 *         <pci busid=GPU or NIC .../>
 *
 * Inside a VM, NCCL sees QEMU's tree: every GPU under a root port of its
 * own, links of unknown width.  The file gives it the host's tree instead,
 * at the addresses the guest has, so that NCCL's path types (paths.cc:
 * a GPU's or NIC's link to a switch is PIX, switch to switch PXB, anything
 * to a CPU PHB, CPU to CPU SYS) come out as `topo` classes each pair on the
 * host: PIX, PXB, PHB (NODE too: NCCL has no NODE), SYS.  Of the host tree
 * it keeps what topo counts: a switch is its upstream port (the downstream
 * port below it is part of it), other bridges are themselves, root ports
 * and what is above them are the CPU.  One exception keeps topo's PIX for
 * two functions of one card on a root port: that root port stays, as a
 * switch of two.
 *
 * There are no <gpu> or <nic> elements: NCCL fills those from NVML and its
 * network plugins in the guest (NVLinks included), and keeps every
 * attribute the file gives.  A passed NIC is its <pci> at its guest address
 * ([nic] mode = vf: the VF the VM gets, at its PF's place, with its VF
 * Device ID where config space was read whole);
 * NCCL hangs the <nic><net name=...> of the HCA it finds there below it.
 * Naming the <net> here would be a guess (mlx5_N in probe order, or what
 * rdma-core's udev policy renames it to) that NCCL cannot survive:
 * ncclTopoFillNet looks a <net> up by name anywhere in the file
 * (xmlFindTagKv), so a swapped name puts the HCA beside the wrong GPU, and
 * ncclTopoTrimXml removes only <pci> and <cpu> elements, so a <net> no HCA
 * claims stays, without the "dev" NCCL reads from each.  NCCL's parser knows no XML escapes, tabs or
 * declaration: every value here is a number, an address or a checked word,
 * and the layout is NCCL's own dump's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "core/hostq.h"
#include "core/nccl_topo.h"
#include "core/topo.h"
#include "core/vm.h"

#define MAX_DEPTH    64
#define MAX_CPUS     64
#define NCCL_STR_MAX 255 /* NCCL's MAX_STR_LEN: a longer value is an error there */
#define MASK_WORDS   28	 /* "xxxxxxxx," words that fit in it: 896 CPUs */
/* NCCL_TOPO_XML_MAX_NODES: the file's elements and those NCCL adds in the
 * guest (per GPU <gpu>, <nvlink>, <c2c>; per NIC <nic>, <net>) */
#define NCCL_MAX_NODES 256

struct elem {
	int dev;    /* in h->devs; a VF's: its PF */
	bool vf;    /* [nic] mode = vf: a VF of dev, with its VF Device ID */
	int parent; /* in elems, -1: directly under its cpu */
	int cpu;
	bool bridge;
	char busid[GP_BDF_LEN];
};

struct cpu {
	int numaid;
	char affinity[NCCL_STR_MAX + 1]; /* "" when not known: NCCL reads the guest's */
};

struct tree {
	const struct gp_host *h;
	struct elem *e;
	int n;
	struct cpu cpus[MAX_CPUS];
	int ncpus;
	bool this_host;
};

/* ---- CPUs ---- */

static int cpu_index(struct tree *t, int numaid)
{
	int c;

	for (c = 0; c < t->ncpus; c++)
		if (t->cpus[c].numaid == numaid)
			return c;
	if (t->ncpus == MAX_CPUS)
		return MAX_CPUS - 1;
	t->cpus[t->ncpus].numaid = numaid;
	t->cpus[t->ncpus].affinity[0] = '\0';
	return t->ncpus++;
}

/* Adds the CPUs of a kernel cpulist ("0-15,32-47") to w; -1 if malformed or too big. */
static int mask_add(uint32_t *w, const char *list)
{
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -1;
			p = end;
		}
		if (b >= MASK_WORDS * 32)
			return -1; /* NCCL could not read the mask: let it read the guest's */
		for (; a <= b; a++)
			w[a / 32] |= 1u << (a % 32);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return 0;
}

static void mask_range(uint32_t *w, unsigned first, unsigned n)
{
	unsigned i;

	for (i = first; i < first + n && i < MASK_WORDS * 32; i++)
		w[i / 32] |= 1u << (i % 32);
}

/* As sysfs cpumap writes it, which NCCL's ncclStrToCpuset reads: 32-bit words, highest first. */
static void mask_text(const uint32_t *w, char *out, size_t len)
{
	int top = MASK_WORDS - 1, i;
	size_t at = 0;

	while (top > 0 && !w[top])
		top--;
	for (i = top; i >= 0; i--)
		at += (size_t)snprintf(out + at, len - at, "%s%08x", i == top ? "" : ",", w[i]);
}

/* The guest cells: cell c is NUMA node c of the guest, its vCPUs as domxml pins them. */
static void vm_cpus(struct tree *t, const struct gp_vm_layout *l)
{
	int c;

	for (c = 0; c < l->ncells; c++) {
		uint32_t w[MASK_WORDS] = { 0 };
		int k = cpu_index(t, c);

		if (l->cells[c].first_vcpu + l->cells[c].vcpus > MASK_WORDS * 32)
			continue;
		mask_range(w, l->cells[c].first_vcpu, l->cells[c].vcpus);
		mask_text(w, t->cpus[k].affinity, sizeof(t->cpus[k].affinity));
	}
}

/* This machine's node: its CPUs; a device the host places on no node gets all of them. */
static void host_affinity(struct tree *t, struct cpu *c)
{
	const struct gp_numa *nn = gp_host_numa(t->h, c->numaid);
	uint32_t w[MASK_WORDS] = { 0 };
	size_t i;

	if (nn && mask_add(w, nn->cpus))
		return;
	for (i = 0; !nn && i < t->h->nnuma; i++)
		if (mask_add(w, t->h->numa[i].cpus))
			return;
	if (nn || t->h->nnuma)
		mask_text(w, c->affinity, sizeof(c->affinity));
}

/* ---- the PCI tree ---- */

static bool on_root(const struct gp_dev *d)
{
	return d->pcie_type == GP_PCIE_ROOT_PORT || d->parent < 0;
}

/* Another device in the file that is a function of dev's card, right below the same port. */
static bool card_shares(const struct tree *t, int dev, const int *ends, int nends)
{
	const struct gp_dev *d = &t->h->devs[dev];
	int k;

	for (k = 0; k < nends; k++)
		if (ends[k] != dev && t->h->devs[ends[k]].parent == d->parent &&
		    gp_same_card(&t->h->devs[ends[k]], d))
			return true;
	return false;
}

/* The bridges of the file above dev, nearest first (see the top of the file). */
static int chain_of(const struct tree *t, int dev, const int *ends, int nends, int *out)
{
	const struct gp_host *h = t->h;
	int n = 0, a, steps = 0;

	/* steps: a hostile tree's parents may loop through bridges left out */
	for (a = h->devs[dev].parent; a >= 0 && n < MAX_DEPTH && steps++ < MAX_DEPTH;
	     a = h->devs[a].parent) {
		const struct gp_dev *b = &h->devs[a];

		if (on_root(b)) {
			if (a == h->devs[dev].parent && card_shares(t, dev, ends, nends))
				out[n++] = a;
			break;
		}
		if (b->pcie_type == GP_PCIE_DOWNSTREAM && b->parent >= 0 &&
		    h->devs[b->parent].pcie_type == GP_PCIE_UPSTREAM)
			continue;
		out[n++] = a;
	}
	return n;
}

static bool busid_used(const struct tree *t, const char *busid)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].busid, busid))
			return true;
	return false;
}

/*
 * A switch in a VM's file stands for a host switch the guest does not have:
 * its bus ID is the host's in PCI domain ffff (counting down where two
 * hosts' segments would meet), where QEMU's q35 guest has no device.  NCCL
 * looks such an ID up in the guest's sysfs, finds nothing, and keeps what
 * the file says, without a warning.
 */
static void bridge_busid(const struct tree *t, const struct gp_dev *d, char *out)
{
	unsigned dom = 0xffff;

	if (t->this_host) {
		gp_strlcpy(out, d->bdf, GP_BDF_LEN);
		return;
	}
	do
		snprintf(out, GP_BDF_LEN, "%04x:%02x:%02x.%x", dom--, d->bus, d->dev, d->func);
	while (busid_used(t, out) && dom > 0x8000);
}

static int elem_of(struct tree *t, int dev, int parent, int cpu, bool bridge)
{
	int i;

	for (i = 0; bridge && i < t->n; i++)
		if (t->e[i].bridge && t->e[i].dev == dev)
			return i;
	t->e[t->n] = (struct elem){ .dev = dev, .parent = parent, .cpu = cpu, .bridge = bridge };
	if (bridge)
		bridge_busid(t, &t->h->devs[dev], t->e[t->n].busid);
	return t->n++;
}

static int add_device(struct tree *t, int dev, const char *busid, int cpu, const int *ends,
		      int nends)
{
	int chain[MAX_DEPTH], n = chain_of(t, dev, ends, nends, chain), parent = -1, k;

	for (k = n - 1; k >= 0; k--)
		parent = elem_of(t, chain[k], parent, cpu, true);
	k = elem_of(t, dev, parent, cpu, false);
	gp_strlcpy(t->e[k].busid, busid, sizeof(t->e[k].busid));
	return k;
}

/* ---- the text ---- */

/* NCCL's family number: cpuid's base family plus the extended one shifted by 4
 * (xml.cc), where Linux adds them: AMD family 0x19 is 175 to NCCL. */
static int nccl_family(int family)
{
	return family >= 0xf ? 0xf + ((family - 0xf) << 4) : family;
}

static void cpu_open(FILE *f, const struct gp_host *h, const struct cpu *c)
{
	fprintf(f, "  <cpu numaid=\"%d\"", c->numaid);
	if (c->affinity[0])
		fprintf(f, " affinity=\"%s\"", c->affinity);
	if (h->cpu_arch[0])
		fprintf(f, " arch=\"%s\"", h->cpu_arch);
	if (!strcmp(h->cpu_arch, "x86_64") && h->cpu_vendor[0])
		fprintf(f, " vendor=\"%s\"", h->cpu_vendor);
	if (!strcmp(h->cpu_arch, "x86_64") && h->cpu_family >= 0 && h->cpu_model >= 0)
		fprintf(f, " familyid=\"%d\" modelid=\"%d\"", nccl_family(h->cpu_family),
			h->cpu_model);
	fputs(">\n", f);
}

static bool has_children(const struct tree *t, int i)
{
	int k;

	for (k = 0; k < t->n; k++)
		if (t->e[k].parent == i)
			return true;
	return false;
}

static void pci(FILE *f, const struct tree *t, int i, int depth)
{
	const struct elem *e = &t->e[i];
	const struct gp_dev *d = &t->h->devs[e->dev];
	struct gp_link l;
	int k;

	gp_topo_link(t->h, e->dev, &l);
	fprintf(f,
		"%*s<pci busid=\"%s\" class=\"0x%06x\" vendor=\"0x%04x\" device=\"0x%04x\" "
		"subsystem_vendor=\"0x%04x\" subsystem_device=\"0x%04x\"",
		depth * 2, "", e->busid, e->bridge ? 0x060400u : (unsigned)d->class << 8, d->vendor,
		e->vf && d->vf_device ? d->vf_device : d->device, d->svendor, d->sdevice);
	/* unknown on the host: NCCL reads the guest's, or takes PCIe 3 x16 */
	if (l.max_speed > 0)
		fprintf(f, " link_speed=\"%.1f GT/s PCIe\"", l.max_speed);
	if (l.max_width > 0)
		fprintf(f, " link_width=\"%d\"", l.max_width);
	if (!has_children(t, i)) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	for (k = 0; k < t->n; k++)
		if (t->e[k].parent == i)
			pci(f, t, k, depth + 1);
	fprintf(f, "%*s</pci>\n", depth * 2, "");
}

static int render(const struct tree *t, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	int c, i;

	if (!f)
		return -ENOMEM;
	fputs("<system version=\"1\">\n", f);
	for (c = 0; c < t->ncpus; c++) {
		cpu_open(f, t->h, &t->cpus[c]);
		for (i = 0; i < t->n; i++)
			if (t->e[i].cpu == c && t->e[i].parent < 0)
				pci(f, t, i, 2);
		fputs("  </cpu>\n", f);
	}
	fputs("</system>\n", f);
	return fclose(f) ? -ENOMEM : 0;
}

/* ---- the two sources of devices ---- */

static bool nccl_device(const struct gp_dev *d, bool gpu)
{
	return gpu || d->class >> 8 == 0x02; /* what NCCL uses: GPUs and NICs */
}

static int from_vm(struct tree *t, const struct gp_profile *p)
{
	struct gp_vm_layout l;
	int ends[GP_VM_MAX_DEVS], n = 0, i, k;

	gp_vm_layout(t->h, p, &l);
	vm_cpus(t, &l);
	for (i = 0; i < l.ndevs; i++)
		if (nccl_device(&t->h->devs[l.devs[i].dev], l.devs[i].gpu))
			ends[n++] = l.devs[i].dev;
	for (i = 0; i < l.ndevs; i++) {
		char busid[GP_BDF_LEN];

		if (!nccl_device(&t->h->devs[l.devs[i].dev], l.devs[i].gpu))
			continue;
		if (gp_vm_guest_bdf(&l, i, busid, sizeof(busid))) {
			gp_err("guest NUMA cell %d has more than %d cards: its expander bus cannot "
			       "number a bus for %s",
			       l.devs[i].cell, GP_VM_PORTS_PER_CELL, t->h->devs[l.devs[i].dev].bdf);
			return -ERANGE;
		}
		k = add_device(t, l.devs[i].dev, busid, cpu_index(t, l.devs[i].cell), ends, n);
		/* a VF sits where its PF does on the host: its link, the PF's */
		t->e[k].vf = l.devs[i].vf >= 0;
	}
	return 0;
}

/*
 * A device the host places on no NUMA node sits where the others on its
 * root complex do: topo classes two devices of one root complex PHB at
 * most, whatever their nodes say.
 */
static int node_of(const struct gp_host *h, const struct gp_dev *d)
{
	size_t i;

	if (d->numa_node >= 0)
		return d->numa_node;
	for (i = 0; d->rc[0] && i < h->ndevs; i++)
		if (h->devs[i].numa_node >= 0 && !strcmp(h->devs[i].rc, d->rc))
			return h->devs[i].numa_node;
	return -1;
}

static void from_host(struct tree *t, int *ends)
{
	const struct gp_host *h = t->h;
	int n = 0, c;
	size_t i;

	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].role == GP_ROLE_GPU || h->devs[i].role == GP_ROLE_NIC)
			ends[n++] = (int)i;
	for (i = 0; i < (size_t)n; i++) {
		const struct gp_dev *d = &h->devs[ends[i]];

		add_device(t, ends[i], d->bdf, cpu_index(t, node_of(h, d)), ends, n);
	}
	if (!t->ncpus)
		cpu_index(t, h->nnuma ? h->numa[0].id : -1);
	for (c = 0; c < t->ncpus; c++)
		host_affinity(t, &t->cpus[c]);
}

/* What NCCL will hold: <system>, the file's elements, and what it adds itself. */
static int nodes(const struct tree *t)
{
	int n = 1 + t->ncpus, i;

	for (i = 0; i < t->n; i++)
		n += t->e[i].bridge ? 1 : t->h->devs[t->e[i].dev].class >> 8 == 0x02 ? 3 : 4;
	return n;
}

int gp_nccl_topo_build(const struct gp_host *h, const struct gp_profile *p, bool this_host,
		       char **out)
{
	struct tree t = { .h = h, .this_host = this_host || !p };
	int *ends = gp_xcalloc(h->ndevs + 1, sizeof(*ends)), rc;

	/* at most every device and every bridge once */
	t.e = gp_xcalloc(2 * h->ndevs + 1, sizeof(*t.e));
	if (t.this_host)
		from_host(&t, ends);
	rc = t.this_host ? 0 : from_vm(&t, p);
	if (!rc && nodes(&t) > NCCL_MAX_NODES) {
		gp_err("NCCL's topology would have %d elements, NCCL reads at most %d: "
		       "name fewer devices in the profile",
		       nodes(&t), NCCL_MAX_NODES);
		rc = -E2BIG;
	}
	if (!rc)
		rc = render(&t, out);
	free(t.e);
	free(ends);
	return rc;
}

static int gpus_below(xmlNode *n, char (*ids)[GP_BDF_LEN], int max, int count)
{
	for (; n; n = n->next) {
		xmlChar *cls, *busid;
		char bdf[GP_BDF_LEN];

		if (n->type != XML_ELEMENT_NODE)
			continue;
		cls = xmlGetProp(n, (const xmlChar *)"class");
		busid = xmlGetProp(n, (const xmlChar *)"busid");
		if (!xmlStrcmp(n->name, (const xmlChar *)"pci") && cls && busid &&
		    !xmlStrncmp(cls, (const xmlChar *)"0x03", 4) &&
		    !gp_parse_bdf((const char *)busid, bdf) && count < max)
			gp_strlcpy(ids[count++], bdf, GP_BDF_LEN);
		xmlFree(cls);
		xmlFree(busid);
		count = gpus_below(n->children, ids, max, count);
	}
	return count;
}

int gp_nccl_topo_gpus(const char *xml, size_t len, char (*ids)[GP_BDF_LEN], int max)
{
	xmlDoc *doc =
		len > INT_MAX
			? NULL
			: xmlReadMemory(xml, (int)len, "nccl-topo.xml", NULL,
					XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	int n;

	if (!root || xmlStrcmp(root->name, (const xmlChar *)"system")) {
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	n = gpus_below(root->children, ids, max, 0);
	xmlFreeDoc(doc);
	return n;
}

static bool listed(const char (*ids)[GP_BDF_LEN], int n, const char *bdf)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(ids[i], bdf))
			return true;
	return false;
}

int gp_nccl_topo_match(const char *xml, size_t len, const char (*seen)[GP_BDF_LEN], int nseen,
		       struct gp_nccl_match *m)
{
	char file[GP_NCCL_MATCH_MAX][GP_BDF_LEN];
	int i;

	memset(m, 0, sizeof(*m));
	m->nfile = gp_nccl_topo_gpus(xml, len, file, GP_NCCL_MATCH_MAX);
	if (m->nfile < 0)
		return m->nfile;
	for (i = 0; i < nseen && m->nmissing < GP_NCCL_MATCH_MAX; i++)
		if (!listed((const char(*)[GP_BDF_LEN])file, m->nfile, seen[i]))
			gp_strlcpy(m->missing[m->nmissing++], seen[i], GP_BDF_LEN);
	for (i = 0; i < m->nfile; i++)
		if (!listed(seen, nseen, file[i]))
			gp_strlcpy(m->unknown[m->nunknown++], file[i], GP_BDF_LEN);
	return 0;
}

void gp_nccl_topo_path(const char *vm_output, char *out, size_t len)
{
	size_t n = strlen(vm_output);

	if (n > 4 && !strcmp(vm_output + n - 4, ".xml"))
		n -= 4;
	snprintf(out, len, "%.*s.nccl-topo.xml", (int)n, vm_output);
}
