/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virt.c: the libvirt adapter (connect, what is defined) and QEMU's version. */
#ifndef GP_VIRT_H
#define GP_VIRT_H

#include <stdbool.h>
#include <stddef.h>

void gp_virt_qemu_version(char *buf, size_t len);
int gp_virt_digest(const char *uri, const char *name, char *digest, size_t len, int *running,
		   char *why, size_t wlen);
int gp_virt_digest_of(const char *xml, char *digest, size_t len);
/* a connection to uri (checked by gp_virt_uri_check), NULL after gp_err when complain */
struct _virConnect *gp_virt_connect(const char *uri, bool complain);

#endif
