/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text from the host, a snapshot or a profile, made safe for where it goes
 * (escape.c): a terminal, a JSON string, Markdown, HTML and SVG.  The one
 * place that knows what each output kind must not receive raw.
 */
#ifndef GP_ESCAPE_H
#define GP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * n bytes of s for a terminal into out (room for 4n): control characters
 * but newline and tab, DEL, C1 controls and bytes that are not UTF-8 as
 * \xNN.  *held: the length of a UTF-8 sequence that n cuts (not written).
 */
size_t gp_term_escape(const char *s, size_t n, char *out, size_t *held);
/* A value as the text outputs print it: newline and tab as \xNN too.  Valid until 16 more calls. */
const char *gp_tv(const char *s);
/*
 * n bytes of s as the inside of a JSON string, into out (room for 6n):
 * json-c's escapes (quote, backslash, controls as \b \f \n \r \t \u00XX,
 * the slash as it is), DEL and the C1 controls as \u007f..\u009f and each
 * byte that is not UTF-8 as \ufffd, so that the document is JSON whatever
 * the host holds and the terminal filter never changes it.
 */
size_t gp_json_escape(const char *s, size_t n, char *out);
/* Whether s (n bytes) goes into a JSON string as it is: printable ASCII but quote and backslash. */
bool gp_json_plain(const char *s, size_t n);
/* Escaped for HTML/XML or Markdown, after gp_tv(); valid until 32 more calls.  NULL is "". */
const char *gp_xml(const char *s);
const char *gp_md(const char *s);
/* A multi-line text (a diff, a file) kept with its newlines and tabs; for <pre> or a fence. */
char *gp_xml_block(const char *s);
char *gp_md_block(const char *s);
/*
 * s as one shell word in single quotes (a quote inside as '\''), into out:
 * what a by-hand command names, pasted by root.  A word that does not fit
 * is "'...'": a command cut short must not run.
 */
const char *gp_sh_word(const char *s, char *out, size_t len);

#endif
