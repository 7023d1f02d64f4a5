// SPDX-License-Identifier: GPL-2.0
/*
 * sysentry: syscalls for the stop-before-a-syscall tests, each after a byte
 * on stdin (the test's "go").
 *
 * sysentry write FILE: write(fd of FILE, "hello world\n", 12) with a raw
 *   `syscall` instruction, xmm1 loaded with 0x1111111111111111 around it;
 *   prints "ret=<result> xmm1=<xmm1's low 64 bits after>". An engine that
 *   stopped it before the write may have changed the count, the buffer and
 *   xmm1: the file and the line show it.
 * sysentry open PATH...: open(PATH, O_RDONLY) for each PATH; prints
 *   "opened=<how many succeeded>".
 * sysentry ptrace FILE: runs "sysentry write FILE" in a child it traces
 *   with PTRACE_SYSCALL, as strace does; prints "child=<pid>" and then one
 *   line per write() stop of the child on stderr: "entry write count=<n>",
 *   "exit write ret=<result>".
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "progs.h"

static char buf[] = "hello world\n";

static void do_write(const char *file)
{
	unsigned long long in = 0x1111111111111111ULL, out;
	long ret;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		die(file);
	wait_go();
	/* xmm1 is not clobbered by a syscall: what it holds after is what the
	 * task's FP state said when it returned to user mode. */
	asm volatile("movq %[in], %%xmm1\n\t"
		     "syscall\n\t"
		     "movq %%xmm1, %[out]"
		     : "=a"(ret), [out] "=r"(out)
		     : "0"((long)SYS_write), "D"((long)fd), "S"(buf), "d"(12L), [in] "r"(in)
		     : "rcx", "r11", "memory", "xmm1");
	printf("ret=%ld xmm1=%016llx\n", ret, out);
}

static int do_ptrace(const char *file)
{
	int status, entry = 1, last_write = 0;
	pid_t child = fork();

	if (child < 0)
		die("fork");
	if (!child) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			die("traceme");
		raise(SIGSTOP);
		do_write(file);
		exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		die("waitpid");
	if (ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		die("setoptions");
	fprintf(stderr, "child=%d\n", child);
	for (;;) {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_SYSCALL, child, 0, 0))
			die("syscall");
		if (waitpid(child, &status, 0) != child)
			die("waitpid");
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue;
		/* Syscall stops alternate: entry, exit (a restart too). */
		if (ptrace(PTRACE_GETREGS, child, 0, &regs))
			die("getregs");
		if (entry && regs.orig_rax == SYS_write)
			fprintf(stderr, "entry write count=%lld\n", (long long)regs.rdx);
		else if (!entry && last_write)
			fprintf(stderr, "exit %s ret=%lld\n",
				regs.orig_rax == SYS_write ? "write" : "other", (long long)regs.rax);
		last_write = entry && regs.orig_rax == SYS_write;
		entry = !entry;
	}
}

int main(int argc, char **argv)
{
	int i, opened = 0;

	if (argc == 3 && !strcmp(argv[1], "write")) {
		do_write(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "ptrace"))
		return do_ptrace(argv[2]);
	if (argc < 3 || strcmp(argv[1], "open"))
		return 2;
	wait_go();
	for (i = 2; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		if (fd >= 0) {
			opened++;
			close(fd);
		}
	}
	printf("opened=%d\n", opened);
	return 0;
}
