// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * acs.set: ACS Direct Translated P2P on a switch downstream port between a
 * passed NIC and its GPU (core/acs.c says which ports and why).  Written
 * through the port's sysfs config file at its ACS capability + 6 (PCIe base
 * spec 7.7.8.3), two bytes and nothing else, read back; the capability found
 * by walking the extended list as the reader does (core/pcicfg.c).  Made to
 * last by gpuprov-acs.service, which sets the same bits at each boot before
 * libvirt (the register is lost at reset); the journal keeps the old value
 * and the unit's files as they were, and undo restores both.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/acs.h"
#include "act/actuator.h"
#include "act/fstate.h"
#include "core/acs.h"
#include "core/pcicfg.h"
#include "shared/log.h"
#include "shared/util.h"
#include "shared/write.h"

#define CFG_SIZE 4096

/* The port's directory (config's), resolved: what the boot script checks it is. */
static int port_where(const char *config, char *out, size_t len)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(config, '/');
	int rc;

	if (!slash || (size_t)(slash - config) >= sizeof(dir)) {
		gp_err("'%s': no device directory", config);
		return -EINVAL;
	}
	memcpy(dir, config, (size_t)(slash - config));
	dir[slash - config] = '\0';
	rc = gp_dev_where(dir, out, len);
	if (rc)
		gp_err("'%s': cannot resolve its path: %s", dir, strerror(-rc));
	return rc;
}

int gp_acs_read_at(const char *config, struct gp_acs_reg *r)
{
	uint8_t buf[CFG_SIZE];
	struct gp_cfg c;
	ssize_t n;
	int fd = open(config, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc;

	if (fd < 0) {
		rc = -errno;
		gp_err("cannot read '%s': %s", config, strerror(errno));
		return rc;
	}
	memset(buf, 0, sizeof(buf));
	n = pread(fd, buf, sizeof(buf), 0);
	rc = n < 0 ? -errno : 0;
	close(fd);
	/* unprivileged readers get 64 bytes: the ACS capability is in extended space */
	if (n <= 256) {
		gp_err("cannot read the extended config space of '%s'%s", config,
		       rc ? "" : " (root only)");
		return rc ? rc : -EACCES;
	}
	if (gp_cfg_parse(buf, (size_t)n, &c) || c.pcie_type != GP_PCIE_DOWNSTREAM) {
		gp_err("'%s': not a PCIe switch downstream port", config);
		return -EINVAL;
	}
	if (!c.has_acs) {
		gp_err("'%s': no ACS capability", config);
		return -EINVAL;
	}
	if (port_where(config, r->path, sizeof(r->path)))
		return -EINVAL;
	r->vendor = c.vendor;
	r->device = c.device;
	r->pos = c.acs_pos;
	r->cap = c.acs_cap;
	r->ctrl = c.acs_ctrl;
	return 0;
}

static int put16(int fd, off_t off, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v & 0xff), (uint8_t)(v >> 8) };

	return pwrite(fd, b, 2, off) == 2 ? 0 : errno ? -errno : -EIO;
}

static int get16(int fd, off_t off, uint16_t *v)
{
	uint8_t b[2];

	if (pread(fd, b, 2, off) != 2)
		return errno ? -errno : -EIO;
	*v = (uint16_t)(b[0] | b[1] << 8);
	return 0;
}

int gp_acs_write_at(const char *config, const struct gp_acs_reg *r, uint16_t val)
{
	off_t off = (off_t)r->pos + GP_ACS_CTRL_OFF;
	uint16_t back = 0;
	int fd = open(config, O_RDWR | O_CLOEXEC | O_NOFOLLOW), rc;

	if (fd < 0) {
		rc = -errno;
		gp_err("cannot open '%s' to write: %s", config, strerror(errno));
		return rc;
	}
	errno = 0;
	rc = put16(fd, off, val);
	if (!rc)
		rc = get16(fd, off, &back);
	if (rc) {
		gp_err("cannot write ACS control 0x%04x at 0x%x of '%s': %s", val, (unsigned)off,
		       config, strerror(-rc));
	} else if (back != val) {
		/* a bit the port hardwires, or a port that would not take it: as it was */
		rc = -EIO;
		if (put16(fd, off, r->ctrl))
			gp_err("'%s': ACS control reads 0x%04x after writing 0x%04x, and the old "
			       "0x%04x could not be written back",
			       config, back, val, r->ctrl);
		else
			gp_err("'%s': ACS control reads 0x%04x after writing 0x%04x: 0x%04x "
			       "written back",
			       config, back, val, r->ctrl);
	}
	close(fd);
	return rc;
}

/*
 * The port's runtime power management, power/control beside config: "on"
 * keeps it out of D3hot.  Resuming from D3hot restores the port's state
 * (pci_restore_state), which writes the kernel's own ACS policy again
 * (pci_enable_acs), without Direct Translated P2P: the port would lose what
 * acs.set wrote the first time its devices went idle.  -ENOENT: a kernel
 * without runtime PM for it, nothing to keep.
 */
static int power_path(const char *config, char *out, size_t len)
{
	const char *slash = strrchr(config, '/');

	if (!slash ||
	    (size_t)snprintf(out, len, "%.*s/power/control", (int)(slash - config), config) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int gp_acs_power_read(const char *config, char *val, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, rc = power_path(config, path, sizeof(path));

	if (rc)
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, val, len - 1);
	rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	val[n] = '\0';
	val[strcspn(val, "\n")] = '\0';
	return strcmp(val, "on") && strcmp(val, "auto") ? -EINVAL : 0;
}

int gp_acs_power_write(const char *config, const char *val)
{
	char path[PATH_MAX], back[16];
	int fd, rc = power_path(config, path, sizeof(path));

	if (rc)
		return rc;
	if (strcmp(val, "on") && strcmp(val, "auto"))
		return -EINVAL; /* from the journal: hostile */
	errno = 0;
	/* O_TRUNC: nothing to sysfs, and a tree's file then holds the value alone */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		rc = errno ? -errno : -EIO;
	if (fd >= 0)
		close(fd);
	if (!rc && (rc = gp_acs_power_read(config, back, sizeof(back))) == 0 && strcmp(back, val))
		rc = -EIO;
	if (rc)
		gp_err("cannot set '%s' to %s: %s", path, val, strerror(-rc));
	return rc;
}

/* power/control is "on", or the port has none. */
static bool power_on(const char *config)
{
	char cur[16];
	int rc = gp_acs_power_read(config, cur, sizeof(cur));

	return rc == -ENOENT || (!rc && !strcmp(cur, "on"));
}

/* The port a step names, and its config file: 0, or -EINVAL. */
static int step_port(const struct gp_step *st, char bdf[GP_BDF_LEN], char *config, size_t len)
{
	if (gp_parse_bdf(st->subject, bdf) || strcmp(bdf, st->subject)) {
		gp_err("%s: '%s' is not a PCI address", gp_step_name(st->kind), st->subject);
		return -EINVAL;
	}
	snprintf(config, len, "/sys/bus/pci/devices/%s/config", bdf);
	return 0;
}

static int read_port(const struct gp_step *st, char bdf[GP_BDF_LEN], struct gp_acs_reg *r)
{
	char config[96];
	int rc = step_port(st, bdf, config, sizeof(config));

	return rc ? rc : gp_acs_read_at(config, r);
}

static bool same(const char *path, const char *text)
{
	char *cur = gp_read_file(path);
	bool eq = cur && !strcmp(cur, text);

	free(cur);
	return eq;
}

/* The boot unit's files hold the port's bits, and the unit is enabled. */
static bool persisted(const char *bdf, const struct gp_acs_reg *r, uint16_t bits)
{
	char file[96], text[320], target[64];
	ssize_t n = readlink(GP_ACS_WANTS, target, sizeof(target) - 1);

	gp_acs_file(bdf, file, sizeof(file));
	gp_acs_file_text(r->vendor, r->device, bits, r->path, text, sizeof(text));
	return same(file, text) && same(GP_ACS_SCRIPT, gp_acs_script) &&
	       same(GP_ACS_UNIT, gp_acs_unit) && n > 0 && (size_t)n == strlen(GP_ACS_WANTS_TO) &&
	       !memcmp(target, GP_ACS_WANTS_TO, (size_t)n);
}

static int acs_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_acs_reg r;
	char bdf[GP_BDF_LEN];
	int rc = read_port(st, bdf, &r);

	if (rc)
		return rc;
	if (!(r.cap & GP_ACS_DT)) {
		gp_err("%s: its ACS capability (0x%04x) has no Direct Translated P2P", bdf, r.cap);
		return -EINVAL;
	}
	return 0;
}

static int acs_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_acs_reg r;
	char bdf[GP_BDF_LEN], config[96];
	uint16_t want;

	if (step_port(st, bdf, config, sizeof(config)) || gp_acs_read_at(config, &r))
		return 0;
	want = gp_acs_target(r.cap, r.ctrl);
	return r.ctrl == want && persisted(bdf, &r, want) && power_on(config);
}

static void files_of(const char *bdf, char file[96], const char *paths[4])
{
	gp_acs_file(bdf, file, 96);
	paths[0] = file;
	paths[1] = GP_ACS_SCRIPT;
	paths[2] = GP_ACS_UNIT;
	paths[3] = GP_ACS_WANTS;
}

static int acs_record(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files, *rec;
	const char *paths[4];
	struct gp_acs_reg r;
	char bdf[GP_BDF_LEN], file[96], config[96], power[16];
	int rc = step_port(st, bdf, config, sizeof(config)), i;

	if (!rc)
		rc = gp_acs_read_at(config, &r);
	if (rc)
		return rc;
	rc = gp_acs_power_read(config, power, sizeof(power));
	if (rc && rc != -ENOENT) {
		gp_err("%s: power/control: %s", bdf, strerror(-rc));
		return rc;
	}
	if (!rc)
		json_object_object_add(undo, "power", json_object_new_string(power));
	rc = 0;
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
	json_object_object_add(undo, "ctrl", json_object_new_int(r.ctrl));
	json_object_object_add(undo, "where", json_object_new_string(r.path));
	json_object_object_add(undo, "files", files);
	return 0;
}

static int write_files(const char *bdf, const struct gp_acs_reg *r, uint16_t bits)
{
	char file[96], text[320];
	int rc;

	gp_acs_file(bdf, file, sizeof(file));
	gp_acs_file_text(r->vendor, r->device, bits, r->path, text, sizeof(text));
	rc = gp_write_file(file, text, strlen(text), 0644);
	if (!rc)
		rc = gp_write_file(GP_ACS_SCRIPT, gp_acs_script, strlen(gp_acs_script), 0755);
	if (!rc)
		rc = gp_write_file(GP_ACS_UNIT, gp_acs_unit, strlen(gp_acs_unit), 0644);
	if (rc) {
		gp_err("cannot write the boot unit's files: %s", gp_write_strerror(rc));
		return rc;
	}
	/* `systemctl enable`, by hand, as hugepages.reserve enables its unit */
	rc = gp_write_link(GP_ACS_WANTS, GP_ACS_WANTS_TO, NULL);
	if (rc)
		gp_err("cannot enable gpuprov-acs.service: %s", gp_write_strerror(rc));
	return rc;
}

static int acs_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_acs_reg r;
	char bdf[GP_BDF_LEN], config[96];
	uint16_t want;
	int rc = step_port(st, bdf, config, sizeof(config));

	if (!rc)
		rc = gp_acs_read_at(config, &r);
	if (rc)
		return rc;
	want = gp_acs_target(r.cap, r.ctrl);
	if (want != r.ctrl && (rc = gp_acs_write_at(config, &r, want)))
		return rc;
	if (!power_on(config) && (rc = gp_acs_power_write(config, "on")))
		return rc;
	return write_files(bdf, &r, want);
}

static int acs_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct gp_acs_reg r;
	char bdf[GP_BDF_LEN], config[96];
	uint16_t want;
	int rc = step_port(st, bdf, config, sizeof(config));

	if (!rc)
		rc = gp_acs_read_at(config, &r);
	if (rc)
		return rc;
	want = gp_acs_target(r.cap, r.ctrl);
	if (!(r.ctrl & GP_ACS_DT) || r.ctrl != want || !persisted(bdf, &r, want) ||
	    !power_on(config)) {
		gp_err("%s: ACS control 0x%04x, power/control, or the boot unit's files, not as "
		       "written (0x%04x, on)",
		       bdf, r.ctrl, want);
		return -EIO;
	}
	return 0;
}

int gp_acs_restore_at(const char *config, long old, const char *where)
{
	struct gp_acs_reg r;
	uint16_t back;
	int rc;

	if (old < 0 || old > 0xffff)
		return -EINVAL;
	rc = gp_acs_read_at(config, &r);
	if (rc)
		return rc;
	if (where && strcmp(where, r.path)) {
		gp_err("'%s' is now the port at '%s', not the one acs.set wrote ('%s'): the buses "
		       "were renumbered; set that port's ACS Control by hand",
		       config, r.path, where);
		return -ESTALE;
	}
	back = (uint16_t)((r.ctrl & ~GP_ACS_FEATURES) | ((uint16_t)old & GP_ACS_FEATURES));
	return back == r.ctrl ? 0 : gp_acs_write_at(config, &r, back);
}

/* The old value back, the files as they were. */
static int acs_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *files = json_object_object_get(undo, "files");
	json_object *old = json_object_object_get(undo, "ctrl");
	json_object *where = json_object_object_get(undo, "where");
	json_object *power = json_object_object_get(undo, "power");
	char cur[16];
	char bdf[GP_BDF_LEN], config[96];
	int rc = 0;
	size_t i;

	if (!old)
		return 0; /* recorded nothing: nothing changed */
	if (!json_object_is_type(old, json_type_int) ||
	    (where && !json_object_is_type(where, json_type_string)) ||
	    (power && !json_object_is_type(power, json_type_string)) ||
	    step_port(st, bdf, config, sizeof(config)))
		return -EINVAL;
	/* the unit's link first, the port's file last */
	for (i = files ? json_object_array_length(files) : 0; i-- > 0;)
		if (gp_fstate_restore(json_object_array_get_idx(files, i)))
			rc = -EIO;
	/* a record from before "where" was kept has none: the address alone */
	if (gp_acs_restore_at(config, (long)json_object_get_int64(old),
			      where ? json_object_get_string(where) : NULL))
		return -EIO;
	if (power && !gp_acs_power_read(config, cur, sizeof(cur)) &&
	    strcmp(cur, json_object_get_string(power)) &&
	    gp_acs_power_write(config, json_object_get_string(power)))
		return -EIO;
	return rc;
}

/* The value the plan saw (its current: "ACS control 0xVVVV"), written back. */
static bool acs_by_hand(const struct gp_step *st, char *how, size_t len)
{
	unsigned v;

	if (sscanf(st->current, "ACS control 0x%4x", &v) != 1)
		return false;
	snprintf(how, len,
		 "setpci -s %s ECAP_ACS+6.w=%04x; and put back the port's power/control and "
		 "the files of the step's undo record",
		 st->subject, v);
	return true;
}

static bool acs_owns(const char *path)
{
	char bdf[GP_BDF_LEN];

	return !gp_acs_file_parse(path, bdf) || !strcmp(path, GP_ACS_SCRIPT) ||
	       !strcmp(path, GP_ACS_UNIT) || !strcmp(path, GP_ACS_WANTS);
}

const struct gp_actuator gp_act_acs_set = {
	.kind = GP_S_ACS_SET,
	.precheck = acs_precheck,
	.done = acs_done,
	.record = acs_record,
	.run = acs_run,
	.verify = acs_verify,
	.undo = acs_undo,
	.by_hand = acs_by_hand,
	.owns = acs_owns,
};
