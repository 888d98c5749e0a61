// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal of a run: /var/lib/gpuprov/journal/<run-id>.json, rewritten
 * through the one writer (temp file, fsync, rename, fsync of the directory)
 * before and after each step, so that it survives a crash or a reboot and
 * rollback can undo what was done, or was being done, from it alone.
 *
 * rollback trusts nothing in it: a journal is read only from a directory and
 * a file that root owns and no one else can write (the file 0600: it holds
 * the files undo puts back, secrets included), and only when every step is
 * of a known kind and every path is one gpuprov writes (gp_journal_check).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "act/actuator.h"
#include "act/fstate.h"
#include "act/journal.h"
#include "core/sriov.h"
#include "core/uri.h"
#include "shared/rootfs.h"

#define JOURNAL_MAX (256u << 20) /* 16 files of GP_RECORD_MAX, in base64 */

const char *gp_journal_dir(void)
{
	const char *d = getenv("GPUPROV_STATE_DIR");

	return d && *d ? d : "/var/lib/gpuprov/journal";
}

int gp_journal_save(struct gp_journal *j)
{
	const char *text = json_object_to_json_string_ext(
		j->doc,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	char *buf = gp_xcalloc(len + 2, 1);
	int rc;

	memcpy(buf, text, len);
	buf[len] = '\n';
	rc = gp_write_file(j->path, buf, len + 1, 0600);
	free(buf);
	if (rc)
		gp_err("cannot write the journal '%s': %s", j->path, gp_write_strerror(rc));
	return rc;
}

/* ---- checking a journal (pure: a fuzzer feeds it buffers) ---- */

static const char *str(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

static bool word(const char *s, size_t max, const char *extra)
{
	size_t n = s ? strlen(s) : 0, i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
			return false;
	return n && n <= max;
}

static const char *const run_states[] = { "running",	     "done", "rolling_back", "rolled_back",
					  "rollback_failed", NULL };
static const char *const confirm_states[] = { "pending", "confirmed", "timed_out", NULL };
static const char *const step_states[] = { "pending", "skipped", "doing", "done", "undone", NULL };

/* A file record: a path the kind's actuator owns, then the record itself. */
static int check_file(json_object *rec, enum gp_step_kind kind, char *why, size_t len)
{
	const char *path = str(rec, "path");

	if (!path || !gp_path_owned(kind, path))
		return gp_bad(why, len, "'%s' is not a path gpuprov writes",
			      path ? path : "(none)");
	return gp_fstate_check(rec, why, len);
}

static int check_files(json_object *undo, enum gp_step_kind kind, char *why, size_t len)
{
	json_object *files = json_object_object_get(undo, "files");
	json_object *file = json_object_object_get(undo, "file");
	const char *name = gp_step_name(kind);
	size_t i, n;

	if (file)
		return json_object_is_type(file, json_type_object)
			       ? check_file(file, kind, why, len)
			       : gp_bad(why, len, "%s: 'file' is not an object", name);
	if (!files)
		return 0; /* recorded nothing: undo does nothing */
	if (!json_object_is_type(files, json_type_array))
		return gp_bad(why, len, "%s: 'files' is not a list", name);
	n = json_object_array_length(files);
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(files, i);

		if (!json_object_is_type(f, json_type_object))
			return gp_bad(why, len, "%s: a file record is not an object", name);
		if (check_file(f, kind, why, len))
			return -EINVAL;
	}
	return 0;
}

/* A bond's undo names links and an address: nothing else. */
static int check_link_undo(json_object *undo, size_t i, char *why, size_t len)
{
	json_object_object_foreach (undo, key, val) {
		const char *v = json_object_get_string(val);

		if (!json_object_is_type(val, json_type_string) || !*v)
			continue;
		if (!strcmp(key, "address") ? strspn(v, "0123456789abcdefABCDEF:./") != strlen(v)
					    : !word(v, 15, "_.-"))
			return gp_bad(why, len, "step %zu: bad %s '%s'", i + 1, key, v);
	}
	return 0;
}

/*
 * hugepages.reserve's undo writes its "nr" to the pool its subject (a node)
 * and argument (a page size) name: a size the kernel has, a whole count.
 */
static int check_huge_undo(json_object *o, json_object *undo, size_t i, char *why, size_t len)
{
	json_object *nr = json_object_object_get(undo, "nr");
	const char *arg = str(o, "arg");
	char path[128];
	unsigned kb;
	int node;

	if (!nr)
		return 0; /* recorded nothing: undo does nothing */
	snprintf(path, sizeof(path), "%s/%s-%s", GP_HUGE_DIR, str(o, "subject"), arg ? arg : "");
	if (gp_hugepages_file_parse(path, &node, &kb))
		return gp_bad(why, len, "step %zu: '%s' is not a huge page size", i + 1,
			      arg ? arg : "");
	if (!json_object_is_type(nr, json_type_int) || json_object_get_int64(nr) < 0 ||
	    json_object_get_int64(nr) > (1LL << 31))
		return gp_bad(why, len, "step %zu: 'nr' is not a count of pages", i + 1);
	return 0;
}

/* sriov.vfs's VF placement (a capability's 16-bit field): absent reads as 0 */
static bool routing_part(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	return !v || (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0 &&
		      json_object_get_int64(v) <= 0xffff);
}

/*
 * What each kind's undo acts on: its subject, of the type the kind's is
 * (core/steps.c: a PCI function, a module, a link, ...), and the records of
 * its undo (files its actuator owns, links, a libvirt URI).
 */
static int check_step(json_object *o, size_t i, char *why, size_t len)
{
	const char *name = str(o, "kind"), *subject = str(o, "subject");
	json_object *undo = json_object_object_get(o, "undo");
	const char *reason = "not a string";
	enum gp_step_kind kind;
	enum gp_subject_type type;

	if (gp_step_kind_find(name, &kind) || !gp_actuator_find(kind))
		return gp_bad(why, len, "step %zu: unknown kind '%s'", i + 1, name ? name : "");
	type = gp_step_kinds[kind].subject;
	if (!one_of(str(o, "state"), step_states))
		return gp_bad(why, len, "step %zu: unknown state", i + 1);
	if (!json_object_is_type(undo, json_type_object) || !subject)
		return gp_bad(why, len, "step %zu: no subject or no undo record", i + 1);
	/* read back whole or not at all (gp_step_from_json): never cut */
	if (strlen(subject) >= GP_OUTPUT_LEN)
		return gp_bad(why, len, "step %zu: a subject longer than %d characters", i + 1,
			      GP_OUTPUT_LEN - 1);
	if (!gp_subject_ok(type, subject))
		return gp_bad(why, len, "step %zu: '%s' is not %s", i + 1, subject,
			      gp_subject_what(type));
	if (type == GP_SUBJ_IFACE && check_link_undo(undo, i, why, len))
		return -EINVAL;
	if (str(o, "arg") && str(o, "arg")[0] && !word(str(o, "arg"), 63, "_.-"))
		return gp_bad(why, len, "step %zu: bad argument", i + 1);
	if (kind == GP_S_DOMAIN_DEFINE && json_object_object_get(undo, "uri") &&
	    (!str(undo, "uri") || gp_virt_uri_check(str(undo, "uri"), &reason)))
		return gp_bad(why, len, "step %zu: libvirt URI '%s': %s", i + 1,
			      str(undo, "uri") ? str(undo, "uri") : "", reason);
	/* fabric.mask's undo starts Fabric Manager when this says it ran: a boolean or nothing */
	if (kind == GP_S_FABRIC_MASK && json_object_object_get(undo, "running") &&
	    !json_object_is_type(json_object_object_get(undo, "running"), json_type_boolean))
		return gp_bad(why, len, "step %zu: 'running' is not true or false", i + 1);
	if (kind == GP_S_HUGEPAGES_RESERVE && check_huge_undo(o, undo, i, why, len))
		return -EINVAL;
	/* acs.set's undo writes "ctrl"'s feature bits back to its subject's ACS control */
	if (kind == GP_S_ACS_SET && json_object_object_get(undo, "ctrl") &&
	    (!json_object_is_type(json_object_object_get(undo, "ctrl"), json_type_int) ||
	     json_object_get_int64(json_object_object_get(undo, "ctrl")) < 0 ||
	     json_object_get_int64(json_object_object_get(undo, "ctrl")) > 0xffff))
		return gp_bad(why, len, "step %zu: 'ctrl' is not a 16-bit register value", i + 1);
	/* sriov.vfs's undo writes "numvfs" to its subject's sriov_numvfs */
	if (kind == GP_S_SRIOV_VFS && json_object_object_get(undo, "numvfs") &&
	    (!json_object_is_type(json_object_object_get(undo, "numvfs"), json_type_int) ||
	     json_object_get_int64(json_object_object_get(undo, "numvfs")) < 0 ||
	     json_object_get_int64(json_object_object_get(undo, "numvfs")) > GP_SRIOV_MAX))
		return gp_bad(why, len, "step %zu: 'numvfs' is not a count of virtual functions",
			      i + 1);
	if (kind == GP_S_SRIOV_VFS &&
	    (!routing_part(o, "vf_offset") || !routing_part(o, "vf_stride")))
		return gp_bad(why, len,
			      "step %zu: 'vf_offset' or 'vf_stride' is not a 16-bit number", i + 1);
	if (check_files(undo, kind, why, len))
		return -EINVAL;
	return 0;
}

/*
 * apply --confirm-within's record: a state, and numbers (the deadline, the
 * watcher's PID, apply's session, when it was settled) that are whole and
 * not negative; the watcher acts only on a record that names its own PID.
 */
static int check_confirm(json_object *c, char *why, size_t len)
{
	static const char *const nums[] = { "within", "deadline", "watcher", "session", "at" };
	size_t i;

	if (!c)
		return 0;
	if (!json_object_is_type(c, json_type_object) || !one_of(str(c, "state"), confirm_states))
		return gp_bad(why, len, "confirm: not an object with a known state");
	for (i = 0; i < ARRAY_SIZE(nums); i++) {
		json_object *v = json_object_object_get(c, nums[i]);

		if (v && (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0))
			return gp_bad(why, len, "confirm: '%s' is not a number", nums[i]);
	}
	return 0;
}

int gp_journal_check(json_object *doc, char *why, size_t len)
{
	json_object *steps = json_object_object_get(doc, "steps");
	size_t i, n;

	if (!json_object_is_type(doc, json_type_object))
		return gp_bad(why, len, "not a JSON object");
	if (!word(str(doc, "run_id"), 63, "_.-"))
		return gp_bad(why, len, "no run_id, or not a name");
	if (!one_of(str(doc, "status"), run_states))
		return gp_bad(why, len, "unknown status");
	if (!json_object_is_type(steps, json_type_array))
		return gp_bad(why, len, "no steps");
	if (check_confirm(json_object_object_get(doc, "confirm"), why, len))
		return -EINVAL;
	n = json_object_array_length(steps);
	for (i = 0; i < n; i++)
		if (check_step(json_object_array_get_idx(steps, i), i, why, len))
			return -EINVAL;
	return 0;
}

int gp_journal_parse(const char *buf, size_t len, json_object **doc, char *why, size_t wlen)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;

	*doc = NULL;
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, buf, (int)(len > JOURNAL_MAX ? JOURNAL_MAX : len));
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		json_tokener_free(tok);
		json_object_put(o);
		return len > JOURNAL_MAX ? gp_bad(why, wlen, "too large")
					 : gp_bad(why, wlen, "not JSON");
	}
	json_tokener_free(tok);
	if (gp_journal_check(o, why, wlen)) {
		json_object_put(o);
		return -EINVAL;
	}
	*doc = o;
	return 0;
}

/* ---- reading one from disk ---- */

/*
 * Only root may be able to change the directory, on its whole path (gp_trust):
 * else anyone could plant or swap a journal.
 */
static int dir_check(char *why, size_t len)
{
	struct stat st;

	if (lstat(gp_journal_dir(), &st))
		return -errno; /* -ENOENT: never applied */
	if (gp_trust(gp_journal_dir(), GP_TRUST_DIR))
		return gp_bad(why, len, "the directory '%s' is not root's alone", gp_journal_dir());
	return 0;
}

static int read_bounded(int fd, size_t size, char **out)
{
	char *buf = gp_xcalloc(size + 1, 1);
	size_t n = 0;
	ssize_t r;

	while (n < size) {
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (n != size) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	return 0;
}

int gp_journal_load(const char *path, json_object **doc, char *why, size_t len)
{
	int fd = gp_root_openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW), rc;
	struct stat st;
	char *buf;

	*doc = NULL;
	if (fd == -EINVAL)
		return gp_bad(why, len, "not a regular file");
	if (fd < 0)
		return fd == -ELOOP ? gp_bad(why, len, "a symbolic link") : fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return gp_bad(why, len, "not a regular file");
	}
	if (st.st_uid || (st.st_mode & 07777) != 0600 || (size_t)st.st_size > JOURNAL_MAX) {
		close(fd);
		return gp_bad(why, len,
			      "owner %u, mode %04o, %lld bytes: root's, 0600, at most %u MiB",
			      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
			      (long long)st.st_size, JOURNAL_MAX >> 20);
	}
	rc = read_bounded(fd, (size_t)st.st_size, &buf);
	close(fd);
	if (rc)
		return gp_bad(why, len, "cannot read it");
	rc = gp_journal_parse(buf, (size_t)st.st_size, doc, why, len);
	free(buf);
	return rc;
}

/* ---- the runs, oldest first ---- */

static size_t count_undoable(json_object *doc)
{
	json_object *steps = json_object_object_get(doc, "steps");
	size_t i, n = 0;

	for (i = 0; i < json_object_array_length(steps); i++) {
		const char *s = str(json_object_array_get_idx(steps, i), "state");

		n += s && (!strcmp(s, "done") || !strcmp(s, "doing"));
	}
	return n;
}

static void confirm_fill(struct gp_run *r, json_object *c)
{
	if (!c)
		return;
	gp_strlcpy(r->confirm, str(c, "state"), sizeof(r->confirm));
	r->deadline = json_object_get_int64(json_object_object_get(c, "deadline"));
}

static void run_fill(struct gp_run *r, const char *name)
{
	char path[600], why[256] = "";
	json_object *doc;
	json_object *seq;

	snprintf(r->run_id, sizeof(r->run_id), "%.*s", (int)(strlen(name) - 5), name);
	snprintf(path, sizeof(path), "%s/%s", gp_journal_dir(), name);
	if (gp_journal_load(path, &doc, why, sizeof(why))) {
		snprintf(r->error, sizeof(r->error), "%s", why[0] ? why : "cannot open it");
		gp_strlcpy(r->status, "invalid", sizeof(r->status));
		return;
	}
	r->valid = true;
	gp_strlcpy(r->status, str(doc, "status"), sizeof(r->status));
	gp_strlcpy(r->profile, str(doc, "profile") ? str(doc, "profile") : "", sizeof(r->profile));
	seq = json_object_object_get(doc, "seq");
	r->seq = json_object_is_type(seq, json_type_int) ? json_object_get_int64(seq) : 0;
	r->nsteps = json_object_array_length(json_object_object_get(doc, "steps"));
	r->undoable = count_undoable(doc);
	r->interrupted = !strcmp(r->status, "running") || !strcmp(r->status, "rolling_back");
	confirm_fill(r, json_object_object_get(doc, "confirm"));
	json_object_put(doc);
}

static int run_cmp(const void *a, const void *b)
{
	const struct gp_run *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->run_id, y->run_id);
}

static bool journal_name(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && n < 69 && !strcmp(name + n - 5, ".json") && name[0] != '.';
}

/* Every journal, oldest first; an empty list when the directory does not exist. */
int gp_journal_runs(struct gp_run **runs, size_t *n, char *why, size_t len)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 8;
	int rc = dir_check(why, len);

	*runs = NULL;
	*n = 0;
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	d = opendir(gp_journal_dir());
	if (!d)
		return -errno;
	*runs = gp_xcalloc(cap, sizeof(**runs));
	while ((e = readdir(d))) {
		if (!journal_name(e->d_name))
			continue;
		if (*n == cap) {
			cap *= 2;
			*runs = gp_xrealloc(*runs, cap, sizeof(**runs));
		}
		memset(&(*runs)[*n], 0, sizeof(**runs));
		run_fill(&(*runs)[(*n)++], e->d_name);
	}
	closedir(d);
	qsort(*runs, *n, sizeof(**runs), run_cmp);
	return 0;
}

bool gp_run_pending(const struct gp_run *r)
{
	return !r->valid || r->interrupted || (r->undoable && strcmp(r->status, "rolled_back"));
}

/*
 * What plain rollback undoes next: an invalid journal stops it; then an
 * interrupted run (newest first), then the newest run left to undo.
 */
const struct gp_run *gp_run_next(const struct gp_run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!runs[i].valid)
			return &runs[i];
	for (i = n; i-- > 0;)
		if (runs[i].interrupted)
			return &runs[i];
	for (i = n; i-- > 0;)
		if (gp_run_pending(&runs[i]))
			return &runs[i];
	return NULL;
}

/* What keeps apply from starting: a run left half-done, or a journal it cannot read. */
const struct gp_run *gp_run_blocking(const struct gp_run *runs, size_t n)
{
	const struct gp_run *r = gp_run_next(runs, n);

	if (r && (!r->valid || r->interrupted || !strcmp(r->status, "rollback_failed")))
		return r;
	return NULL;
}

/*
 * Applied and neither confirmed nor rolled back: apply waits for it
 * (confirm or rollback), also when its deadline passed and its watcher did
 * not act (killed, or the host rebooted).
 */
bool gp_run_unconfirmed(const struct gp_run *r)
{
	return r->valid && !strcmp(r->confirm, "pending") && !strcmp(r->status, "done");
}

/* ---- creating, opening ---- */

/* The journal directory, created 0700: journals keep what undo puts back. */
static int make_dir(void)
{
	const char *dir = gp_journal_dir();
	int rc = gp_write_mkdir(dir, 0700);

	if (rc)
		gp_err("cannot create '%s': %s", dir, gp_write_strerror(rc));
	return rc;
}

static long long next_seq(void)
{
	struct gp_run *runs;
	char why[256];
	long long seq = 0;
	size_t n, i;

	if (gp_journal_runs(&runs, &n, why, sizeof(why)))
		return 1;
	for (i = 0; i < n; i++)
		if (runs[i].seq > seq)
			seq = runs[i].seq;
	free(runs);
	return seq + 1;
}

/* The failed findings the operator went ahead despite (--accept, --force-mgmt). */
static json_object *accepted_json(const struct gp_plan *plan)
{
	json_object *arr = json_object_new_array();
	int i;

	for (i = 0; i < plan->naccepted; i++)
		json_object_array_add(arr, json_object_new_string(plan->accepted[i]));
	return arr;
}

int gp_journal_create(struct gp_journal *j, const char *profile, const struct gp_plan *plan)
{
	json_object *steps = json_object_new_array();
	char stamp[32];
	time_t now = time(NULL);
	size_t i;
	int rc;

	memset(j, 0, sizeof(*j));
	rc = make_dir();
	if (rc) {
		json_object_put(steps);
		return rc;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
	snprintf(j->run_id, sizeof(j->run_id), "%s-%d", stamp, (int)getpid());
	snprintf(j->path, sizeof(j->path), "%s/%s.json", gp_journal_dir(), j->run_id);
	j->doc = json_object_new_object();
	json_object_object_add(j->doc, "schema_version", json_object_new_int(1));
	json_object_object_add(j->doc, "run_id", json_object_new_string(j->run_id));
	json_object_object_add(j->doc, "seq", json_object_new_int64(next_seq()));
	json_object_object_add(j->doc, "profile", json_object_new_string(profile));
	json_object_object_add(j->doc, "status", json_object_new_string("running"));
	for (i = 0; i < plan->n; i++) {
		const struct gp_step *st = &plan->steps[i];
		json_object *o = gp_step_json(st);

		json_object_object_add(o, "arg", json_object_new_string(st->arg));
		json_object_object_add(o, "state", json_object_new_string("pending"));
		json_object_object_add(o, "undo", json_object_new_object());
		json_object_array_add(steps, o);
	}
	json_object_object_add(j->doc, "steps", steps);
	json_object_object_add(j->doc, "accepted", accepted_json(plan));
	return gp_journal_save(j);
}

/* Opens a run's journal, checked; -ENOENT when there is none, -EINVAL when it is refused. */
int gp_journal_open(struct gp_journal *j, const char *run_id)
{
	char why[256] = "";
	int rc;

	memset(j, 0, sizeof(*j));
	if (!word(run_id, sizeof(j->run_id) - 1, "_.-")) {
		gp_err("bad run ID '%s'", run_id);
		return -EINVAL;
	}
	gp_strlcpy(j->run_id, run_id, sizeof(j->run_id));
	snprintf(j->path, sizeof(j->path), "%s/%s.json", gp_journal_dir(), j->run_id);
	rc = dir_check(why, sizeof(why));
	if (!rc)
		rc = gp_journal_load(j->path, &j->doc, why, sizeof(why));
	if (rc == -ENOENT) {
		gp_err("no journal '%s'", j->path);
		return rc;
	}
	if (rc) {
		gp_err("refusing the journal '%s': %s", j->path, why[0] ? why : strerror(-rc));
		return -EINVAL;
	}
	return 0;
}

void gp_journal_close(struct gp_journal *j)
{
	if (j->doc)
		json_object_put(j->doc);
	j->doc = NULL;
}

size_t gp_journal_nsteps(struct gp_journal *j)
{
	return json_object_array_length(json_object_object_get(j->doc, "steps"));
}

json_object *gp_journal_step(struct gp_journal *j, size_t i)
{
	return json_object_array_get_idx(json_object_object_get(j->doc, "steps"), i);
}

void gp_journal_set(struct gp_journal *j, size_t i, const char *state)
{
	json_object_object_add(gp_journal_step(j, i), "state", json_object_new_string(state));
}

void gp_journal_status(struct gp_journal *j, const char *status)
{
	json_object_object_add(j->doc, "status", json_object_new_string(status));
}

/* ---- what apply --json and rollback --json may show ---- */

/* A file record without its bytes: size and digest, the xattrs' names. */
static void redact_file(json_object *f)
{
	json_object *x = json_object_object_get(f, "xattrs"), *names;
	const char *prev = str(f, "previous");
	char sha[65];

	json_object_object_del(f, "content");
	if (prev) { /* a legacy record */
		gp_sha256_hex(prev, strlen(prev), sha);
		json_object_object_add(f, "previous_sha256", json_object_new_string(sha));
		json_object_object_del(f, "previous");
	}
	if (!json_object_is_type(x, json_type_object))
		return;
	names = json_object_new_array();
	json_object_object_foreach (x, key, val) {
		(void)val;
		json_object_array_add(names, json_object_new_string(key));
	}
	json_object_object_add(f, "xattrs", names);
}

static void redact_step(json_object *o)
{
	json_object *undo = json_object_object_get(o, "undo");
	json_object *files = json_object_object_get(undo, "files");
	const char *prev = str(undo, "previous");
	enum gp_step_kind kind;
	char sha[65];
	size_t i;

	if (json_object_is_type(json_object_object_get(undo, "file"), json_type_object))
		redact_file(json_object_object_get(undo, "file"));
	for (i = 0;
	     json_object_is_type(files, json_type_array) && i < json_object_array_length(files);
	     i++)
		redact_file(json_object_array_get_idx(files, i));
	if (prev && !gp_step_kind_find(str(o, "kind"), &kind) &&
	    kind == GP_S_DOMAIN_DEFINE) { /* may hold secrets */
		gp_sha256_hex(prev, strlen(prev), sha);
		json_object_object_add(undo, "previous_sha256", json_object_new_string(sha));
		json_object_object_del(undo, "previous");
	}
}

/* A copy of the journal with no file content and no previous domain XML: digests instead. */
json_object *gp_journal_public(struct gp_journal *j)
{
	json_object *copy = NULL, *steps;
	size_t i;

	if (json_object_deep_copy(j->doc, &copy, NULL))
		return json_object_new_object();
	steps = json_object_object_get(copy, "steps");
	for (i = 0; i < json_object_array_length(steps); i++)
		redact_step(json_object_array_get_idx(steps, i));
	return copy;
}
