// SPDX-License-Identifier: GPL-2.0
/*
 * ptracer MODE PROG [ARGS...]: what users do today instead of utrace: run
 * PROG under ptrace and observe it, doing nothing else.
 *   life  PTRACE_O_TRACEFORK|VFORK|CLONE|EXEC|EXIT, PTRACE_CONT: lifecycle
 *         events of PROG and every child it creates (like utrace's CLONE,
 *         EXEC, DEATH)
 *   sys   PTRACE_SYSCALL with TRACESYSGOOD: every syscall entry and exit
 * Exits with PROG's exit status.
 *
 * ptracer interrupt PID N: PTRACE_SEIZE the running PID, then N times
 * PTRACE_INTERRUPT, wait for its stop, PTRACE_CONT (utrace's STOP/RESUME
 * round trip); prints "ns_per_op=<ns>" (wall time) and "cpu_ns_per_op=<ns>"
 * (the CPU time of the tracer and of PID's thread) and detaches.
 */
#include <sys/resource.h>
#include <time.h>
#include "ptrace_run.h"

/*
 * CPU time of this process (getrusage: exact for the running task, where
 * its /proc/self/sched figure lags until the scheduler next updates it) and
 * of @pid, which is not running while we are (one vCPU).
 */
static double cpu_ns(pid_t pid)
{
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	return (self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1e9 +
	       (self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e3 + sched_ns(pid);
}

static int interrupt_loop(pid_t pid, long n)
{
	struct timespec a, b;
	double cpu;
	int status;
	long i;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0))
		die("seize");
	cpu = cpu_ns(pid);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0))
			die("interrupt");
		if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status))
			die("waitpid");
		if (ptrace(PTRACE_CONT, pid, 0, 0))
			die("cont");
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	cpu = cpu_ns(pid) - cpu;
	printf("ns_per_op=%lld\n", ((b.tv_sec - a.tv_sec) * 1000000000LL +
				    (b.tv_nsec - a.tv_nsec)) / n);
	printf("cpu_ns_per_op=%.0f\n", cpu / n);
	ptrace(PTRACE_INTERRUPT, pid, 0, 0);
	waitpid(pid, &status, __WALL);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC;
	int sys;

	if (argc == 4 && !strcmp(argv[1], "interrupt") && atol(argv[3]) > 0)
		return interrupt_loop(atoi(argv[2]), atol(argv[3]));
	if (argc < 3)
		return 2;
	sys = !strcmp(argv[1], "sys");
	opts |= sys ? PTRACE_O_TRACESYSGOOD :
		      PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
		      PTRACE_O_TRACEEXIT;
	return ptrace_run(argv + 2, opts, sys ? PTRACE_SYSCALL : PTRACE_CONT, NULL, NULL);
}
