// SPDX-License-Identifier: GPL-2.0

//! Detaching engines: from one target ([`detach`]), by predicate
//! ([`detach_where`]: a reap detaches all, an unloading module its own),
//! and every engine of a module with its releases run
//! ([`release_engines`], `utrace_release_engines()` and the module
//! notifier). Also [`Target`], the one place a list's writer lock is taken.

use crate::compat::ARef;
use crate::engine::Engine;
use crate::engine_list::ListWriter;
use crate::events::{self, action};
use crate::release::{self, Step};
use crate::shim;
use crate::state::{self, State};
use crate::task;
use crate::utask::UTask;
use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::Ordering::SeqCst;
use kernel::bindings;
use kernel::prelude::*;

/// What an engine is attached to.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Task(&'a UTask),
    Global,
}

impl Target<'_> {
    /// The identity stored in [`Engine::owner`].
    pub(crate) fn identity(self) -> *const c_void {
        match self {
            Target::Task(ut) => (ut as *const UTask).cast(),
            Target::Global => ptr::null(),
        }
    }

    /// Runs `f` with write access to the target's engine list (its writer
    /// lock held), then recomputes the target's event union.
    pub(crate) fn locked<R>(self, st: &State, f: impl FnOnce(&ListWriter<'_>) -> R) -> R {
        match self {
            Target::Task(ut) => {
                let mut guard = ut.inner.lock();
                let (ret, queued) = {
                    // SAFETY: `inner`'s lock is the writer lock of the
                    // task's list; `guard` holds it until the writer is
                    // gone, at the end of this block.
                    let list = unsafe { ListWriter::new(&ut.engines) };
                    let ret = f(&list);
                    (ret, ut.update_events(&list, &mut guard, &st.work))
                };
                drop(guard);
                if !queued {
                    ut.drop_lost(&st.work);
                }
                ret
            }
            Target::Global => {
                let _guard = st.global_lock.lock();
                // SAFETY: `global_lock` is the global list's writer lock.
                let list = unsafe { ListWriter::new(&st.global) };
                let ret = f(&list);
                st.update_global_events(&list);
                ret
            }
        }
    }
}

/// Detaches `engine` from `target`: no new callback starts once this returns.
/// `Ok(true)` if a callback may still be in flight (`-EINPROGRESS`).
pub(crate) fn detach(st: &State, target: Target<'_>, engine: &Engine) -> Result<bool> {
    if let Target::Task(ut) = target {
        recheck_stepping(st, ut);
    }
    let won = target.locked(st, |list| {
        if !engine.mark_detached() {
            return false;
        }
        list.unlink(engine);
        true
    });
    if !won {
        return Err(ESRCH);
    }
    after_detach(st, target, engine);
    Ok(engine.callback_in_flight())
}

/// Detaches the first engine on `target` that `wanted` picks, if any
/// (reap: all of them; unloading a module: its own).
pub(crate) fn detach_where(
    st: &State,
    target: Target<'_>,
    wanted: &dyn Fn(&Engine) -> bool,
) -> bool {
    if let Target::Task(ut) = target {
        // Before the unlink (see there), for a task that is stepped.
        if ut.stepping.load(SeqCst) && target.locked(st, |list| list.iter().any(wanted)) {
            recheck_stepping(st, ut);
        }
    }
    let found = target.locked(st, |list| {
        let engine = list.iter().find(|e| wanted(e))?;
        engine.mark_detached();
        list.unlink(engine);
        // A reference for what follows outside the lock (the attached one
        // goes in an RCU callback that `after_detach` queues).
        Some(ARef::from(engine))
    });
    match found {
        Some(engine) => {
            after_detach(st, target, &engine);
            true
        }
        None => false,
    }
}

/// What follows marking and unlinking (a detach, or the old engine of a
/// handoff): the engine's stop and held signals no longer hold the task,
/// and the engine's attached reference goes after a grace period.
pub(crate) fn after_detach(st: &State, target: Target<'_>, engine: &Engine) {
    match target {
        Target::Task(ut) => {
            if engine.wants_stop() {
                engine.set_stop(false);
                ut.release_stop();
            }
            if engine.events() & events::SIGNAL_ALL != 0 {
                release_suspended(ut);
            }
        }
        // A global SIGNAL_CORE engine may have suspended any process.
        Target::Global if engine.events() & events::SIGNAL_CORE != 0 => {
            st.table.for_each(release_suspended);
        }
        Target::Global => {}
    }
    finish_detach(st, engine);
}

/// An engine of `ut` is about to go, by whatever path (DETACH, handoff, a
/// module's release, a session's close): if utrace-rs steps the task, have
/// it look again whether anyone still does, before its next instruction
/// (its work runs before it returns to user mode, where the next step's
/// trap, or a syscall's exit trap, would come with no engine left to take
/// it). Called before the engine is unlinked: a trap sent while the
/// engine is linked is held for it and reported (and discarded if nobody
/// takes it, `report_signal`); one sent once the task's events no longer
/// show the engine finds this work queued already, and the work, run
/// first in `get_signal()`, turns the stepping off and takes the trap
/// back from the kernel's queue.
pub(crate) fn recheck_stepping(st: &State, ut: &UTask) {
    if ut.stepping.load(SeqCst) {
        ut.queue(&st.work, |inner| inner.pending.ask_resume(action::RESUME));
    }
}

/// Delivers the signals suspended for `ut`'s task by continuing its process
/// (SIGCONT, whose probe unblocks them), so no task stays stopped for an
/// engine that is gone.
fn release_suspended(ut: &UTask) {
    if ut.sig.any_suspended() && !task::is_dead(ut.task()) {
        // No siglock is held here.
        shim::signal::continue_group(ut.task());
    }
}

/// The counts a detach changes, and the attached reference's retirement.
fn finish_detach(st: &State, engine: &Engine) {
    if !engine.owner.is_null() {
        // Its utrace_wait_stopped() waiters return ESRCH.
        crate::wait::wake(crate::utask::UTask::stop_waiters_key(engine.owner));
    }
    st.engine_detached();
    st.hooks_sub(engine.events());
    engine.retire();
}

/// Detaches every engine `wanted` picks, global and per task; returns how
/// many.
fn detach_all(st: &State, wanted: &dyn Fn(&Engine) -> bool) -> usize {
    let mut n = 0;
    while detach_where(st, Target::Global, wanted) {
        n += 1;
    }
    st.table.for_each(|ut| {
        while detach_where(st, Target::Task(ut), wanted) {
            n += 1;
        }
    });
    n
}

/// Detaches every engine of `module` (with data `data`, if given), waits
/// until no callback to them can come, and runs the releases still due (or
/// waits for the worker running them). Returns how many engines it
/// detached. Process context; must not be called from a callback of those
/// engines.
pub(crate) fn release_engines(
    st: &State,
    module: *mut bindings::module,
    data: Option<*mut c_void>,
) -> Result<usize> {
    let Some(releaser) = release::get() else {
        return Ok(0);
    };
    let wanted = |e: &Engine| e.belongs_to(module, data);
    shim::sleepable("utrace_release_engines")?;
    // From a callback of one of those engines it would wait for itself.
    let reporting = st.reporting();
    // SAFETY: Non-null, it is the engine whose callback `current` (we) is
    // running, which pins it.
    if !reporting.is_null() && wanted(unsafe { Engine::from_raw(reporting) }) {
        pr_warn!("utrace_release_engines called from a callback of one of its engines: refused (-EDEADLK)\n");
        return Err(crate::errno::edeadlk());
    }
    if !releaser.has_engines(module, data) {
        return Ok(0);
    }
    let mut detached = 0;
    let mut waits = 0u32;
    loop {
        detached += detach_all(st, &wanted);
        // Detached engines are marked unlinked by RCU callbacks queued at
        // the detach: wait for them.
        shim::rcu_barrier();
        let again = loop {
            match releaser.next_step(module, data) {
                Step::Claimed(c) => releaser.run(c),
                Step::Busy => {
                    waits += 1;
                    if waits % 1000 == 0 {
                        pr_info!(
                            "unload: waiting for callbacks in flight ({} s)\n",
                            waits / 1000
                        );
                    }
                    shim::msleep(1);
                }
                // Attached meanwhile (by a callback in flight): again.
                Step::Attached => break true,
                Step::Done => break false,
            }
        };
        if !again {
            break;
        }
    }
    // Releases the worker claimed may still be running.
    releaser.wait_releasing();
    Ok(detached)
}

/// `MODULE_STATE_GOING` of `module` (the module notifier, after its exit
/// function returned and before its memory is freed): engines it left
/// behind (a leaked `Tracer`, a failed init) are detached and released.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_module_going(module: *mut bindings::module) {
    let Some(st) = state::get() else { return };
    let n = release_engines(st, module, None).unwrap_or(0);
    if n != 0 {
        // SAFETY: `module` is the module being unloaded, still in memory.
        let name = unsafe { kernel::str::CStr::from_char_ptr((*module).name.as_ptr()) };
        pr_warn!(
            "module {} left {} engine(s) behind: detached and released them\n",
            crate::compat::Escaped(crate::compat::cstr_bytes(name)),
            n
        );
    }
}
