// SPDX-License-Identifier: GPL-2.0

//! The task's work: the events it found pending reported in the order they
//! happened (through the passes of `report_pass`, `report_syscall` and
//! `report_signal`), the engines' stop, the stepping as the task leaves for
//! user mode; and REAP, from a workqueue once the task is gone.

use crate::compat::ARef;
use crate::detach::{self, Target};
use crate::events::{self, action};
use crate::freezer;
use crate::report_pass::{report, report_quiesce, walk_task, Pass};
use crate::report_signal::report_signals;
use crate::report_signal::{report_handler, report_interrupt, report_jctl, report_jctl_hold};
use crate::report_syscall::{report_entry, report_exit_in_work};
use crate::shim;
use crate::state::State;
use crate::task;
use crate::utask::{Pending, UTask, WorkFns, DEATH_BEGUN, JCTL_CONT, JCTL_STOP};
use crate::utask::{JCTL_CONT_NOTIFY, JCTL_HOLD, JCTL_STOP_NOTIFY};
use crate::wait;
use core::sync::atomic::Ordering::{Relaxed, SeqCst};
use kernel::alloc::Flags;
use kernel::bindings;
use kernel::prelude::*;
use kernel::task::Task;

/// The stop: `current` sleeps (killable, not counted as load, freezable)
/// while an engine wants it stopped; returns whether it stopped. Only
/// SIGKILL ends it early. Meanwhile it counts as stopped for job control
/// (a SIGSTOP group stop of its process completes without it; see
/// `shim/stop.c`).
///
/// The look (no engine wants it stopped, every time but a stop's) is
/// inlined into the task's work; the stop is not, nor are the registers it
/// saves.
#[inline(always)]
pub(crate) fn maybe_stop(ut: &UTask) -> Stop {
    if task::is_exiting(ut.task()) || !ut.stop_wanted() {
        return Stop::No;
    }
    stop(ut)
}

/// [`maybe_stop`]'s stop.
#[inline(never)]
fn stop(ut: &UTask) -> Stop {
    ut.stopped.store(true, SeqCst);
    let mut ret = Stop::Stopped;
    // A session's reader a callback asked to wake at this stop: woken with
    // the stop's waiters at its first sleep (or below if it never sleeps).
    let mut reader = ut.take_stop_wake();
    loop {
        // Marks the task stopped for job control before it sleeps.
        let woken = wait::wait_stopped(
            (ut as *const UTask).cast(),
            &ut.parked,
            ut.stop_waiters(),
            &mut reader,
            || !ut.stop_wanted() || !shim::stop::marked() || ut.asked(),
        );
        match woken {
            wait::StopWake::Cond => {}
            wait::StopWake::Killed => {
                ret = Stop::Killed;
                break;
            }
            wait::StopWake::Freezer => {
                ret = Stop::Freezer;
                break;
            }
        }
        // SIGCONT cleared the mark (and woke us): mark again and go on
        // sleeping. A report asked for meanwhile (REPORT, INTERRUPT, a step
        // or another engine's STOP) is made first; the caller stops again
        // after it.
        if !ut.stop_wanted() || ut.asked() {
            break;
        }
    }
    shim::stop::unmark();
    ut.parked.store(false, SeqCst);
    ut.stopped.store(false, SeqCst);
    if let Some(reader) = reader {
        reader.wake();
    }
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
    /// The cgroup freezer wants the task: it leaves its work, to stop again
    /// once thawed (see `freezer.rs`).
    Freezer,
}

/// Reports what is pending, then what was asked for while that ran, stops
/// while an engine wants the task stopped (and reports what was asked for
/// meanwhile when it resumes), and finally sets the task stepping or not,
/// as utrace's finish_resume_report() did, as it leaves for user mode.
///
/// `pending` is the run's one buffer: what the work took, each report pass
/// empties it, and what is stolen later is moved into it (a `Pending` is
/// about 220 bytes, too big to pass around by value on this path).
fn run_work(st: &State, ut: &UTask, pending: &mut Pending) {
    // The resume action asked for since the task last stopped.
    let mut resume = action::RESUME;
    // Whether this run reported or stopped: a run that found nothing (the
    // work queued again behind a run that took its reports) leaves the
    // stepping as it is.
    let mut acted = false;
    // Signals pushed back (HOLD): reported again once the task resumed.
    let mut rehold = freezer::take_rehold(ut);
    // `pending` was just stolen from `ut` after a stop, with nothing
    // reported since.
    let mut fresh = false;
    loop {
        // A STOP, REPORT or step asked for while the reports ran queued the
        // work again, behind this run: report it now, before stopping.
        if !pending.is_empty() {
            acted = true;
            let ran = run_pending(st, ut, pending);
            if let Some(act) = ran.asked {
                resume = resume.min(act);
            }
            rehold |= ran.rehold;
            if ran.quiesce != action::STOP {
                resume = resume.min(ran.quiesce);
            }
            if ut.steal_pending(pending) {
                continue;
            }
        } else if !fresh && ut.steal_pending(pending) {
            continue;
        }
        fresh = false;
        if ut.asked() {
            // Asked between the two looks: report it before stopping.
            ut.steal_pending(pending);
            continue;
        }
        match maybe_stop(ut) {
            Stop::Stopped => acted = true,
            Stop::No => break,
            Stop::Killed => {
                // SIGKILL (or an exec in another thread) ends the task: the
                // signals it held (HOLD) are shown again, not lost with it.
                // A process-wide one is then taken by another thread, or
                // by the new image after an exec.
                ut.sig.release_mask(rehold);
                return;
            }
            Stop::Freezer => {
                // Stepping and held signals wait for the stop taken again.
                freezer::left(ut, rehold);
                return;
            }
        }
        // What was asked before the stop is stale; a resume from it may
        // have asked for a report or a step. A step asked for before the
        // stop, or under way as it came (another engine stopped the task
        // in a stepped syscall, or won a report with STOP), is asked
        // again: a QUIESCE report after the stop, in which an engine that
        // still steps says so (utrace: the last report decides). Only as
        // the task leaves its stops: a stop it is woken from only to stop
        // again (a report asked meanwhile, a detach) keeps its engines'
        // word, and its report would announce the stop again.
        let restep = (matches!(resume, action::SINGLESTEP | action::BLOCKSTEP)
            || ut.stepping.load(SeqCst))
            && !ut.stop_wanted();
        resume = action::RESUME;
        ut.steal_pending(pending);
        if restep {
            pending.quiesce = true;
        }
        fresh = true;
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
///
/// A step needs an engine that can take its trap (SIGNAL_CORE events for a
/// SIGTRAP at its default action, SIGNAL for one the program handles): a
/// step asked for by an engine that detached meanwhile (its module
/// unloaded while the report ran) would leave the trap to the kernel,
/// whose default action dumps core; without such an engine the task
/// resumes unstepped. The look at the events and the stepping's start are
/// made under the task's lock, under which a detach's
/// `UTask::update_events` looks at the stepping before it changes the
/// events: one of the two sees the other.
fn apply_resume(ut: &UTask, resume: u32) {
    if matches!(resume, action::SINGLESTEP | action::BLOCKSTEP) && !task::is_exiting(ut.task()) {
        // The class the trap will have: a handler's, else its default's
        // (the kernel un-ignores a forced SIGTRAP).
        let class = shim::signal::class_current(bindings::SIGTRAP as i32);
        let takes = match events::signal::event_of(class) {
            events::SIGNAL => events::SIGNAL,
            _ => events::SIGNAL_CORE,
        };
        let _guard = ut.inner.lock();
        if ut.events() & takes != 0 {
            shim::step::enable(resume == action::BLOCKSTEP);
            ut.stepping.store(true, SeqCst);
            return;
        }
    }
    if ut.stepping.swap(false, SeqCst) {
        shim::step::disable();
    }
}

/// The CLONE report of `parent`, made by `cur`: the parent itself, or its
/// vfork child on its behalf (the parent sleeps until the child execs or
/// exits). A STOP that wins stops the task that made the report in its own
/// work; for a vfork parent it must stop the parent, which runs its work
/// when it returns from vfork, before any user instruction: asked for here.
fn report_clone(st: &State, cur: &UTask, parent: &UTask, flags: u64, child: &Task, seq: u64) {
    let act = report(st, Some(cur), parent, events::CLONE, seq, |e, act| {
        e.call_clone(act, parent.task(), flags, child)
    });
    if act == action::STOP && !core::ptr::eq(cur, parent) {
        // RESUME: no report, only the look at the stop (and at stepping,
        // as after any stop).
        parent.queue(&st.work, |inner| inner.pending.ask_resume(action::RESUME));
    }
}

/// What a [`run_pending`] pass leaves its caller.
struct Ran {
    /// The resume action asked for with the events (by utrace_control() or
    /// a callback's return), if any.
    asked: Option<u32>,
    /// The winning action of the QUIESCE report at the safe point (RESUME
    /// if there was none).
    quiesce: u32,
    /// The signals held with `UTRACE_SIGNAL_HOLD`, to report again after
    /// the stop.
    rehold: u64,
}

/// `opt`'s value, taken. An empty one (most of [`Pending`]'s reports, on
/// every run) is only looked at: `Option::take` would copy it out and write
/// `None` back.
#[inline(always)]
fn take_some<T>(opt: &mut Option<T>) -> Option<T> {
    if opt.is_none() {
        return None;
    }
    opt.take()
}

/// Reports what the task's work found pending, in the order it happened,
/// and leaves `pending` empty: every field is named below, so a field added
/// to [`Pending`] must be handled here.
fn run_pending(st: &State, ut: &UTask, pending: &mut Pending) -> Ran {
    let Pending {
        clone,
        proxy_clone,
        exec,
        exit,
        signals,
        signal_seq,
        handler,
        jctl,
        quiesce,
        interrupt,
        syscall_entry,
        fork_return,
        resume,
    } = pending;
    // Only made the work run: `utask_work` restarts the skipped entry.
    *syscall_entry = false;
    let mut ran = Ran {
        asked: resume.take(),
        quiesce: action::RESUME,
        rehold: 0,
    };
    if let Some(proxy) = take_some(proxy_clone) {
        // CLONE_VFORK: the parent is asleep until we exec or exit.
        report_clone(st, ut, &proxy.parent_ut, proxy.flags, ut.task(), proxy.seq);
    }
    if core::mem::take(fork_return) {
        // Its engines are attached: the CLONE callbacks that attach them
        // are over (the gate, or the proxy report above).
        report_exit_in_work(st, ut);
    }
    if let Some(clone) = take_some(clone) {
        report_clone(st, ut, ut, clone.flags, &clone.child, clone.seq);
        // Dropping `clone` opens the child's gate.
    }
    if let Some(exec) = take_some(exec) {
        // The hook's copy ends with its NUL.
        let filename = exec
            .filename
            .as_deref()
            .and_then(|f| core::ffi::CStr::from_bytes_with_nul(f).ok());
        report(st, Some(ut), ut, events::EXEC, exec.seq, |e, act| {
            e.call_exec(act, filename, exec.old_pid)
        });
    }
    if let Some(handler) = take_some(handler) {
        report_handler(st, ut, handler);
    }
    let jctl = core::mem::take(jctl);
    if jctl & JCTL_CONT != 0 {
        let notify = jctl & JCTL_CONT_NOTIFY != 0;
        report_jctl(st, ut, bindings::CLD_CONTINUED as i32, notify);
    }
    let (signals, signal_seq) = (core::mem::take(signals), core::mem::take(signal_seq));
    if signals != 0 {
        ran.rehold = report_signals(st, ut, signals, signal_seq);
    }
    if jctl & JCTL_HOLD != 0 {
        report_jctl_hold(st, ut);
    }
    if jctl & JCTL_STOP != 0 {
        let notify = jctl & JCTL_STOP_NOTIFY != 0;
        report_jctl(st, ut, bindings::CLD_STOPPED as i32, notify);
    }
    if let Some(seq) = take_some(exit) {
        report_exit(st, ut, seq);
        report_death(st, ut, seq);
    }
    let interrupt = core::mem::take(interrupt);
    if core::mem::take(quiesce) {
        // INTERRUPT's report is a signal report (utrace's), REPORT's and a
        // STOP's a QUIESCE report.
        ran.quiesce = if interrupt {
            report_interrupt(st, ut)
        } else {
            report_quiesce(st, ut)
        };
    }
    ran
}

fn report_exit(st: &State, ut: &UTask, seq: u64) {
    // No engine wants it (a task watched for DEATH only): no pass. An
    // engine could only gain EXIT or QUIESCE now by a set_events() racing
    // with this report, which gets it or not as it would with the pass.
    if (ut.events() | st.global_events()) & (events::EXIT | events::QUIESCE) == 0 {
        return;
    }
    let orig = i64::from(task::exit_code(ut.task()));
    let mut code = orig;
    report(st, Some(ut), ut, events::EXIT, seq, |e, act| {
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
    report(st, Some(ut), ut, events::DEATH, seq, |e, _| {
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
    };
    walk_task(pass, ut, &mut |e, _| {
        // The `UTask` holds a reference on its task.
        st.reap_callback(e, || e.call_reap(ut.task()));
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
    let mut pending = Pending::default();
    ut.take_pending(&mut pending);
    // The signals held before this run are reported in it (see there).
    ut.take_incoming(&mut pending, st.seq_now());
    // A new child: its return from fork (its `sys_exit` probe left it to
    // us), after the CLONE reports.
    pending.fork_return = ut.entry_restart.take_fork_return();
    // A syscall entry skipped to be restarted: its registers are shown as
    // at entry until the restart, after the stop.
    let mut skipped = ut.entry_restart.begin();
    // Its exit trap, if utrace-rs steps the task, is not a step's end.
    let skipped_trap = skipped.is_some() && ut.stepping.load(SeqCst);
    if skipped_trap {
        ut.skipped_trap.store(true, Relaxed);
    }
    let (mut stopped, mut aborted) = (true, false);
    if let Some(sk) = skipped.as_mut().filter(|sk| sk.report) {
        // Its entry report, where callbacks may sleep.
        let (act, abort) = report_entry(st, ut, &mut sk.regs, sk.resumed);
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
    // Its reports, the stop, then the stepping as it leaves. A session's
    // reader a callback asked to wake at a stop that did not come is woken
    // once they are over.
    ut.in_work.store(true, SeqCst);
    run_work(st, ut, &mut pending);
    ut.in_work.store(false, SeqCst);
    if skipped_trap {
        ut.skipped_trap.store(false, Relaxed);
    }
    if let Some(reader) = ut.take_stop_wake() {
        reader.wake();
    }
    // Emptied by the reports; were anything left, it would drop here,
    // before the work ends (an engine module may unload after that).
    drop(pending);
    if let Some(sk) = skipped {
        let traced = || ut.events() & events::SYSCALL_ENTRY != 0;
        ut.entry_restart.finish(sk, stopped, false, traced);
    }
    st.work.end();
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
