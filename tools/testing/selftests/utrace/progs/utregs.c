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
 *                  selector is refused and changes nothing; SINGLESTEP is
 *                  EOPNOTSUPP. Every misuse gets its errno.
 *
 * Prints "ok: ..." lines, "FAIL: ..." and exits 1 when a check fails.
 */
#include <elf.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/* Reads records until a QUIESCE with UTRACE_REC_F_STOPPED; how many others. */
static int wait_stopped_record(void)
{
	struct utrace_record r;
	int others = 0;

	alarm(30);
	for (;;) {
		if (read(fd, &r, sizeof(r)) != sizeof(r))
			die("read record");
		if (r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED)) {
			CHECK(r.h.tid == child, "QUIESCE of tid %d", r.h.tid);
			alarm(0);
			return others;
		}
		others++;
	}
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

static int cmd_regs(void)
{
	int in[2], out[2], go[2], status;
	struct utrace_attach a = { .size = sizeof(a), .events = 0 };
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
	fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(UTRACE_DEV_PATH);
	a.pid = child;
	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		die("attach");
	id = a.engine_id;
	for (int i = 0; i < 1000 && !in_read(child); i++)
		usleep(10000);
	CHECK(in_read(child), "the child does not block in its read()");

	/* Not stopped yet: refused. */
	expect(getregs(&regs), EBUSY, "GETREGS of a running thread");

	/* STOP while it blocks; the read returns, it stops before user mode. */
	expect(control(UTRACE_CTL_STOP, 0), 0, "STOP");
	if (write(in[1], "y", 1) != 1)
		die("write");
	phase = "the QUIESCE record of the STOP";
	wait_stopped_record();
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

	/* Not in this version (sessions.rst says why). */
	expect(control(UTRACE_CTL_SINGLESTEP, 0), EOPNOTSUPP, "SINGLESTEP of the stopped child");
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

	close(go[1]);
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	close(fd);
	printf("regs: %s\n", fails ? "some checks failed" : "all checks passed");
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "regs"))
		return cmd_regs();
	return 2;
}
