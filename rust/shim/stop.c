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
 */
#include <linux/sched.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

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
 * current is (still) in a utrace stop: count it as stopped for job control.
 * Called before each sleep of the stop (SIGCONT clears the mark and wakes it).
 */
void utrace_shim_stop_mark(void)
{
	struct task_struct *t = current;
	struct signal_struct *sig = t->signal;
	bool notify = false;

	spin_lock_irq(&t->sighand->siglock);
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
	spin_unlock_irq(&t->sighand->siglock);
	if (notify && !t->ptrace)
		notify_parent_stopped(t);
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
