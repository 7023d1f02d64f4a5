// SPDX-License-Identifier: GPL-2.0

//! The engine-facing operations behind the C ABI: attach, set_events,
//! control and barrier, with utrace's return codes.

use crate::compat::ARef;
use crate::detach::{self, Target};
use crate::engine::{Engine, EngineOps, NewEngine};
use crate::engine_list::ListWriter;
use crate::errno::{ealready, einprogress, eopnotsupp};
use crate::events::{self, action, attach, Events};
use crate::release;
use crate::report;
use crate::shim;
use crate::state::State;
use crate::task;
use crate::utask::{UTask, DEATH_BEGUN, EXIT_SEEN, REAP_BEGUN};
use core::ffi::c_void;
use core::ptr;
use kernel::prelude::*;
use kernel::task::Task;

/// Finds the engine `flags` asks for on `list`.
fn find_match<'a>(
    list: &'a ListWriter<'_>,
    flags: i32,
    ops: *const EngineOps,
    data: *mut c_void,
) -> Option<&'a Engine> {
    list.iter().find(|e| {
        (flags & attach::MATCH_OPS == 0 || e.ops_ptr() == ops)
            && (flags & attach::MATCH_DATA == 0 || e.data() == data)
    })
}

/// `ESRCH` for `task` because of its state (`why`): the task has begun to
/// exit, so its `PF_EXITING` is set. Were it not, the state would be wrong:
/// that is logged (a few times), since the caller sees only `ESRCH`.
fn gone(task: &Task, state: u32, why: &str) -> Error {
    if !task::is_exiting(task) && !task::is_dead(task) {
        pr_warn_limited!(
            "{}: tid {} refused while it is not exiting: its utrace state {:#x}\n",
            why,
            task::pid(task),
            state
        );
    }
    ESRCH
}

/// `utrace_attach_task()`; `task` is `None` for a global engine.
pub(crate) fn attach(
    st: &State,
    task: Option<&Task>,
    flags: i32,
    ops: *const EngineOps,
    data: *mut c_void,
) -> Result<ARef<Engine>> {
    if flags & !attach::ALL != 0 || (flags & attach::GLOBAL != 0) != task.is_none() {
        return Err(EINVAL);
    }
    let create = flags & attach::CREATE != 0;
    if create && ops.is_null() {
        return Err(EINVAL);
    }
    if create {
        shim::sleepable("utrace_attach_task(CREATE)")?;
    }
    let ut: Option<ARef<UTask>> = match task {
        None => None,
        Some(task) => {
            if task::is_kernel_or_worker(task) {
                return Err(EPERM);
            }
            // A lookup works on an exiting task too (an engine finds itself
            // from its EXIT or DEATH callback), until it is reaped.
            if create && (task::is_dead(task) || task::is_exiting(task)) {
                return Err(ESRCH);
            }
            Some(match st.table.get(task::raw(task)) {
                Some(ut) => ut,
                None if !create => return Err(ENOENT),
                // Released meanwhile (the check above raced its exit).
                None => st
                    .table
                    .insert(report::new_utask(task, GFP_KERNEL)?)
                    .ok_or(ESRCH)?,
            })
        }
    };
    let target = match &ut {
        Some(ut) => Target::Task(ut),
        None => Target::Global,
    };

    // Without CREATE: look up only.
    if !create {
        return target.locked(st, |list| {
            let engine = find_match(list, flags, ops, data).ok_or(ENOENT)?;
            Ok(ARef::from(engine))
        });
    }

    // SAFETY: `ops` is not null and the caller promises it is a valid
    // `struct utrace_engine_ops` of a loaded module.
    let new = unsafe { Engine::create(ops, data, target.identity()) }?;
    if flags & attach::NOFOLLOW != 0 {
        new.set_flag(crate::engine::NOFOLLOW);
    }
    let linked = target.locked(st, |list| {
        if flags & attach::EXCLUSIVE != 0 && find_match(list, flags, ops, data).is_some() {
            return Err(EEXIST);
        }
        if let Target::Task(ut) = target {
            let state = ut.state();
            if state & (EXIT_SEEN | DEATH_BEGUN | REAP_BEGUN) != 0 {
                return Err(gone(ut.task(), state, "attach (ESRCH)"));
            }
        }
        // INVARIANT: Sequence numbers are handed out under the writer lock,
        // so the list stays sorted by them.
        new.set_seq(st.next_seq());
        list.push_back(&new)?;
        st.engine_attached();
        Ok(())
    });
    // Unlinked (an error): dropping `new` frees it.
    linked?;
    Ok(registered(new))
}

/// A newly linked engine: on the registry if it has an owner module, and
/// the caller's reference as an `ARef`.
fn registered(new: NewEngine) -> ARef<Engine> {
    let engine = new.attached();
    if let Some(r) = release::get() {
        r.register(&engine);
    }
    engine
}

/// `utrace_handoff()`: replaces `from` by a new engine with `ops`/`data`
/// and `events` (0: `from`'s), atomically for every event: each one is
/// reported to exactly one of them, and the new engine's first event is the
/// one right after the old engine's last. `from` is detached; a callback to
/// it may still be in flight when this returns (wait with barrier).
pub(crate) fn handoff(
    st: &State,
    task: Option<&Task>,
    from: &Engine,
    ops: *const EngineOps,
    data: *mut c_void,
    events: Events,
) -> Result<ARef<Engine>> {
    let allowed = if task.is_some() {
        events::TASK_EVENTS
    } else {
        events::GLOBAL_EVENTS
    };
    if ops.is_null() || events & !allowed != 0 {
        return Err(EINVAL);
    }
    shim::sleepable("utrace_handoff")?;
    let ut = resolve(st, task, from)?;
    let target = ut.as_deref().map_or(Target::Global, Target::Task);
    let new_events = if events == 0 { from.events() } else { events };
    // The hooks the new engine's events need are in before it is linked.
    st.hooks_add(new_events)?;
    // SAFETY: `ops` is not null and the caller promises it is valid.
    let new = match unsafe { Engine::create(ops, data, target.identity()) } {
        Ok(new) => new,
        Err(e) => {
            st.hooks_sub(new_events);
            return Err(e);
        }
    };
    // Before `from` is unlinked (see there).
    if let Some(ut) = ut.as_deref() {
        detach::recheck_stepping(st, ut);
    }
    let swapped = target.locked(st, |list| {
        if from.is_detached() || ut.as_deref().is_some_and(|ut| ut.state() & REAP_BEGUN != 0) {
            return Err(ESRCH);
        }
        // INVARIANT: The new engine takes the old one's place and sequence:
        // a report pass that already called (or skipped past) `from` skips
        // it, one that had not reaches it instead of `from`.
        new.set_seq(from.seq());
        new.set_events(new_events);
        list.replace(from, &new)?;
        from.mark_detached();
        st.engine_attached();
        Ok(())
    });
    if let Err(e) = swapped {
        drop(new);
        st.hooks_sub(new_events);
        return Err(e);
    }
    // `from` is detached as by DETACH: its stop no longer holds the task
    // (the new engine holds none, as after an attach), what it suspended is
    // continued, and the task looks again whether anyone still steps it.
    detach::after_detach(st, target, from);
    Ok(registered(new))
}

/// Resolves the target an API call names and checks the engine is on it.
/// `Err(ESRCH)` if the task has no state any more (reaped).
pub(crate) fn resolve(
    st: &State,
    task: Option<&Task>,
    engine: &Engine,
) -> Result<Option<ARef<UTask>>> {
    let ut = match task {
        None => None,
        Some(task) => match st.table.get(task::raw(task)) {
            Some(ut) => Some(ut),
            None if task::is_released(task) => return Err(ESRCH),
            None => return Err(gone(task, 0, "no utrace state (ESRCH)")),
        },
    };
    let identity = ut
        .as_ref()
        .map_or(ptr::null(), |ut| (&**ut as *const UTask).cast::<c_void>());
    if engine.owner != identity {
        // Detached engines keep their owner, so this is a wrong target.
        return Err(EINVAL);
    }
    Ok(ut)
}

/// Whether `current` is inside a callback to `engine`.
fn current_in_callback(st: &State, engine: &Engine) -> bool {
    st.reporting() == engine.as_ptr()
}

/// `utrace_set_events()`.
pub(crate) fn set_events(
    st: &State,
    task: Option<&Task>,
    engine: &Engine,
    events: Events,
) -> Result {
    let allowed = if task.is_some() {
        events::TASK_EVENTS
    } else {
        events::GLOBAL_EVENTS
    };
    if events & !allowed != 0 {
        return Err(EINVAL);
    }
    if events & (events::SIGNAL_TERM | events::SIGNAL_IGN) != 0 && !shim::Kprobes::registered() {
        // Held before the kernel decides, from the prepare_signal() (or
        // send_signal_locked()) kprobe, which this kernel refused.
        return Err(eopnotsupp());
    }
    let ut = resolve(st, task, engine)?;
    let target = ut.as_deref().map_or(Target::Global, Target::Task);
    // Engines with SYSCALL or signal events are counted (the syscall probes
    // are only registered, the signal kprobe only armed, while there is
    // one): count the new mask now, which may sleep to put the hooks in
    // (before the events take effect, so a signal sent once this returns
    // is seen), and uncount the old one once replaced.
    st.hooks_add(events)?;
    let old = target.locked(st, |_| {
        if engine.is_detached() {
            return Err(ESRCH);
        }
        let old = engine.events();
        if let Some(ut) = ut.as_deref() {
            let state = ut.state();
            let adds_exit = events & !old & events::EXIT_EVENTS != 0;
            if state & REAP_BEGUN != 0 {
                return Err(gone(ut.task(), state, "set_events (ESRCH)"));
            }
            // Past the exit hook, DEATH can no longer be queued; while it is
            // being reported, it can no longer be taken back.
            if adds_exit && state & EXIT_SEEN != 0
                || state & DEATH_BEGUN != 0 && old & !events & events::DEATH != 0
            {
                let _ = gone(ut.task(), state, "set_events (EALREADY)");
                return Err(ealready());
            }
        }
        engine.set_events(events);
        Ok(old)
    });
    st.hooks_sub(if let Ok(old) = old { old } else { events });
    let old = old?;
    if old & !events != 0 && engine.callback_in_flight() && !current_in_callback(st, engine) {
        return Err(einprogress());
    }
    Ok(())
}

/// `utrace_control()`.
pub(crate) fn control(st: &State, task: Option<&Task>, engine: &Engine, act: u32) -> Result {
    let ut = resolve(st, task, engine)?;
    match act {
        action::DETACH => {
            if engine.is_detached() {
                return Err(ESRCH);
            }
            if let Some(ut) = ut.as_deref() {
                if ut.state() & REAP_BEGUN != 0 {
                    return Err(ESRCH);
                }
                if ut.state() & DEATH_BEGUN != 0 {
                    return Err(ealready());
                }
            }
            let target = ut.as_deref().map_or(Target::Global, Target::Task);
            let in_flight = detach::detach(st, target, engine)?;
            if in_flight && !current_in_callback(st, engine) {
                return Err(einprogress());
            }
            Ok(())
        }
        action::STOP
        | action::INTERRUPT
        | action::REPORT
        | action::SINGLESTEP
        | action::BLOCKSTEP
        | action::RESUME => {
            // These act on a task; a global engine has none.
            let ut = ut.as_deref().ok_or(EINVAL)?;
            if engine.is_detached() || task::is_dead(ut.task()) || task::is_exiting(ut.task()) {
                return Err(ESRCH);
            }
            control_task(st, ut, engine, act)
        }
        _ => Err(EINVAL),
    }
}

/// STOP, INTERRUPT, REPORT, SINGLESTEP, BLOCKSTEP and RESUME on a live
/// task, with utrace's meaning: every one but STOP resumes this engine's
/// stop (others may still hold the task).
fn control_task(st: &State, ut: &UTask, engine: &Engine, act: u32) -> Result {
    match act {
        action::RESUME => {
            engine.set_stop(false);
            ut.release_stop();
            Ok(())
        }
        action::STOP => {
            engine.set_stop(true);
            if ut.stopped.load(core::sync::atomic::Ordering::SeqCst) {
                // A utrace_wait_stopped() of this engine's may sleep while
                // the task is held by another engine: it is ours now too.
                ut.wake_stop_waiters();
                return Ok(());
            }
            // It stops at its next safe point; the engine hears of it in
            // its QUIESCE report.
            ut.queue(&st.work, |inner| inner.pending.quiesce = true);
            Err(einprogress())
        }
        action::SINGLESTEP | action::BLOCKSTEP => {
            // As in utrace: a step is only robust with QUIESCE reports
            // (the engine learns there, or from the trap's SIGNAL report,
            // that the step was taken).
            if engine.events() & events::QUIESCE == 0 {
                return Err(EINVAL);
            }
            if act == action::BLOCKSTEP && !block_step_supported() {
                return Err(eopnotsupp());
            }
            engine.set_stop(false);
            ut.queue(&st.work, |inner| inner.pending.ask_resume(act));
            ut.release_stop();
            Ok(())
        }
        _ => {
            // REPORT promises a QUIESCE report, so it needs the event;
            // INTERRUPT does not (utrace makes it a signal report; see the
            // docs for what utrace-rs reports).
            if act == action::REPORT && engine.events() & events::QUIESCE == 0 {
                return Err(EINVAL);
            }
            engine.set_stop(false);
            ut.queue(&st.work, |inner| {
                inner.pending.quiesce = true;
                inner.pending.interrupt |= act == action::INTERRUPT;
                inner.pending.ask_resume(act);
            });
            ut.release_stop();
            Ok(())
        }
    }
}

/// Whether the CPUs take block steps (probed once, on first use).
fn block_step_supported() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
    // 0: not probed yet, 1: no, 2: yes.
    static SUPPORTED: AtomicU8 = AtomicU8::new(0);
    match SUPPORTED.load(Relaxed) {
        0 => {
            let yes = shim::step::block_supported();
            SUPPORTED.store(if yes { 2 } else { 1 }, Relaxed);
            yes
        }
        v => v == 2,
    }
}

/// `utrace_barrier()`.
pub(crate) fn barrier(st: &State, task: Option<&Task>, engine: &Engine) -> Result {
    // A callback cannot wait for itself. And a task cannot race itself: no
    // callback of its own can be in flight while it runs this, so for an
    // attached engine there is nothing to wait for; a detached one still
    // waits for the attached reference to go (an RCU grace period), so that
    // the caller's last put releases the engine.
    if current_in_callback(st, engine)
        || task.is_some_and(task::is_current) && !engine.is_detached()
    {
        return Ok(());
    }
    shim::sleepable("utrace_barrier")?;
    // Works on detached engines too, even after the task was reaped.
    match resolve(st, task, engine) {
        Err(e) if e != ESRCH => Err(e),
        _ => engine.barrier(),
    }
}

/// `utrace_wait_stopped()` flag: only a fatal signal ends the wait.
pub(crate) const WAIT_KILLABLE: u32 = 1;

/// `utrace_wait_stopped()`: waits until `task` sleeps in its utrace stop
/// with `engine`'s stop in force (`Ok`), or `engine` is detached or the task
/// exits (`ESRCH`), or a signal comes (`ERESTARTSYS`; with
/// [`WAIT_KILLABLE`] a fatal one only). The task wakes the waiters itself,
/// right before its first sleep in the stop and with preemption off until it
/// sleeps (`shim::stop::schedule_waking`), so on one CPU the waiter runs once
/// the task is asleep: one switch pair, as for a ptrace stop. When it returns
/// `Ok`, no callback to `engine` is in flight (the task is in its stop) and
/// the stop holds until this engine resumes it or detaches (or SIGKILL):
/// a RESUME needs no barrier.
pub(crate) fn wait_stopped(st: &State, task: Option<&Task>, engine: &Engine, flags: u32) -> Result {
    if flags & !WAIT_KILLABLE != 0 {
        return Err(EINVAL);
    }
    // A global engine has no task to stop.
    let task = task.ok_or(EINVAL)?;
    // A task cannot wait for itself to stop, nor a callback for its task.
    if task::is_current(task) || current_in_callback(st, engine) {
        return Err(crate::errno::edeadlk());
    }
    let ut = resolve(st, Some(task), engine)?.ok_or(EINVAL)?;
    let outcome = || {
        if engine.is_detached()
            || task::is_dead(task)
            || task::is_exiting(task)
            || ut.state() & (EXIT_SEEN | REAP_BEGUN) != 0
        {
            Some(Err(ESRCH))
        } else if ut.parked.load(core::sync::atomic::Ordering::SeqCst) && engine.wants_stop() {
            // Parked: no callback of the task's can be in flight, so the
            // stop this engine holds stays until it resumes it.
            Some(Ok(()))
        } else {
            None
        }
    };
    if let Some(done) = outcome() {
        return done;
    }
    shim::sleepable("utrace_wait_stopped")?;
    let state = if flags & WAIT_KILLABLE != 0 {
        // Not load (a debugger waiting for a blocked task is idle, as in
        // waitpid()); exempt from the hung-task check as any killable wait.
        kernel::bindings::TASK_WAKEKILL
            | kernel::bindings::TASK_UNINTERRUPTIBLE
            | kernel::bindings::TASK_NOLOAD
    } else {
        kernel::bindings::TASK_INTERRUPTIBLE
    };
    // Woken by the task's stop (`wait::wait_stopped`), its exit
    // (`hooks::utrace_rs_hook_exit`) and a detach (`detach::finish_detach`).
    let found = core::cell::Cell::new(None);
    crate::wait::wait_var(ut.stop_waiters(), state, || {
        let done = outcome();
        let ready = done.is_some();
        found.set(done);
        ready
    })?;
    found.take().unwrap_or(Ok(()))
}
