// SPDX-License-Identifier: GPL-2.0-or-later
/* Drift against a baseline whose model no loader would give: the walks still end. */
#include <signal.h>
#include <unistd.h>

#include "unit.h"
#include "core/checks.h"
#include "core/drift.h"

static const struct gp_finding *get(const struct gp_report *r, const char *id, const char *subject)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].id, id) && !strcmp(r->items[i].subject, subject))
			return &r->items[i];
	fail_msg("no finding %s for %s", id, subject);
	return NULL;
}

/*
 * A bridge and the GPU below it made each other's parent in the baseline:
 * weighing the ACS drift of a bridge asks which bridges are above a GPU, a
 * walk up from each GPU that used to go round the loop forever.  An alarm
 * ends the process (the test fails) rather than letting it hang.
 */
static void test_parent_loop(void **state)
{
	struct gp_host base, h;
	struct gp_report r = { 0 };
	int bridge, gpu;

	(void)state;
	unit_host("r5350-ready", NULL, &base);
	unit_host("drift-acs", NULL, &h);
	bridge = unit_index(&base, "0000:40:01.1");
	gpu = unit_index(&base, "0000:41:00.0");
	base.devs[bridge].parent = gpu;
	base.devs[gpu].parent = bridge;
	signal(SIGALRM, SIG_DFL);
	alarm(20);
	gp_drift_run(&base, &h, NULL, &r);
	alarm(0);
	/* the bridge in the loop is still above the GPU; the other is not */
	assert_int_equal(get(&r, "drift.acs", "0000:40:01.1")->severity, GP_FAIL);
	assert_int_equal(get(&r, "drift.acs", "0000:80:01.1")->severity, GP_WARN);
	gp_report_release(&r);
	gp_host_release(&h);
	gp_host_release(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_loop),
	};

	return cmocka_run_group_tests_name("drift", tests, NULL, NULL);
}
