// SPDX-License-Identifier: GPL-2.0

//! Reporting passes: calling the engines that want an event, in attach order
//! (the task's own engines, then the global ones), each seeing the resume
//! action chosen by those before it.
//!
//! A pass takes no lock and touches no reference count: engines are found on
//! their RCU list and pinned one at a time for the callback.

use crate::control::{self, Target};
use crate::engine::Engine;
use crate::engine_list::EngineList;
use crate::events::{self, action, Events};
use crate::shim::{self, RcuGuard};
use crate::state::State;
use crate::task;
use crate::utask::{Pending, UTask, DEATH_BEGUN};
use crate::wait;
use core::ptr;
use core::sync::atomic::Ordering::SeqCst;
use kernel::bindings;
use kernel::task::Task;

/// One event being reported.
#[derive(Clone, Copy)]
struct Pass<'a> {
    st: &'a State,
    /// The `UTask` of the task running the callbacks (`None` for REAP, which
    /// runs in a workqueue).
    cur: Option<&'a UTask>,
    /// Engines that want any of these are called.
    event: Events,
    /// Engines attached after this sequence number do not get the event.
    seq: u64,
}

/// Calls `call` for every engine on `target`'s `list` that `pass` reaches,
/// starting with resume action `act`; returns the action that won.
fn walk(
    pass: Pass<'_>,
    target: Target<'_>,
    list: &EngineList,
    mut act: u32,
    call: &mut impl FnMut(&Engine, u32) -> u32,
) -> u32 {
    let Pass {
        st,
        cur,
        event,
        seq,
    } = pass;
    let mut prev: Option<*mut Engine> = None;
    loop {
        let next = {
            let rcu = if event & events::SYSCALL != 0 {
                // SAFETY: Syscall events are reported inside the syscall
                // tracepoint probe, with preemption disabled throughout.
                unsafe { RcuGuard::preempt_disabled() }
            } else {
                RcuGuard::new()
            };
            // SAFETY: `prev` is still pinned by `enter`.
            let prev = prev.map(|p| unsafe { Engine::from_raw(p) });
            list.next_to_report(prev, seq, event, &rcu)
        };
        if let Some(p) = prev.take() {
            // SAFETY: Pinned by the previous round; not used afterwards.
            unsafe { Engine::leave(p) };
        }
        let Some(e) = next else {
            return act;
        };
        // SAFETY: Pinned by `next_to_report` until `leave`.
        let engine = unsafe { Engine::from_raw(e) };
        if let Some(cur) = cur {
            cur.reporting.store(e, SeqCst);
        }
        let ret = call(engine, act) & action::MASK;
        if let Some(cur) = cur {
            cur.reporting.store(ptr::null_mut(), SeqCst);
        }
        if ret == action::DETACH {
            // Already detached by a control() call is fine too.
            let _ = control::detach(st, target, engine);
        } else {
            if ret == action::STOP {
                // Sticky until utrace_control(RESUME or DETACH).
                engine.set_stop(true);
            }
            act = act.min(ret);
        }
        prev = Some(e);
    }
}

/// [`walk`] over `ut`'s own engines, starting from RESUME.
fn walk_task(pass: Pass<'_>, ut: &UTask, call: &mut impl FnMut(&Engine, u32) -> u32) -> u32 {
    walk(pass, Target::Task(ut), &ut.engines, action::RESUME, call)
}

/// One event: the engines of `owner` (the task the event belongs to), then
/// the global engines if the event is one they can have.
fn report(
    st: &State,
    cur: Option<&UTask>,
    owner: &UTask,
    event: Events,
    seq: u64,
    mut call: impl FnMut(&Engine, u32) -> u32,
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
    let mut call = |e: &Engine, act: u32| {
        let mut ret = act;
        if e.events() & quiesce != 0 {
            ret = call_quiesce(e, act, event);
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
    let act = walk_task(pass, owner, &mut call);
    if event & events::GLOBAL_EVENTS == 0 {
        return act;
    }
    walk(pass, Target::Global, &st.global, act, &mut call)
}

fn call_quiesce(e: &Engine, act: u32, event: Events) -> u32 {
    match e.ops().report_quiesce {
        // SAFETY: The engine's callback.
        Some(f) => unsafe { f(act, e.as_ptr(), event) },
        None => action::RESUME,
    }
}

/// The QUIESCE report at the return-to-user safe point (event 0), asked for
/// by utrace_control(REPORT, INTERRUPT or STOP).
fn report_quiesce(st: &State, ut: &UTask) {
    let pass = Pass {
        st,
        cur: Some(ut),
        event: events::QUIESCE,
        seq: u64::MAX,
    };
    walk_task(pass, ut, &mut |e, act| call_quiesce(e, act, 0));
}

/// SYSCALL_ENTRY / SYSCALL_EXIT, in the syscall tracepoint (atomic context,
/// `current` is `ut`'s task). An entry callback may abort the syscall; a
/// STOP takes effect when the task next returns to user mode.
pub(crate) fn report_syscall(st: &State, ut: &UTask, event: Events, regs: *mut bindings::pt_regs) {
    let entry = event == events::SYSCALL_ENTRY;
    let mut abort = false;
    let act = report(st, Some(ut), ut, event, u64::MAX, |e, act| {
        let f = if entry {
            e.ops().report_syscall_entry
        } else {
            e.ops().report_syscall_exit
        };
        let ret = match f {
            // SAFETY: The engine's callback, with the registers of the
            // syscall of `current`.
            Some(f) => unsafe { f(act, e.as_ptr(), regs) },
            None => action::RESUME,
        };
        abort |= entry && ret & action::SYSCALL_ABORT != 0;
        ret
    });
    if abort {
        // SAFETY: `regs` are those of the syscall being entered.
        unsafe { shim::syscall_abort(regs) };
    }
    if act == action::STOP {
        // A callback asked for a stop: take it at the next return to user
        // mode (a STOP from utrace_control() queued this already).
        ut.queue(st, |inner| inner.pending.quiesce = true);
    }
}

/// Whether an engine of `ut` wants it stopped.
pub(crate) fn stop_wanted(ut: &UTask) -> bool {
    let _rcu = RcuGuard::new();
    // SAFETY: `_rcu` is a read-side section.
    unsafe { ut.engines.iter() }.any(|e| e.wants_stop() && !e.is_detached())
}

/// The stop: `current` sleeps (killable, not counted as load) while an
/// engine wants it stopped. Only SIGKILL ends it early.
pub(crate) fn maybe_stop(ut: &UTask) {
    if !stop_wanted(ut) || task::is_exiting(ut.task()) {
        return;
    }
    ut.stopped.store(true, SeqCst);
    let _ = wait::wait_killable_idle((ut as *const UTask).cast(), || !stop_wanted(ut));
    ut.stopped.store(false, SeqCst);
}

fn report_clone(st: &State, cur: &UTask, parent: &UTask, flags: u64, child: &Task, seq: u64) {
    let child = task::raw(child);
    let parent_task = parent.task_ptr();
    report(st, Some(cur), parent, events::CLONE, seq, |e, act| {
        match e.ops().report_clone {
            // SAFETY: The engine module's callback, with the engine pinned and
            // `parent` and `child` live tasks we hold references on.
            Some(f) => unsafe { f(act, e.as_ptr(), parent_task, flags, child) },
            None => action::RESUME,
        }
    });
}

/// Reports what the task's work found pending, in the order it happened.
pub(crate) fn run_pending(st: &State, ut: &UTask, pending: Pending) {
    if let Some(proxy) = pending.proxy_clone {
        // CLONE_VFORK: the parent is asleep until we exec or exit.
        report_clone(st, ut, &proxy.parent_ut, proxy.flags, ut.task(), proxy.seq);
    }
    if let Some(clone) = pending.clone {
        report_clone(st, ut, ut, clone.flags, &clone.child, clone.seq);
        // Dropping `clone` opens the child's gate.
    }
    if let Some(exec) = pending.exec {
        let filename = exec.filename.as_ref().map_or(ptr::null(), |f| f.as_ptr());
        report(st, Some(ut), ut, events::EXEC, exec.seq, |e, act| {
            match e.ops().report_exec {
                // SAFETY: The engine's callback; `filename` is null or a
                // NUL-terminated copy alive for the whole pass.
                Some(f) => unsafe { f(act, e.as_ptr(), filename, exec.old_pid) },
                None => action::RESUME,
            }
        });
    }
    if pending.signals != 0 {
        report_signals(
            st,
            ut,
            pending.signals,
            pending.core_signals,
            pending.signal_seq,
        );
    }
    if let Some(seq) = pending.exit {
        report_exit(st, ut, seq);
        report_death(st, ut, seq);
    }
    if pending.quiesce {
        report_quiesce(st, ut);
    }
}

/// SIGNAL and SIGNAL_CORE: each held signal goes to the engines; if one of
/// them holds it, the task stops in a group stop with the signal still
/// blocked and queued; if one ignores it, it is discarded; else it is
/// released at once and delivered as usual.
fn report_signals(st: &State, ut: &UTask, signals: u64, core_signals: u64, seq: u64) {
    // SAFETY: `ut`'s task is `current`, whose group leader is valid.
    let leader = unsafe { (*ut.task_ptr()).group_leader };
    let Some(lut) = st.table.get(leader) else {
        return;
    };
    for sig in 1..=64 {
        let bit = 1u64 << (sig - 1);
        if signals & bit == 0 {
            continue;
        }
        let mut hold = false;
        let mut ignore = false;
        let event = if core_signals & bit != 0 {
            events::SIGNAL | events::SIGNAL_CORE
        } else {
            events::SIGNAL
        };
        report(st, Some(ut), ut, event, seq, |e, act| {
            let ret = match e.ops().report_signal {
                // SAFETY: The engine's callback.
                Some(f) => unsafe { f(act, e.as_ptr(), sig) },
                None => action::RESUME,
            };
            ignore |= ret & action::SIGNAL_ACTION_MASK == action::SIGNAL_IGN;
            if ret & action::SIGNAL_HOLD != 0 {
                hold = true;
                // The stop of a held signal is the group stop below, ended
                // by SIGCONT, not a utrace stop waiting for RESUME.
                return action::RESUME;
            }
            ret
        });
        if hold && lut.held.load(SeqCst) & bit != 0 {
            shim::signal::stop_self();
            continue;
        }
        if ignore {
            shim::signal::discard(sig);
        }
        if lut.held.fetch_and(!bit, SeqCst) & bit != 0 {
            // SAFETY: `ut`'s task is `current`.
            unsafe { shim::signal::unblock(ut.task_ptr(), bit, false) };
        }
    }
}

fn report_exit(st: &State, ut: &UTask, seq: u64) {
    let orig = i64::from(task::exit_code(ut.task()));
    let mut code = orig;
    report(st, Some(ut), ut, events::EXIT, seq, |e, act| {
        match e.ops().report_exit {
            // SAFETY: The engine's callback; `code` outlives it.
            Some(f) => unsafe { f(act, e.as_ptr(), orig, &mut code) },
            None => action::RESUME,
        }
    });
    if code != orig {
        // The exit code is an int in the kernel; engines are told so.
        // SAFETY: `ut`'s task is `current`, in its EXIT report.
        unsafe { shim::set_exit_code(ut.task_ptr(), code as i32) };
    }
}

fn report_death(st: &State, ut: &UTask, seq: u64) {
    ut.set_state(DEATH_BEGUN);
    let group_dead = task::group_dead(ut.task());
    let signal = task::exit_signal(ut.task());
    report(st, Some(ut), ut, events::DEATH, seq, |e, _| {
        match e.ops().report_death {
            // SAFETY: The engine's callback.
            Some(f) => unsafe { f(e.as_ptr(), group_dead, signal) },
            None => action::RESUME,
        }
    });
}

/// REAP: the last callback to each of the task's engines, then they are all
/// detached. Runs from a workqueue after the task is gone.
pub(crate) fn reap(st: &State, ut: &UTask) {
    let task = ut.task_ptr();
    let pass = Pass {
        st,
        cur: None,
        event: events::REAP,
        seq: u64::MAX,
    };
    walk_task(pass, ut, &mut |e, _| {
        if let Some(f) = e.ops().report_reap {
            // SAFETY: The engine's callback; the `UTask` holds a reference
            // on `task`.
            unsafe { f(e.as_ptr(), task) };
        }
        action::RESUME
    });
    while control::detach_where(st, Target::Task(ut), &|_| true) {}
}
