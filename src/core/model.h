/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gpuprov's model.  Data flows one way: host/ (the only reader of the
 * machine) and core/profile.c fill these structures, core/ computes on them
 * (topo, checks, the VM's layout, the plan), cli/ prints and act/
 * carries out the plan.  Below cli/, calls return 0 or a negative errno; the
 * commands (cli/cmd_*.c, run by main.c) turn results into exit statuses
 * (shared/exit.h).  tests/cli/t_layers.sh checks both rules.
 */
#ifndef GP_MODEL_H
#define GP_MODEL_H

#include <dirent.h>
#include <fcntl.h> /* AT_FDCWD */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/nvlink.h"
#include "shared/codec.h"
#include "shared/exit.h"
#include "shared/log.h"
#include "shared/rootfs.h"
#include "shared/strpool.h"
#include "shared/trust.h"
#include "shared/util.h"
#include "shared/write.h"

#define GP_MAX_BARS  6
#define GP_MAX_MATCH 16
#define GP_MAX_SLOTS 32
#define GP_MAX_LIST  16

/*
 * A file the VM's domain XML names that must exist before the domain starts:
 * a disk image, the firmware code, its variables template, or (firmware='efi'
 * with no loader named) a firmware descriptor libvirt picks from.
 */
#define GP_VM_FILES 8
struct gp_vm_file {
	char role[24]; /* disk, loader, nvram template, firmware descriptor */
	char path[256];
	int exists; /* 1, 0, or -1: cannot tell (its directory is not in the -r tree) */
};

/*
 * What in the VM's domain XML turns QEMU's BAR mmap off (vfio-pci's
 * x-no-mmap): read from the XML gpuprov builds, template included.
 */
#define GP_VM_NOMMAP 8
struct gp_vm_nommap {
	char target[64]; /* a device alias, a host PCI address (-device), "*" (-global) */
	char how[128];	 /* the XML's words: "-global vfio-pci.x-no-mmap=on" */
};

/* ---- the host (host/, pcicfg.c) ---- */

/*
 * A path gpuprov writes for the VM, with its NUL: [vm] output (at most
 * GP_VM_OUTPUT_MAX characters, core/vm.h), NCCL's file beside it, 10
 * longer, and the guest's files in the directory beside it, 17 longer.
 * Every buffer that holds one (a step's subject, a file's record) is this
 * large: none is ever cut.
 */
#define GP_OUTPUT_LEN 528

/* The files persist.vfio owns; host/owned.c reads them, plan.c compares. */
#define GP_PERSIST_FILES 5
#define GP_MAX_OVERRIDES 64

struct gp_override {
	char bdf[GP_BDF_LEN];
	char driver[GP_NAME_LEN];
	bool driverctl; /* read from driverctl's directory, not gpuprov's */
};
enum gp_role {
	GP_ROLE_OTHER,
	GP_ROLE_GPU,
	GP_ROLE_NIC,
	GP_ROLE_BRIDGE
};

/* PCIe device/port type from the PCI Express capability, -1 for none. */
enum gp_pcie_type {
	GP_PCIE_NONE = -1,
	GP_PCIE_ENDPOINT = 0x0,
	GP_PCIE_LEGACY = 0x1,
	GP_PCIE_ROOT_PORT = 0x4,
	GP_PCIE_UPSTREAM = 0x5,
	GP_PCIE_DOWNSTREAM = 0x6,
	GP_PCIE_PCI_BRIDGE = 0x7,
	GP_PCIE_PCIE_BRIDGE = 0x8,
	GP_PCIE_RC_ENDPOINT = 0x9,
	GP_PCIE_RC_EC = 0xa,
};

/* ACS control bits (PCIe base spec 7.7.8.3). */
#define GP_ACS_SV 0x0001
#define GP_ACS_TB 0x0002
#define GP_ACS_RR 0x0004 /* P2P request redirect */
#define GP_ACS_CR 0x0008 /* P2P completion redirect */
#define GP_ACS_UF 0x0010 /* upstream forwarding */
#define GP_ACS_EC 0x0020 /* P2P egress control */
#define GP_ACS_DT 0x0040 /* direct translated P2P */

struct gp_link {
	double speed; /* GT/s, 0 when unknown */
	int width;    /* lanes, 0 when unknown */
	double max_speed;
	int max_width;
};

struct gp_bar {
	uint64_t addr;
	uint64_t size;
	int index; /* line of the sysfs resource file, 0..5 */
	bool is64;
	bool prefetchable;
	bool io;
	bool unset; /* the kernel could not assign it */
};

/* A capability of the standard list: where it starts, and how long it is
 * where the spec fixes that by its flags (MSI, MSI-X); 0 otherwise. */
#define GP_MAX_CAPS 48
struct gp_cap {
	uint8_t id, pos, len;
};

/* What config space says, parsed by pcicfg.c from raw bytes. */
struct gp_cfg {
	uint16_t vendor, device;
	uint16_t svendor, sdevice;
	uint8_t header_type;
	int pcie_type; /* enum gp_pcie_type */
	struct gp_link link;
	bool has_acs;
	uint16_t acs_cap, acs_ctrl;
	int acs_pos; /* offset of the ACS capability, 0 when absent */
	int ats;     /* the ATS capability: 1 enabled, 0 present and off, -1 absent */
	struct gp_cap caps[GP_MAX_CAPS];
	int ncaps;
	/* SR-IOV (PCIe base spec 9.3.3): where VF i sits, First VF Offset +
	 * i * VF Stride routing IDs past the PF's, and the VFs' device ID */
	bool has_sriov;
	uint16_t vf_offset, vf_stride, vf_device;
	int sub_bus; /* a bridge's subordinate bus number; -1 otherwise */
};

/*
 * One PCI function.  Its strings are in the host's pool (host->strs): never
 * NULL, "" when not read or empty (gp_dev_init), cut where the GP_DEV_*
 * lengths say (with the NUL), as the fixed arrays they replace cut them.
 */
#define GP_DEV_NAME_LEN	       GP_NAME_LEN
#define GP_DEV_NUMA_ERROR_LEN  64
#define GP_DEV_IOMMU_ERROR_LEN 128
#define GP_DEV_MODALIAS_LEN    128

struct gp_dev {
	char bdf[GP_BDF_LEN];
	unsigned domain, bus, dev, func;
	uint16_t vendor, device, svendor, sdevice;
	uint16_t class; /* base class << 8 | subclass */
	uint16_t acs_ctrl;
	uint16_t acs_cap; /* which ACS features it has (the control bits' layout) */
	int ats; /* ATS: 1 enabled, 0 present and off, -1 absent or not read (config_short) */
	const char *driver;
	const char *slot; /* physical slot name, "" when none */
	const char *rc;	  /* host bridge, e.g. "pci0000:40" */
	int numa_node;	  /* -1 when unknown */
	int iommu_group;  /* -1 when none */
	/* why a fact could not be read ("" when it was): checks report these */
	const char *numa_error;
	const char *iommu_error;
	int parent; /* index in host->devs, -1 on a root bus */
	const char *parent_bdf;
	int pcie_type;
	bool is_bridge;
	bool config_short; /* only the first 64 bytes were readable */
	bool config_dead;  /* config space reads all ones: the device does not answer */
	bool has_acs;
	bool bars_bad;	       /* resource file unreadable or malformed */
	bool has_reset_method; /* the kernel exposes reset_method */
	bool vfio_module_loaded;
	bool nic_passed; /* a RoCE function [nic] mode = passthrough hands to the VM */
	bool with_gpu;	 /* a GPU or a passed NIC, or in the IOMMU group of one */
	int ncaps;
	const struct gp_cap *caps; /* the standard capability list, in the host's pool */
	struct gp_link link;
	struct gp_bar bars[GP_MAX_BARS];
	int nbars;
	const char *reset_method;
	/* AER errors since boot (aer_dev_*), of GPUs and the ports above them; -1: not read */
	long long aer_fatal, aer_nonfatal, aer_cor;
	/* read for GPUs and the other members of their IOMMU groups only */
	const char *driver_override; /* "" for "(null)" */
	const char *modalias;
	const char *vfio_driver; /* vfio-pci, or a variant driver, as it registers */
	const char *vfio_module; /* its module: vfio_pci, nvgrace_gpu_vfio_pci, ... */
	enum gp_role role;
	int boot_vga; /* 1: the firmware's console device; 0 not; -1 not said */
	/* SR-IOV, read for the ports [nic] mode = vf names: -1 when it has none */
	int sriov_total, sriov_numvfs;
	/* its SR-IOV capability (config space read whole): core/vfs.c predicts
	 * the VFs' addresses from it */
	bool has_sriov;
	uint16_t vf_offset, vf_stride, vf_device;
	/* the VFs the kernel made (virtfnN links, in N's order), in the host's pool */
	const char (*virtfn)[GP_BDF_LEN];
	int nvirtfn;
	int sub_bus; /* a bridge's subordinate bus number, -1 when not read */
};

struct gp_numa {
	int id;
	char cpus[256];
	uint64_t mem_total;
	uint64_t mem_free;
	long hugepages_1g_free; /* -1 when the kernel does not say */
	long hugepages_2m_free;
	/* the node's pool, nr_hugepages: -1 when the kernel has no pool of that size */
	long hugepages_1g_nr;
	long hugepages_2m_nr;
};

struct gp_iface {
	char name[GP_NAME_LEN];
	char bdf[GP_BDF_LEN]; /* "" for a virtual interface */
	int dev;	      /* index in host->devs, -1 when none */
	char master[GP_NAME_LEN];
	char mac[24];
	char operstate[16];
	long speed; /* Mb/s, -1 when unknown */
	int mtu;
	bool is_bond;
	bool default_route;	 /* carries a default route (/proc/net/route) */
	int routes;		 /* routes through it, link-local and multicast aside */
	char addr[48];		 /* its first address (not link-local), "" when none */
	int tcp;		 /* established TCP connections from its addresses */
	char upper[GP_NAME_LEN]; /* a VLAN, macvlan, ... on top of it; "" when none */
	int sriov_numvfs;	 /* of its PCI function; -1 when none */
	/* its function's RDMA device's firmware (infiniband/NAME/fw_ver); "" unknown */
	char fw_ver[32];
};

/* A disk or partition of a PCI function, and what holds it. */
struct gp_block {
	char name[32];
	char majmin[16];
	int dev;	 /* index in host->devs */
	char mount[64];	 /* where it is mounted, "" when not */
	bool swap;	 /* in /proc/swaps */
	char holder[32]; /* dm-0, md0, ...: LVM, MD, device mapper */
};

/* A mount point and whether it is mounted read-only (/proc/self/mountinfo). */
struct gp_mount {
	char point[GP_OUTPUT_LEN];
	bool ro;
};

/* A framebuffer's memory in /proc/iomem (efifb, simplefb, BOOTFB, ...). */
struct gp_fb {
	uint64_t start, end;
	char name[32];
};

/*
 * What the next boot's kernel would do with a device gpuprov binds or finds
 * bound (host/boot.c; core/check_boot.c decides): each module whose alias
 * matches the device's modalias in that kernel's modules.alias (or an alias
 * line of modprobe.d), with what modprobe.d says of it.
 */
#define GP_CLAIM_MODS 4
struct gp_claimant {
	char module[GP_NAME_LEN];
	bool blacklisted; /* "blacklist M": udev's load by alias skips it */
	bool disabled;	  /* "install M /bin/false" (or true): it never loads */
	bool vfio_first;  /* "softdep M pre: ... vfio-pci ...": vfio-pci loads before it */
	bool builtin;	  /* in modules.builtin: registered before udev loads anything */
};

struct gp_boot_dev {
	int dev;    /* index in host->devs */
	int nclaim; /* -1: the next kernel's modules could not be read */
	struct gp_claimant claim[GP_CLAIM_MODS];
	bool ids; /* the next boot's vfio-pci ids= name its vendor:device */
};

/* A systemd-networkd .network file: networkd sorts them by name alone. */
struct gp_netfile {
	char name[GP_NAME_LEN];
	char path[160];	 /* where it is, under the root */
	char names[256]; /* [Match] Name= globs, blank-separated; "" any */
	char macs[256];	 /* [Match] MACAddress= list; "" any */
	bool masked;	 /* empty or a link to /dev/null: applies to nothing */
};

struct gp_holder {
	int pid;
	char comm[GP_NAME_LEN];
	char path[GP_NAME_LEN]; /* /dev/nvidia0, /dev/vfio/12, ... */
	int dev;		/* index in host->devs, -1: every GPU of the driver */
};

/* A file gpuprov writes, as the host has it now: plan --diff and the report compare. */
struct gp_owned {
	char path[GP_OUTPUT_LEN];
	char *text;    /* NULL: absent, or unreadable (err) */
	int err;       /* the -errno that kept it unread, -ENOENT aside; 0 */
	bool private;  /* not root's, or not readable by all: its text is shown by digest only */
	bool readable; /* others may read it (a secret VM XML that is, is written again) */
	bool link;     /* a symbolic link: text is its target */
};

/*
 * NVIDIA Fabric Manager on the host, as its files say (host/fabric.c: read
 * when the host has an NVSwitch or the profile a [fabric] mode): 1 yes,
 * 0 no, -1 cannot tell.  Versions "" when not readable.
 */
struct gp_fabric_host {
	bool read;	       /* looked for at all */
	int installed;	       /* nvidia-fabricmanager.service is a unit file */
	int enabled;	       /* a *.target.wants link names it */
	int masked;	       /* /etc/systemd/system/nvidia-fabricmanager.service -> /dev/null */
	int running;	       /* a process nv-fabricmanager runs */
	int mode;	       /* FABRIC_MODE=: -1 not set or not read, -2 not a number */
	char config[256];      /* the config file read ("" none) */
	char driver[32];       /* /sys/module/nvidia/version */
	char fm_version[64];   /* dpkg: nvidia-fabricmanager[-BRANCH] */
	char nscq_version[64]; /* dpkg: libnvidia-nscq[-BRANCH] */
};

/*
 * What the last `verify` on this machine measured (GP_VERIFY_RECORD): the
 * all-reduce's bus bandwidth and each ordered GPU pair's one-way copy rate,
 * by bus ID; topo and report show them beside the ceiling and expectation.
 */
#define GP_VREC_MAX_PAIRS 64
struct gp_vrecord {
	bool kept;
	char when[32];	   /* "2026-12-02T10:00:00Z" */
	double busbw_gbps; /* the all-reduce at its largest size, 0 not run */
	uint64_t bytes;	   /* that size */
	int ranks;
	int npairs;
	struct {
		char from[GP_BDF_LEN], to[GP_BDF_LEN];
		double gbps; /* one way */
	} pairs[GP_VREC_MAX_PAIRS];
};

struct gp_host {
	struct gp_strpool strs; /* the devices' strings */
	char *root;		/* "" for "/" */
	int rootfd;		/* gp_root_open(root) */
	struct gp_dev *devs;
	size_t ndevs;
	struct gp_numa *numa;
	size_t nnuma;
	struct gp_iface *ifaces;
	size_t nifaces;
	struct gp_holder *holders;
	size_t nholders;
	struct gp_block *blocks; /* of PCI functions only */
	size_t nblocks;
	struct gp_fb *fbs;
	size_t nfbs;
	struct gp_mount *mounts; /* in mountinfo's order: the last of a point is on top */
	size_t nmounts;
	int etc_gpuprov; /* /etc/gpuprov: 1 a directory, 0 absent, -1 unknown (not read) */
	bool fbcon;	 /* a virtual console is bound to a frame buffer */
	/* whether each source of the companion checks could be read */
	bool seen_blocks, seen_mounts, seen_sockets, seen_iomem;
	char cmdline[4096];
	char bios_version[GP_NAME_LEN];
	char bios_vendor[GP_NAME_LEN];
	char product[GP_NAME_LEN];
	char serial[GP_NAME_LEN];    /* DMI product_serial (root may read it), "" when unknown */
	char asset_tag[GP_NAME_LEN]; /* DMI chassis_asset_tag, "" when unknown */
	char kernel_release[GP_NAME_LEN];
	char hostname[GP_NAME_LEN]; /* /proc/sys/kernel/hostname, "" when unknown */
	int phys_bits, virt_bits;   /* 0 when unknown */
	/* the first CPU in /proc/cpuinfo: "" and -1 when it does not say */
	char cpu_arch[16];   /* x86_64, arm64, ppc64: NCCL's names */
	char cpu_vendor[16]; /* vendor_id: GenuineIntel, AuthenticAMD, ... */
	int cpu_family, cpu_model;
	/* per CPU number: the first of its SMT siblings, -1 unknown (read with a [vm]) */
	int *cpu_core;
	int ncpu_core;
	int iommu_groups;   /* entries of /sys/kernel/iommu_groups */
	bool vfio_loaded;   /* /sys/module/vfio_pci exists */
	int vfio_available; /* 1 found by libkmod, 0 not, -1 unknown */
	bool vfio_blacklisted;
	char vfio_ids[256];	 /* "vfio-pci ids=" from cmdline or modprobe.d */
	bool driverctl;		 /* /usr/sbin/driverctl exists */
	char qemu_version[32];	 /* "7.2.18"; "" when unknown, or not read (no [vm]) */
	char *vm_xml;		 /* the profile's [vm] output file as it is, or NULL */
	char *nccl_xml;		 /* the NCCL topology file beside it, or NULL */
	int vm_defined;		 /* -1 unknown, 0 no, 1 yes (libvirt, live host only) */
	int vm_running;		 /* -1 unknown, 0 no, 1 a domain of [vm] name runs */
	char libvirt_error[512]; /* why libvirt did not answer; "" when it did or was not asked */
	bool libvirt_refused;	 /* not asked: gpuprov does not open [vm] uri (libvirt_error) */
	int kvm;		 /* /dev/kvm: 1 present, 0 absent, -1 cannot tell (-r) */
	struct gp_vm_file vm_files[GP_VM_FILES]; /* what the domain XML needs (gp_host_vm_files) */
	int nvm_files;
	/* the VM's XML, when it built: what turns BAR mmap off, and the iommufd backend */
	bool vm_xml_read;
	struct gp_vm_nommap vm_nommap[GP_VM_NOMMAP];
	int nvm_nommap;
	bool vm_iommufd;	     /* <driver iommufd='yes'/> or -object iommufd */
	char vm_digest[24];	     /* gpuprov's digest in the defined domain, or "" */
	char net_owner[16];	     /* networkmanager, netplan, networkd, ifupdown, none */
	char *bond_persisted;	     /* the bond's persistent file as it is, or NULL */
	struct gp_netfile *netfiles; /* networkd's .network files, in name order */
	size_t nnetfiles;
	/* the persistent files gpuprov writes, as they are now (NULL: absent) */
	char *persist[GP_PERSIST_FILES];
	struct gp_override overrides[GP_MAX_OVERRIDES]; /* override.d or driverctl.d */
	int noverrides;
	char vfio_ids_source[512];
	/* every file persist.vfio, persist.bond and domain.write would write, as it is */
	struct gp_owned *owned;
	size_t nowned;
	struct gp_nv_view nv;	/* NVLinks: NVML now, or what apply recorded */
	struct gp_vrecord vrec; /* the last verify's bandwidths on this machine, if kept */
	struct gp_fabric_host fm;
	/* the next boot (host/boot.c): its kernel, its vfio-pci ids=, what claims each device */
	char boot_release[GP_NAME_LEN]; /* "" unknown */
	/* where boot_release was read: "the first entry of ...", or "the running kernel" */
	char boot_source[160];
	char boot_cmdline[4096]; /* the next boot's command line (grub.cfg's, or /proc/cmdline) */
	char boot_ids[256];	 /* vfio-pci ids= of the next boot's command line or modprobe.d */
	char boot_ids_source[160];
	int boot_vfio_loads; /* 1: vfio_pci loads at boot (built in, modules-load.d); 0 not */
	bool boot_vfio_builtin;
	struct gp_boot_dev *boot_devs;
	size_t nboot_devs;
};

/* pcicfg.c: pure parsers of what sysfs hands us, fuzzed in tests/fuzz */

/* ---- the profile (profile.c) ---- */
enum gp_p2p {
	GP_P2P_REQUIRED,
	GP_P2P_PREFERRED,
	GP_P2P_OFF
};
enum gp_companions {
	GP_COMP_REFUSE,
	GP_COMP_BIND
};
/* [fabric] mode: how an HGX baseboard's NVSwitches go with its GPUs */
enum gp_fabric_mode {
	GP_FABRIC_NONE,	  /* no baseboard rules: today's behaviour */
	GP_FABRIC_FULL,	  /* GPUs and switches to the VM, Fabric Manager in the guest */
	GP_FABRIC_SHARED, /* GPUs only, switches and Fabric Manager stay on the host */
};

struct gp_slot {
	char name[GP_NAME_LEN];
	char root_port[GP_BDF_LEN];
	char address[GP_BDF_LEN]; /* instead of root_port: the device, on a root bus */
	int numa_node;		  /* -1 when not given */
	int cpu_direct;		  /* -1 when not given */
	int line;
};

struct gp_match {
	bool is_bdf;
	uint16_t vendor, device;
	char bdf[GP_BDF_LEN];
};

#define GP_NIC_FW_FAMILIES 8

/* [nic] mode: where the RoCE ports serve.  The orders match profile.c's lists. */
enum gp_nic_mode {
	GP_NIC_UNSET = -1,
	GP_NIC_PASSTHROUGH, /* whole functions into the VM */
	GP_NIC_VF,	    /* SR-IOV virtual functions into the VM */
	GP_NIC_HOST	    /* the host keeps them ([bond]); the guest gets no RDMA */
};
enum gp_guest_bond {
	GP_GBOND_NONE, /* a NIC per rail: NCCL's preference */
	GP_GBOND_LACP, /* 802.3ad */
	GP_GBOND_AB    /* active-backup */
};

struct gp_profile {
	char error[600]; /* why the load failed: "file:line: ...", or why unreadable */
	char path[512];
	char model[128];
	char product[GP_NAME_LEN]; /* a pattern for the host's DMI product name; "": none */
	char min_bios[GP_NAME_LEN];
	bool verified;
	struct gp_slot slots[GP_MAX_SLOTS];
	int nslots;
	struct gp_match match[GP_MAX_MATCH];
	int nmatch;
	int count;
	char gpu_slots[GP_MAX_LIST][GP_NAME_LEN];
	int ngpu_slots;
	bool same_numa_node;
	enum gp_p2p p2p;
	enum gp_companions companions;
	enum gp_fabric_mode fabric;
	bool has_vm;
	struct {
		char name[GP_NAME_LEN];
		char template[512];
		unsigned vcpus;
		uint64_t memory;
		uint64_t hugepages; /* page size, 0 for none */
		char numa[16];
		int clique; /* -1 for off */
		char output[GP_OUTPUT_LEN];
		bool define;
		char uri[256];
	} vm;
	bool has_bond;
	struct {
		char name[16];
		char slaves[GP_MAX_LIST][GP_NAME_LEN];
		int nslaves;
		char mode[16];
		unsigned miimon;
		char lacp_rate[8];
		char xmit_hash_policy[16];
		char ad_select[16];
		unsigned min_links;
		unsigned mtu;
		char address[64];
		char persist[16];
		unsigned lacp_timeout; /* seconds; 0: 15 with fast, 90 with slow */
	} bond;
	bool has_nic;
	struct {
		struct gp_match match[GP_MAX_MATCH]; /* the RoCE functions */
		int nmatch;
		enum gp_nic_mode mode;
		unsigned vfs; /* per port, with GP_NIC_VF; 0 otherwise */
		enum gp_guest_bond guest_bond;
		char addresses[GP_MAX_LIST][64]; /* the guest's: a port's each, or the bond's */
		int naddresses;
		unsigned mtu; /* the guest ports'; 0: not set (the device's own) */
		/* the lowest firmware of each family (its first number: ConnectX-6 20,
		 * -6 Dx 22, -7 28); none: not checked */
		char min_firmware[GP_NIC_FW_FAMILIES][32];
		int nmin_firmware;
	} nic;
};

#endif
