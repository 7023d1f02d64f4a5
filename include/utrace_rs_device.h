/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utrace-rs: character devices for engine modules (rust/shim/device.c),
 * and the kernel facts a session device needs that Rust on 6.12 cannot
 * reach: the kernel's own ptrace access check, pidfds, pid namespaces,
 * dumpability. The safe Rust wrapper is rust/api/device.rs.
 */
#ifndef _UTRACE_RS_DEVICE_H
#define _UTRACE_RS_DEVICE_H

#include <linux/types.h>

struct file;
struct module;
struct task_struct;
struct utrace_chrdev;
struct utrace_chrdev_file;

/*
 * What a device does; every call in process context, may sleep. @session
 * is what open returned in *session.
 *   open     a new open file: 0 and *session, or a negative errno
 *   release  the last close of it; nothing may use the file handle after
 *   read     copy whole records to @buf (at most @len bytes) with
 *            utrace_chrdev_copy_out(): bytes copied, -EAGAIN if nothing is
 *            ready (the shim then waits, unless O_NONBLOCK), or an errno
 *   ready    whether read would find something (poll, blocking read)
 *   ioctl    the ioctl's result or a negative errno
 */
struct utrace_chrdev_ops {
	int (*open)(void *data, struct utrace_chrdev_file *file, void **session);
	void (*release)(void *session);
	ssize_t (*read)(void *session, u64 buf, size_t len);
	bool (*ready)(void *session);
	long (*ioctl)(void *session, unsigned int cmd, u64 arg);
};

/* A misc device /dev/@name with @mode whose files pin @owner. */
struct utrace_chrdev *utrace_chrdev_create(const char *name, umode_t mode, struct module *owner,
					   const struct utrace_chrdev_ops *ops, void *data);
void utrace_chrdev_destroy(struct utrace_chrdev *dev);
/*
 * References on an open file's handle (the open file holds one until its
 * release): wake and ids stay callable while one is held, also after the
 * release (they then reach nobody).
 */
void utrace_chrdev_file_get(struct utrace_chrdev_file *file);
void utrace_chrdev_file_put(struct utrace_chrdev_file *file);
/* Wakes readers and pollers of @file (any context but hard interrupts). */
void utrace_chrdev_wake(struct utrace_chrdev_file *file);
/*
 * Wakes them when current sleeps in its utrace stop, with preemption off
 * from that wake until it sleeps (ptrace_stop()'s order: a reader woken on
 * this CPU runs once current is off it), or when current's report work
 * ends without a stop; at once if current is not in its report work (an
 * engine callback of current's, process context).
 */
void utrace_chrdev_wake_at_stop(struct utrace_chrdev_file *file);
/*
 * Thread and process ids of @task in the pid namespace of the task that
 * opened @file (0 if not visible there).
 */
void utrace_chrdev_ids(struct utrace_chrdev_file *file, struct task_struct *task, int *tgid,
		       int *tid);
/* copy_struct_from_user(): 0, -EFAULT, -E2BIG (non-zero tail). */
int utrace_copy_struct_in(void *dst, size_t ksize, u64 src, size_t usize);
/* copy_to_user(): 0 or -EFAULT. */
int utrace_copy_out(u64 dst, const void *src, size_t len);

/*
 * The kernel's own ptrace attach check of the caller on @task, by opening
 * /proc/<tid>/mem with the caller's credentials (mm_access() ->
 * ptrace_may_access(PTRACE_MODE_ATTACH_FSCREDS): Yama, LSMs, dumpability).
 * 0, -EPERM (refused), -ESRCH (no user memory: exiting or kernel thread),
 * -ENOENT (no procfs at /proc in the caller's root, or @task not in it),
 * -ERESTARTNOINTR (a signal came while it waited for an exec of @task to
 * finish: it holds the task's cred_guard_mutex, as PTRACE_ATTACH does).
 * May sleep.
 */
int utrace_may_ptrace(struct task_struct *task);
/*
 * The session of the file open on the caller's @fd if it is a file of the
 * device whose data is @dev_data (another open of the same device), with
 * *@filep referenced: drop it with utrace_chrdev_fd_put(). ERR_PTR(-EBADF)
 * if @fd is not open, ERR_PTR(-EINVAL) if it is another kind of file.
 */
void *utrace_chrdev_fd_session(int fd, void *dev_data, struct file **filep);
void utrace_chrdev_fd_put(struct file *file);
/*
 * utrace_may_ptrace() with the credentials @file was opened with (its
 * f_cred) instead of the caller's: uid, capabilities and LSM labels are the
 * opener's; Yama's relationship rule (scope 1) is still judged for the
 * calling task.
 */
int utrace_may_ptrace_opener(struct task_struct *task, struct file *file);
/* The task behind pidfd @fd, referenced: -EBADF if @fd is not a pidfd, -ESRCH if gone. */
struct task_struct *utrace_pidfd_task(int fd);
/* The task with thread id @nr in the caller's pid namespace, referenced, or NULL. */
struct task_struct *utrace_ns_task(int nr);
/*
 * Up to @max threads of @task's process, referenced, into @out; returns how
 * many there are (more than @max: call again with more room).
 */
int utrace_process_threads(struct task_struct *task, struct task_struct **out, int max);
/*
 * Whether @task is dumpable by its owner (SUID_DUMP_USER) after its exec:
 * false after a setuid, setgid or file-capability exec. On 7.x, whose
 * dumpability getter is not exported: no AT_SECURE in its auxiliary vector
 * and its effective ids equal its real ones.
 */
bool utrace_task_dumpable(struct task_struct *task);
/* capable(CAP_SYS_ADMIN) in the initial user namespace, for the caller. */
bool utrace_caller_sys_admin(void);
/* The caller's real uid in the initial user namespace. */
u32 utrace_caller_uid(void);

#endif /* _UTRACE_RS_DEVICE_H */
