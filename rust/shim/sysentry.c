// SPDX-License-Identifier: GPL-2.0
/*
 * Stopping before a syscall runs (see rust/sysentry.rs): the x86-64 register
 * moves of the restart, the arch-specific part.
 *
 * On 6.12 syscall_trace_enter() and on 7.x syscall_enter_from_user_mode_work()
 * read the syscall number again after the sys_enter tracepoint, and
 * do_syscall_64() runs nothing for -1 and leaves ax alone. So the probe skips
 * the syscall with orig_ax = -1 and makes its result -ERESTARTNOINTR; the
 * task's own work then restarts it exactly as arch_do_signal_or_restart()
 * restarts -ERESTARTNOINTR (arch/x86/kernel/signal.c): ax = the number,
 * ip -= 2, which is the length of `syscall`, `int $0x80` and, for sysenter,
 * of the `int $0x80` before the vDSO landing pad the kernel set ip to. A
 * changed ip makes do_syscall_64() return through IRET, which restores
 * every register.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>

#include "shim.h"

/* The restart's rewind (arch/x86/kernel/signal.c). */
#define UTRACE_SYSCALL_INSN_LEN 2

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
 * utrace_shim_entry_regs()): restart the syscall they name (@restart), or
 * let the task return from it with ax as its result (an abort). orig_ax = -1
 * either way, so the signal code, which runs after task work, does not
 * restart it again.
 */
void utrace_shim_entry_leave(struct pt_regs *regs, bool restart)
{
	if (restart) {
		regs->ax = regs->orig_ax;
		regs->ip -= UTRACE_SYSCALL_INSN_LEN;
	}
	regs->orig_ax = -1;
}

/* current's user registers. */
struct pt_regs *utrace_shim_user_regs(void)
{
	return task_pt_regs(current);
}
