// SPDX-License-Identifier: GPL-2.0

//! The syscall reporting passes: SYSCALL_ENTRY and SYSCALL_EXIT, made in
//! the syscall tracepoint (atomic context: the probe disables preemption
//! on every kernel) or, for an entry whose
//! callbacks may sleep, from the task's work (see `sysentry.rs`).

use crate::engine::Pinned;
use crate::events::{self, action};
use crate::report_pass::{ask_resume, report, walk_in_probe};
use crate::shim::{self, RcuGuard, SyscallRegs};
use crate::state::State;
use crate::sysentry::Entry;
use crate::utask::UTask;

/// SYSCALL_ENTRY / SYSCALL_EXIT, in the syscall tracepoint (atomic context,
/// `current` is `ut`'s task). An entry callback may abort the
/// syscall, or stop the task before it runs (see `sysentry.rs`); a STOP at
/// exit takes effect when the task next returns to user mode. `probe` is
/// the probe's read-side section, held for the whole report (`ut` is
/// borrowed from it).
///
/// Inlined into the hook: the usual syscall (no entry skipped or
/// restarted, every callback answering RESUME) is a load and a test around
/// each pass; the rest is out of line.
#[inline(always)]
pub(crate) fn report_syscall(st: &State, ut: &UTask, regs: SyscallRegs, probe: &RcuGuard) {
    if !ut.entry_restart.idle() {
        report_restarted(st, ut, regs, probe);
    } else if regs.entry() {
        entry_in_probe(st, ut, regs, false, probe);
    } else {
        exit_in_probe(st, ut, regs, probe);
    }
}

/// [`report_syscall`] while the entry-restart record holds something: a
/// skipped entry's exit, its restart, or a new child's return from fork.
#[cold]
#[inline(never)]
fn report_restarted(st: &State, ut: &UTask, mut regs: SyscallRegs, probe: &RcuGuard) {
    if !regs.entry() {
        // The pass skipped for a restart is not reported.
        if !ut.entry_restart.on_exit(&mut regs) {
            exit_in_probe(st, ut, regs, probe);
        }
        return;
    }
    let resumed = match ut.entry_restart.on_entry(&regs) {
        // Reported from the task's work before it was restarted.
        Entry::Reported => return,
        Entry::Resumed => true,
        Entry::Fresh => false,
    };
    entry_in_probe(st, ut, regs, resumed, probe);
}

/// The SYSCALL_ENTRY pass in the probe, `resumed` after a stop before it
/// (`UTRACE_SYSCALL_RESUMED`), or its hand-over to the task's work if an
/// entry callback may sleep.
#[inline(always)]
fn entry_in_probe(st: &State, ut: &UTask, mut regs: SyscallRegs, resumed: bool, probe: &RcuGuard) {
    if ut.events() & events::SYSCALL_ENTRY == 0 {
        return;
    }
    if ut.sleepable_entry() {
        // Reported from the task's work, where callbacks may sleep.
        ut.entry_restart.skip(&mut regs, true, resumed);
        ut.queue(&st.work, |inner| inner.pending.syscall_entry = true);
        return;
    }
    let mut answers = 0;
    let act = {
        let mut call = entry_call(&mut regs, resumed, &mut answers);
        walk_in_probe(st, ut, events::SYSCALL_ENTRY, probe, &mut call)
    };
    // Every callback answered RESUME, with no flag bit: nothing to do.
    if act != action::RESUME || answers != 0 {
        entry_answered(st, ut, regs, act, answers);
    }
}

/// The entry callback's call: `UTRACE_SYSCALL_RESUMED` added to the action
/// it is shown if `resumed`, and the flag bits of any answer but a plain
/// RESUME or'ed into `answers` (one of them may be
/// `UTRACE_SYSCALL_ABORT`).
#[inline(always)]
fn entry_call<'a>(
    regs: &'a mut SyscallRegs,
    resumed: bool,
    answers: &'a mut u32,
) -> impl FnMut(&Pinned, u32) -> u32 + 'a {
    let flags = if resumed { action::SYSCALL_RESUMED } else { 0 };
    move |e: &Pinned, act| {
        let ret = e.call_syscall(true, act | flags, regs);
        if ret != action::RESUME {
            *answers |= ret;
        }
        ret
    }
}

/// After an entry pass in the probe whose callbacks did not all answer a
/// plain RESUME: what the winning action `act` asks of the task's work,
/// and an abort or a stop before the syscall runs.
#[cold]
#[inline(never)]
fn entry_answered(st: &State, ut: &UTask, mut regs: SyscallRegs, act: u32, answers: u32) {
    ask_resume(st, ut, act);
    let abort = answers & action::SYSCALL_ABORT != 0;
    if abort {
        regs.abort();
    } else if act == action::STOP {
        // Stop before it runs: skip it, restart it after the stop.
        ut.entry_restart.skip(&mut regs, false, false);
    }
    if act == action::STOP {
        ut.queue(&st.work, |inner| {
            inner.pending.quiesce = true;
            inner.pending.syscall_entry |= !abort;
        });
    }
}

/// The SYSCALL_EXIT pass in the probe, if an engine of `ut` wants it.
#[inline(always)]
fn exit_in_probe(st: &State, ut: &UTask, mut regs: SyscallRegs, probe: &RcuGuard) {
    if ut.events() & events::SYSCALL_EXIT == 0 {
        return;
    }
    let mut call = |e: &Pinned, act| e.call_syscall(false, act, &mut regs);
    let act = walk_in_probe(st, ut, events::SYSCALL_EXIT, probe, &mut call);
    if act != action::RESUME {
        exit_answered(st, ut, act);
    }
}

/// After an exit pass whose winning action is not RESUME: what it asks of
/// the task's work; a STOP takes effect when the task next returns to user
/// mode (a STOP from utrace_control() queued this already).
#[cold]
#[inline(never)]
fn exit_answered(st: &State, ut: &UTask, act: u32) {
    ask_resume(st, ut, act);
    if act == action::STOP {
        ut.queue(&st.work, |inner| inner.pending.quiesce = true);
    }
}

/// The SYSCALL_ENTRY pass from the task's work, where callbacks may sleep
/// (an entry the probe skipped for it): the action that won, and whether a
/// callback aborted the syscall.
pub(crate) fn report_entry(
    st: &State,
    ut: &UTask,
    regs: &mut SyscallRegs,
    resumed: bool,
) -> (u32, bool) {
    let mut answers = 0;
    let act = report(
        st,
        Some(ut),
        ut,
        events::SYSCALL_ENTRY,
        u64::MAX,
        entry_call(regs, resumed, &mut answers),
    );
    (act, answers & action::SYSCALL_ABORT != 0)
}

/// SYSCALL_EXIT from the task's work (where callbacks may sleep) of a
/// syscall whose entry, reported there, aborted it, or of a new child's
/// return from fork (see `sysentry.rs`).
pub(crate) fn report_exit_in_work(st: &State, ut: &UTask) {
    if ut.events() & events::SYSCALL_EXIT == 0 {
        return;
    }
    // SAFETY: `current`'s user registers at the end of its syscall, in its
    // task work, for this function's duration.
    let mut regs = unsafe { SyscallRegs::new(shim::user_regs(), false) };
    let call = |e: &Pinned, act| e.call_syscall(false, act, &mut regs);
    if report(st, Some(ut), ut, events::SYSCALL_EXIT, u64::MAX, call) == action::STOP {
        ut.queue(&st.work, |inner| inner.pending.quiesce = true);
    }
}
