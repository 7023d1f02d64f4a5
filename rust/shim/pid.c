// SPDX-License-Identifier: GPL-2.0
/*
 * Whose descendant a task is, by process identity (a struct pid) rather
 * than by number: the parent chain and the thread group's struct pid are
 * behind RCU and static inlines that Rust on 6.12 cannot reach. The rest of
 * rust/api/pid.rs uses exported kernel functions.
 */
#include <linux/export.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <utrace_rs.h>

bool utrace_task_descends_from_pid(struct task_struct *task, struct pid *tgid)
{
	bool found = false;
	struct task_struct *t;

	rcu_read_lock();
	/* Up the real parents to the idle task (pid 0), its own parent. */
	for (t = task; t->pid; t = rcu_dereference(t->real_parent)) {
		if (task_tgid(t) == tgid) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(utrace_task_descends_from_pid);
