// SPDX-License-Identifier: GPL-2.0-or-later
/* The bond options' names, at the index of the kernel's value for each. */
#include <string.h>

#include "core/bondopt.h"

const char *const gp_bond_modes[7] = { "balance-rr", "active-backup", "balance-xor", "broadcast",
				       "802.3ad",    "balance-tlb",   "balance-alb" };
const char *const gp_bond_hashes[6] = { "layer2",   "layer3+4", "layer2+3",
					"encap2+3", "encap3+4", "vlan+srcmac" };
const char *const gp_bond_selects[3] = { "stable", "bandwidth", "count" };
const char *const gp_bond_rates[2] = { "slow", "fast" };

int gp_bond_value(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

const char *gp_bond_name(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : "unknown";
}
