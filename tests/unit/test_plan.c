// SPDX-License-Identifier: GPL-2.0-or-later
/* The plan on fixture hosts: the expected steps, in order, or the blockers. */
#include "unit.h"
#include "core/checks.h"
#include "core/plan.h"
#include "core/templates.h"
#include "host/host.h"
#include "host/owned.h"

struct run {
	struct gp_host h;
	struct gp_profile p;
	struct gp_report r;
	struct gp_plan plan;
	char *templates[GP_PERSIST_FILES];
	const char *accept; /* --accept */
};

static void plan_accepting(struct run *x, const char *host, const char *profile, unsigned groups,
			   const char *accept)
{
	memset(x, 0, sizeof(*x));
	x->accept = accept;
	setenv("GPUPROV_TEMPLATES", "templates", 1);
	assert_int_equal(gp_templates_load(x->templates), 0);
	unit_profile(profile, &x->p);
	unit_host(host, &x->p, &x->h);
	gp_checks_run(&x->h, &x->p, &x->r);
	gp_plan_build(&x->h, &x->p, &x->r, x->templates, NULL, groups, x->accept, &x->plan);
}

static void plan_for(struct run *x, const char *host, const char *profile, unsigned groups)
{
	plan_accepting(x, host, profile, groups, NULL);
}

static void done(struct run *x)
{
	gp_plan_release(&x->plan);
	gp_report_release(&x->r);
	gp_templates_release(x->templates);
	gp_host_release(&x->h);
}

/* "kind subject current->target" of every step, one per line */
static void steps_text(const struct gp_plan *plan, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < plan->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s %s %s->%s\n",
				      gp_step_name(plan->steps[i].kind), plan->steps[i].subject,
				      plan->steps[i].current, plan->steps[i].target);
}

static bool blocked_by(const struct gp_plan *plan, const char *what)
{
	int i;

	for (i = 0; i < plan->nblockers; i++)
		if (strstr(plan->blockers[i], what))
			return true;
	return false;
}

#define A100 "[gpus]\nmatch = 10de:20b5\ncount = 2\n"
#define ALL  (GP_GROUP_VFIO | GP_GROUP_BOND | GP_GROUP_VM)

static void test_ready(void **state)
{
	struct run x;
	char text[2048];

	(void)state;
	plan_for(&x, "r5350-ready", A100, ALL);
	steps_text(&x.plan, text, sizeof(text));
	assert_string_equal(text,
			    "device.override 0000:41:00.0 (none)->vfio-pci\n"
			    "device.unbind 0000:41:00.0 bound to nvidia->unbound\n"
			    "device.bind 0000:41:00.0 nvidia->vfio-pci\n"
			    "device.override 0000:42:00.0 (none)->vfio-pci\n"
			    "device.unbind 0000:42:00.0 bound to nvidia->unbound\n"
			    "device.bind 0000:42:00.0 nvidia->vfio-pci\n"
			    "persist.vfio host absent->overrides, udev rule, boot unit, modprobe "
			    "softdep\n");
	assert_int_equal(x.plan.nblockers, 0);
	assert_string_equal(x.plan.steps[1].arg, "nvidia");
	done(&x);
	/* --only bond: nothing of vfio */
	plan_for(&x, "r5350-ready", A100, GP_GROUP_BOND);
	assert_int_equal(x.plan.n, 0);
	done(&x);
}

static void test_blocked(void **state)
{
	struct run x;

	(void)state;
	plan_for(&x, "group-shared", A100, ALL);
	assert_int_equal(x.plan.nblockers, 1);
	assert_non_null(strstr(x.plan.blockers[0], "iommu.group_shared 0000:41:00.0"));
	done(&x);
	plan_for(&x, "in-use", A100, ALL);
	assert_int_equal(x.plan.nblockers, 2);
	done(&x);
	plan_for(&x, "iommu-off", A100, ALL);
	assert_non_null(strstr(x.plan.blockers[0], "iommu.off"));
	done(&x);
	/* GPUs whose IOMMU group cannot be read are not bound */
	plan_for(&x, "unreadable", "[gpus]\nmatch = 10de:20b5\ncount = 3\n", ALL);
	assert_true(blocked_by(&x.plan, "iommu.group_shared 0000:41:00.0"));
	assert_true(blocked_by(&x.plan, "iommu.group_shared 0000:42:00.0"));
	assert_true(blocked_by(&x.plan, "iommu.group_shared 0000:44:00.0"));
	done(&x);
	/* every failed finding blocks, whichever check it is */
	plan_for(&x, "numa-split", A100, ALL);
	assert_int_equal(x.plan.nblockers, 2);
	assert_non_null(strstr(x.plan.blockers[0], "gpu.numa_split gpus"));
	assert_non_null(strstr(x.plan.blockers[1], "p2p.path 0000:41:00.0-0000:82:00.0: SYS"));
	assert_string_equal(x.plan.acceptable, "gpu.numa_split,p2p.path");
	done(&x);
	plan_for(&x, "bars", A100, ALL);
	assert_int_equal(x.plan.nblockers, 1);
	assert_non_null(strstr(x.plan.blockers[0], "bar.unassigned 0000:41:00.0"));
	done(&x);
	/* ... unless accepted by name, and then listed as accepted */
	plan_accepting(&x, "numa-split", A100, ALL, "gpu.slot,gpu.numa_split");
	assert_int_equal(x.plan.nblockers, 1);
	assert_int_equal(x.plan.naccepted, 1);
	assert_non_null(strstr(x.plan.accepted[0], "gpu.numa_split gpus"));
	done(&x);
	plan_accepting(&x, "numa-split", A100, ALL, "p2p.path gpu.numa_split");
	assert_int_equal(x.plan.nblockers, 0);
	assert_int_equal(x.plan.naccepted, 2);
	done(&x);
	/* a GPU's failure does not block the bond alone */
	plan_for(&x, "numa-split", A100, GP_GROUP_BOND);
	assert_int_equal(x.plan.nblockers, 0);
	done(&x);
}

static void test_companions(void **state)
{
	struct run x;
	char text[2048];

	(void)state;
	plan_for(&x, "group-shared", A100 "companions = bind\n", ALL);
	assert_int_equal(x.plan.nblockers, 0);
	steps_text(&x.plan, text, sizeof(text));
	assert_non_null(
		strstr(text, "device.unbind 0000:41:00.1 bound to snd_hda_intel->unbound\n"));
	assert_non_null(strstr(text, "device.bind 0000:41:00.1 snd_hda_intel->vfio-pci\n"));
	done(&x);
}

/* What the host lives on blocks the plan; --force-mgmt does not lift a taken port. */
static void test_unsafe(void **state)
{
	const char *bond = A100 "[bond]\nname = bond0\nslaves = ens1f0np0 ens1f1np1\n";
	struct run x;

	(void)state;
	plan_for(&x, "companions", A100 "companions = bind\n", ALL);
	assert_int_equal(x.plan.nblockers, 5);
	assert_non_null(strstr(x.plan.blockers[0], "companion.unsafe 0000:41:00.3"));
	done(&x);
	plan_for(&x, "ports-taken", bond, GP_GROUP_BOND);
	assert_int_equal(x.plan.nblockers, 3);
	done(&x);
	plan_for(&x, "ports-taken", bond, GP_GROUP_BOND | GP_FORCE_MGMT);
	assert_int_equal(x.plan.nblockers, 2);
	assert_non_null(strstr(x.plan.blockers[0], "bond.port_master ens1f0np0"));
	done(&x);
}

/* A variant driver's module is loaded and its driver named as it registers (item 7). */
static void test_variant(void **state)
{
	const char *gh200 = "[gpus]\nmatch = 10de:2342\ncount = 2\n";
	struct gp_persist ps;
	struct run x;
	char text[2048];

	(void)state;
	plan_for(&x, "variant", gh200, ALL);
	steps_text(&x.plan, text, sizeof(text));
	assert_non_null(strstr(text,
			       "module.load nvgrace_gpu_vfio_pci not loaded->loaded\n"
			       "device.override 0000:41:00.0 (none)->nvgrace_gpu_vfio_pci\n"));
	assert_non_null(strstr(text, "device.bind 0000:42:00.0 nvidia->nvgrace_gpu_vfio_pci\n"));
	/* one load for both GPUs, and no driver built from dashes */
	assert_null(strstr(strstr(text, "module.load") + 1, "module.load"));
	assert_null(strstr(text, "nvgrace-gpu"));
	assert_string_equal(x.plan.steps[0].arg, "nvgrace_gpu_vfio_pci");
	gp_persist_render(&x.h, &x.p, x.templates, &ps);
	assert_non_null(strstr(ps.files[2], "\nvfio_pci\nnvgrace_gpu_vfio_pci\n"));
	assert_non_null(strstr(ps.files[1], "softdep nvidia pre: vfio-pci nvgrace_gpu_vfio_pci\n"));
	assert_string_equal(ps.overrides[0].driver, "nvgrace_gpu_vfio_pci");
	gp_persist_release(&ps);
	done(&x);
	/* loaded: the name the driver registered, from /sys/bus/pci/drivers */
	plan_for(&x, "variant-loaded", gh200, ALL);
	steps_text(&x.plan, text, sizeof(text));
	assert_null(strstr(text, "module.load"));
	assert_non_null(
		strstr(text, "device.override 0000:41:00.0 (none)->nvgrace-gpu-vfio-pci\n"));
	done(&x);
	/* the alias in /usr/local/lib/modprobe.d: libkmod reads it too */
	plan_for(&x, "variant-local", gh200, ALL);
	assert_string_equal(x.h.devs[unit_index(&x.h, "0000:41:00.0")].vfio_module,
			    "nvgrace_gpu_vfio_pci");
	done(&x);
	/* no variant: vfio-pci, as before */
	plan_for(&x, "r5350-ready", A100, ALL);
	assert_string_equal(x.h.devs[unit_index(&x.h, "0000:41:00.0")].vfio_module, "vfio_pci");
	assert_string_equal(x.h.devs[unit_index(&x.h, "0000:41:00.0")].vfio_driver, "vfio-pci");
	done(&x);
}

static void test_lab_capture(void **state)
{
	struct run x;
	char text[2048];

	(void)state;
	/* a real kernel's tree: vfio-pci not loaded, an e1000e bound to e1000e */
	plan_for(&x, "lab-messy", "[gpus]\nmatch = 8086:10d3 0000:81:00.0\ncount = 2\n", ALL);
	steps_text(&x.plan, text, sizeof(text));
	assert_non_null(strstr(text, "module.load vfio-pci not loaded->loaded\n"));
	assert_non_null(strstr(text, "device.unbind 0000:47:00.0 bound to e1000e->unbound\n"));
	/* the testdev has no driver: nothing to unbind */
	assert_null(strstr(text, "device.unbind 0000:81:00.0"));
	assert_non_null(strstr(text, "device.bind 0000:81:00.0 no driver->vfio-pci\n"));
	done(&x);
}

static void test_already_done(void **state)
{
	struct run x;
	struct gp_persist ps;
	int i, k;

	(void)state;
	plan_for(&x, "r5350-ready", A100, ALL);
	/* make the host look as apply leaves it, then plan again: nothing to do */
	gp_persist_render(&x.h, &x.p, x.templates, &ps);
	for (i = 0; i < GP_PERSIST_FILES; i++) {
		free(x.h.persist[i]);
		x.h.persist[i] = ps.files[i] ? strdup(ps.files[i]) : NULL;
	}
	x.h.noverrides = ps.noverrides;
	memcpy(x.h.overrides, ps.overrides, sizeof(ps.overrides));
	for (k = 0; k < 2; k++) {
		struct gp_dev *d = &x.h.devs[unit_index(&x.h, k ? "0000:42:00.0" : "0000:41:00.0")];

		d->driver = "vfio-pci";
		d->driver_override = "vfio-pci";
	}
	gp_persist_release(&ps);
	gp_plan_release(&x.plan);
	gp_plan_build(&x.h, &x.p, &x.r, x.templates, NULL, ALL, NULL, &x.plan);
	assert_int_equal(x.plan.n, 0);
	/* one override file missing: persist.vfio is back */
	x.h.noverrides--;
	gp_plan_release(&x.plan);
	gp_plan_build(&x.h, &x.p, &x.r, x.templates, NULL, ALL, NULL, &x.plan);
	assert_int_equal(x.plan.n, 1);
	assert_int_equal(x.plan.steps[0].kind, GP_S_PERSIST_VFIO);
	assert_string_equal(x.plan.steps[0].current, "partly written or outdated");
	done(&x);
}

static void test_persist_render(void **state)
{
	struct run x;
	struct gp_persist ps;

	(void)state;
	plan_for(&x, "r5350-ready", A100, ALL);
	gp_persist_render(&x.h, &x.p, x.templates, &ps);
	/* kernel 6.1: vfio_virqfd is still a module of its own */
	assert_non_null(strstr(ps.files[2], "\nvfio_virqfd\n"));
	assert_non_null(strstr(ps.files[1], "softdep nvidia pre: vfio-pci\n"));
	assert_int_equal(ps.noverrides, 2);
	assert_string_equal(ps.overrides[1].bdf, "0000:42:00.0");
	gp_persist_release(&ps);
	strcpy(x.h.kernel_release, "6.8.0-40-generic");
	gp_persist_render(&x.h, &x.p, x.templates, &ps);
	assert_null(strstr(ps.files[2], "vfio_virqfd"));
	gp_persist_release(&ps);
	/* driverctl installed: its files, not ours */
	x.h.driverctl = true;
	gp_persist_render(&x.h, &x.p, x.templates, &ps);
	assert_null(ps.files[0]);
	assert_null(ps.files[3]);
	assert_non_null(ps.files[1]);
	assert_true(ps.driverctl);
	gp_persist_release(&ps);
	done(&x);
}

/*
 * gp_host_load reads the machine; what gpuprov wrote before (persist.vfio's
 * files, the overrides, the VM's XML, libvirt's domain) is read apart, by
 * gp_host_read_owned, which the plan pipeline calls: scan and topo do not.
 */
static void test_owned_apart(void **state)
{
	struct gp_profile p;
	struct gp_host h;

	(void)state;
	unit_profile(A100 "[vm]\nname = driver\noutput = /etc/libvirt/qemu/driver.xml\n", &p);
	assert_int_equal(gp_host_load("build/hosts/vfio-applied", &p, &h), 0);
	assert_null(h.persist[1]);
	assert_int_equal(h.noverrides, 0);
	assert_int_equal(h.nowned, 0);
	assert_int_equal(gp_host_read_owned(&h, &p), 0);
	assert_non_null(h.persist[1]);
	assert_int_equal(h.noverrides, 2);
	assert_int_equal(h.nowned, GP_PERSIST_FILES + 2 + 2); /* + overrides, XML and NCCL file */
	gp_host_release(&h);

	assert_int_equal(gp_host_load("build/hosts/vm-ready", &p, &h), 0);
	assert_int_equal(h.vm_running, -1);
	assert_int_equal(gp_host_read_owned(&h, &p), 0);
	assert_int_equal(h.vm_running, 1); /* libvirt's PID file under -r */
	gp_host_release(&h);
}

static void test_groups(void **state)
{
	unsigned g;

	(void)state;
	assert_int_equal(gp_parse_groups("vfio,vm", &g), 0);
	assert_int_equal(g, GP_GROUP_VFIO | GP_GROUP_VM);
	assert_int_not_equal(gp_parse_groups("vfio,disk", &g), 0);
	assert_int_not_equal(gp_parse_groups("", &g), 0);
}

#define HGX(mode)                                                                               \
	"[gpus]\nmatch = 10de:2335\ncount = 8\np2p = off\nsame_numa_node = no\n[fabric]\nmode " \
	"= " mode "\n"

static int bound(const struct gp_plan *plan, const char *prefix)
{
	size_t i;
	int n = 0;

	for (i = 0; i < plan->n; i++)
		n += plan->steps[i].kind == GP_S_DEVICE_BIND &&
		     !strncmp(plan->steps[i].subject, prefix, strlen(prefix));
	return n;
}

/* Full passthrough: twelve functions and Fabric Manager stopped first; shared: the GPUs. */
static void test_fabric(void **state)
{
	struct run x;

	(void)state;
	plan_for(&x, "hgx-h200", HGX("full"), GP_GROUP_VFIO);
	assert_int_equal(x.plan.nblockers, 0);
	assert_int_equal(x.plan.steps[0].kind, GP_S_FABRIC_MASK);
	assert_string_equal(x.plan.steps[0].current, "Fabric Manager running, enabled");
	assert_int_equal(bound(&x.plan, "0000:"), 12);
	assert_int_equal(bound(&x.plan, "0000:1"), 4); /* the switches, 0000:12..15 */
	done(&x);
	/* installed but neither running nor enabled: nothing to stop */
	plan_for(&x, "hgx-board", HGX("full"), GP_GROUP_VFIO);
	assert_int_not_equal(x.plan.steps[0].kind, GP_S_FABRIC_MASK);
	assert_int_equal(bound(&x.plan, "0000:"), 12);
	done(&x);
	plan_for(&x, "hgx-shared", HGX("shared"), GP_GROUP_VFIO);
	assert_int_equal(x.plan.nblockers, 0);
	assert_int_equal(bound(&x.plan, "0000:"), 8);
	assert_int_equal(bound(&x.plan, "0000:1"), 0);
	assert_int_not_equal(x.plan.steps[0].kind, GP_S_FABRIC_MASK);
	done(&x);
	/* a switch missing: fabric.partial blocks the binding */
	plan_for(&x, "hgx-3sw", HGX("full"), GP_GROUP_VFIO);
	assert_true(blocked_by(&x.plan, "fabric.partial"));
	done(&x);
}

#define HUGE_VM                                                                  \
	"[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\np2p = off\n" \
	"[vm]\nname = v\nvcpus = 4\nmemory = 16GiB\nhugepages = 2MiB\nnuma = strict\n"

/* The plan's steps of group vm for the VM's XML written where the profile says. */
static void plan_vm(struct run *x, const char *host, const char *profile)
{
	static const struct gp_vm_target vm = {
		.xml = "<domain/>",
		.digest = "0",
		.output = "/var/lib/gpuprov/v.xml",
		.name = "v",
	};

	memset(x, 0, sizeof(*x));
	setenv("GPUPROV_TEMPLATES", "templates", 1);
	assert_int_equal(gp_templates_load(x->templates), 0);
	unit_profile(profile, &x->p);
	unit_host(host, &x->p, &x->h);
	gp_checks_run(&x->h, &x->p, &x->r);
	gp_plan_build(&x->h, &x->p, &x->r, x->templates, &vm, GP_GROUP_VM, NULL, &x->plan);
}

/*
 * [vm] hugepages: a node whose pool lacks free pages that its memory holds
 * gets a hugepages.reserve step, before the domain is written; one that
 * cannot get them blocks the VM (vm.memory).
 */
static void test_hugepages(void **state)
{
	char text[2048];
	struct run x;

	(void)state;
	plan_vm(&x, "hugepages", HUGE_VM);
	assert_int_equal(x.plan.nblockers, 0);
	steps_text(&x.plan, text, sizeof(text));
	assert_non_null(strstr(text, "hugepages.reserve node0 nr_hugepages 1024, 512 free->"
				     "nr_hugepages 4608: 4096 pages of 2 MiB free for the VM"));
	assert_non_null(strstr(text, "hugepages.reserve node1 nr_hugepages 0, 0 free->"
				     "nr_hugepages 4096:"));
	assert_int_equal(x.plan.steps[0].kind, GP_S_HUGEPAGES_RESERVE);
	assert_string_equal(x.plan.steps[0].arg, "2048kB");
	assert_int_equal(x.plan.steps[2].kind, GP_S_DOMAIN_WRITE);
	done(&x);
	/* node 1 cannot get its pages at runtime: vm.memory blocks, node 1 has no step */
	plan_vm(&x, "hugepages-short", HUGE_VM);
	assert_true(blocked_by(&x.plan, "vm.memory"));
	steps_text(&x.plan, text, sizeof(text));
	assert_null(strstr(text, "hugepages.reserve node1"));
	done(&x);
	/* the pages free already: no step */
	plan_vm(&x, "hugepages",
		"[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\n"
		"p2p = off\n[vm]\nname = v\nvcpus = 4\nmemory = 2GiB\n"
		"hugepages = 2MiB\nnuma = strict\n");
	steps_text(&x.plan, text, sizeof(text));
	assert_null(strstr(text, "hugepages.reserve node0"));
	assert_non_null(strstr(text, "hugepages.reserve node1"));
	done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready),	     cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_unsafe),	     cmocka_unit_test(test_variant),
		cmocka_unit_test(test_companions),   cmocka_unit_test(test_lab_capture),
		cmocka_unit_test(test_already_done), cmocka_unit_test(test_persist_render),
		cmocka_unit_test(test_groups),	     cmocka_unit_test(test_owned_apart),
		cmocka_unit_test(test_fabric),	     cmocka_unit_test(test_hugepages),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
