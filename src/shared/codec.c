// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 (FIPS 180-4) and base64 (RFC 4648): the journal keeps a file's
 * bytes exactly (base64, NUL bytes included) and shows only their digest.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/codec.h"
#include "shared/util.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], v[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void gp_sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const uint8_t *p = data;
	uint8_t tail[128] = { 0 };
	uint64_t bits = (uint64_t)len * 8;
	size_t i, rest, n;

	for (i = 0; i + 64 <= len; i += 64)
		block(h, p + i);
	rest = len - i;
	memcpy(tail, p + i, rest);
	tail[rest] = 0x80;
	n = rest < 56 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[n - 1 - i] = (uint8_t)(bits >> (8 * i));
	block(h, tail);
	if (n == 128)
		block(h, tail + 64);
	for (i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* out needs 4 * ((len + 2) / 3) + 1 bytes. */
char *gp_base64_encode(const void *data, size_t len)
{
	const uint8_t *p = data;
	char *out = gp_xcalloc(4 * ((len + 2) / 3) + 1, 1), *o = out;
	size_t i;

	for (i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < len ? p[i + 2] : 0);

		*o++ = b64[v >> 18];
		*o++ = b64[(v >> 12) & 63];
		*o++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	return out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* Strict: length a multiple of 4, padding only at the end; -EINVAL otherwise. */
int gp_base64_decode(const char *text, char **out, size_t *len)
{
	size_t n = strlen(text), i, o = 0;
	char *buf;

	if (n % 4)
		return -EINVAL;
	buf = gp_xcalloc(n / 4 * 3 + 1, 1);
	for (i = 0; i < n; i += 4) {
		int a = b64_value(text[i]), b = b64_value(text[i + 1]);
		int c = text[i + 2] == '=' && i + 4 == n ? -2 : b64_value(text[i + 2]);
		int d = text[i + 3] == '=' && i + 4 == n ? -2 : b64_value(text[i + 3]);

		if (a < 0 || b < 0 || c == -1 || d == -1 || (c == -2 && d != -2)) {
			free(buf);
			return -EINVAL;
		}
		buf[o++] = (char)(a << 2 | b >> 4);
		if (c >= 0)
			buf[o++] = (char)((b & 15) << 4 | c >> 2);
		if (d >= 0)
			buf[o++] = (char)((c & 3) << 6 | d);
	}
	*out = buf;
	*len = o;
	return 0;
}
