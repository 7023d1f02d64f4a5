// SPDX-License-Identifier: GPL-2.0
/*
 * The utrace stop and job control: a thread sleeping in a utrace-rs stop
 * counts as stopped for a group stop (SIGSTOP, SIGTSTP, ...), as utrace's
 * TASK_TRACED stop did, so that one utrace-stopped thread does not keep the
 * rest of its process from completing a group stop.
 *
 * The kernel's own bookkeeping (kernel/signal.c: do_signal_stop(),
 * task_participate_group_stop(), do_notify_parent_cldstop()) is static, so
 * the few steps it takes are made here, under the siglock, the same way:
 *
 * - While stopped, the thread carries JOBCTL_STOPPED (task_is_stopped()): a
 *   group stop that starts meanwhile does not count it and completes with
 *   the other threads; SIGCONT clears JOBCTL_STOPPED and, through the
 *   signal_generate probe, wakes the stop, which marks the thread again.
 * - A stop signal pending for the thread when it stops (visible: none hidden
 *   for a report) starts the group stop, as the thread would have on its
 *   way to user mode (start_group_stop()).
 * - A group stop already pending when the thread stops counts it: it takes
 *   part as do_signal_stop() would, and if it is the last thread it
 *   completes the stop and notifies the parent (SIGCHLD with CLD_STOPPED
 *   unless SIGCHLD is ignored or SA_NOCLDSTOP, and a wake-up of wait()).
 * - When the utrace stop ends while the process is still group-stopped
 *   (no SIGCONT yet), the thread joins that stop (JOBCTL_STOP_PENDING without
 *   CONSUME, as task_join_group_stop() does for a new thread), so it does
 *   not run while its process is stopped.
 *
 * A ptrace attach to a utrace-stopped thread wants it to trap
 * (JOBCTL_TRAPPING); it cannot while utrace-rs holds it, so the trap bit is
 * cleared (task_clear_jobctl_trapping()) and PTRACE_ATTACH does not wait for
 * it: the debugger sees the thread stop once utrace-rs resumes it.
 *
 * The freezers. The stop sleeps in TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE |
 * TASK_NOLOAD | TASK_FREEZABLE (rust/objects/wait.rs): ps shows it as I (idle), it
 * is not load, the suspend freezer freezes it where it sleeps, and -- the
 * INTERRUPTIBLE bit -- signal_wake_up() wakes it. Like do_freezer_trap(), it
 * clears TIF_SIGPENDING (and TIF_NOTIFY_SIGNAL) before each sleep, so that
 * a pending signal does not keep it awake, and sets them again when the
 * stop ends; only SIGKILL ends the stop early.
 *
 * The cgroup v2 freezer (kernel/cgroup/freezer.c) sets JOBCTL_TRAP_FREEZE
 * and signal_wake_up()s the task; a cgroup counts as frozen once each of its
 * tasks called cgroup_enter_frozen(), which only get_signal() does (in
 * do_freezer_trap(), do_signal_stop() and ptrace_stop(); it is neither
 * exported nor callable through a pointer on an IBT kernel). So a stop that
 * finds JOBCTL_TRAP_FREEZE ends (the task's work returns, get_signal() runs
 * do_freezer_trap()) and is taken again once the freezer lets the task go:
 * get_signal() calls dequeue_signal() on its way out of every trap, and a
 * kprobe there queues the task's work again (utrace_rs_hook_restop(), with
 * TWA_NMI_CURRENT: the kprobe may run as an int3, in NMI context), which
 * runs before the task returns to user mode. A handler frame set up for a
 * synchronous signal skips dequeue_signal(): the signal_deliver probe does
 * the same there. Without the kprobe (or without cgroups) the stop ignores
 * JOBCTL_TRAP_FREEZE, as before: the cgroup does not finish freezing.
 */
#include <linux/sched.h>
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/task_work.h>
#include <linux/pid_namespace.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include <utrace_rs_device.h>
#include "shim.h"

/* As do_notify_parent_cldstop(current, false, CLD_STOPPED) would. */
static void notify_parent_stopped(struct task_struct *tsk)
{
	struct task_struct *leader = tsk->group_leader, *parent;
	struct kernel_siginfo info;
	struct sighand_struct *sighand;
	unsigned long flags;
	bool send;

	rcu_read_lock();
	parent = rcu_dereference(leader->real_parent);
	get_task_struct(parent);
	clear_siginfo(&info);
	info.si_signo = SIGCHLD;
	info.si_code = CLD_STOPPED;
	info.si_pid = task_pid_nr_ns(leader, task_active_pid_ns(parent));
	info.si_uid = from_kuid_munged(task_cred_xxx(parent, user_ns), task_uid(leader));
	info.si_status = leader->signal->group_exit_code & 0x7f;
	rcu_read_unlock();

	sighand = parent->sighand;
	spin_lock_irqsave(&sighand->siglock, flags);
	send = sighand->action[SIGCHLD - 1].sa.sa_handler != SIG_IGN &&
	       !(sighand->action[SIGCHLD - 1].sa.sa_flags & SA_NOCLDSTOP);
	/* Even without SIGCHLD, wait() callers are woken. */
	__wake_up_sync_key(&parent->signal->wait_chldexit, TASK_INTERRUPTIBLE, leader);
	spin_unlock_irqrestore(&sighand->siglock, flags);
	if (send)
		send_sig_info(SIGCHLD, &info, parent);
	put_task_struct(parent);
}

/* task_clear_jobctl_trapping(): let a waiting PTRACE_ATTACH go on. */
static void clear_trapping(struct task_struct *t)
{
	if (unlikely(t->jobctl & JOBCTL_TRAPPING)) {
		t->jobctl &= ~JOBCTL_TRAPPING;
		smp_mb();
		wake_up_bit(&t->jobctl, JOBCTL_TRAPPING_BIT);
	}
}

/*
 * will_become_orphaned_pgrp(task_pgrp(@t), NULL) (kernel/exit.c, static):
 * whether @t's process group is orphaned, so that a job-control stop signal
 * does not stop it. Under RCU: tasklist_lock is not exported, and this runs
 * with the siglock held, which may not wait for it anyway.
 */
static bool pgrp_orphaned(struct task_struct *t)
{
	struct task_struct *p, *parent;
	bool orphaned = true;
	struct pid *pgrp;

	rcu_read_lock();
	pgrp = task_pgrp(t);
	do_each_pid_task(pgrp, PIDTYPE_PGID, p) {
		parent = rcu_dereference(p->real_parent);
		if ((p->exit_state && thread_group_empty(p)) || is_global_init(parent))
			continue;
		if (task_pgrp(parent) != pgrp && task_session(parent) == task_session(p)) {
			orphaned = false;
			break;
		}
	} while_each_pid_task(pgrp, PIDTYPE_PGID, p);
	rcu_read_unlock();
	return orphaned;
}

/*
 * current (@t) enters a utrace stop while a stop signal with its default
 * action is pending for it and no group stop is under way: @t would have
 * dequeued it next (it is in its task_work, on its way to get_signal()'s
 * dequeue or back to user mode), so it starts the group stop as
 * get_signal() and do_signal_stop() would have: the signal is dequeued
 * (JOBCTL_STOP_DEQUEUED), group_exit_code set, every other thread that is
 * not stopped already (a utrace-stopped one is: JOBCTL_STOPPED) made to
 * take part and woken. @t takes part through its stop (stop_mark_locked()).
 * Without this, threads that all stop in their JCTL reports (made before
 * the stop signal is dequeued) leave it pending for good: no group stop,
 * no CLD_STOPPED for the parent. Not for a ptraced group (the debugger owns
 * its stops), nor a job-control signal in an orphaned process group, which
 * the kernel discards when it dequeues it. Siglock held.
 */
static void start_group_stop(struct task_struct *t)
{
	static const int stops[] = { SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU };
	struct signal_struct *sig = t->signal;
	const unsigned long gstop = JOBCTL_STOP_PENDING | JOBCTL_STOP_CONSUME;
	kernel_siginfo_t info;
	enum pid_type type;
	struct task_struct *u;
	sigset_t others;
	int i, signr = 0;

	if ((t->jobctl & JOBCTL_STOP_PENDING) || sig->group_stop_count ||
	    (sig->flags & SIGNAL_GROUP_EXIT) || sig->group_exec_task || __fatal_signal_pending(t))
		return;
	for_each_thread(t, u)
		if (u->ptrace)
			return;
	for (i = 0; i < ARRAY_SIZE(stops) && !signr; i++) {
		int s = stops[i];

		if ((!sigismember(&t->pending.signal, s) &&
		     !sigismember(&sig->shared_pending.signal, s)) ||
		    sigismember(&t->blocked, s) || t->sighand->action[s - 1].sa.sa_handler != SIG_DFL)
			continue;
		if (s != SIGSTOP && ((sig->flags & SIGNAL_UNKILLABLE) || pgrp_orphaned(t)))
			continue;
		signr = s;
	}
	if (!signr)
		return;
	sigfillset(&others);
	sigdelset(&others, signr);
	if (dequeue_signal(&others, &info, &type) != signr)
		return;
	if (!(sig->flags & SIGNAL_STOP_STOPPED))
		sig->group_exit_code = signr;
	sig->group_stop_count = 1;
	t->jobctl = (t->jobctl & ~JOBCTL_STOP_SIGMASK) | signr | gstop;
	for_other_threads(t, u) {
		if ((u->jobctl & JOBCTL_STOPPED) || (u->flags & PF_EXITING) ||
		    __fatal_signal_pending(u))
			continue;
		u->jobctl = (u->jobctl & ~JOBCTL_STOP_SIGMASK) | signr | gstop;
		sig->group_stop_count++;
		/* signal_wake_up(u, 0), which is not exported */
		set_tsk_thread_flag(u, TIF_SIGPENDING);
		if (READ_ONCE(u->__state) & TASK_INTERRUPTIBLE)
			wake_up_process(u);
		else
			kick_process(u);
	}
}

/*
 * current is (still) in a utrace stop: count it as stopped for job control
 * (siglock held). Whether its parent is to be notified of a group stop it
 * completed (after the siglock is dropped). Done before each sleep of the
 * stop (SIGCONT clears the mark and wakes it), by the first
 * utrace_shim_stop_sleep_prepare() of each wait.
 */
static bool stop_mark_locked(struct task_struct *t)
{
	struct signal_struct *sig = t->signal;
	bool notify = false;

	start_group_stop(t);
	if (t->jobctl & JOBCTL_STOP_PENDING) {
		/* task_participate_group_stop() */
		bool consume = t->jobctl & JOBCTL_STOP_CONSUME;

		t->jobctl &= ~(JOBCTL_STOP_PENDING | JOBCTL_STOP_CONSUME | JOBCTL_STOP_DEQUEUED);
		if (consume && sig->group_stop_count && !--sig->group_stop_count &&
		    !(sig->flags & SIGNAL_STOP_STOPPED)) {
			signal_set_stop_flags(sig, SIGNAL_STOP_STOPPED);
			notify = true;
		}
	}
	t->jobctl |= JOBCTL_STOPPED;
	clear_trapping(t);
	return notify;
}

/*
 * SIGCONT to @task's group (siglock held): wake its utrace-stopped threads
 * (prepare_signal() cleared their JOBCTL_STOPPED; it only wakes
 * __TASK_STOPPED sleepers, and a utrace stop is not one).
 */
void utrace_shim_wake_stopped_threads(struct task_struct *task)
{
	struct task_struct *t;

	for_each_thread(task, t)
		utrace_rs_wake_stopped(t);
}

/* Whether current still counts as stopped (SIGCONT clears it). */
bool utrace_shim_stop_marked(void)
{
	return READ_ONCE(current->jobctl) & JOBCTL_STOPPED;
}

/*
 * current leaves its utrace stop: no longer counted as stopped; if its
 * process is group-stopped, join that stop (it stops in get_signal() before
 * returning to user mode, until SIGCONT).
 */
void utrace_shim_stop_unmark(void)
{
	struct task_struct *t = current;
	struct signal_struct *sig = t->signal;

	spin_lock_irq(&t->sighand->siglock);
	if (t->jobctl & JOBCTL_STOPPED) {
		t->jobctl &= ~JOBCTL_STOPPED;
		if ((sig->flags & SIGNAL_STOP_STOPPED) && !fatal_signal_pending(t) &&
		    !(sig->flags & SIGNAL_GROUP_EXIT)) {
			t->jobctl |= JOBCTL_STOP_PENDING |
				     (sig->group_exit_code & JOBCTL_STOP_SIGMASK);
			set_tsk_thread_flag(t, TIF_SIGPENDING);
		}
	}
	spin_unlock_irq(&t->sighand->siglock);
}

/* The dequeue_signal() kprobe is in place: a stop may end for the cgroup freezer. */
static bool freezer_restop;

/*
 * Before each sleep of the stop (siglock taken here): with @mark (the first
 * sleep of a wait), count current as stopped for job control first
 * (stop_mark_locked(), under the same siglock); then UTRACE_STOP_KILLED if
 * SIGKILL is pending (the stop ends), UTRACE_STOP_FREEZER if the cgroup
 * freezer wants the task and the stop can be taken again afterwards, else
 * UTRACE_STOP_SLEEP, with TIF_SIGPENDING and TIF_NOTIFY_SIGNAL cleared
 * (recorded in *cleared for utrace_shim_stop_sleep_done()). The task_work
 * a TIF_NOTIFY_SIGNAL announced stays queued: task_work_run(), which runs
 * the stop, runs it next.
 */
int utrace_shim_stop_sleep_prepare(unsigned int *cleared, bool mark)
{
	struct task_struct *t = current;
	int ret = UTRACE_STOP_SLEEP;
	bool notify = false;

	spin_lock_irq(&t->sighand->siglock);
	if (mark)
		notify = stop_mark_locked(t);
	if (__fatal_signal_pending(t)) {
		ret = UTRACE_STOP_KILLED;
	} else if ((t->jobctl & JOBCTL_TRAP_FREEZE) && READ_ONCE(freezer_restop)) {
		ret = UTRACE_STOP_FREEZER;
	} else {
		if (test_and_clear_thread_flag(TIF_SIGPENDING))
			*cleared |= UTRACE_STOP_CLEARED_SIGPENDING;
		if (test_and_clear_thread_flag(TIF_NOTIFY_SIGNAL))
			*cleared |= UTRACE_STOP_CLEARED_NOTIFY;
	}
	spin_unlock_irq(&t->sighand->siglock);
	if (notify && !t->ptrace)
		notify_parent_stopped(t);
	return ret;
}

/* Whether SIGKILL is pending for current (no lock: a look before the siglock's). */
bool utrace_shim_stop_killed(void)
{
	return __fatal_signal_pending(current);
}

/* The stop's sleep is over: set again what utrace_shim_stop_sleep_prepare() cleared. */
void utrace_shim_stop_sleep_done(unsigned int cleared)
{
	if (cleared & UTRACE_STOP_CLEARED_SIGPENDING)
		set_thread_flag(TIF_SIGPENDING);
	if (cleared & UTRACE_STOP_CLEARED_NOTIFY)
		set_thread_flag(TIF_NOTIFY_SIGNAL);
}

/*
 * Queue @work for current to run before it returns to user mode, from any
 * context of current's, NMI included (the kprobe below).
 */
int utrace_shim_stop_queue_current(struct callback_head *work)
{
	return task_work_add(current, work, TWA_NMI_CURRENT);
}

/*
 * Module unload: a process in a group stop (TASK_STOPPED) or a ptrace stop
 * runs its task_work only once continued, which may never come, so the
 * work utrace_rs.ko queued on a task and the task has not started is taken
 * back. task_work_cancel() is not exported (6.12, 7.x), and calling it
 * through an address looked up at run time would be an indirect call to a
 * function whose ENDBR objtool sealed (see step.c): the same steps, with
 * the same protocol as kernel/task_work.c (unchanged since 5.x): under
 * @task's pi_lock, the entry is unlinked by a cmpxchg of the link that
 * points at it; task_work_run() takes the whole list with a cmpxchg of the
 * head and then waits for pi_lock, so an entry is either cancelled here or
 * run there, never both. Whether @cb was queued and is now cancelled.
 */
bool utrace_shim_task_work_cancel(struct task_struct *task, struct callback_head *cb)
{
	struct callback_head **pprev = &task->task_works;
	struct callback_head *work;
	unsigned long flags;

	if (!READ_ONCE(task->task_works))
		return false;
	raw_spin_lock_irqsave(&task->pi_lock, flags);
	work = READ_ONCE(*pprev);
	while (work) {
		if (work != cb) {
			pprev = &work->next;
			work = READ_ONCE(*pprev);
		} else if (try_cmpxchg(pprev, &work, work->next)) {
			break;
		}
	}
	raw_spin_unlock_irqrestore(&task->pi_lock, flags);
	return work == cb;
}

/*
 * The stop's first sleep (current's state is set, it is on its stop's wait
 * queue): wake the utrace_wait_stopped() waiters on @waiters and the
 * readers of @reader (a session's, utrace_chrdev_wake_at_stop(); NULL:
 * none), then sleep,
 * with preemption off in between, as ptrace_stop() does for its tracer
 * (preempt_disable(); do_notify_parent_cldstop(); preempt_enable_no_resched();
 * schedule()). A waiter woken on this CPU would otherwise preempt current
 * at once, find it not yet asleep only in the scheduler's sense, and cost a
 * second switch pair when current comes back to call schedule(). Modules
 * cannot use preempt_enable_no_resched() (preempt.h #undefs it for them):
 * its body, preempt_count_dec() after a barrier, is what it does. The
 * pending reschedule is taken by schedule() right after.
 */
void utrace_shim_stop_schedule_waking(void *waiters, struct utrace_chrdev_file *reader)
{
#ifdef CONFIG_PREEMPT_COUNT
	preempt_count_inc();
	barrier();
#endif
	/* The caller's store of its "parked" flag before the waiters' check. */
	smp_mb();
	wake_up_var(waiters);
	if (reader)
		utrace_chrdev_wake(reader);
#ifdef CONFIG_PREEMPT_COUNT
	barrier();
	preempt_count_dec();
#endif
	schedule();
}

#ifdef CONFIG_CGROUPS
static int dequeue_signal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	bool int3 = utrace_shim_kprobe_from_int3(kp, regs);

	if (!kprobe_disabled(kp))
		utrace_rs_hook_restop();
	/* int3: reached from a stale int3 (see kprobes.c), already passed over. */
	return int3;
}

static struct kprobe dequeue_signal_kp = {
	.symbol_name = "dequeue_signal",
	.pre_handler = dequeue_signal_pre,
};

/* The kprobe that takes a stop again after the cgroup freezer (see the top). */
void utrace_shim_freezer_register(void)
{
	int ret = register_kprobe(&dequeue_signal_kp);

	if (ret) {
		pr_warn("utrace_rs: no kprobe on dequeue_signal (%d): a cgroup with a utrace-stopped task cannot freeze\n",
			ret);
		return;
	}
	WRITE_ONCE(freezer_restop, true);
}

void utrace_shim_freezer_unregister(void)
{
	if (!READ_ONCE(freezer_restop))
		return;
	WRITE_ONCE(freezer_restop, false);
	utrace_shim_kprobe_unregister(&dequeue_signal_kp);
}
#else
/* No cgroups: nothing sets JOBCTL_TRAP_FREEZE. */
void utrace_shim_freezer_register(void)
{
}

void utrace_shim_freezer_unregister(void)
{
}
#endif
