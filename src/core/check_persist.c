// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * persist.readonly: the directories apply writes to, on filesystems it can
 * write.  apply journals each step in /var/lib/gpuprov before it acts,
 * writes its persistent files under /etc (making /etc/gpuprov when it is
 * absent) and the VM's files where [vm] output says; on a read-only /etc it
 * would fail at the first of them and undo what it did before.  The dry run
 * says so: a failure blocking every step, as apply refuses.  Judged from
 * the host's mount table (/proc/self/mountinfo), not by writing; where the
 * table could not be read, nothing is said.
 */
#include <stdio.h>
#include <string.h>

#include "core/check_persist.h"
#include "core/manifest.h"
#include "shared/util.h"

/* The mount that holds path: the longest point above it, the last mounted of equals. */
static const struct gp_mount *mount_of(const struct gp_host *h, const char *path)
{
	const struct gp_mount *best = NULL;
	size_t i, n, bestn = 0;

	for (i = 0; i < h->nmounts; i++) {
		const struct gp_mount *m = &h->mounts[i];

		n = strlen(m->point);
		if (!strcmp(m->point, "/"))
			n = 0;
		else if (strncmp(path, m->point, n) || (path[n] && path[n] != '/'))
			continue;
		if (!best || n >= bestn) {
			best = m;
			bestn = n;
		}
	}
	return best;
}

/* The directory of a file path, in buf. */
static const char *dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	snprintf(buf, len, "%.*s", slash && slash != path ? (int)(slash - path) : 1, path);
	return buf;
}

/* Appends word to a ", "-separated list unless it is there. */
static void add_word(char *list, size_t len, const char *word)
{
	const char *at = list;
	size_t n = strlen(word);

	for (; (at = strstr(at, word)); at += n)
		if ((at == list || at[-1] == ' ') && (!at[n] || at[n] == ','))
			return;
	snprintf(list + strlen(list), len - strlen(list), "%s%s", list[0] ? ", " : "", word);
}

void gp_check_persist(const struct gp_host *h, const struct gp_profile *p, struct gp_report *r)
{
	char vmdir[GP_OUTPUT_LEN], ro[256] = "", held[512] = "", dirs[512] = "",
				   hint[GP_OUTPUT_LEN + 160];
	const char *paths[] = { GP_STATE_DIR, GP_ETC_DIR, "/etc",
				p->has_vm ? dir_of(p->vm.output, vmdir, sizeof(vmdir)) : NULL };
	const struct gp_mount *m, *first = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!paths[i] || !(m = mount_of(h, paths[i])))
			continue;
		add_word(dirs, sizeof(dirs), paths[i]);
		if (!m->ro)
			continue;
		first = first ? first : m;
		add_word(ro, sizeof(ro), m->point);
		add_word(held, sizeof(held), paths[i]);
	}
	if (first) {
		snprintf(hint, sizeof(hint),
			 "make it writable for the window (mount -o remount,rw %s), or the image "
			 "it comes from; apply journals and writes there",
			 first->point);
		gp_report_add(
			r, GP_F_PERSIST_READONLY, GP_FAIL, "host", hint,
			"mounted read-only: %s, which holds %s; apply would fail at its first "
			"write there and undo what it did before",
			ro, held);
		return;
	}
	if (!dirs[0]) /* a table without / (a partial capture): nothing known */
		return;
	gp_report_add(r, GP_F_PERSIST_READONLY, GP_OK, "host", NULL, "writable: %s%s", dirs,
		      h->etc_gpuprov == 0 ? " (apply makes " GP_ETC_DIR ")" : "");
}
