// SPDX-License-Identifier: GPL-2.0
/*
 * storm N: the global-engine count test. Attaches a global CLONE|EXEC|DEATH
 * engine of utrace_test.ko (slot 15) counting only this process and its
 * children, forks N children that exec "storm child I" and exit with code
 * I % 256, waits for all, detaches, waits for the barrier and prints what
 * the workload did. The test compares it with what the engine counted.
 * storm child I: exit(I % 256).
 */
#include <sys/wait.h>
#include "progs.h"

int main(int argc, char **argv)
{
	int i, n, status, exits = 0, ret;
	char cmd[64];

	if (argc == 3 && !strcmp(argv[1], "child"))
		return atoi(argv[2]) % 256;
	if (argc != 2)
		return 2;
	n = atoi(argv[1]);
	snprintf(cmd, sizeof(cmd), "filter %d", getpid());
	if (ctl("reset") || ctl(cmd) || ctl("attach 15 0 0x110") || ctl("events 15 0x2c")) {
		fprintf(stderr, "storm: cannot attach the global engine\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char arg[16];

			snprintf(arg, sizeof(arg), "%d", i);
			execl("/proc/self/exe", "storm", "child", arg, (char *)NULL);
			_exit(127);
		}
		/* Keep at most 8 children alive. */
		if (i >= 8) {
			if (wait(&status) < 0)
				die("wait");
			exits++;
		}
	}
	while (wait(&status) > 0)
		exits++;
	ret = ctl_detach(15);
	printf("workload: clone=%d exec=%d death=%d detach=%d\n", n, n, exits, ret);
	ctl("put 15");
	ctl("filter 0");
	return 0;
}
