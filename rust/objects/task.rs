// SPDX-License-Identifier: GPL-2.0

//! What utrace-rs reads of a `task_struct`, behind safe accessors on the
//! kernel crate's [`Task`].

use crate::compat::ARef;
use kernel::bindings;
use kernel::task::Task;

/// The raw pointer behind a [`Task`].
pub(crate) fn raw(task: &Task) -> *mut bindings::task_struct {
    (task as *const Task).cast_mut().cast()
}

/// Borrows a raw task pointer as a [`Task`].
///
/// # Safety
///
/// `ptr` must be a valid task that stays valid for `'a`.
pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::task_struct) -> &'a Task {
    // SAFETY: `Task` is a transparent wrapper of `task_struct`; validity is
    // the caller's promise.
    unsafe { &*ptr.cast::<Task>() }
}

/// Takes a new reference on a raw task pointer.
///
/// # Safety
///
/// `ptr` must be a valid task.
pub(crate) unsafe fn get(ptr: *mut bindings::task_struct) -> ARef<Task> {
    // SAFETY: By the caller's promise; `ARef::from` increments the count.
    ARef::from(unsafe { from_raw(ptr) })
}

pub(crate) fn current() -> *mut bindings::task_struct {
    // SAFETY: Always valid in task context.
    unsafe { bindings::get_current() }
}

pub(crate) fn is_current(task: &Task) -> bool {
    raw(task) == current()
}

pub(crate) fn flags(task: &Task) -> u32 {
    // SAFETY: `task` is valid; `flags` is a plain word read racily, as the
    // kernel itself does for other tasks.
    unsafe { core::ptr::read_volatile(&(*raw(task)).flags) }
}

/// Kernel threads and io_uring/vhost workers never run user code.
pub(crate) fn is_kernel_or_worker(task: &Task) -> bool {
    flags(task) & (bindings::PF_KTHREAD | bindings::PF_USER_WORKER) != 0
}

pub(crate) fn is_exiting(task: &Task) -> bool {
    flags(task) & bindings::PF_EXITING != 0
}

/// The task has passed `exit_notify()` (zombie or dead).
pub(crate) fn is_dead(task: &Task) -> bool {
    // SAFETY: `task` is valid; `exit_state` is read racily like `flags`.
    unsafe { core::ptr::read_volatile(&(*raw(task)).exit_state) != 0 }
}

/// `release_task()` has unhashed the task (`!pid_alive()`): it is dead and
/// reaped, and its `sched_process_free` is queued or has run.
pub(crate) fn is_released(task: &Task) -> bool {
    // SAFETY: `task` is valid; `thread_pid` is read racily like `flags`
    // (only whether it is null).
    unsafe { core::ptr::read_volatile(&(*raw(task)).thread_pid).is_null() }
}

/// Thread id in the initial pid namespace.
pub(crate) fn pid(task: &Task) -> i32 {
    // SAFETY: `task` is valid; `pid` never changes after fork.
    unsafe { (*raw(task)).pid }
}

/// The exit code as `do_exit()` recorded it (valid once the task exits).
pub(crate) fn exit_code(task: &Task) -> i32 {
    // SAFETY: `task` is valid; `exit_code` is a plain int.
    unsafe { core::ptr::read_volatile(&(*raw(task)).exit_code) }
}

/// The signal sent to the parent at death (`exit_signal`), -1 for none.
pub(crate) fn exit_signal(task: &Task) -> i32 {
    // SAFETY: `task` is valid; a plain int.
    unsafe { core::ptr::read_volatile(&(*raw(task)).exit_signal) }
}

/// `struct utrace_task_info` of `include/utrace_rs.h`.
#[repr(C)]
pub(crate) struct Info {
    pub(crate) pid: i32,
    pub(crate) tgid: i32,
    pub(crate) ppid: i32,
    pub(crate) exit_code: i32,
    pub(crate) comm: [u8; 16],
}

// `struct utrace_task_info` (asserted in `shim/exports.c` too).
const _: () = {
    assert!(core::mem::offset_of!(Info, exit_code) == 12);
    assert!(core::mem::size_of::<Info>() == 32);
};

/// Ids, parent, exit code and name of `task`, read consistently enough for
/// a trace record (the parent under RCU).
pub(crate) fn info(task: &Task) -> Info {
    let raw = raw(task);
    let ppid = {
        let _rcu = crate::shim::RcuGuard::new();
        // SAFETY: `task` is valid; `real_parent` is RCU-protected and
        // never null for a live or zombie task.
        unsafe {
            let parent = core::ptr::read_volatile(&(*raw).real_parent);
            if parent.is_null() {
                0
            } else {
                core::ptr::read_volatile(&(*parent).tgid)
            }
        }
    };
    let mut comm = [0u8; 16];
    // SAFETY: `task` is valid.
    unsafe { crate::shim::task_comm(&mut comm, raw) };
    Info {
        pid: pid(task),
        // SAFETY: `task` is valid; a plain int.
        tgid: unsafe { core::ptr::read_volatile(&(*raw).tgid) },
        ppid,
        exit_code: exit_code(task),
        comm,
    }
}
