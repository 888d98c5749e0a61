// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the host itself holds on a PCI function, which a companion bound with
 * a GPU would take from it: disks and partitions with their mounts, swap and
 * holders; framebuffers and the console on them.  (Network use: net.c;
 * processes holding a GPU: proc.c.)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostq.h"
#include "core/manifest.h"
#include "core/model.h"
#include "host/read.h"

/* The last PCI address in a sysfs path: the function a disk or netdev is on. */
static int pci_of_path(const struct gp_host *h, const char *link)
{
	char buf[PATH_LEN], bdf[GP_BDF_LEN] = "", *save = NULL, *tok;

	gp_strlcpy(buf, link, sizeof(buf));
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		if (is_bdf(tok, strlen(tok)))
			gp_strlcpy(bdf, tok, sizeof(bdf));
	return bdf[0] ? gp_host_find(h, bdf) : -1;
}

static void first_entry(const struct gp_host *h, const char *dir, char *out, size_t len)
{
	DIR *d = open_dir(h, dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			gp_strlcpy(out, e->d_name, len);
			break;
		}
	if (d)
		closedir(d);
}

/* Disks and partitions of PCI functions (/sys/class/block), with their holders. */
static void scan_blocks(struct gp_host *h)
{
	char path[PATH_LEN], link[PATH_LEN];
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_SYS_BLOCK));
	struct dirent *e;

	if (!dir)
		return;
	h->seen_blocks = true;
	while ((e = readdir(dir))) {
		struct gp_block *b;
		int dev;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(b->name) ||
		    read_link(h, gp_rootp(h, path, "/sys/class/block/%s", e->d_name), link,
			      sizeof(link)) <= 0 ||
		    (dev = pci_of_path(h, link)) < 0)
			continue;
		h->blocks = gp_xrealloc(h->blocks, h->nblocks + 1, sizeof(*h->blocks));
		b = &h->blocks[h->nblocks++];
		memset(b, 0, sizeof(*b));
		gp_strlcpy(b->name, e->d_name, sizeof(b->name));
		b->dev = dev;
		read_text(h, gp_rootp(h, path, "/sys/class/block/%s/dev", b->name), b->majmin,
			  sizeof(b->majmin));
		first_entry(h, gp_rootp(h, path, "/sys/class/block/%s/holders", b->name), b->holder,
			    sizeof(b->holder));
	}
	closedir(dir);
}

static struct gp_block *block_named(struct gp_host *h, const char *majmin, const char *source)
{
	const char *name = strncmp(source, "/dev/", 5) ? NULL : base_name(source);
	size_t i;

	for (i = 0; i < h->nblocks; i++)
		if ((majmin && !strcmp(h->blocks[i].majmin, majmin)) ||
		    (name && !strcmp(h->blocks[i].name, name)))
			return &h->blocks[i];
	return NULL;
}

/* A mount point and its options ("ro,relatime"): where apply could not write. */
static void add_mount(struct gp_host *h, const char *point, const char *opts)
{
	struct gp_mount *m;
	char *o = gp_xstrdup(opts), *save = NULL, *w;

	h->mounts = gp_xrealloc(h->mounts, h->nmounts + 1, sizeof(*h->mounts));
	m = &h->mounts[h->nmounts++];
	gp_strlcpy(m->point, point, sizeof(m->point));
	m->ro = false;
	for (w = strtok_r(o, ",", &save); w; w = strtok_r(NULL, ",", &save))
		m->ro |= !strcmp(w, "ro");
	free(o);
}

/* mountinfo: "36 35 98:0 /mnt1 /mnt2 rw - ext4 /dev/vda1 rw"; by number and by name. */
static void read_mounts(struct gp_host *h)
{
	char path[PATH_LEN], majmin[32], point[PATH_LEN], source[PATH_LEN], opts[256];
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_MOUNTINFO)), *cur = text, *line;
	struct gp_block *b;

	if (!text)
		return;
	h->seen_mounts = true;
	while ((line = strsep(&cur, "\n"))) {
		const char *dash = strstr(line, " - ");

		if (sscanf(line, "%*s %*s %31s %*s %4095s %255s", majmin, point, opts) != 3 ||
		    !dash || sscanf(dash + 3, "%*s %4095s", source) != 1)
			continue;
		add_mount(h, point, opts);
		if ((b = block_named(h, majmin, source)) && !b->mount[0])
			gp_strlcpy(b->mount, point, sizeof(b->mount));
	}
	free(text);
	text = cur = read_file(h, gp_rootp(h, path, GP_PROC_SWAPS));
	while ((line = strsep(&cur, "\n")))
		if (sscanf(line, "%4095s", source) == 1 && (b = block_named(h, NULL, source)))
			b->swap = true;
	free(text);
}

static bool fb_name(const char *name)
{
	static const char *const fbs[] = { "efifb",  "simplefb", "simple-framebuffer",
					   "vesafb", "BOOTFB",	 "simpledrm" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fbs); i++)
		if (strstr(name, fbs[i]))
			return true;
	return false;
}

/* Framebuffers in /proc/iomem; a reader without root sees every address as 0. */
static void read_iomem(struct gp_host *h)
{
	char path[PATH_LEN], name[256];
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_IOMEM)), *cur = text, *line;
	unsigned long long start, end;

	while ((line = strsep(&cur, "\n"))) {
		struct gp_fb *fb;

		if (sscanf(line, " %llx-%llx : %255[^\n]", &start, &end, name) != 3)
			continue;
		h->seen_iomem |= end != 0;
		if (!fb_name(name))
			continue;
		h->fbs = gp_xrealloc(h->fbs, h->nfbs + 1, sizeof(*h->fbs));
		fb = &h->fbs[h->nfbs++];
		fb->start = start;
		fb->end = end;
		gp_strlcpy(fb->name, name, sizeof(fb->name));
	}
	free(text);
}

/* fbcon: a virtual console bound to a frame buffer device. */
static void read_vtcons(struct gp_host *h)
{
	char path[PATH_LEN], text[128];
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_SYS_VTCONSOLE));
	struct dirent *e;

	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (read_text(h, gp_rootp(h, path, "/sys/class/vtconsole/%s/name", e->d_name), text,
			      sizeof(text)) <= 0 ||
		    !strstr(text, "frame buffer"))
			continue;
		if (read_text(h, gp_rootp(h, path, "/sys/class/vtconsole/%s/bind", e->d_name), text,
			      sizeof(text)) > 0 &&
		    !strcmp(text, "1"))
			h->fbcon = true;
	}
	if (dir)
		closedir(dir);
}

void gp_read_host_use(struct gp_host *h)
{
	scan_blocks(h);
	read_mounts(h);
	read_iomem(h);
	read_vtcons(h);
}
