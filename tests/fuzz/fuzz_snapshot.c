// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: the snapshot reader, that is the host reader under -r ROOT on
 * a tree someone else made.  A copy of a fixture host is changed by the
 * input's records, read with a profile and checked, then put back:
 *
 *   =REL/PATH          a file whose content is the lines up to the next record
 *   @REL/PATH TARGET   a symbolic link
 *
 * A record may replace a file or a link of the fixture, or add one in an
 * existing directory; never a directory, never outside the copy.
 */
#include <limits.h>

#include "fuzz.h"
#include "core/checks.h"
#include "core/profile.h"
#include "host/host.h"

#define FIXTURE "build/hosts/r5350-ready"
#define MAX_REC 32

static const char profile[] =
	"[gpus]\nmatch = 10de:20b5\ncount = 2\n[vm]\nname = v\nvcpus = 8\nmemory = 16GiB\n"
	"[bond]\nname = bond0\nslaves = ens1f0np0 0000:01:00.1\n";

static char root[PATH_MAX], real_root[PATH_MAX], touched[MAX_REC][PATH_MAX];
static int ntouched;

static void setup(void)
{
	char cmd[3 * PATH_MAX + 256];

	if (root[0])
		return;
	snprintf(root, sizeof(root), "%s/root", fuzz_dir());
	/* with the directories of every network owner, for records to fill */
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s' && cp -a " FIXTURE " '%s' && cd '%s' && mkdir -p etc/netplan "
		 "etc/systemd/network etc/NetworkManager/system-connections run/systemd/netif",
		 root, root, root);
	if (system(cmd) || !realpath(root, real_root))
		abort();
}

/* rel (no "..", not absolute) names a non-directory in a directory of the copy. */
static bool place(const char *rel, char *path, size_t len)
{
	char parent[PATH_MAX], real[PATH_MAX], *slash;
	struct stat st;

	if (!*rel || *rel == '/' || strstr(rel, "..") || strlen(rel) > 512)
		return false;
	snprintf(path, len, "%s/%s", root, rel);
	gp_strlcpy(parent, path, sizeof(parent));
	slash = strrchr(parent, '/');
	*slash = '\0';
	if (!realpath(parent, real) || strncmp(real, real_root, strlen(real_root)) ||
	    (real[strlen(real_root)] && real[strlen(real_root)] != '/'))
		return false;
	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		return false;
	if (ntouched == MAX_REC)
		return false;
	gp_strlcpy(touched[ntouched++], rel, PATH_MAX);
	unlink(path);
	return true;
}

static void put_file(const char *rel, const char *data, size_t size)
{
	char path[PATH_MAX];
	int fd;

	if (!place(rel, path, sizeof(path)))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	if (fd < 0)
		return;
	if (write(fd, data, size) < 0)
		abort();
	close(fd);
}

static void put_link(const char *rel, const char *target)
{
	char path[PATH_MAX];

	if (!place(rel, path, sizeof(path)))
		return;
	if (symlink(target, path))
		return; /* an empty target is no link: the path stays absent */
}

static void copy(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, mode);
	char buf[8192];
	ssize_t n;

	if (in < 0 || out < 0)
		abort();
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			abort();
	close(in);
	close(out);
}

/* Each touched path back as the fixture has it. */
static void restore(void)
{
	char path[PATH_MAX], orig[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	while (ntouched) {
		const char *rel = touched[--ntouched];

		snprintf(path, sizeof(path), "%s/%s", root, rel);
		snprintf(orig, sizeof(orig), FIXTURE "/%s", rel);
		unlink(path);
		if (lstat(orig, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(orig, target, sizeof(target) - 1);
			if (n < 0)
				abort();
			target[n] = '\0';
			if (symlink(target, path))
				abort();
			continue;
		}
		copy(orig, path, st.st_mode & 0777);
	}
}

/* The records of the input, applied to the copy. */
static void apply_records(char *text)
{
	char *line = text, *next, *body, *end;

	while (line && *line) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line == '@') {
			char *sp = strchr(line + 1, ' ');

			if (sp) {
				*sp = '\0';
				put_link(line + 1, sp + 1);
			}
			line = next;
			continue;
		}
		if (*line != '=') {
			line = next;
			continue;
		}
		/* the body: up to a line that starts the next record */
		body = end = next ? next : line + strlen(line);
		while (*end && !((end == body || end[-1] == '\n') && (*end == '=' || *end == '@')))
			end++;
		next = *end ? end : NULL;
		put_file(line + 1, body,
			 end > body && end[-1] == '\n' ? end - body - 1 : end - body);
		line = next;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gp_profile p;
	char *text = fuzz_text(data, size);
	struct gp_report r;
	struct gp_host h;

	setup();
	if (!p.count && gp_profile_parse_string("fuzz.ini", profile, &p))
		abort();
	apply_records(text);
	if (!gp_host_load(root, &p, &h)) {
		gp_host_read_owned(&h, &p); /* what gpuprov wrote, in the same hostile tree */
		memset(&r, 0, sizeof(r));
		gp_checks_run(&h, &p, &r);
		gp_report_release(&r);
		gp_host_release(&h);
	}
	restore();
	free(text);
	return 0;
}
