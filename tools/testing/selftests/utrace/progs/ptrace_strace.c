// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_strace PROG [ARGS...]: the ptrace equivalent of samples/syscall_trace,
 * for make bench. Runs PROG under PTRACE_SYSCALL (following its children),
 * and at every syscall exit decodes the syscall as syscall_trace does: the
 * registers with PTRACE_GETREGS, a path argument and write()/read() data
 * (up to 32 bytes) with process_vm_readv(), one strace-style line formatted
 * and written to /dev/null (as "strace -o /dev/null" would). exit and
 * exit_group are shown at entry. Exits with PROG's exit status.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include "ptrace_run.h"

#define MAX_TASKS 64

static pid_t tasks[MAX_TASKS];
static char in_syscall[MAX_TASKS];
static int out_fd;

/* Whether pid is between a syscall's entry and exit stops (toggled). */
static char *state_of(pid_t pid)
{
	int i, free_slot = -1;

	for (i = 0; i < MAX_TASKS; i++) {
		if (tasks[i] == pid)
			return &in_syscall[i];
		if (!tasks[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		die("too many tasks");
	tasks[free_slot] = pid;
	in_syscall[free_slot] = 0;
	return &in_syscall[free_slot];
}

static void forget(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_TASKS; i++)
		if (tasks[i] == pid)
			tasks[i] = 0;
}

/* Reads len bytes of pid's memory at addr; returns what it got or -1. */
static ssize_t peek(pid_t pid, unsigned long addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* Appends buf[0..n) quoted, strace-style, to out. */
static int quote(char *out, size_t size, const unsigned char *buf, size_t n, int more)
{
	size_t i, o = 0;

	out[o++] = '"';
	for (i = 0; i < n && o + 5 < size; i++) {
		unsigned char c = buf[i];

		if (c == '"' || c == '\\')
			o += snprintf(out + o, size - o, "\\%c", c);
		else if (c == '\n')
			o += snprintf(out + o, size - o, "\\n");
		else if (c >= 0x20 && c < 0x7f)
			out[o++] = c;
		else
			o += snprintf(out + o, size - o, "\\%o", c);
	}
	o += snprintf(out + o, size - o, "\"%s", more ? "..." : "");
	return o;
}

/* A path argument: up to 128 bytes, page by page as syscall_trace. */
static void path(pid_t pid, unsigned long addr, char *out, size_t size)
{
	unsigned char buf[128];
	size_t got = 0;

	while (got < sizeof(buf)) {
		size_t n = 4096 - ((addr + got) % 4096);

		if (n > sizeof(buf) - got)
			n = sizeof(buf) - got;
		if (peek(pid, addr + got, buf + got, n) != (ssize_t)n)
			break;
		if (memchr(buf + got, 0, n)) {
			got += strlen((char *)buf + got);
			quote(out, size, buf, got, 0);
			return;
		}
		got += n;
	}
	if (!got)
		snprintf(out, size, "%#lx", addr);
	else
		quote(out, size, buf, got, 1);
}

static void data(pid_t pid, unsigned long addr, long len, char *out, size_t size)
{
	unsigned char buf[32];
	size_t n = len < 32 ? (size_t)len : 32;

	if (len < 0 || peek(pid, addr, buf, n) != (ssize_t)n)
		snprintf(out, size, "%#lx", addr);
	else
		quote(out, size, buf, n, (size_t)len > n);
}

static void show(pid_t pid, const struct user_regs_struct *r, int entry)
{
	char line[512], a[300];
	long ret = r->rax;
	int n;

	switch (r->orig_rax) {
	case SYS_openat:
		path(pid, r->rsi, a, sizeof(a));
		n = snprintf(line, sizeof(line), "%d openat(%d, %s, %#llx)", pid, (int)r->rdi, a,
			     r->rdx);
		break;
	case SYS_open:
		path(pid, r->rdi, a, sizeof(a));
		n = snprintf(line, sizeof(line), "%d open(%s, %#llx)", pid, a, r->rsi);
		break;
	case SYS_write:
		data(pid, r->rsi, r->rdx, a, sizeof(a));
		n = snprintf(line, sizeof(line), "%d write(%d, %s, %llu)", pid, (int)r->rdi, a, r->rdx);
		break;
	case SYS_read:
		data(pid, r->rsi, ret, a, sizeof(a));
		n = snprintf(line, sizeof(line), "%d read(%d, %s, %llu)", pid, (int)r->rdi, a, r->rdx);
		break;
	default:
		n = snprintf(line, sizeof(line), "%d syscall_%lld(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx)",
			     pid, r->orig_rax, r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9);
	}
	if (entry)
		n += snprintf(line + n, sizeof(line) - n, " = ?\n");
	else if (ret < 0 && ret > -4096)
		n += snprintf(line + n, sizeof(line) - n, " = -1 %s\n", strerrorname_np(-ret));
	else
		n += snprintf(line + n, sizeof(line) - n, " = %ld\n", ret);
	if (write(out_fd, line, n) != n)
		die("write");
}

/* A syscall stop: show the syscall at its exit (exit and exit_group at entry). */
static void syscall_stop(pid_t pid)
{
	struct user_regs_struct regs;
	char *in = state_of(pid);

	*in = !*in;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
		die("getregs");
	if (!*in)
		show(pid, &regs, 0);
	else if (regs.orig_rax == SYS_exit_group || regs.orig_rax == SYS_exit)
		show(pid, &regs, 1);
}

int main(int argc, char **argv)
{
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;

	if (argc < 2)
		return 2;
	out_fd = open("/dev/null", O_WRONLY);
	if (out_fd < 0)
		die("/dev/null");
	return ptrace_run(argv + 1, opts, PTRACE_SYSCALL, syscall_stop, forget);
}
