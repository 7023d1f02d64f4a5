// SPDX-License-Identifier: GPL-2.0
/*
 * jobctl OUT: fork a child with three threads (the main thread and two
 * more, all looping on sched_yield()); write "<pid> <tid1> <tid2>" of the
 * child to OUT, then report what waitpid() sees, one line each on stdout:
 * "stopped <sig>" (WUNTRACED), "continued" (WCONTINUED) and, when it ends,
 * "killed <sig>" or "exited <code>".
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "progs.h"

static volatile long tids[2];

static void *spin(void *arg)
{
	tids[(long)arg] = syscall(SYS_gettid);
	for (;;)
		sched_yield();
	return NULL;
}

int main(int argc, char **argv)
{
	pid_t child;
	int status;

	if (argc != 2)
		return 2;
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		pthread_t t;
		FILE *f;

		if (pthread_create(&t, NULL, spin, (void *)0) ||
		    pthread_create(&t, NULL, spin, (void *)1))
			die("pthread_create");
		while (!tids[0] || !tids[1])
			sched_yield();
		f = fopen(argv[1], "w");
		if (!f)
			die(argv[1]);
		fprintf(f, "%d %ld %ld\n", getpid(), tids[0], tids[1]);
		fclose(f);
		for (;;)
			sched_yield();
	}
	for (;;) {
		if (waitpid(child, &status, WUNTRACED | WCONTINUED) < 0)
			die("waitpid");
		if (WIFSTOPPED(status))
			printf("stopped %d\n", WSTOPSIG(status));
		else if (WIFCONTINUED(status))
			printf("continued\n");
		else if (WIFSIGNALED(status)) {
			printf("killed %d\n", WTERMSIG(status));
			break;
		} else if (WIFEXITED(status)) {
			printf("exited %d\n", WEXITSTATUS(status));
			break;
		}
		fflush(stdout);
	}
	return 0;
}
