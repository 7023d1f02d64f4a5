// SPDX-License-Identifier: GPL-2.0
/*
 * sess_example PROG [ARGS...]: run PROG and print its exec, its syscalls
 * and its exit, read from a /dev/utrace session; no privileges needed.
 * The example of Documentation/utrace-rs/sessions.rst.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utrace_rs.h>

int main(int argc, char **argv)
{
	struct utrace_attach a = { .size = sizeof(a) };
	struct utrace_record r[16];
	int fd, gate[2];
	ssize_t n;
	pid_t pid;
	char c;

	if (argc < 2)
		return 2;
	fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || pipe(gate))
		return perror(UTRACE_DEV_PATH), 1;
	pid = fork();
	if (pid == 0) {
		/* Wait until the engine is attached (the pipe closes), then run PROG. */
		close(gate[1]);
		if (read(gate[0], &c, 1) == 0)
			execvp(argv[1], argv + 1);
		_exit(127);
	}
	/* The whole process, with the threads it will make. */
	a.pid = pid;
	a.events = UTRACE_EV_EXEC | UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_SYSCALL_EXIT |
		   UTRACE_EV_DEATH;
	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		return perror("UTRACE_IOC_ATTACH"), 1;
	close(gate[0]);
	close(gate[1]);
	/* read() returns whole records; step by each header's size. */
	while ((n = read(fd, r, sizeof(r))) > 0) {
		for (char *p = (char *)r; p < (char *)r + n; p += ((struct utrace_record *)p)->h.size) {
			struct utrace_record *rec = (struct utrace_record *)p;

			switch (rec->h.type) {
			case UTRACE_REC_EXEC:
				printf("%d exec %s\n", rec->h.tid, rec->exec.filename);
				break;
			case UTRACE_REC_SYSCALL_ENTRY:
				printf("%d syscall %d(%#llx, ...)", rec->h.tid, rec->syscall.nr,
				       (unsigned long long)rec->syscall.args[0]);
				break;
			case UTRACE_REC_SYSCALL_EXIT:
				printf(" = %lld\n", (long long)rec->syscall.ret);
				break;
			case UTRACE_REC_LOST:
				printf("(%llu records lost)\n", (unsigned long long)rec->lost.count);
				break;
			case UTRACE_REC_DEATH:
				if (rec->death.group_dead) {
					printf("\n%d exited with %d\n", rec->h.pid,
					       WEXITSTATUS(rec->death.exit_code));
					waitpid(pid, NULL, 0);
					return 0;
				}
				break;
			}
		}
	}
	return 1;
}
