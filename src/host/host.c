// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host discovery: the only code that reads the machine.  Every path goes
 * through the root prefix, so the same code reads a live host, a snapshot or
 * a fixture tree.  libpci enumerates the devices and finds their slots; their
 * IDs, class, config space and attributes are read from each device's
 * directory, as libpci would read them; pcicfg.c interprets the bytes.  One
 * pass over the devices, each file read once.
 */
#define _GNU_SOURCE /* O_PATH: the guard's plain lookup of a device */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <netinet/in.h>
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
#include "host/nvread.h"
#include "sys/kmod.h"
#include "sys/virt.h"
#include "core/pcicfg.h"
#include "host/host.h"
#include "host/read.h"

#define GP_DPKG_MAX (64u << 20) /* dpkg's status of a big host */

/* read_text of a name in a directory opened once (a device's attributes) */
static ssize_t read_attr(const struct gp_root_dir *dir, const char *name, char *buf, size_t len)
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

static void read_link_fields(struct gp_host *h, const struct gp_root_dir *devs,
			     const struct gp_root_dir *dir, struct gp_dev *d)
{
	char link[PATH_LEN];

	if (gp_root_dir_readlink(devs, d->bdf, link, sizeof(link)) > 0)
		parse_bus_link(h, link, d);
	/*
	 * libpci realpath()s driver and iommu_group; a readlink is all we need,
	 * and it still works in a snapshot whose link targets were not copied.
	 */
	if (gp_root_dir_readlink(dir, "driver", link, sizeof(link)) > 0)
		d->driver = gp_pool_intern(&h->strs, base_name(link), GP_DEV_NAME_LEN);
}

/*
 * The group is the number the iommu_group link names, and only when the link
 * resolves to a group directory: garbage or a loop is reported, not guessed.
 * No link at all means the device is not behind an IOMMU.
 */
static void read_iommu_group(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
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
	if ((n = gp_root_dir_stat(dir, "iommu_group", &st)) || !S_ISDIR(st.st_mode)) {
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
	n = read_attr(dir, "numa_node", text, sizeof(text));
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

	if (read_attr(dir, "resource", text, sizeof(text)) < 0) {
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

	memset(cfg, 0, sizeof(cfg));
	/* unprivileged readers get only the first 64 bytes of config space */
	if (!cfg_read(h, d, fd, cfg, 256, 0)) {
		len = 64;
		d->config_short = true;
		if (!cfg_read(h, d, fd, cfg, 64, 0)) {
			if (fd >= 0)
				close(fd);
			return;
		}
	}
	/* extended space only where ACS matters: bridges between GPUs */
	if (len == 256 && (cfg[0x0e] & 0x7f) == 1 && cfg_read(h, d, fd, cfg + 256, 3840, 256))
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
	d->is_bridge = c.header_type == 1;
	d->caps = gp_pool_bytes(&h->strs, c.caps, (size_t)c.ncaps * sizeof(*c.caps));
	d->ncaps = c.ncaps;
}

static void read_reset_method(struct gp_host *h, const struct gp_root_dir *dir, struct gp_dev *d)
{
	char text[GP_DEV_NAME_LEN] = "";

	d->has_reset_method = read_attr(dir, "reset_method", text, sizeof(text)) >= 0;
	d->reset_method = gp_pool_intern(&h->strs, text, sizeof(text));
}

/*
 * One device, each of its files looked up in its directory opened once:
 * libpci enumerated it and finds its slot (the slots' addresses, read once
 * for all); the rest is read here.
 */
static int guard_dev(const struct gp_host *h, int pfd, struct gp_root_dir *dir, const char *bdf);

static int fill_dev(struct gp_host *h, const struct gp_root_dir *devs, int pfd, struct pci_dev *pd,
		    struct gp_dev *d, const struct gp_profile *p)
{
	struct gp_root_dir dir;
	const char *slot;

	d->domain = (unsigned)pd->domain;
	d->bus = pd->bus;
	d->dev = pd->dev;
	d->func = pd->func;
	snprintf(d->bdf, sizeof(d->bdf), "%04x:%02x:%02x.%u", d->domain, d->bus, d->dev, d->func);
	gp_root_dir_at(devs, d->bdf, &dir);
	if (guard_dev(h, pfd, &dir, d->bdf)) {
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
	read_link_fields(h, devs, &dir, d);
	read_iommu_group(h, &dir, d);
	read_numa_node(h, &dir, d);
	read_bars(&dir, d);
	if (d->role == GP_ROLE_GPU)
		read_reset_method(h, &dir, d);
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
		rc = gp_root_guard_dir(h->rootfd, h->root, rootp(h, path, "%s/%s", dir, e->d_name),
				       names, &bad);
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
static bool dev_agrees(int pfd, struct gp_root_dir *dir, const char *bdf)
{
	struct stat a;
	dev_t dev;
	ino_t ino;
	bool ok;
	int i;

	if (pfd < 0 || dir->fd < 0)
		return false;
	/* following links as libpci's open() does: one stat, no descriptor to close */
	ok = !fstatat(pfd, bdf, &a, 0) && !gp_root_dir_id(dir, &dev, &ino) && a.st_dev == dev &&
	     a.st_ino == ino && S_ISDIR(a.st_mode);
	/* in a trusted directory the reader's type checks take these answers */
	for (i = 1; ok && dev_files[i]; i++) {
		if (gp_root_dir_note(dir, dev_files[i], &a))
			continue; /* nothing there, for either */
		ok = S_ISREG(a.st_mode) || S_ISDIR(a.st_mode);
	}
	return ok;
}

/* A device as guard_entries would have guarded it, before anything of it is read. */
static int guard_dev(const struct gp_host *h, int pfd, struct gp_root_dir *dir, const char *bdf)
{
	char path[PATH_LEN];
	int rc, bad;

	if (h->rootfd == AT_FDCWD || dev_agrees(pfd, dir, bdf))
		return 0;
	rc = gp_root_guard_dir(h->rootfd, h->root, rootp(h, path, "/sys/bus/pci/devices/%s", bdf),
			       dev_files, &bad);
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

static int scan_pci(struct gp_host *h, const struct gp_profile *p)
{
	struct pci_access *pacc;
	struct pci_dev *pd;
	struct gp_root_dir devs;
	char path[PATH_LEN];
	volatile size_t n = 0;
	size_t i;
	volatile int rc = 0;
	int pfd;

	if (guard_pci(h))
		return -EXDEV;
	pacc = pci_alloc();
	pacc->error = pci_error_cb;
	pacc->warning = pci_warning_cb;
	pacc->debug = pci_debug_cb;
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	gp_root_dir(h->rootfd, "/sys/bus/pci/devices", &devs);
	pfd = plain_devices(h, &devs);
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
		rc = fill_dev(h, &devs, pfd, pd, &h->devs[i], p);
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
	if (pfd >= 0)
		close(pfd);
	gp_root_dir_close(&devs);
	pci_cleanup(pacc);
	return rc;
}

/* ---- NUMA nodes ---- */

static uint64_t meminfo_field(const char *text, const char *field)
{
	const char *p = strstr(text, field);
	unsigned long long kb;

	if (!p || sscanf(p + strlen(field), " %llu", &kb) != 1)
		return 0;
	return (uint64_t)kb * 1024;
}

/* Free huge pages of one size on one node; -1 when the kernel does not say. */
static long free_hugepages(const struct gp_host *h, const char *node, unsigned kb)
{
	char path[PATH_LEN], text[32];

	if (read_text(h,
		      rootp(h, path,
			    "/sys/devices/system/node/%s/hugepages/hugepages-%ukB/"
			    "free_hugepages",
			    node, kb),
		      text, sizeof(text)) <= 0)
		return -1;
	return strtol(text, NULL, 10);
}

static int numa_cmp(const void *a, const void *b)
{
	const struct gp_numa *x = a, *y = b;

	return x->id - y->id;
}

static void scan_numa(struct gp_host *h)
{
	char path[PATH_LEN], text[4096];
	struct dirent *e;
	DIR *dir = open_dir(h, rootp(h, path, GP_SYS_NODES));

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
		read_text(h, rootp(h, path, "/sys/devices/system/node/%s/cpulist", e->d_name),
			  nn->cpus, sizeof(nn->cpus));
		if (read_text(h, rootp(h, path, "/sys/devices/system/node/%s/meminfo", e->d_name),
			      text, sizeof(text)) > 0) {
			nn->mem_total = meminfo_field(text, "MemTotal:");
			nn->mem_free = meminfo_field(text, "MemFree:");
		}
		nn->hugepages_1g_free = free_hugepages(h, e->d_name, 1048576);
		nn->hugepages_2m_free = free_hugepages(h, e->d_name, 2048);
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

/* ---- kernel, CPU, firmware, vfio ---- */

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
	char *text = read_file(h, rootp(h, path, GP_PROC_CPUINFO)), *cur = text, *line;
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
		DIR *dir = open_dir(h, rootp(h, path, "%s", gp_modprobe_dirs[i]));

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

static void read_kernel(struct gp_host *h)
{
	char path[PATH_LEN];

	read_text(h, rootp(h, path, GP_PROC_CMDLINE), h->cmdline, sizeof(h->cmdline));
	read_text(h, rootp(h, path, GP_PROC_RELEASE), h->kernel_release, sizeof(h->kernel_release));
	read_text(h, rootp(h, path, GP_PROC_HOSTNAME), h->hostname, sizeof(h->hostname));
	read_text(h, rootp(h, path, GP_DMI_BIOS), h->bios_version, sizeof(h->bios_version));
	read_text(h, rootp(h, path, GP_DMI_BIOS_VENDOR), h->bios_vendor, sizeof(h->bios_vendor));
	read_text(h, rootp(h, path, GP_DMI_PRODUCT), h->product, sizeof(h->product));
	read_cpu_bits(h);
	h->iommu_groups = count_entries(h, rootp(h, path, GP_SYS_IOMMU_GROUPS));
}

/* vfio-pci: loaded, available to load (libkmod), and what modprobe.d says of it */
static void read_vfio(struct gp_host *h)
{
	char path[PATH_LEN];

	h->vfio_loaded = exists(h, rootp(h, path, GP_SYS_VFIO_PCI));
	h->vfio_available =
		h->kernel_release[0] ? gp_vfio_module_available(h->root, h->kernel_release) : -1;
	scan_modprobe(h);
}

/* ---- what binding needs: overrides, modaliases, persistent files ---- */

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

/*
 * dpkg's status read through (a server's is megabytes: never held whole):
 * a file over GP_DPKG_MAX, or one that cannot be read through, says
 * nothing; the text ends at a NUL byte; lines are cut at 4 KiB (a Package
 * or Version line that long matches nothing anyway).
 */
static void qemu_from_dpkg(struct gp_host *h)
{
	int fd = gp_root_openat(h->rootfd, GP_DPKG_STATUS, O_RDONLY), state = 0;
	char buf[4096], line[4096];
	size_t len = 0, total = 0;
	bool text = true;
	ssize_t n, i;

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && (total += (size_t)n) <= GP_DPKG_MAX)
		for (i = 0; text && i < n; i++) {
			if (!buf[i])
				text = false;
			else if (buf[i] != '\n' && len < sizeof(line) - 1)
				line[len++] = buf[i];
			if (buf[i] != '\n')
				continue;
			line[len] = '\0';
			dpkg_line(h, line, &state);
			len = 0;
		}
	close(fd);
	if (n < 0 || total > GP_DPKG_MAX) {
		h->qemu_version[0] = '\0';
		return;
	}
	line[len] = '\0'; /* the last line, without its newline or up to the NUL */
	dpkg_line(h, line, &state);
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

	if (exists(h, rootp(h, path, GP_DEV_KVM)) || exists(h, rootp(h, path, GP_SYS_MISC "/kvm")))
		return 1;
	return !h->root[0] || exists(h, rootp(h, path, GP_SYS_MISC)) ? 0 : -1;
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

/* KVM and QEMU; the profile's VM (its XML, libvirt's domain) is owned.c's. */
static void read_vm_state(struct gp_host *h, const struct gp_profile *p)
{
	h->vm_defined = -1;
	h->vm_running = -1;
	h->kvm = kvm_state(h);
	if (p && p->has_vm)
		gp_host_qemu_binary(h);
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
		dir = open_dir(h, rootp(h, path, "%s", gp_qemu_firmware_dirs[i]));
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

/* The registered driver whose module link names this module, "" when none. */
static void driver_of_module(const struct gp_host *h, const char *module, char *out, size_t len)
{
	char path[PATH_LEN], link[PATH_LEN];
	DIR *dir = open_dir(h, rootp(h, path, "/sys/bus/pci/drivers"));
	struct dirent *e;

	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.' &&
		    read_link(h, rootp(h, path, "/sys/bus/pci/drivers/%s/module", e->d_name), link,
			      sizeof(link)) > 0 &&
		    !strcmp(base_name(link), module)) {
			gp_strlcpy(out, e->d_name, len);
			break;
		}
	if (dir)
		closedir(dir);
}

/*
 * Which vfio driver takes the device: a variant driver whose module's
 * "vfio_pci:" alias matches its modalias, else vfio-pci; named as the loaded
 * driver registered, or as it will (gp_vfio_driver_of) when not loaded yet.
 */
/*
 * What read_vfio_driver found for a modalias: the functions of one GPU model
 * share it, and a libkmod context, its index lookup and a walk of the PCI
 * drivers per device cost more than the rest of the device did.
 */
struct vfio_memo {
	struct {
		const char *modalias, *module, *driver; /* in the host's pool */
		bool loaded;
	} e[16];
	unsigned n;
};

static void read_vfio_driver(struct gp_host *h, struct gp_dev *d, struct vfio_memo *memo)
{
	char path[PATH_LEN], module[GP_DEV_NAME_LEN] = "vfio_pci", driver[GP_DEV_NAME_LEN] = "";
	unsigned i;

	for (i = 0; i < memo->n; i++)
		if (!strcmp(memo->e[i].modalias, d->modalias)) {
			d->vfio_module = memo->e[i].module;
			d->vfio_module_loaded = memo->e[i].loaded;
			d->vfio_driver = memo->e[i].driver;
			return;
		}
	if (d->modalias[0] && h->kernel_release[0])
		gp_vfio_variant(h->root, h->kernel_release, d->modalias, module, sizeof(module));
	d->vfio_module = gp_pool_intern(&h->strs, module, sizeof(module));
	for (i = 0; i < memo->n && strcmp(memo->e[i].module, d->vfio_module); i++)
		;
	if (i < memo->n) { /* another model, the same module: loaded as it was */
		d->vfio_module_loaded = memo->e[i].loaded;
		d->vfio_driver = memo->e[i].driver;
	} else {
		d->vfio_module_loaded = exists(h, rootp(h, path, "/sys/module/%s", module));
		if (d->vfio_module_loaded)
			driver_of_module(h, module, driver, sizeof(driver));
		if (!driver[0])
			gp_vfio_driver_of(module, driver, sizeof(driver));
		d->vfio_driver = gp_pool_intern(&h->strs, driver, sizeof(driver));
	}
	if (memo->n == ARRAY_SIZE(memo->e))
		return;
	memo->e[memo->n].modalias = d->modalias;
	memo->e[memo->n].module = d->vfio_module;
	memo->e[memo->n].loaded = d->vfio_module_loaded;
	memo->e[memo->n].driver = d->vfio_driver;
	memo->n++;
}

/* driver_override, modalias, and the vfio driver they lead to */
static void read_vfio_state(struct gp_host *h, struct gp_dev *d, struct vfio_memo *memo)
{
	char path[PATH_LEN], over[GP_DEV_NAME_LEN] = "", alias[GP_DEV_MODALIAS_LEN] = "";

	read_text(h, rootp(h, path, "/sys/bus/pci/devices/%s/driver_override", d->bdf), over,
		  sizeof(over));
	d->driver_override =
		strcmp(over, "(null)") ? gp_pool_intern(&h->strs, over, sizeof(over)) : "";
	read_text(h, rootp(h, path, "/sys/bus/pci/devices/%s/modalias", d->bdf), alias,
		  sizeof(alias));
	d->modalias = gp_pool_intern(&h->strs, alias, sizeof(alias));
	read_vfio_driver(h, d, memo);
}

static void read_binding_state(struct gp_host *h)
{
	char path[PATH_LEN], text[16];
	struct vfio_memo memo = { .n = 0 };
	size_t i;

	gp_host_mark_gpu_groups(h);
	for (i = 0; i < h->ndevs; i++) {
		struct gp_dev *d = &h->devs[i];

		d->boot_vga = -1;
		if (!d->with_gpu)
			continue;
		if (read_text(h, rootp(h, path, "/sys/bus/pci/devices/%s/boot_vga", d->bdf), text,
			      sizeof(text)) > 0)
			d->boot_vga = !strcmp(text, "1");
		read_vfio_state(h, d, &memo);
	}
	h->driverctl = exists(h, rootp(h, path, GP_DRIVERCTL));
}

/* ---- disks, swap and framebuffers: what a companion may hold for the host ---- */

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
	DIR *dir = open_dir(h, rootp(h, path, GP_SYS_BLOCK));
	struct dirent *e;

	if (!dir)
		return;
	h->seen_blocks = true;
	while ((e = readdir(dir))) {
		struct gp_block *b;
		int dev;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(b->name) ||
		    read_link(h, rootp(h, path, "/sys/class/block/%s", e->d_name), link,
			      sizeof(link)) <= 0 ||
		    (dev = pci_of_path(h, link)) < 0)
			continue;
		h->blocks = gp_xrealloc(h->blocks, h->nblocks + 1, sizeof(*h->blocks));
		b = &h->blocks[h->nblocks++];
		memset(b, 0, sizeof(*b));
		gp_strlcpy(b->name, e->d_name, sizeof(b->name));
		b->dev = dev;
		read_text(h, rootp(h, path, "/sys/class/block/%s/dev", b->name), b->majmin,
			  sizeof(b->majmin));
		first_entry(h, rootp(h, path, "/sys/class/block/%s/holders", b->name), b->holder,
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

/* mountinfo: "36 35 98:0 /mnt1 /mnt2 rw - ext4 /dev/vda1 rw"; by number and by name. */
static void read_mounts(struct gp_host *h)
{
	char path[PATH_LEN], majmin[32], point[PATH_LEN], source[PATH_LEN];
	char *text = read_file(h, rootp(h, path, GP_PROC_MOUNTINFO)), *cur = text, *line;
	struct gp_block *b;

	if (!text)
		return;
	h->seen_mounts = true;
	while ((line = strsep(&cur, "\n"))) {
		const char *dash = strstr(line, " - ");

		if (sscanf(line, "%*s %*s %31s %*s %4095s", majmin, point) != 2 || !dash ||
		    sscanf(dash + 3, "%*s %4095s", source) != 1)
			continue;
		if ((b = block_named(h, majmin, source)) && !b->mount[0])
			gp_strlcpy(b->mount, point, sizeof(b->mount));
	}
	free(text);
	text = cur = read_file(h, rootp(h, path, GP_PROC_SWAPS));
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
	char *text = read_file(h, rootp(h, path, GP_PROC_IOMEM)), *cur = text, *line;
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
	DIR *dir = open_dir(h, rootp(h, path, GP_SYS_VTCONSOLE));
	struct dirent *e;

	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (read_text(h, rootp(h, path, "/sys/class/vtconsole/%s/name", e->d_name), text,
			      sizeof(text)) <= 0 ||
		    !strstr(text, "frame buffer"))
			continue;
		if (read_text(h, rootp(h, path, "/sys/class/vtconsole/%s/bind", e->d_name), text,
			      sizeof(text)) > 0 &&
		    !strcmp(text, "1"))
			h->fbcon = true;
	}
	if (dir)
		closedir(dir);
}

static void read_host_use(struct gp_host *h)
{
	scan_blocks(h);
	read_mounts(h);
	read_iomem(h);
	read_vtcons(h);
}

/* ---- the whole host ---- */

/*
 * A -r directory without sys/bus/pci/devices is not a snapshot or root tree;
 * where one directory inside it is (the folder a snapshot was unpacked
 * into, named one level too high), the message names that one.
 */
static void not_a_tree(const struct gp_host *h)
{
	char one[256] = "";
	int n = 0, dfd = openat(h->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	while (dir && n < 2 && (e = readdir(dir))) {
		char rel[300];
		int fd;

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		snprintf(rel, sizeof(rel), "/%s/sys/bus/pci/devices", e->d_name);
		fd = gp_root_openat(h->rootfd, rel, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			continue;
		close(fd);
		if (!n++)
			gp_strlcpy(one, e->d_name, sizeof(one));
	}
	if (dir)
		closedir(dir);
	else if (dfd >= 0)
		close(dfd);
	if (n == 1)
		gp_err("cannot read host state: '%s' is not a snapshot or root tree (it has no "
		       "sys/bus/pci/devices); '%s/%s' is one: name that",
		       h->root, h->root, one);
	else
		gp_err("cannot read host state: '%s' is not a snapshot or root tree (it has no "
		       "sys/bus/pci/devices)",
		       h->root);
}

/*
 * NVML starts the driver's state for every GPU it opens (seconds without
 * persistence mode): ask it only when a GPU is on the nvidia driver.
 */
static void read_nvlink(struct gp_host *h)
{
	size_t i;

	for (i = 0; i < h->ndevs; i++)
		if (gp_dev_is_gpu(&h->devs[i]) && !strcmp(h->devs[i].driver, "nvidia"))
			break;
	gp_host_nv_read(h->rootfd, !h->root[0], i < h->ndevs, &h->nv);
}

int gp_host_load(const char *root, const struct gp_profile *p, struct gp_host *h)
{
	return gp_host_load_part(root, p, GP_HOST_ALL, h);
}

/* What check, plan and apply weigh besides the topology. */
static void read_use(struct gp_host *h, const struct gp_profile *p)
{
	read_vfio(h);
	gp_read_net_use(h);
	gp_read_holders(h);
	read_binding_state(h);
	read_host_use(h);
	read_vm_state(h, p);
	gp_read_net_owner(h, p);
	gp_read_networkd(h);
}

/*
 * libpci and libkmod open their paths under --root by themselves, after
 * gp_root_guard saw where they lead: run as root, whoever else could change
 * one of them could swap a FIFO or a link in between.  So those paths, and
 * only those (the safe reader needs no such promise), must be ones only root
 * can change.  libpci's for pci_scan_bus and pci_fill_info(PCI_FILL_PHYS_SLOT)
 * (lib/sysfs.c since 3.8: the devices listing, whose entries it does not
 * follow, and each slot's address); libkmod's: gp_kmod_lib_paths.
 */
static const struct gp_lib_path libpci_paths[] = {
	{ "/sys/bus/pci/devices", NULL, NULL },
	{ "/sys/bus/pci/slots", "", "address" },
};

static int owned_lib_paths(const struct gp_host *h, const struct gp_lib_path *paths, size_t n)
{
	if (h->rootfd < 0 || geteuid() != 0)
		return 0;
	return gp_trust_lib_paths(h->root, paths, n);
}

/* After read_kernel: the release libkmod will be given is the one walked. */
static int owned_libkmod(const struct gp_host *h)
{
	struct gp_lib_path paths[GP_KMOD_LIB_PATHS];

	return owned_lib_paths(h, paths, gp_kmod_lib_paths(h->kernel_release, paths));
}

int gp_host_load_part(const char *root, const struct gp_profile *p, enum gp_host_part part,
		      struct gp_host *h)
{
	char path[PATH_LEN];
	int rc = 0, fd;

	memset(h, 0, sizeof(*h));
	/* "/" and "" both mean the live host; a trailing slash is dropped */
	h->root = gp_xstrdup(root && strcmp(root, "/") ? root : "");
	if (h->root[0] && h->root[strlen(h->root) - 1] == '/')
		h->root[strlen(h->root) - 1] = '\0';
	h->rootfd = gp_root_open(h->root);
	if (h->rootfd >= 0 && owned_lib_paths(h, libpci_paths, ARRAY_SIZE(libpci_paths))) {
		gp_root_close(h->rootfd);
		h->rootfd = -1;
		rc = -EPERM;
		goto fail;
	}
	if (h->rootfd == -ENOTDIR) {
		gp_err("cannot read host state: '%s' is a file, not a directory: a snapshot "
		       "(gpuprov snapshot -o FILE.tar.gz) is unpacked first: mkdir DIR && tar xzf "
		       "'%s' -C DIR, then name DIR",
		       h->root, h->root);
		h->rootfd = -1;
		rc = -ENOTDIR;
		goto fail;
	}
	if (h->rootfd == -ENOENT)
		h->rootfd = -1; /* reported below, with the path that is missing */
	else if (h->rootfd < 0 && h->rootfd != AT_FDCWD)
		goto bad_root;
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", h->root);
	fd = h->rootfd == -1
		     ? -ENOENT
		     : gp_root_openat(h->rootfd, "/sys/bus/pci/devices", O_RDONLY | O_DIRECTORY);
	if (fd == -ENOENT && h->rootfd >= 0) {
		not_a_tree(h);
		goto fail;
	}
	if (fd < 0) {
		gp_err("cannot read host state: '%s': %s", path, gp_root_strerror(fd));
		goto fail;
	}
	close(fd);
	rc = scan_pci(h, p);
	if (rc)
		goto fail;
	scan_numa(h);
	single_node(h);
	gp_read_ifaces(h);
	read_kernel(h);
	if (part == GP_HOST_ALL && owned_libkmod(h)) {
		rc = -EPERM;
		goto fail;
	}
	if (part == GP_HOST_ALL)
		read_use(h, p);
	read_nvlink(h);
	gp_root_close(h->rootfd);
	h->rootfd = -1; /* everything is read: the struct is all there is */
	return 0;
bad_root:
	gp_err("cannot read host state: '%s': %s", h->root, gp_root_strerror(h->rootfd));
	rc = -ENOENT;
fail:
	gp_root_close(h->rootfd);
	gp_host_release(h);
	return rc ? rc : -ENOENT;
}

void gp_host_release(struct gp_host *h)
{
	size_t i;

	gp_nv_view_release(&h->nv);
	for (i = 0; i < GP_PERSIST_FILES; i++)
		free(h->persist[i]);
	free(h->vm_xml);
	free(h->nccl_xml);
	free(h->bond_persisted);
	for (i = 0; i < h->nowned; i++)
		free(h->owned[i].text);
	free(h->owned);
	free(h->netfiles);
	free(h->root);
	free(h->devs);
	gp_pool_release(&h->strs);
	free(h->numa);
	free(h->ifaces);
	free(h->holders);
	free(h->blocks);
	free(h->fbs);
	memset(h, 0, sizeof(*h));
}
