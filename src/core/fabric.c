// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An HGX baseboard from the PCI tree.  Its NVSwitches are NVIDIA functions
 * of class 0x0680 (H100/H200: 10de:22a3, four in one IOMMU group behind the
 * board's PCIe switch, on nvidia-nvswitch); its GPUs are the host's NVIDIA
 * GPUs: NVLink, not PCIe, ties them to the switches, and a host carries one
 * baseboard (an HGX-2's pair of boards aside), so the tree's ancestry groups
 * the switches and the IDs say which board they make.
 */
#include <errno.h>
#include <string.h>

#include "core/fabric.h"
#include "core/hostq.h"
#include "shared/util.h"

#define NVIDIA 0x10de

/* The boards NVIDIA's Fabric Manager guide describes, by their switch's ID. */
static const struct board_kind {
	uint16_t device;
	const char *name;
	int gpus, switches;
} kinds[] = {
	{ 0x22a3, "HGX H100/H200 8-GPU", 8, 4 },
	{ 0x1af1, "HGX A100 8-GPU", 8, 6 },
};

bool gp_dev_is_nvswitch(const struct gp_dev *d)
{
	return d->vendor == NVIDIA && d->class == 0x0680;
}

static void board_kind(const struct gp_dev *sw, struct gp_board *b)
{
	size_t i;

	b->name = "NVSwitch baseboard";
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].device == sw->device) {
			b->name = kinds[i].name;
			b->want_gpus = kinds[i].gpus;
			b->want_switches = kinds[i].switches;
		}
}

static void add_switch(struct gp_board *b, const struct gp_dev *d, int i)
{
	if (b->nswitches == GP_BOARD_MAX)
		return;
	if (!b->nswitches)
		b->switch_group = d->iommu_group;
	else if (d->iommu_group != b->switch_group)
		b->groups_split = true;
	b->switches[b->nswitches++] = i;
}

int gp_fabric_board(const struct gp_host *h, struct gp_board *b)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->switch_group = -1;
	for (i = 0; i < h->ndevs; i++) {
		const struct gp_dev *d = &h->devs[i];

		if (gp_dev_is_nvswitch(d))
			add_switch(b, d, (int)i);
		else if (d->vendor == NVIDIA && gp_dev_is_gpu(d) && b->ngpus < GP_BOARD_MAX) {
			b->gpus[b->ngpus++] = (int)i;
			b->selected += d->role == GP_ROLE_GPU;
		}
	}
	if (!b->nswitches)
		return -ENOENT;
	if (b->groups_split)
		b->switch_group = -1;
	board_kind(&h->devs[b->switches[0]], b);
	return 0;
}

static bool name_is(const char *name, const char *base)
{
	size_t n = strlen(base);

	return !strncmp(name, base, n) && (!name[n] || name[n] == '-');
}

int gp_fabric_package(const char *name)
{
	if (name_is(name, "nvidia-fabricmanager"))
		return !strstr(name, "-dev") ? 1 : 0;
	if (name_is(name, "libnvidia-nscq"))
		return !strstr(name + 14, "-dev") ? 2 : 0;
	return 0;
}

static size_t upstream_len(const char *v)
{
	const char *colon = strchr(v, ':');
	size_t skip = colon ? (size_t)(colon - v) + 1 : 0;

	return skip + strcspn(v + skip, "-~+");
}

/*
 * Any user may name a process nv-fabricmanager (prctl PR_SET_NAME): only
 * root's count, or a user could make verify fail, undo start the service and
 * check report it running.  Whose it is: the real uid of status's
 * "Uid:\tREAL\tEFFECTIVE..." line, not the owner of /proc/PID, which is root
 * for any process that made itself undumpable.
 */
bool gp_fm_process(const char *comm, const char *status)
{
	size_t n = strcspn(comm, "\n");
	const char *uid;

	if (n != strlen(GP_FM_PROCESS) || strncmp(comm, GP_FM_PROCESS, n))
		return false;
	uid = !strncmp(status, "Uid:", 4) ? status : strstr(status, "\nUid:");
	if (!uid)
		return false;
	uid += uid[0] == '\n' ? 5 : 4;
	return !strncmp(uid + strspn(uid, " \t"), "0\t", 2);
}

bool gp_fabric_versions_match(const char *a, const char *b)
{
	const char *ca = strchr(a, ':'), *cb = strchr(b, ':');
	size_t la, lb;

	a = ca ? ca + 1 : a;
	b = cb ? cb + 1 : b;
	la = upstream_len(a);
	lb = upstream_len(b);
	return la == lb && !strncmp(a, b, la);
}

bool gp_fabric_passed(const struct gp_profile *p, const struct gp_dev *d)
{
	return p->fabric == GP_FABRIC_FULL && gp_dev_is_nvswitch(d);
}

const char *gp_fabric_mode_name(enum gp_fabric_mode m)
{
	return m == GP_FABRIC_FULL ? "full" : m == GP_FABRIC_SHARED ? "shared" : "none";
}
