// SPDX-License-Identifier: GPL-2.0
/*
 * utrace-top: read a utrace-rs event stream (default: global_trace's) and
 * show what starts and ends, forkstat-like, one row per event.
 *
 *   utrace-top [-n] [-c COUNT] [STREAM]
 *     -n        drain what is there now, print raw records, exit
 *     -c COUNT  exit after COUNT records
 *
 * Root only (the stream is). Waits with poll(); a DROPPED record is shown
 * as a warning row, never skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_STREAM "/dev/global_trace"

/* The value of "key=" in a record, up to the next space, or "-". */
static const char *field(const char *rec, const char *key, char *out, size_t size)
{
	const char *p = strstr(rec, key);
	size_t n;

	if (!p) {
		snprintf(out, size, "-");
		return out;
	}
	p += strlen(key);
	n = strcspn(p, " \n");
	if (n >= size)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

static void show(const char *rec, unsigned long long *t0)
{
	char event[16], pid[16], ppid[16], comm[64], info[160], tmp[128];
	unsigned long long seq, ns;
	int off = 0;

	if (sscanf(rec, "%llu %llu %15s %n", &seq, &ns, event, &off) < 3)
		return;
	if (!*t0)
		*t0 = ns;
	if (!strcmp(event, "DROPPED")) {
		printf("%6llu %9.3f  !! %s records dropped: the reader was too slow\n",
		       seq, (ns - *t0) / 1e9, rec + off);
		return;
	}
	info[0] = '\0';
	if (!strcmp(event, "CLONE"))
		snprintf(info, sizeof(info), "by %s%s", field(rec, "parent=", tmp, sizeof(tmp)),
			 strstr(rec, " thread") ? " (thread)" : "");
	else if (!strcmp(event, "EXEC"))
		snprintf(info, sizeof(info), "%s", field(rec, "file=", tmp, sizeof(tmp)));
	if (!strcmp(event, "DEATH")) {
		if (strstr(rec, "signal="))
			snprintf(info, sizeof(info), "killed by signal %s%s",
				 field(rec, "signal=", tmp, sizeof(tmp)),
				 strstr(rec, " core") ? " (core dumped)" : "");
		else
			snprintf(info, sizeof(info), "exit %s", field(rec, "exit=", tmp, sizeof(tmp)));
	}
	printf("%6llu %9.3f  %-6s %7s %7s %-16s %s\n", seq, (ns - *t0) / 1e9, event,
	       field(rec, "pid=", pid, sizeof(pid)), field(rec, "ppid=", ppid, sizeof(ppid)),
	       field(rec, "comm=", comm, sizeof(comm)), info);
}

int main(int argc, char **argv)
{
	const char *path = DEFAULT_STREAM;
	unsigned long long t0 = 0;
	long count = -1, seen = 0;
	int opt, drain = 0, fd;
	char buf[65536], line[512];
	size_t llen = 0;

	while ((opt = getopt(argc, argv, "nc:")) != -1) {
		if (opt == 'n')
			drain = 1;
		else if (opt == 'c')
			count = atol(optarg);
		else
			return 2;
	}
	if (optind < argc)
		path = argv[optind];
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "utrace-top: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!drain)
		printf("%6s %9s  %-6s %7s %7s %-16s %s\n", "SEQ", "TIME(s)", "EVENT", "PID",
		       "PPID", "COMM", "INFO");
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (count < 0 || seen < count) {
		ssize_t n = read(fd, buf, sizeof(buf));
		ssize_t i;

		if (n == 0)
			break;	/* the stream went away */
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (drain)
				break;
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return 1;
			continue;
		}
		if (n < 0) {
			fprintf(stderr, "utrace-top: read: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (llen < sizeof(line) - 1)
				line[llen++] = buf[i];
			if (buf[i] != '\n')
				continue;
			line[llen] = '\0';
			llen = 0;
			if (drain)
				fputs(line, stdout);
			else
				show(line, &t0);
			if (++seen == count)
				break;
		}
	}
	return 0;
}
