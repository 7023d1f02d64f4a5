// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_test.ko: a test engine that user space drives through debugfs, so
 * the selftests can exercise every call of the C ABI and check exact
 * outcomes. Not a sample: it does odd things on purpose (holds callbacks,
 * attaches from callbacks, keeps references after detach).
 *
 * /sys/kernel/debug/utrace_test/
 *   ctl    write one command; write() returns its result: the length on
 *          success, or the negative errno the framework returned
 *   log    every callback, in order: "<n> <slot> <EVENT> <pid> <detail>"
 *   stats  counters, one "name value" per line
 *
 * Commands (numbers are decimal or 0x-hex; SLOT is 0..NSLOTS-1):
 *   attach SLOT PID FLAGS [OPS [DATA]]  PID 0 = global (task NULL);
 *                         OPS: a (default), b (other ops), q (only report_quiesce),
 *                         n (no-op SYSCALL callbacks only: benchmarks),
 *                         none (NULL ops)
 *   events SLOT MASK      utrace_set_events()
 *   events_kill SLOT MASK SIG  utrace_set_events(), then at once send_sig(SIG) to
 *                         SLOT's task (the signal kprobe must be armed by then)
 *   events_atomic SLOT MASK  utrace_set_events() with preemption off
 *   control SLOT ACTION   utrace_control()
 *   barrier SLOT          utrace_barrier()
 *   get SLOT / put SLOT   take / drop a reference (put of the slot's own
 *                         reference forgets the pointer)
 *   hold MASK             callbacks for these events block until "release"
 *   release               let held callbacks go on (and stop holding)
 *   follow SLOT MASK      SLOT's CLONE callback attaches a follower engine
 *                         with events MASK to the child
 *   attach_on SLOT EVENT NEWSLOT MASK
 *                         SLOT's next EVENT callback attaches NEWSLOT to the
 *                         current task with events MASK
 *   filter TGID           count global events only for TGID and its children
 *   handoff SLOT          utrace_handoff() SLOT's engine to a new one with the
 *                         other ops (a <-> b)
 *   hs P K                handoff-stress accounting: count EXECs of
 *                         "/tmp/hs/<p>.<i>" and DEATHs of comm "<p>.<i>",
 *                         p < P, i < K, per ops
 *   ret SLOT ACTION       SLOT's callbacks return ACTION
 *   sysnr SLOT NR         count SLOT's SYSCALL_ENTRY/EXIT reports of syscall NR
 *   sysabort SLOT NR ERRNO  SLOT's entry callback aborts syscall NR with -ERRNO
 *   sigret SLOT VALUE     SLOT's report_signal returns VALUE (a resume action
 *                         or'd with UTRACE_SIGNAL_* bits and flags)
 *   sigrewrite SLOT SIG   SLOT's report_signal sets info->si_signo to SIG
 *                         (-1: leave it) and si_errno to 77 (seen by the
 *                         siginfo_t of a handler)
 *   sigka SLOT 0|1|2      SLOT's report_signal leaves return_ka (0) or sets its
 *                         handler to SIG_DFL (1) or SIG_IGN (2)
 *   noop SLOT 0|1         SLOT's callbacks return at once (benchmarks)
 *   attachloop PID N      N x attach+set_events+detach(+barrier)+put on PID;
 *                         stats "bench.attach_ns" (per round trip)
 *   attachall PID MASK    attach a no-op engine with MASK to every thread of
 *                         PID (logs "ATTACHALL <count>")
 *   barrierloop SLOT N    N x utrace_barrier() with nothing in flight;
 *                         stats "bench.barrier_ns"
 *   stoploop SLOT N       N x (STOP, wait for the QUIESCE report of the stop,
 *                         RESUME, wait for the task's next SYSCALL_ENTRY);
 *                         SLOT's engine needs QUIESCE|SYSCALL_ENTRY and a task
 *                         in a syscall loop; stats "bench.stop_ns"
 *   stopwait SLOT N       the same round trip the way a debugger does it: N x
 *                         (STOP, utrace_wait_stopped(), RESUME, wait for the
 *                         task's next SYSCALL_ENTRY), no barrier: SLOT's
 *                         QUIESCE callback returns STOP meanwhile and wakes
 *   stopwait SLOT N rt    the same with the controller SCHED_FIFO (run as
 *                         soon as it is woken)
 *                         stats of both: "bench.stopwait_ns" (the mean),
 *                         "bench.stopwait_median_ns" (each round trip timed
 *                         on its own) and "bench.stopwait_split" (CPU per
 *                         round trip of the controller and the task, their
 *                         sleeps, preemptions and the task's syscalls per
 *                         1000 round trips; the round trips with more than
 *                         2 syscalls, the most in one, and the time of
 *                         those per round trip of the loop)
 *   examinepoke SLOT N OTHER
 *                         N x (RESUME by slot OTHER's engine, or with OTHER
 *                         -1 a SIGCONT, then prepare_examine and
 *                         finish_examine by SLOT's, which holds the task
 *                         stopped), SCHED_FIFO on the task's CPU; returns
 *                         the first examination's error (0: none failed);
 *                         logs "<slot> EXAMINEPOKE failed=<n> of <n> first=<e>"
 *   waitstop SLOT FLAGS   utrace_wait_stopped(FLAGS: 1 = killable) on SLOT's
 *                         engine (a reference of its own while it waits);
 *                         after 0 also utrace_prepare_examine(); logs
 *                         "<slot> WAITSTOP ret=<ret> examine=<ret>"
 *   lookupexit SLOT 0|1   SLOT's EXIT and DEATH callbacks look their engine up
 *                         (no CREATE) on the exiting task; logs
 *                         "LOOKUP_IN_EXIT self|other|<errno>" (and _DEATH)
 *   step SLOT MODE        MODE 3 (SINGLESTEP) or 4 (BLOCKSTEP), 0 = off: SLOT's
 *                         SYSCALL_EXIT of getppid(STEP_START) returns MODE, its
 *                         report_signal consumes each SIGTRAP returning MODE|IGN
 *                         (counted in stats "slotN.steps") until the SYSCALL_ENTRY
 *                         of getppid(STEP_END) (logs "STEPS <n>"); traps after it
 *                         are consumed with RESUME ("slotN.late_traps")
 *   stepdetach SLOT K     with "step": SLOT's engine detaches (returning
 *                         UTRACE_DETACH | UTRACE_SIGNAL_IGN) at the K-th trap
 *   slow SLOT USEC        SLOT's sleepable callbacks sleep USEC..2*USEC first
 *                         (widens the window for signals mid-callback)
 *   releaseon SLOT EVENT  SLOT's next EVENT callback calls utrace_release_engines()
 *                         (must refuse with -EDEADLK) and logs the result
 *   barrieron SLOT MASK   SLOT's callbacks for the events in MASK call
 *                         utrace_barrier() on their own engine (must return 0
 *                         at once) and log "SELF_BARRIER <EVENT> <ret> <usec>"
 *   attachrace SLOT PID   attach (CREATE) SLOT to PID, which is killed, reaped
 *                         and freed inside the attach, between its liveness
 *                         check and its insert of the task's state (see
 *                         cmd_attachrace); logs "ATTACHRACE hit=0|1 freed=0|1
 *                         <ret>" (hit: the probe caught the allocation)
 *   chaos SECONDS         for SECONDS, random operations on random user
 *                         tasks with a pool of engines (attach, set_events,
 *                         STOP, RESUME, INTERRUPT, REPORT, barrier, detach);
 *                         all detached at the end; stats "chaos.*"
 *   reset                 clear the log and counters
 *   cleanup               detach, barrier and put everything held
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/delay.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <utrace_rs.h>

#define NSLOTS 16
#define LOG_LINES 4096
#define LOG_LINE 96
#define MAX_FOLLOWERS 1024

struct slot {
	struct utrace_engine *engine;
	struct task_struct *task;	/* reference held; NULL for global */
	u32 ret;			/* what callbacks return */
	unsigned long follow;		/* events for CLONE followers, 0 = off */
	unsigned long attach_on;	/* event whose callback attaches ... */
	int attach_slot;		/* ... this slot ... */
	unsigned long attach_mask;	/* ... with these events */
	atomic_t count[_UTRACE_NEVENTS];
	long sys_nr;			/* count entries/exits of this syscall */
	atomic_t sys_entries, sys_exits;
	u32 sigret;			/* what report_signal returns */
	int sigrewrite;			/* si_signo report_signal writes, or -1 */
	int sigka;			/* return_ka: 0 keep, 1 SIG_DFL, 2 SIG_IGN */
	bool noop;			/* callbacks return at once (benchmarks) */
	long abort_nr;			/* abort this syscall ... */
	int abort_errno;		/* ... with this errno */
	unsigned long slow_us;		/* sleep in sleepable callbacks */
	unsigned long release_on;	/* event whose callback calls utrace_release_engines() */
	unsigned long barrier_on;	/* events whose callbacks call utrace_barrier() on themselves */
	bool lookup_in_exit;		/* EXIT/DEATH callbacks look the engine up */
	u32 step_mode;			/* SINGLESTEP/BLOCKSTEP between markers, 0 = off */
	bool stepping;			/* between the start and end markers */
	atomic_t steps, late_traps;	/* traps seen while stepping / after */
	int step_detach;		/* detach at this step's trap, 0 = never */
};

/*
 * The stepper's markers: getppid() with this first argument starts stepping
 * (at its SYSCALL_EXIT), with the next one ends it (at its SYSCALL_ENTRY).
 */
#define STEP_START 0x5354455030ULL
#define STEP_END 0x5354455031ULL

static struct slot slots[NSLOTS];

static struct {
	struct utrace_engine *engine;
	struct task_struct *task;	/* reference held */
} followers[MAX_FOLLOWERS];
static int nfollowers;
static DEFINE_SPINLOCK(followers_lock);

static char (*log_buf)[LOG_LINE];
static unsigned long log_n;	/* lines ever written */
static DEFINE_SPINLOCK(log_lock);

static unsigned long hold_mask;
static atomic_t held = ATOMIC_INIT(0);
static atomic_t releases = ATOMIC_INIT(0);
static atomic_t follow_errors = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(hold_wq);
static pid_t filter_tgid;
static atomic_t switches = ATOMIC_INIT(0);
/* Callbacks that ended with a fatal signal pending (sent mid-callback). */
static atomic_t killed_in_callback = ATOMIC_INIT(0);

/* Handoff stress: what each of P processes reported, step by step. */
#define HS_P 64
#define HS_K 256
static int hs_p, hs_k;
static atomic_t hs_exec[HS_P][HS_K];
static atomic_t hs_clone[HS_P][HS_K];
static atomic_t hs_cdeath[HS_P][HS_K];	/* the children "c<p>.<i>" */
static atomic_t hs_death[HS_P];
static atomic_t hs_by_ops[2];

/* Parses "<p>.<i>" at the end of @name; false if it is not one. */
static bool hs_parse(const char *name, int *p, int *i)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	if (sscanf(base, "%d.%d", p, i) != 2)
		return false;
	return *p >= 0 && *p < hs_p && *i >= 0 && *i < hs_k;
}

static const struct utrace_engine_ops ops_a, ops_b;

/* stoploop: the stop was reported / the task runs again. */
static DECLARE_COMPLETION(stop_reported);
static DECLARE_COMPLETION(run_again);
static int stoploop_slot = -1;
static bool stoploop_wait_run;
/* stopwait: this slot's QUIESCE(0) callback returns STOP, silently. */
static int stopwait_slot = -1;
/* Syscalls the stopwait slot's task entered (only that task writes it). */
static unsigned long stopwait_syscalls;

/* By bit (scripts/check-abi.py checks every event of the header is here). */
static const char *const event_names[_UTRACE_NEVENTS] = {
	[_UTRACE_EVENT_QUIESCE] = "QUIESCE",
	[_UTRACE_EVENT_REAP] = "REAP",
	[_UTRACE_EVENT_CLONE] = "CLONE",
	[_UTRACE_EVENT_EXEC] = "EXEC",
	[_UTRACE_EVENT_EXIT] = "EXIT",
	[_UTRACE_EVENT_DEATH] = "DEATH",
	[_UTRACE_EVENT_SYSCALL_ENTRY] = "SYSCALL_ENTRY",
	[_UTRACE_EVENT_SYSCALL_EXIT] = "SYSCALL_EXIT",
	[_UTRACE_EVENT_SIGNAL] = "SIGNAL",
	[_UTRACE_EVENT_SIGNAL_IGN] = "SIGNAL_IGN",
	[_UTRACE_EVENT_SIGNAL_STOP] = "SIGNAL_STOP",
	[_UTRACE_EVENT_SIGNAL_TERM] = "SIGNAL_TERM",
	[_UTRACE_EVENT_SIGNAL_CORE] = "SIGNAL_CORE",
	[_UTRACE_EVENT_JCTL] = "JCTL",
};

static void log_line(const char *fmt, ...)
{
	unsigned long flags;
	va_list args;
	char *line;

	spin_lock_irqsave(&log_lock, flags);
	line = log_buf[log_n % LOG_LINES];
	va_start(args, fmt);
	vsnprintf(line, LOG_LINE, fmt, args);
	va_end(args);
	log_n++;
	spin_unlock_irqrestore(&log_lock, flags);
}

/* The slot index is the engine's data; followers carry NSLOTS. */
static int slot_of(struct utrace_engine *engine)
{
	return (int)(long)engine->data;
}

/* The slot's callbacks are no-ops (benchmarks): nothing formatted, nothing logged. */
static bool noop(struct utrace_engine *engine)
{
	int n = slot_of(engine);

	return n < NSLOTS && READ_ONCE(slots[n].noop);
}

static bool counted(struct task_struct *task)
{
	struct task_struct *parent;
	bool ret;

	if (!filter_tgid)
		return true;
	if (task->tgid == filter_tgid)
		return true;
	rcu_read_lock();
	parent = rcu_dereference(task->real_parent);
	ret = parent && parent->tgid == filter_tgid;
	rcu_read_unlock();
	return ret;
}

/* Log, count, maybe hold; returns the slot's chosen action. */
static u32 report(struct utrace_engine *engine, int event, struct task_struct *task,
		  const char *detail)
{
	int n = slot_of(engine);
	struct slot *s = n < NSLOTS ? &slots[n] : NULL;

	if (s && READ_ONCE(s->noop))
		return UTRACE_RESUME;
	if (s && READ_ONCE(s->slow_us) && event != _UTRACE_EVENT_REAP) {
		usleep_range(s->slow_us, 2 * s->slow_us);
		if (fatal_signal_pending(current))
			atomic_inc(&killed_in_callback);
	}

	if (counted(task)) {
		log_line("%d %s %d %s ops=%c", n, event_names[event], task_pid_nr(task), detail,
			 engine->ops == &ops_b ? 'b' : 'a');
		if (s)
			atomic_inc(&s->count[event]);
	}
	if (READ_ONCE(hold_mask) & (1UL << event)) {
		atomic_inc(&held);
		log_line("%d HELD %d", n, task_pid_nr(task));
		wake_up_all(&hold_wq);
		wait_event_timeout(hold_wq, !(READ_ONCE(hold_mask) & (1UL << event)), 30 * HZ);
		log_line("%d UNHELD %d", n, task_pid_nr(task));
		atomic_dec(&held);
	}
	if (s && READ_ONCE(s->release_on) == (1UL << event)) {
		/* From a callback of its own engines: must refuse, not wait for itself. */
		WRITE_ONCE(s->release_on, 0);
		log_line("%d RELEASE_ENGINES %d", n, utrace_release_engines(THIS_MODULE, 0, NULL));
	}
	if (s && (READ_ONCE(s->barrier_on) & (1UL << event))) {
		/* Its own engine: nothing to wait for, not even from REAP's worker. */
		u64 start = ktime_get_ns();
		int ret = utrace_barrier(task, engine);

		log_line("%d SELF_BARRIER %s %d %llu", n, event_names[event], ret,
			 (ktime_get_ns() - start) / NSEC_PER_USEC);
	}
	if (s && s->attach_on == (1UL << event)) {
		struct slot *t = &slots[s->attach_slot];
		struct utrace_engine *e;

		s->attach_on = 0;
		e = utrace_attach_task(current, UTRACE_ATTACH_CREATE, &ops_a,
				       (void *)(long)s->attach_slot);
		if (IS_ERR(e)) {
			log_line("%d ATTACH_FAILED %ld", s->attach_slot, PTR_ERR(e));
		} else {
			get_task_struct(current);
			t->task = current;
			t->engine = e;
			utrace_set_events(current, e, s->attach_mask);
			log_line("%d ATTACHED_IN_CALLBACK %d", s->attach_slot, task_pid_nr(current));
		}
	}
	return s ? s->ret : UTRACE_RESUME;
}

static u32 cb_clone(u32 action, struct utrace_engine *engine, struct task_struct *parent,
		    unsigned long clone_flags, struct task_struct *child)
{
	int n = slot_of(engine);
	char detail[32];

	if (noop(engine))
		return UTRACE_RESUME;
	snprintf(detail, sizeof(detail), "child=%d%s", task_pid_nr(child),
		 clone_flags & CLONE_VFORK ? " vfork" : "");
	if (READ_ONCE(hs_k) && !(clone_flags & CLONE_THREAD)) {
		int p, i;

		if (hs_parse(parent->comm, &p, &i)) {
			atomic_inc(&hs_clone[p][i]);
			atomic_inc(&hs_by_ops[engine->ops == &ops_b]);
			return UTRACE_RESUME;
		}
	}
	if (n < NSLOTS && slots[n].follow) {
		struct utrace_engine *e;
		int err = 0;

		e = utrace_attach_task(child, UTRACE_ATTACH_CREATE, engine->ops,
				       (void *)(long)NSLOTS);
		if (IS_ERR(e)) {
			err = PTR_ERR(e);
		} else {
			err = utrace_set_events(child, e, slots[n].follow);
			spin_lock(&followers_lock);
			if (nfollowers < MAX_FOLLOWERS) {
				get_task_struct(child);
				followers[nfollowers].engine = e;
				followers[nfollowers++].task = child;
				e = NULL;
			}
			spin_unlock(&followers_lock);
			if (e)
				utrace_engine_put(e);	/* stays attached until reaped */
		}
		if (err) {
			atomic_inc(&follow_errors);
			log_line("%d FOLLOW_FAILED %d", n, err);
		}
	}
	/* The event is the parent's, even where the vfork child reports it. */
	return report(engine, _UTRACE_EVENT_CLONE, parent, detail);
}

static u32 cb_exec(u32 action, struct utrace_engine *engine, const char *filename,
		   pid_t old_pid, struct pt_regs *regs)
{
	int p, i;

	if (noop(engine))
		return UTRACE_RESUME;
	if (READ_ONCE(hs_k) && filename && hs_parse(filename, &p, &i)) {
		atomic_inc(&hs_exec[p][i]);
		atomic_inc(&hs_by_ops[engine->ops == &ops_b]);
		return UTRACE_RESUME;
	}
	return report(engine, _UTRACE_EVENT_EXEC, current, filename ? filename : "(null)");
}

/* An engine finds itself on its exiting task (lookup without CREATE). */
static void lookup_self(struct utrace_engine *engine, const char *where)
{
	int n = slot_of(engine);
	struct utrace_engine *e;

	if (n >= NSLOTS || !READ_ONCE(slots[n].lookup_in_exit))
		return;
	e = utrace_attach_task(current, UTRACE_ATTACH_MATCH_OPS | UTRACE_ATTACH_MATCH_DATA,
			       engine->ops, engine->data);
	if (IS_ERR(e)) {
		log_line("%d LOOKUP_IN_%s %ld", n, where, PTR_ERR(e));
		return;
	}
	log_line("%d LOOKUP_IN_%s %s", n, where, e == engine ? "self" : "other");
	utrace_engine_put(e);
}

static u32 cb_exit(u32 action, struct utrace_engine *engine, long orig_code, long *code)
{
	char detail[24];

	if (noop(engine))
		return UTRACE_RESUME;
	lookup_self(engine, "EXIT");
	snprintf(detail, sizeof(detail), "code=0x%lx", orig_code);
	return report(engine, _UTRACE_EVENT_EXIT, current, detail);
}

static u32 cb_death(struct utrace_engine *engine, bool group_dead, int signal)
{
	char detail[40];
	int p, i;

	if (noop(engine))
		return UTRACE_RESUME;
	if (READ_ONCE(hs_k) && current->comm[0] == 'c' && hs_parse(current->comm + 1, &p, &i)) {
		atomic_inc(&hs_cdeath[p][i]);
		atomic_inc(&hs_by_ops[engine->ops == &ops_b]);
		return UTRACE_RESUME;
	}
	if (READ_ONCE(hs_k) && hs_parse(current->comm, &p, &i)) {
		atomic_inc(&hs_death[p]);
		atomic_inc(&hs_by_ops[engine->ops == &ops_b]);
		return UTRACE_RESUME;
	}

	lookup_self(engine, "DEATH");
	snprintf(detail, sizeof(detail), "group_dead=%d signal=%d code=0x%x",
		 group_dead, signal, current->exit_code);
	return report(engine, _UTRACE_EVENT_DEATH, current, detail);
}

static void cb_reap(struct utrace_engine *engine, struct task_struct *task)
{
	report(engine, _UTRACE_EVENT_REAP, task, "");
}

static u32 cb_quiesce(u32 action, struct utrace_engine *engine, unsigned long event)
{
	char detail[24];

	if (slot_of(engine) == READ_ONCE(stoploop_slot) && event == 0) {
		complete(&stop_reported);
		/* Only a returned STOP keeps the stop (utrace). */
		return UTRACE_STOP;
	}
	if (slot_of(engine) == READ_ONCE(stopwait_slot) && event == 0)
		return UTRACE_STOP;

	snprintf(detail, sizeof(detail), "event=0x%lx", event);
	return report(engine, _UTRACE_EVENT_QUIESCE, current, detail);
}

/* The event a signal of this class is reported for. */
static int signal_event(u32 class)
{
	switch (class) {
	case UTRACE_SIGNAL_IGN:
		return _UTRACE_EVENT_SIGNAL_IGN;
	case UTRACE_SIGNAL_TERM:
		return _UTRACE_EVENT_SIGNAL_TERM;
	case UTRACE_SIGNAL_CORE:
		return _UTRACE_EVENT_SIGNAL_CORE;
	case UTRACE_SIGNAL_STOP:
	case UTRACE_SIGNAL_TSTP:
		return _UTRACE_EVENT_SIGNAL_STOP;
	default:
		return _UTRACE_EVENT_SIGNAL;
	}
}

/*
 * Logs "sig=N class=0xC code=N addr=0xA pid=N regs=0|1 ka=0|1" under the
 * event of @action's class (HANDLER reports under SIGNAL).
 */
static u32 cb_signal(u32 action, struct utrace_engine *engine, struct pt_regs *regs,
		     struct kernel_siginfo *info, const struct k_sigaction *orig_ka,
		     struct k_sigaction *return_ka)
{
	u32 class = utrace_signal_action(action);
	int n = slot_of(engine);
	struct slot *s = n < NSLOTS ? &slots[n] : NULL;
	unsigned long addr = 0;
	char detail[96];
	u32 ret;

	if (s && READ_ONCE(s->step_mode) && info->si_signo == SIGTRAP &&
	    class != UTRACE_SIGNAL_HANDLER) {
		/* Our step's trap: count it, consume it, step on (or stop stepping). */
		if (READ_ONCE(s->stepping)) {
			if (atomic_inc_return(&s->steps) == READ_ONCE(s->step_detach)) {
				/* Stepping must end with the engine, or the next trap kills. */
				WRITE_ONCE(s->stepping, false);
				log_line("%d STEP_DETACH %d", n, atomic_read(&s->steps));
				return UTRACE_DETACH | UTRACE_SIGNAL_IGN;
			}
			return s->step_mode | UTRACE_SIGNAL_IGN;
		}
		atomic_inc(&s->late_traps);
		return UTRACE_RESUME | UTRACE_SIGNAL_IGN;
	}
	if (info->si_signo == SIGSEGV || info->si_signo == SIGBUS ||
	    info->si_signo == SIGILL || info->si_signo == SIGFPE)
		addr = (unsigned long)info->si_addr;
	snprintf(detail, sizeof(detail), "sig=%d class=0x%x code=%d addr=0x%lx pid=%d regs=%d ka=%d",
		 info->si_signo, class, info->si_code, addr,
		 info->si_code <= 0 ? info->si_pid : 0,
		 regs == task_pt_regs(current), orig_ka && return_ka);
	report(engine, signal_event(class), current, detail);
	if (!s)
		return class | UTRACE_RESUME;
	if (READ_ONCE(s->sigrewrite) >= 0) {
		info->si_signo = READ_ONCE(s->sigrewrite);
		info->si_errno = 77;
	}
	if (return_ka && READ_ONCE(s->sigka))
		return_ka->sa.sa_handler = READ_ONCE(s->sigka) == 1 ? SIG_DFL : SIG_IGN;
	ret = READ_ONCE(s->sigret);
	return ret;
}

static u32 cb_jctl(u32 action, struct utrace_engine *engine, int type, int notify)
{
	char detail[32];

	snprintf(detail, sizeof(detail), "type=%d notify=%d", type, notify);
	return report(engine, _UTRACE_EVENT_JCTL, current, detail);
}

/* Atomic context: counts only. */
static u32 cb_sys_entry(u32 action, struct utrace_engine *engine, struct pt_regs *regs)
{
	int n = slot_of(engine);
	struct slot *s = n < NSLOTS ? &slots[n] : NULL;
	long nr = syscall_get_nr(current, regs);

	if (n == READ_ONCE(stopwait_slot))
		WRITE_ONCE(stopwait_syscalls, stopwait_syscalls + 1);
	if ((n == READ_ONCE(stoploop_slot) || n == READ_ONCE(stopwait_slot)) &&
	    READ_ONCE(stoploop_wait_run)) {
		WRITE_ONCE(stoploop_wait_run, false);
		complete(&run_again);
	}
	if (!s || READ_ONCE(s->noop))
		return UTRACE_RESUME;
	if (READ_ONCE(s->stepping) && nr == __NR_getppid && regs->di == STEP_END &&
	    syscall_get_arch(current) == AUDIT_ARCH_X86_64) {
		/* The end marker's syscall instruction: the steps before it count. */
		WRITE_ONCE(s->stepping, false);
		log_line("%d STEPS %d", n, atomic_read(&s->steps));
	}
	if (nr == READ_ONCE(s->sys_nr))
		atomic_inc(&s->sys_entries);
	if (nr == READ_ONCE(s->abort_nr)) {
		syscall_set_return_value(current, regs, -READ_ONCE(s->abort_errno), 0);
		return UTRACE_RESUME | UTRACE_SYSCALL_ABORT;
	}
	return UTRACE_RESUME;
}

/*
 * A follower (attached from CLONE) logs its child's exit from the fork
 * family: "16 FORK_RETURN <pid> nr=<nr> ret=<ret>" (the child's return from
 * fork is 0). Out of line: the slots' exit callback is benchmarked.
 */
static noinline u32 follower_sys_exit(int n, struct pt_regs *regs)
{
	long nr = syscall_get_nr(current, regs);

	/* x86-64 numbers: i386's 57 is setpgid, not fork. */
	if (syscall_get_arch(current) != AUDIT_ARCH_X86_64)
		return UTRACE_RESUME;
	if (nr == __NR_fork || nr == __NR_vfork || nr == __NR_clone || nr == __NR_clone3)
		log_line("%d FORK_RETURN %d nr=%ld ret=%ld", n, task_pid_nr(current), nr,
			 syscall_get_return_value(current, regs));
	return UTRACE_RESUME;
}

static u32 cb_sys_exit(u32 action, struct utrace_engine *engine, struct pt_regs *regs)
{
	int n = slot_of(engine);
	struct slot *s = n < NSLOTS ? &slots[n] : NULL;

	if (s && READ_ONCE(s->step_mode) && syscall_get_nr(current, regs) == __NR_getppid &&
	    regs->di == STEP_START && syscall_get_arch(current) == AUDIT_ARCH_X86_64) {
		/* Step from the instruction after the start marker's syscall. */
		atomic_set(&s->steps, 0);
		atomic_set(&s->late_traps, 0);
		WRITE_ONCE(s->stepping, true);
		return s->step_mode;
	}
	if (unlikely(!s))
		return follower_sys_exit(n, regs);
	/* An aborted syscall exits with nr -1; count it as its own. */
	if (s && !READ_ONCE(s->noop) && (syscall_get_nr(current, regs) == READ_ONCE(s->sys_nr) ||
		  (syscall_get_nr(current, regs) == -1 && s->abort_nr == s->sys_nr)))
		atomic_inc(&s->sys_exits);
	return UTRACE_RESUME;
}

static void cb_release(void *data)
{
	atomic_inc(&releases);
	log_line("%d RELEASE", (int)(long)data);
}

/*
 * Two tables with the same callbacks and different identities: for
 * UTRACE_ATTACH_MATCH_OPS and for telling handoff partners apart.
 */
#define TEST_OPS {				\
	.owner = THIS_MODULE,			\
	.report_clone = cb_clone,		\
	.report_exec = cb_exec,			\
	.report_exit = cb_exit,			\
	.report_death = cb_death,		\
	.report_reap = cb_reap,			\
	.release = cb_release,			\
	.report_quiesce = cb_quiesce,		\
	.report_syscall_entry = cb_sys_entry,	\
	.report_syscall_exit = cb_sys_exit,	\
	.report_signal = cb_signal,		\
	.report_jctl = cb_jctl,			\
}
static const struct utrace_engine_ops ops_a = TEST_OPS;
static const struct utrace_engine_ops ops_b = TEST_OPS;
/* QUIESCE only, no report_signal: INTERRUPT's report is report_quiesce(0). */
static const struct utrace_engine_ops ops_q = {
	.owner = THIS_MODULE,
	.release = cb_release,
	.report_quiesce = cb_quiesce,
};

/*
 * Ops "n": a genuinely no-op engine for the benchmarks' syscall and fork
 * rows (the slots' callbacks above check the STOP loop's and the step
 * mode's flags and the slot's noop flag before they return).
 */
static u32 noop_sys_entry(u32 action, struct utrace_engine *engine, struct pt_regs *regs)
{
	return UTRACE_RESUME;
}

static u32 noop_sys_exit(u32 action, struct utrace_engine *engine, struct pt_regs *regs)
{
	return UTRACE_RESUME;
}

static u32 noop_clone(u32 action, struct utrace_engine *engine, struct task_struct *parent,
		      unsigned long clone_flags, struct task_struct *child)
{
	return UTRACE_RESUME;
}

static u32 noop_exec(u32 action, struct utrace_engine *engine, const char *filename,
		     pid_t old_pid, struct pt_regs *regs)
{
	return UTRACE_RESUME;
}

static u32 noop_death(struct utrace_engine *engine, bool group_dead, int signal)
{
	return UTRACE_RESUME;
}

static const struct utrace_engine_ops ops_n = {
	.owner = THIS_MODULE,
	.release = cb_release,
	.report_syscall_entry = noop_sys_entry,
	.report_syscall_exit = noop_sys_exit,
	.report_clone = noop_clone,
	.report_exec = noop_exec,
	.report_death = noop_death,
};

static int cmd_attach(int n, long pid, long flags, const char *opsname, long data)
{
	const struct utrace_engine_ops *ops = &ops_a;
	struct task_struct *task = NULL;
	struct utrace_engine *e;

	if (!strcmp(opsname, "b"))
		ops = &ops_b;
	else if (!strcmp(opsname, "q"))
		ops = &ops_q;
	else if (!strcmp(opsname, "n"))
		ops = &ops_n;
	else if (!strcmp(opsname, "none"))
		ops = NULL;
	else if (strcmp(opsname, "a"))
		return -EINVAL;
	if (pid) {
		task = get_pid_task(find_vpid(pid), PIDTYPE_PID);
		if (!task)
			return -ESRCH;
	}
	e = utrace_attach_task(task, flags, ops, (void *)data);
	if (IS_ERR(e)) {
		if (task)
			put_task_struct(task);
		return PTR_ERR(e);
	}
	if (slots[n].engine) {
		/* The slot is busy: keep nothing, report success. */
		utrace_engine_put(e);
		if (task)
			put_task_struct(task);
		return 0;
	}
	slots[n].engine = e;
	slots[n].task = task;
	return 0;
}

static int cmd_handoff(struct slot *s)
{
	const struct utrace_engine_ops *other = s->engine->ops == &ops_a ? &ops_b : &ops_a;
	struct utrace_engine *e;

	e = utrace_handoff(s->task, s->engine, other, s->engine->data, 0);
	if (IS_ERR(e))
		return PTR_ERR(e);
	/* The old engine may still be in a callback: the framework keeps it. */
	utrace_engine_put(s->engine);
	s->engine = e;
	atomic_inc(&switches);
	return 0;
}

static void hs_setup(int p, int k)
{
	int i, j;

	WRITE_ONCE(hs_k, 0);
	for (i = 0; i < HS_P; i++) {
		atomic_set(&hs_death[i], 0);
		for (j = 0; j < HS_K; j++) {
			atomic_set(&hs_exec[i][j], 0);
			atomic_set(&hs_clone[i][j], 0);
			atomic_set(&hs_cdeath[i][j], 0);
		}
	}
	atomic_set(&hs_by_ops[0], 0);
	atomic_set(&hs_by_ops[1], 0);
	atomic_set(&switches, 0);
	hs_p = p;
	WRITE_ONCE(hs_k, k);
}

static u64 bench_attach_ns, bench_barrier_ns, bench_stop_ns, bench_stopwait_ns;
/* The median of stopwait's round trips, each timed on its own. */
static u64 bench_stopwait_median_ns;

/*
 * Where a stopwait round trip goes, per 1000 round trips: the CPU time
 * (sum_exec_runtime: instructions under -icount) of the controller (the
 * loop, in the kernel) and of the traced task, and their voluntary
 * (sleeps) and involuntary (preemptions) context switches. One vCPU: the
 * task does not run while the controller reads its counters.
 */
struct run_counts {
	u64 cpu;
	unsigned long nvcsw, nivcsw;
};

static struct run_counts stopwait_ctl, stopwait_task;
static unsigned long stopwait_task_syscalls;
/* Round trips in which the task entered more than 2 syscalls, and the most. */
static unsigned long stopwait_late, stopwait_most;
/* The time those late round trips took, per round trip of the loop. */
static u64 stopwait_late_ns;

static void run_counts_read(struct task_struct *t, struct run_counts *c)
{
	c->cpu = READ_ONCE(t->se.sum_exec_runtime);
	c->nvcsw = READ_ONCE(t->nvcsw);
	c->nivcsw = READ_ONCE(t->nivcsw);
}

/* @c becomes what @t ran since @c was read, per 1000 of @n round trips. */
static void run_counts_since(struct task_struct *t, struct run_counts *c, long n)
{
	struct run_counts now;

	run_counts_read(t, &now);
	c->cpu = (now.cpu - c->cpu) / n;
	c->nvcsw = (now.nvcsw - c->nvcsw) * 1000 / n;
	c->nivcsw = (now.nivcsw - c->nivcsw) * 1000 / n;
}

static int cmd_attachloop(long pid, long n)
{
	struct task_struct *task = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	u64 start;
	long i;
	int ret = 0;

	if (!task)
		return -ESRCH;
	start = ktime_get_ns();
	for (i = 0; i < n && !ret; i++) {
		struct utrace_engine *e = utrace_attach_task(task, UTRACE_ATTACH_CREATE, &ops_b,
							     (void *)(long)NSLOTS);

		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			break;
		}
		utrace_set_events(task, e, UTRACE_EVENT(EXEC));
		/* utrace's safe detach: barrier only when a callback may run. */
		if (utrace_control(task, e, UTRACE_DETACH) == -EINPROGRESS)
			utrace_barrier(task, e);
		utrace_engine_put(e);
	}
	if (i)
		bench_attach_ns = (ktime_get_ns() - start) / i;
	put_task_struct(task);
	return ret;
}

/* RESUME the stopped task of @s and wait until it runs again (its next syscall). */
static int resume_until_run(struct slot *s)
{
	int ret;

	reinit_completion(&run_again);
	WRITE_ONCE(stoploop_wait_run, true);
	ret = utrace_control(s->task, s->engine, UTRACE_RESUME);
	if (!ret && wait_for_completion_killable_timeout(&run_again, 10 * HZ) <= 0)
		ret = -ETIMEDOUT;
	return ret;
}

static int cmd_stoploop(int slot, long n)
{
	struct slot *s = &slots[slot];
	u64 start = ktime_get_ns();
	long i;
	int ret = 0;

	WRITE_ONCE(stoploop_slot, slot);
	for (i = 0; i < n && !ret; i++) {
		reinit_completion(&stop_reported);
		ret = utrace_control(s->task, s->engine, UTRACE_STOP);
		if (ret != -EINPROGRESS)
			break;	/* 0 would mean still stopped: a bug here */
		ret = 0;
		if (wait_for_completion_killable_timeout(&stop_reported, 10 * HZ) <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		/*
		 * The callback's STOP takes effect when it returns: wait for
		 * that (utrace's protocol), or the RESUME below could come
		 * first and be undone by it.
		 */
		ret = utrace_barrier(s->task, s->engine);
		if (ret)
			break;
		ret = resume_until_run(s);
	}
	WRITE_ONCE(stoploop_slot, -1);
	WRITE_ONCE(stoploop_wait_run, false);
	if (ret)
		return ret;
	if (n)
		bench_stop_ns = (ktime_get_ns() - start) / n;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A debugger's round trip: STOP, wait until the task sleeps in its stop
 * (utrace_wait_stopped(): the task wakes us right before it sleeps), RESUME
 * (no barrier: the wait's 0 means no callback is in flight and the stop
 * holds), then wait until it runs again.
 */
static int cmd_stopwait(int slot, long n, bool rt)
{
	struct slot *s = &slots[slot];
	/*
	 * Each round trip's own time, for its median: the mean also counts
	 * the stretches of its own loop that a fair scheduler grants the
	 * task in a few round trips per thousand (the "late" ones).
	 */
	u64 *trips;
	u64 start, t, now;
	long i;
	int ret = 0;

	/* A failed or refused run leaves no stale figure behind. */
	bench_stopwait_ns = bench_stopwait_median_ns = stopwait_late_ns = 0;
	if (n < 1)
		return -EINVAL;
	trips = kvmalloc_array(n, sizeof(*trips), GFP_KERNEL | __GFP_NOWARN);
	if (!trips)
		return -ENOMEM;
	/*
	 * rt: the controller runs as soon as it is woken (SCHED_FIFO), as
	 * on a machine where it has a CPU of its own. A fair-class
	 * controller on the one vCPU is woken by the task's next syscall but
	 * not always run: in a few round trips per thousand the scheduler
	 * lets the task, which used less CPU than the controller, go on with
	 * its getppid() loop until the next tick (thousands of syscalls of
	 * its own, which the round trip then counts).
	 */
	if (rt)
		sched_set_fifo_low(current);
	start = t = ktime_get_ns();
	WRITE_ONCE(stopwait_slot, slot);
	run_counts_read(current, &stopwait_ctl);
	run_counts_read(s->task, &stopwait_task);
	stopwait_task_syscalls = READ_ONCE(stopwait_syscalls);
	stopwait_late = stopwait_most = 0;
	for (i = 0; i < n && !ret; i++) {
		unsigned long calls = READ_ONCE(stopwait_syscalls);

		ret = utrace_control(s->task, s->engine, UTRACE_STOP);
		if (ret != -EINPROGRESS) {
			/* 0 would mean still stopped: a bug here. */
			ret = ret ?: -EPROTO;
			break;
		}
		ret = utrace_wait_stopped(s->task, s->engine, UTRACE_WAIT_KILLABLE);
		if (ret)
			break;
		ret = resume_until_run(s);
		now = ktime_get_ns();
		trips[i] = now - t;
		t = now;
		calls = READ_ONCE(stopwait_syscalls) - calls;
		if (calls > 2) {
			stopwait_late++;
			stopwait_late_ns += trips[i];
		}
		stopwait_most = max(stopwait_most, calls);
	}
	WRITE_ONCE(stopwait_slot, -1);
	WRITE_ONCE(stoploop_wait_run, false);
	if (rt)
		sched_set_normal(current, 0);
	if (ret) {
		stopwait_late_ns = 0;
	} else {
		bench_stopwait_ns = (ktime_get_ns() - start) / n;
		sort(trips, n, sizeof(*trips), cmp_u64, NULL);
		bench_stopwait_median_ns = trips[n / 2];
		stopwait_late_ns /= n;
		run_counts_since(current, &stopwait_ctl, n);
		run_counts_since(s->task, &stopwait_task, n);
		stopwait_task_syscalls = (READ_ONCE(stopwait_syscalls) - stopwait_task_syscalls) *
					 1000 / n;
	}
	kvfree(trips);
	return ret;
}

/* utrace_wait_stopped() with references of our own (the slot may change meanwhile). */
static int cmd_waitstop(int slot, unsigned int flags)
{
	struct slot *s = &slots[slot];
	struct utrace_engine *engine = s->engine;
	struct task_struct *task = s->task;
	struct utrace_examiner exam;
	int ret, examine = 1;

	utrace_engine_get(engine);
	get_task_struct(task);
	ret = utrace_wait_stopped(task, engine, flags);
	if (!ret)
		examine = utrace_prepare_examine(task, engine, &exam);
	log_line("%d WAITSTOP ret=%d examine=%d", slot, ret, examine);
	put_task_struct(task);
	utrace_engine_put(engine);
	return ret;
}

/*
 * examinepoke: N x (poke the task that SLOT's engine holds stopped, then
 * utrace_prepare_examine() and utrace_finish_examine() at once); the poke
 * is a RESUME by slot OTHER's engine, which does not hold the task, or
 * with OTHER -1 a SIGCONT. The caller runs SCHED_FIFO on the task's CPU
 * meanwhile: a wake-up of the task (pin it to one CPU) is then local and
 * the task, runnable, cannot run before the examination starts, which
 * sees it woken every time, not only when the timing is unlucky. Returns
 * the first failed examination's errno, 0 if none failed.
 */
static int cmd_examinepoke(struct slot *s, long n, long other)
{
	struct utrace_engine *poker = other >= 0 && other < NSLOTS ? slots[other].engine : NULL;
	struct utrace_examiner exam;
	int ret = 0, first = 0;
	long i, failed = 0;

	if (n < 1 || n > 100000 || other < -1 || (other >= 0 && !poker))
		return -EINVAL;
	sched_set_fifo_low(current);
	ret = set_cpus_allowed_ptr(current, cpumask_of(task_cpu(s->task)));
	for (i = 0; i < n && !ret; i++) {
		if (poker)
			ret = utrace_control(s->task, poker, UTRACE_RESUME);
		else
			ret = send_sig(SIGCONT, s->task, 1);
		if (ret)
			break;
		ret = utrace_prepare_examine(s->task, s->engine, &exam);
		if (!ret)
			ret = utrace_finish_examine(s->task, s->engine, &exam);
		if (ret && !failed++)
			first = ret;
		ret = 0;
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	sched_set_normal(current, 0);
	log_line("%d EXAMINEPOKE failed=%ld of %ld first=%d", slot_of(s->engine), failed, i, first);
	return ret ?: first;
}

static int cmd_barrierloop(struct slot *s, long n)
{
	u64 start = ktime_get_ns();
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = utrace_barrier(s->task, s->engine);
		if (ret)
			return ret;
	}
	if (n)
		bench_barrier_ns = (ktime_get_ns() - start) / n;
	return 0;
}

/*
 * Attach a no-op engine with @events to every thread of process @pid (for the
 * benchmarks' many-traced-tasks rows). The engines stay until the threads
 * are reaped. Returns how many were attached, or an errno.
 */
static int cmd_attachall(long pid, long events)
{
	struct task_struct *leader = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	struct task_struct **tasks, *t;
	int n = 0, i, done = 0;

	if (!leader)
		return -ESRCH;
	tasks = kvmalloc_array(65536, sizeof(*tasks), GFP_KERNEL);
	if (!tasks) {
		put_task_struct(leader);
		return -ENOMEM;
	}
	rcu_read_lock();
	for_each_thread(leader, t) {
		if (n == 65536)
			break;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		struct utrace_engine *e = utrace_attach_task(tasks[i], UTRACE_ATTACH_CREATE, &ops_b,
							     (void *)(long)NSLOTS);

		if (!IS_ERR(e)) {
			if (!utrace_set_events(tasks[i], e, events))
				done++;
			utrace_engine_put(e);
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	put_task_struct(leader);
	return done;
}

/*
 * Chaos: a pool of engines thrown at random user tasks with random
 * operations, to shake races between control calls and reports. Every
 * result is checked against what the call may legitimately return; anything
 * else is counted as unexpected (the test wants 0).
 */
#define CHAOS_ENGINES 8
#define CHAOS_DATA ((void *)0xc4a05L)
enum {
	C_ATTACH, C_ATTACH_ERR, C_EVENTS, C_STOP, C_RESUME, C_INTERRUPT, C_REPORT,
	C_BARRIER, C_DETACH, C_CALLBACKS, C_SLEPT, C_RELEASES, C_UNEXPECTED, C_NSTATS
};
static const char *const chaos_names[C_NSTATS] = {
	"attach", "attach_err", "events", "stop", "resume", "interrupt", "report",
	"barrier", "detach", "callbacks", "slept", "releases", "unexpected",
};
static atomic_t chaos_stat[C_NSTATS];
static char chaos_last[48];
static struct {
	struct utrace_engine *engine;
	struct task_struct *task;
} chaos_pool[CHAOS_ENGINES];

/* Sleepable callbacks sometimes sleep, so control calls meet them in flight. */
static u32 chaos_cb(void)
{
	atomic_inc(&chaos_stat[C_CALLBACKS]);
	if (!get_random_u32_below(4)) {
		usleep_range(50, 300);
		atomic_inc(&chaos_stat[C_SLEPT]);
	}
	return UTRACE_RESUME;
}
static u32 chaos_clone(u32 a, struct utrace_engine *e, struct task_struct *p, unsigned long f,
		       struct task_struct *c)
{
	return chaos_cb();
}
static u32 chaos_exec(u32 a, struct utrace_engine *e, const char *f, pid_t p, struct pt_regs *r)
{
	return chaos_cb();
}
static u32 chaos_exit(u32 a, struct utrace_engine *e, long oc, long *c)
{
	return chaos_cb();
}
static u32 chaos_death(struct utrace_engine *e, bool gd, int sig)
{
	return chaos_cb();
}
static void chaos_reap(struct utrace_engine *e, struct task_struct *t)
{
	chaos_cb();
}
static u32 chaos_quiesce(u32 a, struct utrace_engine *e, unsigned long ev)
{
	return chaos_cb();
}
static u32 chaos_signal(u32 a, struct utrace_engine *e, struct pt_regs *regs,
			struct kernel_siginfo *info, const struct k_sigaction *orig_ka,
			struct k_sigaction *return_ka)
{
	return chaos_cb();
}
/* Atomic context: count only. */
static u32 chaos_sys(u32 a, struct utrace_engine *e, struct pt_regs *regs)
{
	atomic_inc(&chaos_stat[C_CALLBACKS]);
	return UTRACE_RESUME;
}
static void chaos_release(void *data)
{
	if (data == CHAOS_DATA)
		atomic_inc(&chaos_stat[C_RELEASES]);
}
static const struct utrace_engine_ops ops_chaos = {
	.owner = THIS_MODULE,
	.report_clone = chaos_clone,
	.report_exec = chaos_exec,
	.report_exit = chaos_exit,
	.report_death = chaos_death,
	.report_reap = chaos_reap,
	.report_quiesce = chaos_quiesce,
	.report_signal = chaos_signal,
	.report_syscall_entry = chaos_sys,
	.report_syscall_exit = chaos_sys,
	.release = chaos_release,
};

/*
 * A random live user thread, with a reference; NULL if none was found. Not
 * one of ours: an INTERRUPT of the chaos driver itself would make its own
 * barriers return -ERESTARTSYS until it returns to user mode.
 */
static struct task_struct *chaos_pick(void)
{
	struct task_struct *g, *t, *found = NULL;
	unsigned int n = 0, k;

	rcu_read_lock();
	for_each_process_thread(g, t)
		n++;
	k = get_random_u32_below(n ? n : 1);
	for_each_process_thread(g, t) {
		if (k-- == 0) {
			if (!(t->flags & PF_KTHREAD) && t->tgid != current->tgid) {
				get_task_struct(t);
				found = t;
			}
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Counts @op, or records an unexpected result. */
static void chaos_check(int op, int ret, bool ok)
{
	if (ok) {
		atomic_inc(&chaos_stat[op]);
		return;
	}
	atomic_inc(&chaos_stat[C_UNEXPECTED]);
	snprintf(chaos_last, sizeof(chaos_last), "%s:%d", chaos_names[op], ret);
}

/* Results every call on a possibly dying task may give. */
static bool chaos_gone(int ret)
{
	return ret == -ESRCH || ret == -EALREADY;
}

static void chaos_detach(int i)
{
	struct utrace_engine *e = chaos_pool[i].engine;
	struct task_struct *task = chaos_pool[i].task;
	int ret = utrace_control(task, e, UTRACE_DETACH);

	if (ret == -EINPROGRESS)
		ret = utrace_barrier(task, e);
	chaos_check(C_DETACH, ret, !ret || ret == -ESRCH || ret == -EALREADY);
	utrace_engine_put(e);
	put_task_struct(task);
	chaos_pool[i].engine = NULL;
	chaos_pool[i].task = NULL;
}

static const unsigned long chaos_masks[] = {
	UTRACE_EVENT(CLONE) | UTRACE_EVENT(EXEC) | UTRACE_EVENT(DEATH),
	UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(EXIT) | UTRACE_EVENT(REAP),
	UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(SIGNAL) | UTRACE_EVENT(CLONE),
	UTRACE_EVENT(SYSCALL_ENTRY) | UTRACE_EVENT(SYSCALL_EXIT),
	UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(SYSCALL_EXIT) | UTRACE_EVENT(DEATH),
	0,
};

static int cmd_chaos(long secs)
{
	unsigned long end = jiffies + secs * HZ;
	int i, ret;

	if (secs <= 0 || secs > 600)
		return -EINVAL;
	for (i = 0; i < C_NSTATS; i++)
		atomic_set(&chaos_stat[i], 0);
	chaos_last[0] = '\0';
	while (time_before(jiffies, end) && !fatal_signal_pending(current)) {
		struct utrace_engine *e;
		struct task_struct *task;

		i = get_random_u32_below(CHAOS_ENGINES);
		e = chaos_pool[i].engine;
		task = chaos_pool[i].task;
		if (!e) {
			task = chaos_pick();
			if (!task)
				continue;
			e = utrace_attach_task(task, UTRACE_ATTACH_CREATE, &ops_chaos, CHAOS_DATA);
			if (IS_ERR(e)) {
				ret = PTR_ERR(e);
				chaos_check(C_ATTACH_ERR, ret, ret == -ESRCH || ret == -EPERM);
				put_task_struct(task);
				continue;
			}
			atomic_inc(&chaos_stat[C_ATTACH]);
			chaos_pool[i].engine = e;
			chaos_pool[i].task = task;
			continue;
		}
		switch (get_random_u32_below(9)) {
		case 0:
		case 1:
			ret = utrace_set_events(task, e,
				chaos_masks[get_random_u32_below(ARRAY_SIZE(chaos_masks))]);
			chaos_check(C_EVENTS, ret, !ret || ret == -EINPROGRESS || chaos_gone(ret));
			break;
		case 2:
			ret = utrace_control(task, e, UTRACE_STOP);
			chaos_check(C_STOP, ret, !ret || ret == -EINPROGRESS || chaos_gone(ret));
			break;
		case 3:
		case 4:
			ret = utrace_control(task, e, UTRACE_RESUME);
			chaos_check(C_RESUME, ret, !ret || chaos_gone(ret));
			break;
		case 5:
			ret = utrace_control(task, e, UTRACE_INTERRUPT);
			chaos_check(C_INTERRUPT, ret, !ret || ret == -EINVAL || chaos_gone(ret));
			break;
		case 6:
			ret = utrace_control(task, e, UTRACE_REPORT);
			chaos_check(C_REPORT, ret, !ret || ret == -EINVAL || chaos_gone(ret));
			break;
		case 7:
			ret = utrace_barrier(task, e);
			chaos_check(C_BARRIER, ret, !ret || ret == -ESRCH || ret == -ERESTARTSYS);
			break;
		default:
			chaos_detach(i);
			break;
		}
		if (!get_random_u32_below(16))
			usleep_range(100, 1000);
		cond_resched();
	}
	for (i = 0; i < CHAOS_ENGINES; i++)
		if (chaos_pool[i].engine)
			chaos_detach(i);
	return 0;
}

/*
 * attachrace: utrace_attach_task(CREATE) on a task that is killed, reaped
 * and freed (its sched_process_free run) after attach checked it was alive
 * and before it inserts the task's new state. The first slab allocation of
 * the attaching task after arming, the new state's (utrace-rs's own
 * kmem_cache), goes through a kprobe on kmem_cache_alloc() to race_detour(),
 * which does that in the attacher and then calls the allocator itself.
 * Without a check under the table lock, the state was inserted for a freed
 * task and never reaped (until unload). (It probed the Rust allocator's
 * helper while the state came from kmalloc: since the state has its own
 * cache, that caught the engine's allocation, after the insert.)
 */
typedef unsigned long (*race_fn_t)(unsigned long, unsigned long, unsigned long,
				   unsigned long, unsigned long, unsigned long);
static race_fn_t race_fn;
static struct task_struct *race_attacher;
static atomic_t race_armed = ATOMIC_INIT(0);
static struct pid *race_pid;
static bool race_hit, race_freed;

/* Up to six integer arguments, passed on unchanged (x86-64 calling convention). */
static unsigned long race_detour(unsigned long a, unsigned long b, unsigned long c,
				 unsigned long d, unsigned long e, unsigned long f)
{
	int i;
	bool hashed = true;

	race_hit = true;
	kill_pid(race_pid, SIGKILL, 1);
	for (i = 0; i < 10000 && hashed; i++) {
		rcu_read_lock();
		hashed = pid_task(race_pid, PIDTYPE_PID);
		rcu_read_unlock();
		if (hashed)
			msleep(1);
	}
	/* release_task() queued sched_process_free as an RCU callback: let it run. */
	synchronize_rcu();
	rcu_barrier();
	race_freed = !hashed;
	return race_fn(a, b, c, d, e, f);
}

static int race_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (!in_task() || current != READ_ONCE(race_attacher) || !atomic_xchg(&race_armed, 0))
		return 0;
	instruction_pointer_set(regs, (unsigned long)race_detour);
	return 1;	/* ip changed: no single-step */
}

static struct kprobe race_kp = { .pre_handler = race_pre };

static int cmd_attachrace(int n, long pid)
{
	struct task_struct *task;
	struct utrace_engine *e;
	int ret;

	if (slots[n].engine)
		return -EBUSY;
	/* Exported, but not GPL-only: linked to, not __symbol_get(). */
	race_fn = (race_fn_t)(void *)kmem_cache_alloc_noprof;
	memset(&race_kp, 0, sizeof(race_kp));
	race_kp.symbol_name = "kmem_cache_alloc_noprof";
	race_kp.pre_handler = race_pre;
	ret = register_kprobe(&race_kp);
	if (ret)
		return ret;
	race_pid = find_get_pid(pid);
	task = get_pid_task(race_pid, PIDTYPE_PID);
	if (!task) {
		ret = -ESRCH;
		goto out;
	}
	race_hit = false;
	race_freed = false;
	WRITE_ONCE(race_attacher, current);
	atomic_set(&race_armed, 1);
	e = utrace_attach_task(task, UTRACE_ATTACH_CREATE, &ops_a, (void *)(long)n);
	atomic_set(&race_armed, 0);
	WRITE_ONCE(race_attacher, NULL);
	ret = IS_ERR(e) ? PTR_ERR(e) : 0;
	log_line("%d ATTACHRACE hit=%d freed=%d %d", n, race_hit, race_freed, ret);
	if (ret) {
		put_task_struct(task);
	} else {
		slots[n].engine = e;
		slots[n].task = task;
	}
out:
	unregister_kprobe(&race_kp);
	put_pid(race_pid);
	return ret;
}

static void slot_forget(struct slot *s)
{
	if (s->task)
		put_task_struct(s->task);
	s->engine = NULL;
	s->task = NULL;
}

static int cmd_cleanup(void)
{
	int i, ret;

	for (i = 0; i < NSLOTS; i++) {
		struct slot *s = &slots[i];

		if (!s->engine)
			continue;
		ret = utrace_control(s->task, s->engine, UTRACE_DETACH);
		if (ret == -EINPROGRESS)
			ret = utrace_barrier(s->task, s->engine);
		if (ret == -ERESTARTSYS)
			return ret;
		utrace_engine_put(s->engine);
		slot_forget(s);
	}
	spin_lock(&followers_lock);
	while (nfollowers) {
		struct utrace_engine *e = followers[--nfollowers].engine;
		struct task_struct *task = followers[nfollowers].task;

		spin_unlock(&followers_lock);
		/* The follower's task may be reaped already: -ESRCH is fine. */
		utrace_control(task, e, UTRACE_DETACH);
		utrace_barrier(task, e);
		utrace_engine_put(e);
		put_task_struct(task);
		spin_lock(&followers_lock);
	}
	spin_unlock(&followers_lock);
	return 0;
}

static void reset_stats(void)
{
	int i, j;

	spin_lock_irq(&log_lock);
	log_n = 0;
	spin_unlock_irq(&log_lock);
	for (i = 0; i < NSLOTS; i++)
		for (j = 0; j < _UTRACE_NEVENTS; j++)
			atomic_set(&slots[i].count[j], 0);
	atomic_set(&releases, 0);
	atomic_set(&follow_errors, 0);
	atomic_set(&killed_in_callback, 0);
}

/*
 * streamsoftirq N: emit into a stream from this (process) context and N
 * times from a timer, in softirq, as utrace_stream_emit()'s contract
 * allows; lockdep reports a ring lock that is not safe for that.
 */
struct softirq_emit {
	struct timer_list timer;
	struct utrace_stream *stream;
	int left;
	struct completion done;
};

static void softirq_emit_fn(struct timer_list *t)
{
	struct softirq_emit *se = container_of(t, struct softirq_emit, timer);

	utrace_stream_emit(se->stream, "softirq", 7);
	if (--se->left > 0)
		mod_timer(&se->timer, jiffies + 1);
	else
		complete(&se->done);
}

/* One at a time: ctl serialises the command. */
static struct softirq_emit softirq_emit;

static int cmd_streamsoftirq(long n)
{
	struct softirq_emit *se = &softirq_emit;
	int i;

	if (n < 1 || n > 1000)
		return -EINVAL;
	se->left = n;
	se->stream = utrace_stream_create("utrace_test_softirq", 64);
	if (IS_ERR(se->stream))
		return PTR_ERR(se->stream);
	init_completion(&se->done);
	timer_setup(&se->timer, softirq_emit_fn, 0);
	mod_timer(&se->timer, jiffies + 1);
	for (i = 0; i < 1000 && !completion_done(&se->done); i++)
		utrace_stream_emit(se->stream, "process", 7);
	wait_for_completion(&se->done);
	timer_delete_sync(&se->timer);
	utrace_stream_destroy(se->stream);
	return 0;
}

static int run_cmd(char *buf)
{
	char *argv[6] = { "", "", "", "", "", "" };
	long a1 = 0, a2 = 0, a3 = 0, a4 = 0;
	char *p = strim(buf);
	int argc = 0, n;
	struct slot *s;

	while (p && *p && argc < 6)
		argv[argc++] = strsep(&p, " ");
	if (argc > 1 && kstrtol(argv[1], 0, &a1))
		return -EINVAL;
	if (argc > 2 && kstrtol(argv[2], 0, &a2) && strcmp(argv[0], "attach"))
		return -EINVAL;
	n = a1;
	s = (n >= 0 && n < NSLOTS) ? &slots[n] : NULL;

	if (!strcmp(argv[0], "attach") && s && argc >= 4) {
		if (kstrtol(argv[3], 0, &a3))
			return -EINVAL;
		if (argc > 5 && kstrtol(argv[5], 0, &a4))
			return -EINVAL;
		return cmd_attach(n, a2, a3, argc > 4 ? argv[4] : "a", argc > 5 ? a4 : n);
	}
	if (!strcmp(argv[0], "events") && s && s->engine && argc == 3)
		return utrace_set_events(s->task, s->engine, a2);
	/*
	 * events_kill SLOT EVENTS SIG: set the events, then at once (no return
	 * to user mode in between) send SIG to the slot's task: what the
	 * engine wants of a signal holds for one sent right after
	 * utrace_set_events() returned (the signal kprobe is armed by then).
	 */
	if (!strcmp(argv[0], "events_kill") && s && s->engine && s->task && argc == 4) {
		int ret;

		if (kstrtol(argv[3], 0, &a3) || a3 < 1 || a3 > 64)
			return -EINVAL;
		ret = utrace_set_events(s->task, s->engine, a2);
		if (!ret)
			send_sig(a3, s->task, 0);
		return ret;
	}
	/* events_atomic SLOT EVENTS: utrace_set_events() with preemption off. */
	if (!strcmp(argv[0], "events_atomic") && s && s->engine && argc == 3) {
		int ret;

		preempt_disable();
		ret = utrace_set_events(s->task, s->engine, a2);
		preempt_enable();
		return ret;
	}
	if (!strcmp(argv[0], "control") && s && s->engine && argc == 3)
		return utrace_control(s->task, s->engine, a2);
	if (!strcmp(argv[0], "barrier") && s && s->engine && argc == 2) {
		int ret = utrace_barrier(s->task, s->engine);

		log_line("%d BARRIER_RETURNED %d", n, ret);
		return ret;
	}
	if (!strcmp(argv[0], "get") && s && s->engine && argc == 2) {
		utrace_engine_get(s->engine);
		return 0;
	}
	if (!strcmp(argv[0], "put") && s && s->engine && argc == 2) {
		utrace_engine_put(s->engine);
		slot_forget(s);
		return 0;
	}
	if (!strcmp(argv[0], "put_extra") && s && s->engine && argc == 2) {
		utrace_engine_put(s->engine);
		return 0;
	}
	if (!strcmp(argv[0], "handoff") && s && s->engine && argc == 2)
		return cmd_handoff(s);
	if (!strcmp(argv[0], "hs") && argc == 3) {
		if (a1 < 0 || a1 > HS_P || a2 < 0 || a2 > HS_K)
			return -EINVAL;
		hs_setup(a1, a2);
		return 0;
	}
	if (!strcmp(argv[0], "noop") && s && argc == 3) {
		WRITE_ONCE(s->noop, !!a2);
		return 0;
	}
	if (!strcmp(argv[0], "attachloop") && argc == 3)
		return cmd_attachloop(a1, a2);
	if (!strcmp(argv[0], "attachall") && argc == 3) {
		int ret = cmd_attachall(a1, a2);

		log_line("%d ATTACHALL %d", n, ret);
		return ret < 0 ? ret : 0;
	}
	if (!strcmp(argv[0], "barrierloop") && s && s->engine && argc == 3)
		return cmd_barrierloop(s, a2);
	if (!strcmp(argv[0], "examinepoke") && s && s->engine && s->task && argc == 4) {
		if (kstrtol(argv[3], 0, &a3))
			return -EINVAL;
		return cmd_examinepoke(s, a2, a3);
	}
	if (!strcmp(argv[0], "stoploop") && s && s->engine && s->task && argc == 3)
		return cmd_stoploop(n, a2);
	if (!strcmp(argv[0], "stopwait") && s && s->engine && s->task &&
	    (argc == 3 || (argc == 4 && !strcmp(argv[3], "rt"))))
		return cmd_stopwait(n, a2, argc == 4);
	if (!strcmp(argv[0], "waitstop") && s && s->engine && s->task && argc == 3)
		return cmd_waitstop(n, a2);
	if (!strcmp(argv[0], "sigret") && s && argc == 3) {
		WRITE_ONCE(s->sigret, a2);
		return 0;
	}
	if (!strcmp(argv[0], "sigrewrite") && s && argc == 3) {
		WRITE_ONCE(s->sigrewrite, a2);
		return 0;
	}
	if (!strcmp(argv[0], "sigka") && s && argc == 3 && a2 >= 0 && a2 <= 2) {
		WRITE_ONCE(s->sigka, a2);
		return 0;
	}
	if (!strcmp(argv[0], "sysnr") && s && argc == 3) {
		WRITE_ONCE(s->sys_nr, a2);
		atomic_set(&s->sys_entries, 0);
		atomic_set(&s->sys_exits, 0);
		return 0;
	}
	if (!strcmp(argv[0], "sysabort") && s && argc == 4) {
		if (kstrtol(argv[3], 0, &a3) || a3 <= 0 || a3 > 4095)
			return -EINVAL;
		WRITE_ONCE(s->abort_errno, a3);
		WRITE_ONCE(s->abort_nr, a2);
		return 0;
	}
	if (!strcmp(argv[0], "ret") && s && argc == 3) {
		s->ret = a2;
		return 0;
	}
	if (!strcmp(argv[0], "follow") && s && argc == 3) {
		s->follow = a2;
		return 0;
	}
	if (!strcmp(argv[0], "attach_on") && s && argc == 5) {
		if (kstrtol(argv[3], 0, &a3) || kstrtol(argv[4], 0, &a4) ||
		    a3 < 0 || a3 >= NSLOTS || a2 < 0 || a2 >= _UTRACE_NEVENTS)
			return -EINVAL;
		s->attach_slot = a3;
		s->attach_mask = a4;
		s->attach_on = 1UL << a2;
		return 0;
	}
	if (!strcmp(argv[0], "hold") && argc == 2) {
		WRITE_ONCE(hold_mask, a1);
		return 0;
	}
	if (!strcmp(argv[0], "release") && argc == 1) {
		WRITE_ONCE(hold_mask, 0);
		wake_up_all(&hold_wq);
		return 0;
	}
	if (!strcmp(argv[0], "filter") && argc == 2) {
		filter_tgid = a1;
		return 0;
	}
	if (!strcmp(argv[0], "reset") && argc == 1) {
		reset_stats();
		return 0;
	}
	if (!strcmp(argv[0], "cleanup") && argc == 1)
		return cmd_cleanup();
	if (!strcmp(argv[0], "releaseon") && s && argc == 3) {
		WRITE_ONCE(s->release_on, a2);
		return 0;
	}
	if (!strcmp(argv[0], "barrieron") && s && argc == 3) {
		WRITE_ONCE(s->barrier_on, a2);
		return 0;
	}
	if (!strcmp(argv[0], "lookupexit") && s && argc == 3) {
		WRITE_ONCE(s->lookup_in_exit, !!a2);
		return 0;
	}
	if (!strcmp(argv[0], "step") && s && argc == 3) {
		if (a2 && a2 != UTRACE_SINGLESTEP && a2 != UTRACE_BLOCKSTEP)
			return -EINVAL;
		WRITE_ONCE(s->stepping, false);
		WRITE_ONCE(s->step_mode, a2);
		return 0;
	}
	if (!strcmp(argv[0], "stepdetach") && s && argc == 3) {
		WRITE_ONCE(s->step_detach, a2);
		return 0;
	}
	if (!strcmp(argv[0], "slow") && s && argc == 3) {
		if (a2 < 0 || a2 > 100000)
			return -EINVAL;
		WRITE_ONCE(s->slow_us, a2);
		return 0;
	}
	if (!strcmp(argv[0], "attachrace") && s && argc == 3)
		return cmd_attachrace(n, a2);
	if (!strcmp(argv[0], "chaos") && argc == 2)
		return cmd_chaos(a1);
	if (!strcmp(argv[0], "streamsoftirq") && argc == 2)
		return cmd_streamsoftirq(a1);
	return -EINVAL;
}

/* barrier, held callbacks and chaos may block: do not serialise them. */
static bool ctl_unlocked(const char *cmd)
{
	return !strncmp(cmd, "barrier", 7) || !strncmp(cmd, "release", 7) ||
	       !strncmp(cmd, "chaos", 5) || !strncmp(cmd, "waitstop", 8);
}

#include "test_ctl.h"

static int log_show(struct seq_file *m, void *v)
{
	unsigned long i, first, n;
	char line[LOG_LINE];

	spin_lock_irq(&log_lock);
	n = log_n;
	spin_unlock_irq(&log_lock);
	first = n > LOG_LINES ? n - LOG_LINES : 0;
	if (first)
		seq_printf(m, "# %lu lines overwritten\n", first);
	for (i = first; i < n; i++) {
		spin_lock_irq(&log_lock);
		memcpy(line, log_buf[i % LOG_LINES], LOG_LINE);
		spin_unlock_irq(&log_lock);
		seq_printf(m, "%lu %s\n", i, line);
	}
	return 0;
}

/* Totals, duplicates and misses of a [hs_p][stride] counter array. */
static void hs_show(struct seq_file *m, const char *what, atomic_t *counts, int stride, int k)
{
	int p, i, n, total = 0, dups = 0, missing = 0;

	for (p = 0; p < hs_p; p++)
		for (i = 0; i < k; i++) {
			n = atomic_read(&counts[p * stride + i]);
			total += n;
			dups += n > 1 ? n - 1 : 0;
			missing += !n;
		}
	seq_printf(m, "hs.%s %d\nhs.%s_dups %d\nhs.%s_missing %d\n",
		   what, total, what, dups, what, missing);
}

static int stats_show(struct seq_file *m, void *v)
{
	int i, j;

	seq_printf(m, "held %d\n", atomic_read(&held));
	seq_printf(m, "releases %d\n", atomic_read(&releases));
	seq_printf(m, "follow_errors %d\n", atomic_read(&follow_errors));
	seq_printf(m, "followers %d\n", nfollowers);
	seq_printf(m, "switches %d\n", atomic_read(&switches));
	seq_printf(m, "lost %llu\n", utrace_lost_events());
	seq_printf(m, "killed_in_callback %d\n", atomic_read(&killed_in_callback));
	for (i = 0; i < C_NSTATS; i++)
		seq_printf(m, "chaos.%s %d\n", chaos_names[i], atomic_read(&chaos_stat[i]));
	if (chaos_last[0])
		seq_printf(m, "chaos.last_unexpected %s\n", chaos_last);
	seq_printf(m, "bench.attach_ns %llu\nbench.barrier_ns %llu\nbench.stop_ns %llu\n",
		   bench_attach_ns, bench_barrier_ns, bench_stop_ns);
	seq_printf(m, "bench.stopwait_ns %llu\n", bench_stopwait_ns);
	seq_printf(m, "bench.stopwait_median_ns %llu\n", bench_stopwait_median_ns);
	seq_printf(m, "bench.stopwait_split ctl_cpu=%llu task_cpu=%llu ctl_sleeps=%lu ctl_preempted=%lu task_sleeps=%lu task_preempted=%lu task_syscalls=%lu late=%lu most=%lu late_ns=%llu\n",
		   stopwait_ctl.cpu, stopwait_task.cpu, stopwait_ctl.nvcsw, stopwait_ctl.nivcsw,
		   stopwait_task.nvcsw, stopwait_task.nivcsw, stopwait_task_syscalls,
		   stopwait_late, stopwait_most, stopwait_late_ns);
	if (hs_k) {
		hs_show(m, "exec", &hs_exec[0][0], HS_K, hs_k);
		hs_show(m, "clone", &hs_clone[0][0], HS_K, hs_k);
		hs_show(m, "child_death", &hs_cdeath[0][0], HS_K, hs_k);
		hs_show(m, "death", hs_death, 1, 1);
		seq_printf(m, "hs.by_a %d\nhs.by_b %d\n", atomic_read(&hs_by_ops[0]),
			   atomic_read(&hs_by_ops[1]));
	}
	for (i = 0; i < NSLOTS; i++)
		if (slots[i].step_mode)
			seq_printf(m, "slot%d.steps %d\nslot%d.late_traps %d\n",
				   i, atomic_read(&slots[i].steps),
				   i, atomic_read(&slots[i].late_traps));
	for (i = 0; i < NSLOTS; i++) {
		if (slots[i].sys_nr != -2)
			seq_printf(m, "slot%d.sys_entries %d\nslot%d.sys_exits %d\n",
				   i, atomic_read(&slots[i].sys_entries),
				   i, atomic_read(&slots[i].sys_exits));
	}
	for (i = 0; i < NSLOTS; i++)
		for (j = 0; j < _UTRACE_NEVENTS; j++)
			if (atomic_read(&slots[i].count[j]))
				seq_printf(m, "slot%d.%s %d\n", i, event_names[j],
					   atomic_read(&slots[i].count[j]));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(log);
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init utrace_test_init(void)
{
	int i, ret;

	for (i = 0; i < NSLOTS; i++) {
		slots[i].ret = UTRACE_RESUME;
		slots[i].sigret = UTRACE_RESUME;
		slots[i].sigrewrite = -1;
		slots[i].sigka = 0;
		slots[i].sys_nr = -2;
		slots[i].abort_nr = -2;
	}
	log_buf = kcalloc(LOG_LINES, LOG_LINE, GFP_KERNEL);
	if (!log_buf)
		return -ENOMEM;
	ret = ctl_create("utrace_test");
	if (ret) {
		kfree(log_buf);
		return ret;
	}
	debugfs_create_file("log", 0400, ctl_dir, NULL, &log_fops);
	debugfs_create_file("stats", 0400, ctl_dir, NULL, &stats_fops);
	return 0;
}

static void __exit utrace_test_exit(void)
{
	/* Engines pin this module, so none is left by now. */
	ctl_remove();
	kfree(log_buf);
}

module_init(utrace_test_init);
module_exit(utrace_test_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("utrace-rs developers");
MODULE_DESCRIPTION("utrace-rs selftest engine driven through debugfs");
