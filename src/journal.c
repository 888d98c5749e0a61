// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal of a run: /var/lib/gpuprov/journal/<run-id>.json, rewritten
 * (temp file, fsync, rename, fsync of the directory) before and after each
 * step, so that it survives a crash or a reboot and rollback can undo what
 * was done, or was being done, from it alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"

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
		gp_err("cannot write the journal '%s': %s", j->path, strerror(-rc));
	return rc;
}

int gp_journal_create(struct gp_journal *j, const char *profile, const struct gp_plan *plan)
{
	json_object *steps = json_object_new_array();
	char stamp[32];
	time_t now = time(NULL);
	size_t i;
	int rc;

	memset(j, 0, sizeof(*j));
	rc = gp_mkdir_p(gp_journal_dir(), false);
	if (rc) {
		gp_err("cannot create '%s': %s", gp_journal_dir(), strerror(-rc));
		return rc;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
	snprintf(j->run_id, sizeof(j->run_id), "%s-%d", stamp, (int)getpid());
	snprintf(j->path, sizeof(j->path), "%s/%s.json", gp_journal_dir(), j->run_id);
	j->doc = json_object_new_object();
	json_object_object_add(j->doc, "schema_version", json_object_new_int(1));
	json_object_object_add(j->doc, "run_id", json_object_new_string(j->run_id));
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
	return gp_journal_save(j);
}

/* The newest journal when run_id is NULL: run IDs sort by time. */
static int newest(char *run_id, size_t len)
{
	DIR *d = opendir(gp_journal_dir());
	struct dirent *e;
	int found = 0;

	if (!d)
		return -ENOENT;
	run_id[0] = '\0';
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 5, ".json"))
			continue;
		if (strncmp(e->d_name, run_id, len) > 0 || !found) {
			snprintf(run_id, len, "%.*s", (int)(n - 5), e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

int gp_journal_open(struct gp_journal *j, const char *run_id)
{
	memset(j, 0, sizeof(*j));
	if (run_id) {
		if (strchr(run_id, '/') || strlen(run_id) >= sizeof(j->run_id)) {
			gp_err("bad run ID '%s'", run_id);
			return -EINVAL;
		}
		gp_strlcpy(j->run_id, run_id, sizeof(j->run_id));
	} else if (newest(j->run_id, sizeof(j->run_id))) {
		return -ENOENT; /* never applied: the caller says so */
	}
	snprintf(j->path, sizeof(j->path), "%s/%s.json", gp_journal_dir(), j->run_id);
	j->doc = json_object_from_file(j->path);
	if (!j->doc ||
	    !json_object_is_type(json_object_object_get(j->doc, "steps"), json_type_array)) {
		gp_err("cannot read the journal '%s'", j->path);
		if (j->doc)
			json_object_put(j->doc);
		j->doc = NULL;
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

static void get_str(json_object *o, const char *key, char *out, size_t len)
{
	json_object *v = json_object_object_get(o, key);

	gp_strlcpy(out,
		   v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "",
		   len);
}

void gp_step_from_json(json_object *o, struct gp_step *st)
{
	memset(st, 0, sizeof(*st));
	get_str(o, "kind", st->kind, sizeof(st->kind));
	get_str(o, "subject", st->subject, sizeof(st->subject));
	get_str(o, "current", st->current, sizeof(st->current));
	get_str(o, "target", st->target, sizeof(st->target));
	get_str(o, "arg", st->arg, sizeof(st->arg));
	st->reversible = true;
}
