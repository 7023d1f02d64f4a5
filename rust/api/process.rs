// SPDX-License-Identifier: GPL-2.0

//! Who a task is beyond [`TaskInfo`](super::TaskInfo) (its users, its pids
//! in its own pid namespace, its state), whose descendant it is, and
//! signals to its process.

use super::raw;
use super::task::task_ptr;
use kernel::bindings;
use kernel::error::to_result;
use kernel::prelude::*;
use kernel::task::Task;

/// `struct utrace_task_ids`: a snapshot, stale as soon as it is taken.
#[derive(Clone, Copy)]
pub(crate) struct TaskIds(raw::TaskIds);

impl TaskIds {
    pub(crate) fn of(task: &Task) -> TaskIds {
        let mut ids = raw::TaskIds::default();
        // SAFETY: `task` is valid; `ids` is a `struct utrace_task_ids`.
        unsafe { raw::utrace_task_ids(task_ptr(task), &mut ids) };
        TaskIds(ids)
    }

    /// Real uid, as the initial user namespace sees it.
    pub(crate) fn uid(&self) -> u32 {
        self.0.uid
    }

    /// Effective uid, as the initial user namespace sees it.
    pub(crate) fn euid(&self) -> u32 {
        self.0.euid
    }

    /// Thread id in the task's own pid namespace (0 once it is gone).
    pub(crate) fn ns_pid(&self) -> i32 {
        self.0.ns_pid
    }

    /// Process id in the task's own pid namespace (0 once it is gone).
    pub(crate) fn ns_tgid(&self) -> i32 {
        self.0.ns_tgid
    }

    /// A kernel thread or an io_uring/vhost worker (no user code).
    pub(crate) fn is_kernel(&self) -> bool {
        self.0.flags & raw::UTRACE_TASK_KERNEL != 0
    }

    /// A debugger is attached (ptrace).
    pub(crate) fn is_ptraced(&self) -> bool {
        self.0.flags & raw::UTRACE_TASK_PTRACED != 0
    }

    /// Stopped: in a group stop (`T`) or for its debugger (`t`).
    pub(crate) fn is_stopped(&self) -> bool {
        self.0.flags & (raw::UTRACE_TASK_STOPPED | raw::UTRACE_TASK_TRACED) != 0
    }

    /// Exiting or dead.
    pub(crate) fn is_exiting(&self) -> bool {
        self.0.flags & raw::UTRACE_TASK_EXITING != 0
    }

    /// Whether `sig` is pending and blocked (as a held signal is).
    pub(crate) fn holds(&self, sig: i32) -> bool {
        (1..=64).contains(&sig) && self.0.held & (1u64 << (sig - 1)) != 0
    }

    /// The state letter `ps` would show, of the ones these flags tell
    /// apart: `t` (stopped for its debugger), `T`, `X` (exiting), else `R`.
    pub(crate) fn state(&self) -> char {
        if self.0.flags & raw::UTRACE_TASK_EXITING != 0 {
            'X'
        } else if self.0.flags & raw::UTRACE_TASK_TRACED != 0 {
            't'
        } else if self.0.flags & raw::UTRACE_TASK_STOPPED != 0 {
            'T'
        } else {
            'R'
        }
    }
}

/// Whether `task`'s process is `tgid` (initial pid namespace) or descends
/// from it by real parents.
pub(crate) fn descends_from(task: &Task, tgid: i32) -> bool {
    // SAFETY: `task` is valid.
    unsafe { raw::utrace_task_descends_from(task_ptr(task), tgid) }
}

/// Sends `sig` to `task`'s process (as `kill(2)` from the kernel).
/// `ESRCH` if it is gone, `EINVAL` for a bad signal number.
pub(crate) fn signal_process(task: &Task, sig: i32) -> Result {
    if !(1..=64).contains(&sig) {
        return Err(EINVAL);
    }
    // SAFETY: `task` is valid; `send_sig` with priv=1 sends to its process.
    to_result(unsafe { bindings::send_sig(sig, task_ptr(task), 1) })
}

/// Seconds since the epoch (`CLOCK_REALTIME`), for records a person reads.
pub(crate) fn wall_seconds() -> i64 {
    // SAFETY: No arguments; any context.
    unsafe { bindings::ktime_get_real_seconds() }
}

/// A cgroup v2 (default hierarchy) cgroup, held by reference (dropped:
/// put), to select tasks that are in it or below it.
pub(crate) struct Cgroup {
    /// INVARIANT: A `struct cgroup` this value holds a reference on.
    ptr: core::ptr::NonNull<core::ffi::c_void>,
}

// SAFETY: A cgroup reference may be used and put from any task or CPU.
unsafe impl Send for Cgroup {}
// SAFETY: `contains` only reads, under RCU in the C side.
unsafe impl Sync for Cgroup {}

/// Longest cgroup path taken (`PATH_MAX` less its NUL).
const CGROUP_PATH_MAX: usize = 4095;

impl Cgroup {
    /// The cgroup at `path`, absolute from the cgroup v2 root as the calling
    /// task's cgroup namespace sees it (`/` is the root, every task is below
    /// it). `EINVAL`: empty, not absolute or with a NUL; `ENAMETOOLONG`;
    /// `ENOENT`: no such cgroup; `ENOTDIR`: a file, not a cgroup;
    /// `EOPNOTSUPP`: the kernel has no cgroups (`CONFIG_CGROUPS` off).
    /// Sleeps.
    pub(crate) fn get(path: &[u8]) -> Result<Cgroup> {
        if path.first() != Some(&b'/') || path.contains(&0) {
            return Err(EINVAL);
        }
        if path.len() > CGROUP_PATH_MAX {
            return Err(kernel::error::Error::from_errno(
                -(bindings::ENAMETOOLONG as i32),
            ));
        }
        let mut cpath = KVec::with_capacity(path.len() + 1, GFP_KERNEL)?;
        cpath.extend_from_slice(path, GFP_KERNEL)?;
        cpath.push(0, GFP_KERNEL)?;
        // SAFETY: `cpath` is NUL-terminated; process context.
        let ptr = unsafe { raw::utrace_cgroup_get(cpath.as_ptr()) };
        let ptr = kernel::error::from_err_ptr(ptr)?;
        let ptr = core::ptr::NonNull::new(ptr).ok_or(ENOENT)?;
        // INVARIANT: `utrace_cgroup_get` returned it with a reference.
        Ok(Cgroup { ptr })
    }

    /// Whether `task`'s cgroup is this one or below it. Takes no lock.
    pub(crate) fn contains(&self, task: &Task) -> bool {
        // SAFETY: `task` is valid; `ptr` is a held cgroup (type invariant).
        unsafe { raw::utrace_task_in_cgroup(task_ptr(task), self.ptr.as_ptr()) }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // SAFETY: The reference this value holds (type invariant).
        unsafe { raw::utrace_cgroup_put(self.ptr.as_ptr()) };
    }
}
