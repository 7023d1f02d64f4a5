// SPDX-License-Identifier: GPL-2.0
/*
 * Signals: the one place where utrace_rs.ko touches signal state.
 *
 * A signal an engine wants to be told of is *hidden* from the sender's side,
 * under the siglock the send runs with: it stays queued with its siginfo on
 * its pending list, but its bit is taken out of the pending set, so no
 * thread dequeues it (next_signal() looks at the set) until the engines have
 * decided. No signal mask is touched, so nothing the task saves (a handler
 * frame's mask, sigprocmask()'s old set) can keep it blocked afterwards. To
 * hold a signal that the kernel would make a group kill (it kills without a
 * core dump by default) or drop (ignored) when it is sent, the
 * prepare_signal() kprobe marks it in every thread's ->real_blocked for
 * the length of that send (complete_signal() and sig_ignored() honour it;
 * only sigtimedwait() uses the field otherwise, under the same siglock),
 * and the signal_generate probe hides it. The task's own work then reports
 * it and carries out the decision from here: release it (deliver), dequeue
 * it (ignore), rewrite its siginfo, or keep it hidden (hold, suspend). A
 * suspended process stops itself in a real group stop (SIGSTOP), so ps,
 * wait(), gdb and SIGCONT treat it natively; on SIGCONT the probe releases
 * the suspended signals.
 */
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include <linux/sched/task_stack.h>
#include <utrace_rs.h>

#include "shim.h"

/* What the disposition in force does with @sig, as a UTRACE_SIGNAL_* class. */
static u32 sig_class(struct task_struct *task, int sig)
{
	void __user *handler = task->sighand->action[sig - 1].sa.sa_handler;

	if (handler == SIG_IGN)
		return UTRACE_SIGNAL_IGN;
	if (handler != SIG_DFL)
		return UTRACE_SIGNAL_DELIVER;
	return utrace_shim_sig_default_class(sig);
}

/* The class of @sig's default action. */
u32 utrace_shim_sig_default_class(int sig)
{
	if (sig < 1 || sig > _NSIG)
		return UTRACE_SIGNAL_IGN;
	if (sig_kernel_coredump(sig))
		return UTRACE_SIGNAL_CORE;
	if (sig_kernel_ignore(sig))
		return UTRACE_SIGNAL_IGN;
	if (sig == SIGSTOP)
		return UTRACE_SIGNAL_STOP;
	if (sig_kernel_stop(sig))
		return UTRACE_SIGNAL_TSTP;
	return UTRACE_SIGNAL_TERM;
}

/* The class of @sig for @task (its siglock held, or @task is current). */
u32 utrace_shim_sig_class(struct task_struct *task, int sig)
{
	return sig_class(task, sig);
}

/*
 * Whether @sig may be held for @task: not SIGKILL or SIGCONT, the task is not
 * ptraced (a debugger owns its signals), it is not exiting (it would never
 * run the report: e.g. a group signal sent to a dead group leader), its
 * process is not dying, and no thread of its group blocks @sig. Unless @early (the prepare_signal()
 * kprobe, before the signal is queued), not a signal that kills without a
 * core dump or is ignored: complete_signal() has made the first a group kill
 * already, and the second was dropped. Called with @task's siglock held.
 */
bool utrace_shim_sig_holdable(struct task_struct *task, int sig, bool early)
{
	struct task_struct *t;
	u32 class;

	if (sig < 1 || sig > 64 || !valid_signal(sig) || sig == SIGKILL ||
	    sig == SIGCONT || task->ptrace || (task->flags & PF_EXITING) ||
	    (task->signal->flags & SIGNAL_GROUP_EXIT) || task->signal->core_state)
		return false;
	class = sig_class(task, sig);
	if (!early && (class == UTRACE_SIGNAL_TERM || class == UTRACE_SIGNAL_IGN))
		return false;
	for_each_thread(task, t)
		if (sigismember(&t->blocked, sig) || sigismember(&t->real_blocked, sig))
			return false;
	return true;
}

/* Whether @task is ptraced (its debugger owns its signals). Siglock held. */
bool utrace_shim_sig_debugger_owns(struct task_struct *task)
{
	return READ_ONCE(task->ptrace) != 0;
}

/* The pending set a signal was queued on: the group's (@shared) or @task's. */
static struct sigpending *pending_of(struct task_struct *task, bool shared)
{
	return shared ? &task->signal->shared_pending : &task->pending;
}

/*
 * The prepare_signal() kprobe: mark (@on) or unmark @sig in every
 * thread's ->real_blocked for this send. Siglock held.
 */
void utrace_shim_sig_shield(struct task_struct *task, int sig, bool on)
{
	struct task_struct *t;

	for_each_thread(task, t) {
		if (on)
			sigaddset(&t->real_blocked, sig);
		else
			sigdelset(&t->real_blocked, sig);
	}
}

/* Hide the queued @sig of @task (@shared: on the group's set). Siglock held. */
void utrace_shim_sig_hide(struct task_struct *task, int sig, bool shared)
{
	sigdelset(&pending_of(task, shared)->signal, sig);
}

/*
 * Instance @nth (from 0) of @sig queued on current's own set (if @private)
 * and then on its group's (if @shared), in the order dequeue_signal() takes
 * them; NULL if fewer are queued. *@on_shared says which set it is on.
 * Siglock held.
 */
static struct sigqueue *nth_queued(int sig, bool private, bool shared, unsigned int nth,
				   bool *on_shared)
{
	struct sigqueue *q;

	if (private)
		list_for_each_entry(q, &current->pending.list, list)
			if (q->info.si_signo == sig && nth-- == 0) {
				*on_shared = false;
				return q;
			}
	if (shared)
		list_for_each_entry(q, &current->signal->shared_pending.list, list)
			if (q->info.si_signo == sig && nth-- == 0) {
				*on_shared = true;
				return q;
			}
	return NULL;
}

/*
 * Show @sig on @p again. A non-realtime signal sent again while it was
 * hidden was queued again (its bit was clear): keep only the first, as the
 * kernel would have. current's siglock held; @p is current's.
 */
static void unhide(struct sigpending *p, int sig)
{
	struct sigqueue *q, *first = NULL;
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t others;
	int n = 0;

	sigaddset(&p->signal, sig);
	if (sig >= SIGRTMIN)
		return;
	list_for_each_entry(q, &p->list, list) {
		if (q->info.si_signo != sig)
			continue;
		if (!first)
			first = q;
		n++;
	}
	if (n < 2)
		return;
	/* dequeue_signal() takes the first queued: make the one to keep the last. */
	list_move_tail(&first->list, &p->list);
	sigfillset(&others);
	sigdelset(&others, sig);
	while (--n > 0 && dequeue_signal(&others, &info, &type) == sig)
		;
}

/*
 * current's hidden @sig (on its own set if @private, the group's if
 * @shared), instance @nth: copy its siginfo (one queued without siginfo
 * gets what collect_signal() would make) and the disposition in force.
 * Returns its class, or -1 when current is dying (SIGKILL flushes the
 * queues).
 */
int utrace_shim_signal_peek(int sig, bool private, bool shared, unsigned int nth,
			    kernel_siginfo_t *info, struct k_sigaction *ka)
{
	struct sigqueue *q;
	bool on_shared;
	int ret;

	clear_siginfo(info);
	info->si_signo = sig;
	info->si_code = SI_USER;
	spin_lock_irq(&current->sighand->siglock);
	q = nth_queued(sig, private, shared, nth, &on_shared);
	if (q)
		copy_siginfo(info, &q->info);
	*ka = current->sighand->action[sig - 1];
	ret = fatal_signal_pending(current) ? -1 : (int)sig_class(current, sig);
	spin_unlock_irq(&current->sighand->siglock);
	return ret;
}

/* How many instances of current's hidden @sig are queued. */
unsigned int utrace_shim_signal_count(int sig, bool private, bool shared)
{
	unsigned int n = 0;
	bool on_shared;

	spin_lock_irq(&current->sighand->siglock);
	while (nth_queued(sig, private, shared, n, &on_shared))
		n++;
	spin_unlock_irq(&current->sighand->siglock);
	return n;
}

/* Replace the siginfo of instance @nth of current's hidden @sig by @info (same signal). */
void utrace_shim_signal_rewrite(int sig, bool private, bool shared, unsigned int nth,
				const kernel_siginfo_t *info)
{
	struct sigqueue *q;
	bool on_shared;

	spin_lock_irq(&current->sighand->siglock);
	q = nth_queued(sig, private, shared, nth, &on_shared);
	if (q) {
		copy_siginfo(&q->info, info);
		q->info.si_signo = sig;
	}
	spin_unlock_irq(&current->sighand->siglock);
}

/*
 * Take instance @nth of current's hidden @sig out of its queue, as
 * dequeue_signal() takes one (it frees it, and a timer's is the timer's
 * again): made the first of @sig on its set, which alone shows @sig for
 * the call; the others stay queued and hidden.
 */
void utrace_shim_signal_discard(int sig, bool private, bool shared, unsigned int nth)
{
	struct sigpending *p, *other;
	kernel_siginfo_t info;
	enum pid_type type;
	struct sigqueue *q;
	bool on_shared, other_set;
	sigset_t others;

	spin_lock_irq(&current->sighand->siglock);
	q = nth_queued(sig, private, shared, nth, &on_shared);
	if (q) {
		p = pending_of(current, on_shared);
		other = pending_of(current, !on_shared);
		other_set = sigismember(&other->signal, sig);
		list_move(&q->list, &p->list);
		sigdelset(&other->signal, sig);
		sigaddset(&p->signal, sig);
		sigfillset(&others);
		sigdelset(&others, sig);
		dequeue_signal(&others, &info, &type);
		sigdelset(&p->signal, sig);
		if (other_set)
			sigaddset(&other->signal, sig);
		recalc_sigpending();
	}
	spin_unlock_irq(&current->sighand->siglock);
}

/*
 * current is exiting and showed the process-wide @sig again: exit_signals()
 * has passed the group's pending signals on already, so have a live thread
 * that does not block @sig look at its signals, as complete_signal() would
 * (none if every thread blocks it: the first to unblock it takes it).
 * signal_wake_up() is not exported: the flag, then a wake-up of a thread
 * that sleeps interruptibly (one about to sleep sees the flag first).
 * Siglock held.
 */
static void wake_one_for(int sig)
{
	struct task_struct *t;

	for_each_thread(current, t) {
		if (t->flags & PF_EXITING || sigismember(&t->blocked, sig))
			continue;
		set_tsk_thread_flag(t, TIF_SIGPENDING);
		if (READ_ONCE(t->__state) & TASK_INTERRUPTIBLE)
			wake_up_process(t);
		return;
	}
}

/*
 * Release current's hidden @sig: show it again and, if @discard, take every
 * queued instance out (an engine ignored it), in one siglock section so
 * that no other thread dequeues it in between. @unhold(@data) runs first in
 * that section: it stops holding @sig and says where it was hidden
 * (UTRACE_SHIM_HID_*; nothing to do if 0). The signal probes, which run
 * under the same lock, so never see the hold gone while the signal is
 * still hidden (a send in between would start a second hold of an
 * instance this release then shows and merges away).
 */
void utrace_shim_signal_release(int sig, u32 (*unhold)(void *data), void *data, bool discard)
{
	kernel_siginfo_t info;
	enum pid_type type;
	bool private, shared;
	sigset_t others;
	u32 where;

	spin_lock_irq(&current->sighand->siglock);
	where = unhold(data);
	private = where & UTRACE_SHIM_HID_PRIVATE;
	shared = where & UTRACE_SHIM_HID_SHARED;
	if (!private && !shared)
		goto out;
	if (private)
		unhide(&current->pending, sig);
	if (shared)
		unhide(&current->signal->shared_pending, sig);
	if (discard) {
		sigfillset(&others);
		sigdelset(&others, sig);
		/* Non-realtime signals are queued once; realtime ones, maybe more. */
		while (dequeue_signal(&others, &info, &type) == sig)
			;
	} else if (shared && (current->flags & PF_EXITING)) {
		wake_one_for(sig);
	}
	recalc_sigpending();
out:
	spin_unlock_irq(&current->sighand->siglock);
}

/*
 * The SIGCONT probe: release @t's suspended signals, on its own set
 * (@private) and the group's (@shared) (bit sig-1), with the siglock held
 * by the sender, and make the threads look at their signals. (A second
 * non-realtime instance sent while suspended was merged at its send, see
 * utrace_shim_sig_mark_pending().)
 */
void utrace_shim_signal_release_locked(struct task_struct *t, u64 private, u64 shared)
{
	struct task_struct *u;
	int sig;

	for (sig = 1; sig <= 64 && sig <= _NSIG; sig++) {
		if (private & (1ULL << (sig - 1)))
			sigaddset(&t->pending.signal, sig);
		if (shared & (1ULL << (sig - 1)))
			sigaddset(&t->signal->shared_pending.signal, sig);
	}
	set_tsk_thread_flag(t, TIF_SIGPENDING);
	if (shared)
		for_each_thread(t, u)
			set_tsk_thread_flag(u, TIF_SIGPENDING);
}

/*
 * The send kprobe of a non-realtime signal @t holds suspended (bit sig-1, on
 * its own set if in @private, the group's if in @shared): set (@on) its
 * pending bits for the length of this send, so that __send_signal_locked()
 * finds it pending and merges the new instance (TRACE_SIGNAL_ALREADY_PENDING:
 * nothing queued, nobody woken), as it would have without the hold; the
 * signal_generate probe clears them again, under the same siglock. Nothing
 * between the two reads these bits for anything else. Siglock held.
 */
void utrace_shim_sig_mark_pending(struct task_struct *t, u64 private, u64 shared, bool on)
{
	int sig;

	for (sig = 1; sig <= 64 && sig <= _NSIG; sig++) {
		u64 bit = 1ULL << (sig - 1);

		if (private & bit) {
			if (on)
				sigaddset(&t->pending.signal, sig);
			else
				sigdelset(&t->pending.signal, sig);
		}
		if (shared & bit) {
			if (on)
				sigaddset(&t->signal->shared_pending.signal, sig);
			else
				sigdelset(&t->signal->shared_pending.signal, sig);
		}
	}
}

/* 0 for SIG_DFL, 1 for SIG_IGN, 2 for a handler. */
int utrace_shim_ka_kind(const struct k_sigaction *ka)
{
	if (ka->sa.sa_handler == SIG_DFL)
		return 0;
	return ka->sa.sa_handler == SIG_IGN ? 1 : 2;
}

/*
 * Send @sig to current with @info (NULL: as the kernel), as the engines
 * rewrote or redirected a signal.
 */
void utrace_shim_send_self(int sig, kernel_siginfo_t *info)
{
	if (info)
		info->si_signo = sig;
	send_sig_info(sig, info ? info : SEND_SIG_PRIV, current);
}

/*
 * Make @sig's disposition the default in current's process: TERM or CORE
 * chosen by an engine for a signal the process handles (the process dies of
 * it, so nobody sees the change).
 */
void utrace_shim_set_default_action(int sig)
{
	spin_lock_irq(&current->sighand->siglock);
	current->sighand->action[sig - 1].sa.sa_handler = SIG_DFL;
	spin_unlock_irq(&current->sighand->siglock);
}

/* Call @fn(thread, @data) for every thread of @task's group. Siglock held. */
void utrace_shim_for_each_thread(struct task_struct *task,
				 void (*fn)(struct task_struct *, void *), void *data)
{
	struct task_struct *t;

	for_each_thread(task, t)
		fn(t, data);
}

/*
 * Call @fn(@data) with @task's siglock held (interrupts off), as
 * lock_task_sighand() takes it (not exported): false, and @fn not called,
 * if @task has no sighand any more (released).
 */
bool utrace_shim_with_siglock(struct task_struct *task, void (*fn)(void *), void *data)
{
	struct sighand_struct *sighand;
	unsigned long flags;
	bool ran = false;

	rcu_read_lock();
	for (;;) {
		sighand = rcu_dereference(task->sighand);
		if (!sighand)
			break;
		spin_lock_irqsave(&sighand->siglock, flags);
		if (likely(sighand == rcu_access_pointer(task->sighand))) {
			fn(data);
			ran = true;
			spin_unlock_irqrestore(&sighand->siglock, flags);
			break;
		}
		spin_unlock_irqrestore(&sighand->siglock, flags);
	}
	rcu_read_unlock();
	return ran;
}

/*
 * In the signal_generate probe of a SIGCONT: whether it continued a stopped
 * (or stopping) process (prepare_signal() marked it so). Siglock held.
 */
bool utrace_shim_group_continued(struct task_struct *task)
{
	return task->signal->flags & SIGNAL_STOP_CONTINUED;
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
