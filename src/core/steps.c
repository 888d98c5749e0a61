// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every step kind: its string, its group, what its subject is, whether it
 * can be undone.  The binding of the GPUs (module.*, device.*, persist.vfio)
 * the switch ports' ACS on a passed NIC's path (acs.set) and the ports'
 * virtual functions (sriov.vfs) are the vfio group, which a plain apply always includes; the bond's steps
 * the bond group; the VM's files and definition the vm group.  Each has an
 * actuator (act/actuator.c), and each actuator an undo: all are reversible.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/steps.h"
#include "shared/util.h"

#define S(e, k, g, t) [e] = { .kind = k, .group = g, .subject = t, .reversible = true }

const struct gp_step_info gp_step_kinds[GP_S_COUNT] = {
	S(GP_S_MODULE_LOAD, "module.load", GP_GROUP_VFIO, GP_SUBJ_MODULE),
	S(GP_S_DEVICE_OVERRIDE, "device.override", GP_GROUP_VFIO, GP_SUBJ_PCI),
	S(GP_S_DEVICE_UNBIND, "device.unbind", GP_GROUP_VFIO, GP_SUBJ_PCI),
	S(GP_S_DEVICE_BIND, "device.bind", GP_GROUP_VFIO, GP_SUBJ_PCI),
	S(GP_S_PERSIST_VFIO, "persist.vfio", GP_GROUP_VFIO, GP_SUBJ_HOST),
	S(GP_S_BOND_CREATE, "bond.create", GP_GROUP_BOND, GP_SUBJ_IFACE),
	S(GP_S_BOND_ENSLAVE, "bond.enslave", GP_GROUP_BOND, GP_SUBJ_IFACE),
	S(GP_S_LINK_UP, "link.up", GP_GROUP_BOND, GP_SUBJ_IFACE),
	S(GP_S_PERSIST_BOND, "persist.bond", GP_GROUP_BOND, GP_SUBJ_IFACE),
	S(GP_S_DOMAIN_WRITE, "domain.write", GP_GROUP_VM, GP_SUBJ_PATH),
	S(GP_S_NCCL_WRITE, "nccl.write", GP_GROUP_VM, GP_SUBJ_PATH),
	S(GP_S_GUEST_WRITE, "guest.write", GP_GROUP_VM, GP_SUBJ_PATH),
	S(GP_S_DOMAIN_DEFINE, "domain.define", GP_GROUP_VM, GP_SUBJ_DOMAIN),
	S(GP_S_FABRIC_MASK, "fabric.mask", GP_GROUP_VFIO, GP_SUBJ_HOST),
	S(GP_S_HUGEPAGES_RESERVE, "hugepages.reserve", GP_GROUP_VM, GP_SUBJ_NODE),
	S(GP_S_ACS_SET, "acs.set", GP_GROUP_VFIO, GP_SUBJ_PCI),
	S(GP_S_SRIOV_VFS, "sriov.vfs", GP_GROUP_VFIO, GP_SUBJ_PCI),
};

int gp_step_kind_find(const char *name, enum gp_step_kind *kind)
{
	int i;

	for (i = 0; name && i < GP_S_COUNT; i++)
		if (!strcmp(gp_step_kinds[i].kind, name)) {
			*kind = (enum gp_step_kind)i;
			return 0;
		}
	return -EINVAL;
}

const char *gp_step_name(enum gp_step_kind kind)
{
	return (unsigned)kind < GP_S_COUNT ? gp_step_kinds[kind].kind : "?";
}

int gp_step_name_width(void)
{
	size_t w = 0;
	int i;

	for (i = 0; i < GP_S_COUNT; i++)
		if (strlen(gp_step_kinds[i].kind) > w)
			w = strlen(gp_step_kinds[i].kind);
	return (int)w;
}

/* 1 to max characters, each a letter, a digit or one of extra. */
static bool word(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
			return false;
	return n && n <= max;
}

/* node0 .. node4095, without a leading zero: the name the kernel gives it */
static bool node_name(const char *s)
{
	size_t n = strlen(s);

	return !strncmp(s, "node", 4) && n > 4 && n <= 8 && strspn(s + 4, "0123456789") == n - 4 &&
	       (s[4] != '0' || n == 5) && atoi(s + 4) <= 4095;
}

bool gp_subject_ok(enum gp_subject_type type, const char *s)
{
	char bdf[GP_BDF_LEN];

	switch (type) {
	case GP_SUBJ_PCI:
		return !gp_parse_bdf(s, bdf);
	case GP_SUBJ_MODULE:
		return word(s, 63, "_-");
	case GP_SUBJ_IFACE:
		return word(s, 15, "_.-");
	case GP_SUBJ_NODE:
		return node_name(s);
	default:
		return true;
	}
}

const char *gp_subject_what(enum gp_subject_type type)
{
	static const char *const what[GP_SUBJ_COUNT] = {
		[GP_SUBJ_PCI] = "a PCI address",       [GP_SUBJ_MODULE] = "a module name",
		[GP_SUBJ_IFACE] = "an interface name", [GP_SUBJ_PATH] = "a path",
		[GP_SUBJ_DOMAIN] = "a domain name",    [GP_SUBJ_HOST] = "the host",
		[GP_SUBJ_NODE] = "a NUMA node",
	};

	return (unsigned)type < GP_SUBJ_COUNT ? what[type] : "a subject";
}
