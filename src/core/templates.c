// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Templates of the persistent files: found beside the binary in the source
 * tree (build/gpuprov -> templates/), else in the tree it is installed in
 * (BIN/../share/gpuprov: /usr/sbin/gpuprov -> /usr/share/gpuprov, and the
 * same for a package unpacked under another root), else in PREFIX/share/gpuprov
 * as built.  GPUPROV_TEMPLATES names another directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/templates.h"

#ifndef GP_DATADIR
#define GP_DATADIR "/usr/local/share/gpuprov"
#endif

/* In the order of gp_persist_paths. */
static const char *const names[GP_PERSIST_FILES] = {
	"vfio-rebind.sh",	 "modprobe-gpuprov-vfio.conf", "modules-load-gpuprov-vfio.conf",
	"60-gpuprov-vfio.rules", "gpuprov-vfio.service",
};

/* The directory of the running binary (no trailing slash). */
static int exe_dir(char *exe, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", exe, len - 1);
	char *slash;

	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash || slash == exe)
		return -ENOENT;
	*slash = '\0';
	return 0;
}

/* templates/ of the source tree holding the binary (build/ or build/test/) */
static int beside_binary(char *dir, size_t len)
{
	char exe[PATH_MAX], probe[PATH_MAX + 64], *slash;
	struct stat st;
	int up;

	if (exe_dir(exe, sizeof(exe)))
		return -ENOENT;
	for (up = 0; up < 3; up++) {
		snprintf(probe, sizeof(probe), "%s/templates/%s", exe, names[0]);
		if (!stat(probe, &st)) {
			snprintf(dir, len, "%s/templates", exe);
			return 0;
		}
		slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			return -ENOENT;
		*slash = '\0';
	}
	return -ENOENT;
}

/* BIN/../share/gpuprov/templates: an installed tree, wherever it was put. */
static int installed_tree(char *dir, size_t len)
{
	char exe[PATH_MAX], *slash;
	struct stat st;

	if (exe_dir(exe, sizeof(exe)))
		return -ENOENT;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0'; /* "" for a binary in /sbin: /share/gpuprov */
	snprintf(dir, len, "%s/share/gpuprov/templates", exe);
	return stat(dir, &st) || !S_ISDIR(st.st_mode) ? -ENOENT : 0;
}

static int find_dir(char *dir, size_t len)
{
	struct stat st;

	if (getenv("GPUPROV_TEMPLATES")) {
		snprintf(dir, len, "%s", getenv("GPUPROV_TEMPLATES"));
		return 0;
	}
	if (!beside_binary(dir, len) || !installed_tree(dir, len))
		return 0;
	snprintf(dir, len, "%s/templates", GP_DATADIR);
	return stat(dir, &st) ? -ENOENT : 0;
}

int gp_templates_dir(char *dir, size_t len)
{
	if (find_dir(dir, len)) {
		gp_err("cannot find the templates (%s/templates)", GP_DATADIR);
		return -ENOENT;
	}
	gp_debug("templates from %s", dir);
	return 0;
}

/* The path of one template file, for those read elsewhere (the domain XML). */
int gp_template_path(const char *name, char *path, size_t len)
{
	char dir[PATH_MAX];

	if (gp_templates_dir(dir, sizeof(dir)))
		return -ENOENT;
	snprintf(path, len, "%s/%s", dir, name);
	return 0;
}

int gp_templates_load(char *out[GP_PERSIST_FILES])
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int i;

	memset(out, 0, sizeof(char *) * GP_PERSIST_FILES);
	if (gp_templates_dir(dir, sizeof(dir)))
		return -ENOENT;
	for (i = 0; i < GP_PERSIST_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		out[i] = gp_read_file(path);
		if (!out[i]) {
			gp_err("cannot read template '%s'", path);
			gp_templates_release(out);
			return -ENOENT;
		}
	}
	return 0;
}

void gp_templates_release(char *t[GP_PERSIST_FILES])
{
	int i;

	for (i = 0; i < GP_PERSIST_FILES; i++) {
		free(t[i]);
		t[i] = NULL;
	}
}

/* Replaces each @KEY@ of pairs {"KEY", "value", ..., NULL}. */
char *gp_subst(const char *tmpl, const char *const *pairs)
{
	size_t cap = strlen(tmpl) + 1, len = 0;
	char *out = gp_xcalloc(cap, 1);
	const char *p = tmpl;

	while (*p) {
		const char *const *kv;
		const char *val = NULL;
		size_t klen = 0, vlen;

		if (*p == '@')
			for (kv = pairs; kv[0]; kv += 2) {
				klen = strlen(kv[0]);
				if (!strncmp(p + 1, kv[0], klen) && p[1 + klen] == '@') {
					val = kv[1];
					break;
				}
			}
		vlen = val ? strlen(val) : 1;
		if (len + vlen + 1 > cap) {
			cap = (len + vlen + 1) * 2;
			out = gp_xrealloc(out, cap, 1);
		}
		memcpy(out + len, val ? val : p, vlen);
		len += vlen;
		p += val ? klen + 2 : 1;
	}
	out[len] = '\0';
	return out;
}
