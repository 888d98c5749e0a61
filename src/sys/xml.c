// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libxml2, loaded at run time.  Linked, libxml2 and what it pulls (ICU,
 * libstdc++) cost every command 2.4 MB of memory before main() ran, and
 * only the commands that read or write a domain or NCCL XML use it.  So the
 * few libxml2 functions gpuprov calls (core/domxml.c, core/nccl_topo.c) are
 * defined here, with the header's own prototypes (a wrong one does not
 * compile), and each calls the real one, found by dlsym the first time.
 * They are hidden: the binary exports none of them, nothing else is bound
 * to them.  libxml2 missing (the package depends on it) or lacking a
 * function: gp_err says so once, and each call fails as libxml2 fails
 * (xmlReadMemory gives no document), which its callers already handle.
 */
#include <dlfcn.h>
#include <stdbool.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlstring.h>

#include "shared/log.h"
#include "sys/xml.h"

#define HIDDEN __attribute__((visibility("hidden")))

static void *sym(const char *name)
{
	static void *lib;
	static bool tried;
	void *fn;

	if (!tried) {
		tried = true;
		lib = dlopen(GP_LIBXML2_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			gp_err("cannot load %s (the package is libxml2)", dlerror());
	}
	if (!lib)
		return NULL;
	fn = dlsym(lib, name);
	if (!fn)
		gp_err("%s lacks %s (libxml2 too old)", GP_LIBXML2_SONAME, name);
	return fn;
}

/* name(params), calling libxml2's with args; fail when it cannot be had */
#define LAZY(ret, fail, name, params, args)               \
	HIDDEN ret name params                            \
	{                                                 \
		static __typeof__(name) *fn;              \
                                                          \
		if (!fn && !(*(void **)&fn = sym(#name))) \
			return fail;                      \
		return fn args;                           \
	}

#define LAZY_VOID(name, params, args)                     \
	HIDDEN void name params                           \
	{                                                 \
		static __typeof__(name) *fn;              \
                                                          \
		if (!fn && !(*(void **)&fn = sym(#name))) \
			return;                           \
		fn args;                                  \
	}

LAZY(xmlDocPtr, NULL, xmlReadMemory,
     (const char *buffer, int size, const char *URL, const char *encoding, int options),
     (buffer, size, URL, encoding, options))
LAZY_VOID(xmlFreeDoc, (xmlDocPtr cur), (cur))
LAZY(xmlNodePtr, NULL, xmlDocGetRootElement, (const xmlDoc *doc), (doc))
LAZY_VOID(xmlSetStructuredErrorFunc, (void *ctx, xmlStructuredErrorFunc handler), (ctx, handler))
LAZY(int, 1, xmlKeepBlanksDefault, (int val), (val))
LAZY_VOID(xmlDocDumpFormatMemoryEnc,
	  (xmlDocPtr out_doc, xmlChar **doc_txt_ptr, int *doc_txt_len, const char *txt_encoding,
	   int format),
	  (out_doc, doc_txt_ptr, doc_txt_len, txt_encoding, format))
LAZY(long, -1, xmlGetLineNo, (const xmlNode *node), (node))
LAZY(xmlNsPtr, NULL, xmlNewNs, (xmlNodePtr node, const xmlChar *href, const xmlChar *prefix),
     (node, href, prefix))
LAZY(xmlNsPtr, NULL, xmlSearchNsByHref, (xmlDocPtr doc, xmlNodePtr node, const xmlChar *href),
     (doc, node, href))
LAZY_VOID(xmlSetNs, (xmlNodePtr node, xmlNsPtr ns), (node, ns))
LAZY(xmlNodePtr, NULL, xmlNewNode, (xmlNsPtr ns, const xmlChar *name), (ns, name))
LAZY(xmlNodePtr, NULL, xmlNewChild,
     (xmlNodePtr parent, xmlNsPtr ns, const xmlChar *name, const xmlChar *content),
     (parent, ns, name, content))
LAZY(xmlNodePtr, NULL, xmlAddChild, (xmlNodePtr parent, xmlNodePtr cur), (parent, cur))
LAZY(xmlNodePtr, NULL, xmlAddPrevSibling, (xmlNodePtr cur, xmlNodePtr elem), (cur, elem))
LAZY(xmlNodePtr, NULL, xmlAddNextSibling, (xmlNodePtr cur, xmlNodePtr elem), (cur, elem))
LAZY(xmlNodePtr, NULL, xmlReplaceNode, (xmlNodePtr old, xmlNodePtr cur), (old, cur))
LAZY_VOID(xmlUnlinkNode, (xmlNodePtr cur), (cur))
LAZY_VOID(xmlFreeNode, (xmlNodePtr cur), (cur))
LAZY(xmlAttrPtr, NULL, xmlSetProp, (xmlNodePtr node, const xmlChar *name, const xmlChar *value),
     (node, name, value))
LAZY(xmlChar *, NULL, xmlGetProp, (const xmlNode *node, const xmlChar *name), (node, name))
LAZY_VOID(xmlNodeSetContent, (xmlNodePtr cur, const xmlChar *content), (cur, content))
LAZY(xmlChar *, NULL, xmlNodeGetContent, (const xmlNode *cur), (cur))
LAZY(int, -1, xmlStrcmp, (const xmlChar *str1, const xmlChar *str2), (str1, str2))
LAZY(int, -1, xmlStrncmp, (const xmlChar *str1, const xmlChar *str2, int len), (str1, str2, len))
LAZY(const xmlChar *, NULL, xmlStrstr, (const xmlChar *str, const xmlChar *val), (str, val))

/* xmlFree is a variable in libxml2 (its deallocator): ours calls its value */
static void lazy_free(void *p)
{
	xmlFreeFunc *real;

	if (p && (real = sym("xmlFree")))
		(*real)(p);
}

HIDDEN xmlFreeFunc xmlFree = lazy_free;
