/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * virt.c: the libvirt adapter (connect, what is defined, define, undefine)
 * and QEMU's version.  libvirt is loaded at run time (dlopen of
 * libvirt.so.0), on the first connection; nothing else calls libvirt.
 */
#ifndef GP_VIRT_H
#define GP_VIRT_H

#include <stdbool.h>
#include <stddef.h>

#define GP_LIBVIRT_SONAME "libvirt.so.0"

struct _virConnect;

/*
 * Loads libvirt from soname (GP_LIBVIRT_SONAME) once per process: the first
 * call decides, later calls return its result.  0, or -ENOENT (not there or
 * not loadable), -ENOSYS (a function missing); why says which in words.
 */
int gp_virt_load(const char *soname, char *why, size_t len);
void gp_virt_qemu_version(char *buf, size_t len);
/*
 * Whether domain name is defined at uri: 1 (digest filled, *running 1 when
 * it runs), 0 (no such domain), -1 (libvirt not reachable) or -2 (uri, or
 * the embedded root it names, is not one gpuprov opens; libvirt not asked).
 * why says why for -1 and -2.
 */
int gp_virt_digest(const char *uri, const char *name, char *digest, size_t len, int *running,
		   char *why, size_t wlen);
int gp_virt_digest_of(const char *xml, char *digest, size_t len);
/*
 * A connection to uri (checked by gp_virt_uri_check; an embedded root by
 * gp_trust), NULL after gp_err when complain (a refused uri: always).
 */
struct _virConnect *gp_virt_connect(const char *uri, bool complain);
void gp_virt_close(struct _virConnect *c);
/* the inactive definition of domain name (with secrets when secure), NULL when none; free() it */
char *gp_virt_xml(struct _virConnect *c, const char *name, bool secure);
/* define xml at uri: 0, -EIO (no connection), -EINVAL (refused); gp_err says why */
int gp_virt_define(const char *uri, const char *xml);
/* undefine domain name (and its NVRAM) at uri if it is defined: 0 or -EIO */
int gp_virt_undefine(const char *uri, const char *name);

#endif
