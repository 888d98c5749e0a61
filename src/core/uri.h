/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uri.c: the libvirt URIs gpuprov may open. */
#ifndef GP_URI_H
#define GP_URI_H

#define GP_URI_EMBED "qemu:///embed?root="

/* 0 for a URI gpuprov may open, else -EINVAL with the reason in why. */
int gp_virt_uri_check(const char *uri, const char **why);

#endif
