// SPDX-License-Identifier: GPL-2.0
/*
 * crasher MODE: crash in a known function.
 *   segv     write through NULL in crash_here()
 *   abort    abort() from crash_here()
 *   threads  3 more threads sleep; one of them crashes in crash_in_thread()
 *   wait     pause() until killed (e.g. kill -SEGV)
 *   handler  with its own SIGSEGV handler (exits 42), then segv
 *   later    pause() until SIGUSR1, then segv (started before a watcher)
 *   fixable  segv; a debugger that jumps to fixed_up() makes it exit 7, to
 *            live_on() makes it wait for signals
 * crasher run MODE: fork a child running MODE (core dumps allowed), wait
 * for it and print "exit=<code> signal=<sig> core=<0|1>".
 * crasher exitrace N: N processes, one after the other, in which a thread
 *   calls exit() while the main thread tgkill()s it with SIGSEGV (at a
 *   different moment in each); a process that stops (suspended) is killed.
 *   Prints "exitrace: exited=A suspended=B signaled=C".
 * crasher together N: N processes segfault at the same moment; waits until
 *   each has stopped (suspended) or died, kills the stopped ones and prints
 *   "together: suspended=A died=B".
 * Their children dump no core (RLIMIT_CORE 0).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "progs.h"

static volatile int *volatile null_ptr;

__attribute__((noinline)) void crash_here(int do_abort)
{
	if (do_abort)
		abort();
	*null_ptr = 1;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

__attribute__((noinline)) void *crash_in_thread(void *arg)
{
	usleep(200000);
	crash_here(0);
	return arg;
}

static void on_segv(int sig __attribute__((unused)))
{
	_exit(42);
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig __attribute__((unused)))
{
	usr1 = 1;
}

/* Where a debugger sends a crashed process to live on: waits for signals. */
__attribute__((noinline, used)) void live_on(void)
{
	static const char msg[] = "lives on\n";

	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(8);
	for (;;)
		pause();
}

/* Where a debugger sends a crashed process ("set $pc = fixed_up"). */
__attribute__((noinline, used)) void fixed_up(void)
{
	static const char msg[] = "fixed up\n";

	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(8);
	_exit(7);
}

static volatile int exiter_tid, exiter_go;

/* A thread that exits (the raw syscall: only this thread) when told to. */
static void *exiter(void *arg)
{
	__atomic_store_n(&exiter_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&exiter_go, __ATOMIC_ACQUIRE))
		;
	syscall(SYS_exit, 0);
	return arg;
}

static void no_core(void)
{
	struct rlimit none = { 0, 0 };

	setrlimit(RLIMIT_CORE, &none);
}

static int exit_race(int n)
{
	int i, status, exited = 0, suspended = 0, signaled = 0;
	volatile int spin;
	int turns;
	pthread_t t;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			no_core();
			if (pthread_create(&t, NULL, exiter, NULL))
				_exit(3);
			while (!__atomic_load_n(&exiter_tid, __ATOMIC_ACQUIRE))
				;
			__atomic_store_n(&exiter_go, 1, __ATOMIC_RELEASE);
			/*
			 * A different moment of the thread's exit each time:
			 * 1 to 65536 turns, spread over every order of size.
			 */
			turns = ((i * 7919) % 1024 + 1) << (i % 7);
			for (spin = 0; spin < turns; spin++)
				;
			syscall(SYS_tgkill, getpid(), exiter_tid, SIGSEGV);
			usleep(10000);
			_exit(0);
		}
		if (waitpid(pid, &status, WUNTRACED) < 0)
			die("waitpid");
		if (WIFSTOPPED(status)) {
			suspended++;
			kill(pid, SIGKILL);
			if (waitpid(pid, &status, 0) < 0)
				die("waitpid");
		} else if (WIFEXITED(status)) {
			exited++;
		} else {
			signaled++;
		}
	}
	printf("exitrace: exited=%d suspended=%d signaled=%d\n", exited, suspended, signaled);
	return 0;
}

static int together(int n)
{
	int i, status, gate[2], suspended = 0, died = 0;
	pid_t pid, stopped[64];
	char c;

	if (n < 1 || n > 64 || pipe(gate))
		return 2;
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			no_core();
			close(gate[1]);
			if (read(gate[0], &c, 1) < 0)
				_exit(3);
			crash_here(0);
			_exit(2);
		}
	}
	close(gate[0]);
	close(gate[1]); /* every child's read returns now */
	for (i = 0; i < n; i++) {
		pid = waitpid(-1, &status, WUNTRACED);
		if (pid < 0)
			die("waitpid");
		if (WIFSTOPPED(status))
			stopped[suspended++] = pid;
		else
			died++;
	}
	for (i = 0; i < suspended; i++) {
		kill(stopped[i], SIGKILL);
		waitpid(stopped[i], &status, 0);
	}
	printf("together: suspended=%d died=%d\n", suspended, died);
	return 0;
}

static int run(const char *mode)
{
	pthread_t t;
	int i;

	if (!strcmp(mode, "segv"))
		crash_here(0);
	else if (!strcmp(mode, "abort"))
		crash_here(1);
	else if (!strcmp(mode, "wait"))
		for (;;)
			pause();
	else if (!strcmp(mode, "later")) {
		signal(SIGUSR1, on_usr1);
		while (!usr1)
			pause();
		crash_here(0);
	} else if (!strcmp(mode, "fixable"))
		crash_here(0);
	else if (!strcmp(mode, "handler")) {
		signal(SIGSEGV, on_segv);
		crash_here(0);
	} else if (!strcmp(mode, "threads")) {
		for (i = 0; i < 2; i++)
			pthread_create(&t, NULL, sleeper, NULL);
		pthread_create(&t, NULL, crash_in_thread, NULL);
		sleeper(NULL);
	}
	return 2;
}

int main(int argc, char **argv)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	int status;
	pid_t pid;

	if (argc == 2)
		return run(argv[1]);
	if (argc == 3 && !strcmp(argv[1], "exitrace"))
		return exit_race(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "together"))
		return together(atoi(argv[2]));
	if (argc != 3 || strcmp(argv[1], "run"))
		return 2;
	setrlimit(RLIMIT_CORE, &unlimited);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* By path, so the child's comm is "crasher". */
		execl("/utrace/bin/crasher", "crasher", argv[2], (char *)NULL);
		_exit(127);
	}
	printf("child=%d\n", pid);
	fflush(stdout);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	printf("exit=%d signal=%d core=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       WIFSIGNALED(status) ? WTERMSIG(status) : 0,
	       WIFSIGNALED(status) ? !!WCOREDUMP(status) : 0);
	return 0;
}
