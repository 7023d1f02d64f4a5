/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the selftests' guest programs. */
#ifndef _UTRACE_PROGS_H
#define _UTRACE_PROGS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UTRACE_TEST_CTL "/sys/kernel/debug/utrace_test/ctl"

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * fork() behind a gate: the parent gets the child's pid, and in *gate the
 * write end of a pipe, a byte on which opens the gate; the child gets 0
 * once the gate opened (it exits with @closed if the gate closed first).
 * For a tracer that attaches before the child does anything.
 */
static inline pid_t fork_gated(int *gate, int closed)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(closed);
		return 0;
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

/*
 * The CPU time task @pid has run, in ns (its sum_exec_runtime, from
 * /proc/PID/sched: CONFIG_SCHED_DEBUG). Under QEMU -icount shift=0 that is
 * the instructions it executed. Exact for a task that is not running (the
 * figure of the running one lags until the scheduler next updates it).
 */
static inline double sched_ns(pid_t pid)
{
	char path[64], line[256];
	double ms = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "se.sum_exec_runtime : %lf", &ms) == 1)
			break;
	fclose(f);
	return ms * 1e6;
}

/*
 * The state letter of /proc/PID/stat (a thread id works too): 'I' for a
 * utrace stop, 'T' stopped, 'Z' a zombie, ...; '?' if there is none.
 */
static inline char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

/*
 * Sends one command to utrace_test.ko (or to the ctl file $UTRACE_CTL
 * names); returns 0 or the negative errno.
 */
static inline int ctl(const char *cmd)
{
	const char *path = getenv("UTRACE_CTL") ? getenv("UTRACE_CTL") : UTRACE_TEST_CTL;
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		die(path);
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * The safe detach of utrace_test's SLOT: DETACH, and barrier if a callback
 * may be in flight. barrier's -ESRCH means the callback ended before it was
 * called; it still waited for the full detach, so that is success. Returns
 * 0 or the negative errno.
 */
static inline int ctl_detach(int slot)
{
	char cmd[32];
	int ret;

	snprintf(cmd, sizeof(cmd), "control %d 6", slot);
	ret = ctl(cmd);
	if (ret == -EINPROGRESS) {
		snprintf(cmd, sizeof(cmd), "barrier %d", slot);
		ret = ctl(cmd);
		if (ret == -ESRCH)
			ret = 0;
	}
	return ret;
}

/* Waits for one byte on standard input (the test's "go"). */
static inline void wait_go(void)
{
	char c;

	if (read(0, &c, 1) < 0)
		die("read go");
}

/* The next number of a seeded xorshift64 sequence, from *state (not 0). */
static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
