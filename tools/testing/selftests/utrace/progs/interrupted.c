// SPDX-License-Identifier: GPL-2.0
/*
 * interrupted read|pause: block once in read() on stdin (up to 64 bytes) or
 * in pause(), with a SIGUSR1 handler installed without SA_RESTART; then
 * print "read=N errno=E handled=H" (or "pause=..."): what the syscall
 * returned and how many SIGUSR1 handlers ran. A syscall that the kernel
 * restarted shows nothing of its interruption.
 */
#include <signal.h>
#include "progs.h"

static volatile sig_atomic_t handled;

static void on_usr1(int sig __attribute__((unused)))
{
	handled++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	char buf[64];
	long ret;
	int err;

	if (argc != 2 || (strcmp(argv[1], "read") && strcmp(argv[1], "pause")))
		return 2;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die("sigaction");
	errno = 0;
	ret = argv[1][0] == 'r' ? read(0, buf, sizeof(buf)) : pause();
	err = ret < 0 ? errno : 0;
	printf("%s=%ld errno=%d handled=%d\n", argv[1], ret, err, (int)handled);
	return 0;
}
