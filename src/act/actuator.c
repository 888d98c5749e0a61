// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The actuators, by step kind.  The engine (apply.c) runs a step through its
 * kind's; the journal (journal.c) asks it which paths an undo record may
 * name.  A new kind: its actuator in the file of its concern, a line here.
 */
#include "act/actuator.h"
#include "shared/util.h"

static const struct gp_actuator *const actuators[GP_S_COUNT] = {
	[GP_S_MODULE_LOAD] = &gp_act_module_load,
	[GP_S_DEVICE_OVERRIDE] = &gp_act_override,
	[GP_S_DEVICE_UNBIND] = &gp_act_unbind,
	[GP_S_DEVICE_BIND] = &gp_act_bind,
	[GP_S_PERSIST_VFIO] = &gp_act_persist_vfio,
	[GP_S_BOND_CREATE] = &gp_act_bond_create,
	[GP_S_BOND_ENSLAVE] = &gp_act_bond_enslave,
	[GP_S_LINK_UP] = &gp_act_link_up,
	[GP_S_PERSIST_BOND] = &gp_act_persist_bond,
	[GP_S_DOMAIN_WRITE] = &gp_act_domain_write,
	[GP_S_NCCL_WRITE] = &gp_act_nccl_write,
	[GP_S_GUEST_WRITE] = &gp_act_guest_write,
	[GP_S_DOMAIN_DEFINE] = &gp_act_domain_define,
	[GP_S_FABRIC_MASK] = &gp_act_fabric_mask,
	[GP_S_HUGEPAGES_RESERVE] = &gp_act_hugepages_reserve,
	[GP_S_ACS_SET] = &gp_act_acs_set,
	[GP_S_SRIOV_VFS] = &gp_act_sriov_vfs,
};

const struct gp_actuator *gp_actuator_find(enum gp_step_kind kind)
{
	return (unsigned)kind < GP_S_COUNT ? actuators[kind] : NULL;
}

bool gp_path_owned(enum gp_step_kind kind, const char *path)
{
	const struct gp_actuator *a = gp_actuator_find(kind);

	return a && a->owns && gp_path_clean(path) && a->owns(path);
}
