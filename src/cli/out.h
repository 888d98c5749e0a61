/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output layer (out.c): what a command prints, text for operators or
 * JSON for fleets, through one writer.
 *
 * A command says each value once, with its JSON key and, where its text
 * shows it in place, its text format (iproute2's print_string() model):
 * with --json it becomes a member of the document (key NULL: an element of
 * the open array), as text it prints fmt (NULL: nothing).  The JSON comes
 * out as json-c's pretty printer writes it (the goldens and fleets parse
 * it), one value at a time: a host's thousands of devices are never held
 * as one document.  Strings go through gp_json_escape() (shared/escape.h).
 *
 * Text tables are rows of cells (struct gp_rows): measured over every row,
 * then printed each column as wide as its widest cell.
 */
#ifndef GP_OUT_H
#define GP_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include <json.h>

#include "cli/term.h"
#include "core/model.h"
#include "shared/escape.h"

/* ---- bytes gathered for a stream, handed over with one fwrite ---- */

/*
 * A table row, a wrapped paragraph, a document: formatted here and handed
 * to the stream with one fwrite, not a printf per cell (stdout is a cookie
 * stream: every call takes its lock and walks a format).  Whoever fills one
 * flushes it before printing anything else.  f NULL: stdout (as it is at
 * the flush).
 */
struct gp_obuf {
	FILE *f;
	size_t n;
	char b[4096];
};

void gp_ob_flush(struct gp_obuf *o);
void gp_ob_put(struct gp_obuf *o, const char *s, size_t n);
void gp_ob_str(struct gp_obuf *o, const char *s);
void gp_ob_char(struct gp_obuf *o, char c);
void gp_ob_blanks(struct gp_obuf *o, int n);
void gp_ob_long(struct gp_obuf *o, long v);
/* v in decimal (room for 22), as %04x (room for 9): their length */
size_t gp_fmt_long(char *buf, long v);
size_t gp_fmt_hex4(char *buf, unsigned v);

/* ---- the writer ---- */

/* What --json prints on error when a command printed no document itself. */
extern bool gp_json_printed;

/*
 * A command's output begins: as JSON (json) or text, on f (NULL: stdout).
 * gp_out_end() ends it (JSON: the document's newline) and flushes.
 */
void gp_out_begin(FILE *f, bool json);
void gp_out_end(void);
bool gp_out_is_json(void);
/* The document of command: its object opened, schema_version, version and command in it. */
void gp_doc_begin(FILE *f, const char *command);
/*
 * A command's output on stdout: its document under --json (gp_doc_begin),
 * else its text.  gp_doc_end() ends either.
 */
void gp_cmd_begin(const char *command, bool json);
void gp_doc_end(void);
/* "host" (hostname, product, kernel) and "profile": which host and profile a document is of */
void gp_doc_host(const struct gp_host *h, const struct gp_profile *p);

void gp_open_object(const char *key);
void gp_close_object(void);
void gp_open_array(const char *key);
void gp_close_array(void);
/*
 * As text, fmt takes the value as printf does: a string through gp_tv(),
 * gp_print_int's as %lld, gp_print_uint's as %llu, a bool as "yes"/"no".
 * v NULL: null
 */
void gp_print_str(const char *key, const char *fmt, const char *v);
/* "" or NULL: null */
void gp_print_str_or_null(const char *key, const char *fmt, const char *v);
void gp_print_int(const char *key, const char *fmt, long long v);
void gp_print_uint(const char *key, const char *fmt, unsigned long long v);
/* negative: null */
void gp_print_int_or_null(const char *key, const char *fmt, long v);
void gp_print_bool(const char *key, const char *fmt, bool v);
/* A bool whose text says it in words of its own ("up"/"down"): fmt takes yes or no. */
void gp_print_flag(const char *key, const char *fmt, bool v, const char *yes, const char *no);
void gp_print_null(const char *key);
/* as json-c writes a double */
void gp_print_double(const char *key, const char *fmt, double v);
/* GT/s as a plain number: 16 rather than 16.0, 2.5 stays 2.5 */
void gp_print_gts(const char *key, double v);
/* n bytes of v as a JSON string (a NUL among them too); nothing as text */
void gp_print_strn(const char *key, const char *v, size_t n);
/*
 * Text the text output shows and JSON has no member for: a heading, a
 * sentence around values, a value JSON does not carry.  Nothing under --json.
 */
void gp_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "10de": v as a string of digits hex digits at least */
void gp_print_hex(const char *key, unsigned v, int digits);
/*
 * A json-c value (NULL: null) written by this writer; takes o's reference.
 * For JSON that is data rather than output (a step's record, the journal).
 */
void gp_print_tree(const char *key, json_object *o);

/* ---- text laid out for a reader ---- */

/*
 * Prints s from column col, broken at spaces before the text width, further
 * lines indented by indent; ends the line.  s is text as printed (values
 * through gp_tv()).
 */
void gp_wrap(const char *s, int col, int indent);
void gp_wrapf(int col, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Columns n bytes of UTF-8 take: one per character (a stray byte counts one). */
int gp_text_cols(const char *s, size_t n);

/* Which host a text output is of (and whether the profile's slot map is verified). */
void gp_host_line(const struct gp_host *h, const struct gp_profile *p);
/* The host line and the profile used, so that a pasted output stands alone. */
void gp_host_header(const struct gp_host *h, const struct gp_profile *p);

/* ---- tables ---- */

#define GP_CELL	 64 /* a cell's bytes, cut there */
#define GP_NCOLS 12

/*
 * A table: fill cell[] for a row, gp_rows_widen() each row, then fill and
 * gp_rows_print() each again.  The last column is not padded.
 */
struct gp_rows {
	int n;
	const char *const *head;
	int w[GP_NCOLS];
	char cell[GP_NCOLS][GP_CELL];
};

/* n columns headed by head: the heading cells set and measured */
void gp_rows_init(struct gp_rows *t, int n, const char *const *head);
/* the heading cells again, for printing */
void gp_rows_head(struct gp_rows *t);
void gp_rows_widen(struct gp_rows *t);
void gp_rows_print(const struct gp_rows *t);
/* A cell as snprintf(cell, GP_CELL, "%s", s) has it. */
void gp_cell(struct gp_rows *t, int c, const char *s);

/* ---- words the outputs share ---- */

const char *gp_role_name(enum gp_role r);
/* "16 GT/s x16"; what trained lower as trained/max ("16/32 GT/s x8/16"); "" unknown */
void gp_link_text(const struct gp_link *l, char *buf, size_t len);
/* gp_link_text(), "-" when unknown; a host's few kinds of link each formatted once */
void gp_link_cell(const struct gp_link *l, char *buf, size_t len);
/* Where NVLink's view comes from: "source", "seen_at" and "why", in the open object */
void gp_print_nv_source(const struct gp_nv_view *v);

#endif
