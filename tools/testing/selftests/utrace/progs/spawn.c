// SPDX-License-Identifier: GPL-2.0
/*
 * spawn MODE N PROG [ARGS...]: wait for a byte on stdin, then start N
 * children with MODE fork, vfork or thread; fork/vfork children exec PROG.
 * Waits for all of them; exits 0 if every child exited 0.
 */
#include <pthread.h>
#include <sys/wait.h>
#include "progs.h"

static void *thread_main(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	static int bad;
	int i, n, status;
	const char *mode;

	if (argc < 4) {
		fprintf(stderr, "usage: spawn fork|vfork|thread N PROG [ARGS...]\n");
		return 2;
	}
	mode = argv[1];
	n = atoi(argv[2]);
	wait_go();
	for (i = 0; i < n; i++) {
		pid_t pid;

		if (!strcmp(mode, "thread")) {
			pthread_t t;

			if (pthread_create(&t, NULL, thread_main, NULL) ||
			    pthread_join(t, NULL))
				return 2;
			continue;
		}
		pid = strcmp(mode, "vfork") ? fork() : vfork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			execv(argv[3], argv + 3);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	return bad ? 1 : 0;
}
