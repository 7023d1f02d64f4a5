// SPDX-License-Identifier: GPL-2.0

//! The held-signal protocol of one task ([`SigHold`]): which of its signals
//! utrace-rs keeps hidden and why, as one type whose methods are the
//! protocol's steps.
//!
//! The kernel's pending lists stay the single truth. A held signal is still
//! queued, with its siginfo, on the task's own set or its group's; only its
//! bit is out of the pending set (`shim/signal.c`), so no thread dequeues it.
//! The record here says which bits utrace-rs took out and on which set, so
//! that each is put back exactly once:
//!
//! - a signal is held when the `signal_generate` probe hides a queued
//!   instance ([`SigHold::hide_queued`], [`SigHold::hide_for_jctl`]). A
//!   non-realtime signal sent again while held is hidden with it (the kernel
//!   queued it again, its bit being clear; the release keeps one instance,
//!   the first). A process-wide one that another thread of the group holds
//!   already is not held a second time ([`SigHold::holds_shared`]): the
//!   kernel would have merged the two.
//! - it is let go once, by whichever comes first of the task's report
//!   ([`SigHold::release`]), a SIGCONT ([`SigHold::cont_sent`],
//!   [`SigHold::continued`]), a debugger's send
//!   ([`SigHold::debugger_resent`]) or the module's unload
//!   ([`SigHold::unload`]). Each stops holding the bits it shows in the
//!   same siglock section that shows them, and acts only on the bits still
//!   held then: a second release of the same hold finds nothing.
//!
//! # Locking and ordering
//!
//! Every change of `held`, `hid_private`, `hid_shared`, `fresh`,
//! `suspended`, `cancelled`, `jctl_held`, `merge_private` and
//! `merge_shared` is made with the task's group's
//! siglock held: the methods that change them take a [`SigLocked`] witness.
//! The lock orders them, so they are `Relaxed`. They are atomics so that
//! the lockless looks are sound: the task's work looks at its own record
//! ([`SigHold::hidden`]) after its `sig_work` ran, which the probe queued
//! after its changes (`UTask::queue_signals`: the probe's SeqCst
//! `fetch_or` of `incoming_signals` after its changes here pairs with the
//! work's SeqCst `swap` of it before its looks here); what it finds may
//! change again before it acts (a SIGCONT), and each action is decided
//! again under the lock. A detach's [`SigHold::any_suspended`] is a hint.
//! `handler_wanted`, `rehold` and `injecting` belong to the task alone:
//! written and read by the task itself (its work and its own probes, in
//! program order), `Relaxed` as well.

use crate::shim::signal::{self as ssig, Hidden, SigLocked};
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use kernel::bindings;

/// SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU (bit `sig - 1`).
pub(crate) const STOP_SIGNALS: u64 = (1 << (bindings::SIGSTOP - 1))
    | (1 << (bindings::SIGTSTP - 1))
    | (1 << (bindings::SIGTTIN - 1))
    | (1 << (bindings::SIGTTOU - 1));

/// The bit of signal `sig` in a signal mask (`sig` is 1..=64).
pub(crate) fn bit(sig: i32) -> u64 {
    1u64 << (sig - 1)
}

/// What the task's report finds of a signal it was told is held
/// ([`SigHold::look`]).
pub(crate) enum Look {
    /// No longer held: a SIGCONT's send took a held stop signal (the kernel
    /// flushed it), or a debugger's task was sent it again. Nothing of it
    /// is hidden to report.
    Gone,
    /// A stop signal that a SIGCONT cancelled while it was held (a kernel
    /// without the send kprobe): to be discarded unreported.
    Cancelled,
    /// Held: to be reported.
    Held,
}

/// One task's held signals (bit `sig - 1` in each mask). See the module's
/// documentation for the protocol and its locking.
pub(crate) struct SigHold {
    /// Signals kept hidden (queued, out of the pending set) for this task's
    /// report: to be reported, held or suspended. `hid_private` and
    /// `hid_shared` say on which set; a process-wide signal is on the
    /// group's set, held by one thread only.
    held: AtomicU64,
    hid_private: AtomicU64,
    hid_shared: AtomicU64,
    /// Signals the `prepare_signal()` kprobe shielded for a send whose
    /// outcome the `signal_generate` probe has not seen yet.
    fresh: AtomicU64,
    /// Of `held`, those suspended in a group stop until SIGCONT.
    suspended: AtomicU64,
    /// Of `held`, stop signals a SIGCONT cancelled (the kernel drops
    /// pending stop signals on SIGCONT): discarded unreported.
    cancelled: AtomicU64,
    /// Of `held`, stop signals held only until this thread's JCTL report
    /// (no engine wants the signal itself): then shown again.
    jctl_held: AtomicU64,
    /// Of `held` and `suspended`, the pending bits (own set, group's set)
    /// that the send kprobe set for one send of the same non-realtime
    /// signal, for the kernel to merge it ([`SigHold::show_for_merge`]);
    /// cleared again by its `signal_generate` probe.
    merge_private: AtomicU64,
    merge_shared: AtomicU64,
    /// Signals whose handler runs after a report to SIGNAL engines: the
    /// HANDLER report follows once its frame is set up. The task's own.
    handler_wanted: AtomicU64,
    /// Signals held (HOLD) before a stop the cgroup freezer ended, to report
    /// again once the task resumes (`freezer.rs`). The task's own.
    rehold: AtomicU64,
    /// The task itself is sending a signal utrace-rs decided on: the signal
    /// probes leave it alone. The task's own.
    injecting: AtomicBool,
}

impl SigHold {
    pub(crate) const fn new() -> Self {
        SigHold {
            held: AtomicU64::new(0),
            hid_private: AtomicU64::new(0),
            hid_shared: AtomicU64::new(0),
            fresh: AtomicU64::new(0),
            suspended: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
            jctl_held: AtomicU64::new(0),
            merge_private: AtomicU64::new(0),
            merge_shared: AtomicU64::new(0),
            handler_wanted: AtomicU64::new(0),
            rehold: AtomicU64::new(0),
            injecting: AtomicBool::new(false),
        }
    }

    /// Records that `bit` is hidden on the group's set (`shared`) or the
    /// task's own; returns whether it was not held yet (its report is to be
    /// queued).
    fn mark(&self, _lk: &SigLocked<'_>, bit: u64, shared: bool) -> bool {
        if shared {
            self.hid_shared.fetch_or(bit, Relaxed);
        } else {
            self.hid_private.fetch_or(bit, Relaxed);
        }
        self.held.fetch_or(bit, Relaxed) & bit == 0
    }

    /// Stops holding the signals of `mask`, of those still held; returns
    /// where they were hidden (own set, group's set), for the caller to
    /// show in the same siglock section.
    fn unhold(&self, _lk: &SigLocked<'_>, mask: u64) -> (u64, u64) {
        let mask = self.held.fetch_and(!mask, Relaxed) & mask;
        (
            self.hid_private.fetch_and(!mask, Relaxed) & mask,
            self.hid_shared.fetch_and(!mask, Relaxed) & mask,
        )
    }

    /// Whether `bit` is held.
    pub(crate) fn holds(&self, _lk: &SigLocked<'_>, bit: u64) -> bool {
        self.held.load(Relaxed) & bit != 0
    }

    /// Whether `bit` is held hidden on the group's set (a process-wide
    /// instance this thread shows when it lets it go).
    pub(crate) fn holds_shared(&self, _lk: &SigLocked<'_>, bit: u64) -> bool {
        self.held.load(Relaxed) & self.hid_shared.load(Relaxed) & bit != 0
    }

    // The send: the `prepare_signal()` kprobe, siglock held by the sender.

    /// A SIGCONT is being sent to the task's process, before
    /// `prepare_signal()` flushes the pending stop signals: the stop signals
    /// held (for SIGNAL_STOP engines, for a JCTL report, or suspended) are
    /// shown and no longer held, so that the kernel's own flush takes them,
    /// and exactly them. A stop signal sent after this SIGCONT is a new one.
    pub(crate) fn cont_sent(&self, lk: &SigLocked<'_>) {
        let stops = self.held.load(Relaxed) & STOP_SIGNALS;
        if stops == 0 {
            return;
        }
        self.suspended.fetch_and(!stops, Relaxed);
        self.jctl_held.fetch_and(!stops, Relaxed);
        let (private, shared) = self.unhold(lk, stops);
        lk.show(private, shared);
    }

    /// `sig` is sent again to a task that a debugger attached to while it
    /// was held (a crash suspended for `gdb -p`, the faulting instruction run
    /// again): the debugger owns the task's signals now. The held instance
    /// is shown before the kernel queues this one, which it then merges (a
    /// non-realtime signal is pending once), so the debugger sees the
    /// signal once, with its first siginfo. Returns whether it was so.
    pub(crate) fn debugger_resent(&self, lk: &SigLocked<'_>, sig: i32) -> bool {
        let bit = bit(sig);
        if !self.holds(lk, bit) || !lk.debugger_owns() {
            return false;
        }
        let (private, shared) = self.unhold(lk, bit);
        self.suspended.fetch_and(!bit, Relaxed);
        lk.show(private, shared);
        true
    }

    /// `sig`, a non-realtime signal this task holds suspended, is being
    /// sent to it again: its pending bits are set for the length of this
    /// send, so that the kernel merges the new instance with the suspended
    /// one (it queues a non-realtime signal once per set), as it would
    /// have without the hold; [`SigHold::hide_merged`] clears them when the
    /// send is done. An instance sent to the other set (a thread-directed
    /// one beside a process-wide one) is queued, as the kernel queues it.
    /// Returns whether a bit was set.
    pub(crate) fn show_for_merge(&self, lk: &SigLocked<'_>, sig: i32) -> bool {
        if sig >= bindings::SIGRTMIN as i32 {
            return false;
        }
        let bit = bit(sig) & self.held.load(Relaxed) & self.suspended.load(Relaxed);
        let (private, shared) = (
            self.hid_private.load(Relaxed) & bit,
            self.hid_shared.load(Relaxed) & bit,
        );
        if private | shared == 0 {
            return false;
        }
        self.merge_private.fetch_or(private, Relaxed);
        self.merge_shared.fetch_or(shared, Relaxed);
        lk.mark_pending(private, shared, true);
        true
    }

    /// The send [`SigHold::show_for_merge`] marked is done: its pending bits
    /// are cleared again (the signal stays hidden). Returns whether there
    /// were any.
    pub(crate) fn hide_merged(&self, lk: &SigLocked<'_>) -> bool {
        let private = self.merge_private.swap(0, Relaxed);
        let shared = self.merge_shared.swap(0, Relaxed);
        lk.mark_pending(private, shared, false);
        private | shared != 0
    }

    /// Shields `sig` for this send (`real_blocked`), so that the kernel
    /// neither makes it a group kill nor drops it; [`SigHold::unshield`]
    /// takes the mark off when the send is done.
    pub(crate) fn shield(&self, lk: &SigLocked<'_>, sig: i32) {
        self.fresh.fetch_or(bit(sig), Relaxed);
        lk.shield(sig, true);
    }

    // `signal_generate`: the send is done; siglock held by the sender.

    /// Takes this send's shield of `sig` off, if it had one; returns
    /// whether it had (the signal is then to be held if it was queued).
    pub(crate) fn unshield(&self, lk: &SigLocked<'_>, sig: i32) -> bool {
        let bit = bit(sig);
        let had = self.fresh.fetch_and(!bit, Relaxed) & bit != 0;
        if had {
            lk.shield(sig, false);
        }
        had
    }

    /// `sig`, just queued for `lk`'s task (on the group's set if `shared`),
    /// is held: hidden, and recorded here unless `merged()` says that
    /// another thread holds a process-wide instance already (looked at only
    /// for a process-wide signal not held here yet). Returns whether it
    /// was not held yet: its report is to be queued.
    pub(crate) fn hide_queued(
        &self,
        lk: &SigLocked<'_>,
        sig: i32,
        shared: bool,
        merged: impl FnOnce() -> bool,
    ) -> bool {
        let bit = bit(sig);
        lk.hide(sig, shared);
        if shared && !self.holds(lk, bit) && merged() {
            return false;
        }
        self.mark(lk, bit, shared)
    }

    /// Stop signal `sig`, just queued for `lk`'s task (this record's, or,
    /// if `shared`, a thread of its group), is hidden until this thread made
    /// its JCTL report. Returns whether it was not held yet.
    pub(crate) fn hide_for_jctl(&self, lk: &SigLocked<'_>, sig: i32, shared: bool) -> bool {
        let bit = bit(sig);
        lk.hide(sig, shared);
        self.jctl_held.fetch_or(bit, Relaxed);
        self.mark(lk, bit, shared)
    }

    /// A SIGCONT was sent to the task's process (the `signal_generate`
    /// probe): held stop signals still left (a kernel without the send
    /// kprobe, which shows them at the send) are cancelled, as
    /// `prepare_signal()` flushes the queued ones (it cannot see hidden
    /// ones), and what was suspended is shown. Returns the stop signals
    /// cancelled, whose report (which discards them) the caller queues.
    pub(crate) fn continued(&self, lk: &SigLocked<'_>) -> u64 {
        let stops = self.held.load(Relaxed) & STOP_SIGNALS;
        if stops != 0 {
            self.cancelled.fetch_or(stops, Relaxed);
            self.suspended.fetch_and(!stops, Relaxed);
        }
        let suspended = self.suspended.swap(0, Relaxed);
        if suspended != 0 {
            let (private, shared) = self.unhold(lk, suspended);
            lk.show(private, shared);
        }
        stops
    }

    // The task's work (`current`'s record).

    /// What became of `bit`, which the task's report was told is held; a
    /// cancel mark is taken.
    pub(crate) fn look(&self, lk: &SigLocked<'_>, bit: u64) -> Look {
        let cancelled = self.cancelled.fetch_and(!bit, Relaxed) & bit != 0;
        if !self.holds(lk, bit) {
            Look::Gone
        } else if cancelled {
            Look::Cancelled
        } else {
            Look::Held
        }
    }

    /// Where the held signal of bit `bit` is hidden (a look of the task at
    /// its own record: see the module's documentation).
    pub(crate) fn hidden(&self, bit: u64) -> Hidden {
        Hidden {
            private: self.hid_private.load(Relaxed) & bit != 0,
            shared: self.hid_shared.load(Relaxed) & bit != 0,
        }
    }

    /// The engines suspended the held `bit`: true if it is still held (and
    /// now suspended until SIGCONT), false if a SIGCONT took it meanwhile.
    pub(crate) fn suspend(&self, lk: &SigLocked<'_>, bit: u64) -> bool {
        if !self.holds(lk, bit) {
            return false;
        }
        self.suspended.fetch_or(bit, Relaxed);
        true
    }

    /// Whether any signal is suspended (a hint, without the lock).
    pub(crate) fn any_suspended(&self) -> bool {
        self.suspended.load(Relaxed) != 0
    }

    /// The stop signals held for this thread's JCTL report, still held and
    /// not cancelled; no longer marked as such (the caller releases them).
    pub(crate) fn take_jctl_held(&self, _lk: &SigLocked<'_>) -> u64 {
        self.jctl_held.swap(0, Relaxed) & self.held.load(Relaxed) & !self.cancelled.load(Relaxed)
    }

    /// No longer holds `sig` for the task, which is `current`: shows it
    /// again, or (`discard`) takes it out of the queues, in the siglock
    /// section that stops holding it; nothing if it is no longer held.
    pub(crate) fn release(&self, sig: i32, discard: bool) {
        let bit = bit(sig);
        ssig::release(sig, discard, |lk| {
            let (private, shared) = self.unhold(lk, bit);
            Hidden {
                private: private != 0,
                shared: shared != 0,
            }
        });
    }

    /// [`SigHold::release`] (shown again) for each signal of `mask`.
    pub(crate) fn release_mask(&self, mask: u64) {
        for sig in 1..=64 {
            if mask & bit(sig) != 0 {
                self.release(sig, false);
            }
        }
    }

    /// Module unload, with the task's work taken back: every held signal
    /// that no SIGCONT cancelled is shown again (the kernel delivers them
    /// as if never hidden: a stopped process once it is continued).
    pub(crate) fn unload(&self, lk: &SigLocked<'_>) {
        let show = self.held.load(Relaxed) & !self.cancelled.load(Relaxed);
        let (private, shared) = self.unhold(lk, show);
        self.suspended.fetch_and(!show, Relaxed);
        lk.show(private, shared);
    }

    // The task's own fields.

    /// A handler will run for `bit` after SIGNAL engines were told of it:
    /// the `signal_deliver` probe has the HANDLER report made.
    pub(crate) fn want_handler(&self, bit: u64) {
        self.handler_wanted.fetch_or(bit, Relaxed);
    }

    /// The `signal_deliver` probe: whether a HANDLER report is wanted for
    /// `bit` (the mark is taken).
    pub(crate) fn take_handler_wanted(&self, bit: u64) -> bool {
        self.handler_wanted.fetch_and(!bit, Relaxed) & bit != 0
    }

    /// Signals held (HOLD) before a stop the cgroup freezer ended.
    pub(crate) fn add_rehold(&self, mask: u64) {
        self.rehold.fetch_or(mask, Relaxed);
    }

    /// Those signals, taken.
    pub(crate) fn take_rehold(&self) -> u64 {
        self.rehold.swap(0, Relaxed)
    }

    /// Runs `send`, a signal the task (`current`) sends itself as the
    /// engines decided, with the signal probes leaving it alone.
    pub(crate) fn inject<R>(&self, send: impl FnOnce() -> R) -> R {
        self.injecting.store(true, Relaxed);
        let ret = send();
        self.injecting.store(false, Relaxed);
        ret
    }

    /// Whether the task is sending itself a signal ([`SigHold::inject`]);
    /// meaningful only in the task itself.
    pub(crate) fn injecting(&self) -> bool {
        self.injecting.load(Relaxed)
    }
}
