/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock.c: the one lock of apply and rollback runs, in /run/gpuprov. */
#ifndef GP_LOCK_H
#define GP_LOCK_H

/* the lock's descriptor while this process holds it, else -1; children close it */
extern int gp_lock_fd;
int gp_lock_take(int wait);
/*
 * Whether another run holds the lock now, without taking it (it reads
 * /proc/locks, so a run starting at this instant is never turned away):
 * 1 held, 0 free or never made, -errno when it cannot be told (not root).
 */
int gp_lock_held(void);

#endif
