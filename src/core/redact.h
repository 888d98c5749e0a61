/* SPDX-License-Identifier: GPL-2.0-or-later */
/* redact.c: what a snapshot keeps of a network configuration. */
#ifndef GP_REDACT_H
#define GP_REDACT_H

char *gp_net_redact(const char *path, const char *text);

#endif
