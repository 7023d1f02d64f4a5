// SPDX-License-Identifier: GPL-2.0
/*
 * ptracer MODE PROG [ARGS...]: what users do today instead of utrace: run
 * PROG under ptrace and observe it, doing nothing else.
 *   life  PTRACE_O_TRACEFORK|VFORK|CLONE|EXEC|EXIT, PTRACE_CONT: lifecycle
 *         events of PROG and every child it creates (like utrace's CLONE,
 *         EXEC, DEATH)
 *   sys   PTRACE_SYSCALL with TRACESYSGOOD: every syscall entry and exit
 * Exits with PROG's exit status.
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "progs.h"

int main(int argc, char **argv)
{
	int status, sys, ret = 0;
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC;
	pid_t child, pid;

	if (argc < 3)
		return 2;
	sys = !strcmp(argv[1], "sys");
	opts |= sys ? PTRACE_O_TRACESYSGOOD :
		      PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
		      PTRACE_O_TRACEEXIT;
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			die("traceme");
		raise(SIGSTOP);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");
	if (ptrace(PTRACE_SETOPTIONS, child, 0, opts))
		die("setoptions");
	ptrace(sys ? PTRACE_SYSCALL : PTRACE_CONT, child, 0, 0);
	while ((pid = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (pid == child)
				ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			continue;
		}
		if (WIFSTOPPED(status)) {
			int s = WSTOPSIG(status);

			/* Deliver real signals, swallow our stops. */
			if (s != (SIGTRAP | 0x80) && s != SIGTRAP && s != SIGSTOP)
				sig = s;
		}
		ptrace(sys ? PTRACE_SYSCALL : PTRACE_CONT, pid, 0, sig);
	}
	return ret;
}
