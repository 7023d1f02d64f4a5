// SPDX-License-Identifier: GPL-2.0
/*
 * Who a task is (utrace_task_ids), whose descendant it is
 * (utrace_task_descends_from) and which cgroup it is in (utrace_cgroup_*):
 * credentials, pid namespaces, the parent chain and the css_set are behind
 * RCU and static inlines that Rust on 6.12 cannot reach.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uidgid.h>
#include <utrace_rs.h>

/*
 * Signals pending and blocked for @task (bit sig-1), read under its siglock
 * (lock_task_sighand()'s loop: __lock_task_sighand is not exported); 0 once
 * it has no sighand (reaped).
 */
static u64 held_signals(struct task_struct *task)
{
	struct sighand_struct *sighand;
	unsigned long irqflags;
	sigset_t held;
	u64 ret = 0;

	rcu_read_lock();
	for (;;) {
		sighand = rcu_dereference(task->sighand);
		if (!sighand)
			break;
		spin_lock_irqsave(&sighand->siglock, irqflags);
		if (likely(sighand == rcu_access_pointer(task->sighand))) {
			sigorsets(&held, &task->pending.signal,
				  &task->signal->shared_pending.signal);
			sigandsets(&held, &held, &task->blocked);
			ret = held.sig[0];
			spin_unlock_irqrestore(&sighand->siglock, irqflags);
			break;
		}
		spin_unlock_irqrestore(&sighand->siglock, irqflags);
	}
	rcu_read_unlock();
	return ret;
}

void utrace_task_ids(struct task_struct *task, struct utrace_task_ids *ids)
{
	struct pid_namespace *ns;
	const struct cred *cred;
	unsigned int state;

	memset(ids, 0, sizeof(*ids));
	rcu_read_lock();
	cred = __task_cred(task);
	ids->uid = from_kuid_munged(&init_user_ns, cred->uid);
	ids->euid = from_kuid_munged(&init_user_ns, cred->euid);
	ns = task_active_pid_ns(task);
	if (ns) {
		ids->ns_pid = task_pid_nr_ns(task, ns);
		ids->ns_tgid = task_tgid_nr_ns(task, ns);
	}
	rcu_read_unlock();
	if (task->flags & (PF_KTHREAD | PF_USER_WORKER))
		ids->flags |= UTRACE_TASK_KERNEL;
	if (READ_ONCE(task->ptrace))
		ids->flags |= UTRACE_TASK_PTRACED;
	state = READ_ONCE(task->__state);
	if (state & __TASK_STOPPED)
		ids->flags |= UTRACE_TASK_STOPPED;
	if (state & __TASK_TRACED)
		ids->flags |= UTRACE_TASK_TRACED;
	if ((task->flags & PF_EXITING) || task->exit_state)
		ids->flags |= UTRACE_TASK_EXITING;
	ids->held = held_signals(task);
}
EXPORT_SYMBOL_GPL(utrace_task_ids);

bool utrace_task_descends_from(struct task_struct *task, pid_t tgid)
{
	bool found = false;
	struct task_struct *t;

	rcu_read_lock();
	/* Up the real parents to the idle task (pid 0), its own parent. */
	for (t = task; t->pid; t = rcu_dereference(t->real_parent)) {
		if (t->tgid == tgid) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(utrace_task_descends_from);

/*
 * The cgroup v2 (default hierarchy) cgroup at @path (absolute, from the
 * caller's cgroup namespace root), with a reference for utrace_cgroup_put();
 * or ERR_PTR: -ENOENT (no such cgroup), -ENOTDIR (a file), -EOPNOTSUPP
 * (no CONFIG_CGROUPS). Process context.
 */
struct cgroup *utrace_cgroup_get(const char *path)
{
#ifdef CONFIG_CGROUPS
	return cgroup_get_from_path(path);
#else
	return ERR_PTR(-EOPNOTSUPP);
#endif
}
EXPORT_SYMBOL_GPL(utrace_cgroup_get);

/* Drops the reference utrace_cgroup_get() returned. Any context. */
void utrace_cgroup_put(struct cgroup *cgrp)
{
#ifdef CONFIG_CGROUPS
	cgroup_put(cgrp);
#endif
}
EXPORT_SYMBOL_GPL(utrace_cgroup_put);

/*
 * Whether @task's cgroup v2 cgroup is @cgrp or below it. No lock: the
 * css_set is read under RCU. Any context but NMI.
 */
bool utrace_task_in_cgroup(struct task_struct *task, struct cgroup *cgrp)
{
#ifdef CONFIG_CGROUPS
	bool in;

	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(task), cgrp);
	rcu_read_unlock();
	return in;
#else
	return false;
#endif
}
EXPORT_SYMBOL_GPL(utrace_task_in_cgroup);
