// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lock of a run: apply and rollback take it before the journal, so that
 * one run at a time changes the host; a second learns the holder's PID.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "act/lock.h"
#include "shared/log.h"

#define RUN_DIR "/run/gpuprov"

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

/* Whether /proc/locks has a lock on the inode dev:ino. */
static int proc_locked(dev_t dev, ino_t ino)
{
	char line[256], want[64];
	FILE *f = fopen("/proc/locks", "re");
	int held = 0;

	if (!f)
		return -errno;
	snprintf(want, sizeof(want), " %02x:%02x:%llu ", major(dev), minor(dev),
		 (unsigned long long)ino);
	while (!held && fgets(line, sizeof(line), f))
		held = strstr(line, "FLOCK") && strstr(line, want);
	fclose(f);
	return held;
}

int gp_lock_held(void)
{
	const char *env = getenv("GPUPROV_RUN_DIR");
	char path[PATH_MAX + 8];
	struct stat st;

	snprintf(path, sizeof(path), "%s/lock", env && *env ? env : RUN_DIR);
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return proc_locked(st.st_dev, st.st_ino);
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
