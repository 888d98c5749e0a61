// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The apply engine: lock, journal, then each step in order: record what
 * undoing needs, do it, verify it.  On the first failure the steps already
 * done are undone in reverse order.  Rollback runs the same undo from a
 * journal, after a crash or a reboot too, and does nothing the second time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "act/apply.h"
#include "shared/progress.h"

#define RUN_DIR "/run/gpuprov"

static const struct gp_actuator *const actuators[] = {
	&gp_act_module_load,  &gp_act_override,	    &gp_act_unbind,	&gp_act_bind,
	&gp_act_persist_vfio, &gp_act_domain_write, &gp_act_nccl_write, &gp_act_domain_define,
	&gp_act_bond_create,  &gp_act_bond_enslave, &gp_act_link_up,	&gp_act_persist_bond,
};

const struct gp_actuator *gp_actuator_find(const char *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(actuators); i++)
		if (!strcmp(actuators[i]->kind, kind))
			return actuators[i];
	return NULL;
}

int gp_lock_fd = -1; /* children close it: the lock is the run's, not theirs */

/*
 * The lock's directory: root's with mode 0700, so that only root can create,
 * replace or flock what is in it.  (In the world-writable /run/lock anyone
 * could plant a link there for root to truncate, or hold the lock forever.)
 * GPUPROV_RUN_DIR moves it, for tests that must not meet the host's runs.
 */
static int lock_dir(char *dir, size_t len)
{
	const char *env = getenv("GPUPROV_RUN_DIR");
	struct stat st;

	snprintf(dir, len, "%s", env && *env ? env : RUN_DIR);
	if ((mkdir(dir, 0700) && errno != EEXIST) || lstat(dir, &st)) {
		int rc = -errno;

		gp_err("cannot create '%s': %s", dir, strerror(-rc));
		return rc;
	}
	if (S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 077))
		return 0;
	gp_err("refusing the lock directory '%s': it must be a directory of root's with mode "
	       "0700",
	       dir);
	return -EPERM;
}

/* Never through a link; only a regular file of root's, linked nowhere else. */
static int lock_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0) {
		gp_err("cannot open the lock '%s': %s", path, strerror(errno));
		return -EPERM;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == 0 && st.st_nlink == 1 &&
	    !(st.st_mode & 077))
		return fd;
	gp_err("refusing the lock '%s': it must be a regular file of root's with mode 0600", path);
	close(fd);
	return -EPERM;
}

/*
 * Held until the process ends; a second run learns the holder's PID.  wait:
 * seconds to keep trying (rollback after a crash may meet a dying run).
 * -EWOULDBLOCK when another run holds it.
 */
int gp_lock_take(int wait)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	char dir[PATH_MAX], path[PATH_MAX + 8], buf[32];
	int fd, tries = wait * 10;
	ssize_t n;

	fd = lock_dir(dir, sizeof(dir));
	if (fd)
		return fd;
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = lock_open(path);
	if (fd < 0)
		return fd;
	while (flock(fd, LOCK_EX | LOCK_NB) && tries-- > 0)
		nanosleep(&tick, NULL);
	if (tries < 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		gp_err("another gpuprov run (PID %s) holds '%s'", buf[0] ? buf : "unknown", path);
		close(fd);
		return -EWOULDBLOCK;
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0)
		gp_warn("cannot write the PID into '%s'", path);
	gp_lock_fd = fd;
	return 0; /* fd stays open: the lock lives as long as we do */
}

/* GPUPROV_STEP_DELAY: seconds to pause after each step (demonstrations, tests). */
static void step_delay(void)
{
	const char *s = getenv("GPUPROV_STEP_DELAY");
	double secs = s ? atof(s) : 0;
	struct timespec ts;

	if (secs <= 0)
		return;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/*
 * What an operator types to finish an undo that failed, per step kind: the
 * command that gives back what the step changed (the journal keeps files'
 * previous content and the previous domain XML for rollback to retry).
 */
static void by_hand(const struct gp_journal *j, size_t i, const struct gp_step *st)
{
	char how[400];
	const char *k = st->kind;

	if (!strcmp(k, "module.load"))
		snprintf(how, sizeof(how), "modprobe -r %s", st->arg);
	else if (!strcmp(k, "device.override"))
		snprintf(how, sizeof(how), "echo '%s' > /sys/bus/pci/devices/%s/driver_override",
			 strcmp(st->current, "(none)") ? st->current : "", st->subject);
	else if (!strcmp(k, "device.unbind"))
		snprintf(how, sizeof(how), "echo %s > /sys/bus/pci/drivers/%s/bind", st->subject,
			 st->arg);
	else if (!strcmp(k, "device.bind"))
		snprintf(how, sizeof(how), "echo %s > /sys/bus/pci/drivers/%s/unbind", st->subject,
			 st->arg);
	else if (!strcmp(k, "bond.create"))
		snprintf(how, sizeof(how), "ip link delete %s", st->subject);
	else if (!strcmp(k, "bond.enslave"))
		snprintf(how, sizeof(how), "ip link set dev %s nomaster", st->subject);
	else if (!strcmp(k, "link.up"))
		snprintf(how, sizeof(how), "ip link set dev %s down", st->subject);
	else if (!strcmp(k, "domain.write") && !strcmp(st->current, "absent"))
		snprintf(how, sizeof(how), "rm -r %s", st->subject);
	else if (!strcmp(k, "domain.define"))
		snprintf(how, sizeof(how), "virsh undefine %s (or define the previous XML)",
			 st->subject);
	else
		snprintf(how, sizeof(how), "put back or remove the files of step %zu's undo record",
			 i + 1);
	gp_err("left changed: step %zu %s %s (was: %s); by hand: %s; the record is in '%s'", i + 1,
	       k, st->subject, st->current, how, j->path);
}

/*
 * A step's line when it starts and when it is verified (or undone), with its
 * duration: on a terminal only (progress.c); a log keeps its gp_info lines.
 */
static void step_started(const char *word, size_t i, size_t n, const struct gp_step *st,
			 const char *from, const char *to)
{
	gp_progress_line(GP_TONE_NONE, word, "[%zu/%zu] %s %s: %s -> %s", i + 1, n, st->kind,
			 st->subject, from, to);
}

static void step_ended(int rc, const char *what, size_t i, size_t n, const struct gp_step *st,
		       double t0)
{
	gp_progress_line(rc ? GP_TONE_FAIL : GP_TONE_OK, rc ? "FAIL " : "ok   ",
			 "[%zu/%zu] %s %s: %s in %.2f s", i + 1, n, st->kind, st->subject,
			 rc ? "failed" : what, gp_now() - t0);
}

/* Undo works from the journal's record alone: no context. */
static const struct gp_apply_ctx none;

static int undo_one(struct gp_journal *j, size_t i)
{
	json_object *o = gp_journal_step(j, i), *undo;
	const char *state = json_object_get_string(json_object_object_get(o, "state"));
	const struct gp_actuator *a;
	struct gp_step st;
	double t0;
	int rc;

	if (!state || (strcmp(state, "done") && strcmp(state, "doing")))
		return 0;
	gp_step_from_json(o, &st);
	a = gp_actuator_find(st.kind);
	if (!a) {
		gp_err("step %zu: unknown kind '%s' in the journal", i + 1, st.kind);
		return -EINVAL;
	}
	undo = json_object_object_get(o, "undo");
	if (gp_progress_on()) /* undoing goes back from the target */
		step_started("undo ", i, gp_journal_nsteps(j), &st, st.target, st.current);
	else
		gp_info("undo %s %s", st.kind, st.subject);
	t0 = gp_now();
	rc = a->undo(&none, &st, undo);
	step_ended(rc, "undone", i, gp_journal_nsteps(j), &st, t0);
	if (rc) {
		by_hand(j, i, &st);
		return rc;
	}
	gp_journal_set(j, i, "undone");
	return gp_journal_save(j);
}

/*
 * Undoes steps [0, upto) in reverse; keeps going past a failure, reports it.
 * -ENOTRECOVERABLE when a step is left changed.
 */
static int undo_range(struct gp_journal *j, size_t upto)
{
	int rc = 0;

	while (upto-- > 0)
		if (undo_one(j, upto))
			rc = -ENOTRECOVERABLE;
	return rc;
}

static int precheck_all(const struct gp_apply_ctx *ctx, const struct gp_plan *plan)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < plan->n; i++) {
		const struct gp_actuator *a = gp_actuator_find(plan->steps[i].kind);

		if (!a) {
			gp_err("no actuator for '%s'", plan->steps[i].kind);
			return -EINVAL;
		}
		if (a->precheck && a->precheck(ctx, &plan->steps[i]))
			rc = -EINVAL;
	}
	return rc;
}

/* The actuator's verify, or else: done() must say the step holds now. */
static int verify(const struct gp_apply_ctx *ctx, const struct gp_actuator *a,
		  const struct gp_step *st)
{
	if (a->verify)
		return a->verify(ctx, st);
	if (a->done(ctx, st) > 0)
		return 0;
	gp_err("%s %s: not as the step left it", st->kind, st->subject);
	return -EIO;
}

static int run_one(const struct gp_apply_ctx *ctx, struct gp_journal *j, const struct gp_step *st,
		   size_t i, size_t n)
{
	const struct gp_actuator *a = gp_actuator_find(st->kind);
	json_object *undo = json_object_object_get(gp_journal_step(j, i), "undo");
	double t0 = gp_now();
	int rc;

	if (a->done(ctx, st) > 0) {
		if (gp_progress_on())
			gp_progress_line(GP_TONE_OK, "ok   ", "[%zu/%zu] %s %s: already done",
					 i + 1, n, st->kind, st->subject);
		else
			gp_info("[%zu] %s %s: already done", i + 1, st->kind, st->subject);
		gp_journal_set(j, i, "skipped");
		return gp_journal_save(j);
	}
	rc = a->record(ctx, st, undo);
	if (rc)
		return rc;
	gp_journal_set(j, i, "doing");
	rc = gp_journal_save(j); /* on disk before the host changes */
	if (rc)
		return rc;
	if (gp_progress_on())
		step_started("start", i, n, st, st->current, st->target);
	else
		gp_info("[%zu] %s %s: %s -> %s", i + 1, st->kind, st->subject, st->current,
			st->target);
	rc = a->run(ctx, st);
	if (!rc)
		rc = verify(ctx, a, st);
	step_ended(rc, "verified", i, n, st, t0);
	if (rc)
		return rc;
	gp_journal_set(j, i, "done");
	rc = gp_journal_save(j);
	step_delay();
	return rc;
}

int gp_apply_run(const struct gp_apply_ctx *ctx, struct gp_plan *plan, const char *profile,
		 struct gp_journal *j)
{
	size_t i;
	int rc;

	rc = precheck_all(ctx, plan);
	if (rc) {
		gp_err("a precondition does not hold: nothing was changed");
		return -ECANCELED;
	}
	rc = gp_journal_create(j, profile, plan);
	if (rc)
		return -ECANCELED;
	gp_info("run %s: journal %s", j->run_id, j->path);
	/* the point of no return: from here on the host changes */
	for (i = 0; i < plan->n; i++) {
		rc = run_one(ctx, j, &plan->steps[i], i, plan->n);
		if (!rc)
			continue;
		gp_err("step %zu (%s %s) failed: undoing the steps before it", i + 1,
		       plan->steps[i].kind, plan->steps[i].subject);
		gp_journal_set(j, i, "doing"); /* it may have half-happened */
		gp_journal_save(j);
		rc = undo_range(j, i + 1);
		gp_journal_status(j, rc ? "rollback_failed" : "rolled_back");
		if (gp_journal_save(j))
			rc = -ENOTRECOVERABLE; /* rollback must find the run unfinished */
		return rc ? rc : -EIO;
	}
	gp_journal_status(j, "done");
	return gp_journal_save(j);
}

int gp_rollback_run(struct gp_journal *j)
{
	int rc;

	gp_journal_status(j, "rolling_back"); /* killed now, it is still interrupted */
	rc = gp_journal_save(j);
	if (rc)
		return -ECANCELED;
	rc = undo_range(j, gp_journal_nsteps(j));

	gp_journal_status(j, rc ? "rollback_failed" : "rolled_back");
	if (gp_journal_save(j))
		return -ENOTRECOVERABLE;
	return rc;
}
