/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confirm.c: apply --confirm-within's safety net.  The run's journal keeps
 * a record "confirm": {state, within, deadline, watcher, session, at}; a
 * watcher, detached from the operator's session, rolls the run back at its
 * deadline unless 'gpuprov confirm' changed the state first.
 */
#ifndef GP_CONFIRM_H
#define GP_CONFIRM_H

#include <stdbool.h>
#include <json.h>

#include "act/journal.h"

/* the longest deadline apply takes, in seconds: a day */
#define GP_CONFIRM_MAX 86400

/*
 * Starts the watcher of run j (gpuprov confirm watch RUN-ID, re-executed:
 * its own session, no terminal, SIGHUP ignored, stderr to the run's
 * confirm log) and writes the pending record into j (not saved: the caller
 * saves it with the run's status).  0, or -errno when no watcher runs.
 */
int gp_confirm_arm(struct gp_journal *j, unsigned within);

/* The record's state ("pending", ...), NULL without one; its numbers, 0 without. */
const char *gp_confirm_state(struct gp_journal *j);
long long gp_confirm_num(struct gp_journal *j, const char *key);
/* Sets the record's state and when (now). */
void gp_confirm_settle(struct gp_journal *j, const char *state);
/* Where the watcher of run_id writes what it did: the journal's directory. */
void gp_confirm_log_path(const char *run_id, char *path, size_t len);

#endif
