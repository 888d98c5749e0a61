/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcicfg.c: pure parsers of what sysfs hands us, fuzzed in tests/fuzz. */
#ifndef GP_PCICFG_H
#define GP_PCICFG_H

#include "core/model.h"

int gp_cfg_parse(const uint8_t *buf, size_t len, struct gp_cfg *out);
int gp_resource_parse(const char *text, struct gp_bar *bars, int max);
double gp_link_speed_gts(unsigned code);
double gp_link_bandwidth(double gts, int width);

#endif
