// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PCI functions: libpci enumerates the devices and finds their slots;
 * their IDs, class, config space and attributes are read from each device's
 * directory, as libpci would read them; pcicfg.c interprets the bytes.  One
 * pass over the devices, each file read once.  Under --root, what libpci
 * opens by itself is guarded first: it must lead where the safe reader's
 * lookups do.
 */
#define _GNU_SOURCE /* O_PATH: the guard's plain lookup of a device */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "core/hostq.h"
#include "core/manifest.h"
#include "core/model.h"
#include "core/pcicfg.h"
#include "host/host.h"
#include "host/read.h"

/* read_text of a name in a directory opened once (a device's attributes) */
static ssize_t read_dev_attr(const struct gp_root_dir *dir, const char *name, char *buf, size_t len)
{
	ssize_t n = gp_root_dir_read(dir, name, buf, len);

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

/* ---- libpci: its error callback must not return, so we jump back ---- */

static jmp_buf pci_jump;
static char pci_errmsg[512];

static void PCI_NONRET pci_error_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_errmsg, sizeof(pci_errmsg), msg, ap);
	va_end(ap);
	longjmp(pci_jump, 1);
}

static void pci_warning_cb(char *msg, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, msg);
	vsnprintf(buf, sizeof(buf), msg, ap);
	va_end(ap);
	gp_debug("libpci: %s", buf);
}

static void pci_debug_cb(char *msg, ...)
{
	(void)msg;
}

/* ---- per device ---- */

/* A device's string formatted, cut at max bytes as its array was, in the host's pool. */
static const char *pool_printf(struct gp_host *h, size_t max, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static const char *pool_printf(struct gp_host *h, size_t max, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, max < sizeof(buf) ? max : sizeof(buf), fmt, ap);
	va_end(ap);
	return gp_pool_intern(&h->strs, buf, max);
}

/*
 * The bus link ("../../../devices/pci0000:40/0000:40:01.1/0000:41:00.0")
 * names the host bridge and the parent bridge in one readlink.
 */
static void parse_bus_link(struct gp_host *h, const char *link, struct gp_dev *d)
{
	char buf[PATH_LEN], *save = NULL, *tok, *prev = NULL, *last = NULL;

	gp_strlcpy(buf, link, sizeof(buf));
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strncmp(tok, "pci", 3) && strchr(tok, ':'))
			d->rc = gp_pool_intern(&h->strs, tok, GP_DEV_NAME_LEN);
		if (is_bdf(tok, strlen(tok))) {
			prev = last;
			last = tok;
		}
	}
	if (prev)
		d->parent_bdf = gp_pool_intern(&h->strs, prev, GP_BDF_LEN);
}

static void read_link_fields(struct gp_host *h, const char *bus_link, const struct gp_root_dir *dir,
			     struct gp_dev *d)
{
	char link[PATH_LEN];

	if (bus_link[0])
		parse_bus_link(h, bus_link, d);
	/*
	 * libpci realpath()s driver and iommu_group; a readlink is all we need,
	 * and it still works in a snapshot whose link targets were not copied.
	 */
	if (gp_root_dir_readlink(dir, "driver", link, sizeof(link)) > 0)
		d->driver = gp_pool_intern(&h->strs, base_name(link), GP_DEV_NAME_LEN);
}

/*
 * Where the iommu_group link (a link: it was read) leads, inside the root:
 * from a device directory found link-free (real), the text resolved by hand
 * and its last name looked at, a link there taking the safe path; else an
 * O_DIRECTORY lookup of the whole path, which says a directory without an
 * fstat, and the name needs no fstatat to tell it is a link.
 */
static int group_dir(const struct gp_root_dir *dir, const char *real, const char *link,
		     struct stat *st)
{
	char path[PATH_LEN];
	int fd;

	if (real[0] && !gp_root_lexical(real, link, path, sizeof(path)) &&
	    !gp_root_stat_plain(dir->rootfd, path, st) && !S_ISLNK(st->st_mode))
		return 0;
	if (dir->rootfd == AT_FDCWD)
		return gp_root_dir_stat(dir, "iommu_group", st);
	if ((size_t)snprintf(path, sizeof(path), "%s/iommu_group", dir->path) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = gp_root_openat(dir->rootfd, path, O_PATH | O_DIRECTORY);
	if (fd == -ENOTDIR) {
		st->st_mode = S_IFREG; /* resolves, but not to a directory */
		return 0;
	}
	if (fd < 0)
		return fd;
	close(fd);
	st->st_mode = S_IFDIR;
	return 0;
}

/*
 * The group is the number the iommu_group link names, and only when the link
 * resolves to a group directory: garbage or a loop is reported, not guessed.
 * No link at all means the device is not behind an IOMMU.
 */
static void read_iommu_group(struct gp_host *h, const struct gp_root_dir *dir, const char *real,
			     struct gp_dev *d)
{
	char link[PATH_LEN], *end;
	const char *name;
	struct stat st;
	ssize_t n;
	long g;

	d->iommu_group = -1;
	n = gp_root_dir_readlink(dir, "iommu_group", link, sizeof(link));
	if (n == -ENOENT)
		return;
	if (n < 0) {
		d->iommu_error = pool_printf(h, GP_DEV_IOMMU_ERROR_LEN, "iommu_group: %s",
					     strerror((int)-n));
		return;
	}
	name = base_name(link);
	g = strtol(name, &end, 10);
	if (!isdigit((unsigned char)*name) || *end || g >= 1 << 30 ||
	    !strstr(link, "iommu_groups/")) {
		d->iommu_error = pool_printf(h, GP_DEV_IOMMU_ERROR_LEN,
					     "iommu_group points to '%.80s', not a group", link);
		return;
	}
	if ((n = group_dir(dir, real, link, &st)) || !S_ISDIR(st.st_mode)) {
		d->iommu_error = pool_printf(
			h, GP_DEV_IOMMU_ERROR_LEN, "iommu_group '%.60s' %s", link,
			n == -ELOOP ? "is a link loop" : "does not resolve to a directory");
		return;
	}
	d->iommu_group = (int)g;
}

/* numa_node: a node, or -1 (the kernel's "no NUMA"); anything else is reported. */
static void read_numa_node(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	char text[32], *end;
	ssize_t n;
	long v;

	d->numa_node = -1;
	n = read_dev_attr(dir, "numa_node", text, sizeof(text));
	if (n == -ENOENT)
		return; /* a kernel built without NUMA */
	if (n < 0) {
		d->numa_error =
			pool_printf(h, GP_DEV_NUMA_ERROR_LEN, "numa_node: %s", strerror((int)-n));
		return;
	}
	v = strtol(text, &end, 10);
	if (!n || end == text || *end || v < -1 || v > 4095) {
		d->numa_error =
			pool_printf(h, GP_DEV_NUMA_ERROR_LEN, "numa_node reads '%.30s'", text);
		return;
	}
	d->numa_node = (int)v;
}

static void read_bars(const struct gp_root_dir *dir, struct gp_dev *d)
{
	char text[1024];
	int n;

	if (read_dev_attr(dir, "resource", text, sizeof(text)) < 0) {
		d->bars_bad = true;
		return;
	}
	n = gp_resource_parse(text, d->bars, GP_MAX_BARS);
	if (n < 0) {
		gp_debug("%s: malformed resource file", d->bdf);
		d->bars_bad = true;
		return;
	}
	d->nbars = n;
}

/*
 * ---- what libpci's sysfs method reads, read as it does ----
 * The IDs, the class and config space: libpci 3.9 opens each by its whole
 * path (ROOT/sys/bus/pci/devices/BDF/NAME, the device link followed every
 * time); read from the device's directory opened once, with its values and
 * its errors (sysfs_get_value, sysfs_read in its lib/sysfs.c).
 */
#define PCI_OBJ_LEN 1024 /* libpci's OBJNAMELEN and OBJBUFSIZE */

/*
 * The path libpci names in its messages: ROOT/sys/bus/pci/devices/BDF/NAME.
 * Formatted only for a message, not for each of a scan's 15,000 reads.
 */
#define PCI_DEVICES "/sys/bus/pci/devices/"
static const char *pci_path(const struct gp_host *h, const char *bdf, const char *name,
			    char path[PATH_LEN])
{
	snprintf(path, PATH_LEN, "%s" PCI_DEVICES "%s/%s", h->root, bdf, name);
	return path;
}

/* strtol(text, NULL, 0), as libpci reads a value; sysfs's "0x10de\n" without strtol */
static int pci_int(const char *text)
{
	const char *p = text + 2;
	long v = 0;
	int d;

	if (text[0] == '0' && text[1] == 'x') {
		while (p - text < 10 && (d = gp_hex_digit(*p)) >= 0) {
			v = v << 4 | d;
			p++;
		}
		if (p > text + 2 && (!*p || (*p == '\n' && !p[1])))
			return (int)v;
	}
	return (int)strtol(text, NULL, 0);
}

/* A mandatory value: unreadable, it stops the scan with libpci's message. */
static int pci_value(const struct gp_host *h, const struct gp_root_dir *dir, const char *bdf,
		     const char *name, int *v)
{
	char buf[PCI_OBJ_LEN], path[PATH_LEN];
	size_t len = strlen(h->root) + strlen(PCI_DEVICES) + strlen(bdf) + 1 + strlen(name);
	int fd, err;
	ssize_t n;

	/* libpci's limit on the path as formatted (cut at PATH_LEN - 1, as it was) */
	if ((len < PATH_LEN ? len : PATH_LEN - 1) >= PCI_OBJ_LEN) {
		gp_err("cannot read the PCI devices: File name too long");
		return -ENAMETOOLONG;
	}
	fd = gp_root_dir_openat(dir, name, O_RDONLY);
	if (fd < 0) {
		gp_err("cannot read the PCI devices: Cannot open %s: %s",
		       pci_path(h, bdf, name, path), strerror(-fd));
		return fd;
	}
	n = read(fd, buf, sizeof(buf)); /* one read, as libpci */
	err = errno;
	close(fd);
	if (n < 0) {
		gp_err("cannot read the PCI devices: Error reading %s: %s",
		       pci_path(h, bdf, name, path), strerror(err));
		return -err;
	}
	if (n >= (ssize_t)sizeof(buf)) {
		gp_err("cannot read the PCI devices: Value in %s too long",
		       pci_path(h, bdf, name, path));
		return -EFBIG;
	}
	buf[n] = '\0';
	*v = pci_int(buf);
	return 0;
}

static int read_ident(const struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	int vendor, device, class;

	if (pci_value(h, dir, d->bdf, "vendor", &vendor) ||
	    pci_value(h, dir, d->bdf, "device", &device) ||
	    pci_value(h, dir, d->bdf, "class", &class))
		return -EIO;
	d->vendor = (uint16_t)vendor;
	d->device = (uint16_t)device;
	d->class = (uint16_t)(class >> 8);
	return 0;
}

/* libpci's sysfs_read: all of len bytes at pos, or nothing; its warnings under -v */
static bool cfg_read(const struct gp_host *h, const struct gp_dev *d, int fd, uint8_t *buf,
		     size_t len, off_t pos)
{
	char path[PATH_LEN];
	ssize_t n;

	if (fd < 0) {
		gp_debug("libpci: Cannot open %s", pci_path(h, d->bdf, "config", path));
		return false;
	}
	n = pread(fd, buf, len, pos);
	if (n < 0)
		gp_debug("libpci: sysfs_read: read failed: %s", strerror(errno));
	return n == (ssize_t)len;
}

static void read_config(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	uint8_t cfg[4096];
	size_t len = 256;
	struct gp_cfg c;
	int fd = gp_root_dir_openat(dir, "config", O_RDONLY);
	bool whole = false;

	memset(cfg, 0, sizeof(cfg));
	/*
	 * A tree's config file is a file: one read takes all of it (a 256-byte
	 * conventional space, or 4096), where the live host's would make the
	 * kernel read each device's extended space from the hardware.
	 */
	if (h->rootfd != AT_FDCWD && fd >= 0 && pread(fd, cfg, sizeof(cfg), 0) == sizeof(cfg))
		whole = true;
	/* unprivileged readers get only the first 64 bytes of config space */
	if (!whole && !cfg_read(h, d, fd, cfg, 256, 0)) {
		len = 64;
		d->config_short = true;
		if (!cfg_read(h, d, fd, cfg, 64, 0)) {
			if (fd >= 0)
				close(fd);
			return;
		}
	}
	/* what a lost device answers to every read: the sysfs files above are the kernel's cache */
	d->config_dead = cfg[0] == 0xff && cfg[1] == 0xff;
	/* extended space only where ACS or ATS matters: bridges between GPUs,
	 * and NICs ([nic]'s GPUDirect RDMA through a switch) */
	if (len == 256 && ((cfg[0x0e] & 0x7f) == 1 || cfg[0x0b] == 0x02) &&
	    (whole || cfg_read(h, d, fd, cfg + 256, 3840, 256)))
		len = sizeof(cfg);
	close(fd);
	if (gp_cfg_parse(cfg, len, &c))
		return;
	d->svendor = c.svendor;
	d->sdevice = c.sdevice;
	d->pcie_type = c.pcie_type;
	d->link = c.link;
	d->has_acs = c.has_acs;
	d->acs_ctrl = c.acs_ctrl;
	d->acs_cap = c.acs_cap;
	d->ats = c.ats;
	d->is_bridge = c.header_type == 1;
	d->caps = gp_pool_bytes(&h->strs, c.caps, (size_t)c.ncaps * sizeof(*c.caps));
	d->ncaps = c.ncaps;
	d->has_sriov = c.has_sriov;
	d->vf_offset = c.vf_offset;
	d->vf_stride = c.vf_stride;
	d->vf_device = c.vf_device;
	if (!d->config_dead)
		d->sub_bus = c.sub_bus;
}

/*
 * The VFs the kernel made: virtfnN links ("../0000:44:00.2"), N from 0 to
 * sriov_numvfs - 1, each its VF's address; the first one missing or not an
 * address ends the list (core/vfs.c predicts the rest).
 */
#define VIRTFN_MAX 256 /* more than any port gives one VM's ports; [nic] vfs is at most 255 */

static void read_virtfn(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	char(*bdfs)[GP_BDF_LEN], name[32], link[PATH_LEN];
	int n = 0, max = d->sriov_numvfs < VIRTFN_MAX ? d->sriov_numvfs : VIRTFN_MAX;

	if (max <= 0)
		return;
	bdfs = gp_xcalloc((size_t)max, GP_BDF_LEN);
	for (; n < max; n++) {
		const char *base;

		snprintf(name, sizeof(name), GP_PCI_VIRTFN "%d", n);
		if (gp_root_dir_readlink(dir, name, link, sizeof(link)) <= 0)
			break;
		base = base_name(link);
		if (gp_parse_bdf(base, bdfs[n]) || strcmp(base, bdfs[n]))
			break; /* the kernel's spelling only */
	}
	if (n)
		d->virtfn = gp_pool_bytes(&h->strs, bdfs, (size_t)n * GP_BDF_LEN);
	d->nvirtfn = n;
	free(bdfs);
}

/* The VFs it offers and has ([nic] mode = vf's ports): -1 where the file is absent or not a count. */
static void read_sriov(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	char text[32], *end;
	long v;

	if (read_dev_attr(dir, "sriov_totalvfs", text, sizeof(text)) > 0 &&
	    (v = strtol(text, &end, 10)) >= 0 && v <= 65535 && !*end)
		d->sriov_total = (int)v;
	if (read_dev_attr(dir, "sriov_numvfs", text, sizeof(text)) > 0 &&
	    (v = strtol(text, &end, 10)) >= 0 && v <= 65535 && !*end)
		d->sriov_numvfs = (int)v;
	read_virtfn(h, dir, d);
}

static void read_reset_method(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	char text[GP_DEV_NAME_LEN] = "";

	d->has_reset_method = read_dev_attr(dir, "reset_method", text, sizeof(text)) >= 0;
	d->reset_method = gp_pool_intern(&h->strs, text, sizeof(text));
}

/*
 * One device, each of its files looked up in its directory opened once:
 * libpci enumerated it and finds its slot (the slots' addresses, read once
 * for all); the rest is read here.
 */
/*
 * The devices directory, two ways: as the safe reader opened it, and as
 * libpci finds it by the plain path (pfd, plain_devices); plain: its path
 * holds no link, so a device link's text resolves by hand (rootfs.c).
 */
struct devs_at {
	struct gp_root_dir dir;
	int pfd;
	bool plain;
};

static int guard_dev(const struct gp_host *h, const struct devs_at *at, struct gp_root_dir *dir,
		     const char *bdf, bool found);

static int fill_dev(struct gp_host *h, const struct devs_at *at, struct pci_dev *pd,
		    struct gp_dev *d, const struct gp_profile *p)
{
	char link[PATH_LEN], real[PATH_LEN];
	struct gp_root_dir dir;
	const char *slot;

	d->domain = (unsigned)pd->domain;
	d->bus = pd->bus;
	d->dev = pd->dev;
	d->func = pd->func;
	snprintf(d->bdf, sizeof(d->bdf), "%04x:%02x:%02x.%u", d->domain, d->bus, d->dev, d->func);
	if (gp_root_dir_readlink(&at->dir, d->bdf, link, sizeof(link)) <= 0)
		link[0] = '\0';
	/* the directory above each device kept open: one openat, not a walk of a dozen names */
	gp_root_dir_at_link(&at->dir, at->plain, d->bdf, link, 1, &dir, real, sizeof(real));
	if (guard_dev(h, at, &dir, d->bdf, real[0])) {
		gp_root_dir_close(&dir);
		return -EXDEV;
	}
	if (read_ident(h, &dir, d)) {
		gp_root_dir_close(&dir);
		return -EIO;
	}
	pci_fill_info(pd, PCI_FILL_PHYS_SLOT);
	slot = pci_get_string_property(pd, PCI_FILL_PHYS_SLOT);
	if (slot)
		d->slot = gp_pool_intern(&h->strs, slot, GP_DEV_NAME_LEN);
	d->pcie_type = GP_PCIE_NONE;
	d->parent = -1;
	read_config(h, &dir, d);
	d->role = gp_dev_role(d, p);
	d->nic_passed = p && gp_nic_passed(p, d);
	read_link_fields(h, link, &dir, d);
	read_iommu_group(h, &dir, real, d);
	read_numa_node(h, &dir, d);
	read_bars(&dir, d);
	if (d->role == GP_ROLE_GPU)
		read_reset_method(h, &dir, d);
	if (p && p->has_nic && p->nic.mode == GP_NIC_VF && gp_nic_matches(p, d))
		read_sriov(h, &dir, d);
	gp_root_dir_close(&dir);
	return 0;
}

static int guard(const struct gp_host *h, const char *path)
{
	int rc = gp_root_guard(h->rootfd, h->root, path);

	if (rc)
		gp_err("cannot read host state: '%s%s': %s", h->root, path, gp_root_strerror(rc));
	return rc;
}

/*
 * An entry of the devices directory that fill_dev reads under its own name:
 * the address as libpci's numbers print it ("%04x:%02x:%02x.%u").  Its guard
 * is done there, on the directory the safe reader opened (guard_dev).
 */
static bool read_as_named(const char *name)
{
	unsigned dom, bus, dev, fn;
	int i;

	if (strlen(name) != 12 || !gp_bdf_canonical(name, &dom, &bus, &dev, &fn) || dev > 31 ||
	    fn > 7)
		return false;
	for (i = 0; i < 12; i++)
		if (name[i] >= 'A' && name[i] <= 'F')
			return false;
	return true;
}

/*
 * Each dir/ENTRY and dir/ENTRY/NAME for the names given; stops at the first
 * bad one.  With deferred, the entries fill_dev guards itself are left to it.
 */
static int guard_entries(const struct gp_host *h, const char *dir, const char *const *names,
			 bool deferred)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d = open_dir(h, dir);
	int rc = 0, bad;

	while (!rc && d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || (deferred && read_as_named(e->d_name)))
			continue;
		rc = gp_root_guard_dir(h->rootfd, h->root,
				       gp_rootp(h, path, "%s/%s", dir, e->d_name), names, &bad);
		if (rc)
			gp_err("cannot read host state: '%s%s%s%s': %s", h->root, path,
			       names[bad][0] ? "/" : "", names[bad], gp_root_strerror(rc));
	}
	if (d)
		closedir(d);
	return rc;
}

/* What lspci reads of a device: its link, vendor, device, class, numa_node, config. */
static const char *const dev_files[] = {
	"", "vendor", "device", "class", "numa_node", "config", NULL,
};

/*
 * libpci opens ROOT/sys/bus/pci/... by itself and follows links as the kernel
 * does: the devices and slots directories, each slot's address.  Under
 * --root, each path it reads, and each that lspci would read for a device
 * (its link, vendor, device, class, numa_node, config: a tree where those
 * lead elsewhere is not the host it claims to be), must lead where the safe
 * reader's does, to a regular file or a directory.  A device named as libpci's
 * numbers print it is guarded where it is read (guard_dev); any other entry here.
 */
static int guard_pci(const struct gp_host *h)
{
	static const char *const slot_files[] = { "address", NULL };

	if (h->rootfd == AT_FDCWD)
		return 0; /* the live host: the kernel's own sysfs */
	if (guard(h, "/sys/bus/pci") || guard(h, "/sys/bus/pci/devices") ||
	    guard(h, "/sys/bus/pci/slots"))
		return -EXDEV;
	if (guard_entries(h, "/sys/bus/pci/devices", dev_files, true) ||
	    guard_entries(h, "/sys/bus/pci/slots", slot_files, false))
		return -EXDEV;
	return 0;
}

/*
 * The devices directory as libpci finds it, by the plain path, when that is
 * the one the safe reader opened (guard_pci saw the two agree): a device's
 * plain lookup then starts there instead of at "/".  -1: none such.
 */
static __attribute__((noinline)) int plain_devices(const struct gp_host *h,
						   const struct gp_root_dir *devs)
{
	char path[PATH_LEN];
	struct stat a, b;
	int fd;

	if (h->rootfd == AT_FDCWD || devs->fd < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", h->root);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &a) || fstat(devs->fd, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * What gp_root_guard_dir asks of a device, from the directory the safe reader
 * opened: the plain lookup (from the devices directory) ends at that very
 * directory, and each name lspci reads is a regular file or a directory, or
 * is missing, for both.  false: something else (a link, a mismatch), which
 * the whole guard then judges.
 */
static bool dev_agrees(int pfd, struct gp_root_dir *dir, const char *bdf, bool found)
{
	struct stat a;
	dev_t dev;
	ino_t ino;
	bool ok;
	int i;

	if (pfd < 0 || dir->fd < 0)
		return false;
	/*
	 * following links as libpci's open() does: one stat, no descriptor to
	 * close; found link-free from the same directory (open_dev_dir), the
	 * plain lookup walks the same names to the same place
	 */
	ok = found || (!fstatat(pfd, bdf, &a, 0) && !gp_root_dir_id(dir, &dev, &ino) &&
		       a.st_dev == dev && a.st_ino == ino && S_ISDIR(a.st_mode));
	/* in a trusted directory the reader's type checks take these answers */
	for (i = 1; ok && dev_files[i]; i++) {
		if (gp_root_dir_note(dir, dev_files[i], &a))
			continue; /* nothing there, for either */
		ok = S_ISREG(a.st_mode) || S_ISDIR(a.st_mode);
	}
	return ok;
}

/* A device as guard_entries would have guarded it, before anything of it is read. */
static int guard_dev(const struct gp_host *h, const struct devs_at *at, struct gp_root_dir *dir,
		     const char *bdf, bool found)
{
	char path[PATH_LEN];
	int rc, bad;

	if (h->rootfd == AT_FDCWD || dev_agrees(at->pfd, dir, bdf, found))
		return 0;
	rc = gp_root_guard_dir(h->rootfd, h->root,
			       gp_rootp(h, path, "/sys/bus/pci/devices/%s", bdf), dev_files, &bad);
	if (rc)
		gp_err("cannot read host state: '%s%s%s%s': %s", h->root, path,
		       dev_files[bad][0] ? "/" : "", dev_files[bad], gp_root_strerror(rc));
	return rc;
}

/*
 * The kernel's device directories make a tree; a bus link in a tree given as
 * --root or --baseline can say anything.  Links that make a device its own
 * ancestor would send every walk up the tree (drift, the report's map) round
 * forever: such a tree is refused here, once, for every reader of the model.
 * Each walk stamps what it passes; meeting its own stamp again is a loop.
 */
static int check_parents(const struct gp_host *h)
{
	int *stamp = gp_xcalloc(h->ndevs + 1, sizeof(*stamp));
	size_t i;
	int k, rc = 0;

	for (i = 0; i < h->ndevs && !rc; i++) {
		for (k = (int)i; k >= 0 && !stamp[k]; k = h->devs[k].parent)
			stamp[k] = (int)i + 1;
		if (k >= 0 && stamp[k] == (int)i + 1) {
			gp_err("cannot read host state: '%s/sys/bus/pci/devices/%s': the bus "
			       "links make it its own ancestor (through '%s'), which no kernel's "
			       "tree does",
			       h->root, h->devs[k].bdf, h->devs[h->devs[k].parent].bdf);
			rc = -ELOOP;
		}
	}
	free(stamp);
	return rc;
}

int gp_read_pci(struct gp_host *h, const struct gp_profile *p)
{
	struct pci_access *pacc;
	struct pci_dev *pd;
	struct devs_at at;
	char path[PATH_LEN];
	volatile size_t n = 0;
	size_t i;
	volatile int rc = 0;

	if (guard_pci(h))
		return -EXDEV;
	pacc = pci_alloc();
	pacc->error = pci_error_cb;
	pacc->warning = pci_warning_cb;
	pacc->debug = pci_debug_cb;
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	gp_root_dir(h->rootfd, "/sys/bus/pci/devices", &at.dir);
	at.pfd = plain_devices(h, &at.dir);
	at.plain = at.pfd >= 0 && gp_root_dir_plain(&at.dir);
	if (setjmp(pci_jump)) {
		gp_err("cannot read the PCI devices: %s", pci_errmsg);
		rc = -EIO;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/sys/bus/pci", h->root);
	pci_set_param(pacc, "sysfs.path", path);
	pci_init(pacc);
	pci_scan_bus(pacc);
	for (pd = pacc->devices; pd; pd = pd->next)
		n++;
	h->devs = gp_xcalloc(n, sizeof(*h->devs));
	/*
	 * Each of libpci's devices is freed once read, and the freed pages go
	 * back to the kernel every 512: its list (424 bytes a function) and the
	 * model are never both whole in memory (peak RSS).
	 */
	for (i = 0; (pd = pacc->devices); i++) {
		gp_dev_init(&h->devs[i]);
		rc = fill_dev(h, &at, pd, &h->devs[i], p);
		if (rc)
			goto out;
		pacc->devices = pd->next;
		pci_free_dev(pd);
		if (i % 512 == 511)
			malloc_trim(0);
	}
	h->ndevs = n;
	/* sort as lspci does; parents resolve by binary search afterwards */
	qsort(h->devs, n, sizeof(*h->devs), gp_dev_cmp);
	for (i = 0; i < n; i++)
		h->devs[i].parent =
			h->devs[i].parent_bdf[0] ? gp_host_find(h, h->devs[i].parent_bdf) : -1;
	rc = check_parents(h);
out:
	if (at.pfd >= 0)
		close(at.pfd);
	gp_root_dir_close(&at.dir);
	pci_cleanup(pacc);
	return rc;
}

/*
 * The names people know devices by: the system's pci.ids, as lspci prints
 * them ("GA100 [A100 PCIe 80GB]"), also for a -r tree (whose own ids file,
 * if it has one, is the snapshot's data, not a database to trust).  Neither
 * udev's hwdb nor the network is asked: the same names on every machine
 * with the same pci.ids.  "" where the database does not know the device.
 */
void gp_pci_names(const struct gp_host *h, const int *devs, int n, char (*names)[GP_NAME_LEN])
{
	struct pci_access *pacc = pci_alloc();
	char buf[GP_NAME_LEN];
	volatile int i = 0;

	pacc->error = pci_error_cb;
	pacc->warning = pci_warning_cb;
	pacc->debug = pci_debug_cb;
	if (setjmp(pci_jump)) { /* an unreadable database: the ones left unnamed */
		gp_debug("pci.ids: %s", pci_errmsg);
		for (; i < n; i++)
			names[i][0] = '\0';
		pci_cleanup(pacc);
		return;
	}
	for (; i < n; i++) {
		const struct gp_dev *d = &h->devs[devs[i]];

		names[i][0] = '\0';
		if (pci_lookup_name(pacc, buf, sizeof(buf),
				    PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
				    d->vendor, d->device))
			gp_strlcpy(names[i], buf, sizeof(names[i]));
	}
	pci_cleanup(pacc);
}
