// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Preflight checks: pure functions of (host, profile) that append findings.
 * Each check reports "ok" too, so a report shows what was looked at, and each
 * finding carries a hint an operator can act on.
 *
 * Each family of findings is a file of its own (check_*.c); this table runs
 * them.  A new family: its file and one line here.
 */
#include <stdlib.h>

#include "core/check_bond.h"
#include "core/check_fabric.h"
#include "core/check_boot.h"
#include "core/check_gpu.h"
#include "core/check_health.h"
#include "core/check_host.h"
#include "core/check_nic.h"
#include "core/check_p2p.h"
#include "core/check_persist.h"
#include "core/check_server.h"
#include "core/check_vm.h"
#include "core/checks.h"
#include "core/hostq.h"
#include "shared/util.h"

/*
 * A line runs the whole host (run), or one GPU (each): consecutive each lines
 * run GPU by GPU, all of them for the first GPU, then for the next.  The
 * order of the lines is the order of the findings (outputs are compared byte
 * for byte), so a family may have several.
 */
static const struct gp_check_family {
	const char *name;
	void (*run)(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r);
	void (*each)(const struct gp_host *h, const struct gp_profile *p, int g,
		     struct gp_report *r);
} families[] = {
	{ "server", gp_check_server, NULL }, /* first: another server's profile explains the rest */
	{ "host", gp_check_iommu, NULL },
	{ "gpu", gp_check_gpu_host, NULL },
	{ "host", NULL, gp_check_iommu_group },
	{ "gpu", NULL, gp_check_gpu },
	{ "health", NULL, gp_check_health },
	{ "p2p", gp_check_p2p, NULL },
	{ "fabric", gp_check_fabric, NULL }, /* the board's switches, after the GPUs' pairs */
	{ "gpu", gp_check_companions, NULL },
	{ "host", gp_check_vfio, NULL },
	{ "boot", gp_check_boot, NULL }, /* after vfio.*: the module and its ids= */
	{ "vm", gp_check_vm, NULL },
	{ "bond", gp_check_bond, NULL },
	{ "nic", gp_check_nic, NULL },
	{ "persist", gp_check_persist, NULL }, /* where apply writes: after what it writes */
};

void gp_checks_run(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	int n, *gpus = gp_gpus(h, &n), g;
	size_t i, j, end;

	for (i = 0; i < ARRAY_SIZE(families); i = end) {
		end = i + 1;
		if (families[i].run) {
			families[i].run(h, p, r);
			continue;
		}
		while (end < ARRAY_SIZE(families) && !families[end].run)
			end++;
		for (g = 0; g < n; g++)
			for (j = i; j < end; j++)
				families[j].each(h, p, gpus[g], r);
	}
	free(gpus);
}
