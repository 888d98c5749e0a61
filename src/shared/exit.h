/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exit status of every command (docs/CONTRACTS.md).  Only cli/ uses these: a
 * command turns its calls' 0 or -errno into one, main exits with it.  The one
 * exception is util.c's allocators, which exit GP_EXIT_HOST out of memory.
 */
#ifndef GP_EXIT_H
#define GP_EXIT_H

/* Exit status, the same for every command (docs/CONTRACTS.md). */
enum gp_exit {
	GP_EXIT_OK = 0,
	GP_EXIT_WARN = 1,	 /* check: warnings only; plan: changes pending */
	GP_EXIT_FAIL = 2,	 /* check: a failure; apply, rollback: refused, nothing changed */
	GP_EXIT_HOST = 3,	 /* the host state could not be read */
	GP_EXIT_INPUT = 4,	 /* usage error, bad profile */
	GP_EXIT_LOCKED = 5,	 /* another run holds the lock */
	GP_EXIT_ROLLED_BACK = 6, /* apply: a step failed, every change was undone */
	GP_EXIT_UNDO_FAILED = 7, /* apply, rollback: an undo failed, the host is left changed */
	GP_EXIT_DECLINED = 8,	 /* apply, rollback: the operator answered no, nothing changed */
};

#endif
