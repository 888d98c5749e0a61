/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's document primitives (section, table, row, block, list,
 * command), shared by its files: the same calls write HTML and Markdown, so
 * that the two cannot drift apart.  Inline, each file keeps its own.
 */
#ifndef GP_REPORT_DOC_H
#define GP_REPORT_DOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "shared/escape.h"

struct doc {
	FILE *f;
	bool html;
	int cols; /* of the open table */
};

static inline const char *E(const struct doc *o, const char *s)
{
	return o->html ? gp_xml(s) : gp_md(s);
}

static inline void out(const struct doc *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void out(const struct doc *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

static inline void section(const struct doc *o, const char *id, const char *title)
{
	if (o->html)
		out(o, "</section>\n<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
	else
		out(o, "\n## %s\n\n", title);
}

static inline void heading(const struct doc *o, const char *title)
{
	if (o->html)
		out(o, "<h3>%s</h3>\n", title);
	else
		out(o, "\n### %s\n\n", title);
}

/* Already escaped text between the markup of a block: a paragraph, a list item. */
static inline void vblock(const struct doc *o, const char *pre, const char *post, const char *fmt,
			  va_list ap) __attribute__((format(printf, 4, 0)));

static inline void vblock(const struct doc *o, const char *pre, const char *post, const char *fmt,
			  va_list ap)
{
	fputs(pre, o->f);
	vfprintf(o->f, fmt, ap);
	fputs(post, o->f);
}

static inline void para(const struct doc *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void para(const struct doc *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vblock(o, o->html ? "<p>" : "", o->html ? "</p>\n" : "\n\n", fmt, ap);
	va_end(ap);
}

/* Headers are ours (never escaped), separated by '|'. */
static inline void table(struct doc *o, const char *cls, const char *headers)
{
	const char *p;

	o->cols = 1;
	for (p = headers; *p; p++)
		o->cols += *p == '|';
	if (o->html) {
		char *copy = gp_xstrdup(headers), *save = NULL, *h;

		out(o, "<table class=\"%s\"><thead><tr>", cls);
		for (h = strtok_r(copy, "|", &save); h; h = strtok_r(NULL, "|", &save))
			out(o, "<th scope=\"col\">%s</th>", h);
		out(o, "</tr></thead><tbody>\n");
		free(copy);
		return;
	}
	out(o, "| %s |\n|", headers);
	for (int i = 0; i < o->cols; i++)
		out(o, "---|");
	out(o, "\n");
}

/* A row of already escaped cells; attrs: the <tr>'s attributes (HTML only). */
static inline void row(const struct doc *o, const char *attrs, const char *const *cells)
{
	int i;

	if (o->html) {
		out(o, "<tr%s%s>", attrs ? " " : "", attrs ? attrs : "");
		for (i = 0; i < o->cols; i++)
			out(o, i ? "<td>%s</td>" : "<th scope=\"row\">%s</th>", cells[i]);
		out(o, "</tr>\n");
		return;
	}
	out(o, "|");
	for (i = 0; i < o->cols; i++)
		out(o, " %s |", cells[i][0] ? cells[i] : " ");
	out(o, "\n");
}

static inline void table_end(const struct doc *o)
{
	fputs(o->html ? "</tbody></table>\n" : "\n", o->f);
}

/* A fenced block: longer than any run of backticks in it. */
static inline void fence(const struct doc *o, const char *lang, const char *text)
{
	size_t run = 0, best = 2;
	const char *p;
	char *t = gp_md_block(text);

	for (p = t; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		best = run > best ? run : best;
	}
	for (run = 0; run <= best; run++)
		fputc('`', o->f);
	out(o, "%s\n%s%s", lang, t, t[0] && t[strlen(t) - 1] != '\n' ? "\n" : "");
	for (run = 0; run <= best; run++)
		fputc('`', o->f);
	out(o, "\n\n");
	free(t);
}

/* A unified diff, each line classed by its first character. */
static inline void diff_block(const struct doc *o, const char *diff)
{
	char *t, *line, *save = NULL;

	if (!o->html) {
		fence(o, "diff", diff);
		return;
	}
	t = gp_xml_block(diff);
	out(o, "<pre class=\"diff\">");
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *cls = !strncmp(line, "@@", 2)				 ? "hunk"
				  : !strncmp(line, "+++", 3) || !strncmp(line, "---", 3) ? "file"
				  : line[0] == '+'					 ? "add"
				  : line[0] == '-'					 ? "del"
											 : "ctx";

		/* inline, its newline inside: a block span plus a newline in <pre> is two lines */
		out(o, "<span class=\"%s\">%s\n</span>", cls, line);
	}
	out(o, "</pre>\n");
	free(t);
}

/* A list item of already escaped text. */
static inline void item(const struct doc *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void item(const struct doc *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vblock(o, o->html ? "<li>" : "- ", o->html ? "</li>\n" : "\n", fmt, ap);
	va_end(ap);
}

static inline void list_begin(const struct doc *o, const char *cls)
{
	if (o->html)
		out(o, "<ul class=\"%s\">\n", cls);
}

static inline void list_end(const struct doc *o)
{
	fputs(o->html ? "</ul>\n" : "\n", o->f);
}

/* A word of a command to type: quoted for the shell unless plainly safe. */
static inline const char *shq(const char *s)
{
	static char buf[4][GP_OUTPUT_LEN * 4 + 8];
	static unsigned next;
	char *b = buf[next++ % 4], *p = b;

	if (s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			      "_./:@%+=,-") == strlen(s))
		return s;
	*p++ = '\'';
	for (; *s && p < b + sizeof(buf[0]) - 6; s++)
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	*p++ = '\'';
	*p = '\0';
	return b;
}

/* A command to type, as a block of its own. */
static inline void command(const struct doc *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void command(const struct doc *o, const char *fmt, ...)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	va_list ap;

	if (!f)
		abort(); /* no memory, as gp_xcalloc */
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	if (o->html)
		out(o, "<pre class=\"cmd\">%s</pre>\n", gp_xml(text));
	else
		fence(o, "sh", text);
	free(text);
}

/* report_change.c: the change's impact, duration, checks afterwards, when to roll back */
void gp_report_impact(struct doc *o, const struct gp_dossier *d);
void gp_report_duration(struct doc *o, const struct gp_dossier *d);
void gp_report_verification(struct doc *o, const struct gp_dossier *d);
void gp_report_rollback(struct doc *o, const struct gp_dossier *d);

#endif
