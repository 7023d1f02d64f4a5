// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel facilities that Rust on 6.12 cannot call: static inlines, macros and
 * enums of headers that the kernel crate's bindings do not include.
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/preempt.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/timer.h>

#include "shim.h"

/*
 * Queue @work to run in @task's context before it next returns to user mode
 * (or in do_exit() if it is exiting); with @notify_signal, as soon as possible
 * (an interruptible sleep is interrupted and its syscall restarted). -ESRCH
 * once the task is past exit_task_work().
 */
int utrace_shim_task_work_add(struct task_struct *task, struct callback_head *work,
			      bool notify_signal)
{
	/* TWA_SIGNAL also interrupts an interruptible sleep (syscalls restart). */
	return task_work_add(task, work, notify_signal ? TWA_SIGNAL : TWA_RESUME);
}

/*
 * A slab cache for @size-byte objects aligned to @align (kmem_cache_create()
 * is a macro, _Generic over its third argument since 6.12).
 */
struct kmem_cache *utrace_shim_cache_create(const char *name, unsigned int size,
					    unsigned int align)
{
	return kmem_cache_create(name, size, align, 0, NULL);
}

/* kmem_cache_alloc() is a macro (allocation profiling's hook). */
void *utrace_shim_cache_alloc(struct kmem_cache *cache, gfp_t gfp)
{
	return kmem_cache_alloc(cache, gfp);
}

/* @task's comm, NUL-padded (compat: __get_task_comm() is gone in 6.13). */
void utrace_shim_task_comm(char *buf, size_t len, struct task_struct *task)
{
#if UTRACE_KERNEL_7
	strscpy_pad(buf, task->comm, len);
#else
	__get_task_comm(buf, len, task);
#endif
}

void utrace_shim_rcu_read_lock(void)
{
	rcu_read_lock();
}

void utrace_shim_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

/* local_irq_save()/local_irq_restore(), for the task table's lock. */
unsigned long utrace_shim_irq_save(void)
{
	unsigned long flags;

	local_irq_save(flags);
	return flags;
}

void utrace_shim_irq_restore(unsigned long flags)
{
	local_irq_restore(flags);
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

/*
 * Whether the caller may sleep: task context, preemption and interrupts on,
 * outside an RCU read-side section. Without CONFIG_PREEMPT_COUNT the kernel
 * cannot tell, and preemptible() says no.
 */
bool utrace_shim_may_sleep(void)
{
	return in_task() && preemptible() && !rcu_preempt_depth();
}

/*
 * Whether the caller certainly may not sleep (interrupt, softirq, irqs or
 * preemption off, an RCU read-side section): calls that would sleep refuse
 * then. Without CONFIG_PREEMPT_COUNT only interrupts and disabled irqs can
 * be told.
 */
bool utrace_shim_atomic(void)
{
#ifdef CONFIG_PREEMPT_COUNT
	return !utrace_shim_may_sleep();
#else
	return !in_task() || irqs_disabled();
#endif
}

/* Whether @mod is not being unloaded (or failing its init). */
bool utrace_shim_module_live(struct module *mod)
{
	return module_is_live(mod);
}

/*
 * The module notifier: at MODULE_STATE_GOING (after the module's exit
 * function, before its memory is freed; also when its init failed) the
 * engines it left behind are detached and released.
 */
static int utrace_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	if (state == MODULE_STATE_GOING)
		utrace_rs_module_going(data);
	return NOTIFY_DONE;
}

static struct notifier_block utrace_module_nb = {
	.notifier_call = utrace_module_notify,
};

int utrace_shim_module_notifier(bool on)
{
	if (on)
		return register_module_notifier(&utrace_module_nb);
	return unregister_module_notifier(&utrace_module_nb);
}

/* poll(): wait on @wq, readable or not. */
__poll_t utrace_shim_poll(struct file *file, wait_queue_head_t *wq, poll_table *pt, bool readable)
{
	poll_wait(file, wq, pt);
	return readable ? EPOLLIN | EPOLLRDNORM : 0;
}

/* A one-shot timer calling @fn (streams: a reader's deferred wakeup). */
void utrace_shim_timer_init(struct timer_list *timer, void (*fn)(struct timer_list *))
{
	timer_setup(timer, fn, 0);
}

/* Arm @timer to fire in about @ms milliseconds unless it is pending. */
void utrace_shim_timer_arm(struct timer_list *timer, unsigned int ms)
{
	if (!timer_pending(timer))
		mod_timer(timer, jiffies + msecs_to_jiffies(ms));
}

/* Stop @timer for good; waits for its function to finish. May sleep. */
void utrace_shim_timer_shutdown(struct timer_list *timer)
{
	timer_shutdown_sync(timer);
}
