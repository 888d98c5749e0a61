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
#define GP_DMI_SERIAL	   "/sys/class/dmi/id/product_serial" /* 0400: root's */
#define GP_DMI_VENDOR	   "/sys/class/dmi/id/sys_vendor"     /* the snapshot's, for the record */
#define GP_DMI_ASSET	   "/sys/class/dmi/id/chassis_asset_tag"

/* the files persist.vfio owns (GP_PERSIST_FILES, core/model.h): the reader
 * reads them, the plan compares, act/files.c writes */
extern const char *const gp_persist_paths[];

/* each of the single files above, NULL-terminated */
extern const char *const gp_host_files[];

/* directories the reader walks; the snapshot copies what it reads in each */
#define GP_SYS_PCI_DEVICES  "/sys/bus/pci/devices"
#define GP_SYS_PCI_SLOTS    "/sys/bus/pci/slots"
#define GP_SYS_IOMMU_GROUPS "/sys/kernel/iommu_groups"
#define GP_SYS_NODES	    "/sys/devices/system/node"
#define GP_SYS_CPUS	    "/sys/devices/system/cpu" /* cpuN/GP_CPU_SIBLINGS */
#define GP_CPU_SIBLINGS	    "topology/thread_siblings_list"
#define GP_SYS_NET	    "/sys/class/net"
#define GP_SYS_VFIO_PCI	    "/sys/module/vfio_pci" /* only whether it exists */
#define GP_SYS_BLOCK	    "/sys/class/block"
#define GP_SYS_VTCONSOLE    "/sys/class/vtconsole"
#define GP_PROC		    "/proc"
#define GP_PROC_NVIDIA_GPUS "/proc/driver/nvidia/gpus"
#define GP_PROC_TCP	    "/proc/net/tcp"
#define GP_PROC_TCP6	    "/proc/net/tcp6"
#define GP_LIB_MODULES	    "/lib/modules" /* /RELEASE: libkmod's indexes */
#define GP_DPKG_STATUS	    "/var/lib/dpkg/status"
#define GP_DRIVERCTL	    "/usr/sbin/driverctl" /* only whether it exists */
/* NVIDIA Fabric Manager (host/fabric.c): its unit, where systemd finds it, and its config */
#define GP_FM_UNIT_ETC	 "/etc/systemd/system/nvidia-fabricmanager.service"
#define GP_FM_UNIT_LIB	 "/lib/systemd/system/nvidia-fabricmanager.service"
#define GP_FM_UNIT_USR	 "/usr/lib/systemd/system/nvidia-fabricmanager.service"
#define GP_FM_WANTS	 "/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service"
#define GP_FM_CONFIG	 "/usr/share/nvidia/nvswitch/fabricmanager.cfg"
#define GP_NVIDIA_DRIVER "/sys/module/nvidia/version"
/* the next boot: GRUB's default entry, and the modules loaded at boot */
#define GP_GRUB_CFG	    "/boot/grub/grub.cfg"
#define GP_GRUBENV	    "/boot/grub/grubenv"
#define GP_ETC_MODULES	    "/etc/modules"
#define GP_MODULES_LOAD_DIR "/etc/modules-load.d" /* its *.conf files */

/* the GPU device nodes a process may hold open (a prefix each) */
#define GP_DEV_NVIDIA "/dev/nvidia"
#define GP_DEV_VFIO   "/dev/vfio/"

/* the network's owner: markers of a running service, and its configurations */
#define GP_NM_RUN	  "/run/NetworkManager"
#define GP_NM_ETC	  "/etc/NetworkManager"
#define GP_NM_CONNECTIONS "/etc/NetworkManager/system-connections"
#define GP_NETPLAN	  "/etc/netplan"
#define GP_NETWORKD_RUN	  "/run/systemd/netif"
#define GP_IFUPDOWN_DIR	  "/etc/network" /* not copied: only GP_IFUPDOWN in it is read */
#define GP_IFUPDOWN	  "/etc/network/interfaces"
#define GP_IFUPDOWN_D	  "/etc/network/interfaces.d"
/* networkd's .network directories, in its order of precedence */
#define GP_NETWORKD_DIRS 5
extern const char *const gp_networkd_dirs[GP_NETWORKD_DIRS];

/*
 * hugepages.reserve's boot unit (core/hugepages.c): it re-reserves each
 * hugepages.d file's count (nodeN-SIZEkB) before libvirt; the wants link enables it
 */
#define GP_HUGE_DIR	 "/etc/gpuprov/hugepages.d"
#define GP_HUGE_SCRIPT	 "/etc/gpuprov/hugepages-reserve"
#define GP_HUGE_UNIT	 "/etc/systemd/system/gpuprov-hugepages.service"
#define GP_HUGE_WANTS	 "/etc/systemd/system/basic.target.wants/gpuprov-hugepages.service"
#define GP_HUGE_WANTS_TO "../gpuprov-hugepages.service"

/* the persisted overrides: gpuprov's, and driverctl's (pci-BDF) */
#define GP_OVERRIDE_DIR "/etc/gpuprov/override.d"
#define GP_ETC_DIR \
	"/etc/gpuprov" /* copied: an empty directory where there is one, and the files named here */
#define GP_STATE_DIR	 "/var/lib/gpuprov" /* not copied: a name, never read (the journals' place) */
#define GP_DRIVERCTL_DIR "/etc/driverctl.d"

/* the VM preflight: names only, never a disk image's content */
#define GP_DEV_KVM	      "/dev/kvm" /* not copied: a snapshot has no /dev; GP_SYS_MISC says */
#define GP_SYS_MISC	      "/sys/class/misc"
#define GP_LIBVIRT_QEMU_RUN   "/run/libvirt/qemu" /* NAME.pid while a domain runs */
#define GP_LIBVIRT_IMAGES     "/var/lib/libvirt/images"
#define GP_QEMU_FIRMWARE_ETC  "/etc/qemu/firmware"
#define GP_QEMU_FIRMWARE_USR  "/usr/share/qemu/firmware"
#define GP_QEMU_FIRMWARE_DIRS 2
extern const char *const gp_qemu_firmware_dirs[GP_QEMU_FIRMWARE_DIRS]; /* copied: gp_vm_dirs */
/* each directory the preflight looks in, NULL-terminated */
extern const char *const gp_vm_dirs[];

/* what the reader (and libpci) reads of each device, interface and bond */
extern const char *const gp_pci_dev_files[];
extern const char *const gp_net_files[];
/* a PCI function's RDMA devices (PCI_DIR/infiniband/NAME) and what is read of each */
#define GP_PCI_IB_DIR "infiniband"
/* a port's virtual functions ([nic] mode = vf): links virtfn0, virtfn1, ... to their devices */
#define GP_PCI_VIRTFN "virtfn"
extern const char *const gp_ib_dev_files[];
extern const char *const gp_bond_files[];
/* what is read of a process (GP_PROC/PID/NAME): its command, and whose it is (Uid:) */
#define GP_PROC_PID_COMM   "comm"
#define GP_PROC_PID_STATUS "status"
extern const char *const gp_proc_files[];

#endif
