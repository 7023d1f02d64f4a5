// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_test.ko, the benchmark loops of make bench (attach..put, barrier,
 * the STOP round trips) and the stop-waiting commands they share code with
 * (waitstop, examinepoke).
 */
#include "utrace_test.h"

static u64 bench_attach_ns, bench_barrier_ns, bench_stop_ns, bench_stopwait_ns;
/* The median of stopwait's round trips, each timed on its own. */
static u64 bench_stopwait_median_ns;

/*
 * Where a stopwait round trip goes, per 1000 round trips: the CPU time
 * (sum_exec_runtime: instructions under -icount) of the controller (the
 * loop, in the kernel) and of the traced task, and their voluntary
 * (sleeps) and involuntary (preemptions) context switches. One vCPU: the
 * task does not run while the controller reads its counters.
 */
struct run_counts {
	u64 cpu;
	unsigned long nvcsw, nivcsw;
};

static struct run_counts stopwait_ctl, stopwait_task;
static unsigned long stopwait_task_syscalls;
/* Round trips in which the task entered more than 2 syscalls, and the most. */
static unsigned long stopwait_late, stopwait_most;
/* The time those late round trips took, per round trip of the loop. */
static u64 stopwait_late_ns;

static void run_counts_read(struct task_struct *t, struct run_counts *c)
{
	c->cpu = READ_ONCE(t->se.sum_exec_runtime);
	c->nvcsw = READ_ONCE(t->nvcsw);
	c->nivcsw = READ_ONCE(t->nivcsw);
}

/* @c becomes what @t ran since @c was read, per 1000 of @n round trips. */
static void run_counts_since(struct task_struct *t, struct run_counts *c, long n)
{
	struct run_counts now;

	run_counts_read(t, &now);
	c->cpu = (now.cpu - c->cpu) / n;
	c->nvcsw = (now.nvcsw - c->nvcsw) * 1000 / n;
	c->nivcsw = (now.nivcsw - c->nivcsw) * 1000 / n;
}

int cmd_attachloop(long pid, long n)
{
	struct task_struct *task = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	u64 start;
	long i;
	int ret = 0;

	if (!task)
		return -ESRCH;
	start = ktime_get_ns();
	for (i = 0; i < n && !ret; i++) {
		struct utrace_engine *e = utrace_attach_task(task, UTRACE_ATTACH_CREATE, &ops_b,
							     (void *)(long)NSLOTS);

		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			break;
		}
		utrace_set_events(task, e, UTRACE_EVENT(EXEC));
		/* utrace's safe detach: barrier only when a callback may run. */
		if (utrace_control(task, e, UTRACE_DETACH) == -EINPROGRESS)
			utrace_barrier(task, e);
		utrace_engine_put(e);
	}
	if (i)
		bench_attach_ns = (ktime_get_ns() - start) / i;
	put_task_struct(task);
	return ret;
}

/* RESUME the stopped task of @s and wait until it runs again (its next syscall). */
static int resume_until_run(struct slot *s)
{
	int ret;

	reinit_completion(&run_again);
	WRITE_ONCE(stoploop_wait_run, true);
	ret = utrace_control(s->task, s->engine, UTRACE_RESUME);
	if (!ret && wait_for_completion_killable_timeout(&run_again, 10 * HZ) <= 0)
		ret = -ETIMEDOUT;
	return ret;
}

int cmd_stoploop(int slot, long n)
{
	struct slot *s = &slots[slot];
	u64 start = ktime_get_ns();
	long i;
	int ret = 0;

	WRITE_ONCE(stoploop_slot, slot);
	for (i = 0; i < n && !ret; i++) {
		reinit_completion(&stop_reported);
		ret = utrace_control(s->task, s->engine, UTRACE_STOP);
		if (ret != -EINPROGRESS)
			break;	/* 0 would mean still stopped: a bug here */
		ret = 0;
		if (wait_for_completion_killable_timeout(&stop_reported, 10 * HZ) <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		/*
		 * The callback's STOP takes effect when it returns: wait for
		 * that (utrace's protocol), or the RESUME below could come
		 * first and be undone by it.
		 */
		ret = utrace_barrier(s->task, s->engine);
		if (ret)
			break;
		ret = resume_until_run(s);
	}
	WRITE_ONCE(stoploop_slot, -1);
	WRITE_ONCE(stoploop_wait_run, false);
	if (ret)
		return ret;
	if (n)
		bench_stop_ns = (ktime_get_ns() - start) / n;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A debugger's round trip: STOP, wait until the task sleeps in its stop
 * (utrace_wait_stopped(): the task wakes us right before it sleeps), RESUME
 * (no barrier: the wait's 0 means no callback is in flight and the stop
 * holds), then wait until it runs again; STOPWAIT_NOW: the next STOP right
 * after the RESUME, ptrace's loop (make bench's ptrace_interrupt row).
 */
int cmd_stopwait(int slot, long n, int mode)
{
	bool rt = mode == STOPWAIT_RT, at_once = mode == STOPWAIT_NOW;
	struct slot *s = &slots[slot];
	/*
	 * Each round trip's own time, for its median: the mean also counts
	 * the stretches of its own loop that a fair scheduler grants the
	 * task in a few round trips per thousand (the "late" ones).
	 */
	u64 *trips;
	u64 start, t, now;
	long i;
	int ret = 0;

	/* A failed or refused run leaves no stale figure behind. */
	bench_stopwait_ns = bench_stopwait_median_ns = stopwait_late_ns = 0;
	if (n < 1)
		return -EINVAL;
	trips = kvmalloc_array(n, sizeof(*trips), GFP_KERNEL | __GFP_NOWARN);
	if (!trips)
		return -ENOMEM;
	/*
	 * rt: the controller runs as soon as it is woken (SCHED_FIFO), as
	 * on a machine where it has a CPU of its own. A fair-class
	 * controller on the one vCPU is woken by the task's next syscall but
	 * not always run: in a few round trips per thousand the scheduler
	 * lets the task, which used less CPU than the controller, go on with
	 * its getppid() loop until the next tick (thousands of syscalls of
	 * its own, which the round trip then counts).
	 */
	if (rt)
		sched_set_fifo_low(current);
	start = t = ktime_get_ns();
	WRITE_ONCE(stopwait_slot, slot);
	run_counts_read(current, &stopwait_ctl);
	run_counts_read(s->task, &stopwait_task);
	stopwait_task_syscalls = READ_ONCE(stopwait_syscalls);
	stopwait_late = stopwait_most = 0;
	for (i = 0; i < n && !ret; i++) {
		unsigned long calls = READ_ONCE(stopwait_syscalls);

		ret = utrace_control(s->task, s->engine, UTRACE_STOP);
		/*
		 * 0: still stopped. Only in the at-once loop, where the RESUME
		 * came before the task ran (as ptrace's PTRACE_INTERRUPT
		 * comes right after PTRACE_CONT); else a bug here.
		 */
		if (ret != -EINPROGRESS && (ret || !at_once)) {
			ret = ret ?: -EPROTO;
			break;
		}
		ret = utrace_wait_stopped(s->task, s->engine, UTRACE_WAIT_KILLABLE);
		if (ret)
			break;
		if (at_once)
			ret = utrace_control(s->task, s->engine, UTRACE_RESUME);
		else
			ret = resume_until_run(s);
		now = ktime_get_ns();
		trips[i] = now - t;
		t = now;
		calls = READ_ONCE(stopwait_syscalls) - calls;
		if (calls > 2) {
			stopwait_late++;
			stopwait_late_ns += trips[i];
		}
		stopwait_most = max(stopwait_most, calls);
	}
	WRITE_ONCE(stopwait_slot, -1);
	WRITE_ONCE(stoploop_wait_run, false);
	if (rt)
		sched_set_normal(current, 0);
	if (ret) {
		stopwait_late_ns = 0;
	} else {
		bench_stopwait_ns = (ktime_get_ns() - start) / n;
		sort(trips, n, sizeof(*trips), cmp_u64, NULL);
		bench_stopwait_median_ns = trips[n / 2];
		stopwait_late_ns /= n;
		run_counts_since(current, &stopwait_ctl, n);
		run_counts_since(s->task, &stopwait_task, n);
		stopwait_task_syscalls = (READ_ONCE(stopwait_syscalls) - stopwait_task_syscalls) *
					 1000 / n;
	}
	kvfree(trips);
	return ret;
}

/* utrace_wait_stopped() with references of our own (the slot may change meanwhile). */
int cmd_waitstop(int slot, unsigned int flags)
{
	struct slot *s = &slots[slot];
	struct utrace_engine *engine = s->engine;
	struct task_struct *task = s->task;
	struct utrace_examiner exam;
	int ret, examine = 1;

	utrace_engine_get(engine);
	get_task_struct(task);
	ret = utrace_wait_stopped(task, engine, flags);
	if (!ret)
		examine = utrace_prepare_examine(task, engine, &exam);
	log_line("%d WAITSTOP ret=%d examine=%d", slot, ret, examine);
	put_task_struct(task);
	utrace_engine_put(engine);
	return ret;
}

/*
 * examinepoke: N x (poke the task that SLOT's engine holds stopped, then
 * utrace_prepare_examine() and utrace_finish_examine() at once); the poke
 * is a RESUME by slot OTHER's engine, which does not hold the task, or
 * with OTHER -1 a SIGCONT. The caller runs SCHED_FIFO on the task's CPU
 * meanwhile: a wake-up of the task (pin it to one CPU) is then local and
 * the task, runnable, cannot run before the examination starts, which
 * sees it woken every time, not only when the timing is unlucky. Returns
 * the first failed examination's errno, 0 if none failed.
 */
int cmd_examinepoke(struct slot *s, long n, long other)
{
	struct utrace_engine *poker = other >= 0 && other < NSLOTS ? slots[other].engine : NULL;
	struct utrace_examiner exam;
	int ret = 0, first = 0;
	long i, failed = 0;

	if (n < 1 || n > 100000 || other < -1 || (other >= 0 && !poker))
		return -EINVAL;
	sched_set_fifo_low(current);
	ret = set_cpus_allowed_ptr(current, cpumask_of(task_cpu(s->task)));
	for (i = 0; i < n && !ret; i++) {
		if (poker)
			ret = utrace_control(s->task, poker, UTRACE_RESUME);
		else
			ret = send_sig(SIGCONT, s->task, 1);
		if (ret)
			break;
		ret = utrace_prepare_examine(s->task, s->engine, &exam);
		if (!ret)
			ret = utrace_finish_examine(s->task, s->engine, &exam);
		if (ret && !failed++)
			first = ret;
		ret = 0;
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	sched_set_normal(current, 0);
	log_line("%d EXAMINEPOKE failed=%ld of %ld first=%d", slot_of(s->engine), failed, i, first);
	return ret ?: first;
}

int cmd_barrierloop(struct slot *s, long n)
{
	u64 start = ktime_get_ns();
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = utrace_barrier(s->task, s->engine);
		if (ret)
			return ret;
	}
	if (n)
		bench_barrier_ns = (ktime_get_ns() - start) / n;
	return 0;
}

/*
 * Attach a no-op engine with @events to every thread of process @pid (for the
 * benchmarks' many-traced-tasks rows). The engines stay until the threads
 * are reaped. Returns how many were attached, or an errno.
 */
int cmd_attachall(long pid, long events)
{
	struct task_struct *leader = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	struct task_struct **tasks, *t;
	int n = 0, i, done = 0;

	if (!leader)
		return -ESRCH;
	tasks = kvmalloc_array(65536, sizeof(*tasks), GFP_KERNEL);
	if (!tasks) {
		put_task_struct(leader);
		return -ENOMEM;
	}
	rcu_read_lock();
	for_each_thread(leader, t) {
		if (n == 65536)
			break;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		struct utrace_engine *e = utrace_attach_task(tasks[i], UTRACE_ATTACH_CREATE, &ops_b,
							     (void *)(long)NSLOTS);

		if (!IS_ERR(e)) {
			if (!utrace_set_events(tasks[i], e, events))
				done++;
			utrace_engine_put(e);
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	put_task_struct(leader);
	return done;
}

void bench_stats_show(struct seq_file *m)
{
	seq_printf(m, "bench.attach_ns %llu\nbench.barrier_ns %llu\nbench.stop_ns %llu\n",
		   bench_attach_ns, bench_barrier_ns, bench_stop_ns);
	seq_printf(m, "bench.stopwait_ns %llu\n", bench_stopwait_ns);
	seq_printf(m, "bench.stopwait_median_ns %llu\n", bench_stopwait_median_ns);
	seq_printf(m, "bench.stopwait_split ctl_cpu=%llu task_cpu=%llu ctl_sleeps=%lu ctl_preempted=%lu task_sleeps=%lu task_preempted=%lu task_syscalls=%lu late=%lu most=%lu late_ns=%llu\n",
		   stopwait_ctl.cpu, stopwait_task.cpu, stopwait_ctl.nvcsw, stopwait_ctl.nivcsw,
		   stopwait_task.nvcsw, stopwait_task.nivcsw, stopwait_task_syscalls,
		   stopwait_late, stopwait_most, stopwait_late_ns);
}
