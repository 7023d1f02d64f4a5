// SPDX-License-Identifier: GPL-2.0
/*
 * zombie: fork a child that exits at once, print its pid and never reap it
 * (until killed): the child stays a zombie.
 */
#include <signal.h>
#include "progs.h"

int main(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(0);
	printf("%d\n", pid);
	fflush(stdout);
	for (;;)
		pause();
}
