// SPDX-License-Identifier: GPL-2.0
/*
 * bench MODE N [wait]: one benchmark workload; prints "ns_per_op=<x>" (wall
 * time) and "cpu_ns_per_op=<x>" (CPU time: this process's threads and its
 * reaped children, user + system; with BENCH_TRACER_CPU=1 in the
 * environment also the parent's, which is then the ptrace tracer).
 *   forkexit   N x fork(); the child _exit(0)s; waitpid()
 *   forkexec   N x fork(); the child execs "bench nop"; waitpid()
 *   getppid    N x syscall(SYS_getppid)
 *   files      N x (openat() of a missing path, ENOENT; write() of 16 bytes
 *              to /dev/null): what an strace-class tracer decodes
 *   threads    N x getppid() in each of 2 threads (ns per call, wall time)
 *   sleepers   start N threads that sleep, print "ready", sleep forever
 * With "wait", waits for a byte on stdin first (so a tracer can attach).
 * A tenth of N runs first as a warm-up. Under QEMU -icount shift=0 a guest
 * "ns" is one guest instruction, and CPU time counts the instructions a
 * task executed, where wall time also counts the idle vCPU.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include "progs.h"

static long n;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1e9 + tv.tv_usec * 1e3;
}

/* CPU time of this process and its reaped children (and of the tracer). */
static double cpu_ns(void)
{
	const char *tracer = getenv("BENCH_TRACER_CPU");
	struct rusage self, kids;
	double t;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	t = tv_ns(self.ru_utime) + tv_ns(self.ru_stime) + tv_ns(kids.ru_utime) +
	    tv_ns(kids.ru_stime);
	if (tracer && !strcmp(tracer, "1"))
		t += sched_ns(getppid());
	return t;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void *syscall_loop(void *arg)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return arg;
}

static void files_once(void)
{
	static int null_fd = -1;

	if (null_fd < 0 && (null_fd = open("/dev/null", O_WRONLY)) < 0)
		die("/dev/null");
	if (openat(AT_FDCWD, "/tmp/utrace-bench/missing", O_RDONLY) >= 0)
		die("openat of a missing path");
	if (write(null_fd, "sixteen bytes..\n", 16) != 16)
		die("write");
}

static void run(const char *mode, long count)
{
	int status;
	long i;

	for (i = 0; i < count; i++) {
		if (!strcmp(mode, "getppid")) {
			syscall(SYS_getppid);
			continue;
		}
		if (!strcmp(mode, "files")) {
			files_once();
			continue;
		}
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			if (!strcmp(mode, "forkexec"))
				execl("/utrace/bin/bench", "bench", "nop", (char *)NULL);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
	}
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	double start, cpu;
	const char *mode;

	if (argc == 2 && !strcmp(argv[1], "nop"))
		return 0;
	if (argc < 3)
		return 2;
	mode = argv[1];
	n = atol(argv[2]);
	if (argc > 3 && !strcmp(argv[3], "wait"))
		wait_go();
	if (!strcmp(mode, "sleepers")) {
		pthread_attr_t attr;
		pthread_t t1;
		long i;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (i = 0; i < n; i++)
			if (pthread_create(&t1, &attr, sleeper, NULL))
				die("pthread_create");
		printf("ready\n");
		fflush(stdout);
		sleeper(NULL);
	}
	if (!strcmp(mode, "threads")) {
		cpu = cpu_ns();
		start = now_ns();
		pthread_create(&t[0], NULL, syscall_loop, NULL);
		pthread_create(&t[1], NULL, syscall_loop, NULL);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		printf("ns_per_op=%.1f\n", (now_ns() - start) / (2.0 * n));
		printf("cpu_ns_per_op=%.1f\n", (cpu_ns() - cpu) / (2.0 * n));
		return 0;
	}
	run(mode, n / 10);
	cpu = cpu_ns();
	start = now_ns();
	run(mode, n);
	printf("ns_per_op=%.1f\n", (now_ns() - start) / n);
	printf("cpu_ns_per_op=%.1f\n", (cpu_ns() - cpu) / n);
	return 0;
}
