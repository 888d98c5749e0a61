/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.c: the journal of a run, /var/lib/gpuprov/journal/<run-id>.json. */
#ifndef GP_JOURNAL_H
#define GP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <json.h>
#include "core/plan.h"

struct gp_journal {
	char path[512];
	char run_id[64];
	json_object *doc; /* the whole journal, rewritten on each change */
};

/* One journal as --list shows it. */
struct gp_run {
	char run_id[64];
	long long seq;	 /* order of the runs: 1 + the highest before it */
	char status[24]; /* the journal's, or "invalid" */
	char profile[256];
	size_t nsteps, undoable; /* undoable: steps done or being done */
	bool valid, interrupted;
	char error[256]; /* why an invalid journal is refused */
	/* apply --confirm-within: "pending", "confirmed", "timed_out"; "" without */
	char confirm[16];
	long long deadline; /* when a pending run is rolled back (seconds since the epoch) */
};

int gp_journal_create(struct gp_journal *j, const char *profile, const struct gp_plan *plan);
int gp_journal_open(struct gp_journal *j, const char *run_id);
/* checking: pure, from a buffer (fuzzed), and from a file (owner, mode, size) */
int gp_journal_check(json_object *doc, char *why, size_t len);
int gp_journal_parse(const char *buf, size_t len, json_object **doc, char *why, size_t wlen);
int gp_journal_load(const char *path, json_object **doc, char *why, size_t len);
int gp_journal_runs(struct gp_run **runs, size_t *n, char *why, size_t len);
bool gp_run_pending(const struct gp_run *r);
const struct gp_run *gp_run_next(const struct gp_run *runs, size_t n);
const struct gp_run *gp_run_blocking(const struct gp_run *runs, size_t n);
/* A run applied that waits for 'gpuprov confirm' (its deadline passed or not) */
bool gp_run_unconfirmed(const struct gp_run *r);
json_object *gp_journal_public(struct gp_journal *j);
int gp_journal_save(struct gp_journal *j);
void gp_journal_close(struct gp_journal *j);
json_object *gp_journal_step(struct gp_journal *j, size_t i);
size_t gp_journal_nsteps(struct gp_journal *j);
void gp_journal_set(struct gp_journal *j, size_t i, const char *state);
void gp_journal_status(struct gp_journal *j, const char *status);
const char *gp_journal_dir(void);

#endif
