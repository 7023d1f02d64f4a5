// SPDX-License-Identifier: GPL-2.0
/*
 * sigmodel MODE ...: targets for the signal-model test (49).
 *   handlers FILE   catch SIGUSR1 and SIGUSR2 (SA_SIGINFO): append
 *                   "usr1 errno=E" / "usr2 errno=E" to FILE; pause forever
 *   fault FIFO      after a line on FIFO, write to address 0x1234 (SIGSEGV
 *                   with si_addr 0x1234)
 *   itimer N FIFO   after a line on FIFO: ITIMER_REAL and ITIMER_PROF every 5
 *                   milliseconds, handlers counting (SA_NODEFER, nothing
 *                   blocked), busy until N SIGALRMs were handled; prints
 *                   "alrm=A prof=P"
 */
#include <signal.h>
#include <sys/time.h>
#include "progs.h"

static int out_fd;
static volatile int alrm, prof;

static void on_usr(int sig, siginfo_t *si, void *uc __attribute__((unused)))
{
	char buf[40];
	int n = snprintf(buf, sizeof(buf), "%s errno=%d\n", sig == SIGUSR1 ? "usr1" : "usr2",
			 si->si_errno);

	if (write(out_fd, buf, n) != n)
		_exit(3);
}

static void on_timer(int sig)
{
	if (sig == SIGALRM)
		__atomic_fetch_add(&alrm, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&prof, 1, __ATOMIC_RELAXED);
}

static void wait_fifo(const char *fifo)
{
	char c;
	int fd = open(fifo, O_RDONLY);

	if (fd < 0 || read(fd, &c, 1) < 0)
		die(fifo);
	close(fd);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (argc == 3 && !strcmp(argv[1], "handlers")) {
		out_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (out_fd < 0)
			die(argv[2]);
		sa.sa_sigaction = on_usr;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sa, NULL))
			die("sigaction");
		if (write(out_fd, "ready\n", 6) != 6)
			die("write");
		for (;;)
			pause();
	}
	if (argc == 3 && !strcmp(argv[1], "fault")) {
		wait_fifo(argv[2]);
		*(volatile int *)0x1234 = 1;
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "itimer")) {
		struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
		int n = atoi(argv[2]);

		sa.sa_handler = on_timer;
		sa.sa_flags = SA_NODEFER | SA_RESTART;
		if (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGPROF, &sa, NULL))
			die("sigaction");
		wait_fifo(argv[3]);
		if (setitimer(ITIMER_REAL, &it, NULL) || setitimer(ITIMER_PROF, &it, NULL))
			die("setitimer");
		while (__atomic_load_n(&alrm, __ATOMIC_RELAXED) < n)
			;
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		setitimer(ITIMER_PROF, &it, NULL);
		printf("alrm=%d prof=%d\n", alrm, prof);
		return 0;
	}
	fprintf(stderr, "usage: sigmodel handlers FILE | fault FIFO | itimer N FIFO\n");
	return 2;
}
