// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobes utrace-rs uses: dequeue_signal() (registered from here, see
 * stop.c: the cgroup freezer and a utrace stop) and send_signal_locked(), the function every
 * kill(), tkill(), fault and kernel signal goes through, entered with the
 * target's siglock held and before prepare_signal() and complete_signal()
 * have decided anything. Its pre-handler lets utrace-rs hold a signal that
 * the kernel would otherwise turn into a group kill at once (it kills
 * without a core dump by default) or drop (it is ignored): SIGNAL_TERM and
 * SIGNAL_IGN. The pre-handler may run in NMI-like context (an int3 that
 * has not been optimised into a jump): it takes no lock.
 *
 * 6.12 and 7.3 both have send_signal_locked(int sig, struct kernel_siginfo
 * *info, struct task_struct *t, enum pid_type type), global (T in kallsyms)
 * and not inlined into its callers in the kernels built here. Signals that
 * do not go through it: POSIX timer expiries (send_sigqueue(),
 * posixtimer_send_sigqueue() on 7.x) and a child's death signal to its
 * parent (do_notify_parent()).
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "shim.h"

static int send_signal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	int sig = (int)regs_get_kernel_argument(regs, 0);
	struct task_struct *t = (struct task_struct *)regs_get_kernel_argument(regs, 2);

	utrace_rs_hook_signal_send(sig, t);
	return 0;
}

static struct kprobe send_signal_kp = {
	.symbol_name = "send_signal_locked",
	.pre_handler = send_signal_pre,
};

static bool send_signal_registered;

/*
 * Register the kprobes; false (with a log line) if the kernel refuses the
 * one on send_signal_locked().
 */
bool utrace_shim_kprobes_register(void)
{
	int ret;

	utrace_shim_freezer_register();
	ret = register_kprobe(&send_signal_kp);
	send_signal_registered = !ret;
	if (ret) {
		pr_warn("utrace_rs: no kprobe on send_signal_locked (%d): SIGNAL_TERM and SIGNAL_IGN are not available\n",
			ret);
		return false;
	}
	return true;
}

/* Unregister them; no handler runs when this returns. */
void utrace_shim_kprobes_unregister(void)
{
	if (send_signal_registered)
		unregister_kprobe(&send_signal_kp);
	send_signal_registered = false;
	utrace_shim_freezer_unregister();
}
