// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel facilities that Rust on 6.12 cannot call: static inlines, macros and
 * enums of headers that the kernel crate's bindings do not include.
 */
#include <linux/rcupdate.h>
#include <linux/task_work.h>

#include "shim.h"

/*
 * Queue @work to run in @task's context before it next returns to user mode
 * (or in do_exit() if it is exiting). -ESRCH once the task is past
 * exit_task_work().
 */
int utrace_shim_task_work_add(struct task_struct *task, struct callback_head *work)
{
	return task_work_add(task, work, TWA_RESUME);
}

void utrace_shim_rcu_read_lock(void)
{
	rcu_read_lock();
}

void utrace_shim_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

/*
 * Wait until every task has passed a voluntary context switch: after this no
 * task can still be executing an instruction of this module's text (a task
 * preempted right after a task_work callback's last store, say).
 */
void utrace_shim_synchronize_tasks(void)
{
	synchronize_rcu_tasks();
}
