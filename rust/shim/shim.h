/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between utrace_rs.ko's C shim and its Rust code. Rust
 * declares the same functions in shim.rs; keep the two in step.
 */
#ifndef _UTRACE_SHIM_H
#define _UTRACE_SHIM_H

#include <linux/types.h>
#include <linux/version.h>

/*
 * Compat: the kernel API generation, the same threshold as the Rust cfg
 * utrace_kernel_7 of the top-level Kbuild (see rust/base/compat.rs).
 */
#define UTRACE_KERNEL_7 (LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0))
/* Syscall tracepoints call their probes preemptible (a363d27cdbc2, 6.13). */
#define UTRACE_SYSCALL_TP_FAULTABLE (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0))

struct callback_head;
struct kmem_cache;
struct file;
struct file_operations;
struct poll_table_struct;
struct pt_regs;
struct task_struct;
struct wait_queue_head;

/* Tracepoints utrace-rs hooks; the index is the hook's id. */
enum utrace_shim_hook {
	UTRACE_HOOK_NEWTASK,	/* task_newtask: CLONE */
	UTRACE_HOOK_EXEC,	/* sched_process_exec: EXEC */
	UTRACE_HOOK_EXIT,	/* sched_process_exit: EXIT, DEATH */
	UTRACE_HOOK_FREE,	/* sched_process_free: REAP */
	UTRACE_HOOK_SIGNAL,	/* signal_generate: held signals, SIGCONT, JCTL */
	UTRACE_HOOK_SIGNAL_DELIVER,	/* signal_deliver: HANDLER reports */
	UTRACE_NR_HOOKS
};

/* tracepoints.c: look every hook up by name and register its probe. */
int utrace_shim_hooks_register(void);
/* Unregister all and wait until no probe runs any more. */
void utrace_shim_hooks_unregister(void);

/* kernel.c */
int utrace_shim_task_work_add(struct task_struct *task, struct callback_head *work,
			      bool notify_signal);
void utrace_shim_rcu_read_lock(void);
void utrace_shim_rcu_read_unlock(void);
unsigned long utrace_shim_irq_save(void);
void utrace_shim_irq_restore(unsigned long flags);
void utrace_shim_synchronize_tasks(void);
struct kmem_cache *utrace_shim_cache_create(const char *name, unsigned int size,
					    unsigned int align);
void *utrace_shim_cache_alloc(struct kmem_cache *cache, gfp_t gfp);
void utrace_shim_task_comm(char *buf, size_t len, struct task_struct *task);
bool utrace_shim_may_sleep(void);
struct timer_list;
void utrace_shim_timer_init(struct timer_list *timer, void (*fn)(struct timer_list *));
void utrace_shim_timer_arm(struct timer_list *timer, unsigned int ms);
void utrace_shim_timer_shutdown(struct timer_list *timer);
bool utrace_shim_atomic(void);
bool utrace_shim_module_live(struct module *mod);
int utrace_shim_module_notifier(bool on);
__poll_t utrace_shim_poll(struct file *file, struct wait_queue_head *wq,
			  struct poll_table_struct *pt, bool readable);

/* chardev.c: /dev/<name> for streams and control files. */
struct utrace_chardev;
struct utrace_chardev *utrace_shim_chardev_create(const char *name, umode_t mode,
						  const struct file_operations *fops, void *data);
void utrace_shim_chardev_destroy(struct utrace_chardev *c);
void *utrace_shim_chardev_data(struct file *file);

/* Implemented in Rust (hooks.rs), called by the probes. */
void utrace_rs_hook_newtask(struct task_struct *child, unsigned long clone_flags);
void utrace_rs_hook_exec(struct task_struct *task, const char *filename, pid_t old_pid);
void utrace_rs_hook_exit(struct task_struct *task, bool group_dead);
void utrace_rs_hook_free(struct task_struct *task);
void utrace_rs_hook_signal(int sig, struct task_struct *task, bool shared, bool queued);
void utrace_rs_hook_signal_send(int sig, struct task_struct *task);
void utrace_rs_hook_signal_deliver(int sig, struct kernel_siginfo *info);
void utrace_rs_hook_sys_enter(void *state, struct pt_regs *regs, u32 hash, struct task_struct *task);
void utrace_rs_hook_sys_exit(void *state, struct pt_regs *regs, u32 hash, struct task_struct *task);
/* release.rs: a module is going (after its exit, before its memory goes). */
struct module;
void utrace_rs_module_going(struct module *mod);

int utrace_shim_syscall_hooks(bool on, void *state);
/*
 * The bucket of @task in rust/containers/table.rs's task table (hash_ptr(), the bits
 * of table.rs's BITS), which the syscall probes' filter shares.
 */
#define UTRACE_TASK_HASH_BITS 10
u32 utrace_shim_task_hash(struct task_struct *task);
/* Count @task in (@add) or out of the syscall probes' filter. */
void utrace_shim_syscall_filter(struct task_struct *task, bool add);
void utrace_shim_syscall_abort(struct pt_regs *regs);

/* sysentry.c: stopping before a syscall runs (see there). */
unsigned long utrace_shim_entry_skip(struct pt_regs *regs);
bool utrace_shim_entry_skipped_exit(struct pt_regs *regs, unsigned long ip, long nr);
struct pt_regs *utrace_shim_entry_regs(unsigned long ip, long nr);
void utrace_shim_entry_leave(struct pt_regs *regs, bool restart);
struct pt_regs *utrace_shim_user_regs(void);

/* examine.c: a stopped task's state, registers and memory (see there). */
unsigned int utrace_shim_task_state(struct task_struct *t);
unsigned long utrace_shim_wait_inactive(struct task_struct *t, unsigned int state);
int utrace_shim_regset_get(struct task_struct *t, unsigned int note_type, void *buf,
			   unsigned int size);
int utrace_shim_regset_set(struct task_struct *t, unsigned int note_type, const void *buf,
			   unsigned int size);
int utrace_shim_access_vm(struct task_struct *t, unsigned long addr, void *buf, int len,
			  bool write);

/* signal.c: held signals (see there). */
struct k_sigaction;
struct kernel_siginfo;
u32 utrace_shim_sig_class(struct task_struct *task, int sig);
u32 utrace_shim_sig_default_class(int sig);
bool utrace_shim_sig_holdable(struct task_struct *task, int sig, bool early);
bool utrace_shim_sig_debugger_owns(struct task_struct *task);
void utrace_shim_sig_shield(struct task_struct *task, int sig, bool on);
void utrace_shim_sig_hide(struct task_struct *task, int sig, bool shared);
int utrace_shim_signal_peek(int sig, bool private, bool shared, unsigned int nth,
			    struct kernel_siginfo *info, struct k_sigaction *ka);
unsigned int utrace_shim_signal_count(int sig, bool private, bool shared);
void utrace_shim_signal_rewrite(int sig, bool private, bool shared, unsigned int nth,
				const struct kernel_siginfo *info);
void utrace_shim_signal_discard(int sig, bool private, bool shared, unsigned int nth);
/* Where a held signal is hidden: current's own set, its group's. */
#define UTRACE_SHIM_HID_PRIVATE 1U
#define UTRACE_SHIM_HID_SHARED 2U
void utrace_shim_signal_release(int sig, u32 (*unhold)(void *data), void *data, bool discard);
void utrace_shim_signal_release_locked(struct task_struct *t, u64 private, u64 shared);
void utrace_shim_sig_mark_pending(struct task_struct *t, u64 private, u64 shared, bool on);
int utrace_shim_ka_kind(const struct k_sigaction *ka);
void utrace_shim_send_self(int sig, struct kernel_siginfo *info);
void utrace_shim_set_default_action(int sig);
void utrace_shim_for_each_thread(struct task_struct *task,
				 void (*fn)(struct task_struct *, void *), void *data);
bool utrace_shim_with_siglock(struct task_struct *task, void (*fn)(void *), void *data);
bool utrace_shim_group_continued(struct task_struct *task);
void utrace_shim_stop_self(void);
void utrace_shim_continue(struct task_struct *task);
void utrace_shim_set_exit_code(struct task_struct *task, int code, bool group_dead);
/* kprobes.c */
bool utrace_shim_kprobes_register(void);
void utrace_shim_kprobes_unregister(void);
int utrace_shim_signal_kprobe_arm(bool on);
struct kprobe;
bool utrace_shim_kprobe_from_int3(struct kprobe *kp, struct pt_regs *regs);
void utrace_shim_kprobe_unregister(struct kprobe *kp);

/* stop.c: a utrace stop counts as stopped for job control (see there). */
void utrace_shim_stop_unmark(void);
bool utrace_shim_stop_marked(void);
void utrace_shim_wake_stopped_threads(struct task_struct *task);
enum { UTRACE_STOP_SLEEP, UTRACE_STOP_KILLED, UTRACE_STOP_FREEZER };
#define UTRACE_STOP_CLEARED_SIGPENDING 1u
#define UTRACE_STOP_CLEARED_NOTIFY 2u
int utrace_shim_stop_sleep_prepare(unsigned int *cleared, bool mark);
void utrace_shim_stop_sleep_done(unsigned int cleared);
bool utrace_shim_stop_killed(void);
int utrace_shim_stop_queue_current(struct callback_head *work);
struct utrace_chrdev_file;
void utrace_shim_stop_schedule_waking(void *waiters, struct utrace_chrdev_file *reader);
bool utrace_shim_task_work_cancel(struct task_struct *task, struct callback_head *cb);
void utrace_shim_freezer_register(void);
void utrace_shim_freezer_unregister(void);
/* freezer.rs: current may have a stop to take again after the cgroup freezer. */
void utrace_rs_hook_restop(void);
/* hooks.rs: wake @task if it sleeps in a utrace stop. */
void utrace_rs_wake_stopped(struct task_struct *task);
/*
 * hooks.rs: keeps a reference on @file and wakes it at current's stop or
 * at the end of its report work; false (nothing kept) if current is not
 * in its report work.
 */
bool utrace_rs_defer_wake(struct utrace_chrdev_file *file);

/* step.c: single-step and block-step of current (see there). */
bool utrace_shim_blockstep_supported(void);
void utrace_shim_step_enable(bool block);
void utrace_shim_step_disable(void);

#endif /* _UTRACE_SHIM_H */
