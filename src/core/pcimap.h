/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The picture of the PCI tree the report draws, as data: which devices are
 * shown (GPUs, NICs, the bridges above them), what is folded into counts,
 * where each box goes, and what is marked (degraded links, ACS redirection,
 * the GPUs' P2P paths, bond ports, IOMMU groups).  Pure: the renderer only
 * turns this into SVG or a text tree.
 */
#ifndef GP_PCIMAP_H
#define GP_PCIMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model.h"
#include "core/topo.h"

enum gp_map_kind {
	GP_MAP_NUMA,   /* a NUMA node and its CPUs */
	GP_MAP_RC,     /* a root complex (host bridge), pci0000:40 */
	GP_MAP_BRIDGE, /* a root port, a switch port, a PCI bridge */
	GP_MAP_GPU,
	GP_MAP_NIC,
	GP_MAP_DEV,  /* another function in a GPU's IOMMU group */
	GP_MAP_MORE, /* functions folded into a count */
};

/* Geometry of the drawing, in SVG user units (px). */
#define GP_MAP_COL  320 /* column pitch: one column per depth; a link's label between */
#define GP_MAP_BOXW 216
#define GP_MAP_BOXH 40
#define GP_MAP_ROW  50
#define GP_MAP_LEFT 16
#define GP_MAP_TOP  40

struct gp_map_node {
	enum gp_map_kind kind;
	int dev;    /* index in host->devs; -1 for NUMA, RC and MORE */
	int parent; /* index in nodes; -1 for a NUMA node */
	int numa;   /* the NUMA node id, -1 unknown */
	char rc[GP_NAME_LEN];
	int label; /* GPU0, NIC3: the topo matrix's number; -1 */
	int count; /* MORE: functions folded */
	int depth, row;
	double y;	   /* centre, in rows (a parent sits between its children) */
	bool p2p;	   /* on a P2P path between two GPUs */
	bool degraded;	   /* its link trained below what both ends support */
	bool acs_redirect; /* a bridge with ACS P2P request/completion redirect on */
	bool bond_port;	   /* a port of the profile's bond */
	const char *ifname;
};

struct gp_map_group {
	int id;		 /* IOMMU group */
	int first, last; /* rows it spans */
	int depth_min, depth_max;
};

struct gp_map {
	struct gp_map_node *n;
	size_t nn;
	struct gp_map_group *g;
	size_t ng;
	int rows, depths;
	int ngpus;
	enum gp_path worst; /* the worst path class between two GPUs; X with fewer than two */
	bool numa_hop;	    /* a GPU pair crosses NUMA nodes (SYS) */
	/* NVLink, where known: pairs joined, and the fewest and most links of a pair */
	int nv_pairs, pairs, nv_min, nv_max;
	int width, height; /* of the drawing */
};

/* NVLinks between two devices (nvidia-smi's NV#), 0 none or not known. */
int gp_map_nv_links(const struct gp_host *h, int a, int b);
/* p may be NULL (no bond ports then). */
void gp_map_build(const struct gp_host *h, const struct gp_profile *p, struct gp_map *m);
void gp_map_release(struct gp_map *m);
/* The box's top-left corner. */
double gp_map_x(const struct gp_map_node *n);
double gp_map_y(const struct gp_map_node *n);
/* A NIC function the report shows: one with an interface, a bond port, or 00.0 of its bus
 * (SR-IOV virtual functions without an interface are folded). */
bool gp_map_nic_shown(const struct gp_host *h, const struct gp_profile *p, size_t i);

#endif
