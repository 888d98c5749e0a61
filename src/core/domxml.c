// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libvirt domain XML, built with libxml2's tree API and merged into the
 * operator's template: gpuprov rewrites only what it owns (see the shipped
 * template's comment) and keeps everything else.  libxml2's errors are
 * converted here into one message naming the template's file and line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "core/vm.h"
#include "core/domxml.h"
#include "core/pinning.h"

#define QEMU_NS	   "http://libvirt.org/schemas/domain/qemu/1.0"
#define OWN_PREFIX "ua-gpu" /* every alias gpuprov gives starts with it */

static const xmlChar *X(const char *s)
{
	return (const xmlChar *)s;
}

static bool is(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, X(name));
}

static xmlNode *child(xmlNode *parent, const char *name)
{
	xmlNode *n;

	for (n = parent->children; n; n = n->next)
		if (is(n, name))
			return n;
	return NULL;
}

/* The child called name, created (at the end) when missing. */
static xmlNode *ensure(xmlNode *parent, const char *name)
{
	xmlNode *n = child(parent, name);

	return n ? n : xmlNewChild(parent, NULL, X(name), NULL);
}

static void drop_children(xmlNode *parent, const char *name)
{
	xmlNode *n = parent->children, *next;

	for (; n; n = next) {
		next = n->next;
		if (is(n, name)) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		}
	}
}

/* A fresh element where the old one stood, or before <devices> for a new one. */
static xmlNode *replace(xmlNode *parent, const char *name)
{
	xmlNode *old = child(parent, name), *n = xmlNewNode(NULL, X(name));
	xmlNode *devs = child(parent, "devices"), *dup, *next;

	for (dup = old ? old->next : NULL; dup; dup = next) { /* a second one, if any */
		next = dup->next;
		if (is(dup, name)) {
			xmlUnlinkNode(dup);
			xmlFreeNode(dup);
		}
	}
	if (old) {
		xmlReplaceNode(old, n);
		xmlFreeNode(old);
	} else if (devs) {
		xmlAddPrevSibling(devs, n);
	} else {
		xmlAddChild(parent, n);
	}
	return n;
}

static void set(xmlNode *n, const char *attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set(xmlNode *n, const char *attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	xmlSetProp(n, X(attr), X(buf));
}

static void text(xmlNode *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text(xmlNode *n, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	xmlNodeSetContent(n, X(buf));
}

/* Whether n carries one of gpuprov's aliases (<alias name='ua-gpu...'/>). */
static bool owned(xmlNode *n)
{
	xmlNode *a = child(n, "alias");
	xmlChar *name;
	bool own;

	if (!a)
		return false;
	name = xmlGetProp(a, X("name"));
	own = name && !xmlStrncmp(name, X(OWN_PREFIX), (int)strlen(OWN_PREFIX));
	xmlFree(name);
	return own;
}

static void drop_owned(xmlNode *parent)
{
	xmlNode *n = parent->children, *next;

	for (; n; n = next) {
		next = n->next;
		if (n->type == XML_ELEMENT_NODE && owned(n)) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		}
	}
}

/* ---- the parts gpuprov owns ---- */

static void basics(xmlNode *dom, const struct gp_profile *p)
{
	xmlNode *os = ensure(dom, "os"), *type = ensure(os, "type"), *vcpu;
	xmlChar *machine = xmlGetProp(type, X("machine"));

	text(ensure(dom, "name"), "%s", p->vm.name);
	set(ensure(dom, "memory"), "unit", "KiB");
	text(child(dom, "memory"), "%" PRIu64, p->vm.memory >> 10);
	if (!child(dom, "currentMemory"))
		xmlAddNextSibling(child(dom, "memory"), xmlNewNode(NULL, X("currentMemory")));
	set(child(dom, "currentMemory"), "unit", "KiB");
	text(child(dom, "currentMemory"), "%" PRIu64, p->vm.memory >> 10);
	vcpu = ensure(dom, "vcpu");
	set(vcpu, "placement", "static");
	text(vcpu, "%u", p->vm.vcpus);
	/* OVMF: UEFI, which libvirt only accepts with ACPI */
	set(os, "firmware", "efi");
	set(type, "arch", "x86_64");
	if (!machine || !xmlStrstr(machine, X("q35")))
		set(type, "machine", "q35");
	xmlFree(machine);
	text(type, "hvm");
	ensure(ensure(dom, "features"), "acpi");
}

/* host-passthrough with the host's address width: OVMF sizes its 64-bit
 * window from it, and the guest cells mirror the host nodes used. */
static void cpu(xmlNode *dom, const struct gp_vm_layout *l, const struct gp_vm_pins *pins)
{
	xmlNode *c = replace(dom, "cpu"), *numa, *cell, *topo;
	int i;

	set(c, "mode", "host-passthrough");
	set(c, "check", "none");
	set(xmlNewChild(c, NULL, X("maxphysaddr"), NULL), "mode", "passthrough");
	if (pins->threads > 1) { /* vCPU pairs on sibling pairs: the guest schedules as the host */
		topo = xmlNewChild(c, NULL, X("topology"), NULL);
		set(topo, "sockets", "%d", l->ncells);
		set(topo, "dies", "1");
		set(topo, "cores", "%u", l->cells[0].vcpus / pins->threads);
		set(topo, "threads", "%u", pins->threads);
	}
	numa = xmlNewChild(c, NULL, X("numa"), NULL);
	for (i = 0; i < l->ncells; i++) {
		cell = xmlNewChild(numa, NULL, X("cell"), NULL);
		set(cell, "id", "%d", i);
		/* fewer vCPUs than cells: the rest are CPU-less (memory) nodes */
		if (l->cells[i].vcpus)
			set(cell, "cpus", "%u-%u", l->cells[i].first_vcpu,
			    l->cells[i].first_vcpu + l->cells[i].vcpus - 1);
		set(cell, "memory", "%" PRIu64, l->cells[i].memory >> 10);
		set(cell, "unit", "KiB");
	}
}

/* The template's I/O threads: as many as it says, up to a sane number. */
static unsigned iothreads(xmlNode *dom)
{
	xmlNode *n = child(dom, "iothreads");
	xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
	unsigned long v = 0;

	if (t && gp_parse_uint((const char *)t, 256, &v))
		v = 0;
	xmlFree(t);
	return (unsigned)v;
}

/* Each vCPU on its CPU (pinning.c); QEMU's own threads on the housekeeping cores. */
static void pin_cpus(xmlNode *dom, const struct gp_vm_layout *l, const struct gp_vm_pins *pins)
{
	xmlNode *tune = replace(dom, "cputune"), *pin;
	unsigned v = 0, k, io = iothreads(dom);
	int i;

	for (i = 0; i < l->ncells; i++)
		for (k = 0; k < l->cells[i].vcpus; k++, v++) {
			pin = xmlNewChild(tune, NULL, X("vcpupin"), NULL);
			set(pin, "vcpu", "%u", v);
			if (pins->cpu[v] >= 0)
				set(pin, "cpuset", "%d", pins->cpu[v]);
			else
				set(pin, "cpuset", "%s", pins->floats[i]);
		}
	set(xmlNewChild(tune, NULL, X("emulatorpin"), NULL), "cpuset", "%s",
	    pins->housekeeping[0] ? pins->housekeeping : l->cells[0].cpus);
	for (k = 1; k <= io && pins->housekeeping[0]; k++) {
		pin = xmlNewChild(tune, NULL, X("iothreadpin"), NULL);
		set(pin, "iothread", "%u", k);
		set(pin, "cpuset", "%s", pins->housekeeping);
	}
}

static void tuning(xmlNode *dom, const struct gp_profile *p, const struct gp_vm_layout *l,
		   const struct gp_vm_pins *pins)
{
	xmlNode *nt, *mb, *hp;
	int i;

	drop_children(dom, "cputune");
	drop_children(dom, "numatune");
	drop_children(dom, "memoryBacking");
	if (l->numa_known && pins->nvcpus)
		pin_cpus(dom, l, pins);
	if (l->numa_known && strcmp(p->vm.numa, "none")) {
		char nodes[64] = "";
		size_t len = 0;

		for (i = 0; i < l->ncells; i++)
			len += (size_t)snprintf(nodes + len, sizeof(nodes) - len, "%s%d",
						i ? "," : "", l->cells[i].host_node);
		nt = replace(dom, "numatune");
		set(xmlNewChild(nt, NULL, X("memory"), NULL), "mode", "%s", p->vm.numa);
		set(nt->children, "nodeset", "%s", nodes);
		for (i = 0; i < l->ncells; i++) {
			xmlNode *mn = xmlNewChild(nt, NULL, X("memnode"), NULL);

			set(mn, "cellid", "%d", i);
			set(mn, "mode", "%s", p->vm.numa);
			set(mn, "nodeset", "%d", l->cells[i].host_node);
		}
	}
	if (p->vm.hugepages) {
		mb = replace(dom, "memoryBacking");
		hp = xmlNewChild(xmlNewChild(mb, NULL, X("hugepages"), NULL), NULL, X("page"),
				 NULL);
		set(hp, "size", "%" PRIu64, p->vm.hugepages >> 10);
		set(hp, "unit", "KiB");
		xmlNewChild(mb, NULL, X("locked"), NULL); /* VFIO pins it all anyway */
	}
}

/*
 * A PCI controller's index is the guest bus number libvirt gives it: 0-255.
 * The template's are checked here, so that the ones gpuprov adds after the
 * highest still fit; anything else names the template's line.
 */
static int max_pci_index(xmlNode *devices, const char *tmpl, int *max)
{
	xmlNode *n;
	int rc = 0;

	*max = 0;
	for (n = devices->children; n && !rc; n = n->next) {
		xmlChar *type, *index;
		unsigned long v;

		if (!is(n, "controller"))
			continue;
		type = xmlGetProp(n, X("type"));
		index = xmlGetProp(n, X("index"));
		if (type && index && !xmlStrcmp(type, X("pci"))) {
			if (gp_parse_uint((const char *)index, 255, &v)) {
				gp_err("%s:%ld: PCI controller index '%s': expected a bus number "
				       "from 0 to 255",
				       tmpl, xmlGetLineNo(n), (const char *)index);
				rc = -EINVAL;
			} else if ((int)v > *max) {
				*max = (int)v;
			}
		}
		xmlFree(type);
		xmlFree(index);
	}
	return rc;
}

static xmlNode *controller(xmlNode *devices, int index, const char *model, const char *alias)
{
	xmlNode *c = xmlNewChild(devices, NULL, X("controller"), NULL);

	set(c, "type", "pci");
	set(c, "index", "%d", index);
	set(c, "model", "%s", model);
	set(xmlNewChild(c, NULL, X("alias"), NULL), "name", "%s", alias);
	return c;
}

static xmlNode *pci_address(xmlNode *parent, unsigned dom, unsigned bus, unsigned slot, unsigned fn)
{
	xmlNode *a = xmlNewChild(parent, NULL, X("address"), NULL);

	/* an interface's addresses, its source's too, say their type; a hostdev's source not */
	if (!xmlStrcmp(parent->name, X("hostdev")) || !xmlStrcmp(parent->name, X("controller")) ||
	    !xmlStrcmp(parent->name, X("interface")) ||
	    (parent->parent && !xmlStrcmp(parent->parent->name, X("interface"))))
		set(a, "type", "pci");
	set(a, "domain", "0x%04x", dom);
	set(a, "bus", "0x%02x", bus);
	set(a, "slot", "0x%02x", slot);
	set(a, "function", "0x%x", fn);
	return a;
}

static void hostdev(xmlNode *devs, const struct gp_dev *d, const struct gp_vm_dev *v, int port,
		    bool multi)
{
	xmlNode *hd = xmlNewChild(devs, NULL, X("hostdev"), NULL), *src, *a;

	set(hd, "mode", "subsystem");
	set(hd, "type", "pci");
	set(hd, "managed", "no");
	set(xmlNewChild(hd, NULL, X("driver"), NULL), "name", "vfio");
	src = xmlNewChild(hd, NULL, X("source"), NULL);
	pci_address(src, d->domain, d->bus, d->dev, d->func);
	set(xmlNewChild(hd, NULL, X("alias"), NULL), "name", "%s", v->alias);
	a = pci_address(hd, 0, (unsigned)port, 0, v->fn);
	if (multi && v->fn == 0)
		set(a, "multifunction", "on");
}

/*
 * [nic] mode = vf: the VF as libvirt's SR-IOV interface.  managed='yes':
 * libvirt binds it to vfio-pci and sets its MAC through the PF when the VM
 * starts, and gives both back when it stops; gpuprov binds no VF itself.
 */
static void vf_interface(xmlNode *devs, const struct gp_vm_dev *v, int port)
{
	xmlNode *nic = xmlNewChild(devs, NULL, X("interface"), NULL), *src;
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;

	gp_bdf_canonical(v->vf_bdf, &dom, &bus, &dev, &fn); /* core/vfs.c's spelling */
	set(nic, "type", "hostdev");
	set(nic, "managed", "yes");
	set(xmlNewChild(nic, NULL, X("mac"), NULL), "address", "%s", v->mac);
	set(xmlNewChild(nic, NULL, X("driver"), NULL), "name", "vfio");
	src = xmlNewChild(nic, NULL, X("source"), NULL);
	pci_address(src, dom, bus, dev, fn);
	set(xmlNewChild(nic, NULL, X("alias"), NULL), "name", "%s", v->alias);
	pci_address(nic, 0, (unsigned)port, 0, 0);
}

/*
 * An emulated switch: a pcie-root-port on the expander bus, a
 * pcie-switch-upstream-port (QEMU's x3130-upstream) behind it, and the
 * downstream ports (xio3130-downstream) come with their cards.  Returns the
 * upstream port's index.
 */
static int switch_ports(xmlNode *devs, const struct gp_vm_layout *l, int sw, int pxb, int *next)
{
	char alias[32];
	int rp = (*next)++, up = (*next)++;
	xmlNode *c;

	snprintf(alias, sizeof(alias), OWN_PREFIX "prov-sw%d", sw);
	c = controller(devs, rp, "pcie-root-port", alias);
	set(xmlNewChild(c, NULL, X("model"), NULL), "name", "pcie-root-port");
	pci_address(c, 0, (unsigned)pxb, l->switches[sw].slot, 0);
	snprintf(alias, sizeof(alias), OWN_PREFIX "prov-sw%d-up", sw);
	c = controller(devs, up, "pcie-switch-upstream-port", alias);
	set(xmlNewChild(c, NULL, X("model"), NULL), "name", "x3130-upstream");
	pci_address(c, 0, (unsigned)rp, 0, 0);
	return up;
}

/* The port a card sits on: a root port, or a downstream port of its switch. */
static int card_port(xmlNode *devs, const struct gp_vm_layout *l, int p, int pxb, int *up,
		     int *next)
{
	const struct gp_vm_port *port = &l->ports[p];
	char alias[32];
	int index;
	xmlNode *c;

	if (port->sw >= 0 && up[port->sw] < 0)
		up[port->sw] = switch_ports(devs, l, port->sw, pxb, next);
	snprintf(alias, sizeof(alias), OWN_PREFIX "prov-rp%d", p);
	index = (*next)++;
	if (port->sw < 0) {
		c = controller(devs, index, "pcie-root-port", alias);
		set(xmlNewChild(c, NULL, X("model"), NULL), "name", "pcie-root-port");
		pci_address(c, 0, (unsigned)pxb, port->slot, 0);
		return index;
	}
	c = controller(devs, index, "pcie-switch-downstream-port", alias);
	set(xmlNewChild(c, NULL, X("model"), NULL), "name", "xio3130-downstream");
	pci_address(c, 0, (unsigned)up[port->sw], port->slot, 0);
	return index;
}

/*
 * One pcie-expander-bus per guest cell, its <node> that cell, and behind it
 * a pcie-root-port per host card, its functions together as on the host:
 * the guest driver sees each GPU on the NUMA node it has on the host.  A
 * passed NIC and the cards it shares a host switch with sit behind one
 * emulated switch instead.  Hostdevs are managed='no': gpuprov binds them
 * (a VF's interface is managed='yes': vf_interface).
 */
static int devices(xmlNode *dom, const struct gp_host *h, const struct gp_vm_layout *l,
		   const char *tmpl)
{
	xmlNode *devs = ensure(dom, "devices");
	int next, pxb[GP_VM_MAX_CELLS], i, adds = l->ncells + l->nports;
	int port[GP_VM_MAX_DEVS], up[GP_VM_MAX_DEVS];

	drop_owned(devs);
	if (max_pci_index(devs, tmpl, &next))
		return -EINVAL;
	for (i = 0; i < l->nports; i++)
		up[l->ports[i].sw >= 0 ? l->ports[i].sw : 0] = 0;
	for (i = 0; i < l->nports; i++)
		if (l->ports[i].sw >= 0 && !up[l->ports[i].sw]++)
			adds += 2; /* a switch's root port and upstream port */
	if (++next + adds > 256) {
		gp_err("template '%s': its PCI controllers go up to index %d, leaving no room "
		       "for the %d gpuprov adds (indexes end at 255)",
		       tmpl, next - 1, adds);
		return -EINVAL;
	}
	for (i = 0; i < l->ncells; i++) {
		char alias[32];
		xmlNode *c, *target;

		snprintf(alias, sizeof(alias), OWN_PREFIX "prov-pxb%d", i);
		pxb[i] = next++;
		c = controller(devs, pxb[i], "pcie-expander-bus", alias);
		set(xmlNewChild(c, NULL, X("model"), NULL), "name", "pxb-pcie");
		target = xmlNewChild(c, NULL, X("target"), NULL);
		set(target, "busNr", "%u", l->cells[i].bus_nr);
		text(xmlNewChild(target, NULL, X("node"), NULL), "%d", i);
	}
	for (i = 0; i < GP_VM_MAX_DEVS; i++)
		port[i] = up[i] = -1;
	for (i = 0; i < l->ndevs; i++) {
		const struct gp_vm_dev *v = &l->devs[i];
		int cell = l->ports[v->port].cell;

		if (port[v->port] < 0)
			port[v->port] = card_port(devs, l, v->port, pxb[cell], up, &next);
		if (v->vf >= 0)
			vf_interface(devs, v, port[v->port]);
		else
			hostdev(devs, &h->devs[v->dev], v, port[v->port],
				l->ports[v->port].nfuncs > 1);
	}
	return 0;
}

static xmlNs *qemu_ns(xmlNode *dom)
{
	xmlNs *ns = xmlSearchNsByHref(dom->doc, dom, X(QEMU_NS));

	return ns ? ns : xmlNewNs(dom, X(QEMU_NS), X("qemu"));
}

static xmlNode *qemu_child(xmlNode *dom, xmlNs *ns, const char *name)
{
	xmlNode *n;

	for (n = dom->children; n; n = n->next)
		if (is(n, name) && n->ns && !xmlStrcmp(n->ns->href, X(QEMU_NS)))
			return n;
	return xmlNewChild(dom, ns, X(name), NULL);
}

static bool attr_starts(xmlNode *n, const char *attr, const char *prefix)
{
	xmlChar *v = xmlGetProp(n, X(attr));
	bool yes = v && !xmlStrncmp(v, X(prefix), (int)strlen(prefix));

	xmlFree(v);
	return yes;
}

/* The GPUDirect clique on each NVIDIA GPU, so the guest driver allows P2P. */
static void clique(xmlNode *dom, xmlNs *ns, const struct gp_vm_layout *l)
{
	xmlNode *ov = qemu_child(dom, ns, "override"), *n, *next;
	int i;

	for (n = ov->children; n; n = next) {
		next = n->next;
		if (is(n, "device") && attr_starts(n, "alias", OWN_PREFIX)) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		}
	}
	for (i = 0; l->clique >= 0 && i < l->ndevs; i++) {
		xmlNode *dev, *prop;

		if (!l->devs[i].nvidia)
			continue;
		dev = xmlNewChild(ov, ns, X("device"), NULL);
		set(dev, "alias", "%s", l->devs[i].alias);
		prop = xmlNewChild(xmlNewChild(dev, ns, X("frontend"), NULL), ns, X("property"),
				   NULL);
		set(prop, "name", "x-nv-gpudirect-clique");
		set(prop, "type", "unsigned");
		set(prop, "value", "%d", l->clique);
	}
	if (!ov->children) {
		xmlUnlinkNode(ov);
		xmlFreeNode(ov);
	}
}

/* OVMF takes X-PciMmio64Mb as the size of its 64-bit window (vm.c): only
 * needed where the layout outgrows its default 32 GiB. */
static void mmio(xmlNode *dom, xmlNs *ns, const struct gp_vm_layout *l)
{
	xmlNode *cl = qemu_child(dom, ns, "commandline"), *n, *next;

	for (n = cl->children; n; n = next) {
		next = n->next;
		if (!is(n, "arg"))
			continue;
		if (attr_starts(n, "value", "opt/ovmf/X-PciMmio64Mb") ||
		    (attr_starts(n, "value", "-fw_cfg") && next && is(next, "arg") &&
		     attr_starts(next, "value", "opt/ovmf/X-PciMmio64Mb"))) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		}
	}
	if (l->mmio_window > (32ull << 30)) {
		set(xmlNewChild(cl, ns, X("arg"), NULL), "value", "-fw_cfg");
		set(xmlNewChild(cl, ns, X("arg"), NULL), "value",
		    "opt/ovmf/X-PciMmio64Mb,string=%" PRIu64, l->mmio_window >> 20);
	}
	if (!cl->children) {
		xmlUnlinkNode(cl);
		xmlFreeNode(cl);
	}
}

/* FNV-1a, 64 bits: a digest of the XML that libvirt keeps in <metadata>. */
static void digest_of(const char *text, char *out, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *text; text++) {
		h ^= (unsigned char)*text;
		h *= 0x100000001b3ull;
	}
	snprintf(out, len, "%016" PRIx64, h);
}

#define GP_NS "urn:gpuprov:1"

static void drop_metadata(xmlNode *dom)
{
	xmlNode *md = child(dom, "metadata"), *n, *next;

	if (!md)
		return;
	for (n = md->children; n; n = next) {
		next = n->next;
		if (n->type == XML_ELEMENT_NODE && n->ns && !xmlStrcmp(n->ns->href, X(GP_NS))) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		}
	}
	if (!md->children) {
		xmlUnlinkNode(md);
		xmlFreeNode(md);
	}
}

/* <metadata><gp:gpuprov digest='...'/>: what domain.define compares. */
static void add_metadata(xmlNode *dom, const struct gp_profile *p, const char *digest)
{
	xmlNode *md = child(dom, "metadata"), *g;
	xmlNs *ns;

	if (!md) {
		md = xmlNewNode(NULL, X("metadata"));
		xmlAddNextSibling(child(dom, "name"), md);
	}
	g = xmlNewChild(md, NULL, X("gpuprov"), NULL);
	ns = xmlNewNs(g, X(GP_NS), X("gp"));
	xmlSetNs(g, ns);
	set(g, "digest", "%s", digest);
	set(g, "profile", "%s", p->path);
}

/* U+0080..U+009F or DEL at s: the code point, else -1 */
static int c1_or_del(const unsigned char *s)
{
	if (s[0] == 0x7f)
		return 0x7f;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] < 0xa0)
		return s[1];
	return -1;
}

/*
 * DEL and the C1 controls (U+0080..U+009F) as character references: XML
 * allows them raw and libxml2 writes them so, but the terminal filter would
 * then make the domain printed (domxml, plan --diff) differ from the one
 * written.  Names cannot hold them, so outside comments, CDATA and
 * processing instructions a reference is always in place; CDATA is split
 * around one; in a comment or an instruction, where a reference means
 * nothing, each becomes the text the terminal shows for it.
 */
static char *xml_refs(const char *s)
{
	static const char *const sect[][2] = { { "<!--", "-->" },
					       { "<![CDATA[", "]]>" },
					       { "<?", "?>" } };
	const char *close = NULL;
	char *out = NULL;
	size_t len, i, k;
	FILE *f = open_memstream(&out, &len);
	int c;

	if (!f)
		abort(); /* no memory, as gp_xcalloc */
	while (*s) {
		for (i = 0; !close && i < sizeof(sect) / sizeof(sect[0]); i++) {
			k = strlen(sect[i][0]);
			if (!strncmp(s, sect[i][0], k)) {
				close = sect[i][1];
				fwrite(s, 1, k, f);
				s += k;
			}
		}
		k = close ? strlen(close) : 0;
		if (close && !strncmp(s, close, k)) {
			fwrite(s, 1, k, f);
			s += k;
			close = NULL;
			continue;
		}
		c = c1_or_del((const unsigned char *)s);
		if (c < 0) {
			fputc(*s++, f);
			continue;
		}
		if (!close)
			fprintf(f, "&#x%02x;", c);
		else if (close[0] == ']')
			fprintf(f, "]]>&#x%02x;<![CDATA[", c);
		else if (c == 0x7f)
			fputs("\\x7f", f);
		else
			fprintf(f, "\\xc2\\x%02x", c);
		s += c == 0x7f ? 1 : 2;
	}
	if (fclose(f))
		abort();
	return out;
}

static char *dump(xmlDoc *doc)
{
	xmlChar *buf;
	char *out;
	int len;

	xmlDocDumpFormatMemoryEnc(doc, &buf, &len, "UTF-8", 1);
	out = xml_refs((char *)buf);
	xmlFree(buf);
	return out;
}

/* libxml2 reports each error to a callback: the first, with its line, kept here. */
struct xml_error {
	char text[300];
	int line;
};

static void on_error(void *ctx, xmlErrorPtr e)
{
	struct xml_error *x = ctx;

	if (!x || x->text[0] || !e || !e->message)
		return;
	snprintf(x->text, sizeof(x->text), "%.*s", (int)strcspn(e->message, "\n"), e->message);
	x->line = e->line;
}

/*
 * xmlReadMemory with its first error in *x.  The callback gets x, which lives
 * on the caller's stack: it is unset again (errors then go nowhere, never
 * raw to stderr) before this returns.
 */
static xmlDoc *read_xml(const char *text, size_t n, const char *name, const char *enc, int opts,
			struct xml_error *x)
{
	xmlDoc *doc = NULL;

	memset(x, 0, sizeof(*x));
	xmlSetStructuredErrorFunc(x, on_error);
	if (n <= INT_MAX)
		doc = xmlReadMemory(text, (int)n, name, enc, opts | XML_PARSE_NONET);
	xmlSetStructuredErrorFunc(NULL, on_error);
	return doc;
}

static int parse_error(const char *path, const struct xml_error *x)
{
	if (x->text[0])
		gp_err("%s:%d: %s", path, x->line, x->text);
	else
		gp_err("cannot read the template '%s'", path);
	return -EINVAL;
}

/*
 * What goes to libvirt and to -o FILE is well-formed XML or nothing: a
 * value XML cannot hold (a profile path that is not UTF-8) is bad input.
 */
static int well_formed(const char *xml)
{
	struct xml_error x;
	xmlDoc *doc = read_xml(xml, strlen(xml), "domain.xml", "UTF-8", 0, &x);

	if (!doc) {
		gp_err("the domain XML would not be well-formed: %s (line %d); the profile's "
		       "path and values must be UTF-8 text",
		       x.text, x.line);
		return -EINVAL;
	}
	xmlFreeDoc(doc);
	return 0;
}

unsigned gp_domxml_mode(bool secret)
{
	return secret ? 0600 : 0644;
}

int gp_domxml_build(const struct gp_host *h, const struct gp_profile *p, const char *tmpl_path,
		    char **out, char *digest, size_t dlen, bool *secret)
{
	struct stat st;
	char *plain, *text;
	struct gp_vm_layout l;
	struct gp_vm_pins pins;
	struct xml_error xe;
	xmlDoc *doc;
	xmlNode *dom;
	xmlNs *ns;

	ssize_t n = gp_root_slurp_stat(AT_FDCWD, tmpl_path, GP_READ_MAX, &text, &st);

	if (n < 0) { /* through the safe reader: a FIFO is refused, not waited on */
		gp_err("cannot read the template '%s': %s", tmpl_path, gp_root_strerror((int)n));
		return (int)n;
	}
	/* one only root may read can hold a password (VNC, SPICE): so can its XML */
	if (secret)
		*secret = !(st.st_mode & S_IROTH);
	xmlKeepBlanksDefault(0);
	doc = read_xml(text, (size_t)n, tmpl_path, NULL, XML_PARSE_NOBLANKS | XML_PARSE_BIG_LINES,
		       &xe);
	free(text);
	if (!doc)
		return parse_error(tmpl_path, &xe);
	dom = xmlDocGetRootElement(doc);
	if (!is(dom, "domain")) {
		gp_err("template '%s': the root element is not <domain>", tmpl_path);
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	gp_vm_layout(h, p, &l);
	if (!l.ndevs)
		gp_warn("no device of the profile's [gpus] on this host: the VM gets no GPU");
	gp_vm_pins(h, &l, &pins);
	basics(dom, p);
	cpu(dom, &l, &pins);
	tuning(dom, p, &l, &pins);
	gp_vm_pins_release(&pins);
	if (devices(dom, h, &l, tmpl_path)) {
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	ns = qemu_ns(dom);
	if (l.clique_left_out)
		gp_warn("the GPUDirect clique is left out (p2p = preferred): QEMU %s cannot add "
			"it to %s, so the VM starts but the guest driver refuses P2P "
			"(see 'gpuprov check', vm.qemu_clique)",
			h->qemu_version[0] ? h->qemu_version : "",
			h->devs[l.devs[l.clique_dev].dev].bdf);
	clique(dom, ns, &l);
	mmio(dom, ns, &l);
	drop_metadata(dom);
	plain = dump(doc);
	digest_of(plain, digest, dlen);
	free(plain);
	add_metadata(dom, p, digest);
	*out = dump(doc);
	xmlFreeDoc(doc);
	if (well_formed(*out)) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

/* ---- what the domain needs from the host before it starts ---- */

static void need(struct gp_vm_file *files, int max, int *n, const char *role, const xmlChar *path)
{
	if (*n >= max || !path || !path[0])
		return;
	memset(&files[*n], 0, sizeof(files[*n]));
	gp_strlcpy(files[*n].role, role, sizeof(files[*n].role));
	gp_strlcpy(files[*n].path, (const char *)path, sizeof(files[*n].path));
	(*n)++;
}

static void disk_needs(xmlNode *devices, struct gp_vm_file *files, int max, int *n)
{
	xmlNode *d, *src;

	for (d = devices ? devices->children : NULL; d; d = d->next) {
		xmlChar *type, *path;

		if (!is(d, "disk") || !(src = child(d, "source")))
			continue;
		type = xmlGetProp(d, X("type"));
		path = NULL;
		if (type && !xmlStrcmp(type, X("file")))
			path = xmlGetProp(src, X("file"));
		else if (type && !xmlStrcmp(type, X("block")))
			path = xmlGetProp(src, X("dev"));
		need(files, max, n, "disk", path);
		xmlFree(path);
		xmlFree(type);
	}
}

/*
 * The disk images (file and block sources), the firmware code (<loader>) and
 * its variables template (<nvram template=>), or with firmware='efi' and no
 * loader a firmware descriptor; at most max.  -EINVAL for XML that does not parse.
 */
int gp_domxml_files(const char *xml, struct gp_vm_file *files, int max)
{
	struct xml_error x;
	xmlDoc *doc = read_xml(xml, strlen(xml), "domain.xml", NULL, 0, &x);
	xmlNode *dom = doc ? xmlDocGetRootElement(doc) : NULL, *os, *loader;
	xmlChar *fw = NULL, *path;
	int n = 0;

	if (!is(dom, "domain")) {
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	disk_needs(child(dom, "devices"), files, max, &n);
	os = child(dom, "os");
	loader = os ? child(os, "loader") : NULL;
	if (loader) {
		path = xmlNodeGetContent(loader);
		need(files, max, &n, "loader", path);
		xmlFree(path);
	}
	if (os && child(os, "nvram")) {
		path = xmlGetProp(child(os, "nvram"), X("template"));
		need(files, max, &n, "nvram template", path);
		xmlFree(path);
	}
	fw = os ? xmlGetProp(os, X("firmware")) : NULL;
	if (fw && !xmlStrcmp(fw, X("efi")) && !loader)
		need(files, max, &n, "firmware descriptor", X("(efi)"));
	xmlFree(fw);
	xmlFreeDoc(doc);
	return n;
}

/* QEMU's words for a true boolean property (on, yes, true, y; case as it is). */
static bool qemu_true(const char *v, size_t n)
{
	static const char *const yes[] = { "on", "yes", "true", "y" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (n == strlen(yes[i]) && !strncmp(v, yes[i], n))
			return true;
	return false;
}

/* In a comma list "a=b,x-no-mmap=on,...": whether key's value is true. */
static bool list_true(const char *s, const char *key)
{
	size_t k = strlen(key);
	const char *p = s;

	while (p && *p) {
		if (!strncmp(p, key, k) && p[k] == '=')
			return qemu_true(p + k + 1, strcspn(p + k + 1, ","));
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* In a comma list, key's value copied to out ("" when absent). */
static void list_value(const char *s, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);
	const char *p = s;

	out[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, k) && p[k] == '=') {
			snprintf(out, len, "%.*s", (int)strcspn(p + k + 1, ","), p + k + 1);
			return;
		}
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
}

/* A JSON -device ({"driver":"vfio-pci",...}): "key": true or "on"; its host. */
static bool json_true(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	if (!p)
		return false;
	p += strlen(key);
	p += strspn(p, " \t\n\"");
	if (*p++ != ':')
		return false;
	p += strspn(p, " \t\n\"");
	return qemu_true(p, strcspn(p, "\", \t\n}"));
}

static void add_nommap(struct gp_vm_nommap *out, int max, int *n, const char *target,
		       const char *how)
{
	if (*n >= max)
		return;
	snprintf(out[*n].target, sizeof(out[*n].target), "%s", target);
	snprintf(out[*n].how, sizeof(out[*n].how), "%s", how);
	(*n)++;
}

/*
 * One <qemu:arg> after the one before it: -set device.ID.x-no-mmap=on,
 * -global vfio-pci.x-no-mmap=on (or driver=vfio-pci,property=x-no-mmap,
 * value=on), -device vfio-pci,host=...,x-no-mmap=on (or its JSON form).
 */
static void arg_nommap(const char *prev, const char *a, struct gp_vm_nommap *out, int max, int *n)
{
	char how[128], target[64];
	const char *dot;

	snprintf(how, sizeof(how), "%s %s", prev, a);
	if (!strcmp(prev, "-set") && !strncmp(a, "device.", 7) && (dot = strchr(a + 7, '.')) &&
	    list_true(dot + 1, "x-no-mmap")) {
		snprintf(target, sizeof(target), "%.*s", (int)(dot - a - 7), a + 7);
		add_nommap(out, max, n, target, how);
	} else if (!strcmp(prev, "-global") &&
		   (!strncmp(a, "vfio-pci.", 9)
			    ? list_true(a + 9, "x-no-mmap")
			    : strstr(a, "driver=vfio-pci") && strstr(a, "property=x-no-mmap") &&
				      list_true(strstr(a, "value="), "value"))) {
		add_nommap(out, max, n, "*", how);
	} else if (!strcmp(prev, "-device") && !strncmp(a, "vfio-pci,", 9) &&
		   list_true(a, "x-no-mmap")) {
		list_value(a, "host", target, sizeof(target));
		add_nommap(out, max, n, target[0] ? target : "?", how);
	} else if (!strcmp(prev, "-device") && a[0] == '{' && strstr(a, "vfio-pci") &&
		   json_true(a, "\"x-no-mmap\"")) {
		const char *h = strstr(a, "\"host\"");

		target[0] = '\0';
		if (h && (h = strchr(h + 6, '"')))
			snprintf(target, sizeof(target), "%.*s", (int)strcspn(h + 1, "\""), h + 1);
		add_nommap(out, max, n, target[0] ? target : "?", how);
	}
}

static bool is_qemu(const xmlNode *n, const char *name)
{
	return is(n, name) && n->ns && !xmlStrcmp(n->ns->href, X(QEMU_NS));
}

static void commandline_nommap(xmlNode *cl, struct gp_vm_nommap *out, int max, int *n,
			       bool *iommufd)
{
	xmlChar *prev = NULL, *v;
	xmlNode *a;

	for (a = cl->children; a; a = a->next) {
		if (!is_qemu(a, "arg"))
			continue;
		v = xmlGetProp(a, X("value"));
		if (v && prev)
			arg_nommap((const char *)prev, (const char *)v, out, max, n);
		if (v && prev && !xmlStrcmp(prev, X("-object")) && !xmlStrncmp(v, X("iommufd"), 7))
			*iommufd = true;
		if (v && xmlStrstr(v, X("iommufd=")))
			*iommufd = true;
		xmlFree(prev);
		prev = v;
	}
	xmlFree(prev);
}

/* <qemu:override><qemu:device alias=A><qemu:frontend><qemu:property name='x-no-mmap' value='true'/> */
static void override_nommap(xmlNode *ov, struct gp_vm_nommap *out, int max, int *n)
{
	xmlNode *dev, *fe, *pr;

	for (dev = ov->children; dev; dev = dev->next) {
		xmlChar *alias = is_qemu(dev, "device") ? xmlGetProp(dev, X("alias")) : NULL;

		for (fe = alias ? dev->children : NULL; fe; fe = fe->next) {
			for (pr = is_qemu(fe, "frontend") ? fe->children : NULL; pr;
			     pr = pr->next) {
				xmlChar *name =
					is_qemu(pr, "property") ? xmlGetProp(pr, X("name")) : NULL;
				xmlChar *val = name ? xmlGetProp(pr, X("value")) : NULL;
				char how[128];

				if (val && !xmlStrcmp(name, X("x-no-mmap")) &&
				    qemu_true((const char *)val, strlen((const char *)val))) {
					snprintf(how, sizeof(how),
						 "<qemu:override> device '%s' x-no-mmap=%s",
						 (const char *)alias, (const char *)val);
					add_nommap(out, max, n, (const char *)alias, how);
				}
				xmlFree(val);
				xmlFree(name);
			}
		}
		xmlFree(alias);
	}
}

/* libvirt's <iommufd enabled='yes'/>, or a hostdev's <driver iommufd='yes'/>. */
static bool dom_iommufd(xmlNode *dom)
{
	xmlNode *devs = child(dom, "devices"), *d, *io = child(dom, "iommufd");
	xmlChar *v = io ? xmlGetProp(io, X("enabled")) : NULL;
	bool yes = v && !xmlStrcmp(v, X("yes"));

	xmlFree(v);
	for (d = devs ? devs->children : NULL; d && !yes; d = d->next) {
		xmlNode *drv = is(d, "hostdev") ? child(d, "driver") : NULL;

		v = drv ? xmlGetProp(drv, X("iommufd")) : NULL;
		yes = v && !xmlStrcmp(v, X("yes"));
		xmlFree(v);
	}
	return yes;
}

int gp_domxml_nommap(const char *xml, struct gp_vm_nommap *out, int max, bool *iommufd)
{
	struct xml_error x;
	xmlDoc *doc = read_xml(xml, strlen(xml), "domain.xml", NULL, 0, &x);
	xmlNode *dom = doc ? xmlDocGetRootElement(doc) : NULL, *n;
	int count = 0;

	*iommufd = false;
	if (!is(dom, "domain")) {
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	*iommufd = dom_iommufd(dom);
	for (n = dom->children; n; n = n->next) {
		if (is_qemu(n, "commandline"))
			commandline_nommap(n, out, max, &count, iommufd);
		else if (is_qemu(n, "override"))
			override_nommap(n, out, max, &count);
	}
	xmlFreeDoc(doc);
	return count;
}
