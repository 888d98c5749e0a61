// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov snapshot: copy what host.c reads into a tarball, links kept as
 * links, so that `gpuprov -r DIR` on the unpacked tree gives the same scan,
 * topo and check elsewhere.  Reads only, through the safe reader (links
 * resolve inside --root); the one write is the staging directory, where no
 * link is ever followed (it holds links copied from the tree), and the
 * tarball, created 0600: network configurations are kept with their secrets
 * redacted (redact.c), but a snapshot is still a map of the host.
 */
#define _GNU_SOURCE /* nftw */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cmd.h"
#include "core/verify.h"
#include "cli/out.h"
#include "core/fabric.h"
#include "core/manifest.h"
#include "core/model.h"
#include "core/redact.h"
#include "host/host.h"
#include "shared/progress.h"
#include "sys/nvml.h"

extern char **environ;

#define PATH_LEN 4096

#define COPY_MAX (64u << 20) /* bytes of one file: modules.*.bin are a few MiB */

struct snap {
	const char *root; /* "" for the live host */
	int rootfd;	  /* gp_root_open(root) */
	char stage[PATH_LEN];
	int stagefd;
	int files;
	char where[128]; /* the directory being copied, for the progress line */
};

/* On a terminal: how far the copy is (a host of 4,000 PCI functions takes a while). */
static void snap_progress(struct snap *s, const char *where)
{
	if (where)
		snprintf(s->where, sizeof(s->where), "%s", where);
	gp_progress("snapshot: %d files, %s", s->files / 100 * 100, s->where);
}

/* Formats a path; one too long for PATH_LEN becomes "", which no open() finds. */
static void pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_LEN)
		buf[0] = '\0';
}

/* Creates rel in the staging tree, and its directories; follows no link. */
static int stage_open(struct snap *s, const char *rel, mode_t mode)
{
	const char *name;
	int dir = gp_root_mkparent(s->stagefd, rel, &name), fd;

	if (dir < 0)
		return dir;
	fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		fd = -errno;
	close(dir);
	return fd;
}

static void stage_mkdir(struct snap *s, const char *rel)
{
	const char *name;
	int dir = gp_root_mkparent(s->stagefd, rel, &name);

	if (dir < 0)
		return;
	mkdirat(dir, name, 0755);
	close(dir);
}

static int stage_write(struct snap *s, const char *rel, const char *text, mode_t mode)
{
	int fd = stage_open(s, rel, mode);
	size_t len = strlen(text);

	if (fd < 0)
		return fd;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	s->files++;
	snap_progress(s, NULL);
	return 0;
}

/* Copies one file's content as read (sysfs sizes lie); missing files are skipped. */
static int copy_file(struct snap *s, const char *rel)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	size_t total = 0;
	struct stat st;

	in = gp_root_openat(s->rootfd, rel, O_RDONLY);
	if (in < 0)
		return in;
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		close(in);
		return -EISDIR;
	}
	out = stage_open(s, rel, 0644);
	if (out < 0) {
		close(in);
		return out;
	}
	while (total < COPY_MAX && (n = read(in, buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		if (write(out, buf, (size_t)n) != n)
			break;
	}
	close(in);
	close(out);
	s->files++;
	snap_progress(s, NULL);
	return 0;
}

/* Recreates a link with its own (relative) text; returns the text's length. */
static ssize_t copy_link(struct snap *s, const char *rel, char *target, size_t len)
{
	const char *name;
	ssize_t n = gp_root_readlink(s->rootfd, rel, target, len);
	int dir, rc = 0;

	if (n < 0)
		return n;
	dir = gp_root_mkparent(s->stagefd, rel, &name);
	if (dir < 0)
		return dir;
	unlinkat(dir, name, 0);
	if (symlinkat(target, dir, name))
		rc = -errno;
	close(dir);
	if (rc)
		return rc;
	s->files++;
	return n;
}

/* The directory a link at rel points to, as a path under the root. */
static void resolve(const char *rel, const char *target, char *out)
{
	char buf[PATH_LEN], *save = NULL, *tok, *slash;

	gp_strlcpy(buf, rel, sizeof(buf));
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (target[0] == '/')
		buf[0] = '\0';
	{
		char t[PATH_LEN];

		gp_strlcpy(t, target, sizeof(t));
		for (tok = strtok_r(t, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
			if (!strcmp(tok, "."))
				continue;
			if (!strcmp(tok, "..")) {
				slash = strrchr(buf, '/');
				if (slash)
					*slash = '\0';
				continue;
			}
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "/%s", tok);
		}
	}
	gp_strlcpy(out, buf, PATH_LEN);
}

static void copy_files(struct snap *s, const char *dir, const char *const *names)
{
	char rel[PATH_LEN];

	for (; *names; names++) {
		pathf(rel, "%s/%s", dir, *names);
		copy_file(s, rel);
	}
}

/* A link whose target directory must exist too (libpci realpath()s them). */
static void copy_link_and_dir(struct snap *s, const char *rel)
{
	char target[PATH_LEN], dir[PATH_LEN];

	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, dir);
	stage_mkdir(s, dir);
}

typedef void (*entry_fn)(struct snap *s, const char *dir, const char *name);

static void each_entry(struct snap *s, const char *dir, entry_fn fn)
{
	struct dirent *e;
	DIR *d = gp_root_opendir(s->rootfd, dir);

	if (!d)
		return;
	snap_progress(s, dir);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			fn(s, dir, e->d_name);
	closedir(d);
}

/* An RDMA device of a PCI function: its firmware (nic.firmware). */
static void ib_device(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	stage_mkdir(s, rel);
	copy_files(s, rel, gp_ib_dev_files);
}

/* A port's virtfnN links (the reader's read_virtfn), as links: their VFs' addresses. */
static void virtfn_links(struct snap *s, const char *devdir)
{
	size_t n = strlen(GP_PCI_VIRTFN);
	char rel[PATH_LEN], target[PATH_LEN];
	struct dirent *e;
	DIR *d = gp_root_opendir(s->rootfd, devdir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, GP_PCI_VIRTFN, n) && e->d_name[n] &&
		    strspn(e->d_name + n, "0123456789") == strlen(e->d_name + n)) {
			pathf(rel, "%s/%s", devdir, e->d_name);
			copy_link(s, rel, target, sizeof(target));
		}
	closedir(d);
}

static void pci_device(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN], devdir[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, devdir);
	stage_mkdir(s, devdir);
	copy_files(s, devdir, gp_pci_dev_files);
	pathf(rel, "%s/" GP_PCI_IB_DIR, devdir);
	each_entry(s, rel, ib_device);
	pathf(rel, "%s/driver", devdir);
	copy_link_and_dir(s, rel);
	pathf(rel, "%s/iommu_group", devdir);
	copy_link_and_dir(s, rel);
	virtfn_links(s, devdir);
}

static void iommu_group_member(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	copy_link(s, rel, target, sizeof(target));
}

static void iommu_groups(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN];

	pathf(rel, "%s/%s/devices", dir, name);
	stage_mkdir(s, rel);
	each_entry(s, rel, iommu_group_member);
}

/* dir/name/file, when it exists */
static void copy_in(struct snap *s, const char *dir, const char *name, const char *file)
{
	char rel[PATH_LEN];

	pathf(rel, "%s/%s/%s", dir, name, file);
	copy_file(s, rel);
}

static void pci_slot(struct snap *s, const char *dir, const char *name)
{
	copy_in(s, dir, name, "address");
}

static void numa_node(struct snap *s, const char *dir, const char *name)
{
	if (strncmp(name, "node", 4))
		return;
	copy_in(s, dir, name, "cpulist");
	copy_in(s, dir, name, "meminfo");
	copy_in(s, dir, name, "hugepages/hugepages-1048576kB/free_hugepages");
	copy_in(s, dir, name, "hugepages/hugepages-2048kB/free_hugepages");
	copy_in(s, dir, name, "hugepages/hugepages-1048576kB/nr_hugepages");
	copy_in(s, dir, name, "hugepages/hugepages-2048kB/nr_hugepages");
}

/* cpuN: its SMT siblings, for vCPU pinning */
static void cpu_topology(struct snap *s, const char *dir, const char *name)
{
	if (strncmp(name, "cpu", 3) || !isdigit((unsigned char)name[3]))
		return;
	copy_in(s, dir, name, GP_CPU_SIBLINGS);
}

/* upper_NAME: a VLAN, bridge or bond on top of an interface */
static void upper_link(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN];

	if (strncmp(name, "upper_", 6))
		return;
	pathf(rel, "%s/%s", dir, name);
	copy_link(s, rel, target, sizeof(target));
}

static void holder_link(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	copy_link(s, rel, target, sizeof(target));
}

/* A disk or partition: its link (which names the PCI function), dev, holders. */
static void block_dev(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN], bdir[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, bdir);
	pathf(rel, "%s/holders", bdir);
	stage_mkdir(s, rel);
	pathf(rel, "%s/dev", bdir);
	copy_file(s, rel);
	pathf(rel, "%s/holders", bdir);
	each_entry(s, rel, holder_link);
}

static void vtconsole(struct snap *s, const char *dir, const char *name)
{
	copy_in(s, dir, name, "name");
	copy_in(s, dir, name, "bind");
}

/*
 * Established TCP connections only, remote ends blanked: what the companion
 * and bond checks need (which local address is busy), not who talks to it.
 */
static void copy_tcp(struct snap *s, const char *rel)
{
	char *text, *cur, *line, *kept = NULL;
	size_t len = 0;

	if (gp_root_slurp(s->rootfd, rel, GP_READ_MAX, &text) < 0)
		return;
	for (cur = text; (line = strsep(&cur, "\n"));) {
		unsigned state;
		int off = -1;
		size_t n;
		char *p;

		if (!*line)
			continue;
		/* "sl local remote st ...": the header has no state and stays */
		if (sscanf(line, " %*s %*s %n%*s %x", &off, &state) == 1) {
			if (state != 1)
				continue;
			for (p = line + off; *p && *p != ' '; p++)
				if (*p != ':')
					*p = '0';
		}
		n = strlen(line);
		kept = gp_xrealloc(kept, len + n + 2, 1);
		memcpy(kept + len, line, n);
		len += n;
		kept[len++] = '\n';
		kept[len] = '\0';
	}
	free(text);
	stage_write(s, rel, kept ? kept : "", 0644);
	free(kept);
}

static void net_iface(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN], ndir[PATH_LEN], bdir[PATH_LEN];
	struct stat st;

	pathf(rel, "%s/%s", dir, name);
	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, ndir);
	stage_mkdir(s, ndir);
	copy_files(s, ndir, gp_net_files);
	pathf(rel, "%s/master", ndir);
	copy_link(s, rel, target, sizeof(target));
	each_entry(s, ndir, upper_link);
	pathf(bdir, "%s/bonding", ndir);
	if (!gp_root_stat(s->rootfd, bdir, &st)) {
		stage_mkdir(s, bdir);
		copy_files(s, bdir, gp_bond_files);
	}
}

static void nvidia_gpu(struct snap *s, const char *dir, const char *name)
{
	copy_in(s, dir, name, "information");
}

/* Only the file descriptors that point at GPU device nodes, and gp_proc_files. */
static void process(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], link[256], pid[PATH_LEN];
	struct dirent *e;
	DIR *d;
	bool any = false;

	if (name[0] < '0' || name[0] > '9')
		return;
	pathf(rel, "%s/%s/fd", dir, name);
	d = gp_root_opendir(s->rootfd, rel);
	if (!d)
		return;
	snap_progress(s, dir);
	while ((e = readdir(d))) {
		char fd[PATH_LEN];

		if (e->d_name[0] == '.')
			continue;
		pathf(fd, "%s/%s", rel, e->d_name);
		if (gp_root_readlink(s->rootfd, fd, link, sizeof(link)) <= 0)
			continue;
		if (strncmp(link, GP_DEV_NVIDIA, strlen(GP_DEV_NVIDIA)) &&
		    strncmp(link, GP_DEV_VFIO, strlen(GP_DEV_VFIO)))
			continue;
		copy_link(s, fd, link, sizeof(link));
		any = true;
	}
	closedir(d);
	if (any) {
		pathf(pid, "%s/%s", dir, name);
		copy_files(s, pid, gp_proc_files);
	}
}

static void modules_of(struct snap *s, const char *release)
{
	static const char *const idx[] = {
		"modules.dep",	       "modules.dep.bin",     "modules.alias.bin",
		"modules.builtin",     "modules.builtin.bin", "modules.builtin.alias.bin",
		"modules.symbols.bin", "modules.softdep",     NULL
	};
	char dir[PATH_LEN];
	struct stat st;

	if (!release[0] || strchr(release, '/') || !strcmp(release, "..") || !strcmp(release, "."))
		return; /* a name, never a path */
	pathf(dir, GP_LIB_MODULES "/%s", release);
	if (gp_root_stat(s->rootfd, dir, &st))
		return;
	stage_mkdir(s, dir); /* an empty tree still says "no vfio-pci here" */
	copy_files(s, dir, idx);
}

/* The running kernel's module indexes, and those of the kernel the next boot runs. */
static void modules(struct snap *s)
{
	char release[256], next[GP_NAME_LEN];

	if (gp_root_read(s->rootfd, GP_PROC_RELEASE, release, sizeof(release)) <= 0)
		return;
	release[strcspn(release, "\n")] = '\0';
	modules_of(s, release);
	gp_boot_release_at(s->rootfd, release, next, sizeof(next));
	if (strcmp(next, release))
		modules_of(s, next);
}

/* Of dpkg's status, only the stanzas whose versions matter: QEMU's, Fabric Manager's, NSCQ's. */
static void dpkg_qemu(struct snap *s)
{
	char *text, *cur, *line, *kept = NULL;
	size_t len = 0;
	bool ours = false;

	if (gp_root_slurp(s->rootfd, GP_DPKG_STATUS, COPY_MAX, &text) < 0)
		return;
	for (cur = text; (line = strsep(&cur, "\n"));) {
		size_t n = strlen(line);

		if (!strncmp(line, "Package: ", 9))
			ours = !strcmp(line + 9, "qemu-system-x86") || gp_fabric_package(line + 9);
		if (!ours)
			continue;
		kept = gp_xrealloc(kept, len + n + 2, 1);
		memcpy(kept + len, line, n);
		len += n;
		kept[len++] = '\n';
		kept[len] = '\0';
	}
	free(text);
	if (kept)
		stage_write(s, GP_DPKG_STATUS, kept, 0644);
	free(kept);
}

/* A directory that only needs to exist (a marker of a running service). */
static void same_dir(struct snap *s, const char *rel)
{
	struct stat st;

	if (gp_root_stat(s->rootfd, rel, &st) || !S_ISDIR(st.st_mode))
		return;
	stage_mkdir(s, rel);
}

static void any_file(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	copy_file(s, rel);
}

static void modprobe_conf(struct snap *s, const char *dir, const char *name)
{
	size_t n = strlen(name);

	if (n > 5 && !strcmp(name + n - 5, ".conf"))
		any_file(s, dir, name);
}

/*
 * A network configuration: what gpuprov reads of it (the interfaces it
 * names, to tell the owner of the bond's ports), its secrets redacted.
 */
static void net_file(struct snap *s, const char *rel)
{
	char *text, *kept;

	if (gp_root_slurp(s->rootfd, rel, GP_READ_MAX, &text) < 0)
		return;
	kept = gp_net_redact(rel, text);
	stage_write(s, rel, kept, 0600);
	free(kept);
	free(text);
}

/* The names host.c reads in each owner's directory (mentions()). */
static void net_entry(struct snap *s, const char *dir, const char *name)
{
	static const char *const suffixes[] = { ".nmconnection", ".yaml", ".network", ".netdev" };
	char rel[PATH_LEN];
	size_t i, n = strlen(name);
	bool any = !strcmp(dir, GP_IFUPDOWN_D);

	for (i = 0; !any && i < ARRAY_SIZE(suffixes); i++)
		any = n > strlen(suffixes[i]) &&
		      !strcmp(name + n - strlen(suffixes[i]), suffixes[i]);
	if (!any)
		return;
	pathf(rel, "%s/%s", dir, name);
	net_file(s, rel);
}

/* Who owns the network configuration, and what gpuprov persisted before. */
static void config_state(struct snap *s)
{
	char target[PATH_LEN];
	struct stat st;
	int i;

	copy_tcp(s, GP_PROC_TCP);
	copy_tcp(s, GP_PROC_TCP6);
	same_dir(s, GP_NM_RUN);
	same_dir(s, GP_NM_ETC);
	same_dir(s, GP_NETWORKD_RUN);
	each_entry(s, GP_NM_CONNECTIONS, net_entry);
	each_entry(s, GP_NETPLAN, net_entry);
	/* networkd's .network files further down too: bond.persist_shadowed */
	for (i = 0; i < GP_NETWORKD_DIRS; i++)
		each_entry(s, gp_networkd_dirs[i], net_entry);
	net_file(s, GP_IFUPDOWN);
	each_entry(s, GP_IFUPDOWN_D, net_entry);
	each_entry(s, GP_OVERRIDE_DIR, any_file);
	each_entry(s, GP_DRIVERCTL_DIR, any_file);
	for (i = 0; i < GP_PERSIST_FILES; i++)
		copy_file(s, gp_persist_paths[i]);
	/* hugepages.reserve's boot unit, which the plan compares */
	each_entry(s, GP_HUGE_DIR, any_file);
	copy_file(s, GP_HUGE_SCRIPT);
	copy_file(s, GP_HUGE_UNIT);
	copy_link(s, GP_HUGE_WANTS, target, sizeof(target));
	/* present, not needed: an empty stand-in */
	if (!gp_root_stat(s->rootfd, GP_DRIVERCTL, &st))
		stage_write(s, GP_DRIVERCTL, "", 0755);
}

/* A file the VM preflight only looks for: an empty stand-in of the same name. */
static void exists_only(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	stage_write(s, rel, "", 0644);
}

/*
 * What vm.kvm, vm.firmware, vm.disk and vm.running look for: names only (never
 * a disk image's content).  A directory the host has is kept even when empty,
 * so that a file absent from it reads as absent, not as unknown.
 */
static void vm_state(struct snap *s)
{
	const char *const *d;
	struct stat st;

	for (d = gp_vm_dirs; *d; d++) {
		if (gp_root_stat(s->rootfd, *d, &st) || !S_ISDIR(st.st_mode))
			continue;
		stage_mkdir(s, *d);
		each_entry(s, *d, exists_only);
	}
}

/*
 * The NVLinks as NVML sees them now, kept the way apply keeps them, so that
 * topo on the snapshot shows NV# cells; else a record kept earlier.
 */
static void nvlink_record(struct snap *s)
{
	struct gp_nv_view v;
	struct stat st;
	json_object *doc;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	copy_file(s, GP_VERIFY_RECORD); /* verify's bandwidths, for topo and report */
	if (s->root[0] || gp_root_stat(s->rootfd, GP_PROC_NVIDIA_GPUS, &st)) {
		copy_file(s, GP_NV_RECORD);
		return;
	}
	gp_nvml_view(&v);
	if (v.source != GP_NV_NVML || !v.n) {
		gp_nv_view_release(&v);
		copy_file(s, GP_NV_RECORD);
		return;
	}
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	doc = gp_nv_to_json(&v, when);
	stage_write(s, GP_NV_RECORD, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY),
		    0644);
	json_object_put(doc);
	gp_nv_view_release(&v);
}

/* What host/ reads; the single files and modprobe.d from core/manifest.c. */
static void collect(struct snap *s)
{
	const char *const *f;
	struct stat st;

	/* a host without PCI functions still has the directory: the copy reads back */
	stage_mkdir(s, GP_SYS_PCI_DEVICES);
	each_entry(s, GP_SYS_PCI_DEVICES, pci_device);
	vm_state(s);
	each_entry(s, GP_SYS_IOMMU_GROUPS, iommu_groups);
	each_entry(s, GP_SYS_PCI_SLOTS, pci_slot);
	each_entry(s, GP_SYS_NODES, numa_node);
	each_entry(s, GP_SYS_CPUS, cpu_topology);
	each_entry(s, GP_SYS_NET, net_iface);
	for (f = gp_host_files; *f; f++)
		copy_file(s, *f);
	if (!gp_root_stat(s->rootfd, GP_SYS_VFIO_PCI, &st))
		stage_mkdir(s, GP_SYS_VFIO_PCI);
	/* whether it is there (persist.readonly: apply makes it), not its profiles */
	if (!gp_root_stat(s->rootfd, GP_ETC_DIR, &st) && S_ISDIR(st.st_mode))
		stage_mkdir(s, GP_ETC_DIR);
	each_entry(s, GP_SYS_BLOCK, block_dev);
	each_entry(s, GP_SYS_VTCONSOLE, vtconsole);
	each_entry(s, GP_PROC_NVIDIA_GPUS, nvidia_gpu);
	each_entry(s, GP_PROC, process);
	for (f = gp_modprobe_dirs; f < gp_modprobe_dirs + GP_MODPROBE_DIRS; f++)
		each_entry(s, *f, modprobe_conf);
	each_entry(s, GP_MODULES_LOAD_DIR, modprobe_conf);
	modules(s);
	dpkg_qemu(s);
	config_state(s);
	nvlink_record(s);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

#define ARCHIVE_MAX (1u << 30) /* bytes of tar's output */

/* tar's gzip'd output of the staging tree, whole, in memory. */
static int run_tar(const char *stage, char **data, size_t *len)
{
	char *argv[] = { "tar", "-C", (char *)stage, "-czf", "-", ".", NULL };
	posix_spawn_file_actions_t fa;
	size_t cap = 1 << 16;
	int p[2], status, rc;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	rc = posix_spawnp(&pid, "tar", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return -rc;
	}
	*len = 0;
	*data = gp_xcalloc(cap, 1);
	while ((n = read(p[0], *data + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap && cap < ARCHIVE_MAX)
			*data = gp_xrealloc(*data, cap *= 2, 1);
		else if (*len == cap)
			break; /* too large: tar dies of SIGPIPE, the status says so */
	}
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* The archive, through the one writer: created 0600, never through a link. */
static int write_archive(const char *stage, const char *output)
{
	char *data = NULL;
	size_t len = 0;
	int rc = run_tar(stage, &data, &len);

	if (!rc)
		rc = gp_write_file(output, data, len, 0600);
	free(data);
	return rc;
}

static int do_snapshot(struct gp_ctx *ctx)
{
	struct snap s = { .root = strcmp(ctx->root, "/") ? ctx->root : "" };
	char path[PATH_LEN];
	int rc, fd;

	if (ctx->argc || !ctx->opt[GP_OPT_OUTPUT]) {
		gp_err("usage: gpuprov snapshot -o FILE.tar.gz");
		return GP_EXIT_INPUT;
	}
	pathf(path, "%s/sys/bus/pci/devices", s.root);
	s.rootfd = gp_root_open(s.root);
	fd = s.rootfd == AT_FDCWD || s.rootfd >= 0
		     ? gp_root_openat(s.rootfd, GP_SYS_PCI_DEVICES, O_RDONLY | O_DIRECTORY)
		     : s.rootfd;
	if (fd < 0) {
		gp_err("cannot read host state: '%s': %s", path, gp_root_strerror(fd));
		gp_root_close(s.rootfd);
		return GP_EXIT_HOST;
	}
	close(fd);
	snprintf(s.stage, sizeof(s.stage), "%s/gpuprov-snapshot.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(s.stage) ||
	    (s.stagefd = open(s.stage, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		gp_err("cannot create a staging directory: %s", strerror(errno));
		gp_root_close(s.rootfd);
		return GP_EXIT_HOST;
	}
	collect(&s);
	gp_root_close(s.rootfd);
	close(s.stagefd);
	gp_progress("snapshot: %d files, writing %s", s.files, ctx->opt[GP_OPT_OUTPUT]);
	rc = write_archive(s.stage, ctx->opt[GP_OPT_OUTPUT]);
	gp_progress_clear();
	nftw(s.stage, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (rc) {
		gp_err("cannot write '%s': %s", ctx->opt[GP_OPT_OUTPUT],
		       rc == -EIO ? "tar failed" : gp_write_strerror(rc));
		return GP_EXIT_INPUT;
	}
	/*
	 * The archive is the output: as text, what was written is a message on
	 * stderr (-q quiets it), stdout stays empty; under --json, the one
	 * document every command prints.
	 */
	gp_info("wrote %s: %d files and links", ctx->opt[GP_OPT_OUTPUT], s.files);
	if (ctx->json) {
		gp_doc_begin(NULL, "snapshot");
		gp_print_str("file", NULL, ctx->opt[GP_OPT_OUTPUT]);
		gp_print_int("files", NULL, s.files);
		gp_doc_end();
	}
	return GP_EXIT_OK;
}

const struct gp_cmd gp_cmd_snapshot = {
	.name = "snapshot",
	.run = do_snapshot,
	.opts = { GP_OPT_OUTPUT },
	.help = "save what gpuprov reads of this host: snapshot -o FILE.tar.gz",
};
