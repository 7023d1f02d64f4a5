// SPDX-License-Identifier: GPL-2.0
/*
 * Stopping before a syscall runs (see rust/objects/sysentry.rs): the x86-64 register
 * moves of the restart, the arch-specific part.
 *
 * On 6.12 syscall_trace_enter() and on 7.x syscall_enter_from_user_mode_work()
 * read the syscall number again after the sys_enter tracepoint, and
 * do_syscall_64() runs nothing for -1 and leaves ax alone. So the probe skips
 * the syscall with orig_ax = -1 and makes its result -ERESTARTNOINTR; the
 * sys_exit probe puts the number back, so that the skipped pass looks like
 * what it is, a syscall to be restarted; the task's work then has the
 * kernel restart it as it restarts -ERESTARTNOINTR
 * (arch/x86/kernel/signal.c): ax = the number, ip -= 2, which is the length
 * of `syscall`, `int $0x80` and, for sysenter, of the `int $0x80` before the
 * vDSO landing pad the kernel set ip to. A changed ip makes do_syscall_64()
 * return through IRET, which restores every register.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>

#include "shim.h"

/*
 * In sys_enter: skip the syscall being entered so that it can be restarted.
 * Returns its ip, which names this pass.
 */
unsigned long utrace_shim_entry_skip(struct pt_regs *regs)
{
	regs->orig_ax = -1;
	regs->ax = -ERESTARTNOINTR;
	return regs->ip;
}

/* Whether @regs are those of the pass skipped at @ip, not yet restarted. */
static bool skipped(struct pt_regs *regs, unsigned long ip)
{
	return regs->ip == ip && (long)regs->ax == -ERESTARTNOINTR;
}

/*
 * In sys_exit: if this is the pass skipped at @ip, show it as what it is to
 * the tracers after us (ptrace's exit stop, other sys_exit probes): syscall
 * @nr returning -ERESTARTNOINTR. True if it was.
 */
bool utrace_shim_entry_skipped_exit(struct pt_regs *regs, unsigned long ip, long nr)
{
	if (!skipped(regs, ip) || (long)regs->orig_ax != -1)
		return false;
	regs->orig_ax = nr;
	return true;
}

/*
 * In current's task work: if its registers are still those of the pass
 * skipped at @ip (nobody, e.g. a ptracer at the exit stop, changed them),
 * put them as they were at entry (orig_ax = @nr, ax = -ENOSYS) and return
 * them; else NULL.
 */
struct pt_regs *utrace_shim_entry_regs(unsigned long ip, long nr)
{
	struct pt_regs *regs = task_pt_regs(current);

	if (!skipped(regs, ip))
		return NULL;
	regs->orig_ax = nr;
	regs->ax = -ENOSYS;
	return regs;
}

/*
 * Leaving the task work with @regs as at entry (from
 * utrace_shim_entry_regs()): let the task return from the syscall with ax
 * as its result (an abort, !@restart); or leave the registers as the kernel
 * leaves a syscall that returned -ERESTARTNOINTR and make the task take the
 * signal path on its way out (TIF_NOTIFY_SIGNAL), whose restart
 * (arch_do_signal_or_restart(), or handle_signal() before a handler's
 * frame) reloads ax with the number (orig_ax: what the engine left there)
 * and rewinds ip. A ptracer's exit stop, which runs this work first
 * (ptrace_notify()), sees the same, and may change it as for any restart.
 */
void utrace_shim_entry_leave(struct pt_regs *regs, bool restart)
{
	if (!restart) {
		regs->orig_ax = -1;
		return;
	}
	regs->ax = -ERESTARTNOINTR;
	/* set_notify_signal() for current, which needs no wake-up. */
	set_thread_flag(TIF_NOTIFY_SIGNAL);
}

/* current's user registers. */
struct pt_regs *utrace_shim_user_regs(void)
{
	return task_pt_regs(current);
}
