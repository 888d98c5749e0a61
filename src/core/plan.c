// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan: the ordered steps that bring the host to what the profile wants,
 * each with its current and target state.  A pure function of the host, the
 * profile, the findings and the templates: nothing here reads or writes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/acs.h"
#include "core/checks.h"
#include "core/hostq.h"
#include "core/hugepages.h"
#include "core/manifest.h"
#include "core/netconf.h"
#include "core/plan.h"
#include "core/vm.h"
#include "core/templates.h"
#include "core/vfs.h"

/*
 * Every failed finding blocks the steps it bears on (findings.c says which),
 * unless the operator accepted its id by name (--accept): a check that fails
 * is a reason not to go ahead, whichever check it is.
 */

struct gp_step *gp_plan_add(struct gp_plan *plan, enum gp_step_kind kind, const char *subject)
{
	struct gp_step *st;

	if (plan->n == plan->cap) {
		plan->cap = plan->cap ? plan->cap * 2 : 16;
		plan->steps = gp_xrealloc(plan->steps, plan->cap, sizeof(*plan->steps));
	}
	st = &plan->steps[plan->n++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	gp_strlcpy(st->subject, subject, sizeof(st->subject));
	return st;
}

static char *vformat(const char *fmt, va_list ap)
{
	char text[600];

	vsnprintf(text, sizeof(text), fmt, ap);
	return gp_xstrdup(text);
}

/* Every failed check that blocks is listed: the list grows, nothing is dropped. */
void gp_plan_block(struct gp_plan *plan, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan->blockers =
		gp_xrealloc(plan->blockers, (size_t)plan->nblockers + 1, sizeof(*plan->blockers));
	plan->blockers[plan->nblockers++] = vformat(fmt, ap);
	va_end(ap);
}

static void plan_accepted(struct gp_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void plan_accepted(struct gp_plan *plan, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan->accepted =
		gp_xrealloc(plan->accepted, (size_t)plan->naccepted + 1, sizeof(*plan->accepted));
	plan->accepted[plan->naccepted++] = vformat(fmt, ap);
	va_end(ap);
}

void gp_plan_release(struct gp_plan *plan)
{
	int i;

	for (i = 0; i < plan->nblockers; i++)
		free(plan->blockers[i]);
	free(plan->blockers);
	for (i = 0; i < plan->naccepted; i++)
		free(plan->accepted[i]);
	free(plan->accepted);
	free(plan->steps);
	memset(plan, 0, sizeof(*plan));
}

int gp_parse_groups(const char *list, unsigned *groups)
{
	char buf[128], *items[8];
	int n, i;

	gp_strlcpy(buf, list, sizeof(buf));
	n = gp_split_list(buf, items, 8);
	if (n <= 0)
		return -1;
	*groups = 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(items[i], "vfio"))
			*groups |= GP_GROUP_VFIO;
		else if (!strcmp(items[i], "bond"))
			*groups |= GP_GROUP_BOND;
		else if (!strcmp(items[i], "vm"))
			*groups |= GP_GROUP_VM;
		else
			return -1;
	}
	return 0;
}

/* Whether id is an item of the comma- or space-separated list. */
static bool in_list(const char *list, const char *id)
{
	size_t n = strlen(id);
	const char *s;

	for (s = list; s && (s = strstr(s, id)); s += n)
		if ((s == list || strchr(", ", s[-1])) && (!s[n] || strchr(", ", s[n])))
			return true;
	return false;
}

/* The ids a refusal names for --accept, each once. */
static void acceptable(struct gp_plan *plan, const char *id)
{
	size_t len = strlen(plan->acceptable);

	if (in_list(plan->acceptable, id))
		return;
	snprintf(plan->acceptable + len, sizeof(plan->acceptable) - len, "%s%s", len ? "," : "",
		 id);
}

static void blockers(const struct gp_report *r, unsigned groups, const char *accept,
		     struct gp_plan *plan)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct gp_finding *f = &r->items[i];
		const struct gp_finding_kind *k = &gp_finding_kinds[f->fid];

		if (f->severity != GP_FAIL || !(k->groups & groups))
			continue;
		if ((groups & GP_FORCE_MGMT) && f->fid == GP_F_BOND_MGMT) {
			plan_accepted(plan, "%s %s: %s (--force-mgmt)", f->id, f->subject,
				      f->message);
		} else if (in_list(accept, f->id) && k->acceptable) {
			plan_accepted(plan, "%s %s: %s", f->id, f->subject, f->message);
		} else {
			gp_plan_block(plan, "%s %s: %s", f->id, f->subject, f->message);
			if (k->acceptable)
				acceptable(plan, f->id);
		}
	}
}

static const char *driver_for(const struct gp_dev *d)
{
	return d->vfio_driver[0] ? d->vfio_driver : "vfio-pci";
}

static void device_steps(const struct gp_dev *d, struct gp_plan *plan)
{
	const char *want = driver_for(d);
	struct gp_step *st;

	if (strcmp(d->driver_override, want)) {
		st = gp_plan_add(plan, GP_S_DEVICE_OVERRIDE, d->bdf);
		snprintf(st->current, sizeof(st->current), "%s",
			 d->driver_override[0] ? d->driver_override : "(none)");
		gp_strlcpy(st->target, want, sizeof(st->target));
		gp_strlcpy(st->arg, want, sizeof(st->arg));
	}
	if (!strcmp(d->driver, want))
		return;
	if (d->driver[0]) {
		st = gp_plan_add(plan, GP_S_DEVICE_UNBIND, d->bdf);
		snprintf(st->current, sizeof(st->current), "bound to %s", d->driver);
		gp_strlcpy(st->target, "unbound", sizeof(st->target));
		gp_strlcpy(st->arg, d->driver, sizeof(st->arg));
	}
	st = gp_plan_add(plan, GP_S_DEVICE_BIND, d->bdf);
	snprintf(st->current, sizeof(st->current), "%s", d->driver[0] ? d->driver : "no driver");
	gp_strlcpy(st->target, want, sizeof(st->target));
	gp_strlcpy(st->arg, want, sizeof(st->arg));
}

/* Kernel 6.2 merged vfio_virqfd into vfio: listing it there fails the load. */
static bool has_virqfd(const char *release)
{
	unsigned major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major < 6 || (major == 6 && minor < 2);
}

/* A passed device whose vfio driver is a variant, not vfio-pci itself. */
static bool variant_passed(const struct gp_host *h, const struct gp_profile *p, size_t i)
{
	return gp_vm_passed(h, p, i) && strcmp(h->devs[i].vfio_module, "vfio_pci");
}

/* Whether a module is a line of a newline-separated list. */
static bool listed(const char *list, const char *m)
{
	size_t n = strlen(m);
	const char *s;

	for (s = list; (s = strstr(s, m)); s += n)
		if ((s == list || s[-1] == '\n') && (!s[n] || s[n] == '\n'))
			return true;
	return false;
}

void gp_persist_render(const struct gp_host *h, const struct gp_profile *p,
		       char *const templates[GP_PERSIST_FILES], struct gp_persist *out)
{
	const char *module = "vfio-pci";
	char modules[512], softdep[512];
	size_t i;

	memset(out, 0, sizeof(*out));
	out->driverctl = h->driverctl;
	for (i = 0; i < h->ndevs && out->noverrides < GP_MAX_OVERRIDES; i++) {
		struct gp_override *o = &out->overrides[out->noverrides];

		if (!gp_vm_passed(h, p, i))
			continue;
		gp_strlcpy(o->bdf, h->devs[i].bdf, sizeof(o->bdf));
		gp_strlcpy(o->driver, driver_for(&h->devs[i]), sizeof(o->driver));
		out->noverrides++;
	}
	snprintf(modules, sizeof(modules), "vfio\nvfio_iommu_type1\n%svfio_pci",
		 has_virqfd(h->kernel_release) ? "vfio_virqfd\n" : "");
	gp_strlcpy(softdep, module, sizeof(softdep));
	/* variant drivers' modules load at boot too, and before the GPU drivers */
	for (i = 0; i < h->ndevs; i++) {
		const char *m = h->devs[i].vfio_module;

		if (!variant_passed(h, p, i) || listed(modules, m))
			continue;
		snprintf(modules + strlen(modules), sizeof(modules) - strlen(modules), "\n%s", m);
		snprintf(softdep + strlen(softdep), sizeof(softdep) - strlen(softdep), " %s", m);
	}
	{
		const char *pairs[] = { "VFIO_MODULE", softdep, "MODULES", modules, NULL };

		for (i = 0; i < GP_PERSIST_FILES; i++) {
			/* driverctl brings its own udev rule, unit and script */
			if (out->driverctl && i != 1 && i != 2)
				continue;
			out->files[i] = gp_subst(templates[i], pairs);
		}
	}
}

void gp_persist_release(struct gp_persist *ps)
{
	int i;

	for (i = 0; i < GP_PERSIST_FILES; i++)
		free(ps->files[i]);
	memset(ps, 0, sizeof(*ps));
}

int gp_persist_files(const struct gp_persist *ps, struct gp_persist_file *t, int max)
{
	int i, n = 0;

	for (i = 0; i < GP_PERSIST_FILES && n < max; i++) {
		if (!ps->files[i])
			continue;
		gp_strlcpy(t[n].path, gp_persist_paths[i], sizeof(t[n].path));
		t[n].text = ps->files[i];
		t[n++].mode = i == 0 ? 0755 : 0644;
	}
	for (i = 0; i < ps->noverrides && n < max; i++) {
		const struct gp_override *o = &ps->overrides[i];

		snprintf(t[n].path, sizeof(t[n].path),
			 ps->driverctl ? "/etc/driverctl.d/pci-%s" : "/etc/gpuprov/override.d/%s",
			 o->bdf);
		t[n].text = o->driver;
		t[n++].mode = 0644;
	}
	return n;
}

static bool has_override(const struct gp_host *h, const struct gp_override *o)
{
	int i;

	for (i = 0; i < h->noverrides; i++)
		if (!strcmp(h->overrides[i].bdf, o->bdf) &&
		    !strcmp(h->overrides[i].driver, o->driver))
			return true;
	return false;
}

static void persist_step(const struct gp_host *h, const struct gp_profile *p,
			 char *const templates[GP_PERSIST_FILES], struct gp_plan *plan)
{
	struct gp_persist ps;
	int i, missing = 0, present = 0;
	struct gp_step *st;

	gp_persist_render(h, p, templates, &ps);
	for (i = 0; i < GP_PERSIST_FILES; i++) {
		if (!ps.files[i])
			continue;
		if (h->persist[i] && !strcmp(h->persist[i], ps.files[i]))
			present++;
		else
			missing++;
	}
	for (i = 0; i < ps.noverrides; i++) {
		if (has_override(h, &ps.overrides[i]))
			present++;
		else
			missing++;
	}
	gp_persist_release(&ps);
	if (!missing)
		return;
	st = gp_plan_add(plan, GP_S_PERSIST_VFIO, "host");
	snprintf(st->current, sizeof(st->current), "%s",
		 present ? "partly written or outdated" : "absent");
	snprintf(st->target, sizeof(st->target), "%s",
		 h->driverctl ? "driverctl overrides, modprobe softdep"
			      : "overrides, udev rule, boot unit, modprobe softdep");
}

/* A secret XML (gp_domxml_mode) that others may read now: written again, 0600. */
static bool vm_xml_exposed(const struct gp_host *h, const struct gp_profile *p,
			   const struct gp_vm_target *vm)
{
	const struct gp_owned *o = gp_host_owned(h, p->vm.output);

	return vm->secret && o && o->text && o->readable;
}

/* The guest's file name in vm->guest_dir, as the host has it now (NULL: absent). */
static const char *guest_now(const struct gp_host *h, const struct gp_vm_target *vm, int i)
{
	char path[GP_OUTPUT_LEN];
	const struct gp_owned *o;

	snprintf(path, sizeof(path), "%s/%s", vm->guest_dir, gp_guest_file_names[i]);
	o = gp_host_owned(h, path);
	return o ? o->text : NULL;
}

/*
 * guest.write: guest-config's files beside the VM's XML.  Where they cannot
 * be made (once vfio-pci holds the ports, their MACs are gone) the files
 * already written stand; where none are, the plan's note says why.
 */
static void guest_step(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_vm_target *vm, struct gp_plan *plan)
{
	int i, present = 0, same = 0;
	struct gp_step *st;

	if (!gp_nic_to_vm(p))
		return;
	for (i = 0; i < GP_GUEST_FILES; i++) {
		const char *now = guest_now(h, vm, i);

		present += now != NULL;
		same += now && vm->guest[i] && !strcmp(now, vm->guest[i]);
	}
	if (!vm->guest[0]) {
		if (present < GP_GUEST_FILES && !plan->note[0])
			snprintf(plan->note, sizeof(plan->note),
				 "%s: the guest's files cannot be made: %s",
				 gp_step_name(GP_S_GUEST_WRITE), vm->guest_why);
		return;
	}
	if (same == GP_GUEST_FILES)
		return;
	st = gp_plan_add(plan, GP_S_GUEST_WRITE, vm->guest_dir);
	gp_strlcpy(st->current, !present ? "absent" : "differs", sizeof(st->current));
	gp_strlcpy(st->target, "network-config, nccl.conf, nccl-topo.xml", sizeof(st->target));
}

/*
 * [vm] hugepages: each node of the VM's cells whose pool lacks free pages
 * that its free memory can hold gets them reserved (vm.memory says so, and
 * fails where they cannot be had); before the domain is defined on them.
 */
static void hugepages_steps(const struct gp_host *h, const struct gp_profile *p,
			    struct gp_plan *plan)
{
	struct gp_hugepages hp;
	char node[16];
	int i;

	gp_hugepages_plan(h, p, &hp);
	for (i = 0; i < hp.n; i++) {
		const struct gp_huge_node *n = &hp.nodes[i];
		struct gp_step *st;

		if (n->verdict != GP_HUGE_RESERVE)
			continue;
		snprintf(node, sizeof(node), "node%d", n->node);
		st = gp_plan_add(plan, GP_S_HUGEPAGES_RESERVE, node);
		snprintf(st->current, sizeof(st->current), "nr_hugepages %ld, %ld free", n->nr,
			 n->free);
		snprintf(st->target, sizeof(st->target),
			 "nr_hugepages %ld: %ld pages of %s free for the VM, at each boot too",
			 n->nr + n->add, n->need, gp_hugepages_size_name(n->size_kb));
		snprintf(st->arg, sizeof(st->arg), "%ukB", n->size_kb);
	}
}

static void vm_steps(const struct gp_host *h, const struct gp_profile *p,
		     const struct gp_vm_target *vm, struct gp_plan *plan)
{
	bool exposed = vm_xml_exposed(h, p, vm);
	struct gp_step *st;

	hugepages_steps(h, p, plan);

	if (!h->vm_xml || strcmp(h->vm_xml, vm->xml) || exposed) {
		st = gp_plan_add(plan, GP_S_DOMAIN_WRITE, p->vm.output);
		gp_strlcpy(st->current,
			   !h->vm_xml			? "absent"
			   : strcmp(h->vm_xml, vm->xml) ? "differs"
							: "holds a secret, readable by all",
			   sizeof(st->current));
		snprintf(st->target, sizeof(st->target), "written (digest %s)", vm->digest);
	}
	if (vm->nccl && (!h->nccl_xml || strcmp(h->nccl_xml, vm->nccl))) {
		st = gp_plan_add(plan, GP_S_NCCL_WRITE, vm->nccl_path);
		gp_strlcpy(st->current, h->nccl_xml ? "differs" : "absent", sizeof(st->current));
		gp_strlcpy(st->target, "NCCL topology at the guest's addresses",
			   sizeof(st->target));
	}
	guest_step(h, p, vm, plan);
	if (!p->vm.define || (h->vm_defined == 1 && !strcmp(h->vm_digest, vm->digest)))
		return;
	st = gp_plan_add(plan, GP_S_DOMAIN_DEFINE, p->vm.name);
	if (h->vm_defined >= 0)
		gp_strlcpy(st->current, h->vm_defined ? "defined, differs" : "not defined",
			   sizeof(st->current));
	else if (h->libvirt_refused)
		gp_strlcpy(st->current, "unknown (not opened: check's vm.embed says why)",
			   sizeof(st->current));
	else if (h->libvirt_error[0])
		snprintf(st->current, sizeof(st->current), "unknown (libvirt unreachable: %s)",
			 h->libvirt_error);
	else
		gp_strlcpy(st->current,
			   h->root[0] ? "unknown (-r: libvirt is asked on the live host only)"
				      : "unknown (libvirt not asked)",
			   sizeof(st->current));
	snprintf(st->target, sizeof(st->target), "defined in %s", p->vm.uri);
}

static void module_step(struct gp_plan *plan, const char *module)
{
	struct gp_step *st = gp_plan_add(plan, GP_S_MODULE_LOAD, module);

	gp_strlcpy(st->current, "not loaded", sizeof(st->current));
	gp_strlcpy(st->target, "loaded", sizeof(st->target));
	gp_strlcpy(st->arg, module, sizeof(st->arg));
}

static bool planned_module(const struct gp_plan *plan, const char *module)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		if (plan->steps[i].kind == GP_S_MODULE_LOAD && !strcmp(plan->steps[i].arg, module))
			return true;
	return false;
}

/*
 * Full passthrough: Fabric Manager runs in the guest, not on the host, whose
 * nv-fabricmanager holds the switches about to be unbound.  Stopped and
 * disabled before the first unbind; rollback starts and enables it again.
 */
static void fabric_step(const struct gp_host *h, const struct gp_profile *p, struct gp_plan *plan)
{
	const struct gp_fabric_host *fm = &h->fm;
	bool running = fm->running == 1, enabled = fm->enabled == 1 && !fm->masked;
	struct gp_step *st;

	if (p->fabric != GP_FABRIC_FULL || !fm->read || (!running && !enabled))
		return;
	st = gp_plan_add(plan, GP_S_FABRIC_MASK, "host");
	snprintf(st->current, sizeof(st->current), "Fabric Manager %s%s%s",
		 running ? "running" : "", running && enabled ? ", " : "",
		 enabled ? "enabled" : "");
	gp_strlcpy(st->target, "stopped, disabled (it runs in the guest)", sizeof(st->target));
}

/*
 * [nic] mode = passthrough: ACS Direct Translated P2P on the switch ports
 * between each passed NIC and its GPU that nic.acs warns about, and that
 * can take it (core/acs.c); before the VM is defined on them.
 */
static void acs_steps(const struct gp_host *h, const struct gp_profile *p, struct gp_plan *plan)
{
	int ports[64], n = gp_acs_ports(h, p, ports, (int)ARRAY_SIZE(ports)), i;

	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[ports[i]];
		struct gp_step *st = gp_plan_add(plan, GP_S_ACS_SET, d->bdf);

		snprintf(st->current, sizeof(st->current), "ACS control 0x%04x", d->acs_ctrl);
		snprintf(st->target, sizeof(st->target),
			 "ACS control 0x%04x: Direct Translated P2P, at each boot too",
			 gp_acs_target(d->acs_cap, d->acs_ctrl));
	}
}

/*
 * [nic] mode = vf: each port [nic] match names gets [nic] vfs virtual
 * functions (sriov.vfs), within what it offers (sriov_totalvfs); a port
 * without SR-IOV, or offering fewer, blocks.
 */
static void sriov_steps(const struct gp_host *h, const struct gp_profile *p, struct gp_plan *plan)
{
	size_t i;

	if (!p->has_nic || p->nic.mode != GP_NIC_VF)
		return;
	for (i = 0; i < h->ndevs; i++) {
		const struct gp_dev *d = &h->devs[i];
		char why[400];
		struct gp_step *st;

		if (!gp_nic_matches(p, d))
			continue;
		/* the VFs' addresses, which the domain XML names, hold (core/vfs.c) */
		if (d->sriov_numvfs == (int)p->nic.vfs) {
			if (gp_vf_check(h, d, p->nic.vfs, why, sizeof(why)))
				gp_plan_block(plan, "%s", why);
			continue;
		}
		if (d->sriov_total < 0 || d->sriov_numvfs < 0) {
			gp_plan_block(plan,
				      "%s: no SR-IOV (no sriov_totalvfs): enable it in the port's "
				      "firmware (ConnectX: mlxconfig -d %s set SRIOV_EN=1 "
				      "NUM_OF_VFS=%u) and in the BIOS, then power-cycle the host",
				      d->bdf, d->bdf, p->nic.vfs);
			continue;
		}
		if (d->sriov_numvfs > 0) {
			gp_plan_block(
				plan,
				"%s has %d virtual functions, [nic] vfs asks %u: gpuprov changes a "
				"count only from 0 (through 0 destroys the VFs and what uses "
				"them): "
				"write 0 to its sriov_numvfs yourself once nothing uses them",
				d->bdf, d->sriov_numvfs, p->nic.vfs);
			continue;
		}
		if ((int)p->nic.vfs > d->sriov_total) {
			gp_plan_block(plan,
				      "%s offers %d virtual functions (sriov_totalvfs), [nic] vfs "
				      "asks %u: lower vfs, or raise the firmware's (ConnectX: "
				      "NUM_OF_VFS) and power-cycle the host",
				      d->bdf, d->sriov_total, p->nic.vfs);
			continue;
		}
		if (gp_vf_check(h, d, p->nic.vfs, why, sizeof(why))) {
			gp_plan_block(plan, "%s", why);
			continue;
		}
		st = gp_plan_add(plan, GP_S_SRIOV_VFS, d->bdf);
		st->vf_offset = d->vf_offset;
		st->vf_stride = d->vf_stride;
		snprintf(st->current, sizeof(st->current), "sriov_numvfs %d", d->sriov_numvfs);
		snprintf(st->target, sizeof(st->target),
			 "sriov_numvfs %u (of %d), at each boot too", p->nic.vfs, d->sriov_total);
	}
}

static void vfio_steps(const struct gp_host *h, const struct gp_profile *p,
		       char *const templates[GP_PERSIST_FILES], struct gp_plan *plan)
{
	size_t i;

	if (h->vfio_ids[0])
		snprintf(plan->note, sizeof(plan->note),
			 "vfio-pci also takes every device with IDs %s at boot ('ids=' in %s); "
			 "gpuprov binds by address and leaves that setting alone",
			 h->vfio_ids, h->vfio_ids_source);
	if (!h->vfio_loaded)
		module_step(plan, "vfio-pci");
	for (i = 0; i < h->ndevs; i++)
		if (variant_passed(h, p, i) && !h->devs[i].vfio_module_loaded &&
		    !planned_module(plan, h->devs[i].vfio_module))
			module_step(plan, h->devs[i].vfio_module);
	fabric_step(h, p, plan);
	for (i = 0; i < h->ndevs; i++)
		if (gp_vm_passed(h, p, i))
			device_steps(&h->devs[i], plan);
	acs_steps(h, p, plan);
	sriov_steps(h, p, plan);
	persist_step(h, p, templates, plan);
}

static void bond_steps(const struct gp_host *h, const struct gp_profile *p, struct gp_plan *plan)
{
	int k = gp_host_iface(h, p->bond.name), i, rc;
	bool fresh = k < 0;
	struct gp_netconf nc;
	struct gp_step *st;

	if (k >= 0 && !h->ifaces[k].is_bond) {
		gp_plan_block(plan, "%s exists and is not a bond", p->bond.name);
		return;
	}
	if (fresh) {
		st = gp_plan_add(plan, GP_S_BOND_CREATE, p->bond.name);
		gp_strlcpy(st->current, "absent", sizeof(st->current));
		snprintf(st->target, sizeof(st->target), "%s, miimon %u%s%s%s%s", p->bond.mode,
			 p->bond.miimon, strcmp(p->bond.mode, "802.3ad") ? "" : ", lacp_rate ",
			 strcmp(p->bond.mode, "802.3ad") ? "" : p->bond.lacp_rate,
			 strcmp(p->bond.mode, "active-backup") ? ", " : "",
			 strcmp(p->bond.mode, "active-backup") ? p->bond.xmit_hash_policy : "");
	}
	for (i = 0; i < p->bond.nslaves; i++) {
		int f = gp_host_iface(h, p->bond.slaves[i]);

		if (f < 0 || !strcmp(h->ifaces[f].master, p->bond.name))
			continue;
		st = gp_plan_add(plan, GP_S_BOND_ENSLAVE, h->ifaces[f].name);
		snprintf(st->current, sizeof(st->current), "%s%s",
			 h->ifaces[f].master[0] ? "in " : "no master", h->ifaces[f].master);
		snprintf(st->target, sizeof(st->target), "in %s", p->bond.name);
		gp_strlcpy(st->arg, p->bond.name, sizeof(st->arg));
	}
	if (fresh || strcmp(h->ifaces[k].operstate, "up") || h->ifaces[k].mtu != (int)p->bond.mtu) {
		st = gp_plan_add(plan, GP_S_LINK_UP, p->bond.name);
		snprintf(st->current, sizeof(st->current), "%s",
			 fresh ? "absent" : h->ifaces[k].operstate);
		snprintf(st->target, sizeof(st->target), "up, mtu %u%s%s%s", p->bond.mtu,
			 p->bond.address[0] ? ", " : "", p->bond.address,
			 strcmp(p->bond.mode, "802.3ad") ? "" : ", LACP verified");
	}
	rc = gp_netconf_render(h, p, &nc);
	if (rc == -EINVAL) {
		/* a port's name from the host that no configuration file can hold */
		gp_plan_block(plan, "%s: %s", gp_step_name(GP_S_PERSIST_BOND), gp_last_error);
		gp_netconf_release(&nc);
		return;
	}
	if (rc || !nc.n) {
		if (!nc.n)
			snprintf(plan->note, sizeof(plan->note),
				 "no network configuration owner found (persist = %s): the bond "
				 "will not survive a reboot",
				 p->bond.persist);
		gp_netconf_release(&nc);
		return;
	}
	if (!h->bond_persisted || strcmp(h->bond_persisted, nc.files[0].text)) {
		st = gp_plan_add(plan, GP_S_PERSIST_BOND, p->bond.name);
		gp_strlcpy(st->current, h->bond_persisted ? "differs" : "absent",
			   sizeof(st->current));
		snprintf(st->target, sizeof(st->target), "%s: %d file%s", nc.owner, nc.n,
			 nc.n == 1 ? "" : "s");
	}
	gp_netconf_release(&nc);
}

/*
 * [nic]: a passed port that carries the host's default route or its TCP
 * connections would cut the host off when it leaves for vfio-pci.  (mode =
 * vf's ports stay with the host: only their VFs go; sriov_steps blocks
 * where their addresses do not hold.)
 */
static void nic_blocks(const struct gp_host *h, const struct gp_profile *p, struct gp_plan *plan)
{
	size_t i;

	for (i = 0; i < h->nifaces; i++) {
		const struct gp_iface *f = &h->ifaces[i];

		if (f->dev < 0 || !h->devs[f->dev].nic_passed)
			continue;
		if (p->has_bond && !strcmp(f->master, p->bond.name))
			gp_plan_block(plan,
				      "%s (%s) is a port of [bond] %s: [nic] passes it to the VM",
				      f->name, f->bdf, p->bond.name);
		if (f->default_route || f->tcp > 0)
			gp_plan_block(
				plan,
				"%s (%s) carries the host's %s: [nic] would pass it to the VM "
				"and cut the host off",
				f->name, f->bdf,
				f->default_route ? "default route" : "TCP connections");
	}
}

void gp_plan_build(const struct gp_host *h, const struct gp_profile *p, const struct gp_report *r,
		   char *const templates[GP_PERSIST_FILES], const struct gp_vm_target *vm,
		   unsigned groups, const char *accept, struct gp_plan *plan)
{
	unsigned relevant = groups & (GP_GROUP_VFIO | GP_FORCE_MGMT);

	memset(plan, 0, sizeof(*plan));
	if ((groups & GP_GROUP_BOND) && p->has_bond)
		relevant |= GP_GROUP_BOND;
	if ((groups & GP_GROUP_VM) && vm)
		relevant |= GP_GROUP_VM;
	blockers(r, relevant, accept, plan);
	if (groups & GP_GROUP_VFIO)
		nic_blocks(h, p, plan);
	if (groups & GP_GROUP_VFIO)
		vfio_steps(h, p, templates, plan);
	if (relevant & GP_GROUP_BOND)
		bond_steps(h, p, plan);
	if (relevant & GP_GROUP_VM)
		vm_steps(h, p, vm, plan);
}

/* A step as the plan and the journal write it (journal.c reads it back). */
json_object *gp_step_json(const struct gp_step *st)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(gp_step_name(st->kind)));
	json_object_object_add(o, "subject", json_object_new_string(st->subject));
	json_object_object_add(o, "current", json_object_new_string(st->current));
	json_object_object_add(o, "target", json_object_new_string(st->target));
	json_object_object_add(o, "reversible",
			       json_object_new_boolean(gp_step_kinds[st->kind].reversible));
	if (st->kind == GP_S_SRIOV_VFS) {
		json_object_object_add(o, "vf_offset", json_object_new_int((int)st->vf_offset));
		json_object_object_add(o, "vf_stride", json_object_new_int((int)st->vf_stride));
	}
	return o;
}

static void get_str(json_object *o, const char *key, char *out, size_t len)
{
	json_object *v = json_object_object_get(o, key);

	gp_strlcpy(out, json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "",
		   len);
}

/* The step back from the journal (its document is checked before this). */
int gp_step_from_json(json_object *o, struct gp_step *st)
{
	json_object *kind = json_object_object_get(o, "kind");

	memset(st, 0, sizeof(*st));
	get_str(o, "subject", st->subject, sizeof(st->subject));
	get_str(o, "current", st->current, sizeof(st->current));
	get_str(o, "target", st->target, sizeof(st->target));
	get_str(o, "arg", st->arg, sizeof(st->arg));
	st->vf_offset = (unsigned)json_object_get_int(json_object_object_get(o, "vf_offset"));
	st->vf_stride = (unsigned)json_object_get_int(json_object_object_get(o, "vf_stride"));
	return gp_step_kind_find(
		json_object_is_type(kind, json_type_string) ? json_object_get_string(kind) : NULL,
		&st->kind);
}
