// SPDX-License-Identifier: GPL-2.0

//! Stopping before a syscall runs, and reporting its entry where callbacks
//! may sleep: the per-task record of a syscall entry that the probe skipped
//! so that it is restarted.
//!
//! The kernel reads the syscall number again after the `sys_enter`
//! tracepoint, so the probe can skip the syscall (the number becomes -1, the
//! result `-ERESTARTNOINTR`). The task's work, which runs before any user
//! instruction, then shows its registers as they were at entry (for the
//! stop, or for the entry callbacks that may sleep), and on its way out
//! restarts the syscall as the kernel restarts one (`shim/sysentry.c`). The
//! restarted entry is reported again with `UTRACE_SYSCALL_RESUMED` after a
//! stop, and not at all after a report made in the work. The skipped pass's
//! exit is not reported.
//!
//! The record also marks a new child's return from fork (`= 0`), whose
//! SYSCALL_EXIT the probe leaves to the child's work: its `sys_exit`
//! tracepoint fires in `ret_from_fork`, before its work waits for the
//! parent's CLONE report (the clone gate) or makes it (vfork), so an engine
//! attached to it from a CLONE callback may not be there yet; in the work,
//! after those reports, it always is.
//!
//! Only the task itself touches its record, in its probes and its work,
//! but for forgetting a restart when its syscall events go, and for the
//! fork return, marked before the child first runs.

use crate::shim::{self, SyscallRegs};
use core::sync::atomic::{AtomicIsize, AtomicU32, AtomicUsize, Ordering::SeqCst};

/// Nothing skipped.
const NONE: u32 = 0;
/// Skipped so that the task stops before it (an entry callback stopped it).
const SKIPPED_STOP: u32 = 1;
/// Skipped so that entry is reported from the task's work.
const SKIPPED_REPORT: u32 = 2;
/// With `SKIPPED_REPORT`: that report follows a stop (`RESUMED`).
const SKIPPED_RESUMED: u32 = 1 << 8;
/// Restarted after a stop: its entry is reported again, `RESUMED`.
const RESTARTED_STOPPED: u32 = 3;
/// Restarted after its entry was reported from the work: not reported again.
const RESTARTED_REPORTED: u32 = 4;
/// A new child's return from fork, not yet reported: its exit is reported
/// from its work, after the CLONE reports that attach engines to it.
const FORK_RETURN: u32 = 5;

/// What a syscall entry is to the engines.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A new one.
    Fresh,
    /// The restart after a stop before it: reported with `RESUMED`.
    Resumed,
    /// The restart after its entry was reported from the task's work.
    Reported,
}

/// The record of a task's skipped syscall entry.
///
/// # Invariants
///
/// Read and written by the task it belongs to (its syscall probes and its
/// task work), never concurrently; other tasks only clear a `RESTARTED_*`
/// state ([`EntryRestart::forget`]).
pub(crate) struct EntryRestart {
    state: AtomicU32,
    /// The instruction pointer of the skipped pass (after the syscall
    /// instruction): a restart re-enters with the same.
    ip: AtomicUsize,
    /// The syscall number it entered with.
    nr: AtomicIsize,
}

impl EntryRestart {
    pub(crate) const fn new() -> Self {
        EntryRestart {
            state: AtomicU32::new(NONE),
            ip: AtomicUsize::new(0),
            nr: AtomicIsize::new(-1),
        }
    }

    /// Whether nothing is recorded: no entry skipped or restarted, no fork
    /// return pending (the usual syscall, whose entry is `Fresh` and whose
    /// exit is reported).
    pub(crate) fn idle(&self) -> bool {
        self.state.load(SeqCst) == NONE
    }

    /// At `sys_enter`: what this entry is. Consumes the record: an entry at
    /// another instruction (say, in a signal handler that ran first) is a
    /// new one, and so is the restart it was waiting for, later.
    pub(crate) fn on_entry(&self, regs: &SyscallRegs) -> Entry {
        let state = self.state.load(SeqCst);
        if state == NONE {
            return Entry::Fresh;
        }
        self.state.store(NONE, SeqCst);
        if regs.ip() != self.ip.load(SeqCst) {
            return Entry::Fresh;
        }
        match state {
            RESTARTED_STOPPED => Entry::Resumed,
            RESTARTED_REPORTED => Entry::Reported,
            _ => Entry::Fresh,
        }
    }

    /// At `sys_enter`: skips the syscall, to restart it after a stop
    /// (`report: false`) or after its entry is reported from the task's
    /// work (`report: true`; `resumed` if that report follows a stop). The
    /// caller queues the task's work.
    pub(crate) fn skip(&self, regs: &mut SyscallRegs, report: bool, resumed: bool) {
        let nr = regs.nr();
        let ip = regs.skip_for_restart();
        self.ip.store(ip, SeqCst);
        self.nr.store(nr, SeqCst);
        let state = match (report, resumed) {
            (false, _) => SKIPPED_STOP,
            (true, false) => SKIPPED_REPORT,
            (true, true) => SKIPPED_REPORT | SKIPPED_RESUMED,
        };
        self.state.store(state, SeqCst);
    }

    /// Whether a skipped pass waits for the task's work to restart it.
    pub(crate) fn skipped(&self) -> bool {
        matches!(
            self.state.load(SeqCst) & !SKIPPED_RESUMED,
            SKIPPED_STOP | SKIPPED_REPORT
        )
    }

    /// At `sys_exit`: whether this exit is not reported here: the skipped
    /// pass, which is then shown as the restart it is (the syscall,
    /// returning `-ERESTARTNOINTR`) to the tracers after us, or a new
    /// child's return from fork, which its work reports.
    pub(crate) fn on_exit(&self, regs: &mut SyscallRegs) -> bool {
        match self.state.load(SeqCst) {
            NONE => false,
            FORK_RETURN => true,
            state => {
                matches!(state & !SKIPPED_RESUMED, SKIPPED_STOP | SKIPPED_REPORT)
                    && regs.skipped_exit(self.ip.load(SeqCst), self.nr.load(SeqCst))
            }
        }
    }

    /// Marks the record of a new child, before it first runs: its return
    /// from fork is reported by its work ([`EntryRestart::take_fork_return`]).
    pub(crate) fn fork_return(&self) {
        self.state.store(FORK_RETURN, SeqCst);
    }

    /// In the task's work: whether the task is a new child whose return from
    /// fork is to be reported now (once).
    pub(crate) fn take_fork_return(&self) -> bool {
        self.state
            .compare_exchange(FORK_RETURN, NONE, SeqCst, SeqCst)
            .is_ok()
    }

    /// In the task's work: the skipped pass, with `current`'s registers as
    /// they were at entry; `None` if there is none, or if someone (a
    /// ptracer at its exit stop) changed them meanwhile, which ends it.
    pub(crate) fn begin(&self) -> Option<Skipped> {
        if !self.skipped() {
            return None;
        }
        let state = self.state.swap(NONE, SeqCst);
        let regs = shim::entry_regs(self.ip.load(SeqCst), self.nr.load(SeqCst))?;
        Some(Skipped {
            regs,
            report: state & !SKIPPED_RESUMED == SKIPPED_REPORT,
            resumed: state & SKIPPED_RESUMED != 0,
        })
    }

    /// Leaving the task's work: restarts the skipped syscall with what the
    /// registers now say, reported again with `RESUMED` if `stopped`, not
    /// reported again otherwise; or, `aborted`, lets it return what the
    /// registers hold. `traced` says whether the task still has syscall
    /// events (else its probes will not see the restart: see
    /// [`EntryRestart::forget`]).
    pub(crate) fn finish(
        &self,
        skipped: Skipped,
        stopped: bool,
        aborted: bool,
        traced: impl Fn() -> bool,
    ) {
        if aborted {
            skipped.regs.leave(false);
            return;
        }
        let state = if stopped {
            RESTARTED_STOPPED
        } else {
            RESTARTED_REPORTED
        };
        self.state.store(state, SeqCst);
        if !traced() {
            // Its last syscall events went meanwhile; `forget` may have run
            // before the store above.
            self.forget();
        }
        skipped.regs.leave(true);
    }

    /// The task's syscall events went (its probes will not see its next
    /// entry): forgets a restart waiting to be recognised, which would
    /// otherwise be taken for a later syscall at the same instruction. A
    /// skipped pass is left alone: its work restarts it. Any task may call
    /// this; it only ever clears a `RESTARTED_*` state.
    pub(crate) fn forget(&self) {
        for state in [RESTARTED_STOPPED, RESTARTED_REPORTED] {
            let _ = self.state.compare_exchange(state, NONE, SeqCst, SeqCst);
        }
    }
}

/// A skipped syscall entry, found by the task's work with the registers as
/// at entry. Give it back to [`EntryRestart::finish`].
pub(crate) struct Skipped {
    pub(crate) regs: SyscallRegs,
    /// Its entry is to be reported here (else it was skipped for a stop).
    pub(crate) report: bool,
    /// That report follows a stop.
    pub(crate) resumed: bool,
}
