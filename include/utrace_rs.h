/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utrace-rs: the C ABI of utrace_rs.ko.
 *
 * This header is the reference of the C API, in kernel-doc; the concepts
 * and examples are in Documentation/utrace-rs/api.rst. Engines attach to user tasks (or globally, to every user task) and get
 * callbacks at safe points. The semantics follow utrace (Roland McGrath,
 * UTRACE_API_VERSION 20091216) unless Documentation/utrace-rs/api.rst says
 * otherwise; read it before writing an engine.
 */
#ifndef _UTRACE_RS_H
#define _UTRACE_RS_H

#include <linux/types.h>

struct module;
struct pid;
struct k_sigaction;
struct kernel_siginfo;
struct pt_regs;
struct task_struct;

#define UTRACE_RS_API_VERSION 3

/**
 * enum utrace_events - the event bits, in utrace's order
 * @_UTRACE_EVENT_QUIESCE: the task reaches a safe point (report_quiesce)
 * @_UTRACE_EVENT_REAP: the task was reaped (report_reap)
 * @_UTRACE_EVENT_CLONE: the task made a new task (report_clone)
 * @_UTRACE_EVENT_EXEC: the task ran an exec (report_exec)
 * @_UTRACE_EVENT_EXIT: the task is exiting (report_exit)
 * @_UTRACE_EVENT_DEATH: the task is dead (report_death)
 * @_UTRACE_EVENT_SYSCALL_ENTRY: the task enters a syscall
 *	(report_syscall_entry)
 * @_UTRACE_EVENT_SYSCALL_EXIT: the task leaves a syscall
 *	(report_syscall_exit)
 * @_UTRACE_EVENT_SIGNAL: a signal whose delivery will run a user handler
 * @_UTRACE_EVENT_SIGNAL_IGN: a signal that will be ignored
 * @_UTRACE_EVENT_SIGNAL_STOP: a signal whose delivery will stop the process
 * @_UTRACE_EVENT_SIGNAL_TERM: a signal that will kill without a core dump
 * @_UTRACE_EVENT_SIGNAL_CORE: a signal that will kill with a core dump
 * @_UTRACE_EVENT_JCTL: job control stop or continue (report_jctl)
 * @_UTRACE_NEVENTS: the number of events
 *
 * An engine asks for events with a mask of UTRACE_EVENT(name) bits
 * (utrace_set_events()). The five signal events all use report_signal.
 */
enum utrace_events {
	_UTRACE_EVENT_QUIESCE,
	_UTRACE_EVENT_REAP,
	_UTRACE_EVENT_CLONE,
	_UTRACE_EVENT_EXEC,
	_UTRACE_EVENT_EXIT,
	_UTRACE_EVENT_DEATH,
	_UTRACE_EVENT_SYSCALL_ENTRY,
	_UTRACE_EVENT_SYSCALL_EXIT,
	_UTRACE_EVENT_SIGNAL,	/* a signal whose delivery will run a user handler */
	_UTRACE_EVENT_SIGNAL_IGN,	/* a signal that will be ignored */
	_UTRACE_EVENT_SIGNAL_STOP,	/* a signal whose delivery will stop the process */
	_UTRACE_EVENT_SIGNAL_TERM,	/* a signal that will kill without a core dump */
	_UTRACE_EVENT_SIGNAL_CORE,	/* a signal that will kill with a core dump */
	_UTRACE_EVENT_JCTL,	/* job control stop or continue (report_jctl) */
	_UTRACE_NEVENTS
};
#define UTRACE_EVENT(type) (1UL << _UTRACE_EVENT_##type)

/* Every kind of signal event: they all use report_signal. */
#define UTRACE_EVENT_SIGNAL_ALL \
	(UTRACE_EVENT(SIGNAL) | UTRACE_EVENT(SIGNAL_IGN) | UTRACE_EVENT(SIGNAL_STOP) | \
	 UTRACE_EVENT(SIGNAL_TERM) | UTRACE_EVENT(SIGNAL_CORE))

/* The events a per-task engine may ask for today. */
#define UTRACE_TASK_EVENTS \
	(UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(REAP) | UTRACE_EVENT(SYSCALL_ENTRY) | \
	 UTRACE_EVENT(SYSCALL_EXIT) | UTRACE_EVENT_SIGNAL_ALL | UTRACE_EVENT(CLONE) | \
	 UTRACE_EVENT(EXEC) | UTRACE_EVENT(EXIT) | UTRACE_EVENT(DEATH) | UTRACE_EVENT(JCTL))

/* The events a global engine may ask for. */
#define UTRACE_GLOBAL_EVENTS \
	(UTRACE_EVENT(CLONE) | UTRACE_EVENT(EXEC) | UTRACE_EVENT(EXIT) | UTRACE_EVENT(DEATH) | \
	 UTRACE_EVENT(SIGNAL_CORE))

/**
 * enum utrace_resume_action - what a callback returns, what utrace_control() takes
 * @UTRACE_STOP: stop at the next safe point (before user mode)
 * @UTRACE_INTERRUPT: INTERRUPT's report (see utrace_control()) before user
 *	mode, soon
 * @UTRACE_REPORT: a QUIESCE report (event 0) before user mode
 * @UTRACE_SINGLESTEP: run one user instruction, then trap (x86: a SIGTRAP,
 *	reported to SIGNAL engines, which consume it with UTRACE_SIGNAL_IGN;
 *	return SINGLESTEP again to go on)
 * @UTRACE_BLOCKSTEP: run up to the next taken branch, then trap (single
 *	steps where the CPU has no block step)
 * @UTRACE_RESUME: keep going (and stop stepping)
 * @UTRACE_DETACH: detach the engine right after this callback
 * @UTRACE_RESUME_MAX: the number of actions
 *
 * The resume action is in the low bits (UTRACE_RESUME_MASK) of a callback's
 * return. When engines disagree the smallest value wins. Only UTRACE_STOP is
 * sticky: an engine's stop lasts until one of its callbacks returns
 * something else or it calls utrace_control() with another action. The
 * action that wins the last report before user mode decides stepping.
 */
enum utrace_resume_action {
	UTRACE_STOP,
	UTRACE_INTERRUPT,
	UTRACE_REPORT,
	UTRACE_SINGLESTEP,
	UTRACE_BLOCKSTEP,
	UTRACE_RESUME,
	UTRACE_DETACH,
	UTRACE_RESUME_MAX
};
#define UTRACE_RESUME_MASK 0x0f

/**
 * utrace_resume_action() - the resume action of a callback's @action
 * @action: a callback's @action argument or return value
 *
 * Return: the low bits, an &enum utrace_resume_action.
 */
static inline enum utrace_resume_action utrace_resume_action(u32 action)
{
	return action & UTRACE_RESUME_MASK;
}

/**
 * enum utrace_signal_action - the signal action of report_signal
 * @UTRACE_SIGNAL_DELIVER: as the disposition says (a handler runs, or the
 *	default action; @return_ka may change it for this delivery, see
 *	report_signal)
 * @UTRACE_SIGNAL_IGN: discard the signal
 * @UTRACE_SIGNAL_TERM: kill the process (as a default SIGTERM does)
 * @UTRACE_SIGNAL_CORE: kill it with a core dump (as a default SIGQUIT does)
 * @UTRACE_SIGNAL_STOP: stop the process (as SIGSTOP does)
 * @UTRACE_SIGNAL_TSTP: job-control stop (as SIGTSTP does, unless its group
 *	is orphaned)
 * @UTRACE_SIGNAL_REPORT: in @action only: no signal, INTERRUPT's report
 *	(utrace's)
 * @UTRACE_SIGNAL_HANDLER: in @action only: a handler frame was just set up
 *	for @info
 *
 * utrace's values, in the bits UTRACE_SIGNAL_MASK of report_signal's
 * @action and return value. In @action, what will happen to the signal as
 * the engines before this one left it (the first engine sees the class of
 * the signal's disposition); in the return value, what this engine wants.
 * The last engine's choice is done.
 */
enum utrace_signal_action {
	UTRACE_SIGNAL_DELIVER	= 0x00,
	UTRACE_SIGNAL_IGN	= 0x10,
	UTRACE_SIGNAL_TERM	= 0x20,
	UTRACE_SIGNAL_CORE	= 0x30,
	UTRACE_SIGNAL_STOP	= 0x40,
	UTRACE_SIGNAL_TSTP	= 0x50,
	UTRACE_SIGNAL_REPORT	= 0x60,
	UTRACE_SIGNAL_HANDLER	= 0x70
};
#define UTRACE_SIGNAL_MASK	0xf0

/**
 * utrace_signal_action() - the signal action of report_signal's @action
 * @action: report_signal's @action argument or return value
 *
 * Return: the bits UTRACE_SIGNAL_MASK, an &enum utrace_signal_action.
 */
static inline enum utrace_signal_action utrace_signal_action(u32 action)
{
	return action & UTRACE_SIGNAL_MASK;
}

/*
 * Or'd into report_signal's return: push the signal back (utrace's HOLD).
 * It stays queued, with its siginfo, and is reported again after the
 * resume action is done: with UTRACE_STOP, once every engine that stopped
 * the task resumed it (utrace_control(RESUME)). With another resume action
 * it is reported again at once; an engine must not keep returning it.
 */
#define UTRACE_SIGNAL_HOLD	0x100

/*
 * Or'd into report_signal's return (utrace-rs; version 2 called this
 * UTRACE_SIGNAL_HOLD): suspend the process on the signal. It stays queued
 * (with its siginfo) and the process stops in a real group stop (as by
 * SIGSTOP: ps shows T, gdb -p can attach, wait() sees it stopped). The
 * signal is delivered, with the disposition in force, when the process is
 * continued (SIGCONT), or when an engine with SIGNAL_* events detaches from
 * the task (utrace-rs then sends SIGCONT). SIGKILL still kills it at once.
 * Overrides the signal action and HOLD; the resume action is not used.
 */
#define UTRACE_SIGNAL_SUSPEND	0x200

/*
 * In report_signal's @action only (utrace-rs): this SIGTRAP is the trap of
 * a step utrace-rs made (UTRACE_SINGLESTEP, UTRACE_BLOCKSTEP), not the
 * program's own: utrace-rs had set the trap flag. An engine that did not
 * ask for the step should leave it to the one that did (or ignore it); no
 * engine should deliver it.
 */
#define UTRACE_SIGNAL_STEP	0x400

/*
 * Or'd into report_syscall_entry's return: do not run the syscall. Its
 * return value is what the registers hold (-ENOSYS unless the callback set
 * one with syscall_set_return_value()).
 */
#define UTRACE_SYSCALL_RUN 0x00
#define UTRACE_SYSCALL_ABORT 0x10
#define UTRACE_SYSCALL_MASK 0xf0

/*
 * Or'd into report_syscall_entry's @action: this entry was reported before
 * and the task stopped before running it (a callback returned UTRACE_STOP);
 * it was resumed and is about to run the syscall the registers now name.
 */
#define UTRACE_SYSCALL_RESUMED 0x100

/* utrace_attach_*() flags. */
#define UTRACE_ATTACH_MATCH_OPS		0x0001	/* match engines with the same ops */
#define UTRACE_ATTACH_MATCH_DATA	0x0002	/* match engines with the same data */
#define UTRACE_ATTACH_MATCH_MASK	0x000f
#define UTRACE_ATTACH_CREATE		0x0010	/* attach a new engine */
#define UTRACE_ATTACH_EXCLUSIVE		0x0020	/* with CREATE: -EEXIST if one matches */
#define UTRACE_ATTACH_GLOBAL		0x0100	/* task == NULL: every user task */
/*
 * With CREATE: the engine's report_clone never attaches to the new child.
 * A child is normally held at its first instruction until the CLONE
 * callbacks are done, so that they can attach to it before it runs; the
 * children of a fork that only such engines get (or none) are not held, and
 * get no per-task state of their own until an event of theirs needs it
 * (a global tracer that does not follow children has no reason to hold
 * them).
 */
#define UTRACE_ATTACH_NOFOLLOW		0x0200

/**
 * struct utrace_engine - an attached engine
 * @ops: the callbacks it was attached with
 * @data: the engine module's data, as passed to utrace_attach_task()
 *
 * Only @ops and @data are public; the rest belongs to utrace_rs.ko. The
 * pointer stays valid while you hold a reference (utrace_engine_get(),
 * utrace_engine_put()).
 */
struct utrace_engine {
	const struct utrace_engine_ops *ops;
	void *data;
	/* private fields follow */
};

/**
 * struct utrace_engine_ops - an engine's callbacks
 *
 * Every callback may be NULL. @action is the resume action chosen by
 * the engines called before this one for the same event (UTRACE_RESUME for the
 * first); return the action this engine wants (UTRACE_RESUME, or
 * UTRACE_DETACH to detach right after this callback).
 *
 * Context: report_clone, report_exec, report_exit and report_death run in the
 * traced task's own context (current == the task; for report_clone, the
 * parent, except for a CLONE_VFORK clone, whose child reports for its
 * sleeping parent: @parent says which task the event belongs to), with no
 * locks held: they may sleep and allocate with GFP_KERNEL, but must not wait
 * for user space or for other tasks' progress. report_reap runs from a
 * workqueue, after the task is gone: it must not block.
 *
 * release runs once, in process context (it may sleep): at the engine
 * module's last utrace_engine_put() when that caller may sleep and is not
 * inside a callback, else from a utrace-rs worker (the last reference
 * dropped by utrace-rs itself, e.g. after a DETACH or a reap, by a callback,
 * or by a caller that may not sleep).
 *
 * The ops are the module's constant table: @owner, @flags and the two
 * syscall callbacks are read once, when an engine is created (a missing
 * syscall callback answers UTRACE_RESUME); the other callbacks are read at
 * each report.
 */
struct utrace_engine_ops {
	/**
	 * @owner: The module whose code the callbacks are. By default it is pinned
	 * while one of its engines exists (it cannot be unloaded before they
	 * are detached and put). With UTRACE_OPS_UNPINNED in @flags it is not
	 * pinned; instead, when it unloads, utrace-rs detaches the engines it
	 * left behind and runs their release before its memory is freed (see
	 * utrace_release_engines()). NULL: nobody is pinned or tracked; the
	 * module must detach, wait for and put its engines itself (see
	 * utrace_barrier()).
	 */
	struct module *owner;

	/**
	 * @report_clone: CLONE: @parent made @child with @clone_flags. The
	 * callback may attach engines to @child, which is held at its first
	 * instruction until the CLONE callbacks are done (see
	 * UTRACE_ATTACH_NOFOLLOW).
	 */
	u32 (*report_clone)(u32 action, struct utrace_engine *engine,
			    struct task_struct *parent, unsigned long clone_flags,
			    struct task_struct *child);
	/**
	 * @report_exec: EXEC: the task runs @filename; @old_pid is its thread
	 * id before the exec (a non-leader thread's exec takes the leader's);
	 * @regs: the new image's user registers (task_pt_regs(current)).
	 */
	u32 (*report_exec)(u32 action, struct utrace_engine *engine,
			   const char *filename, pid_t old_pid, struct pt_regs *regs);
	/**
	 * @report_exit: EXIT: the task is exiting with @orig_code; *@code
	 * may be changed: see "Exit codes" in api.rst.
	 */
	u32 (*report_exit)(u32 action, struct utrace_engine *engine,
			   long orig_code, long *code);
	/**
	 * @report_death: DEATH: the task is dead; @group_dead when it was
	 * the last of its thread group; @signal is the signal its parent is
	 * sent, or -1 for none.
	 */
	u32 (*report_death)(struct utrace_engine *engine, bool group_dead,
			    int signal);
	/**
	 * @report_reap: REAP: @task was reaped; the engine is detached after
	 * this call. From a workqueue: must not block.
	 */
	void (*report_reap)(struct utrace_engine *engine,
			    struct task_struct *task);
	/**
	 * @release: called once with the engine's @data when its last
	 * reference is gone (see above for where).
	 */
	void (*release)(void *data);

	/**
	 * @report_signal: SIGNAL_*: a signal is about to be delivered to the task. Which event
	 * it is follows the disposition in force: SIGNAL (a handler will run),
	 * SIGNAL_IGN (SIG_IGN, or ignored by default), SIGNAL_STOP (SIGSTOP,
	 * SIGTSTP, SIGTTIN, SIGTTOU at their default), SIGNAL_TERM (killed
	 * without a core dump by default), SIGNAL_CORE (killed with one). The
	 * utrace_signal_action() of @action says the same (DELIVER, IGN, STOP or
	 * TSTP, TERM, CORE) for the first engine, and what the engine before
	 * made of it for the others. Runs in the task's context before the
	 * signal is dequeued, with no locks held; may sleep.
	 *
	 * @regs: the task's user registers. @info: the queued siginfo (signal,
	 * si_code, si_addr of a fault, the sender of a kill()); it may be
	 * changed, and what is delivered is what the last engine left
	 * (si_signo changed: that signal instead; 0: none). @orig_ka: the
	 * disposition in force. @return_ka: a copy the engine may change for
	 * this delivery: a sa_handler of SIG_DFL (the default action) or SIG_IGN
	 * is honoured, other changes are not (utrace-rs cannot install a handler
	 * for one delivery).
	 *
	 * Return a resume action or'd with a signal action (see
	 * utrace_signal_action) and maybe UTRACE_SIGNAL_HOLD or
	 * UTRACE_SIGNAL_SUSPEND: the last engine's signal action (with its
	 * flags) is what is done, so an engine that does not mean to change it
	 * returns utrace_signal_action(action) | its resume action.
	 *
	 * HANDLER: with SIGNAL events, after a handler frame was set up for a
	 * signal this engine was told about, on the way back to user mode (the
	 * handler runs next; @regs show it): @action has UTRACE_SIGNAL_HANDLER,
	 * @info is the signal's, @orig_ka and @return_ka are NULL; the signal
	 * action of the return is not used.
	 *
	 * REPORT: with QUIESCE events, the report UTRACE_INTERRUPT asked for
	 * (see utrace_control): @action has UTRACE_SIGNAL_REPORT, there is no
	 * signal (@info is zeroed: set it to deliver one), @orig_ka and
	 * @return_ka are NULL.
	 *
	 * Not called for a ptraced task (its debugger owns its signals), for
	 * SIGKILL (which always kills, also a stopped or suspended task), for
	 * SIGCONT, or for a signal that a thread of the group blocks. Every
	 * sender is covered, POSIX timer expiries and a child's death signal
	 * included (see the docs).
	 */
	u32 (*report_signal)(u32 action, struct utrace_engine *engine,
			     struct pt_regs *regs, struct kernel_siginfo *info,
			     const struct k_sigaction *orig_ka,
			     struct k_sigaction *return_ka);

	/**
	 * @report_quiesce: QUIESCE: called before every other callback of the same engine
	 * (except reap) with @event = that event's bit, and with @event = 0 at
	 * the return-to-user safe point that utrace_control(STOP, REPORT or
	 * INTERRUPT) or a callback's REPORT or INTERRUPT asked for. The task's
	 * context; may sleep. Return UTRACE_STOP to (stay) stopped: any other
	 * return drops this engine's stop.
	 */
	u32 (*report_quiesce)(u32 action, struct utrace_engine *engine, unsigned long event);

	/**
	 * @report_syscall_entry: SYSCALL_ENTRY, and for SYSCALL_EXIT: the task enters or leaves a syscall;
	 * @regs are its registers (syscall_get_nr(), syscall_get_arguments(),
	 * syscall_get_return_value() and their set_ counterparts apply, for
	 * either ABI). syscall_get_arch(current) says the syscall's ABI, whose
	 * table the number is from: AUDIT_ARCH_X86_64, or AUDIT_ARCH_I386 for
	 * int $0x80 and every syscall of a 32-bit task (in_ia32_syscall();
	 * arguments in ebx, ecx, edx, esi, edi, ebp, the result in eax: 20 is
	 * getpid there, writev on x86-64). It holds in both callbacks, also
	 * when they run from the task's work. These
	 * run in the syscall tracepoints, in ATOMIC context (preemption off on
	 * every kernel): no sleeping, no GFP_KERNEL, no utrace_barrier(), no user
	 * memory. (With UTRACE_OPS_SYSCALL_SLEEPABLE, entry runs in process
	 * context instead: see there. A followed child's return from fork, = 0,
	 * is reported to exit from its task work, in process context, after
	 * the parent's CLONE callbacks: see api.rst, Following children.)
	 *
	 * Entry may return UTRACE_SYSCALL_ABORT: the syscall does not run.
	 * UTRACE_STOP (without ABORT) stops the task BEFORE the syscall runs:
	 * it is skipped and restarted (as the kernel restarts a syscall that
	 * returned -ERESTARTNOINTR), the task stops before any user
	 * instruction, and while it is stopped its registers are as at entry
	 * (see utrace_regset_set() to change the number or arguments). When it
	 * is resumed, the syscall runs with what the registers then say and
	 * entry is reported again with UTRACE_SYSCALL_RESUMED in @action. The
	 * skipped pass gets no SYSCALL_EXIT report. STOP | ABORT: the syscall
	 * does not run and the stop comes as the task returns to user mode.
	 * Adding SYSCALL events may sleep the first time (it registers the
	 * syscall tracepoints, which make every syscall of every task take the
	 * slow path while registered).
	 */
	u32 (*report_syscall_entry)(u32 action, struct utrace_engine *engine, struct pt_regs *regs);
	/**
	 * @report_syscall_exit: SYSCALL_EXIT: see @report_syscall_entry;
	 * syscall_get_return_value() is the syscall's result, and may be
	 * changed with syscall_set_return_value().
	 */
	u32 (*report_syscall_exit)(u32 action, struct utrace_engine *engine, struct pt_regs *regs);

	/**
	 * @report_jctl: JCTL: the task is about to stop for job control (@type CLD_STOPPED:
	 * a stop signal is about to be delivered to its process) or was just
	 * continued (@type CLD_CONTINUED: SIGCONT ended a stop), reported in
	 * each thread that has the event, before it stops or returns to user
	 * mode. @notify is 0 (utrace-rs does not know which thread will notify
	 * the parent). The task's context; may sleep.
	 */
	u32 (*report_jctl)(u32 action, struct utrace_engine *engine, int type, int notify);

	/** @flags: UTRACE_OPS_* */
	unsigned int flags;
};

/* ops->flags: @owner is not pinned (see above). */
#define UTRACE_OPS_UNPINNED	0x1
/*
 * ops->flags: report_syscall_entry runs in process context, from the task's
 * own work before it returns to user mode, with the registers as at entry:
 * it may sleep, allocate with GFP_KERNEL and read the task's memory
 * (copy_from_user(), strncpy_from_user(): the task is current). The syscall
 * is skipped and restarted for it, as for a stop (see report_syscall_entry).
 * While one engine of a task with SYSCALL_ENTRY has this flag, every entry
 * callback of that task is called there (same order, same returns).
 */
#define UTRACE_OPS_SYSCALL_SLEEPABLE	0x2

/**
 * utrace_api_version() - the API version of the loaded utrace_rs.ko
 *
 * Context: any.
 * Return: UTRACE_RS_API_VERSION of the module.
 */
unsigned int utrace_api_version(void);

/**
 * utrace_attach_task() - attach an engine to a task, or look one up
 * @task: the user task, or NULL with UTRACE_ATTACH_GLOBAL (every user task)
 * @flags: UTRACE_ATTACH_* (CREATE to attach, MATCH_* to look up)
 * @ops: the engine's callbacks (the module's constant table)
 * @data: the engine's data, passed to the callbacks as engine->data
 *
 * A new engine has no events: ask for them with utrace_set_events().
 *
 * Context: may sleep (a lookup without CREATE does not).
 * Return: a new reference (put it with utrace_engine_put()) or an ERR_PTR:
 * -EINVAL (bad flags, NULL ops with CREATE, events a global engine cannot
 * have), -ENOENT (no match without CREATE), -EEXIST (EXCLUSIVE and a match),
 * -EPERM (kernel thread or io_uring/vhost worker), -ESRCH (CREATE on a task
 * dead or exiting; a lookup without CREATE works until the task is reaped,
 * e.g. from the engine's own EXIT or DEATH callback), -ENOMEM, -ENODEV
 * (ops->owner is going away), -EWOULDBLOCK (CREATE where the caller may not
 * sleep).
 */
struct utrace_engine *utrace_attach_task(struct task_struct *task, int flags,
					 const struct utrace_engine_ops *ops,
					 void *data);
/**
 * utrace_attach_pid() - utrace_attach_task() by struct pid
 * @pid: the task's pid (a reference the caller holds)
 * @flags: as for utrace_attach_task()
 * @ops: as for utrace_attach_task()
 * @data: as for utrace_attach_task()
 *
 * Context: may sleep (a lookup without CREATE does not).
 * Return: as utrace_attach_task(); -ESRCH when @pid names no task.
 */
struct utrace_engine *utrace_attach_pid(struct pid *pid, int flags,
					const struct utrace_engine_ops *ops,
					void *data);

/**
 * utrace_engine_get() - take a reference to an engine
 * @engine: an engine the caller holds a reference to
 *
 * Context: any.
 */
void utrace_engine_get(struct utrace_engine *engine);
/**
 * utrace_engine_put() - drop a reference to an engine
 * @engine: the engine
 *
 * The last reference runs ops->release (see &struct utrace_engine_ops for
 * where).
 *
 * Context: any.
 */
void utrace_engine_put(struct utrace_engine *engine);

/**
 * utrace_set_events() - choose the events an engine is told about
 * @target: the task the engine is attached to, or NULL for a global engine
 * @engine: the engine
 * @events: a mask of UTRACE_EVENT() bits (UTRACE_TASK_EVENTS, or
 *	UTRACE_GLOBAL_EVENTS for a global engine)
 *
 * The new mask replaces the old one. The first engine with SYSCALL events
 * registers the syscall probes, the first with signal events puts in the
 * signal kprobe: those calls may sleep (see report_syscall_entry).
 *
 * Context: any (may be called from the engine's own callbacks); where the
 * caller may not sleep, the first SYSCALL or signal engine's call fails.
 * Return: 0 (in force), -EINPROGRESS (bits were cleared while a callback
 * of this engine, other than the caller's own, may be running or on its
 * way: use utrace_barrier()), -EALREADY (DEATH asked for after the exit was
 * reported, or cleared while it is being reported: report_death and
 * report_reap will still come), -ESRCH (detached, or REAP has begun),
 * -EINVAL (events this kind of engine cannot have; wrong target), -ENOMEM
 * (the syscall probes could not be registered; events unchanged),
 * -EWOULDBLOCK (the probes or the kprobe would have to be put in where the
 * caller may not sleep; events unchanged, logged).
 */
int utrace_set_events(struct task_struct *target, struct utrace_engine *engine,
		      unsigned long events);
/**
 * utrace_control() - act on a task from outside, or from a callback
 * @target: the task the engine is attached to (not NULL: a global engine
 *	gets -EINVAL)
 * @engine: the engine
 * @action: the resume action
 *
 * utrace_control() actions on a task (not on a global engine: -EINVAL):
 * UTRACE_STOP: the task stops at its next safe point (return to user mode,
 *   or right after the report in progress): 0 if it already is stopped,
 *   else -EINPROGRESS. Like UTRACE_REPORT, it makes a QUIESCE report
 *   (event 0) first: the engine's callback there returns UTRACE_STOP to
 *   keep the stop (any other return drops it: only a returned STOP is
 *   sticky), and engines without QUIESCE keep it. It sleeps (killable,
 *   freezable, no CPU, not counted as load; ps shows "I") until every engine
 *   that holds it resumed it or detached. It counts as stopped for job
 *   control: a SIGSTOP of its process completes without it (wait() sees the
 *   process stopped), SIGCONT does not end it, and a thread resumed while its
 *   process is still stopped joins that stop. Only SIGKILL ends a stop
 *   early. STOP does not interrupt a blocked syscall.
 * UTRACE_RESUME: drop this engine's stop (others may still hold the task).
 * UTRACE_REPORT: UTRACE_RESUME and a QUIESCE report (event 0) before the
 *   task next returns to user mode (after the stop, if others hold it).
 *   Needs the QUIESCE event (-EINVAL).
 * UTRACE_INTERRUPT: drops the engine's stop and makes the task report as if
 *   a signal were pending (utrace's): soon, a blocked syscall is
 *   interrupted, and before the kernel dequeues its pending signals (after
 *   the reports of those held for SIGNAL engines) the task calls, of each
 *   engine with QUIESCE, report_signal with UTRACE_SIGNAL_REPORT and no
 *   signal (a zeroed @info, NULL dispositions), or report_quiesce(0) if it
 *   has no report_signal. The last engine's signal action is done:
 *   DELIVER sends the signal it put in info->si_signo (none if 0), TERM,
 *   CORE, STOP, TSTP act as the default SIGTERM, SIGQUIT, SIGSTOP, SIGTSTP;
 *   REPORT and IGN do nothing. The syscall restarts transparently unless a
 *   handler runs. Works without QUIESCE (then it only interrupts).
 * UTRACE_SINGLESTEP, UTRACE_BLOCKSTEP: UTRACE_RESUME for one instruction
 *   (or up to the next taken branch); the trap is a SIGTRAP SIGNAL report.
 *   Needs QUIESCE (-EINVAL); BLOCKSTEP is -EOPNOTSUPP where the CPU has no
 *   block step (DEBUGCTL.BTF; e.g. QEMU's TCG). A callback that runs after
 *   this and before the task leaves decides in its place (see above).
 * UTRACE_DETACH also stops the stepping the engine asked for.
 * Engines that control a task from outside while their callbacks may run
 * order the two with utrace_barrier(): a callback's return applies after
 * it, so a RESUME sent while the callback that returns STOP still runs is
 * undone by it.
 *
 *
 * Context: any (may be called from the engine's own callbacks).
 * Return: 0 (done; STOP: already stopped), -EINPROGRESS (STOP: it stops at
 * its next safe point; DETACH: detached, but a callback to this engine may
 * still be running or on its way: use utrace_barrier()), -EALREADY (DETACH
 * once DEATH reporting has begun: not detached, report_death and
 * report_reap will still come), -ESRCH (already detached, REAP has begun,
 * or the task is dead or exiting), -EINVAL (REPORT, SINGLESTEP or
 * BLOCKSTEP without QUIESCE; a global engine), -EOPNOTSUPP (BLOCKSTEP: the
 * CPU has no block step).
 */
int utrace_control(struct task_struct *target, struct utrace_engine *engine,
		   enum utrace_resume_action action);

/**
 * utrace_barrier() - wait until no callback to an engine is in progress
 * @target: the task the engine is attached to, or NULL for a global engine
 * @engine: the engine (attached or detached)
 *
 * On a detached engine it also waits until utrace_rs.ko has dropped its
 * implicit reference, so that afterwards the caller's references are the
 * only ones: its last utrace_engine_put() calls ->release() right there.
 *
 * An engine module whose ops have no owner (ops->owner == NULL) is not
 * pinned by its engines and must, before it unloads, for every engine:
 * utrace_control(DETACH), then utrace_barrier() (even after 0 or -ESRCH from
 * the detach), then utrace_engine_put() of all its references.
 *
 * Context: may sleep; returns 0 at once when called from a callback of
 * @engine (report_reap included, which runs in a workqueue), or with
 * @target == current and @engine attached (no callback of the caller's own
 * task can be in flight).
 * Return: 0, -ERESTARTSYS (a signal interrupted the wait), -ESRCH (the
 * engine was already detached with no callback in progress when called),
 * -EWOULDBLOCK (it would have to wait but the caller may not sleep).
 */
int utrace_barrier(struct task_struct *target, struct utrace_engine *engine);

/* utrace_wait_stopped() flag: only a fatal signal ends the wait. */
#define UTRACE_WAIT_KILLABLE 0x1

/**
 * utrace_wait_stopped() - wait until a task sleeps in an engine's stop
 * @target: the task
 * @engine: the engine, attached to @target, that stopped it
 * @flags: 0 (an interruptible wait, ps shows S) or UTRACE_WAIT_KILLABLE
 *	(only a fatal signal ends it; ps shows I)
 *
 * Waits until @target sleeps in its utrace stop with @engine's stop in
 * force: the debugger's STOP, wait, RESUME. utrace_control(@target, @engine,
 * UTRACE_STOP), then utrace_wait_stopped(): when it returns 0 the task is in
 * its stop (off its CPU, or about to be: utrace_prepare_examine() waits for
 * that), no callback to @engine is in flight, and the stop holds until
 * @engine resumes or detaches (or SIGKILL): a UTRACE_RESUME needs no
 * utrace_barrier(). The task wakes the waiter itself right before it
 * sleeps, with preemption off until it does (as ptrace_stop() wakes its
 * tracer), so a waiter on the same CPU runs once the task is asleep: one
 * context-switch pair per stop. It keeps waiting while @engine does not
 * hold the task stopped (a callback of it that returns anything but
 * UTRACE_STOP drops the stop: the wait then ends at a later stop, or as
 * below). Neither wait counts as load.
 *
 * Context: may sleep.
 * Return: 0, -ESRCH (@engine is or gets detached, or the task exits or is
 * gone), -ERESTARTSYS (a signal to the waiter; with UTRACE_WAIT_KILLABLE
 * in @flags only a fatal one), -EINVAL (a global engine, an unknown flag,
 * or not @target's engine), -EDEADLK (@target is current, or called from a
 * callback of @engine), -EWOULDBLOCK (it would have to wait but the caller
 * may not sleep).
 */
int utrace_wait_stopped(struct task_struct *target, struct utrace_engine *engine,
			unsigned int flags);

/**
 * utrace_release_engines() - detach and release a module's engines
 * @mod: the module (ops->owner of the engines)
 * @flags: 0, or UTRACE_ATTACH_MATCH_DATA
 * @data: with UTRACE_ATTACH_MATCH_DATA: only the engines with this data
 *
 * Detach every engine whose ops->owner is @mod (with UTRACE_ATTACH_MATCH_DATA
 * in @flags: only those whose data is @data), wait until no callback to them
 * can come, and run their ->release here, for those that still have
 * references too (their later puts only free memory). When it returns, no
 * code of @mod is called for those engines again. Engines attached by a
 * callback in flight meanwhile are detached too. utrace-rs calls it (for
 * all of a module's engines) when a module unloads.
 *
 * Context: process, may sleep; not from a callback or a release of those
 * engines.
 * Return: how many engines it detached, or -EINVAL (NULL @mod, other
 * flags), -EDEADLK (called from a callback of one of those engines:
 * nothing done), -EWOULDBLOCK (called where it may not sleep: nothing
 * done).
 */
int utrace_release_engines(struct module *mod, int flags, void *data);

/**
 * utrace_handoff() - hand a task's tracing over to a new engine
 * @target: the task, or NULL for a global engine
 * @from: the engine to replace
 * @ops: the new engine's callbacks
 * @data: the new engine's data
 * @events: the new engine's events (0: @from's events)
 *
 * Replaces @from (attached to @target, or global when @target
 * is NULL) by a new engine with @ops, @data and @events (0: @from's events),
 * atomically. Every event of the task is reported to exactly one of the two:
 * the new engine's first event is the one right after the last event @from
 * saw, and a CLONE child is followed by whichever engine reported its CLONE.
 * @from is detached, as by UTRACE_DETACH: a stop it held ends (and so do
 * its suspended signals and stepping); the new engine holds no stop, as a
 * newly attached one. One callback to @from may still be running when this
 * function returns; utrace_barrier(@target, @from) waits for it.
 *
 * Context: may sleep.
 * Return: a reference to the new engine, or ERR_PTR: -ESRCH (@from
 * detached, or the task reaped), -EINVAL (NULL ops, events this kind cannot
 * have, wrong target), -ENOMEM, -ENODEV, -EWOULDBLOCK (the caller may not
 * sleep).
 */
struct utrace_engine *utrace_handoff(struct task_struct *target,
				     struct utrace_engine *from,
				     const struct utrace_engine_ops *ops,
				     void *data, unsigned long events);

/**
 * struct utrace_examiner - what utrace_prepare_examine() saw
 * @state: the target's __state at prepare
 * @ncsw: its nvcsw + nivcsw at prepare
 *
 * Examining a stopped task (utrace's protocol): utrace_prepare_examine()
 * checks that the engine holds the target stopped and waits until it is off
 * its CPU; then read or change its registers and memory
 * (utrace_regset_get(), utrace_access_vm(), or the kernel's regset API);
 * then utrace_finish_examine() says whether the task stayed put meanwhile.
 */
struct utrace_examiner {
	long state;
	unsigned long ncsw;
};

/**
 * utrace_prepare_examine() - wait until a stopped task is off its CPU
 * @target: the task
 * @engine: the engine that holds @target stopped
 * @exam: filled in, for utrace_finish_examine()
 *
 * With @target == current it returns 0 at once. A task woken in its stop
 * for a moment (a SIGCONT) is waited for to sleep again (every millisecond,
 * 20 times at most, then -EAGAIN); another engine's RESUME does not wake it
 * while @engine holds it.
 *
 * Context: process, may sleep (it waits for the task to leave its CPU).
 * Return: 0, -EINVAL (@engine does not hold @target stopped, or wrong
 * target), -EAGAIN (not in its stop yet: retry), -ESRCH (dead or
 * detached).
 */
int utrace_prepare_examine(struct task_struct *target, struct utrace_engine *engine,
			   struct utrace_examiner *exam);
/**
 * utrace_finish_examine() - whether a task stayed put since prepare
 * @target: the task
 * @engine: the engine that holds @target stopped
 * @exam: as utrace_prepare_examine() filled it
 *
 * With @target == current it returns 0 at once.
 *
 * Context: process.
 * Return: 0, -EINVAL (@engine does not hold @target stopped, or wrong
 * target), -EAGAIN (it ran since prepare: what was read may be stale,
 * retry), -ESRCH (dead or detached).
 */
int utrace_finish_examine(struct task_struct *target, struct utrace_engine *engine,
			  struct utrace_examiner *exam);

/**
 * utrace_regset_get() - read a task's user registers
 * @target: the task
 * @engine: the engine that holds @target in its stop
 * @note_type: the regset of @target's native view, by ELF note type:
 *	NT_PRSTATUS (struct user_regs_struct), NT_PRFPREG (struct
 *	user_i387_struct, the fxsave layout), NT_X86_XSTATE, ...
 * @buf: where to copy them
 * @size: the size of @buf
 *
 * Needs @target == current (a callback in the task's own context: QUIESCE,
 * EXEC, SIGNAL, EXIT, a sleepable entry) or @engine holding @target in its
 * stop, off its CPU.
 *
 * Context: process, may sleep.
 * Return: the bytes copied (up to @size); -EINVAL, -EAGAIN, -ESRCH as for
 * utrace_prepare_examine(); -ENODEV (no such regset), -EWOULDBLOCK (atomic
 * context).
 */
int utrace_regset_get(struct task_struct *target, struct utrace_engine *engine,
		      unsigned int note_type, void *buf, unsigned int size);
/**
 * utrace_regset_set() - change a task's user registers
 * @target: the task
 * @engine: the engine that holds @target in its stop
 * @note_type: the regset, as for utrace_regset_get()
 * @buf: the new contents
 * @size: how many bytes to write from the regset's start: a whole number
 *	of its units, at most its size (-EINVAL otherwise)
 *
 * Needs @target == current or @engine holding @target in its stop, off its
 * CPU, as utrace_regset_get().
 *
 * Context: process, may sleep.
 * Return: 0; -EINVAL, -EAGAIN, -ESRCH as for utrace_prepare_examine();
 * -ENODEV (no such regset), -EWOULDBLOCK (atomic context).
 */
int utrace_regset_set(struct task_struct *target, struct utrace_engine *engine,
		      unsigned int note_type, const void *buf, unsigned int size);
/**
 * utrace_access_vm() - read or write a task's memory as a debugger does
 * @target: the task
 * @engine: the engine that holds @target in its stop
 * @addr: the user address in @target
 * @buf: the kernel buffer
 * @len: how many bytes
 * @write: write @buf into the task instead of reading
 *
 * access_process_vm() with FOLL_FORCE. Needs @target == current or @engine
 * holding @target in its stop, off its CPU, as utrace_regset_get().
 *
 * Context: process, may sleep.
 * Return: the bytes done, -EFAULT when none could be; -EINVAL, -EAGAIN,
 * -ESRCH as for utrace_prepare_examine(); -EWOULDBLOCK (atomic context).
 */
int utrace_access_vm(struct task_struct *target, struct utrace_engine *engine,
		     unsigned long addr, void *buf, int len, bool write);

/**
 * struct utrace_task_info - what a trace record wants to know about a task
 * @pid: thread id (init namespace)
 * @tgid: thread-group id
 * @ppid: thread-group id of the real parent
 * @exit_code: as do_exit() recorded it (wait status)
 * @comm: the task's command name
 */
struct utrace_task_info {
	pid_t pid;
	pid_t tgid;
	pid_t ppid;
	int exit_code;
	char comm[16];
};

/**
 * utrace_task_info() - fill a &struct utrace_task_info
 * @task: a valid task
 * @info: filled in
 *
 * Context: process; does not sleep.
 */
void utrace_task_info(struct task_struct *task, struct utrace_task_info *info);

/**
 * utrace_lost_events() - events lost for want of memory
 *
 * Events the framework could not report to any engine because memory ran
 * out in a hook (GFP_ATOMIC), since utrace_rs.ko was loaded. Streams
 * announce increases as "<seq> <ns> LOST <n>" records.
 *
 * Context: any.
 * Return: the count.
 */
u64 utrace_lost_events(void);

/*
 * Event streams: the character device /dev/<name> (a misc device; @name is 1
 * to 31 letters, digits, '_' or '-'), root-only (0400, and opening needs
 * CAP_SYS_ADMIN), one text line per record: "<seq> <ns> <text>". Reads consume and block until data
 * arrives (-EAGAIN with O_NONBLOCK; blocked readers are woken within about
 * 10 ms, or at once when the ring is a quarter full), poll() works, and
 * when the ring is full
 * records are dropped but never silently: the reader then gets
 * "<seq> <ns> DROPPED <n>" at the place of the loss (and "LOST <n>" for
 * events the framework lost, see utrace_lost_events()). See
 * Documentation/utrace-rs/global-trace.rst.
 */
struct utrace_stream;

/**
 * utrace_stream_create() - create an event stream, the character device /dev/<name>
 * @name: the device's name, 1 to 31 letters, digits, '_' or '-'
 * @records: ring size (16 to 65536 records of up to 256 bytes)
 *
 * Context: process, may sleep.
 * Return: the stream, or an ERR_PTR.
 */
struct utrace_stream *utrace_stream_create(const char *name, unsigned int records);
/**
 * utrace_stream_emit() - add a record to a stream
 * @stream: the stream
 * @text: the record's text (the stream prefixes "<seq> <ns> ")
 * @len: its length
 *
 * Context: any but hardirq.
 * Return: 0, -ENOSPC (dropped: ring full) or -ESHUTDOWN.
 */
int utrace_stream_emit(struct utrace_stream *stream, const char *text, size_t len);
/**
 * utrace_stream_dropped() - records a stream dropped so far
 * @stream: the stream
 *
 * Context: any.
 * Return: the count.
 */
u64 utrace_stream_dropped(struct utrace_stream *stream);
/**
 * utrace_stream_destroy() - remove a stream's file
 * @stream: the stream
 *
 * Readers blocked in read() get end of file.
 *
 * Context: process, may sleep.
 */
void utrace_stream_destroy(struct utrace_stream *stream);

/**
 * struct utrace_task_ids - who a task is
 * @uid: real uid (init user namespace)
 * @euid: effective uid (init user namespace)
 * @ns_pid: thread id in the task's own pid namespace (0: gone)
 * @ns_tgid: process id in the task's own pid namespace
 * @flags: UTRACE_TASK_*
 * @held: signals pending and blocked (bit sig-1), e.g. held ones
 *
 * For tools that act on people's processes (e.g. select by user, or print
 * the pid a debugger in the task's container would use).
 */
struct utrace_task_ids {
	u32 uid;
	u32 euid;
	pid_t ns_pid;
	pid_t ns_tgid;
	u32 flags;
	u64 held;
};
#define UTRACE_TASK_KERNEL	0x1	/* kernel thread or io_uring/vhost worker */
#define UTRACE_TASK_PTRACED	0x2	/* a debugger is attached (ptrace) */
#define UTRACE_TASK_STOPPED	0x4	/* stopped (group stop, T) */
#define UTRACE_TASK_TRACED	0x8	/* stopped for its debugger (t) */
#define UTRACE_TASK_EXITING	0x10	/* exiting or dead */

/**
 * utrace_task_ids() - fill a &struct utrace_task_ids
 * @task: a valid task
 * @ids: filled in
 *
 * Context: any but hardirq.
 */
void utrace_task_ids(struct task_struct *task, struct utrace_task_ids *ids);

/**
 * utrace_task_descends_from() - whether a task's process descends from a pid
 * @task: a valid task
 * @tgid: a process id (init namespace)
 *
 * Descent is by real parents: a process reparented to a reaper no longer
 * descends from its old ancestors.
 *
 * Context: any but hardirq.
 * Return: true if @task's process is @tgid or descends from it.
 */
bool utrace_task_descends_from(struct task_struct *task, pid_t tgid);

/**
 * utrace_task_descends_from_pid() - utrace_task_descends_from() by identity
 * @task: a valid task
 * @tgid: the thread group pid of a process (a struct pid the caller holds,
 *	e.g. from get_task_pid(PIDTYPE_TGID))
 *
 * A process that has exited matches nothing, also once its number is
 * reused.
 *
 * Context: any but hardirq.
 * Return: true if @task's process is @tgid's or descends from it by real
 * parents.
 */
bool utrace_task_descends_from_pid(struct task_struct *task, struct pid *tgid);

struct cgroup;
/**
 * utrace_cgroup_get() - look up a cgroup v2 by path
 * @path: absolute, from the caller's cgroup namespace root, e.g.
 *	"/system.slice"
 *
 * Context: process, may sleep.
 * Return: the default hierarchy's cgroup at @path with a reference, or an
 * ERR_PTR: -ENOENT (no such cgroup), -ENOTDIR (not a directory),
 * -EOPNOTSUPP (kernel without CONFIG_CGROUPS).
 */
struct cgroup *utrace_cgroup_get(const char *path);
/**
 * utrace_cgroup_put() - drop utrace_cgroup_get()'s reference
 * @cgrp: the cgroup
 *
 * Context: any.
 */
void utrace_cgroup_put(struct cgroup *cgrp);
/**
 * utrace_task_in_cgroup() - whether a task is in a cgroup or below it
 * @task: a valid task
 * @cgrp: the cgroup (a reference from utrace_cgroup_get())
 *
 * Context: any but NMI; takes no lock.
 * Return: true if @task is in @cgrp or a cgroup below it.
 */
bool utrace_task_in_cgroup(struct task_struct *task, struct cgroup *cgrp);

struct utrace_file;
/**
 * utrace_file_create() - create a control file, the character device /dev/<name>
 * @name: the device's name, as streams are named (1-31 of letters, digits,
 *	'_' and '-'); mode 0600, or 0400 without @store; opening needs
 *	CAP_SYS_ADMIN whatever the mode
 * @data: passed to @show and @store
 * @show: writes the file's contents into @buf (at most @len bytes, cut
 *	beyond) at open; a read returns them
 * @store: gets a write of up to 1024 bytes as one NUL-terminated string;
 *	its result is the write's (0: all of it taken, or a negative errno,
 *	which the writer gets)
 *
 * @show and @store run in process context and may sleep.
 *
 * Context: process, may sleep.
 * Return: the file, or an ERR_PTR (-EEXIST: a stream or control file has
 * the name; -EINVAL: not such a name).
 */
struct utrace_file *utrace_file_create(const char *name, void *data,
				       size_t (*show)(void *data, char *buf, size_t len),
				       int (*store)(void *data, const char *text));
/**
 * utrace_file_destroy() - remove a control file
 * @file: the file
 *
 * Waits for reads and writes in flight: no callback runs after it returns
 * (a descriptor still open then reads what it read before, and writes fail
 * with -EIO).
 *
 * Context: process, may sleep.
 */
void utrace_file_destroy(struct utrace_file *file);

struct utrace_timer;
/**
 * utrace_timer_create() - create a timer whose function may sleep
 * @fn: called with @data in process context (a workqueue; it may sleep)
 *	once utrace_timer_arm()'s delay has passed
 * @data: passed to @fn
 *
 * Context: process, may sleep.
 * Return: the timer, or ERR_PTR(-ENOMEM).
 */
struct utrace_timer *utrace_timer_create(void (*fn)(void *data), void *data);
/**
 * utrace_timer_arm() - (re)arm a timer
 * @timer: the timer
 * @msecs: the delay; arming again replaces the deadline
 *
 * Context: any.
 */
void utrace_timer_arm(struct utrace_timer *timer, unsigned int msecs);
/**
 * utrace_timer_destroy() - cancel a timer and free it
 * @timer: the timer
 *
 * Waits for a running @fn: no call runs after it returns (@fn may re-arm
 * the timer meanwhile).
 *
 * Context: process, may sleep.
 */
void utrace_timer_destroy(struct utrace_timer *timer);

#endif /* _UTRACE_RS_H */
