// SPDX-License-Identifier: GPL-2.0

//! A process held by its identity ([`Pid`]: a reference on its thread
//! group's `struct pid`), not by its number: a number is handed to another
//! process once the first one is reaped, a `struct pid` never is.

use super::process::TaskIds;
use super::raw::TaskPtr;
use super::task::task_ptr;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::prelude::*;
use kernel::task::Task;

// The C side: rust/shim/pid.c, declared in include/utrace_rs.h.
#[allow(improper_ctypes)]
extern "C" {
    fn utrace_task_descends_from_pid(task: TaskPtr, tgid: *mut bindings::pid) -> bool;
}

/// A process, held by a reference on its thread group's `struct pid`
/// (dropped: put). It names that process only: once the process has exited
/// it names none, even when its number goes to a new one.
pub(crate) struct Pid {
    /// INVARIANT: A `struct pid` (of `PIDTYPE_TGID`) this value holds a
    /// reference on.
    ptr: NonNull<bindings::pid>,
}

// SAFETY: A `struct pid` reference may be used and put from any task or CPU.
unsafe impl Send for Pid {}
// SAFETY: Every method only reads, through exported functions that take
// their own locks or RCU.
unsafe impl Sync for Pid {}

impl Pid {
    /// The process of the task that the calling task's pid namespace
    /// numbers `nr` (a thread's id names its process): in a container, its
    /// own numbers. `ESRCH`: no such task (or `nr` is not positive);
    /// `EPERM`: a kernel thread or an io_uring/vhost worker. Process
    /// context.
    pub(crate) fn of_number(nr: i32) -> Result<Pid> {
        if nr <= 0 {
            return Err(ESRCH);
        }
        // SAFETY: `find_get_pid` looks `nr` up in `current`'s active pid
        // namespace and returns a reference (or null), which is put here
        // after `get_pid_task` took its own reference on the task.
        let task = unsafe {
            let p = bindings::find_get_pid(nr);
            if p.is_null() {
                return Err(ESRCH);
            }
            let task = bindings::get_pid_task(p, bindings::pid_type_PIDTYPE_PID);
            bindings::put_pid(p);
            task
        };
        let task = NonNull::new(task.cast::<Task>()).ok_or(ESRCH)?;
        // SAFETY: `get_pid_task` returned a reference on the task, which
        // the `ARef` takes over.
        let task = unsafe { super::ARef::from_raw(task) };
        if TaskIds::of(&task).is_kernel() {
            return Err(EPERM);
        }
        Self::of_process(&task).ok_or(ESRCH)
    }

    /// The process of `task`; `None` once `task` has been reaped.
    pub(crate) fn of_process(task: &Task) -> Option<Pid> {
        // SAFETY: `task` is valid; `get_task_pid` returns a new reference
        // on its thread group's `struct pid`, or null once it is unhashed.
        let ptr =
            unsafe { bindings::get_task_pid(task_ptr(task), bindings::pid_type_PIDTYPE_TGID) };
        // INVARIANT: A new reference, or none.
        NonNull::new(ptr).map(|ptr| Pid { ptr })
    }

    /// Whether the process still exists (it may be a zombie): it has not
    /// been reaped.
    pub(crate) fn is_alive(&self) -> bool {
        // SAFETY: `ptr` is a held `struct pid` (type invariant);
        // `get_pid_task` takes RCU itself and returns a reference or null.
        let task =
            unsafe { bindings::get_pid_task(self.ptr.as_ptr(), bindings::pid_type_PIDTYPE_TGID) };
        match NonNull::new(task.cast::<Task>()) {
            Some(task) => {
                // SAFETY: The reference `get_pid_task` returned, dropped
                // by the `ARef`.
                drop(unsafe { super::ARef::from_raw(task) });
                true
            }
            None => false,
        }
    }

    /// Its number in the calling task's pid namespace, `None` if it has
    /// exited (been reaped) or that namespace does not see it.
    pub(crate) fn number_here(&self) -> Option<i32> {
        if !self.is_alive() {
            return None;
        }
        // SAFETY: `ptr` is a held `struct pid` (type invariant).
        let nr = unsafe { bindings::pid_vnr(self.ptr.as_ptr()) };
        (nr > 0).then_some(nr)
    }

    /// Whether `task`'s process is this one or descends from it by real
    /// parents (a process reparented to a reaper leaves the tree). Takes
    /// no lock; any context but hardirq.
    pub(crate) fn is_ancestor_of(&self, task: &Task) -> bool {
        // SAFETY: `task` is valid; `ptr` is a held `struct pid` (type
        // invariant).
        unsafe { utrace_task_descends_from_pid(task_ptr(task), self.ptr.as_ptr()) }
    }
}

impl Drop for Pid {
    fn drop(&mut self) {
        // SAFETY: The reference this value holds (type invariant).
        unsafe { bindings::put_pid(self.ptr.as_ptr()) };
    }
}
