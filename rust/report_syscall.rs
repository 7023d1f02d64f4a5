// SPDX-License-Identifier: GPL-2.0

//! The syscall reporting passes: SYSCALL_ENTRY and SYSCALL_EXIT, made in
//! the syscall tracepoint (atomic context on 6.12) or, for an entry whose
//! callbacks may sleep, from the task's work (see `sysentry.rs`).

use crate::engine::Pinned;
use crate::events::{self, action};
use crate::report_pass::{report, report_in_probe};
use crate::shim::{self, RcuGuard, SyscallRegs};
use crate::state::State;
use crate::sysentry::Entry;
use crate::utask::UTask;

/// SYSCALL_ENTRY / SYSCALL_EXIT, in the syscall tracepoint (atomic context
/// on 6.12, `current` is `ut`'s task). An entry callback may abort the
/// syscall, or stop the task before it runs (see `sysentry.rs`); a STOP at
/// exit takes effect when the task next returns to user mode. `probe` is
/// the probe's read-side section, held for the whole report (`ut` is
/// borrowed from it).
pub(crate) fn report_syscall(st: &State, ut: &UTask, regs: &mut SyscallRegs, probe: &RcuGuard) {
    if !regs.entry() {
        // The pass skipped for a restart is not reported.
        if ut.entry_restart.on_exit(regs) {
            return;
        }
        report_exit(st, ut, regs, Some(probe));
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
    }
}

/// The SYSCALL_ENTRY pass (in the probe, or from the task's work with
/// `probe` `None`): the action that won, and whether a callback aborted it.
/// Inlined: the probe's copy is the hot path.
#[inline(always)]
pub(crate) fn report_entry(
    st: &State,
    ut: &UTask,
    regs: &mut SyscallRegs,
    resumed: bool,
    probe: Option<&RcuGuard>,
) -> (u32, bool) {
    let flags = if resumed { action::SYSCALL_RESUMED } else { 0 };
    // Every callback's answer or'ed together: one `or` a callback, and
    // whether any aborted is read off it once at the end.
    let mut answers = 0;
    let event = events::SYSCALL_ENTRY;
    let call = |e: &Pinned, act| {
        let ret = e.call_syscall(true, act | flags, regs);
        answers |= ret;
        ret
    };
    let act = match probe {
        Some(rcu) => report_in_probe(st, ut, event, rcu, call),
        None => report(st, Some(ut), ut, event, u64::MAX, call),
    };
    (act, answers & action::SYSCALL_ABORT != 0)
}

/// The SYSCALL_EXIT pass, if an engine of `ut` (`current`) wants it: in the
/// probe, or (`probe` `None`) from the task's work for a syscall whose
/// entry, reported there, aborted it. A STOP takes effect when the task
/// next returns to user mode (a STOP from utrace_control() queued this
/// already). Inlined: the probe's copy is the hot path.
#[inline(always)]
fn report_exit(st: &State, ut: &UTask, regs: &mut SyscallRegs, probe: Option<&RcuGuard>) {
    if ut.events() & events::SYSCALL_EXIT == 0 {
        return;
    }
    let event = events::SYSCALL_EXIT;
    let call = |e: &Pinned, act| e.call_syscall(false, act, regs);
    let act = match probe {
        Some(rcu) => report_in_probe(st, ut, event, rcu, call),
        None => report(st, Some(ut), ut, event, u64::MAX, call),
    };
    if act == action::STOP {
        ut.queue(&st.work, |inner| inner.pending.quiesce = true);
    }
}

/// SYSCALL_EXIT from the task's work (where callbacks may sleep) of a
/// syscall whose entry, reported there, aborted it, or of a new child's
/// return from fork (see `sysentry.rs`).
pub(crate) fn report_exit_in_work(st: &State, ut: &UTask) {
    // SAFETY: `current`'s user registers at the end of its syscall, in its
    // task work, for this function's duration.
    let mut regs = unsafe { SyscallRegs::new(shim::user_regs(), false) };
    report_exit(st, ut, &mut regs, None);
}
