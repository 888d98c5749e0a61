// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVIDIA Fabric Manager on the host, from its files under the root: whether
 * its systemd unit is installed, enabled (a wants link) or masked (a link to
 * /dev/null), whether nv-fabricmanager runs (/proc), its FABRIC_MODE, and
 * the versions of the driver, Fabric Manager and NSCQ, which must match
 * (NVIDIA's Fabric Manager user guide).  systemctl is never run: a -r tree
 * answers as the live host does.  Read only where it matters: a host with
 * an NVSwitch, or a profile with a [fabric] mode.  Only root's process
 * named nv-fabricmanager counts (core/fabric.c's rule, act/fabric.c's too).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/manifest.h"
#include "core/model.h"
#include "host/read.h"

static const char *const unit_paths[] = { GP_FM_UNIT_ETC, GP_FM_UNIT_LIB, GP_FM_UNIT_USR };

/* 1 a link names /dev/null, 0 not, -1 not a link at all */
static int link_to_null(const struct gp_host *h, const char *path)
{
	char target[256];
	ssize_t n = read_link(h, path, target, sizeof(target));

	if (n < 0)
		return -1;
	return !strcmp(target, "/dev/null");
}

/*
 * "FABRIC_MODE=1" in the config's text: the last such line wins, as in FM's
 * parser; -1 none, -2 a value that is not a small number (a finding says so).
 */
static int config_mode(const char *text)
{
	const char *line = text;
	int mode = -1;

	while (line && *line) {
		const char *v = line + strspn(line, " \t");

		if (!strncmp(v, "FABRIC_MODE", 11)) {
			char *end;
			long m;

			v += 11 + strspn(v + 11, " \t");
			if (*v == '=') {
				v++;
				m = strtol(v, &end, 10);
				/* a number alone on its line, else not a mode FM would take */
				if (end != v && m >= 0 && m <= 9 &&
				    (!*end || strchr(" \t\r\n", *end)))
					mode = (int)m;
				else
					mode = -2;
			}
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return mode;
}

static void read_unit(struct gp_host *h)
{
	char path[PATH_LEN], target[256];
	size_t i;

	h->fm.installed = 0;
	h->fm.masked = link_to_null(h, gp_rootp(h, path, GP_FM_UNIT_ETC)) == 1;
	for (i = 0; i < ARRAY_SIZE(unit_paths) && !h->fm.installed; i++)
		h->fm.installed = link_to_null(h, gp_rootp(h, path, "%s", unit_paths[i])) != 1 &&
				  exists(h, path);
	h->fm.enabled = read_link(h, gp_rootp(h, path, GP_FM_WANTS), target, sizeof(target)) > 0 ||
			exists(h, path);
}

static void read_config(struct gp_host *h)
{
	char path[PATH_LEN], *text = read_file(h, gp_rootp(h, path, GP_FM_CONFIG));

	h->fm.mode = -1;
	if (!text)
		return;
	gp_strlcpy(h->fm.config, GP_FM_CONFIG, sizeof(h->fm.config));
	h->fm.mode = config_mode(text);
	free(text);
}

/* a process of the tree is Fabric Manager: core/fabric.c's rule, as fabric.mask applies it */
static bool is_fm(const struct gp_host *h, const char *pid)
{
	char path[PATH_LEN], comm[32], status[1024];

	return read_text(h, gp_rootp(h, path, GP_PROC "/%s/" GP_PROC_PID_COMM, pid), comm,
			 sizeof(comm)) > 0 &&
	       read_text(h, gp_rootp(h, path, GP_PROC "/%s/" GP_PROC_PID_STATUS, pid), status,
			 sizeof(status)) > 0 &&
	       gp_fm_process(comm, status);
}

static void read_running(struct gp_host *h)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_PROC));

	h->fm.running = dir ? 0 : -1;
	while (dir && (e = readdir(dir)) && !h->fm.running)
		if (isdigit((unsigned char)e->d_name[0]))
			h->fm.running = is_fm(h, e->d_name);
	if (dir)
		closedir(dir);
}

/* dpkg's Version of nvidia-fabricmanager[-NNN] and libnvidia-nscq[-NNN] */
static void package_line(void *ctx, const char *line, int *state)
{
	struct gp_fabric_host *fm = ctx;

	if (!strncmp(line, "Package: ", 9)) {
		*state = gp_fabric_package(line + 9);
		return;
	}
	if (strncmp(line, "Version: ", 9) || !*state)
		return;
	gp_strlcpy(*state == 1 ? fm->fm_version : fm->nscq_version, line + 9,
		   sizeof(fm->fm_version));
	*state = 0;
}

void gp_read_fabric(struct gp_host *h, const struct gp_profile *p)
{
	char path[PATH_LEN];
	size_t i;
	bool any = p && p->fabric != GP_FABRIC_NONE;

	for (i = 0; i < h->ndevs && !any; i++)
		any = gp_dev_is_nvswitch(&h->devs[i]);
	if (!any)
		return;
	h->fm.read = true;
	read_unit(h);
	read_config(h);
	read_running(h);
	if (read_text(h, gp_rootp(h, path, GP_NVIDIA_DRIVER), h->fm.driver, sizeof(h->fm.driver)) <
	    0)
		h->fm.driver[0] = '\0';
	if (gp_read_dpkg(h, package_line, &h->fm))
		h->fm.fm_version[0] = h->fm.nscq_version[0] = '\0';
}
