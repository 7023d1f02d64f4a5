/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utrace_test.ko's parts (test_main.c: the ctl commands and the module;
 * test_engine.c: the test engine; test_bench.c: the benchmark loops;
 * test_chaos.c: the chaos stress; test_race.c: the kprobe attach race):
 * what they share.
 */
#ifndef _UTRACE_TEST_H
#define _UTRACE_TEST_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/delay.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <utrace_rs.h>


#define NSLOTS 16
#define LOG_LINES 4096
#define LOG_LINE 96
#define MAX_FOLLOWERS 1024

struct slot {
	struct utrace_engine *engine;
	struct task_struct *task;	/* reference held; NULL for global */
	u32 ret;			/* what callbacks return */
	unsigned long follow;		/* events for CLONE followers, 0 = off */
	unsigned long attach_on;	/* event whose callback attaches ... */
	int attach_slot;		/* ... this slot ... */
	unsigned long attach_mask;	/* ... with these events */
	atomic_t count[_UTRACE_NEVENTS];
	long sys_nr;			/* count entries/exits of this syscall */
	atomic_t sys_entries, sys_exits;
	u32 sigret;			/* what report_signal returns */
	int sigrewrite;			/* si_signo report_signal writes, or -1 */
	int sigka;			/* return_ka: 0 keep, 1 SIG_DFL, 2 SIG_IGN */
	bool noop;			/* callbacks return at once (benchmarks) */
	long abort_nr;			/* abort this syscall ... */
	int abort_errno;		/* ... with this errno */
	unsigned long slow_us;		/* sleep in sleepable callbacks */
	unsigned long release_on;	/* event whose callback calls utrace_release_engines() */
	unsigned long barrier_on;	/* events whose callbacks call utrace_barrier() on themselves */
	bool lookup_in_exit;		/* EXIT/DEATH callbacks look the engine up */
	u32 step_mode;			/* SINGLESTEP/BLOCKSTEP between markers, 0 = off */
	bool stepping;			/* between the start and end markers */
	atomic_t steps, late_traps;	/* traps seen while stepping / after */
	int step_detach;		/* detach at this step's trap, 0 = never */
};

/*
 * The stepper's markers: getppid() with this first argument starts stepping
 * (at its SYSCALL_EXIT), with the next one ends it (at its SYSCALL_ENTRY).
 */
#define STEP_START 0x5354455030ULL
#define STEP_END 0x5354455031ULL

/* Handoff stress ("hs P K"): at most HS_P processes of HS_K steps. */
#define HS_P 64
#define HS_K 256

/* test_engine.c: the slots and what the ctl commands set in them. */
extern struct slot slots[NSLOTS];
extern unsigned long hold_mask;
extern atomic_t held;
extern struct wait_queue_head hold_wq;
extern pid_t filter_tgid;
extern atomic_t switches;
extern const struct utrace_engine_ops ops_a, ops_b;
/* stoploop and stopwait (test_bench.c) and the callbacks that serve them. */
extern struct completion stop_reported, run_again;
extern int stoploop_slot;
extern bool stoploop_wait_run;
extern int stopwait_slot;
extern unsigned long stopwait_syscalls;

__printf(1, 2) void log_line(const char *fmt, ...);
int slot_of(struct utrace_engine *engine);
bool counted(struct task_struct *task);
int cmd_attach(int n, long pid, long flags, const char *opsname, long data);
int cmd_handoff(struct slot *s);
void hs_setup(int p, int k);
void slot_forget(struct slot *s);
int cmd_cleanup(void);
void reset_stats(void);
int test_engine_init(void);
void test_engine_exit(void);
int test_log_show(struct seq_file *m);
void test_counters_show(struct seq_file *m);
void test_slots_show(struct seq_file *m);

/* test_bench.c */
int cmd_attachloop(long pid, long n);
int cmd_stoploop(int slot, long n);
/* cmd_stopwait()'s modes. */
enum { STOPWAIT_FAIR, STOPWAIT_RT, STOPWAIT_NOW };
int cmd_stopwait(int slot, long n, int mode);
int cmd_waitstop(int slot, unsigned int flags);
int cmd_examinepoke(struct slot *s, long n, long other);
int cmd_barrierloop(struct slot *s, long n);
int cmd_attachall(long pid, long events);
void bench_stats_show(struct seq_file *m);

/* test_chaos.c */
int cmd_chaos(long secs);
void chaos_stats_show(struct seq_file *m);

/* test_race.c */
int cmd_attachrace(int n, long pid);

#endif /* _UTRACE_TEST_H */
