// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a VM would run: KVM, QEMU's version (its binary, or dpkg's record),
 * and whether the files the VM's XML names (firmware, disks) exist.  The
 * profile's VM itself (its XML, libvirt's domain) is owned.c's.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/manifest.h"
#include "core/model.h"
#include "host/host.h"
#include "host/read.h"
#include "shared/util.h"
#include "sys/virt.h"

/*
 * "1:7.2+dfsg-7+deb12u18" -> "7.2"; what dpkg says qemu-system-x86 is: the
 * first Version of its stanza (*state: 0 another package's, 1 ours, 2 done).
 */
static void dpkg_line(struct gp_host *h, const char *line, int *state)
{
	const char *v;

	if (*state < 2 && !strncmp(line, "Package: ", 9))
		*state = !strcmp(line + 9, "qemu-system-x86");
	if (*state != 1 || strncmp(line, "Version: ", 9))
		return;
	v = strchr(line + 9, ':') ? strchr(line + 9, ':') + 1 : line + 9;
	snprintf(h->qemu_version, sizeof(h->qemu_version), "%.*s", (int)strspn(v, "0123456789."),
		 v);
	*state = 2;
}

static void qemu_line(void *ctx, const char *line, int *state)
{
	dpkg_line(ctx, line, state);
}

static void qemu_from_dpkg(struct gp_host *h)
{
	if (gp_read_dpkg(h, qemu_line, h))
		h->qemu_version[0] = '\0';
}

/* 1 present, 0 absent, -1 cannot tell: a -r tree without the directory it would be in. */
static int file_state(const struct gp_host *h, const char *path)
{
	char dir[PATH_LEN];

	if (exists(h, path))
		return 1;
	if (!h->root[0])
		return 0;
	gp_strlcpy(dir, path, sizeof(dir));
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	return dir[0] && exists(h, dir) ? 0 : -1;
}

/* KVM: /dev/kvm, or in a tree without /dev, the misc device sysfs lists. */
static int kvm_state(const struct gp_host *h)
{
	char path[PATH_LEN];

	if (exists(h, gp_rootp(h, path, GP_DEV_KVM)) ||
	    exists(h, gp_rootp(h, path, GP_SYS_MISC "/kvm")))
		return 1;
	return !h->root[0] || exists(h, gp_rootp(h, path, GP_SYS_MISC)) ? 0 : -1;
}

/*
 * QEMU's version as its binary says, on the live host: a process of 27 MB,
 * so gp_host_load asks it for a profile's [vm] only (the profile command
 * asks itself).  What the binary says wins over dpkg's record.
 */
void gp_host_qemu_binary(struct gp_host *h)
{
	char v[sizeof(h->qemu_version)];

	if (h->root[0])
		return;
	gp_virt_qemu_version(v, sizeof(v));
	if (v[0])
		memcpy(h->qemu_version, v, sizeof(v));
}

/* One CPU's SMT siblings: the first of them, -1 when unknown. */
static int first_sibling(const struct gp_host *h, int cpu)
{
	char path[PATH_LEN], text[256];
	int first;

	if (read_text(h, gp_rootp(h, path, GP_SYS_CPUS "/cpu%d/" GP_CPU_SIBLINGS, cpu), text,
		      sizeof(text)) <= 0 ||
	    gp_cpulist_parse(text, &first, 1) < 1)
		return -1;
	return first <= cpu ? first : -1; /* a list not naming cpu first or before: not trusted */
}

/* What vCPU pinning needs: each CPU of the NUMA nodes with its SMT siblings. */
static void read_cpu_cores(struct gp_host *h)
{
	int ids[4096], n, i, k;
	size_t j;

	for (j = 0; j < h->nnuma; j++) {
		n = gp_cpulist_parse(h->numa[j].cpus, ids, (int)ARRAY_SIZE(ids));
		for (i = 0; i < n && i < (int)ARRAY_SIZE(ids); i++) {
			if (ids[i] > 65535)
				break; /* no machine numbers its CPUs so: a hostile tree */
			if (ids[i] >= h->ncpu_core) {
				h->cpu_core = gp_xrealloc(h->cpu_core, (size_t)ids[i] + 1,
							  sizeof(*h->cpu_core));
				for (k = h->ncpu_core; k <= ids[i]; k++)
					h->cpu_core[k] = -1;
				h->ncpu_core = ids[i] + 1;
			}
			h->cpu_core[ids[i]] = first_sibling(h, ids[i]);
		}
	}
}

/* KVM and QEMU; the profile's VM (its XML, libvirt's domain) is owned.c's. */
void gp_read_vm_env(struct gp_host *h, const struct gp_profile *p)
{
	h->vm_defined = -1;
	h->vm_running = -1;
	h->kvm = kvm_state(h);
	if (p && p->has_vm) {
		gp_host_qemu_binary(h);
		read_cpu_cores(h);
	}
	if (!h->qemu_version[0])
		qemu_from_dpkg(h);
}

/* firmware='efi' without a loader: libvirt picks from QEMU's firmware descriptors. */
static void firmware_descriptor(const struct gp_host *h, struct gp_vm_file *f)
{
	char path[PATH_LEN];
	struct dirent *e;
	size_t i;
	DIR *dir;

	f->exists = -1;
	snprintf(f->path, sizeof(f->path), "%s/*x86_64*.json", gp_qemu_firmware_dirs[1]);
	for (i = 0; i < GP_QEMU_FIRMWARE_DIRS; i++) {
		dir = open_dir(h, gp_rootp(h, path, "%s", gp_qemu_firmware_dirs[i]));
		if (!dir)
			continue;
		f->exists = 0;
		while ((e = readdir(dir)) && !strstr(e->d_name, "x86_64"))
			;
		if (e)
			snprintf(f->path, sizeof(f->path), "%s/%s", gp_qemu_firmware_dirs[i],
				 e->d_name);
		closedir(dir);
		if (e) {
			f->exists = 1;
			return;
		}
	}
	if (f->exists < 0 && !h->root[0])
		f->exists = 0;
}

void gp_host_vm_files(struct gp_host *h, const struct gp_vm_file *files, int n)
{
	int i;

	h->nvm_files = n < GP_VM_FILES ? n : GP_VM_FILES;
	memcpy(h->vm_files, files, (size_t)h->nvm_files * sizeof(*files));
	h->rootfd = gp_root_open(h->root);
	for (i = 0; i < h->nvm_files; i++) {
		struct gp_vm_file *f = &h->vm_files[i];

		if (!strcmp(f->role, "firmware descriptor"))
			firmware_descriptor(h, f);
		else
			f->exists = h->rootfd < 0 && h->rootfd != AT_FDCWD ? -1
									   : file_state(h, f->path);
	}
	gp_root_close(h->rootfd);
	h->rootfd = -1;
}
