// SPDX-License-Identifier: GPL-2.0
/*
 * sessstop PID N [split]: a /dev/utrace session's stop round trip on the running
 * PID, in the shape of `ptracer interrupt` (PTRACE_INTERRUPT, waitpid,
 * PTRACE_CONT): N times UTRACE_CTL_STOP, read() until the STOPPED record,
 * UTRACE_CTL_RESUME, the next STOP at once. In both loops the task does not
 * return to user space between round trips. Prints "ns_per_op=<ns>" (wall
 * time, the mean), "median_ns=<ns>" (each round trip timed on its own), its
 * "p99_ns=<ns>" and "max_ns=<ns>", with "split" "split_ns=<stop> <read>
 * <resume>" (the median of each call apart, at the cost of two more clock
 * reads a round trip) and "cpu_ns_per_op=<ns>" (the CPU time of
 * this process and of PID's thread), then detaches (the task runs on).
 * make bench's stop rows.
 */
#include <sys/resource.h>
#include <time.h>
#include "sess.h"

#define MAX_ROUNDS 100000

static long long took[MAX_ROUNDS];
/* Each round trip's three calls, timed apart: UTRACE_CTL_STOP, the read()s
 * until the STOPPED record, UTRACE_CTL_RESUME. */
static long long part[3][MAX_ROUNDS];
static unsigned char buf[64 * UTRACE_REC_SIZE];

static double cpu_ns(pid_t pid)
{
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	return (self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1e9 +
	       (self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e3 + sched_ns(pid);
}

static long long ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void ctl_or_die(int fd, __u64 id, __u32 action)
{
	struct utrace_control c = { .size = sizeof(c), .action = action, .engine_id = id };

	if (ioctl(fd, UTRACE_IOC_CONTROL, &c))
		die("control");
}

/* Reads until the STOPPED record. */
static void wait_stopped(int fd)
{
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			die("read");
		for (ssize_t at = 0; at < n;) {
			const struct utrace_rec_header *h = (const void *)(buf + at);

			if (h->size < sizeof(*h) || at + h->size > n)
				die("bad record");
			if (h->flags & UTRACE_REC_F_STOPPED)
				return;
			at += h->size;
		}
	}
}

int main(int argc, char **argv)
{
	struct utrace_attach a = { .size = sizeof(a), .flags = UTRACE_ATTACH_F_THREAD };
	long long start, total;
	double cpu;
	int fd, split;
	long n;

	if (argc < 3 || argc > 4 || (n = atol(argv[2])) <= 0 || n > MAX_ROUNDS)
		return 2;
	split = argc == 4 && !strcmp(argv[3], "split");
	fd = sess_open_compact(1 << 16);
	a.pid = atoi(argv[1]);
	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		die("attach");
	cpu = cpu_ns(a.pid);
	start = ns();
	for (long i = 0; i < n; i++) {
		long long t0 = ns(), t1 = 0, t2 = 0, t3;

		ctl_or_die(fd, a.engine_id, UTRACE_CTL_STOP);
		if (split)
			t1 = ns();
		wait_stopped(fd);
		if (split)
			t2 = ns();
		ctl_or_die(fd, a.engine_id, UTRACE_CTL_RESUME);
		t3 = ns();
		took[i] = t3 - t0;
		if (split) {
			part[0][i] = t1 - t0;
			part[1][i] = t2 - t1;
			part[2][i] = t3 - t2;
		}
	}
	total = ns() - start;
	cpu = cpu_ns(a.pid) - cpu;
	qsort(took, n, sizeof(took[0]), cmp_ll);
	printf("ns_per_op=%lld\n", total / n);
	printf("median_ns=%lld\n", took[n / 2]);
	/* The tail: whether the mean's distance from the median is the shape
	 * of the round trip or a few rounds a timer tick stretched. */
	printf("p99_ns=%lld\nmax_ns=%lld\n", took[99 * n / 100], took[n - 1]);
	if (split) {
		for (int k = 0; k < 3; k++)
			qsort(part[k], n, sizeof(part[k][0]), cmp_ll);
		printf("split_ns=%lld %lld %lld\n", part[0][n / 2], part[1][n / 2],
		       part[2][n / 2]);
	}
	printf("cpu_ns_per_op=%.0f\n", cpu / n);
	close(fd);
	return 0;
}
