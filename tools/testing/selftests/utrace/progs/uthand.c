// SPDX-License-Identifier: GPL-2.0
/*
 * uthand: UTRACE_IOC_HANDOFF of /dev/utrace sessions, for the selftests.
 *
 *   uthand storm N        a child forks N children in batches of 4, each
 *                         execs uthand again ("uthand exit"); session A
 *                         follows the tree (lossless, a 16-record buffer)
 *                         and hands it (UTRACE_HANDOFF_F_TREE) to session B
 *                         when it has read N/2 CLONE records. The union of
 *                         both streams must be the child's own counts: N
 *                         CLONE, N EXEC, N + 1 process deaths, none twice,
 *                         none lost; A's stream of a moved thread ends with
 *                         its HANDOFF record, B's begins with an ATTACHED
 *                         record flagged UTRACE_REC_F_HANDOFF
 *   uthand bad            every bad handoff gets its errno and changes
 *                         nothing
 *   uthand perm PID UID   attach to PID, then hand it to a session opened
 *                         by a child running as UID and passed back over a
 *                         unix socket (SCM_RIGHTS): prints "ok" or the errno
 *   uthand limit          (utrace_dev loaded with tasks_per_session=3) a
 *                         3-thread process to a session that traces a
 *                         1-thread one: ENOSPC, A keeps it; after B's
 *                         detach: ok
 *   uthand seq N          after a byte on stdin, lseek(fd, i, SEEK_SET) on
 *                         /dev/null for i = 0 .. N-1, waiting for a second
 *                         byte on stdin (a read in flight) after N/2 of
 *                         them; prints "lseek K" (the calls that returned)
 *   uthand exit           exit 0 (the storm's exec'd image)
 *
 * Prints "FAIL: ..." and exits 1 when a check fails.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <utrace_rs.h>
#include "progs.h"
#include "check.h"

static int sess_open(__u64 buffer)
{
	int fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(UTRACE_DEV_PATH);
	if (buffer) {
		struct utrace_config c = { .size = sizeof(c), .buffer_bytes = buffer };

		if (ioctl(fd, UTRACE_IOC_CONFIG, &c))
			die("config");
	}
	return fd;
}

static long long sess_attach(int fd, pid_t pid, __u32 flags, __u64 events)
{
	struct utrace_attach a = { .size = sizeof(a), .flags = flags, .pid = pid,
				   .events = events };

	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		return -errno;
	return (long long)a.engine_id;
}

/* Hands engine @id to the session on @to; the new id, or -errno. */
static long long handoff(int fd, __u64 id, int to, __u32 flags)
{
	struct utrace_handoff h = { .size = sizeof(h), .flags = flags, .engine_id = id,
				    .to_fd = to };

	if (ioctl(fd, UTRACE_IOC_HANDOFF, &h))
		return -errno;
	return (long long)h.to_engine_id;
}

/* ---- storm */

#define MAXP 4096

/* What one stream showed. */
struct stream {
	const char *name;
	__u64 last_seq;
	int records, clones, execs, deaths, lost, handoffs, handed_in, failed, privileged;
	/* DEATH records without ids, and of a thread not the group's last. */
	int deaths_no_pid, deaths_thread;
	/* Threads whose HANDOFF record came (A) / that came by handoff (B). */
	pid_t gone[MAXP];
	int ngone;
	/* Threads seen in this stream, and whether their first record was
	 * an ATTACHED flagged HANDOFF. */
	pid_t seen[MAXP];
	int nseen;
};

/* Every (type, tid, child) once over both streams. */
static struct {
	__u16 type;
	pid_t tid, child;
} all[4 * MAXP];
static int nall;

static void once(__u16 type, pid_t tid, pid_t child)
{
	for (int i = 0; i < nall; i++)
		if (all[i].type == type && all[i].tid == tid && all[i].child == child) {
			printf("FAIL: record type %u of tid %d (child %d) twice\n", type, tid,
			       child);
			fails++;
			return;
		}
	if (nall < 4 * MAXP)
		all[nall++] = (typeof(all[0])){ type, tid, child };
}

static int in(const pid_t *set, int n, pid_t t)
{
	for (int i = 0; i < n; i++)
		if (set[i] == t)
			return 1;
	return 0;
}

/* One record of @s. Returns 1 for the DEATH of @root's last thread. */
static int account(struct stream *s, const struct utrace_record *r, pid_t root)
{
	CHECK(r->h.seq == s->last_seq + 1, "%s: seq %llu after %llu", s->name,
	      (unsigned long long)r->h.seq, (unsigned long long)s->last_seq);
	s->last_seq = r->h.seq;
	s->records++;
	if (r->h.type == UTRACE_REC_LOST) {
		s->lost += r->lost.count;
		return 0;
	}
	if (r->h.type == UTRACE_REC_HANDOFF) {
		s->handoffs++;
		CHECK(r->handoff.to_engine_id != 0, "HANDOFF to engine 0");
		if (s->ngone < MAXP)
			s->gone[s->ngone++] = r->h.tid;
		return 0;
	}
	if (r->h.type == UTRACE_REC_ATTACHED && (r->h.flags & UTRACE_REC_F_HANDOFF))
		s->handed_in++;
	/* A thread that could not be moved (exiting): A keeps it. */
	if (r->h.type == UTRACE_REC_DETACHED && r->detached.reason == UTRACE_DETACH_ERROR)
		s->failed++;
	/* No setuid program in the storm: none is privileged. */
	if (r->h.type == UTRACE_REC_DETACHED && r->detached.reason == UTRACE_DETACH_PRIVILEGED)
		s->privileged++;
	if (r->h.type == UTRACE_REC_DEATH && (r->h.flags & UTRACE_REC_F_NO_PID))
		s->deaths_no_pid++;
	/* A DETACHED of a reaped thread, or a thread that is just going. */
	if (r->h.flags & UTRACE_REC_F_NO_PID)
		return 0;
	if (in(s->gone, s->ngone, r->h.tid))
		CHECK(0, "%s: record type %u of tid %d after its HANDOFF record", s->name,
		      r->h.type, r->h.tid);
	if (!in(s->seen, s->nseen, r->h.tid) && s->nseen < MAXP) {
		s->seen[s->nseen++] = r->h.tid;
	} else {
		CHECK(!(r->h.flags & UTRACE_REC_F_HANDOFF),
		      "%s: ATTACHED(HANDOFF) of tid %d after other records", s->name, r->h.tid);
	}
	switch (r->h.type) {
	case UTRACE_REC_CLONE:
		if (r->h.pid == root) {
			s->clones++;
			once(r->h.type, r->h.tid, r->clone.child_pid);
		}
		break;
	case UTRACE_REC_EXEC:
		s->execs++;
		once(r->h.type, r->h.tid, 0);
		break;
	case UTRACE_REC_DEATH:
		if (!r->death.group_dead) {
			s->deaths_thread++;
			break;
		}
		s->deaths++;
		once(r->h.type, r->h.tid, 0);
		return r->h.pid == root;
	}
	return 0;
}

/* Where process deaths are missing: which children, and odd DEATH records. */
static void missing_deaths(const struct stream *a, const struct stream *b)
{
	printf("DEATH records without ids: A %d, B %d; not a group's last: A %d, B %d\n",
	       a->deaths_no_pid, b->deaths_no_pid, a->deaths_thread, b->deaths_thread);
	for (int i = 0; i < nall; i++) {
		int died = 0;

		if (all[i].type != UTRACE_REC_CLONE)
			continue;
		for (int j = 0; j < nall && !died; j++)
			died = all[j].type == UTRACE_REC_DEATH && all[j].tid == all[i].child;
		if (!died)
			printf("no DEATH record of child %d (A's gone %d, B's seen %d)\n",
			       all[i].child, in(a->gone, a->ngone, all[i].child),
			       in(b->seen, b->nseen, all[i].child));
	}
}

/* Reads what @fd has (blocking if @block); returns 1 once @root died. */
static int drain(int fd, struct stream *s, pid_t root, int block, int max)
{
	struct utrace_record r[16];
	int died = 0;

	for (int k = 0; k < max; k++) {
		ssize_t n;

		if (!block) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 0) <= 0)
				break;
		}
		n = read(fd, r, block ? sizeof(r[0]) : sizeof(r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || n % sizeof(r[0]))
			die("read");
		for (int i = 0; i < n / (ssize_t)sizeof(r[0]); i++)
			died |= account(s, &r[i], root);
		if (block)
			break;
	}
	return died;
}

/* The storm: N children in batches of 4, each execs "uthand exit". */
static void storm(int n, int report)
{
	int forks = 0, execs = 0;

	for (int i = 0; i < n; i += 4) {
		pid_t kids[4];
		int k = 0;

		for (; k < 4 && i + k < n; k++) {
			kids[k] = fork();
			if (kids[k] < 0)
				_exit(4);
			if (kids[k] == 0) {
				execl("/proc/self/exe", "uthand", "exit", (char *)NULL);
				_exit(5);
			}
			forks++;
		}
		for (int j = 0; j < k; j++) {
			int st;

			if (waitpid(kids[j], &st, 0) == kids[j] && WIFEXITED(st) &&
			    WEXITSTATUS(st) == 0)
				execs++;
		}
	}
	if (dprintf(report, "%d %d\n", forks, execs) < 0)
		_exit(6);
	_exit(0);
}

static int cmd_storm(int n)
{
	__u64 ev = UTRACE_EV_CLONE | UTRACE_EV_EXEC | UTRACE_EV_DEATH;
	struct stream a = { .name = "A" }, b = { .name = "B" };
	int gate, rep[2], fa, fb, forks = -1, execs = -1, died = 0, st;
	long long id, to;
	char buf[64];
	pid_t pid;
	FILE *f;

	if (n < 8 || n > 1000)
		return 2;
	if (pipe(rep))
		die("pipe");
	pid = fork_gated(&gate, 3);
	if (pid == 0) {
		close(rep[0]);
		storm(n, rep[1]);
	}
	close(rep[1]);
	/* One page: 16 records, so that threads wait for room in A. */
	fa = sess_open(4096);
	fb = sess_open(0);
	id = sess_attach(fa, pid, UTRACE_ATTACH_F_FOLLOW | UTRACE_ATTACH_F_LOSSLESS, ev);
	if (id <= 0) {
		printf("FAIL: attach: %s\n", errname((int)-id));
		return 1;
	}
	if (write(gate, "g", 1) != 1)
		die("gate");
	/* A, one record at a time, until half the CLONEs came. */
	while (a.clones < n / 2 && !died)
		died = drain(fa, &a, pid, 1, 1);
	CHECK(!died, "the storm ended before the handoff");
	to = handoff(fa, id, fb, UTRACE_HANDOFF_F_TREE);
	if (to <= 0) {
		printf("FAIL: handoff: %s\n", errname((int)-to));
		return 1;
	}
	/* Both, until the storm's root died in one of them. */
	while (!died) {
		struct pollfd p[2] = { { .fd = fa, .events = POLLIN },
				       { .fd = fb, .events = POLLIN } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll");
		if (p[0].revents & POLLIN)
			died |= drain(fa, &a, pid, 0, 4);
		if (p[1].revents & POLLIN)
			died |= drain(fb, &b, pid, 0, 4);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		CHECK(0, "the storm exited with %#x", st);
	f = fdopen(rep[0], "r");
	if (!f || !fgets(buf, sizeof(buf), f) || sscanf(buf, "%d %d", &forks, &execs) != 2)
		die("the storm's report");
	/*
	 * The rest of both: for up to 5 s until every death came (under the
	 * debug kernel one of 65 was not readable yet when the root had
	 * died and been reaped), then once more for anything else.
	 */
	for (int k = 0; k < 50 && a.deaths + b.deaths < forks + 1; k++) {
		struct pollfd p[2] = { { .fd = fa, .events = POLLIN },
				       { .fd = fb, .events = POLLIN } };

		if (poll(p, 2, 100) < 0 && errno != EINTR)
			die("poll");
		drain(fa, &a, pid, 0, 1 << 20);
		drain(fb, &b, pid, 0, 1 << 20);
	}
	drain(fa, &a, pid, 0, 1 << 20);
	drain(fb, &b, pid, 0, 1 << 20);
	CHECK(forks == n && execs == n, "the storm says %d forks, %d execs, want %d", forks,
	      execs, n);
	CHECK(a.lost + b.lost == 0, "%d records lost in lossless mode", a.lost + b.lost);
	CHECK(a.privileged + b.privileged == 0,
	      "DETACHED(PRIVILEGED): %d in A, %d in B (an exiting thread taken for a privileged one)",
	      a.privileged, b.privileged);
	CHECK(a.clones + b.clones == forks, "CLONE records: %d in A + %d in B, the storm forked %d",
	      a.clones, b.clones, forks);
	CHECK(a.execs + b.execs == execs, "EXEC records: %d in A + %d in B, the storm saw %d exec",
	      a.execs, b.execs, execs);
	CHECK(a.deaths + b.deaths == forks + 1, "process deaths: %d in A + %d in B, want %d",
	      a.deaths, b.deaths, forks + 1);
	if (a.deaths + b.deaths != forks + 1)
		missing_deaths(&a, &b);
	CHECK(a.clones > 0 && b.clones > 0, "the handoff was not in the middle (%d, %d)",
	      a.clones, b.clones);
	CHECK(a.handoffs >= 1 && a.handoffs == b.handed_in - b.failed,
	      "%d HANDOFF records in A, %d ATTACHED(HANDOFF) in B, %d of them not moved",
	      a.handoffs, b.handed_in, b.failed);
	CHECK(b.handed_in >= 1, "nothing came to B by handoff");
	printf("%s: storm %d: A %d records (%d clone, %d exec, %d death, %d handoff), "
	       "B %d records (%d clone, %d exec, %d death, %d handed in, %d of them exiting "
	       "and kept by A): union = the storm's counts, none twice, none lost\n",
	       fails ? "FAIL" : "ok", n, a.records, a.clones, a.execs, a.deaths, a.handoffs,
	       b.records, b.clones, b.execs, b.deaths, b.handed_in, b.failed);
	return fails ? 1 : 0;
}

/* ---- bad input */

static void expect(const char *what, long long got, int want)
{
	int e = got < 0 ? (int)-got : 0;

	CHECK(e == want, "%s: %s, want %s", what, errname(e), errname(want));
}

static int cmd_bad(void)
{
	int fa = sess_open(0), fb = sess_open(0), p[2], gate, st;
	__u64 ev = UTRACE_EV_EXIT;
	long long id, to;
	pid_t pid;

	if (pipe(p))
		die("pipe");
	pid = fork_gated(&gate, 3);
	if (pid == 0)
		_exit(7);
	id = sess_attach(fa, pid, 0, ev);
	CHECK(id > 0, "attach: %s", errname((int)-id));
	expect("to_fd -1", handoff(fa, id, -1, 0), EBADF);
	expect("to_fd 999 (not open)", handoff(fa, id, 999, 0), EBADF);
	expect("to_fd a pipe", handoff(fa, id, p[0], 0), EINVAL);
	expect("to_fd this session", handoff(fa, id, fa, 0), EINVAL);
	expect("unknown flag", handoff(fa, id, fb, 1U << 7), EINVAL);
	expect("engine 0", handoff(fa, 0, fb, 0), ENOENT);
	expect("unknown engine", handoff(fa, id + 100, fb, 0), ENOENT);
	{
		struct utrace_handoff h = { .size = sizeof(h), .engine_id = id, .to_fd = fb,
					    .reserved = 1 };

		expect("reserved", ioctl(fa, UTRACE_IOC_HANDOFF, &h) ? -errno : 0, EINVAL);
		h.reserved = 0;
		h.to_engine_id = 5;
		expect("to_engine_id in", ioctl(fa, UTRACE_IOC_HANDOFF, &h) ? -errno : 0, EINVAL);
		h.to_engine_id = 0;
		h.size = 8;
		expect("size 8", ioctl(fa, UTRACE_IOC_HANDOFF, &h) ? -errno : 0, EINVAL);
		expect("bad pointer", ioctl(fa, UTRACE_IOC_HANDOFF, (void *)8) ? -errno : 0,
		       EFAULT);
	}
	/* B traces the process already: EEXIST, and A keeps it. */
	{
		long long idb = sess_attach(fb, pid, 0, ev);

		CHECK(idb > 0, "B attach: %s", errname((int)-idb));
		expect("B traces it already", handoff(fa, id, fb, 0), EEXIST);
		{
			struct utrace_detach d = { .size = sizeof(d), .engine_id = idb };

			CHECK(!ioctl(fb, UTRACE_IOC_DETACH, &d), "B detach");
		}
	}
	/* Nothing changed: the handoff works now, then again back. */
	to = handoff(fa, id, fb, 0);
	CHECK(to > 0, "handoff after the refusals: %s", errname((int)-to));
	expect("the old id is gone from A", handoff(fa, id, fb, 0), ENOENT);
	{
		long long back = handoff(fb, to, fa, 0);

		CHECK(back > 0, "handoff back: %s", errname((int)-back));
	}
	if (write(gate, "g", 1) != 1)
		die("gate");
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "child status %#x", st);
	printf("%s: bad handoffs: EBADF, EINVAL, ENOENT, EEXIST, EFAULT; then it works\n",
	       fails ? "FAIL" : "ok");
	return fails ? 1 : 0;
}

/* ---- permission: B's opener must be allowed to trace the task */

static int recv_fd(int sock)
{
	char data;
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		die("recvmsg");
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		die("no SCM_RIGHTS");
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static void send_fd(int sock, int fd)
{
	char data = 'f';
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	if (sendmsg(sock, &m, 0) != 1)
		die("sendmsg");
}

static int cmd_perm(pid_t target, uid_t uid)
{
	int fa = sess_open(0), sv[2], fb, st;
	long long id, to;
	pid_t kid;

	id = sess_attach(fa, target, 0, UTRACE_EV_EXIT);
	if (id <= 0) {
		printf("attach %s\n", errname((int)-id));
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		/*
		 * No unix sockets in this kernel (CONFIG_UNIX): the session is
		 * opened with @uid as effective and filesystem uid (and so no
		 * effective capabilities) instead, which is what the kernel
		 * keeps of its opener.
		 */
		if (errno != ENOSYS && errno != EAFNOSUPPORT)
			die("socketpair");
		fprintf(stderr, "uthand: no unix sockets: the session is opened with euid %d\n",
			(int)uid);
		if (setegid(uid) || seteuid(uid))
			die("seteuid");
		fb = sess_open(0);
		if (seteuid(0) || setegid(0))
			die("seteuid back");
		to = handoff(fa, id, fb, 0);
		printf("%s\n", to < 0 ? errname((int)-to) : "ok");
		return 0;
	}
	kid = fork();
	if (kid == 0) {
		close(sv[0]);
		if (setgid(uid) || setuid(uid))
			die("setuid");
		send_fd(sv[1], sess_open(0));
		_exit(0);
	}
	close(sv[1]);
	fb = recv_fd(sv[0]);
	waitpid(kid, &st, 0);
	to = handoff(fa, id, fb, 0);
	printf("%s\n", to < 0 ? errname((int)-to) : "ok");
	return 0;
}

/* ---- B's tasks_per_session */

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A child with @threads threads in all, sleeping until killed. */
static pid_t threaded_child(int threads, int ready)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* Gone with us, whatever check fails. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(5);
		for (int i = 1; i < threads; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, sleeper, NULL))
				_exit(3);
		}
		if (write(ready, "r", 1) != 1)
			_exit(4);
		sleeper(NULL);
	}
	return pid;
}

static int cmd_limit(void)
{
	int fa, fb, p[2], got = 0;
	long long ida, idb, to;
	pid_t three, one;
	char c[2];

	if (pipe(p))
		die("pipe");
	/* The children first: they must not hold the sessions open. */
	three = threaded_child(3, p[1]);
	one = threaded_child(1, p[1]);
	while (got < 2) {
		ssize_t n = read(p[0], c, 2 - got);

		if (n <= 0)
			die("ready");
		got += n;
	}
	fa = sess_open(0);
	fb = sess_open(0);
	ida = sess_attach(fa, three, 0, UTRACE_EV_EXIT);
	idb = sess_attach(fb, one, 0, UTRACE_EV_EXIT);
	CHECK(ida > 0 && idb > 0, "attach: %s %s", ida < 0 ? errname((int)-ida) : "ok",
	      idb < 0 ? errname((int)-idb) : "ok");
	expect("3 threads to a session with 1 of 3", handoff(fa, ida, fb, 0), ENOSPC);
	{
		struct utrace_detach d = { .size = sizeof(d), .engine_id = idb };

		CHECK(!ioctl(fb, UTRACE_IOC_DETACH, &d), "B detach");
	}
	to = handoff(fa, ida, fb, 0);
	CHECK(to > 0, "3 threads to an empty session of 3: %s", to < 0 ? errname((int)-to) : "ok");
	kill(three, SIGKILL);
	kill(one, SIGKILL);
	waitpid(three, NULL, 0);
	waitpid(one, NULL, 0);
	printf("%s: tasks_per_session=3 of the receiving session: ENOSPC, then ok\n",
	       fails ? "FAIL" : "ok");
	return fails ? 1 : 0;
}

/* ---- a sequence for the utrace command's handoff */

static int cmd_seq(int n)
{
	int fd = open("/dev/null", O_RDONLY), done = 0;
	char c;

	if (fd < 0)
		die("/dev/null");
	wait_go();
	for (int i = 0; i < n; i++) {
		if (i == n / 2 && read(0, &c, 1) != 1)
			die("read the second byte");
		if (lseek(fd, i, SEEK_SET) >= 0)
			done++;
	}
	printf("lseek %d\n", done);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;
	if (argc > 2 && !strcmp(argv[1], "storm"))
		return cmd_storm(atoi(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "limit"))
		return cmd_limit();
	if (argc > 2 && !strcmp(argv[1], "seq"))
		return cmd_seq(atoi(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "bad"))
		return cmd_bad();
	if (argc > 3 && !strcmp(argv[1], "perm"))
		return cmd_perm(atoi(argv[2]), (uid_t)atoi(argv[3]));
	fprintf(stderr, "usage: uthand storm N | bad | perm PID UID | limit | seq N | exit\n");
	return 2;
}
