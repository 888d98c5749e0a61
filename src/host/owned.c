// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What gpuprov wrote before, as the host has it now: the files persist.vfio,
 * persist.bond and domain.write own, and the persisted overrides.  Each is
 * kept whole in h->owned (plan --diff, the report) and read once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/netconf.h"
#include "host/read.h"

static bool owned_public(struct gp_host *h, const char *path)
{
	int fd = gp_root_openat(h->rootfd, path, O_RDONLY | O_NONBLOCK);
	struct stat st;
	bool public;

	if (fd < 0)
		return false;
	/* a path a profile names (say [vm] output = /etc/shadow) must not print a file */
	public = !fstat(fd, &st) && st.st_uid == 0 && (st.st_mode & S_IROTH);
	close(fd);
	return public;
}

/*
 * A file gpuprov may write, read whole and kept as it is (h->owned), so that
 * plan --diff and the report show what would change without reading the host
 * again; returns a copy for the fields the checks and the plan compare.
 */
char *gp_read_owned(struct gp_host *h, const char *path)
{
	struct gp_owned *o;
	ssize_t n;
	size_t i;

	for (i = 0; i < h->nowned; i++)
		if (!strcmp(h->owned[i].path, path))
			return h->owned[i].text ? gp_xstrdup(h->owned[i].text) : NULL;
	h->owned = gp_xrealloc(h->owned, h->nowned + 1, sizeof(*h->owned));
	o = &h->owned[h->nowned++];
	memset(o, 0, sizeof(*o));
	gp_strlcpy(o->path, path, sizeof(o->path));
	n = gp_root_slurp(h->rootfd, path, GP_READ_MAX, &o->text);
	if (n < 0 && n != -ENOENT)
		o->err = (int)n;
	o->private = o->text && !owned_public(h, path);
	return o->text ? gp_xstrdup(o->text) : NULL;
}

/* Persistent overrides: one file per device, named by address, holding a driver. */
void gp_read_overrides(struct gp_host *h, const char *dir, const char *prefix)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d = open_dir(h, rootp(h, path, "%s", dir));
	size_t plen = strlen(prefix);

	if (!d)
		return;
	while ((e = readdir(d)) && h->noverrides < GP_MAX_OVERRIDES) {
		struct gp_override *o = &h->overrides[h->noverrides];

		char *text;

		if (strncmp(e->d_name, prefix, plen) || gp_parse_bdf(e->d_name + plen, o->bdf))
			continue;
		text = gp_read_owned(h, rootp(h, path, "%s/%s", dir, e->d_name));
		if (!text)
			continue;
		gp_strlcpy(o->driver, gp_trim(text), sizeof(o->driver));
		free(text);
		h->noverrides++;
	}
	closedir(d);
}

/* The other files persist.bond writes (the ports' files), as they are. */
void gp_read_bond_files(struct gp_host *h, const struct gp_profile *p)
{
	struct gp_netconf nc;
	int i;

	if (!p || !p->has_bond)
		return;
	if (!gp_netconf_quiet(h, p, &nc))
		for (i = 0; i < nc.n; i++)
			free(gp_read_owned(h, nc.files[i].path));
	gp_netconf_release(&nc);
}
