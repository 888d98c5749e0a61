/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xml.c: libxml2, loaded at run time (dlopen of libxml2.so.2) by the libxml2
 * functions gpuprov calls, which it defines; core/domxml.c and
 * core/nccl_topo.c call them through libxml2's own headers.
 */
#ifndef GP_XML_H
#define GP_XML_H

#define GP_LIBXML2_SONAME "libxml2.so.2"

#endif
