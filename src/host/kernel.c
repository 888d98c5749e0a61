// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel says of the machine: NUMA nodes and their free memory and
 * huge pages, the command line, release, DMI, the CPU, the IOMMU groups, and
 * the vfio-pci module (loaded, available, what modprobe.d says of it).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hugepages.h"
#include "core/manifest.h"
#include "core/model.h"
#include "host/read.h"
#include "sys/kmod.h"

/* ---- NUMA nodes ---- */

/* A count of huge pages of one size on one node (free_hugepages,
 * nr_hugepages); -1 when the kernel does not say, or says more than 2^31
 * (a tree's number: the sums and sizes made of it must not overflow). */
static long hugepages(const struct gp_host *h, const char *node, unsigned kb, const char *file)
{
	char path[PATH_LEN], text[32], *end;
	long v;

	if (read_text(h,
		      gp_rootp(h, path, "/sys/devices/system/node/%s/hugepages/hugepages-%ukB/%s",
			       node, kb, file),
		      text, sizeof(text)) <= 0)
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	return end != text && !errno && v >= 0 && v <= 1L << 31 ? v : -1;
}

static int numa_cmp(const void *a, const void *b)
{
	const struct gp_numa *x = a, *y = b;

	return x->id - y->id;
}

static void read_nodes(struct gp_host *h)
{
	char path[PATH_LEN], text[4096];
	struct dirent *e;
	DIR *dir = open_dir(h, gp_rootp(h, path, GP_SYS_NODES));

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		struct gp_numa *nn;
		char *end;
		long id;

		if (strncmp(e->d_name, "node", 4) || !isdigit((unsigned char)e->d_name[4]))
			continue;
		id = strtol(e->d_name + 4, &end, 10);
		if (*end || id < 0 || id > 4095)
			continue;
		h->numa = gp_xrealloc(h->numa, h->nnuma + 1, sizeof(*h->numa));
		nn = &h->numa[h->nnuma++];
		memset(nn, 0, sizeof(*nn));
		nn->id = (int)id;
		read_text(h, gp_rootp(h, path, "/sys/devices/system/node/%s/cpulist", e->d_name),
			  nn->cpus, sizeof(nn->cpus));
		if (read_text(h,
			      gp_rootp(h, path, "/sys/devices/system/node/%s/meminfo", e->d_name),
			      text, sizeof(text)) > 0) {
			nn->mem_total = gp_meminfo_field(text, "MemTotal:");
			nn->mem_free = gp_meminfo_field(text, "MemFree:");
		}
		nn->hugepages_1g_free = hugepages(h, e->d_name, 1048576, "free_hugepages");
		nn->hugepages_2m_free = hugepages(h, e->d_name, 2048, "free_hugepages");
		nn->hugepages_1g_nr = hugepages(h, e->d_name, 1048576, "nr_hugepages");
		nn->hugepages_2m_nr = hugepages(h, e->d_name, 2048, "nr_hugepages");
	}
	closedir(dir);
	qsort(h->numa, h->nnuma, sizeof(*h->numa), numa_cmp);
}

/*
 * The kernel says numa_node -1 when it has a single node (no ACPI SRAT, one
 * socket, a VM): every device is then local to that node, and a GPU "on an
 * unknown node" would be reported as a split that cannot exist.
 */
static void single_node(struct gp_host *h)
{
	size_t i;

	if (h->nnuma != 1)
		return;
	for (i = 0; i < h->ndevs; i++)
		if (h->devs[i].numa_node < 0 && !h->devs[i].numa_error[0])
			h->devs[i].numa_node = h->numa[0].id;
}

/* The nodes, then each device's node where there is one only. */
void gp_read_numa(struct gp_host *h)
{
	read_nodes(h);
	single_node(h);
}

/* ---- kernel, CPU, DMI, vfio ---- */

/* "key<TAB>: value" lines: the value of a line whose key is key, or NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *colon;

	if (strncmp(line, key, n) || !(line[n] == ' ' || line[n] == '\t' || line[n] == ':'))
		return NULL;
	colon = strchr(line + n, ':');
	if (!colon || strspn(line + n, " \t") != (size_t)(colon - line - (long)n))
		return NULL;
	return colon + 1 + strspn(colon + 1, " \t");
}

/* What NCCL's topology file says of the CPU (nccl.c), from the first CPU listed. */
static void cpu_identity(struct gp_host *h, const char *line)
{
	const char *v;
	unsigned long n;

	if ((v = cpuinfo_value(line, "vendor_id")) && !h->cpu_vendor[0] &&
	    strlen(v) < sizeof(h->cpu_vendor) &&
	    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ") ==
		    strlen(v)) { /* goes into NCCL's XML, which knows no escapes */
		gp_strlcpy(h->cpu_vendor, v, sizeof(h->cpu_vendor));
		gp_strlcpy(h->cpu_arch, "x86_64", sizeof(h->cpu_arch)); /* only x86 says it */
	} else if ((v = cpuinfo_value(line, "cpu family")) && h->cpu_family < 0 &&
		   !gp_parse_uint(v, 0xfff, &n)) {
		h->cpu_family = (int)n;
	} else if ((v = cpuinfo_value(line, "model")) && h->cpu_model < 0 &&
		   !gp_parse_uint(v, 0xfff, &n)) {
		h->cpu_model = (int)n;
	} else if (cpuinfo_value(line, "CPU implementer") && !h->cpu_arch[0]) {
		gp_strlcpy(h->cpu_arch, "arm64", sizeof(h->cpu_arch));
	} else if ((v = cpuinfo_value(line, "cpu")) && !strncmp(v, "POWER", 5) && !h->cpu_arch[0]) {
		gp_strlcpy(h->cpu_arch, "ppc64", sizeof(h->cpu_arch));
	}
}

static void read_cpu_bits(struct gp_host *h)
{
	char path[PATH_LEN];
	char *text = read_file(h, gp_rootp(h, path, GP_PROC_CPUINFO)), *cur = text, *line;
	bool bits = false;

	h->cpu_family = h->cpu_model = -1;
	while ((line = strsep(&cur, "\n"))) {
		cpu_identity(h, line);
		if (bits || strncmp(line, "address sizes", 13))
			continue;
		bits = true;
		if (sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : line,
			   " %d bits physical, %d bits virtual", &h->phys_bits, &h->virt_bits) < 1)
			h->phys_bits = 0;
	}
	free(text);
}

static int count_entries(const struct gp_host *h, const char *path)
{
	DIR *dir = open_dir(h, path);
	struct dirent *e;
	int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* "vfio-pci.ids=" / "vfio_pci.ids=" on the command line. */
static bool cmdline_vfio_ids(const char *cmdline, char *ids, size_t len)
{
	const char *p = cmdline;

	while ((p = strstr(p, "pci.ids="))) {
		if (p - cmdline >= 5 &&
		    (!strncmp(p - 5, "vfio-", 5) || !strncmp(p - 5, "vfio_", 5)) &&
		    (p - cmdline == 5 || p[-6] == ' ')) {
			size_t n = strcspn(p + 8, " \n");

			snprintf(ids, len, "%.*s", (int)n, p + 8);
			return true;
		}
		p += 8;
	}
	return false;
}

static bool is_vfio_name(const char *s)
{
	return !strcmp(s, "vfio-pci") || !strcmp(s, "vfio_pci");
}

/* The first ids= wins, as at boot; every place that sets one is named. */
static void add_ids_source(struct gp_host *h, const char *ids, const char *source)
{
	size_t n = strlen(h->vfio_ids_source);

	if (!h->vfio_ids[0])
		gp_strlcpy(h->vfio_ids, ids, sizeof(h->vfio_ids));
	snprintf(h->vfio_ids_source + n, sizeof(h->vfio_ids_source) - n, "%s%s", n ? ", " : "",
		 source);
	if (!strcmp(source, GP_PROC_CMDLINE))
		return; /* this boot's: the next one's is host/boot.c's */
	n = strlen(h->boot_ids);
	snprintf(h->boot_ids + n, sizeof(h->boot_ids) - n, "%s%s", n ? "," : "", ids);
	n = strlen(h->boot_ids_source);
	snprintf(h->boot_ids_source + n, sizeof(h->boot_ids_source) - n, "%s%s", n ? ", " : "",
		 source);
}

/* modprobe.d: "options vfio-pci ids=..." and "blacklist vfio_pci". */
static void scan_modprobe_file(struct gp_host *h, const char *path, const char *shown)
{
	char *text = read_file(h, path), *cur = text, *line;

	while ((line = strsep(&cur, "\n"))) {
		char *words[16], *p = gp_trim(line), *save = NULL, *w;
		int n = 0, i;

		if (*p == '#')
			continue;
		/* words split on blanks only: "ids=10de:20b5,10de:20f1" is one */
		for (w = strtok_r(p, " \t", &save); w && n < 16; w = strtok_r(NULL, " \t", &save))
			words[n++] = w;
		if (n >= 2 && !strcmp(words[0], "blacklist") && is_vfio_name(words[1]))
			h->vfio_blacklisted = true;
		if (n < 3 || strcmp(words[0], "options") || !is_vfio_name(words[1]))
			continue;
		for (i = 2; i < n; i++)
			if (!strncmp(words[i], "ids=", 4))
				add_ids_source(h, words[i] + 4, shown);
	}
	free(text);
}

static void scan_modprobe(struct gp_host *h)
{
	char path[PATH_LEN], shown[PATH_LEN], ids[256];
	size_t i;

	if (cmdline_vfio_ids(h->cmdline, ids, sizeof(ids)))
		add_ids_source(h, ids, GP_PROC_CMDLINE);
	for (i = 0; i < GP_MODPROBE_DIRS; i++) {
		struct dirent *e;
		DIR *dir = open_dir(h, gp_rootp(h, path, "%s", gp_modprobe_dirs[i]));

		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			size_t n = strlen(e->d_name);

			if (n < 6 || strcmp(e->d_name + n - 5, ".conf"))
				continue;
			snprintf(shown, sizeof(shown), "%s/%s", gp_modprobe_dirs[i], e->d_name);
			scan_modprobe_file(h, shown, shown);
		}
		closedir(dir);
	}
}

void gp_read_kernel(struct gp_host *h)
{
	char path[PATH_LEN];

	read_text(h, gp_rootp(h, path, GP_PROC_CMDLINE), h->cmdline, sizeof(h->cmdline));
	read_text(h, gp_rootp(h, path, GP_PROC_RELEASE), h->kernel_release,
		  sizeof(h->kernel_release));
	read_text(h, gp_rootp(h, path, GP_PROC_HOSTNAME), h->hostname, sizeof(h->hostname));
	read_text(h, gp_rootp(h, path, GP_DMI_BIOS), h->bios_version, sizeof(h->bios_version));
	read_text(h, gp_rootp(h, path, GP_DMI_BIOS_VENDOR), h->bios_vendor, sizeof(h->bios_vendor));
	read_text(h, gp_rootp(h, path, GP_DMI_PRODUCT), h->product, sizeof(h->product));
	read_text(h, gp_rootp(h, path, GP_DMI_SERIAL), h->serial, sizeof(h->serial));
	read_text(h, gp_rootp(h, path, GP_DMI_ASSET), h->asset_tag, sizeof(h->asset_tag));
	read_cpu_bits(h);
	h->iommu_groups = count_entries(h, gp_rootp(h, path, GP_SYS_IOMMU_GROUPS));
}

/* vfio-pci: loaded, available to load (libkmod), and what modprobe.d says of it */
void gp_read_vfio_module(struct gp_host *h)
{
	char path[PATH_LEN];

	h->vfio_loaded = exists(h, gp_rootp(h, path, GP_SYS_VFIO_PCI));
	h->vfio_available =
		h->kernel_release[0] ? gp_vfio_module_available(h->root, h->kernel_release) : -1;
	scan_modprobe(h);
}
