// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobes utrace-rs uses: dequeue_signal() (registered from here, see
 * stop.c: the cgroup freezer and a utrace stop) and prepare_signal(), which
 * every signal sent to a task goes through, entered with the target's
 * siglock held and before it drops an ignored signal (sig_ignored()) and
 * before complete_signal() makes a fatal one a group kill. Its pre-handler
 * lets utrace-rs hold such a signal: SIGNAL_TERM and SIGNAL_IGN. The
 * pre-handler may run in NMI-like context (an int3 that has not been
 * optimised into a jump) and in a hardirq (a timer's signal): it takes no
 * lock.
 *
 * prepare_signal(int sig, struct task_struct *p, bool force) is static in
 * kernel/signal.c on 6.12 and 7.3, and out of line (t in kallsyms, same
 * name, no .isra/.constprop clone) in both kernels tested: 6.12.117 built
 * here and Debian's 7.3.4+deb13-amd64 (gcc-14). Its callers are the only
 * places a signal is queued: __send_signal_locked() (send_signal_locked(),
 * which kill(), tkill(), faults, PR_SET_PDEATHSIG and the kernel's own
 * signals go through; do_notify_parent(), a child's death signal to its
 * parent; kill_pid_usb_asyncio()) and the POSIX timers' send_sigqueue()
 * (6.12) / posixtimer_send_sigqueue() (7.x). Each of them ends in the
 * signal_generate tracepoint, whatever prepare_signal() said, which is
 * where the shield set here is taken off (hooks.rs).
 *
 * A kernel that refuses that kprobe (prepare_signal() inlined) gets one on
 * send_signal_locked() (global, T in kallsyms on both), which misses the
 * death signal and the timers' expiries: then those two sources are not
 * held for SIGNAL_TERM and SIGNAL_IGN (api.rst, "Signals").
 *
 * The signal kprobe is registered disabled, at load (so that whether the
 * kernel takes it is known then), and armed only while some engine has
 * signal events (state.rs, OnDemand): an armed kprobe costs every signal
 * sent on the machine, a SIGCHLD per fork included, about 400 instructions.
 * Arming and disarming sleep (kprobe_mutex, text_mutex); the first engine
 * to ask for signal events arms it before its utrace_set_events() returns.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "shim.h"

/*
 * An int3 at an ftrace-based kprobe's site. Both kprobes here sit on a
 * function's fentry site, so the kernel reaches them through ftrace (no
 * int3; the kprobe has no single-step slot: ainsn.insn is NULL). Text
 * patching of that site (this kprobe armed or disarmed, another ftrace user
 * of the function) puts an int3 there for a moment, which the patching code
 * claims while it is in place. Under QEMU's TCG (7.2, two vCPUs) a vCPU can
 * execute that int3 after the patching has taken it out and is done: then
 * kprobe_int3_handler() finds this kprobe at the address, calls the
 * pre-handler and, when it returns 0, "single-steps" from address 0 (an
 * oops in prepare_signal(), reproduced by 48-signal-rearm in seconds; 782
 * such hits in a 90 s run against 152,179 signals, 4,470 arm and 7,604
 * disarm commands). Re-executing the site does not help either: the same vCPU
 * kept hitting the stale int3 (a livelock).
 *
 * So a pre-handler reached from an int3 (NMI context: exc_int3() enters it
 * for kernel mode; ftrace never calls these from NMI: signals are not sent
 * there) does its work as ftrace would have had it done (nothing while the
 * kprobe is disarmed), sets the task to go on after the 5-byte site (a nop,
 * or the call into ftrace whose work for this kprobe was just done) and
 * returns 1: no single-step. Counted; the count is logged at unload.
 * (Other ftrace users of the function, if the site held the call into
 * ftrace, miss that one call.)
 *
 * Not covered, because the kprobes core does not call a pre-handler then:
 * a stale int3 hit while another kprobe runs on that CPU (reenter_kprobe()
 * single-steps from the NULL slot too), or after the kprobe left the hash
 * (6.12 and 7.3 have no fallback for an int3 that is not in memory any
 * more: die("int3")). Unregistering disarms first and waits a grace
 * period, which narrows the second. Under that emulator only; real CPUs do
 * not execute a removed int3 after the patch's serialising IPIs.
 */
static atomic_long_t ftrace_site_int3s = ATOMIC_LONG_INIT(0);

/* Unregister @kp, disarmed a grace period before it leaves the hash. */
void utrace_shim_kprobe_unregister(struct kprobe *kp)
{
	disable_kprobe(kp);
	synchronize_rcu();
	unregister_kprobe(kp);
}

bool utrace_shim_kprobe_from_int3(struct kprobe *kp, struct pt_regs *regs)
{
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (likely(!(kp->flags & KPROBE_FLAG_FTRACE) || !in_nmi()))
		return false;
	atomic_long_inc(&ftrace_site_int3s);
	instruction_pointer_set(regs, (unsigned long)kp->addr + MCOUNT_INSN_SIZE);
	return true;
#else
	return false;
#endif
}

/*
 * The signal kprobes' pre-handler: the signal is argument 0, the target task
 * argument @task_arg.
 */
static int signal_pre(struct kprobe *kp, struct pt_regs *regs, unsigned int task_arg)
{
	bool int3 = utrace_shim_kprobe_from_int3(kp, regs);

	if (!kprobe_disabled(kp))
		utrace_rs_hook_signal_send((int)regs_get_kernel_argument(regs, 0),
					   (struct task_struct *)regs_get_kernel_argument(regs, task_arg));
	return int3;
}

/* prepare_signal(int sig, struct task_struct *p, bool force) */
static int prepare_signal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return signal_pre(kp, regs, 1);
}

/* send_signal_locked(int sig, struct kernel_siginfo *info, struct task_struct *t, ...) */
static int send_signal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return signal_pre(kp, regs, 2);
}

static struct kprobe signal_kps[] = {
	{ .symbol_name = "prepare_signal", .pre_handler = prepare_signal_pre,
	  .flags = KPROBE_FLAG_DISABLED },
	{ .symbol_name = "send_signal_locked", .pre_handler = send_signal_pre,
	  .flags = KPROBE_FLAG_DISABLED },
};

/* The one of signal_kps in place, or NULL. */
static struct kprobe *signal_kp;

/*
 * Register the kprobes: the signal one on prepare_signal(), else on
 * send_signal_locked() (with a log line saying what is missed); false (with
 * a log line) if the kernel refuses both.
 */
bool utrace_shim_kprobes_register(void)
{
	int ret = 0, i;

	utrace_shim_freezer_register();
	for (i = 0; i < ARRAY_SIZE(signal_kps); i++) {
		ret = register_kprobe(&signal_kps[i]);
		if (!ret) {
			signal_kp = &signal_kps[i];
			break;
		}
		pr_info("utrace_rs: no kprobe on %s (%d)\n", signal_kps[i].symbol_name, ret);
	}
	if (!signal_kp) {
		pr_warn("utrace_rs: SIGNAL_TERM and SIGNAL_IGN are not available\n");
		return false;
	}
	if (signal_kp != &signal_kps[0])
		pr_warn("utrace_rs: SIGNAL_TERM and SIGNAL_IGN miss POSIX timer expiries and death signals\n");
	return true;
}

/*
 * Arm (@on) or disarm the signal kprobe; 0 if there is none (nothing to
 * arm: SIGNAL_TERM and SIGNAL_IGN are refused then). May sleep. Serialised
 * by the caller (state.rs), between register and unregister.
 */
int utrace_shim_signal_kprobe_arm(bool on)
{
	if (!signal_kp)
		return 0;
	return on ? enable_kprobe(signal_kp) : disable_kprobe(signal_kp);
}

/* Unregister them; no handler runs when this returns. */
void utrace_shim_kprobes_unregister(void)
{
	if (signal_kp)
		utrace_shim_kprobe_unregister(signal_kp);
	signal_kp = NULL;
	utrace_shim_freezer_unregister();
	if (atomic_long_read(&ftrace_site_int3s))
		pr_info("utrace_rs: %ld stale int3 hits at ftrace-based kprobe sites, passed over (see kprobes.c)\n",
			atomic_long_read(&ftrace_site_int3s));
}
