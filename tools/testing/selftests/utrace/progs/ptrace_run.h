/* SPDX-License-Identifier: GPL-2.0 */
/* The PTRACE_SYSCALL / PTRACE_CONT loop of the ptrace baselines (ptracer, ptrace_strace). */
#ifndef _UTRACE_PTRACE_RUN_H
#define _UTRACE_PTRACE_RUN_H

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "progs.h"

/*
 * Runs argv[0] (a path; argv is its argument vector) under ptrace, as a
 * tracer that only observes: PTRACE_TRACEME and a SIGSTOP before its exec,
 * PTRACE_SETOPTIONS @opts, then every stop of every tracee resumed with
 * @resume (PTRACE_CONT or PTRACE_SYSCALL) until none is left. Signal stops
 * deliver their signal; our own stops (SIGTRAP, SIGSTOP, and the
 * TRACESYSGOOD syscall stops, which @syscall_stop sees first if set) are
 * swallowed. @gone, if set, sees every tracee that ended. Returns the first
 * child's exit status (128 + the signal that killed it).
 */
static inline int ptrace_run(char **argv, long opts, int resume,
			     void (*syscall_stop)(pid_t pid), void (*gone)(pid_t pid))
{
	int status, ret = 0;
	pid_t child, pid;

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			die("traceme");
		raise(SIGSTOP);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");
	if (ptrace(PTRACE_SETOPTIONS, child, 0, opts))
		die("setoptions");
	ptrace(resume, child, 0, 0);
	while ((pid = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (pid == child)
				ret = WIFEXITED(status) ? WEXITSTATUS(status) :
							  128 + WTERMSIG(status);
			if (gone)
				gone(pid);
			continue;
		}
		if (WIFSTOPPED(status)) {
			int s = WSTOPSIG(status);

			if (s == (SIGTRAP | 0x80)) {
				if (syscall_stop)
					syscall_stop(pid);
			} else if (s != SIGTRAP && s != SIGSTOP) {
				sig = s;
			}
		}
		ptrace(resume, pid, 0, sig);
	}
	return ret;
}

#endif
