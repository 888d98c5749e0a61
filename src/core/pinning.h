/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pinning.c: which host CPU each vCPU runs on, and where the emulator's
 * threads go: one to one on the GPUs' nodes, SMT siblings together, a
 * housekeeping core per node kept from the vCPUs.
 */
#ifndef GP_PINNING_H
#define GP_PINNING_H

#include <stdbool.h>

#include "core/model.h"
#include "core/vm.h"

#define GP_PIN_SET_LEN 256
/* the most CPUs a node's list may name: a longer one (a hostile -r tree) is not pinned to */
#define GP_PIN_MAX_CPUS 65536

struct gp_vm_pins {
	int *cpu; /* per vCPU: its host CPU; -1: it floats over its cell's floats set */
	unsigned nvcpus;
	char floats[GP_VM_MAX_CELLS][GP_PIN_SET_LEN]; /* a short cell's set; "" pinned */
	char housekeeping[GP_PIN_SET_LEN]; /* each node's first core: emulator, I/O threads */
	unsigned threads; /* the guest's threads per core: 2 when vCPU pairs are sibling pairs */
	bool smt_known;	  /* the host said its CPUs' siblings */
	int short_cell;	  /* the first cell whose node lacks CPUs beside housekeeping, -1 */
	int short_have;	  /* the CPUs that node has for vCPUs */
};

/* Fills pins for l (no pinning: nvcpus 0, when the nodes are unknown); 0 or -errno. */
int gp_vm_pins(const struct gp_host *h, const struct gp_vm_layout *l, struct gp_vm_pins *pins);
void gp_vm_pins_release(struct gp_vm_pins *pins);
/* The CPUs of l's cells that gp_vm_pins makes room for: each list of at most GP_PIN_MAX_CPUS. */
size_t gp_vm_pins_room(const struct gp_vm_layout *l);

#endif
