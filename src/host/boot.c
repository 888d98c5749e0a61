// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the next boot would do with the devices gpuprov binds or finds bound:
 * which kernel boots (the bootloader's default entry when it can be read,
 * else the running one), its command line, and for each device the modules
 * whose alias matches its modalias in that kernel's modules.alias, with what
 * modprobe.d says of them (libkmod, sys/kmod.c).  Nothing is executed: an
 * initramfs is not unpacked, a bootloader script not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/manifest.h"
#include "core/model.h"
#include "host/host.h"
#include "host/read.h"
#include "sys/kmod.h"

/* A value of "set default=..." grub.cfg may hold and still boot its first entry. */
static bool first_entry(const char *v)
{
	return !strcmp(v, "0") || !strcmp(v, "${next_entry}") || !strcmp(v, "${saved_entry}") ||
	       !v[0];
}

/* grubenv's saved_entry= or next_entry=, when it names an entry but the first. */
static bool grubenv_moves(const struct gp_host *h)
{
	char path[PATH_LEN], text[1024], *cur = text, *line;

	if (read_text(h, gp_rootp(h, path, GP_GRUBENV), text, sizeof(text)) <= 0)
		return false;
	while ((line = strsep(&cur, "\n")))
		if ((!strncmp(line, "saved_entry=", 12) && !first_entry(line + 12)) ||
		    (!strncmp(line, "next_entry=", 11) && !first_entry(line + 11)))
			return true;
	return false;
}

/*
 * The first "linux PATH ARGS" line of grub.cfg, which GRUB boots when its
 * default is entry 0 (GRUB_DEFAULT=0, Debian's): PATH's "vmlinuz-RELEASE"
 * and ARGS, the next boot's command line.  false when grub.cfg is absent,
 * or its default is another entry.
 */
static bool grub_default(const struct gp_host *h, char *release, size_t rlen, char *args,
			 size_t alen)
{
	char path[PATH_LEN], *text = read_file(h, gp_rootp(h, path, GP_GRUB_CFG));
	char *cur = text, *line;
	bool found = false, other = grubenv_moves(h);

	while (text && !found && !other && (line = strsep(&cur, "\n"))) {
		char *p = gp_trim(line), *v, *k;

		if (!strncmp(p, "set default=", 12)) {
			v = p + 12 + (p[12] == '"');
			v[strcspn(v, "\"")] = '\0';
			other = !first_entry(v);
		} else if (!strncmp(p, "linux", 5) && (p[5] == ' ' || p[5] == '\t')) {
			p += 5 + strspn(p + 5, " \t");
			k = strstr(p, "vmlinuz-");
			if (!k || k > p + strcspn(p, " \t"))
				break;
			k += 8;
			snprintf(release, rlen, "%.*s", (int)strcspn(k, " \t"), k);
			p += strcspn(p, " \t");
			gp_strlcpy(args, p + strspn(p, " \t"), alen);
			found = true;
		}
	}
	free(text);
	return found && !other;
}

static bool release_there(const struct gp_host *h, const char *release)
{
	char path[PATH_LEN];

	return gp_kmod_release_ok(release) &&
	       exists(h, gp_rootp(h, path, GP_LIB_MODULES "/%s", release));
}

/* The kernel the next boot runs, read before libkmod is trusted with its tree. */
void gp_read_boot_kernel(struct gp_host *h)
{
	char release[GP_NAME_LEN] = "", args[sizeof(h->cmdline)] = "";

	if (grub_default(h, release, sizeof(release), args, sizeof(args)) &&
	    release_there(h, release)) {
		gp_strlcpy(h->boot_release, release, sizeof(h->boot_release));
		gp_strlcpy(h->boot_cmdline, args, sizeof(h->boot_cmdline));
		snprintf(h->boot_source, sizeof(h->boot_source), "the first entry of %s",
			 GP_GRUB_CFG);
		return;
	}
	gp_strlcpy(h->boot_release, h->kernel_release, sizeof(h->boot_release));
	gp_strlcpy(h->boot_cmdline, h->cmdline, sizeof(h->boot_cmdline));
	gp_strlcpy(h->boot_source, "the running kernel", sizeof(h->boot_source));
}

void gp_boot_release_at(int rootfd, const char *running, char *release, size_t len)
{
	struct gp_host h = { .rootfd = rootfd, .root = (char *)"" };

	gp_strlcpy(h.kernel_release, running, sizeof(h.kernel_release));
	gp_read_boot_kernel(&h);
	gp_strlcpy(release, h.boot_release, len);
}

/* "/NAME.ko" in modules.builtin, dashes and underscores alike (kmod's names). */
static bool builtin(const char *list, const char *module)
{
	const char *p;
	size_t n = strlen(module), i;

	for (p = list; p && (p = strchr(p, '/')); p++) {
		for (i = 0; i < n && p[1 + i]; i++)
			if (p[1 + i] != module[i] &&
			    !(strchr("-_", p[1 + i]) && strchr("-_", module[i])))
				break;
		if (i == n && !strncmp(p + 1 + n, ".ko", 3))
			return true;
	}
	return false;
}

/* A line "vfio_pci" or "vfio-pci" in a modules-load.d file. */
static bool loads_vfio(const struct gp_host *h, const char *path)
{
	char *text = read_file(h, path), *cur = text, *line;
	bool yes = false;

	while (text && !yes && (line = strsep(&cur, "\n"))) {
		char *p = gp_trim(line);

		yes = !strcmp(p, "vfio_pci") || !strcmp(p, "vfio-pci");
	}
	free(text);
	return yes;
}

static int vfio_loads(const struct gp_host *h, const char *builtins)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *dir;
	int yes;

	if (builtin(builtins, "vfio_pci"))
		return 1;
	yes = loads_vfio(h, gp_rootp(h, path, GP_ETC_MODULES));
	dir = open_dir(h, gp_rootp(h, path, GP_MODULES_LOAD_DIR));
	while (dir && !yes && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".conf"))
			yes = loads_vfio(h,
					 gp_rootp(h, path, GP_MODULES_LOAD_DIR "/%s", e->d_name));
	}
	if (dir)
		closedir(dir);
	return yes;
}

/* "vfio-pci.ids=" / "vfio_pci.ids=" of the next boot's command line. */
static void cmdline_ids(const char *cmdline, char *ids, size_t len)
{
	const char *p = cmdline;

	for (; (p = strstr(p, "pci.ids=")); p += 8)
		if (p - cmdline >= 5 &&
		    (!strncmp(p - 5, "vfio-", 5) || !strncmp(p - 5, "vfio_", 5)) &&
		    (p - cmdline == 5 || p[-6] == ' ' || p[-6] == '\t')) {
			snprintf(ids, len, "%.*s", (int)strcspn(p + 8, " \t\n"), p + 8);
			return;
		}
}

/* Whether an ids= list ("10de:20b5,10de:20f1:10de:1533", ...) names vendor:device. */
static bool ids_name(const char *ids, const struct gp_dev *d)
{
	const char *p = ids;
	unsigned v, dv;

	while (*p) {
		if (sscanf(p, "%4x:%4x", &v, &dv) == 2 && v == d->vendor && dv == d->device)
			return true;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return false;
}

/*
 * The modalias the kernel builds for the device (drivers/pci/pci-driver.c),
 * where sysfs gives none.  The programming interface is not in the model:
 * 00, as for the GPUs and NICs passed through.
 */
static void modalias_of(const struct gp_dev *d, char *out, size_t len)
{
	if (d->modalias[0]) {
		gp_strlcpy(out, d->modalias, len);
		return;
	}
	snprintf(out, len, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi00", d->vendor, d->device,
		 d->svendor, d->sdevice, d->class >> 8, d->class & 0xff);
}

/* Devices gpuprov binds (a GPU's IOMMU group) or finds on a vfio driver. */
static bool wanted(const struct gp_dev *d)
{
	return (d->with_gpu && !d->is_bridge) || !strcmp(d->driver, "vfio-pci") ||
	       (d->vfio_driver[0] && !strcmp(d->driver, d->vfio_driver));
}

static void read_claims(struct gp_host *h, struct kmod_ctx *ctx, struct gp_boot_dev *b,
			const char *builtins)
{
	const struct gp_dev *d = &h->devs[b->dev];
	char alias[GP_DEV_MODALIAS_LEN];
	int i;
	const char *vfio = d->vfio_module[0] ? d->vfio_module : "vfio_pci";

	modalias_of(d, alias, sizeof(alias));
	b->nclaim = gp_kmod_claimants(ctx, alias, vfio, b->claim, GP_CLAIM_MODS);
	for (i = 0; i < b->nclaim; i++)
		b->claim[i].builtin = builtin(builtins, b->claim[i].module);
	b->ids = ids_name(h->boot_ids, d);
}

void gp_read_boot(struct gp_host *h)
{
	char path[PATH_LEN], ids[256] = "", *builtins = NULL;
	size_t i, n = strlen(h->boot_ids);
	struct kmod_ctx *ctx = NULL;
	bool opened = false;

	cmdline_ids(h->boot_cmdline, ids, sizeof(ids));
	if (ids[0]) {
		bool grub = strcmp(h->boot_source, "the running kernel") != 0;

		snprintf(h->boot_ids + n, sizeof(h->boot_ids) - n, "%s%s", n ? "," : "", ids);
		n = strlen(h->boot_ids_source);
		snprintf(h->boot_ids_source + n, sizeof(h->boot_ids_source) - n, "%s%s%s",
			 n ? ", " : "", grub ? "the command line of " : "",
			 grub ? h->boot_source : GP_PROC_CMDLINE);
	}
	if (release_there(h, h->boot_release))
		builtins = read_file(h, gp_rootp(h, path, GP_LIB_MODULES "/%s/modules.builtin",
						 h->boot_release));
	h->boot_vfio_builtin = builtin(builtins, "vfio_pci");
	h->boot_vfio_loads = vfio_loads(h, builtins);
	for (i = 0; i < h->ndevs; i++) {
		struct gp_boot_dev *b;

		if (!wanted(&h->devs[i]))
			continue;
		h->boot_devs = gp_xrealloc(h->boot_devs, h->nboot_devs + 1, sizeof(*b));
		b = &h->boot_devs[h->nboot_devs++];
		memset(b, 0, sizeof(*b));
		b->dev = (int)i;
		/* one libkmod context for every device: it reads the indexes once */
		if (!opened && h->boot_release[0])
			ctx = gp_kmod_open(h->root, h->boot_release);
		opened = true;
		read_claims(h, ctx, b, builtins);
	}
	gp_kmod_close(ctx);
	free(builtins);
}
