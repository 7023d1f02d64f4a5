// SPDX-License-Identifier: GPL-2.0

//! Reporting passes: calling the engines that want an event, in attach order
//! (the task's own engines, then the global ones), each seeing the resume
//! action chosen by those before it.
//!
//! A pass takes no lock and touches no reference count: engines are found on
//! their RCU list and pinned one at a time for the callback.

use crate::compat::ARef;
use crate::detach::{self, Target};
use crate::engine::Pinned;
use crate::engine_list::EngineList;
use crate::events::{self, action, signal, Events};
use crate::shim::{self, InProbe, RcuGuard, SyscallRegs};
use crate::state::State;
use crate::sysentry::Entry;
use crate::task;
use crate::utask::{HandlerReport, Pending, UTask, WorkFns, DEATH_BEGUN, JCTL_CONT, JCTL_STOP};
use crate::wait;
use core::ptr;
use core::sync::atomic::Ordering::SeqCst;
use kernel::alloc::Flags;
use kernel::bindings;
use kernel::prelude::*;
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
    /// Reported inside the syscall probe (which is an RCU read side on
    /// 6.12), or `None` in process context.
    probe: Option<InProbe<'a>>,
}

/// Calls `call` for every engine on `target`'s `list` that `pass` reaches,
/// starting with resume action `act`; returns the action that won.
fn walk(
    pass: Pass<'_>,
    target: Target<'_>,
    list: &EngineList,
    mut act: u32,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    let Pass {
        st,
        cur,
        event,
        seq,
        probe,
    } = pass;
    let mut prev: Option<Pinned> = None;
    loop {
        let next = {
            let rcu = match probe {
                // Syscall events are reported inside the syscall probe.
                Some(probe) => RcuGuard::in_probe(probe),
                None => RcuGuard::new(),
            };
            let next = list.next_to_report(prev.as_deref(), seq, event, &rcu);
            // The previous engine's callback is over: unpin it.
            if let Some(prev) = prev.take() {
                prev.unpin_in(&rcu);
            }
            next
        };
        let Some(engine) = next else {
            return act;
        };
        if let Some(cur) = cur {
            cur.reporting.store(engine.as_ptr(), SeqCst);
        }
        let ret = call(&engine, act) & action::MASK;
        if let Some(cur) = cur {
            cur.reporting.store(ptr::null_mut(), SeqCst);
        }
        if ret == action::DETACH {
            // Already detached by a control() call is fine too.
            let _ = detach::detach(st, target, &engine);
        } else {
            // utrace: only STOP is sticky. An engine that returns anything
            // else no longer holds the task (a stop it asked for with
            // utrace_control(STOP) included).
            engine.keep_stop(ret == action::STOP);
            act = act.min(ret);
        }
        prev = Some(engine);
    }
}

/// [`walk`] over `ut`'s own engines, starting from RESUME.
fn walk_task(pass: Pass<'_>, ut: &UTask, call: &mut impl FnMut(&Pinned, u32) -> u32) -> u32 {
    walk(pass, Target::Task(ut), &ut.engines, action::RESUME, call)
}

/// A syscall event inside the syscall probe: [`walk`] cut down to what
/// such a pass needs, since it runs on every traced syscall. Only the
/// task's own engines (global ones cannot have SYSCALL events), no QUIESCE
/// report first, no sequence bound; `current` is `ut`'s task.
fn walk_in_probe(
    st: &State,
    ut: &UTask,
    event: Events,
    probe: InProbe<'_>,
    call: &mut impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    let mut act = action::RESUME;
    let mut prev: Option<Pinned> = None;
    loop {
        let next = {
            let rcu = RcuGuard::in_probe(probe);
            let next = ut
                .engines
                .next_to_report(prev.as_deref(), u64::MAX, event, &rcu);
            if let Some(prev) = prev.take() {
                prev.unpin_in(&rcu);
            }
            next
        };
        let Some(engine) = next else {
            return act;
        };
        ut.reporting.store(engine.as_ptr(), SeqCst);
        let ret = call(&engine, act) & action::MASK;
        ut.reporting.store(ptr::null_mut(), SeqCst);
        if ret == action::DETACH {
            // Already detached by a control() call is fine too.
            let _ = detach::detach(st, Target::Task(ut), &engine);
        } else {
            // utrace: only STOP is sticky (see `walk`).
            engine.keep_stop(ret == action::STOP);
            act = act.min(ret);
        }
        prev = Some(engine);
    }
}

/// One event: the engines of `owner` (the task the event belongs to), then
/// the global engines if the event is one they can have.
fn report(
    st: &State,
    cur: Option<&UTask>,
    owner: &UTask,
    event: Events,
    seq: u64,
    probe: Option<InProbe<'_>>,
    mut call: impl FnMut(&Pinned, u32) -> u32,
) -> u32 {
    if let Some(probe) = probe {
        // A syscall event, reported by `current` (`owner`) in the probe.
        return walk_in_probe(st, owner, event, probe, &mut call);
    }
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
        probe,
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
/// work stops the task after its reports.
fn ask_resume(st: &State, ut: &UTask, act: u32) {
    if act == action::STOP || act >= action::RESUME {
        return;
    }
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
fn report_quiesce(st: &State, ut: &UTask) -> u32 {
    let pass = Pass {
        st,
        cur: Some(ut),
        event: events::QUIESCE,
        seq: u64::MAX,
        probe: None,
    };
    walk_task(pass, ut, &mut |e, act| e.call_quiesce(act, 0))
}

/// SYSCALL_ENTRY / SYSCALL_EXIT, in the syscall tracepoint (atomic context
/// on 6.12, `current` is `ut`'s task). An entry callback may abort the
/// syscall, or stop the task before it runs (see `sysentry.rs`); a STOP at
/// exit takes effect when the task next returns to user mode.
pub(crate) fn report_syscall(st: &State, ut: &UTask, regs: &mut SyscallRegs, probe: InProbe<'_>) {
    if !regs.entry() {
        // The pass skipped for a restart is not reported.
        if ut.entry_restart.on_exit(regs) || ut.events() & events::SYSCALL_EXIT == 0 {
            return;
        }
        let act = report(
            st,
            Some(ut),
            ut,
            events::SYSCALL_EXIT,
            u64::MAX,
            Some(probe),
            |e, act| e.call_syscall(false, act, regs),
        );
        if act == action::STOP {
            // Taken at the next return to user mode (a STOP from
            // utrace_control() queued this already).
            ut.queue(&st.work, |inner| inner.pending.quiesce = true);
        } else {
            // A REPORT, INTERRUPT or step (the probe's walk does not ask).
            ask_resume(st, ut, act);
        }
        return;
    }
    let resumed = match ut.entry_restart.on_entry(regs) {
        // Reported from the task's work before it was restarted.
        Entry::Reported => return,
        Entry::Resumed => true,
        Entry::Fresh => false,
    };
    if ut.events() & events::SYSCALL_ENTRY == 0 {
        return;
    }
    if ut.sleepable_entry() {
        // Reported from the task's work, where callbacks may sleep.
        ut.entry_restart.skip(regs, true, resumed);
        ut.queue(&st.work, |inner| inner.pending.syscall_entry = true);
        return;
    }
    let (act, abort) = report_entry(st, ut, regs, resumed, Some(probe));
    if abort {
        regs.abort();
    } else if act == action::STOP {
        // Stop before it runs: skip it, restart it after the stop.
        ut.entry_restart.skip(regs, false, false);
    }
    if act == action::STOP {
        ut.queue(&st.work, |inner| {
            inner.pending.quiesce = true;
            inner.pending.syscall_entry |= !abort;
        });
    } else {
        // A REPORT, INTERRUPT or step (the probe's walk does not ask).
        ask_resume(st, ut, act);
    }
}

/// The SYSCALL_ENTRY pass (in the probe, or from the task's work with
/// `probe` `None`): the action that won, and whether a callback aborted it.
fn report_entry(
    st: &State,
    ut: &UTask,
    regs: &mut SyscallRegs,
    resumed: bool,
    probe: Option<InProbe<'_>>,
) -> (u32, bool) {
    let flags = if resumed { action::SYSCALL_RESUMED } else { 0 };
    let mut abort = false;
    let event = events::SYSCALL_ENTRY;
    let act = report(st, Some(ut), ut, event, u64::MAX, probe, |e, act| {
        let ret = e.call_syscall(true, act | flags, regs);
        abort |= ret & action::SYSCALL_ABORT != 0;
        ret
    });
    (act, abort)
}

/// Whether an engine of `ut` wants it stopped.
pub(crate) fn stop_wanted(ut: &UTask) -> bool {
    let rcu = RcuGuard::new();
    ut.engines
        .iter_rcu(&rcu)
        .any(|e| e.wants_stop() && !e.is_detached())
}

/// The stop: `current` sleeps (killable, not counted as load, freezable)
/// while an engine wants it stopped; returns whether it stopped. Only
/// SIGKILL ends it early. Meanwhile it counts as stopped for job control
/// (a SIGSTOP group stop of its process completes without it; see
/// `shim/stop.c`).
pub(crate) fn maybe_stop(ut: &UTask) -> Stop {
    if !stop_wanted(ut) || task::is_exiting(ut.task()) {
        return Stop::No;
    }
    ut.stopped.store(true, SeqCst);
    let mut ret = Stop::Stopped;
    loop {
        shim::stop::mark();
        let woken = wait::wait_stopped((ut as *const UTask).cast(), || {
            !stop_wanted(ut) || !shim::stop::marked() || ut.asked()
        });
        if woken.is_err() {
            ret = Stop::Killed;
            break;
        }
        // SIGCONT cleared the mark (and woke us): mark again and go on
        // sleeping. A report asked for meanwhile (REPORT, INTERRUPT, a step
        // or another engine's STOP) is made first; the caller stops again
        // after it.
        if !stop_wanted(ut) || ut.asked() {
            break;
        }
    }
    shim::stop::unmark();
    ut.stopped.store(false, SeqCst);
    ret
}

/// How [`maybe_stop`] went.
pub(crate) enum Stop {
    /// No engine wanted the task stopped.
    No,
    /// It was stopped and is resumed (or has a report to make).
    Stopped,
    /// SIGKILL ended the stop: no more reports or stops.
    Killed,
}

/// Reports what is pending, then what was asked for while that ran, stops
/// while an engine wants the task stopped (and reports what was asked for
/// meanwhile when it resumes), and finally sets the task stepping or not,
/// as utrace's finish_resume_report() did, as it leaves for user mode.
fn run_work(st: &State, ut: &UTask, mut pending: Pending) {
    // The resume action asked for since the task last stopped.
    let mut resume = action::RESUME;
    // Whether this run reported or stopped: a run that found nothing (the
    // work queued again behind a run that took its reports) leaves the
    // stepping as it is.
    let mut acted = false;
    // Signals pushed back (HOLD): reported again once the task resumed.
    let mut rehold = 0;
    loop {
        if !pending.is_empty() {
            acted = true;
            if let Some(act) = pending.resume {
                resume = resume.min(act);
            }
            let (act, held) = run_pending(st, ut, pending);
            rehold |= held;
            if act != action::STOP {
                resume = resume.min(act);
            }
        }
        // A STOP, REPORT or step asked for while the reports ran queued the
        // work again, behind this run: report it now, before stopping.
        pending = ut.steal_pending();
        if !pending.is_empty() {
            continue;
        }
        if ut.asked() {
            // Asked between the two looks: report it before stopping.
            pending = ut.steal_pending();
            continue;
        }
        match maybe_stop(ut) {
            Stop::Stopped => acted = true,
            Stop::No => break,
            Stop::Killed => return,
        }
        // What was asked before the stop is stale; a resume from it may
        // have asked for a report or a step.
        resume = action::RESUME;
        pending = ut.steal_pending();
    }
    if acted {
        apply_resume(ut, resume);
    }
    if rehold != 0 {
        ut.queue_signals(&st.work, rehold, 0);
    }
}

/// Steps the task (SINGLESTEP, BLOCKSTEP) or stops stepping it if
/// utrace-rs had set it stepping. `current` is `ut`'s task.
fn apply_resume(ut: &UTask, resume: u32) {
    match resume {
        action::SINGLESTEP | action::BLOCKSTEP if !task::is_exiting(ut.task()) => {
            let ours = shim::step::enable(resume == action::BLOCKSTEP);
            ut.stepping.store(ours, SeqCst);
        }
        _ => {
            if ut.stepping.swap(false, SeqCst) {
                shim::step::disable();
            }
        }
    }
}

fn report_clone(st: &State, cur: &UTask, parent: &UTask, flags: u64, child: &Task, seq: u64) {
    report(st, Some(cur), parent, events::CLONE, seq, None, |e, act| {
        e.call_clone(act, parent.task(), flags, child)
    });
}

/// Reports what the task's work found pending, in the order it happened.
/// Returns the winning action of the QUIESCE report at the safe point
/// (RESUME if there was none), and the signals held with
/// `UTRACE_SIGNAL_HOLD`, to report again after the stop.
pub(crate) fn run_pending(st: &State, ut: &UTask, pending: Pending) -> (u32, u64) {
    let mut rehold = 0;
    if let Some(proxy) = pending.proxy_clone {
        // CLONE_VFORK: the parent is asleep until we exec or exit.
        report_clone(st, ut, &proxy.parent_ut, proxy.flags, ut.task(), proxy.seq);
    }
    if let Some(clone) = pending.clone {
        report_clone(st, ut, ut, clone.flags, &clone.child, clone.seq);
        // Dropping `clone` opens the child's gate.
    }
    if let Some(exec) = pending.exec {
        // The hook's copy ends with its NUL.
        let filename = exec
            .filename
            .as_deref()
            .and_then(|f| core::ffi::CStr::from_bytes_with_nul(f).ok());
        report(st, Some(ut), ut, events::EXEC, exec.seq, None, |e, act| {
            e.call_exec(act, filename, exec.old_pid)
        });
    }
    if let Some(handler) = pending.handler {
        report_handler(st, ut, handler);
    }
    if pending.jctl & JCTL_CONT != 0 {
        report_jctl(st, ut, bindings::CLD_CONTINUED as i32);
    }
    if pending.signals != 0 {
        rehold = report_signals(st, ut, pending.signals, pending.signal_seq);
    }
    if pending.jctl & JCTL_STOP != 0 {
        report_jctl(st, ut, bindings::CLD_STOPPED as i32);
    }
    if let Some(seq) = pending.exit {
        report_exit(st, ut, seq);
        report_death(st, ut, seq);
    }
    if pending.quiesce {
        return (report_quiesce(st, ut), rehold);
    }
    (action::RESUME, rehold)
}

/// SIGNAL_*: each held signal goes to the engines that want its class,
/// with its siginfo and dispositions; then their decision is carried out.
/// Returns the signals pushed back with HOLD.
fn report_signals(st: &State, ut: &UTask, signals: u64, seq: u64) -> u64 {
    let mut rehold = 0;
    for sig in 1..=64 {
        let bit = 1u64 << (sig - 1);
        if signals & bit == 0 {
            continue;
        }
        if ut.cancelled.fetch_and(!bit, SeqCst) & bit != 0 {
            // A stop signal that SIGCONT cancelled while it was held.
            release(ut, sig, true);
            continue;
        }
        let mut info = bindings::kernel_siginfo::default();
        let mut orig_ka = bindings::k_sigaction::default();
        let Some(class) = shim::signal::peek(sig, ut.hidden(bit), &mut info, &mut orig_ka) else {
            // Dying: SIGKILL flushed the queues.
            release(ut, sig, false);
            continue;
        };
        let orig_info = info;
        let mut return_ka = orig_ka;
        let regs = shim::user_regs();
        // The signal action (and flags) the last engine left.
        let mut result = class;
        let mut told = false;
        let act = report(
            st,
            Some(ut),
            ut,
            signal::event_of(class),
            seq,
            None,
            |e, act| {
                let ret = e.call_signal(
                    act | result,
                    regs,
                    &mut info,
                    Some((&orig_ka, &mut return_ka)),
                );
                result = ret & !action::MASK;
                told = true;
                if result & signal::SUSPEND != 0 {
                    // The stop of a suspended signal is the group stop,
                    // ended by SIGCONT, not a utrace stop.
                    return (ret & !action::MASK) | action::RESUME;
                }
                ret
            },
        );
        let _ = act;
        if result & signal::SUSPEND != 0 && ut.held.load(SeqCst) & bit != 0 {
            ut.suspended.fetch_or(bit, SeqCst);
            ut.injecting.store(true, SeqCst);
            shim::signal::stop_self();
            ut.injecting.store(false, SeqCst);
            continue;
        }
        if result & signal::HOLD != 0 {
            rehold |= bit;
            continue;
        }
        let handler_sig = finish_signal(
            st,
            ut,
            sig,
            result & signal::MASK,
            &mut info,
            &orig_info,
            &orig_ka,
            &return_ka,
        );
        if let Some(hsig) = handler_sig.filter(|_| told) {
            ut.handler_wanted.fetch_or(1u64 << (hsig - 1), SeqCst);
        }
        release(ut, sig, false);
    }
    rehold
}

/// Queues a JCTL report (`what`) in every thread of `task`'s group that has
/// an engine with JCTL events.
///
/// # Safety
///
/// `task` is valid; its siglock is held if `locked`, else `task` is
/// `current` and the siglock is not held.
pub(crate) unsafe fn jctl_group(
    st: &State,
    task: *mut bindings::task_struct,
    what: u32,
    locked: bool,
) {
    let rcu = crate::shim::RcuGuard::new();
    // SAFETY: By the function's safety requirements; the closure does not
    // sleep.
    unsafe {
        shim::signal::for_each_thread(task, locked, |t| {
            if let Some(ut) = st.table.lookup(t, &rcu) {
                if ut.events() & events::JCTL != 0 {
                    ut.queue_signals(&st.work, 0, what);
                }
            }
        })
    };
}

/// JCTL reports for a stop of `current`'s process that utrace-rs decided.
///
/// # Safety
///
/// `ut`'s task is `current`, and its siglock is not held.
unsafe fn jctl_stop_current(st: &State, ut: &UTask) {
    // SAFETY: By the function's safety requirements.
    unsafe { jctl_group(st, ut.task_ptr(), JCTL_STOP, false) };
}

/// No longer holds `sig` for `ut` (`current`): shows it again, or
/// (`discard`) takes it out of the queues.
fn release(ut: &UTask, sig: i32, discard: bool) {
    let bit = 1u64 << (sig - 1);
    let (private, shared) = ut.unhold(bit);
    if private | shared != 0 {
        let at = shim::signal::Hidden {
            private: private != 0,
            shared: shared != 0,
        };
        shim::signal::release(sig, at, discard);
    }
}

/// Carries out signal action `sa` on `current`'s queued `sig` (still
/// blocked): `info` is what the engines left of `orig_info`, `return_ka`
/// of `orig_ka`. Returns the signal a handler will run for, if one will.
#[allow(clippy::too_many_arguments)]
fn finish_signal(
    st: &State,
    ut: &UTask,
    sig: i32,
    mut sa: u32,
    info: &mut bindings::kernel_siginfo,
    orig_info: &bindings::kernel_siginfo,
    orig_ka: &bindings::k_sigaction,
    return_ka: &bindings::k_sigaction,
) -> Option<i32> {
    use shim::signal::Handler;
    let new_sig = info.__bindgen_anon_1.si_signo;
    let new_sig = if (0..=64).contains(&new_sig) {
        new_sig
    } else {
        sig
    };
    let ka_kind = shim::signal::ka_kind(return_ka);
    if sa == signal::DELIVER && ka_kind != shim::signal::ka_kind(orig_ka) {
        // The engines changed the disposition for this delivery.
        sa = match ka_kind {
            Handler::Ignore => signal::IGN,
            Handler::Default if new_sig != 0 => shim::signal::default_class(new_sig),
            _ => signal::DELIVER,
        };
    }
    let changed = info_bytes(info) != info_bytes(orig_info);
    let at = ut.hidden(1u64 << (sig - 1));
    match sa {
        signal::DELIVER => {
            if new_sig == 0 {
                release(ut, sig, true);
            } else if new_sig != sig {
                release(ut, sig, true);
                send_self(ut, new_sig, Some(info));
            } else if changed {
                shim::signal::rewrite(sig, at, info);
            }
            if new_sig == 0 {
                return None;
            }
            // SAFETY: `ut`'s task is `current`.
            let class = unsafe { shim::signal::class(task::current(), new_sig) };
            if class == signal::STOP || class == signal::TSTP {
                // SAFETY: `ut`'s task is `current`; no siglock is held.
                unsafe { jctl_stop_current(st, ut) };
            }
            (class == signal::DELIVER).then_some(new_sig)
        }
        signal::TERM | signal::CORE | signal::STOP | signal::TSTP => {
            let target = if new_sig == 0 { sig } else { new_sig };
            let natural = shim::signal::default_class(target) == sa;
            let rep = if natural {
                target
            } else {
                match sa {
                    signal::TERM => bindings::SIGTERM as i32,
                    signal::CORE => bindings::SIGQUIT as i32,
                    signal::STOP => bindings::SIGSTOP as i32,
                    _ => bindings::SIGTSTP as i32,
                }
            };
            // SAFETY: `ut`'s task is `current`.
            let rep_class = unsafe { shim::signal::class(task::current(), rep) };
            let rep = if sa == signal::TSTP && rep_class != signal::TSTP {
                // The process handles or ignores SIGTSTP: stop as SIGSTOP.
                bindings::SIGSTOP as i32
            } else {
                rep
            };
            if (sa == signal::TERM || sa == signal::CORE) && rep_class != sa {
                // The process dies of it: its disposition no longer matters.
                shim::signal::set_default_action(rep);
            }
            if rep == sig {
                if changed {
                    shim::signal::rewrite(sig, at, info);
                }
            } else {
                release(ut, sig, true);
                send_self(ut, rep, Some(info));
            }
            if sa == signal::STOP || sa == signal::TSTP {
                // SAFETY: `ut`'s task is `current`; no siglock is held.
                unsafe { jctl_stop_current(st, ut) };
            }
            None
        }
        // IGN, and values that mean nothing here (REPORT, HANDLER).
        _ => {
            release(ut, sig, true);
            None
        }
    }
}

/// The bytes of a siginfo, to see whether an engine changed it.
fn info_bytes(info: &bindings::kernel_siginfo) -> &[u8] {
    // SAFETY: A plain C struct: any byte pattern may be read, and the
    // slice borrows `info`.
    unsafe {
        core::slice::from_raw_parts(
            (info as *const bindings::kernel_siginfo).cast::<u8>(),
            core::mem::size_of::<bindings::kernel_siginfo>(),
        )
    }
}

/// Sends `sig` to `current` (`ut`'s task) without the signal probes taking
/// it for a new signal to report.
fn send_self(ut: &UTask, sig: i32, info: Option<&mut bindings::kernel_siginfo>) {
    ut.injecting.store(true, SeqCst);
    shim::signal::send_self(sig, info);
    ut.injecting.store(false, SeqCst);
}

/// HANDLER: a handler frame was set up for a signal SIGNAL engines were
/// told of; the handler runs next.
fn report_handler(st: &State, ut: &UTask, handler: HandlerReport) {
    let mut info = handler.info;
    let regs = shim::user_regs();
    report(
        st,
        Some(ut),
        ut,
        events::SIGNAL,
        handler.seq,
        None,
        |e, act| {
            let ret = e.call_signal(act | signal::HANDLER, regs, &mut info, None);
            (ret & action::MASK) | signal::HANDLER
        },
    );
}

/// JCTL: the process is about to stop (`CLD_STOPPED`) or was continued.
fn report_jctl(st: &State, ut: &UTask, type_: i32) {
    report(st, Some(ut), ut, events::JCTL, u64::MAX, None, |e, act| {
        e.call_jctl(act, type_, 0)
    });
}

fn report_exit(st: &State, ut: &UTask, seq: u64) {
    let orig = i64::from(task::exit_code(ut.task()));
    let mut code = orig;
    report(st, Some(ut), ut, events::EXIT, seq, None, |e, act| {
        e.call_exit(act, orig, &mut code)
    });
    if code != orig {
        // The exit code is an int in the kernel; engines are told so.
        // `ut`'s task is `current`, in its EXIT report.
        shim::set_current_exit_code(code as i32, ut.group_dead());
    }
}

fn report_death(st: &State, ut: &UTask, seq: u64) {
    ut.set_state(DEATH_BEGUN);
    let group_dead = ut.group_dead();
    let signal = task::exit_signal(ut.task());
    report(st, Some(ut), ut, events::DEATH, seq, None, |e, _| {
        e.call_death(group_dead, signal)
    });
}

/// REAP: the last callback to each of the task's engines, then they are all
/// detached. Runs from a workqueue after the task is gone.
pub(crate) fn reap(st: &State, ut: &UTask) {
    let pass = Pass {
        st,
        cur: None,
        event: events::REAP,
        seq: u64::MAX,
        probe: None,
    };
    walk_task(pass, ut, &mut |e, _| {
        // The `UTask` holds a reference on its task.
        e.call_reap(ut.task());
        action::RESUME
    });
    while detach::detach_where(st, Target::Task(ut), &|_| true) {}
}

/// The functions a `UTask`'s work items run (see [`new_utask`]).
static WORK_FNS: WorkFns = WorkFns {
    work: utask_work,
    kick: utask_kick,
    signal: utask_sig_work,
};

/// A new `UTask` for `task` whose work items report through this module.
pub(crate) fn new_utask(task: &Task, gfp: Flags) -> Result<ARef<UTask>> {
    UTask::create(task, gfp, &WORK_FNS)
}

/// The task's own work: reports pending events in its context.
///
/// # Safety
///
/// Called by `task_work_run()` with the `work` field of a live `UTask`.
unsafe extern "C" fn utask_work(head: *mut bindings::callback_head) {
    // SAFETY: `head` is the `work` field of a live `UTask` (see
    // `UTask::queue`).
    let ut = unsafe { UTask::from_work(head) };
    let Some(st) = crate::state::get() else {
        return;
    };
    let mut pending = ut.take_pending();
    ut.wait_gate();
    // A syscall entry skipped to be restarted: its registers are shown as
    // at entry until the restart, after the stop.
    let mut skipped = ut.entry_restart.begin();
    let (mut stopped, mut aborted) = (true, false);
    if let Some(sk) = skipped.as_mut().filter(|sk| sk.report) {
        // Its entry report, where callbacks may sleep.
        let (act, abort) = report_entry(st, ut, &mut sk.regs, sk.resumed, None);
        (stopped, aborted) = (act == action::STOP, abort);
        pending.quiesce |= stopped;
    }
    if aborted {
        if let Some(sk) = skipped.take() {
            // Not run: it returns what the registers hold, and its exit is
            // reported here, as the probe reports an aborted one's.
            ut.entry_restart.finish(sk, false, true, || true);
            report_exit_in_work(st, ut);
        }
    }
    // Its reports, the stop, then the stepping as it leaves.
    run_work(st, ut, pending);
    if let Some(sk) = skipped {
        let traced = || ut.events() & events::SYSCALL_ENTRY != 0;
        ut.entry_restart.finish(sk, stopped, false, traced);
    }
    st.work.end();
}

/// SYSCALL_EXIT of a syscall whose entry, reported from the task's work,
/// aborted it.
fn report_exit_in_work(st: &State, ut: &UTask) {
    if ut.events() & events::SYSCALL_EXIT == 0 {
        return;
    }
    // SAFETY: `current`'s user registers at the end of its syscall, in its
    // task work, for this function's duration.
    let mut regs = unsafe { SyscallRegs::new(shim::user_regs(), false) };
    let act = report(
        st,
        Some(ut),
        ut,
        events::SYSCALL_EXIT,
        u64::MAX,
        None,
        |e, act| e.call_syscall(false, act, &mut regs),
    );
    if act == action::STOP {
        ut.queue(&st.work, |inner| inner.pending.quiesce = true);
    }
}

/// The kick: nothing to do but having made the task run its task_work.
///
/// # Safety
///
/// Called by `task_work_run()` with the `kick` field of a live `UTask`.
unsafe extern "C" fn utask_kick(head: *mut bindings::callback_head) {
    // SAFETY: `head` is the `kick` field of a live `UTask` (see `kick`).
    let ut = unsafe { UTask::from_kick(head) };
    ut.kick_done();
    if let Some(st) = crate::state::get() {
        st.work.end();
    }
}

/// Reaps the engines of every task on the state's reap queue (the work
/// item `State::queue_reap` queues; the state's own, so it outlives it).
///
/// # Safety
///
/// Called by the workqueue.
pub(crate) unsafe extern "C" fn reap_queued(_work: *mut bindings::work_struct) {
    let Some(st) = crate::state::get() else {
        return;
    };
    st.reaps.drain(|ut| {
        reap(st, ut);
        drop(st.table.remove(ut));
        st.work.end();
    });
}

/// What the signal probes recorded (see [`UTask::queue_signals`]).
///
/// # Safety
///
/// Called by `task_work_run()` with the `sig_work` field of a live `UTask`.
unsafe extern "C" fn utask_sig_work(head: *mut bindings::callback_head) {
    // SAFETY: `head` is the `sig_work` field of a live `UTask`.
    let ut = unsafe { UTask::from_sig_work(head) };
    let Some(st) = crate::state::get() else {
        return;
    };
    ut.signals_arrived(&st.work, st.seq_now());
    st.work.end();
}
