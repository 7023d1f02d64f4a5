// SPDX-License-Identifier: GPL-2.0
/*
 * Character devices for engine modules (include/utrace_rs_device.h): a misc
 * device whose file operations call the module's Rust code, and the few
 * kernel facts a session device needs that are static inlines, RCU or
 * unexported on 6.12: the ptrace check through /proc/<tid>/mem, pidfds, pid
 * namespaces, thread lists, dumpability.
 */
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/version.h>
#include <linux/auxvec.h>
#include <utrace_rs_device.h>

#include "shim.h"

struct utrace_chrdev {
	struct miscdevice misc;
	struct file_operations fops;
	const struct utrace_chrdev_ops *ops;
	void *data;
	char name[32];
};

/* One open file. */
struct utrace_chrdev_file {
	/* The open file holds one; so does each handle the session keeps. */
	refcount_t ref;
	wait_queue_head_t wq;
	const struct utrace_chrdev_ops *ops;
	void *session;
	/* The device's data: which device the file is of (a handoff's peer). */
	void *dev_data;
	/* The opener's pid: its namespace is the one records are written for. */
	struct pid *opener;
	/*
	 * A reader or poller looked at the session since the last wake-up:
	 * set before it looks (then sleeps if nothing is there), cleared by
	 * the wake-up. A woken poller stays on @wq until poll() returns,
	 * which on a busy CPU can be thousands of records later; without it
	 * each of those records would go through wake_up() again.
	 */
	bool armed;
};

static struct utrace_chrdev *chrdev_of(struct file *file)
{
	/* misc_open() leaves the miscdevice in private_data until open replaces it. */
	return container_of(file->private_data, struct utrace_chrdev, misc);
}

void utrace_chrdev_file_get(struct utrace_chrdev_file *f)
{
	refcount_inc(&f->ref);
}
EXPORT_SYMBOL_GPL(utrace_chrdev_file_get);

void utrace_chrdev_file_put(struct utrace_chrdev_file *f)
{
	if (refcount_dec_and_test(&f->ref)) {
		put_pid(f->opener);
		kfree(f);
	}
}
EXPORT_SYMBOL_GPL(utrace_chrdev_file_put);

static int chrdev_open(struct inode *inode, struct file *file)
{
	struct utrace_chrdev *dev = chrdev_of(file);
	struct utrace_chrdev_file *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	refcount_set(&f->ref, 1);
	init_waitqueue_head(&f->wq);
	f->ops = dev->ops;
	f->dev_data = dev->data;
	f->opener = get_pid(task_pid(current));
	ret = dev->ops->open(dev->data, f, &f->session);
	if (ret) {
		put_pid(f->opener);
		kfree(f);
		return ret;
	}
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static int chrdev_release(struct inode *inode, struct file *file)
{
	struct utrace_chrdev_file *f = file->private_data;

	f->ops->release(f->session);
	utrace_chrdev_file_put(f);
	return 0;
}

/*
 * Whether @f's session has something for its reader, after arming @f's
 * wake-up. The barrier pairs with the one in utrace_chrdev_wake(): a
 * writer that finds @f unarmed published its record before this looks.
 */
static bool chrdev_arm_ready(struct utrace_chrdev_file *f)
{
	WRITE_ONCE(f->armed, true);
	smp_mb();
	return f->ops->ready(f->session);
}

static ssize_t chrdev_read(struct file *file, char __user *buf, size_t len, loff_t *pos)
{
	struct utrace_chrdev_file *f = file->private_data;
	ssize_t ret;

	for (;;) {
		ret = f->ops->read(f->session, (u64)(unsigned long)buf, len);
		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			return ret;
		if (wait_event_interruptible(f->wq, chrdev_arm_ready(f)))
			return -ERESTARTSYS;
	}
}

static __poll_t chrdev_poll(struct file *file, struct poll_table_struct *pt)
{
	struct utrace_chrdev_file *f = file->private_data;

	poll_wait(file, &f->wq, pt);
	return chrdev_arm_ready(f) ? EPOLLIN | EPOLLRDNORM : 0;
}

static long chrdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct utrace_chrdev_file *f = file->private_data;

	return f->ops->ioctl(f->session, cmd, (u64)arg);
}

#ifdef CONFIG_COMPAT
static long chrdev_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct utrace_chrdev_file *f = file->private_data;

	/* The ABI has the same layout for 32-bit callers; pointers are __u64. */
	return f->ops->ioctl(f->session, cmd, (u64)(unsigned long)compat_ptr(arg));
}
#endif

struct utrace_chrdev *utrace_chrdev_create(const char *name, umode_t mode, struct module *owner,
					   const struct utrace_chrdev_ops *ops, void *data)
{
	struct utrace_chrdev *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	dev->ops = ops;
	dev->data = data;
	/* The files pin the module whose code they call. */
	dev->fops.owner = owner;
	dev->fops.open = chrdev_open;
	dev->fops.release = chrdev_release;
	dev->fops.read = chrdev_read;
	dev->fops.poll = chrdev_poll;
	dev->fops.unlocked_ioctl = chrdev_ioctl;
#ifdef CONFIG_COMPAT
	dev->fops.compat_ioctl = chrdev_compat_ioctl;
#endif
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = dev->name;
	dev->misc.fops = &dev->fops;
	dev->misc.mode = mode;
	ret = misc_register(&dev->misc);
	if (ret) {
		kfree(dev);
		return ERR_PTR(ret);
	}
	return dev;
}
EXPORT_SYMBOL_GPL(utrace_chrdev_create);

void utrace_chrdev_destroy(struct utrace_chrdev *dev)
{
	/* No file is open: each pins the owner module, which is unloading. */
	misc_deregister(&dev->misc);
	kfree(dev);
}
EXPORT_SYMBOL_GPL(utrace_chrdev_destroy);

void utrace_chrdev_wake(struct utrace_chrdev_file *file)
{
	/*
	 * Nobody asleep on the session (its reader is busy, or batching), or
	 * its sleepers were woken and have not looked again: no lock taken.
	 * The barrier in wq_has_sleeper() pairs with the one in
	 * chrdev_arm_ready(): one of the two sees the other's store.
	 */
	if (wq_has_sleeper(&file->wq) && READ_ONCE(file->armed) && xchg(&file->armed, false))
		wake_up_interruptible(&file->wq);
}
EXPORT_SYMBOL_GPL(utrace_chrdev_wake);

void utrace_chrdev_wake_at_stop(struct utrace_chrdev_file *file)
{
	/* current's report work keeps a reference until it wakes @file. */
	if (!utrace_rs_defer_wake(file))
		utrace_chrdev_wake(file);
}
EXPORT_SYMBOL_GPL(utrace_chrdev_wake_at_stop);

void utrace_chrdev_ids(struct utrace_chrdev_file *file, struct task_struct *task, int *tgid,
		       int *tid)
{
	struct pid_namespace *ns = ns_of_pid(file->opener);

	*tgid = task_tgid_nr_ns(task, ns);
	*tid = task_pid_nr_ns(task, ns);
}
EXPORT_SYMBOL_GPL(utrace_chrdev_ids);

int utrace_copy_struct_in(void *dst, size_t ksize, u64 src, size_t usize)
{
	return copy_struct_from_user(dst, ksize, u64_to_user_ptr(src), usize);
}
EXPORT_SYMBOL_GPL(utrace_copy_struct_in);

int utrace_copy_out(u64 dst, const void *src, size_t len)
{
	return copy_to_user(u64_to_user_ptr(dst), src, len) ? -EFAULT : 0;
}
EXPORT_SYMBOL_GPL(utrace_copy_out);

int utrace_may_ptrace(struct task_struct *task)
{
	struct mm_struct *mm;
	struct path proc;
	struct file *mem;
	char name[48];
	pid_t nr;
	int ret;

	/* ptrace refuses kernel threads with EPERM. */
	if (task->flags & PF_KTHREAD)
		return -EPERM;
	/* The procfs the caller sees at /proc, and the number it gives @task. */
	if (kern_path("/proc", LOOKUP_FOLLOW, &proc))
		return -ENOENT;
	/* A procfs mounted at its root (not a bind mount of one of its dirs). */
	if (proc.dentry->d_sb->s_magic != PROC_SUPER_MAGIC ||
	    proc.dentry != proc.dentry->d_sb->s_root) {
		ret = -ENOENT;
		goto out_path;
	}
	nr = task_pid_nr_ns(task, proc_pid_ns(proc.dentry->d_sb));
	if (!nr) {
		ret = -ENOENT;
		goto out_path;
	}
	/*
	 * Relative to the procfs just checked, not a second lookup of "/proc"
	 * (the caller could mount something else there in between).
	 */
	snprintf(name, sizeof(name), "%d/mem", nr);
	/*
	 * As ptrace_attach(): an exec of @task is either done (its new mm,
	 * credentials and dumpability all in place) or not begun while we
	 * look. Without it the look could meet an exec half done: the mm
	 * before it and /proc/PID/mem after it, or on 7.x a refusal of the
	 * new image's mm before its dumpability was set. exec takes this
	 * mutex before exec_update_lock, which mem_open() takes: the same
	 * order here.
	 */
	if (mutex_lock_interruptible(&task->signal->cred_guard_mutex)) {
		ret = -ERESTARTNOINTR;
		goto out_path;
	}
	mm = get_task_mm(task);
	if (!mm) {
		ret = -ESRCH;
		goto out_unlock;
	}
	/* With the caller's credentials: mm_access(ATTACH | FSCREDS). */
	mem = file_open_root(&proc, name, O_RDONLY | O_NOFOLLOW, 0);
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		/*
		 * ptrace(PTRACE_ATTACH) says EPERM where mem_open says EACCES;
		 * but a task that began exiting since get_task_mm() (its mm
		 * gone, /proc/PID/mem is root's) is ESRCH, as for the attach.
		 */
		if (ret == -EACCES)
			ret = (READ_ONCE(task->flags) & PF_EXITING) ? -ESRCH : -EPERM;
		goto out_mm;
	}
	/*
	 * The file checked the mm it holds: the same as @task's (no exec can
	 * come between), or the number now names another task (ours exited
	 * meanwhile).
	 */
	ret = mem->private_data == mm ? 0 : -ESRCH;
	filp_close(mem, NULL);
out_mm:
	mmput(mm);
out_unlock:
	mutex_unlock(&task->signal->cred_guard_mutex);
out_path:
	path_put(&proc);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_may_ptrace);

struct task_struct *utrace_pidfd_task(int fd)
{
	struct task_struct *task;
	struct file *file;
	struct pid *pid;

	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	/* pidfs (since 6.9): the inode of a pidfd carries its struct pid. */
	if (file_inode(file)->i_sb->s_magic != PID_FS_MAGIC) {
		fput(file);
		return ERR_PTR(-EBADF);
	}
	pid = file_inode(file)->i_private;
	task = get_pid_task(pid, PIDTYPE_PID);
	fput(file);
	return task ? task : ERR_PTR(-ESRCH);
}
EXPORT_SYMBOL_GPL(utrace_pidfd_task);

void *utrace_chrdev_fd_session(int fd, void *dev_data, struct file **filep)
{
	struct utrace_chrdev_file *f;
	struct file *file;

	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	/*
	 * Every file of a utrace_chrdev device has chrdev_release (misc_open()
	 * put the device's fops in place); the open succeeded, so private_data
	 * is its utrace_chrdev_file. The reference keeps the file from its
	 * release, and with it the session.
	 */
	if (file->f_op->release != chrdev_release) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	f = file->private_data;
	if (f->dev_data != dev_data) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	*filep = file;
	return f->session;
}
EXPORT_SYMBOL_GPL(utrace_chrdev_fd_session);

void utrace_chrdev_fd_put(struct file *file)
{
	fput(file);
}
EXPORT_SYMBOL_GPL(utrace_chrdev_fd_put);

int utrace_may_ptrace_opener(struct task_struct *task, struct file *file)
{
	const struct cred *old;
	int ret;

	/* The opener's credentials, as io_uring and binder act for theirs. */
	old = override_creds(file->f_cred);
	ret = utrace_may_ptrace(task);
	revert_creds(old);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_may_ptrace_opener);

struct task_struct *utrace_ns_task(int nr)
{
	struct task_struct *task;
	struct pid *pid;

	if (nr <= 0)
		return NULL;
	pid = find_get_pid(nr);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	return task;
}
EXPORT_SYMBOL_GPL(utrace_ns_task);

int utrace_process_threads(struct task_struct *task, struct task_struct **out, int max)
{
	struct task_struct *t;
	int n = 0;

	rcu_read_lock();
	for_each_thread(task, t) {
		if (n < max) {
			get_task_struct(t);
			out[n] = t;
		}
		n++;
	}
	rcu_read_unlock();
	return n;
}
EXPORT_SYMBOL_GPL(utrace_process_threads);

bool utrace_task_dumpable(struct task_struct *task)
{
	struct mm_struct *mm = get_task_mm(task);
	bool ret = false;
#if UTRACE_KERNEL_7
	const struct cred *cred;
	int i;
#endif

	if (!mm)
		return false;
#if !UTRACE_KERNEL_7
	ret = get_dumpable(mm) == SUID_DUMP_USER;
#else
	/*
	 * 7.x keeps dumpability in the task's exec state, whose getter is
	 * not exported. What makes a process privileged at exec shows as
	 * AT_SECURE in its auxiliary vector (setuid, setgid, file
	 * capabilities, an LSM's transition) or as effective ids that differ
	 * from the real ones.
	 */
	ret = true;
	for (i = 0; i + 1 < AT_VECTOR_SIZE && mm->saved_auxv[i] != AT_NULL; i += 2)
		if (mm->saved_auxv[i] == AT_SECURE && mm->saved_auxv[i + 1])
			ret = false;
	rcu_read_lock();
	cred = __task_cred(task);
	if (!uid_eq(cred->uid, cred->euid) || !gid_eq(cred->gid, cred->egid))
		ret = false;
	rcu_read_unlock();
#endif
	mmput(mm);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_task_dumpable);

bool utrace_caller_sys_admin(void)
{
	return capable(CAP_SYS_ADMIN);
}
EXPORT_SYMBOL_GPL(utrace_caller_sys_admin);

u32 utrace_caller_uid(void)
{
	return from_kuid_munged(&init_user_ns, current_uid());
}
EXPORT_SYMBOL_GPL(utrace_caller_uid);
