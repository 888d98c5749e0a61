/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo.c: path classes between two devices, as nvidia-smi topo -m names them. */
#ifndef GP_TOPO_H
#define GP_TOPO_H

#include <stdbool.h>
#include "core/model.h"

enum gp_path {
	GP_PATH_X,
	GP_PATH_PIX,
	GP_PATH_PXB,
	GP_PATH_PHB,
	GP_PATH_NODE,
	GP_PATH_SYS,
};

/* The slowest link of a path: what every hop and both its ends support (the
 * P2P ceiling), and what the slowest hop trained at now (idle GPUs drop to
 * 2.5 GT/s). */
struct gp_hop {
	double speed; /* GT/s, 0 when unknown */
	int width;
	double cur_speed;
	int cur_width;
};

const char *gp_path_name(enum gp_path p);
enum gp_path gp_topo_classify(const struct gp_host *h, int a, int b);
struct gp_hop gp_topo_slowest(const struct gp_host *h, int a, int b);
/* The link above dev: the lower of its two ends' maxima, its trained state. */
void gp_topo_link(const struct gp_host *h, int dev, struct gp_link *out);
bool gp_hop_trained_lower(const struct gp_hop *hop);

/*
 * A hop in words: "16 GT/s x16" and its ceiling "31.5" (GB/s per
 * direction).  A host's hops are a few kinds, and a pair check or topo's
 * Paths words one per GPU pair (%g and %.1f are the slow part of printf):
 * the caller keeps one of these for its run, and each kind is worded once.
 */
struct gp_hop_words {
	struct {
		double speed;
		int width;
		char link[32];
		char gbs[24];
	} seen[8];
	unsigned n;
	const char *link, *gbs; /* the last hop worded */
};
void gp_hop_words(struct gp_hop_words *w, const struct gp_hop *hop);
int gp_topo_path_bridges(const struct gp_host *h, int a, int b, int *out, int max);
int gp_host_root_port(const struct gp_host *h, int dev);

#endif
