// SPDX-License-Identifier: GPL-2.0-or-later
/* The processes holding GPU device nodes, from /proc under the root. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hostq.h"
#include "core/manifest.h"
#include "core/model.h"
#include "host/host.h"
#include "host/read.h"

/* ---- processes holding GPU device nodes ---- */

/* /proc/driver/nvidia/gpus/<bdf>/information maps /dev/nvidiaN to a device. */
static int nvidia_minor_dev(const struct gp_host *h, int minor)
{
	char path[PATH_LEN], text[2048];
	struct dirent *e;
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_PROC_NVIDIA_GPUS));
	int found = -1;

	if (!dir)
		return -1;
	while (found < 0 && (e = readdir(dir))) {
		const char *m;

		if (e->d_name[0] == '.')
			continue;
		if (read_text(h,
			      gp_rootp(h, path, GP_PROC_NVIDIA_GPUS "/%s/information", e->d_name),
			      text, sizeof(text)) <= 0)
			continue;
		m = strstr(text, "Device Minor:");
		if (m && atoi(m + 13) == minor)
			found = gp_host_find(h, e->d_name);
	}
	closedir(dir);
	return found;
}

#define NV_LEN	 (sizeof(GP_DEV_NVIDIA) - 1)
#define VFIO_LEN (sizeof(GP_DEV_VFIO) - 1)

static void add_holder(struct gp_host *h, int pid, const char *comm, const char *node)
{
	struct gp_holder *x;
	int dev = -1;

	if (!strncmp(node, GP_DEV_NVIDIA, NV_LEN) && isdigit((unsigned char)node[NV_LEN]))
		dev = nvidia_minor_dev(h, atoi(node + NV_LEN));
	else if (!strncmp(node, GP_DEV_VFIO, VFIO_LEN) && isdigit((unsigned char)node[VFIO_LEN]))
		dev = -2 - atoi(node + VFIO_LEN); /* -2 - group: resolved by checks */
	h->holders = gp_xrealloc(h->holders, h->nholders + 1, sizeof(*h->holders));
	x = &h->holders[h->nholders++];
	x->pid = pid;
	x->dev = dev;
	gp_strlcpy(x->comm, comm, sizeof(x->comm));
	gp_strlcpy(x->path, node, sizeof(x->path));
}

/* an NVSwitch's node (Fabric Manager's) is the switch driver's: it holds no GPU */
#define NVSWITCH_NODE GP_DEV_NVIDIA "-nvswitch"

static bool gpu_node(const char *t)
{
	if (!strncmp(t, NVSWITCH_NODE, sizeof(NVSWITCH_NODE) - 1))
		return false;
	return !strncmp(t, GP_DEV_NVIDIA, NV_LEN) ||
	       (!strncmp(t, GP_DEV_VFIO, VFIO_LEN) && isdigit((unsigned char)t[VFIO_LEN]));
}

static void scan_process(struct gp_host *h, const char *pid)
{
	char path[PATH_LEN], link[256], comm[GP_NAME_LEN] = "?", seen[8][GP_NAME_LEN];
	struct dirent *e;
	DIR *dir = open_dir(h, gp_rootp(h, path, "/proc/%s/fd", pid));
	int nseen = 0, i;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (read_link(h, gp_rootp(h, path, "/proc/%s/fd/%s", pid, e->d_name), link,
			      sizeof(link)) <= 0 ||
		    !gpu_node(link))
			continue;
		for (i = 0; i < nseen && strcmp(seen[i], link); i++)
			;
		if (i < nseen || nseen == 8)
			continue; /* one entry per process and node */
		gp_strlcpy(seen[nseen++], link, GP_NAME_LEN);
		/* the name only of a process that holds a node: most hold none */
		if (nseen == 1)
			read_text(h, gp_rootp(h, path, GP_PROC "/%s/" GP_PROC_PID_COMM, pid), comm,
				  sizeof(comm));
		add_holder(h, atoi(pid), comm, link);
	}
	closedir(dir);
}

void gp_read_holders(struct gp_host *h)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_PROC));

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (isdigit((unsigned char)e->d_name[0]))
			scan_process(h, e->d_name);
	closedir(dir);
}
