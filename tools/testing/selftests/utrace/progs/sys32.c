// SPDX-License-Identifier: GPL-2.0
/*
 * sys32 MODE ...: 32-bit syscalls (`int $0x80`, the i386 ABI: number in eax,
 * arguments in ebx, ecx, edx, esi, edi, ebp, result in eax) from this 64-bit
 * static program, for the syscall ABI tests. Their memory arguments live in
 * a MAP_32BIT page, as a 32-bit task's would.
 *
 * sys32 files DIR / sys32 inject DIR: as progs/sysseq.c: write "ready" to
 *   stdout, wait for one byte on stdin (a 64-bit read), run the sequence,
 *   then write to stderr, in one 64-bit write(), what it did, one syscall a
 *   line, as samples/syscall_trace should show it, and end with a 32-bit
 *   exit_group(0).
 *   files: getpid, open/read/close of DIR/in (made by the test), a failing
 *     open, open+write+close of DIR/out, nanosleep, lseek(0, -1, SEEK_CUR),
 *     mmap2/munmap, getppid, getuid32, an unknown syscall (500) whose
 *     registers have their upper halves set (the syscall sees the lower
 *     ones), and an x86-64 getpid whose rax has its upper half set (the
 *     kernel runs eax's number).
 *   inject: getpid (32-bit), mkdir and rmdir of DIR/sub (32-bit: mkdir is
 *     number 39, x86-64's getpid), getpid (64-bit, then with the upper half
 *     of rax set).
 * sys32 write FILE: open FILE, wait for a byte on stdin, write(fd,
 *   "hello world\n", 12) with int $0x80, xmm1 loaded with
 *   0x1111111111111111 around it; prints "ret=<result> xmm1=<xmm1's low
 *   64 bits after>" (as progs/sysentry.c's write).
 * sys32 open PATH: wait for a byte on stdin, openat(AT_FDCWD, PATH,
 *   O_RDONLY) with int $0x80; prints "ret=<result>".
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "progs.h"
#include "say.h"

/* i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define NR32_exit_group 252
#define NR32_read 3
#define NR32_write 4
#define NR32_open 5
#define NR32_close 6
#define NR32_getpid 20
#define NR32_mkdir 39
#define NR32_rmdir 40
#define NR32_lseek 19
#define NR32_getppid 64
#define NR32_munmap 91
#define NR32_nanosleep 162
#define NR32_mmap2 192
#define NR32_getuid32 199
#define NR32_openat 295

/*
 * long int80(long nr, long a1, long a2, long a3, long a4, long a5, long a6):
 * the i386 syscall nr with those arguments (only their low 32 bits count);
 * returns eax sign-extended. rbx and rbp are callee-saved.
 */
long int80(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
asm(".text\n"
    ".globl int80\n"
    ".type int80, @function\n"
    "int80:\n\t"
    "push %rbx\n\t"
    "push %rbp\n\t"
    "mov %rdi, %rax\n\t"
    "mov %rsi, %rbx\n\t"
    "mov %rcx, %r10\n\t"
    "mov %rdx, %rcx\n\t"
    "mov %r10, %rdx\n\t"
    "mov %r8, %rsi\n\t"
    "mov %r9, %rdi\n\t"
    "mov 24(%rsp), %rbp\n\t"
    "int $0x80\n\t"
    "cltq\n\t"
    "pop %rbp\n\t"
    "pop %rbx\n\t"
    "ret\n\t"
    ".size int80, .-int80\n");


/* " = N", or " = -1 ENAME (text)" for a -errno result. */
static const char *result(long ret)
{
	static char buf[96];

	if (ret >= 0 || ret < -4095)
		snprintf(buf, sizeof(buf), " = %ld", ret);
	else if (ret == -ENOENT)
		snprintf(buf, sizeof(buf), " = -1 ENOENT (No such file or directory)");
	else if (ret == -EACCES)
		snprintf(buf, sizeof(buf), " = -1 EACCES (Permission denied)");
	else if (ret == -ESPIPE)
		snprintf(buf, sizeof(buf), " = -1 ESPIPE (Illegal seek)");
	else if (ret == -ENOSYS)
		snprintf(buf, sizeof(buf), " = -1 ENOSYS (Function not implemented)");
	else
		snprintf(buf, sizeof(buf), " = -1 errno %ld", -ret);
	return buf;
}

/* A page below 4 GiB, for the 32-bit syscalls' memory arguments. */
static char *low;

/* @s copied at @off in the low page; its 32-bit address. */
static long low_str(size_t off, const char *s)
{
	size_t n = strlen(s) + 1;

	if (off + n > 4096)
		exit(3);
	memcpy(low + off, s, n);
	return (long)(low + off);
}

static long sys32(long nr, long a1, long a2, long a3)
{
	return int80(nr, a1, a2, a3, 0, 0, 0);
}

/*
 * x86-64 getpid with a `syscall` whose rax has its upper half set: the
 * kernel runs the number in eax (do_syscall_64() takes an int).
 */
static long getpid_wide_rax(void)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(0x100000000L | SYS_getpid)
		     : "rcx", "r11", "memory");
	return ret;
}

static void files(const char *dir)
{
	char in[256], out[256], missing[256];
	long fd, r, pid, ppid, addr, buf;
	int ts[2] = { 0, 1000 };

	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);

	pid = sys32(NR32_getpid, 0, 0, 0);
	say("getpid()%s\n", result(pid));
	fd = sys32(NR32_open, low_str(0, in), O_RDONLY, 0);
	say("open(\"%s\", O_RDONLY)%s\n", in, result(fd));
	buf = (long)(low + 2048);
	r = sys32(NR32_read, fd, buf, 64);
	if (r != 13)
		exit(4);
	say("read(%ld, \"hello utrace\\n\", 64)%s\n", fd, result(r));
	r = sys32(NR32_close, fd, 0, 0);
	say("close(%ld)%s\n", fd, result(r));
	r = sys32(NR32_open, low_str(0, missing), O_RDONLY, 0);
	say("open(\"%s\", O_RDONLY)%s\n", missing, result(r));
	fd = sys32(NR32_open, low_str(0, out), O_WRONLY | O_CREAT | O_TRUNC, 0640);
	say("open(\"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0640)%s\n", out, result(fd));
	r = sys32(NR32_write, fd, low_str(1024, "ia32\n"), 5);
	say("write(%ld, \"ia32\\n\", 5)%s\n", fd, result(r));
	r = sys32(NR32_close, fd, 0, 0);
	say("close(%ld)%s\n", fd, result(r));
	memcpy(low + 1536, ts, sizeof(ts));
	r = sys32(NR32_nanosleep, (long)(low + 1536), 0, 0);
	say("nanosleep({tv_sec=0, tv_nsec=1000}, NULL)%s\n", result(r));
	/* Stdin is a fifo; -1 in ecx is the 32-bit off_t -1. */
	r = sys32(NR32_lseek, 0, 0xffffffffL, SEEK_CUR);
	say("lseek(0, -1, SEEK_CUR)%s\n", result(r));
	r = int80(NR32_mmap2, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		  0xffffffffL, 0);
	if (r < 0 && r >= -4095)
		exit(4);
	/* An address, which may be above 2 GiB: eax unsigned. */
	addr = (unsigned int)r;
	say("mmap2(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0) = %#lx\n",
	    addr);
	r = sys32(NR32_munmap, addr, 4096, 0);
	say("munmap(%#lx, 4096)%s\n", addr, result(r));
	ppid = sys32(NR32_getppid, 0, 0, 0);
	say("getppid()%s\n", result(ppid));
	r = sys32(NR32_getuid32, 0, 0, 0);
	say("getuid32()%s\n", result(r));
	r = int80(500, 0x100000001L, 0x200000002L, 0x300000003L, 0x400000004L, 0x500000005L,
		  0x600000006L);
	say("syscall_500(0x1, 0x2, 0x3, 0x4, 0x5, 0x6)%s\n", result(r));
	r = getpid_wide_rax();
	say("getpid()%s\n", result(r));
}

static void inject(const char *dir)
{
	char sub[256];
	long r;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	r = sys32(NR32_getpid, 0, 0, 0);
	say("getpid()%s\n", result(r));
	r = sys32(NR32_mkdir, low_str(0, sub), 0755, 0);
	say("mkdir(\"%s\", 0755)%s\n", sub, result(r));
	r = sys32(NR32_rmdir, low_str(0, sub), 0, 0);
	say("rmdir(\"%s\")%s\n", sub, result(r));
	r = syscall(SYS_getpid);
	say("getpid()%s\n", result(r < 0 ? -errno : r));
	r = getpid_wide_rax();
	say("getpid()%s\n", result(r));
}

static void do_write(const char *file)
{
	unsigned long long in = 0x1111111111111111ULL, out;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long ret, buf = low_str(0, "hello world\n");

	if (fd < 0)
		die(file);
	wait_go();
	/* As progs/sysentry.c's write, with int $0x80: xmm1 is not clobbered. */
	asm volatile("movq %[in], %%xmm1\n\t"
		     "int $0x80\n\t"
		     "movq %%xmm1, %[out]"
		     : "=a"(ret), [out] "=r"(out)
		     : "0"((long)NR32_write), "b"((long)fd), "c"(buf), "d"(12L), [in] "r"(in)
		     : "r8", "r9", "r10", "r11", "memory", "xmm1");
	printf("ret=%d xmm1=%016llx\n", (int)ret, out);
}

static void do_open(const char *path)
{
	long ret;

	wait_go();
	ret = sys32(NR32_openat, AT_FDCWD, low_str(0, path), O_RDONLY);
	printf("ret=%ld\n", ret);
}

int main(int argc, char **argv)
{
	char c;
	long r;

	if (argc != 3)
		return 2;
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		   -1, 0);
	if (low == MAP_FAILED)
		die("mmap MAP_32BIT");
	if (!strcmp(argv[1], "write")) {
		do_write(argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "open")) {
		do_open(argv[2]);
		return 0;
	}
	if (write(1, "ready\n", 6) != 6)
		die("write ready");
	r = read(0, &c, 1);
	say("read(0, \"%c\", 1)%s\n", c, result(r));
	if (!strcmp(argv[1], "files"))
		files(argv[2]);
	else if (!strcmp(argv[1], "inject"))
		inject(argv[2]);
	else
		return 2;
	if (write(2, log_buf, log_len) != (ssize_t)log_len)
		return 5;
	int80(NR32_exit_group, 0, 0, 0, 0, 0, 0);
	return 6;
}
