// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unified diffs of two texts, as diff -u prints them: what plan --diff and
 * the report show for every file a persist step writes.  Pure: texts in,
 * text out.  Lines are compared with their newline, so a last line without
 * one differs from the same line with it ("\ No newline at end of file").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/udiff.h"

#define CONTEXT	  3
#define MAX_CELLS (4u << 20) /* LCS table; beyond it, the middle is replaced whole */

struct lines {
	const char **p;
	size_t *len;
	size_t n;
};

enum op_kind {
	OP_EQ,
	OP_DEL,
	OP_ADD
};

/* One line of the edit script; a and b: lines of old and new before it. */
struct op {
	enum op_kind kind;
	size_t a, b;
};

struct script {
	struct op *ops;
	size_t n;
};

static void split(const char *text, struct lines *l)
{
	const char *s = text ? text : "";
	size_t cap = 16;

	l->n = 0;
	l->p = gp_xcalloc(cap, sizeof(*l->p));
	l->len = gp_xcalloc(cap, sizeof(*l->len));
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);

		if (l->n == cap) {
			cap *= 2;
			l->p = gp_xrealloc(l->p, cap, sizeof(*l->p));
			l->len = gp_xrealloc(l->len, cap, sizeof(*l->len));
		}
		l->p[l->n] = s;
		l->len[l->n++] = n;
		s += n;
	}
}

static bool same(const struct lines *x, size_t i, const struct lines *y, size_t j)
{
	return x->len[i] == y->len[j] && !memcmp(x->p[i], y->p[j], x->len[i]);
}

static void emit(struct script *s, enum op_kind kind, size_t a, size_t b)
{
	s->ops[s->n].kind = kind;
	s->ops[s->n].a = a;
	s->ops[s->n++].b = b;
}

/* The middle [a0,a1) x [b0,b1) by the longest common subsequence of its lines. */
static void lcs(const struct lines *x, size_t a0, size_t a1, const struct lines *y, size_t b0,
		size_t b1, struct script *s)
{
	size_t n = a1 - a0, m = b1 - b0, i, j, w = m + 1;
	unsigned *t;

	if (n && m && (n + 1) > MAX_CELLS / w)
		n = m = 0; /* too big to align: every old line goes, every new one comes */
	t = gp_xcalloc((n + 1) * w, sizeof(*t));
	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			t[i * w + j] = same(x, a0 + i, y, b0 + j)
					       ? t[(i + 1) * w + j + 1] + 1
					       : (t[(i + 1) * w + j] > t[i * w + j + 1]
							  ? t[(i + 1) * w + j]
							  : t[i * w + j + 1]);
	i = j = 0;
	while (i < n && j < m) {
		if (same(x, a0 + i, y, b0 + j)) {
			emit(s, OP_EQ, a0 + i++, b0 + j++);
		} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
			emit(s, OP_DEL, a0 + i++, b0 + j);
		} else {
			emit(s, OP_ADD, a0 + i, b0 + j++);
		}
	}
	for (; a0 + i < a1; i++)
		emit(s, OP_DEL, a0 + i, b0 + j);
	for (; b0 + j < b1; j++)
		emit(s, OP_ADD, a1, b0 + j);
	free(t);
}

static void diff_lines(const struct lines *x, const struct lines *y, struct script *s)
{
	size_t pre = 0, suf = 0, k;

	s->n = 0;
	s->ops = gp_xcalloc(x->n + y->n + 1, sizeof(*s->ops));
	while (pre < x->n && pre < y->n && same(x, pre, y, pre))
		pre++;
	while (suf < x->n - pre && suf < y->n - pre && same(x, x->n - 1 - suf, y, y->n - 1 - suf))
		suf++;
	for (k = 0; k < pre; k++)
		emit(s, OP_EQ, k, k);
	lcs(x, pre, x->n - suf, y, pre, y->n - suf, s);
	for (k = suf; k > 0; k--)
		emit(s, OP_EQ, x->n - k, y->n - k);
}

static void put_line(FILE *f, char mark, const char *p, size_t len)
{
	fputc(mark, f);
	fwrite(p, 1, len, f);
	if (!len || p[len - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", f);
}

/* "-3,2": where a side of the hunk starts (the line before, when it has none) and its length */
static void range(FILE *f, char sign, size_t first, size_t count)
{
	fprintf(f, "%c%zu", sign, count ? first + 1 : first);
	if (count != 1)
		fprintf(f, ",%zu", count);
}

static void hunk(FILE *f, const struct script *s, size_t from, size_t to, const struct lines *x,
		 const struct lines *y)
{
	size_t k, na = 0, nb = 0;

	for (k = from; k < to; k++) {
		na += s->ops[k].kind != OP_ADD;
		nb += s->ops[k].kind != OP_DEL;
	}
	fputs("@@ ", f);
	range(f, '-', s->ops[from].a, na);
	fputc(' ', f);
	range(f, '+', s->ops[from].b, nb);
	fputs(" @@\n", f);
	for (k = from; k < to; k++) {
		const struct op *o = &s->ops[k];

		if (o->kind == OP_ADD)
			put_line(f, '+', y->p[o->b], y->len[o->b]);
		else
			put_line(f, o->kind == OP_DEL ? '-' : ' ', x->p[o->a], x->len[o->a]);
	}
}

/* The next change at or after k, or n. */
static size_t next_change(const struct script *s, size_t k)
{
	while (k < s->n && s->ops[k].kind == OP_EQ)
		k++;
	return k;
}

static void hunks(FILE *f, const struct script *s, const struct lines *x, const struct lines *y)
{
	size_t c = next_change(s, 0), from, end, nc;

	while (c < s->n) {
		from = c > CONTEXT ? c - CONTEXT : 0;
		end = c;
		for (;;) {
			while (end < s->n && s->ops[end].kind != OP_EQ)
				end++;
			nc = next_change(s, end);
			if (nc >= s->n || nc - end > 2 * CONTEXT)
				break;
			end = nc;
		}
		nc = next_change(s, end);
		end = end + CONTEXT < s->n ? end + CONTEXT : s->n;
		hunk(f, s, from, end, x, y);
		c = nc;
	}
}

char *gp_udiff(const char *old, const char *new, const char *old_label, const char *new_label)
{
	struct lines x, y;
	struct script s;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (old == new || (old && new && !strcmp(old, new)))
		return NULL;
	split(old, &x);
	split(new, &y);
	diff_lines(&x, &y, &s);
	f = open_memstream(&out, &len);
	if (!f)
		abort(); /* no memory: as gp_xcalloc does */
	fprintf(f, "--- %s\n+++ %s\n", old ? old_label : "/dev/null",
		new ? new_label : "/dev/null");
	hunks(f, &s, &x, &y);
	fclose(f);
	free(s.ops);
	free(x.p);
	free(x.len);
	free(y.p);
	free(y.len);
	return out;
}
