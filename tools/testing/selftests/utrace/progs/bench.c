// SPDX-License-Identifier: GPL-2.0
/*
 * bench MODE N [wait]: one benchmark workload; prints "ns_per_op=<x>" (wall
 * time) and "cpu_ns_per_op=<x>" (CPU time: this process's threads and its
 * reaped children, user + system; with BENCH_TRACER_CPU=1 in the
 * environment also the parent's, which is then the tracer, counted once it
 * has caught up with the loop's records).
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

/* CPU time of this process and its reaped children. */
static double self_ns(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return tv_ns(self.ru_utime) + tv_ns(self.ru_stime) + tv_ns(kids.ru_utime) +
	       tv_ns(kids.ru_stime);
}

/*
 * With BENCH_TRACER_CPU=1 in the environment, the CPU time of the tracer
 * (our parent) once it has caught up with us, else 0. A tracer that
 * buffers records (utrace trace: a session holds thousands) may still be
 * at work on the warm-up's records when the timed loop starts and on the
 * loop's when it ends: read at once, its CPU time would count the first
 * and miss the second. Caught up: over 20 ms it ran less than 1 ms (the
 * records of these checks' own syscalls).
 */
static double tracer_ns(void)
{
	const char *tracer = getenv("BENCH_TRACER_CPU");
	double a, b;
	int i;

	if (!tracer || strcmp(tracer, "1"))
		return 0;
	b = sched_ns(getppid());
	for (i = 0; i < 500; i++) {
		a = b;
		usleep(20000);
		b = sched_ns(getppid());
		if (b - a < 1e6)
			break;
	}
	return b;
}

/* CPU time of this process, its reaped children and a caught-up tracer. */
static double cpu_ns(void)
{
	return self_ns() + tracer_ns();
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
	cpu = -tracer_ns();
	cpu -= self_ns();
	start = now_ns();
	run(mode, n);
	cpu += self_ns();
	printf("ns_per_op=%.1f\n", (now_ns() - start) / n);
	cpu += tracer_ns();
	printf("cpu_ns_per_op=%.1f\n", cpu / n);
	return 0;
}
