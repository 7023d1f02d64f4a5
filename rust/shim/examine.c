// SPDX-License-Identifier: GPL-2.0
/*
 * Examining a stopped task (rust/edges/examine.rs): its scheduling state, its
 * registers through its regset view, its memory. task_user_regset_view(),
 * regset_get() and access_process_vm() are exported (6.12 and 7.x);
 * wait_task_inactive() and task_call_func() are not, so waiting for the task
 * to leave its CPU is done here by polling on_cpu, as they do.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/regset.h>
#include <linux/sched.h>

#include "shim.h"

/* @t's __state. */
unsigned int utrace_shim_task_state(struct task_struct *t)
{
	return READ_ONCE(t->__state);
}

static bool on_cpu(struct task_struct *t)
{
#ifdef CONFIG_SMP
	return smp_load_acquire(&t->on_cpu);
#else
	return t == current;
#endif
}

/*
 * Waits until @t, found in @state, is off its CPU (its registers and FPU
 * state are then in memory). Returns its context-switch count, never 0 (as
 * wait_task_inactive() does), or 0 if its state changed meanwhile.
 */
unsigned long utrace_shim_wait_inactive(struct task_struct *t, unsigned int state)
{
	while (on_cpu(t)) {
		if (READ_ONCE(t->__state) != state)
			return 0;
		cond_resched();
		cpu_relax();
	}
	smp_rmb();
	if (READ_ONCE(t->__state) != state)
		return 0;
	return (READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw)) | LONG_MIN;
}

static const struct user_regset *find_regset(struct task_struct *t, unsigned int note_type)
{
	const struct user_regset_view *view = task_user_regset_view(t);
	unsigned int i;

	for (i = 0; i < view->n; i++)
		if (view->regsets[i].core_note_type == note_type)
			return &view->regsets[i];
	return NULL;
}

/* Copies up to @size bytes of @t's regset @note_type: bytes copied or -errno. */
int utrace_shim_regset_get(struct task_struct *t, unsigned int note_type, void *buf,
			   unsigned int size)
{
	const struct user_regset *rs = find_regset(t, note_type);

	if (!rs)
		return -ENODEV;
	return regset_get(t, rs, min(size, rs->n * rs->size), buf);
}

/* Writes the first @size bytes of @t's regset @note_type (as PTRACE_SETREGSET). */
int utrace_shim_regset_set(struct task_struct *t, unsigned int note_type, const void *buf,
			   unsigned int size)
{
	const struct user_regset *rs = find_regset(t, note_type);

	if (!rs)
		return -ENODEV;
	if (!rs->set)
		return -EOPNOTSUPP;
	if (size > rs->n * rs->size || size % rs->size)
		return -EINVAL;
	return rs->set(t, rs, 0, size, buf, NULL);
}

/* @t's memory, as a debugger reaches it: bytes done, or -EFAULT for none. */
int utrace_shim_access_vm(struct task_struct *t, unsigned long addr, void *buf, int len,
			  bool write)
{
	int done;

	if (len <= 0)
		return len ? -EINVAL : 0;
	done = access_process_vm(t, addr, buf, len, FOLL_FORCE | (write ? FOLL_WRITE : 0));
	return done > 0 ? done : -EFAULT;
}
