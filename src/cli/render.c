// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output: text for operators, JSON (json-c, never hand-escaped) for fleets.
 * Renderers only read what host/topo/checks computed.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <json.h>

#include "core/hostq.h"
#include "core/model.h"
#include "core/pfiles.h"
#include "core/plan.h"
#include "shared/progress.h"
#include "shared/rootfs.h"
#include "cli/render.h"
#include "core/pcicfg.h"
#include "core/topo.h"
#include "cli/report.h"

#define MAX_TOPO 256

/*
 * ---- text gathered for stdout ----
 * A table row, a wrapped paragraph, a device's JSON object: formatted here
 * and handed to stdout with one fwrite, not a printf per cell (stdout is a
 * cookie stream: every call takes its lock and walks a format).  Whoever
 * fills one flushes it before printing anything else.
 */
struct outbuf {
	char b[4096];
	size_t n;
};

static void ob_flush(struct outbuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, stdout);
	o->n = 0;
}

static void ob_put(struct outbuf *o, const char *s, size_t n)
{
	if (o->n + n > sizeof(o->b))
		ob_flush(o);
	if (n > sizeof(o->b)) {
		fwrite(s, 1, n, stdout);
		return;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* Room for n more bytes (n at most the buffer's size): what is held is written first if short. */
static char *ob_room(struct outbuf *o, size_t n)
{
	if (o->n + n > sizeof(o->b))
		ob_flush(o);
	return o->b + o->n;
}

static void ob_str(struct outbuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

static void ob_char(struct outbuf *o, char c)
{
	if (o->n == sizeof(o->b))
		ob_flush(o);
	o->b[o->n++] = c;
}

static void ob_blanks(struct outbuf *o, int n)
{
	static const char blanks[] = "                                ";
	int k;

	for (; n > 0; n -= k) {
		k = n < (int)sizeof(blanks) - 1 ? n : (int)sizeof(blanks) - 1;
		ob_put(o, blanks, (size_t)k);
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
static size_t fmt_long(char *buf, long v)
{
	if (v >= 0)
		return fmt_u64(buf, (unsigned long long)v);
	buf[0] = '-';
	return 1 + fmt_u64(buf + 1, 0ull - (unsigned long long)v);
}

/* v as %04x prints it (more digits when it needs them): into buf (room for 9) */
static size_t fmt_hex4(char *buf, unsigned v)
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

static void ob_u64(struct outbuf *o, unsigned long long v)
{
	char buf[24];

	ob_put(o, buf, fmt_u64(buf, v));
}

static void ob_long(struct outbuf *o, long v)
{
	char buf[24];

	ob_put(o, buf, fmt_long(buf, v));
}

static void ob_hex4(struct outbuf *o, unsigned v)
{
	char buf[12];

	ob_put(o, buf, fmt_hex4(buf, v));
}

static const char *role_name(enum gp_role r)
{
	static const char *const names[] = { "other", "gpu", "nic", "bridge" };

	return names[r];
}

static json_object *jhex(unsigned v, int digits)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	return json_object_new_string(buf);
}

static json_object *jstr_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *jint_or_null(long v)
{
	return v >= 0 ? json_object_new_int64(v) : NULL;
}

/* GT/s as a plain number: 16 rather than 16.0, 2.5 stays 2.5 */
static json_object *jgts(double v)
{
	if (v == (double)(long)v)
		return json_object_new_int64((long)v);
	return json_object_new_double(v);
}

json_object *gp_json_doc(const char *command)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "schema_version", json_object_new_int(1));
	/* which gpuprov wrote it: a fleet's documents come from several releases */
	json_object_object_add(o, "version", json_object_new_string(gp_version));
	json_object_object_add(o, "command", json_object_new_string(command));
	return o;
}

bool gp_json_printed;

#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * DEL and the C1 controls (U+0080..U+009F): JSON allows them raw and json-c
 * writes them so, but the terminal filter (escape()) would turn them into
 * the text \xNN, which is no JSON escape.  They are written as \u007f ..
 * \u009f instead, so that the filter never changes a document.  Only
 * strings hold them in json-c's text.
 */
static int json_control(const unsigned char *u, int k)
{
	if (k == 1 && *u == 0x7f)
		return 0x7f;
	if (k == 2 && u[0] == 0xc2 && u[1] < 0xa0)
		return u[1];
	return -1;
}

/*
 * Writes json-c's text to stdout with every line after the first indented
 * by indent more spaces (json-c's pretty printer indents by two a level, so
 * a value printed alone and indented reads as if printed in place).  json-c
 * escapes control characters but copies bytes that are not UTF-8 (an
 * interface name, a slot name, a profile path): each becomes U+FFFD, so that
 * the document is JSON whatever the host holds.
 */
static void json_put(const char *s, size_t n, int indent)
{
	const char *run = s;
	int k, c = -1;

	while (n) {
		k = gp_utf8_len((const unsigned char *)s, n);
		if (k > 0 && *s != '\n' && (c = json_control((const unsigned char *)s, k)) < 0) {
			s += k;
			n -= (size_t)k;
			continue;
		}
		fwrite(run, 1, (size_t)(s - run), stdout);
		if (k <= 0)
			fputs("\\ufffd", stdout);
		else if (c >= 0)
			printf("\\u%04x", c);
		else
			printf("\n%*s", indent, "");
		k = k > 0 ? k : 1;
		s += k;
		n -= (size_t)k;
		run = s;
		c = -1;
	}
	fwrite(run, 1, (size_t)(s - run), stdout);
}

static void json_put_value(json_object *o, int indent)
{
	const char *text = json_object_to_json_string_ext(o, JSON_FLAGS);

	json_put(text, strlen(text), indent);
	json_object_put(o);
}

void gp_json_print(json_object *o)
{
	gp_json_printed = true;
	json_put_value(o, 0);
	putchar('\n');
}

/*
 * A document written a member at a time, byte for byte what gp_json_print
 * writes for the whole: the large arrays (scan's devices) are never held in
 * memory at once.  The head's members come first.
 */
static void jstream_begin(json_object *head)
{
	const char *text = json_object_to_json_string_ext(head, JSON_FLAGS);
	size_t n = strlen(text);

	gp_json_printed = true;
	/* json-c ends an object with "\n}"; the members that follow go before it */
	json_put(text, n >= 2 ? n - 2 : n, 0);
	json_object_put(head);
}

static void jstream_member(const char *key, json_object *value)
{
	printf(",\n  \"%s\": ", key);
	json_put_value(value, 2);
}

static void jstream_array_begin(const char *key)
{
	printf(",\n  \"%s\": [", key);
}

static void jstream_array_end(void)
{
	fputs("\n  ]", stdout); /* json-c writes an empty array so too */
}

static void jstream_end(void)
{
	fputs("\n}\n", stdout);
}

/* ---- the terminal ---- */

/*
 * Escapes n bytes of s for a terminal into out (room for 4n): control
 * characters other than newline and tab, DEL, C1 controls and bytes that
 * are not UTF-8 become \xNN, so that a name from sysfs, a snapshot or a
 * profile cannot move the cursor, rewrite the title or hide a line.  Valid
 * UTF-8 text is unchanged.  *held gets the length of a sequence that n cuts.
 */
static size_t escape(const char *s, size_t n, char *out, size_t *held, bool value)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;
	int k;

	*held = 0;
	while (i < n) {
		k = gp_utf8_len(u + i, n - i);
		if (k < 0) {
			*held = n - i;
			break;
		}
		if (k == 0 ||
		    (k == 1 && ((u[i] < 0x20 && (value || (u[i] != '\n' && u[i] != '\t'))) ||
				u[i] == 0x7f)) ||
		    (k == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)) {
			o += sprintf(out + o, "\\x%02x", u[i]);
			i++;
			continue;
		}
		memcpy(out + o, u + i, k);
		o += k;
		i += k;
	}
	return o;
}

size_t gp_term_escape(const char *s, size_t n, char *out, size_t *held)
{
	return escape(s, n, out, held, false);
}

/* Bytes 0x20-0x7e only: what escape() copies as they are, even in a value. */
static bool printable_ascii(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + n;

	while (u < end && *u >= 0x20 && *u < 0x7f)
		u++;
	return u == end;
}

/*
 * A value from the host, a snapshot or a profile as the text renderers
 * print it: newline and tab too become \xNN, so that a name cannot start a
 * line of its own (a forged finding or table row); the renderers' own
 * newlines are the only ones.  The result lives until 16 more calls.
 */
const char *gp_tv(const char *s)
{
	static char *ring[16];
	static size_t room[16];
	static unsigned next;
	size_t n = strlen(s), held;
	unsigned k = next++ % 16;
	char **slot = &ring[k];

	/* a slot grows and is kept: no allocation per value */
	if (room[k] < 4 * n + 1) {
		free(*slot);
		room[k] = 4 * n + 1 > 64 ? 4 * n + 1 : 64;
		*slot = gp_xcalloc(room[k], 1);
	}
	if (printable_ascii(s, n)) { /* most values: nothing to escape */
		memcpy(*slot, s, n + 1);
		return *slot;
	}
	n = escape(s, n, *slot, &held, true);
	(*slot)[n] = '\0';
	if (held) /* a cut UTF-8 sequence at the end: its bytes, escaped */
		for (; held; held--)
			n += (size_t)sprintf(*slot + n, "\\x%02x",
					     (unsigned char)s[strlen(s) - held]);
	return *slot;
}

static int text_width; /* gp_text_width(), once gp_term_streams asked; 0: ask each time */

static int terminal_width(bool tty)
{
	struct winsize ws;

	if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40 &&
	    ws.ws_col < GP_TEXT_WIDTH)
		return ws.ws_col;
	return GP_TEXT_WIDTH;
}

struct term {
	int fd;
	char held[4];
	size_t nheld;
};

/* -1 (errno set) when the descriptor takes less than all of it: a full disk. */
static int write_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (!w) {
			errno = EIO;
			return -1;
		}
		buf += w;
		n -= w;
	}
	return 0;
}

/* Whether any of the 8 bytes in x is below 0x20 or above 0x7e (a word at a time). */
static bool word_unplain(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	/* a byte below 0x20; a byte above 0x7e (or with its top bit) */
	return ((x - 0x20 * ones) & ~x & highs) || ((x + (0x7f - 0x7e) * ones) | x) & highs;
}

static bool plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
}

/* Printable ASCII, newlines and tabs: what gp_term_escape() leaves as it is. */
static bool plain_text(const char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)buf, *end = u + size;
	uint64_t x;
	int k;

	for (; end - u >= 8; u += 8) {
		memcpy(&x, u, 8);
		if (!word_unplain(x)) /* 8 printable bytes */
			continue;
		for (k = 0; k < 8; k++) /* a newline or a tab, or worse */
			if (!plain_byte(u[k]))
				return false;
	}
	for (; u < end; u++)
		if (!plain_byte(*u))
			return false;
	return true;
}

/* What the stream is told: every byte, or -1 and errno (its error flag). */
static ssize_t written(int err, size_t size)
{
	if (err == EPIPE) { /* the reader went (| head): as if SIGPIPE were not ignored */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (!err)
		return (ssize_t)size;
	errno = err; /* a report cut short must not exit 0 */
	return -1;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
	struct term *t = cookie;
	size_t n = t->nheld + size, held;
	char *in, *out;
	int rc;

	if (!t->nheld && plain_text(buf, size)) /* most of it: a table, a JSON document */
		return written(write_all(t->fd, buf, size) ? errno : 0, size);
	in = gp_xcalloc(n, 1);
	out = gp_xcalloc(4 * n + 1, 1);
	memcpy(in, t->held, t->nheld);
	memcpy(in + t->nheld, buf, size);
	rc = write_all(t->fd, out, gp_term_escape(in, n, out, &held)) ? errno : 0;
	memcpy(t->held, in + n - held, held);
	t->nheld = held;
	free(in);
	free(out);
	return written(rc, size);
}

/*
 * stdout and stderr through gp_term_escape(): every text gpuprov prints
 * (tables, findings, plans, messages) is safe for a terminal, however it
 * was formatted.  A document must pass unchanged, so its writer leaves
 * nothing here to escape: json_put() writes bad UTF-8, DEL and the C1
 * controls as \u escapes (json-c alone writes the latter raw), the domain
 * XML writes them as character references (domxml.c), and the report's
 * HTML and SVG have each value through gp_tv() first.
 */
void gp_term_streams(void)
{
	static struct term out = { .fd = 1 }, err = { .fd = 2 };
	cookie_io_functions_t io = { .write = term_write };
	FILE *o = fopencookie(&out, "w", io), *e = fopencookie(&err, "w", io);

	bool tty = isatty(STDOUT_FILENO);

	/* asked once here, not per line: a table's rows, a check's findings */
	text_width = terminal_width(tty);
	gp_color_stdout_tty(tty);
	if (o) {
		fflush(stdout);
		setvbuf(o, NULL, tty ? _IOLBF : _IOFBF, BUFSIZ);
		stdout = o;
	}
	if (e) {
		setvbuf(e, NULL, _IONBF, 0);
		stderr = e;
	}
}

/* ---- text laid out for a reader ---- */

/*
 * The width text output is laid out for: 80 columns, so that what is pasted
 * into a ticket, piped, or kept as a golden file reads the same everywhere
 * ($COLUMNS is not read).  A terminal narrower than that gets its own width,
 * down to 40.  JSON and XML are never wrapped.
 */
int gp_text_width(void)
{
	return text_width ? text_width : terminal_width(isatty(STDOUT_FILENO));
}

/* Columns n bytes of UTF-8 take: one per character (a stray byte counts one). */
static int text_cols(const char *s, size_t n)
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
	struct outbuf o;

	o.n = 0;
	for (;;) {
		for (sp = s; *s == ' '; s++)
			;
		nsp = (int)(s - sp);
		w = s;
		s = word_end(w);
		if (w == s)
			break;
		nw = text_cols(w, (size_t)(s - w));
		if (!fresh && col + nsp + nw > width) {
			ob_put(&o, "\n", 1);
			ob_blanks(&o, indent);
			col = indent;
			nsp = 0;
		}
		ob_blanks(&o, nsp);
		ob_put(&o, w, (size_t)(s - w));
		col += nsp + nw;
		fresh = false;
	}
	ob_put(&o, "\n", 1);
	fwrite(o.b, 1, o.n, stdout);
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

/* ---- scan ---- */

static json_object *link_json(const struct gp_link *l)
{
	json_object *o;

	if (!l->max_width && !l->width)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "speed_gts", jgts(l->speed));
	json_object_object_add(o, "width", json_object_new_int(l->width));
	json_object_object_add(o, "max_speed_gts", jgts(l->max_speed));
	json_object_object_add(o, "max_width", json_object_new_int(l->max_width));
	return o;
}

static json_object *bars_json(const struct gp_dev *d)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < d->nbars; i++) {
		const struct gp_bar *b = &d->bars[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "index", json_object_new_int(b->index));
		json_object_object_add(o, "size", json_object_new_uint64(b->size));
		json_object_object_add(o, "is64", json_object_new_boolean(b->is64));
		json_object_object_add(o, "prefetchable", json_object_new_boolean(b->prefetchable));
		json_object_object_add(o, "io", json_object_new_boolean(b->io));
		json_object_object_add(o, "address",
				       b->unset ? NULL : json_object_new_uint64(b->addr));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *dev_json(const struct gp_host *h, const struct gp_dev *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "bdf", json_object_new_string(d->bdf));
	json_object_object_add(o, "vendor", jhex(d->vendor, 4));
	json_object_object_add(o, "device", jhex(d->device, 4));
	json_object_object_add(o, "class", jhex(d->class, 4));
	json_object_object_add(o, "subsystem_vendor", jhex(d->svendor, 4));
	json_object_object_add(o, "subsystem_device", jhex(d->sdevice, 4));
	json_object_object_add(o, "role", json_object_new_string(role_name(d->role)));
	json_object_object_add(o, "driver", jstr_or_null(d->driver));
	json_object_object_add(o, "numa_node", jint_or_null(d->numa_node));
	json_object_object_add(o, "iommu_group", jint_or_null(d->iommu_group));
	json_object_object_add(o, "slot", jstr_or_null(d->slot));
	json_object_object_add(o, "parent",
			       d->parent >= 0 ? json_object_new_string(h->devs[d->parent].bdf)
					      : NULL);
	json_object_object_add(o, "link", link_json(&d->link));
	json_object_object_add(o, "bars", bars_json(d));
	return o;
}

static int group_cmp(const void *a, const void *b)
{
	const struct gp_dev *x = *(const struct gp_dev *const *)a;
	const struct gp_dev *y = *(const struct gp_dev *const *)b;

	return x->iommu_group != y->iommu_group ? (x->iommu_group < y->iommu_group ? -1 : 1)
						: (x < y ? -1 : x > y);
}

static json_object *groups_json(const struct gp_host *h)
{
	const struct gp_dev **byg = gp_xcalloc(h->ndevs, sizeof(*byg));
	json_object *a = json_object_new_array(), *cur = NULL;
	size_t i, n = 0;
	int last = -1;

	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].iommu_group >= 0)
			byg[n++] = &h->devs[i];
	qsort(byg, n, sizeof(*byg), group_cmp);
	for (i = 0; i < n; i++) {
		if (!cur || byg[i]->iommu_group != last) {
			json_object *g = json_object_new_object();

			last = byg[i]->iommu_group;
			cur = json_object_new_array();
			json_object_object_add(g, "id", json_object_new_int(last));
			json_object_object_add(g, "devices", cur);
			json_object_array_add(a, g);
		}
		json_object_array_add(cur, json_object_new_string(byg[i]->bdf));
	}
	free(byg);
	return a;
}

static json_object *numa_json(const struct gp_host *h)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < h->nnuma; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_int(h->numa[i].id));
		json_object_object_add(o, "cpus", json_object_new_string(h->numa[i].cpus));
		json_object_object_add(o, "memory_bytes",
				       json_object_new_uint64(h->numa[i].mem_total));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *ifaces_json(const struct gp_host *h)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < h->nifaces; i++) {
		const struct gp_iface *f = &h->ifaces[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(f->name));
		json_object_object_add(o, "pci", jstr_or_null(f->bdf));
		json_object_object_add(o, "mac", jstr_or_null(f->mac));
		json_object_object_add(o, "operstate", jstr_or_null(f->operstate));
		json_object_object_add(o, "speed_mbps", jint_or_null(f->speed));
		json_object_object_add(o, "mtu", jint_or_null(f->mtu ? f->mtu : -1));
		json_object_object_add(o, "master", jstr_or_null(f->master));
		json_object_object_add(o, "is_bond", json_object_new_boolean(f->is_bond));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *host_json(const struct gp_host *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kernel_release", jstr_or_null(h->kernel_release));
	json_object_object_add(o, "cmdline", json_object_new_string(h->cmdline));
	json_object_object_add(o, "bios_vendor", jstr_or_null(h->bios_vendor));
	json_object_object_add(o, "bios_version", jstr_or_null(h->bios_version));
	json_object_object_add(o, "product", jstr_or_null(h->product));
	json_object_object_add(o, "hostname", jstr_or_null(h->hostname));
	json_object_object_add(o, "phys_bits", jint_or_null(h->phys_bits ? h->phys_bits : -1));
	json_object_object_add(o, "iommu_groups", json_object_new_int(h->iommu_groups));
	return o;
}

/*
 * Which host a check, topo or plan document is of, and the profile it used:
 * a document archived or pasted alone still says so (scan's "host" holds
 * more).  Additive: the members before them are as they were.
 */
static void doc_head(json_object *doc, const struct gp_host *h, const struct gp_profile *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "hostname", jstr_or_null(h->hostname));
	json_object_object_add(o, "product", jstr_or_null(h->product));
	json_object_object_add(o, "kernel_release", jstr_or_null(h->kernel_release));
	json_object_object_add(doc, "host", o);
	json_object_object_add(doc, "profile", p ? json_object_new_string(p->path) : NULL);
}

static const char *nv_source_name(enum gp_nv_source s)
{
	static const char *const names[] = { "none", "nvml", "remembered" };

	return names[s];
}

static json_object *nv_source_json(const struct gp_nv_view *v)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "source", json_object_new_string(nv_source_name(v->source)));
	json_object_object_add(o, "seen_at",
			       v->source == GP_NV_REMEMBERED ? json_object_new_string(v->seen_at)
							     : NULL);
	json_object_object_add(o, "why",
			       v->source == GP_NV_NONE && v->why[0] ? json_object_new_string(v->why)
								    : NULL);
	return o;
}

static const char *remote_name(int t)
{
	return t == GP_NV_REMOTE_GPU	  ? "gpu"
	       : t == GP_NV_REMOTE_SWITCH ? "switch"
	       : t == GP_NV_REMOTE_NPU	  ? "npu"
					  : "unknown";
}

static json_object *nv_gpu_json(const struct gp_nv_gpu *g)
{
	json_object *o = json_object_new_object(), *links = json_object_new_array();
	int i;

	json_object_object_add(o, "bdf", json_object_new_string(g->bdf));
	json_object_object_add(o, "name", json_object_new_string(g->name));
	json_object_object_add(o, "version", json_object_new_int((int)g->version));
	json_object_object_add(o, "link_gbps", json_object_new_double(gp_nv_link_rate(g)));
	json_object_object_add(o, "links_up", json_object_new_int(gp_nv_links_up(g)));
	for (i = 0; i < g->nlinks; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "link", json_object_new_int(i));
		json_object_object_add(l, "up", json_object_new_boolean(g->links[i].up));
		json_object_object_add(l, "remote", jstr_or_null(g->links[i].remote));
		json_object_object_add(l, "remote_type",
				       g->links[i].up ? json_object_new_string(remote_name(
								g->links[i].remote_type))
						      : NULL);
		json_object_array_add(links, l);
	}
	json_object_object_add(o, "links", links);
	return o;
}

/* scan's "nvlink": where from, and each GPU's links as NVML gave them */
static json_object *nv_json(const struct gp_nv_view *v)
{
	json_object *o = nv_source_json(v), *gpus = json_object_new_array();
	int i;

	for (i = 0; i < v->n; i++)
		json_object_array_add(gpus, nv_gpu_json(&v->gpus[i]));
	json_object_object_add(o, "gpus", gpus);
	return o;
}

/* Where a GPU's links go, each far end once with its count: "18 to 0000:00:07.0". */
static void nv_ends(const struct gp_nv_gpu *g, char *buf, size_t len)
{
	const char *ends[GP_NV_MAX_LINKS];
	int count[GP_NV_MAX_LINKS], n = 0, l, k;
	size_t o = strlen(buf);

	for (l = 0; l < g->nlinks; l++) {
		const struct gp_nv_link *x = &g->links[l];
		const char *to = x->remote_type == GP_NV_REMOTE_SWITCH ? "NVSwitch"
				 : x->remote[0]			       ? x->remote
								       : "?";

		if (!x->up)
			continue;
		for (k = 0; k < n && strcmp(ends[k], to); k++)
			;
		if (k == n) {
			ends[n] = to;
			count[n++] = 0;
		}
		count[k]++;
	}
	for (k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s %d to %s", k ? "," : ":", count[k],
				      gp_tv(ends[k]));
}

/* One line per GPU: its links up, and where they go. */
static void nv_text(const struct gp_nv_view *v)
{
	char line[1024];
	int i;

	if (v->source == GP_NV_NONE) {
		printf("\n");
		gp_wrapf(0, 2, "NVLink not readable: %s", gp_tv(v->why));
		return;
	}
	if (v->source == GP_NV_NVML)
		printf("\nNVLink (NVML now):\n");
	else {
		printf("\n");
		gp_wrapf(0, 2, "NVLink (remembered from %s):", gp_tv(v->seen_at));
	}
	for (i = 0; i < v->n; i++) {
		const struct gp_nv_gpu *g = &v->gpus[i];
		size_t o;

		o = (size_t)snprintf(line, sizeof(line), "  %s  %d of %d links up", gp_tv(g->bdf),
				     gp_nv_links_up(g), g->nlinks);
		if (gp_nv_link_rate(g) > 0 && o < sizeof(line))
			snprintf(line + o, sizeof(line) - o, ", %.3f GB/s each",
				 gp_nv_link_rate(g));
		nv_ends(g, line, sizeof(line));
		gp_wrap(line, 0, 16);
	}
}

json_object *gp_scan_json(const struct gp_host *h)
{
	json_object *doc = gp_json_doc("scan"), *devs = json_object_new_array();
	size_t i;

	for (i = 0; i < h->ndevs; i++)
		json_object_array_add(devs, dev_json(h, &h->devs[i]));
	json_object_object_add(doc, "host", host_json(h));
	json_object_object_add(doc, "devices", devs);
	json_object_object_add(doc, "iommu_groups", groups_json(h));
	json_object_object_add(doc, "numa_nodes", numa_json(h));
	json_object_object_add(doc, "interfaces", ifaces_json(h));
	json_object_object_add(doc, "nvlink", nv_json(&h->nv));
	return doc;
}

/*
 * ---- scan --json's devices and groups, written as json-c would ----
 * Thousands of them on a big host: json-c's object, hash table and print
 * buffer for each cost more than reading the device did.  test_render
 * compares every fixture host's stream with gp_json_print(gp_scan_json()).
 */

static struct outbuf jw; /* what the jw_ writers gathered; flushed before stdio */

/* A member's key (a constant of ours); in: the member's indent */
static void jw_key(bool first, int in, const char *key)
{
	size_t k = strlen(key), n = 0;
	char *p;

	if ((size_t)in + k + 8 <= sizeof(jw.b)) { /* all of it at once: most keys */
		p = ob_room(&jw, (size_t)in + k + 8);
		if (!first)
			p[n++] = ',';
		p[n++] = '\n';
		memset(p + n, ' ', (size_t)in);
		n += (size_t)in;
		p[n++] = '"';
		memcpy(p + n, key, k);
		n += k;
		memcpy(p + n, "\": ", 3);
		jw.n += n + 3;
		return;
	}
	if (!first)
		ob_char(&jw, ',');
	ob_char(&jw, '\n');
	ob_blanks(&jw, in);
	ob_char(&jw, '"');
	ob_str(&jw, key);
	ob_put(&jw, "\": ", 3);
}

/* json-c's text of o, through json_put (what it escapes, json_put escapes on) */
static void jw_value(json_object *o, int in)
{
	ob_flush(&jw);
	json_put_value(o, in);
}

/* Plain ASCII as it is; anything json-c escapes, or not UTF-8, as json_put_value has it. */
static void jw_str(const char *s, int in)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u >= 0x20 && *u < 0x7f && *u != '"' && *u != '\\')
		u++;
	if (*u) {
		jw_value(json_object_new_string(s), in);
		return;
	}
	ob_char(&jw, '"');
	ob_put(&jw, s, (size_t)((const char *)u - s));
	ob_char(&jw, '"');
}

static void jw_str_or_null(const char *s, int in)
{
	if (s && *s)
		jw_str(s, in);
	else
		ob_str(&jw, "null");
}

static void jw_gts(double v, int in)
{
	if (v == (double)(long)v)
		ob_long(&jw, (long)v);
	else
		jw_value(json_object_new_double(v), in);
}

static void jw_close(int in, char c)
{
	ob_char(&jw, '\n');
	ob_blanks(&jw, in);
	ob_char(&jw, c);
}

static void jw_link(const struct gp_link *l, int in)
{
	if (!l->max_width && !l->width) {
		ob_str(&jw, "null");
		return;
	}
	ob_char(&jw, '{');
	jw_key(true, in + 2, "speed_gts");
	jw_gts(l->speed, in + 2);
	jw_key(false, in + 2, "width");
	ob_long(&jw, l->width);
	jw_key(false, in + 2, "max_speed_gts");
	jw_gts(l->max_speed, in + 2);
	jw_key(false, in + 2, "max_width");
	ob_long(&jw, l->max_width);
	jw_close(in, '}');
}

static void jw_bool(bool v)
{
	ob_str(&jw, v ? "true" : "false");
}

static void jw_bar(const struct gp_bar *b, int in)
{
	ob_char(&jw, '{');
	jw_key(true, in + 2, "index");
	ob_long(&jw, b->index);
	jw_key(false, in + 2, "size");
	ob_u64(&jw, b->size);
	jw_key(false, in + 2, "is64");
	jw_bool(b->is64);
	jw_key(false, in + 2, "prefetchable");
	jw_bool(b->prefetchable);
	jw_key(false, in + 2, "io");
	jw_bool(b->io);
	jw_key(false, in + 2, "address");
	if (b->unset)
		ob_str(&jw, "null");
	else
		ob_u64(&jw, b->addr);
	jw_close(in, '}');
}

static void jw_int_or_null(long v)
{
	if (v >= 0)
		ob_long(&jw, v);
	else
		ob_str(&jw, "null");
}

static void jw_hex4(unsigned v)
{
	ob_char(&jw, '"');
	ob_hex4(&jw, v);
	ob_char(&jw, '"');
}

/* dev_json(h, d) as json_put_value(..., in) writes it */
static void jw_dev(const struct gp_host *h, const struct gp_dev *d, int in)
{
	int i, m = in + 2;

	ob_char(&jw, '{');
	jw_key(true, m, "bdf");
	jw_str(d->bdf, m);
	jw_key(false, m, "vendor");
	jw_hex4(d->vendor);
	jw_key(false, m, "device");
	jw_hex4(d->device);
	jw_key(false, m, "class");
	jw_hex4(d->class);
	jw_key(false, m, "subsystem_vendor");
	jw_hex4(d->svendor);
	jw_key(false, m, "subsystem_device");
	jw_hex4(d->sdevice);
	jw_key(false, m, "role");
	jw_str(role_name(d->role), m);
	jw_key(false, m, "driver");
	jw_str_or_null(d->driver, m);
	jw_key(false, m, "numa_node");
	jw_int_or_null(d->numa_node);
	jw_key(false, m, "iommu_group");
	jw_int_or_null(d->iommu_group);
	jw_key(false, m, "slot");
	jw_str_or_null(d->slot, m);
	jw_key(false, m, "parent");
	jw_str_or_null(d->parent >= 0 ? h->devs[d->parent].bdf : NULL, m);
	jw_key(false, m, "link");
	jw_link(&d->link, m);
	jw_key(false, m, "bars");
	ob_char(&jw, '[');
	for (i = 0; i < d->nbars; i++) {
		if (i)
			ob_char(&jw, ',');
		ob_char(&jw, '\n');
		ob_blanks(&jw, m + 2);
		jw_bar(&d->bars[i], m + 2);
	}
	jw_close(m, ']');
	jw_close(in, '}');
}

/* groups_json(h) as a member of the document */
static void jw_groups(const struct gp_host *h)
{
	const struct gp_dev **byg = gp_xcalloc(h->ndevs, sizeof(*byg));
	size_t i, n = 0;

	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].iommu_group >= 0)
			byg[n++] = &h->devs[i];
	qsort(byg, n, sizeof(*byg), group_cmp);
	ob_str(&jw, ",\n  \"iommu_groups\": [");
	for (i = 0; i < n; i++) {
		bool first = !i || byg[i]->iommu_group != byg[i - 1]->iommu_group;
		bool last = i + 1 == n || byg[i + 1]->iommu_group != byg[i]->iommu_group;

		if (first) {
			ob_str(&jw, i ? ",\n    {\n      \"id\": " : "\n    {\n      \"id\": ");
			ob_long(&jw, byg[i]->iommu_group);
			ob_str(&jw, ",\n      \"devices\": [");
		}
		ob_str(&jw, first ? "\n        " : ",\n        ");
		jw_str(byg[i]->bdf, 8);
		if (last)
			ob_str(&jw, "\n      ]\n    }");
	}
	ob_str(&jw, "\n  ]");
	ob_flush(&jw);
	free(byg);
}

/*
 * What gp_json_print(gp_scan_json(h)) writes, byte for byte (the goldens
 * compare), but one device at a time: a host of thousands of functions is
 * never held as one document.
 */
static void scan_json_stream(const struct gp_host *h)
{
	json_object *doc = gp_json_doc("scan");
	size_t i;

	json_object_object_add(doc, "host", host_json(h));
	jstream_begin(doc);
	jstream_array_begin("devices");
	for (i = 0; i < h->ndevs; i++) {
		ob_str(&jw, i ? ",\n    " : "\n    ");
		jw_dev(h, &h->devs[i], 4);
	}
	ob_flush(&jw);
	jstream_array_end();
	jw_groups(h);
	jstream_member("numa_nodes", numa_json(h));
	jstream_member("interfaces", ifaces_json(h));
	jstream_member("nvlink", nv_json(&h->nv));
	jstream_end();
}

/* "16 GT/s x16"; trained/max where it trained lower: "2.5/16 GT/s x1/16" */
static void link_text(const struct gp_link *l, char *buf, size_t len)
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
	gp_report_link(l, seen[i].text, sizeof(seen[i].text));
	if (!seen[i].text[0])
		gp_strlcpy(seen[i].text, "-", sizeof(seen[i].text));
	memcpy(&seen[i].l, l, sizeof(*l));
	gp_strlcpy(buf, seen[i].text, len);
}

/* "100 Gb/s", "2.5 Gb/s", "100 Mb/s": an interface speed (Mb/s) in a unit that fits */
static void speed_text(long mbps, char *buf, size_t len)
{
	if (mbps <= 0)
		snprintf(buf, len, "-");
	else if (mbps >= 1000)
		snprintf(buf, len, "%g Gb/s", (double)mbps / 1000);
	else
		snprintf(buf, len, "%ld Mb/s", mbps);
}

/* "BAR1 128 GiB 64-bit pf": one BAR as the BARS list shows it */
/* "BAR1 128 GiB 64-bit pf": into buf (room for 96), its length */
static size_t bar_text(const struct gp_bar *b, char *buf)
{
	char size[32];
	size_t n = 3;

	gp_format_size(b->size, size, sizeof(size));
	memcpy(buf, "BAR", 3);
	n += fmt_long(buf + n, b->index);
	buf[n++] = ' ';
	n += gp_strlcpy(buf + n, size, sizeof(size));
	buf[n++] = ' ';
	n += gp_strlcpy(buf + n, b->io ? "io" : b->is64 ? "64-bit" : "32-bit", 8);
	if (!b->io && b->prefetchable)
		n += gp_strlcpy(buf + n, " pf", 4);
	if (b->unset)
		n += gp_strlcpy(buf + n, " unassigned", 12);
	return n;
}

/*
 * A device's BARs on one line, wrapped between BARs (never inside one) under
 * the first: "0000:41:00.0  BAR0 16 MiB 32-bit, BAR1 128 GiB 64-bit pf".
 */
static void bars_row(const struct gp_dev *d)
{
	int width = gp_text_width(), col, i, n;
	char bar[96];
	struct outbuf o;

	o.n = 0;
	ob_str(&o, d->bdf); /* "%-12s " */
	col = (int)strlen(d->bdf);
	ob_blanks(&o, 12 - col);
	ob_char(&o, ' ');
	col = (col > 12 ? col : 12) + 1;
	if (d->bars_bad) {
		ob_str(&o, " unreadable\n");
		ob_flush(&o);
		return;
	}
	for (i = 0; i < d->nbars; i++) {
		n = (int)bar_text(&d->bars[i], bar) + (i + 1 < d->nbars ? 1 : 0);
		if (i && col + 1 + n > width) {
			ob_char(&o, '\n');
			ob_blanks(&o, 13);
			col = 13;
		}
		ob_char(&o, ' ');
		ob_str(&o, bar);
		if (i + 1 < d->nbars)
			ob_char(&o, ',');
		col += 1 + n;
	}
	ob_char(&o, '\n');
	ob_flush(&o);
}

enum {
	SC_DEV,
	SC_ROLE,
	SC_ID,
	SC_CLASS,
	SC_DRIVER,
	SC_NUMA,
	SC_GROUP,
	SC_LINK,
	SC_SLOT,
	SC_N
};

/* A cell as snprintf(cell, 64, "%s", s) had it: cut at 63 bytes. */
static void cell_str(char *cell, const char *s)
{
	gp_strlcpy(cell, s, 64);
}

static void cell_int_or_dash(char *cell, int v)
{
	if (v >= 0)
		fmt_long(cell, v);
	else
		cell_str(cell, "-");
}

/* One row of scan's device table, each cell as printed (escaped). */
static void dev_cells(const struct gp_dev *d, char cell[SC_N][64])
{
	size_t n;

	cell_str(cell[SC_DEV], d->bdf);
	cell_str(cell[SC_ROLE], role_name(d->role));
	n = fmt_hex4(cell[SC_ID], d->vendor);
	cell[SC_ID][n++] = ':';
	fmt_hex4(cell[SC_ID] + n, d->device);
	fmt_hex4(cell[SC_CLASS], d->class);
	cell_str(cell[SC_DRIVER], d->driver[0] ? gp_tv(d->driver) : "-");
	cell_int_or_dash(cell[SC_NUMA], d->numa_node);
	cell_int_or_dash(cell[SC_GROUP], d->iommu_group);
	link_text(&d->link, cell[SC_LINK], 64);
	cell_str(cell[SC_SLOT], d->slot[0] ? gp_tv(d->slot) : "-");
}

static void table_row(char cell[][64], const int *w, int n)
{
	struct outbuf o;
	int c, pad;

	o.n = 0;
	for (c = 0; c < n; c++) {
		ob_str(&o, cell[c]);
		if (c + 1 == n)
			break;
		/* as printf's "%*s" pads: a negative width too */
		pad = w[c] - text_cols(cell[c], strlen(cell[c]));
		ob_blanks(&o, pad < 0 ? -pad : pad);
		ob_char(&o, ' ');
	}
	ob_char(&o, '\n');
	ob_flush(&o);
}

static void widen(char cell[][64], int *w, int n)
{
	int c, k;

	for (c = 0; c < n; c++) {
		k = text_cols(cell[c], strlen(cell[c]));
		if (k > w[c])
			w[c] = k;
	}
}

static const enum gp_role scan_order[] = { GP_ROLE_GPU, GP_ROLE_NIC, GP_ROLE_BRIDGE,
					   GP_ROLE_OTHER };

/* GPUs first, then NICs, bridges, the rest: each column as wide as its widest cell. */
static void scan_devices(const struct gp_host *h)
{
	static const char *const head[SC_N] = { "DEVICE", "ROLE",  "ID",   "CLASS", "DRIVER",
						"NUMA",	  "GROUP", "LINK", "SLOT" };
	char cell[SC_N][64];
	int w[SC_N] = { 0 }, c;
	size_t i, k;

	for (c = 0; c < SC_N; c++)
		snprintf(cell[c], 64, "%s", head[c]);
	widen(cell, w, SC_N);
	for (i = 0; i < h->ndevs; i++) {
		dev_cells(&h->devs[i], cell);
		widen(cell, w, SC_N);
	}
	for (c = 0; c < SC_N; c++)
		snprintf(cell[c], 64, "%s", head[c]);
	table_row(cell, w, SC_N);
	for (k = 0; k < ARRAY_SIZE(scan_order); k++)
		for (i = 0; i < h->ndevs; i++)
			if (h->devs[i].role == scan_order[k]) {
				dev_cells(&h->devs[i], cell);
				table_row(cell, w, SC_N);
			}
}

static void scan_bars(const struct gp_host *h)
{
	size_t i, k;

	printf("\nBARS (pf: prefetchable)\n");
	for (k = 0; k < ARRAY_SIZE(scan_order); k++)
		for (i = 0; i < h->ndevs; i++)
			if (h->devs[i].role == scan_order[k] &&
			    (h->devs[i].nbars || h->devs[i].bars_bad))
				bars_row(&h->devs[i]);
}

static void scan_numa(const struct gp_host *h)
{
	char cell[3][64];
	int w[3] = { 0 };
	size_t i, pass;

	for (pass = 0; pass < 2; pass++) {
		snprintf(cell[0], 64, "NODE");
		snprintf(cell[1], 64, "CPUS");
		snprintf(cell[2], 64, "MEMORY");
		if (pass)
			table_row(cell, w, 3);
		else
			widen(cell, w, 3);
		for (i = 0; i < h->nnuma; i++) {
			snprintf(cell[0], 64, "%d", h->numa[i].id);
			snprintf(cell[1], 64, "%s", gp_tv(h->numa[i].cpus));
			gp_format_size(h->numa[i].mem_total, cell[2], 64);
			if (pass)
				table_row(cell, w, 3);
			else
				widen(cell, w, 3);
		}
	}
}

static void iface_cells(const struct gp_iface *f, char cell[6][64])
{
	snprintf(cell[0], 64, "%s", gp_tv(f->name));
	snprintf(cell[1], 64, "%s", f->bdf[0] ? gp_tv(f->bdf) : "-");
	snprintf(cell[2], 64, "%s", f->mac[0] ? gp_tv(f->mac) : "-");
	speed_text(f->speed, cell[3], 64);
	snprintf(cell[4], 64, "%s", f->operstate[0] ? gp_tv(f->operstate) : "-");
	snprintf(cell[5], 64, "%s",
		 f->master[0] ? gp_tv(f->master) : (f->is_bond ? "(bond)" : "-"));
}

static void scan_ifaces(const struct gp_host *h)
{
	static const char *const head[6] = { "INTERFACE", "DEVICE", "MAC",
					     "SPEED",	  "STATE",  "MASTER" };
	char cell[6][64];
	int w[6] = { 0 }, c;
	size_t i;

	for (c = 0; c < 6; c++)
		snprintf(cell[c], 64, "%s", head[c]);
	widen(cell, w, 6);
	for (i = 0; i < h->nifaces; i++) {
		iface_cells(&h->ifaces[i], cell);
		widen(cell, w, 6);
	}
	for (c = 0; c < 6; c++)
		snprintf(cell[c], 64, "%s", head[c]);
	printf("\n");
	table_row(cell, w, 6);
	for (i = 0; i < h->nifaces; i++) {
		iface_cells(&h->ifaces[i], cell);
		table_row(cell, w, 6);
	}
}

/* Whose report this is, so that a pasted one stands alone. */
static void host_header(const struct gp_host *h, const struct gp_profile *p)
{
	gp_render_host_line(h, NULL);
	if (p)
		gp_wrapf(0, 2, "profile %s%s%s%s", gp_tv(p->path), p->model[0] ? " (" : "",
			 p->model[0] ? gp_tv(p->model) : "", p->model[0] ? ")" : "");
	else
		printf("no profile (-p)\n");
}

static void scan_text(const struct gp_host *h, const struct gp_profile *p)
{
	host_header(h, p);
	gp_wrapf(0, 2, "IOMMU groups %d, BIOS %s, CPU %d-bit physical addresses", h->iommu_groups,
		 h->bios_version[0] ? gp_tv(h->bios_version) : "unknown", h->phys_bits);
	printf("\n");
	scan_devices(h);
	scan_bars(h);
	if (h->nnuma) {
		printf("\n");
		scan_numa(h);
	}
	if (h->nifaces)
		scan_ifaces(h);
	nv_text(&h->nv);
}

void gp_render_scan(const struct gp_host *h, const struct gp_profile *p, bool json)
{
	if (json)
		scan_json_stream(h);
	else
		scan_text(h, p);
}

/* ---- topo ---- */

struct topo_item {
	int dev;
	char label[16];
	const char *ifname;
};

static int topo_items(const struct gp_host *h, struct topo_item *it, int max)
{
	size_t i, j;
	int n = 0, ngpu = 0, nnic = 0;

	for (i = 0; i < h->ndevs && n < max; i++)
		if (h->devs[i].role == GP_ROLE_GPU) {
			it[n].dev = (int)i;
			it[n].ifname = NULL;
			snprintf(it[n++].label, sizeof(it->label), "GPU%d", ngpu++);
		}
	for (i = 0; i < h->ndevs && n < max; i++) {
		if (h->devs[i].role != GP_ROLE_NIC)
			continue;
		it[n].dev = (int)i;
		it[n].ifname = NULL;
		for (j = 0; j < h->nifaces; j++)
			if (h->ifaces[j].dev == (int)i)
				it[n].ifname = h->ifaces[j].name;
		snprintf(it[n++].label, sizeof(it->label), "NIC%d", nnic++);
	}
	return n;
}

/* NVLinks between two topo items (0: none or unknown): nvidia-smi's NV# */
static int nv_links(const struct gp_host *h, const struct topo_item *a, const struct topo_item *b)
{
	if (h->devs[a->dev].role != GP_ROLE_GPU || h->devs[b->dev].role != GP_ROLE_GPU)
		return 0;
	return gp_nv_pair_links(&h->nv, gp_nv_find(&h->nv, h->devs[a->dev].bdf),
				gp_nv_find(&h->nv, h->devs[b->dev].bdf));
}

static double nv_ceiling(const struct gp_host *h, const struct topo_item *a,
			 const struct topo_item *b)
{
	return gp_nv_pair_ceiling(&h->nv, gp_nv_find(&h->nv, h->devs[a->dev].bdf),
				  gp_nv_find(&h->nv, h->devs[b->dev].bdf));
}

/* A matrix cell as nvidia-smi prints it: NV# where NVLink joins the pair, else the PCIe class. */
static const char *cell(const struct gp_host *h, const struct topo_item *it, int i, int j,
			char *buf, size_t len)
{
	int n = i == j ? 0 : nv_links(h, &it[i], &it[j]);

	if (!n)
		return gp_path_name(gp_topo_classify(h, it[i].dev, it[j].dev));
	snprintf(buf, len, "NV%d", n);
	return buf;
}

static void topo_json(const struct gp_host *h, const struct gp_profile *p,
		      const struct topo_item *it, int n)
{
	json_object *doc = gp_json_doc("topo"), *devs = json_object_new_array();
	json_object *matrix = json_object_new_array(), *links = json_object_new_array();
	json_object *nv = h->nv.source != GP_NV_NONE ? json_object_new_array() : NULL;
	int i, j;

	doc_head(doc, h, p);
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[it[i].dev];
		json_object *o = json_object_new_object(), *row = json_object_new_array();
		json_object *lrow = json_object_new_array();
		json_object *nrow = json_object_new_array();

		json_object_object_add(o, "label", json_object_new_string(it[i].label));
		json_object_object_add(o, "bdf", json_object_new_string(d->bdf));
		json_object_object_add(o, "role", json_object_new_string(role_name(d->role)));
		json_object_object_add(o, "numa_node", jint_or_null(d->numa_node));
		json_object_object_add(o, "interface", jstr_or_null(it[i].ifname));
		json_object_array_add(devs, o);
		for (j = 0; j < n; j++) {
			struct gp_hop hop = gp_topo_slowest(h, it[i].dev, it[j].dev);
			json_object *l = NULL;

			json_object_array_add(row,
					      json_object_new_string(gp_path_name(
						      gp_topo_classify(h, it[i].dev, it[j].dev))));
			if (hop.width) {
				l = json_object_new_object();
				json_object_object_add(l, "speed_gts", jgts(hop.speed));
				json_object_object_add(l, "width", json_object_new_int(hop.width));
				json_object_object_add(
					l, "bytes_per_second",
					json_object_new_uint64(
						(uint64_t)(gp_link_bandwidth(hop.speed, hop.width) *
							   1e9)));
				json_object_object_add(l, "trained_speed_gts",
						       hop.cur_width ? jgts(hop.cur_speed) : NULL);
				json_object_object_add(
					l, "trained_width",
					jint_or_null(hop.cur_width ? hop.cur_width : -1));
			}
			if (l && nv_links(h, &it[i], &it[j]))
				json_object_object_add(
					l, "nvlink_bytes_per_second",
					json_object_new_uint64(
						(uint64_t)(nv_ceiling(h, &it[i], &it[j]) * 1e9)));
			json_object_array_add(lrow, l);
			json_object_array_add(
				nrow,
				d->role == GP_ROLE_GPU && h->devs[it[j].dev].role == GP_ROLE_GPU
					? json_object_new_int(nv_links(h, &it[i], &it[j]))
					: NULL);
		}
		json_object_array_add(matrix, row);
		json_object_array_add(links, lrow);
		if (nv)
			json_object_array_add(nv, nrow);
		else
			json_object_put(nrow);
	}
	json_object_object_add(doc, "devices", devs);
	json_object_object_add(doc, "matrix", matrix);
	json_object_object_add(doc, "links", links);
	json_object_object_add(doc, "nvlink", nv);
	json_object_object_add(doc, "nvlink_source", nv_source_json(&h->nv));
	gp_json_print(doc);
}

/* Where the NV# cells come from, or why there are none. */
static void nv_footer(const struct gp_nv_view *v)
{
	if (v->source == GP_NV_NVML)
		printf("NVLink: read from NVML now.\n");
	else if (v->source == GP_NV_REMEMBERED)
		gp_wrapf(0, 2,
			 "NVLink: remembered, as NVML saw it at %s (NVML cannot see GPUs "
			 "off the nvidia driver, nor a snapshot's).",
			 gp_tv(v->seen_at));
	else
		gp_wrapf(0, 2, "NVLink not readable: %s; a bridged pair shows its PCIe path.",
			 gp_tv(v->why));
}

/* nvidia-smi's legend, wrapped under its text */
static const char *const legend[] = {
	"  X    = Self",
	"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
	"(e.g., QPI/UPI)",
	"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
	"within a NUMA node",
	"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
	"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
	"Bridge)",
	"  PIX  = Connection traversing at most a single PCIe bridge",
	"  NV#  = Connection traversing a bonded set of # NVLinks",
};

/* One pair under Paths: its class or NVLinks, the slowest hop, its ceiling. */
static void path_line(const struct gp_host *h, const struct topo_item *it, int i, int j,
		      struct gp_hop_words *w)
{
	struct gp_hop hop = gp_topo_slowest(h, it[i].dev, it[j].dev);
	char nvbuf[16];
	const char *c = cell(h, it, i, j, nvbuf, sizeof(nvbuf));
	struct outbuf o;

	o.n = 0;
	ob_str(&o, "  ");
	ob_str(&o, it[i].label);
	ob_char(&o, '-');
	ob_str(&o, it[j].label);
	ob_char(&o, '\t');
	ob_str(&o, c); /* %-4s */
	ob_blanks(&o, 4 - (int)strlen(c));
	ob_str(&o, "  ");
	if (nv_links(h, &it[i], &it[j])) {
		ob_flush(&o);
		printf("%d NVLinks  %.1f GB/s; PCIe %s  ", nv_links(h, &it[i], &it[j]),
		       nv_ceiling(h, &it[i], &it[j]),
		       gp_path_name(gp_topo_classify(h, it[i].dev, it[j].dev)));
	}
	if (!hop.width) {
		ob_str(&o, "link unknown\n");
		ob_flush(&o);
		return;
	}
	gp_hop_words(w, &hop); /* "16 GT/s x16  31.5 GB/s" */
	ob_str(&o, w->link);
	ob_str(&o, "  ");
	ob_str(&o, w->gbs);
	ob_str(&o, " GB/s");
	if (gp_hop_trained_lower(&hop)) {
		ob_flush(&o);
		printf("  (trained at %g GT/s x%d now)", hop.cur_speed, hop.cur_width);
	}
	ob_char(&o, '\n');
	ob_flush(&o);
}

/*
 * nvidia-smi's layout: the matrix (tab-separated, as scripts parse it; with
 * more than five GPUs and NICs its rows pass 80 columns, as nvidia-smi's
 * do), the devices, each pair's path, the legend.
 */
static void topo_text(const struct gp_host *h, const struct gp_profile *p,
		      const struct topo_item *it, int n)
{
	char nvbuf[16];
	int i, j;
	struct gp_hop_words words = { .n = 0 };

	host_header(h, p);
	printf("\n");
	if (!n) {
		printf("no GPUs or NICs found\n");
		return;
	}
	printf("\t");
	for (i = 0; i < n; i++)
		printf("%s\t", it[i].label);
	printf("CPU Affinity\tNUMA Affinity\n");
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[it[i].dev];
		const struct gp_numa *nn = gp_host_numa(h, d->numa_node);
		struct outbuf o;

		o.n = 0;
		ob_str(&o, it[i].label);
		ob_char(&o, '\t');
		for (j = 0; j < n; j++) {
			if (i == j)
				ob_char(&o, ' ');
			ob_str(&o, cell(h, it, i, j, nvbuf, sizeof(nvbuf)));
			ob_char(&o, '\t');
		}
		ob_flush(&o);
		if (d->numa_node >= 0)
			printf("%s\t\t%d\n", nn && nn->cpus[0] ? gp_tv(nn->cpus) : "N/A",
			       d->numa_node);
		else
			printf("N/A\t\tN/A\n");
	}
	printf("\nDevices:\n");
	for (i = 0; i < n; i++) {
		const struct gp_dev *d = &h->devs[it[i].dev];
		char link[48];

		link_text(&d->link, link, sizeof(link));
		printf("  %-5s %s  %04x:%04x  %s%s%s\n", it[i].label, d->bdf, d->vendor, d->device,
		       link, it[i].ifname ? "  " : "", it[i].ifname ? gp_tv(it[i].ifname) : "");
	}
	printf("\nPaths (slowest hop as both ends support it, P2P ceiling per direction):\n");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			path_line(h, it, i, j, &words);
	printf("\nLegend:\n\n");
	for (i = 0; i < (int)ARRAY_SIZE(legend); i++)
		gp_wrap(legend[i], 0, 9);
	printf("\n");
	nv_footer(&h->nv);
}

void gp_render_topo(const struct gp_host *h, const struct gp_profile *p, bool json)
{
	struct topo_item *it = gp_xcalloc(MAX_TOPO, sizeof(*it));
	int n = topo_items(h, it, MAX_TOPO);

	if (json)
		topo_json(h, p, it, n);
	else
		topo_text(h, p, it, n);
	free(it);
}

/* ---- check ---- */

static json_object *findings_json(const struct gp_report *r)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct gp_finding *f = &r->items[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_string(f->id));
		json_object_object_add(o, "severity",
				       json_object_new_string(gp_severity_name(f->severity)));
		json_object_object_add(o, "subject", json_object_new_string(f->subject));
		json_object_object_add(o, "message", json_object_new_string(f->message));
		json_object_object_add(o, "hint", json_object_new_string(f->hint));
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * Which host a report is of and how far its profile's slot map goes, so that
 * a pasted report stands alone: hostname, DMI product, kernel.
 */
void gp_render_host_line(const struct gp_host *h, const struct gp_profile *p)
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

static void check_json(const struct gp_host *h, const struct gp_profile *p,
		       const struct gp_report *r)
{
	json_object *doc = gp_json_doc("check"), *sum = json_object_new_object();

	doc_head(doc, h, p);
	/* verified = no, for automation as the header says it: null without a slot map */
	json_object_object_add(doc, "slot_map_verified",
			       p->nslots ? json_object_new_boolean(p->verified) : NULL);
	json_object_object_add(doc, "findings", findings_json(r));
	json_object_object_add(sum, "ok", json_object_new_int(gp_report_count(r, GP_OK)));
	json_object_object_add(sum, "warn", json_object_new_int(gp_report_count(r, GP_WARN)));
	json_object_object_add(sum, "fail", json_object_new_int(gp_report_count(r, GP_FAIL)));
	json_object_object_add(doc, "summary", sum);
	gp_json_print(doc);
}

/*
 * One finding: severity, id and subject, the message wrapped under them,
 * the hint under it with its text aligned after "hint: ".  The subject
 * column is as wide as a PCI address; a longer subject (a GPU pair, a path)
 * pushes the message on rather than the column for all.
 */
static void finding_text(const struct gp_finding *f)
{
	static const char *const label[] = { "ok", "WARN", "FAIL" };
	static const enum gp_tone tone[] = { GP_TONE_OK, GP_TONE_WARN, GP_TONE_FAIL };

	gp_fprintf_tone(stdout, tone[f->severity], "%-4s", label[f->severity]);
	gp_wrapf(4, 6, "  %-18s %-12s  %s", f->id, gp_tv(f->subject), gp_tv(f->message));
	if (f->hint[0]) {
		printf("%6s", "");
		gp_wrapf(6, 12, "hint: %s", gp_tv(f->hint));
	}
}

/*
 * What needs the reader first: failures, then warnings, then how many
 * passed (each ok finding only with -v); JSON keeps the checks' order.
 */
void gp_render_check(const struct gp_host *h, const struct gp_profile *p, const struct gp_report *r,
		     bool json, bool list_ok)
{
	static const enum gp_severity order[] = { GP_FAIL, GP_WARN, GP_OK };
	int nok = gp_report_count(r, GP_OK);
	size_t i, k;

	if (json) {
		check_json(h, p, r);
		return;
	}
	gp_wrapf(0, 2, "check against %s%s%s%s", gp_tv(p->path), p->model[0] ? " (" : "",
		 p->model[0] ? gp_tv(p->model) : "", p->model[0] ? ")" : "");
	gp_render_host_line(h, p);
	printf("\n");
	for (k = 0; k < ARRAY_SIZE(order); k++)
		for (i = 0; i < r->n; i++)
			if (r->items[i].severity == order[k] && (order[k] != GP_OK || list_ok))
				finding_text(&r->items[i]);
	if (gp_report_count(r, GP_FAIL) || gp_report_count(r, GP_WARN) || (list_ok && nok))
		printf("\n");
	printf("%d fail, %d warn, %d ok%s\n", gp_report_count(r, GP_FAIL),
	       gp_report_count(r, GP_WARN), nok,
	       nok && !list_ok ? " (-v lists the ok findings)" : "");
}

/* ---- plan ---- */

/* The blocking ids --accept would let through, as a list for automation. */
static json_object *acceptable_json(const char *ids)
{
	json_object *arr = json_object_new_array();
	char buf[256], *items[32];
	int i, n;

	gp_strlcpy(buf, ids, sizeof(buf));
	n = gp_split_list(buf, items, 32);
	for (i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_string(items[i]));
	return arr;
}

/* "0644": a file mode as chmod and Ansible write it */
static json_object *jmode(unsigned mode)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "%04o", mode & 07777);
	return json_object_new_string(buf);
}

static json_object *jsha(const char *text)
{
	char sha[65];

	if (!text)
		return NULL;
	gp_sha256_hex(text, strlen(text), sha);
	return json_object_new_string(sha);
}

/* One file a persist step writes: its new content, or only digests for a secret. */
static json_object *pfile_json(const struct gp_pfile *f)
{
	json_object *o = json_object_new_object();
	char *diff = f->secret ? NULL : gp_pfile_diff(f);

	json_object_object_add(o, "path", json_object_new_string(f->path));
	json_object_object_add(o, "step", json_object_new_string(f->step));
	json_object_object_add(o, "mode", jmode(f->mode));
	json_object_object_add(o, "secret", json_object_new_boolean(f->secret));
	json_object_object_add(o, "content", f->secret ? NULL : json_object_new_string(f->text));
	json_object_object_add(o, "sha256", jsha(f->text));
	json_object_object_add(o, "exists", json_object_new_boolean(f->now != NULL));
	json_object_object_add(o, "current_sha256", jsha(f->now));
	json_object_object_add(o, "current_error",
			       f->now_err ? json_object_new_string(gp_root_strerror(f->now_err))
					  : NULL);
	json_object_object_add(o, "changed",
			       json_object_new_boolean(!f->now || strcmp(f->now, f->text)));
	json_object_object_add(o, "diff", diff ? json_object_new_string(diff) : NULL);
	free(diff);
	return o;
}

static void plan_json(const struct gp_host *h, const struct gp_profile *p,
		      const struct gp_plan *plan, const struct gp_pfiles *pf)
{
	json_object *doc = gp_json_doc("plan"), *steps = json_object_new_array();
	json_object *blocked = json_object_new_array(), *accepted = json_object_new_array();
	size_t i;
	int k;

	doc_head(doc, h, p);
	for (i = 0; i < plan->n; i++)
		json_object_array_add(steps, gp_step_json(&plan->steps[i]));
	for (k = 0; k < plan->nblockers; k++)
		json_object_array_add(blocked, json_object_new_string(plan->blockers[k]));
	json_object_object_add(doc, "steps", steps);
	json_object_object_add(doc, "changes", json_object_new_int((int)plan->n));
	json_object_object_add(doc, "blocked", blocked);
	for (k = 0; k < plan->naccepted; k++)
		json_object_array_add(accepted, json_object_new_string(plan->accepted[k]));
	json_object_object_add(doc, "accepted", accepted);
	json_object_object_add(doc, "acceptable", acceptable_json(plan->acceptable));
	json_object_object_add(doc, "note", jstr_or_null(plan->note));
	if (pf) {
		json_object *files = json_object_new_array();

		for (i = 0; i < pf->n; i++)
			json_object_array_add(files, pfile_json(&pf->f[i]));
		json_object_object_add(doc, "files", files);
	}
	gp_json_print(doc);
}

/* plan --diff: each file as diff -u would show it against the host's copy. */
static void pfile_text(const struct gp_pfile *f)
{
	char now[65], after[65], *diff;

	printf("\n%s %s (mode %04o)", f->step, gp_tv(f->path), f->mode & 07777);
	if (f->now_err) {
		printf(": cannot read the current file: %s; written whole\n",
		       gp_root_strerror(f->now_err));
	} else if (f->now && !strcmp(f->now, f->text)) {
		printf(": unchanged\n");
		return;
	} else {
		printf(": %s\n", f->now ? "changed" : "new");
	}
	if (f->secret) {
		gp_sha256_hex(f->text, strlen(f->text), after);
		if (f->now)
			gp_sha256_hex(f->now, strlen(f->now), now);
		printf("  holds a secret (or is readable by root alone): not shown\n"
		       "  sha256 now %s\n  sha256 after %s\n",
		       f->now ? now : "(absent)", after);
		return;
	}
	diff = gp_pfile_diff(f);
	if (diff)
		fputs(diff, stdout);
	free(diff);
}

void gp_render_plan_diff(const struct gp_pfiles *pf)
{
	size_t i;

	if (!pf->n)
		printf("\nno file to write\n");
	for (i = 0; i < pf->n; i++)
		pfile_text(&pf->f[i]);
}

void gp_render_plan(const struct gp_host *h, const struct gp_profile *p, const struct gp_plan *plan,
		    const struct gp_pfiles *pf, bool json)
{
	size_t i;
	int k;

	if (json) {
		plan_json(h, p, plan, pf);
		return;
	}
	gp_wrapf(0, 2, "plan for %s: %zu change%s", gp_tv(p->path), plan->n,
		 plan->n == 1 ? "" : "s");
	gp_render_host_line(h, NULL);
	if (plan->n)
		printf("\n");
	for (i = 0; i < plan->n; i++) {
		const struct gp_step *st = &plan->steps[i];

		/* a long target goes on under the states, clear of the step numbers */
		gp_wrapf(0, 36, "%3zu  %-16s %-13s %s -> %s", i + 1, gp_step_name(st->kind),
			 gp_tv(st->subject), gp_tv(st->current), gp_tv(st->target));
	}
	if (plan->note[0]) {
		putchar('\n');
		gp_wrapf(0, 6, "note: %s", gp_tv(plan->note));
	}
	if (plan->naccepted)
		printf("\naccepted: apply goes ahead despite these failed checks:\n");
	for (k = 0; k < plan->naccepted; k++)
		gp_wrapf(0, 6, "  %s", gp_tv(plan->accepted[k]));
	if (!plan->nblockers)
		return;
	printf("\nblocked: apply refuses while these checks fail:\n");
	for (k = 0; k < plan->nblockers; k++)
		gp_wrapf(0, 6, "  %s", gp_tv(plan->blockers[k]));
	if (plan->acceptable[0])
		printf("fix them and run check again, or, once reviewed, go ahead despite them:\n"
		       "  --accept %s\n",
		       gp_tv(plan->acceptable));
}
