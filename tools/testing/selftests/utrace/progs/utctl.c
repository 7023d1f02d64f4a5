// SPDX-License-Identifier: GPL-2.0
/*
 * utctl WORD...: send one command to utrace_test.ko and print its result,
 * 0 or a negative errno (e.g. -115 for -EINPROGRESS).
 * utctl --while-pid PID WORD...: send it again and again while PID lives;
 * print "<sent> <failed>".
 */
#include "progs.h"

/* PID exists and is not a zombie. */
static int running(pid_t pid)
{
	char state = proc_state(pid);

	return state != '?' && state != 'Z' && state != 'X';
}

int main(int argc, char **argv)
{
	char cmd[256] = "";
	long sent = 0, failed = 0;
	pid_t while_pid = 0;
	int i;

	if (argc > 3 && !strcmp(argv[1], "--while-pid")) {
		while_pid = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	for (i = 1; i < argc; i++) {
		if (strlen(cmd) + strlen(argv[i]) + 2 > sizeof(cmd))
			return 2;
		if (i > 1)
			strcat(cmd, " ");
		strcat(cmd, argv[i]);
	}
	if (!while_pid) {
		printf("%d\n", ctl(cmd));
		return 0;
	}
	while (running(while_pid)) {
		sent++;
		failed += ctl(cmd) != 0;
		usleep(100);
	}
	printf("%ld %ld\n", sent, failed);
	return 0;
}
