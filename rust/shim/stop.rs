// SPDX-License-Identifier: GPL-2.0

use super::*;

/// Whether `current` still counts as stopped (SIGCONT clears the mark
/// and wakes the stop, which marks it again).
pub(crate) fn marked() -> bool {
    // SAFETY: Reads `current`'s job control bits.
    unsafe { ffi::utrace_shim_stop_marked() }
}

/// SIGCONT to `lk`'s group (the `signal_generate` probe): wakes its
/// utrace-stopped threads so that they count themselves as stopped
/// again.
pub(crate) fn wake_threads(lk: &super::signal::SigLocked<'_>) {
    // SAFETY: The task is valid and its siglock held (`lk`'s invariant).
    unsafe { ffi::utrace_shim_wake_stopped_threads(lk.raw()) }
}

/// `current` leaves its utrace stop (joining its process's group stop
/// if there is one).
pub(crate) fn unmark() {
    // SAFETY: As for `mark`.
    unsafe { ffi::utrace_shim_stop_unmark() }
}

/// What the stop found before a sleep (`shim/stop.c`).
pub(crate) enum Prepared {
    /// Sleep: a pending signal's `TIF_SIGPENDING` (and a task_work's
    /// `TIF_NOTIFY_SIGNAL`) is cleared meanwhile, recorded in `cleared`.
    Sleep,
    /// SIGKILL is pending: the stop ends.
    Killed,
    /// The cgroup freezer wants the task: the stop ends for
    /// `get_signal()` to freeze it, to be taken again afterwards.
    Freezer,
}

/// Before each sleep of the stop (`current`, no locks held). With
/// `mark` (a wait's first sleep), `current` first counts as stopped for
/// a group stop, taking part in one already pending (SIGCONT clears the
/// mark, see [`marked`]), under the same siglock. What it clears is set
/// again by [`sleep_done`] with `cleared`.
pub(crate) fn sleep_prepare(cleared: &mut u32, mark: bool) -> Prepared {
    // SAFETY: Task context, no locks held; `cleared` is valid for the
    // call.
    match unsafe { ffi::utrace_shim_stop_sleep_prepare(cleared, mark) } {
        // UTRACE_STOP_KILLED, UTRACE_STOP_FREEZER (shim.h).
        1 => Prepared::Killed,
        2 => Prepared::Freezer,
        _ => Prepared::Sleep,
    }
}

/// Whether SIGKILL is pending for `current` (a look without the
/// siglock; [`sleep_prepare`] looks again under it).
pub(crate) fn killed() -> bool {
    // SAFETY: Reads `current`'s own pending set.
    unsafe { ffi::utrace_shim_stop_killed() }
}

/// The stop's sleeps are over: sets again the flags they cleared.
pub(crate) fn sleep_done(cleared: u32) {
    // SAFETY: Sets `current`'s own thread flags.
    unsafe { ffi::utrace_shim_stop_sleep_done(cleared) }
}

/// The stop's first sleep: wakes the waiters on the var `waiters`
/// (`utrace_wait_stopped()`) and `reader`'s, and sleeps, with preemption
/// off in between, so that a waiter woken on this CPU runs once `current`
/// is off it (ptrace_stop()'s order), not before it (which would cost a
/// second switch pair). The caller set the task state (it is queued on its
/// stop's wait queue).
pub(crate) fn schedule_waking(waiters: *const c_void, reader: Option<&Reader>) {
    let reader = reader.map_or(core::ptr::null_mut(), |r| r.0.as_ptr());
    // SAFETY: Process context, no locks held (the stop's contract); any
    // address works as a var key; `reader` is null or a file handle we
    // hold a reference on.
    unsafe { ffi::utrace_shim_stop_schedule_waking(waiters.cast_mut(), reader) }
}

/// A session's reader to wake (a counted `struct utrace_chrdev_file` of
/// `shim/device.c`, `utrace_chrdev_wake_at_stop()`): the reference is put
/// when it is dropped.
pub(crate) struct Reader(core::ptr::NonNull<c_void>);

impl Reader {
    /// A new reference on `file`.
    ///
    /// # Safety
    ///
    /// `file` is a live `struct utrace_chrdev_file` the caller holds a
    /// reference on.
    pub(crate) unsafe fn get(file: core::ptr::NonNull<c_void>) -> Reader {
        // SAFETY: By the function's safety requirements.
        unsafe { ffi::utrace_chrdev_file_get(file.as_ptr()) };
        Reader(file)
    }

    /// The reference as a raw pointer, for [`Reader::from_raw`].
    pub(crate) fn into_raw(self) -> *mut c_void {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }

    /// The reference [`Reader::into_raw`] gave (`None` for null).
    ///
    /// # Safety
    ///
    /// `p` is null or came from `into_raw`, and is taken back once.
    pub(crate) unsafe fn from_raw(p: *mut c_void) -> Option<Reader> {
        core::ptr::NonNull::new(p).map(Reader)
    }

    /// Wakes the file's readers and pollers.
    pub(crate) fn wake(&self) {
        // SAFETY: We hold a reference on the handle.
        unsafe { ffi::utrace_chrdev_wake(self.0.as_ptr()) }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // SAFETY: We hold a reference on the handle (any context but NMI).
        unsafe { ffi::utrace_chrdev_file_put(self.0.as_ptr()) }
    }
}

/// Queues `work` for `current` to run before it returns to user mode
/// (`TWA_NMI_CURRENT`: from any context of `current`'s, an int3 kprobe
/// included).
///
/// # Safety
///
/// `work` is not queued and stays valid until it has run.
pub(crate) unsafe fn queue_current(work: *mut bindings::callback_head) -> Result {
    // SAFETY: By the function's safety requirements.
    to_result(unsafe { ffi::utrace_shim_stop_queue_current(work) })
}

/// Module unload: takes `work` off `task`'s task_work list if it is
/// queued there and not yet taken by `task_work_run()`; whether it was.
/// Any context but NMI.
///
/// # Safety
///
/// `task` is valid and `work` is a `callback_head` that stays valid.
pub(crate) unsafe fn task_work_cancel(
    task: *mut bindings::task_struct,
    work: *mut bindings::callback_head,
) -> bool {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_task_work_cancel(task, work) }
}
