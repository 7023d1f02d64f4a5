// SPDX-License-Identifier: GPL-2.0
/*
 * sigcatch FILE: catch SIGUSR1 (append "caught" to FILE for each) and wait
 * for signals forever; other signals keep their default action.
 */
#include <signal.h>
#include "progs.h"

static int out_fd;

static void on_usr1(int sig __attribute__((unused)))
{
	if (write(out_fd, "caught\n", 7) != 7)
		_exit(3);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	out_fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (out_fd < 0)
		die(argv[1]);
	signal(SIGUSR1, on_usr1);
	for (;;)
		pause();
}
