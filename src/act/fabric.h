/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fabric.c: fabric.mask's reads of the live host and its one command. */
#ifndef GP_ACT_FABRIC_H
#define GP_ACT_FABRIC_H

/*
 * Whether Fabric Manager runs: a process of root's named nv-fabricmanager in
 * proc ("/proc"; a test's tree): 1, 0, or -errno when proc cannot be read.
 */
int gp_fm_running(const char *proc);
/*
 * bin (an absolute path, no shell) with argv: an empty environment but for
 * PATH and LC_ALL, stdin /dev/null, its stdout on gpuprov's stderr (never in
 * a --json document), default signal handling and none blocked, waited for
 * at most timeout_ms (then killed): 0 when it exited 0, -EIO when it failed,
 * -ETIMEDOUT, or -errno.
 */
int gp_fm_spawn(const char *bin, char *const argv[], unsigned timeout_ms);

#endif
