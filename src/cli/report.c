// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report as a document: the same sections in HTML and in Markdown,
 * written through a few primitives (section, table, row, block) so that the
 * two cannot drift apart.  Values from the host, a snapshot or a profile are
 * hostile: each goes through gp_xml() or gp_md() exactly once, after
 * gp_tv() has made its control characters and stray bytes visible text.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/out.h"
#include "cli/report.h"
#include "cli/report_doc.h"
#include "core/bandwidth.h"
#include "core/checks.h"
#include "core/hostq.h"
#include "core/nvlink.h"
#include "core/topo.h"
#include "core/pcicfg.h"
#include "core/verify.h"
#include "shared/rootfs.h"

/* ---- sections ---- */

static const char *sev_label(enum gp_severity s)
{
	static const char *const names[] = { "ok", "WARN", "FAIL" };

	return names[s];
}

static bool no_go(const struct gp_dossier *d)
{
	return d->plan->nblockers || gp_report_count(d->r, GP_FAIL);
}

/* The change request's own fields, first: a blank one is a blank to fill in. */
static void change_fields(struct doc *o, const struct gp_dossier *d, const char **cells)
{
	const char *const names[] = { "Change ID", "Owner", "Approver" };
	const char *const values[] = { d->change_id, d->owner, d->approver };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		cells[0] = names[i];
		cells[1] = values[i] && values[i][0] ? E(o, values[i])
			   : o->html		     ? "<em>not given</em>"
						     : "*not given*";
		row(o, NULL, cells);
	}
}

/* A guessed slot map is said above everything, where nobody reads past it. */
static void banner(struct doc *o, const struct gp_dossier *d)
{
	if (!d->p->nslots || d->p->verified)
		return;
	if (o->html)
		out(o, "<p class=\"banner\" role=\"alert\">\xe2\x9a\xa0 <strong>slot map not "
		       "verified</strong>: the profile's slot map is not verified on hardware "
		       "(verified = no); gpu.slot compared the GPUs' places with it as "
		       "written.</p>\n");
	else
		out(o, "> **\xe2\x9a\xa0 slot map not verified**: the profile's slot map is not "
		       "verified on hardware (verified = no); gpu.slot compared the GPUs' places "
		       "with it as written.\n\n");
}

static void header(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;
	char host[256], bios[160], snap[700];
	const char *cells[2];

	/* its name too: dossiers of one fleet's identical servers differ in it */
	snprintf(host, sizeof(host), "%s (%s)", h->hostname[0] ? h->hostname : "name unknown",
		 h->product[0] ? h->product : "unknown model");
	snprintf(bios, sizeof(bios), "%s %s", h->bios_vendor[0] ? h->bios_vendor : "",
		 h->bios_version[0] ? h->bios_version : "unknown");
	table(o, "meta", "Made from|");
	change_fields(o, d, cells);
	cells[0] = "Host";
	cells[1] = E(o, host);
	row(o, NULL, cells);
	/* what the data centre's inventory knows the machine by; root alone reads the serial */
	cells[0] = "Serial number";
	cells[1] = E(o, h->serial[0] ? h->serial : "unknown (DMI product_serial is root's)");
	row(o, NULL, cells);
	cells[0] = "Asset tag";
	cells[1] = E(o, h->asset_tag[0] ? h->asset_tag : "unknown");
	row(o, NULL, cells);
	cells[0] = "BIOS";
	cells[1] = E(o, gp_trim(bios));
	row(o, NULL, cells);
	cells[0] = "Kernel";
	cells[1] = E(o, h->kernel_release[0] ? h->kernel_release : "unknown");
	row(o, NULL, cells);
	cells[0] = "Profile";
	snprintf(snap, sizeof(snap), "%s (%s), sha256 %s", d->p->path,
		 d->p->model[0] ? d->p->model : "no model", d->profile_sha);
	cells[1] = E(o, snap);
	row(o, NULL, cells);
	cells[0] = d->root ? "Snapshot" : "Read from";
	if (d->root)
		snprintf(snap, sizeof(snap), "%s, content sha256 %s", d->root, d->model_sha);
	else
		snprintf(snap, sizeof(snap), "the live host, content sha256 %s", d->model_sha);
	cells[1] = E(o, snap);
	row(o, NULL, cells);
	cells[0] = "gpuprov";
	cells[1] = E(o, d->version);
	row(o, NULL, cells);
	cells[0] = "Date";
	cells[1] = E(o, d->date);
	row(o, NULL, cells);
	table_end(o);
}

/* A blocker that is not one of the failed findings listed above it. */
static bool other_blocker(const struct gp_report *r, const char *b)
{
	char head[160];
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->items[i].severity != GP_FAIL)
			continue;
		snprintf(head, sizeof(head), "%s %s: ", r->items[i].id, r->items[i].subject);
		if (!strncmp(b, head, strlen(head)))
			return false;
	}
	return true;
}

static void verdict(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_plan *plan = d->plan;
	int fail = gp_report_count(d->r, GP_FAIL), warn = gp_report_count(d->r, GP_WARN), k;
	size_t i;

	section(o, "verdict", "Verdict");
	if (no_go(d))
		para(o,
		     o->html ? "<strong class=\"verdict nogo\">NO-GO</strong>: %d failed check%s, "
			       "%d reason%s apply refuses."
			     : "**NO-GO**: %d failed check%s, %d reason%s apply refuses.",
		     fail, fail == 1 ? "" : "s", plan->nblockers, plan->nblockers == 1 ? "" : "s");
	else
		para(o,
		     o->html ? "<strong class=\"verdict go\">GO</strong>: %zu change%s to make, "
			       "%d warning%s."
			     : "**GO**: %zu change%s to make, %d warning%s.",
		     plan->n, plan->n == 1 ? "" : "s", warn, warn == 1 ? "" : "s");
	fputs(o->html ? "<ul class=\"blocking\">\n" : "", o->f);
	for (i = 0; i < d->r->n; i++) {
		const struct gp_finding *f = &d->r->items[i];

		if (f->severity != GP_FAIL)
			continue;
		out(o, o->html ? "<li><code>%s</code> %s: %s</li>\n" : "- **%s** %s: %s\n",
		    E(o, f->id), E(o, f->subject), E(o, f->message));
	}
	for (k = 0; k < plan->nblockers; k++)
		if (other_blocker(d->r, plan->blockers[k]))
			out(o, o->html ? "<li>%s</li>\n" : "- %s\n", E(o, plan->blockers[k]));
	fputs(o->html ? "</ul>\n" : "\n", o->f);
	for (k = 0; k < plan->naccepted; k++)
		para(o, "Accepted with --accept: %s", E(o, plan->accepted[k]));
	/* a GO on a guessed slot map is not the GO of a confirmed one: said where it is read */
	if (d->p->nslots && !d->p->verified)
		para(o, "The profile's slot map is not verified on hardware (verified = no): "
			"gpu.slot compared the GPUs' places with it as written.");
}

/* The tree as a nested list, for Markdown (HTML has the SVG). */
static void tree_md(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_map *m = &d->map;
	size_t i;

	for (i = 0; i < m->nn; i++) {
		const struct gp_map_node *n = &m->n[i];
		char l[600] = "", link[48] = "";

		out(o, "%*s- ", n->depth * 2, "");
		if (n->kind == GP_MAP_NUMA) {
			const struct gp_numa *nn = gp_host_numa(d->h, n->numa);

			if (n->numa < 0)
				out(o, "**NUMA node unknown**\n");
			else
				out(o, "**NUMA node %d**: CPUs %s\n", n->numa,
				    E(o, nn ? nn->cpus : "?"));
			continue;
		}
		if (n->kind == GP_MAP_RC) {
			out(o, "**%s** root complex\n", E(o, n->rc));
			continue;
		}
		if (n->kind == GP_MAP_MORE) {
			out(o, "%d more function%s (not on a GPU or NIC path)\n", n->count,
			    n->count == 1 ? "" : "s");
			continue;
		}
		{
			const struct gp_dev *v = &d->h->devs[n->dev];

			gp_link_text(&v->link, link, sizeof(link));
			snprintf(l, sizeof(l), "%04x:%04x %s%s%s%s", v->vendor, v->device,
				 v->driver[0] ? v->driver : "no driver", link[0] ? ", link " : "",
				 link, n->degraded ? " DEGRADED" : "");
			if (n->kind == GP_MAP_GPU)
				out(o, "**GPU%d** ", n->label);
			else if (n->kind == GP_MAP_NIC)
				out(o, "**NIC%d** %s ", n->label, n->ifname ? E(o, n->ifname) : "");
			out(o, "%s %s", E(o, v->bdf), E(o, l));
			if (v->iommu_group >= 0)
				out(o, ", IOMMU group %d", v->iommu_group);
			out(o, "%s%s%s\n", n->acs_redirect ? ", **ACS redirect**" : "",
			    n->bond_port ? ", **bond port**" : "", n->p2p ? ", *P2P path*" : "");
		}
	}
	out(o, "\n");
}

static void pci(struct doc *o, const struct gp_dossier *d)
{
	section(o, "pci", "PCI tree");
	para(o, "The GPUs, the NICs, what shares a GPU's IOMMU group and the bridges above them; "
		"every other function is counted in a box of its parent.");
	/* a class needs a pair: with fewer than two GPUs, X would read as a path */
	if (d->map.ngpus >= 2)
		para(o, "P2P class between the GPUs: %s%s%s%s.", o->html ? "<strong>" : "**",
		     gp_path_name(d->map.worst), o->html ? "</strong>" : "**",
		     d->map.ngpus > 2 ? " (the worst of every pair)" : "");
	else
		para(o, "%d GPU found: no GPU pair, no P2P path.", d->map.ngpus);
	if (d->map.nv_pairs)
		para(o,
		     "NVLink joins %d of the %d GPU pairs (NV%d%s): their P2P goes over NVLink, "
		     "whatever the PCIe class.",
		     d->map.nv_pairs, d->map.pairs, d->map.nv_min,
		     d->map.nv_max != d->map.nv_min ? " or more" : "");
	if (!o->html) {
		tree_md(o, d);
		return;
	}
	out(o, "<div class=\"scroll\">\n");
	gp_report_svg(o->f, d);
	out(o, "</div>\n");
}

/*
 * topo's devices in topo's order (the GPUs, then the NICs, each in device
 * order) with topo's labels (the map numbers them as topo does): those the
 * picture draws, which on a host of thousands of NIC functions are the ports
 * with an interface, the bond's and each card's first, not a matrix of
 * millions of cells.
 */
static int topo_items(const struct gp_dossier *d, int *items, char (*labels)[16])
{
	const struct gp_map *m = &d->map;
	int *node = gp_xcalloc(d->h->ndevs + 1, sizeof(*node)), n = 0, pass;
	size_t k;

	for (k = 0; k < m->nn; k++)
		if (m->n[k].kind == GP_MAP_GPU || m->n[k].kind == GP_MAP_NIC)
			node[m->n[k].dev] = (int)k + 1;
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < d->h->ndevs; k++) {
			bool gpu = d->h->devs[k].role == GP_ROLE_GPU;

			if (!node[k] || gpu != !pass)
				continue;
			snprintf(labels[n], sizeof(labels[n]), "%s%d", gpu ? "GPU" : "NIC",
				 m->n[node[k] - 1].label);
			items[n++] = (int)k;
		}
	free(node);
	return n;
}

static const char *topo_cell(const struct gp_host *h, int a, int b, char *buf, size_t len)
{
	int nv = gp_map_nv_links(h, a, b);

	if (!nv)
		return gp_path_name(gp_topo_classify(h, a, b));
	snprintf(buf, len, "NV%d", nv);
	return buf;
}

/*
 * What this machine's last verify measured between a and b, one way each
 * direction (as topo shows it); "-" for a pair it did not measure.  Never
 * made up: the column is there only when verify kept a record.
 */
static const char *measured_cell(const struct gp_host *h, int a, int b, char *buf, size_t len)
{
	double ab = gp_vrecord_pair(&h->vrec, h->devs[a].bdf, h->devs[b].bdf);
	double ba = gp_vrecord_pair(&h->vrec, h->devs[b].bdf, h->devs[a].bdf);

	if (ab <= 0 && ba <= 0)
		return "-";
	snprintf(buf, len, "%.1f / %.1f GB/s", ab, ba);
	return buf;
}

/* The all-reduce verify measured here, with when: the expectation's yardstick. */
static void verify_record_para(struct doc *o, const struct gp_vrecord *r)
{
	if (!r->kept || r->busbw_gbps <= 0)
		return;
	para(o, "verify's all-reduce over %d GPUs here (%s): bus bandwidth %.1f GB/s.", r->ranks,
	     E(o, r->when), r->busbw_gbps);
}

/* topo's Paths: each pair's class, its slowest hop, the P2P ceiling and what to expect. */
static void topo_paths(struct doc *o, const struct gp_dossier *d, const int *items,
		       char (*labels)[16], int n)
{
	const struct gp_host *h = d->h;
	struct gp_hop_words w = { .n = 0 };
	char pair[48], cls[48], hop[96], gbs[64], exp[200], got[64];
	const char *cells[6];
	struct gp_expect e;
	int i, j;

	heading(o, "Paths");
	table(o, "paths",
	      h->vrec.kept ? "Pair|Class|Slowest hop|P2P ceiling per direction|Expected (basis)|"
			     "Measured by verify here"
			   : "Pair|Class|Slowest hop|P2P ceiling per direction|Expected (basis)");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			struct gp_hop s = gp_topo_slowest(h, items[i], items[j]);
			int nv = gp_map_nv_links(h, items[i], items[j]);
			const char *pcie = gp_path_name(gp_topo_classify(h, items[i], items[j]));

			snprintf(pair, sizeof(pair), "%s-%s", labels[i], labels[j]);
			if (s.width)
				gp_hop_words(&w, &s);
			snprintf(hop, sizeof(hop), "%s%s", s.width ? w.link : "link unknown",
				 s.width && gp_hop_trained_lower(&s) ? " (trained lower now)" : "");
			snprintf(gbs, sizeof(gbs), "%s GB/s", s.width ? w.gbs : "?");
			snprintf(cls, sizeof(cls), "%s", pcie);
			if (nv) { /* as topo: the NVLinks carry it, the PCIe path is beside them */
				snprintf(cls, sizeof(cls), "NV%d (PCIe %s)", nv, pcie);
				snprintf(gbs, sizeof(gbs), "%.1f GB/s over NVLink",
					 gp_nv_pair_ceiling(
						 &h->nv, gp_nv_find(&h->nv, h->devs[items[i]].bdf),
						 gp_nv_find(&h->nv, h->devs[items[j]].bdf)));
			}
			if (gp_bw_expect_pair(h, items[i], items[j], &e))
				snprintf(exp, sizeof(exp), "?");
			else
				snprintf(exp, sizeof(exp), "%.1f GB/s (%s)", e.gbps, e.basis);
			cells[0] = pair;
			cells[1] = cls;
			cells[2] = hop;
			cells[3] = gbs;
			cells[4] = exp;
			cells[5] = measured_cell(h, items[i], items[j], got, sizeof(got));
			row(o, NULL, cells);
		}
	table_end(o);
	verify_record_para(o, &h->vrec);
}

/* topo's Devices, with the names people know them by (the system's pci.ids). */
static void topo_devices(struct doc *o, const struct gp_dossier *d, const int *items,
			 char (*labels)[16], int n)
{
	char ids[16], link[48];
	const char *cells[6];
	int i;

	heading(o, "Devices");
	table(o, "devices", "Label|Address|IDs|Name (pci.ids)|Link|Interface");
	for (i = 0; i < n; i++) {
		const struct gp_dev *v = &d->h->devs[items[i]];
		int f = gp_host_iface(d->h, v->bdf);

		snprintf(ids, sizeof(ids), "%04x:%04x", v->vendor, v->device);
		gp_link_text(&v->link, link, sizeof(link));
		cells[0] = labels[i];
		cells[1] = E(o, v->bdf);
		cells[2] = ids;
		cells[3] = E(o, d->names[items[i]][0] ? d->names[items[i]] : "not in pci.ids");
		cells[4] = link[0] ? link : "unknown";
		cells[5] = f >= 0 ? E(o, d->h->ifaces[f].name) : "";
		row(o, NULL, cells);
	}
	table_end(o);
}

static void topo(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;
	int *items = gp_xcalloc(d->map.nn + 1, sizeof(*items)), n, i, j;
	char(*labels)[16] = gp_xcalloc(d->map.nn + 1, sizeof(*labels));
	char hdr[4096] = "", lab[48], numa[16], (*nvs)[16];
	const char **cells;

	section(o, "topo", "GPU and NIC paths");
	n = topo_items(d, items, labels);
	if (!n) {
		para(o, "No GPU or NIC found.");
		free(labels);
		free(items);
		return;
	}
	snprintf(hdr, sizeof(hdr), " ");
	for (i = 0; i < n && strlen(hdr) < sizeof(hdr) - 48; i++) {
		snprintf(hdr + strlen(hdr), sizeof(hdr) - strlen(hdr), "|%s", labels[i]);
	}
	n = i; /* what the header holds */
	strcat(hdr, "|CPU Affinity|NUMA Affinity");
	table(o, "topo", hdr);
	cells = gp_xcalloc((size_t)n + 3, sizeof(*cells));
	nvs = gp_xcalloc((size_t)n, sizeof(*nvs));
	for (i = 0; i < n; i++) {
		const struct gp_dev *a = &h->devs[items[i]];
		const struct gp_numa *nn = gp_host_numa(h, a->numa_node);

		snprintf(lab, sizeof(lab), "%s %s", labels[i], a->bdf);
		cells[0] = E(o, lab);
		for (j = 0; j < n; j++)
			cells[j + 1] = topo_cell(h, items[i], items[j], nvs[j], sizeof(nvs[j]));
		cells[n + 1] = a->numa_node >= 0 && nn && nn->cpus[0] ? E(o, nn->cpus) : "N/A";
		snprintf(numa, sizeof(numa), "%d", a->numa_node);
		cells[n + 2] = a->numa_node >= 0 ? numa : "N/A";
		row(o, NULL, cells);
	}
	table_end(o);
	para(o,
	     "In the order and with the labels of gpuprov topo. X self, PIX at most one bridge, "
	     "PXB several bridges, PHB through a host bridge, NODE between host bridges of one "
	     "NUMA node, SYS across the SMP interconnect (the classes of nvidia-smi topo -m); NV# "
	     "the NVLinks joining two GPUs, where NVML told them (or apply recorded them).");
	topo_devices(o, d, items, labels, n);
	topo_paths(o, d, items, labels, n);
	free(labels);
	free(nvs);
	free(cells);
	free(items);
}

static void finding_rows(struct doc *o, const struct gp_report *r, enum gp_severity sev)
{
	char attrs[128];
	const char *cells[4];
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct gp_finding *f = &r->items[i];
		const char *msg, *hint;
		char *both;

		if (f->severity != sev)
			continue;
		snprintf(attrs, sizeof(attrs), "class=\"%s\" data-finding=\"%s\"", sev_label(sev),
			 gp_xml(f->id));
		msg = E(o, f->message);
		hint = E(o, f->hint);
		both = gp_xcalloc(strlen(msg) + strlen(hint) + 32, 1);
		sprintf(both, "%s%s%s%s", msg,
			!f->hint[0] ? ""
			: o->html   ? "<br><em>hint: "
				    : " — *hint:* ",
			f->hint[0] ? hint : "", f->hint[0] && o->html ? "</em>" : "");
		cells[0] = E(o, f->id);
		cells[1] = sev_label(sev);
		cells[2] = E(o, f->subject);
		cells[3] = both;
		row(o, attrs, cells);
		free(both);
	}
}

static void findings(struct doc *o, const struct gp_dossier *d)
{
	int ok = gp_report_count(d->r, GP_OK);

	section(o, "findings", "Findings");
	para(o, "%d fail, %d warn, %d ok.", gp_report_count(d->r, GP_FAIL),
	     gp_report_count(d->r, GP_WARN), ok);
	if (gp_report_count(d->r, GP_FAIL) + gp_report_count(d->r, GP_WARN)) {
		table(o, "findings", "Finding|Severity|Subject|What and what to do");
		finding_rows(o, d->r, GP_FAIL);
		finding_rows(o, d->r, GP_WARN);
		table_end(o);
	}
	if (!ok)
		return;
	out(o, "<details class=\"ok\"><summary>%d check%s ok</summary>\n%s", ok, ok == 1 ? "" : "s",
	    o->html ? "" : "\n");
	table(o, "findings", "Finding|Severity|Subject|What and what to do");
	finding_rows(o, d->r, GP_OK);
	table_end(o);
	out(o, "</details>\n%s", o->html ? "" : "\n");
}

static void mmio(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_vm_layout *l = &d->layout;
	char a[32], b[32], c[32], e[64], bits[64];
	const char *cells[4];
	int i, k;

	section(o, "mmio", "MMIO budget");
	if (!d->p->has_vm) {
		para(o, "The profile has no [vm] section.");
		return;
	}
	table(o, "bars", "Device|BAR|Size|Kind");
	for (i = 0; i < l->ndevs; i++) {
		const struct gp_dev *v = &d->h->devs[l->devs[i].dev];

		if (l->devs[i].vf >= 0)
			continue; /* its port's BARs are not its own */
		for (k = 0; k < v->nbars; k++) {
			const struct gp_bar *bar = &v->bars[k];

			if (bar->io || !bar->size)
				continue;
			snprintf(a, sizeof(a), "%d", bar->index);
			gp_format_size(bar->size, b, sizeof(b));
			cells[0] = E(o, v->bdf);
			cells[1] = a;
			cells[2] = b;
			cells[3] = bar->is64
					   ? (bar->prefetchable ? "64-bit, prefetchable" : "64-bit")
					   : "32-bit";
			if (bar->unset) /* no address: the guest cannot map it either */
				cells[3] =
					o->html ? "<strong>UNASSIGNED</strong>: the kernel gave it "
						  "no address (bar.unassigned)"
						: "**UNASSIGNED**: the kernel gave it no address "
						  "(bar.unassigned)";
			row(o, bar->unset ? "class=\"FAIL unassigned\"" : NULL, cells);
		}
	}
	table_end(o);
	gp_format_size(l->bar64_total, a, sizeof(a));
	gp_format_size(l->mmio_window, b, sizeof(b));
	gp_format_size(d->p->vm.memory, c, sizeof(c));
	snprintf(e, sizeof(e), "0x%llx", (unsigned long long)gp_vm_mmio_end(l, d->p->vm.memory));
	if (d->h->phys_bits)
		snprintf(bits, sizeof(bits), "%d bits (addresses below 0x%llx)", d->h->phys_bits,
			 d->h->phys_bits < 64 ? 1ull << d->h->phys_bits : 0ull);
	else
		snprintf(bits, sizeof(bits), "unknown");
	para(o,
	     "64-bit BARs %s (each rounded up to a power of two); the 64-bit window OVMF opens "
	     "(X-PciMmio64Mb) %s; guest memory %s; the window ends at %s; the host's CPU has %s "
	     "of physical address.",
	     a, b, c, e, bits);
}

static void vm_layout(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_vm_layout *l = &d->layout;
	char a[16], b[16], c[32], e[16], f[16];
	const char *cells[6];
	int i;

	section(o, "vm", "VM layout");
	if (!d->p->has_vm) {
		para(o, "The profile has no [vm] section.");
		return;
	}
	para(o, "%s: %u vCPUs, guest NUMA %s, GPUDirect clique %s.", E(o, d->p->vm.name),
	     d->p->vm.vcpus, E(o, d->p->vm.numa), l->clique >= 0 ? "on" : "off");
	table(o, "cells", "Guest cell|Host node|vCPUs|Memory|Pinned to host CPUs");
	for (i = 0; i < l->ncells; i++) {
		const struct gp_vm_cell *cl = &l->cells[i];

		snprintf(a, sizeof(a), "%d", i);
		snprintf(b, sizeof(b), "%d", cl->host_node);
		snprintf(e, sizeof(e), "%u", cl->vcpus);
		gp_format_size(cl->memory, c, sizeof(c));
		cells[0] = a;
		cells[1] = cl->host_node >= 0 ? b : "?";
		cells[2] = e;
		cells[3] = c;
		cells[4] = E(o, cl->cpus);
		row(o, NULL, cells);
	}
	table_end(o);
	table(o, "vmdevs", "Host device|Alias|Guest root port|Function|Guest cell");
	for (i = 0; i < l->ndevs; i++) {
		const struct gp_vm_dev *v = &l->devs[i];

		snprintf(a, sizeof(a), "%d", v->port);
		snprintf(b, sizeof(b), "%u", v->fn);
		snprintf(f, sizeof(f), "%d", v->cell);
		/* a VF ([nic] mode = vf): its own address, not its port's */
		cells[0] = E(o, v->vf >= 0 ? v->vf_bdf : d->h->devs[v->dev].bdf);
		cells[1] = E(o, v->alias);
		cells[2] = a;
		cells[3] = b;
		cells[4] = f;
		row(o, NULL, cells);
	}
	table_end(o);
}

static void steps(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_plan *plan = d->plan;
	char num[16], change[300];
	const char *cells[5];
	size_t i;

	section(o, "plan", "Plan");
	if (no_go(d)) /* the steps are what apply would take, not what it will */
		para(o,
		     o->html ? "<strong class=\"blocked\">BLOCKED</strong>: apply refuses these "
			       "%zu step%s until the failures in the verdict are fixed (or "
			       "accepted)."
			     : "**BLOCKED**: apply refuses these %zu step%s until the failures in "
			       "the "
			       "verdict are fixed (or accepted).",
		     plan->n, plan->n == 1 ? "" : "s");
	else
		para(o, "%zu step%s, in the order apply takes them.", plan->n,
		     plan->n == 1 ? "" : "s");
	if (plan->n) {
		table(o, no_go(d) ? "steps blocked" : "steps",
		      "#|Step|Subject|Before → after|Undoable");
		for (i = 0; i < plan->n; i++) {
			const struct gp_step *st = &plan->steps[i];

			snprintf(num, sizeof(num), "%zu", i + 1);
			snprintf(change, sizeof(change), "%s → %s", st->current, st->target);
			cells[0] = num;
			cells[1] = E(o, gp_step_name(st->kind));
			cells[2] = E(o, st->subject);
			cells[3] = E(o, change);
			cells[4] = gp_step_kinds[st->kind].reversible ? "yes" : "no";
			row(o, no_go(d) ? "class=\"blocked\"" : NULL, cells);
		}
		table_end(o);
	}
	if (plan->note[0])
		para(o, "Note: %s", E(o, plan->note));
}

static void file_status(struct doc *o, const struct gp_pfile *f)
{
	char now[65], after[65];

	if (f->now_err)
		para(o, "The current file cannot be read (%s): it is written whole.",
		     E(o, gp_root_strerror(f->now_err)));
	if (!f->secret)
		return;
	gp_sha256_hex(f->text, strlen(f->text), after);
	if (f->now)
		gp_sha256_hex(f->now, strlen(f->now), now);
	para(o,
	     "Holds a secret, or is written readable by root alone: not shown. sha256 now %s, "
	     "after %s.",
	     f->now ? now : "(absent)", after);
}

static void files(struct doc *o, const struct gp_dossier *d)
{
	size_t i;

	section(o, "files", "Files");
	if (!d->files->n)
		para(o, "No step writes a file.");
	for (i = 0; i < d->files->n; i++) {
		const struct gp_pfile *f = &d->files->f[i];
		bool same = f->now && !strcmp(f->now, f->text);
		char *diff;

		if (o->html)
			out(o, "<h3><code>%s</code></h3>\n", E(o, f->path));
		else
			out(o, "\n### %s\n\n", E(o, f->path)); /* a code span shows escapes */
		if (f->link)
			para(o, "%s, a link to %s: %s%s.", E(o, f->step), E(o, f->text),
			     same     ? "unchanged"
			     : f->now ? "changed, now a link to "
				      : "new",
			     same || !f->now ? "" : E(o, f->now));
		else
			para(o, "%s, mode %04o: %s.", E(o, f->step), f->mode & 07777,
			     same     ? "unchanged"
			     : f->now ? "changed"
				      : "new");
		file_status(o, f);
		if (same || f->secret)
			continue;
		diff = gp_pfile_diff(f);
		if (diff)
			diff_block(o, diff);
		free(diff);
	}
}

static void domain(struct doc *o, const struct gp_dossier *d)
{
	const struct gp_host *h = d->h;

	if (!d->vm)
		return;
	heading(o, "The domain");
	if (h->vm_defined < 0)
		para(o,
		     "libvirt was not asked%s: the diff above of %s is against the XML gpuprov "
		     "wrote before, the copy it defined.",
		     d->root ? " (a snapshot)" : "", E(o, d->vm->output));
	else if (!h->vm_defined)
		para(o, "%s is not defined in %s: apply defines it from the XML above.",
		     E(o, d->vm->name), E(o, d->vm->uri));
	else
		para(o, "%s is defined in %s with gpuprov's digest %s; the new XML's is %s (%s).",
		     E(o, d->vm->name), E(o, d->vm->uri),
		     E(o, h->vm_digest[0] ? h->vm_digest : "none"), E(o, d->vm->digest),
		     strcmp(h->vm_digest, d->vm->digest) ? "differs" : "the same");
}

/* The findings after f with the same hint: one checklist item for them all. */
static int same_hint(const struct gp_report *r, size_t i, char *subjects, size_t len)
{
	const struct gp_finding *f = &r->items[i];
	size_t k;
	int n = 1;

	snprintf(subjects, len, "%s", f->subject);
	for (k = i + 1; k < r->n; k++) {
		if (r->items[k].severity == GP_OK || strcmp(r->items[k].hint, f->hint))
			continue;
		if (n++ < 4)
			snprintf(subjects + strlen(subjects), len - strlen(subjects), ", %s",
				 r->items[k].subject);
	}
	if (n > 4)
		snprintf(subjects + strlen(subjects), len - strlen(subjects), " and %d more",
			 n - 4);
	return n;
}

static bool hint_seen(const struct gp_report *r, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (r->items[k].severity != GP_OK && !strcmp(r->items[k].hint, r->items[i].hint))
			return true;
	return false;
}

static void bios(struct doc *o, const struct gp_dossier *d)
{
	char subjects[400];
	size_t i;
	int n = 0;

	section(o, "bios", "BIOS checklist");
	for (i = 0; i < d->r->n; i++) {
		const struct gp_finding *f = &d->r->items[i];

		if (f->severity == GP_OK || !strstr(f->hint, "BIOS") || hint_seen(d->r, i))
			continue;
		same_hint(d->r, i, subjects, sizeof(subjects));
		if (!n++)
			fputs(o->html ? "<ul class=\"checklist\">\n" : "", o->f);
		if (o->html)
			out(o, "<li data-finding=\"%s\">\xe2\x98\x90 %s <small>(", gp_xml(f->id),
			    gp_xml(f->hint));
		else
			out(o, "- [ ] %s (", gp_md(f->hint));
		out(o, "%s: ", E(o, f->id));
		out(o, "%s)%s\n", E(o, subjects), o->html ? "</small></li>" : "");
	}
	if (n)
		fputs(o->html ? "</ul>\n" : "\n", o->f);
	else
		para(o, "No finding asks for a BIOS change.");
}

static void body(struct doc *o, const struct gp_dossier *d)
{
	verdict(o, d);
	gp_report_impact(o, d);
	gp_report_duration(o, d);
	pci(o, d);
	topo(o, d);
	findings(o, d);
	mmio(o, d);
	vm_layout(o, d);
	steps(o, d);
	files(o, d);
	domain(o, d);
	gp_report_verification(o, d);
	gp_report_rollback(o, d);
	bios(o, d);
}

static const char css[] =
	":root{--fg:#1b1f24;--mute:#57606a;--line:#d0d7de;--bad:#b42318;--warn:#9a6700;"
	"--ok:#1a7f37;--p2p:#0b63ce}\n"
	"body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);margin:0 auto;max-width:1320px;"
	"padding:1em}\n"
	"h1{font-size:1.5em}h2{border-bottom:1px solid var(--line);padding-bottom:.2em}\n"
	"table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid var(--line);"
	"padding:.25em .5em;text-align:left;vertical-align:top}th{white-space:nowrap}"
	"thead th{background:#f6f8fa}"
	/* nvidia-smi's matrix with 16 GPUs and their NICs: 24 columns in the page */
	"table.topo{font-size:12px}table.topo th,table.topo td{padding:.1em .3em}"
	"table.topo thead th{white-space:normal}\n"
	"tr.FAIL th{color:var(--bad)}tr.WARN th{color:var(--warn)}tr.ok th{color:var(--ok)}\n"
	".verdict{font-size:1.3em;padding:.1em .5em;border-radius:4px;color:#fff}"
	".nogo{background:var(--bad)}.go{background:var(--ok)}\n"
	"strong.blocked{color:#fff;background:var(--bad);padding:0 .4em;border-radius:4px}"
	"table.blocked tbody td,table.blocked tbody "
	"th{color:var(--mute);text-decoration:line-through}"
	"tr.unassigned td{color:var(--bad)}\n"
	"pre{background:#f6f8fa;padding:.5em;overflow:auto;font-size:12px}"
	".add{background:#dafbe1}.del{background:#ffebe9}"
	".hunk{color:var(--p2p)}.file{font-weight:bold}\n"
	".scroll{overflow:auto;border:1px solid var(--line)}"
	/* the tree fits the page's width: its viewBox scales it, no sideways scroll */
	".pcimap{display:block;max-width:100%;height:auto}\n"
	".pcimap text{font:11px ui-monospace,monospace;fill:var(--fg)}"
	".pcimap .l2{fill:var(--mute)}.pcimap .legend{font:12px system-ui,sans-serif}\n"
	".pcimap rect{fill:#fff;stroke:#8c959f;stroke-width:1}"
	".pcimap .gpu rect{fill:#eef6ee;stroke:#1a7f37}.pcimap .nic rect{fill:#eef3fb;"
	"stroke:#0b63ce}.pcimap .numa rect{fill:#f6f8fa;stroke:#57606a;stroke-width:2}"
	".pcimap .more rect{stroke-dasharray:3 3}.pcimap .acs rect{stroke:var(--warn);"
	"stroke-width:2}.pcimap .bond rect{stroke:#8250df;stroke-width:3}\n"
	".pcimap .p2p rect{stroke:var(--p2p);stroke-width:3}"
	".pcimap .edge{fill:none;stroke:#8c959f;stroke-width:1.5}"
	".pcimap .edge.p2p{stroke:var(--p2p);stroke-width:4}"
	".pcimap .edge.degraded{stroke:var(--bad);stroke-dasharray:6 3}"
	".pcimap .link{font-size:9px;text-anchor:end;fill:var(--mute)}"
	".pcimap .link.degraded{fill:var(--bad)}.pcimap .p2pclass,.pcimap "
	".nvclass{font-weight:bold;"
	"fill:var(--p2p)}\n"
	".pcimap .iommu rect{fill:none;stroke:#bf8700;stroke-dasharray:5 3;stroke-width:1.5}"
	".pcimap .iommu text{fill:#7d4e00;font-size:10px}\n"
	"ul.checklist{list-style:none;padding-left:.5em}\n"
	".banner{font-size:1.2em;border:2px solid var(--warn);background:#fff8c5;padding:.5em;"
	"border-radius:4px}.risk{color:var(--bad);font-weight:bold}\n"
	"@page wide{size:A3 landscape}\n"
	"@media print{body{max-width:none;font-size:11px}section{break-before:page}"
	"section#pci{page:wide}"
	"section#verdict{break-before:avoid}.scroll{overflow:visible;border:0}"
	".pcimap{width:100%;height:auto}pre{white-space:pre-wrap}"
	"table{break-inside:avoid}}\n";

void gp_report_html(FILE *f, const struct gp_dossier *d)
{
	struct doc o = { .f = f, .html = true };
	const char *host = d->h->product[0] ? d->h->product : "host";

	out(&o,
	    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>gpuprov report: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	    "<header>\n<h1>gpuprov report: %s</h1>\n",
	    gp_xml(host), css, gp_xml(host));
	banner(&o, d);
	header(&o, d);
	out(&o, "</header>\n<section id=\"start\">\n");
	body(&o, d);
	out(&o, "</section>\n</body>\n</html>\n");
}

void gp_report_md(FILE *f, const struct gp_dossier *d)
{
	struct doc o = { .f = f, .html = false };

	out(&o, "# gpuprov report: %s\n\n", gp_md(d->h->product[0] ? d->h->product : "host"));
	banner(&o, d);
	header(&o, d);
	body(&o, d);
}
