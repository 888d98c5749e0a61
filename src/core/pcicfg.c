// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pure parsers for what sysfs hands us: config-space bytes and the
 * "resource" file.  No I/O here, so tests/fuzz can feed them anything;
 * malformed input yields -EINVAL or partial data, never a read out of bounds.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/pcicfg.h"
#include "shared/util.h"

#define CFG_STATUS	    0x06
#define CFG_STATUS_CAP_LIST 0x10
#define CFG_HEADER_TYPE	    0x0e
#define CFG_CAP_PTR	    0x34
#define CFG_SUBSYS_VENDOR   0x2c
#define CAP_ID_SSVID	    0x0d
#define CAP_ID_EXP	    0x10
#define CAP_ID_MSI	    0x05
#define CAP_ID_MSIX	    0x11
#define MSI_FLAGS_64BIT	    0x0080
#define MSI_FLAGS_MASKBIT   0x0100
#define EXP_FLAGS	    0x02
#define EXP_LNKCAP	    0x0c
#define EXP_LNKSTA	    0x12
#define EXT_CAP_START	    0x100
#define EXT_CAP_ID_ACS	    0x0d
#define EXT_CAP_ID_ATS	    0x0f
#define EXT_CAP_ID_SRIOV    0x10
#define CFG_SUBORDINATE	    0x1a

/* Kernel IORESOURCE_* flags as printed in the resource file. */
#define IORESOURCE_IO	    0x00000100
#define IORESOURCE_MEM	    0x00000200
#define IORESOURCE_PREFETCH 0x00002000
#define IORESOURCE_MEM_64   0x00100000
#define IORESOURCE_UNSET    0x20000000

static unsigned rd8(const uint8_t *b, size_t len, size_t off)
{
	return off < len ? b[off] : 0;
}

static unsigned rd16(const uint8_t *b, size_t len, size_t off)
{
	return off + 1 < len ? (unsigned)b[off] | (unsigned)b[off + 1] << 8 : 0;
}

static uint32_t rd32(const uint8_t *b, size_t len, size_t off)
{
	return off + 3 < len ? (uint32_t)rd16(b, len, off) | (uint32_t)rd16(b, len, off + 2) << 16
			     : 0;
}

/* One "NAME COUNT" line: its count, -1 when malformed. */
static long long aer_line(const char *line, size_t len, bool *total)
{
	const char *sp = memchr(line, ' ', len);
	long long v = 0;
	const char *c;

	if (!sp || sp == line || sp + 1 == line + len)
		return -1;
	for (c = sp + 1; c < line + len; c++) {
		if (*c < '0' || *c > '9' || v > (LLONG_MAX - (*c - '0')) / 10)
			return -1;
		v = v * 10 + (*c - '0');
	}
	*total = (size_t)(sp - line) > 6 && !memcmp(line, "TOTAL_", 6);
	return v;
}

long long gp_aer_total(const char *text)
{
	long long sum = 0, v;
	bool total = false, any = false;

	while (*text) {
		size_t len = strcspn(text, "\n");

		if (len) {
			v = aer_line(text, len, &total);
			if (v < 0)
				return -1;
			if (total)
				return v;
			sum = sum > LLONG_MAX - v ? LLONG_MAX : sum + v;
			any = true;
		}
		text += len + (text[len] == '\n');
	}
	return any ? sum : -1;
}

double gp_link_speed_gts(unsigned code)
{
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };

	return code < ARRAY_SIZE(gts) ? gts[code] : 0;
}

/*
 * One direction, in GB/s: 8b/10b encoding up to 5 GT/s, 128b/130b from
 * 8 GT/s, and FLIT mode (242 of 256 bytes carry data) at 64 GT/s.
 */
double gp_link_bandwidth(double gts, int width)
{
	double eff;

	if (gts <= 0 || width <= 0)
		return 0;
	if (gts <= 5.0)
		eff = 8.0 / 10.0;
	else if (gts < 64.0)
		eff = 128.0 / 130.0;
	else
		eff = 242.0 / 256.0;
	return gts * width * eff / 8.0;
}

/* Walks the legacy capability list, bounded so a loop in it ends. */
static size_t find_cap(const uint8_t *b, size_t len, unsigned id)
{
	size_t pos;
	int guard;

	if (!(rd16(b, len, CFG_STATUS) & CFG_STATUS_CAP_LIST))
		return 0;
	pos = rd8(b, len, CFG_CAP_PTR) & ~3u;
	for (guard = 0; pos >= 0x40 && pos < 0x100 && guard < 48; guard++) {
		if (rd8(b, len, pos) == id)
			return pos;
		pos = rd8(b, len, pos + 1) & ~3u;
	}
	return 0;
}

/* MSI's length follows its flags (PCI spec 6.8.1); MSI-X has 12 bytes. */
static uint8_t cap_len(const uint8_t *b, size_t len, size_t pos)
{
	unsigned flags = rd16(b, len, pos + 2);

	if (rd8(b, len, pos) == CAP_ID_MSIX)
		return 12;
	if (rd8(b, len, pos) != CAP_ID_MSI)
		return 0;
	return (uint8_t)(10 + (flags & MSI_FLAGS_64BIT ? 4 : 0) +
			 (flags & MSI_FLAGS_MASKBIT ? 10 : 0));
}

/* The standard list in its order, bounded like find_cap(). */
static int list_caps(const uint8_t *b, size_t len, struct gp_cap *caps, int max)
{
	size_t pos;
	int n = 0;

	if (len < 0x100 || !(rd16(b, len, CFG_STATUS) & CFG_STATUS_CAP_LIST))
		return 0;
	pos = rd8(b, len, CFG_CAP_PTR) & ~3u;
	for (; pos >= 0x40 && pos < 0x100 && n < max; n++) {
		caps[n] = (struct gp_cap){ (uint8_t)rd8(b, len, pos), (uint8_t)pos,
					   cap_len(b, len, pos) };
		pos = rd8(b, len, pos + 1) & ~3u;
	}
	return n;
}

static size_t find_ext_cap(const uint8_t *b, size_t len, unsigned id)
{
	size_t pos = EXT_CAP_START;
	int guard;

	for (guard = 0; pos >= EXT_CAP_START && pos + 4 <= len && guard < 960; guard++) {
		uint32_t hdr = rd32(b, len, pos);

		if (hdr == 0 || hdr == 0xffffffff)
			return 0;
		if ((hdr & 0xffff) == id)
			return pos;
		pos = (hdr >> 20) & ~3u;
	}
	return 0;
}

/*
 * SR-IOV (PCIe base spec 9.3.3): First VF Offset at +0x14, VF Stride at
 * +0x16, VF Device ID at +0x1a; a bridge's subordinate bus number, which
 * bounds the buses its VFs may take.
 */
static void sriov(const uint8_t *buf, size_t len, struct gp_cfg *out)
{
	size_t pos = find_ext_cap(buf, len, EXT_CAP_ID_SRIOV);

	out->sub_bus = out->header_type == 1 ? (int)rd8(buf, len, CFG_SUBORDINATE) : -1;
	if (!pos || pos + 0x1c > len)
		return;
	out->has_sriov = true;
	out->vf_offset = (uint16_t)rd16(buf, len, pos + 0x14);
	out->vf_stride = (uint16_t)rd16(buf, len, pos + 0x16);
	out->vf_device = (uint16_t)rd16(buf, len, pos + 0x1a);
}

int gp_cfg_parse(const uint8_t *buf, size_t len, struct gp_cfg *out)
{
	size_t exp, acs, ats;

	memset(out, 0, sizeof(*out));
	out->pcie_type = GP_PCIE_NONE;
	if (len < 0x40)
		return -EINVAL;
	out->vendor = rd16(buf, len, 0);
	out->device = rd16(buf, len, 2);
	out->header_type = rd8(buf, len, CFG_HEADER_TYPE) & 0x7f;
	if (out->header_type == 0) {
		out->svendor = rd16(buf, len, CFG_SUBSYS_VENDOR);
		out->sdevice = rd16(buf, len, CFG_SUBSYS_VENDOR + 2);
	} else if (out->header_type == 1) {
		/* a bridge's are in its SSVID capability, where the kernel reads
		 * them for sysfs (and NCCL tells Broadcom switch levels apart by them) */
		size_t ssvid = find_cap(buf, len, CAP_ID_SSVID);

		if (ssvid) {
			out->svendor = rd16(buf, len, ssvid + 4);
			out->sdevice = rd16(buf, len, ssvid + 6);
		}
	}
	exp = find_cap(buf, len, CAP_ID_EXP);
	if (exp) {
		uint32_t lnkcap = rd32(buf, len, exp + EXP_LNKCAP);
		unsigned lnksta = rd16(buf, len, exp + EXP_LNKSTA);

		out->pcie_type = (rd16(buf, len, exp + EXP_FLAGS) >> 4) & 0xf;
		out->link.max_speed = gp_link_speed_gts(lnkcap & 0xf);
		out->link.max_width = (lnkcap >> 4) & 0x3f;
		out->link.speed = gp_link_speed_gts(lnksta & 0xf);
		out->link.width = (lnksta >> 4) & 0x3f;
	}
	out->ncaps = list_caps(buf, len, out->caps, GP_MAX_CAPS);
	/* ATS (PCIe base spec 7.8.3): control at +6, bit 15 Enable */
	out->ats = -1;
	ats = find_ext_cap(buf, len, EXT_CAP_ID_ATS);
	if (ats && ats + 8 <= len)
		out->ats = (rd16(buf, len, ats + 6) >> 15) & 1;
	acs = find_ext_cap(buf, len, EXT_CAP_ID_ACS);
	if (acs && acs + 8 <= len) {
		out->has_acs = true;
		out->acs_pos = (int)acs;
		out->acs_cap = rd16(buf, len, acs + 4);
		out->acs_ctrl = rd16(buf, len, acs + 6);
	}
	sriov(buf, len, out);
	return 0;
}

/*
 * The resource file: one "start end flags" line per region, BARs first.
 * Returns the number of BARs with a size, or -EINVAL on a malformed line.
 */
/* 0x and 16 hex digits, as the kernel prints each field: its value, or -1. */
static int hex16(const char *p, unsigned long long *v)
{
	unsigned long long x = 0;
	int i, d;

	if (p[0] != '0' || p[1] != 'x')
		return -1;
	for (i = 2; i < 18; i++) {
		d = gp_hex_digit(p[i]);
		if (d < 0)
			return -1;
		x = x << 4 | (unsigned)d;
	}
	*v = x;
	return 0;
}

/*
 * A line exactly as the kernel writes it ("0x%016llx 0x%016llx 0x%016llx\n"):
 * the next line, or NULL for anything else, which strtoull then reads.  Most
 * of a scan's parsing, without strtoull's locale and base handling.
 */
static const char *kernel_line(const char *p, unsigned long long v[3])
{
	static const char unused[] = "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
	int i;

	if (!strncmp(p, unused, sizeof(unused) - 1)) { /* most lines: no region */
		v[0] = v[1] = v[2] = 0;
		return p + sizeof(unused) - 1;
	}
	for (i = 0; i < 3; i++, p += 19) {
		if (hex16(p, &v[i]) || p[18] != (i < 2 ? ' ' : '\n'))
			return NULL;
	}
	return p;
}

/* Any other spelling strtoull takes: the next line, or NULL when malformed. */
static const char *any_line(const char *p, unsigned long long v[3])
{
	char *e1, *e2, *e3;

	errno = 0;
	v[0] = strtoull(p, &e1, 16);
	v[1] = strtoull(e1, &e2, 16);
	v[2] = strtoull(e2, &e3, 16);
	if (e1 == p || e2 == e1 || e3 == e2 || errno)
		return NULL;
	while (*e3 == ' ' || *e3 == '\t' || *e3 == '\r')
		e3++;
	if (*e3 && *e3 != '\n')
		return NULL;
	return *e3 ? e3 + 1 : e3;
}

int gp_resource_parse(const char *text, struct gp_bar *bars, int max)
{
	const char *p = text, *next;
	int line, n = 0;

	for (line = 0; *p && line < GP_MAX_BARS; line++) {
		unsigned long long v[3], start, end, flags;

		next = kernel_line(p, v);
		if (!next)
			next = any_line(p, v);
		if (!next)
			return -EINVAL;
		p = next;
		start = v[0];
		end = v[1];
		flags = v[2];
		if (start == 0 && end == 0)
			continue; /* no region behind this line */
		if (end < start || end - start == UINT64_MAX)
			return -EINVAL; /* no size fits */
		if (n == max)
			continue;
		bars[n] = (struct gp_bar){
			.index = line,
			.addr = start,
			.size = end - start + 1,
			.is64 = flags & IORESOURCE_MEM_64,
			.prefetchable = flags & IORESOURCE_PREFETCH,
			.io = flags & IORESOURCE_IO,
			.unset = (flags & IORESOURCE_UNSET) || start == 0,
		};
		n++;
	}
	return n;
}
