/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Digests and encodings (codec.c): SHA-256, base64. */
#ifndef GP_CODEC_H
#define GP_CODEC_H

#include <stddef.h>

void gp_sha256_hex(const void *data, size_t len, char out[65]);
char *gp_base64_encode(const void *data, size_t len);
int gp_base64_decode(const char *text, char **out, size_t *len);

#endif
