// SPDX-License-Identifier: GPL-2.0-or-later
/* The one writer (write.c): whole file or nothing, never through a planted link. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "unit.h"
#include "act/apply.h"

static char dir[] = "build/test/write.XXXXXX";

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "build/test/write.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void put(const char *name, const char *text)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void expect(const char *path, const char *text)
{
	char *got = gp_read_file(path);

	assert_non_null(got);
	assert_string_equal(got, text);
	free(got);
}

/* Nothing but the named entries in dir: no temp file left behind. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_mode_exact(void **state)
{
	char path[300];
	struct stat st;
	mode_t old = umask(077);

	(void)state;
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	assert_int_equal(gp_write_file(path, "a\0b", 3, 0644), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, 3); /* NUL bytes are content too */
	assert_int_equal(entries(), 1);
}

/* A file size limit stops the write half-way: an error, the old file intact. */
static void test_short_write(void **state)
{
	struct rlimit lim, small = { 4096, RLIM_INFINITY };
	char path[300], *big = gp_xcalloc(65536, 1);
	void (*old)(int) = signal(SIGXFSZ, SIG_IGN);

	(void)state;
	put("b.conf", "old\n");
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	memset(big, 'x', 65535);
	getrlimit(RLIMIT_FSIZE, &lim);
	small.rlim_max = lim.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(gp_write_file(path, big, 65535, 0644), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &lim);
	signal(SIGXFSZ, old);
	free(big);
	expect(path, "old\n");
	assert_int_equal(entries(), 1);
}

/* The journal's temp file is never a planted link's target. */
static void test_planted_link(void **state)
{
	struct gp_journal j = { 0 };
	char victim[300], link[600];

	(void)state;
	put("victim", "precious\n");
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(j.path, sizeof(j.path), "%s/run.json", dir);
	/* the names earlier writers used, planted */
	snprintf(link, sizeof(link), "%s.tmp", j.path);
	assert_int_equal(symlink("victim", link), 0);
	snprintf(link, sizeof(link), "%s.gpuprov-tmp", j.path);
	assert_int_equal(symlink("victim", link), 0);
	j.doc = json_object_new_object();
	assert_int_equal(gp_journal_save(&j), 0);
	json_object_put(j.doc);
	expect(victim, "precious\n");
	assert_int_equal(entries(), 4);
}

/* A symbolic link at the target is replaced, not followed. */
static void test_target_link(void **state)
{
	char path[300], victim[300];
	struct stat st;

	(void)state;
	put("victim", "precious\n");
	snprintf(path, sizeof(path), "%s/out.xml", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(symlink("victim", path), 0);
	assert_int_equal(gp_write_file(path, "<domain/>\n", 10, 0644), 0);
	expect(victim, "precious\n");
	expect(path, "<domain/>\n");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* Owner, setgid mode and extended attributes, as given (undo restores with them). */
static void test_attrs(void **state)
{
	struct gp_xattr x = { .name = "user.gpuprov-test", .value = "v\0w", .len = 3 };
	struct gp_file_attrs a = {
		.mode = 02750, .owner = true, .uid = 65534, .gid = 65534, .xattrs = &x, .nxattrs = 1
	};
	char path[300], buf[8];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/c", dir);
	assert_int_equal(gp_write_file_attrs(path, "c", 1, &a), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 02750);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	assert_int_equal(getxattr(path, "user.gpuprov-test", buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "v\0w", 3);
}

static void test_link(void **state)
{
	char path[300], target[64];
	ssize_t n;

	(void)state;
	put("l", "a regular file first\n");
	snprintf(path, sizeof(path), "%s/l", dir);
	assert_int_equal(gp_write_link(path, "../elsewhere", NULL), 0);
	n = readlink(path, target, sizeof(target) - 1);
	assert_int_equal(n, 12);
	target[n] = '\0';
	assert_string_equal(target, "../elsewhere");
	assert_int_equal(entries(), 1);
}

/* A directory as target, or no name: an error, nothing created. */
static void test_errors(void **state)
{
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(gp_write_file(path, "x", 1, 0644), -EISDIR);
	assert_int_equal(gp_write_file(dir, "x", 1, 0644), -EISDIR);
	snprintf(path, sizeof(path), "%s/..", dir);
	assert_int_equal(gp_write_file(path, "x", 1, 0644), -EISDIR);
	assert_int_equal(entries(), 0);
}

static char *at(const char *name)
{
	static char path[4][300];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/*
 * Missing directories are made by the writer itself, root's (the caller's)
 * and 0755 whatever the umask, one name at a time: nobody else
 * can make them first.  gp_write_mkdir makes the last with the mode asked.
 */
static void test_makes_dirs(void **state)
{
	mode_t old = umask(077);
	struct stat st;
	char name[300];

	(void)state;
	assert_int_equal(gp_write_file(at("a/b/x.xml"), "x", 1, 0600), 0);
	expect(at("a/b/x.xml"), "x");
	assert_int_equal(stat(at("a/b"), &st), 0);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(at("a/b/x.xml"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(gp_write_mkdir(at("j/journal"), 0700), 0);
	assert_int_equal(stat(at("j/journal"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(at("j"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	umask(old);
	/* a name too long for a directory is refused, never cut to another */
	memset(name, 'n', 260);
	strcpy(name + 260, "/x.xml");
	assert_int_equal(gp_write_file(at(name), "x", 1, 0644), -ENAMETOOLONG);
	name[255] = '\0';
	assert_int_equal(lstat(at(name), &st), -1);
}

/*
 * In a sticky directory anyone may make the directory a path needs, or a
 * link by its name, before root writes: theirs is refused, nothing written
 * there, and the reason names it.
 */
static void test_theirs_refused(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(at("tmp"), 01777), 0);
	assert_int_equal(chmod(at("tmp"), 01777), 0);
	assert_int_equal(mkdir(at("elsewhere"), 0777), 0);
	assert_int_equal(chmod(at("elsewhere"), 0777), 0);
	assert_int_equal(mkdir(at("tmp/new"), 0755), 0);
	assert_int_equal(chown(at("tmp/new"), 65534, 65534), 0);
	assert_int_equal(gp_write_file(at("tmp/new/snap.tar.gz"), "x", 1, 0600), -EPERM);
	assert_non_null(strstr(gp_write_strerror(-EPERM), "tmp/new' is owned by uid 65534"));
	assert_int_equal(lstat(at("tmp/new/snap.tar.gz"), &st), -1);
	assert_int_equal(symlink(at("elsewhere"), at("tmp/ln")), 0);
	assert_int_equal(lchown(at("tmp/ln"), 65534, 65534), 0);
	assert_int_equal(gp_write_file(at("tmp/ln/snap.tar.gz"), "x", 1, 0600), -EPERM);
	assert_non_null(strstr(gp_write_strerror(-EPERM), "tmp/ln' is a link of uid 65534"));
	assert_int_equal(gp_write_mkdir(at("tmp/ln/sub"), 0700), -EPERM);
	assert_int_equal(lstat(at("elsewhere/snap.tar.gz"), &st), -1);
	assert_int_equal(lstat(at("elsewhere/sub"), &st), -1);
	/* a directory of root's that others may write (not sticky): refused too */
	assert_int_equal(gp_write_file(at("elsewhere/x.xml"), "x", 1, 0644), -EPERM);
	assert_non_null(strstr(gp_write_strerror(-EPERM), "writable by group or others"));
	assert_int_equal(lstat(at("elsewhere/x.xml"), &st), -1);
	/* the writer's own errors keep their words */
	assert_string_equal(gp_write_strerror(-ENOSPC), strerror(ENOSPC));
}

/* A link of root's on the way is followed, its target walked the same way. */
static void test_root_link(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(at("real"), 0755), 0);
	assert_int_equal(symlink("real", at("ln")), 0);
	assert_int_equal(gp_write_file(at("ln/new/x.xml"), "x", 1, 0644), 0);
	expect(at("real/new/x.xml"), "x");
	assert_int_equal(lstat(at("ln"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* its target through a directory others may write: refused */
	assert_int_equal(mkdir(at("open"), 0777), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	assert_int_equal(mkdir(at("open/d"), 0755), 0);
	assert_int_equal(symlink("open/d", at("ln2")), 0);
	assert_int_equal(gp_write_file(at("ln2/x.xml"), "x", 1, 0644), -EPERM);
	assert_int_equal(lstat(at("open/d/x.xml"), &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mode_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_makes_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_theirs_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_link, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
