// SPDX-License-Identifier: GPL-2.0
/*
 * UTRACE_SINGLESTEP and UTRACE_BLOCKSTEP on x86: the kernel's helpers
 * (arch/x86/kernel/step.c: user_enable_single_step(),
 * user_enable_block_step(), user_disable_single_step()) are not exported, and
 * calling them through an address looked up at run time would be an indirect
 * call to a function whose ENDBR objtool sealed (it is only ever called
 * directly): a control-protection fault where IBT is enforced. So the same
 * steps are made here, for current only (in its own task work, as it leaves
 * a stop, where utrace's finish_resume_report() made them), with the kernel's
 * own flags: TIF_SINGLESTEP (the entry code keeps TF across a syscall and
 * makes the syscall-exit trap, SYSCALL_EXIT_TRAP), TIF_FORCED_TF (TF is ours,
 * not the program's: signal delivery and PTRACE_GETREGS hide it) and, for
 * block steps, TIF_BLOCKSTEP with DEBUGCTLMSR_BTF (context switches carry it).
 * The code is the same in 6.12 and 7.3 (step.c did not change).
 *
 * A step ends in a #DB trap (SIGTRAP, si_code TRAP_TRACE or, after a
 * syscall, TRAP_BRKPT), which engines see as a SIGNAL report.
 */
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/thread_info.h>
#include <linux/uaccess.h>
#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>

#include "shim.h"

/*
 * Whether the instruction at current's ip sets TF itself (popf, iret): then
 * TF is the program's (step.c's is_setting_trap_flag(), 64-bit user code
 * and the common prefixes; anything else is "no").
 */
static bool sets_trap_flag(struct pt_regs *regs)
{
	unsigned char opcode[15];
	unsigned long ip = regs->ip;
	int i;

	if (!user_64bit_mode(regs) || ip > TASK_SIZE_MAX - sizeof(opcode))
		return false;
	if (copy_from_user_nofault(opcode, (void __user *)ip, sizeof(opcode)))
		return false;
	for (i = 0; i < sizeof(opcode); i++) {
		switch (opcode[i]) {
		case 0x9d:	/* popf */
		case 0xcf:	/* iret */
			return true;
		case 0x66: case 0x67:	/* operand/address size */
		case 0x2e: case 0x3e: case 0x26: case 0x64: case 0x65: case 0x36:
		case 0xf0: case 0xf2: case 0xf3:	/* segment, lock, rep */
			continue;
		default:
			if ((opcode[i] & 0xf0) == 0x40)	/* REX */
				continue;
			return false;
		}
	}
	return false;
}

/* set_task_blockstep(current, on); false if the CPU refused DEBUGCTL. */
static bool set_blockstep(bool on)
{
	unsigned long flags;
	u32 lo, hi;
	bool ok = false;

	local_irq_save(flags);
	if (!rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &lo, &hi)) {
		if (on)
			lo |= DEBUGCTLMSR_BTF;
		else
			lo &= ~DEBUGCTLMSR_BTF;
		ok = !wrmsr_safe(MSR_IA32_DEBUGCTLMSR, lo, hi);
	}
	if (ok && on)
		set_thread_flag(TIF_BLOCKSTEP);
	else
		clear_thread_flag(TIF_BLOCKSTEP);
	local_irq_restore(flags);
	return ok;
}

/*
 * Whether this CPU takes block steps: DEBUGCTL.BTF can be set and reads back
 * set (QEMU's TCG accepts the write and drops the bit; without DEBUGCTL the
 * access faults). BTF only acts with TF set, which the kernel never runs
 * with, so setting it for a moment here is harmless. Process context.
 */
bool utrace_shim_blockstep_supported(void)
{
	unsigned long flags;
	u32 lo, hi, lo2, hi2;
	bool ok = false;

	local_irq_save(flags);
	if (!rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &lo, &hi) &&
	    !wrmsr_safe(MSR_IA32_DEBUGCTLMSR, lo | DEBUGCTLMSR_BTF, hi)) {
		ok = !rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &lo2, &hi2) && (lo2 & DEBUGCTLMSR_BTF);
		wrmsr_safe(MSR_IA32_DEBUGCTLMSR, lo, hi);
	}
	local_irq_restore(flags);
	return ok;
}

/*
 * Step current once it returns to user mode: one instruction, or with @block
 * up to the next taken branch (enable_step()). Where TF is the program's own
 * (set before, or by the instruction stepped: popf, iret), the step is still
 * utrace-rs's (TIF_SINGLESTEP, the syscall-exit trap), but TF is left to the
 * program when the stepping ends (no TIF_FORCED_TF).
 */
void utrace_shim_step_enable(bool block)
{
	struct task_struct *t = current;
	struct pt_regs *regs = task_pt_regs(t);
	unsigned long oflags;
	bool ours;

	/*
	 * Stepped into a syscall: the entry cleared TF; it was still ours
	 * (not after a stepped popf: TF is then what the popf loaded).
	 */
	if (test_thread_flag(TIF_SINGLESTEP) && test_thread_flag(TIF_FORCED_TF))
		regs->flags |= X86_EFLAGS_TF;
	set_thread_flag(TIF_SINGLESTEP);
	set_task_syscall_work(t, SYSCALL_EXIT_TRAP);
	oflags = regs->flags;
	regs->flags |= X86_EFLAGS_TF;
	if (sets_trap_flag(regs)) {
		clear_thread_flag(TIF_FORCED_TF);
		ours = false;
	} else if (oflags & X86_EFLAGS_TF) {
		ours = test_thread_flag(TIF_FORCED_TF);
	} else {
		set_thread_flag(TIF_FORCED_TF);
		ours = true;
	}
	if (ours && block)
		set_blockstep(true);
	else if (test_thread_flag(TIF_BLOCKSTEP))
		set_blockstep(false);
}

/*
 * A step trap of current that nobody consumed (its engine detached while the
 * task stepped): discard it, or its default action would dump core. Only
 * the thread's own queue holds these (force_sig_fault()).
 */
static void discard_step_trap(void)
{
	struct task_struct *t = current;
	struct sigqueue *q;
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t others;
	bool found = false;

	spin_lock_irq(&t->sighand->siglock);
	list_for_each_entry(q, &t->pending.list, list)
		if (q->info.si_signo == SIGTRAP &&
		    (q->info.si_code == TRAP_TRACE || q->info.si_code == TRAP_BRKPT))
			found = true;
	if (found) {
		sigfillset(&others);
		sigdelset(&others, SIGTRAP);
		dequeue_signal(&others, &info, &type);
	}
	spin_unlock_irq(&t->sighand->siglock);
}

/* user_disable_single_step(current), and its pending trap discarded. */
void utrace_shim_step_disable(void)
{
	struct task_struct *t = current;

	discard_step_trap();

	if (test_thread_flag(TIF_BLOCKSTEP))
		set_blockstep(false);
	clear_thread_flag(TIF_SINGLESTEP);
	clear_task_syscall_work(t, SYSCALL_EXIT_TRAP);
	if (test_and_clear_thread_flag(TIF_FORCED_TF))
		task_pt_regs(t)->flags &= ~X86_EFLAGS_TF;
}
