// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_test.ko, the test engine: the slots the ctl commands fill, the
 * callbacks every test engine runs (they log, count and do what the slot
 * was told: hold, attach, follow, abort, step, return what they were told),
 * attach, handoff and clean-up, and the log and counters they leave.
 */
#include "utrace_test.h"

struct slot slots[NSLOTS];

static struct {
	struct utrace_engine *engine;
	struct task_struct *task;	/* reference held */
} followers[MAX_FOLLOWERS];
static int nfollowers;
static DEFINE_SPINLOCK(followers_lock);

static char (*log_buf)[LOG_LINE];
static unsigned long log_n;	/* lines ever written */
static DEFINE_SPINLOCK(log_lock);

unsigned long hold_mask;
atomic_t held = ATOMIC_INIT(0);
static atomic_t releases = ATOMIC_INIT(0);
static atomic_t follow_errors = ATOMIC_INIT(0);
DECLARE_WAIT_QUEUE_HEAD(hold_wq);
pid_t filter_tgid;
atomic_t switches = ATOMIC_INIT(0);
/* Callbacks that ended with a fatal signal pending (sent mid-callback). */
static atomic_t killed_in_callback = ATOMIC_INIT(0);

/* Handoff stress: what each of P processes reported, step by step. */
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

/* stoploop: the stop was reported / the task runs again. */
DECLARE_COMPLETION(stop_reported);
DECLARE_COMPLETION(run_again);
int stoploop_slot = -1;
bool stoploop_wait_run;
/* stopwait: this slot's QUIESCE(0) callback returns STOP, silently. */
int stopwait_slot = -1;
/* Syscalls the stopwait slot's task entered (only that task writes it). */
unsigned long stopwait_syscalls;

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

void log_line(const char *fmt, ...)
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
int slot_of(struct utrace_engine *engine)
{
	return (int)(long)engine->data;
}

/* The slot's callbacks are no-ops (benchmarks): nothing formatted, nothing logged. */
static bool noop(struct utrace_engine *engine)
{
	int n = slot_of(engine);

	return n < NSLOTS && READ_ONCE(slots[n].noop);
}

bool counted(struct task_struct *task)
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
const struct utrace_engine_ops ops_a = TEST_OPS;
const struct utrace_engine_ops ops_b = TEST_OPS;
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

int cmd_attach(int n, long pid, long flags, const char *opsname, long data)
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

int cmd_handoff(struct slot *s)
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

void hs_setup(int p, int k)
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

void slot_forget(struct slot *s)
{
	if (s->task)
		put_task_struct(s->task);
	s->engine = NULL;
	s->task = NULL;
}

/*
 * What the ctl commands set in a slot, back to what it is at module init
 * (the engine, its task and the counters are not touched).
 */
static void slot_defaults(struct slot *s)
{
	WRITE_ONCE(s->ret, UTRACE_RESUME);
	WRITE_ONCE(s->follow, 0);
	WRITE_ONCE(s->attach_on, 0);
	WRITE_ONCE(s->attach_slot, 0);
	WRITE_ONCE(s->attach_mask, 0);
	WRITE_ONCE(s->sys_nr, -2);
	WRITE_ONCE(s->sigret, UTRACE_RESUME);
	WRITE_ONCE(s->sigrewrite, -1);
	WRITE_ONCE(s->sigka, 0);
	WRITE_ONCE(s->noop, false);
	WRITE_ONCE(s->abort_nr, -2);
	WRITE_ONCE(s->abort_errno, 0);
	WRITE_ONCE(s->slow_us, 0);
	WRITE_ONCE(s->release_on, 0);
	WRITE_ONCE(s->barrier_on, 0);
	WRITE_ONCE(s->lookup_in_exit, false);
	WRITE_ONCE(s->step_mode, 0);
	WRITE_ONCE(s->stepping, false);
	WRITE_ONCE(s->step_detach, 0);
}

int cmd_cleanup(void)
{
	int i, ret;

	for (i = 0; i < NSLOTS; i++) {
		struct slot *s = &slots[i];

		if (!s->engine) {
			slot_defaults(s);
			continue;
		}
		ret = utrace_control(s->task, s->engine, UTRACE_DETACH);
		if (ret == -EINPROGRESS)
			ret = utrace_barrier(s->task, s->engine);
		if (ret == -ERESTARTSYS)
			return ret;
		utrace_engine_put(s->engine);
		slot_forget(s);
		/* Detached and waited for: no callback reads the settings. */
		slot_defaults(s);
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

void reset_stats(void)
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

int test_log_show(struct seq_file *m)
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

/* The slots' defaults and the log: at module init. */
int test_engine_init(void)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		slot_defaults(&slots[i]);
	log_buf = kcalloc(LOG_LINES, LOG_LINE, GFP_KERNEL);
	return log_buf ? 0 : -ENOMEM;
}

void test_engine_exit(void)
{
	kfree(log_buf);
}

/* The engine's counters, one "name value" a line. */
void test_counters_show(struct seq_file *m)
{
	seq_printf(m, "held %d\n", atomic_read(&held));
	seq_printf(m, "releases %d\n", atomic_read(&releases));
	seq_printf(m, "follow_errors %d\n", atomic_read(&follow_errors));
	seq_printf(m, "followers %d\n", nfollowers);
	seq_printf(m, "switches %d\n", atomic_read(&switches));
	seq_printf(m, "lost %llu\n", utrace_lost_events());
	seq_printf(m, "killed_in_callback %d\n", atomic_read(&killed_in_callback));
}

/* The handoff stress's and the slots' counters. */
void test_slots_show(struct seq_file *m)
{
	int i, j;

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
}
