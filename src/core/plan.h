/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steps: what apply will do, as data.  plan.c builds them (a pure function of
 * host, profile, findings and templates), apply.c runs them through the
 * actuator of their kind, journal.c keeps them on disk.
 */
#ifndef GP_PLAN_H
#define GP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "core/findings.h"
#include "core/guestcfg.h"
#include "core/model.h"
#include "core/steps.h"

struct gp_report;
#define GP_FORCE_MGMT 0x100 /* with the groups: --force-mgmt */

/* Its group, its subject's type and whether it is reversible: gp_step_kinds[kind]. */
struct gp_step {
	enum gp_step_kind kind;
	char subject[GP_OUTPUT_LEN]; /* a PCI address, a module, "host", a path */
	char current[128];
	char target[128];
	char arg[64]; /* the driver or module the step deals in */
	/* sriov.vfs: the SR-IOV capability's First VF Offset and VF Stride the
	 * plan placed the VFs by; apply reads the VFs back against them */
	unsigned vf_offset, vf_stride;
};

struct gp_plan {
	struct gp_step *steps;
	size_t n, cap;
	char **blockers; /* why apply refuses: grows with gp_plan_block() */
	int nblockers;
	char acceptable[256]; /* the blocking finding ids, for the refusal's --accept */
	char **accepted;      /* failed findings --accept (or --force-mgmt) let through */
	int naccepted;
	char note[400]; /* what the operator should know, not a step */
};

/* The text persist.vfio writes, from templates/ (NULL where not used). */
struct gp_persist {
	char *files[GP_PERSIST_FILES];
	bool driverctl; /* overrides go to /etc/driverctl.d instead */
	struct gp_override overrides[GP_MAX_OVERRIDES];
	int noverrides;
};

/* What domain.write and domain.define put in place. */
struct gp_vm_target {
	const char *xml;
	bool secret; /* made from a template not everyone may read: shown by digest only */
	char digest[24];
	const char *output;
	const char *uri;
	const char *name;
	const char *nccl;	       /* NCCL's topology file for the VM (nccl.write) */
	char nccl_path[GP_OUTPUT_LEN]; /* beside output: gp_nccl_topo_path() */
	/*
	 * [nic] mode = passthrough: guest-config's files (guest.write), in
	 * guest_dir beside output; NULL, and guest_why, where they cannot be
	 * made (the ports' MACs are gone once vfio-pci holds them)
	 */
	const char *guest[GP_GUEST_FILES];
	char guest_dir[GP_OUTPUT_LEN];
	char guest_why[256];
};

void gp_plan_build(const struct gp_host *h, const struct gp_profile *p, const struct gp_report *r,
		   char *const templates[GP_PERSIST_FILES], const struct gp_vm_target *vm,
		   unsigned groups, const char *accept, struct gp_plan *plan);
void gp_plan_release(struct gp_plan *plan);
struct gp_step *gp_plan_add(struct gp_plan *plan, enum gp_step_kind kind, const char *subject);
void gp_plan_block(struct gp_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gp_persist_render(const struct gp_host *h, const struct gp_profile *p,
		       char *const templates[GP_PERSIST_FILES], struct gp_persist *out);
void gp_persist_release(struct gp_persist *ps);

/* Every file persist.vfio writes (path, content, mode), in writing order. */
struct gp_persist_file {
	char path[256];
	const char *text; /* points into the gp_persist */
	unsigned mode;
};
#define GP_PERSIST_MAX (GP_PERSIST_FILES + GP_MAX_OVERRIDES)
int gp_persist_files(const struct gp_persist *ps, struct gp_persist_file *t, int max);
int gp_parse_groups(const char *list, unsigned *groups);
/* a step to and from JSON, as plan --json and the journal hold it */
json_object *gp_step_json(const struct gp_step *st);
/* -EINVAL when its kind is none of gp_step_kinds (gp_journal_check refuses it) */
int gp_step_from_json(json_object *o, struct gp_step *st);

#endif
