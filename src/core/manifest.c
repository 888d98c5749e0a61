// SPDX-License-Identifier: GPL-2.0-or-later
/* What gpuprov reads of a host: the lists core/manifest.h declares. */
#include <stddef.h>

#include "core/manifest.h"

/*
 * libkmod's own default (libkmod.c, default_config_paths): passing fewer
 * under --root made it miss an alias the reader had seen.
 */
const char *const gp_modprobe_dirs[GP_MODPROBE_DIRS] = {
	"/etc/modprobe.d",
	"/run/modprobe.d",
	"/usr/local/lib/modprobe.d",
	"/lib/modprobe.d",
};

const char *const gp_host_files[] = {
	GP_PROC_CMDLINE,    GP_PROC_CPUINFO,  GP_PROC_RELEASE, GP_PROC_HOSTNAME,
	GP_PROC_MOUNTINFO,  GP_PROC_SWAPS,    GP_PROC_IOMEM,   GP_PROC_ROUTE,
	GP_PROC_ROUTE6,	    GP_PROC_FIB_TRIE, GP_PROC_INET6,   GP_DMI_BIOS,
	GP_DMI_BIOS_VENDOR, GP_DMI_PRODUCT,   GP_DMI_VENDOR,   NULL,
};
