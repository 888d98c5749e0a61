// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The output layer: one writer for what the commands print, text or JSON
 * (out.h says how a command uses it), the layout of text for a reader (the
 * wrap, the tables) and the words the outputs share.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "cli/out.h"
#include "core/hostq.h"
#include "shared/util.h"

/* ---- bytes gathered for a stream ---- */

void gp_ob_flush(struct gp_obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f ? o->f : stdout);
	o->n = 0;
}

void gp_ob_put(struct gp_obuf *o, const char *s, size_t n)
{
	if (o->n + n > sizeof(o->b))
		gp_ob_flush(o);
	if (n > sizeof(o->b)) {
		fwrite(s, 1, n, o->f ? o->f : stdout);
		return;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* Room for n more bytes (n at most the buffer's size): what is held is written first if short. */
static char *ob_room(struct gp_obuf *o, size_t n)
{
	if (o->n + n > sizeof(o->b))
		gp_ob_flush(o);
	return o->b + o->n;
}

void gp_ob_str(struct gp_obuf *o, const char *s)
{
	gp_ob_put(o, s, strlen(s));
}

void gp_ob_char(struct gp_obuf *o, char c)
{
	if (o->n == sizeof(o->b))
		gp_ob_flush(o);
	o->b[o->n++] = c;
}

void gp_ob_blanks(struct gp_obuf *o, int n)
{
	static const char blanks[] = "                                ";
	int k;

	for (; n > 0; n -= k) {
		k = n < (int)sizeof(blanks) - 1 ? n : (int)sizeof(blanks) - 1;
		gp_ob_put(o, blanks, (size_t)k);
	}
}

/* v in decimal, as %llu prints it: into buf (room for 21), its length */
static size_t fmt_u64(char *buf, unsigned long long v)
{
	char tmp[24];
	size_t n = 0, k;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (k = 0; k < n; k++)
		buf[k] = tmp[n - 1 - k];
	buf[n] = '\0';
	return n;
}

/* v in decimal, as %ld prints it: into buf (room for 22), its length */
size_t gp_fmt_long(char *buf, long v)
{
	if (v >= 0)
		return fmt_u64(buf, (unsigned long long)v);
	buf[0] = '-';
	return 1 + fmt_u64(buf + 1, 0ull - (unsigned long long)v);
}

/* v as %04x prints it (more digits when it needs them): into buf (room for 9) */
size_t gp_fmt_hex4(char *buf, unsigned v)
{
	static const char digit[] = "0123456789abcdef";
	size_t n = 4, k;

	while (n < 8 && v >> (4 * n))
		n++;
	for (k = 0; k < n; k++)
		buf[k] = digit[(v >> (4 * (n - 1 - k))) & 0xf];
	buf[n] = '\0';
	return n;
}

void gp_ob_long(struct gp_obuf *o, long v)
{
	char buf[24];

	gp_ob_put(o, buf, gp_fmt_long(buf, v));
}

/*
 * ---- the writer ----
 * json-c's pretty printer (JSON_C_TO_STRING_PRETTY | SPACED | NOSLASHESCAPE),
 * byte for byte: a container opens with its bracket; each member on a line
 * of its own, indented two spaces a level, after a comma but for the first;
 * the closing bracket on a line of its own, an empty container too ("[\n  ]").
 */

#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)
#define MAX_DEPTH 64

bool gp_json_printed;

static struct {
	struct gp_obuf o;
	bool json;
	int depth;		   /* the containers open */
	bool first[MAX_DEPTH + 1]; /* the container at a depth has no member yet */
} wr;

void gp_out_begin(FILE *f, bool json)
{
	wr.o.f = f;
	wr.o.n = 0;
	wr.json = json;
	wr.depth = 0;
	if (json)
		gp_json_printed = true;
}

void gp_out_end(void)
{
	if (wr.json)
		gp_ob_char(&wr.o, '\n');
	gp_ob_flush(&wr.o);
	wr.json = false;
}

bool gp_out_is_json(void)
{
	return wr.json;
}

/* A string's quoted JSON text: as it is when it can be (most are), else escaped. */
static void put_string(const char *s, size_t n)
{
	char *p, *big;

	if (gp_json_plain(s, n) && n + 2 <= sizeof(wr.o.b)) {
		p = ob_room(&wr.o, n + 2);
		p[0] = '"';
		memcpy(p + 1, s, n);
		p[n + 1] = '"';
		wr.o.n += n + 2;
		return;
	}
	if (6 * n + 2 <= sizeof(wr.o.b)) {
		p = ob_room(&wr.o, 6 * n + 2);
		p[0] = '"';
		n = gp_json_escape(s, n, p + 1);
		p[n + 1] = '"';
		wr.o.n += n + 2;
		return;
	}
	big = gp_xcalloc(6 * n + 2, 1);
	n = gp_json_escape(s, n, big + 1);
	big[0] = big[n + 1] = '"';
	gp_ob_put(&wr.o, big, n + 2);
	free(big);
}

/* Where a value goes: after its separator and indent, and its key in an object. */
static void member(const char *key)
{
	size_t k, in = 2 * (size_t)wr.depth, n = 0;
	char *p;

	if (!wr.depth)
		return;
	k = key ? strlen(key) : 0;
	if (in + k + 8 <= sizeof(wr.o.b) && (!key || gp_json_plain(key, k))) {
		/* all of it at once: every key of ours */
		p = ob_room(&wr.o, in + k + 8);
		if (!wr.first[wr.depth])
			p[n++] = ',';
		p[n++] = '\n';
		memset(p + n, ' ', in);
		n += in;
		if (key) {
			p[n++] = '"';
			memcpy(p + n, key, k);
			n += k;
			memcpy(p + n, "\": ", 3);
			n += 3;
		}
		wr.o.n += n;
	} else {
		if (!wr.first[wr.depth])
			gp_ob_char(&wr.o, ',');
		gp_ob_char(&wr.o, '\n');
		gp_ob_blanks(&wr.o, (int)in);
		if (key) {
			put_string(key, k);
			gp_ob_put(&wr.o, ": ", 2);
		}
	}
	wr.first[wr.depth] = false;
}

static void open_container(const char *key, char c)
{
	member(key);
	gp_ob_char(&wr.o, c);
	if (wr.depth < MAX_DEPTH)
		wr.depth++;
	wr.first[wr.depth] = true;
}

static void close_container(char c)
{
	if (wr.depth)
		wr.depth--;
	gp_ob_char(&wr.o, '\n');
	gp_ob_blanks(&wr.o, 2 * wr.depth);
	gp_ob_char(&wr.o, c);
}

void gp_open_object(const char *key)
{
	if (wr.json)
		open_container(key, '{');
}

void gp_close_object(void)
{
	if (wr.json)
		close_container('}');
}

void gp_open_array(const char *key)
{
	if (wr.json)
		open_container(key, '[');
}

void gp_close_array(void)
{
	if (wr.json)
		close_container(']');
}

/* A member whose text is raw (a number, true, null). */
static void raw(const char *key, const char *text, size_t n)
{
	member(key);
	gp_ob_put(&wr.o, text, n);
}

/* The text output's part of a value: fmt with it, when the command shows it in place. */
static void text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void text(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(wr.o.f ? wr.o.f : stdout, fmt, ap);
	va_end(ap);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void gp_print_str(const char *key, const char *fmt, const char *v)
{
	if (!wr.json) {
		if (fmt)
			text(fmt, gp_tv(v ? v : ""));
		return;
	}
	if (!v) {
		raw(key, "null", 4);
		return;
	}
	member(key);
	put_string(v, strlen(v));
}

void gp_print_str_or_null(const char *key, const char *fmt, const char *v)
{
	gp_print_str(key, fmt, v && *v ? v : NULL);
}

void gp_print_int(const char *key, const char *fmt, long long v)
{
	char buf[24];

	if (!wr.json) {
		if (fmt)
			text(fmt, v);
		return;
	}
	if (v >= 0)
		raw(key, buf, fmt_u64(buf, (unsigned long long)v));
	else
		raw(key, buf, (size_t)snprintf(buf, sizeof(buf), "%lld", v));
}

void gp_print_uint(const char *key, const char *fmt, unsigned long long v)
{
	char buf[24];

	if (!wr.json) {
		if (fmt)
			text(fmt, v);
		return;
	}
	raw(key, buf, fmt_u64(buf, v));
}

void gp_print_int_or_null(const char *key, const char *fmt, long v)
{
	if (v >= 0)
		gp_print_int(key, fmt, v);
	else if (wr.json)
		raw(key, "null", 4);
	else if (fmt)
		text("%s", "-");
}

void gp_print_bool(const char *key, const char *fmt, bool v)
{
	if (!wr.json) {
		if (fmt)
			text(fmt, v ? "yes" : "no");
		return;
	}
	if (v)
		raw(key, "true", 4);
	else
		raw(key, "false", 5);
}

void gp_print_flag(const char *key, const char *fmt, bool v, const char *yes, const char *no)
{
	if (wr.json)
		gp_print_bool(key, NULL, v);
	else if (fmt)
		text(fmt, v ? yes : no);
}

void gp_print_strn(const char *key, const char *v, size_t n)
{
	if (!wr.json)
		return;
	member(key);
	put_string(v, n);
}

void gp_text(const char *fmt, ...)
{
	va_list ap;

	if (wr.json)
		return;
	va_start(ap, fmt);
	vfprintf(wr.o.f ? wr.o.f : stdout, fmt, ap);
	va_end(ap);
}

void gp_print_null(const char *key)
{
	if (wr.json)
		raw(key, "null", 4);
}

void gp_print_double(const char *key, const char *fmt, double v)
{
	json_object *o;
	const char *t;

	if (!wr.json) {
		if (fmt)
			text(fmt, v);
		return;
	}
	/* json-c's own digits: a document reads as it always did */
	o = json_object_new_double(v);
	t = json_object_to_json_string_ext(o, JSON_FLAGS);
	raw(key, t, strlen(t));
	json_object_put(o);
}

#pragma GCC diagnostic pop

void gp_print_gts(const char *key, double v)
{
	if (v == (double)(long)v)
		gp_print_int(key, NULL, (long)v);
	else
		gp_print_double(key, NULL, v);
}

void gp_print_hex(const char *key, unsigned v, int digits)
{
	char buf[16];

	if (!wr.json)
		return;
	if (digits == 4) {
		member(key);
		buf[0] = '"';
		gp_ob_put(&wr.o, buf, 1 + gp_fmt_hex4(buf + 1, v));
		gp_ob_char(&wr.o, '"');
		return;
	}
	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	gp_print_str(key, NULL, buf);
}

static void tree(const char *key, json_object *o)
{
	const char *t;
	size_t i, n;

	switch (json_object_get_type(o)) {
	case json_type_null:
		raw(key, "null", 4);
		break;
	case json_type_object: {
		open_container(key, '{');
		json_object_object_foreach (o, k, v)
			tree(k, v);
		close_container('}');
		break;
	}
	case json_type_array:
		open_container(key, '[');
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			tree(NULL, json_object_array_get_idx(o, i));
		close_container(']');
		break;
	case json_type_string:
		member(key);
		put_string(json_object_get_string(o), (size_t)json_object_get_string_len(o));
		break;
	default: /* a number or a boolean: as json-c writes it */
		t = json_object_to_json_string_ext(o, JSON_FLAGS);
		raw(key, t, strlen(t));
	}
}

void gp_print_tree(const char *key, json_object *o)
{
	if (wr.json)
		tree(key, o);
	json_object_put(o);
}

void gp_doc_begin(FILE *f, const char *command)
{
	gp_out_begin(f, true);
	gp_open_object(NULL);
	gp_print_int("schema_version", NULL, 1);
	/* which gpuprov wrote it: a fleet's documents come from several releases */
	gp_print_str("version", NULL, gp_version);
	gp_print_str("command", NULL, command);
}

void gp_cmd_begin(const char *command, bool json)
{
	if (json)
		gp_doc_begin(NULL, command);
	else
		gp_out_begin(NULL, false);
}

void gp_doc_end(void)
{
	gp_close_object();
	gp_out_end();
}

/*
 * Which host a check, topo or plan document is of, and the profile it used:
 * a document archived or pasted alone still says so (scan's "host" holds
 * more).  Additive: the members before them are as they were.
 */
void gp_doc_host(const struct gp_host *h, const struct gp_profile *p)
{
	gp_open_object("host");
	gp_print_str_or_null("hostname", NULL, h->hostname);
	gp_print_str_or_null("product", NULL, h->product);
	gp_print_str_or_null("kernel_release", NULL, h->kernel_release);
	gp_close_object();
	gp_print_str("profile", NULL, p ? p->path : NULL);
}

/* ---- text laid out for a reader ---- */

/* Columns n bytes of UTF-8 take: one per character (a stray byte counts one). */
int gp_text_cols(const char *s, size_t n)
{
	int cols = 0, k;

	while (n) {
		if (!(*s & 0x80)) { /* ASCII, most text: one column a byte */
			s++;
			n--;
			cols++;
			continue;
		}
		k = gp_utf8_len((const unsigned char *)s, n);
		if (k <= 0)
			k = 1;
		s += k;
		n -= (size_t)k;
		cols++;
	}
	return cols;
}

/*
 * Whether the word at s (up to a space) is a unit after a number: "GiB",
 * "GT/s," — the wrap keeps "4 GiB" on one line.
 */
static bool unit_word(const char *s)
{
	static const char *const units[] = { "B",    "KiB",  "MiB",  "GiB",  "TiB",  "PiB",
					     "GT/s", "GB/s", "Gb/s", "Mb/s", "MB/s", "ms" };
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		n = strlen(units[i]);
		if (strncmp(s, units[i], n))
			continue;
		for (s += n; *s && strchr(",;:.)", *s); s++)
			;
		if (!*s || *s == ' ')
			return true;
	}
	return false;
}

/*
 * The end of the word at w: with the unit that follows a number, and a
 * short quoted command ('ls -l /sys/...') whole, so that it can be copied
 * from one line.
 */
static const char *word_end(const char *w)
{
	const char *s = w, *q;

	if (*w == '\'' && (q = strchr(w + 1, '\'')) && q - w < 64 && memchr(w, ' ', q - w))
		s = q;
	while (*s && *s != ' ')
		s++;
	if (s > w && s[-1] >= '0' && s[-1] <= '9' && s[0] == ' ' && unit_word(s + 1))
		for (s++; *s && *s != ' ';)
			s++;
	return s;
}

/*
 * Prints s from column col (what the line already holds), breaking lines
 * at spaces before the text width, each further line indented by indent;
 * ends the line.  A word wider than a line overflows rather than being cut,
 * so that a path or a PCI address stays whole.  Spaces before a word are
 * kept unless the line breaks there; a number keeps its unit.  s is text as the renderers print it
 * (gp_tv()'d values), not JSON.
 */
void gp_wrap(const char *s, int col, int indent)
{
	int width = gp_text_width(), nsp, nw;
	bool fresh = col <= indent; /* nothing but the indent on this line */
	const char *sp, *w;
	struct gp_obuf o;

	o.f = NULL;
	o.n = 0;
	for (;;) {
		for (sp = s; *s == ' '; s++)
			;
		nsp = (int)(s - sp);
		w = s;
		s = word_end(w);
		if (w == s)
			break;
		nw = gp_text_cols(w, (size_t)(s - w));
		if (!fresh && col + nsp + nw > width) {
			gp_ob_put(&o, "\n", 1);
			gp_ob_blanks(&o, indent);
			col = indent;
			nsp = 0;
		}
		gp_ob_blanks(&o, nsp);
		gp_ob_put(&o, w, (size_t)(s - w));
		col += nsp + nw;
		fresh = false;
	}
	gp_ob_put(&o, "\n", 1);
	gp_ob_flush(&o);
}

void gp_wrapf(int col, int indent, const char *fmt, ...)
{
	char small[512], *s = small;
	va_list ap;
	int n;

	/* most lines fit the stack buffer: formatted once */
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) { /* a bad format: nothing, as an empty line */
		n = 0;
		small[0] = '\0';
	}
	if ((size_t)n >= sizeof(small)) {
		s = gp_xcalloc((size_t)n + 1, 1);
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	gp_wrap(s, col, indent);
	if (s != small)
		free(s);
}

/*
 * Which host a report is of and how far its profile's slot map goes, so that
 * a pasted report stands alone: hostname, DMI product, kernel.
 */
void gp_host_line(const struct gp_host *h, const struct gp_profile *p)
{
	gp_wrapf(0, 2, "host %s (%s), kernel %s",
		 h->hostname[0] ? gp_tv(h->hostname) : "(name unknown)",
		 h->product[0] ? gp_tv(h->product) : "product unknown",
		 h->kernel_release[0] ? gp_tv(h->kernel_release) : "unknown");
	if (p && p->nslots && !p->verified)
		gp_wrap("slot map not verified on hardware (verified = no): gpu.slot compares "
			"with it as written",
			0, 2);
}

/* Whose output this is, so that a pasted one stands alone. */
void gp_host_header(const struct gp_host *h, const struct gp_profile *p)
{
	gp_host_line(h, NULL);
	if (p)
		gp_wrapf(0, 2, "profile %s%s%s%s", gp_tv(p->path), p->model[0] ? " (" : "",
			 p->model[0] ? gp_tv(p->model) : "", p->model[0] ? ")" : "");
	else
		printf("no profile (-p)\n");
}

/* ---- tables ---- */

void gp_cell(struct gp_rows *t, int c, const char *s)
{
	gp_strlcpy(t->cell[c], s, GP_CELL);
}

void gp_rows_head(struct gp_rows *t)
{
	int c;

	for (c = 0; c < t->n; c++)
		gp_cell(t, c, t->head[c]);
}

void gp_rows_init(struct gp_rows *t, int n, const char *const *head)
{
	memset(t->w, 0, sizeof(t->w));
	t->n = n;
	t->head = head;
	gp_rows_head(t);
	gp_rows_widen(t);
}

void gp_rows_widen(struct gp_rows *t)
{
	int c, k;

	for (c = 0; c < t->n; c++) {
		k = gp_text_cols(t->cell[c], strlen(t->cell[c]));
		if (k > t->w[c])
			t->w[c] = k;
	}
}

void gp_rows_print(const struct gp_rows *t)
{
	struct gp_obuf o;
	int c, pad;

	o.f = NULL;
	o.n = 0;
	for (c = 0; c < t->n; c++) {
		gp_ob_str(&o, t->cell[c]);
		if (c + 1 == t->n)
			break;
		/* as printf's "%*s" pads: a negative width too */
		pad = t->w[c] - gp_text_cols(t->cell[c], strlen(t->cell[c]));
		gp_ob_blanks(&o, pad < 0 ? -pad : pad);
		gp_ob_char(&o, ' ');
	}
	gp_ob_char(&o, '\n');
	gp_ob_flush(&o);
}

/* ---- words the outputs share ---- */

const char *gp_role_name(enum gp_role r)
{
	static const char *const names[] = { "other", "gpu", "nic", "bridge" };

	return names[r];
}

/* "16 GT/s x16", or trained/max where the link trained below what it supports. */
void gp_link_text(const struct gp_link *l, char *buf, size_t len)
{
	char speed[32], width[16];

	buf[0] = '\0';
	if (!l->width && !l->max_width)
		return;
	/* only what trained lower shows both numbers: the label fits its gap */
	if (l->speed < l->max_speed)
		snprintf(speed, sizeof(speed), "%g/%g GT/s", l->speed, l->max_speed);
	else
		snprintf(speed, sizeof(speed), "%g GT/s", l->speed);
	if (l->width < l->max_width)
		snprintf(width, sizeof(width), "x%d/%d", l->width, l->max_width);
	else
		snprintf(width, sizeof(width), "x%d", l->width);
	snprintf(buf, len, "%s %s", speed, width);
}

void gp_link_cell(const struct gp_link *l, char *buf, size_t len)
{
	/* a host's links are a handful of kinds: each formatted once (%g is slow) */
	static struct {
		struct gp_link l;
		char text[64];
	} seen[8];
	static unsigned nseen;
	unsigned i;

	for (i = 0; i < nseen && i < ARRAY_SIZE(seen); i++)
		if (!memcmp(&seen[i].l, l, sizeof(*l))) {
			gp_strlcpy(buf, seen[i].text, len);
			return;
		}
	i = nseen++ % ARRAY_SIZE(seen);
	gp_link_text(l, seen[i].text, sizeof(seen[i].text));
	if (!seen[i].text[0])
		gp_strlcpy(seen[i].text, "-", sizeof(seen[i].text));
	memcpy(&seen[i].l, l, sizeof(*l));
	gp_strlcpy(buf, seen[i].text, len);
}

static const char *nv_source_name(enum gp_nv_source s)
{
	static const char *const names[] = { "none", "nvml", "remembered" };

	return names[s];
}

void gp_print_nv_source(const struct gp_nv_view *v)
{
	gp_print_str("source", NULL, nv_source_name(v->source));
	gp_print_str("seen_at", NULL, v->source == GP_NV_REMEMBERED ? v->seen_at : NULL);
	gp_print_str("why", NULL, v->source == GP_NV_NONE && v->why[0] ? v->why : NULL);
}
