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
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "shim.h"

/* prepare_signal(int sig, struct task_struct *p, bool force) */
static int prepare_signal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	int sig = (int)regs_get_kernel_argument(regs, 0);
	struct task_struct *t = (struct task_struct *)regs_get_kernel_argument(regs, 1);

	utrace_rs_hook_signal_send(sig, t);
	return 0;
}

/* send_signal_locked(int sig, struct kernel_siginfo *info, struct task_struct *t, ...) */
static int send_signal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	int sig = (int)regs_get_kernel_argument(regs, 0);
	struct task_struct *t = (struct task_struct *)regs_get_kernel_argument(regs, 2);

	utrace_rs_hook_signal_send(sig, t);
	return 0;
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
		unregister_kprobe(signal_kp);
	signal_kp = NULL;
	utrace_shim_freezer_unregister();
}
