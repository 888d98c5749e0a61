// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The deadline on blocking sysfs writes: a FIFO without a reader blocks the
 * writer as a busy GPU's unbind does; the write must give up in time.
 */
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "act/apply.h"
#include "sys/kmod.h"
#include "act/vfio.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_deadline(void **state)
{
	char dir[] = "/tmp/gp-fifo.XXXXXX", fifo[64], file[64];
	double t0;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/unbind", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	setenv("GPUPROV_UNBIND_TIMEOUT", "0.3", 1);
	t0 = now();
	rc = gp_write_deadline(fifo, "0000:41:00.0");
	assert_int_equal(rc, -ETIMEDOUT);
	assert_true(now() - t0 < 2.0);
	/* a write that can happen happens, and its error comes back */
	snprintf(file, sizeof(file), "%s/ok", dir);
	fclose(fopen(file, "w"));
	assert_int_equal(gp_write_deadline(file, "x"), 0);
	assert_int_equal(gp_write_deadline("/nonexistent/unbind", "x"), -ENOENT);
	unlink(file);
	unlink(fifo);
	rmdir(dir);
}

/* vfio-pci names its driver with dashes; variant drivers register their module name. */
static void test_driver_names(void **state)
{
	char drv[64];

	(void)state;
	gp_vfio_driver_of("vfio_pci", drv, sizeof(drv));
	assert_string_equal(drv, "vfio-pci");
	gp_vfio_driver_of("nvgrace_gpu_vfio_pci", drv, sizeof(drv));
	assert_string_equal(drv, "nvgrace_gpu_vfio_pci");
	gp_vfio_driver_of("mlx5_vfio_pci", drv, sizeof(drv));
	assert_string_equal(drv, "mlx5_vfio_pci");
}

/*
 * device.override and device.bind refuse a driver that is not registered,
 * before writing anything (the kernel would take the name and leave the
 * device without a driver).  Real sysfs; the device need not exist.
 */
static void test_unregistered_driver(void **state)
{
	const struct gp_apply_ctx none = { 0 };
	struct gp_step st;

	(void)state;
	memset(&st, 0, sizeof(st));
	strcpy(st.subject, "0000:ff:1f.7");
	strcpy(st.arg, "gpuprov_no_such_vfio_pci");
	gp_verbosity = 0;
	assert_int_equal(gp_act_override.run(&none, &st), -ENOENT);
	assert_non_null(strstr(gp_last_error, "no PCI driver 'gpuprov_no_such_vfio_pci'"));
	gp_last_error[0] = '\0';
	assert_int_equal(gp_act_bind.run(&none, &st), -ENOENT);
	assert_non_null(strstr(gp_last_error, "no PCI driver 'gpuprov_no_such_vfio_pci'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_driver_names),
		cmocka_unit_test(test_unregistered_driver),
	};

	return cmocka_run_group_tests_name("vfio", tests, NULL, NULL);
}
