// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sriov.vfs: what the plan asks of each [nic] port (a step within
 * sriov_totalvfs, a block beyond it), and its writer on a directory of regular files
 * standing in for a port's sysfs directory: a nonzero count changed through
 * 0, read back, undo's count, a port without SR-IOV refused; the boot unit's
 * script, run on such a tree, makes the count.  The link wraps write()
 * (Makefile) to log what is written to sriov_numvfs files.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "act/actuator.h"
#include "act/sriov.h"
#include "core/checks.h"
#include "core/plan.h"
#include "core/sriov.h"
#include "core/templates.h"
#include "core/vfs.h"
#include "core/vm.h"
#include "shared/log.h"
#include "shared/write.h"

/* what write() wrote, while logging: "0\n4\n" */
static char wlog[256];
static bool logging;

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (logging && strlen(wlog) + n < sizeof(wlog))
		strncat(wlog, buf, n);
	return __real_write(fd, buf, n);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static long count(const char *dir)
{
	char path[160], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/sriov_numvfs", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	return strtol(text, NULL, 10);
}

/* a ConnectX-6 Dx port: 15b3:101d, 8 VFs offered, numvfs as given */
static void make_port(const char *dir, const char *numvfs)
{
	put(dir, "vendor", "0x15b3\n");
	put(dir, "device", "0x101d\n");
	put(dir, "sriov_totalvfs", "8\n");
	put(dir, "sriov_numvfs", numvfs);
}

static void test_write(void **state)
{
	char dir[] = "/tmp/gp-sriov.XXXXXX";
	struct gp_sriov_port port;

	(void)state;
	gp_verbosity = 0;
	assert_non_null(mkdtemp(dir));
	make_port(dir, "0\n");
	assert_int_equal(gp_sriov_read_at(dir, &port), 0);
	assert_int_equal(port.vendor, 0x15b3);
	assert_int_equal(port.device, 0x101d);
	assert_int_equal(port.total, 8);
	assert_int_equal(port.numvfs, 0);
	/* 0 -> 4: one write */
	wlog[0] = '\0';
	logging = true;
	assert_int_equal(gp_sriov_set_at(dir, 0, 4), 0);
	assert_string_equal(wlog, "4\n");
	assert_int_equal(count(dir), 4);
	/* 4 -> 2 would go through 0, destroying the VFs: refused, nothing written */
	wlog[0] = '\0';
	assert_int_equal(gp_sriov_set_at(dir, 4, 2), -EBUSY);
	assert_string_equal(wlog, "");
	assert_int_equal(count(dir), 4);
	assert_non_null(strstr(gp_last_error, "only from or to 0"));
	/* undo to 0: one write; the same count: none */
	wlog[0] = '\0';
	assert_int_equal(gp_sriov_set_at(dir, 4, 0), 0);
	assert_int_equal(gp_sriov_set_at(dir, 0, 0), 0);
	logging = false;
	assert_string_equal(wlog, "0\n");
	assert_int_equal(count(dir), 0);
	/* garbage in a file is no count */
	put(dir, "sriov_numvfs", "lots\n");
	assert_int_equal(gp_sriov_read_at(dir, &port), -EIO);
	/* no SR-IOV: refused */
	put(dir, "sriov_numvfs", "0\n");
	snprintf(wlog, sizeof(wlog), "%s/sriov_totalvfs", dir);
	assert_int_equal(unlink(wlog), 0);
	assert_int_equal(gp_sriov_read_at(dir, &port), -ENOTSUP);
	assert_non_null(strstr(gp_last_error, "no SR-IOV"));
	snprintf(wlog, sizeof(wlog), "rm -rf '%s'", dir);
	assert_int_equal(system(wlog), 0);
}

/*
 * the script on a tree like sysfs: 0 -> 4; another nonzero count, a port
 * whose IDs differ or that is elsewhere: untouched, the unit fails
 */
static void test_script(void **state)
{
	char dir[] = "/tmp/gp-sriov.XXXXXX", port[160], cmd[512], where[256], text[400];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(port, sizeof(port), "%s/devices/0000:44:00.0", dir);
	assert_int_equal(gp_write_mkdir(port, 0755), 0);
	assert_int_equal(gp_write_mkdir(port, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s/driver", port);
	assert_int_equal(mkdir(cmd, 0755), 0);
	make_port(port, "0\n");
	assert_int_equal(gp_dev_where(port, where, sizeof(where)), 0);
	snprintf(cmd, sizeof(cmd), "%s/sriov.d", dir);
	assert_int_equal(gp_write_mkdir(cmd, 0755), 0);
	gp_sriov_file_text(0x15b3, 0x101d, 4, where, cmd, sizeof(cmd));
	snprintf(wlog, sizeof(wlog), "%s/sriov.d", dir);
	put(wlog, "0000:44:00.0", cmd);
	put(dir, "sriov-vfs", gp_sriov_script);
	snprintf(cmd, sizeof(cmd),
		 "sed -e 's#/etc/gpuprov/sriov.d#%s/sriov.d#' "
		 "-e 's#/sys/bus/pci/devices#%s/devices#' %s/sriov-vfs | sh >%s/out 2>&1",
		 dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(count(port), 4);
	/* 2 there: left alone (through 0 would destroy them) */
	put(port, "sriov_numvfs", "2\n");
	assert_int_not_equal(system(cmd), 0);
	assert_int_equal(count(port), 2);
	put(port, "sriov_numvfs", "0\n");
	put(wlog, "0000:44:00.0", "0x15b3 0x101e 4\n");
	assert_int_not_equal(system(cmd), 0);
	assert_int_equal(count(port), 0);
	snprintf(text, sizeof(text), "0x15b3 0x101d 4 %s/elsewhere\n", where);
	put(wlog, "0000:44:00.0", text);
	assert_int_not_equal(system(cmd), 0);
	assert_int_equal(count(port), 0);
	/* a count with a leading 0 (the kernel reads it as octal) is no count */
	snprintf(text, sizeof(text), "0x15b3 0x101d 010 %s\n", where);
	put(wlog, "0000:44:00.0", text);
	assert_int_not_equal(system(cmd), 0);
	assert_int_equal(count(port), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

struct plan_x {
	char *templates[GP_PERSIST_FILES];
	struct gp_profile p;
	struct gp_host h;
	struct gp_report r;
	struct gp_plan plan;
};

static const char vf_profile[] =
	"[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\np2p = preferred\n"
	"[nic]\nmatch = 15b3:101d 15b3:1021\nmode = vf\nvfs = ";

static bool has_step(const struct gp_plan *plan, const char *bdf, const char *target)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		if (plan->steps[i].kind == GP_S_SRIOV_VFS && !strcmp(plan->steps[i].subject, bdf) &&
		    strstr(plan->steps[i].target, target))
			return true;
	return false;
}

static bool blocked_by(const struct gp_plan *plan, const char *words)
{
	int i;

	for (i = 0; i < plan->nblockers; i++)
		if (strstr(plan->blockers[i], words))
			return true;
	return false;
}

/* roce-rails: port 44:00.0 offers 8 and has 0, 86:00.0 offers 4 and has 2 */
static void build(struct plan_x *x, unsigned vfs, unsigned groups)
{
	char text[512];

	snprintf(text, sizeof(text), "%s%u\n", vf_profile, vfs);
	setenv("GPUPROV_TEMPLATES", "templates", 1);
	assert_int_equal(gp_templates_load(x->templates), 0);
	unit_profile(text, &x->p);
	unit_host("roce-rails", &x->p, &x->h);
	gp_checks_run(&x->h, &x->p, &x->r);
	gp_plan_build(&x->h, &x->p, &x->r, x->templates, NULL, groups, "", &x->plan);
}

static void release(struct plan_x *x)
{
	gp_plan_release(&x->plan);
	gp_report_release(&x->r);
	gp_templates_release(x->templates);
	gp_host_release(&x->h);
}

static void test_plan(void **state)
{
	struct plan_x *x = calloc(1, sizeof(*x));

	(void)state;
	build(x, 4, GP_GROUP_VFIO);
	assert_int_equal(x->h.devs[unit_index(&x->h, "0000:44:00.0")].sriov_total, 8);
	assert_int_equal(x->h.devs[unit_index(&x->h, "0000:86:00.0")].sriov_numvfs, 2);
	assert_true(has_step(&x->plan, "0000:44:00.0", "sriov_numvfs 4 (of 8)"));
	/* 86:00.0 has 2: 2 -> 4 only through 0, which destroys them: blocked */
	assert_false(has_step(&x->plan, "0000:86:00.0", ""));
	assert_true(blocked_by(&x->plan, "0000:86:00.0 has 2 virtual functions"));
	release(x);
	/* 2 on the port that has 2: no step there */
	build(x, 2, GP_GROUP_VFIO);
	assert_true(has_step(&x->plan, "0000:44:00.0", "sriov_numvfs 2"));
	assert_false(has_step(&x->plan, "0000:86:00.0", ""));
	release(x);
	/* beyond what a port offers: blocked, no step for it */
	build(x, 9, GP_GROUP_VFIO);
	assert_false(has_step(&x->plan, "0000:44:00.0", ""));
	assert_true(blocked_by(&x->plan, "0000:44:00.0 offers 8 virtual functions"));
	release(x);
	/* the step carries where the plan placed the VFs, through the journal's JSON too */
	build(x, 4, GP_GROUP_VFIO);
	for (size_t i = 0; i < x->plan.n; i++) {
		struct gp_step back;
		json_object *o;

		if (x->plan.steps[i].kind != GP_S_SRIOV_VFS)
			continue;
		assert_int_equal(x->plan.steps[i].vf_offset, 2);
		assert_int_equal(x->plan.steps[i].vf_stride, 1);
		o = gp_step_json(&x->plan.steps[i]);
		assert_int_equal(gp_step_from_json(o, &back), 0);
		json_object_put(o);
		assert_int_equal(back.vf_offset, 2);
		assert_int_equal(back.vf_stride, 1);
	}
	/* a run that defines the VM is no longer refused for mode = vf */
	assert_false(blocked_by(&x->plan, "mode = vf"));
	release(x);
	free(x);
}

/* routing IDs past the PF's: offset + i * stride, across devices (no ARI) and buses */
static void test_predict(void **state)
{
	char out[GP_BDF_LEN];

	(void)state;
	assert_int_equal(gp_vf_addr("0000:44:00.0", 2, 1, 0, out), 0);
	assert_string_equal(out, "0000:44:00.2");
	assert_int_equal(gp_vf_addr("0000:44:00.0", 2, 1, 5, out), 0);
	assert_string_equal(out, "0000:44:00.7");
	assert_int_equal(gp_vf_addr("0000:44:00.0", 2, 1, 6, out), 0);
	assert_string_equal(out, "0000:44:01.0");
	/* the second PF of a card, stride 2: 3b:00.1 + 7 = 3b:01.0, then every other */
	assert_int_equal(gp_vf_addr("0002:3b:00.1", 7, 2, 0, out), 0);
	assert_string_equal(out, "0002:3b:01.0");
	assert_int_equal(gp_vf_addr("0002:3b:00.1", 7, 2, 1, out), 0);
	assert_string_equal(out, "0002:3b:01.2");
	/* a bus crossing: the PF's bus + 1 */
	assert_int_equal(gp_vf_addr("0000:44:00.0", 0x100, 1, 0, out), 0);
	assert_string_equal(out, "0000:45:00.0");
	/* past routing ID 0xffff; not an address */
	assert_int_equal(gp_vf_addr("0000:ff:1f.7", 1, 1, 0, out), -ERANGE);
	assert_int_equal(gp_vf_addr("44:00.0", 1, 1, 0, out), -EINVAL);
}

static void test_vf_check(void **state)
{
	struct gp_profile p;
	struct gp_host h;
	struct gp_dev *a, *b;
	char why[400], bdf[GP_BDF_LEN];

	(void)state;
	unit_profile("[gpus]\nmatch = 10de:2335\ncount = 2\n[nic]\nmatch = 15b3:101d "
		     "15b3:1021\nmode = vf\nvfs = 4\n",
		     &p);
	unit_host("roce-rails", &p, &h);
	a = &h.devs[unit_index(&h, "0000:44:00.0")];
	b = &h.devs[unit_index(&h, "0000:86:00.0")];
	/* read from config space and the virtfn links */
	assert_true(a->has_sriov);
	assert_int_equal(a->vf_offset, 2);
	assert_int_equal(a->vf_stride, 1);
	assert_int_equal(a->vf_device, 0x101e);
	assert_int_equal(a->nvirtfn, 0);
	assert_int_equal(b->nvirtfn, 2);
	assert_string_equal(b->virtfn[1], "0000:86:00.2");
	assert_int_equal(h.devs[a->parent].sub_bus, 0x44);
	assert_int_equal(gp_vf_check(&h, a, 8, why, sizeof(why)), 0);
	assert_int_equal(gp_vf_bdf(a, 0, bdf), 0);
	assert_string_equal(bdf, "0000:44:00.2");
	/* links that agree; the VF the VM gets is the kernel's */
	assert_int_equal(gp_vf_check(&h, b, 4, why, sizeof(why)), 0);
	assert_int_equal(gp_vf_bdf(b, 0, bdf), 0);
	assert_string_equal(bdf, "0000:86:00.1");
	/* past bus 44, which the switch port above forwards alone: blocked, and how many fit */
	a->vf_offset = 0xfa; /* 0x44fa: VFs 0..5 on bus 44 */
	assert_int_equal(gp_vf_check(&h, a, 6, why, sizeof(why)), 0);
	assert_int_equal(gp_vf_check(&h, a, 7, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "0000:45:00.0"));
	assert_non_null(strstr(why, "not enough bus numbers"));
	assert_non_null(strstr(why, "[nic] vfs = 6 fits"));
	a->vf_offset = 2;
	/* a link that disagrees with the capability: blocked, both named */
	b->vf_offset = 3;
	assert_int_equal(gp_vf_check(&h, b, 4, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "0000:86:00.1 (virtfn0)"));
	assert_non_null(strstr(why, "says 0000:86:00.3"));
	/* VFs already made and no capability read (not root): the links are enough */
	b->has_sriov = false;
	assert_int_equal(gp_vf_check(&h, b, 2, why, sizeof(why)), 0);
	assert_int_equal(gp_vf_check(&h, b, 4, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "cannot be predicted"));
	/* no First VF Offset: nothing can be placed */
	a->vf_offset = 0;
	assert_int_equal(gp_vf_check(&h, a, 1, why, sizeof(why)), -EINVAL);
	assert_int_equal(gp_vf_bdf(a, 0, bdf), -ENOENT);
	gp_host_release(&h);
}

/* the MAC libvirt sets: QEMU's prefix, the same each run, one per VM, port and VF */
static void test_mac(void **state)
{
	char m[GP_VF_MAC_LEN], n[GP_VF_MAC_LEN];

	(void)state;
	gp_vf_mac("roce", "0000:44:00.0", 0, m);
	assert_int_equal(strlen(m), 17);
	assert_int_equal(strncmp(m, "52:54:00:", 9), 0);
	gp_vf_mac("roce", "0000:44:00.0", 0, n);
	assert_string_equal(m, n);
	gp_vf_mac("roce", "0000:44:00.0", 1, n);
	assert_string_not_equal(m, n);
	gp_vf_mac("roce", "0000:86:00.0", 0, n);
	assert_string_not_equal(m, n);
	gp_vf_mac("other", "0000:44:00.0", 0, n);
	assert_string_not_equal(m, n);
}

/* the VM: the first VF of each port, a card of its own beside its PF's GPU */
static void test_layout(void **state)
{
	struct gp_vm_layout *l = calloc(1, sizeof(*l));
	struct gp_profile p;
	struct gp_host h;
	int i, vfs = 0;

	(void)state;
	unit_profile("[gpus]\nmatch = 10de:2335\ncount = 2\nsame_numa_node = no\n[vm]\nname = "
		     "roce\nvcpus = 8\nmemory = 8GiB\nnuma = none\n[nic]\nmatch = 15b3:101d "
		     "15b3:1021\nmode = vf\nvfs = 4\n",
		     &p);
	unit_host("roce-vf", &p, &h);
	gp_vm_layout(&h, &p, l);
	for (i = 0; i < l->ndevs; i++) {
		const struct gp_vm_dev *v = &l->devs[i];
		char mac[GP_VF_MAC_LEN];

		if (v->vf < 0)
			continue;
		vfs++;
		assert_true(v->nic);
		assert_int_equal(l->ports[v->port].nfuncs, 1);
		assert_int_equal(v->fn, 0);
		assert_true(v->rail >= 0 && l->devs[v->rail].gpu);
		/* under one emulated switch with its GPU, as the PF and GPU share one on the host */
		assert_true(l->ports[v->port].sw >= 0);
		assert_int_equal(l->ports[v->port].sw, l->ports[l->devs[v->rail].port].sw);
		gp_vf_mac("roce", h.devs[v->dev].bdf, 0, mac);
		assert_string_equal(v->mac, mac);
	}
	assert_int_equal(vfs, 2);
	assert_string_equal(l->devs[1].vf_bdf, "0000:44:00.2");
	assert_string_equal(l->devs[1].alias, "ua-gpuprov-vf0");
	assert_string_equal(l->devs[3].vf_bdf, "0000:86:00.1");
	gp_host_release(&h);
	free(l);
}

/* apply reads the VFs back against the plan's placement: a fake device directory */
static void test_placed(void **state)
{
	char dir[] = "/tmp/gp-sriov.XXXXXX", path[160], cmd[200];
	const char *vfs[] = { "0000:44:00.2", "0000:44:00.3", "0000:44:00.4", "0000:44:00.5" };
	int i;

	(void)state;
	gp_verbosity = 0;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/virtfn%d", dir, i);
		snprintf(cmd, sizeof(cmd), "../%s", vfs[i]);
		assert_int_equal(symlink(cmd, path), 0);
	}
	assert_int_equal(gp_sriov_placed_at(dir, "0000:44:00.0", 2, 1, 4), 0);
	/* a step without a placement checks nothing */
	assert_int_equal(gp_sriov_placed_at(dir, "0000:44:00.0", 0, 0, 4), 0);
	/* another offset than the kernel used: the first VF differs, both named */
	assert_int_equal(gp_sriov_placed_at(dir, "0000:44:00.0", 3, 1, 4), -EIO);
	assert_non_null(strstr(gp_last_error, "virtual function 0 is 0000:44:00.2"));
	assert_non_null(strstr(gp_last_error, "placed it at 0000:44:00.3"));
	/* the stride: VF 1 elsewhere */
	assert_int_equal(gp_sriov_placed_at(dir, "0000:44:00.0", 2, 2, 4), -EIO);
	assert_non_null(strstr(gp_last_error, "virtual function 1 is 0000:44:00.3"));
	/* a VF the kernel did not make */
	assert_int_equal(gp_sriov_placed_at(dir, "0000:44:00.0", 2, 1, 5), -EIO);
	assert_non_null(strstr(gp_last_error, "no virtfn link"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* what its undo record may name; the count back by hand */
static void test_owns(void **state)
{
	struct gp_step st;
	char how[256];

	(void)state;
	assert_true(gp_path_owned(GP_S_SRIOV_VFS, "/etc/gpuprov/sriov.d/0000:44:00.0"));
	assert_true(gp_path_owned(GP_S_SRIOV_VFS, GP_SRIOV_SCRIPT));
	assert_true(gp_path_owned(GP_S_SRIOV_VFS, GP_SRIOV_UNIT));
	assert_true(gp_path_owned(GP_S_SRIOV_VFS, GP_SRIOV_WANTS));
	assert_false(gp_path_owned(GP_S_SRIOV_VFS, "/etc/gpuprov/sriov.d/x"));
	assert_false(gp_path_owned(GP_S_SRIOV_VFS, "/etc/gpuprov/acs.d/0000:44:00.0"));
	assert_false(gp_path_owned(GP_S_ACS_SET, GP_SRIOV_SCRIPT));
	memset(&st, 0, sizeof(st));
	st.kind = GP_S_SRIOV_VFS;
	strcpy(st.subject, "0000:44:00.0");
	strcpy(st.current, "sriov_numvfs 2");
	assert_true(gp_act_sriov_vfs.by_hand(&st, how, sizeof(how)));
	assert_non_null(strstr(how, "echo 0 > /sys/bus/pci/devices/0000:44:00.0/sriov_numvfs; "
				    "echo 2 > /sys/bus/pci/devices/0000:44:00.0/sriov_numvfs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),	cmocka_unit_test(test_script),
		cmocka_unit_test(test_plan),	cmocka_unit_test(test_owns),
		cmocka_unit_test(test_predict), cmocka_unit_test(test_vf_check),
		cmocka_unit_test(test_mac),	cmocka_unit_test(test_layout),
		cmocka_unit_test(test_placed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
