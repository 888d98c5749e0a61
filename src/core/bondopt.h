/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bondopt.c: the bond options' names, indexed by the kernel's values
 * (IFLA_BOND_MODE, _XMIT_HASH_POLICY, _AD_SELECT, _AD_LACP_RATE): the one
 * vocabulary of the profile's validator, the netlink adapter and `bond`.
 */
#ifndef GP_BONDOPT_H
#define GP_BONDOPT_H

#include <stddef.h>

#define GP_BOND_MODE_XOR    2 /* balance-xor */
#define GP_BOND_MODE_8023AD 4 /* 802.3ad, LACP */

extern const char *const gp_bond_modes[7];
extern const char *const gp_bond_hashes[6];
extern const char *const gp_bond_selects[3];
extern const char *const gp_bond_rates[2];

/* the value of name in names (n of them), -1 when it is none of them */
int gp_bond_value(const char *const *names, size_t n, const char *name);
/* the name of value v, "unknown" out of range */
const char *gp_bond_name(const char *const *names, size_t n, unsigned v);

#define GP_BOND_VALUE(names, name) gp_bond_value(names, ARRAY_SIZE(names), name)
#define GP_BOND_NAME(names, v)	   gp_bond_name(names, ARRAY_SIZE(names), v)

#endif
