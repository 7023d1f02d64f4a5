// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints by name. The scheduler's tracepoints are not exported to
 * modules, so, like LTTng and SystemTap, look them up with
 * for_each_kernel_tracepoint() and register probes on the struct tracepoint.
 * Each probe is type-checked against the tracepoint's TP_PROTO and hands
 * plain arguments to Rust. The Rust hooks run with preemption disabled,
 * which makes them RCU readers (RcuGuard::preempt_off() in rust/edges/hooks.rs):
 * 6.12 calls every probe so; since 6.13 the syscall probes are called
 * preemptible (they may fault, see syscall_hook()), and 7.x calls the others
 * in an SRCU section, preemptible too, so the probes on the fork, exec and
 * exit paths disable preemption themselves (tp_enter()): a few instructions,
 * where an rcu_read_lock()/rcu_read_unlock() pair in the hook is two calls
 * (PREEMPT_RCU). The signal probes run under the siglock, interrupts off.
 */
#include <linux/binfmts.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>

#include "shim.h"

#if UTRACE_KERNEL_7
typedef u64 utrace_clone_flags_t;
#else
typedef unsigned long utrace_clone_flags_t;
#endif

/* Preemption off around a Rust hook (see the top of this file). */
static __always_inline void tp_enter(void)
{
	preempt_disable_notrace();
}

static __always_inline void tp_leave(void)
{
	preempt_enable_notrace();
}

static void probe_newtask(void *data, struct task_struct *task, utrace_clone_flags_t clone_flags)
{
	tp_enter();
	utrace_rs_hook_newtask(task, clone_flags);
	tp_leave();
}

static void probe_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	tp_enter();
	utrace_rs_hook_exec(p, bprm->filename, old_pid);
	tp_leave();
}

#if UTRACE_KERNEL_7
static void probe_exit(void *data, struct task_struct *p, bool group_dead)
{
	tp_enter();
	utrace_rs_hook_exit(p, group_dead);
	tp_leave();
}
#else
static void probe_exit(void *data, struct task_struct *p)
{
	tp_enter();
	/*
	 * do_exit() decremented signal->live just before this tracepoint; 6.12
	 * does not pass its verdict, so read it (another thread exiting in
	 * between can make two threads see 0; 7.x passes the exact answer).
	 */
	utrace_rs_hook_exit(p, !atomic_read(&p->signal->live));
	tp_leave();
}
#endif

static void probe_free(void *data, struct task_struct *p)
{
	utrace_rs_hook_free(p);
}

/*
 * Called with @task's siglock held and interrupts off, in any context (an
 * itimer's signal comes from a hardirq). Every result is passed on: a
 * signal held by the prepare_signal() kprobe but not queued after all
 * must be released.
 */
static void probe_signal(void *data, int sig, struct kernel_siginfo *info,
			 struct task_struct *task, int group, int result)
{
	utrace_rs_hook_signal(sig, task, group,
			      result == TRACE_SIGNAL_DELIVERED || result == TRACE_SIGNAL_LOSE_INFO);
}

/* get_signal() dequeued @sig for current, siglock held; @ka is what it does. */
static void probe_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
				 struct k_sigaction *ka)
{
	if (info && ka->sa.sa_handler != SIG_DFL && ka->sa.sa_handler != SIG_IGN) {
		/* A handler runs next: a stop the cgroup freezer ended first (stop.c). */
		utrace_rs_hook_restop();
		utrace_rs_hook_signal_deliver(sig, info);
	}
}

/*
 * The syscall filter: while the syscall probes are registered every syscall
 * of every thread reaches them, and most of those threads are traced by
 * nobody. A count per hash bucket of task_struct pointers (the buckets of
 * rust/containers/table.rs, utrace_shim_task_hash()) says whether a task in that
 * bucket may want its syscalls (utrace_shim_syscall_filter(): a UTask whose
 * event union has a SYSCALL event, see UTask::update_events); the probe of
 * a task whose bucket is 0 returns at once, without calling into Rust, and
 * hands the bucket on otherwise, so that Rust's table lookup does not hash
 * again. A shared bucket only costs the other task the Rust lookup.
 */
static atomic_t syscall_filter[1 << UTRACE_TASK_HASH_BITS];

static __always_inline u32 task_hash(struct task_struct *task)
{
	return hash_ptr(task, UTRACE_TASK_HASH_BITS);
}

u32 utrace_shim_task_hash(struct task_struct *task)
{
	return task_hash(task);
}

void utrace_shim_syscall_filter(struct task_struct *task, bool add)
{
	atomic_t *count = &syscall_filter[task_hash(task)];

	if (add)
		atomic_inc(count);
	else
		atomic_dec(count);
}

/*
 * The syscall hooks run with preemption disabled on every kernel, which
 * makes them RCU readers (RcuGuard::preempt_off() in rust/edges/hooks.rs) and
 * their callbacks atomic, as include/utrace_rs.h documents them. 6.12
 * calls every probe so; since 6.13 the syscall probes are called
 * preemptible (they may fault), and a preempt-off section here costs a few
 * instructions where an rcu_read_lock()/rcu_read_unlock() pair in the hook
 * was two calls (PREEMPT_RCU) per probe. @state is the probes' data: Rust's
 * state, which registered them (utrace_shim_syscall_hooks()). The
 * arguments are in the order that leaves the probe's own in their
 * registers, and the hooks are called directly (@entry is a constant).
 */
static __always_inline void syscall_hook(void *state, struct pt_regs *regs, bool entry)
{
	struct task_struct *task = current;
	u32 hash = task_hash(task);

	if (!atomic_read(&syscall_filter[hash]))
		return;
#if UTRACE_SYSCALL_TP_FAULTABLE
	preempt_disable_notrace();
#endif
	if (entry)
		utrace_rs_hook_sys_enter(state, regs, hash, task);
	else
		utrace_rs_hook_sys_exit(state, regs, hash, task);
#if UTRACE_SYSCALL_TP_FAULTABLE
	preempt_enable_notrace();
#endif
}

static void probe_sys_enter(void *state, struct pt_regs *regs, long id)
{
	syscall_hook(state, regs, true);
}

static void probe_sys_exit(void *state, struct pt_regs *regs, long ret)
{
	syscall_hook(state, regs, false);
}

struct utrace_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	void *data;
	bool registered;
};

static struct utrace_hook hooks[UTRACE_NR_HOOKS] = {
	[UTRACE_HOOK_NEWTASK] = { "task_newtask", probe_newtask },
	[UTRACE_HOOK_EXEC] = { "sched_process_exec", probe_exec },
	[UTRACE_HOOK_EXIT] = { "sched_process_exit", probe_exit },
	[UTRACE_HOOK_FREE] = { "sched_process_free", probe_free },
	[UTRACE_HOOK_SIGNAL] = { "signal_generate", probe_signal },
	[UTRACE_HOOK_SIGNAL_DELIVER] = { "signal_deliver", probe_signal_deliver },
};

/*
 * The syscall tracepoints make every syscall of every thread take the slow
 * path while a probe is registered, so they are registered only while some
 * engine asks for SYSCALL events (utrace_shim_syscall_hooks()).
 */
static struct utrace_hook syscall_hooks[] = {
	{ "sys_enter", probe_sys_enter },
	{ "sys_exit", probe_sys_exit },
};

static void __maybe_unused check_probe_types(void)
{
	check_trace_callback_type_task_newtask(probe_newtask);
	check_trace_callback_type_sched_process_exec(probe_exec);
	check_trace_callback_type_sched_process_exit(probe_exit);
	check_trace_callback_type_sched_process_free(probe_free);
	check_trace_callback_type_signal_generate(probe_signal);
	check_trace_callback_type_signal_deliver(probe_signal_deliver);
	check_trace_callback_type_sys_enter(probe_sys_enter);
	check_trace_callback_type_sys_exit(probe_sys_exit);
}

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < UTRACE_NR_HOOKS; i++)
		if (!strcmp(tp->name, hooks[i].name))
			hooks[i].tp = tp;
	for (i = 0; i < ARRAY_SIZE(syscall_hooks); i++)
		if (!strcmp(tp->name, syscall_hooks[i].name))
			syscall_hooks[i].tp = tp;
}

/*
 * Register (@on) or unregister the syscall probes, @state their data (what
 * the Rust hook is handed; unregistering takes the data they were
 * registered with). May sleep.
 */
int utrace_shim_syscall_hooks(bool on, void *state)
{
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(syscall_hooks) && on; i++) {
		if (!syscall_hooks[i].tp) {
			pr_err("utrace_rs: tracepoint %s not found (CONFIG_FTRACE_SYSCALLS?)\n",
			       syscall_hooks[i].name);
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register(syscall_hooks[i].tp, syscall_hooks[i].probe, state);
		if (ret) {
			pr_err("utrace_rs: cannot register a probe on %s: %d\n",
			       syscall_hooks[i].name, ret);
			break;
		}
		syscall_hooks[i].registered = true;
		syscall_hooks[i].data = state;
	}
	if (on && !ret)
		return 0;
	for (i = 0; i < ARRAY_SIZE(syscall_hooks); i++) {
		if (!syscall_hooks[i].registered)
			continue;
		WARN_ON(tracepoint_probe_unregister(syscall_hooks[i].tp, syscall_hooks[i].probe,
						    syscall_hooks[i].data));
		syscall_hooks[i].registered = false;
	}
	tracepoint_synchronize_unregister();
	return ret;
}

/* Skip the syscall being entered: its return value is what regs->ax holds. */
void utrace_shim_syscall_abort(struct pt_regs *regs)
{
	regs->orig_ax = -1;
}

void utrace_shim_hooks_unregister(void)
{
	int i;

	for (i = 0; i < UTRACE_NR_HOOKS; i++) {
		if (!hooks[i].registered)
			continue;
		WARN_ON(tracepoint_probe_unregister(hooks[i].tp, hooks[i].probe, NULL));
		hooks[i].registered = false;
	}
	/* No probe runs after this: they may be unloaded. */
	tracepoint_synchronize_unregister();
}

int utrace_shim_hooks_register(void)
{
	int i, ret;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < UTRACE_NR_HOOKS; i++) {
		if (!hooks[i].tp) {
			pr_err("utrace_rs: tracepoint %s not found in this kernel\n",
			       hooks[i].name);
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register(hooks[i].tp, hooks[i].probe, NULL);
		if (ret) {
			pr_err("utrace_rs: cannot register a probe on %s: %d\n",
			       hooks[i].name, ret);
			goto fail;
		}
		hooks[i].registered = true;
	}
	return 0;
fail:
	utrace_shim_hooks_unregister();
	return ret;
}
