/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NCCL's topology file (NCCL_TOPO_FILE) for the profile's VM, or for this
 * machine as it is: a pure function of host and profile (nccl.c).
 */
#ifndef GP_NCCL_TOPO_H
#define GP_NCCL_TOPO_H

#include <stddef.h>

#include "core/model.h"

/*
 * The file for the VM the profile describes, at the guest addresses
 * gp_vm_layout gives (p needs a [vm]); with p NULL or this_host, for the
 * machine itself at its own addresses.  *out is malloc'ed text.
 */
int gp_nccl_topo_build(const struct gp_host *h, const struct gp_profile *p, bool this_host,
		       char **out);

/*
 * The GPUs a topology file names (its <pci> elements of class 0x03...), as
 * "0000:f1:00.0" in ids; the count, or -EINVAL when it is no XML with a
 * <system>.  What `verify` compares with the GPUs it sees.
 */
int gp_nccl_topo_gpus(const char *xml, size_t len, char (*ids)[GP_BDF_LEN], int max);

/*
 * A topology file against the GPUs a machine has (seen, "0000:41:00.0"):
 * which of them it lacks and which of its GPUs the machine does not have.
 * NCCL then ignores the file for a GPU it lacks, and puts one it names that
 * is not there nowhere.  0, or -EINVAL when the file is no topology.
 */
#define GP_NCCL_MATCH_MAX 64
struct gp_nccl_match {
	int nfile; /* GPUs the file names */
	char missing[GP_NCCL_MATCH_MAX][GP_BDF_LEN];
	int nmissing;
	char unknown[GP_NCCL_MATCH_MAX][GP_BDF_LEN];
	int nunknown;
};
int gp_nccl_topo_match(const char *xml, size_t len, const char (*seen)[GP_BDF_LEN], int nseen,
		       struct gp_nccl_match *m);

/* Where apply writes it: beside [vm] output, "X.xml" -> "X.nccl-topo.xml". */
void gp_nccl_topo_path(const char *vm_output, char *out, size_t len);

#endif
