/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest.c: what gpuprov reads of a host, named once for the reader
 * (host/), libkmod under --root (sys/kmod.c) and the snapshot, which copies
 * exactly these: a path the reader reads and the snapshot does not copy
 * makes `-r SNAPSHOT` see another host.
 */
#ifndef GP_MANIFEST_H
#define GP_MANIFEST_H

/* modprobe.d, in libkmod's order (its default list) */
#define GP_MODPROBE_DIRS 4
extern const char *const gp_modprobe_dirs[GP_MODPROBE_DIRS];

/* single files, read whole */
#define GP_PROC_CMDLINE	   "/proc/cmdline"
#define GP_PROC_CPUINFO	   "/proc/cpuinfo"
#define GP_PROC_HOSTNAME   "/proc/sys/kernel/hostname"
#define GP_PROC_RELEASE	   "/proc/sys/kernel/osrelease"
#define GP_PROC_MOUNTINFO  "/proc/self/mountinfo"
#define GP_PROC_SWAPS	   "/proc/swaps"
#define GP_PROC_IOMEM	   "/proc/iomem"
#define GP_PROC_ROUTE	   "/proc/net/route"
#define GP_PROC_ROUTE6	   "/proc/net/ipv6_route"
#define GP_PROC_FIB_TRIE   "/proc/net/fib_trie"
#define GP_PROC_INET6	   "/proc/net/if_inet6"
#define GP_DMI_BIOS	   "/sys/class/dmi/id/bios_version"
#define GP_DMI_BIOS_VENDOR "/sys/class/dmi/id/bios_vendor"
#define GP_DMI_PRODUCT	   "/sys/class/dmi/id/product_name"
#define GP_DMI_VENDOR	   "/sys/class/dmi/id/sys_vendor" /* the snapshot's, for the record */

/* each of the single files above, NULL-terminated */
extern const char *const gp_host_files[];

#endif
