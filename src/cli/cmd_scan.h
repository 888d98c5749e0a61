/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GP_CMD_SCAN_H
#define GP_CMD_SCAN_H

#include <stdio.h>

#include "core/model.h"

/* scan's document, as scan --json prints it, on f (NULL: stdout) */
void gp_scan_doc(FILE *f, const struct gp_host *h);

#endif
