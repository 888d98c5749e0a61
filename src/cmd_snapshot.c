// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpuprov snapshot: copy what host.c reads into a tarball, links kept as
 * links, so that `gpuprov -r DIR` on the unpacked tree gives the same scan,
 * topo and check elsewhere.  Reads only (under --root, like host.c); the one
 * write is the staging directory and the tarball the operator asked for.
 */
#define _GNU_SOURCE /* nftw */
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
#include <unistd.h>

#include "cmd.h"
#include "gp.h"

extern char **environ;

#define PATH_LEN 4096

struct snap {
	const char *root; /* "" for the live host */
	char stage[PATH_LEN];
	int files;
};

static const char *const dev_files[] = {
	"vendor",
	"device",
	"class",
	"subsystem_vendor",
	"subsystem_device",
	"revision",
	"irq",
	"resource",
	"config",
	"numa_node",
	"local_cpulist",
	"current_link_speed",
	"current_link_width",
	"max_link_speed",
	"max_link_width",
	"reset_method",
	"modalias",
	"enable",
	"driver_override",
	"sriov_numvfs",
	"boot_vga",
	NULL,
};

static const char *const net_files[] = {
	"address", "operstate", "mtu", "speed", "duplex", "type", "ifindex", NULL,
};

static const char *const bond_files[] = {
	"mode",	     "slaves",	  "miimon",	   "lacp_rate",	     "xmit_hash_policy",
	"ad_select", "min_links", "ad_aggregator", "ad_partner_mac", "ad_actor_system",
	NULL,
};

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

static void src_path(const struct snap *s, char *buf, const char *rel)
{
	pathf(buf, "%s%s", s->root, rel);
}

static void dst_path(const struct snap *s, char *buf, const char *rel)
{
	pathf(buf, "%s%s", s->stage, rel);
}

static void parent_dirs(const char *path)
{
	gp_mkdir_p(path, true);
}

/* Copies one file's content as read (sysfs sizes lie); missing files are skipped. */
static int copy_file(struct snap *s, const char *rel)
{
	char src[PATH_LEN], dst[PATH_LEN], buf[65536];
	int in, out;
	ssize_t n;

	src_path(s, src, rel);
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	dst_path(s, dst, rel);
	parent_dirs(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
	s->files++;
	return 0;
}

/* Recreates a link with its own (relative) text; returns the text's length. */
static ssize_t copy_link(struct snap *s, const char *rel, char *target, size_t len)
{
	char src[PATH_LEN], dst[PATH_LEN];
	ssize_t n;

	src_path(s, src, rel);
	n = readlink(src, target, len - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	dst_path(s, dst, rel);
	parent_dirs(dst);
	unlink(dst);
	if (symlink(target, dst))
		return -errno;
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
	char target[PATH_LEN], dir[PATH_LEN], dst[PATH_LEN];

	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, dir);
	dst_path(s, dst, dir);
	gp_mkdir_p(dst, false);
}

typedef void (*entry_fn)(struct snap *s, const char *dir, const char *name);

static void each_entry(struct snap *s, const char *dir, entry_fn fn)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d;

	src_path(s, path, dir);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			fn(s, dir, e->d_name);
	closedir(d);
}

static void pci_device(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN], devdir[PATH_LEN], dst[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, devdir);
	dst_path(s, dst, devdir);
	gp_mkdir_p(dst, false);
	copy_files(s, devdir, dev_files);
	pathf(rel, "%s/driver", devdir);
	copy_link_and_dir(s, rel);
	pathf(rel, "%s/iommu_group", devdir);
	copy_link_and_dir(s, rel);
}

static void iommu_group_member(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	copy_link(s, rel, target, sizeof(target));
}

static void iommu_groups(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], dst[PATH_LEN];

	pathf(rel, "%s/%s/devices", dir, name);
	dst_path(s, dst, rel);
	gp_mkdir_p(dst, false);
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
	char rel[PATH_LEN], target[PATH_LEN], bdir[PATH_LEN], dst[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, bdir);
	pathf(rel, "%s/holders", bdir);
	dst_path(s, dst, rel);
	gp_mkdir_p(dst, false);
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
	char src[PATH_LEN], dst[PATH_LEN], line[512];
	FILE *in, *out;

	src_path(s, src, rel);
	in = fopen(src, "r");
	if (!in)
		return;
	dst_path(s, dst, rel);
	parent_dirs(dst);
	out = fopen(dst, "w");
	while (out && fgets(line, sizeof(line), in)) {
		unsigned state;
		int off = -1;
		char *p;

		/* "sl local remote st ...": the header has no state and stays */
		if (sscanf(line, " %*s %*s %n%*s %x", &off, &state) == 1) {
			if (state != 1)
				continue;
			for (p = line + off; *p && *p != ' '; p++)
				if (*p != ':')
					*p = '0';
		}
		fputs(line, out);
	}
	if (out) {
		fclose(out);
		s->files++;
	}
	fclose(in);
}

static void net_iface(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], target[PATH_LEN], ndir[PATH_LEN], dst[PATH_LEN], bdir[PATH_LEN];
	struct stat st;

	pathf(rel, "%s/%s", dir, name);
	if (copy_link(s, rel, target, sizeof(target)) <= 0)
		return;
	resolve(rel, target, ndir);
	dst_path(s, dst, ndir);
	gp_mkdir_p(dst, false);
	copy_files(s, ndir, net_files);
	pathf(rel, "%s/master", ndir);
	copy_link(s, rel, target, sizeof(target));
	each_entry(s, ndir, upper_link);
	pathf(bdir, "%s/bonding", ndir);
	src_path(s, rel, bdir);
	if (!stat(rel, &st)) {
		dst_path(s, dst, bdir);
		gp_mkdir_p(dst, false);
		copy_files(s, bdir, bond_files);
	}
}

static void nvidia_gpu(struct snap *s, const char *dir, const char *name)
{
	copy_in(s, dir, name, "information");
}

/* Only the file descriptors that point at GPU device nodes, and the command. */
static void process(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], src[PATH_LEN], link[256], comm[PATH_LEN];
	struct dirent *e;
	DIR *d;
	bool any = false;

	if (name[0] < '0' || name[0] > '9')
		return;
	pathf(rel, "%s/%s/fd", dir, name);
	src_path(s, src, rel);
	d = opendir(src);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char fd[PATH_LEN], fsrc[PATH_LEN];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		pathf(fd, "%s/%s", rel, e->d_name);
		src_path(s, fsrc, fd);
		n = readlink(fsrc, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "/dev/nvidia", 11) && strncmp(link, "/dev/vfio/", 10))
			continue;
		copy_link(s, fd, link, sizeof(link));
		any = true;
	}
	closedir(d);
	if (any) {
		pathf(comm, "%s/%s/comm", dir, name);
		copy_file(s, comm);
	}
}

static void modules(struct snap *s)
{
	static const char *const idx[] = {
		"modules.dep",	       "modules.dep.bin",     "modules.alias.bin",
		"modules.builtin",     "modules.builtin.bin", "modules.builtin.alias.bin",
		"modules.symbols.bin", "modules.softdep",     NULL
	};
	char path[PATH_LEN], release[256], dir[PATH_LEN], dst[PATH_LEN];
	struct stat st;
	FILE *f;

	src_path(s, path, "/proc/sys/kernel/osrelease");
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(release, sizeof(release), f)) {
		fclose(f);
		return;
	}
	fclose(f);
	release[strcspn(release, "\n")] = '\0';
	pathf(dir, "/lib/modules/%s", release);
	src_path(s, path, dir);
	if (stat(path, &st))
		return;
	dst_path(s, dst, dir); /* an empty tree still says "no vfio-pci here" */
	gp_mkdir_p(dst, false);
	copy_files(s, dir, idx);
}

/* Of dpkg's status, only qemu-system-x86's stanza: its version matters. */
static void dpkg_qemu(struct snap *s)
{
	char src[PATH_LEN], dst[PATH_LEN], line[1024];
	FILE *in, *out = NULL;
	bool ours = false;

	src_path(s, src, "/var/lib/dpkg/status");
	in = fopen(src, "r");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "Package: ", 9))
			ours = !strcmp(line + 9, "qemu-system-x86\n");
		if (!ours)
			continue;
		if (!out) {
			dst_path(s, dst, "/var/lib/dpkg/status");
			parent_dirs(dst);
			out = fopen(dst, "w");
			if (!out)
				break;
			s->files++;
		}
		fputs(line, out);
	}
	fclose(in);
	if (out)
		fclose(out);
}

/* A directory that only needs to exist (a marker of a running service). */
static void same_dir(struct snap *s, const char *rel)
{
	char src[PATH_LEN], dst[PATH_LEN];
	struct stat st;

	src_path(s, src, rel);
	if (stat(src, &st) || !S_ISDIR(st.st_mode))
		return;
	dst_path(s, dst, rel);
	gp_mkdir_p(dst, false);
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

/* Present, but empty: network configurations may hold secrets. */
static void empty_file(struct snap *s, const char *dir, const char *name)
{
	char rel[PATH_LEN], dst[PATH_LEN];

	pathf(rel, "%s/%s", dir, name);
	dst_path(s, dst, rel);
	parent_dirs(dst);
	close(open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
}

/*
 * Who owns the network configuration, and what gpuprov persisted before.
 * Not the contents of other network configurations: a snapshot judges the
 * owner of the bond's ports by the services that run.
 */
static void config_state(struct snap *s)
{
	char src[PATH_LEN], dst[PATH_LEN];
	struct stat st;
	int i;

	copy_file(s, "/proc/net/route");
	copy_file(s, "/proc/net/ipv6_route");
	copy_file(s, "/proc/net/fib_trie");
	copy_file(s, "/proc/net/if_inet6");
	copy_tcp(s, "/proc/net/tcp");
	copy_tcp(s, "/proc/net/tcp6");
	same_dir(s, "/run/NetworkManager");
	same_dir(s, "/etc/NetworkManager");
	same_dir(s, "/run/systemd/netif");
	each_entry(s, "/etc/netplan", empty_file);
	copy_file(s, "/etc/network/interfaces");
	each_entry(s, "/etc/gpuprov/override.d", any_file);
	each_entry(s, "/etc/driverctl.d", any_file);
	for (i = 0; i < GP_PERSIST_FILES; i++)
		copy_file(s, gp_persist_paths[i]);
	src_path(s, src, "/usr/sbin/driverctl");
	if (!stat(src, &st)) { /* present, not needed: an empty stand-in */
		dst_path(s, dst, "/usr/sbin/driverctl");
		parent_dirs(dst);
		close(open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0755));
	}
}

static void collect(struct snap *s)
{
	struct stat st;
	char path[PATH_LEN], dst[PATH_LEN];

	each_entry(s, "/sys/bus/pci/devices", pci_device);
	each_entry(s, "/sys/kernel/iommu_groups", iommu_groups);
	each_entry(s, "/sys/bus/pci/slots", pci_slot);
	each_entry(s, "/sys/devices/system/node", numa_node);
	each_entry(s, "/sys/class/net", net_iface);
	copy_file(s, "/sys/class/dmi/id/bios_version");
	copy_file(s, "/sys/class/dmi/id/bios_vendor");
	copy_file(s, "/sys/class/dmi/id/product_name");
	copy_file(s, "/sys/class/dmi/id/sys_vendor");
	src_path(s, path, "/sys/module/vfio_pci");
	if (!stat(path, &st)) {
		dst_path(s, dst, "/sys/module/vfio_pci");
		gp_mkdir_p(dst, false);
	}
	each_entry(s, "/sys/class/block", block_dev);
	each_entry(s, "/sys/class/vtconsole", vtconsole);
	copy_file(s, "/proc/self/mountinfo");
	copy_file(s, "/proc/swaps");
	copy_file(s, "/proc/iomem");
	copy_file(s, "/proc/cmdline");
	copy_file(s, "/proc/cpuinfo");
	copy_file(s, "/proc/sys/kernel/osrelease");
	each_entry(s, "/proc/driver/nvidia/gpus", nvidia_gpu);
	each_entry(s, "/proc", process);
	each_entry(s, "/etc/modprobe.d", modprobe_conf);
	each_entry(s, "/run/modprobe.d", modprobe_conf);
	each_entry(s, "/lib/modprobe.d", modprobe_conf);
	modules(s);
	dpkg_qemu(s);
	config_state(s);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int run_tar(const char *stage, const char *output)
{
	char *argv[] = { "tar", "-C", (char *)stage, "-czf", (char *)output, ".", NULL };
	pid_t pid;
	int status, rc;

	rc = posix_spawnp(&pid, "tar", NULL, NULL, argv, environ);
	if (rc)
		return -rc;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

int gp_cmd_snapshot(struct gp_ctx *ctx)
{
	struct snap s = { .root = strcmp(ctx->root, "/") ? ctx->root : "" };
	char path[PATH_LEN];
	struct stat st;
	int rc;

	if (ctx->argc || !ctx->output) {
		gp_err("usage: gpuprov snapshot -o FILE.tar.gz");
		return GP_EXIT_INPUT;
	}
	src_path(&s, path, "/sys/bus/pci/devices");
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		gp_err("cannot read host state: '%s': %s", path, strerror(errno ? errno : ENOTDIR));
		return GP_EXIT_HOST;
	}
	snprintf(s.stage, sizeof(s.stage), "%s/gpuprov-snapshot.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(s.stage)) {
		gp_err("cannot create a staging directory: %s", strerror(errno));
		return GP_EXIT_HOST;
	}
	collect(&s);
	rc = run_tar(s.stage, ctx->output);
	nftw(s.stage, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (rc) {
		gp_err("cannot write '%s': tar failed", ctx->output);
		return GP_EXIT_INPUT;
	}
	gp_info("wrote %s: %d files and links", ctx->output, s.files);
	return GP_EXIT_OK;
}
