// SPDX-License-Identifier: GPL-2.0

//! What engines want to know about tasks.

use super::compat::ARef;
use super::raw;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::task::Task;

/// What a trace record wants to know about a task (`struct
/// utrace_task_info`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct TaskInfo {
    /// Thread id (init namespace).
    pub(crate) pid: i32,
    pub(crate) tgid: i32,
    /// Thread-group id of the real parent.
    pub(crate) ppid: i32,
    /// As `do_exit()` recorded it (`wait()` status format).
    pub(crate) exit_code: i32,
    pub(crate) comm: [u8; 16],
}

impl TaskInfo {
    pub(crate) fn of(task: &Task) -> TaskInfo {
        let mut info = TaskInfo {
            pid: 0,
            tgid: 0,
            ppid: 0,
            exit_code: 0,
            comm: [0; 16],
        };
        // SAFETY: `task` is valid, `info` is a `struct utrace_task_info`.
        unsafe { raw::utrace_task_info(task_ptr(task), &mut info) };
        info
    }

    /// `comm` up to its NUL.
    pub(crate) fn comm(&self) -> &[u8] {
        let len = self
            .comm
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.comm.len());
        &self.comm[..len]
    }
}

pub(super) fn task_ptr(task: &Task) -> *mut bindings::task_struct {
    (task as *const Task).cast_mut().cast()
}

/// The task with thread id `pid` in the calling task's pid namespace
/// (`find_get_pid()`: a module parameter's is resolved in the pid namespace
/// of the process that loads the module).
pub(crate) fn task_by_pid(pid: i32) -> Option<ARef<Task>> {
    if pid <= 0 {
        return None;
    }
    // SAFETY: Looks `pid` up and takes references as it goes; both pointers
    // are checked before use and the `struct pid` reference is dropped.
    unsafe {
        let p = bindings::find_get_pid(pid);
        if p.is_null() {
            return None;
        }
        let task = bindings::get_pid_task(p, bindings::pid_type_PIDTYPE_PID);
        bindings::put_pid(p);
        NonNull::new(task.cast::<Task>()).map(|t| ARef::from_raw(t))
    }
}

/// Events the framework could not report to any engine for lack of memory
/// since it was loaded (streams announce them as `LOST <n>` records).
pub(crate) fn lost_events() -> u64 {
    // SAFETY: No arguments; callable in any context.
    unsafe { raw::utrace_lost_events() }
}
