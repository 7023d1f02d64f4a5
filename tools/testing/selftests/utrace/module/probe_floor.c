// SPDX-License-Identifier: GPL-2.0
/*
 * probe_floor.ko: empty probes on sys_enter and sys_exit, for `make bench`
 * only. Registering any probe there makes every syscall of every task take
 * the kernel's slow path (TIF_SYSCALL_TRACEPOINT); this measures that floor,
 * so the benchmark can tell it apart from what utrace_rs.ko adds on top.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static struct tracepoint *tp_enter, *tp_exit;

static void probe_enter(void *data, struct pt_regs *regs, long id)
{
}

static void probe_exit(void *data, struct pt_regs *regs, long ret)
{
}

static void find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		tp_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		tp_exit = tp;
}

static int __init probe_floor_init(void)
{
	int ret;

	for_each_kernel_tracepoint(find, NULL);
	if (!tp_enter || !tp_exit) {
		pr_err("probe_floor: no sys_enter/sys_exit tracepoint (CONFIG_FTRACE_SYSCALLS?)\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(tp_enter, probe_enter, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp_exit, probe_exit, NULL);
	if (ret) {
		tracepoint_probe_unregister(tp_enter, probe_enter, NULL);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

static void __exit probe_floor_exit(void)
{
	tracepoint_probe_unregister(tp_enter, probe_enter, NULL);
	tracepoint_probe_unregister(tp_exit, probe_exit, NULL);
	tracepoint_synchronize_unregister();
}

module_init(probe_floor_init);
module_exit(probe_floor_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("utrace-rs developers");
MODULE_DESCRIPTION("empty syscall tracepoint probes: the benchmark's floor");
