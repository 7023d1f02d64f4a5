// SPDX-License-Identifier: GPL-2.0
/*
 * streamio: odd uses of a utrace-rs event stream file, for the bad-input
 * test. Each mode prints "<what> <result>" lines (0, a count, or -errno).
 *
 *   streamio misuse STREAM      pread, lseek, write, ioctl, mmap, a read into
 *                               a bad buffer, a zero-length read, O_NONBLOCK
 *                               on an empty stream
 *   streamio bytewise STREAM N  read N records one byte per read(), print them
 *   streamio closewait STREAM   block in read() in a thread, close the fd from
 *                               another, then print what the read returns
 *                               (the test unloads the stream's module)
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "progs.h"

static long ret_of(long r)
{
	return r < 0 ? -errno : r;
}

static int misuse(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDWR | O_NONBLOCK);
	void *p;

	if (fd < 0)
		die(path);
	/* The stream has records: the ones this read takes are lost. */
	printf("badbuf %ld\n", ret_of(syscall(SYS_read, fd, 8L, 64L)));
	printf("pread %ld\n", ret_of(pread(fd, buf, sizeof(buf), 10)));
	printf("lseek %ld\n", ret_of(lseek(fd, 5, SEEK_SET)));
	printf("write %ld\n", ret_of(write(fd, "x\n", 2)));
	printf("ioctl %ld\n", ret_of(ioctl(fd, TCGETS, buf)));
	printf("ioctl_random %ld\n", ret_of(ioctl(fd, 0x7501, 0)));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	printf("mmap %ld\n", p == MAP_FAILED ? (long)-errno : 0L);
	printf("read0 %ld\n", ret_of(read(fd, buf, 0)));
	/* Drain, then an empty non-blocking read. */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	printf("empty_nonblock %ld\n", ret_of(read(fd, buf, sizeof(buf))));
	close(fd);
	return 0;
}

static int bytewise(const char *path, int n)
{
	int fd = open(path, O_RDONLY);
	char c;

	if (fd < 0)
		die(path);
	while (n > 0) {
		ssize_t r = read(fd, &c, 1);

		if (r != 1) {
			printf("short %ld\n", ret_of(r));
			return 1;
		}
		putchar(c);
		n -= c == '\n';
	}
	close(fd);
	return 0;
}

static int fd_shared;

static void *reader(void *arg __attribute__((unused)))
{
	char buf[4096];
	long r = ret_of(read(fd_shared, buf, sizeof(buf)));

	printf("read %ld\n", r);
	fflush(stdout);
	return NULL;
}

static int closewait(const char *path)
{
	pthread_t t;

	fd_shared = open(path, O_RDONLY);
	if (fd_shared < 0)
		die(path);
	if (pthread_create(&t, NULL, reader, NULL))
		die("pthread_create");
	usleep(200000);
	printf("close %ld\n", ret_of(close(fd_shared)));
	fflush(stdout);
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "misuse"))
		return misuse(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "bytewise"))
		return bytewise(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "closewait"))
		return closewait(argv[2]);
	fprintf(stderr, "usage: streamio misuse|bytewise|closewait STREAM [N]\n");
	return 2;
}
