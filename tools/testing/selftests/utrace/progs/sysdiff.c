// SPDX-License-Identifier: GPL-2.0
/*
 * sysdiff: the syscall side of the differential tests (tests/47-syscall-diff.sh).
 *
 * sysdiff [-r READY] [-n CALLS] [-d DIR] [-s USEC] [-v] SEED [ABIS]
 *
 * Runs a seeded random program of CALLS syscalls (default 200) in a fresh
 * directory DIR (default /tmp/sysdiff.d), each made with the raw 64-bit
 * `syscall` instruction or the 32-bit `int $0x80` (ABIS: "64", "32" or
 * "64,32", the default), and prints, one line a call, its arguments and
 * result (the return value, -errno) and what it showed (the bytes read, a
 * stat's size and type, the cwd, a pipe's fds, pids as roles), then the
 * observable end state: every file of DIR with its size and a checksum of
 * its contents, and the open fds. No pid, address or time is printed, so
 * two runs of one seed print the same, and so must a run under any engine
 * that is transparent.
 *
 * -r READY: write the pid to READY, then wait for a line on stdin before the
 * first call (time to attach engines). -s USEC: sleep USEC between calls
 * (so that an engine's STOPs land on many). -v: the calls also on stderr as
 * made.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "progs.h"

#define NPATHS (int)(sizeof(paths) / sizeof(paths[0]))
#define LOW 65536		/* the low buffer: below 4 GiB for int $0x80 */

static const char *const paths[] = { "f0", "f1", "f2", "d0", "d0/f3", "d1", "nodir/f" };
static const char *cdirs[] = { ".", "d0", "/tmp/sysdiff.d" };	/* the last: DIR */

static uint64_t rng;
static char *low;		/* MAP_32BIT: strings and buffers */
static int verbose;
static const char *dir = "/tmp/sysdiff.d";

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

static long sys64(long nr, long a, long b, long c, long d, long e)
{
	register long r10 asm("r10") = d;
	register long r8 asm("r8") = e;
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
		     : "rcx", "r11", "memory");
	return ret;
}

static long sys32(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
		     : "r8", "r9", "r10", "r11", "memory");
	return (int)ret;	/* a 32-bit result: sign-extend -errno */
}

enum kind {
	K_PID, K_PPID, K_ID, K_UMASK, K_OPEN, K_CLOSE, K_READ, K_WRITE, K_LSEEK, K_DUP,
	K_DUP2, K_PIPE2, K_PATH, K_RENAME, K_CHDIR, K_GETCWD, K_ACCESS, K_FCNTL, K_KILL,
	K_FSTAT, K_FTRUNCATE, K_BADNR, K_UNAME, K_NANOSLEEP, K_YIELD, K_TID, K_FAULT,
};

struct call {
	const char *name;
	int nr64, nr32;
	enum kind kind;
};

static const struct call calls[] = {
	{ "getpid", 39, 20, K_PID },
	{ "getppid", 110, 64, K_PPID },
	{ "getuid", 102, 199, K_ID },
	{ "getgid", 104, 200, K_ID },
	{ "umask", 95, 60, K_UMASK },
	{ "open", 2, 5, K_OPEN },
	{ "close", 3, 6, K_CLOSE },
	{ "read", 0, 3, K_READ },
	{ "write", 1, 4, K_WRITE },
	{ "lseek", 8, 19, K_LSEEK },
	{ "dup", 32, 41, K_DUP },
	{ "dup2", 33, 63, K_DUP2 },
	{ "pipe2", 293, 331, K_PIPE2 },
	{ "unlink", 87, 10, K_PATH },
	{ "mkdir", 83, 39, K_PATH },
	{ "rmdir", 84, 40, K_PATH },
	{ "rename", 82, 38, K_RENAME },
	{ "chdir", 80, 12, K_CHDIR },
	{ "getcwd", 79, 183, K_GETCWD },
	{ "access", 21, 33, K_ACCESS },
	{ "fcntl", 72, 55, K_FCNTL },
	{ "kill", 62, 37, K_KILL },
	{ "fstat", 5, 197, K_FSTAT },	/* 32-bit: fstat64 */
	{ "ftruncate", 77, 93, K_FTRUNCATE },
	{ "nosys", 1000, 1000, K_BADNR },
	{ "uname", 63, 122, K_UNAME },
	{ "nanosleep", 35, 162, K_NANOSLEEP },
	{ "sched_yield", 24, 158, K_YIELD },
	{ "gettid", 186, 224, K_TID },
	{ "read_efault", 0, 3, K_FAULT },
	/* the file calls twice as often */
	{ "open", 2, 5, K_OPEN },
	{ "close", 3, 6, K_CLOSE },
	{ "close", 3, 6, K_CLOSE },
	{ "read", 0, 3, K_READ },
	{ "write", 1, 4, K_WRITE },
	{ "lseek", 8, 19, K_LSEEK },
};
#define NCALLS (int)(sizeof(calls) / sizeof(calls[0]))

/* A path string in low memory. */
static long lpath(const char *p, int which)
{
	char *s = low + 256 * which;

	snprintf(s, 256, "%s", p);
	return (long)s;
}

/* An fd argument: mostly 3..9, sometimes invalid; never 0..2 (stdout is the output). */
static long anfd(void)
{
	switch (pick(12)) {
	case 0: return -1;
	case 1: return 1000;
	default: return 3 + pick(7);
	}
}

static void shown(char *out, size_t len, const char *data, long n)
{
	size_t o = strlen(out);
	long i;

	o += snprintf(out + o, len - o, " \"");
	for (i = 0; i < n && i < 40 && o + 5 < len; i++) {
		unsigned char c = data[i];

		o += snprintf(out + o, len - o, c >= 32 && c < 127 && c != '"' ? "%c" : "\\x%02x", c);
	}
	snprintf(out + o, len - o, "\"");
}

static void one(int i, int abi32)
{
	const struct call *c = &calls[pick(NCALLS)];
	long (*sys)(long, long, long, long, long, long) = abi32 ? sys32 : sys64;
	long nr = abi32 ? c->nr32 : c->nr64;
	long a = 0, b = 0, d = 0, ret = 0;
	char args[128] = "", extra[256] = "";
	char *buf = low + 4096;
	struct stat *st64 = (struct stat *)(low + 8192);

	memset(buf, 0, 4096);
	switch (c->kind) {
	case K_PID:
	case K_PPID:
	case K_ID:
	case K_YIELD:
	case K_TID:
	case K_BADNR:
		ret = sys(nr, 0, 0, 0, 0, 0);
		if (ret > 0 && c->kind == K_PID)
			snprintf(extra, sizeof(extra), " %s", ret == getpid() ? "self" : "other");
		else if (ret > 0 && c->kind == K_TID)
			snprintf(extra, sizeof(extra), " %s", ret == getpid() ? "self" : "other");
		else if (ret > 0 && c->kind == K_PPID)
			snprintf(extra, sizeof(extra), " %s", ret == getppid() ? "parent" : "other");
		if (ret > 0 && c->kind != K_ID)
			ret = 1;	/* the value itself is a pid */
		break;
	case K_UMASK:
		a = pick(2) ? 022 : 077;
		snprintf(args, sizeof(args), "0%lo", a);
		ret = sys(nr, a, 0, 0, 0, 0);
		break;
	case K_OPEN:
		a = pick(NPATHS);
		/* O_RDONLY, O_RDWR|O_CREAT, O_WRONLY|O_CREAT|O_TRUNC, O_RDWR|O_APPEND|O_CREAT, O_RDONLY|O_DIRECTORY */
		{
			static const long fl[] = { 0, 0102, 01101, 02102, 0200000 };

			b = fl[pick(5)];
		}
		snprintf(args, sizeof(args), "%s, 0%lo", paths[a], b);
		ret = sys(nr, lpath(paths[a], 0), b, 0644, 0, 0);
		break;
	case K_CLOSE:
	case K_DUP:
		a = anfd();
		snprintf(args, sizeof(args), "%ld", a);
		ret = sys(nr, a, 0, 0, 0, 0);
		break;
	case K_READ:
		a = anfd();
		d = pick(64);
		snprintf(args, sizeof(args), "%ld, buf, %ld", a, d);
		ret = sys(nr, a, (long)buf, d, 0, 0);
		if (ret > 0)
			shown(extra, sizeof(extra), buf, ret);
		break;
	case K_WRITE:
		a = anfd();
		d = snprintf(buf, 64, "<%d:%s>", i, abi32 ? "32" : "64");
		snprintf(args, sizeof(args), "%ld, \"%s\", %ld", a, buf, d);
		ret = sys(nr, a, (long)buf, d, 0, 0);
		break;
	case K_LSEEK:
		a = anfd();
		b = pick(3) ? pick(20) : -5;
		d = pick(3);	/* SEEK_SET, SEEK_CUR, SEEK_END */
		snprintf(args, sizeof(args), "%ld, %ld, %ld", a, b, d);
		ret = sys(nr, a, b, d, 0, 0);
		break;
	case K_DUP2:
		a = anfd();
		b = 3 + pick(7);
		snprintf(args, sizeof(args), "%ld, %ld", a, b);
		ret = sys(nr, a, b, 0, 0, 0);
		break;
	case K_PIPE2: {
		int *fds = (int *)buf;

		ret = sys(nr, (long)fds, 04000 /* O_NONBLOCK */, 0, 0, 0);
		if (!ret)
			snprintf(extra, sizeof(extra), " [%d, %d]", fds[0], fds[1]);
		if (!ret && (fds[0] > 9 || fds[1] > 9)) {
			/* keep the fds in 3..9 */
			close(fds[0]);
			close(fds[1]);
		}
		break;
	}
	case K_PATH:
		a = pick(NPATHS);
		snprintf(args, sizeof(args), "%s", paths[a]);
		ret = sys(nr, lpath(paths[a], 0), 0755, 0, 0, 0);
		break;
	case K_RENAME:
		a = pick(NPATHS);
		b = pick(NPATHS);
		snprintf(args, sizeof(args), "%s, %s", paths[a], paths[b]);
		ret = sys(nr, lpath(paths[a], 0), lpath(paths[b], 1), 0, 0, 0);
		break;
	case K_CHDIR:
		a = pick(3);
		snprintf(args, sizeof(args), "%s", cdirs[a]);
		ret = sys(nr, lpath(cdirs[a], 0), 0, 0, 0, 0);
		break;
	case K_GETCWD:
		d = pick(4) ? 200 : 5;
		snprintf(args, sizeof(args), "buf, %ld", d);
		ret = sys(nr, (long)buf, d, 0, 0, 0);
		if (ret > 0)
			snprintf(extra, sizeof(extra), " \"%s\"", buf);
		break;
	case K_ACCESS:
		a = pick(NPATHS);
		b = pick(8);
		snprintf(args, sizeof(args), "%s, %ld", paths[a], b);
		ret = sys(nr, lpath(paths[a], 0), b, 0, 0, 0);
		break;
	case K_FCNTL:
		a = anfd();
		b = 1 + pick(3);	/* F_GETFD, F_SETFD, F_GETFL */
		d = pick(2);
		snprintf(args, sizeof(args), "%ld, %ld, %ld", a, b, d);
		ret = sys(nr, a, b, d, 0, 0);
		break;
	case K_KILL:
		a = pick(3);
		b = pick(2) ? 0 : 64 + 1;	/* signal 0 or an invalid one */
		snprintf(args, sizeof(args), "%s, %ld", a == 0 ? "self" : a == 1 ? "99999" : "-99999", b);
		ret = sys(nr, a == 0 ? getpid() : a == 1 ? 99999 : -99999, b, 0, 0, 0);
		break;
	case K_FSTAT:
		a = anfd();
		snprintf(args, sizeof(args), "%ld", a);
		ret = sys(nr, a, (long)st64, 0, 0, 0);
		if (!ret) {
			long long size;
			unsigned int mode;

			if (abi32) {	/* i386 struct stat64, packed */
				memcpy(&mode, (char *)st64 + 16, 4);
				memcpy(&size, (char *)st64 + 44, 8);
			} else {
				mode = st64->st_mode;
				size = st64->st_size;
			}
			snprintf(extra, sizeof(extra), " %s size=%lld",
				 S_ISREG(mode) ? "reg" : S_ISDIR(mode) ? "dir" : S_ISFIFO(mode) ? "fifo" : "other",
				 S_ISREG(mode) ? size : 0);
		}
		break;
	case K_FTRUNCATE:
		a = anfd();
		b = pick(16);
		snprintf(args, sizeof(args), "%ld, %ld", a, b);
		ret = sys(nr, a, b, 0, 0, 0);
		break;
	case K_UNAME:
		ret = sys(nr, (long)buf, 0, 0, 0, 0);
		if (!ret)
			snprintf(extra, sizeof(extra), " %s", buf);
		break;
	case K_NANOSLEEP:
		ret = sys(nr, (long)buf, 0, 0, 0, 0);	/* zeroes: 0 s */
		break;
	case K_FAULT:
		a = anfd();
		snprintf(args, sizeof(args), "%ld, 0x10, 8", a);
		ret = sys(nr, a, 0x10, 8, 0, 0);
		break;
	}
	printf("%03d %s %s(%s) = %ld%s\n", i, abi32 ? "32" : "64", c->name, args, ret, extra);
	if (verbose) {
		fprintf(stderr, "%03d %s %s(%s) = %ld%s\n", i, abi32 ? "32" : "64", c->name, args, ret,
			extra);
	}
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The end state: DIR's files (recursively one level) and the open fds. */
static void end_state(void)
{
	const char *dirs[] = { dir, "d0", "d1" };
	char *lines[256], path[512], buf[4096];
	int n = 0, i, fd;

	if (chdir(dir))
		die(dir);
	for (i = 0; i < 3; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d)) && n < 256) {
			struct stat st;
			unsigned long sum = 0;
			ssize_t r, k;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", i ? dirs[i] : ".", e->d_name);
			if (lstat(path, &st))
				continue;
			if (S_ISREG(st.st_mode)) {
				fd = open(path, O_RDONLY);
				while (fd >= 0 && (r = read(fd, buf, sizeof(buf))) > 0)
					for (k = 0; k < r; k++)
						sum = sum * 31 + (unsigned char)buf[k];
				if (fd >= 0)
					close(fd);
			}
			snprintf(buf, sizeof(buf), "file %s %s size=%lld sum=%lx mode=%o", path,
				 S_ISDIR(st.st_mode) ? "dir" : "reg",
				 S_ISREG(st.st_mode) ? (long long)st.st_size : 0LL, sum,
				 st.st_mode & 07777);
			lines[n++] = strdup(buf);
		}
		closedir(d);
	}
	qsort(lines, n, sizeof(lines[0]), cmpstr);
	for (i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	for (fd = 3; fd < 10; fd++) {
		ssize_t r;
		int fl;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		r = readlink(path, buf, sizeof(buf) - 1);
		if (r < 0)
			continue;
		buf[r] = '\0';
		fl = fcntl(fd, F_GETFL);
		printf("fd %d %s flags=0%o offset=%ld\n", fd,
		       !strncmp(buf, "pipe:", 5) ? "pipe" : buf, fl, (long)lseek(fd, 0, SEEK_CUR));
	}
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *abis = "64,32";
	int opt, n = 200, i, fd, has32, has64, usec = 0;
	unsigned long long seed;
	char line[16];

	while ((opt = getopt(argc, argv, "r:n:d:s:v")) != -1) {
		switch (opt) {
		case 'r': ready = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 's': usec = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default: return 2;
		}
	}
	if (optind >= argc || n < 1 || dir[0] != '/') {
		fprintf(stderr, "usage: sysdiff [-r READY] [-n CALLS] [-d DIR] [-s USEC] [-v] SEED [64|32|64,32]\n");
		return 2;
	}
	seed = strtoull(argv[optind], NULL, 0);
	if (optind + 1 < argc)
		abis = argv[optind + 1];
	has32 = strstr(abis, "32") != NULL;
	has64 = strstr(abis, "64") != NULL;
	if (!has32 && !has64)
		return 2;
	rng = seed * 0x9e3779b97f4a7c15ULL + 0x7654321;
	if (!rng)
		rng = 1;
	/* a write to a pipe without a reader returns -EPIPE, and that is all */
	signal(SIGPIPE, SIG_IGN);
	low = mmap(NULL, LOW, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		die("mmap");
	for (fd = 3; fd < 64; fd++)
		close(fd);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (strchr(dir, '\'') || system(cmd))
			die("rm -rf");
	}
	cdirs[2] = dir;
	if (mkdir(dir, 0755) || chdir(dir))
		die(dir);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f)
			die(ready);
		fprintf(f, "%d\n", getpid());
		fclose(f);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = '\0';
	}
	/* stdout is a file: nothing is written to it until the end */
	printf("sysdiff seed %llu abis %s calls %d\n", seed, abis, n);
	for (i = 0; i < n; i++) {
		one(i, has32 && (!has64 || pick(2)));
		if (usec > 0)
			usleep(usec);
	}
	end_state();
	fflush(stdout);
	return 0;
}
