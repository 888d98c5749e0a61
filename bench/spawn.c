// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/spawn: runs a command and prints "WALL_S CPU_S MAXRSS_KB STATUS".
 * make bench measures through it because a child of Python starts with the
 * interpreter's resident pages in its ru_maxrss (exec keeps the old
 * high-water mark, fork and vfork alike): started from this small process
 * the figure is the command's own.  stdout goes to /dev/null, stderr to
 * the file named first.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status, out, err;
	pid_t pid;

	if (argc < 3)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		out = open("/dev/null", O_WRONLY);
		err = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f %.6f %ld %d\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	       ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
