// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sriov.vfs: a port's virtual functions, [nic] vfs of them, through its
 * sriov_numvfs (Documentation/PCI/pci-iov-howto.rst; the ABI in
 * Documentation/ABI/testing/sysfs-bus-pci): a count at most its
 * sriov_totalvfs, changed from one nonzero count to another only through 0.
 * Read back, and each VF found where the plan placed it (the domain XML
 * names those addresses: a VF elsewhere fails the step, and apply undoes
 * it).  Made to last by gpuprov-sriov.service, which writes the same
 * count at each boot before libvirt (core/sriov.c's unit and script, a
 * port's file in /etc/gpuprov/sriov.d); the journal keeps the old count and
 * the files as they were, and undo restores both.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/actuator.h"
#include "act/fstate.h"
#include "act/sriov.h"
#include "core/sriov.h"
#include "core/vfs.h"
#include "shared/log.h"
#include "shared/rootfs.h"
#include "shared/util.h"
#include "shared/write.h"

/* vendor and device are hexadecimal with 0x, as sysfs prints them; counts decimal */
static bool vendor_like(const char *name)
{
	return !strcmp(name, "vendor") || !strcmp(name, "device");
}

/* A number in dir/name (a count, or 0x-hex IDs): 0, or -errno (said). */
static int read_num(const char *dir, const char *name, long *v)
{
	char path[160], text[32], *end;
	ssize_t n;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = -errno;
		gp_err("cannot read '%s': %s", path, strerror(errno));
		return rc;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	*v = strtol(text, &end, vendor_like(name) ? 16 : 10);
	if (n <= 0 || end == text || (*end && *end != '\n') || *v < 0 || *v > GP_SRIOV_MAX) {
		gp_err("'%s' holds no number", path);
		return -EIO;
	}
	return 0;
}

int gp_sriov_read_at(const char *dir, struct gp_sriov_port *port)
{
	char path[160];
	long vendor, device;
	int rc;

	snprintf(path, sizeof(path), "%s/sriov_totalvfs", dir);
	if (access(path, F_OK)) {
		gp_err("'%s': no SR-IOV (no sriov_totalvfs)", dir);
		return -ENOTSUP;
	}
	if ((rc = read_num(dir, "vendor", &vendor)) || (rc = read_num(dir, "device", &device)) ||
	    (rc = read_num(dir, "sriov_totalvfs", &port->total)) ||
	    (rc = read_num(dir, "sriov_numvfs", &port->numvfs)))
		return rc;
	rc = gp_dev_where(dir, port->path, sizeof(port->path));
	if (rc) {
		gp_err("'%s': cannot resolve its path: %s", dir, strerror(-rc));
		return rc;
	}
	port->vendor = (uint16_t)vendor;
	port->device = (uint16_t)device;
	return 0;
}

/* The kernel creates (or removes) the functions as it takes the write. */
static int write_count(const char *dir, long v)
{
	char path[160], text[32];
	int fd, rc = 0, len = snprintf(text, sizeof(text), "%ld\n", v);

	snprintf(path, sizeof(path), "%s/sriov_numvfs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	errno = 0;
	if (fd < 0 || write(fd, text, (size_t)len) != len)
		rc = errno ? -errno : -EIO; /* a short write sets no errno */
	if (fd >= 0)
		close(fd);
	if (rc)
		gp_err("cannot write %ld to '%s': %s", v, path, strerror(-rc));
	return rc;
}

int gp_sriov_set_at(const char *dir, long have, long want)
{
	long back;
	int rc;

	if (have == want)
		return 0;
	/* through 0 would destroy the VFs there, and what a guest holds of them */
	if (have && want) {
		gp_err("'%s' has %ld virtual functions: gpuprov changes a count only from or to 0 "
		       "(write 0 to its sriov_numvfs yourself once nothing uses them)",
		       dir, have);
		return -EBUSY;
	}
	if ((rc = write_count(dir, want)) || (rc = read_num(dir, "sriov_numvfs", &back)))
		return rc;
	if (back != want) {
		gp_err("'%s': sriov_numvfs reads %ld after writing %ld", dir, back, want);
		return -EIO;
	}
	return 0;
}

int gp_sriov_placed_at(const char *dir, const char *pf_bdf, unsigned offset, unsigned stride,
		       long count)
{
	char path[160], link[256], want[GP_BDF_LEN];
	const char *base;
	ssize_t n;
	long i;

	for (i = 0; offset && i < count; i++) {
		if (gp_vf_addr(pf_bdf, offset, stride, (unsigned)i, want)) {
			gp_err("%s: virtual function %ld has no address (offset %u, stride %u)",
			       pf_bdf, i, offset, stride);
			return -EIO;
		}
		snprintf(path, sizeof(path), "%s/virtfn%ld", dir, i);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (n <= 0 || strcmp(base, want)) {
			gp_err("%s: virtual function %ld is %s, the plan placed it at %s (its "
			       "domain XML names that address): undoing",
			       pf_bdf, i, n > 0 ? base : "missing (no virtfn link)", want);
			return -EIO;
		}
	}
	return 0;
}

/* The port a step names, and its device directory: 0, or -EINVAL. */
static int step_port(const struct gp_step *st, char bdf[GP_BDF_LEN], char *dir, size_t len)
{
	if (gp_parse_bdf(st->subject, bdf) || strcmp(bdf, st->subject)) {
		gp_err("%s: '%s' is not a PCI address", gp_step_name(st->kind), st->subject);
		return -EINVAL;
	}
	snprintf(dir, len, "/sys/bus/pci/devices/%s", bdf);
	return 0;
}

static int read_port(const struct gp_step *st, char bdf[GP_BDF_LEN], struct gp_sriov_port *port)
{
	char dir[64];
	int rc = step_port(st, bdf, dir, sizeof(dir));

	return rc ? rc : gp_sriov_read_at(dir, port);
}

/* [nic] vfs: what the run asks of each port (rollback has no profile, and no need). */
static long wanted(const struct gp_apply_ctx *ctx)
{
	const struct gp_profile *p = ctx->profile;

	return p && p->has_nic && p->nic.mode == GP_NIC_VF ? (long)p->nic.vfs : -1;
}

static bool same(const char *path, const char *text)
{
	char *cur = gp_read_file(path);
	bool eq = cur && !strcmp(cur, text);

	free(cur);
	return eq;
}

/* The boot unit's files hold the port's count, and the unit is enabled. */
static bool persisted(const char *bdf, const struct gp_sriov_port *port, long count)
{
	char file[96], text[320], target[64];
	ssize_t n = readlink(GP_SRIOV_WANTS, target, sizeof(target) - 1);

	gp_sriov_file(bdf, file, sizeof(file));
	gp_sriov_file_text(port->vendor, port->device, count, port->path, text, sizeof(text));
	return same(file, text) && same(GP_SRIOV_SCRIPT, gp_sriov_script) &&
	       same(GP_SRIOV_UNIT, gp_sriov_unit) && n > 0 &&
	       (size_t)n == strlen(GP_SRIOV_WANTS_TO) &&
	       !memcmp(target, GP_SRIOV_WANTS_TO, (size_t)n);
}

static int vfs_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_sriov_port port;
	char bdf[GP_BDF_LEN];
	long want = wanted(ctx);
	int rc;

	if (want < 0) {
		gp_err("%s %s: the profile asks for no virtual functions", gp_step_name(st->kind),
		       st->subject);
		return -EINVAL;
	}
	if ((rc = read_port(st, bdf, &port)))
		return rc;
	if (want > port.total) {
		gp_err("%s: %ld virtual functions asked, it offers %ld (sriov_totalvfs)", bdf, want,
		       port.total);
		return -EINVAL;
	}
	return 0;
}

/* The VFs where the plan put them (quietly: done() only asks). */
static bool placed(const struct gp_step *st, const char *bdf, long count)
{
	char dir[64];
	bool ok;

	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bdf);
	gp_err_kept++;
	ok = !gp_sriov_placed_at(dir, bdf, st->vf_offset, st->vf_stride, count);
	gp_err_kept--;
	return ok;
}

static int vfs_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_sriov_port port;
	char bdf[GP_BDF_LEN];
	long want = wanted(ctx);

	if (want < 0 || read_port(st, bdf, &port))
		return 0;
	return port.numvfs == want && persisted(bdf, &port, want) && placed(st, bdf, want);
}

static void files_of(const char *bdf, char file[96], const char *paths[4])
{
	gp_sriov_file(bdf, file, 96);
	paths[0] = file;
	paths[1] = GP_SRIOV_SCRIPT;
	paths[2] = GP_SRIOV_UNIT;
	paths[3] = GP_SRIOV_WANTS;
}

static int vfs_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files, *rec;
	struct gp_sriov_port port;
	const char *paths[4];
	char bdf[GP_BDF_LEN], file[96];
	int rc = read_port(st, bdf, &port), i;

	if (rc)
		return rc;
	files = json_object_new_array();
	files_of(bdf, file, paths);
	for (i = 0; !rc && i < 4; i++) {
		rc = gp_fstate_record(paths[i], &rec);
		if (!rc)
			json_object_array_add(files, rec);
	}
	if (rc) {
		json_object_put(files);
		return rc;
	}
	json_object_object_add(undo, "numvfs", json_object_new_int64(port.numvfs));
	json_object_object_add(undo, "files", files);
	return 0;
}

static int write_files(const char *bdf, const struct gp_sriov_port *port, long count)
{
	char file[96], text[320];
	int rc;

	gp_sriov_file(bdf, file, sizeof(file));
	gp_sriov_file_text(port->vendor, port->device, count, port->path, text, sizeof(text));
	rc = gp_write_file(file, text, strlen(text), 0644);
	if (!rc)
		rc = gp_write_file(GP_SRIOV_SCRIPT, gp_sriov_script, strlen(gp_sriov_script), 0755);
	if (!rc)
		rc = gp_write_file(GP_SRIOV_UNIT, gp_sriov_unit, strlen(gp_sriov_unit), 0644);
	if (rc) {
		gp_err("cannot write the boot unit's files: %s", gp_write_strerror(rc));
		return rc;
	}
	/* `systemctl enable`, by hand, as hugepages.reserve enables its unit */
	rc = gp_write_link(GP_SRIOV_WANTS, GP_SRIOV_WANTS_TO, NULL);
	if (rc)
		gp_err("cannot enable gpuprov-sriov.service: %s", gp_write_strerror(rc));
	return rc;
}

static int vfs_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_sriov_port port;
	char bdf[GP_BDF_LEN], dir[64];
	long want = wanted(ctx);
	int rc = step_port(st, bdf, dir, sizeof(dir));

	if (!rc)
		rc = gp_sriov_read_at(dir, &port);
	if (!rc && (want < 0 || want > port.total))
		rc = -EINVAL;
	if (!rc)
		rc = gp_sriov_set_at(dir, port.numvfs, want);
	/* the domain XML names the VFs' predicted addresses: before it is written */
	if (!rc)
		rc = gp_sriov_placed_at(dir, bdf, st->vf_offset, st->vf_stride, want);
	return rc ? rc : write_files(bdf, &port, want);
}

static int vfs_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_sriov_port port;
	char bdf[GP_BDF_LEN];
	long want = wanted(ctx);
	int rc = read_port(st, bdf, &port);

	if (rc)
		return rc;
	if (port.numvfs != want || !persisted(bdf, &port, want)) {
		gp_err("%s: sriov_numvfs %ld, or the boot unit's files, not as written (%ld)", bdf,
		       port.numvfs, want);
		return -EIO;
	}
	return 0;
}

/* The old count back (a count the journal holds: hostile, bounded), the files as they were. */
static int vfs_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files = json_object_object_get(undo, "files");
	json_object *old = json_object_object_get(undo, "numvfs");
	struct gp_sriov_port port;
	char bdf[GP_BDF_LEN], dir[64];
	long nr;
	int rc = 0;
	size_t i;

	if (!old)
		return 0; /* recorded nothing: nothing changed */
	nr = (long)json_object_get_int64(old);
	if (!json_object_is_type(old, json_type_int) || nr < 0 || nr > GP_SRIOV_MAX ||
	    step_port(st, bdf, dir, sizeof(dir)))
		return -EINVAL;
	/* the unit's link first, the port's file last */
	for (i = files ? json_object_array_length(files) : 0; i-- > 0;)
		if (gp_fstate_restore(json_object_array_get_idx(files, i)))
			rc = -EIO;
	if (gp_sriov_read_at(dir, &port))
		return -EIO;
	if (nr > port.total) {
		gp_err("%s: the journal's count %ld is above its sriov_totalvfs %ld", bdf, nr,
		       port.total);
		return -EINVAL;
	}
	if (gp_sriov_set_at(dir, port.numvfs, nr))
		return -EIO;
	return rc;
}

/* The count the plan saw (its current: "sriov_numvfs N"), written back. */
static bool vfs_by_hand(const struct gp_step *st, char *how, size_t len)
{
	long nr;

	if (sscanf(st->current, "sriov_numvfs %ld", &nr) != 1 || nr < 0 || nr > GP_SRIOV_MAX)
		return false;
	snprintf(how, len,
		 "echo 0 > /sys/bus/pci/devices/%s/sriov_numvfs; echo %ld > "
		 "/sys/bus/pci/devices/%s/sriov_numvfs; and put back or remove the files of the "
		 "step's undo record",
		 st->subject, nr, st->subject);
	return true;
}

static bool vfs_owns(const char *path)
{
	char bdf[GP_BDF_LEN];

	return !gp_sriov_file_parse(path, bdf) || !strcmp(path, GP_SRIOV_SCRIPT) ||
	       !strcmp(path, GP_SRIOV_UNIT) || !strcmp(path, GP_SRIOV_WANTS);
}

const struct gp_actuator gp_act_sriov_vfs = {
	.kind = GP_S_SRIOV_VFS,
	.precheck = vfs_precheck,
	.done = vfs_done,
	.record = vfs_record,
	.run = vfs_run,
	.verify = vfs_verify,
	.undo = vfs_undo,
	.by_hand = vfs_by_hand,
	.owns = vfs_owns,
};
