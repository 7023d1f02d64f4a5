// SPDX-License-Identifier: GPL-2.0
/*
 * sessread CMD [ARGS]: runs CMD under a /dev/utrace session that records
 * its syscall entries and exits (lossy, a 4 MiB buffer, compact records,
 * as utrace's reader has them) and reads the
 * records in batches of up to 1,024 (256 KiB a read()), counting them
 * (after a read of fewer than 64 it lets 2 ms pass, as utrace's reader
 * does, so that records gather while it does not sleep on the session),
 * until CMD's process is dead (its DEATH record, or, should a full buffer
 * have dropped that, its exit seen by waitpid()); then prints the count to stderr and exits
 * as CMD did. What a session costs its reader, with nothing done per
 * record but stepping over it: `make bench`'s reader row. With
 * SESSREAD_EXIT=1 in the environment it records syscall exits only (whose
 * records carry the arguments too): one record a call, as `utrace trace`
 * asks for the calls whose exit makes their whole line.
 */
#include <poll.h>
#include <sys/wait.h>
#include "sess.h"

static unsigned char buf[1024 * UTRACE_REC_SIZE];

int main(int argc, char **argv)
{
	struct utrace_attach a = { .size = sizeof(a),
				   .events = UTRACE_EV_SYSCALL | UTRACE_EV_DEATH };
	long records = 0, before;
	int fd, gate, status = 0, dead = 0, reaped = 0;
	pid_t pid;

	if (argc < 2)
		return 2;
	if (getenv("SESSREAD_EXIT") && !strcmp(getenv("SESSREAD_EXIT"), "1"))
		a.events = UTRACE_EV_SYSCALL_EXIT | UTRACE_EV_DEATH;
	fd = sess_open_compact(4 << 20);
	pid = fork_gated(&gate, 126);
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	a.pid = pid;
	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		die("attach");
	if (write(gate, "g", 1) != 1)
		die("gate");
	close(gate);
	while (!dead) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) == 0) {
			if (reaped)
				break;
			reaped = waitpid(pid, &status, WNOHANG) == pid;
			continue;
		}
		before = records;
		n = read(fd, buf, sizeof(buf));

		if (n < 0)
			die("read");
		for (ssize_t at = 0; at < n;) {
			const struct utrace_rec_header *h = (const void *)(buf + at);
			const struct utrace_record *r = (const void *)h;

			if (h->size < sizeof(*h) || at + h->size > n)
				die("bad record");
			records++;
			dead |= h->type == UTRACE_REC_DEATH && r->death.group_dead && h->pid == pid;
			at += h->size;
		}
		if (records - before < 64)
			usleep(2000);
	}
	if (!reaped && waitpid(pid, &status, 0) != pid)
		die("waitpid");
	fprintf(stderr, "sessread: %ld records\n", records);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
