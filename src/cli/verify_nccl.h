/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verify's all-reduce as NCCL tells it: its NCCL_DEBUG=INFO output and
 * NCCL_TOPO_DUMP_FILE captured in a private directory, read by
 * core/ncclexplain.c, printed as verify's text and JSON.
 */
#ifndef GP_VERIFY_NCCL_H
#define GP_VERIFY_NCCL_H

#include <stddef.h>

#include "core/ncclexplain.h"

struct gp_nccl_capture {
	char dir[200]; /* "" when there is none */
	char log[240], dump[240];
};

/*
 * Before NCCL's first call in this process (it reads its environment
 * once): NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,ENV,GRAPH, NCCL_DEBUG_FILE
 * and NCCL_TOPO_DUMP_FILE into a directory of its own (mode 0700, under
 * TMPDIR or /tmp).  0, or a negative errno (then nothing is set).
 */
int gp_nccl_capture_begin(struct gp_nccl_capture *c);
/*
 * After the run: both files read (bounded, no FIFO, no device) and removed
 * with the directory; the explanation (malloc'ed) or NULL with why.
 * cuda_p2p as gp_nx_finish() takes it.
 */
struct gp_nccl_explain *gp_nccl_capture_end(struct gp_nccl_capture *c, int cuda_p2p, char *why,
					    size_t len);
/* The section under the all-reduce's rows; why when x is NULL. */
void gp_nccl_explain_text(const struct gp_nccl_explain *x, const char *why);
/* "explain" {...} or null, and "explain_why", inside verify's "nccl" object. */
void gp_nccl_explain_json(const struct gp_nccl_explain *x, const char *why);

#endif
