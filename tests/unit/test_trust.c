// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gp_trust: what root may act on.  The tests run as root; "another user" is
 * uid 65534 (nobody), made owner with chown; another group is gid 65534.
 * Everything lives in a fresh 0700 directory under /tmp (root's, sticky:
 * trusted as a parent, never as a tree).
 */
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "act/apply.h"
#include "unit.h"
#include "act/fstate.h"

#define NOBODY 65534

static char top[64];

static const char *at(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", top, name);
	return buf[i];
}

static void file_gid(const char *name, mode_t mode, uid_t uid, gid_t gid)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(fchown(fd, uid, gid), 0);
	close(fd);
}

static void file(const char *name, mode_t mode, uid_t uid)
{
	file_gid(name, mode, uid, 0);
}

static void dir_gid(const char *name, mode_t mode, uid_t uid, gid_t gid)
{
	assert_int_equal(mkdir(at(name), mode), 0);
	assert_int_equal(chmod(at(name), mode), 0);
	assert_int_equal(chown(at(name), uid, gid), 0);
}

static void dir(const char *name, mode_t mode, uid_t uid)
{
	dir_gid(name, mode, uid, 0);
}

static void sock(const char *name, mode_t mode, uid_t uid)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", at(name));
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	close(fd);
	assert_int_equal(chmod(at(name), mode), 0);
	assert_int_equal(chown(at(name), uid, 0), 0);
}

static void link_to(const char *name, const char *target, uid_t uid)
{
	assert_int_equal(symlink(target, at(name)), 0);
	assert_int_equal(lchown(at(name), uid, 0), 0);
}

/*
 * An access ACL as setfacl -m u:ID:rw (or g:ID:rw) writes it, in the kernel's
 * xattr format: owner rw, a named user or group with perm, group r, mask, other r.
 * The kernel sets the mode's group bits from the mask.
 */
static void acl(const char *name, uint16_t tag, uint32_t id, uint16_t perm, uint16_t mask)
{
	/* in the order the kernel wants: a named group after the owning group */
	const int named = tag == 0x02 ? 1 : 2;
	uint16_t e[5][2] = { { 0x01, 6 }, { 0x04, 4 }, { 0x04, 4 }, { 0x10, mask }, { 0x20, 4 } };
	unsigned char buf[4 + 5 * 8];
	uint32_t v = htole32(2);

	e[named][0] = tag;
	e[named][1] = perm;
	memcpy(buf, &v, 4);
	for (int i = 0; i < 5; i++) {
		uint16_t t = htole16(e[i][0]), p = htole16(e[i][1]);
		uint32_t u = htole32(i == named ? id : 0xffffffff);

		memcpy(buf + 4 + 8 * i, &t, 2);
		memcpy(buf + 6 + 8 * i, &p, 2);
		memcpy(buf + 8 + 8 * i, &u, 4);
	}
	assert_int_equal(setxattr(at(name), "system.posix_acl_access", buf, sizeof(buf), 0), 0);
}

static int setup(void **state)
{
	(void)state;
	if (geteuid())
		return -1; /* ownership can only be arranged as root */
	snprintf(top, sizeof(top), "/tmp/gp-trust-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	dir("ok", 0755, 0);
	file("ok/p.ini", 0644, 0);
	file("ok/ro.ini", 0400, 0);
	file("ok/theirs.ini", 0644, NOBODY);
	file_gid("ok/gw.ini", 0664, 0, NOBODY);
	file("ok/rootgroup.ini", 0664, 0);
	file("ok/ow.ini", 0646, 0);
	dir("ww", 0777, 0);
	file("ww/p.ini", 0644, 0);
	dir_gid("gw", 0775, 0, NOBODY);
	file("gw/p.ini", 0644, 0);
	dir("rootgroup", 0770, 0);
	file("rootgroup/p.ini", 0644, 0);
	dir("sticky", 01777, 0);
	file("sticky/p.ini", 0644, 0);
	file("sticky/theirs.ini", 0644, NOBODY);
	dir("nobody", 0755, NOBODY);
	file("nobody/p.ini", 0644, 0);
	link_to("ok/root-link.ini", "p.ini", 0);
	link_to("ok/their-link.ini", "p.ini", NOBODY);
	link_to("ok/to-ww.ini", "../ww/p.ini", 0);
	link_to("ok/abs-link.ini", at("ok/p.ini"), 0);
	link_to("ok/to-their-link.ini", "their-link.ini", 0);
	link_to("ok/loop.ini", "loop.ini", 0);
	link_to("ok/dirlink", "../ww", 0);
	link_to("sticky/their-dirlink", "../ok", NOBODY);
	assert_int_equal(mkfifo(at("ok/fifo"), 0600), 0);
	dir("tree", 0755, 0);
	dir("tree/etc", 0755, 0);
	file("tree/etc/qemu.conf", 0644, 0);
	dir("badtree", 0755, 0);
	dir("badtree/etc", 0755, 0);
	file("badtree/etc/qemu.conf", 0644, NOBODY);
	file("ok/acl-user.ini", 0644, 0);
	acl("ok/acl-user.ini", 0x02, NOBODY, 6, 6);
	file("ok/acl-group.ini", 0644, 0);
	acl("ok/acl-group.ini", 0x08, NOBODY, 6, 6);
	file("ok/acl-masked.ini", 0644, 0);
	acl("ok/acl-masked.ini", 0x02, NOBODY, 6, 4);
	file("ok/acl-root.ini", 0644, 0);
	acl("ok/acl-root.ini", 0x08, 0, 6, 6);
	file("ok/acl-read.ini", 0644, 0);
	acl("ok/acl-read.ini", 0x02, NOBODY, 4, 6);
	dir("acldir", 0755, 0);
	file("acldir/p.ini", 0644, 0);
	acl("acldir", 0x02, NOBODY, 7, 7);
	dir("linktree", 0755, 0);
	link_to("linktree/conf", "../ww/p.ini", 0);
	/* trees reached through a link, sticky ones, links inside to directories */
	link_to("tree-link", "tree", 0);
	link_to("badtree-link", "badtree", 0);
	link_to("sticky-link", "sticky", 0);
	dir("stickytree", 01777, 0);
	file("stickytree/p.ini", 0644, 0);
	dir("tree2", 0755, 0);
	dir("tree2/tmp", 01777, 0);
	dir("tree3", 0755, 0);
	dir("tree3/run", 0770, 0);
	dir("dirlinks", 0755, 0);
	link_to("dirlinks/etc", "../badtree/etc", 0);
	dir("goodlinks", 0755, 0);
	link_to("goodlinks/etc", "../tree/etc", 0);
	link_to("goodlinks/conf", "../tree/etc/qemu.conf", 0);
	/* root's FIFO and device node where libvirt or a boot script would open a file */
	dir("fifotree", 0755, 0);
	dir("fifotree/etc", 0755, 0);
	assert_int_equal(mkfifo(at("fifotree/etc/qemu.conf"), 0600), 0);
	dir("nodetree", 0755, 0);
	assert_int_equal(mknod(at("nodetree/vfio-rebind.sh"), S_IFCHR | 0600, makedev(1, 3)), 0);
	dir("looptree", 0755, 0);
	link_to("looptree/self", ".", 0);
	/* an embedded libvirt root as the driver leaves it: run/qemu/dbus 0770 */
	dir("embed", 0700, 0);
	dir("embed/run", 0755, 0);
	dir("embed/run/qemu", 0755, 0);
	dir("embed/run/qemu/dbus", 0770, 0);
	dir("embed2", 0700, 0);
	dir("embed2/run", 0755, 0);
	dir("embed2/run/qemu", 0755, 0);
	dir_gid("embed2/run/qemu/dbus", 0770, 0, NOBODY);
	dir("embed3", 0700, 0);
	dir("embed3/run", 0755, 0);
	dir("embed3/run/qemu", 0755, 0);
	dir("embed3/run/qemu/dbus", 0770, 0);
	acl("embed3/run/qemu/dbus", 0x02, NOBODY, 7, 7);
	dir("embed4", 0700, 0);
	dir("embed4/run", 0770, 0);
	/* a running domain's monitor socket, mode 0775 as QEMU makes it */
	dir("embed5", 0700, 0);
	dir("embed5/d", 0750, 0);
	sock("embed5/d/monitor.sock", 0775, 0);
	dir("embed6", 0700, 0);
	sock("embed6/monitor.sock", 0755, NOBODY);
	/* a -r tree whose library paths are walked (gp_trust_lib_paths) */
	dir("lib", 0755, 0);
	dir("lib/d", 0755, 0);
	file("lib/d/ok.conf", 0644, 0);
	assert_int_equal(mkfifo(at("lib/d/.fifo"), 0600), 0);
	file("lib/theirs", 0644, NOBODY);
	assert_int_equal(mkfifo(at("lib/fifo"), 0600), 0);
	link_to("lib/up", "../ok/p.ini", 0);
	link_to("lib/up-ww", "../ww/none", 0);
	link_to("lib/abs", at("ok/none"), 0);
	link_to("lib/loop", "loop", 0);
	dir("lib/m", 0755, 0);
	file("lib/m/modules.dep", 0644, 0);
	file("lib/m/other", 0644, NOBODY);
	dir("lib/s", 0755, 0);
	dir("lib/s/1", 0755, 0);
	file("lib/s/1/address", 0644, 0);
	dir("lib/s2", 0755, 0);
	file("lib/s2/address", 0644, NOBODY);
	link_to("lib/s/2", "../s2", 0);
	dir("lib/nobody", 0755, NOBODY);
	dir("lib/rootgroup", 0775, 0);
	link_to("lib-link", "lib", 0);
	link_to("lib/in", "d/../d/ok.conf", 0);
	link_to("lib/in-s2", "s", 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

static void test_files(void **state)
{
	(void)state;
	assert_int_equal(gp_trust(at("ok/p.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("ok/ro.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("ok/theirs.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "is owned by uid 65534, not root"));
	assert_int_equal(gp_trust(at("ok/gw.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "writable by group or others (mode 664)"));
	assert_int_equal(gp_trust(at("ok/ow.ini"), GP_TRUST_FILE), -EPERM);
	/* a member of root's group is another user too (OpenSSH's StrictModes) */
	assert_int_equal(gp_trust(at("ok/rootgroup.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "rootgroup.ini' is writable by group or others"));
	/* with an ACL the group bits are its mask: a named user may write (mode 664) */
	assert_int_equal(gp_trust(at("ok/acl-user.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "writable by group or others (mode 664)"));
	assert_int_equal(gp_trust(at("ok/acl-group.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok/acl-root.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok/acl-read.ini"), GP_TRUST_FILE), -EPERM);
	/* the mask takes write away from all: then the ACL grants nobody write */
	assert_int_equal(gp_trust(at("ok/acl-masked.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("ok/fifo"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "not a regular file"));
	assert_int_equal(gp_trust(at("ok"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok/none.ini"), GP_TRUST_FILE), -ENOENT);
}

static void test_directories(void **state)
{
	(void)state;
	assert_int_equal(gp_trust(at("ww/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "/ww' is writable by group or others"));
	assert_int_equal(gp_trust(at("gw/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("rootgroup/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "/rootgroup' is writable by group or others"));
	assert_int_equal(gp_trust(at("acldir/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "/acldir' is writable by group or others"));
	assert_int_equal(gp_trust(at("nobody/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "/nobody' is owned by uid 65534"));
	/* sticky (as /tmp): others cannot replace root's entries, only their own */
	assert_int_equal(gp_trust(at("sticky/p.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("sticky/theirs.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok"), GP_TRUST_DIR), 0);
	assert_int_equal(gp_trust(at("ok/p.ini"), GP_TRUST_DIR), -EPERM);
	/* ".." goes up from where the walk is, and what it passed counts */
	assert_int_equal(gp_trust(at("ok/../ok/./p.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("ww/../ok/p.ini"), GP_TRUST_FILE), -EPERM);
}

static void test_links(void **state)
{
	(void)state;
	assert_int_equal(gp_trust(at("ok/root-link.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("ok/abs-link.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("ok/their-link.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "their-link.ini' is owned by uid 65534"));
	assert_int_equal(gp_trust(at("ok/to-their-link.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok/to-ww.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok/dirlink/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("sticky/their-dirlink/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("ok/loop.ini"), GP_TRUST_FILE), -ELOOP);
}

static void test_relative(void **state)
{
	char cwd[256];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(at("ok")), 0);
	assert_int_equal(gp_trust("p.ini", GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust("./root-link.ini", GP_TRUST_FILE), 0);
	assert_int_equal(chdir(at("ww")), 0);
	/* the working directory's own chain counts */
	assert_int_equal(gp_trust("p.ini", GP_TRUST_FILE), -EPERM);
	assert_int_equal(chdir(cwd), 0);
}

static void test_tree(void **state)
{
	(void)state;
	assert_int_equal(gp_trust(at("tree"), GP_TRUST_TREE), 0);
	assert_int_equal(gp_trust(at("badtree"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "qemu.conf' is owned by uid 65534"));
	assert_int_equal(gp_trust(at("linktree"), GP_TRUST_TREE), -EPERM);
	assert_int_equal(gp_trust(at("ok/p.ini"), GP_TRUST_TREE), -EPERM);
}

/* A tree is what its path leads to, and all of it is root's alone, sticky or not. */
static void test_tree_strict(void **state)
{
	(void)state;
	/* through a link: the directory it leads to, and everything in it */
	assert_int_equal(gp_trust(at("tree-link"), GP_TRUST_TREE), 0);
	assert_int_equal(gp_trust(at("badtree-link"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "badtree/etc/qemu.conf' is owned by uid 65534"));
	/* sticky (as /run/lock): anyone may add entries after the check */
	assert_int_equal(gp_trust(at("sticky-link"), GP_TRUST_TREE), -EPERM);
	assert_non_null(
		strstr(gp_last_error, "/sticky' is writable by group or others (mode 1777)"));
	assert_non_null(strstr(gp_last_error, "sticky or not"));
	assert_int_equal(gp_trust(at("stickytree"), GP_TRUST_TREE), -EPERM);
	assert_int_equal(gp_trust(at("tree2"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "tree2/tmp' is writable by group or others"));
	/* a sticky directory on the way is still fine, as for files */
	assert_int_equal(gp_trust(at("sticky/p.ini"), GP_TRUST_FILE), 0);
	/* root's group writes: refused */
	assert_int_equal(gp_trust(at("tree3"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "tree3/run' is writable by group or others"));
	/* a link inside leads into a directory: that one is walked too */
	assert_int_equal(gp_trust(at("dirlinks"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "badtree/etc/qemu.conf' is owned by uid 65534"));
	assert_int_equal(gp_trust(at("goodlinks"), GP_TRUST_TREE), 0);
	assert_int_equal(gp_trust(at("looptree"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "more than 8 deep"));
	/* a FIFO hangs who reads it, a node runs its driver's open(): root's or not */
	assert_int_equal(gp_trust(at("fifotree"), GP_TRUST_TREE), -EPERM);
	assert_non_null(
		strstr(gp_last_error, "fifotree/etc/qemu.conf' is a device node or a FIFO"));
	assert_int_equal(gp_trust(at("nodetree"), GP_TRUST_LIBVIRT), -EPERM);
	assert_non_null(
		strstr(gp_last_error, "nodetree/vfio-rebind.sh' is a device node or a FIFO"));
}

/* libvirt's embedded root: its own run/qemu/dbus (0770, root's group) is let pass, alone */
static void test_tree_libvirt(void **state)
{
	(void)state;
	assert_int_equal(gp_trust(at("embed"), GP_TRUST_LIBVIRT), 0);
	assert_int_equal(gp_trust(at("embed"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "embed/run/qemu/dbus' is writable by group"));
	assert_int_equal(gp_trust(at("embed2"), GP_TRUST_LIBVIRT), -EPERM);
	assert_non_null(strstr(gp_last_error, "embed2/run/qemu/dbus' is writable by group"));
	assert_int_equal(gp_trust(at("embed3"), GP_TRUST_LIBVIRT), -EPERM);
	assert_non_null(strstr(gp_last_error, "dbus' has an ACL that lets another user"));
	assert_int_equal(gp_trust(at("embed4"), GP_TRUST_LIBVIRT), -EPERM);
	assert_non_null(strstr(gp_last_error, "embed4/run' is writable by group"));
	assert_int_equal(gp_trust(at("sticky"), GP_TRUST_LIBVIRT), -EPERM);
	/* a running domain's monitor: a socket of root's passes whatever its
	 * mode, in a libvirt root alone; another user's does not */
	assert_int_equal(gp_trust(at("embed5"), GP_TRUST_LIBVIRT), 0);
	assert_int_equal(gp_trust(at("embed5"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "monitor.sock' is writable by group"));
	assert_int_equal(gp_trust(at("embed6"), GP_TRUST_LIBVIRT), -EPERM);
	assert_non_null(strstr(gp_last_error, "monitor.sock' is owned by uid 65534"));
}

/* one path (and its entries) under the tree at "lib", as a library resolves it */
static int lib_walk(const char *root, const char *path, const char *entries, const char *name)
{
	struct gp_lib_path p = { .entries = entries, .name = name };

	snprintf(p.path, sizeof(p.path), "%s", path);
	return gp_trust_lib_paths(at(root), &p, 1);
}

/* the paths a library opens under -r: only root may be able to change them */
static void test_lib_paths(void **state)
{
	(void)state;
	/* dot entries are passed over, as libpci and libkmod pass over them */
	assert_int_equal(lib_walk("lib", "/d", "", NULL), 0);
	/* a name not there, in a directory only root can change */
	assert_int_equal(lib_walk("lib", "/none/x", NULL, NULL), 0);
	assert_int_equal(lib_walk("lib", "/fifo", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/fifo' is a device node, a FIFO or a socket"));
	assert_int_equal(lib_walk("lib", "/theirs", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/theirs' is owned by uid 65534"));
	/* nobody's directory: a name in it can appear at any time */
	assert_int_equal(lib_walk("lib", "/nobody/x", NULL, NULL), -EPERM);
	/* nor root's group's: a member could race a FIFO in (libkmod would hang on it) */
	assert_int_equal(lib_walk("lib", "/rootgroup/x", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/rootgroup' is writable by group 0 (mode 775)"));
	/* links are walked where they lead, in the tree */
	assert_int_equal(lib_walk("lib", "/in", NULL, NULL), 0);
	assert_int_equal(lib_walk("lib", "/in-s2", "", "address"), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/s2/address' is owned by uid 65534"));
	/* and never out of it, relative or absolute, to root's files too */
	assert_int_equal(lib_walk("lib", "/up", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "the link '"));
	assert_non_null(strstr(gp_last_error, "lib/up' leads out of the tree"));
	assert_int_equal(lib_walk("lib", "/up-ww", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/up-ww' leads out of the tree"));
	assert_int_equal(lib_walk("lib", "/abs", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/abs' leads out of the tree"));
	assert_int_equal(lib_walk("lib", "/loop", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/loop': Too many levels of symbolic links"));
	/* entries: those the library opens, and a name in each */
	assert_int_equal(lib_walk("lib", "/m", "modules.", NULL), 0);
	assert_int_equal(lib_walk("lib", "/m", "", NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/m/other' is owned by uid 65534"));
	assert_int_equal(lib_walk("lib", "/s", "", NULL), 0);
	assert_int_equal(lib_walk("lib", "/s", "", "address"), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib/s2/address' is owned by uid 65534"));
	/* named through a link, entries are named under the path as given */
	assert_int_equal(lib_walk("lib-link", "/theirs", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "lib-link/theirs' is owned by uid 65534"));
	/* the root's own chain: gp_trust's */
	assert_int_equal(lib_walk("ww", "/p.ini", NULL, NULL), -EPERM);
	assert_non_null(strstr(gp_last_error, "refusing '"));
}

/*
 * A link in /proc (/proc/PID/root, cwd, fd/N) is resolved by the kernel in
 * the process's own mount namespace, not by its text: never followed.
 */
static void test_proc_links(void **state)
{
	char path[512], lib[512];
	struct gp_lib_path p = { "/s", "", "address" };

	(void)state;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)getpid(), at("ok/p.ini"));
	assert_int_equal(gp_trust(at("ok/p.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(path, GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "/root' is a link in /proc"));
	snprintf(path, sizeof(path), "/proc/self/root%s", at("ok/p.ini"));
	assert_int_equal(gp_trust(path, GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "'/proc/self' is a link in /proc"));
	snprintf(lib, sizeof(lib), "/proc/%d/cwd/../../../..%s", (int)getpid(), at("lib"));
	assert_int_equal(gp_trust_lib_paths(at("lib"), &p, 1), -EPERM); /* s2: uid 65534 */
	p.name = NULL;
	assert_int_equal(gp_trust_lib_paths(at("lib"), &p, 1), 0);
	assert_int_equal(gp_trust_lib_paths(lib, &p, 1), -EPERM);
	assert_non_null(strstr(gp_last_error, "/cwd' is a link in /proc"));
}

/* FUSE: owners and modes are what its server says (no FUSE mount here to try) */
static void test_foreign_fs(void **state)
{
	struct statfs sf;

	(void)state;
	assert_true(gp_trust_fs_foreign(0x65735546));
	assert_false(gp_trust_fs_foreign(0x01021994)); /* tmpfs */
	assert_false(gp_trust_fs_foreign(0xef53));     /* ext4 */
	assert_int_equal(statfs(top, &sf), 0);
	assert_false(gp_trust_fs_foreign((unsigned long)sf.f_type));
}

/* statfs, but an entry named "fuse..." is on FUSE (none can be mounted here) */
static int fake_statfs(const char *path, struct statfs *sf)
{
	const char *name = strrchr(path, '/');

	if (statfs(path, sf))
		return -1;
	if (name && !strncmp(name, "/fuse", 5))
		sf->f_type = 0x65735546;
	return 0;
}

/*
 * gp_trust's walk asks the fs-type rule of every entry it passes (directory,
 * final file, entries of a tree), not of a link (statfs would follow it):
 * a FUSE mount with allow_other reports root:0644 for a user's file.
 */
static void test_fuse_walk(void **state)
{
	struct gp_lib_path p = { .path = "s" };

	(void)state;
	dir("fw", 0755, 0);
	dir("fw/fusedir", 0755, 0);
	file("fw/fusedir/p.ini", 0644, 0);
	file("fw/fusefile", 0644, 0);
	file("fw/plain", 0644, 0);
	link_to("fw/fuselink", "plain", 0);
	link_to("fw/ln", "fusedir/p.ini", 0);
	dir("fw/tree", 0755, 0);
	dir("fw/tree/fusesub", 0755, 0);
	dir("fw/lib", 0755, 0);
	dir("fw/lib/s", 0755, 0);
	file("fw/lib/s/fuse", 0644, 0);
	gp_trust_statfs = fake_statfs;
	assert_int_equal(gp_trust(at("fw/fusedir/p.ini"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "fw/fusedir' is on a FUSE filesystem"));
	assert_int_equal(gp_trust(at("fw/fusefile"), GP_TRUST_FILE), -EPERM);
	assert_non_null(strstr(gp_last_error, "fw/fusefile' is on a FUSE filesystem"));
	assert_int_equal(gp_trust(at("fw/fusedir"), GP_TRUST_DIR), -EPERM);
	assert_int_equal(gp_trust(at("fw/ln"), GP_TRUST_FILE), -EPERM);
	assert_int_equal(gp_trust(at("fw/tree"), GP_TRUST_TREE), -EPERM);
	assert_non_null(strstr(gp_last_error, "fw/tree/fusesub' is on a FUSE filesystem"));
	assert_int_equal(gp_trust_lib_paths(at("fw/lib"), &p, 1), 0);
	p.name = NULL;
	snprintf(p.path, sizeof(p.path), "s/fuse");
	assert_int_equal(gp_trust_lib_paths(at("fw/lib"), &p, 1), -EPERM);
	assert_non_null(strstr(gp_last_error, "s/fuse' is on a FUSE filesystem"));
	/* a link is on its directory's filesystem: statfs would follow it */
	assert_int_equal(gp_trust(at("fw/fuselink"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("fw/plain"), GP_TRUST_FILE), 0);
	gp_trust_statfs = statfs;
	/* the same entries pass on what they really are on */
	assert_int_equal(gp_trust(at("fw/fusedir/p.ini"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("fw/fusefile"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("fw/ln"), GP_TRUST_FILE), 0);
	assert_int_equal(gp_trust(at("fw/tree"), GP_TRUST_TREE), 0);
	assert_int_equal(gp_trust_lib_paths(at("fw/lib"), &p, 1), 0);
}

/* a rollback acts on a journal's path only where nobody but root can redirect it */
static void test_restore(void **state)
{
	json_object *rec = json_object_new_object();
	struct stat st;

	(void)state;
	json_object_object_add(rec, "path", json_object_new_string(at("nobody/p.ini")));
	json_object_object_add(rec, "type", json_object_new_string("absent"));
	assert_int_equal(gp_fstate_restore(rec), -EPERM);
	assert_int_equal(lstat(at("nobody/p.ini"), &st), 0);
	/* absent then and absent now: nothing to undo, nothing touched, wherever it is */
	json_object_object_add(rec, "path", json_object_new_string(at("nobody/new/p.ini")));
	assert_int_equal(gp_fstate_restore(rec), 0);
	assert_int_equal(lstat(at("nobody/new"), &st), -1);
	assert_int_equal(gp_trust_parent(at("ok/none/none/p.ini")), 0);
	json_object_object_add(rec, "path", json_object_new_string(at("ok/ro.ini")));
	assert_int_equal(gp_fstate_restore(rec), 0);
	assert_int_equal(lstat(at("ok/ro.ini"), &st), -1);
	json_object_put(rec);
}

/* undo of a file written where its directories did not exist removes them, empty ones only */
static void test_restore_dirs(void **state)
{
	json_object *rec, *rec2, *dirs;
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(gp_fstate_record(at("ok/gp/override.d/0000:41:00.0"), &rec), 0);
	dirs = json_object_object_get(rec, "absent_dirs");
	assert_int_equal(json_object_array_length(dirs), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(dirs, 0)),
			    at("ok/gp"));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(dirs, 1)),
			    at("ok/gp/override.d"));
	assert_int_equal(gp_fstate_record(at("ok/gp/rebind"), &rec2), 0);
	/* the writer makes the directories */
	assert_int_equal(gp_write_file(at("ok/gp/override.d/0000:41:00.0"), "vfio-pci", 8, 0644),
			 0);
	assert_int_equal(gp_write_file(at("ok/gp/rebind"), "#!/bin/sh\n", 10, 0755), 0);
	/* in writing order: the directory still holds the other file, then it goes */
	assert_int_equal(gp_fstate_restore(rec2), 0);
	assert_int_equal(gp_fstate_restore(rec), 0);
	assert_int_equal(lstat(at("ok/gp"), &st), -1);
	assert_int_equal(lstat(at("ok"), &st), 0);

	/* a file someone else put there meanwhile keeps its directory */
	assert_int_equal(gp_write_mkdir(at("ok/gp/override.d"), 0755), 0);
	fd = open(at("ok/gp/theirs"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gp_fstate_restore(rec), 0);
	assert_int_equal(lstat(at("ok/gp/override.d"), &st), -1);
	assert_int_equal(lstat(at("ok/gp/theirs"), &st), 0);
	assert_int_equal(unlink(at("ok/gp/theirs")), 0);
	assert_int_equal(rmdir(at("ok/gp")), 0);
	json_object_put(rec);
	json_object_put(rec2);

	/* a file whose directory exists: nothing recorded above it */
	assert_int_equal(gp_fstate_record(at("ok/none.ini"), &rec), 0);
	assert_int_equal(json_object_array_length(json_object_object_get(rec, "absent_dirs")), 0);
	json_object_put(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),	     cmocka_unit_test(test_directories),
		cmocka_unit_test(test_links),	     cmocka_unit_test(test_relative),
		cmocka_unit_test(test_tree),	     cmocka_unit_test(test_restore),
		cmocka_unit_test(test_restore_dirs), cmocka_unit_test(test_lib_paths),
		cmocka_unit_test(test_proc_links),   cmocka_unit_test(test_foreign_fs),
		cmocka_unit_test(test_fuse_walk),    cmocka_unit_test(test_tree_strict),
		cmocka_unit_test(test_tree_libvirt),
	};

	return cmocka_run_group_tests_name("trust", tests, setup, teardown);
}
