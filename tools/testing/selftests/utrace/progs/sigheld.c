// SPDX-License-Identifier: GPL-2.0
/*
 * sigheld MODE ...: multi-threaded targets for the held-signal tests (48-signal-held).
 *   threads FILE    the main thread L and a second thread B catch SIGUSR1,
 *                   SIGUSR2 and SIGRTMIN..SIGRTMIN+2 (SA_SIGINFO), appending
 *                   "sig=S pid=P uid=U code=C value=V" to FILE for each
 *                   delivery; FILE starts with "ready L B" (their tids); both
 *                   then sleep forever
 *   exec FILE FIFO  L catches SIGUSR1 and sleeps; after a line on FIFO, a
 *                   second thread E blocks SIGUSR1 and execs this program
 *                   as "after FILE" (which kills L); FILE starts with
 *                   "ready L E"
 *   lexec FILE FIFO the same with the roles swapped: a second thread B
 *                   catches SIGUSR1 and sleeps; after a line on FIFO, the
 *                   main thread L blocks SIGUSR1 and execs (which kills B);
 *                   FILE starts with "ready L B"
 *   after FILE      (the image exec mode starts) catches SIGUSR1, unblocks
 *                   it, waits up to 3 s for it and appends "got=N" to FILE
 */
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include "progs.h"

static int out_fd = -1;
static volatile int got;

static void out(const char *s)
{
	size_t n = strlen(s);

	if (write(out_fd, s, n) != (ssize_t)n)
		_exit(3);
}

static void on_sig(int sig, siginfo_t *si, void *uc __attribute__((unused)))
{
	char buf[96];

	snprintf(buf, sizeof(buf), "sig=%d pid=%d uid=%d code=%d value=%d\n", sig, si->si_pid,
		 si->si_uid, si->si_code, si->si_value.sival_int);
	out(buf);
	__atomic_fetch_add(&got, 1, __ATOMIC_SEQ_CST);
}

static void catch(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_sig, .sa_flags = SA_SIGINFO | SA_RESTART };

	if (sigaction(sig, &sa, NULL))
		die("sigaction");
}

static void open_out(const char *path)
{
	out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (out_fd < 0)
		die(path);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static pid_t second_tid;
static const char *fifo, *self_out;

static void *sleeper(void *arg __attribute__((unused)))
{
	__atomic_store_n(&second_tid, gettid_(), __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* After a line on the FIFO, block SIGUSR1 and exec "after". */
static void exec_after(void)
{
	sigset_t usr1;
	char line[16];
	int fd;

	fd = open(fifo, O_RDONLY);
	if (fd < 0 || read(fd, line, sizeof(line)) <= 0)
		die(fifo);
	/* The new image starts with SIGUSR1 at its default: blocked until it catches it. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	execl("/proc/self/exe", "sigheld", "after", self_out, (char *)NULL);
	die("exec");
}

static void *execer(void *arg __attribute__((unused)))
{
	__atomic_store_n(&second_tid, gettid_(), __ATOMIC_SEQ_CST);
	exec_after();
	return NULL;
}

static void start(void *(*fn)(void *))
{
	char buf[64];
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&second_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	snprintf(buf, sizeof(buf), "ready %d %d\n", (int)getpid(), (int)second_tid);
	out(buf);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "threads")) {
		open_out(argv[2]);
		catch(SIGUSR1);
		catch(SIGUSR2);
		for (int s = SIGRTMIN; s <= SIGRTMIN + 2; s++)
			catch(s);
		start(sleeper);
		for (;;)
			pause();
	}
	if (argc == 4 && !strcmp(argv[1], "exec")) {
		open_out(argv[2]);
		self_out = argv[2];
		fifo = argv[3];
		catch(SIGUSR1);
		start(execer);
		for (;;)
			pause();
	}
	if (argc == 4 && !strcmp(argv[1], "lexec")) {
		open_out(argv[2]);
		self_out = argv[2];
		fifo = argv[3];
		catch(SIGUSR1);
		start(sleeper);
		exec_after();
	}
	if (argc == 3 && !strcmp(argv[1], "after")) {
		sigset_t usr1;
		char buf[32];

		open_out(argv[2]);
		catch(SIGUSR1);
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_UNBLOCK, &usr1, NULL);
		for (int i = 0; i < 300 && !got; i++)
			usleep(10000);
		snprintf(buf, sizeof(buf), "got=%d\n", got);
		out(buf);
		return 0;
	}
	fprintf(stderr, "usage: sigheld threads FILE | exec FILE FIFO | lexec FILE FIFO | after FILE\n");
	return 2;
}
