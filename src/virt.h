/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virt.c: libvirt (define, undefine, what is defined) and QEMU's version. */
#ifndef GP_VIRT_H
#define GP_VIRT_H

#include <stddef.h>

void gp_virt_qemu_version(char *buf, size_t len);
int gp_virt_digest(const char *uri, const char *name, char *digest, size_t len);
int gp_virt_digest_of(const char *xml, char *digest, size_t len);
/* 0 for a URI gpuprov may open, else -EINVAL with the reason in why. */
int gp_virt_uri_check(const char *uri, const char **why);

#endif
