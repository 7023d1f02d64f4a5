// SPDX-License-Identifier: GPL-2.0

//! Event bits, resume actions and attach flags: the numbers of
//! `include/utrace_rs.h`, which is their definition. Keep the two in step.

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
pub(crate) const SIGNAL_CORE: Events = event(12);

/// What a per-task engine may ask for today.
pub(crate) const TASK_EVENTS: Events =
    QUIESCE | REAP | CLONE | EXEC | EXIT | DEATH | SYSCALL | SIGNAL | SIGNAL_CORE;
/// What a global engine may ask for (`UTRACE_GLOBAL_EVENTS`).
pub(crate) const GLOBAL_EVENTS: Events = CLONE | EXEC | EXIT | DEATH;
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
    /// The signal action bits of `report_signal`'s return, and "ignore".
    pub(crate) const SIGNAL_ACTION_MASK: u32 = 0xf0;
    pub(crate) const SIGNAL_IGN: u32 = 0x10;
    /// `UTRACE_SIGNAL_HOLD`, or'd into `report_signal`'s return.
    pub(crate) const SIGNAL_HOLD: u32 = 0x100;
}

/// `utrace_attach_*()` flags.
pub(crate) mod attach {
    pub(crate) const MATCH_OPS: i32 = 0x0001;
    pub(crate) const MATCH_DATA: i32 = 0x0002;
    pub(crate) const CREATE: i32 = 0x0010;
    pub(crate) const EXCLUSIVE: i32 = 0x0020;
    pub(crate) const GLOBAL: i32 = 0x0100;
    pub(crate) const ALL: i32 = MATCH_OPS | MATCH_DATA | CREATE | EXCLUSIVE | GLOBAL;
}
