// SPDX-License-Identifier: GPL-2.0
/*
 * utregs: UTRACE_IOC_GETREGS and UTRACE_IOC_SETREGS of /dev/utrace sessions,
 * from the user's side (tests/56-session-regs.sh).
 *
 *   utregs regs    a child blocks in a read() written in assembly; the
 *                  session STOPs it, the read returns and it stops before
 *                  its next instruction. GETREGS: rip is the label after
 *                  the syscall, rax the read's 1, orig_rax SYS_read, rsp
 *                  what the child itself reports later. SETREGS makes the
 *                  read return 42 (the child sees 42); a bad segment
 *                  selector is refused and changes nothing. Two
 *                  SINGLESTEPs run one instruction each (a QUIESCE record
 *                  with STOPPED and STEP after each; rip at the next
 *                  label, the second one's movabs done). Every misuse
 *                  gets its errno.
 *   utregs steps   the kernel as the oracle of SINGLESTEP: two children
 *                  run the same instructions after a read() (one of them
 *                  a getppid() syscall instruction, one a jump); one is
 *                  stepped by a session (STOP, then SINGLESTEP), the other
 *                  by ptrace (PTRACE_SYSCALL to the read's exit, then
 *                  PTRACE_SINGLESTEP); a popf among them. The rip after
 *                  each step and the syscall's rax must be the same, and
 *                  both children see getppid() return their parent.
 *   utregs stepmore  SINGLESTEP with a second session and a signal: a
 *                  step asked while another session also holds the thread
 *                  waits for that session's RESUME, then is taken; a
 *                  stepped read() is stopped at its entry by another
 *                  session's decision (RUN), blocks, that session closes,
 *                  the read returns and the step ends after it; a step
 *                  with a handled SIGUSR1 pending ends at the handler's
 *                  first instruction (as with ptrace), and the program
 *                  then runs as without the session.
 *
 * Prints "ok: ..." lines, "FAIL: ..." and exits 1 when a check fails.
 */
#include <elf.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <utrace_rs.h>
#include "progs.h"
#include "check.h"

#define MOVABS_VALUE 0x1122334455667788ULL

/* The labels of marker(): the instruction after its syscall, and after the
 * first two instructions after it (a 1-byte nop, a 10-byte movabs). */
extern char after_read[], step1[], step2[];

struct report {
	long ret;
	unsigned long sp;
	unsigned long r10;
};

/*
 * read(fd, buf, 1) as one syscall instruction; after it a nop, a movabs
 * into r10, then rsp and r10 are saved for the child's report.
 */
static __attribute__((noinline)) void marker(int fd, char *buf, struct report *rep)
{
	long ret;
	unsigned long sp, r10;

	asm volatile("syscall\n"
		     ".globl after_read\n"
		     "after_read:\n\t"
		     "nop\n"
		     ".globl step1\n"
		     "step1:\n\t"
		     "movabs $0x1122334455667788, %%r10\n"
		     ".globl step2\n"
		     "step2:\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "mov %%r10, %[r10]\n"
		     : "=a"(ret), [sp] "=&r"(sp), [r10] "=&r"(r10)
		     : "a"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(1L)
		     : "rcx", "r11", "r10", "memory");
	rep->ret = ret;
	rep->sp = sp;
	rep->r10 = r10;
}

/*
 * seq_start: the instructions both steppers of `utregs steps` step
 * through, after a read(fd, buf, 1): SEQ_STEPS of them up to seq_end, the
 * third a getppid() syscall instruction (a step runs the whole syscall), the
 * fifth a taken jump, the eighth a popf of flags without TF (the kernel
 * takes a popf as the program's own setting of the trap flag: the step's
 * trap is still the stepper's; a pushf under a step would push TF, for
 * ptrace as well). Returns the getppid() result.
 */
extern char seq_start[], seq_end[];
#define SEQ_STEPS 9

static __attribute__((noinline)) long stepped_seq(int fd, char *buf)
{
	long ret;

	asm volatile("syscall\n"
		     ".globl seq_start\n"
		     "seq_start:\n\t"
		     "nop\n\t"
		     "mov %[ppid], %%eax\n\t"
		     "syscall\n\t"
		     "nop\n\t"
		     "jmp 1f\n\t"
		     "ud2\n"
		     "1:\n\t"
		     "mov %%rax, %%r10\n\t"
		     "pushq $0x202\n\t"
		     "popfq\n\t"
		     "nop\n"
		     ".globl seq_end\n"
		     "seq_end:\n\t"
		     "mov %%r10, %%rax\n"
		     : "=a"(ret)
		     : "a"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(1L),
		       [ppid] "i"(SYS_getppid)
		     : "rcx", "r11", "r10", "memory");
	return ret;
}

static int fd;
static __u64 id;
static pid_t child;
/* What the program waits for now, for the time-out's message. */
static const char *volatile phase = "start";

static void timed_out(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "FAIL: no progress for 30 s while waiting for %s\n", phase);
	if (write(1, msg, n) < 0)
		_exit(3);
	kill(child, SIGKILL);
	_exit(1);
}

/* GETREGS (or SETREGS) of the child: 0 or the errno; *len the answered len. */
static int regs_call(unsigned long cmd, __u32 note, void *buf, __u64 *len, pid_t tid)
{
	struct utrace_regs r = { .size = sizeof(r), .note_type = note, .engine_id = id,
				 .tid = tid, .buf = (__u64)(unsigned long)buf, .len = *len };

	if (ioctl(fd, cmd, &r))
		return errno;
	*len = r.len;
	return 0;
}

static int getregs(struct user_regs_struct *regs)
{
	__u64 len = sizeof(*regs);
	int e = regs_call(UTRACE_IOC_GETREGS, NT_PRSTATUS, regs, &len, child);

	CHECK(e || len == sizeof(*regs), "GETREGS NT_PRSTATUS: len %llu",
	      (unsigned long long)len);
	return e;
}

static int control(__u32 action, pid_t tid)
{
	struct utrace_control c = { .size = sizeof(c), .action = action, .engine_id = id,
				    .tid = tid };

	return ioctl(fd, UTRACE_IOC_CONTROL, &c) ? errno : 0;
}

/*
 * Reads records until a QUIESCE with UTRACE_REC_F_STOPPED, which must have
 * UTRACE_REC_F_STEP if @step; how many others.
 */
static int wait_stop(int step)
{
	struct utrace_record r;
	int others = 0;

	alarm(30);
	for (;;) {
		if (read(fd, &r, sizeof(r)) != sizeof(r))
			die("read record");
		if (r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED)) {
			CHECK(r.h.tid == child, "QUIESCE of tid %d", r.h.tid);
			CHECK(!step || (r.h.flags & UTRACE_REC_F_STEP),
			      "a STOPPED record without STEP (flags %#x, event %#llx, seq %llu)",
			      r.h.flags, (unsigned long long)r.quiesce.event,
			      (unsigned long long)r.h.seq);
			alarm(0);
			return others;
		}
		others++;
	}
}

static int wait_stopped_record(void)
{
	return wait_stop(0);
}

static int wait_step_record(void)
{
	return wait_stop(1);
}

/*
 * Reads the records queued now (the thread is in its stop: every record of
 * its way there is queued); how many were STOPPED QUIESCE records. The
 * next wait then sees only what comes after.
 */
static int drain(void)
{
	struct utrace_record r;
	int stopped = 0;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, &r, sizeof(r)) == sizeof(r))
		stopped += r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED);
	fcntl(fd, F_SETFL, 0);
	return stopped;
}

/* Whether @pid is blocked in read() (/proc/PID/syscall starts with "0 "). */
static int in_read(pid_t pid)
{
	char path[64], buf[128];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = open(path, O_RDONLY);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return !strncmp(buf, "0 ", 2);
}

static void expect(int got, int want, const char *what)
{
	CHECK(got == want, "%s: %s, want %s", what, errname(got), errname(want));
	if (got == want)
		printf("ok: %s: %s\n", what, errname(want));
}

/*
 * A session on the child, which is to block in a read(): attached, the
 * read waited for. Whether the child blocks in it.
 */
static int attach_blocked(void)
{
	struct utrace_attach a = { .size = sizeof(a), .events = 0 };
	int blocked = 0;

	fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(UTRACE_DEV_PATH);
	a.pid = child;
	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		die("attach");
	id = a.engine_id;
	for (int i = 0; i < 1000 && !(blocked = in_read(child)); i++)
		usleep(10000);
	return blocked;
}

/*
 * STOP of the child blocked in its read() of the pipe @wr writes to; the
 * read given its byte, the thread in its stop.
 */
static void stop_after_read(int wr)
{
	expect(control(UTRACE_CTL_STOP, 0), 0, "STOP");
	if (write(wr, "y", 1) != 1)
		die("write");
	phase = "the QUIESCE record of the STOP";
	wait_stopped_record();
}

static int cmd_regs(void)
{
	int in[2], out[2], go[2], status;
	struct user_regs_struct regs, again;
	unsigned char fp[512], big[4096];
	struct report rep;
	__u64 len;
	void *unmapped;
	int extra;
	char c = 'x';

	if (pipe(in) || pipe(out) || pipe(go))
		die("pipe");
	signal(SIGALRM, timed_out);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(in[1]);
		close(out[0]);
		close(go[1]);
		marker(in[0], &c, &rep);
		if (write(out[1], &rep, sizeof(rep)) != sizeof(rep))
			_exit(3);
		/* Running (blocked) until told to end. */
		if (read(go[0], &c, 1) < 0)
			_exit(4);
		_exit(0);
	}
	close(in[0]);
	close(out[1]);
	close(go[0]);
	CHECK(attach_blocked(), "the child does not block in its read()");

	/* Not stopped yet: refused. */
	expect(getregs(&regs), EBUSY, "GETREGS of a running thread");

	/* STOP while it blocks; the read returns, it stops before user mode. */
	stop_after_read(in[1]);
	expect(getregs(&regs), 0, "GETREGS NT_PRSTATUS of the stopped child");
	CHECK(regs.rip == (unsigned long)after_read, "rip %#llx, the label after the syscall is %p",
	      regs.rip, (void *)after_read);
	CHECK(regs.rax == 1, "rax %lld, the read returned 1", regs.rax);
	CHECK(regs.orig_rax == SYS_read, "orig_rax %lld, want SYS_read", regs.orig_rax);
	CHECK(regs.rdi == (unsigned long)in[0], "rdi %lld, want fd %d", regs.rdi, in[0]);
	CHECK(regs.rdx == 1, "rdx %lld", regs.rdx);
	printf("ok: stopped after its read(): rip = after_read = %#llx, rax = 1, orig_rax = SYS_read\n",
	       regs.rip);

	/* len in and out, regsets, bad arguments. */
	len = 8;
	expect(regs_call(UTRACE_IOC_GETREGS, NT_PRSTATUS, &again, &len, child), 0,
	       "GETREGS with an 8-byte buffer");
	CHECK(len == 8 && again.r15 == regs.r15, "8-byte GETREGS: len %llu",
	      (unsigned long long)len);
	len = sizeof(big);
	expect(regs_call(UTRACE_IOC_GETREGS, NT_PRSTATUS, big, &len, 0), 0,
	       "GETREGS with tid 0 (the engine's only thread), a 4096-byte buffer");
	CHECK(len == sizeof(regs), "len out %llu, want the regset's %zu", (unsigned long long)len,
	      sizeof(regs));
	CHECK(!memcmp(big, &regs, sizeof(regs)), "the two reads differ");
	len = sizeof(fp);
	expect(regs_call(UTRACE_IOC_GETREGS, NT_PRFPREG, fp, &len, child), 0, "GETREGS NT_PRFPREG");
	CHECK(len == sizeof(fp), "NT_PRFPREG len %llu", (unsigned long long)len);
	len = sizeof(big);
	expect(regs_call(UTRACE_IOC_GETREGS, 0x4242, big, &len, child), EINVAL,
	       "GETREGS of an unknown note type");
	len = sizeof(regs);
	expect(regs_call(UTRACE_IOC_GETREGS, NT_PRSTATUS, NULL, &len, child), EFAULT,
	       "GETREGS to a NULL buffer");
	expect(regs_call(UTRACE_IOC_GETREGS, NT_PRSTATUS, (void *)0xffffffff81000000UL, &len,
			 child), EFAULT, "GETREGS to a kernel address");
	unmapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED)
		die("mmap");
	munmap(unmapped, 4096);
	expect(regs_call(UTRACE_IOC_SETREGS, NT_PRSTATUS, unmapped, &len, child), EFAULT,
	       "SETREGS from an unmapped buffer");
	expect(regs_call(UTRACE_IOC_GETREGS, NT_PRSTATUS, &again, &len, 99999), ESRCH,
	       "GETREGS of a tid the engine lacks");
	{
		struct utrace_regs r = { .size = sizeof(r), .note_type = NT_PRSTATUS,
					 .engine_id = id, .buf = (__u64)(unsigned long)&again,
					 .len = sizeof(again), .flags = 1 };

		expect(ioctl(fd, UTRACE_IOC_GETREGS, &r) ? errno : 0, EINVAL,
		       "GETREGS with an unknown flag");
		r.flags = 0;
		r.engine_id = 999;
		expect(ioctl(fd, UTRACE_IOC_GETREGS, &r) ? errno : 0, ENOENT,
		       "GETREGS of an unknown engine");
	}

	/* A write the regset refuses changes nothing. */
	again = regs;
	again.cs = 0x1234;
	len = sizeof(again);
	expect(regs_call(UTRACE_IOC_SETREGS, NT_PRSTATUS, &again, &len, child), EIO,
	       "SETREGS with a bad code segment selector (genregs_set)");
	getregs(&again);
	CHECK(!memcmp(&again, &regs, sizeof(regs)), "the refused SETREGS changed registers");

	/* The read returns 42. */
	again = regs;
	again.rax = 42;
	len = sizeof(again);
	expect(regs_call(UTRACE_IOC_SETREGS, NT_PRSTATUS, &again, &len, child), 0,
	       "SETREGS rax = 42");
	CHECK(len == sizeof(again), "SETREGS len out %llu", (unsigned long long)len);

	/* One instruction each: the nop, then the movabs. */
	extra = drain();
	expect(control(UTRACE_CTL_SINGLESTEP, child), 0, "SINGLESTEP of the stopped child");
	phase = "the QUIESCE record of the first SINGLESTEP";
	CHECK(wait_step_record() == 0, "records other than the step's before its stop");
	getregs(&again);
	CHECK(again.rip == (unsigned long)step1, "after one step rip %#llx, want step1 %p",
	      again.rip, (void *)step1);
	CHECK(again.rax == 42, "after one step rax %lld, want the SETREGS's 42", again.rax);
	expect(control(UTRACE_CTL_SINGLESTEP, 0), 0, "SINGLESTEP again");
	phase = "the QUIESCE record of the second SINGLESTEP";
	wait_step_record();
	getregs(&again);
	CHECK(again.rip == (unsigned long)step2, "after two steps rip %#llx, want step2 %p",
	      again.rip, (void *)step2);
	CHECK(again.r10 == MOVABS_VALUE, "after the movabs r10 %#llx", again.r10);
	if (again.rip == (unsigned long)step2 && again.r10 == MOVABS_VALUE)
		printf("ok: two SINGLESTEPs: rip at step1, then step2, r10 set by the movabs\n");
	expect(control(UTRACE_CTL_SINGLESTEP, 99999), ESRCH, "SINGLESTEP of a tid the engine lacks");
	{
		struct utrace_control c = { .size = sizeof(c), .action = UTRACE_CTL_SINGLESTEP,
					    .engine_id = 999 };

		expect(ioctl(fd, UTRACE_IOC_CONTROL, &c) ? errno : 0, ENOENT,
		       "SINGLESTEP of an unknown engine");
		c.engine_id = id;
		c.events = 1;
		expect(ioctl(fd, UTRACE_IOC_CONTROL, &c) ? errno : 0, EINVAL,
		       "SINGLESTEP with events");
	}
	extra = drain();
	if (extra)
		printf("note: %d more STOPPED QUIESCE records than stops\n", extra);
	expect(control(UTRACE_CTL_RESUME, 0), 0, "RESUME");
	phase = "the child's report after RESUME";
	alarm(30);
	if (read(out[0], &rep, sizeof(rep)) != sizeof(rep))
		die("report");
	CHECK(rep.ret == 42, "the child's read returned %ld, want 42 (SETREGS)", rep.ret);
	CHECK(rep.sp == regs.rsp, "the child's rsp %#lx, GETREGS said %#llx", rep.sp, regs.rsp);
	CHECK(rep.r10 == MOVABS_VALUE, "the child's r10 %#lx", rep.r10);
	if (rep.ret == 42 && rep.sp == regs.rsp)
		printf("ok: the child saw read() = 42 and rsp %#lx as GETREGS said\n", rep.sp);
	alarm(0);
	/* Running again (blocked in its second read). */
	expect(getregs(&again), EBUSY, "GETREGS after RESUME");
	expect(control(UTRACE_CTL_SINGLESTEP, 0), EBUSY, "SINGLESTEP of a running thread");

	close(go[1]);
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	close(fd);
	printf("regs: %s\n", fails ? "some checks failed" : "all checks passed");
	return fails ? 1 : 0;
}

/* The rips after each step, and rax after the syscall's step. */
struct trail {
	unsigned long long rip[SEQ_STEPS];
	unsigned long long rax;
};

/*
 * A child that runs stepped_seq() on @in (after PTRACE_TRACEME and a
 * SIGSTOP if @traced) and reports its getppid() result on @out.
 */
static pid_t seq_child(int in, int out, int traced)
{
	pid_t pid = fork();
	char c;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		long ret;

		if (traced) {
			if (ptrace(PTRACE_TRACEME, 0, 0, 0))
				_exit(5);
			raise(SIGSTOP);
		}
		ret = stepped_seq(in, &c);
		if (write(out, &ret, sizeof(ret)) != sizeof(ret))
			_exit(3);
		_exit(0);
	}
	return pid;
}

/* The session's steps of a child blocked in stepped_seq()'s read(). */
static void session_steps(struct trail *t, int wr)
{
	struct user_regs_struct regs;

	attach_blocked();
	stop_after_read(wr);
	getregs(&regs);
	CHECK(regs.rip == (unsigned long)seq_start, "session: stopped at %#llx, want seq_start %p",
	      regs.rip, (void *)seq_start);
	for (int i = 0; i < SEQ_STEPS; i++) {
		expect(control(UTRACE_CTL_SINGLESTEP, 0), 0, "session: SINGLESTEP");
		phase = "session: a step's QUIESCE record";
		wait_step_record();
		CHECK(!getregs(&regs), "session: GETREGS after step %d", i + 1);
		t->rip[i] = regs.rip;
		if (i == 2)
			t->rax = regs.rax;
	}
	expect(control(UTRACE_CTL_RESUME, 0), 0, "session: RESUME");
}

/* ptrace's steps of the same code: PTRACE_SYSCALL to the read's exit. */
static void ptrace_steps(struct trail *t, int in, int wr)
{
	struct user_regs_struct regs;
	int status, entered = 0;

	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		die("ptrace: the child's SIGSTOP");
	if (ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		die("PTRACE_SETOPTIONS");
	phase = "ptrace: the read's syscall stops";
	alarm(30);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, child, 0, 0))
			die("PTRACE_SYSCALL");
		if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
			die("ptrace: a syscall stop");
		if (WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue;
		if (ptrace(PTRACE_GETREGS, child, 0, &regs))
			die("PTRACE_GETREGS");
		/* rax is -ENOSYS at a syscall-entry stop. */
		if ((long)regs.rax == -ENOSYS && regs.orig_rax == SYS_read &&
		    regs.rdi == (unsigned long)in) {
			entered = 1;
			if (write(wr, "y", 1) != 1)
				die("write");
		} else if (entered && regs.orig_rax == SYS_read) {
			break;
		}
	}
	CHECK(regs.rip == (unsigned long)seq_start, "ptrace: stopped at %#llx, want seq_start %p",
	      regs.rip, (void *)seq_start);
	for (int i = 0; i < SEQ_STEPS; i++) {
		if (ptrace(PTRACE_SINGLESTEP, child, 0, 0))
			die("PTRACE_SINGLESTEP");
		if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
		    WSTOPSIG(status) != SIGTRAP)
			die("ptrace: a step's SIGTRAP");
		if (ptrace(PTRACE_GETREGS, child, 0, &regs))
			die("PTRACE_GETREGS");
		t->rip[i] = regs.rip;
		if (i == 2)
			t->rax = regs.rax;
	}
	alarm(0);
	if (ptrace(PTRACE_DETACH, child, 0, 0))
		die("PTRACE_DETACH");
}

/* One child stepped by a session (!@traced) or by ptrace; its getppid(). */
static long stepped(struct trail *t, int traced)
{
	int in[2], out[2], status;
	long ret = 0;

	if (pipe(in) || pipe(out))
		die("pipe");
	child = seq_child(in[0], out[1], traced);
	close(in[0]);
	close(out[1]);
	if (traced)
		ptrace_steps(t, in[0], in[1]);
	else
		session_steps(t, in[1]);
	phase = "the child's report";
	alarm(30);
	if (read(out[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = 0;
	alarm(0);
	waitpid(child, &status, 0);
	if (traced && WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP) {
		/*
		 * The kernel's own ptrace step of a popf leaves the trap flag
		 * to the program (arch/x86/kernel/step.c: TIF_FORCED_TF is
		 * cleared for it), which then traps once detached.
		 */
		printf("note: ptrace's child died of SIGTRAP after PTRACE_DETACH (the stepped popf)\n");
		return -1;
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s child status %#x",
	      traced ? "ptrace's" : "the session's", status);
	if (!traced)
		close(fd);
	close(in[1]);
	close(out[0]);
	return ret;
}

static int cmd_steps(void)
{
	struct trail ours, theirs;
	long r1, r2;

	memset(&ours, 0, sizeof(ours));
	memset(&theirs, 0, sizeof(theirs));
	signal(SIGALRM, timed_out);
	r1 = stepped(&ours, 0);
	r2 = stepped(&theirs, 1);
	for (int i = 0; i < SEQ_STEPS; i++) {
		printf("step %d: session rip %#llx, ptrace rip %#llx\n", i + 1, ours.rip[i],
		       theirs.rip[i]);
		CHECK(ours.rip[i] == theirs.rip[i], "step %d: the session's rip %#llx, ptrace's %#llx",
		      i + 1, ours.rip[i], theirs.rip[i]);
	}
	CHECK(ours.rip[SEQ_STEPS - 1] == (unsigned long)seq_end, "after %d steps rip %#llx, want seq_end %p",
	      SEQ_STEPS, ours.rip[SEQ_STEPS - 1], (void *)seq_end);
	CHECK(ours.rax == theirs.rax && ours.rax == (unsigned long long)getpid(),
	      "rax after the stepped getppid(): session %lld, ptrace %lld, want %d", ours.rax,
	      theirs.rax, getpid());
	CHECK(r1 == getpid() && (r2 == getpid() || r2 == -1),
	      "the children's getppid(): %ld and %ld, want %d", r1, r2, getpid());
	printf("steps: %s\n", fails ? "some checks failed" : "the session's steps are ptrace's");
	return fails ? 1 : 0;
}

/*
 * stepmore's child code: read(fd_a) (the stop point), two movs that set up
 * read(fd_b), its syscall instruction at sb_call; sb_after follows it.
 * Returns read(fd_b)'s result.
 */
extern char sa_after[], sa_mov2[], sb_call[], sb_after[];

static __attribute__((noinline)) long two_reads(int fd_a, int fd_b, char *buf)
{
	register long r8 asm("r8") = SYS_read;
	register long r9 asm("r9") = fd_b;
	long ret;

	asm volatile("syscall\n"
		     ".globl sa_after\n"
		     "sa_after:\n\t"
		     "mov %%r8, %%rax\n"
		     ".globl sa_mov2\n"
		     "sa_mov2:\n\t"
		     "mov %%r9, %%rdi\n"
		     ".globl sb_call\n"
		     "sb_call:\n\t"
		     "syscall\n"
		     ".globl sb_after\n"
		     "sb_after:\n\t"
		     "nop\n"
		     : "=a"(ret)
		     : "a"((long)SYS_read), "D"((long)fd_a), "S"(buf), "d"(1L), "r"(r8), "r"(r9)
		     : "rcx", "r11", "memory");
	return ret;
}

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen++;
}

/*
 * A second session on the child, with its own engine (deciding syscall
 * entries if @decide); its fd.
 */
static int second_session(__u64 *id2, int decide)
{
	struct utrace_attach a = { .size = sizeof(a), .events = 0 };
	int f = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (f < 0)
		die(UTRACE_DEV_PATH);
	a.pid = child;
	if (decide) {
		a.flags = UTRACE_ATTACH_F_DECIDE_SYSCALL;
		a.events = UTRACE_EV_SYSCALL_ENTRY;
	}
	if (ioctl(f, UTRACE_IOC_ATTACH, &a))
		die("attach (second session)");
	*id2 = a.engine_id;
	return f;
}

static int control_of(int f, __u64 engine, __u32 action)
{
	struct utrace_control c = { .size = sizeof(c), .action = action, .engine_id = engine };

	return ioctl(f, UTRACE_IOC_CONTROL, &c) ? errno : 0;
}

/* Whether a record is queued on @f now. */
static int queued(int f)
{
	struct pollfd p = { .fd = f, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* One SINGLESTEP and its stop; the registers there. */
static void step(struct user_regs_struct *regs, const char *what)
{
	expect(control(UTRACE_CTL_SINGLESTEP, 0), 0, what);
	phase = what;
	wait_step_record();
	CHECK(!getregs(regs), "GETREGS after %s", what);
}

static int cmd_stepmore(void)
{
	int a[2], b[2], out[2], fd2, status;
	struct user_regs_struct regs;
	__u64 id2;
	char c;

	if (pipe(a) || pipe(b) || pipe(out))
		die("pipe");
	signal(SIGALRM, timed_out);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
		long ret[2];

		sigaction(SIGUSR1, &sa, NULL);
		ret[0] = two_reads(a[0], b[0], &c);
		ret[1] = usr1_seen;
		if (write(out[1], ret, sizeof(ret)) != sizeof(ret))
			_exit(3);
		_exit(0);
	}
	attach_blocked();
	stop_after_read(a[1]);

	/* A step while a second session also holds the thread. */
	fd2 = second_session(&id2, 0);
	expect(control_of(fd2, id2, UTRACE_CTL_STOP), 0, "second session: STOP");
	expect(control(UTRACE_CTL_SINGLESTEP, 0), 0, "SINGLESTEP while the second session holds it");
	usleep(200000);
	CHECK(!queued(fd), "a step record while the second session holds the thread");
	expect(control_of(fd2, id2, UTRACE_CTL_RESUME), 0, "second session: RESUME");
	phase = "the step's record after the second session's RESUME";
	wait_step_record();
	getregs(&regs);
	CHECK(regs.rip == (unsigned long)sa_mov2, "after the held step rip %#llx, want %p", regs.rip,
	      (void *)sa_mov2);
	if (regs.rip == (unsigned long)sa_mov2)
		printf("ok: a step asked while another session held the thread ran once it resumed\n");
	close(fd2);
	step(&regs, "SINGLESTEP to the second read's syscall instruction");
	CHECK(regs.rip == (unsigned long)sb_call, "rip %#llx, want sb_call %p", regs.rip,
	      (void *)sb_call);

	/*
	 * The stepped read(): a second session stops it at its entry for a
	 * decision, answers RUN, the read blocks, the session closes.
	 */
	fd2 = second_session(&id2, 1);
	expect(control(UTRACE_CTL_SINGLESTEP, 0), 0, "SINGLESTEP of the read's syscall instruction");
	{
		struct utrace_record r;
		struct utrace_decide d = { .size = sizeof(d), .verdict = UTRACE_VERDICT_RUN,
					   .engine_id = id2 };

		phase = "the second session's decision record of the stepped read()";
		alarm(30);
		do {
			if (read(fd2, &r, sizeof(r)) != sizeof(r))
				die("read record (second session)");
		} while (!(r.h.flags & UTRACE_REC_F_DECIDE));
		alarm(0);
		CHECK(r.h.type == UTRACE_REC_SYSCALL_ENTRY && r.syscall.nr == SYS_read,
		      "the decision record: type %d nr %d", r.h.type, r.syscall.nr);
		usleep(100000);
		CHECK(!queued(fd), "a step record while the second session decides");
		d.seq = r.h.seq;
		expect(ioctl(fd2, UTRACE_IOC_DECIDE, &d) ? errno : 0, 0,
		       "second session: RUN the stepped read()");
	}
	{
		int blocked = 0;

		for (int i = 0; i < 1000 && !(blocked = in_read(child)); i++)
			usleep(10000);
		CHECK(blocked, "the stepped read() does not block");
	}
	close(fd2);
	usleep(100000);
	CHECK(!queued(fd), "a step record while the stepped read() blocks");
	if (write(b[1], "z", 1) != 1)
		die("write");
	phase = "the step's record after the read";
	wait_step_record();
	getregs(&regs);
	CHECK(regs.rip == (unsigned long)sb_after && regs.rax == 1,
	      "after the stepped read(): rip %#llx (want sb_after %p), rax %lld (want 1)", regs.rip,
	      (void *)sb_after, regs.rax);
	if (regs.rip == (unsigned long)sb_after && regs.rax == 1)
		printf("ok: the stepped read() returned 1 and the step ended after it (another session decided its entry, then closed)\n");

	/* A signal that comes in the stop is delivered by the step. */
	kill(child, SIGUSR1);
	usleep(100000);
	step(&regs, "SINGLESTEP with a SIGUSR1 pending");
	CHECK(regs.rip == (unsigned long)on_usr1, "the step into the handler: rip %#llx, want %p",
	      regs.rip, (void *)on_usr1);
	if (regs.rip == (unsigned long)on_usr1)
		printf("ok: a step with a handled signal pending ends at the handler's entry\n");
	expect(control(UTRACE_CTL_RESUME, 0), 0, "RESUME");
	{
		long ret[2];

		phase = "the child's report";
		alarm(30);
		if (read(out[0], ret, sizeof(ret)) != sizeof(ret))
			die("report");
		alarm(0);
		CHECK(ret[0] == 1 && ret[1] == 1,
		      "the child's read() %ld (want 1), SIGUSR1 handled %ld times (want 1)", ret[0],
		      ret[1]);
		if (ret[0] == 1 && ret[1] == 1)
			printf("ok: the child saw its read() return 1 and handled SIGUSR1 once\n");
	}
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	close(fd);
	printf("stepmore: %s\n", fails ? "some checks failed" : "all checks passed");
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "regs"))
		return cmd_regs();
	if (argc > 1 && !strcmp(argv[1], "steps"))
		return cmd_steps();
	if (argc > 1 && !strcmp(argv[1], "stepmore"))
		return cmd_stepmore();
	return 2;
}
