// SPDX-License-Identifier: GPL-2.0
/*
 * utrace_test.ko: a test engine that user space drives through debugfs, so
 * the selftests can exercise every call of the C ABI and check exact
 * outcomes. Not a sample: it does odd things on purpose (holds callbacks,
 * attaches from callbacks, keeps references after detach).
 *
 * This file parses the commands and makes the module; the engine itself is
 * test_engine.c, the benchmark loops test_bench.c, the chaos stress
 * test_chaos.c and the kprobe attach race test_race.c (utrace_test.h).
 *
 * /sys/kernel/debug/utrace_test/
 *   ctl    write one command; write() returns its result: the length on
 *          success, or the negative errno the framework returned
 *   log    every callback, in order: "<n> <slot> <EVENT> <pid> <detail>"
 *   stats  counters, one "name value" per line
 *
 * Commands (numbers are decimal or 0x-hex; SLOT is 0..NSLOTS-1):
 *   attach SLOT PID FLAGS [OPS [DATA]]  PID 0 = global (task NULL);
 *                         OPS: a (default), b (other ops), q (only report_quiesce),
 *                         n (no-op SYSCALL callbacks only: benchmarks),
 *                         none (NULL ops)
 *   events SLOT MASK      utrace_set_events()
 *   events_kill SLOT MASK SIG  utrace_set_events(), then at once send_sig(SIG) to
 *                         SLOT's task (the signal kprobe must be armed by then)
 *   events_atomic SLOT MASK  utrace_set_events() with preemption off
 *   control SLOT ACTION   utrace_control()
 *   barrier SLOT          utrace_barrier()
 *   get SLOT / put SLOT   take / drop a reference (put of the slot's own
 *                         reference forgets the pointer)
 *   hold MASK             callbacks for these events block until "release"
 *   release               let held callbacks go on (and stop holding)
 *   follow SLOT MASK      SLOT's CLONE callback attaches a follower engine
 *                         with events MASK to the child
 *   attach_on SLOT EVENT NEWSLOT MASK
 *                         SLOT's next EVENT callback attaches NEWSLOT to the
 *                         current task with events MASK
 *   filter TGID           count global events only for TGID and its children
 *   handoff SLOT          utrace_handoff() SLOT's engine to a new one with the
 *                         other ops (a <-> b)
 *   hs P K                handoff-stress accounting: count EXECs of
 *                         "/tmp/hs/<p>.<i>" and DEATHs of comm "<p>.<i>",
 *                         p < P, i < K, per ops
 *   ret SLOT ACTION       SLOT's callbacks return ACTION
 *   sysnr SLOT NR         count SLOT's SYSCALL_ENTRY/EXIT reports of syscall NR
 *   sysabort SLOT NR ERRNO  SLOT's entry callback aborts syscall NR with -ERRNO
 *   sigret SLOT VALUE     SLOT's report_signal returns VALUE (a resume action
 *                         or'd with UTRACE_SIGNAL_* bits and flags)
 *   sigrewrite SLOT SIG   SLOT's report_signal sets info->si_signo to SIG
 *                         (-1: leave it) and si_errno to 77 (seen by the
 *                         siginfo_t of a handler)
 *   sigka SLOT 0|1|2      SLOT's report_signal leaves return_ka (0) or sets its
 *                         handler to SIG_DFL (1) or SIG_IGN (2)
 *   noop SLOT 0|1         SLOT's callbacks return at once (benchmarks)
 *   attachloop PID N      N x attach+set_events+detach(+barrier)+put on PID;
 *                         stats "bench.attach_ns" (per round trip)
 *   attachall PID MASK    attach a no-op engine with MASK to every thread of
 *                         PID (logs "ATTACHALL <count>")
 *   barrierloop SLOT N    N x utrace_barrier() with nothing in flight;
 *                         stats "bench.barrier_ns"
 *   stoploop SLOT N       N x (STOP, wait for the QUIESCE report of the stop,
 *                         RESUME, wait for the task's next SYSCALL_ENTRY);
 *                         SLOT's engine needs QUIESCE|SYSCALL_ENTRY and a task
 *                         in a syscall loop; stats "bench.stop_ns"
 *   stopwait SLOT N       the same round trip the way a debugger does it: N x
 *                         (STOP, utrace_wait_stopped(), RESUME, wait for the
 *                         task's next SYSCALL_ENTRY), no barrier: SLOT's
 *                         QUIESCE callback returns STOP meanwhile and wakes
 *   stopwait SLOT N rt    the same with the controller SCHED_FIFO (run as
 *                         soon as it is woken)
 *   stopwait SLOT N now   ptrace's loop: the next STOP right after the
 *                         RESUME, before the task ran (it may find the
 *                         task still stopped)
 *                         stats of both: "bench.stopwait_ns" (the mean),
 *                         "bench.stopwait_median_ns" (each round trip timed
 *                         on its own) and "bench.stopwait_split" (CPU per
 *                         round trip of the controller and the task, their
 *                         sleeps, preemptions and the task's syscalls per
 *                         1000 round trips; the round trips with more than
 *                         2 syscalls, the most in one, and the time of
 *                         those per round trip of the loop)
 *   examinepoke SLOT N OTHER
 *                         N x (RESUME by slot OTHER's engine, or with OTHER
 *                         -1 a SIGCONT, then prepare_examine and
 *                         finish_examine by SLOT's, which holds the task
 *                         stopped), SCHED_FIFO on the task's CPU; returns
 *                         the first examination's error (0: none failed);
 *                         logs "<slot> EXAMINEPOKE failed=<n> of <n> first=<e>"
 *   waitstop SLOT FLAGS   utrace_wait_stopped(FLAGS: 1 = killable) on SLOT's
 *                         engine (a reference of its own while it waits);
 *                         after 0 also utrace_prepare_examine(); logs
 *                         "<slot> WAITSTOP ret=<ret> examine=<ret>"
 *   lookupexit SLOT 0|1   SLOT's EXIT and DEATH callbacks look their engine up
 *                         (no CREATE) on the exiting task; logs
 *                         "LOOKUP_IN_EXIT self|other|<errno>" (and _DEATH)
 *   step SLOT MODE        MODE 3 (SINGLESTEP) or 4 (BLOCKSTEP), 0 = off: SLOT's
 *                         SYSCALL_EXIT of getppid(STEP_START) returns MODE, its
 *                         report_signal consumes each SIGTRAP returning MODE|IGN
 *                         (counted in stats "slotN.steps") until the SYSCALL_ENTRY
 *                         of getppid(STEP_END) (logs "STEPS <n>"); traps after it
 *                         are consumed with RESUME ("slotN.late_traps")
 *   stepdetach SLOT K     with "step": SLOT's engine detaches (returning
 *                         UTRACE_DETACH | UTRACE_SIGNAL_IGN) at the K-th trap
 *   slow SLOT USEC        SLOT's sleepable callbacks sleep USEC..2*USEC first
 *                         (widens the window for signals mid-callback)
 *   releaseon SLOT EVENT  SLOT's next EVENT callback calls utrace_release_engines()
 *                         (must refuse with -EDEADLK) and logs the result
 *   barrieron SLOT MASK   SLOT's callbacks for the events in MASK call
 *                         utrace_barrier() on their own engine (must return 0
 *                         at once) and log "SELF_BARRIER <EVENT> <ret> <usec>"
 *   attachrace SLOT PID   attach (CREATE) SLOT to PID, which is killed, reaped
 *                         and freed inside the attach, between its liveness
 *                         check and its insert of the task's state (see
 *                         cmd_attachrace); logs "ATTACHRACE hit=0|1 freed=0|1
 *                         <ret>" (hit: the probe caught the allocation)
 *   chaos SECONDS         for SECONDS, random operations on random user
 *                         tasks with a pool of engines (attach, set_events,
 *                         STOP, RESUME, INTERRUPT, REPORT, barrier, detach);
 *                         all detached at the end; stats "chaos.*"
 *   reset                 clear the log and counters
 *   cleanup               detach, barrier and put everything held; every
 *                         slot's settings back to their defaults
 */
#include "utrace_test.h"

/*
 * streamsoftirq N: emit into a stream from this (process) context and N
 * times from a timer, in softirq, as utrace_stream_emit()'s contract
 * allows; lockdep reports a ring lock that is not safe for that.
 */
struct softirq_emit {
	struct timer_list timer;
	struct utrace_stream *stream;
	int left;
	struct completion done;
};

static void softirq_emit_fn(struct timer_list *t)
{
	struct softirq_emit *se = container_of(t, struct softirq_emit, timer);

	utrace_stream_emit(se->stream, "softirq", 7);
	if (--se->left > 0)
		mod_timer(&se->timer, jiffies + 1);
	else
		complete(&se->done);
}

/* One at a time: ctl serialises the command. */
static struct softirq_emit softirq_emit;

static int cmd_streamsoftirq(long n)
{
	struct softirq_emit *se = &softirq_emit;
	int i;

	if (n < 1 || n > 1000)
		return -EINVAL;
	se->left = n;
	se->stream = utrace_stream_create("utrace_test_softirq", 64);
	if (IS_ERR(se->stream))
		return PTR_ERR(se->stream);
	init_completion(&se->done);
	timer_setup(&se->timer, softirq_emit_fn, 0);
	mod_timer(&se->timer, jiffies + 1);
	for (i = 0; i < 1000 && !completion_done(&se->done); i++)
		utrace_stream_emit(se->stream, "process", 7);
	wait_for_completion(&se->done);
	timer_delete_sync(&se->timer);
	utrace_stream_destroy(se->stream);
	return 0;
}

static int run_cmd(char *buf)
{
	char *argv[6] = { "", "", "", "", "", "" };
	long a1 = 0, a2 = 0, a3 = 0, a4 = 0;
	char *p = strim(buf);
	int argc = 0, n;
	struct slot *s;

	while (p && *p && argc < 6)
		argv[argc++] = strsep(&p, " ");
	if (argc > 1 && kstrtol(argv[1], 0, &a1))
		return -EINVAL;
	if (argc > 2 && kstrtol(argv[2], 0, &a2) && strcmp(argv[0], "attach"))
		return -EINVAL;
	n = a1;
	s = (n >= 0 && n < NSLOTS) ? &slots[n] : NULL;

	if (!strcmp(argv[0], "attach") && s && argc >= 4) {
		if (kstrtol(argv[3], 0, &a3))
			return -EINVAL;
		if (argc > 5 && kstrtol(argv[5], 0, &a4))
			return -EINVAL;
		return cmd_attach(n, a2, a3, argc > 4 ? argv[4] : "a", argc > 5 ? a4 : n);
	}
	if (!strcmp(argv[0], "events") && s && s->engine && argc == 3)
		return utrace_set_events(s->task, s->engine, a2);
	/*
	 * events_kill SLOT EVENTS SIG: set the events, then at once (no return
	 * to user mode in between) send SIG to the slot's task: what the
	 * engine wants of a signal holds for one sent right after
	 * utrace_set_events() returned (the signal kprobe is armed by then).
	 */
	if (!strcmp(argv[0], "events_kill") && s && s->engine && s->task && argc == 4) {
		int ret;

		if (kstrtol(argv[3], 0, &a3) || a3 < 1 || a3 > 64)
			return -EINVAL;
		ret = utrace_set_events(s->task, s->engine, a2);
		if (!ret)
			send_sig(a3, s->task, 0);
		return ret;
	}
	/* events_atomic SLOT EVENTS: utrace_set_events() with preemption off. */
	if (!strcmp(argv[0], "events_atomic") && s && s->engine && argc == 3) {
		int ret;

		preempt_disable();
		ret = utrace_set_events(s->task, s->engine, a2);
		preempt_enable();
		return ret;
	}
	if (!strcmp(argv[0], "control") && s && s->engine && argc == 3)
		return utrace_control(s->task, s->engine, a2);
	if (!strcmp(argv[0], "barrier") && s && s->engine && argc == 2) {
		int ret = utrace_barrier(s->task, s->engine);

		log_line("%d BARRIER_RETURNED %d", n, ret);
		return ret;
	}
	if (!strcmp(argv[0], "get") && s && s->engine && argc == 2) {
		utrace_engine_get(s->engine);
		return 0;
	}
	if (!strcmp(argv[0], "put") && s && s->engine && argc == 2) {
		utrace_engine_put(s->engine);
		slot_forget(s);
		return 0;
	}
	if (!strcmp(argv[0], "put_extra") && s && s->engine && argc == 2) {
		utrace_engine_put(s->engine);
		return 0;
	}
	if (!strcmp(argv[0], "handoff") && s && s->engine && argc == 2)
		return cmd_handoff(s);
	if (!strcmp(argv[0], "hs") && argc == 3) {
		if (a1 < 0 || a1 > HS_P || a2 < 0 || a2 > HS_K)
			return -EINVAL;
		hs_setup(a1, a2);
		return 0;
	}
	if (!strcmp(argv[0], "noop") && s && argc == 3) {
		WRITE_ONCE(s->noop, !!a2);
		return 0;
	}
	if (!strcmp(argv[0], "attachloop") && argc == 3)
		return cmd_attachloop(a1, a2);
	if (!strcmp(argv[0], "attachall") && argc == 3) {
		int ret = cmd_attachall(a1, a2);

		log_line("%d ATTACHALL %d", n, ret);
		return ret < 0 ? ret : 0;
	}
	if (!strcmp(argv[0], "barrierloop") && s && s->engine && argc == 3)
		return cmd_barrierloop(s, a2);
	if (!strcmp(argv[0], "examinepoke") && s && s->engine && s->task && argc == 4) {
		if (kstrtol(argv[3], 0, &a3))
			return -EINVAL;
		return cmd_examinepoke(s, a2, a3);
	}
	if (!strcmp(argv[0], "stoploop") && s && s->engine && s->task && argc == 3)
		return cmd_stoploop(n, a2);
	if (!strcmp(argv[0], "stopwait") && s && s->engine && s->task) {
		if (argc == 3)
			return cmd_stopwait(n, a2, STOPWAIT_FAIR);
		if (argc == 4 && !strcmp(argv[3], "rt"))
			return cmd_stopwait(n, a2, STOPWAIT_RT);
		if (argc == 4 && !strcmp(argv[3], "now"))
			return cmd_stopwait(n, a2, STOPWAIT_NOW);
	}
	if (!strcmp(argv[0], "waitstop") && s && s->engine && s->task && argc == 3)
		return cmd_waitstop(n, a2);
	if (!strcmp(argv[0], "sigret") && s && argc == 3) {
		WRITE_ONCE(s->sigret, a2);
		return 0;
	}
	if (!strcmp(argv[0], "sigrewrite") && s && argc == 3) {
		WRITE_ONCE(s->sigrewrite, a2);
		return 0;
	}
	if (!strcmp(argv[0], "sigka") && s && argc == 3 && a2 >= 0 && a2 <= 2) {
		WRITE_ONCE(s->sigka, a2);
		return 0;
	}
	if (!strcmp(argv[0], "sysnr") && s && argc == 3) {
		WRITE_ONCE(s->sys_nr, a2);
		atomic_set(&s->sys_entries, 0);
		atomic_set(&s->sys_exits, 0);
		return 0;
	}
	if (!strcmp(argv[0], "sysabort") && s && argc == 4) {
		if (kstrtol(argv[3], 0, &a3) || a3 <= 0 || a3 > 4095)
			return -EINVAL;
		WRITE_ONCE(s->abort_errno, a3);
		WRITE_ONCE(s->abort_nr, a2);
		return 0;
	}
	if (!strcmp(argv[0], "ret") && s && argc == 3) {
		s->ret = a2;
		return 0;
	}
	if (!strcmp(argv[0], "follow") && s && argc == 3) {
		s->follow = a2;
		return 0;
	}
	if (!strcmp(argv[0], "attach_on") && s && argc == 5) {
		if (kstrtol(argv[3], 0, &a3) || kstrtol(argv[4], 0, &a4) ||
		    a3 < 0 || a3 >= NSLOTS || a2 < 0 || a2 >= _UTRACE_NEVENTS)
			return -EINVAL;
		s->attach_slot = a3;
		s->attach_mask = a4;
		s->attach_on = 1UL << a2;
		return 0;
	}
	if (!strcmp(argv[0], "hold") && argc == 2) {
		WRITE_ONCE(hold_mask, a1);
		return 0;
	}
	if (!strcmp(argv[0], "release") && argc == 1) {
		WRITE_ONCE(hold_mask, 0);
		wake_up_all(&hold_wq);
		return 0;
	}
	if (!strcmp(argv[0], "filter") && argc == 2) {
		filter_tgid = a1;
		return 0;
	}
	if (!strcmp(argv[0], "reset") && argc == 1) {
		reset_stats();
		return 0;
	}
	if (!strcmp(argv[0], "cleanup") && argc == 1)
		return cmd_cleanup();
	if (!strcmp(argv[0], "releaseon") && s && argc == 3) {
		WRITE_ONCE(s->release_on, a2);
		return 0;
	}
	if (!strcmp(argv[0], "barrieron") && s && argc == 3) {
		WRITE_ONCE(s->barrier_on, a2);
		return 0;
	}
	if (!strcmp(argv[0], "lookupexit") && s && argc == 3) {
		WRITE_ONCE(s->lookup_in_exit, !!a2);
		return 0;
	}
	if (!strcmp(argv[0], "step") && s && argc == 3) {
		if (a2 && a2 != UTRACE_SINGLESTEP && a2 != UTRACE_BLOCKSTEP)
			return -EINVAL;
		WRITE_ONCE(s->stepping, false);
		WRITE_ONCE(s->step_mode, a2);
		return 0;
	}
	if (!strcmp(argv[0], "stepdetach") && s && argc == 3) {
		WRITE_ONCE(s->step_detach, a2);
		return 0;
	}
	if (!strcmp(argv[0], "slow") && s && argc == 3) {
		if (a2 < 0 || a2 > 100000)
			return -EINVAL;
		WRITE_ONCE(s->slow_us, a2);
		return 0;
	}
	if (!strcmp(argv[0], "attachrace") && s && argc == 3)
		return cmd_attachrace(n, a2);
	if (!strcmp(argv[0], "chaos") && argc == 2)
		return cmd_chaos(a1);
	if (!strcmp(argv[0], "streamsoftirq") && argc == 2)
		return cmd_streamsoftirq(a1);
	return -EINVAL;
}

/* barrier, held callbacks and chaos may block: do not serialise them. */
static bool ctl_unlocked(const char *cmd)
{
	return !strncmp(cmd, "barrier", 7) || !strncmp(cmd, "release", 7) ||
	       !strncmp(cmd, "chaos", 5) || !strncmp(cmd, "waitstop", 8);
}

#include "test_ctl.h"

static int stats_show(struct seq_file *m, void *v)
{
	test_counters_show(m);
	chaos_stats_show(m);
	bench_stats_show(m);
	test_slots_show(m);
	return 0;
}

static int log_show(struct seq_file *m, void *v)
{
	return test_log_show(m);
}

DEFINE_SHOW_ATTRIBUTE(log);
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init utrace_test_init(void)
{
	int ret;

	ret = test_engine_init();
	if (ret)
		return ret;
	ret = ctl_create("utrace_test");
	if (ret) {
		test_engine_exit();
		return ret;
	}
	debugfs_create_file("log", 0400, ctl_dir, NULL, &log_fops);
	debugfs_create_file("stats", 0400, ctl_dir, NULL, &stats_fops);
	return 0;
}

static void __exit utrace_test_exit(void)
{
	/* Engines pin this module, so none is left by now. */
	ctl_remove();
	test_engine_exit();
}

module_init(utrace_test_init);
module_exit(utrace_test_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("utrace-rs developers");
MODULE_DESCRIPTION("utrace-rs selftest engine driven through debugfs");

