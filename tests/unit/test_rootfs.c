// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The safe reader on a hostile tree, with openat2 and with the userspace walk
 * (each test runs twice); the staging tree's parent walk; the redaction of
 * every network owner's secrets.
 */
#define _GNU_SOURCE /* O_PATH */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "core/redact.h"

static char base[64], root[128];

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *target, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_int_equal(symlink(target, path), 0);
}

/* base/outside (a secret), base/root/{etc/ok, abs, rel, fifo, zero, lnk, loop, big} */
static int setup(void **state)
{
	char path[256], outside[128];
	FILE *f;

	(void)state;
	snprintf(base, sizeof(base), "/tmp/gp-rootfs.XXXXXX");
	assert_non_null(mkdtemp(base));
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	put_file(outside, "SECRET\n");
	mkdir(root, 0755);
	snprintf(path, sizeof(path), "%s/etc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/ok", root);
	put_file(path, "ok\n");
	link_to(outside, "abs");
	link_to("../../../../../../../../../../../../../../outside", "rel");
	link_to("/dev/zero", "zero");
	link_to("/etc/ok", "lnk");
	link_to("etc/../../../etc/./ok", "dotdot");
	link_to("loop", "loop");
	link_to("/etc", "elnk");
	snprintf(path, sizeof(path), "%s/fifo", root);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/big", root);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), GP_READ_MAX + 1), 0);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd);
}

static void reads(bool walk)
{
	char buf[64], path[256], *text;
	struct stat st, want;
	int fd = gp_root_open(root);

	gp_root_no_openat2 = walk;
	assert_true(fd >= 0);
	/* links resolve inside the root: absolute, or climbing with .. */
	assert_int_equal(gp_root_read(fd, "/abs", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(gp_root_read(fd, "/rel", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(gp_root_read(fd, "/zero", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(gp_root_read(fd, "/lnk", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "ok\n");
	assert_int_equal(gp_root_read(fd, "/dotdot", buf, sizeof(buf)), 3);
	assert_int_equal(gp_root_read(fd, "/../../etc/ok", buf, sizeof(buf)), 3);
	assert_int_equal(gp_root_read(fd, "/loop", buf, sizeof(buf)), -ELOOP);
	/* a FIFO is refused at once, a file past the bound is too large */
	assert_int_equal(gp_root_read(fd, "/fifo", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(gp_root_slurp(fd, "/big", GP_READ_MAX, &text), -EFBIG);
	assert_null(text);
	assert_int_equal(gp_root_readlink(fd, "/lnk", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "/etc/ok");
	assert_int_equal(gp_root_readlink(fd, "/abs/x", buf, sizeof(buf)), -ENOENT);
	assert_non_null(text = gp_root_read_file(fd, "/etc/../lnk"));
	assert_string_equal(text, "ok\n");
	free(text);
	/* the metadata is the file's that was read (the link's target in the root) */
	snprintf(path, sizeof(path), "%s/etc/ok", root);
	assert_int_equal(stat(path, &want), 0);
	memset(&st, 0, sizeof(st));
	assert_int_equal(gp_root_slurp_stat(fd, "/lnk", GP_READ_MAX, &text, &st), 3);
	assert_string_equal(text, "ok\n");
	free(text);
	assert_true(st.st_ino == want.st_ino && st.st_dev == want.st_dev);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 3);
	assert_int_equal(gp_root_slurp_stat(fd, "/abs", GP_READ_MAX, &text, &st), -ENOENT);
	assert_null(text);
	assert_int_equal(gp_root_slurp_stat(fd, "/fifo", GP_READ_MAX, &text, &st), -EINVAL);
	/* what libpci would open by itself */
	assert_int_equal(gp_root_guard(fd, root, "/etc/ok"), 0);
	assert_int_equal(gp_root_guard(fd, root, "/lnk"), -EXDEV);
	assert_int_equal(gp_root_guard(fd, root, "/abs"), -EXDEV);
	assert_int_equal(gp_root_guard(fd, root, "/fifo"), -EINVAL);
	assert_int_equal(gp_root_guard(fd, root, "/nothing"), 0);
	gp_root_close(fd);
	gp_root_no_openat2 = false;
}

/* One name read through a directory opened once, and through the whole path: the same. */
static void same_in_dir(int fd, const char *dir, const char *name)
{
	char path[256], a[64], b[64];
	struct stat sa, sb;
	struct gp_root_dir d;
	ssize_t na, nb;
	int ra, rb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	gp_root_dir(fd, dir, &d);
	na = gp_root_dir_read(&d, name, a, sizeof(a));
	nb = gp_root_read(fd, path, b, sizeof(b));
	assert_int_equal(na, nb);
	if (na >= 0)
		assert_string_equal(a, b);
	na = gp_root_dir_readlink(&d, name, a, sizeof(a));
	nb = gp_root_readlink(fd, path, b, sizeof(b));
	assert_int_equal(na, nb);
	if (na >= 0)
		assert_string_equal(a, b);
	ra = gp_root_dir_stat(&d, name, &sa);
	rb = gp_root_stat(fd, path, &sb);
	assert_int_equal(ra, rb);
	if (!ra)
		assert_int_equal(sa.st_ino, sb.st_ino);
	gp_root_dir_close(&d);
}

/* The guard of a directory's names, dir resolved once, against each whole path's. */
static void same_guard(int fd, const char *dir, const char *const *names, int want_bad)
{
	char path[256];
	int bad, rc, want = 0, i;

	rc = gp_root_guard_dir(fd, root, dir, names, &bad);
	for (i = 0; names[i] && !want; i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, names[i][0] ? "/" : "", names[i]);
		want = gp_root_guard(fd, root, path);
	}
	assert_int_equal(rc, want);
	assert_int_equal(bad, want ? i - 1 : -1);
	assert_int_equal(bad, want_bad);
}

static void dir_reads(bool walk)
{
	static const char *const names[] = { "abs",  "rel",  "zero", "lnk",	"dotdot", "loop",
					     "fifo", "elnk", "etc",  "nothing", "ok",	  NULL };
	static const char *const fine[] = { "", "etc", "nothing", "big", NULL };
	static const char *const fifo[] = { "etc", "fifo", "lnk", NULL };
	static const char *const links[] = { "nothing", "lnk", NULL };
	static const char *const in_link[] = { "", "ok", NULL };
	static const char *const below_link[] = { "nothing", "ok", NULL };
	int fd = gp_root_open(root), i;

	gp_root_no_openat2 = walk;
	for (i = 0; names[i]; i++) {
		same_in_dir(fd, "/", names[i]);
		same_in_dir(fd, "/etc/..", names[i]);
		same_in_dir(fd, "/elnk", names[i]); /* an absolute link, inside the root */
		same_in_dir(fd, "/nothing", names[i]);
		same_in_dir(AT_FDCWD, root, names[i]); /* the live host's way */
	}
	same_guard(fd, "/", fine, -1);
	same_guard(fd, "/", fifo, 1);
	same_guard(fd, "/", links, 1);
	same_guard(fd, "/elnk", in_link, 0);
	same_guard(fd, "/elnk", below_link, 1);
	same_guard(fd, "/nothing", in_link, -1);
	gp_root_close(fd);
	gp_root_no_openat2 = false;
}

static void test_dir_openat2(void **state)
{
	(void)state;
	dir_reads(false);
}

static void test_dir_walk(void **state)
{
	(void)state;
	dir_reads(true);
}

static void test_openat2(void **state)
{
	(void)state;
	reads(false);
}

static void test_walk(void **state)
{
	(void)state;
	reads(true);
}

/*
 * Which directories the one-lookup reads trust (rootfs.c's header), and the
 * same answers either way: a regular file read, a FIFO refused, not opened.
 */
static void reads_of(const char *dir, enum gp_root_trust want, bool noted)
{
	static const char *const names[] = { "file", "fifo", "nothing", "empty", "long" };
	struct gp_root_dir d;
	struct stat st;
	char buf[16];
	size_t i;

	gp_root_dir(AT_FDCWD, dir, &d);
	assert_true(d.fd >= 0);
	assert_int_equal(d.trust, want);
	/* a check's fstatat kept for the reader only in a LOCAL directory */
	for (i = 0; noted && i < sizeof(names) / sizeof(names[0]); i++)
		gp_root_dir_note(&d, names[i], &st);
	assert_int_equal(d.nseen, noted && want == GP_TRUST_LOCAL ? 5 : 0);
	if (want != GP_TRUST_KERNFS) {
		assert_int_equal(gp_root_dir_read(&d, "file", buf, sizeof(buf)), 3);
		assert_string_equal(buf, "ok\n");
		assert_int_equal(gp_root_dir_read(&d, "fifo", buf, sizeof(buf)), -EINVAL);
		assert_int_equal(gp_root_dir_read(&d, "nothing", buf, sizeof(buf)), -ENOENT);
		assert_int_equal(gp_root_dir_read(&d, "empty", buf, sizeof(buf)), 0);
		assert_string_equal(buf, "");
		assert_int_equal(gp_root_dir_read(&d, "long", buf, sizeof(buf)), 15);
		assert_string_equal(buf, "0123456789abcde");
		assert_int_equal(gp_root_dir_read(&d, "long", buf, 4), 3);
		assert_string_equal(buf, "012");
	}
	gp_root_dir_close(&d);
}

/* the same answers with and without the names noted first */
static void trust_of(const char *dir, enum gp_root_trust want)
{
	reads_of(dir, want, false);
	reads_of(dir, want, true);
}

static void test_dir_trust(void **state)
{
	char dir[64] = "/dev/shm/gp-trust.XXXXXX", path[96];

	(void)state;
	assert_non_null(mkdtemp(dir)); /* tmpfs, root's, 0700 */
	snprintf(path, sizeof(path), "%s/file", dir);
	put_file(path, "ok\n");
	snprintf(path, sizeof(path), "%s/empty", dir);
	put_file(path, "");
	snprintf(path, sizeof(path), "%s/long", dir);
	put_file(path, "0123456789abcdefghij\n");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	trust_of(dir, GP_TRUST_LOCAL);
	assert_int_equal(chmod(dir, 0775), 0);
	trust_of(dir, GP_TRUST_NONE);
	assert_int_equal(chmod(dir, 0757), 0);
	trust_of(dir, GP_TRUST_NONE);
	assert_int_equal(chmod(dir, 0755), 0);
	trust_of(dir, GP_TRUST_LOCAL);
	assert_int_equal(chown(dir, 65534, 0), 0); /* someone else's */
	trust_of(dir, GP_TRUST_NONE);
	trust_of("/sys/bus", GP_TRUST_KERNFS);
	trust_of("/proc/self", GP_TRUST_KERNFS);
	snprintf(path, sizeof(path), "rm -r '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* A link's text resolved by hand, only in the forms the kernel's walk agrees with. */
static void test_lexical(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(gp_root_lexical("/sys/bus/pci/devices",
					 "../../../devices/pci0000:00/0000:00:01.0", out,
					 sizeof(out)),
			 0);
	assert_string_equal(out, "/sys/devices/pci0000:00/0000:00:01.0");
	assert_int_equal(gp_root_lexical("/a/", "..", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(gp_root_lexical("/", "x/y", out, sizeof(out)), 0);
	assert_string_equal(out, "/x/y");
	assert_int_equal(gp_root_lexical("/a", "../..", out, sizeof(out)),
			 -EINVAL); /* above the root */
	assert_int_equal(gp_root_lexical("/a", "b/./c", out, sizeof(out)), -EINVAL);
	assert_int_equal(gp_root_lexical("/a", "b//c", out, sizeof(out)), -EINVAL);
	assert_int_equal(gp_root_lexical("/a", "/etc", out, sizeof(out)), -EINVAL);
	assert_int_equal(gp_root_lexical("a", "b", out, sizeof(out)), -EINVAL);
	assert_int_equal(gp_root_lexical("/a", "bcdefgh", out, 8), -ENAMETOOLONG);
}

/* d's directory is the one the safe path opens for dir/name. */
static void same_dir(int fd, const struct gp_root_dir *d, const char *dir, const char *name)
{
	char path[256];
	struct stat a, b;
	int want;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	want = gp_root_openat(fd, path, O_PATH | O_DIRECTORY);
	assert_true(want >= 0 && d->fd >= 0);
	assert_int_equal(fstat(want, &a), 0);
	assert_int_equal(fstat(d->fd, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	assert_string_equal(d->path, path);
	close(want);
}

/*
 * gp_root_dir_at_link: by hand where nothing on the way is a link, the safe
 * path otherwise (a link in the directories, a text above the root, no
 * openat2), and the same directory either way.
 */
static void test_dir_at_link(void **state)
{
	static const char *const dirs[] = { "devs", "real", "real/p", "real/p/x", "real/p/x/g" };
	char path[256], real[256], link[64];
	struct gp_root_dir devs, d;
	struct stat st;
	int fd = gp_root_open(root);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	link_to("real", "real2");
	link_to("../real/p/x", "devs/x");
	link_to("../real2/p/x", "devs/y");
	link_to("../../../../real/p/x", "devs/z");
	link_to("../../../real/p/x/g", "real/p/x/grp");
	gp_root_dir(fd, "/devs", &devs);
	assert_true(gp_root_dir_plain(&devs));
	gp_root_dir_at_link(&devs, true, "x", "../real/p/x", 1, &d, real, sizeof(real));
	assert_string_equal(real, "/real/p/x");
	same_dir(fd, &d, "/devs", "x");
	/* a link below it: its text from the real path, the last name not followed */
	assert_int_equal(gp_root_lexical(real, "../../../real/p/x/g", link, sizeof(link)), 0);
	assert_int_equal(gp_root_stat_plain(fd, link, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(gp_root_stat_plain(fd, "/real/p/x/grp", &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	gp_root_dir_close(&d);
	/* a link among the directories on the way: the safe path, the same answer */
	gp_root_dir_at_link(&devs, true, "y", "../real2/p/x", 1, &d, real, sizeof(real));
	assert_string_equal(real, "");
	same_dir(fd, &d, "/devs", "y");
	gp_root_dir_close(&d);
	/* above the root: RESOLVE_IN_ROOT's answer, not a guess */
	gp_root_dir_at_link(&devs, true, "z", "../../../../real/p/x", 1, &d, real, sizeof(real));
	assert_string_equal(real, "");
	same_dir(fd, &d, "/devs", "z");
	gp_root_dir_close(&d);
	gp_root_no_openat2 = true;
	gp_root_dir_at_link(&devs, true, "x", "../real/p/x", 1, &d, real, sizeof(real));
	assert_string_equal(real, "");
	same_dir(fd, &d, "/devs", "x");
	gp_root_dir_close(&d);
	gp_root_no_openat2 = false;
	gp_root_dir_close(&devs);
	gp_root_dir(fd, "/real2/p", &devs);
	assert_false(gp_root_dir_plain(&devs));
	gp_root_dir_close(&devs);
	gp_root_close(fd);
}

/* Without a root (the profile, the templates): no FIFO, no device. */
static void test_no_root(void **state)
{
	char buf[16], path[256];

	(void)state;
	assert_int_equal(gp_root_read(AT_FDCWD, "/dev/zero", buf, sizeof(buf)), -EINVAL);
	snprintf(path, sizeof(path), "%s/fifo", root);
	assert_int_equal(gp_root_read(AT_FDCWD, path, buf, sizeof(buf)), -EINVAL);
	assert_null(gp_read_file(path));
	snprintf(path, sizeof(path), "%s/abs", root);
	assert_int_equal(gp_root_read(AT_FDCWD, path, buf, sizeof(buf)), 7);
}

/* The staging tree: no link in it is followed, not even one inside it. */
static void test_mkparent(void **state)
{
	const char *name;
	int fd = open(root, O_PATH | O_DIRECTORY), d;

	(void)state;
	assert_true(fd >= 0);
	d = gp_root_mkparent(fd, "/new/dir/file", &name);
	assert_true(d >= 0);
	assert_string_equal(name, "file");
	close(d);
	assert_true(gp_root_mkparent(fd, "/abs/x", &name) < 0);
	assert_true(gp_root_mkparent(fd, "/lnk/x", &name) < 0);
	assert_true(gp_root_mkparent(fd, "/new/../etc/x", &name) < 0);
	close(fd);
}

static void redacts(const char *path, const char *text, const char *kept)
{
	char *out = gp_net_redact(path, text);

	if (strstr(out, "hunter2") || !strstr(out, kept))
		fail_msg("%s:\n%s", path, out);
	free(out);
}

static void test_redact(void **state)
{
	(void)state;
	redacts("/etc/network/interfaces",
		"iface wlan0 inet dhcp\n  wpa-ssid x\n  wpa-psk hunter2\n"
		"  # wpa-psk hunter2old\n  wireless-key hunter2\n  wpa-password hunter2\n"
		"iface ens1f0np0 inet manual\n",
		"iface ens1f0np0 inet manual\n");
	redacts("/etc/NetworkManager/system-connections/w.nmconnection",
		"[connection]\ninterface-name=ens1f0np0\n[wifi-security]\npsk=hunter2\n"
		"[802-1x]\nidentity=bob\npassword=hunter2\nprivate-key-password=hunter2\n"
		"[vpn-secrets]\nanything=hunter2\n[wireguard]\nprivate-key=hunter2\n"
		"[wireguard-peer.abc]\npreshared-key=hunter2\n[macsec]\nmka-cak=hunter2\n"
		"[gsm]\npin=hunter2\n",
		"interface-name=ens1f0np0\n");
	redacts("/etc/netplan/01.yaml",
		"network:\n  ethernets:\n    ens1f0np0: {}\n  wifis:\n    w:\n      "
		"access-points:\n"
		"        \"home\":\n          password: \"hunter2\"\n        corp:\n          "
		"auth:\n"
		"            password: hunter2\n            client-key-password: |\n"
		"              hunter2\n  tunnels:\n    wg0:\n      keys:\n        private: "
		"hunter2\n"
		"      peers:\n        - keys: {public: a, shared: hunter2}\n",
		"    ens1f0np0: {}\n");
	redacts("/etc/systemd/network/wg.netdev",
		"[NetDev]\nName=wg0\n[WireGuard]\nPrivateKey=hunter2\n[WireGuardPeer]\n"
		"PresharedKey=hunter2\n[MACsecTransmitAssociation]\nKey=hunter2\n",
		"Name=wg0\n");
	redacts("/etc/systemd/network/p.network", "[Match]\nName=ens1f0np0\n", "Name=ens1f0np0\n");
}

/* ifupdown's hooks run shell commands: a secret can be any of their words. */
static void test_redact_hooks(void **state)
{
	static const char *const hooks[] = {
		"  pre-up wpa_passphrase home hunter2 > /run/wpa.conf\n",
		"  up iwconfig wlan0 key s:hunter2\n",
		"\tpost-up iwconfig wlan0 enc hunter2\n",
		"  down /usr/local/sbin/vpn --wpa-psk=hunter2\n",
		"  pre-down wpa_cli set_network 0 wireless-key hunter2\n",
		"  post-down echo hunter2 | chpasswd\n",
		"  # up iwconfig wlan0 key hunter2old\n",
		"  up wpa_passphrase \\\n  home hunter2\n",
		/* commented out twice, or with both marks */
		"  ## up iwconfig wlan0 key hunter2dbl\n",
		"  #;pre-up wpa_passphrase home hunter2semi\n",
		"# # wpa-psk hunter2spaced\n",
	};
	char text[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		snprintf(text, sizeof(text),
			 "iface wlan0 inet dhcp\n%siface ens1f0np0 inet manual\n", hooks[i]);
		redacts("/etc/network/interfaces.d/wlan0", text, "iface ens1f0np0 inet manual\n");
	}
	/* the hook stays, its command goes */
	redacts("/etc/network/interfaces", "iface w inet dhcp\n  up iwconfig w key hunter2\n",
		"  up REDACTED\n");
	/* a word that only starts like a hook is no hook */
	redacts("/etc/network/interfaces", "iface w inet dhcp\n  upx a b\n", "  upx a b\n");
}

/* What a line scanner could misread: continuations, YAML's other spellings. */
static void test_redact_forms(void **state)
{
	(void)state;
	redacts("/etc/systemd/network/wg.netdev",
		"[NetDev]\nName=wg0\n[WireGuard]\nPrivateKey=\\\nyAnzhunter2Bmk=\n", "Name=wg0\n");
	redacts("/etc/systemd/network/wg.netdev", "[NetDev]\nName=wg0\nPrivate\\\nKey=hunter2\n",
		"Name=wg0\n");
	redacts("/etc/NetworkManager/system-connections/w.nmconnection",
		"[connection]\ninterface-name=ens1f0np0\n[wifi]\npsk=a=hunter2\n",
		"interface-name=ens1f0np0\n");
	redacts("/etc/network/interfaces",
		"iface wlan0 inet dhcp\n  wpa-psk \\\n  hunter2value\n  wireless-k\\\n"
		"ey hunter2\niface ens1f0np0 inet manual\n",
		"iface ens1f0np0 inet manual\n");
	redacts("/etc/netplan/01.yaml",
		"network: {wifis: {wlan0: {access-points: {home: {password: hunter2flow}}}}}\n",
		"network:");
	redacts("/etc/netplan/01.yaml",
		"network:\n  bonds:\n    bond0:\n      interfaces: [ens1f0np0, ens1f1np1]\n"
		"  wifis:\n    w:\n      access-points:\n        home: {password: hunter2}\n"
		"        \"pa\\x73sword\": hunter2\n        'pa''ssword': hunter2\n"
		"        ? password\n        : hunter2\n        x: &a hunter2\n"
		"        p: *a\n        q: !!str hunter2\n",
		"interfaces: [ens1f0np0, ens1f1np1]\n");
	redacts("/etc/netplan/01.yaml",
		"network: {wifis: {w: {access-points: {h: {\n"
		"password: hunter2}}}}}\n",
		"network:");
	redacts("/etc/netplan/01.yaml",
		"network:\n  wifis:\n    w:\n      access-points:\n        h:\n"
		"          password: \"hunter2\n  continued-hunter2\"\n",
		"network:");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat2),	     cmocka_unit_test(test_walk),
		cmocka_unit_test(test_dir_openat2),  cmocka_unit_test(test_dir_walk),
		cmocka_unit_test(test_no_root),	     cmocka_unit_test(test_mkparent),
		cmocka_unit_test(test_dir_trust),    cmocka_unit_test(test_redact),
		cmocka_unit_test(test_redact_hooks), cmocka_unit_test(test_redact_forms),
		cmocka_unit_test(test_lexical),	     cmocka_unit_test(test_dir_at_link),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
