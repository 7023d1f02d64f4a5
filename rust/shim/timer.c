// SPDX-License-Identifier: GPL-2.0
/*
 * Timers for engines (utrace_timer_create): a delayed work whose function
 * is the engine's, cancelled synchronously on destroy so no engine code runs
 * after it. INIT_DELAYED_WORK is a macro Rust on 6.12 cannot expand.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <utrace_rs.h>

#include "shim.h"

/* 7.x deprecates system_wq (and warns when work is queued on it). */
#if UTRACE_KERNEL_7
#define utrace_timer_wq system_dfl_wq
#else
#define utrace_timer_wq system_wq
#endif

struct utrace_timer {
	struct delayed_work work;
	void (*fn)(void *data);
	void *data;
};

static void utrace_timer_fn(struct work_struct *work)
{
	struct utrace_timer *t = container_of(to_delayed_work(work), struct utrace_timer, work);

	t->fn(t->data);
}

struct utrace_timer *utrace_timer_create(void (*fn)(void *data), void *data)
{
	struct utrace_timer *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return ERR_PTR(-ENOMEM);
	INIT_DELAYED_WORK(&t->work, utrace_timer_fn);
	t->fn = fn;
	t->data = data;
	return t;
}
EXPORT_SYMBOL_GPL(utrace_timer_create);

void utrace_timer_arm(struct utrace_timer *t, unsigned int msecs)
{
	mod_delayed_work(utrace_timer_wq, &t->work, msecs_to_jiffies(msecs));
}
EXPORT_SYMBOL_GPL(utrace_timer_arm);

void utrace_timer_destroy(struct utrace_timer *t)
{
	/* Also stops a function that re-arms its own timer. */
	cancel_delayed_work_sync(&t->work);
	kfree(t);
}
EXPORT_SYMBOL_GPL(utrace_timer_destroy);
