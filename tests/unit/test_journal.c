// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal's pure parts: the codec, the check a journal passes before
 * rollback acts on it, the set of paths gpuprov writes, and which run plain
 * rollback takes next (interrupted runs first) and which keeps apply out.
 */
#include "unit.h"
#include "act/apply.h"
#include "core/guestcfg.h"
#include "core/nccl_topo.h"
#include "core/vm.h"
#include "core/netconf.h"
#include "act/fstate.h"
#include "core/manifest.h"
#include "host/host.h"

#include <unistd.h>

static void test_sha256(void **state)
{
	char out[65], *big = gp_xcalloc(1000000, 1);

	(void)state;
	gp_sha256_hex("abc", 3, out);
	assert_string_equal(out,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	gp_sha256_hex("", 0, out);
	assert_string_equal(out,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	gp_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, out);
	assert_string_equal(out,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(big, 'a', 1000000);
	gp_sha256_hex(big, 1000000, out);
	assert_string_equal(out,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(big);
}

static void test_base64(void **state)
{
	static const char bin[] = "\0a\0\xff\n";
	char *enc, *dec;
	size_t n, len;

	(void)state;
	for (len = 0; len < sizeof(bin); len++) {
		enc = gp_base64_encode(bin, len);
		assert_int_equal(strlen(enc) % 4, 0);
		assert_int_equal(gp_base64_decode(enc, &dec, &n), 0);
		assert_int_equal(n, len);
		assert_memory_equal(dec, bin, len);
		free(enc);
		free(dec);
	}
	enc = gp_base64_encode("foobar", 6);
	assert_string_equal(enc, "Zm9vYmFy");
	free(enc);
	assert_int_equal(gp_base64_decode("Zm9vYg", &dec, &n), -EINVAL);
	assert_int_equal(gp_base64_decode("Zm=vYmFy", &dec, &n), -EINVAL);
	assert_int_equal(gp_base64_decode("Zm9v YmF", &dec, &n), -EINVAL);
	assert_int_equal(gp_base64_decode("Zg==Zg==", &dec, &n), -EINVAL);
}

/* One step of KIND with undo UNDO (JSON text), in a journal of STATUS. */
static int check(const char *kind, const char *subject, const char *undo)
{
	char buf[4096], why[256] = "";
	json_object *doc;
	int rc;

	snprintf(buf, sizeof(buf),
		 "{\"schema_version\": 1, \"run_id\": \"20260101T000000Z-1\", \"seq\": 1, "
		 "\"status\": \"running\", \"steps\": [{\"kind\": \"%s\", \"subject\": \"%s\", "
		 "\"current\": \"\", \"target\": \"\", \"arg\": \"\", \"state\": \"done\", "
		 "\"undo\": %s}]}",
		 kind, subject, undo);
	rc = gp_journal_parse(buf, strlen(buf), &doc, why, sizeof(why));
	if (!rc)
		json_object_put(doc);
	else
		print_message("refused: %s\n", why);
	return rc;
}

#define ABSENT(p) "{\"files\": [{\"path\": \"" p "\", \"type\": \"absent\"}]}"
/* "abc": its base64 and digest */
#define ABC                                                                      \
	"\"type\": \"file\", \"content\": \"YWJj\", \"size\": 3, \"sha256\": "   \
	"\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\", " \
	"\"uid\": 0, \"gid\": 0"

/* Each of guest.write's files beside output is a path a journal's record may name. */
static void guest_paths_owned(const char *output)
{
	char dir[GP_OUTPUT_LEN], path[GP_OUTPUT_LEN + 32];
	int i;

	gp_guest_dir(output, dir, sizeof(dir));
	for (i = 0; i < GP_GUEST_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, gp_guest_file_names[i]);
		assert_true(gp_path_owned(GP_S_GUEST_WRITE, path));
	}
}

/*
 * What [vm] output may name is what a journal's domain.write and nccl.write
 * records may name: one rule.  The profile accepted gpu-vm.conf and
 * /dev/shm, whose records the journal then refused: rollback could not put
 * the replaced file back, and apply refused to start afterwards.
 */
static void check_output_rule(void)
{
	static const char *const outputs[] = {
		"/var/lib/gpuprov/gpu-vm.xml",
		"/srv/vms/a100 vm.xml",
		"/run/x.xml",
		"/var/lib/gpuprov/gpu-vm.conf",
		"/dev/shm/gpu-vm.xml",
		"/proc/x.xml",
		"/sys/x.xml",
		"/var/lib//x.xml",
		"/var/./x.xml",
		"/var/lib/gpuprov/.xml",
		"/var/lib/gpuprov/",
		"/x.XML",
		"/dev.xml",
	};
	char text[400], nccl[4096], subject[600];
	struct gp_profile p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(outputs); i++) {
		bool profile, journal;

		snprintf(text, sizeof(text),
			 "[gpus]\nmatch = 10de:20b5\ncount = 2\n[vm]\nname = v\noutput = %s\n",
			 outputs[i]);
		profile = !gp_profile_parse_string("p.ini", text, &p);
		journal = gp_path_owned(GP_S_DOMAIN_WRITE, outputs[i]);
		print_message("%s: profile %d, journal %d\n", outputs[i], profile, journal);
		assert_int_equal(profile, journal);
		if (!profile)
			continue;
		gp_nccl_topo_path(p.vm.output, nccl, sizeof(nccl));
		assert_true(gp_path_owned(GP_S_NCCL_WRITE, nccl));
		guest_paths_owned(p.vm.output);
	}
	/* a step's subject is read back whole, or the journal refused: never cut */
	memset(subject, 'a', sizeof(subject) - 1);
	subject[sizeof(subject) - 1] = '\0';
	assert_int_equal(check("domain.write", subject,
			       "{\"file\": {\"path\": \"/var/lib/gpuprov/vm.xml\", \"type\": "
			       "\"absent\"}}"),
			 -EINVAL);
}

static void test_check_paths(void **state)
{
	(void)state;
	assert_int_equal(check("persist.vfio", "host", ABSENT("/etc/modprobe.d/gpuprov-vfio.conf")),
			 0);
	assert_int_equal(
		check("persist.vfio", "host", ABSENT("/etc/gpuprov/override.d/0000:41:00.0")), 0);
	assert_int_equal(check("persist.bond", "bond0",
			       ABSENT("/etc/systemd/network/60-gpuprov-bond0.netdev")),
			 0);
	assert_int_equal(check("domain.write", "/var/lib/gpuprov/vm.xml",
			       "{\"file\": {\"path\": \"/var/lib/gpuprov/vm.xml\", \"type\": "
			       "\"absent\"}}"),
			 0);
	/* the directories it made: only those above it */
#define DIRS(d)                                                                        \
	"{\"files\": [{\"path\": \"/etc/gpuprov/override.d/0000:41:00.0\", \"type\": " \
	"\"absent\", \"absent_dirs\": " d "}]}"
	assert_int_equal(check("persist.vfio", "host",
			       DIRS("[\"/etc/gpuprov\", \"/etc/gpuprov/override.d\"]")),
			 0);
	assert_int_equal(check("persist.vfio", "host", DIRS("[\"/var\"]")), -EINVAL);
	assert_int_equal(check("persist.vfio", "host", DIRS("[\"/etc/gp\"]")), -EINVAL);
	assert_int_equal(check("persist.vfio", "host", DIRS("[\"/etc/gpuprov/../gpuprov\"]")),
			 -EINVAL);
	assert_int_equal(check("persist.vfio", "host", DIRS("[\"/\"]")), -EINVAL);
	assert_int_equal(check("persist.vfio", "host", DIRS("[1]")), -EINVAL);
	assert_int_equal(check("persist.vfio", "host", DIRS("\"/etc/gpuprov\"")), -EINVAL);
	/* anything else: refused */
	assert_int_equal(check("persist.vfio", "host", ABSENT("/etc/passwd")), -EINVAL);
	assert_int_equal(
		check("persist.vfio", "host", ABSENT("/etc/gpuprov/override.d/../../passwd")),
		-EINVAL);
	assert_int_equal(check("persist.vfio", "host", ABSENT("/etc/gpuprov/override.d/x/y")),
			 -EINVAL);
	assert_int_equal(check("persist.bond", "bond0",
			       ABSENT("/etc/systemd/network/60-gpuprov-a/../../../shadow")),
			 -EINVAL);
	assert_int_equal(
		check("persist.bond", "bond0", ABSENT("/etc/modprobe.d/gpuprov-vfio.conf")),
		-EINVAL);
	assert_int_equal(check("domain.write", "x",
			       "{\"file\": {\"path\": \"/etc/shadow\", \"type\": \"absent\"}}"),
			 -EINVAL);
	assert_int_equal(check("domain.write", "x",
			       "{\"file\": {\"path\": \"/sys/x.xml\", \"type\": \"absent\"}}"),
			 -EINVAL);
	assert_int_equal(check("domain.write", "x",
			       "{\"file\": {\"path\": \"vm.xml\", \"type\": \"absent\"}}"),
			 -EINVAL);
	/* nccl.write: NCCL's file beside the VM's XML, and nothing else */
	assert_int_equal(check("nccl.write", "x",
			       "{\"file\": {\"path\": \"/var/lib/gpuprov/vm.nccl-topo.xml\", "
			       "\"type\": \"absent\"}}"),
			 0);
	assert_int_equal(check("nccl.write", "x",
			       "{\"file\": {\"path\": \"/var/lib/gpuprov/vm.xml\", \"type\": "
			       "\"absent\"}}"),
			 -EINVAL);
	assert_int_equal(check("nccl.write", "x",
			       "{\"file\": {\"path\": \"/var/lib/gpuprov/.nccl-topo.xml\", "
			       "\"type\": \"absent\"}}"),
			 -EINVAL);
	assert_int_equal(check("nccl.write", "x",
			       "{\"file\": {\"path\": \"/proc/x.nccl-topo.xml\", \"type\": "
			       "\"absent\"}}"),
			 -EINVAL);
	/* guest.write: guest-config's three files in X.guest beside X.xml, and nothing else */
	assert_int_equal(check("guest.write", "x", ABSENT("/var/lib/gpuprov/vm.guest/nccl.conf")),
			 0);
	assert_int_equal(
		check("guest.write", "x", ABSENT("/var/lib/gpuprov/vm.guest/network-config")), 0);
	assert_int_equal(
		check("guest.write", "x", ABSENT("/var/lib/gpuprov/vm.guest/nccl-topo.xml")), 0);
	assert_int_equal(check("guest.write", "x", ABSENT("/var/lib/gpuprov/vm.guest/user-data")),
			 -EINVAL);
	assert_int_equal(check("guest.write", "x", ABSENT("/var/lib/gpuprov/vm/nccl.conf")),
			 -EINVAL);
	assert_int_equal(check("guest.write", "x", ABSENT("/var/lib/gpuprov/.guest/nccl.conf")),
			 -EINVAL);
	assert_int_equal(check("guest.write", "x", ABSENT("/etc/netplan/nccl.conf")), -EINVAL);
	assert_int_equal(check("guest.write", "x", ABSENT("/proc/x.guest/nccl.conf")), -EINVAL);
	assert_int_equal(check("guest.write", "x", ABSENT("/var/lib/../vm.guest/nccl.conf")),
			 -EINVAL);
	assert_int_equal(check("guest.write", "x", ABSENT("nccl.conf")), -EINVAL);
	check_output_rule();
}

static void test_check_modes(void **state)
{
	(void)state;
	/* a file's own setuid bit, recorded from it, goes back */
	assert_int_equal(check("persist.vfio", "host",
			       "{\"files\": [{\"path\": \"/etc/gpuprov/vfio-rebind\", " ABC
			       ", \"mode\": 2541}]}"),
			 0);
	assert_int_equal(check("persist.vfio", "host",
			       "{\"files\": [{\"path\": \"/etc/gpuprov/vfio-rebind\", "
			       "\"type\": \"link\", \"target\": \"x\", \"mode\": 2541}]}"),
			 -EINVAL);
	assert_int_equal(check("persist.vfio", "host",
			       "{\"files\": [{\"path\": \"/etc/gpuprov/vfio-rebind\", "
			       "\"previous\": \"#!/bin/sh\", \"mode\": 3565}]}"),
			 -EINVAL);
	assert_int_equal(check("persist.vfio", "host",
			       "{\"files\": [{\"path\": \"/etc/gpuprov/vfio-rebind\", " ABC
			       ", \"mode\": 65536}]}"),
			 -EINVAL);
	/* content that is not what its digest says */
	assert_int_equal(
		check("persist.vfio", "host",
		      "{\"files\": [{\"path\": \"/etc/gpuprov/vfio-rebind\", \"type\": "
		      "\"file\", \"content\": \"YWJk\", \"size\": 3, \"sha256\": "
		      "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\", "
		      "\"mode\": 420}]}"),
		-EINVAL);
	assert_int_equal(check("persist.vfio", "host",
			       "{\"files\": [{\"path\": \"/etc/gpuprov/vfio-rebind\", \"type\": "
			       "\"fifo\"}]}"),
			 -EINVAL);
}

static void test_check_steps(void **state)
{
	(void)state;
	assert_int_equal(check("device.unbind", "0000:41:00.0", "{\"driver\": \"nvidia\"}"), 0);
	assert_int_equal(check("device.unbind", "../../x", "{\"driver\": \"nvidia\"}"), -EINVAL);
	assert_int_equal(check("shell.run", "x", "{}"), -EINVAL);
	assert_int_equal(check("link.up", "bond0/../x", "{}"), -EINVAL);
	assert_int_equal(check("link.up", "bond0",
			       "{\"link\": \"bond0\", \"address\": \"192.0.2.1/24\", "
			       "\"existed\": true, \"up\": true, \"mtu\": 1500}"),
			 0);
	assert_int_equal(check("link.up", "bond0", "{\"link\": \"../../etc\"}"), -EINVAL);
	assert_int_equal(check("bond.enslave", "eth0", "{\"master\": \"a b\"}"), -EINVAL);
	assert_int_equal(
		check("domain.define", "vm",
		      "{\"uri\": \"qemu:///system\", \"name\": \"vm\", \"previous\": null}"),
		0);
	assert_int_equal(
		check("domain.define", "vm",
		      "{\"uri\": \"qemu+ext:///system?command=/tmp/x\", \"name\": \"vm\"}"),
		-EINVAL);
	assert_int_equal(
		check("domain.define", "vm",
		      "{\"uri\": \"qemu+ssh://h/system?command=/tmp/x\", \"name\": \"vm\"}"),
		-EINVAL);
	/* fabric.mask: its wants link alone, and whether the service ran as a boolean
	 * (json-c reads the string "false" as true: undo would start Fabric Manager) */
#define FM_LINK "\"/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service\""
	assert_int_equal(check("fabric.mask", "host",
			       "{\"file\": {\"path\": " FM_LINK ", \"type\": \"absent\"}, "
			       "\"running\": true}"),
			 0);
	assert_int_equal(check("fabric.mask", "host",
			       "{\"file\": {\"path\": " FM_LINK ", \"type\": \"absent\"}, "
			       "\"running\": \"false\"}"),
			 -EINVAL);
	assert_int_equal(check("fabric.mask", "host", "{\"running\": 1}"), -EINVAL);
	assert_int_equal(check("fabric.mask", "host",
			       "{\"file\": {\"path\": \"/etc/passwd\", \"type\": \"absent\"}}"),
			 -EINVAL);
}

static void test_parse_garbage(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{}",
		"{\"run_id\": \"a\", \"status\": \"running\"}",
		"{\"run_id\": \"a/b\", \"status\": \"running\", \"steps\": []}",
		"{\"run_id\": \"a\", \"status\": \"weird\", \"steps\": []}",
		"{\"run_id\": \"a\", \"status\": \"done\", \"steps\": []} trailing",
		"{\"run_id\": \"a\", \"status\": \"done\", \"steps\": [1]}",
	};
	static const char good[] = "{\"run_id\": \"a\", \"status\": \"done\", \"steps\": []}";
	json_object *doc;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gp_journal_parse(bad[i], strlen(bad[i]), &doc, why, sizeof(why)),
				 -EINVAL);
	assert_int_equal(gp_journal_parse(good, strlen(good), &doc, why, sizeof(why)), 0);
	json_object_put(doc);
}

/* Every file persist.bond renders, for every owner, is in the set. */
static void test_rendered_paths_owned(void **state)
{
	static const char *const owners[] = { "networkd", "networkmanager", "netplan", "ifupdown" };
	struct gp_netconf nc;
	struct gp_profile p;
	struct gp_host h;
	char text[512], path[512];
	size_t o;
	int i;

	(void)state;
	setenv("GPUPROV_TEMPLATES", "templates", 1);
	for (o = 0; o < sizeof(owners) / sizeof(owners[0]); o++) {
		snprintf(text, sizeof(text),
			 "[gpus]\nmatch = 10de:20b5\ncount = 2\n[bond]\nname = bond0\n"
			 "slaves = 0000:01:00.0 ens1f1np1\npersist = %s\n",
			 owners[o]);
		unit_profile(text, &p);
		unit_host("r5350-ready", &p, &h);
		memset(&nc, 0, sizeof(nc));
		assert_int_equal(gp_netconf_render(&h, &p, &nc), 0);
		assert_true(nc.n > 0);
		for (i = 0; i < nc.n; i++)
			if (!gp_path_owned(GP_S_PERSIST_BOND, nc.files[i].path))
				fail_msg("%s: %s is not in the set", owners[o], nc.files[i].path);
		gp_netconf_release(&nc);
		gp_host_release(&h);
	}
	for (i = 0; i < GP_PERSIST_FILES; i++)
		assert_true(gp_path_owned(GP_S_PERSIST_VFIO, gp_persist_paths[i]));
	/* what nccl.write writes for the default [vm] output, and for one without .xml */
	gp_nccl_topo_path("/var/lib/gpuprov/a100-vm.xml", path, sizeof(path));
	assert_string_equal(path, "/var/lib/gpuprov/a100-vm.nccl-topo.xml");
	assert_true(gp_path_owned(GP_S_NCCL_WRITE, path));
	gp_nccl_topo_path("/srv/vms/a100", path, sizeof(path));
	assert_true(gp_path_owned(GP_S_NCCL_WRITE, path));
	/* guest.write's, for the default output and for the longest one a profile may name */
	gp_guest_dir("/var/lib/gpuprov/a100-vm.xml", path, sizeof(path));
	assert_string_equal(path, "/var/lib/gpuprov/a100-vm.guest");
	guest_paths_owned("/var/lib/gpuprov/a100-vm.xml");
	memset(path, 'a', GP_VM_OUTPUT_MAX);
	path[0] = '/';
	strcpy(path + GP_VM_OUTPUT_MAX - 4, ".xml");
	guest_paths_owned(path);
	assert_true(gp_path_owned(GP_S_PERSIST_VFIO, GP_WANTS_LINK));
}

static struct gp_run run(long long seq, const char *status, size_t undoable)
{
	struct gp_run r = { .seq = seq, .valid = true, .undoable = undoable, .nsteps = 5 };

	snprintf(r.run_id, sizeof(r.run_id), "run%lld", seq);
	gp_strlcpy(r.status, status, sizeof(r.status));
	r.interrupted = !strcmp(status, "running") || !strcmp(status, "rolling_back");
	return r;
}

static void test_next_run(void **state)
{
	struct gp_run r[3];

	(void)state;
	/* a finished run on top of another: the newest first, apply may go on */
	r[0] = run(1, "done", 3);
	r[1] = run(2, "done", 2);
	assert_int_equal(gp_run_next(r, 2)->seq, 2);
	assert_null(gp_run_blocking(r, 2));
	/* an interrupted run goes first, even below a finished one, and blocks apply */
	r[0] = run(1, "running", 2);
	assert_int_equal(gp_run_next(r, 2)->seq, 1);
	assert_int_equal(gp_run_blocking(r, 2)->seq, 1);
	/* killed while rolling back: interrupted too */
	r[0] = run(1, "rolled_back", 0);
	r[1] = run(2, "rolling_back", 1);
	assert_int_equal(gp_run_next(r, 2)->seq, 2);
	/* killed before the first step: nothing to undo, still to close */
	r[1] = run(2, "running", 0);
	assert_int_equal(gp_run_next(r, 2)->seq, 2);
	assert_int_equal(gp_run_blocking(r, 2)->seq, 2);
	/* an undo that failed: rollback again before any apply */
	r[1] = run(2, "rollback_failed", 1);
	assert_int_equal(gp_run_blocking(r, 2)->seq, 2);
	/* all undone: nothing left */
	r[1] = run(2, "rolled_back", 0);
	r[2] = run(3, "done", 0);
	assert_null(gp_run_next(r, 3));
	/* a journal that is refused stops both */
	r[2].valid = false;
	assert_int_equal(gp_run_next(r, 3)->seq, 3);
	assert_int_equal(gp_run_blocking(r, 3)->seq, 3);
}

/*
 * apply --confirm-within's record: a known state and whole, non-negative
 * numbers (the watcher acts on the PID it names), or the journal is refused.
 */
static void test_confirm_record(void **state)
{
#define J(c) "{\"run_id\": \"a\", \"status\": \"done\", \"steps\": [], \"confirm\": " c "}"
	static const char *const bad[] = {
		J("1"),
		J("{}"),
		J("{\"state\": \"maybe\"}"),
		J("{\"state\": \"pending\", \"watcher\": \"1; reboot\"}"),
		J("{\"state\": \"pending\", \"deadline\": -5}"),
		J("{\"state\": \"pending\", \"session\": 1.5}"),
	};
	static const char good[] = J("{\"state\": \"pending\", \"within\": 5, \"deadline\": "
				     "99, \"watcher\": 7, \"session\": 3}");
#undef J
	struct gp_run r = { .valid = true };
	json_object *doc;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gp_journal_parse(bad[i], strlen(bad[i]), &doc, why, sizeof(why)),
				 -EINVAL);
	assert_int_equal(gp_journal_parse(good, strlen(good), &doc, why, sizeof(why)), 0);
	json_object_put(doc);
	/* waiting: applied and pending; confirmed, or rolled back by hand, not */
	strcpy(r.status, "done");
	strcpy(r.confirm, "pending");
	assert_true(gp_run_unconfirmed(&r));
	strcpy(r.confirm, "confirmed");
	assert_false(gp_run_unconfirmed(&r));
	strcpy(r.confirm, "pending");
	strcpy(r.status, "rolled_back");
	assert_false(gp_run_unconfirmed(&r));
	r.confirm[0] = '\0';
	strcpy(r.status, "done");
	assert_false(gp_run_unconfirmed(&r));
}

/* What the operator went ahead despite (--accept) is in the run's journal. */
static void test_accepted_recorded(void **state)
{
	char dir[] = "/tmp/gp-journal-XXXXXX", why[256] = "";
	char *accepted[] = { "gpu.slot 0000:41:00.0: in no slot of the profile" };
	struct gp_plan plan = { .accepted = accepted, .naccepted = 1 };
	struct gp_journal j;
	json_object *doc, *a;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("GPUPROV_STATE_DIR", dir, 1);
	assert_int_equal(gp_journal_create(&j, "/etc/gpuprov/p.ini", &plan), 0);
	assert_int_equal(gp_journal_load(j.path, &doc, why, sizeof(why)), 0);
	a = json_object_object_get(doc, "accepted");
	assert_int_equal(json_object_array_length(a), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 0)), accepted[0]);
	json_object_put(doc);
	assert_int_equal(unlink(j.path), 0);
	gp_journal_close(&j);
	unsetenv("GPUPROV_STATE_DIR");
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_check_paths),
		cmocka_unit_test(test_check_modes),
		cmocka_unit_test(test_check_steps),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_rendered_paths_owned),
		cmocka_unit_test(test_next_run),
		cmocka_unit_test(test_accepted_recorded),
		cmocka_unit_test(test_confirm_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
