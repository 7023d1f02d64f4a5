// SPDX-License-Identifier: GPL-2.0

//! Event bits, resume actions and attach flags: the numbers of
//! `include/utrace_rs.h`, which is their definition (`scripts/check-abi.py`,
//! run by `make check`, checks every constant here against it).

/// An event mask (`UTRACE_EVENT(...)` bits).
pub(crate) type Events = u64;

pub(crate) const fn event(bit: u32) -> Events {
    1 << bit
}

pub(crate) const QUIESCE: Events = event(0);
pub(crate) const REAP: Events = event(1);
pub(crate) const CLONE: Events = event(2);
pub(crate) const EXEC: Events = event(3);
pub(crate) const EXIT: Events = event(4);
pub(crate) const DEATH: Events = event(5);
pub(crate) const SYSCALL_ENTRY: Events = event(6);
pub(crate) const SYSCALL_EXIT: Events = event(7);
pub(crate) const SYSCALL: Events = SYSCALL_ENTRY | SYSCALL_EXIT;
pub(crate) const SIGNAL: Events = event(8);
pub(crate) const SIGNAL_IGN: Events = event(9);
pub(crate) const SIGNAL_STOP: Events = event(10);
pub(crate) const SIGNAL_TERM: Events = event(11);
pub(crate) const SIGNAL_CORE: Events = event(12);
pub(crate) const JCTL: Events = event(13);
/// `UTRACE_EVENT_SIGNAL_ALL`: every event reported by `report_signal`.
pub(crate) const SIGNAL_ALL: Events = SIGNAL | SIGNAL_IGN | SIGNAL_STOP | SIGNAL_TERM | SIGNAL_CORE;
/// The events that hold signals, for which the signal kprobe is armed:
/// [`SIGNAL_ALL`], and JCTL (stop signals are hidden until the JCTL
/// reports are made, and a SIGCONT's send must cancel exactly those).
pub(crate) const SIGNAL_HOLDING: Events = SIGNAL_ALL | JCTL;

/// What a per-task engine may ask for today.
pub(crate) const TASK_EVENTS: Events =
    QUIESCE | REAP | CLONE | EXEC | EXIT | DEATH | SYSCALL | SIGNAL_ALL | JCTL;
/// What a global engine may ask for (`UTRACE_GLOBAL_EVENTS`).
pub(crate) const GLOBAL_EVENTS: Events = CLONE | EXEC | EXIT | DEATH | SIGNAL_CORE;
/// Events that are reported in `do_exit()`.
pub(crate) const EXIT_EVENTS: Events = EXIT | DEATH;

/// Resume actions (`enum utrace_resume_action`); the smallest value wins.
pub(crate) mod action {
    pub(crate) const STOP: u32 = 0;
    pub(crate) const INTERRUPT: u32 = 1;
    pub(crate) const REPORT: u32 = 2;
    pub(crate) const SINGLESTEP: u32 = 3;
    pub(crate) const BLOCKSTEP: u32 = 4;
    pub(crate) const RESUME: u32 = 5;
    pub(crate) const DETACH: u32 = 6;
    pub(crate) const MASK: u32 = 0x0f;
    /// `UTRACE_SYSCALL_ABORT`, or'd into `report_syscall_entry`'s return.
    pub(crate) const SYSCALL_ABORT: u32 = 0x10;
    /// `UTRACE_SYSCALL_RESUMED`, or'd into `report_syscall_entry`'s
    /// `action`: the entry is reported again after a stop before it.
    pub(crate) const SYSCALL_RESUMED: u32 = 0x100;
}

/// `enum utrace_signal_action` and its flags: what `report_signal`'s
/// `@action` and return say about the signal.
pub(crate) mod signal {
    pub(crate) const DELIVER: u32 = 0x00;
    pub(crate) const IGN: u32 = 0x10;
    pub(crate) const TERM: u32 = 0x20;
    pub(crate) const CORE: u32 = 0x30;
    pub(crate) const STOP: u32 = 0x40;
    pub(crate) const TSTP: u32 = 0x50;
    /// No signal: the report INTERRUPT asked for (see `report_interrupt`).
    pub(crate) const REPORT: u32 = 0x60;
    pub(crate) const HANDLER: u32 = 0x70;
    /// `UTRACE_SIGNAL_MASK`.
    pub(crate) const MASK: u32 = 0xf0;
    /// `UTRACE_SIGNAL_HOLD`: push back, report again after the resume action.
    pub(crate) const HOLD: u32 = 0x100;
    /// `UTRACE_SIGNAL_SUSPEND`: keep it queued in a group stop until SIGCONT.
    pub(crate) const SUSPEND: u32 = 0x200;
    /// `UTRACE_SIGNAL_STEP`, in `@action` only: the trap of a step
    /// utrace-rs made.
    pub(crate) const STEP: u32 = 0x400;

    /// The event that reports a signal of class `class`.
    pub(crate) fn event_of(class: u32) -> super::Events {
        match class {
            IGN => super::SIGNAL_IGN,
            TERM => super::SIGNAL_TERM,
            CORE => super::SIGNAL_CORE,
            STOP | TSTP => super::SIGNAL_STOP,
            _ => super::SIGNAL,
        }
    }
}

/// `utrace_attach_*()` flags.
pub(crate) mod attach {
    pub(crate) const MATCH_OPS: i32 = 0x0001;
    pub(crate) const MATCH_DATA: i32 = 0x0002;
    pub(crate) const CREATE: i32 = 0x0010;
    pub(crate) const EXCLUSIVE: i32 = 0x0020;
    pub(crate) const GLOBAL: i32 = 0x0100;
    pub(crate) const NOFOLLOW: i32 = 0x0200;
    pub(crate) const ALL: i32 = MATCH_OPS | MATCH_DATA | CREATE | EXCLUSIVE | GLOBAL | NOFOLLOW;
}
