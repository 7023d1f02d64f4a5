// SPDX-License-Identifier: GPL-2.0
/*
 * sigdiff: the signal side of the differential tests (tests/49-signal-diff.sh).
 *
 * sigdiff [-r READY] [-n STEPS] [-s MSEC] [-v] SEED [FEATURES]
 *
 * A controller (this process) forks a target with NT threads (role 0 is
 * its main thread) whose SA_SIGINFO handlers record, in shared memory,
 * every signal they run for. From SEED, the controller draws a random but
 * deterministic schedule of steps and carries them out, each one waited
 * for until its effect is observable (the handlers ran as often as the
 * kernel's semantics say, or waitpid() saw the stop or continue), so that
 * without any engine two runs of one seed print the same. Then it prints a
 * canonical summary on stdout: per step, what waitpid(WUNTRACED|WCONTINUED)
 * saw, in order, and the sorted handler records "sig DIR SIGNO CODE from=ROLE
 * val=V" (DIR: T<role> for a thread-directed signal, P for a process-wide
 * one, whichever thread ran it; pids mapped to roles: C the controller, K<i>
 * the target's i-th child, 0 none, ? any other), then how the target ended.
 * A step that does not complete in 4 s prints "timeout ..." and the
 * target is killed (the rest of the schedule is not run).
 *
 * FEATURES selects the kinds of steps (default all: "ktrRmcjJbBxe"):
 *   k  kill() a standard signal to the process (its pid or a thread's tid)
 *   t  tgkill() a standard signal to a thread
 *   r  sigqueue() realtime signals to the process, 1 to 3 instances at once
 *   R  rt_tgsigqueueinfo() a realtime signal to a thread
 *   m  a POSIX timer's signal (SIGALRM or realtime), to the process or to a thread
 *   c  a child of the target exits (SIGCHLD, CLD_EXITED)
 *   j  SIGSTOP, signals sent while stopped, maybe another SIGSTOP, then
 *      SIGCONT (all pending ones are handled after it)
 *   J  the same with SIGTSTP, and maybe SIGTSTP or SIGSTOP while stopped
 *   b  the same standard signal kill()ed to two threads' tids at once (one or
 *      two handler runs: the step prints the distinct records only)
 *   B  SIGTSTP, SIGCONT, SIGTSTP at once: the target must end up stopped
 *   x  a thread (not the main one) exits
 *   e  at the end, signals blocked in every thread are sent, then a thread
 *      execs sigdiff itself, whose new image installs handlers and unblocks
 *
 * -r READY: write "<pid> <tid1> ... <tidN-1>" of the target to READY, then
 * wait for a line on stdin before the first step (time to attach engines).
 * -s MSEC: a pause after each step (so that engines that stop or hold the
 * threads now and then have time to). -v: the schedule, step by step, on
 * stderr.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include "progs.h"

#define NT 4			/* threads of the target, role 0 its main thread */
#define MAXREC 4096
#define MAXCH 64
#define MAXTIMERS 64
#define MAXSTEPS 200
#define MAXOUT 8192
#define TIMEOUT_MS 4000
#define MAXTIMEOUTS 1		/* then the target is killed */
#define ROLE_EXEC 9		/* the image after exec */
#define TVAL 1000		/* si_value of a thread-directed signal: TVAL + role */
#define PVAL 2000		/* ... of a process-directed one: PVAL + n */

enum { CMD_NONE, CMD_EXIT, CMD_TIMER, CMD_FORK, CMD_BLOCK, CMD_EXEC, CMD_FINISH };

struct rec {
	int step, role, signo, code, pid, val;
};

struct shm {
	pid_t controller, target;
	pid_t tids[NT];
	int alive[NT];
	int step;
	int nrec, handled, execd;
	struct rec rec[MAXREC];
	/* one mailbox a thread: the controller bumps seq, the thread acks it */
	int seq[NT], ack[NT], cmd[NT], arg[NT], arg2[NT];
	pid_t children[MAXCH];
	int nchildren;
	int fd;
};

static struct shm *shm;
static __thread int my_role;

static const int std_sigs[] = { SIGHUP, SIGUSR1, SIGUSR2, SIGWINCH };
#define NSTD (int)(sizeof(std_sigs) / sizeof(std_sigs[0]))
#define NRT 4

static int ld(int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void st(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static void handler(int sig, siginfo_t *si, void *uc)
{
	int i = __atomic_fetch_add(&shm->nrec, 1, __ATOMIC_ACQ_REL);
	struct rec *r;

	(void)uc;
	if (i < MAXREC) {
		r = &shm->rec[i];
		r->step = ld(&shm->step);
		r->role = my_role;
		r->signo = sig;
		r->code = si->si_code;
		r->pid = 0;
		r->val = 0;
		if (si->si_code == SI_TIMER) {
			r->val = si->si_value.sival_int;
		} else if (sig == SIGCHLD && si->si_code > 0) {
			r->pid = si->si_pid;
			r->val = si->si_status;
		} else {
			r->pid = si->si_pid;
			if (si->si_code == SI_QUEUE)
				r->val = si->si_value.sival_int;
		}
	}
	__atomic_fetch_add(&shm->handled, 1, __ATOMIC_ACQ_REL);
}

static void install_handlers(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSTD; i++)
		if (sigaction(std_sigs[i], &sa, NULL))
			die("sigaction");
	for (i = 0; i < NRT; i++)
		if (sigaction(SIGRTMIN + i, &sa, NULL))
			die("sigaction");
	if (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGCHLD, &sa, NULL))
		die("sigaction");
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* --- the target ------------------------------------------------------ */

static timer_t timers[MAXTIMERS];
static int ntimers;
static char *self_exe;

/* Carries out one command of the controller's in this thread. */
static void run_cmd(int role)
{
	int cmd = shm->cmd[role], arg = shm->arg[role], arg2 = shm->arg2[role];
	struct sigevent sev;
	struct itimerspec its;
	sigset_t set;
	char fdbuf[16], rolebuf[16];
	pid_t child;

	switch (cmd) {
	case CMD_EXIT:
		st(&shm->alive[role], 0);
		st(&shm->ack[role], ld(&shm->seq[role]));
		syscall(SYS_exit, 0);
		break;
	case CMD_TIMER:
		/* arg: the signal; arg2: the thread role it is for, or -1 */
		memset(&sev, 0, sizeof(sev));
		sev.sigev_signo = arg;
		if (arg2 >= 0) {
			sev.sigev_notify = SIGEV_THREAD_ID;
			sev._sigev_un._tid = shm->tids[arg2];
			sev.sigev_value.sival_int = TVAL + arg2;
		} else {
			sev.sigev_notify = SIGEV_SIGNAL;
			sev.sigev_value.sival_int = PVAL + ntimers;
		}
		if (ntimers < MAXTIMERS && !timer_create(CLOCK_MONOTONIC, &sev, &timers[ntimers])) {
			memset(&its, 0, sizeof(its));
			its.it_value.tv_nsec = 1000000;
			timer_settime(timers[ntimers++], 0, &its, NULL);
		}
		break;
	case CMD_FORK:
		child = fork();
		if (child == 0)
			_exit(arg);
		if (child > 0) {
			if (shm->nchildren < MAXCH)
				shm->children[shm->nchildren++] = child;
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
		}
		break;
	case CMD_BLOCK:
		sigemptyset(&set);
		sigaddset(&set, arg);
		sigaddset(&set, arg2);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		break;
	case CMD_EXEC:
		snprintf(fdbuf, sizeof(fdbuf), "%d", shm->fd);
		snprintf(rolebuf, sizeof(rolebuf), "%d", role);
		execl(self_exe, "sigdiff", "--post", fdbuf, rolebuf, (char *)NULL);
		_exit(3);
	case CMD_FINISH:
		exit(0);
	}
	st(&shm->ack[role], ld(&shm->seq[role]));
}

static void serve(int role)
{
	int last = ld(&shm->ack[role]);

	for (;;) {
		int seq = ld(&shm->seq[role]);

		if (seq != last) {
			last = seq;
			run_cmd(role);
		}
		sleep_ms(1);
	}
}

static void *thread_main(void *arg)
{
	int role = (int)(long)arg;

	my_role = role;
	st(&shm->tids[role], syscall(SYS_gettid));
	serve(role);
	return NULL;
}

static void target_main(void)
{
	pthread_t t;
	long i;

	my_role = 0;
	shm->tids[0] = getpid();
	install_handlers();
	for (i = 1; i < NT; i++)
		if (pthread_create(&t, NULL, thread_main, (void *)i))
			die("pthread_create");
	serve(0);
}

/* The image a thread exec'd: sigdiff --post FD ROLE. */
static int post_main(int fd)
{
	sigset_t set;
	int i;

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		die("mmap");
	my_role = ROLE_EXEC;
	install_handlers();
	for (i = 1; i < NT; i++)
		st(&shm->alive[i], 0);
	st(&shm->ack[0], ld(&shm->seq[0]));
	st(&shm->execd, 1);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	serve(0);
	return 0;
}

/* --- the controller -------------------------------------------------- */

static uint64_t rng;
static int verbose, timeouts, nsteps = 24, pause_ms;
static pid_t target;
static char *out[MAXOUT];
static int nout;
static int dedup_step[MAXSTEPS + 2];

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

static void emit(int step, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(int step, const char *fmt, ...)
{
	char buf[200];
	int n;
	va_list ap;

	n = snprintf(buf, sizeof(buf), "%03d w%04d ", step, nout);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (nout < MAXOUT)
		out[nout++] = strdup(buf);
}

/* What a step does: a line of the summary, and with -v on stderr. */
static void note(int step, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(int step, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(step, "do %s", buf);
	if (verbose)
		fprintf(stderr, "%d: %s\n", step, buf);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * For a timeout: each thread of the target's state, pending and blocked
 * sets, wait channel and kernel stack, on stderr (what was it waiting in?).
 */
static void diag(void)
{
	static const char *const keys[] = { "State:", "SigPnd:", "ShdPnd:", "SigBlk:" };
	char path[96], line[256];
	FILE *f;
	int i, k;

	for (i = 0; i < NT; i++) {
		const char *files[] = { "status", "wchan", "stack" };

		if (!ld(&shm->alive[i]))
			continue;
		fprintf(stderr, "diag T%d (%d):", i, shm->tids[i]);
		for (k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", target, shm->tids[i],
				 files[k]);
			f = fopen(path, "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = '\0';
				if (k == 0) {
					for (unsigned int j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
						if (!strncmp(line, keys[j], strlen(keys[j])))
							fprintf(stderr, " %s", line);
				} else {
					fprintf(stderr, " %s%s", k == 1 ? "wchan=" : "| ", line);
				}
			}
			fclose(f);
		}
		fprintf(stderr, "\n");
	}
}

static void timed_out(int step, const char *what)
{
	diag();
	emit(step, "timeout %s", what);
	if (verbose)
		fprintf(stderr, "%d: timeout %s, handlers ran %d times\n", step, what, ld(&shm->handled));
	if (++timeouts >= MAXTIMEOUTS)
		kill(target, SIGKILL);
}

/* Waits until the handlers ran @want times in all. */
static void wait_handled(int step, int want)
{
	long end = now_ms() + TIMEOUT_MS;

	while (ld(&shm->handled) < want && timeouts < MAXTIMEOUTS) {
		if (now_ms() > end) {
			char what[48];

			snprintf(what, sizeof(what), "handlers want=%d", want);
			timed_out(step, what);
			return;
		}
		sleep_ms(1);
	}
}

/* Sends thread @role command @cmd and waits for its ack (not for EXEC, FINISH). */
static void command(int step, int role, int cmd, int arg, int arg2, int wait_ack)
{
	long end = now_ms() + TIMEOUT_MS;
	int seq = shm->seq[role] + 1;

	shm->cmd[role] = cmd;
	shm->arg[role] = arg;
	shm->arg2[role] = arg2;
	st(&shm->seq[role], seq);
	while (wait_ack && ld(&shm->ack[role]) != seq && timeouts < MAXTIMEOUTS) {
		if (now_ms() > end) {
			timed_out(step, "command ack");
			return;
		}
		sleep_ms(1);
	}
}

/*
 * One waitpid(WUNTRACED|WCONTINUED) report, recorded; @want: 's' a stop,
 * 'c' a continue, 'x' the end; 'S' a stop, other reports before it not
 * recorded (bursts). Returns 0 when the target is gone.
 */
static int wait_report(int step, int want)
{
	long end = now_ms() + TIMEOUT_MS;
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(target, &status, WUNTRACED | WCONTINUED | WNOHANG);
		if (r < 0)
			return 0;
		if (r == 0) {
			if (timeouts >= MAXTIMEOUTS && want != 'x')
				return 1;	/* aborted: the target is being killed */
			if (now_ms() > end) {
				timed_out(step, want == 'c' ? "waitpid continued" :
						want == 'x' ? "waitpid exit" : "waitpid stopped");
				if (want != 'x')
					return 1;
				/* killed now: wait for that */
				end = now_ms() + TIMEOUT_MS;
			}
			sleep_ms(1);
			continue;
		}
		if (WIFSTOPPED(status)) {
			emit(step, "waitpid stopped %d", WSTOPSIG(status));
		} else if (WIFCONTINUED(status)) {
			if (want == 'S')
				continue;
			emit(step, "waitpid continued");
		} else if (WIFEXITED(status)) {
			emit(step, "waitpid exited %d", WEXITSTATUS(status));
			return 0;
		} else if (WIFSIGNALED(status)) {
			emit(step, "waitpid killed %d", WTERMSIG(status));
			return 0;
		}
		if (want == 'x')
			continue;
		if ((want == 's' || want == 'S') && !WIFSTOPPED(status))
			continue;
		return 1;
	}
}

static int rt_tgsigqueueinfo(pid_t tgid, pid_t tid, int sig, int val)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = val;
	return syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, &si);
}

/* A random live worker (role >= 1), or -1. */
static int live_worker(void)
{
	int roles[NT], n = 0, i;

	for (i = 1; i < NT; i++)
		if (ld(&shm->alive[i]))
			roles[n++] = i;
	return n ? roles[pick(n)] : -1;
}
static int live_thread(void)
{
	int w = pick(2) ? live_worker() : 0;

	return w < 0 ? 0 : w;
}

/*
 * What is pending while the target is stopped: standard signals per queue
 * (the process's, each thread's) coalesce, realtime ones do not.
 */
static unsigned long pend_proc, pend_thr[NT];
static int pend_rt;
static int expect;		/* handler runs the controller waits for */

/* One signal sent, while stopped or not; the handler runs it will cause. */
static void count_send(int stopped, int sig, int role)
{
	unsigned long bit = 1UL << sig, *q = role < 0 ? &pend_proc : &pend_thr[role];

	if (sig >= SIGRTMIN) {
		if (stopped)
			pend_rt++;
		else
			expect++;
		return;
	}
	if (!stopped) {
		expect++;
		return;
	}
	if (!(*q & bit))
		*q |= bit;
}

static void flush_pending(void)
{
	int i;

	expect += __builtin_popcountl(pend_proc) + pend_rt;
	for (i = 0; i < NT; i++)
		expect += __builtin_popcountl(pend_thr[i]);
	pend_proc = 0;
	pend_rt = 0;
	memset(pend_thr, 0, sizeof(pend_thr));
}

/* One signal-sending action (k t r R); returns after sending. */
static void send_one(int step, int stopped, const char *features)
{
	char kinds[8];
	int nk = 0, sig, role, n, i;

	for (i = 0; "ktrR"[i]; i++)
		if (strchr(features, "ktrR"[i]))
			kinds[nk++] = "ktrR"[i];
	if (!nk)
		return;
	switch (kinds[pick(nk)]) {
	case 'k':
		sig = std_sigs[pick(NSTD)];
		role = live_thread();
		note(step, "kill(T%d's tid, %d)", role, sig);
		kill(shm->tids[role], sig);
		count_send(stopped, sig, -1);
		break;
	case 't':
		sig = std_sigs[pick(NSTD)];
		role = live_thread();
		note(step, "tgkill(T%d, %d)", role, sig);
		syscall(SYS_tgkill, target, shm->tids[role], sig);
		count_send(stopped, sig, role);
		break;
	case 'r':
		sig = SIGRTMIN + pick(NRT);
		n = 1 + pick(3);
		note(step, "sigqueue(%d) x%d", sig, n);
		for (i = 0; i < n; i++) {
			union sigval v = { .sival_int = PVAL + i };

			sigqueue(target, sig, v);
			count_send(stopped, sig, -1);
		}
		break;
	case 'R':
		sig = SIGRTMIN + pick(NRT);
		role = live_thread();
		note(step, "rt_tgsigqueueinfo(T%d, %d)", role, sig);
		rt_tgsigqueueinfo(target, shm->tids[role], sig, TVAL + role);
		count_send(stopped, sig, role);
		break;
	}
}

static int has(const char *features, int c) { return strchr(features, c) != NULL; }

static int shared_pending(int sig);
static int any_utrace_stop(void);

/* One step of the schedule. */
static void step_run(int step, const char *features)
{
	char kinds[16], kind;
	int nk = 0, i, sig, role, a, b, tstp;
	const char *all = "ktrRmcjJbBx";

	for (i = 0; all[i]; i++)
		if (has(features, all[i]))
			kinds[nk++] = all[i];
	if (!nk)
		return;
	st(&shm->step, step);
	kind = kinds[pick(nk)];
	switch (kind) {
	case 'k':
	case 't':
	case 'r':
	case 'R':
		send_one(step, 0, features);
		wait_handled(step, expect);
		break;
	case 'm':
		sig = pick(2) ? SIGALRM : SIGRTMIN + pick(NRT);
		role = pick(2) ? live_thread() : -1;
		if (role < 0)
			note(step, "timer(%d, the process)", sig);
		else
			note(step, "timer(%d, T%d)", sig, role);
		command(step, 0, CMD_TIMER, sig, role, 1);
		expect++;
		wait_handled(step, expect);
		break;
	case 'c':
		a = pick(4);
		note(step, "child exits %d", a);
		command(step, 0, CMD_FORK, a, 0, 1);
		expect++;
		wait_handled(step, expect);
		break;
	case 'j':
	case 'J':
		/* j: SIGSTOP only; J: SIGTSTP first, then maybe either */
		tstp = kind == 'J';
		sig = tstp ? SIGTSTP : SIGSTOP;
		note(step, "kill(%d), then", sig);
		kill(target, sig);
		wait_report(step, 's');
		for (i = pick(4); i > 0; i--)
			send_one(step, 1, features);
		if (pick(2)) {
			sig = tstp && pick(2) ? SIGTSTP : SIGSTOP;
			note(step, "kill(%d) while stopped", sig);
			kill(target, sig);
		}
		note(step, "SIGCONT");
		kill(target, SIGCONT);
		wait_report(step, 'c');
		flush_pending();
		wait_handled(step, expect);
		break;
	case 'b':
		sig = std_sigs[pick(NSTD)];
		a = live_thread();
		b = live_thread();
		note(step, "kill(T%d, %d), kill(T%d, %d) at once", a, sig, b, sig);
		dedup_step[step] = 1;
		kill(shm->tids[a], sig);
		kill(shm->tids[b], sig);
		expect++;
		wait_handled(step, expect);
		/*
		 * One run, or two if the second kill came after the first was
		 * dequeued: let a second one be counted in this step. An engine
		 * may hold it, or stop its thread, for a while (longer on a slow
		 * debug kernel): the step ends once the signal is not pending for
		 * the process, no thread is in a utrace stop (a held signal is
		 * out of the pending set while its thread waits there), and 300
		 * ms passed without a new run (80 looks at most). A second run
		 * counted in a later step would end that step's wait before its
		 * own signal was handled, and every later record would land one
		 * step late.
		 */
		for (i = 0, a = -1; i < 80; i++) {
			if (shared_pending(sig) || any_utrace_stop()) {
				sleep_ms(50);
				continue;
			}
			if (a == ld(&shm->handled))
				break;
			a = ld(&shm->handled);
			sleep_ms(300);
		}
		expect = ld(&shm->handled);
		break;
	case 'B':
		note(step, "SIGTSTP, SIGCONT, SIGTSTP at once, then SIGCONT");
		kill(target, SIGTSTP);
		kill(target, SIGCONT);
		kill(target, SIGTSTP);
		wait_report(step, 'S');
		kill(target, SIGCONT);
		wait_report(step, 'c');
		break;
	case 'x':
		/* in the second half, and one worker is kept (exec from a non-leader) */
		role = live_worker();
		if (step < nsteps / 2 || role < 0 || ld(&shm->alive[1]) + ld(&shm->alive[2]) +
							 ld(&shm->alive[3]) < 2)
			break;
		note(step, "T%d exits", role);
		command(step, role, CMD_EXIT, 0, 0, 1);
		/* gone from the thread group before the next step */
		for (a = 0; a < 4000; a++) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/task/%d", target, shm->tids[role]);
			if (access(path, F_OK))
				break;
			sleep_ms(1);
		}
		emit(step, "thread T%d exited", role);
		break;
	}
}

/* The ShdPnd of the target has @sig. */
static int shared_pending(int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", target);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ShdPnd: %llx", &mask) == 1)
			break;
	fclose(f);
	return (mask >> (sig - 1)) & 1;
}

/* A live thread of the target is in a utrace stop (state I: held or stopped). */
static int any_utrace_stop(void)
{
	for (int i = 0; i < NT; i++)
		if (ld(&shm->alive[i]) && proc_state(shm->tids[i]) == 'I')
			return 1;
	return 0;
}

static void exec_step(int step)
{
	int i, role, sig = SIGUSR2, rt = SIGRTMIN + 2;
	long end;

	st(&shm->step, step);
	note(step, "block %d and %d everywhere, send them, exec", sig, rt);
	for (i = 0; i < NT; i++)
		if (ld(&shm->alive[i]))
			command(step, i, CMD_BLOCK, sig, rt, 1);
	kill(target, sig);
	for (i = 0; i < 2; i++) {
		union sigval v = { .sival_int = PVAL + i };

		sigqueue(target, rt, v);
	}
	end = now_ms() + TIMEOUT_MS;
	while (!(shared_pending(sig) && shared_pending(rt)) && now_ms() < end)
		sleep_ms(1);
	role = live_worker();
	if (role < 0)
		role = 0;
	command(step, role, CMD_EXEC, 0, 0, 0);
	end = now_ms() + TIMEOUT_MS;
	while (!ld(&shm->execd)) {
		if (now_ms() > end) {
			timed_out(step, "exec");
			return;
		}
		sleep_ms(1);
	}
	emit(step, "exec'd by a thread");
	expect += 3;
	wait_handled(step, expect);
}

static const char *role_of(pid_t pid)
{
	static char buf[16];
	int i;

	if (pid == 0)
		return "0";
	if (pid == shm->controller)
		return "C";
	for (i = 0; i < shm->nchildren; i++)
		if (shm->children[i] == pid) {
			snprintf(buf, sizeof(buf), "K%d", i);
			return buf;
		}
	return "?";
}

static const char *code_name(int code)
{
	static char buf[16];

	switch (code) {
	case SI_USER: return "SI_USER";
	case SI_TKILL: return "SI_TKILL";
	case SI_QUEUE: return "SI_QUEUE";
	case SI_TIMER: return "SI_TIMER";
	case CLD_EXITED: return "CLD_EXITED";
	}
	snprintf(buf, sizeof(buf), "code%d", code);
	return buf;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void summary(void)
{
	int i, n = ld(&shm->nrec);
	char dir[8];

	if (n > MAXREC) {
		emit(MAXSTEPS + 1, "records overflow %d", n);
		n = MAXREC;
	}
	for (i = 0; i < n; i++) {
		struct rec *r = &shm->rec[i];
		char buf[160];
		int j, dup = 0;

		if (r->code == SI_TKILL || (r->val >= TVAL && r->val < TVAL + NT))
			snprintf(dir, sizeof(dir), "T%d", r->role);
		else
			snprintf(dir, sizeof(dir), "P");
		snprintf(buf, sizeof(buf), "%03d z sig %s %d %s from=%s val=%d", r->step, dir,
			 r->signo, code_name(r->code), r->code == SI_TIMER ? "-" : role_of(r->pid),
			 r->val);
		/* steps of bursts: distinct records only */
		if (r->step >= 0 && r->step < MAXSTEPS + 2 && dedup_step[r->step])
			for (j = 0; j < nout; j++)
				dup |= !strcmp(out[j], buf);
		if (!dup && nout < MAXOUT)
			out[nout++] = strdup(buf);
	}
	qsort(out, nout, sizeof(out[0]), cmpstr);
	for (i = 0; i < nout; i++) {
		/* drop the sort keys: "SSS wNNNN " or "SSS z " */
		char *p = strchr(out[i], ' ');

		p = p ? strchr(p + 1, ' ') : NULL;
		printf("step %.3s %s\n", out[i], p ? p + 1 : out[i]);
	}
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *features = "ktrRmcjJbBxe";
	unsigned long long seed;
	int opt, fd, step;
	char line[16];

	if (argc == 4 && !strcmp(argv[1], "--post"))
		return post_main(atoi(argv[2]));
	while ((opt = getopt(argc, argv, "r:n:s:v")) != -1) {
		switch (opt) {
		case 'r': ready = optarg; break;
		case 'n': nsteps = atoi(optarg); break;
		case 's': pause_ms = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default: return 2;
		}
	}
	if (optind >= argc || nsteps < 1 || nsteps > MAXSTEPS) {
		fprintf(stderr, "usage: sigdiff [-r READY] [-n STEPS] [-s MSEC] [-v] SEED [FEATURES]\n");
		return 2;
	}
	seed = strtoull(argv[optind], NULL, 0);
	if (optind + 1 < argc)
		features = argv[optind + 1];
	rng = seed * 0x9e3779b97f4a7c15ULL + 0x1234567;
	if (!rng)
		rng = 1;
	self_exe = realpath("/proc/self/exe", NULL);
	if (!self_exe)
		die("realpath");

	fd = memfd_create("sigdiff", 0);
	if (fd < 0 || ftruncate(fd, sizeof(*shm)))
		die("memfd");
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		die("mmap");
	shm->fd = fd;
	shm->step = -1;
	shm->controller = getpid();
	for (int i = 0; i < NT; i++)
		shm->alive[i] = 1;
	/* not inherited from whoever started us */
	signal(SIGTSTP, SIG_DFL);
	/*
	 * A process group of our own, whose parent (the controller's) is
	 * outside it: not orphaned, so that SIGTSTP stops (the kernel
	 * discards it in an orphaned group, and one whose members are all
	 * children of init, as under the test's init, is).
	 */
	if (setpgid(0, 0))
		die("setpgid");
	target = fork();
	if (target < 0)
		die("fork");
	if (!target) {
		target_main();
		_exit(0);
	}
	shm->target = target;
	for (int i = 0; i < NT; i++)
		while (!ld(&shm->tids[i]))
			sleep_ms(1);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f)
			die(ready);
		fprintf(f, "%d", target);
		for (int i = 1; i < NT; i++)
			fprintf(f, " %d", shm->tids[i]);
		fprintf(f, "\n");
		fclose(f);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = '\0';
	}
	printf("sigdiff seed %llu features %s steps %d\n", seed, features, nsteps);
	for (step = 0; step < nsteps && timeouts < MAXTIMEOUTS; step++) {
		step_run(step, features);
		if (pause_ms > 0)
			sleep_ms(pause_ms);
	}
	if (has(features, 'e') && timeouts < MAXTIMEOUTS)
		exec_step(step++);
	st(&shm->step, step);
	if (timeouts < MAXTIMEOUTS)
		command(step, 0, CMD_FINISH, 0, 0, 0);
	wait_report(step, 'x');
	summary();
	fflush(stdout);
	return 0;
}
