// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libvirt loader (sys/virt.c): libvirt is loaded at run time.  Each case
 * runs in a child process, since the first load of a process decides: a
 * library that is not there, one that lacks libvirt's functions (libc), and
 * the real libvirt.so.0, then a connection through it.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "shared/log.h"
#include "sys/virt.h"

/* runs fn in a child; fails the test unless it exits 0 */
static void in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#define CHECK(cond)                                                                \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static int absent(void)
{
	char why[256], digest[24], dwhy[256];
	int running;

	CHECK(gp_virt_load("libgp-absent.so.0", why, sizeof(why)) == -ENOENT);
	CHECK(!strcmp(why, "cannot load libgp-absent.so.0: cannot open shared object file: No "
			   "such file or directory"));
	/* the first load decided: the real name is not tried again */
	CHECK(gp_virt_load(GP_LIBVIRT_SONAME, NULL, 0) == -ENOENT);
	/* every path that wants libvirt says so in words, none crashes */
	CHECK(!gp_virt_connect("qemu:///system", true));
	CHECK(strstr(gp_last_error, "cannot connect to libvirt at 'qemu:///system': cannot load "
				    "libgp-absent.so.0: "));
	CHECK(strstr(gp_last_error, "(is libvirt0 installed?)"));
	CHECK(gp_virt_digest("qemu:///system", "vm", digest, sizeof(digest), &running, dwhy,
			     sizeof(dwhy)) == -1);
	CHECK(!strcmp(dwhy, why) && running == -1 && !digest[0]);
	CHECK(gp_virt_define("qemu:///system", "<domain/>") == -EIO);
	CHECK(gp_virt_undefine("qemu:///system", "vm") == -EIO);
	return 0;
}

static int lacking(void)
{
	char why[256];

	CHECK(gp_virt_load("libc.so.6", why, sizeof(why)) == -ENOSYS);
	CHECK(strstr(why, "libc.so.6 lacks a function gpuprov needs"));
	CHECK(!gp_virt_connect("qemu:///system", false));
	return 0;
}

/* the URI check still comes first: a refused URI never loads libvirt */
static int refused_first(void)
{
	char digest[24], why[256];
	int running;

	CHECK(gp_virt_digest("http://x/", "vm", digest, sizeof(digest), &running, why,
			     sizeof(why)) == -2);
	CHECK(strstr(why, "refusing the libvirt URI 'http://x/'"));
	CHECK(gp_virt_load("libgp-absent.so.0", NULL, 0) == -ENOENT);
	return 0;
}

/*
 * An embedded root anyone may add entries to (sticky, as /run/lock) is
 * refused before libvirt is loaded, let alone given the root.
 */
static int refused_root(void)
{
	char digest[24], why[256], root[] = "/tmp/gp-virt-XXXXXX", uri[300], cmd[300];
	int running, rc;

	CHECK(mkdtemp(root));
	CHECK(!chmod(root, 01777));
	snprintf(uri, sizeof(uri), "qemu:///embed?root=%s", root);
	rc = gp_virt_digest(uri, "vm", digest, sizeof(digest), &running, why, sizeof(why));
	CHECK(rc == -2 && running == -1);
	CHECK(strstr(why, "(mode 1777): sticky or not"));
	CHECK(!gp_virt_connect(uri, false));
	CHECK(strstr(gp_last_error, "(mode 1777): sticky or not"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(!system(cmd));
	CHECK(gp_virt_load("libgp-absent.so.0", NULL, 0) == -ENOENT);
	return 0;
}

/* the real one: loads, and answers through the loaded functions (libvirt's
 * in-process QEMU driver in a scratch root) */
static int present(void)
{
	char why[256] = "", digest[24], dwhy[256], root[] = "/tmp/gp-virt-XXXXXX", uri[300];
	char conf[300];
	int running, rc;
	FILE *f;

	CHECK(gp_virt_load(GP_LIBVIRT_SONAME, why, sizeof(why)) == 0);
	CHECK(!why[0]);
	CHECK(mkdtemp(root));
	/* the driver's files stay root's, as gpuprov's trust check wants */
	snprintf(conf, sizeof(conf), "%s/etc", root);
	CHECK(!mkdir(conf, 0755));
	snprintf(conf, sizeof(conf), "%s/etc/qemu.conf", root);
	CHECK((f = fopen(conf, "w")) != NULL);
	fputs("user = \"root\"\ngroup = \"root\"\n", f);
	CHECK(!fclose(f));
	snprintf(uri, sizeof(uri), "qemu:///embed?root=%s", root);
	rc = gp_virt_digest(uri, "gp-no-such-vm", digest, sizeof(digest), &running, dwhy,
			    sizeof(dwhy));
	if (rc)
		fprintf(stderr, "%s: %d %s\n", uri, rc, dwhy);
	CHECK(rc == 0 && running == 0 && !digest[0]);
	/* what the driver made there (run/qemu/dbus 0770) passes the next time */
	rc = gp_virt_digest(uri, "gp-no-such-vm", digest, sizeof(digest), &running, dwhy,
			    sizeof(dwhy));
	if (rc)
		fprintf(stderr, "%s again: %d %s\n", uri, rc, dwhy);
	CHECK(rc == 0);
	CHECK(gp_virt_define(uri, "<domain type='kvm'/>") == -EINVAL);
	CHECK(strstr(gp_last_error, "libvirt refused the domain: "));
	snprintf(conf, sizeof(conf), "rm -rf '%s'", root);
	return system(conf) != 0;
}

static void test_absent(void **state)
{
	(void)state;
	in_child(absent);
}

static void test_lacking(void **state)
{
	(void)state;
	in_child(lacking);
}

static void test_refused_first(void **state)
{
	(void)state;
	in_child(refused_first);
}

static void test_refused_root(void **state)
{
	(void)state;
	in_child(refused_root);
}

static void test_present(void **state)
{
	(void)state;
	in_child(present);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent),	      cmocka_unit_test(test_lacking),
		cmocka_unit_test(test_refused_first), cmocka_unit_test(test_refused_root),
		cmocka_unit_test(test_present),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
