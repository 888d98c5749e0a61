// SPDX-License-Identifier: GPL-2.0-or-later
/* What gpuprov reads of a host: the lists core/manifest.h declares. */
#include <stddef.h>

#include "core/manifest.h"
#include "core/model.h"

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

const char *const gp_networkd_dirs[GP_NETWORKD_DIRS] = {
	"/etc/systemd/network",	    "/run/systemd/network", "/usr/local/lib/systemd/network",
	"/usr/lib/systemd/network", "/lib/systemd/network",
};

const char *const gp_qemu_firmware_dirs[GP_QEMU_FIRMWARE_DIRS] = {
	GP_QEMU_FIRMWARE_ETC,
	GP_QEMU_FIRMWARE_USR,
};

const char *const gp_vm_dirs[] = {
	GP_SYS_MISC,	   GP_QEMU_FIRMWARE_ETC, GP_QEMU_FIRMWARE_USR,
	GP_LIBVIRT_IMAGES, GP_LIBVIRT_QEMU_RUN,	 NULL,
};

const char *const gp_pci_dev_files[] = {
	"vendor",
	"device",
	"class",
	"subsystem_vendor",
	"subsystem_device",
	"revision",
	"irq",
	"resource",
	"config",
	"numa_node",
	"local_cpulist",
	"current_link_speed",
	"current_link_width",
	"max_link_speed",
	"max_link_width",
	"reset_method",
	"modalias",
	"enable",
	"driver_override",
	"sriov_numvfs",
	"sriov_totalvfs",
	"boot_vga",
	"aer_dev_fatal",
	"aer_dev_nonfatal",
	"aer_dev_correctable",
	NULL,
};

const char *const gp_ib_dev_files[] = { "fw_ver", NULL };

const char *const gp_net_files[] = {
	"address", "operstate", "mtu", "speed", "duplex", "type", "ifindex", NULL,
};

const char *const gp_proc_files[] = { GP_PROC_PID_COMM, GP_PROC_PID_STATUS, NULL };

const char *const gp_bond_files[] = {
	"mode",	     "slaves",	  "miimon",	   "lacp_rate",	     "xmit_hash_policy",
	"ad_select", "min_links", "ad_aggregator", "ad_partner_mac", "ad_actor_system",
	NULL,
};

const char *const gp_persist_paths[GP_PERSIST_FILES] = {
	"/etc/gpuprov/vfio-rebind",
	"/etc/modprobe.d/gpuprov-vfio.conf",
	"/etc/modules-load.d/gpuprov-vfio.conf",
	"/etc/udev/rules.d/60-gpuprov-vfio.rules",
	"/etc/systemd/system/gpuprov-vfio.service",
};

const char *const gp_host_files[] = {
	GP_PROC_CMDLINE,    GP_PROC_CPUINFO,   GP_PROC_RELEASE,
	GP_PROC_HOSTNAME,   GP_PROC_MOUNTINFO, GP_PROC_SWAPS,
	GP_PROC_IOMEM,	    GP_PROC_ROUTE,     GP_PROC_ROUTE6,
	GP_PROC_FIB_TRIE,   GP_PROC_INET6,     GP_DMI_BIOS,
	GP_DMI_BIOS_VENDOR, GP_DMI_PRODUCT,    GP_DMI_VENDOR,
	GP_DMI_SERIAL,	    GP_DMI_ASSET,      GP_FM_UNIT_ETC,
	GP_FM_UNIT_LIB,	    GP_FM_UNIT_USR,    GP_FM_WANTS,
	GP_FM_CONFIG,	    GP_NVIDIA_DRIVER,  GP_GRUB_CFG,
	GP_GRUBENV,	    GP_ETC_MODULES,    NULL,
};
