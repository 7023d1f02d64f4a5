// SPDX-License-Identifier: GPL-2.0
/*
 * utfuzz: random ioctls on /dev/utrace sessions (tests/57-session-fuzz.sh).
 *
 *   utfuzz N SEED   N ioctls, seeded (the seed is printed first): random
 *                   command numbers (the device's and others), sizes,
 *                   flags, events, note types, lengths; argument and buffer
 *                   pointers valid, NULL, kernel, unmapped, misaligned,
 *                   read-only or straddling an unmapped page; engine ids
 *                   live, stale (detached) and made up; tids and pids of
 *                   its own children (which it attaches to, stops, asks to step
 *                   and whose registers it reads and changes), of nobody,
 *                   of init (attached, never stopped). Sessions are closed
 *                   and reopened, children killed and respawned, as it
 *                   goes. Every call must return 0 or one of the errnos
 *                   sessions.rst documents: anything else is a FAIL.
 *
 * Never stops itself or init: an attach names a child of its own, or a pid
 * that is not one (refused). Prints a summary line of the errnos seen.
 */
#include <elf.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <utrace_rs.h>
#include "progs.h"

#define NCHILD 3
#define NSESS 2
#define NIDS 32

static __u64 rnd_state;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static __u64 pick(const __u64 *v, size_t n)
{
	return v[rnd() % n];
}

static pid_t children[NCHILD];
static int pidfds[NCHILD];
static int sess[NSESS];
static __u64 ids[NSESS][NIDS];	/* engine ids seen per session: live or stale */
static int nids[NSESS];
static int cur;			/* the session of the call being made */
/* The call under way, for the report of a hang. */
static volatile long at_call = -1;
static volatile unsigned long at_cmd;
static const char *volatile at_what = "setting up";
static long ok_by_nr[11];
static long prepared_ok;	/* well-formed calls of prepare() that succeeded */
static double ms_by_nr[12];	/* time in each command (11: the others) */
/* (engine id, pid) of the prepared attaches, per session. */
static __u64 pair_id[NSESS][NIDS];
static pid_t pair_pid[NSESS][NIDS];
static int npairs[NSESS];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Sets *id and *tid to a prepared pair of the current session, half the time. */
static void some_pair(__u64 *id, __s32 *tid)
{
	int k;

	if (!npairs[cur] || rnd() % 2)
		return;
	k = rnd() % npairs[cur];
	*id = pair_id[cur][k];
	*tid = rnd() % 4 ? pair_pid[cur][k] : 0;
}

/* Memory the pointers point into. */
static unsigned char *rw;	/* 2 pages read-write, then one unmapped */
static unsigned char *ro;	/* a read-only page */
static unsigned char *gone;	/* an unmapped page */

static pid_t spawn(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* Short sleeps: a STOP is reached within a few milliseconds. */
		struct timespec ts = { 0, 5000000 };

		/*
		 * Killed with the fuzzer: a child left behind would keep the
		 * test's output pipe (and the sessions it inherited) open.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			nanosleep(&ts, NULL);
	}
	return pid;
}

static void respawn(int i)
{
	if (children[i] > 0) {
		at_what = "waitpid() after SIGKILL";
		kill(children[i], SIGKILL);
		waitpid(children[i], NULL, 0);
		close(pidfds[i]);
	}
	children[i] = spawn();
	pidfds[i] = syscall(SYS_pidfd_open, children[i], 0);
	if (pidfds[i] < 0)
		die("pidfd_open");
}

/* Reaps children that died (a SETREGS made them crash) and replaces them. */
static void reap(void)
{
	for (int i = 0; i < NCHILD; i++)
		if (waitpid(children[i], NULL, WNOHANG) == children[i]) {
			close(pidfds[i]);
			children[i] = 0;
			respawn(i);
		}
}

/*
 * SIGALRM: no end within the time given. Says where the fuzzer was and
 * what state its children are in (a call that never returns shows up in
 * the runner's task dump instead: this handler does not run then), and
 * exits, killing them.
 */
static void on_alarm(int sig)
{
	char buf[256], path[64];
	int n, fd;

	(void)sig;
	n = snprintf(buf, sizeof(buf), "FAIL: utfuzz made no end in time: at call %ld (%s), ioctl %#lx\n",
		     at_call, at_what, at_cmd);
	write(1, buf, n);
	for (int i = 0; i < NCHILD; i++) {
		if (children[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", children[i]);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? 0 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			write(1, "child: ", 7);
			write(1, buf, n);
			write(1, "\n", 1);
		}
		kill(children[i], SIGKILL);
	}
	_exit(3);
}

static int sess_open(void)
{
	int fd = open(UTRACE_DEV_PATH, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		die(UTRACE_DEV_PATH);
	return fd;
}

static __u64 engine_id(void)
{
	switch (rnd() % 8) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return rnd() % 64;
	case 3:
		/* Another session's. */
		return nids[!cur] ? ids[!cur][rnd() % nids[!cur]] : 1;
	default:
		return nids[cur] ? ids[cur][rnd() % nids[cur]] : 1;
	}
}

static __s32 some_pid(void)
{
	static const __u64 odd[] = { 0, (__u64)-1, 2, 99999, 0x7fffffff, 0x80000000 };

	if (rnd() % 4 == 0)
		return (__s32)pick(odd, sizeof(odd) / sizeof(odd[0]));
	return children[rnd() % NCHILD];
}

static __s32 some_tid(void)
{
	return rnd() % 3 == 0 ? 0 : some_pid();
}

/* A user pointer of every kind. */
static __u64 some_ptr(size_t want)
{
	switch (rnd() % 10) {
	case 0:
		return 0;
	case 1:
		return 0xffffffff81000000ULL + (rnd() % 4096);
	case 2:
		return 0xffff888000000000ULL;
	case 3:
		return (__u64)(unsigned long)gone + rnd() % 4096;
	case 4:
		return (__u64)(unsigned long)ro;
	case 5:
		/* Straddles the end of the mapping. */
		return (__u64)(unsigned long)(rw + 2 * 4096 - (want && want < 8192 ? want / 2 : 8));
	case 6:
		return (__u64)(unsigned long)(rw + 1 + rnd() % 7);
	case 7:
		return rnd() & 0x7fffffffffffULL;
	default:
		return (__u64)(unsigned long)rw;
	}
}

static __u64 some_len(void)
{
	static const __u64 lens[] = { 0, 1, 8, 216, 512, 1024, 4096, 8192, 1 << 20,
				      (__u64)-1, 0x100000000ULL };

	return rnd() % 4 ? pick(lens, sizeof(lens) / sizeof(lens[0])) : rnd();
}

static __u32 some_flags(void)
{
	switch (rnd() % 4) {
	case 0:
		return 1U << (rnd() % 32);
	case 1:
		return rnd();
	default:
		return 0;
	}
}

static __u64 some_events(void)
{
	return rnd() % 4 ? rnd() & ((1 << 14) - 1) : rnd();
}

/* The VER0 size of each command's struct, by _IOC_NR. */
static __u32 ver0(unsigned int nr)
{
	static const __u32 sizes[] = {
		UTRACE_INFO_SIZE_VER0,	  UTRACE_CONFIG_SIZE_VER0,  UTRACE_ATTACH_SIZE_VER0,
		UTRACE_DETACH_SIZE_VER0,  UTRACE_CONTROL_SIZE_VER0, UTRACE_DECIDE_SIZE_VER0,
		UTRACE_REGS_SIZE_VER0,	  UTRACE_REGS_SIZE_VER0,    UTRACE_HANDOFF_SIZE_VER0,
		UTRACE_CAPTURE_SIZE_VER0, UTRACE_SYSCALLS_SIZE_VER0,
	};

	return nr < sizeof(sizes) / sizeof(sizes[0]) ? sizes[nr] : 48;
}

/* The errnos sessions.rst documents for ioctls. */
static const int allowed[] = { EINVAL, EFAULT, E2BIG, ENOTTY, ESRCH, ENOENT, EPERM, EOPNOTSUPP,
			       EBUSY, EEXIST, ENOSPC, EAGAIN, EIO, EBADF, ESTALE };
static const char *const names[] = { "EINVAL", "EFAULT", "E2BIG", "ENOTTY", "ESRCH", "ENOENT",
				     "EPERM", "EOPNOTSUPP", "EBUSY", "EEXIST", "ENOSPC", "EAGAIN",
				     "EIO", "EBADF", "ESTALE" };
static long counts[sizeof(allowed) / sizeof(allowed[0])];

static int allowed_index(int e)
{
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (allowed[i] == e)
			return i;
	return -1;
}

static long fails;

/* ioctl() that must return 0 or a documented errno: 0 or -1. */
static int checked(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg), e = errno;

	if (ret != 0 && !(ret == -1 && allowed_index(e) >= 0)) {
		printf("FAIL: well-formed ioctl(%#lx) = %d, errno %d (%s)\n", cmd, ret, e,
		       strerror(e));
		fails++;
	}
	return ret;
}

/*
 * Fills @arg (4096 bytes at most used) as command @nr's struct: mostly
 * plausible values, every field sometimes wrong.
 */
static void fill(unsigned char *arg, unsigned int nr)
{
	__u32 size;

	memset(arg, 0, 512);
	if (rnd() % 8 == 0)
		for (int j = 0; j < 512; j++)
			arg[j] = rnd() % 3 ? 0 : rnd();
	switch (rnd() % 8) {
	case 0:
		size = rnd() % 5000;
		break;
	case 1:
		size = ver0(nr) + 8 * (rnd() % 4);
		break;
	default:
		size = ver0(nr);
	}
	switch (nr) {
	case 1: {
		struct utrace_config *c = (void *)arg;

		c->buffer_bytes = rnd() % 2 ? 4096ULL << (rnd() % 12) : rnd();
		c->flags = rnd() % 4 ? 0 : some_flags();
		break;
	}
	case 2: {
		struct utrace_attach *a = (void *)arg;

		a->flags = rnd() % 2 ? 0 : some_flags();
		a->events = some_events();
		if (a->flags & UTRACE_ATTACH_F_PIDFD) {
			a->pidfd = rnd() % 4 ? pidfds[rnd() % NCHILD] : (int)(rnd() % 64);
		} else {
			a->pid = some_pid();
			/* init: EPERM for a user (root is kept off it). */
			if (getuid() != 0 && rnd() % 32 == 0)
				a->pid = 1;
		}
		if (rnd() % 8 == 0)
			a->engine_id = rnd();
		break;
	}
	case 3: {
		struct utrace_detach *d = (void *)arg;

		d->engine_id = engine_id();
		d->flags = rnd() % 4 ? 0 : some_flags();
		break;
	}
	case 4: {
		struct utrace_control *c = (void *)arg;

		c->action = rnd() % 8 ? 1 + rnd() % 5 : rnd();
		c->engine_id = engine_id();
		c->tid = some_tid();
		c->flags = rnd() % 4 ? 0 : some_flags();
		if (c->action == UTRACE_CTL_SET_EVENTS || rnd() % 8 == 0)
			c->events = some_events();
		some_pair(&c->engine_id, &c->tid);
		break;
	}
	case 5: {
		struct utrace_decide *d = (void *)arg;

		d->verdict = rnd() % 8;
		d->engine_id = engine_id();
		d->seq = rnd() % 4 ? rnd() % 1000 : rnd();
		d->flags = rnd() % 2 ? 0 : some_flags();
		d->value = rnd();
		break;
	}
	case 6:
	case 7: {
		struct utrace_regs *r = (void *)arg;
		static const __u64 notes[] = { NT_PRSTATUS, NT_PRFPREG, 0x202 /* NT_X86_XSTATE */,
					       0, 0x4242, NT_PRPSINFO };

		r->note_type = rnd() % 8 ? pick(notes, 6) : rnd();
		r->engine_id = engine_id();
		r->tid = some_tid();
		r->flags = rnd() % 4 ? 0 : some_flags();
		r->len = some_len();
		r->buf = some_ptr(r->len);
		some_pair(&r->engine_id, &r->tid);
		if (nr == 7 && r->buf == (__u64)(unsigned long)rw && rnd() % 2) {
			/* A SETREGS of what GETREGS gave, one byte changed. */
			struct utrace_regs g = *r;

			g.len = 4096;
			if (!checked(sess[cur], UTRACE_IOC_GETREGS, &g)) {
				r->len = g.len;
				if (g.len)
					rw[rnd() % g.len] ^= 1 << (rnd() % 8);
			}
		}
		break;
	}
	case 9: {
		/*
		 * Capture lists, mostly valid, on the children's nanosleep
		 * (clock_nanosleep) so that their records carry them.
		 */
		static struct utrace_capture_item items[8];
		static const __u64 nrs[] = { SYS_clock_nanosleep, SYS_nanosleep, SYS_getppid, 0 };
		struct utrace_capture *c = (void *)arg;

		for (int j = 0; j < 8; j++) {
			struct utrace_capture_item *it = &items[j];

			memset(it, 0, sizeof(*it));
			it->nr = rnd() % 8 ? pick(nrs, 4) : rnd();
			it->abi = rnd() % 8 ? UTRACE_ABI_X86_64 : rnd() % 4;
			it->arg = rnd() % 8 ? rnd() % 6 : rnd();
			it->kind = rnd() % 8 ? 1 + rnd() % 4 : rnd();
			it->len_arg = it->kind == UTRACE_CAPTURE_MEM_ARG ? rnd() % 6 : 0;
			it->flags = it->kind == UTRACE_CAPTURE_MEM_RET || rnd() % 4 == 0 ?
					    UTRACE_CAPTURE_AT_EXIT : 0;
			it->max = rnd() % 8 ? 1 + rnd() % UTRACE_REC_CAPTURE_DATA : rnd();
			if (rnd() % 16 == 0)
				it->reserved2 = rnd();
		}
		c->flags = rnd() % 2 ? 0 : rnd() % 4 ? UTRACE_CAPTURE_F_DECIDE : some_flags();
		c->count = rnd() % 8 ? rnd() % 9 : rnd();
		c->items = rnd() % 6 ? (__u64)(unsigned long)items : some_ptr(c->count * 16);
		break;
	}
	case 10: {
		/* Syscall filters: random bitmaps, sometimes everything, bad flags. */
		struct utrace_syscalls *f = (void *)arg;

		for (int j = 0; j < UTRACE_SYSCALLS_WORDS; j++) {
			f->entry[j] = rnd() % 2 ? 0 : (__u64)rnd() << 32 | rnd();
			f->exit[j] = rnd() % 2 ? ~0ULL : (__u64)rnd() << 32 | rnd();
		}
		f->flags = rnd() % 4 ? 0 : rnd() % 2 ? UTRACE_SYSCALLS_F_ALL : some_flags();
		if (rnd() % 16 == 0)
			f->reserved = rnd();
		break;
	}
	case 8: {
		struct utrace_handoff *h = (void *)arg;

		h->engine_id = engine_id();
		h->flags = rnd() % 2 ? 0 : some_flags();
		h->to_fd = rnd() % 2 ? sess[rnd() % NSESS] : (int)(rnd() % 64) - 1;
		break;
	}
	}
	memcpy(arg, &size, sizeof(size));
}

static void add_id(__u64 id)
{
	ids[cur][nids[cur] < NIDS ? (__u64)nids[cur]++ : rnd() % NIDS] = id;
}

/*
 * A well-formed step towards the states worth fuzzing: a child attached
 * by the current session, stopped, sometimes stepped or resumed (errors
 * are fine: the child may be attached already, or gone).
 */
static void prepare(void)
{
	struct utrace_attach a = { .size = sizeof(a), .pid = children[rnd() % NCHILD],
				   .events = some_events() & ((1 << 14) - 1) };
	struct utrace_control c = { .size = sizeof(c), .tid = 0 };

	if (rnd() % 2 && !checked(sess[cur], UTRACE_IOC_ATTACH, &a)) {
		int k = npairs[cur] < NIDS ? npairs[cur]++ : (int)(rnd() % NIDS);

		add_id(a.engine_id);
		pair_id[cur][k] = a.engine_id;
		pair_pid[cur][k] = a.pid;
	}
	c.engine_id = nids[cur] ? ids[cur][rnd() % nids[cur]] : a.engine_id;
	c.action = rnd() % 4 ? UTRACE_CTL_STOP : 1 + rnd() % 4;
	if (!checked(sess[cur], UTRACE_IOC_CONTROL, &c))
		prepared_ok++;
	if (npairs[cur] && rnd() % 2) {
		/* Registers read, one bit changed, written back; or a step. */
		int k = rnd() % npairs[cur];
		struct utrace_regs r = { .size = sizeof(r), .engine_id = pair_id[cur][k],
					 .tid = pair_pid[cur][k],
					 .note_type = rnd() % 2 ? NT_PRSTATUS : NT_PRFPREG,
					 .buf = (__u64)(unsigned long)(rw + 4096), .len = 4096 };

		c.engine_id = r.engine_id;
		c.tid = r.tid;
		c.action = UTRACE_CTL_SINGLESTEP;
		if (rnd() % 4 == 0) {
			if (!checked(sess[cur], UTRACE_IOC_CONTROL, &c))
				prepared_ok++;
		} else if (!checked(sess[cur], UTRACE_IOC_GETREGS, &r)) {
			prepared_ok++;
			if (r.len && rnd() % 2) {
				rw[4096 + rnd() % r.len] ^= 1 << (rnd() % 8);
				if (!checked(sess[cur], UTRACE_IOC_SETREGS, &r))
					prepared_ok++;
			}
		}
	}
}

int main(int argc, char **argv)
{
	long n, ok = 0, bad = 0;
	unsigned char *page;
	__u64 seed;
	double start;

	if (argc < 3)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	n = atol(argv[1]);
	seed = strtoull(argv[2], NULL, 0);
	printf("utfuzz: seed %#llx, %ld calls, uid %d\n", (unsigned long long)seed, n, getuid());
	start = now_ms();
	rnd_state = seed ^ 0x9e3779b97f4a7c15ULL;
	if (!rnd_state)
		rnd_state = 1;
	/* A hang is a failure too. */
	signal(SIGALRM, on_alarm);
	alarm(120);

	page = mmap(NULL, 5 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		die("mmap");
	rw = page;
	gone = page + 2 * 4096;
	ro = page + 3 * 4096;
	munmap(gone, 4096);
	mprotect(ro, 4096, PROT_READ);
	for (int i = 0; i < NCHILD; i++)
		respawn(i);
	for (int i = 0; i < NSESS; i++)
		sess[i] = sess_open();

	for (long i = 0; i < n; i++) {
		unsigned int nr = rnd() % 11, dir = rnd() % 4, size, type = UTRACE_IOC_MAGIC;
		int fd, ret, e;
		double t0;
		unsigned long cmd;
		unsigned char *arg;
		__u64 argp;

		cur = rnd() % NSESS;
		fd = sess[cur];
		at_call = i;
		if (rnd() % 8 == 0) {
			at_what = "prepare()";
			prepare();
		}
		if (rnd() % 16 == 0)
			nr = rnd() % 256;
		if (rnd() % 16 == 0)
			type = rnd() % 256;
		size = rnd() % 4 ? ver0(nr) : rnd() % (1 << 14);
		/* Usually at the page's start (room for any size), else near its end. */
		arg = rnd() % 4 ? rw : rw + 4096 - (rnd() % 64);
		if (rnd() % 4 == 0)
			arg = rw + 2 * 4096 - ver0(nr) / 2;
		if (arg + 512 <= rw + 2 * 4096)
			fill(arg, nr);
		argp = (__u64)(unsigned long)arg;
		if (rnd() % 6 == 0)
			argp = some_ptr(size);
		cmd = rnd() % 32 ? _IOC(dir, type, nr, size) : (unsigned long)(__u32)rnd();
		t0 = now_ms();
		at_what = "ioctl()";
		at_cmd = cmd;
		ret = ioctl(fd, cmd, (void *)(unsigned long)argp);
		e = errno;
		ms_by_nr[type == UTRACE_IOC_MAGIC && (cmd & 0xff) < 11 ? cmd & 0xff : 11] +=
			now_ms() - t0;
		if (ret == 0) {
			ok++;
			if (type == UTRACE_IOC_MAGIC && (cmd & 0xff) < 11)
				ok_by_nr[cmd & 0xff]++;
			/* A new engine's id joins the pool. */
			if (type == UTRACE_IOC_MAGIC && (cmd & 0xff) == 2 &&
			    argp == (__u64)(unsigned long)arg)
				add_id(((struct utrace_attach *)arg)->engine_id);
		} else if (ret == -1 && allowed_index(e) >= 0) {
			counts[allowed_index(e)]++;
		} else {
			printf("FAIL: call %ld: ioctl(%#lx, %#llx) = %d, errno %d (%s)\n", i, cmd,
			       (unsigned long long)argp, ret, e, strerror(e));
			bad++;
		}
		/* Records are drained now and then (the session is non-blocking). */
		if (rnd() % 16 == 0) {
			unsigned char rec[4 * UTRACE_REC_SIZE];

			at_what = "read()";
			while (read(fd, rec, sizeof(rec)) > 0)
				;
		}
		/* A session ends: its engines detach, what it stopped runs on. */
		if (rnd() % 200 == 0) {
			int s = rnd() % NSESS;

			at_what = "close() of a session";
			close(sess[s]);
			sess[s] = sess_open();
			/* Its ids are stale now, and stay in the pool. */
			npairs[s] = 0;
		}
		if (rnd() % 300 == 0)
			respawn(rnd() % NCHILD);
		if (i % 64 == 0)
			reap();
	}
	at_what = "close() of the sessions at the end";
	for (int i = 0; i < NSESS; i++)
		close(sess[i]);
	at_what = "waitpid() of the children at the end";
	for (int i = 0; i < NCHILD; i++) {
		kill(children[i], SIGKILL);
		waitpid(children[i], NULL, 0);
	}
	printf("utfuzz: %ld calls: %ld succeeded, %ld refused:", n, ok, n - ok - bad);
	fails += bad;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (counts[i])
			printf(" %s %ld", names[i], counts[i]);
	printf("\nutfuzz: %ld well-formed attach, control and register calls between them succeeded\n",
	       prepared_ok);
	printf("utfuzz: random calls that succeeded by command: INFO %ld CONFIG %ld ATTACH %ld DETACH %ld CONTROL %ld "
	       "DECIDE %ld GETREGS %ld SETREGS %ld HANDOFF %ld CAPTURE %ld SYSCALLS %ld\n",
	       ok_by_nr[0], ok_by_nr[1], ok_by_nr[2], ok_by_nr[3], ok_by_nr[4], ok_by_nr[5],
	       ok_by_nr[6], ok_by_nr[7], ok_by_nr[8], ok_by_nr[9], ok_by_nr[10]);
	printf("utfuzz: %.1f s; ms in: INFO %.0f CONFIG %.0f ATTACH %.0f DETACH %.0f CONTROL %.0f "
	       "DECIDE %.0f GETREGS %.0f SETREGS %.0f HANDOFF %.0f CAPTURE %.0f SYSCALLS %.0f "
	       "other %.0f\n",
	       (now_ms() - start) / 1e3, ms_by_nr[0], ms_by_nr[1], ms_by_nr[2], ms_by_nr[3],
	       ms_by_nr[4], ms_by_nr[5], ms_by_nr[6], ms_by_nr[7], ms_by_nr[8], ms_by_nr[9],
	       ms_by_nr[10], ms_by_nr[11]);
	if (fails)
		printf("FAIL: %ld calls returned what sessions.rst does not document\n", fails);
	return fails ? 1 : 0;
}
