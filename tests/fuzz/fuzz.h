/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the libFuzzer harnesses; they run from the repository root. */
#ifndef GP_FUZZ_H
#define GP_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "core/model.h"
#include "host/host.h"
#include "host/owned.h"
#include "core/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_scratch[64];

static inline void fuzz_cleanup(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_scratch);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", fuzz_scratch);
}

/* A scratch directory of this process, made once, removed at exit. */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_scratch[0]) {
		snprintf(fuzz_scratch, sizeof(fuzz_scratch), "/tmp/gp-fuzz.%d", (int)getpid());
		if (mkdir(fuzz_scratch, 0700) && errno != EEXIST)
			abort();
		atexit(fuzz_cleanup);
	}
	return fuzz_scratch;
}

/* data as the file dir/name; its path in path. */
static inline void fuzz_file(const char *name, const uint8_t *data, size_t size, char *path,
			     size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", fuzz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
}

/* A NUL-terminated copy of the input. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The fixture host the renderers run on (make fixtures builds it). */
static inline const struct gp_host *fuzz_host(const struct gp_profile *p)
{
	static struct gp_host h;
	static bool loaded;

	if (!loaded &&
	    (gp_host_load("build/hosts/r5350-ready", p, &h) || gp_host_read_owned(&h, p)))
		abort();
	loaded = true;
	return &h;
}

/*
 * What gpuprov hands to libvirt must be a well-formed XML document: parsed
 * back strictly (no recovery), in UTF-8, or abort.
 */
static inline void fuzz_xml_ok(const char *xml)
{
	xmlDoc *doc = xmlReadMemory(xml, (int)strlen(xml), "out.xml", "UTF-8",
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);

	if (!doc)
		abort();
	xmlFreeDoc(doc);
}

#endif
