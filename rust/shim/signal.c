// SPDX-License-Identifier: GPL-2.0
/*
 * Held signals: the one place where utrace_rs.ko touches signal state.
 *
 * A signal an engine wants to hold (SIGNAL_CORE events) is blocked in every
 * thread of the group from the signal_generate probe, under the siglock the
 * probe runs with, so it stays queued with its siginfo and no thread can
 * dequeue it before the engine has decided (the kernel's own
 * force_sig_info_to_task() edits another task's ->blocked under siglock the
 * same way). The task then stops itself in a real group stop (SIGSTOP), so
 * ps, wait(), gdb and SIGCONT treat it natively; on SIGCONT the probe
 * unblocks the held signals and the thread that continues dequeues them.
 */
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include "shim.h"

/*
 * Whether @sig may be held for @task: not SIGKILL, SIGSTOP or SIGCONT, not
 * fatal-without-core at its default disposition, the task is not ptraced (a
 * debugger owns its signals) and no thread of its group blocks @sig. Called
 * with @task's siglock held.
 */
bool utrace_shim_sig_holdable(struct task_struct *task, int sig)
{
	struct task_struct *t;

	if (sig < 1 || sig > 64 || !valid_signal(sig) || sig_kernel_only(sig) ||
	    sig == SIGCONT || task->ptrace)
		return false;
	/*
	 * A signal that kills without a core dump at its default disposition
	 * has been turned into a group kill by complete_signal() already, before
	 * the probe runs: too late to hold or ignore.
	 */
	if (task->sighand->action[sig - 1].sa.sa_handler == SIG_DFL && !sig_kernel_ignore(sig) &&
	    !sig_kernel_stop(sig) && !sig_kernel_coredump(sig))
		return false;
	for_each_thread(task, t)
		if (sigismember(&t->blocked, sig))
			return false;
	return true;
}

/* Whether @sig dumps core by default and @task leaves it at the default. */
bool utrace_shim_sig_core_default(struct task_struct *task, int sig)
{
	return sig_kernel_coredump(sig) &&
	       task->sighand->action[sig - 1].sa.sa_handler == SIG_DFL;
}

/* Take the queued @sig out of current's queues (an engine ignored it). */
void utrace_shim_discard_signal(int sig)
{
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t others;

	sigfillset(&others);
	sigdelset(&others, sig);
	spin_lock_irq(&current->sighand->siglock);
	/* Non-realtime signals are queued once; realtime ones, maybe more. */
	while (dequeue_signal(&others, &info, &type) == sig)
		;
	spin_unlock_irq(&current->sighand->siglock);
}

/* Block @sig in every thread of @task's group. Called with siglock held. */
void utrace_shim_hold_signal(struct task_struct *task, int sig)
{
	struct task_struct *t;

	for_each_thread(task, t)
		sigaddset(&t->blocked, sig);
}

/*
 * Unblock the signals of @mask (bit sig-1) in every thread of @task's group
 * and make the threads look at their signals again. @locked: the caller holds
 * the siglock (the probe); otherwise @task must be current.
 */
void utrace_shim_unblock_signals(struct task_struct *task, u64 mask, bool locked)
{
	struct task_struct *t;
	int sig;

	if (!locked)
		spin_lock_irq(&task->sighand->siglock);
	for_each_thread(task, t) {
		for (sig = 1; sig <= 64 && sig <= _NSIG; sig++)
			if (mask & (1ULL << (sig - 1)))
				sigdelset(&t->blocked, sig);
		set_tsk_thread_flag(t, TIF_SIGPENDING);
	}
	if (!locked)
		spin_unlock_irq(&task->sighand->siglock);
}

/* Stop the calling thread's group, as SIGSTOP sent to this thread does. */
void utrace_shim_stop_self(void)
{
	send_sig_info(SIGSTOP, SEND_SIG_PRIV, current);
}

/* Continue @task's group (SIGCONT to the process), which releases held signals. */
void utrace_shim_continue(struct task_struct *task)
{
	kill_pid(task_tgid(task), SIGCONT, 1);
}

/*
 * An EXIT report changed @task's (current's) exit code to @code. When it is
 * the thread that made its process dead (@group_dead, from the exit hook),
 * the group's code is what wait() reports (since 5.17 a last thread's plain
 * exit() sets SIGNAL_GROUP_EXIT too), so change that as well; another
 * thread only changes its own.
 */
void utrace_shim_set_exit_code(struct task_struct *task, int code, bool group_dead)
{
	struct signal_struct *signal = task->signal;

	task->exit_code = code;
	if (!group_dead)
		return;
	spin_lock_irq(&task->sighand->siglock);
	if (signal->flags & SIGNAL_GROUP_EXIT)
		signal->group_exit_code = code;
	spin_unlock_irq(&task->sighand->siglock);
}
