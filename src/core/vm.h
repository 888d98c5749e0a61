/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_VM_H
#define GP_VM_H

#include "core/model.h"
#include "core/vfs.h"

/*
 * Whether [vm] output may name path: absolute, without ".", ".." or empty
 * components, a name ending in .xml, outside the kernel's trees (/proc,
 * /sys, /dev), at most GP_VM_OUTPUT_MAX characters.  The one rule of the
 * profile (exit 4, file:line) and of a journal's domain.write and nccl.write
 * records: apply writes no file there that rollback could not put back.
 * 0, or -EINVAL and why.
 */
#define GP_VM_OUTPUT_MAX 500 /* its NCCL file and guest files, 17 longer, fit GP_OUTPUT_LEN */
int gp_vm_output_check(const char *path, const char **why);
/* Whether path is the NCCL file gp_nccl_topo_path() puts beside such an output. */
bool gp_vm_nccl_path_ok(const char *path);

#define GP_VM_MAX_CELLS 8
#define GP_VM_MAX_DEVS	32

struct gp_vm_dev {
	int dev;     /* index in host->devs */
	int cell;    /* guest NUMA cell */
	int port;    /* guest root port: one per host card (domain:bus:device) */
	unsigned fn; /* guest function on that port: the host's */
	bool gpu;
	/* gets x-nv-gpudirect-clique: an NVIDIA GPU.  QEMU refuses the property
	 * on any other vendor's device ("invalid device vendor") and the VM
	 * does not start; a [gpus] match may select an AMD or other accelerator. */
	bool nvidia;
	bool nic;	/* a RoCE function [nic] passes, or a VF of one ([nic] mode = vf) */
	int rail;	/* a passed NIC: in devs, the GPU it serves; -1 otherwise */
	char alias[32]; /* ua-gpuN, ua-gpuprov-nicN, -vfN, -devN: libvirt user aliases */
	/*
	 * [nic] mode = vf: the VF of the port dev (its PF) the VM gets, its own
	 * one-function card: vf its index (-1: not a VF), vf_bdf its host
	 * address, mac what libvirt sets on it (core/vfs.c)
	 */
	int vf;
	char vf_bdf[GP_BDF_LEN];
	char mac[GP_VF_MAC_LEN];
};

struct gp_vm_cell {
	int host_node;	 /* -1 when the host does not say */
	unsigned bus_nr; /* its pcie-expander-bus's bus number (busNr) */
	char cpus[256];	 /* the host node's CPUs, for pinning */
	unsigned vcpus;
	unsigned first_vcpu; /* its vCPUs are first_vcpu .. first_vcpu + vcpus - 1 */
	uint64_t memory;
};

/*
 * A guest port holds one host card: its functions, as the host has them.
 * The port is a root port on its cell's expander bus, or (sw >= 0) a
 * downstream port of an emulated switch: a passed NIC and the GPU it serves
 * that share a PCIe switch on the host share one in the guest.
 */
struct gp_vm_port {
	int cell;
	int nfuncs;
	int sw;	       /* in switches, or -1: a root port of its own */
	unsigned slot; /* on its cell's expander bus; on the switch's bus with sw >= 0 */
	unsigned bus;  /* the guest bus behind it, as the firmware numbers it */
};

/* An emulated switch: a root port on the expander bus, an upstream port
 * behind it (x3130-upstream), its ports' downstream ports (xio3130-downstream). */
struct gp_vm_switch {
	int cell;
	unsigned slot;	 /* its root port's, on the expander bus */
	unsigned up_bus; /* behind the root port: the upstream port's bus */
	unsigned bus;	 /* behind the upstream port: the downstream ports' bus */
};

/* Whether QEMU can add the GPUDirect clique capability to every GPU, worst first last. */
enum gp_clique_fit {
	GP_CLIQUE_FITS,	    /* at 0xC8, or from QEMU 8.1 at 0xD4 */
	GP_CLIQUE_UNKNOWN,  /* a capability at 0xC8, and QEMU's version unknown */
	GP_CLIQUE_OLD_QEMU, /* QEMU before 8.1 puts it at 0xC8, where a capability is */
	GP_CLIQUE_NO_ROOM,  /* capabilities where any QEMU would put it */
};

struct gp_vm_layout {
	struct gp_vm_dev devs[GP_VM_MAX_DEVS];
	int ndevs;
	struct gp_vm_port ports[GP_VM_MAX_DEVS];
	int nports;
	struct gp_vm_switch switches[GP_VM_MAX_DEVS];
	int nswitches;
	struct gp_vm_cell cells[GP_VM_MAX_CELLS];
	int ncells;
	bool numa_known;
	uint64_t bar64_total; /* the 64-bit BARs, each rounded up to a power of two */
	uint64_t mmio_window; /* X-PciMmio64Mb: the window OVMF must open, bytes */
	int clique;	      /* what the XML sets: the profile's, or -1 (off, left out) */
	bool clique_left_out; /* p2p = preferred and QEMU cannot add it */
	enum gp_clique_fit clique_fit;
	int clique_dev; /* in devs: the GPU that decides clique_fit, -1 when none */
	int clique_pos; /* where QEMU puts it on that GPU */
};

bool gp_vm_passed(const struct gp_host *h, const struct gp_profile *p, size_t i);
void gp_vm_layout(const struct gp_host *h, const struct gp_profile *p, struct gp_vm_layout *l);
uint64_t gp_vm_mmio_end(const struct gp_vm_layout *l, uint64_t memory);
/* The guest PCI address of l->devs[i], as the guest's lspci shows it;
 * -ERANGE when its cell has more buses than its expander bus can number
 * (a root port takes one, an emulated switch two and one a port). */
#define GP_VM_PORTS_PER_CELL 15
int gp_vm_guest_bdf(const struct gp_vm_layout *l, int i, char *out, size_t len);

/* domxml.c: the domain XML for the profile's VM, merged into a template */

/* domxml.c: the files the domain XML needs on the host; their number, or -EINVAL */
int gp_domxml_files(const char *xml, struct gp_vm_file *files, int max);
/*
 * domxml.c: what in the domain XML turns vfio-pci's BAR mmap off (x-no-mmap
 * through <qemu:override>, or <qemu:commandline>'s -set, -global, -device),
 * at most max; *iommufd: a device or the command line uses the iommufd
 * backend.  Their number, or -EINVAL for XML that does not parse.
 */
int gp_domxml_nommap(const char *xml, struct gp_vm_nommap *out, int max, bool *iommufd);

#endif
