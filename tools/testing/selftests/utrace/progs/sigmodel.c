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
 *   timer SIG dfl|ign|ign-periodic FIFO
 *                   SIG at its default (dfl) or SIG_IGN; after a byte on
 *                   FIFO, a POSIX timer (timer_create(), SIGEV_SIGNAL with
 *                   SIG) expires once, 1 ms later (ign-periodic: every
 *                   millisecond from then on); after a second byte,
 *                   prints "alive" and exits 0
 *   child SIG dfl|ign FIFO
 *                   SIGCHLD at its default (dfl) or SIG_IGN; after a byte on
 *                   FIFO, clones a child (fork-like) whose exit signal is SIG
 *                   and which exits 7 at once; after a second byte, waits
 *                   for it and prints "alive child=STATUS" ("child=reaped"
 *                   if the kernel reaped it: ECHILD)
 *   pdeath SIG FIFO1 FIFO2
 *                   a subreaper whose child B forks C; C sets
 *                   PR_SET_PDEATHSIG to SIG and prints "pid=C"; B exits after
 *                   a byte on FIFO1 (C gets SIG), C exits 0 after a byte on
 *                   FIFO2; the subreaper reaps both and prints "c=exit N" or
 *                   "c=signal N" for C
 */
#include <signal.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
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
	if (argc == 5 && !strcmp(argv[1], "timer")) {
		struct sigevent sev;
		struct itimerspec its = { .it_value = { 0, 1000000 } };
		timer_t timer;

		sa.sa_handler = strcmp(argv[3], "dfl") ? SIG_IGN : SIG_DFL;
		if (!strcmp(argv[3], "ign-periodic"))
			its.it_interval = its.it_value;
		if (sigaction(atoi(argv[2]), &sa, NULL))
			die("sigaction");
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = atoi(argv[2]);
		if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
			die("timer_create");
		wait_fifo(argv[4]);
		if (timer_settime(timer, 0, &its, NULL))
			die("timer_settime");
		wait_fifo(argv[4]);
		printf("alive\n");
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "child")) {
		int status;
		pid_t child;

		sa.sa_handler = strcmp(argv[3], "ign") ? SIG_DFL : SIG_IGN;
		if (sigaction(SIGCHLD, &sa, NULL))
			die("sigaction");
		wait_fifo(argv[4]);
		/* fork() with SIG as the exit signal: same stack, copied. */
		child = syscall(SYS_clone, (unsigned long)atoi(argv[2]), 0UL, NULL, NULL, 0UL);
		if (child < 0)
			die("clone");
		if (!child)
			_exit(7);
		wait_fifo(argv[4]);
		if (waitpid(child, &status, __WALL) != child) {
			if (errno != ECHILD)
				die("waitpid");
			printf("alive child=reaped\n");
			return 0;
		}
		printf("alive child=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "pdeath")) {
		pid_t b, c, p;
		int status;

		if (prctl(PR_SET_CHILD_SUBREAPER, 1))
			die("PR_SET_CHILD_SUBREAPER");
		setvbuf(stdout, NULL, _IONBF, 0);
		b = fork();
		if (b < 0)
			die("fork");
		if (!b) {
			c = fork();
			if (c < 0)
				die("fork");
			if (!c) {
				if (prctl(PR_SET_PDEATHSIG, atoi(argv[2])))
					die("PR_SET_PDEATHSIG");
				printf("pid=%d\n", getpid());
				wait_fifo(argv[4]);
				_exit(0);
			}
			wait_fifo(argv[3]);
			_exit(0);
		}
		while ((p = wait(&status)) > 0) {
			if (p == b)
				continue;
			if (WIFSIGNALED(status))
				printf("c=signal %d\n", WTERMSIG(status));
			else
				printf("c=exit %d\n", WEXITSTATUS(status));
		}
		return 0;
	}
	fprintf(stderr,
		"usage: sigmodel handlers FILE | fault FIFO | itimer N FIFO | timer SIG dfl|ign|ign-periodic FIFO | child SIG dfl|ign FIFO | pdeath SIG FIFO1 FIFO2\n");
	return 2;
}
