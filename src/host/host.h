/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.c: the machine as the reader finds it under root; what gpuprov wrote: owned.h. */
#ifndef GP_HOST_H
#define GP_HOST_H

#include "core/model.h"

int gp_host_load(const char *root, const struct gp_profile *p, struct gp_host *host);
void gp_host_release(struct gp_host *host);
/* Whether each file the VM's XML names exists under the host's root (n <= GP_VM_FILES). */
void gp_host_vm_files(struct gp_host *h, const struct gp_vm_file *files, int n);

#endif
