// SPDX-License-Identifier: GPL-2.0

//! A reporting pass: calling the engines that want an event, in attach
//! order (the task's own engines, then the global ones), each seeing the
//! resume action chosen by those before it. The passes of each kind of
//! event are built on it: `report_syscall`, `report_signal`, and `report`
//! (the task's work, which makes them in order).
//!
//! A pass takes no lock and touches no reference count: engines are found on
//! their RCU list and pinned one at a time for the callback.

use crate::detach::{self, Target};
use crate::engine::Pinned;
use crate::engine_list::EngineList;
use crate::events::{self, action, Events};
use crate::shim::RcuGuard;
use crate::state::State;
use crate::utask::UTask;
use core::borrow::Borrow;
use core::ptr;
use core::sync::atomic::Ordering::Relaxed;

/// One event being reported.
#[derive(Clone, Copy)]
pub(crate) struct Pass<'a> {
    pub(crate) st: &'a State,
    /// The `UTask` of the task running the callbacks (`None` for REAP, which
    /// runs in a workqueue).
    pub(crate) cur: Option<&'a UTask>,
    /// Engines that want any of these are called.
    pub(crate) event: Events,
    /// Engines attached after this sequence number do not get the event.
    pub(crate) seq: u64,
}

/// Calls `call` for every engine on `target`'s `list` that `pass` reaches,
/// starting with resume action `act` (RESUME or below); returns the action
/// that won. `rcu` gives the read-side section in which the walk finds each
/// next engine (and unpins the one it called before): a new one each time,
/// or (`one_section`) one the caller holds for the whole walk.
///
/// Each engine's turn: `cur` marks it as the engine being reported to for
/// the callback; a DETACH detaches it (which ends its stop); otherwise its
/// stop is kept only if it returned STOP (utrace: only STOP is sticky. An
/// engine that returns anything else no longer holds the task, a stop it
/// asked for with utrace_control(STOP) included: its unpin drops it), and
/// the lowest action wins.
///
/// Inlined into both walks, so that the syscall probe's walk
/// ([`walk_in_probe`]) keeps its constants folded.
#[inline(always)]
fn walk_with<G: Borrow<RcuGuard>>(
    pass: Pass<'_>,
    target: Target<'_>,
    list: &EngineList,
    mut act: u32,
    one_section: bool,
    rcu: impl Fn() -> G,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    let Pass {
        st,
        cur,
        event,
        seq,
    } = pass;
    // (An empty list is told before: [`walk`] does not call the walk for
    // it, and in `one_section` the first look is the same load.)
    let first = {
        let guard = rcu();
        list.next_to_report(None, seq, event, one_section, guard.borrow())
    };
    let Some(mut engine) = first else {
        return act;
    };
    loop {
        // The mark is read only by the task that set it (`State::reporting`,
        // from its callbacks): program order is all it needs, and a
        // relaxed store is one plain move.
        if let Some(cur) = cur {
            cur.reporting.store(engine.as_ptr(), Relaxed);
        }
        let ret = call(&engine, act);
        if let Some(cur) = cur {
            cur.reporting.store(ptr::null_mut(), Relaxed);
        }
        // RESUME with no flag bits, the usual answer, is told by one
        // compare; it does not lower `act` (every pass starts from RESUME,
        // so `act` is RESUME or below), and ends any stop the engine held,
        // which the unpin does (a constant there).
        // The section of the next look is taken first (in process context
        // a DETACH answer's detach, which does not sleep, runs inside it):
        // so the compiler lays the RESUME path out with no test of the
        // next engine but the look's own (measured, `make bench-profile`).
        let guard = rcu();
        let rcu = guard.borrow();
        let next = if ret == action::RESUME {
            step(list, engine, seq, event, one_section, rcu, true)
        } else {
            let stop = answered(st, target, &engine, ret, &mut act);
            step(list, engine, seq, event, one_section, rcu, !stop)
        };
        match next {
            Some(next) => engine = next,
            None => return act,
        }
    }
}

/// An answer but a plain RESUME: a DETACH detaches the engine, a STOP
/// keeps its stop (returns `true`), and the lowest action wins.
#[inline(always)]
fn answered(st: &State, target: Target<'_>, engine: &Pinned, ret: u32, act: &mut u32) -> bool {
    let ret = ret & action::MASK;
    if ret == action::DETACH {
        // Already detached by a control() call is fine too.
        let _ = detach::detach(st, target, engine);
        return false;
    }
    // RESUME with flags (or above) is taken as RESUME.
    if ret < action::RESUME {
        *act = (*act).min(ret);
        if ret == action::STOP {
            engine.set_stop(true);
            return true;
        }
    }
    false
}

/// The end of an engine's turn: its unpin (ending its stop with
/// `drop_stop`) and the next engine to report to. Inside one section
/// the engine is unpinned first (the section keeps it readable, so its
/// `next` can be followed: `Pinned::unpin_in`), so that nothing of it
/// stays live across the search; otherwise the pin keeps it while the
/// search takes a section of its own, and it is unpinned after.
#[inline(always)]
fn step(
    list: &EngineList,
    engine: Pinned,
    seq: u64,
    event: Events,
    one_section: bool,
    rcu: &RcuGuard,
    drop_stop: bool,
) -> Option<Pinned> {
    if one_section {
        let prev = engine.unpin_in(rcu, drop_stop);
        list.next_to_report(Some(prev), seq, event, true, rcu)
    } else {
        let next = list.next_to_report(Some(&*engine), seq, event, false, rcu);
        engine.unpin_in(rcu, drop_stop);
        next
    }
}

/// [`walk_with`] in process context (each look is an RCU read-side section
/// of its own). An empty list (the task's own, for a task seen only by
/// global engines) is told here, inlined into the caller: the walk itself
/// is not inlined (one copy per kind of event is enough), and its call,
/// stack frame and saved registers cost more than the look.
#[inline(always)]
pub(crate) fn walk(
    pass: Pass<'_>,
    target: Target<'_>,
    list: &EngineList,
    act: u32,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    if list.is_empty() {
        return act;
    }
    walk_list(pass, target, list, act, call)
}

/// [`walk`]'s walk of a list that was not empty.
#[inline(never)]
fn walk_list(
    pass: Pass<'_>,
    target: Target<'_>,
    list: &EngineList,
    act: u32,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    walk_with(pass, target, list, act, false, RcuGuard::new, call)
}

/// [`walk`] over `ut`'s own engines, starting from RESUME.
pub(crate) fn walk_task(
    pass: Pass<'_>,
    ut: &UTask,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    walk(pass, Target::Task(ut), &ut.engines, action::RESUME, call)
}

/// A syscall event inside the syscall probe: [`walk_with`] cut down to
/// what such a pass needs, since it runs on every traced syscall. Only the
/// task's own engines (global ones cannot have SYSCALL events), no QUIESCE
/// report first, no sequence bound; `current` is `ut`'s task. The whole
/// walk runs in `rcu`, the probe's read-side section, which the syscall
/// hook holds for the whole report (`ut` is borrowed from it): free, the
/// probe running with preemption off on every kernel. The winning
/// action is the caller's to act on ([`ask_resume`] included).
#[inline(always)]
pub(crate) fn walk_in_probe(
    st: &State,
    ut: &UTask,
    event: Events,
    rcu: &RcuGuard,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    let pass = Pass {
        st,
        cur: Some(ut),
        event,
        seq: u64::MAX,
    };
    walk_with(
        pass,
        Target::Task(ut),
        &ut.engines,
        action::RESUME,
        true,
        || rcu,
        call,
    )
}

/// One event, in process context: the engines of `owner` (the task the
/// event belongs to), then the global engines if the event is one they
/// can have. A REPORT, INTERRUPT or step that won is asked of the task's
/// work ([`ask_resume`]); a STOP is left to the caller.
pub(crate) fn report(
    st: &State,
    cur: Option<&UTask>,
    owner: &UTask,
    event: Events,
    seq: u64,
    mut call: impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    // Before each event (but REAP and the syscall events, which are
    // reported in atomic context where QUIESCE callbacks may not run)
    // engines with QUIESCE get report_quiesce with that event, then the
    // event's own callback if they want it.
    let quiesce = if event & (events::REAP | events::SYSCALL) != 0 {
        0
    } else {
        events::QUIESCE
    };
    let mut call = |e: &Pinned, act: u32| {
        let mut ret = act;
        if e.events() & quiesce != 0 {
            ret = e.call_quiesce(act, event);
            if ret & action::MASK == action::DETACH {
                return ret;
            }
        }
        if e.events() & event != 0 {
            ret = call(e, act);
        }
        ret
    };
    let pass = Pass {
        st,
        cur,
        event: event | quiesce,
        seq,
    };
    let mut act = walk_task(pass, owner, &mut call);
    if event & events::GLOBAL_EVENTS != 0 {
        act = walk(pass, Target::Global, &st.global, act, &mut call);
    }
    if cur.is_some() && event & events::EXIT_EVENTS == 0 {
        ask_resume(st, owner, act);
    }
    act
}

/// What a reporting pass's winning action asks of the task once it leaves
/// its work (utrace's finish_report()): REPORT and INTERRUPT a QUIESCE
/// report at that point (INTERRUPT soon, even from a blocked syscall),
/// SINGLESTEP and BLOCKSTEP a step. STOP is the engines' own stop; the
/// work stops the task after its reports. Inlined down to the check of
/// `act` (a pass in the syscall probe usually ends with RESUME).
#[inline(always)]
pub(crate) fn ask_resume(st: &State, ut: &UTask, act: u32) {
    if act == action::STOP || act >= action::RESUME {
        return;
    }
    queue_resume(st, ut, act);
}

/// [`ask_resume`]'s queuing, out of line.
#[inline(never)]
fn queue_resume(st: &State, ut: &UTask, act: u32) {
    ut.queue(&st.work, |inner| {
        inner.pending.ask_resume(act);
        if act <= action::REPORT {
            inner.pending.quiesce = true;
            inner.pending.interrupt |= act == action::INTERRUPT;
        }
    });
}

/// The QUIESCE report at the return-to-user safe point (event 0), asked for
/// by utrace_control(REPORT, INTERRUPT or STOP) or a callback's REPORT or
/// INTERRUPT. Returns the winning action: the last word on how the task
/// resumes (REPORT and INTERRUPT from this pass ask for no further report).
pub(crate) fn report_quiesce(st: &State, ut: &UTask) -> u32 {
    let pass = Pass {
        st,
        cur: Some(ut),
        event: events::QUIESCE,
        seq: u64::MAX,
    };
    walk_task(pass, ut, &mut |e, act| e.call_quiesce(act, 0))
}
