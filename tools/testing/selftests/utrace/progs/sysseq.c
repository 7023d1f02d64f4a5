// SPDX-License-Identifier: GPL-2.0
/*
 * sysseq MODE ...: a known syscall sequence for samples/syscall_trace. It
 * writes "ready" to stdout, waits for one byte on stdin (the test loads the
 * tracer meanwhile), runs the sequence and then writes to stderr, in one
 * write(), what it did, one syscall a line, as syscall_trace should show it
 * (with the fds, pid and errors it really got). Then it exits 0.
 *   files DIR   openat/read/close DIR/in (made by the test), a failing
 *               openat, open+write+close of DIR/out, pipe2, a close that
 *               fails (EBADF), getpid, kill 0,
 *               unlink, nanosleep, mkdir/rmdir, an unknown syscall
 *   capture DIR the memory a tracer must show as the call had it: openat
 *               of DIR/in whose path lies in a file page the process never
 *               touched (a tracer's record cannot carry it without a
 *               fault), a write() whose buffer changes right after, the
 *               read() of it back
 *   inject PATH N   openat(PATH) N times (each success closed)
 *   fork        fork(); the child calls getpid() and exit_group(3); wait4()
 *   crash       getppid(), then a NULL write in crash_here() (core dumps on)
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <signal.h>
#include <time.h>
#include "progs.h"
#include "say.h"

/* " = N", or " = -1 ENAME (text)" for the errors the sequence expects. */
static const char *result(long ret, int err)
{
	static char buf[96];

	if (ret >= 0)
		snprintf(buf, sizeof(buf), " = %ld", ret);
	else if (err == ENOENT)
		snprintf(buf, sizeof(buf), " = -1 ENOENT (No such file or directory)");
	else if (err == EACCES)
		snprintf(buf, sizeof(buf), " = -1 EACCES (Permission denied)");
	else if (err == ESPIPE)
		snprintf(buf, sizeof(buf), " = -1 ESPIPE (Illegal seek)");
	else if (err == ENOSYS)
		snprintf(buf, sizeof(buf), " = -1 ENOSYS (Function not implemented)");
	else if (err == EBADF)
		snprintf(buf, sizeof(buf), " = -1 EBADF (Bad file descriptor)");
	else
		snprintf(buf, sizeof(buf), " = -1 errno %d", err);
	return buf;
}

static volatile int *volatile null_ptr;

__attribute__((noinline)) void crash_here(void)
{
	*null_ptr = 1;
}

static void files(const char *dir)
{
	char in[256], out[256], missing[256], sub[256], buf[64];
	struct timespec ts = { 0, 1000 };
	int fd, p[2];
	long r, pid;

	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);

	fd = openat(AT_FDCWD, in, O_RDONLY);
	say("openat(AT_FDCWD, \"%s\", O_RDONLY)%s\n", in, result(fd, errno));
	r = read(fd, buf, sizeof(buf));
	if (r != 13)
		exit(4);
	say("read(%d, \"hello utrace\\n\", 64)%s\n", fd, result(r, errno));
	r = close(fd);
	say("close(%d)%s\n", fd, result(r, errno));
	r = openat(AT_FDCWD, missing, O_RDONLY | O_CLOEXEC);
	say("openat(AT_FDCWD, \"%s\", O_RDONLY|O_CLOEXEC)%s\n", missing, result(r, errno));
	fd = openat(AT_FDCWD, out, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	say("openat(AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0640)%s\n", out,
	     result(fd, errno));
	r = write(fd, "tab\there\0\001", 10);
	say("write(%d, \"tab\\there\\0\\1\", 10)%s\n", fd, result(r, errno));
	r = close(fd);
	say("close(%d)%s\n", fd, result(r, errno));
	r = pipe2(p, O_CLOEXEC);
	say("pipe2([%d, %d], O_CLOEXEC)%s\n", p[0], p[1], result(r, errno));
	r = dup2(p[0], 9);
	say("dup2(%d, 9)%s\n", p[0], result(r, errno));
	r = close(9);
	say("close(9)%s\n", result(r, errno));
	r = close(p[0]);
	say("close(%d)%s\n", p[0], result(r, errno));
	r = close(p[1]);
	say("close(%d)%s\n", p[1], result(r, errno));
	/* strerror()'s text, as strace prints it (not "Bad file number") */
	r = close(p[1]);
	say("close(%d)%s\n", p[1], result(r, errno));
	pid = syscall(SYS_getpid);
	say("getpid()%s\n", result(pid, errno));
	r = syscall(SYS_kill, pid, 0);
	say("kill(%ld, 0)%s\n", pid, result(r, errno));
	r = syscall(SYS_nanosleep, &ts, NULL);
	say("nanosleep({tv_sec=0, tv_nsec=1000}, NULL)%s\n", result(r, errno));
	r = syscall(SYS_mkdir, sub, 0755);
	say("mkdir(\"%s\", 0755)%s\n", sub, result(r, errno));
	r = syscall(SYS_rmdir, sub);
	say("rmdir(\"%s\")%s\n", sub, result(r, errno));
	r = syscall(SYS_unlink, out);
	say("unlink(\"%s\")%s\n", out, result(r, errno));
	r = syscall(SYS_access, in, R_OK | W_OK);
	say("access(\"%s\", R_OK|W_OK)%s\n", in, result(r, errno));
	r = syscall(SYS_lseek, 0, -1L, SEEK_CUR);
	say("lseek(0, -1, SEEK_CUR)%s\n", result(r, errno));
	r = syscall(500, 1, 2, 3, 4, 5, 6);
	say("syscall_500(0x1, 0x2, 0x3, 0x4, 0x5, 0x6)%s\n", result(r, errno));
}

static void capture(const char *dir)
{
	char in[256], file[256], buf[16] = "xyz12", back[16];
	int fd, p[2];
	void *map;
	long r;

	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(file, sizeof(file), "%s/pathfile", dir);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, in, strlen(in) + 1) != (ssize_t)strlen(in) + 1)
		die(file);
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	close(fd);
	unlink(file);
	/* The path's page is mapped, not touched: only the syscall faults it in. */
	fd = openat(AT_FDCWD, map, O_RDONLY);
	say("openat(AT_FDCWD, \"%s\", O_RDONLY)%s\n", in, result(fd, errno));
	r = close(fd);
	say("close(%d)%s\n", fd, result(r, errno));
	munmap(map, 4096);
	if (pipe(p))
		die("pipe");
	r = write(p[1], buf, 5);
	memcpy(buf, "XXXXX", 5);
	say("write(%d, \"xyz12\", 5)%s\n", p[1], result(r, errno));
	r = read(p[0], back, sizeof(back));
	memcpy(back, "YYYYY", 5);
	say("read(%d, \"xyz12\", 16)%s\n", p[0], result(r, errno));
	close(p[0]);
	close(p[1]);
}

static void inject(const char *path, int n)
{
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = openat(AT_FDCWD, path, O_RDONLY);
		say("openat(AT_FDCWD, \"%s\", O_RDONLY)%s\n", path, result(fd, errno));
		if (fd >= 0) {
			close(fd);
			say("close(%d) = 0\n", fd);
		}
	}
}

int main(int argc, char **argv)
{
	char c;
	long r;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "crash")) {
		struct rlimit core = { RLIM_INFINITY, RLIM_INFINITY };

		if (setrlimit(RLIMIT_CORE, &core))
			die("setrlimit");
	}
	if (write(1, "ready\n", 6) != 6)
		die("write ready");
	r = read(0, &c, 1);
	say("read(0, \"%c\", 1)%s\n", c, result(r, errno));
	if (!strcmp(argv[1], "files") && argc == 3) {
		files(argv[2]);
	} else if (!strcmp(argv[1], "capture") && argc == 3) {
		capture(argv[2]);
	} else if (!strcmp(argv[1], "inject") && argc == 4) {
		inject(argv[2], atoi(argv[3]));
	} else if (!strcmp(argv[1], "fork")) {
		long child = syscall(SYS_fork);

		if (child == 0) {
			syscall(SYS_getpid);
			syscall(SYS_exit_group, 3);
		}
		say("fork()%s\n", result(child, errno));
		r = syscall(SYS_wait4, child, NULL, 0, NULL);
		say("wait4(%ld, NULL, 0, NULL)%s\n", child, result(r, errno));
	} else if (!strcmp(argv[1], "crash")) {
		r = getppid();
		say("getppid()%s\n", result(r, errno));
		crash_here();
	} else {
		return 2;
	}
	if (write(2, log_buf, log_len) != (ssize_t)log_len)
		return 5;
	syscall(SYS_exit_group, 0);
	return 0;
}
