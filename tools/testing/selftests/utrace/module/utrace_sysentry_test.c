// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_sysentry_test.ko: the selftests' engine for stopping before a
 * syscall runs, the sleepable syscall-entry report and examining a stopped
 * task (prepare/finish_examine, regsets, memory). One engine, on one task,
 * driven through debugfs:
 *
 * /sys/kernel/debug/utrace_sysentry/ctl (write() returns the length, or the
 * negative errno of the command):
 *   attach PID NR MODE  attach to PID with SYSCALL_ENTRY, SYSCALL_EXIT,
 *                       QUIESCE and EXEC; count syscall NR; MODE atomic
 *                       (entry in the probe) or sleep
 *                       (UTRACE_OPS_SYSCALL_SLEEPABLE: entry reads the path
 *                       in NR's argument 1 and sleeps 1 ms); resets the
 *                       counters
 *   stopnext            the next new entry of NR returns UTRACE_STOP
 *   abortnext ERRNO     the next new entry of NR aborts it with -ERRNO
 *   stopped             0 once prepare_examine succeeds (polls up to 5 s
 *                       while it says -EINVAL or -EAGAIN)
 *   roundtrip           while stopped: NT_PRSTATUS and NT_PRFPREG get, set
 *                       back, get again: the same bytes (-EIO if not), and
 *                       orig_ax is NR, as at entry (-EPROTO if not)
 *   setarg I VALUE      while stopped: argument I of the syscall := VALUE
 *                       (its register in the syscall's ABI, x86-64 or i386)
 *   setxmm N VALUE      while stopped: xmmN's low 64 bits := VALUE
 *   poke I STRING       while stopped: write STRING at the address in
 *                       argument I, read it back (-EIO if it differs)
 *   resume / detach     utrace_control(RESUME / DETACH), barrier, put
 * /sys/kernel/debug/utrace_sysentry/stats: "name value" lines.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include <asm/user.h>
#include <utrace_rs.h>

static struct utrace_engine *engine;
static struct task_struct *task;
static long nr = -2;
static bool stop_next, abort_next, aborted, holding;
static int abort_errno;
static atomic_t entries, resumed, exits, stops, slept, exec_regs_ok, exec_regs_bad;
/* Exits reported with nr -1 that no abort of ours explains (a skipped pass's). */
static atomic_t exits_skipped;
static long exit_ret;
static char path[64];

static u32 entry(u32 action, struct utrace_engine *e, struct pt_regs *regs, bool sleep)
{
	if (syscall_get_nr(current, regs) != READ_ONCE(nr))
		return UTRACE_RESUME;
	if (action & UTRACE_SYSCALL_RESUMED) {
		atomic_inc(&resumed);
		return UTRACE_RESUME;
	}
	atomic_inc(&entries);
	if (sleep) {
		char p[sizeof(path)];
		unsigned long args[6];
		long n;

		syscall_get_arguments(current, regs, args);
		n = strncpy_from_user(p, (const char __user *)args[1], sizeof(p) - 1);
		p[n < 0 ? 0 : n] = '\0';
		strscpy(path, p);
		msleep(1);	/* must not splat: process context */
		atomic_inc(&slept);
	}
	if (READ_ONCE(abort_next)) {
		WRITE_ONCE(abort_next, false);
		WRITE_ONCE(aborted, true);
		syscall_set_return_value(current, regs, -abort_errno, 0);
		return UTRACE_RESUME | UTRACE_SYSCALL_ABORT;
	}
	if (READ_ONCE(stop_next)) {
		WRITE_ONCE(stop_next, false);
		WRITE_ONCE(holding, true);
		atomic_inc(&stops);
		return UTRACE_STOP;
	}
	return UTRACE_RESUME;
}

static u32 entry_atomic(u32 action, struct utrace_engine *e, struct pt_regs *regs)
{
	return entry(action, e, regs, false);
}

static u32 entry_sleep(u32 action, struct utrace_engine *e, struct pt_regs *regs)
{
	return entry(action, e, regs, true);
}

static u32 exit_cb(u32 action, struct utrace_engine *e, struct pt_regs *regs)
{
	long n = syscall_get_nr(current, regs);

	if (n == -1 && !READ_ONCE(aborted))
		atomic_inc(&exits_skipped);
	/* An aborted syscall exits with nr -1. */
	if (n == READ_ONCE(nr) || (n == -1 && xchg(&aborted, false))) {
		atomic_inc(&exits);
		WRITE_ONCE(exit_ret, syscall_get_return_value(current, regs));
	}
	return UTRACE_RESUME;
}

/* @regs are the new image's: the same as the regset says (current). */
static u32 exec_cb(u32 action, struct utrace_engine *e, const char *filename, pid_t old_pid,
		   struct pt_regs *regs)
{
	struct user_regs_struct r;
	int n = utrace_regset_get(current, e, NT_PRSTATUS, &r, sizeof(r));

	if (n == sizeof(r) && regs && r.ip == regs->ip && r.sp == regs->sp && r.ip)
		atomic_inc(&exec_regs_ok);
	else
		atomic_inc(&exec_regs_bad);
	return UTRACE_RESUME;
}

/* Keeps the stop it asked for until "resume" (utrace: a RESUME return ends it). */
static u32 quiesce_cb(u32 action, struct utrace_engine *e, unsigned long event)
{
	return READ_ONCE(holding) ? UTRACE_STOP : UTRACE_RESUME;
}

static const struct utrace_engine_ops ops_atomic = {
	.owner = THIS_MODULE,
	.report_syscall_entry = entry_atomic,
	.report_syscall_exit = exit_cb,
	.report_exec = exec_cb,
	.report_quiesce = quiesce_cb,
};

static const struct utrace_engine_ops ops_sleep = {
	.owner = THIS_MODULE,
	.report_syscall_entry = entry_sleep,
	.report_syscall_exit = exit_cb,
	.report_exec = exec_cb,
	.report_quiesce = quiesce_cb,
	.flags = UTRACE_OPS_SYSCALL_SLEEPABLE,
};

static int cmd_attach(pid_t pid, long sysnr, const char *mode)
{
	const struct utrace_engine_ops *ops;
	struct utrace_engine *e;
	struct task_struct *t;
	int ret;

	if (engine)
		return -EBUSY;
	if (!strcmp(mode, "atomic"))
		ops = &ops_atomic;
	else if (!strcmp(mode, "sleep"))
		ops = &ops_sleep;
	else
		return -EINVAL;
	t = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	if (!t)
		return -ESRCH;
	/* Counters are per attach. */
	atomic_set(&entries, 0);
	atomic_set(&resumed, 0);
	atomic_set(&exits, 0);
	atomic_set(&exits_skipped, 0);
	atomic_set(&stops, 0);
	atomic_set(&slept, 0);
	atomic_set(&exec_regs_ok, 0);
	atomic_set(&exec_regs_bad, 0);
	path[0] = '\0';
	WRITE_ONCE(nr, sysnr);
	e = utrace_attach_task(t, UTRACE_ATTACH_CREATE, ops, NULL);
	if (IS_ERR(e)) {
		put_task_struct(t);
		return PTR_ERR(e);
	}
	ret = utrace_set_events(t, e, UTRACE_EVENT(SYSCALL_ENTRY) | UTRACE_EVENT(SYSCALL_EXIT) |
				UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(EXEC));
	engine = e;
	task = t;
	return ret;
}

/* Runs @fn on the task stopped by our engine, between prepare and finish. */
static int examine(int (*fn)(void *arg), void *arg)
{
	struct utrace_examiner exam;
	int ret = utrace_prepare_examine(task, engine, &exam);

	if (ret)
		return ret;
	ret = fn(arg);
	if (!ret)
		ret = utrace_finish_examine(task, engine, &exam);
	return ret;
}

static int nothing(void *arg)
{
	return 0;
}

static int cmd_stopped(void)
{
	int i, ret = -EAGAIN;

	/* -EINVAL until the callback asked for the stop, -EAGAIN until it is in it. */
	for (i = 0; i < 500 && (ret == -EAGAIN || ret == -EINVAL); i++) {
		ret = examine(nothing, NULL);
		if (ret == -EAGAIN || ret == -EINVAL)
			msleep(10);
	}
	return ret;
}

static int get_regs(struct user_regs_struct *r)
{
	int n = utrace_regset_get(task, engine, NT_PRSTATUS, r, sizeof(*r));

	return n < 0 ? n : n == sizeof(*r) ? 0 : -EIO;
}

/* get, set back, get again: the same. */
static int roundtrip_one(unsigned int note, void *a, void *b, unsigned int size)
{
	int n = utrace_regset_get(task, engine, note, a, size);

	if (n < 0)
		return n;
	if (n != size)
		return -EIO;
	n = utrace_regset_set(task, engine, note, a, size);
	if (n)
		return n;
	n = utrace_regset_get(task, engine, note, b, size);
	if (n < 0)
		return n;
	return n == size && !memcmp(a, b, size) ? 0 : -EIO;
}

/* Commands run one at a time (ctl_lock): their buffers need not be on the stack. */
static struct {
	struct user_regs_struct r1, r2;
	struct user_i387_struct f1, f2;
} scratch;

static int do_roundtrip(void *arg)
{
	int ret = roundtrip_one(NT_PRSTATUS, &scratch.r1, &scratch.r2, sizeof(scratch.r1));

	if (ret)
		return ret;
	if ((long)scratch.r1.orig_ax != nr || (long)scratch.r1.ax != -ENOSYS)
		return -EPROTO;
	return roundtrip_one(NT_PRFPREG, &scratch.f1, &scratch.f2, sizeof(scratch.f1));
}

struct setarg {
	int i;
	unsigned long value;
};

/*
 * The registers of the stopped task's syscall arguments in @r, in the order
 * of its syscall's ABI: x86-64, or i386 (int $0x80, 32-bit tasks) as
 * syscall_get_arch() says while the task is in the syscall.
 */
static void arg_slots(struct user_regs_struct *r, unsigned long *slot[6])
{
	if (syscall_get_arch(task) == AUDIT_ARCH_I386) {
		slot[0] = &r->bx, slot[1] = &r->cx, slot[2] = &r->dx;
		slot[3] = &r->si, slot[4] = &r->di, slot[5] = &r->bp;
	} else {
		slot[0] = &r->di, slot[1] = &r->si, slot[2] = &r->dx;
		slot[3] = &r->r10, slot[4] = &r->r8, slot[5] = &r->r9;
	}
}

static int do_setarg(void *arg)
{
	struct setarg *sa = arg;
	struct user_regs_struct r;
	unsigned long *slot[6];
	int ret = get_regs(&r);

	if (ret)
		return ret;
	if (sa->i < 0 || sa->i >= ARRAY_SIZE(slot))
		return -EINVAL;
	arg_slots(&r, slot);
	*slot[sa->i] = sa->value;
	ret = utrace_regset_set(task, engine, NT_PRSTATUS, &r, sizeof(r));
	if (ret)
		return ret;
	ret = get_regs(&r);
	return ret ? ret : *slot[sa->i] == sa->value ? 0 : -EIO;
}

static int do_setxmm(void *arg)
{
	struct setarg *sa = arg;
	struct user_i387_struct *f = &scratch.f1;
	u64 got;
	int n;

	if (sa->i < 0 || sa->i > 15)
		return -EINVAL;
	n = utrace_regset_get(task, engine, NT_PRFPREG, f, sizeof(*f));
	if (n != sizeof(*f))
		return n < 0 ? n : -EIO;
	/* xmm_space: 16 registers of 16 bytes, low half first. */
	memcpy((u8 *)f->xmm_space + 16 * sa->i, &sa->value, 8);
	n = utrace_regset_set(task, engine, NT_PRFPREG, f, sizeof(*f));
	if (n)
		return n;
	memset(f, 0, sizeof(*f));
	n = utrace_regset_get(task, engine, NT_PRFPREG, f, sizeof(*f));
	if (n != sizeof(*f))
		return n < 0 ? n : -EIO;
	memcpy(&got, (u8 *)f->xmm_space + 16 * sa->i, 8);
	return got == sa->value ? 0 : -EIO;
}

struct poke {
	int i;
	const char *s;
};

static int do_poke(void *arg)
{
	struct poke *p = arg;
	struct user_regs_struct r;
	unsigned long *slot[6], addr;
	char back[32];
	int len = strlen(p->s), n = get_regs(&r);

	if (n)
		return n;
	if (p->i < 0 || p->i > 5 || len > sizeof(back))
		return -EINVAL;
	arg_slots(&r, slot);
	addr = *slot[p->i];
	if (syscall_get_arch(task) == AUDIT_ARCH_I386)
		addr = (u32)addr;
	n = utrace_access_vm(task, engine, addr, (void *)p->s, len, true);
	if (n != len)
		return n < 0 ? n : -EIO;
	n = utrace_access_vm(task, engine, addr, back, len, false);
	if (n != len)
		return n < 0 ? n : -EIO;
	return memcmp(back, p->s, len) ? -EIO : 0;
}

static int cmd_detach(void)
{
	int ret;

	if (!engine)
		return -ENOENT;
	ret = utrace_control(task, engine, UTRACE_DETACH);
	if (ret == -EINPROGRESS || !ret)
		utrace_barrier(task, engine);
	utrace_engine_put(engine);
	put_task_struct(task);
	engine = NULL;
	task = NULL;
	/* -ESRCH, -EALREADY: the task died; its engines are detached for us. */
	return ret == -EINPROGRESS || ret == -ESRCH || ret == -EALREADY ? 0 : ret;
}

static int run_cmd(char *buf)
{
	char word[16], s[32];
	long a, b;

	if (sscanf(buf, "attach %ld %ld %15s", &a, &b, word) == 3)
		return cmd_attach(a, b, word);
	if (sscanf(buf, "abortnext %ld", &a) == 1) {
		abort_errno = a;
		WRITE_ONCE(abort_next, true);
		return 0;
	}
	if (!strcmp(buf, "stopnext")) {
		WRITE_ONCE(stop_next, true);
		return 0;
	}
	if (!strcmp(buf, "detach"))
		return cmd_detach();
	if (!engine)
		return -ENOENT;
	if (!strcmp(buf, "stopped"))
		return cmd_stopped();
	if (!strcmp(buf, "roundtrip"))
		return examine(do_roundtrip, NULL);
	if (!strcmp(buf, "resume")) {
		WRITE_ONCE(holding, false);
		return utrace_control(task, engine, UTRACE_RESUME);
	}
	if (sscanf(buf, "setarg %ld %li", &a, &b) == 2) {
		struct setarg sa = { a, b };

		return examine(do_setarg, &sa);
	}
	if (sscanf(buf, "setxmm %ld %li", &a, &b) == 2) {
		struct setarg sa = { a, b };

		return examine(do_setxmm, &sa);
	}
	if (sscanf(buf, "poke %ld %31s", &a, s) == 2) {
		struct poke p = { a, s };

		return examine(do_poke, &p);
	}
	return -EINVAL;
}

/* Every command runs under ctl_lock. */
static bool ctl_unlocked(const char *cmd)
{
	return false;
}

#include "test_ctl.h"

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "entries %d\nresumed %d\nexits %d\nexit_ret %ld\nstops %d\n",
		   atomic_read(&entries), atomic_read(&resumed), atomic_read(&exits),
		   READ_ONCE(exit_ret), atomic_read(&stops));
	seq_printf(m, "exits_skipped %d\n", atomic_read(&exits_skipped));
	seq_printf(m, "slept %d\npath %s\nexec_regs_ok %d\nexec_regs_bad %d\n",
		   atomic_read(&slept), path, atomic_read(&exec_regs_ok),
		   atomic_read(&exec_regs_bad));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init sysentry_test_init(void)
{
	int ret = ctl_create("utrace_sysentry");

	if (!ret)
		debugfs_create_file("stats", 0400, ctl_dir, NULL, &stats_fops);
	return ret;
}

static void __exit sysentry_test_exit(void)
{
	/* The engine pins this module: detached before it can unload. */
	ctl_remove();
}

module_init(sysentry_test_init);
module_exit(sysentry_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("utrace-rs selftest engine: stop before a syscall, examine");
