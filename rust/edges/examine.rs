// SPDX-License-Identifier: GPL-2.0

//! Examining and changing a stopped task (utrace's
//! `utrace_prepare_examine()` / `utrace_finish_examine()`), its registers
//! through its regset view and its memory.
//!
//! A task may be examined by an engine that holds it in its stop, once it
//! is off its CPU; or by any of its engines from its own context (a callback
//! with `current` the task). [`Examinable`] is the proof of one or the other.

use crate::control;
use crate::engine::Engine;
use crate::shim::{self, examine as ex};
use crate::state::State;
use crate::task;
use core::sync::atomic::Ordering::SeqCst;
use kernel::prelude::*;
use kernel::task::Task;

/// `struct utrace_examiner` of `include/utrace_rs.h`.
#[repr(C)]
pub(crate) struct Examiner {
    pub(crate) state: isize,
    pub(crate) ncsw: usize,
}

// The layout of `include/utrace_rs.h` (asserted in `shim/exports.c` too).
const _: () = assert!(core::mem::size_of::<Examiner>() == 16);

/// Where `task` is for `engine`: `None` if it is `current`, else the
/// scheduling state it sleeps in, in this engine's stop (0 while it runs
/// there for a moment: see [`off_cpu`]). `EINVAL` if the engine is not
/// attached to it or does not hold it stopped, `ESRCH` if either is gone,
/// `EAGAIN` if it has not reached its stop (yet).
fn stopped_state(st: &State, task: &Task, engine: &Engine) -> Result<Option<u32>> {
    if task::is_current(task) {
        return Ok(None);
    }
    let ut = control::resolve(st, Some(task), engine)?.ok_or(EINVAL)?;
    if engine.is_detached() || task::is_dead(task) {
        return Err(ESRCH);
    }
    if !engine.wants_stop() {
        return Err(EINVAL);
    }
    if !ut.stopped.load(SeqCst) {
        return Err(EAGAIN);
    }
    Ok(Some(ex::task_state(task)))
}

/// How many times, a millisecond apart, [`off_cpu`] looks for a task woken
/// in its stop to be asleep again.
const SETTLE_TRIES: u32 = 20;

/// `task`, held in `engine`'s stop, once it is off its CPU: the state it
/// sleeps in and its context-switch count; `None` if it is `current`. A
/// task woken in its stop (a SIGCONT has it mark itself stopped for job
/// control again; a wake-up meant for an earlier stop may come late) runs
/// for a moment and sleeps again: it is looked for again, a millisecond
/// later, up to [`SETTLE_TRIES`] times, then `EAGAIN`; errors as
/// [`stopped_state`]. May sleep.
fn off_cpu(st: &State, task: &Task, engine: &Engine) -> Result<Option<(u32, usize)>> {
    for _ in 0..SETTLE_TRIES {
        let Some(state) = stopped_state(st, task, engine)? else {
            return Ok(None);
        };
        if state != 0 {
            let ncsw = ex::wait_inactive(task, state);
            if ncsw != 0 {
                return Ok(Some((state, ncsw)));
            }
        }
        shim::msleep(1);
    }
    Err(EAGAIN)
}

/// `utrace_prepare_examine()`: records where the stopped task is, once it
/// is off its CPU. May sleep.
pub(crate) fn prepare(st: &State, task: &Task, engine: &Engine) -> Result<Examiner> {
    let current = Examiner { state: 0, ncsw: 0 };
    if stopped_state(st, task, engine)?.is_none() {
        return Ok(current);
    }
    shim::sleepable("utrace_prepare_examine")?;
    Ok(match off_cpu(st, task, engine)? {
        None => current,
        Some((state, ncsw)) => Examiner {
            state: state as isize,
            ncsw,
        },
    })
}

/// `utrace_finish_examine()`: `EAGAIN` if the task ran since
/// [`prepare`] made `exam`. May sleep.
pub(crate) fn finish(st: &State, task: &Task, engine: &Engine, exam: &Examiner) -> Result {
    let Some(state) = stopped_state(st, task, engine)? else {
        return Ok(());
    };
    shim::sleepable("utrace_finish_examine")?;
    if state as isize != exam.state || ex::wait_inactive(task, state) != exam.ncsw {
        return Err(EAGAIN);
    }
    Ok(())
}

/// The proof that a task may be examined and changed: it is `current`, or
/// an engine holds it in its stop and it is off its CPU (until that engine
/// resumes it: what was done meanwhile is what `finish` checks).
pub(crate) struct Examinable<'a> {
    task: &'a Task,
}

impl<'a> Examinable<'a> {
    /// Checks that `engine` may examine `task` now. May sleep.
    pub(crate) fn new(st: &State, task: &'a Task, engine: &Engine) -> Result<Self> {
        shim::sleepable("utrace-rs regset or memory access")?;
        off_cpu(st, task, engine)?;
        Ok(Examinable { task })
    }

    /// Copies up to `buf.len()` bytes of the regset `note_type`.
    pub(crate) fn regset_get(&self, note_type: u32, buf: &mut [u8]) -> Result<usize> {
        // SAFETY: Examinable (type invariant), in process context.
        unsafe { ex::regset_get(self.task, note_type, buf) }
    }

    /// Writes `buf` to the start of the regset `note_type`.
    pub(crate) fn regset_set(&self, note_type: u32, buf: &[u8]) -> Result {
        // SAFETY: As above.
        unsafe { ex::regset_set(self.task, note_type, buf) }
    }

    /// Reads (`write`: writes) `len` bytes at `addr` from (into) `buf`.
    ///
    /// # Safety
    ///
    /// `buf` is valid for `len` bytes (writable unless `write`).
    pub(crate) unsafe fn access_vm(
        &self,
        addr: usize,
        buf: *mut u8,
        len: usize,
        write: bool,
    ) -> Result<usize> {
        // SAFETY: As above; `buf` by the function's safety requirements.
        unsafe { ex::access_vm(self.task, addr, buf, len, write) }
    }
}
