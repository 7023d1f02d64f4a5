// SPDX-License-Identifier: GPL-2.0
/*
 * utsess: exercises /dev/utrace sessions (utrace_dev.ko) for the selftests.
 *
 *   utsess child           trace a child of ours: its getppid() calls in
 *                          order, its exit code, from the first record on
 *   utsess pidfd           the same, attached by pidfd
 *   utsess follow          FOLLOW: a grandchild's getppid()s under the engine
 *                          its CLONE record names, from its first one
 *   utsess threads         a process engine sees a new thread's getppid()s
 *   utsess threxec         a non-leader thread execs /bin/true: its records
 *                          before carry its own tid, every one after the
 *                          EXEC record the process's pid (it took over the
 *                          leader's ids)
 *   utsess open N          open N sessions: prints how many opened, errno
 *   utsess budget B        two sessions, the first configured for B bytes
 *   utsess big N           a thread-per-N process: attach (ok or errno)
 *   utsess self            a thread engine on ourselves: our own getppid()s
 *   utsess attach PID      try to attach to PID: prints "ok" or the errno name
 *   utsess two N           two sessions on one child doing N getppid()s:
 *                          each sees all N once, in order
 *   utsess hold PID        attach, STOP PID, print "stopped" once it is,
 *                          then sleep (for the kill test)
 *   utsess lost            a small buffer overrun: a LOST record counts
 *                          exactly the records dropped
 *   utsess suid PATH       a child of ours execs the setuid program PATH
 *                          ("PATH euid"): the engine detaches before it
 *                          runs (DETACHED, PRIVILEGED), no EXEC record
 *   utsess euid            print our effective uid
 *   utsess nodump          make ourselves non-dumpable, print "ready", sleep
 *   utsess lossless        LOSSLESS with a 16-record buffer: the child waits
 *                          for room (stopped), all its 100 getppid()s arrive
 *   utsess sigstop N       N rounds of kill(SIGUSR1) then STOP on a child
 *                          busy in user space with a handler: once the
 *                          STOPPED record came, the child must not run;
 *                          after RESUME its handler runs once
 *   utsess sigtwo N        two sessions watch a child's signals; a SIGUSR1,
 *                          then the first stops it: N rounds in which the
 *                          handler runs once, never between the STOPPED
 *                          record and RESUME, and each session has exactly
 *                          one SIGNAL record of it
 *   utsess setevents       SET_EVENTS on a child the session stopped: it stays
 *                          stopped; after RESUME the new mask is the one
 *                          reported
 *   utsess capture         UTRACE_IOC_CAPTURE: a child's syscall records
 *                          carry its path, write() and read() bytes as at
 *                          the call; an untouched page is flagged FAULT, a
 *                          second long path CUT; with CAPTURE_F_DECIDE
 *                          exactly those entries wait for a decision. Bad
 *                          lists get their errno and change nothing.
 *   utsess stopstate N     N rounds of STOP on a child spinning in user
 *                          space, on our CPU: after each STOPPED record the
 *                          child runs no user code; at the record it sleeps
 *                          in its stop (not 'R'), but for rare rounds
 *   utsess compact         two sessions on one child, the second with
 *                          UTRACE_CONFIG_F_COMPACT: the same records, each
 *                          as long as sessions.rst says, its bytes those of
 *                          the whole record; read() packs them
 *   utsess bad             every bad input gets its errno
 *   utsess fuzz N SEED     N random ioctls: every one returns an errno or 0
 *
 * Prints "FAIL: ..." and exits 1 when a check fails.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <utrace_rs.h>
#include "progs.h"
#include "check.h"

static int sess_open(void)
{
	int fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(UTRACE_DEV_PATH);
	return fd;
}

/* Attaches; returns the engine id, or -errno. */
static long long sess_attach(int fd, pid_t pid, __u32 flags, __u64 events)
{
	struct utrace_attach a = { .size = sizeof(a), .flags = flags, .pid = pid,
				   .events = events };

	if (ioctl(fd, UTRACE_IOC_ATTACH, &a))
		return -errno;
	return (long long)a.engine_id;
}

static int sess_control(int fd, __u64 id, __u32 action, pid_t tid)
{
	struct utrace_control c = { .size = sizeof(c), .action = action, .engine_id = id,
				    .tid = tid };

	return ioctl(fd, UTRACE_IOC_CONTROL, &c) ? -errno : 0;
}

/* Reads one record (blocking), checks its header. */
static void next_record(int fd, struct utrace_record *r)
{
	ssize_t n = read(fd, r, sizeof(*r));

	if (n != (ssize_t)sizeof(*r))
		die("read record");
	if (r->h.size != UTRACE_REC_SIZE) {
		printf("FAIL: record size %u\n", r->h.size);
		exit(1);
	}
}

/*
 * Reads @fd's records into @r up to the DEATH one, at most @max; returns
 * how many (the last is the DEATH one unless @max ran out first).
 */
static int read_to_death(int fd, struct utrace_record *r, int max)
{
	int n = 0;

	do
		next_record(fd, &r[n]);
	while (r[n++].h.type != UTRACE_REC_DEATH && n < max);
	return n;
}

/* A child waiting on a pipe, then doing @n getppid()s and exiting with 7. */
static pid_t gated_child(int n, int *gate)
{
	pid_t pid = fork_gated(gate, 3);

	if (pid == 0) {
		for (int i = 0; i < n; i++)
			syscall(SYS_getppid);
		_exit(7);
	}
	return pid;
}

/*
 * Reads records of @fd until the DEATH of @pid's last thread; counts the
 * getppid entries and checks seq order. Returns the getppid count.
 */
static int follow_to_death(int fd, pid_t pid, __u64 id, int *exit_code)
{
	struct utrace_record r;
	__u64 last_seq = 0;
	int getppids = 0;

	for (;;) {
		next_record(fd, &r);
		CHECK(r.h.seq == last_seq + 1 || last_seq == 0, "seq %llu after %llu",
		      (unsigned long long)r.h.seq, (unsigned long long)last_seq);
		last_seq = r.h.seq;
		CHECK(r.h.type != UTRACE_REC_LOST, "LOST record with a big buffer");
		if (r.h.type == UTRACE_REC_DETACHED)
			continue;
		CHECK(r.h.engine_id == id, "engine id %llu, want %llu",
		      (unsigned long long)r.h.engine_id, (unsigned long long)id);
		CHECK(r.h.pid == pid, "pid %d, want %d", r.h.pid, pid);
		if (r.h.type == UTRACE_REC_SYSCALL_ENTRY && r.syscall.nr == SYS_getppid) {
			CHECK(r.syscall.abi == UTRACE_ABI_X86_64, "abi %u", r.syscall.abi);
			getppids++;
		}
		if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead) {
			*exit_code = r.death.exit_code;
			return getppids;
		}
	}
}

static int cmd_child(int by_pidfd)
{
	int fd = sess_open(), gate, status, code = -1;
	pid_t pid = gated_child(5, &gate);
	__u64 ev = UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_EXIT | UTRACE_EV_DEATH;
	long long id;

	if (by_pidfd) {
		struct utrace_attach a = { .size = sizeof(a), .flags = UTRACE_ATTACH_F_PIDFD,
					   .events = ev };

		a.pidfd = syscall(SYS_pidfd_open, pid, 0);
		if (a.pidfd < 0)
			die("pidfd_open");
		id = ioctl(fd, UTRACE_IOC_ATTACH, &a) ? -errno : (long long)a.engine_id;
		close(a.pidfd);
	} else {
		id = sess_attach(fd, pid, 0, ev);
	}

	if (id <= 0) {
		printf("FAIL: attach to our child %d: %s\n", pid, strerror((int)-id));
		return 1;
	}
	if (write(gate, "g", 1) != 1)
		die("gate");
	CHECK(follow_to_death(fd, pid, id, &code) == 5, "getppid entries not 5");
	CHECK(code == 7 << 8, "exit code %#x, want 0x700", code);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7, "child status %#x", status);
	printf("child%s: 5 getppid entries, exit 7 seen as uid %d\n",
	       by_pidfd ? " (by pidfd)" : "", getuid());
	return fails ? 1 : 0;
}

static int cmd_follow(void)
{
	int fd = sess_open(), p[2], status, gp = 0, attached = 0, died = 0;
	__u64 child_engine = 0;
	struct utrace_record r;
	long long id;
	pid_t pid, gc = 0;
	char c;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(3);
		gc = fork();
		if (gc == 0) {
			for (int i = 0; i < 3; i++)
				syscall(SYS_getppid);
			_exit(5);
		}
		waitpid(gc, NULL, 0);
		_exit(0);
	}
	close(p[0]);
	id = sess_attach(fd, pid, UTRACE_ATTACH_F_FOLLOW,
			 UTRACE_EV_CLONE | UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	if (write(p[1], "g", 1) != 1)
		die("gate");
	while (died < 2) {
		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_CLONE && r.h.engine_id == (__u64)id) {
			child_engine = r.clone.child_engine_id;
			gc = r.clone.child_pid;
		} else if (r.h.type == UTRACE_REC_ATTACHED && r.h.pid != pid) {
			attached++;
			CHECK(child_engine == 0 || r.h.engine_id == child_engine,
			      "ATTACHED engine %llu", (unsigned long long)r.h.engine_id);
		} else if (r.h.type == UTRACE_REC_SYSCALL_ENTRY && r.syscall.nr == SYS_getppid) {
			CHECK(r.h.pid != pid && r.h.engine_id != (__u64)id,
			      "getppid of pid %d engine %llu", r.h.pid,
			      (unsigned long long)r.h.engine_id);
			gp++;
		} else if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead) {
			died++;
		}
	}
	waitpid(pid, &status, 0);
	CHECK(child_engine != 0 && child_engine != (__u64)id, "CLONE names engine %llu",
	      (unsigned long long)child_engine);
	CHECK(attached == 1, "%d ATTACHED records for the grandchild", attached);
	CHECK(gp == 3, "%d of the grandchild's 3 getppid()", gp);
	printf("follow: grandchild %d under engine %llu: 3 getppid entries, its death\n", gc,
	       (unsigned long long)child_engine);
	return fails ? 1 : 0;
}

static void *thread_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		syscall(SYS_getppid);
	return NULL;
}

/*
 * A child attached to by session @fd with @events before it starts @fn in a
 * new thread (joined, then exit 0); the engine id in @id.
 */
static pid_t thread_child(int fd, __u64 events, void *(*fn)(void *), long long *id)
{
	int gate;
	pid_t pid = fork_gated(&gate, 3);

	if (pid == 0) {
		pthread_t t;

		pthread_create(&t, NULL, fn, NULL);
		pthread_join(t, NULL);
		_exit(0);
	}
	*id = sess_attach(fd, pid, 0, events);
	CHECK(*id > 0, "attach: %s", strerror((int)-*id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	close(gate);
	return pid;
}

static int cmd_threads(void)
{
	int fd = sess_open(), status, gp = 0, attached = 0;
	struct utrace_record r;
	long long id;
	pid_t pid;

	pid = thread_child(fd, UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH, thread_fn, &id);
	for (;;) {
		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_ATTACHED) {
			CHECK(r.h.pid == pid && r.h.tid != pid && r.h.engine_id == (__u64)id,
			      "ATTACHED pid %d tid %d", r.h.pid, r.h.tid);
			attached++;
		} else if (r.h.type == UTRACE_REC_SYSCALL_ENTRY && r.syscall.nr == SYS_getppid) {
			CHECK(r.h.tid != pid, "getppid in the main thread");
			gp++;
		} else if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead) {
			break;
		}
	}
	waitpid(pid, &status, 0);
	CHECK(attached == 1 && gp == 3, "%d ATTACHED, %d getppid entries", attached, gp);
	printf("threads: the new thread's 3 getppid entries under the process's engine\n");
	return fails ? 1 : 0;
}

static void *threxec_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		syscall(SYS_getppid);
	execl("/bin/true", "true", (char *)NULL);
	_exit(4);
}

static int cmd_threxec(void)
{
	int fd = sess_open(), status, before = 0, after = 0, execs = 0;
	struct utrace_record r;
	long long id;
	pid_t pid;

	pid = thread_child(fd, UTRACE_EV_SYSCALL_EXIT | UTRACE_EV_EXEC | UTRACE_EV_DEATH,
			   threxec_fn, &id);
	for (;;) {
		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_EXEC) {
			CHECK(r.h.pid == pid && r.h.tid == pid && r.exec.old_tid != pid &&
			      r.exec.old_tid > 0, "EXEC pid %d tid %d old_tid %d", r.h.pid,
			      r.h.tid, r.exec.old_tid);
			execs++;
		} else if (r.h.type == UTRACE_REC_SYSCALL_EXIT && !execs &&
			   r.syscall.nr == SYS_getppid) {
			CHECK(r.h.pid == pid && r.h.tid != pid, "getppid before the exec: tid %d",
			      r.h.tid);
			before++;
		} else if (r.h.type == UTRACE_REC_SYSCALL_EXIT && execs) {
			CHECK(r.h.pid == pid && r.h.tid == pid,
			      "syscall %d after the exec: pid %d tid %d", r.syscall.nr, r.h.pid,
			      r.h.tid);
			after++;
		} else if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead) {
			break;
		}
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	CHECK(before == 3 && execs == 1 && after > 0, "%d getppid exits, %d EXEC, %d after",
	      before, execs, after);
	printf("threxec: 3 getppid exits with the thread's tid, then %d syscall exits "
	       "with the leader's ids\n", after);
	return fails ? 1 : 0;
}

static int cmd_open(int n)
{
	int i, err = 0;

	for (i = 0; i < n; i++)
		if (open(UTRACE_DEV_PATH, O_RDWR) < 0) {
			err = errno;
			break;
		}
	printf("%d %s\n", i, err ? errname(err) : "-");
	return 0;
}

static void *idle_fn(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int cmd_big(int n)
{
	pthread_t t;
	long long id;

	for (int i = 1; i < n; i++)
		pthread_create(&t, NULL, idle_fn, NULL);
	id = sess_attach(sess_open(), getpid(), 0, UTRACE_EV_EXIT);
	printf("%s\n", id > 0 ? "ok" : errname((int)-id));
	return 0;
}

static int cmd_budget(__u64 bytes)
{
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = bytes };
	int fd = sess_open();

	sess_open();
	printf("%s\n", ioctl(fd, UTRACE_IOC_CONFIG, &cfg) ? errname(errno) : "ok");
	return 0;
}

static int cmd_self(void)
{
	int fd = sess_open(), seen = 0;
	struct utrace_detach d = { .size = sizeof(d) };
	struct utrace_record r;
	long long id = sess_attach(fd, syscall(SYS_gettid), UTRACE_ATTACH_F_THREAD,
				   UTRACE_EV_SYSCALL_ENTRY);

	if (id <= 0) {
		printf("FAIL: attach to ourselves: %s\n", strerror((int)-id));
		return 1;
	}
	for (int i = 0; i < 3; i++)
		syscall(SYS_getppid);
	d.engine_id = id;
	CHECK(ioctl(fd, UTRACE_IOC_DETACH, &d) == 0, "detach: %s", strerror(errno));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, &r, sizeof(r)) == sizeof(r))
		if (r.h.type == UTRACE_REC_SYSCALL_ENTRY && r.syscall.nr == SYS_getppid)
			seen++;
	CHECK(errno == EAGAIN, "read at the end: %s", strerror(errno));
	CHECK(seen == 3, "saw %d of our 3 getppid()", seen);
	printf("self: %d getppid entries of our own\n", seen);
	return fails ? 1 : 0;
}

static int cmd_attach(pid_t pid)
{
	int fd = sess_open();
	long long id = sess_attach(fd, pid, 0, UTRACE_EV_EXIT);

	if (id > 0)
		printf("ok\n");
	else
		printf("%s\n", errname((int)-id));
	return 0;
}

/*
 * utsess execrace N: N attaches, each by a session of its own, to a child
 * that execs itself over and over. The ptrace check judges the task, not
 * one image of it: every attach succeeds (one that met the mm of the image
 * before an exec and the /proc/PID/mem of the image after it said ESRCH).
 */
static int cmd_execrace(int n)
{
	pid_t pid = fork();
	int ok = 0, status;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execl("/proc/self/exe", "utsess", "reexec", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < n && !fails; i++) {
		int fd = sess_open();
		long long id = sess_attach(fd, pid, 0, UTRACE_EV_EXIT);

		close(fd);
		CHECK(id > 0, "attach %d of %d to pid %d while it execs: %s", i + 1, n, pid,
		      errname((int)-id));
		ok += id > 0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "exec loop status %#x",
	      status);
	printf("execrace: %d of %d attaches during execs ok\n", ok, n);
	return fails ? 1 : 0;
}

/*
 * utsess exiting N: N times, a child that exits as soon as it is let go,
 * let go just before an attach with EXIT, DEATH and SYSCALL_ENTRY (the
 * session the only one with syscall events: the attach puts the syscall
 * probes in, which takes a while). The attach races the exit: it must
 * succeed (the exit is reported) or fail with ESRCH, never another errno
 * (EALREADY was seen: the task passed its exit hook during the attach).
 */
static int cmd_exiting(int n)
{
	int ok = 0, esrch = 0;

	for (int i = 0; i < n; i++) {
		int fd = sess_open(), gate, status;
		pid_t pid = fork_gated(&gate, 2);
		long long id;

		if (pid == 0)
			_exit(0);
		if (write(gate, "g", 1) != 1)
			die("gate");
		id = sess_attach(fd, pid, 0,
				 UTRACE_EV_EXIT | UTRACE_EV_DEATH | UTRACE_EV_SYSCALL_ENTRY);
		if (id > 0)
			ok++;
		else if (id == -ESRCH)
			esrch++;
		else
			CHECK(0, "round %d: attach to a child exiting meanwhile: %s", i,
			      errname((int)-id));
		close(gate);
		close(fd);
		waitpid(pid, &status, 0);
	}
	printf("exiting: %d attaches succeeded, %d said ESRCH\n", ok, esrch);
	return fails ? 1 : 0;
}

static int cmd_two(int n)
{
	int fd1 = sess_open(), fd2 = sess_open(), gate, status, c1 = -1, c2 = -1;
	pid_t pid = gated_child(n, &gate);
	long long id1 = sess_attach(fd1, pid, 0, UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	long long id2 = sess_attach(fd2, pid, 0, UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 1 << 20 };
	int g1, g2;

	CHECK(id1 > 0 && id2 > 0, "attach: %lld %lld", id1, id2);
	/* The buffer is fixed once an engine is attached. */
	CHECK(ioctl(fd1, UTRACE_IOC_CONFIG, &cfg) < 0 && errno == EBUSY, "config after attach");
	if (write(gate, "g", 1) != 1)
		die("gate");
	/* Each reader in turn; the buffers (64 KiB = 256 records) hold all. */
	g1 = follow_to_death(fd1, pid, id1, &c1);
	g2 = follow_to_death(fd2, pid, id2, &c2);
	CHECK(g1 == n && g2 == n, "getppid entries %d and %d, want %d each", g1, g2, n);
	waitpid(pid, &status, 0);
	printf("two: each session saw %d getppid entries in order\n", g1);
	return fails ? 1 : 0;
}

static int cmd_suid(const char *path)
{
	int fd = sess_open(), p[2], status, detached = 0, execs = 0, after = 0;
	struct utrace_record r;
	long long id;
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			execl(path, path, "euid", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	id = sess_attach(fd, pid, 0, UTRACE_EV_EXEC | UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	CHECK(id > 0, "attach child: %s", strerror((int)-id));
	if (write(p[1], "g", 1) != 1)
		die("gate");
	waitpid(pid, &status, 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, &r, sizeof(r)) == sizeof(r)) {
		if (r.h.type == UTRACE_REC_EXEC)
			execs++;
		else if (r.h.type == UTRACE_REC_DETACHED)
			detached = r.detached.reason;
		else if (detached)
			after++;
	}
	CHECK(detached == UTRACE_DETACH_PRIVILEGED, "detach reason %d, want PRIVILEGED",
	      detached);
	CHECK(execs == 0, "%d EXEC records of the privileged program", execs);
	CHECK(after == 0, "%d records after the detach", after);
	printf("suid: detached before the setuid program ran, no record of it\n");
	return fails ? 1 : 0;
}

static int cmd_hold(pid_t pid)
{
	int fd = sess_open();
	long long id = sess_attach(fd, pid, 0, 0);
	struct utrace_record r;

	if (id <= 0) {
		printf("FAIL: attach %d: %s\n", pid, strerror((int)-id));
		return 1;
	}
	if (sess_control(fd, id, UTRACE_CTL_STOP, 0))
		die("stop");
	do
		next_record(fd, &r);
	while (!(r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED)));
	printf("stopped\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int cmd_lost(void)
{
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 4096 };
	int fd = sess_open(), gate, status, code, got = 0;
	struct utrace_record r;
	__u64 lost = 0, last = 0;
	pid_t pid;
	long long id;

	CHECK(ioctl(fd, UTRACE_IOC_CONFIG, &cfg) == 0, "config 4096: %s", strerror(errno));
	pid = gated_child(100, &gate);
	id = sess_attach(fd, pid, 0, UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	CHECK(id > 0, "attach");
	if (write(gate, "g", 1) != 1)
		die("gate");
	waitpid(pid, &status, 0);
	/* 16 records fit; the rest was dropped and counted. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, &r, sizeof(r)) == sizeof(r)) {
		/* A LOST record takes the seq after the gap it reports. */
		__u64 first = r.h.type == UTRACE_REC_LOST ? r.lost.first_seq : r.h.seq;

		CHECK(first == last + 1, "seq %llu after %llu", (unsigned long long)first,
		      (unsigned long long)last);
		last = r.h.seq;
		if (r.h.type == UTRACE_REC_LOST) {
			CHECK(r.lost.first_seq + r.lost.count == r.h.seq,
			      "LOST first %llu count %llu at seq %llu",
			      (unsigned long long)r.lost.first_seq,
			      (unsigned long long)r.lost.count, (unsigned long long)r.h.seq);
			lost += r.lost.count;
		} else {
			got++;
		}
	}
	(void)code;
	CHECK(lost > 0, "nothing lost with a 16-record buffer");
	CHECK(got + lost + 1 == last, "%d records + %llu lost + LOST != last seq %llu", got,
	      (unsigned long long)lost, (unsigned long long)last);
	printf("lost: %d records read, %llu lost, seqs without a gap\n", got,
	       (unsigned long long)lost);
	return fails ? 1 : 0;
}

static int cmd_lossless(void)
{
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 4096 };
	int fd = sess_open(), gate, status, gp = 0, code = -1, i;
	struct utrace_record r;
	__u64 last = 0;
	char st = '?';
	pid_t pid;
	long long id;

	CHECK(ioctl(fd, UTRACE_IOC_CONFIG, &cfg) == 0, "config 4096: %s", strerror(errno));
	pid = gated_child(100, &gate);
	id = sess_attach(fd, pid, UTRACE_ATTACH_F_LOSSLESS,
			 UTRACE_EV_SYSCALL_ENTRY | UTRACE_EV_DEATH);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	/* The ring fills: the child waits in a utrace stop. */
	for (i = 0; i < 100 && (st = proc_state(pid)) != 'I'; i++)
		usleep(20000);
	CHECK(st == 'I', "the child's state is %c while the ring is full, want I", st);
	for (;;) {
		next_record(fd, &r);
		CHECK(r.h.type != UTRACE_REC_LOST, "a LOST record in lossless mode");
		CHECK(r.h.seq == last + 1, "seq %llu after %llu", (unsigned long long)r.h.seq,
		      (unsigned long long)last);
		last = r.h.seq;
		if (r.h.type == UTRACE_REC_SYSCALL_ENTRY && r.syscall.nr == SYS_getppid)
			gp++;
		if (r.h.type == UTRACE_REC_DEATH && r.death.group_dead) {
			code = r.death.exit_code;
			break;
		}
	}
	waitpid(pid, &status, 0);
	CHECK(gp == 100, "%d of 100 getppid entries", gp);
	CHECK(code == 7 << 8, "exit code %#x", code);
	printf("lossless: the child waited (state %c) for room, all 100 getppid entries came\n",
	       st);
	return fails ? 1 : 0;
}

static volatile long *usr1_count;
static void count_usr1(int sig __attribute__((unused)))
{
	usr1_count[1]++;
}

/*
 * A child busy in user space (usr1_count[0] counts its loops) with a
 * SIGUSR1 handler (usr1_count[1] counts its runs).
 */
static pid_t usr1_child(void)
{
	pid_t pid;

	usr1_count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (usr1_count == MAP_FAILED)
		die("mmap");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		signal(SIGUSR1, count_usr1);
		for (;;)
			usr1_count[0]++;
	}
	return pid;
}

/*
 * Waits up to 2 s for a QUIESCE record with STOPPED; returns 1 if it came,
 * with the event it stopped before in *event.
 */
/* LOST records wait_stopped_rec() read: a lossy session may drop the STOPPED record. */
static __u64 stopped_rec_lost;
/* SIGNAL records of SIGUSR1 wait_stopped_rec() read on its way. */
static int stopped_rec_usr1;

static int wait_stopped_rec(int fd, __u64 *event)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct utrace_record r;

	stopped_rec_lost = 0;
	stopped_rec_usr1 = 0;
	for (;;) {
		if (poll(&p, 1, 2000) != 1)
			return 0;
		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_LOST)
			stopped_rec_lost += r.lost.count;
		stopped_rec_usr1 += r.h.type == UTRACE_REC_SIGNAL && r.signal.signo == SIGUSR1;
		if (r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED)) {
			*event = r.quiesce.event;
			return 1;
		}
	}
}

static int drain_stopped(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct utrace_record r;
	int n = 0;

	while (poll(&p, 1, 0) == 1) {
		next_record(fd, &r);
		n += r.h.type == UTRACE_REC_QUIESCE && (r.h.flags & UTRACE_REC_F_STOPPED);
	}
	return n;
}

/*
 * A child loops in user space (counting in shared memory) with a SIGUSR1
 * handler. Each round: SIGUSR1, at once a session STOP; once the STOPPED
 * record came the child must not run for 20 ms; RESUME. Counted by where the
 * stop was taken (the record's event): at the SIGNAL report or at a safe
 * point. One STOP may bring two STOPPED records (the thread stops, leaves
 * its stop in the kernel for a report asked for meanwhile, and stops
 * again), so a round ends once the child ran its handler and its loop
 * again, with the round's records read: the next round's STOPPED record is
 * its own (read in the next round, the second one showed the child running
 * before its stop: the bug this test was once thought to show).
 */
static int cmd_sigstop(int rounds)
{
	int fd = sess_open(), status, i, n, missing = 0, at_sig = 0, ran_sig = 0, ran_safe = 0;
	int twice = 0, stuck = 0;
	long before, after;
	__u64 ev = 0;
	long long id;
	pid_t pid;

	pid = usr1_child();
	id = sess_attach(fd, pid, 0, UTRACE_EV_SIGNAL);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	for (i = 0; i < rounds && id > 0; i++) {
		kill(pid, SIGUSR1);
		CHECK(sess_control(fd, id, UTRACE_CTL_STOP, 0) == 0, "stop: %s", strerror(errno));
		if (!wait_stopped_rec(fd, &ev)) {
			missing++;
		} else {
			before = usr1_count[0];
			usleep(20000);
			after = usr1_count[0];
			at_sig += ev == UTRACE_EV_SIGNAL;
			if (after != before) {
				ran_sig += ev == UTRACE_EV_SIGNAL;
				ran_safe += ev != UTRACE_EV_SIGNAL;
			}
		}
		CHECK(sess_control(fd, id, UTRACE_CTL_RESUME, 0) == 0, "resume: %s",
		      strerror(errno));
		/* The round is over once the handler ran and the loop goes on. */
		before = usr1_count[0];
		for (n = 0; n < 2000 && (usr1_count[1] != i + 1 || usr1_count[0] == before); n++)
			usleep(1000);
		stuck += n == 2000;
		twice += drain_stopped(fd) > 0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK(ran_sig + ran_safe == 0 && missing == 0 && stuck == 0,
	      "the child ran after its STOPPED record: %d of %d stopped at the SIGNAL report, %d of %d at a safe point; %d rounds without one; %d rounds where it did not run on after RESUME",
	      ran_sig, at_sig, ran_safe, rounds - at_sig, missing, stuck);
	printf("sigstop: %d rounds (%d stopped at the SIGNAL report, %d with a second record), the child stayed stopped after each STOPPED record and ran its handler once resumed\n",
	       rounds, at_sig, twice);
	return fails ? 1 : 0;
}

/*
 * A child counting its getppid()s in shared memory is stopped; SET_EVENTS
 * (entries -> exits) must not let it run; RESUME does, and only exits
 * come then.
 */
/* SIGNAL records of SIGUSR1 among the records ready on @fd now. */
static int usr1_records(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct utrace_record r;
	int n = 0;

	while (poll(&p, 1, 0) == 1) {
		next_record(fd, &r);
		n += r.h.type == UTRACE_REC_SIGNAL && r.signal.signo == SIGUSR1;
	}
	return n;
}

static int cmd_sigtwo(int rounds)
{
	int a = sess_open(), b = sess_open(), status, i, n, early = 0, late = 0;
	int in_a = 0, in_b = 0, missing = 0, at_sig = 0;
	long long ida, idb;
	long before;
	__u64 ev;
	pid_t pid;

	pid = usr1_child();
	ida = sess_attach(a, pid, 0, UTRACE_EV_SIGNAL);
	idb = sess_attach(b, pid, 0, UTRACE_EV_SIGNAL);
	CHECK(ida > 0 && idb > 0, "attach: %s", strerror(errno));
	for (i = 0; i < rounds && ida > 0 && idb > 0; i++) {
		long start = usr1_count[1];

		/*
		 * The STOP right after the signal: it may come while the child
		 * makes its signal report (as in sigstop), where a report that
		 * resumed would end the stop, and a report that held the signal
		 * would have it reported, and recorded, twice.
		 */
		kill(pid, SIGUSR1);
		CHECK(sess_control(a, ida, UTRACE_CTL_STOP, 0) == 0, "stop: %s", strerror(errno));
		if (!wait_stopped_rec(a, &ev)) {
			missing++;
			break;
		}
		at_sig += ev == UTRACE_EV_SIGNAL;
		/* Recorded before the stop, if the report came first. */
		in_a += stopped_rec_usr1;
		before = usr1_count[1];
		usleep(20000);
		early += usr1_count[1] != before;
		CHECK(sess_control(a, ida, UTRACE_CTL_RESUME, 0) == 0, "resume: %s",
		      strerror(errno));
		for (n = 0; n < 2000 && usr1_count[1] == start; n++)
			usleep(1000);
		late += usr1_count[1] != start + 1;
		usleep(5000);
		in_a += usr1_records(a);
		in_b += usr1_records(b);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK(!missing && !early && !late && in_a == rounds && in_b == rounds,
	      "%d rounds: handler ran while stopped %d times, not once after RESUME %d times; "
	      "SIGUSR1 records: %d in the stopping session, %d in the other; %d rounds without "
	      "a STOPPED record", rounds, early, late, in_a, in_b, missing);
	printf("sigtwo: %d rounds (%d stopped at the SIGNAL report): the handler ran once, never "
	       "while stopped; each session recorded each SIGUSR1 once\n", rounds, at_sig);
	return fails ? 1 : 0;
}

static int cmd_setevents(void)
{
	volatile long *count = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct utrace_control c = { .size = sizeof(c), .action = UTRACE_CTL_SET_EVENTS };
	struct utrace_config cfg = { .size = sizeof(cfg) };
	int fd = sess_open(), entries = 0, exits = 0, status;
	struct utrace_record r;
	long before, after;
	__u64 ev;
	long long id;
	pid_t pid;

	if (count == MAP_FAILED)
		die("mmap");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (;;) {
			syscall(SYS_getppid);
			(*count)++;
		}
	}
	/*
	 * Room for every record the busy child makes before its stop (a
	 * lossy session drops the STOPPED record too when full): the debug
	 * kernel may take milliseconds from the attach to the stop.
	 */
	cfg.buffer_bytes = 1 << 20;
	CHECK(ioctl(fd, UTRACE_IOC_CONFIG, &cfg) == 0, "config 1 MiB: %s", strerror(errno));
	id = sess_attach(fd, pid, 0, UTRACE_EV_SYSCALL_ENTRY);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	CHECK(sess_control(fd, id, UTRACE_CTL_STOP, 0) == 0, "stop: %s", strerror(errno));
	if (!wait_stopped_rec(fd, &ev)) {
		char cmd[96];

		printf("FAIL: no STOPPED record in 2 s after STOP (%llu records lost); the child:\n",
		       (unsigned long long)stopped_rec_lost);
		fflush(stdout);
		snprintf(cmd, sizeof(cmd), "grep State /proc/%d/status; cat /proc/%d/stack", pid, pid);
		fails += system(cmd) != 0;
		kill(pid, SIGKILL);
		return 1;
	}
	c.engine_id = id;
	c.events = UTRACE_EV_SYSCALL_EXIT;
	CHECK(ioctl(fd, UTRACE_IOC_CONTROL, &c) == 0, "SET_EVENTS: %s", strerror(errno));
	before = *count;
	usleep(300000);
	after = *count;
	CHECK(before == after, "SET_EVENTS let the stopped child run: %ld getppid()s meanwhile",
	      after - before);
	/* What was recorded before the new mask took effect is drained. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, &r, sizeof(r)) == sizeof(r))
		;
	CHECK(sess_control(fd, id, UTRACE_CTL_RESUME, 0) == 0, "resume: %s", strerror(errno));
	usleep(100000);
	CHECK(*count > after, "the child did not run after RESUME");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	while (read(fd, &r, sizeof(r)) == sizeof(r)) {
		entries += r.h.type == UTRACE_REC_SYSCALL_ENTRY;
		exits += r.h.type == UTRACE_REC_SYSCALL_EXIT;
	}
	CHECK(entries <= 1 && exits > 0, "after SET_EVENTS(exit) and RESUME: %d entries, %d exits",
	      entries, exits);
	printf("setevents: stopped through SET_EVENTS (%ld calls before), then %d exits\n", after,
	       exits);
	return fails ? 1 : 0;
}

/* ioctl @cmd with @arg must fail with @err. */
static void expect_err(int fd, unsigned long cmd, void *arg, int err, const char *what)
{
	int ret = ioctl(fd, cmd, arg);

	CHECK(ret < 0 && errno == err, "%s: got %d (%s), want %s", what, ret,
	      ret < 0 ? errname(errno) : "-", errname(err));
	if (ret < 0 && errno == err)
		printf("ok: %s: %s\n", what, errname(err));
}

/* --- utsess capture */
#define CAP_LONG 120

static void cap_child_calls(int rfd, int wfd, char *untouched)
{
	char path[64] = "/nonexistent/utsess-capture";
	char l1[CAP_LONG + 1], l2[CAP_LONG + 1], buf[64];
	const char *data = "0123456789abcdefghijklmnopqrstuvwxyzABCD"; /* 40 bytes */

	memset(l1, 'a', CAP_LONG);
	l1[0] = '/';
	l1[CAP_LONG] = 0;
	memset(l2, 'b', CAP_LONG);
	l2[0] = '/';
	l2[CAP_LONG] = 0;
	syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	syscall(SYS_openat, AT_FDCWD, untouched, O_RDONLY);
	syscall(SYS_write, wfd, data, 40);
	syscall(SYS_read, rfd, buf, sizeof(buf));
	syscall(SYS_rename, l1, l2);
	/* Changed after the call: the records show what was passed. */
	memset(path, 'X', sizeof(path) - 1);
}

static void cap_child_body(int rfd, int wfd, char *untouched)
{
	cap_child_calls(rfd, wfd, untouched);
	_exit(0);
}

static const struct utrace_capture_item cap_items[] = {
	{ .nr = SYS_openat, .abi = UTRACE_ABI_X86_64, .arg = 1, .kind = UTRACE_CAPTURE_STR,
	  .max = 128 },
	{ .nr = SYS_write, .abi = UTRACE_ABI_X86_64, .arg = 1, .kind = UTRACE_CAPTURE_MEM_ARG,
	  .len_arg = 2, .max = 32 },
	{ .nr = SYS_read, .abi = UTRACE_ABI_X86_64, .arg = 1, .kind = UTRACE_CAPTURE_MEM_RET,
	  .flags = UTRACE_CAPTURE_AT_EXIT, .max = 32 },
	{ .nr = SYS_rename, .abi = UTRACE_ABI_X86_64, .arg = 0, .kind = UTRACE_CAPTURE_STR,
	  .max = 128 },
	{ .nr = SYS_rename, .abi = UTRACE_ABI_X86_64, .arg = 1, .kind = UTRACE_CAPTURE_STR,
	  .max = 128 },
};

static int cap_set(int fd, __u32 flags, const struct utrace_capture_item *items, __u32 count)
{
	struct utrace_capture c = { .size = sizeof(c), .flags = flags, .count = count,
				    .items = (__u64)(unsigned long)items };

	return ioctl(fd, UTRACE_IOC_CAPTURE, &c) ? -errno : 0;
}

/* The bad lists: each its errno; the list set before stays. */
static void cap_bad(int fd)
{
	struct utrace_capture_item it[3] = { cap_items[0], cap_items[0], cap_items[0] };
	static struct utrace_capture_item many[UTRACE_CAPTURE_ITEMS_MAX + 1];
	struct utrace_capture c = { .size = sizeof(c), .count = 1,
				    .items = (__u64)(unsigned long)it };

	CHECK(cap_set(fd, 0, it, 3) == -EINVAL, "three items for openat: not EINVAL");
	it[1] = cap_items[0];
	it[1].kind = 9;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "kind 9: not EINVAL");
	it[1] = cap_items[2];
	it[1].flags = 0;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "MEM_RET at entry: not EINVAL");
	it[1] = cap_items[0];
	it[1].max = UTRACE_REC_CAPTURE_DATA + 1;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "max 137: not EINVAL");
	it[1].max = 0;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "max 0: not EINVAL");
	it[1] = cap_items[0];
	it[1].nr = UTRACE_CAPTURE_NR_MAX;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "nr 512: not EINVAL");
	it[1] = cap_items[0];
	it[1].arg = 6;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "arg 6: not EINVAL");
	it[1] = cap_items[0];
	it[1].abi = UTRACE_ABI_X32;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "x32: not EINVAL");
	it[1] = cap_items[0];
	it[1].reserved2 = 1;
	CHECK(cap_set(fd, 0, &it[1], 1) == -EINVAL, "reserved: not EINVAL");
	CHECK(cap_set(fd, 2, cap_items, 1) == -EINVAL, "flag 2: not EINVAL");
	for (int i = 0; i < UTRACE_CAPTURE_ITEMS_MAX + 1; i++)
		many[i] = cap_items[0];
	CHECK(cap_set(fd, 0, many, UTRACE_CAPTURE_ITEMS_MAX + 1) == -E2BIG, "1025 items: not E2BIG");
	CHECK(cap_set(fd, 0, (void *)8, 1) == -EFAULT, "bad pointer: not EFAULT");
	c.reserved = 1;
	expect_err(fd, UTRACE_IOC_CAPTURE, &c, EINVAL, "capture: reserved field");
}

/* The child's records checked; returns the decisions answered. */
static int cap_run(int fd, char *untouched, int decide)
{
	int p[2], gate, decided = 0, status, entries = 0, our_read = 0, reads = 0;
	struct utrace_record r;
	long long id;
	pid_t pid;

	if (pipe(p))
		die("pipe");
	pid = fork_gated(&gate, 3);
	if (pid == 0)
		cap_child_body(p[0], p[1], untouched);
	id = sess_attach(fd, pid, 0, UTRACE_EV_SYSCALL | UTRACE_EV_DEATH);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	for (;;) {
		struct utrace_rec_syscall_cap *sc = &r.syscall_cap;
		int want_decide = 0;

		next_record(fd, &r);
		if (r.h.type == UTRACE_REC_DEATH)
			break;
		if (r.h.type != UTRACE_REC_SYSCALL_ENTRY && r.h.type != UTRACE_REC_SYSCALL_EXIT)
			continue;
		if (r.h.type == UTRACE_REC_SYSCALL_ENTRY)
			entries++;
		switch (sc->call.nr) {
		case SYS_openat:
			if (r.h.type != UTRACE_REC_SYSCALL_ENTRY)
				break;
			CHECK(r.h.flags & UTRACE_REC_F_CAPTURE, "openat entry without captures");
			CHECK(sc->cap[0].arg == 1 && sc->cap[0].kind == UTRACE_CAPTURE_STR,
			      "openat capture: arg %u kind %u", sc->cap[0].arg, sc->cap[0].kind);
			CHECK(sc->cap[1].kind == 0, "openat: a second capture");
			if ((void *)(unsigned long)sc->call.args[1] == untouched) {
				CHECK(sc->cap[0].flags == UTRACE_CAP_F_FAULT && sc->cap[0].len == 0,
				      "untouched page: flags %#x len %u, want FAULT, 0",
				      sc->cap[0].flags, sc->cap[0].len);
				want_decide = decide;
			} else {
				CHECK(sc->cap[0].flags == UTRACE_CAP_F_END && sc->cap[0].len == 27 &&
				      !memcmp(sc->data + sc->cap[0].offset,
					      "/nonexistent/utsess-capture", 27),
				      "openat path: flags %#x len %u '%.*s'", sc->cap[0].flags,
				      sc->cap[0].len, sc->cap[0].len, sc->data + sc->cap[0].offset);
			}
			break;
		case SYS_write:
			if (r.h.type != UTRACE_REC_SYSCALL_ENTRY)
				break;
			CHECK(sc->cap[0].flags == 0 && sc->cap[0].len == 32 &&
			      !memcmp(sc->data, "0123456789abcdefghijklmnopqrstuv", 32),
			      "write: flags %#x len %u", sc->cap[0].flags, sc->cap[0].len);
			break;
		case SYS_read:
			if (r.h.type == UTRACE_REC_SYSCALL_ENTRY) {
				CHECK(!(r.h.flags & UTRACE_REC_F_CAPTURE),
				      "read entry with captures (its item is at exit)");
				/* Not the gate's read: the pipe's. */
				our_read = sc->call.args[0] == (__u64)p[0];
				break;
			}
			if (!our_read)
				break;
			our_read = 0;
			reads++;
			CHECK(sc->call.ret == 40, "read returned %lld", (long long)sc->call.ret);
			CHECK((r.h.flags & UTRACE_REC_F_CAPTURE) && sc->cap[0].kind ==
			      UTRACE_CAPTURE_MEM_RET && sc->cap[0].len == 32 &&
			      !memcmp(sc->data, "0123456789abcdefghijklmnopqrstuv", 32),
			      "read exit: flags %#x len %u", sc->cap[0].flags, sc->cap[0].len);
			break;
		case SYS_rename:
			if (r.h.type != UTRACE_REC_SYSCALL_ENTRY)
				break;
			CHECK(sc->cap[0].flags == UTRACE_CAP_F_END && sc->cap[0].len == CAP_LONG &&
			      sc->data[0] == '/' && sc->data[CAP_LONG - 1] == 'a',
			      "rename old: flags %#x len %u", sc->cap[0].flags, sc->cap[0].len);
			CHECK(sc->cap[1].arg == 1 && sc->cap[1].flags == UTRACE_CAP_F_CUT &&
			      sc->cap[1].offset == CAP_LONG &&
			      sc->cap[1].len == UTRACE_REC_CAPTURE_DATA - CAP_LONG &&
			      sc->data[CAP_LONG] == '/' && sc->data[CAP_LONG + 1] == 'b',
			      "rename new: arg %u flags %#x offset %u len %u", sc->cap[1].arg,
			      sc->cap[1].flags, sc->cap[1].offset, sc->cap[1].len);
			want_decide = decide;
			break;
		default:
			CHECK(!(r.h.flags & UTRACE_REC_F_CAPTURE), "syscall %d with captures",
			      sc->call.nr);
		}
		CHECK(!!(r.h.flags & UTRACE_REC_F_DECIDE) == want_decide,
		      "syscall %d %s: DECIDE %s", sc->call.nr,
		      r.h.type == UTRACE_REC_SYSCALL_ENTRY ? "entry" : "exit",
		      want_decide ? "missing" : "set");
		if (r.h.flags & UTRACE_REC_F_DECIDE) {
			struct utrace_decide d = { .size = sizeof(d), .verdict = UTRACE_VERDICT_RUN,
						   .engine_id = (__u64)id, .seq = r.h.seq };

			CHECK(!ioctl(fd, UTRACE_IOC_DECIDE, &d), "decide: %s", strerror(errno));
			decided++;
		}
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	CHECK(entries >= 5, "%d syscall entries", entries);
	CHECK(reads == 1, "%d exits of the pipe's read", reads);
	close(p[0]);
	close(p[1]);
	close(gate);
	return decided;
}

static int cmd_capture(void)
{
	int fd = sess_open();
	char *untouched = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

	if (untouched == MAP_FAILED)
		die("mmap");
	CHECK(!cap_set(fd, 0, cap_items, 5), "capture: %s", strerror(errno));
	cap_bad(fd);
	CHECK(cap_run(fd, untouched, 0) == 0, "decisions without CAPTURE_F_DECIDE");
	close(fd);
	/* A fresh page: the child's copy of the old one was faulted in. */
	munmap(untouched, 4096);
	untouched = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (untouched == MAP_FAILED)
		die("mmap");
	fd = sess_open();
	CHECK(!cap_set(fd, UTRACE_CAPTURE_F_DECIDE, cap_items, 5), "capture: %s", strerror(errno));
	CHECK(cap_run(fd, untouched, 1) == 2, "decisions with CAPTURE_F_DECIDE: not 2");
	close(fd);
	printf("capture: paths, write and read bytes as at the call; FAULT and CUT flagged, "
	       "and decided with CAPTURE_F_DECIDE\n");
	return fails ? 1 : 0;
}

/* --- utsess stopstate N */
/*
 * N rounds of STOP on a child spinning in user space, it and us on one CPU,
 * each after the child ran again. Once its STOPPED record is read, the
 * child runs no user code until RESUME: its counter stands while we sleep
 * 1 ms (and let it have the CPU), in every round. And the child sleeps in
 * its stop when the record is read: the record's wake-up must not run us
 * while it is still in the callback that wrote the record (a RESUME's
 * barrier would then wait for the callback: a second pair of switches per
 * round trip). That is a property of every round, not of each: a round
 * that finds it running ('R') but asleep again within 50 ms, its counter
 * standing, is told (the round, the record's event, its switch counts);
 * more than one in ten such rounds fails.
 */
/* @pid's context switch counts from /proc/PID/status, on one line. */
static const char *switches(pid_t pid, char *out, size_t len)
{
	char path[64], buf[4096], *p;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY);
	r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[r > 0 ? r : 0] = 0;
	p = strstr(buf, "voluntary_ctxt_switches");
	snprintf(out, len, "%s", p ? p : "switch counts unknown");
	for (p = out; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return out;
}

static int cmd_stopstate(int n)
{
	int fd = sess_open(), gate, running = 0, status;
	volatile unsigned long *spins = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cpu_set_t one;
	long long id;
	pid_t pid;

	if (spins == MAP_FAILED)
		die("mmap");
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		die("sched_setaffinity");
	pid = fork_gated(&gate, 3);
	if (pid == 0)
		for (;;)
			(*spins)++;
	id = sess_attach(fd, pid, UTRACE_ATTACH_F_THREAD, UTRACE_EV_DEATH);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	for (int i = 0; i < n && !fails; i++) {
		unsigned long at;
		char st, sw[160];
		__u64 ev;

		CHECK(!sess_control(fd, (__u64)id, UTRACE_CTL_STOP, 0), "round %d: STOP", i);
		CHECK(wait_stopped_rec(fd, &ev), "round %d: no STOPPED record", i);
		at = *spins;
		st = proc_state(pid);
		usleep(1000);
		CHECK(*spins == at,
		      "round %d: the child ran user code after its STOPPED record (event %#llx, state then %c)",
		      i, (unsigned long long)ev, st);
		if (st == 'R') {
			char again = proc_state(pid);
			int ms = 1;

			/* Asleep again once it had the CPU (ours, while we sleep). */
			for (; again == 'R' && ms < 50; ms++) {
				usleep(1000);
				again = proc_state(pid);
			}
			running++;
			printf("note: round %d: the child ran ('R') at its STOPPED record (event %#llx), '%c' %d ms later; its %s\n",
			       i, (unsigned long long)ev, again, ms, switches(pid, sw, sizeof(sw)));
			CHECK(again != 'R', "round %d: the child still runs 50 ms after its STOPPED record", i);
			CHECK(*spins == at, "round %d: the child ran user code after its STOPPED record", i);
		}
		CHECK(!sess_control(fd, (__u64)id, UTRACE_CTL_RESUME, 0), "round %d: RESUME", i);
		/*
		 * Until it spins in user space again: a STOP before it ran
		 * again would find it still in its stop (its record at once,
		 * the thread woken by the RESUME but not yet run).
		 */
		for (unsigned long seen = *spins, ms = 0; *spins == seen && !fails; ms++) {
			CHECK(ms < 5000, "round %d: the child did not run for 5 s after RESUME", i);
			usleep(1000);
		}
	}
	CHECK(running * 10 <= n, "%d of %d STOPPED records read while the child still ran", running, n);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(gate);
	close(fd);
	if (!fails)
		printf("stopstate: %d rounds, no user code run after a STOPPED record; the child asleep in its stop at %d of them\n",
		       n, n - running);
	return fails ? 1 : 0;
}

/* --- utsess compact */
#define CMP_MAX 4096
static struct utrace_record cmp_full[CMP_MAX];
static unsigned char cmp_buf[1 << 20];

/* A record's compact length as sessions.rst states it. */
static unsigned int compact_len(const struct utrace_record *r)
{
	size_t p, end = 0;

	switch (r->h.type) {
	case UTRACE_REC_LOST: p = sizeof(r->lost); break;
	case UTRACE_REC_ATTACHED: p = sizeof(r->attached); break;
	case UTRACE_REC_DETACHED: p = sizeof(r->detached); break;
	case UTRACE_REC_QUIESCE: p = sizeof(r->quiesce); break;
	case UTRACE_REC_CLONE: p = sizeof(r->clone); break;
	case UTRACE_REC_EXEC:
		p = offsetof(struct utrace_rec_exec, filename) + r->exec.filename_len + 1;
		break;
	case UTRACE_REC_EXIT: p = sizeof(r->exit); break;
	case UTRACE_REC_DEATH: p = sizeof(r->death); break;
	case UTRACE_REC_SIGNAL: p = sizeof(r->signal); break;
	case UTRACE_REC_SYSCALL_ENTRY:
	case UTRACE_REC_SYSCALL_EXIT:
		if (!(r->h.flags & UTRACE_REC_F_CAPTURE)) {
			p = sizeof(r->syscall);
			break;
		}
		for (int i = 0; i < UTRACE_REC_CAPTURES; i++) {
			size_t e = (size_t)r->syscall_cap.cap[i].offset + r->syscall_cap.cap[i].len;

			end = e > end ? e : end;
		}
		p = offsetof(struct utrace_rec_syscall_cap, data) + end;
		break;
	case UTRACE_REC_JCTL: p = sizeof(r->jctl); break;
	case UTRACE_REC_HANDOFF: p = sizeof(r->handoff); break;
	default: p = sizeof(r->pad);
	}
	p = (sizeof(r->h) + p + 7) & ~(size_t)7;
	return p < UTRACE_REC_SIZE ? (unsigned int)p : UTRACE_REC_SIZE;
}

static void cmp_usr1(int sig)
{
	(void)sig;
}

/*
 * Two sessions on one child, the second with compact records: the same
 * records in the same order, each compact one as long as its type says,
 * its bytes those of the whole one; read() packs them.
 */
/*
 * Ring slots are reused: a 16-record buffer, read while a child alternates
 * a syscall whose record carries a long captured path with one whose
 * record is short. Every whole record must still be zero past its compact
 * length (a slot is cleared only as far as its last record reached).
 */
static int compact_reuse(void)
{
	static const struct utrace_capture_item item = {
		.nr = SYS_openat, .abi = UTRACE_ABI_X86_64, .arg = 1,
		.kind = UTRACE_CAPTURE_STR, .max = 128 };
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 4096 };
	int fd = sess_open(), gate, status, dead = 0, reaped = 0, n = 0, longs = 0;
	struct utrace_record r;
	long long id;
	pid_t pid;

	CHECK(!ioctl(fd, UTRACE_IOC_CONFIG, &cfg), "config 4096: %s", strerror(errno));
	CHECK(!cap_set(fd, 0, &item, 1), "capture: %s", strerror(errno));
	pid = fork_gated(&gate, 3);
	if (pid == 0) {
		char path[128];

		memset(path, 'p', sizeof(path) - 1);
		path[0] = '/';
		path[sizeof(path) - 1] = 0;
		for (int i = 0; i < 3000; i++) {
			syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
			syscall(SYS_getppid);
		}
		_exit(0);
	}
	/* Lossless: every record goes through the ring, however slow the reader. */
	id = sess_attach(fd, pid, UTRACE_ATTACH_F_LOSSLESS, UTRACE_EV_SYSCALL | UTRACE_EV_DEATH);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	/*
	 * Non-blocking: the exiting thread's DEATH record may still be dropped
	 * from so small a ring; the read ends once the child is reaped and the
	 * ring empty.
	 */
	if (fcntl(fd, F_SETFL, O_NONBLOCK))
		die("O_NONBLOCK");
	while (!dead && !fails) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got = read(fd, &r, sizeof(r));
		unsigned int want;

		if (got < 0 && errno == EAGAIN) {
			if (reaped)
				break;
			reaped = waitpid(pid, &status, WNOHANG) == pid;
			poll(&pfd, 1, 10);
			continue;
		}
		if (got != (ssize_t)sizeof(r) || r.h.size != UTRACE_REC_SIZE)
			die("read record");
		want = compact_len(&r);
		for (unsigned int b = want; b < UTRACE_REC_SIZE; b++)
			CHECK(!((const unsigned char *)&r)[b],
			      "reused slot: record %d (type %u): byte %u past its compact length %u is not 0",
			      n, r.h.type, b, want);
		longs += want > 200;
		dead = r.h.type == UTRACE_REC_DEATH;
		n++;
	}
	if (!reaped)
		waitpid(pid, &status, 0);
	CHECK(longs > 16, "%d long records of %d", longs, n);
	printf("compact: %d records through a 16-record ring, %d of them long, zero past their length\n",
	       n, longs);
	close(gate);
	close(fd);
	return fails;
}

static int cmd_compact(void)
{
	int full = sess_open(), comp = sess_open(), p[2], gate, status, n, m = 0;
	struct utrace_config cfg = { .size = sizeof(cfg), .flags = UTRACE_CONFIG_F_COMPACT,
				     .buffer_bytes = 1 << 20 };
	__u64 ev = UTRACE_EV_SYSCALL | UTRACE_EV_SIGNAL_ALL | UTRACE_EV_EXEC | UTRACE_EV_EXIT |
		   UTRACE_EV_DEATH;
	char *untouched = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
	long long id;
	size_t packed = 0;
	__u64 seq = 0;
	ssize_t got;
	pid_t pid;

	if (untouched == MAP_FAILED)
		die("mmap");
	cfg.flags = 1U << 1;
	expect_err(comp, UTRACE_IOC_CONFIG, &cfg, EINVAL, "config: unknown flag");
	cfg.flags = UTRACE_CONFIG_F_COMPACT;
	CHECK(!ioctl(comp, UTRACE_IOC_CONFIG, &cfg), "config compact: %s", strerror(errno));
	cfg.flags = 0;
	CHECK(!ioctl(full, UTRACE_IOC_CONFIG, &cfg), "config: %s", strerror(errno));
	CHECK(!cap_set(full, 0, cap_items, 5) && !cap_set(comp, 0, cap_items, 5),
	      "capture: %s", strerror(errno));
	if (pipe(p))
		die("pipe");
	pid = fork_gated(&gate, 3);
	if (pid == 0) {
		signal(SIGUSR1, cmp_usr1);
		raise(SIGUSR1);
		cap_child_calls(p[0], p[1], untouched);
		execl("/proc/self/exe", "utsess", (char *)NULL);
		_exit(9);
	}
	id = sess_attach(full, pid, 0, ev);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	id = sess_attach(comp, pid, 0, ev);
	CHECK(id > 0, "attach compact: %s", strerror((int)-id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2, "child status %#x", status);
	n = read_to_death(full, cmp_full, CMP_MAX);
	CHECK(cmp_full[n - 1].h.type == UTRACE_REC_DEATH, "no DEATH record in %d", n);
	/* A buffer one byte short of a whole record: EINVAL, compact or not. */
	CHECK(read(comp, cmp_buf, UTRACE_REC_SIZE - 1) < 0 && errno == EINVAL,
	      "read of %d bytes: not EINVAL", UTRACE_REC_SIZE - 1);
	/* One record's room: as many compact records as fit. */
	got = read(comp, cmp_buf, UTRACE_REC_SIZE);
	CHECK(got > 0, "read: %s", strerror(errno));
	while (got > 0 && (size_t)got < sizeof(cmp_buf) - packed) {
		size_t at = packed;

		packed += (size_t)got;
		while (at < packed) {
			const struct utrace_record *r = (const void *)(cmp_buf + at);

			if (r->h.size < sizeof(r->h) || r->h.size % 8 || at + r->h.size > packed)
				die("bad compact record");
			at += r->h.size;
			if (r->h.type == UTRACE_REC_DEATH)
				got = 0;
		}
		if (got)
			got = read(comp, cmp_buf + packed, sizeof(cmp_buf) - packed);
	}
	for (size_t at = 0; at < packed && m < n; m++) {
		const struct utrace_record *c = (const void *)(cmp_buf + at), *f = &cmp_full[m];
		unsigned int want = compact_len(f);

		CHECK(c->h.type == f->h.type && c->h.flags == f->h.flags && c->h.pid == f->h.pid &&
		      c->h.tid == f->h.tid, "record %d: type %u/%u flags %#x/%#x", m, c->h.type,
		      f->h.type, c->h.flags, f->h.flags);
		CHECK(c->h.size == want, "record %d (type %u): size %u, want %u", m, c->h.type,
		      c->h.size, want);
		for (unsigned int b = want; b < UTRACE_REC_SIZE; b++)
			CHECK(!((const unsigned char *)f)[b],
			      "record %d (type %u): byte %u past its compact length is not 0", m,
			      f->h.type, b);
		CHECK(!memcmp((const char *)c + sizeof(c->h), (const char *)f + sizeof(f->h),
			      c->h.size - sizeof(c->h)),
		      "record %d (type %u): payload differs", m, c->h.type);
		CHECK(m == 0 || c->h.seq == seq + 1, "record %d: seq %llu after %llu", m,
		      (unsigned long long)c->h.seq, (unsigned long long)seq);
		seq = c->h.seq;
		if (fails)
			break;
		at += c->h.size;
	}
	CHECK(m == n, "%d compact records, %d whole ones", m, n);
	printf("compact: %d records, %zu bytes compact, %zu whole\n", n, packed,
	       (size_t)n * UTRACE_REC_SIZE);
	compact_reuse();
	close(p[0]);
	close(p[1]);
	close(gate);
	close(full);
	close(comp);
	return fails ? 1 : 0;
}

/*
 * --- utsess syscalls: UTRACE_IOC_SYSCALLS. One child, two sessions: one
 * records every syscall, the other a filter (getpid at entry, getppid at
 * exit, openat at both, gettid at neither). The filtered session's syscall
 * records must be exactly the first's that the filter keeps, in order, and
 * every exit record must carry its entry's arguments. Bad filters are
 * refused and change nothing.
 */
#define SYS_MAX 256
static struct utrace_record sys_all[SYS_MAX], sys_filt[SYS_MAX];

static void filter_set(struct utrace_syscalls *f, int entry, int nr)
{
	__u64 *w = entry ? f->entry : f->exit;

	w[nr / 64] |= 1ULL << (nr % 64);
}

static int filter_has(const struct utrace_syscalls *f, int entry, int nr)
{
	const __u64 *w = entry ? f->entry : f->exit;

	if (nr < 0 || nr >= UTRACE_CAPTURE_NR_MAX)
		return 1;
	return !!(w[nr / 64] & (1ULL << (nr % 64)));
}

static int cmd_syscalls(void)
{
	int all = sess_open(), filt = sess_open(), gate, status, n, m, k = 0, ppid_exits = 0;
	int pairs = 0;
	struct utrace_syscalls f = { .size = sizeof(f) }, bad;
	__u64 ev = UTRACE_EV_SYSCALL | UTRACE_EV_DEATH;
	long long id;
	pid_t pid;

	filter_set(&f, 1, SYS_getpid);
	filter_set(&f, 0, SYS_getppid);
	filter_set(&f, 1, SYS_openat);
	filter_set(&f, 0, SYS_openat);
	CHECK(!ioctl(filt, UTRACE_IOC_SYSCALLS, &f), "syscalls: %s", strerror(errno));
	bad = f;
	bad.flags = 1U << 1;
	expect_err(filt, UTRACE_IOC_SYSCALLS, &bad, EINVAL, "syscalls: unknown flag");
	bad.flags = UTRACE_SYSCALLS_F_ALL;
	bad.reserved = 1;
	expect_err(filt, UTRACE_IOC_SYSCALLS, &bad, EINVAL, "syscalls: reserved field set");
	bad.reserved = 0;
	bad.size = 8;
	expect_err(filt, UTRACE_IOC_SYSCALLS, &bad, EINVAL, "syscalls: size 8");
	expect_err(filt, UTRACE_IOC_SYSCALLS, NULL, EFAULT, "syscalls: NULL");
	pid = fork_gated(&gate, 3);
	if (pid == 0) {
		for (int i = 0; i < 3; i++) {
			syscall(SYS_getpid);
			syscall(SYS_getppid);
			syscall(SYS_openat, AT_FDCWD, "/nonexistent/utsess-filter", O_RDONLY);
			syscall(SYS_gettid);
		}
		_exit(0);
	}
	id = sess_attach(all, pid, 0, ev);
	CHECK(id > 0, "attach: %s", strerror((int)-id));
	id = sess_attach(filt, pid, 0, ev);
	CHECK(id > 0, "attach filtered: %s", strerror((int)-id));
	if (write(gate, "g", 1) != 1)
		die("gate");
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	n = read_to_death(all, sys_all, SYS_MAX);
	m = read_to_death(filt, sys_filt, SYS_MAX);
	CHECK(sys_all[n - 1].h.type == UTRACE_REC_DEATH && sys_filt[m - 1].h.type == UTRACE_REC_DEATH,
	      "no DEATH record in %d and %d", n, m);
	for (int i = 0; i < n && !fails; i++) {
		const struct utrace_record *r = &sys_all[i];
		int entry = r->h.type == UTRACE_REC_SYSCALL_ENTRY, nr = r->syscall.nr;

		if (r->h.type != UTRACE_REC_SYSCALL_ENTRY && r->h.type != UTRACE_REC_SYSCALL_EXIT)
			continue;
		/* An exit right after its entry (not the gate's read, entered before the attach). */
		if (!entry && i && sys_all[i - 1].h.type == UTRACE_REC_SYSCALL_ENTRY &&
		    sys_all[i - 1].syscall.nr == nr) {
			CHECK(!memcmp(sys_all[i - 1].syscall.args, r->syscall.args,
				      sizeof(r->syscall.args)),
			      "record %d: the exit of %d has not its entry's arguments", i, nr);
			pairs++;
		}
		if (!filter_has(&f, entry, nr))
			continue;
		while (k < m && sys_filt[k].h.type != UTRACE_REC_SYSCALL_ENTRY &&
		       sys_filt[k].h.type != UTRACE_REC_SYSCALL_EXIT)
			k++;
		CHECK(k < m, "filtered session ends before record %d (%s of %d)", i,
		      entry ? "entry" : "exit", nr);
		if (fails)
			break;
		CHECK(sys_filt[k].h.type == r->h.type && sys_filt[k].syscall.nr == nr &&
		      sys_filt[k].syscall.ret == r->syscall.ret &&
		      !memcmp(sys_filt[k].syscall.args, r->syscall.args, sizeof(r->syscall.args)),
		      "filtered record %d: type %u nr %d, want type %u nr %d", k,
		      sys_filt[k].h.type, sys_filt[k].syscall.nr, r->h.type, nr);
		ppid_exits += nr == SYS_getppid;
		k++;
	}
	while (k < m && sys_filt[k].h.type != UTRACE_REC_SYSCALL_ENTRY &&
	       sys_filt[k].h.type != UTRACE_REC_SYSCALL_EXIT)
		k++;
	CHECK(k == m, "filtered session has %d records more (type %u nr %d)", m - k,
	      k < m ? sys_filt[k].h.type : 0, k < m ? sys_filt[k].syscall.nr : 0);
	CHECK(ppid_exits == 3, "%d getppid exits, want 3", ppid_exits);
	CHECK(pairs >= 12, "%d exits after their entries, want 12 or more", pairs);
	printf("syscalls: %d records unfiltered, %d filtered\n", n, m);
	close(gate);
	close(all);
	close(filt);
	return fails ? 1 : 0;
}

static int cmd_bad(void)
{
	int fd = sess_open(), gate;
	struct utrace_attach a = { .size = sizeof(a), .pid = getpid(),
				   .events = UTRACE_EV_EXIT };
	struct {
		struct utrace_attach a;
		__u64 tail;
	} big = { .a = a, .tail = 1 };
	struct utrace_detach d = { .size = sizeof(d), .engine_id = 999 };
	struct utrace_control c = { .size = sizeof(c), .action = 99, .engine_id = 1 };
	struct utrace_config cfg = { .size = sizeof(cfg), .buffer_bytes = 100 };
	struct utrace_info info = { .size = sizeof(info) };
	struct utrace_decide dec = { .size = sizeof(dec) };
	char small[16];
	pid_t child;
	long long id;

	CHECK(ioctl(fd, UTRACE_IOC_INFO, &info) == 0, "info: %s", strerror(errno));
	CHECK(info.version == UTRACE_UAPI_VERSION && info.record_size == UTRACE_REC_SIZE,
	      "info version %u record %u", info.version, info.record_size);
	a.size = 8;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, EINVAL, "attach size 8");
	a.size = 1 << 20;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, EINVAL, "attach size 1 MiB");
	big.a.size = sizeof(big);
	expect_err(fd, UTRACE_IOC_ATTACH, &big, E2BIG, "attach longer struct, non-zero tail");
	a.size = sizeof(a);
	a.flags = 1U << 31;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, EINVAL, "attach unknown flag");
	a.flags = 0;
	a.events = 1ULL << 40;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, EINVAL, "attach unknown event");
	a.events = UTRACE_EV_EXIT;
	a.reserved[1] = 1;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, EINVAL, "attach reserved field set");
	a.reserved[1] = 0;
	a.pid = 0;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, ESRCH, "attach pid 0");
	a.pid = 99999;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, ESRCH, "attach pid 99999");
	a.pid = 0;
	a.flags = UTRACE_ATTACH_F_PIDFD;
	a.pidfd = 0;
	expect_err(fd, UTRACE_IOC_ATTACH, &a, EBADF, "attach pidfd 0 (not a pidfd)");
	a.flags = 0;
	a.pidfd = 0;
	a.pid = 2;
	if (getuid() != 0)
		expect_err(fd, UTRACE_IOC_ATTACH, &a, EPERM, "attach kthreadd as a user");
	else
		expect_err(fd, UTRACE_IOC_ATTACH, &a, EPERM, "attach kthreadd as root");
	a.pid = 0;
	a.flags = UTRACE_ATTACH_F_GLOBAL;
	a.events = UTRACE_EV_EXEC;
	if (getuid() != 0)
		expect_err(fd, UTRACE_IOC_ATTACH, &a, EPERM, "global attach as a user");
	a.flags = UTRACE_ATTACH_F_GLOBAL;
	a.events = UTRACE_EV_SYSCALL_ENTRY;
	if (getuid() == 0)
		expect_err(fd, UTRACE_IOC_ATTACH, &a, EINVAL, "global attach with syscall events");
	expect_err(fd, UTRACE_IOC_ATTACH, (void *)16, EFAULT, "attach bad pointer");
	expect_err(fd, UTRACE_IOC_ATTACH, NULL, EFAULT, "attach NULL");
	expect_err(fd, UTRACE_IOC_DETACH, &d, ENOENT, "detach unknown engine");
	d.flags = 4;
	expect_err(fd, UTRACE_IOC_DETACH, &d, EINVAL, "detach unknown flag");
	expect_err(fd, UTRACE_IOC_CONTROL, &c, EINVAL, "control unknown action");
	c.action = UTRACE_CTL_STOP;
	expect_err(fd, UTRACE_IOC_CONTROL, &c, ENOENT, "control unknown engine");
	c.tid = -5;
	expect_err(fd, UTRACE_IOC_CONTROL, &c, EINVAL, "control negative tid");
	expect_err(fd, UTRACE_IOC_CONFIG, &cfg, EINVAL, "config 100 bytes");
	cfg.buffer_bytes = 1ULL << 40;
	expect_err(fd, UTRACE_IOC_CONFIG, &cfg, EINVAL, "config 1 TiB");
	expect_err(fd, UTRACE_IOC_DECIDE, &dec, EINVAL, "decide without a verdict");
	dec.verdict = UTRACE_VERDICT_RUN;
	dec.seq = 1;
	expect_err(fd, UTRACE_IOC_DECIDE, &dec, ESTALE, "decide a record that waits for none");
	expect_err(fd, _IOW(UTRACE_IOC_MAGIC, 0x7f, int), &a, ENOTTY, "unknown ioctl number");
	expect_err(fd, _IOW('x', 0x02, struct utrace_attach), &a, ENOTTY, "other ioctl type");
	CHECK(read(fd, small, sizeof(small)) < 0 && errno == EINVAL, "read 16 bytes: %s",
	      strerror(errno));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	CHECK(read(fd, &info, 0) < 0 && errno == EINVAL, "read 0 bytes");
	{
		struct utrace_record r;

		CHECK(read(fd, &r, sizeof(r)) < 0 && errno == EAGAIN, "empty read: %s",
		      strerror(errno));
		void *volatile bad = (void *)16;

		CHECK(read(fd, bad, sizeof(r)) < 0, "read to a bad pointer");
	}
	/* Two engines of one session on one thread: EEXIST. */
	child = gated_child(0, &gate);
	id = sess_attach(fd, child, 0, UTRACE_EV_EXIT);
	CHECK(id > 0, "attach child: %s", strerror((int)-id));
	CHECK(sess_attach(fd, child, 0, UTRACE_EV_EXIT) == -EEXIST, "second attach not EEXIST");
	cfg.buffer_bytes = 8192;
	expect_err(fd, UTRACE_IOC_CONFIG, &cfg, EBUSY, "config after attach");
	c = (struct utrace_control){ .size = sizeof(c), .action = UTRACE_CTL_RESUME,
				     .engine_id = id, .tid = 99999 };
	expect_err(fd, UTRACE_IOC_CONTROL, &c, ESRCH, "control a tid the engine lacks");
	close(gate);
	waitpid(child, NULL, 0);
	printf("bad: %s\n", fails ? "some checks failed" : "every bad input refused");
	return fails ? 1 : 0;
}

static __u64 rnd_state;
static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int cmd_fuzz(long n, __u64 seed)
{
	static const int pids[] = { 0, -1, 1, 2, 99999, 0x7fffffff, (int)0x80000000 };
	unsigned char buf[512];
	int fd = sess_open(), ok = 0, errs = 0;

	rnd_state = seed | 1;
	for (long i = 0; i < n; i++) {
		unsigned int nr = rnd() % 12, dir = rnd() % 4, size = rnd() % 300;
		unsigned long cmd;
		void *arg = buf;
		int ret;

		for (size_t j = 0; j < sizeof(buf); j++)
			buf[j] = rnd() % 3 ? 0 : rnd();
		/* A plausible size field most of the time. */
		if (rnd() % 4)
			*(__u32 *)buf = rnd() % 2 ? size : 48;
		/* Attaches only to pids that are not ours (no self-stop). */
		if (nr == 2) {
			((struct utrace_attach *)buf)->pid = pids[rnd() % 7];
			((struct utrace_attach *)buf)->flags &= ~UTRACE_ATTACH_F_PIDFD;
		}
		switch (rnd() % 8) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)(rnd() & 0xffffffffffffULL);
			break;
		case 2:
			arg = buf + sizeof(buf) - 4;
			break;
		}
		cmd = _IOC(dir, rnd() % 16 ? UTRACE_IOC_MAGIC : rnd() % 256, nr, size);
		ret = ioctl(fd, cmd, arg);
		if (ret == 0) {
			ok++;
		} else if (errno == EINVAL || errno == EFAULT || errno == E2BIG ||
			   errno == ENOTTY || errno == ESRCH || errno == ENOENT ||
			   errno == EPERM || errno == EOPNOTSUPP || errno == EBUSY ||
			   errno == EEXIST || errno == ENOSPC || errno == ESTALE) {
			errs++;
		} else {
			printf("FAIL: ioctl %#lx: unexpected %s\n", cmd, errname(errno));
			fails++;
		}
		/* A successful attach or config is undone by a new session. */
		if (ret == 0 && (i % 64) == 0) {
			close(fd);
			fd = sess_open();
		}
	}
	printf("fuzz: %ld calls, %d succeeded, %d refused with an expected errno\n", n, ok,
	       errs);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "child"))
		return cmd_child(0);
	if (!strcmp(argv[1], "pidfd"))
		return cmd_child(1);
	if (!strcmp(argv[1], "follow"))
		return cmd_follow();
	if (!strcmp(argv[1], "threxec"))
		return cmd_threxec();
	if (!strcmp(argv[1], "threads"))
		return cmd_threads();
	if (!strcmp(argv[1], "open") && argc > 2)
		return cmd_open(atoi(argv[2]));
	if (!strcmp(argv[1], "budget") && argc > 2)
		return cmd_budget(strtoull(argv[2], NULL, 0));
	if (!strcmp(argv[1], "big") && argc > 2)
		return cmd_big(atoi(argv[2]));
	if (!strcmp(argv[1], "self"))
		return cmd_self();
	if (!strcmp(argv[1], "attach") && argc > 2)
		return cmd_attach(atoi(argv[2]));
	if (!strcmp(argv[1], "execrace") && argc > 2)
		return cmd_execrace(atoi(argv[2]));
	if (!strcmp(argv[1], "reexec"))
		for (;;)
			execl("/proc/self/exe", "utsess", "reexec", (char *)NULL);
	if (!strcmp(argv[1], "exiting") && argc > 2)
		return cmd_exiting(atoi(argv[2]));
	if (!strcmp(argv[1], "two") && argc > 2)
		return cmd_two(atoi(argv[2]));
	if (!strcmp(argv[1], "hold") && argc > 2)
		return cmd_hold(atoi(argv[2]));
	if (!strcmp(argv[1], "lost"))
		return cmd_lost();
	if (!strcmp(argv[1], "suid") && argc > 2)
		return cmd_suid(argv[2]);
	if (!strcmp(argv[1], "euid")) {
		printf("euid %d\n", geteuid());
		return 0;
	}
	if (!strcmp(argv[1], "nodump")) {
		if (prctl(PR_SET_DUMPABLE, 0))
			die("PR_SET_DUMPABLE");
		printf("ready\n");
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "lossless"))
		return cmd_lossless();
	if (!strcmp(argv[1], "sigstop") && argc > 2)
		return cmd_sigstop(atoi(argv[2]));
	if (!strcmp(argv[1], "sigtwo") && argc > 2)
		return cmd_sigtwo(atoi(argv[2]));
	if (!strcmp(argv[1], "setevents"))
		return cmd_setevents();
	if (!strcmp(argv[1], "capture"))
		return cmd_capture();
	if (!strcmp(argv[1], "stopstate") && argc > 2)
		return cmd_stopstate(atoi(argv[2]));
	if (!strcmp(argv[1], "compact"))
		return cmd_compact();
	if (!strcmp(argv[1], "syscalls"))
		return cmd_syscalls();
	if (!strcmp(argv[1], "bad"))
		return cmd_bad();
	if (!strcmp(argv[1], "fuzz") && argc > 3)
		return cmd_fuzz(atol(argv[2]), strtoull(argv[3], NULL, 0));
	return 2;
}
