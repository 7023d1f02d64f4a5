// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_test.ko, the chaos stress of 97-stress.
 */
#include "utrace_test.h"

/*
 * Chaos: a pool of engines thrown at random user tasks with random
 * operations, to shake races between control calls and reports. Every
 * result is checked against what the call may legitimately return; anything
 * else is counted as unexpected (the test wants 0).
 */
#define CHAOS_ENGINES 8
#define CHAOS_DATA ((void *)0xc4a05L)
enum {
	C_ATTACH, C_ATTACH_ERR, C_EVENTS, C_STOP, C_RESUME, C_INTERRUPT, C_REPORT,
	C_BARRIER, C_DETACH, C_CALLBACKS, C_SLEPT, C_RELEASES, C_UNEXPECTED, C_NSTATS
};
static const char *const chaos_names[C_NSTATS] = {
	"attach", "attach_err", "events", "stop", "resume", "interrupt", "report",
	"barrier", "detach", "callbacks", "slept", "releases", "unexpected",
};
static atomic_t chaos_stat[C_NSTATS];
static char chaos_last[48];
static struct {
	struct utrace_engine *engine;
	struct task_struct *task;
} chaos_pool[CHAOS_ENGINES];

/* Sleepable callbacks sometimes sleep, so control calls meet them in flight. */
static u32 chaos_cb(void)
{
	atomic_inc(&chaos_stat[C_CALLBACKS]);
	if (!get_random_u32_below(4)) {
		usleep_range(50, 300);
		atomic_inc(&chaos_stat[C_SLEPT]);
	}
	return UTRACE_RESUME;
}
static u32 chaos_clone(u32 a, struct utrace_engine *e, struct task_struct *p, unsigned long f,
		       struct task_struct *c)
{
	return chaos_cb();
}
static u32 chaos_exec(u32 a, struct utrace_engine *e, const char *f, pid_t p, struct pt_regs *r)
{
	return chaos_cb();
}
static u32 chaos_exit(u32 a, struct utrace_engine *e, long oc, long *c)
{
	return chaos_cb();
}
static u32 chaos_death(struct utrace_engine *e, bool gd, int sig)
{
	return chaos_cb();
}
static void chaos_reap(struct utrace_engine *e, struct task_struct *t)
{
	chaos_cb();
}
static u32 chaos_quiesce(u32 a, struct utrace_engine *e, unsigned long ev)
{
	return chaos_cb();
}
static u32 chaos_signal(u32 a, struct utrace_engine *e, struct pt_regs *regs,
			struct kernel_siginfo *info, const struct k_sigaction *orig_ka,
			struct k_sigaction *return_ka)
{
	return chaos_cb();
}
/* Atomic context: count only. */
static u32 chaos_sys(u32 a, struct utrace_engine *e, struct pt_regs *regs)
{
	atomic_inc(&chaos_stat[C_CALLBACKS]);
	return UTRACE_RESUME;
}
static void chaos_release(void *data)
{
	if (data == CHAOS_DATA)
		atomic_inc(&chaos_stat[C_RELEASES]);
}
static const struct utrace_engine_ops ops_chaos = {
	.owner = THIS_MODULE,
	.report_clone = chaos_clone,
	.report_exec = chaos_exec,
	.report_exit = chaos_exit,
	.report_death = chaos_death,
	.report_reap = chaos_reap,
	.report_quiesce = chaos_quiesce,
	.report_signal = chaos_signal,
	.report_syscall_entry = chaos_sys,
	.report_syscall_exit = chaos_sys,
	.release = chaos_release,
};

/*
 * A random live user thread, with a reference; NULL if none was found. Not
 * one of ours: an INTERRUPT of the chaos driver itself would make its own
 * barriers return -ERESTARTSYS until it returns to user mode.
 */
static struct task_struct *chaos_pick(void)
{
	struct task_struct *g, *t, *found = NULL;
	unsigned int n = 0, k;

	rcu_read_lock();
	for_each_process_thread(g, t)
		n++;
	k = get_random_u32_below(n ? n : 1);
	for_each_process_thread(g, t) {
		if (k-- == 0) {
			if (!(t->flags & PF_KTHREAD) && t->tgid != current->tgid) {
				get_task_struct(t);
				found = t;
			}
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Counts @op, or records an unexpected result. */
static void chaos_check(int op, int ret, bool ok)
{
	if (ok) {
		atomic_inc(&chaos_stat[op]);
		return;
	}
	atomic_inc(&chaos_stat[C_UNEXPECTED]);
	snprintf(chaos_last, sizeof(chaos_last), "%s:%d", chaos_names[op], ret);
}

/* Results every call on a possibly dying task may give. */
static bool chaos_gone(int ret)
{
	return ret == -ESRCH || ret == -EALREADY;
}

static void chaos_detach(int i)
{
	struct utrace_engine *e = chaos_pool[i].engine;
	struct task_struct *task = chaos_pool[i].task;
	int ret = utrace_control(task, e, UTRACE_DETACH);

	if (ret == -EINPROGRESS)
		ret = utrace_barrier(task, e);
	chaos_check(C_DETACH, ret, !ret || ret == -ESRCH || ret == -EALREADY);
	utrace_engine_put(e);
	put_task_struct(task);
	chaos_pool[i].engine = NULL;
	chaos_pool[i].task = NULL;
}

static const unsigned long chaos_masks[] = {
	UTRACE_EVENT(CLONE) | UTRACE_EVENT(EXEC) | UTRACE_EVENT(DEATH),
	UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(EXIT) | UTRACE_EVENT(REAP),
	UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(SIGNAL) | UTRACE_EVENT(CLONE),
	UTRACE_EVENT(SYSCALL_ENTRY) | UTRACE_EVENT(SYSCALL_EXIT),
	UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(SYSCALL_EXIT) | UTRACE_EVENT(DEATH),
	0,
};

int cmd_chaos(long secs)
{
	unsigned long end = jiffies + secs * HZ;
	int i, ret;

	if (secs <= 0 || secs > 600)
		return -EINVAL;
	for (i = 0; i < C_NSTATS; i++)
		atomic_set(&chaos_stat[i], 0);
	chaos_last[0] = '\0';
	while (time_before(jiffies, end) && !fatal_signal_pending(current)) {
		struct utrace_engine *e;
		struct task_struct *task;

		i = get_random_u32_below(CHAOS_ENGINES);
		e = chaos_pool[i].engine;
		task = chaos_pool[i].task;
		if (!e) {
			task = chaos_pick();
			if (!task)
				continue;
			e = utrace_attach_task(task, UTRACE_ATTACH_CREATE, &ops_chaos, CHAOS_DATA);
			if (IS_ERR(e)) {
				ret = PTR_ERR(e);
				chaos_check(C_ATTACH_ERR, ret, ret == -ESRCH || ret == -EPERM);
				put_task_struct(task);
				continue;
			}
			atomic_inc(&chaos_stat[C_ATTACH]);
			chaos_pool[i].engine = e;
			chaos_pool[i].task = task;
			continue;
		}
		switch (get_random_u32_below(9)) {
		case 0:
		case 1:
			ret = utrace_set_events(task, e,
				chaos_masks[get_random_u32_below(ARRAY_SIZE(chaos_masks))]);
			chaos_check(C_EVENTS, ret, !ret || ret == -EINPROGRESS || chaos_gone(ret));
			break;
		case 2:
			ret = utrace_control(task, e, UTRACE_STOP);
			chaos_check(C_STOP, ret, !ret || ret == -EINPROGRESS || chaos_gone(ret));
			break;
		case 3:
		case 4:
			ret = utrace_control(task, e, UTRACE_RESUME);
			chaos_check(C_RESUME, ret, !ret || chaos_gone(ret));
			break;
		case 5:
			ret = utrace_control(task, e, UTRACE_INTERRUPT);
			chaos_check(C_INTERRUPT, ret, !ret || ret == -EINVAL || chaos_gone(ret));
			break;
		case 6:
			ret = utrace_control(task, e, UTRACE_REPORT);
			chaos_check(C_REPORT, ret, !ret || ret == -EINVAL || chaos_gone(ret));
			break;
		case 7:
			ret = utrace_barrier(task, e);
			chaos_check(C_BARRIER, ret, !ret || ret == -ESRCH || ret == -ERESTARTSYS);
			break;
		default:
			chaos_detach(i);
			break;
		}
		if (!get_random_u32_below(16))
			usleep_range(100, 1000);
		cond_resched();
	}
	for (i = 0; i < CHAOS_ENGINES; i++)
		if (chaos_pool[i].engine)
			chaos_detach(i);
	return 0;
}

void chaos_stats_show(struct seq_file *m)
{
	int i;

	for (i = 0; i < C_NSTATS; i++)
		seq_printf(m, "chaos.%s %d\n", chaos_names[i], atomic_read(&chaos_stat[i]));
	if (chaos_last[0])
		seq_printf(m, "chaos.last_unexpected %s\n", chaos_last);
}
