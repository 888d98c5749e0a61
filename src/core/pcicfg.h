/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcicfg.c: pure parsers of what sysfs hands us, fuzzed in tests/fuzz. */
#ifndef GP_PCICFG_H
#define GP_PCICFG_H

#include "core/model.h"

int gp_cfg_parse(const uint8_t *buf, size_t len, struct gp_cfg *out);
int gp_resource_parse(const char *text, struct gp_bar *bars, int max);
/*
 * The total of an AER statistics file (aer_dev_fatal, aer_dev_nonfatal,
 * aer_dev_correctable: "NAME COUNT" lines ending with TOTAL_ERR_*): its
 * TOTAL_ line, or the sum of the others where the kernel printed none;
 * -1 when the text is not such a file.
 */
long long gp_aer_total(const char *text);
double gp_link_speed_gts(unsigned code);
double gp_link_bandwidth(double gts, int width);

#endif
