// SPDX-License-Identifier: GPL-2.0

//! The signal reporting passes (SIGNAL_*, the HANDLER report, the INTERRUPT
//! report, JCTL), made from the task's work, and carrying out the engines'
//! decision on each signal.

use crate::events::{self, action, signal};
use crate::report_pass::{report, walk_task, Pass};
use crate::shim::{
    self,
    signal::{with_siglock, SigLocked},
};
use crate::sighold::{self, Look};
use crate::state::State;
use crate::task;
use crate::utask::{
    HandlerReport, UTask, JCTL_CONT_NOTIFY, JCTL_HOLD, JCTL_STOP, JCTL_STOP_NOTIFY,
};
use core::sync::atomic::Ordering::{Relaxed, SeqCst};
use kernel::bindings;

/// SIGNAL_*: each held signal goes to the engines that want its class,
/// with its siginfo and dispositions; then their decision is carried out.
/// Each queued instance of a realtime signal is reported and decided on
/// its own ([`report_instance`]). Returns the signals pushed back with
/// HOLD.
pub(crate) fn report_signals(st: &State, ut: &UTask, signals: u64, seq: u64) -> u64 {
    let mut rehold = 0;
    for sig in 1..=64 {
        let bit = 1u64 << (sig - 1);
        if signals & bit == 0 {
            continue;
        }
        match with_siglock(ut.task(), |lk| ut.sig.look(lk, bit)) {
            Some(Look::Held) => {}
            Some(Look::Cancelled) => {
                ut.sig.release(sig, true);
                continue;
            }
            Some(Look::Gone) | None => continue,
        }
        // The instance to report next: a realtime signal's instances that
        // are let through stay queued (hidden) in order before it.
        let (mut nth, mut first) = (0, true);
        loop {
            let now = report_instance(st, ut, sig, nth, first, seq);
            first = false;
            match now {
                Instance::Kept => nth += 1,
                Instance::Dropped => {}
                Instance::Held => {
                    rehold |= bit;
                    break;
                }
                Instance::Done => break,
                Instance::NoMore => {
                    // Every instance was decided: the kept ones are shown
                    // together (the pending set has one bit a signal); if
                    // none was kept, none is left to show.
                    ut.sig.release(sig, nth == 0);
                    break;
                }
            }
        }
    }
    rehold
}

/// What [`report_instance`] did with one instance of a held signal.
enum Instance {
    /// A realtime instance delivered as it is queued (its siginfo maybe
    /// rewritten): left queued, hidden, until every instance is decided.
    Kept,
    /// A realtime instance ignored, or replaced by another signal: taken
    /// out of the queue; the next instance, if any, took its place.
    Dropped,
    /// Pushed back (HOLD): reported again after the resume action.
    Held,
    /// The signal was decided as a whole and is no longer held.
    Done,
    /// No realtime instance is left to report.
    NoMore,
}

/// Reports instance `nth` (counted from 0 in the order `get_signal()`
/// dequeues them: the task's own set first; `first`: the signal's first
/// look, which reports it even if no instance is queued, as a signal the
/// kernel could queue no siginfo for is pending without one) of the held
/// `sig` and carries
/// out the engines' decision. A non-realtime signal is pending once, so it
/// is always instance 0 and decided as a whole; so is a realtime signal
/// whose decision is not about one instance (HOLD, SUSPEND, a kill or a
/// stop).
fn report_instance(st: &State, ut: &UTask, sig: i32, nth: u32, first: bool, seq: u64) -> Instance {
    let bit = 1u64 << (sig - 1);
    let rt = sig >= bindings::SIGRTMIN as i32;
    let at = ut.sig.hidden(bit);
    if !first && shim::signal::count(sig, at) <= nth {
        return Instance::NoMore;
    }
    let mut info = bindings::kernel_siginfo::default();
    let mut orig_ka = bindings::k_sigaction::default();
    let Some(class) = shim::signal::peek(sig, at, nth, &mut info, &mut orig_ka) else {
        // Dying: SIGKILL flushed the queues.
        ut.sig.release(sig, false);
        return Instance::Done;
    };
    let orig_info = info;
    let mut return_ka = orig_ka;
    let regs = shim::user_regs();
    // The signal action (and flags) the last engine left.
    let mut result = class;
    let mut told = false;
    // The trap of a step utrace-rs made: told to the engines, so that one
    // that did not ask for the step leaves it alone. (Only the task itself
    // changes its stepping, after its reports: it holds for this one.)
    let ours = if ut.stepping.load(SeqCst) && is_step_trap(&info) {
        signal::STEP
    } else {
        0
    };
    if ours != 0
        && info.__bindgen_anon_1.si_code == bindings::TRAP_BRKPT as i32
        && ut.skipped_trap.swap(false, Relaxed)
    {
        // The exit trap of a syscall skipped to be restarted (a stop
        // before it) while utrace-rs steps the task: the restart is the
        // stepped syscall, and traps again at its exit.
        ut.sig.release(sig, true);
        return Instance::Done;
    }
    report(st, Some(ut), ut, signal::event_of(class), seq, |e, act| {
        let ret = e.call_signal(
            act | result | ours,
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
    });
    if !told && ours != 0 {
        // The trap of a step whose engine detached after the trap came
        // (the look at the stepping that the detach queued runs after this
        // report): utrace-rs set the trap flag, so the trap is its own,
        // never the program's, and goes with no engine left to take it.
        ut.sig.release(sig, true);
        return Instance::Done;
    }
    if result & signal::SUSPEND != 0
        && with_siglock(ut.task(), |lk| ut.sig.suspend(lk, bit)) == Some(true)
    {
        ut.sig.inject(shim::signal::stop_self);
        return Instance::Done;
    }
    if result & signal::HOLD != 0 {
        return Instance::Held;
    }
    let sa = result & signal::MASK;
    if rt && shim::signal::ka_kind(&return_ka) == shim::signal::ka_kind(&orig_ka) {
        let new_sig = info.__bindgen_anon_1.si_signo;
        match sa {
            signal::DELIVER if new_sig == sig => {
                if info_bytes(&info) != info_bytes(&orig_info) {
                    shim::signal::rewrite(sig, at, nth, &info);
                }
                if told && class == signal::DELIVER {
                    ut.sig.want_handler(bit);
                }
                return Instance::Kept;
            }
            signal::DELIVER if (1..=64).contains(&new_sig) => {
                shim::signal::discard(sig, at, nth);
                send_self(ut, new_sig, Some(&mut info));
                return Instance::Dropped;
            }
            signal::DELIVER | signal::IGN => {
                shim::signal::discard(sig, at, nth);
                return Instance::Dropped;
            }
            _ => {}
        }
    }
    let handler_sig = finish_signal(st, ut, sig, sa, &mut info, &orig_info, &orig_ka, &return_ka);
    if let Some(hsig) = handler_sig.filter(|_| told) {
        ut.sig.want_handler(sighold::bit(hsig));
    }
    ut.sig.release(sig, false);
    Instance::Done
}

/// Whether `info` is a single step's trap: the SIGTRAP the kernel sends
/// for the trap flag (`TRAP_TRACE`; `TRAP_BRKPT` after a stepped syscall).
fn is_step_trap(info: &bindings::kernel_siginfo) -> bool {
    let i = &info.__bindgen_anon_1;
    i.si_signo == bindings::SIGTRAP as i32
        && (i.si_code == bindings::TRAP_TRACE as i32 || i.si_code == bindings::TRAP_BRKPT as i32)
}

/// Queues a JCTL report (`what`) in every thread of `lk`'s task's group
/// that has an engine with JCTL events. One of them, the task if it gets
/// one, else the first other live one, is the one the parent's notification
/// is charged to (`notify`): utrace gave it to the last thread to stop,
/// which is not known yet when utrace-rs reports (before the stop). With
/// `own`, the task's report is not queued but stored there (0 if it gets
/// none), for the caller to make.
pub(crate) fn jctl_group(st: &State, lk: &SigLocked<'_>, what: u32, mut own: Option<&mut u32>) {
    let rcu = crate::shim::RcuGuard::new();
    let task = lk.raw();
    let mut notified = jctl_thread(st, lk, &rcu).map(|_| task);
    if let Some(own) = own.as_deref_mut() {
        *own = 0;
    }
    lk.for_each_thread(|t| {
        if let Some(ut) = st.table.lookup(t.raw(), &rcu) {
            if ut.events() & events::JCTL != 0 {
                if notified.is_none() && jctl_thread(st, t, &rcu).is_some() {
                    notified = Some(t.raw());
                }
                let notify = match what {
                    _ if notified != Some(t.raw()) => 0,
                    JCTL_STOP => JCTL_STOP_NOTIFY,
                    _ => JCTL_CONT_NOTIFY,
                };
                match own.as_deref_mut() {
                    Some(own) if t.raw() == task => *own = what | notify,
                    _ => ut.queue_signals(&st.work, 0, what | notify),
                }
            }
        }
    });
}

/// The state of `t`'s task if it is live and has an engine with JCTL
/// events.
fn jctl_thread<'a>(
    st: &'a State,
    t: &SigLocked<'_>,
    rcu: &'a crate::shim::RcuGuard,
) -> Option<&'a UTask> {
    let live = !task::is_exiting(t.task());
    st.table
        .lookup(t.raw(), rcu)
        .filter(|ut| live && ut.events() & events::JCTL != 0)
}

/// The `signal_generate` probe: stop signal `sig` was queued for `lk`'s
/// task (on the group's set if `shared`) and no engine holds it. The kernel
/// woke a thread for it (`complete_signal()` sets TIF_SIGPENDING before the
/// probe runs), which may be in get_signal() already, past the task_work a
/// JCTL report would be made in: it would dequeue the signal and stop, its
/// report made only after SIGCONT. So one thread with a JCTL engine (the
/// task if it has one, else, for a signal sent to the process, the first
/// other live one) hides the signal (as a held one) until its work made its
/// own JCTL report and queued the others' ([`report_jctl_hold`]): every
/// thread then has its report queued before the group stop is started and
/// makes it before it stops. Returns false if no thread holds it (none
/// may: a ptraced or exiting one, a thread in a utrace stop, which counts
/// as stopped already; nor need: a stop signal utrace-rs sends to `current`
/// from its work); the caller then queues the reports.
pub(crate) fn hold_for_jctl(st: &State, lk: &SigLocked<'_>, sig: i32, shared: bool) -> bool {
    let rcu = crate::shim::RcuGuard::new();
    let task = lk.raw();
    if task == task::current()
        && st
            .table
            .lookup(task, &rcu)
            .is_some_and(|ut| ut.sig.injecting())
    {
        // utrace-rs's own stop signal, sent by the task's work to itself:
        // it dequeues it only once its work is done, and the work queues
        // the JCTL reports itself (`jctl_stop_current`) or has them queued
        // now.
        return false;
    }
    let mut holder = jctl_thread(st, lk, &rcu).map(|ut| (ut, lk.holdable(sig, false)));
    if holder.is_none() && shared {
        lk.for_each_thread(|t| {
            if holder.is_none() {
                holder = jctl_thread(st, t, &rcu).map(|ut| (ut, t.holdable(sig, false)));
            }
        });
    }
    match holder {
        Some((ut, holdable)) if holdable && !ut.stopped.load(SeqCst) => {
            if ut.sig.hide_for_jctl(lk, sig, shared) {
                ut.queue_signals(&st.work, 0, JCTL_HOLD);
            }
            true
        }
        _ => false,
    }
}

/// The work of a thread that hides stop signals for JCTL
/// ([`hold_for_jctl`]): queues every other thread's JCTL report of the
/// stop, makes its own, then shows the signals again (the group stop
/// follows). Those a SIGCONT cancelled meanwhile are left to
/// [`report_signals`], which discards them.
pub(crate) fn report_jctl_hold(st: &State, ut: &UTask) {
    let mut own = 0;
    let bits = with_siglock(ut.task(), |lk| {
        let bits = ut.sig.take_jctl_held(lk);
        if bits != 0 {
            jctl_group(st, lk, JCTL_STOP, Some(&mut own));
        }
        bits
    })
    .unwrap_or(0);
    if bits == 0 {
        return;
    }
    if own & JCTL_STOP != 0 {
        report_jctl(
            st,
            ut,
            bindings::CLD_STOPPED as i32,
            own & JCTL_STOP_NOTIFY != 0,
        );
    }
    ut.sig.release_mask(bits);
}

/// JCTL reports for a stop of `current`'s (`ut`'s task's) process that
/// utrace-rs decided. No siglock may be held.
fn jctl_stop_current(st: &State, ut: &UTask) {
    let _ = with_siglock(ut.task(), |lk| jctl_group(st, lk, JCTL_STOP, None));
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
    let at = ut.sig.hidden(sighold::bit(sig));
    match sa {
        signal::DELIVER => {
            if new_sig == 0 {
                ut.sig.release(sig, true);
            } else if new_sig != sig {
                ut.sig.release(sig, true);
                send_self(ut, new_sig, Some(info));
            } else if changed {
                shim::signal::rewrite(sig, at, 0, info);
            }
            if new_sig == 0 {
                return None;
            }
            let class = shim::signal::class_current(new_sig);
            if class == signal::STOP || class == signal::TSTP {
                jctl_stop_current(st, ut);
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
            let rep_class = shim::signal::class_current(rep);
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
                    shim::signal::rewrite(sig, at, 0, info);
                }
            } else {
                ut.sig.release(sig, true);
                send_self(ut, rep, Some(info));
            }
            if sa == signal::STOP || sa == signal::TSTP {
                jctl_stop_current(st, ut);
            }
            None
        }
        // IGN, and values that mean nothing here (REPORT, HANDLER).
        _ => {
            ut.sig.release(sig, true);
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
    ut.sig.inject(|| shim::signal::send_self(sig, info));
}

/// HANDLER: a handler frame was set up for a signal SIGNAL engines were
/// told of; the handler runs next.
pub(crate) fn report_handler(st: &State, ut: &UTask, handler: HandlerReport) {
    let mut info = handler.info;
    let regs = shim::user_regs();
    report(st, Some(ut), ut, events::SIGNAL, handler.seq, |e, act| {
        let ret = e.call_signal(act | signal::HANDLER, regs, &mut info, None);
        (ret & action::MASK) | signal::HANDLER
    });
}

/// JCTL: the process is about to stop (`CLD_STOPPED`) or was continued;
/// `notify`: the parent's notification is charged to this thread.
pub(crate) fn report_jctl(st: &State, ut: &UTask, type_: i32, notify: bool) {
    let notify = if notify { type_ } else { 0 };
    report(st, Some(ut), ut, events::JCTL, u64::MAX, |e, act| {
        e.call_jctl(act, type_, notify)
    });
}

/// INTERRUPT: the report at the return-to-user safe point that
/// utrace_control(INTERRUPT) or a callback's INTERRUPT asked for, on the
/// signal path (the task's work was queued with `TWA_SIGNAL`, which took it
/// out of an interruptible sleep) and before the kernel dequeues the
/// pending signals (those held for SIGNAL engines were reported already), as
/// utrace's utrace_get_signal() made it: to each engine with QUIESCE
/// events, `report_signal` with `UTRACE_SIGNAL_REPORT` and no signal (a
/// zeroed siginfo, no dispositions), or `report_quiesce` with event 0 if it
/// has no `report_signal`. Each engine sees the signal action the one
/// before it left; the last one's is carried out ([`finish_interrupt`]).
/// REPORT or INTERRUPT returned here count as RESUME (utrace: no report
/// loop). Returns the winning resume action.
pub(crate) fn report_interrupt(st: &State, ut: &UTask) -> u32 {
    let pass = Pass {
        st,
        cur: Some(ut),
        event: events::QUIESCE,
        seq: u64::MAX,
    };
    let mut info = bindings::kernel_siginfo::default();
    let regs = shim::user_regs();
    let mut result = signal::REPORT;
    let act = walk_task(pass, ut, &mut |e, act| {
        let ret = if e.has_report_signal() {
            let ret = e.call_signal(act | result, regs, &mut info, None);
            result = ret & signal::MASK;
            ret
        } else {
            e.call_quiesce(act, 0)
        };
        match ret & action::MASK {
            action::INTERRUPT | action::REPORT => (ret & !action::MASK) | action::RESUME,
            _ => ret,
        }
    });
    finish_interrupt(st, ut, result, &mut info);
    act
}

/// Carries out the signal action `sa` an INTERRUPT report ended with: an
/// artificial signal. DELIVER sends the signal the engines put in `info`
/// (none if its number is 0); TERM, CORE, STOP and TSTP do what a default
/// SIGTERM, SIGQUIT, SIGSTOP and SIGTSTP would (as `finish_signal` does for
/// a signal an engine turned into one of them); IGN and REPORT do nothing.
/// The signal is sent as utrace-rs's own (no SIGNAL report of it).
fn finish_interrupt(st: &State, ut: &UTask, sa: u32, info: &mut bindings::kernel_siginfo) {
    let (sig, info) = match sa {
        signal::DELIVER => {
            let sig = info.__bindgen_anon_1.si_signo;
            if !(1..=64).contains(&sig) {
                return;
            }
            (sig, Some(info))
        }
        signal::TERM | signal::CORE => {
            let sig = if sa == signal::TERM {
                bindings::SIGTERM
            } else {
                bindings::SIGQUIT
            } as i32;
            if shim::signal::class_current(sig) != sa {
                // The process dies of it: its disposition no longer matters.
                shim::signal::set_default_action(sig);
            }
            (sig, None)
        }
        signal::STOP => (bindings::SIGSTOP as i32, None),
        signal::TSTP => {
            let tstp = bindings::SIGTSTP as i32;
            if shim::signal::class_current(tstp) == signal::TSTP {
                (tstp, None)
            } else {
                // The process handles or ignores SIGTSTP: stop as SIGSTOP.
                (bindings::SIGSTOP as i32, None)
            }
        }
        _ => return,
    };
    send_self(ut, sig, info);
    let class = shim::signal::class_current(sig);
    if class == signal::STOP || class == signal::TSTP {
        jctl_stop_current(st, ut);
    }
}
