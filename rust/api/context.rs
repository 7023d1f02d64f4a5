// SPDX-License-Identifier: GPL-2.0

//! What a callback can reach besides its engine value: [`Context`] where it
//! may sleep, [`SyscallContext`] and [`SyscallRegs`] in atomic context.

use super::raw::{self, TaskPtr};
use super::tracer::{EngineRef, Shared};
use super::{Control, Engine, Events};
use core::marker::PhantomData;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::error::to_result;
use kernel::prelude::*;
use kernel::sync::ArcBorrow;
use kernel::task::Task;

/// The context of one callback: the task the event belongs to, the engine
/// called and the tracer it belongs to. Lives only for the callback.
pub(crate) struct Context<'a, E: Engine> {
    pub(super) shared: ArcBorrow<'a, Shared<E>>,
    pub(super) global: bool,
    pub(super) task: &'a Task,
    /// The engine called, pinned by the framework for the callback.
    pub(super) engine: NonNull<raw::utrace_engine>,
}

impl<E: Engine> Context<'_, E> {
    /// Whether the callback is for a global engine (else a per-task one).
    pub(crate) fn is_global(&self) -> bool {
        self.global
    }

    /// The task the event belongs to: for CLONE the parent, else the task
    /// that exec'd, exits, died, gets the signal or quiesces.
    pub(crate) fn task(&self) -> &Task {
        self.task
    }

    /// The target `utrace_*()` calls name for this engine: its task, or
    /// none for a global engine.
    fn target(&self) -> TaskPtr {
        if self.global {
            core::ptr::null_mut()
        } else {
            super::task::task_ptr(self.task)
        }
    }

    /// Attaches another engine of the same tracer to `task` (e.g. a CLONE
    /// child, to follow it). `ESHUTDOWN` once the tracer is being dropped.
    pub(crate) fn attach(&self, task: &Task, events: Events) -> Result<EngineRef<E>> {
        Shared::attach(&self.shared, Some(task), events)
    }

    /// Changes this engine's events (`utrace_set_events()`).
    pub(crate) fn set_events(&self, events: Events) -> Result {
        // SAFETY: The engine is pinned for the callback; the target is its
        // task (or null for a global engine).
        to_result(unsafe {
            raw::utrace_set_events(self.target(), self.engine.as_ptr(), events.bits())
        })
    }

    /// `utrace_control()` on this engine's task, from its own callback.
    pub(crate) fn control(&self, action: Control) -> Result {
        // SAFETY: As in `set_events`.
        to_result(unsafe { raw::utrace_control(self.target(), self.engine.as_ptr(), action.raw()) })
    }
}

/// The context of a syscall callback: atomic, so it offers nothing that may
/// sleep (no attach, no `set_events`, no barrier). Not `Send`: it belongs
/// to the callback.
pub(crate) struct SyscallContext<'a> {
    pub(super) task: &'a Task,
    pub(super) _not_send: PhantomData<*mut ()>,
}

impl SyscallContext<'_> {
    /// The task in the syscall (`current`).
    pub(crate) fn task(&self) -> &Task {
        self.task
    }
}

/// The registers of a syscall being entered or left (x86-64).
pub(crate) struct SyscallRegs<'a>(pub(super) &'a mut bindings::pt_regs);

impl SyscallRegs<'_> {
    /// The syscall number (`orig_ax`; -1 when an engine aborted it).
    pub(crate) fn nr(&self) -> i64 {
        self.0.orig_ax as i64
    }

    /// Argument `n` (0 to 5), as the syscall sees it.
    pub(crate) fn arg(&self, n: usize) -> Option<u64> {
        let r = &*self.0;
        let value = match n {
            0 => r.di,
            1 => r.si,
            2 => r.dx,
            3 => r.r10,
            4 => r.r8,
            5 => r.r9,
            _ => return None,
        };
        // `unsigned long` is 64 bits wide on x86-64.
        Some(value as u64)
    }

    /// Changes argument `n` (0 to 5) before the syscall runs. `EINVAL` for
    /// another `n`.
    pub(crate) fn set_arg(&mut self, n: usize, value: u64) -> Result {
        let r = &mut *self.0;
        let slot = match n {
            0 => &mut r.di,
            1 => &mut r.si,
            2 => &mut r.dx,
            3 => &mut r.r10,
            4 => &mut r.r8,
            5 => &mut r.r9,
            _ => return Err(EINVAL),
        };
        *slot = value as usize;
        Ok(())
    }

    /// The return value (at exit; a negative errno on failure).
    pub(crate) fn return_value(&self) -> i64 {
        self.0.ax as i64
    }

    /// Sets the return value: at exit, what the task sees; at entry, what
    /// an aborted syscall returns.
    pub(crate) fn set_return_value(&mut self, value: i64) {
        self.0.ax = value as usize;
    }
}
