// SPDX-License-Identifier: GPL-2.0

//! Waiting for a condition on a variable, woken through the kernel's hashed
//! "var" wait queues (`wait_var_event()` / `wake_up_var()`), which the 6.12
//! kernel crate does not wrap. Wakers may run in any context, softirq
//! included, and need no lock of ours.

use crate::shim;
use core::ffi::c_void;
use core::sync::atomic::{fence, AtomicBool, Ordering::SeqCst};
use kernel::bindings;
use kernel::prelude::*;

/// Sleeps (interruptibly) until `cond()` holds. `ERESTARTSYS` if a signal
/// arrives first. `var` is the address wakers pass to [`wake`].
pub(crate) fn wait_interruptible(var: *const c_void, cond: impl Fn() -> bool) -> Result {
    wait_var(var, bindings::TASK_INTERRUPTIBLE, cond)
}

/// How a utrace stop's sleep ended.
pub(crate) enum StopWake {
    /// `cond()` holds.
    Cond,
    /// SIGKILL.
    Killed,
    /// The cgroup freezer wants the task (`JOBCTL_TRAP_FREEZE`): it is to
    /// leave its task work for `get_signal()` to freeze it, and stop again
    /// afterwards (see `shim/stop.c`).
    Freezer,
}

/// The sleep of a utrace stop: until `cond()` holds, woken by [`wake`],
/// SIGKILL or the cgroup freezer. Not counted in the load average (ps shows
/// `I`), freezable (the suspend freezer freezes the task where it sleeps
/// and thaws it back into the same sleep), and woken by `signal_wake_up()`
/// (`TASK_INTERRUPTIBLE` too), which is how the cgroup freezer asks;
/// another signal only makes it look and sleep again.
///
/// Before its first sleep it counts `current` as stopped for job control
/// (`shim::stop::sleep_prepare`'s mark: a SIGCONT clears it and wakes the
/// sleep, the caller waits again), sets `parked` and wakes the waiters on
/// the var `waiters` (`utrace_wait_stopped()`) and `reader`'s (taken: a
/// session's, `utrace_chrdev_wake_at_stop()`), with preemption off until
/// it sleeps (`shim::stop::schedule_waking`). Once woken, a `cond()` that
/// holds ends the wait before the siglock is taken again.
pub(crate) fn wait_stopped(
    var: *const c_void,
    parked: &AtomicBool,
    waiters: *const c_void,
    reader: &mut Option<shim::stop::Reader>,
    cond: impl Fn() -> bool,
) -> StopWake {
    let state = bindings::TASK_INTERRUPTIBLE
        | bindings::TASK_UNINTERRUPTIBLE
        | bindings::TASK_NOLOAD
        | bindings::TASK_FREEZABLE;
    let var = var.cast_mut();
    // SAFETY: Any address works as a key; the queue is the kernel's.
    let wq = unsafe { bindings::__var_waitqueue(var) };
    let mut entry = bindings::wait_bit_queue_entry::default();
    // SAFETY: As in `wait_var`.
    unsafe { bindings::init_wait_var_entry(&mut entry, var, 0) };
    let mut cleared = 0;
    let mut first = true;
    let ret = loop {
        // Woken (or a signal came): resumed, nothing more to prepare (the
        // entry stays off the queue if a wake took it off). SIGKILL still
        // wins over a resume found at the same time, as below.
        if !first && !shim::stop::killed() && cond() {
            break StopWake::Cond;
        }
        match shim::stop::sleep_prepare(&mut cleared, first) {
            shim::stop::Prepared::Sleep => {}
            shim::stop::Prepared::Killed => break StopWake::Killed,
            shim::stop::Prepared::Freezer => break StopWake::Freezer,
        }
        // SAFETY: As in `wait_entry`.
        let pending =
            unsafe { bindings::prepare_to_wait_event(wq, &mut entry.wq_entry, state as i32) };
        if cond() {
            break StopWake::Cond;
        }
        first = false;
        if pending != 0 {
            // A signal came since `sleep_prepare`: look again.
            continue;
        }
        if parked.load(SeqCst) {
            // SAFETY: Process context, no locks held (callers' contract).
            unsafe { bindings::schedule() };
        } else {
            // The waiters see `parked` once woken (the shim orders the store
            // before its check of their queue).
            parked.store(true, SeqCst);
            let reader = reader.take();
            shim::stop::schedule_waking(waiters, reader.as_ref());
        }
    };
    // SAFETY: Takes the entry off the queue (if on it) and restores the
    // task state.
    unsafe { bindings::finish_wait(wq, &mut entry.wq_entry) };
    shim::stop::sleep_done(cleared);
    ret
}

/// Sleeps until `cond()` holds, woken only by [`wake`] (no signal ends
/// it), without counting in the load average. For waits that must not be
/// cut short, whose wakers are bounded work.
pub(crate) fn wait_uninterruptible_idle(var: *const c_void, cond: impl Fn() -> bool) {
    let state = bindings::TASK_UNINTERRUPTIBLE | bindings::TASK_NOLOAD;
    // Without a signal state the wait cannot fail.
    let _ = wait_var(var, state, cond);
}

/// Sleeps until `cond()` holds, in `state` (`TASK_INTERRUPTIBLE` or
/// `TASK_KILLABLE`): `ERESTARTSYS` if a signal that `state` lets in comes
/// first.
pub(crate) fn wait_var(var: *const c_void, state: u32, cond: impl Fn() -> bool) -> Result {
    // Nothing to wait for (a barrier with no callback in flight, the common
    // case): no queue to look up, lock and leave.
    if cond() {
        return Ok(());
    }
    let var = var.cast_mut();
    // SAFETY: Any address works as a key; the queue is the kernel's.
    let wq = unsafe { bindings::__var_waitqueue(var) };
    let mut entry = bindings::wait_bit_queue_entry::default();
    // SAFETY: `entry` lives on this stack frame, is not moved, and is taken
    // off the queue by `finish_wait` before the frame ends.
    unsafe { bindings::init_wait_var_entry(&mut entry, var, 0) };
    wait_entry(wq, &mut entry.wq_entry, state, cond)
}

/// Sleeps (interruptibly) on the wait queue `wq` until `cond()` holds.
pub(crate) fn wait_interruptible_on(
    wq: *mut bindings::wait_queue_head,
    cond: impl Fn() -> bool,
) -> Result {
    let mut entry = bindings::wait_queue_entry::default();
    // SAFETY: As in `wait_interruptible`; wakes the current task.
    unsafe { bindings::init_wait_entry(&mut entry, 0) };
    wait_entry(wq, &mut entry, bindings::TASK_INTERRUPTIBLE, cond)
}

/// Wakes every waiter on the wait queue `wq`.
pub(crate) fn wake_all(wq: *mut bindings::wait_queue_head) {
    // SAFETY: `wq` is an initialised wait queue head; any context.
    unsafe { bindings::__wake_up(wq, bindings::TASK_NORMAL, 0, core::ptr::null_mut()) };
}

/// The wait loop: queue `entry`, check `cond`, sleep, until it holds.
fn wait_entry(
    wq: *mut bindings::wait_queue_head,
    entry: &mut bindings::wait_queue_entry,
    state: u32,
    cond: impl Fn() -> bool,
) -> Result {
    let mut ret = Ok(());
    let mut slept = false;
    loop {
        // Woken: a condition that holds now ends the wait without queueing
        // the entry again (a wake took it off the queue: `finish_wait`
        // then needs no lock either).
        if slept && cond() {
            break;
        }
        // SAFETY: As above; queues the entry and sets the task state before
        // the condition is checked, so a wake in between is not lost.
        let pending = unsafe { bindings::prepare_to_wait_event(wq, entry, state as i32) };
        if cond() {
            break;
        }
        if pending != 0 {
            ret = Err(ERESTARTSYS);
            break;
        }
        // SAFETY: Process context, no locks held (callers' contract).
        unsafe { bindings::schedule() };
        slept = true;
    }
    // SAFETY: Takes `entry` off the queue and restores the task state.
    unsafe { bindings::finish_wait(wq, entry) };
    ret
}

/// Wakes waiters on `var` after the condition they wait for became true.
pub(crate) fn wake(var: *const c_void) {
    // Order the condition's stores before the waiters' queue is checked.
    fence(SeqCst);
    // SAFETY: Any address works as a key.
    unsafe { bindings::wake_up_var(var.cast_mut()) };
}
