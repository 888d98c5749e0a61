// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What each persist step would write, beside what is on the host now: the
 * same rendering the actuators write (gp_persist_files, gp_netconf_render,
 * the VM's XML), and the current content as the host read it (h->owned), so
 * that a snapshot shows what the live host would.  Pure: nothing is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/domxml.h"
#include "core/hostq.h"
#include "core/hugepages.h"
#include "core/netconf.h"
#include "core/pfiles.h"
#include "core/udiff.h"
#include "core/redact.h"

static bool planned(const struct gp_plan *plan, enum gp_step_kind kind)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		if (plan->steps[i].kind == kind)
			return true;
	return false;
}

/* A secret the redactor would take out of a snapshot is no more shown here. */
static bool has_secret(const char *path, const char *text)
{
	char *r;
	bool secret;

	if (!text)
		return false;
	r = gp_net_redact(path, text);
	secret = strcmp(r, text) != 0;
	free(r);
	return secret;
}

static void add(const struct gp_host *h, struct gp_pfiles *pf, enum gp_step_kind step,
		const char *path, const char *text, unsigned mode, bool net)
{
	const struct gp_owned *o = gp_host_owned(h, path);
	struct gp_pfile *f;

	pf->f = gp_xrealloc(pf->f, pf->n + 1, sizeof(*pf->f));
	f = &pf->f[pf->n++];
	memset(f, 0, sizeof(*f));
	gp_strlcpy(f->path, path, sizeof(f->path));
	f->step = gp_step_name(step);
	f->text = gp_xstrdup(text);
	f->mode = mode;
	/* not among what the host read: an override file that is not there */
	f->now = o && o->text ? gp_xstrdup(o->text) : NULL;
	f->now_err = o ? o->err : 0;
	f->secret = !(mode & 0077) || (o && o->private) ||
		    (net && (has_secret(path, f->text) || has_secret(path, f->now)));
}

static void vfio_files(const struct gp_host *h, const struct gp_profile *p,
		       char *const templates[GP_PERSIST_FILES], struct gp_pfiles *pf)
{
	struct gp_persist_file *t = gp_xcalloc(GP_PERSIST_MAX, sizeof(*t));
	struct gp_persist ps;
	int i, n;

	gp_persist_render(h, p, templates, &ps);
	n = gp_persist_files(&ps, t, GP_PERSIST_MAX);
	for (i = 0; i < n; i++)
		add(h, pf, GP_S_PERSIST_VFIO, t[i].path, t[i].text, t[i].mode, false);
	gp_persist_release(&ps);
	free(t);
}

static void bond_files(const struct gp_host *h, const struct gp_profile *p, struct gp_pfiles *pf)
{
	struct gp_netconf nc;
	int i;

	if (!gp_netconf_render(h, p, &nc))
		for (i = 0; i < nc.n; i++)
			add(h, pf, GP_S_PERSIST_BOND, nc.files[i].path, nc.files[i].text,
			    (unsigned)nc.files[i].mode, true);
	gp_netconf_release(&nc);
}

static void guest_files(const struct gp_host *h, const struct gp_vm_target *vm,
			struct gp_pfiles *pf)
{
	char path[GP_OUTPUT_LEN];
	int i;

	for (i = 0; i < GP_GUEST_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", vm->guest_dir, gp_guest_file_names[i]);
		add(h, pf, GP_S_GUEST_WRITE, path, vm->guest[i], 0644, false);
	}
}

/*
 * hugepages.reserve's: each planned node's count (what the actuator writes:
 * the pool now and the pages the cell lacks), then the boot unit's script,
 * unit and wants link, once, as the steps write them.
 */
static void huge_files(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_plan *plan, struct gp_pfiles *pf)
{
	struct gp_hugepages *hp = gp_xcalloc(1, sizeof(*hp));
	char path[128], text[32];
	size_t i;

	gp_hugepages_plan(h, p, hp);
	for (i = 0; i < plan->n; i++) {
		const struct gp_huge_node *n;
		int node;

		if (plan->steps[i].kind != GP_S_HUGEPAGES_RESERVE ||
		    sscanf(plan->steps[i].subject, "node%d", &node) != 1 ||
		    !(n = gp_hugepages_node(hp, node)))
			continue;
		gp_hugepages_file(node, n->size_kb, path, sizeof(path));
		snprintf(text, sizeof(text), "%ld\n", n->nr + n->add);
		add(h, pf, GP_S_HUGEPAGES_RESERVE, path, text, 0644, false);
	}
	free(hp);
	add(h, pf, GP_S_HUGEPAGES_RESERVE, GP_HUGE_SCRIPT, gp_hugepages_script, 0755, false);
	add(h, pf, GP_S_HUGEPAGES_RESERVE, GP_HUGE_UNIT, gp_hugepages_unit, 0644, false);
	add(h, pf, GP_S_HUGEPAGES_RESERVE, GP_HUGE_WANTS, GP_HUGE_WANTS_TO, 0777, false);
	pf->f[pf->n - 1].link = true;
}

void gp_pfiles_build(const struct gp_host *h, const struct gp_profile *p,
		     char *const templates[GP_PERSIST_FILES], const struct gp_vm_target *vm,
		     const struct gp_plan *plan, struct gp_pfiles *out)
{
	memset(out, 0, sizeof(*out));
	if (planned(plan, GP_S_PERSIST_VFIO))
		vfio_files(h, p, templates, out);
	if (planned(plan, GP_S_PERSIST_BOND) && p->has_bond)
		bond_files(h, p, out);
	if (planned(plan, GP_S_DOMAIN_WRITE) && vm && vm->xml)
		add(h, out, GP_S_DOMAIN_WRITE, vm->output, vm->xml, gp_domxml_mode(vm->secret),
		    false);
	if (planned(plan, GP_S_NCCL_WRITE) && vm && vm->nccl)
		add(h, out, GP_S_NCCL_WRITE, vm->nccl_path, vm->nccl, 0644, false);
	if (planned(plan, GP_S_GUEST_WRITE) && vm && vm->guest[0])
		guest_files(h, vm, out);
	if (planned(plan, GP_S_HUGEPAGES_RESERVE))
		huge_files(h, p, plan, out);
}

void gp_pfiles_release(struct gp_pfiles *pf)
{
	size_t i;

	for (i = 0; i < pf->n; i++) {
		free(pf->f[i].text);
		free(pf->f[i].now);
	}
	free(pf->f);
	memset(pf, 0, sizeof(*pf));
}

char *gp_pfile_diff(const struct gp_pfile *f)
{
	char a[GP_OUTPUT_LEN + 1], b[GP_OUTPUT_LEN + 1];

	if (f->link)
		return NULL; /* its target says it whole */
	snprintf(a, sizeof(a), "a%s", f->path);
	snprintf(b, sizeof(b), "b%s", f->path);
	return gp_udiff(f->now, f->text, a, b);
}
