// SPDX-License-Identifier: GPL-2.0
/*
 * utdecide: decisions from user space on /dev/utrace (UTRACE_IOC_DECIDE)
 * for the selftests. Each command traces a child of ours, as any user may.
 *
 *   utdecide abort     the child's mkdir() is aborted with EPERM: it sees
 *                      -1/EPERM and the directory does not exist; its
 *                      other syscalls run (RUN)
 *   utdecide args      the child's write(pipe, "abcdef", 6) runs with its
 *                      count rewritten to 3 (F_ARGS): it returns 3, the
 *                      pipe holds "abc"
 *   utdecide stop      the child's mkdir() is answered STOP: it stays stopped
 *                      (QUIESCE, STOPPED) until UTRACE_CTL_RESUME, then runs
 *   utdecide ignore    a SIGTERM sent to the child is ignored (IGNORE): it
 *                      lives on and exits 0 when told to
 *   utdecide hold      a sigqueue()d SIGUSR1 is held (HOLD: the child stays
 *                      in its utrace stop), then delivered: the handler runs
 *                      once, with the original siginfo; a kill()ed SIGUSR2
 *                      is delivered with a rewritten siginfo (F_SIGINFO),
 *                      after forged ones were refused (EPERM); stale,
 *                      repeated, wrong-engine and wrong-kind answers are
 *                      refused and change nothing
 *   utdecide killed    SIGKILL ends a thread's wait: the answer is ESTALE
 *   utdecide close     the session is closed while the child waits for a
 *                      syscall decision, then for a signal decision: it runs
 *                      on as without the session (mkdir made, handler ran)
 *   utdecide lossless  a lossless ring filled by another thread: the decision
 *                      record waits for room, then for its answer (ABORT);
 *                      seqs without a gap, no LOST
 *   utdecide lost      a lossy buffer filled by another thread's records:
 *                      the decision records are dropped (LOST), the thread
 *                      does not wait
 *
 * Prints "FAIL: ..." and exits 1 when a check fails. alarm() guards
 * against a hang (a thread that waits for good is the bug it would show).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <utrace_rs.h>
#include "progs.h"
#include "check.h"

static int sess_open(void)
{
	int fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(UTRACE_DEV_PATH);
	return fd;
}

static __u64 attach(int fd, pid_t pid, __u32 flags, __u64 events)
{
	struct utrace_attach a = { .size = sizeof(a), .flags = flags, .pid = pid,
				   .events = events };

	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		die("attach");
	return a.engine_id;
}

static void next_record(int fd, struct utrace_record *r)
{
	if (read(fd, r, sizeof(*r)) != (ssize_t)sizeof(*r))
		die("read record");
}

/* The next record that waits for a decision. */
static void next_decision(int fd, struct utrace_record *r)
{
	do
		next_record(fd, r);
	while (!(r->h.flags & UTRACE_REC_F_DECIDE));
}

/* UTRACE_IOC_DECIDE: 0 or -errno. */
static int decide(int fd, const struct utrace_record *r, __u32 verdict, int value)
{
	struct utrace_decide d = { .size = sizeof(d), .verdict = verdict,
				   .engine_id = r->h.engine_id, .seq = r->h.seq,
				   .value = value };

	return ioctl(fd, UTRACE_IOC_DECIDE, &d) ? -errno : 0;
}

static int decide_arg(int fd, struct utrace_decide *d)
{
	d->size = sizeof(*d);
	return ioctl(fd, UTRACE_IOC_DECIDE, d) ? -errno : 0;
}

/* Waits (10 s at most) until @pid is in a utrace stop ('I'); returns its state. */
static char stopped(pid_t pid)
{
	char st = '?';

	for (int i = 0; i < 1000 && (st = proc_state(pid)) != 'I'; i++)
		usleep(10000);
	return st;
}

/* Answers every decision RUN or DELIVER until the child's DEATH. */
static void run_to_death(int fd)
{
	struct utrace_record r;

	for (;;) {
		next_record(fd, &r);
		if (r.h.flags & UTRACE_REC_F_DECIDE)
			decide(fd, &r,
			       r.h.type == UTRACE_REC_SIGNAL ? UTRACE_VERDICT_DELIVER :
							       UTRACE_VERDICT_RUN, 0);
		if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead)
			return;
	}
}

/* A child that waits for a byte on a pipe, then runs @fn. */
static pid_t gated(int *gate, int (*fn)(void))
{
	pid_t pid = fork_gated(gate, 3);

	if (pid == 0)
		_exit(fn());
	return pid;
}

static void go(int gate)
{
	if (write(gate, "g", 1) != 1)
		die("gate");
}

static char dir[64];

static int child_mkdir(void)
{
	if (syscall(SYS_mkdir, dir, 0700) == 0)
		return 10;
	return errno == EPERM ? 0 : 11;
}

static int cmd_abort(void)
{
	int fd = sess_open(), gate, status, aborted = 0;
	struct utrace_record r;
	pid_t pid;

	snprintf(dir, sizeof(dir), "/tmp/utdecide.%d", getpid());
	rmdir(dir);
	pid = gated(&gate, child_mkdir);
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SYSCALL, UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	go(gate);
	for (;;) {
		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead)
			break;
		if (!(r.h.flags & UTRACE_REC_F_DECIDE)) {
			CHECK(r.h.type != UTRACE_REC_SYSCALL_ENTRY, "an entry without F_DECIDE");
			continue;
		}
		if (r.syscall.nr == SYS_mkdir) {
			CHECK(stopped(pid) == 'I', "waiting child in state %c, want I",
			      proc_state(pid));
			CHECK(decide(fd, &r, UTRACE_VERDICT_ABORT, 0) == -EINVAL, "ABORT 0");
			CHECK(decide(fd, &r, UTRACE_VERDICT_ABORT, 4096) == -EINVAL,
			      "ABORT 4096");
			CHECK(decide(fd, &r, UTRACE_VERDICT_DELIVER, 0) == -EINVAL,
			      "DELIVER on a syscall");
			CHECK(decide(fd, &r, UTRACE_VERDICT_ABORT, EPERM) == 0, "ABORT EPERM: %s",
			      strerror(errno));
			aborted++;
		} else {
			CHECK(decide(fd, &r, UTRACE_VERDICT_RUN, 0) == 0, "RUN nr %d: %s",
			      r.syscall.nr, strerror(errno));
		}
	}
	waitpid(pid, &status, 0);
	CHECK(aborted == 1, "%d mkdir decisions", aborted);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child status %#x (0: mkdir failed with EPERM)", status);
	CHECK(access(dir, F_OK) != 0, "%s exists: the aborted mkdir ran", dir);
	rmdir(dir);
	printf("abort: mkdir aborted with EPERM, the child saw EPERM, no directory made\n");
	return fails ? 1 : 0;
}

static int out_pipe[2];

static int child_write(void)
{
	return (int)write(out_pipe[1], "abcdef", 6);
}

static int cmd_args(void)
{
	int fd = sess_open(), gate, status, rewritten = 0;
	struct utrace_record r;
	char buf[16] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(out_pipe))
		die("pipe");
	pid = gated(&gate, child_write);
	close(out_pipe[1]);
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SYSCALL, UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	go(gate);
	for (;;) {
		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead)
			break;
		if (!(r.h.flags & UTRACE_REC_F_DECIDE))
			continue;
		if (r.syscall.nr == SYS_write && r.syscall.args[2] == 6) {
			struct utrace_decide d = { .verdict = UTRACE_VERDICT_RUN,
						   .engine_id = r.h.engine_id, .seq = r.h.seq,
						   .flags = UTRACE_DECIDE_F_ARGS };

			memcpy(d.args, r.syscall.args, sizeof(d.args));
			d.args[2] = 3;
			d.flags = 0;
			CHECK(decide_arg(fd, &d) == -EINVAL, "args without F_ARGS");
			d.flags = UTRACE_DECIDE_F_ARGS | UTRACE_DECIDE_F_SIGINFO;
			CHECK(decide_arg(fd, &d) == -EINVAL, "F_SIGINFO on a syscall");
			d.flags = UTRACE_DECIDE_F_ARGS;
			CHECK(decide_arg(fd, &d) == 0, "RUN with args: %s", strerror(errno));
			rewritten++;
		} else {
			decide(fd, &r, UTRACE_VERDICT_RUN, 0);
		}
	}
	waitpid(pid, &status, 0);
	n = read(out_pipe[0], buf, sizeof(buf) - 1);
	CHECK(rewritten == 1, "%d write decisions", rewritten);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "write returned %d, want 3",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	CHECK(n == 3 && !memcmp(buf, "abc", 3), "the pipe holds %zd bytes \"%s\", want \"abc\"",
	      n, buf);
	printf("args: write(pipe, \"abcdef\", 6) ran with count 3: returned 3, the pipe holds \"abc\"\n");
	return fails ? 1 : 0;
}

static int child_mkdir_made(void)
{
	return syscall(SYS_mkdir, dir, 0700) ? 14 : 0;
}

static int cmd_stop(void)
{
	int fd = sess_open(), gate, status, made;
	struct utrace_control c = { .size = sizeof(c), .action = UTRACE_CTL_RESUME };
	struct utrace_record r;
	pid_t pid;

	snprintf(dir, sizeof(dir), "/tmp/utdecide.%d", getpid());
	rmdir(dir);
	pid = gated(&gate, child_mkdir_made);
	c.engine_id = attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SYSCALL,
			     UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	go(gate);
	do
		next_decision(fd, &r);
	while (r.syscall.nr != SYS_mkdir && !decide(fd, &r, UTRACE_VERDICT_RUN, 0));
	CHECK(decide(fd, &r, UTRACE_VERDICT_STOP, 0) == 0, "STOP: %s", strerror(errno));
	next_record(fd, &r);
	CHECK(r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED),
	      "after STOP: record type %u flags %#x, want QUIESCE STOPPED", r.h.type,
	      r.h.flags);
	/* The QUIESCE callback writes the record just before the thread sleeps. */
	CHECK(stopped(pid) == 'I', "stopped child in state %c, want I", proc_state(pid));
	made = access(dir, F_OK) == 0;
	CHECK(!made, "the mkdir ran before the RESUME");
	CHECK(ioctl(fd, UTRACE_IOC_CONTROL, &c) == 0, "RESUME: %s", strerror(errno));
	run_to_death(fd);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	CHECK(access(dir, F_OK) == 0, "the mkdir did not run after the RESUME");
	rmdir(dir);
	printf("stop: STOP held the thread before its mkdir (QUIESCE STOPPED); RESUME ran it\n");
	return fails ? 1 : 0;
}

/* A child that blocks on a pipe until told to exit. */
static int wait_pipe[2];

static int child_wait(void)
{
	char c;

	return read(wait_pipe[0], &c, 1) == 1 ? 0 : 4;
}

static int cmd_ignore(void)
{
	int fd = sess_open(), gate, status;
	struct utrace_record r;
	pid_t pid;

	if (pipe(wait_pipe))
		die("pipe");
	pid = gated(&gate, child_wait);
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SIGNAL, UTRACE_EV_SIGNAL_ALL | UTRACE_EV_DEATH);
	go(gate);
	kill(pid, SIGTERM);
	next_decision(fd, &r);
	CHECK(r.h.type == UTRACE_REC_SIGNAL && r.signal.signo == SIGTERM &&
	      r.signal.disposition == UTRACE_SIGCLASS_TERM,
	      "decision record type %u signo %d class %u", r.h.type, r.signal.signo,
	      r.signal.disposition);
	CHECK(stopped(pid) == 'I', "waiting child in state %c, want I", proc_state(pid));
	CHECK(decide(fd, &r, UTRACE_VERDICT_RUN, 0) == -EINVAL, "RUN on a signal");
	CHECK(decide(fd, &r, UTRACE_VERDICT_IGNORE, 0) == 0, "IGNORE: %s", strerror(errno));
	CHECK(decide(fd, &r, UTRACE_VERDICT_IGNORE, 0) == -ESTALE, "a repeated answer");
	go(wait_pipe[1]);
	run_to_death(fd);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child status %#x, want exit 0 (SIGTERM ignored)", status);
	printf("ignore: SIGTERM ignored, the child lived on and exited 0\n");
	return fails ? 1 : 0;
}

/* What the child's handlers saw, reported over a pipe. */
struct seen {
	int usr1, usr2;
	int code1, value1, pid1;
	int code2, value2;
};
static volatile struct seen seen;

static void handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGUSR1) {
		seen.usr1++;
		seen.code1 = si->si_code;
		seen.value1 = si->si_value.sival_int;
		seen.pid1 = si->si_pid;
	} else {
		seen.usr2++;
		seen.code2 = si->si_code;
		seen.value2 = si->si_value.sival_int;
	}
}

static int result_pipe[2];

static int child_handlers(void)
{
	char c;

	/* Handlers were installed before the fork; wait for the end. */
	while (read(wait_pipe[0], &c, 1) != 1)
		;
	struct seen s = seen;

	return write(result_pipe[1], &s, sizeof(s)) == sizeof(s) ? 0 : 5;
}

static void handlers(void)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO | SA_RESTART };

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
}

static void fill_siginfo(struct utrace_decide *d, const struct utrace_record *r, int code,
			 int value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	memcpy(&si, r->signal.siginfo, 48);
	si.si_code = code;
	si.si_value.sival_int = value;
	memset(d->siginfo, 0, sizeof(d->siginfo));
	memcpy(d->siginfo, &si, 48);
}

static int cmd_hold(void)
{
	int fd = sess_open(), gate, status;
	struct utrace_record r, r2;
	struct utrace_decide d;
	struct seen s = { 0 };
	union sigval v = { .sival_int = 42 };
	pid_t pid;

	if (pipe(wait_pipe) || pipe(result_pipe))
		die("pipe");
	handlers();
	pid = gated(&gate, child_handlers);
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SIGNAL, UTRACE_EV_SIGNAL_ALL | UTRACE_EV_DEATH);
	go(gate);

	/* SIGUSR1, queued with a value: HOLD, then DELIVER. */
	sigqueue(pid, SIGUSR1, v);
	next_decision(fd, &r);
	CHECK(r.h.type == UTRACE_REC_SIGNAL && r.signal.signo == SIGUSR1,
	      "decision record type %u signo %d", r.h.type, r.signal.signo);
	CHECK(stopped(pid) == 'I', "waiting child in state %c, want I", proc_state(pid));
	CHECK(decide(fd, &r, UTRACE_VERDICT_HOLD, 0) == 0, "HOLD: %s", strerror(errno));
	CHECK(decide(fd, &r, UTRACE_VERDICT_HOLD, 0) == -ESTALE, "HOLD twice");
	CHECK(proc_state(pid) == 'I', "held child in state %c, want I", proc_state(pid));
	/* Stale, foreign and wrong answers change nothing. */
	d = (struct utrace_decide){ .verdict = UTRACE_VERDICT_DELIVER,
				    .engine_id = r.h.engine_id, .seq = r.h.seq + 1000 };
	CHECK(decide_arg(fd, &d) == -ESTALE, "an unknown seq");
	d.seq = r.h.seq;
	d.engine_id = r.h.engine_id + 1;
	CHECK(decide_arg(fd, &d) == -ESTALE, "another engine's answer");
	d.engine_id = r.h.engine_id;
	d.verdict = 99;
	CHECK(decide_arg(fd, &d) == -EINVAL, "an unknown verdict");
	d.verdict = UTRACE_VERDICT_ABORT;
	d.value = EPERM;
	CHECK(decide_arg(fd, &d) == -EINVAL, "ABORT on a signal");
	d.verdict = UTRACE_VERDICT_DELIVER;
	d.value = 0;
	d.reserved = 1;
	CHECK(decide_arg(fd, &d) == -EINVAL, "reserved set");
	d.reserved = 0;
	d.flags = 1U << 7;
	CHECK(decide_arg(fd, &d) == -EINVAL, "an unknown flag");
	d.flags = 0;
	CHECK(proc_state(pid) == 'I', "child in state %c after refused answers", proc_state(pid));
	CHECK(decide_arg(fd, &d) == 0, "DELIVER after HOLD: %s", strerror(errno));
	CHECK(decide_arg(fd, &d) == -ESTALE, "DELIVER again");

	/* SIGUSR2 from kill(): forged siginfo refused, SI_QUEUE accepted. */
	kill(pid, SIGUSR2);
	next_decision(fd, &r2);
	CHECK(r2.h.type == UTRACE_REC_SIGNAL && r2.signal.signo == SIGUSR2,
	      "decision record type %u signo %d", r2.h.type, r2.signal.signo);
	d = (struct utrace_decide){ .verdict = UTRACE_VERDICT_DELIVER,
				    .engine_id = r2.h.engine_id, .seq = r2.h.seq,
				    .flags = UTRACE_DECIDE_F_SIGINFO };
	fill_siginfo(&d, &r2, SI_USER, 7);
	CHECK(decide_arg(fd, &d) == -EPERM, "forged SI_USER");
	fill_siginfo(&d, &r2, SI_TKILL, 7);
	CHECK(decide_arg(fd, &d) == -EPERM, "forged SI_TKILL");
	fill_siginfo(&d, &r2, 1 /* SEGV_MAPERR, a kernel code */, 7);
	CHECK(decide_arg(fd, &d) == -EPERM, "forged kernel si_code");
	fill_siginfo(&d, &r2, SI_QUEUE, 7);
	((siginfo_t *)d.siginfo)->si_signo = SIGUSR1;
	CHECK(decide_arg(fd, &d) == -EINVAL, "another signal number");
	fill_siginfo(&d, &r2, SI_QUEUE, 77);
	d.siginfo[100] = 1;
	CHECK(decide_arg(fd, &d) == -E2BIG, "siginfo bytes past the kernel's");
	d.siginfo[100] = 0;
	CHECK(decide_arg(fd, &d) == 0, "DELIVER with SI_QUEUE: %s", strerror(errno));

	go(wait_pipe[1]);
	run_to_death(fd);
	waitpid(pid, &status, 0);
	CHECK(read(result_pipe[0], &s, sizeof(s)) == sizeof(s), "no result from the child");
	CHECK(s.usr1 == 1, "SIGUSR1 handler ran %d times, want 1", s.usr1);
	CHECK(s.code1 == SI_QUEUE && s.value1 == 42 && s.pid1 == getpid(),
	      "SIGUSR1 siginfo code %d value %d pid %d, want %d 42 %d", s.code1, s.value1,
	      s.pid1, SI_QUEUE, getpid());
	CHECK(s.usr2 == 1 && s.code2 == SI_QUEUE && s.value2 == 77,
	      "SIGUSR2: %d runs, code %d value %d, want 1 %d 77", s.usr2, s.code2, s.value2,
	      SI_QUEUE);
	printf("hold: SIGUSR1 held then delivered once with its siginfo (value 42); SIGUSR2 "
	       "delivered as SI_QUEUE value 77, forged siginfo refused\n");
	return fails ? 1 : 0;
}

static int cmd_killed(void)
{
	int fd = sess_open(), gate, status;
	struct utrace_record r;
	pid_t pid;

	if (pipe(wait_pipe))
		die("pipe");
	pid = gated(&gate, child_wait);
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SIGNAL, UTRACE_EV_SIGNAL_ALL);
	go(gate);
	kill(pid, SIGTERM);
	next_decision(fd, &r);
	CHECK(stopped(pid) == 'I', "waiting child in state %c, want I", proc_state(pid));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child status %#x", status);
	CHECK(decide(fd, &r, UTRACE_VERDICT_DELIVER, 0) == -ESTALE,
	      "an answer after SIGKILL: %s", strerror(errno));
	printf("killed: SIGKILL ended the wait, the late answer is ESTALE\n");
	return fails ? 1 : 0;
}

static int child_mkdir_signal(void)
{
	char c;

	if (syscall(SYS_mkdir, dir, 0700))
		return 12;
	while (read(wait_pipe[0], &c, 1) != 1)
		;
	return seen.usr1 == 1 ? 0 : 13;
}

static int cmd_close(void)
{
	int fd, gate, status;
	struct utrace_record r;
	pid_t pid;

	snprintf(dir, sizeof(dir), "/tmp/utdecide.%d", getpid());
	rmdir(dir);
	if (pipe(wait_pipe))
		die("pipe");
	handlers();
	pid = gated(&gate, child_mkdir_signal);
	/* After the fork: the child holds no reference on the session. */
	fd = sess_open();
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SYSCALL,
	       UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	go(gate);
	do
		next_decision(fd, &r);
	while (r.syscall.nr != SYS_mkdir && !decide(fd, &r, UTRACE_VERDICT_RUN, 0));
	CHECK(r.syscall.nr == SYS_mkdir, "no mkdir decision");
	CHECK(stopped(pid) == 'I', "waiting child in state %c, want I", proc_state(pid));
	close(fd);
	/* Without the session, the mkdir runs. */
	for (int i = 0; i < 1000 && access(dir, F_OK); i++)
		usleep(10000);
	CHECK(access(dir, F_OK) == 0, "no %s: the mkdir did not run after close", dir);

	/* The same for a signal. */
	fd = sess_open();
	attach(fd, pid, UTRACE_ATTACH_F_DECIDE_SIGNAL, UTRACE_EV_SIGNAL_ALL | UTRACE_EV_DEATH);
	kill(pid, SIGUSR1);
	next_decision(fd, &r);
	CHECK(r.h.type == UTRACE_REC_SIGNAL && r.signal.signo == SIGUSR1, "no SIGUSR1 decision");
	CHECK(stopped(pid) == 'I', "waiting child in state %c, want I", proc_state(pid));
	close(fd);
	go(wait_pipe[1]);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child status %#x, want exit 0 (mkdir made, handler ran once)", status);
	rmdir(dir);
	printf("close: the session closed while the child waited: the mkdir ran, SIGUSR1 was "
	       "delivered once\n");
	return fails ? 1 : 0;
}

/* lost: thread 2 fills the ring; then the main thread's decisions drop. */
static int gate2[2], done2[2], tid_pipe[2];

static void *spinner(void *arg)
{
	pid_t tid = syscall(SYS_gettid);
	char c;

	(void)arg;
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid) ||
	    read(gate2[0], &c, 1) != 1)
		return NULL;
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	if (write(done2[1], "d", 1) != 1)
		return NULL;
	for (;;)
		pause();
}

/* Whether @pid's main thread is in read() (x86-64 syscall 0). */
static int in_read(pid_t pid)
{
	char path[64], buf[64] = "";
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 2 && !strncmp(buf, "0 ", 2);
}

static int cmd_lost(void)
{
	int fd = sess_open(), status, lost = 0, decides = 0, i;
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 4096 };
	struct utrace_record r;
	pid_t pid, tid2;
	char c;

	if (pipe(gate2) || pipe(done2) || pipe(tid_pipe))
		die("pipe");
	if (ioctl(fd, UTRACE_IOC_CONFIG, &cfg))
		die("config");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, spinner, NULL))
			_exit(6);
		if (read(wait_pipe[0], &c, 1) != 1)
			_exit(7);
		_exit(0);
	}
	if (read(tid_pipe[0], &tid2, sizeof(tid2)) != sizeof(tid2) || tid2 <= 0)
		die("thread id");
	/* The main thread blocks in read() before its engine is attached. */
	for (i = 0; i < 500 && !in_read(pid); i++)
		usleep(10000);
	CHECK(in_read(pid), "the child's main thread is not in read()");
	attach(fd, tid2, UTRACE_ATTACH_F_THREAD, UTRACE_EV_SYSCALL_ENTRY);
	attach(fd, pid, UTRACE_ATTACH_F_THREAD | UTRACE_ATTACH_F_DECIDE_SYSCALL,
	       UTRACE_EV_SYSCALL_ENTRY);
	go(gate2[1]);
	if (read(done2[0], &c, 1) != 1)
		die("spinner");
	/* The ring is full: the main thread's entries are dropped, it runs. */
	go(wait_pipe[1]);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, &r, sizeof(r)) == sizeof(r)) {
		if (r.h.type == UTRACE_REC_LOST)
			lost += r.lost.count;
		if (r.h.flags & UTRACE_REC_F_DECIDE)
			decides++;
	}
	CHECK(lost > 0, "no LOST record");
	CHECK(decides == 0, "%d decision records in a full ring", decides);
	printf("lost: a full lossy ring dropped the decision records (%d lost), the thread did "
	       "not wait\n", lost);
	return fails ? 1 : 0;
}

/* The main thread of the lossless child: its mkdir() after the gate. */
static int lossless_main(void)
{
	char c;

	if (read(wait_pipe[0], &c, 1) != 1)
		return 7;
	if (syscall(SYS_mkdir, dir, 0700) == 0)
		return 10;
	return errno == EPERM ? 0 : 11;
}

static int cmd_lossless(void)
{
	int fd = sess_open(), status, i, aborted = 0, lost = 0;
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 4096 };
	struct utrace_record r;
	__u64 last = 0;
	pid_t pid, tid2;
	char st = '?';

	snprintf(dir, sizeof(dir), "/tmp/utdecide.%d", getpid());
	rmdir(dir);
	if (pipe(gate2) || pipe(done2) || pipe(tid_pipe))
		die("pipe");
	if (ioctl(fd, UTRACE_IOC_CONFIG, &cfg))
		die("config");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, spinner, NULL))
			_exit(6);
		_exit(lossless_main());
	}
	if (read(tid_pipe[0], &tid2, sizeof(tid2)) != sizeof(tid2) || tid2 <= 0)
		die("thread id");
	for (i = 0; i < 500 && !in_read(pid); i++)
		usleep(10000);
	CHECK(in_read(pid), "the child's main thread is not in read()");
	attach(fd, tid2, UTRACE_ATTACH_F_THREAD | UTRACE_ATTACH_F_LOSSLESS,
	       UTRACE_EV_SYSCALL_ENTRY);
	attach(fd, pid,
	       UTRACE_ATTACH_F_THREAD | UTRACE_ATTACH_F_LOSSLESS |
		       UTRACE_ATTACH_F_DECIDE_SYSCALL,
	       UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	/* The spinner fills the ring and waits for room. */
	go(gate2[1]);
	for (i = 0; i < 1000 && (st = proc_state(tid2)) != 'I'; i++)
		usleep(10000);
	CHECK(st == 'I', "the spinner's state is %c with the ring full, want I", st);
	/* The main thread's decision record waits for room too. */
	go(wait_pipe[1]);
	CHECK(stopped(pid) == 'I', "the main thread's state is %c, want I", proc_state(pid));
	for (;;) {
		next_record(fd, &r);
		CHECK(r.h.seq == last + 1, "seq %llu after %llu", (unsigned long long)r.h.seq,
		      (unsigned long long)last);
		last = r.h.seq;
		if (r.h.type == UTRACE_REC_LOST)
			lost++;
		/* Only the main thread reports DEATH (the spinner may die last). */
		if (r.h.type == UTRACE_REC_DEATH)
			break;
		if (!(r.h.flags & UTRACE_REC_F_DECIDE))
			continue;
		CHECK(r.h.tid == pid, "a decision of tid %d, want %d", r.h.tid, pid);
		if (r.syscall.nr == SYS_mkdir) {
			CHECK(decide(fd, &r, UTRACE_VERDICT_ABORT, EPERM) == 0, "ABORT: %s",
			      strerror(errno));
			aborted++;
		} else {
			decide(fd, &r, UTRACE_VERDICT_RUN, 0);
		}
	}
	waitpid(pid, &status, 0);
	CHECK(lost == 0, "%d LOST records in lossless mode", lost);
	CHECK(aborted == 1, "%d mkdir decisions", aborted);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child status %#x (0: mkdir failed with EPERM)", status);
	CHECK(access(dir, F_OK) != 0, "%s exists: the aborted mkdir ran", dir);
	rmdir(dir);
	printf("lossless: a decision record waited for room (thread state I), then for its "
	       "answer: mkdir aborted, %llu records without a gap\n", (unsigned long long)last);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(60);
	if (pipe(wait_pipe))
		die("pipe");
	if (!strcmp(argv[1], "abort"))
		return cmd_abort();
	if (!strcmp(argv[1], "args"))
		return cmd_args();
	if (!strcmp(argv[1], "stop"))
		return cmd_stop();
	if (!strcmp(argv[1], "ignore"))
		return cmd_ignore();
	if (!strcmp(argv[1], "hold"))
		return cmd_hold();
	if (!strcmp(argv[1], "killed"))
		return cmd_killed();
	if (!strcmp(argv[1], "close"))
		return cmd_close();
	if (!strcmp(argv[1], "lossless"))
		return cmd_lossless();
	if (!strcmp(argv[1], "lost"))
		return cmd_lost();
	return 2;
}
