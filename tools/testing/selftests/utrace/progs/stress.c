// SPDX-License-Identifier: GPL-2.0
/*
 * stress SECONDS THREADS: the reliability stress workload. Attaches a global
 * CLONE|EXEC|DEATH engine of utrace_test.ko (slot 15) that counts only this
 * process and its children and sleeps in each callback (so signals land
 * mid-callback), then runs THREADS threads for SECONDS. Each thread forks
 * children in a loop: most exec "stress child" and exit; every third execs
 * "stress victim", which waits forever, and is SIGKILLed 0-2 ms after the
 * fork (before, during or after its exec and its callbacks). At the end it
 * waits until every thread's DEATH was reported, detaches, and prints
 *
 *   workload: clone=C death=D exec_min=E1 exec_max=E2 victims=V
 *
 * clone and death are exact (every fork and thread); a victim's EXEC may or
 * may not happen before the kill, hence the EXEC bounds.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include "progs.h"

static time_t deadline;
static long forks[64], victims[64];

static void *worker(void *arg)
{
	long id = (long)arg, i;
	unsigned int seed = (unsigned int)id * 7919u + 1;

	for (i = 0; time(NULL) < deadline; i++) {
		int victim = i % 3 == 2, status;
		pid_t pid = fork();

		if (pid < 0) {
			/* Out of pids or memory for a moment: not a failure. */
			usleep(1000);
			continue;
		}
		if (pid == 0) {
			execl("/proc/self/exe", "stress", victim ? "victim" : "child",
			      (char *)NULL);
			_exit(127);
		}
		forks[id]++;
		if (victim) {
			struct timespec ts = { 0, (long)(rand_r(&seed) % 2000) * 1000 };

			victims[id]++;
			nanosleep(&ts, NULL);
			kill(pid, SIGKILL);
		}
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (!victim && !(WIFEXITED(status) && WEXITSTATUS(status) == 7)) {
			fprintf(stderr, "stress: child %d ended with status 0x%x\n", pid, status);
			exit(2);
		}
		if (victim && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
			fprintf(stderr, "stress: victim %d ended with status 0x%x\n", pid, status);
			exit(2);
		}
	}
	return NULL;
}

/* Threads of this process still listed (gone only after their DEATH report). */
static int threads_left(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	if (!d)
		die("/proc/self/task");
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	long clones = 0, nvictims = 0;
	pthread_t tids[64];
	int secs, nthreads, i, ret;
	char cmd[64];

	if (argc == 2 && !strcmp(argv[1], "child"))
		return 7;
	if (argc == 2 && !strcmp(argv[1], "victim")) {
		for (;;)
			pause();
	}
	if (argc != 3)
		return 2;
	secs = atoi(argv[1]);
	nthreads = atoi(argv[2]);
	if (secs <= 0 || nthreads <= 0 || nthreads > 64)
		return 2;
	snprintf(cmd, sizeof(cmd), "filter %d", getpid());
	if (ctl("reset") || ctl(cmd) || ctl("attach 15 0 0x110") || ctl("events 15 0x2c") ||
	    ctl("slow 15 200")) {
		fprintf(stderr, "stress: cannot attach the global engine\n");
		return 2;
	}
	deadline = time(NULL) + secs;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)(long)i))
			die("pthread_create");
	for (i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		clones += forks[i];
		nvictims += victims[i];
	}
	while (threads_left() > 1)
		usleep(10000);
	ctl("slow 15 0");
	ret = ctl_detach(15);
	if (ret) {
		fprintf(stderr, "stress: detach (and barrier) returned %d\n", ret);
		return 2;
	}
	ctl("put 15");
	ctl("filter 0");
	printf("workload: clone=%ld death=%ld exec_min=%ld exec_max=%ld victims=%ld\n",
	       clones + nthreads, clones + nthreads, clones - nvictims, clones, nvictims);
	return 0;
}
