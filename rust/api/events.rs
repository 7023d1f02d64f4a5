// SPDX-License-Identifier: GPL-2.0

//! Event masks and what callbacks return.

use super::raw;

/// An event mask (`UTRACE_EVENT(...)` bits of `include/utrace_rs.h`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Events(u64);

impl Events {
    pub(crate) const NONE: Events = Events(0);
    /// [`Engine::quiesce`](super::Engine::quiesce) before each other event
    /// and at the safe point a STOP, REPORT or INTERRUPT asked for.
    pub(crate) const QUIESCE: Events = Events(1 << 0);
    pub(crate) const REAP: Events = Events(1 << 1);
    pub(crate) const CLONE: Events = Events(1 << 2);
    pub(crate) const EXEC: Events = Events(1 << 3);
    pub(crate) const EXIT: Events = Events(1 << 4);
    pub(crate) const DEATH: Events = Events(1 << 5);
    /// Needs a [`SyscallEngine`](super::SyscallEngine) tracer.
    pub(crate) const SYSCALL_ENTRY: Events = Events(1 << 6);
    /// Needs a [`SyscallEngine`](super::SyscallEngine) tracer.
    pub(crate) const SYSCALL_EXIT: Events = Events(1 << 7);
    /// A signal whose delivery will run a handler.
    pub(crate) const SIGNAL: Events = Events(1 << 8);
    /// A signal that will be ignored (SIG_IGN, or ignored by default).
    pub(crate) const SIGNAL_IGN: Events = Events(1 << 9);
    /// A signal that will stop the process (SIGSTOP, SIGTSTP, SIGTTIN,
    /// SIGTTOU at their default).
    pub(crate) const SIGNAL_STOP: Events = Events(1 << 10);
    /// A signal that will kill without a core dump (its default).
    pub(crate) const SIGNAL_TERM: Events = Events(1 << 11);
    /// A signal that will kill with a core dump (its default).
    pub(crate) const SIGNAL_CORE: Events = Events(1 << 12);
    /// Job control: the process is about to stop, or was continued.
    pub(crate) const JCTL: Events = Events(1 << 13);
    /// Every signal event.
    pub(crate) const SIGNAL_ALL: Events = Self::SIGNAL
        .or(Self::SIGNAL_IGN)
        .or(Self::SIGNAL_STOP)
        .or(Self::SIGNAL_TERM)
        .or(Self::SIGNAL_CORE);

    pub(crate) const SYSCALL: Events = Self::SYSCALL_ENTRY.or(Self::SYSCALL_EXIT);

    /// The mask of the `UTRACE_EVENT()` bits `bits`.
    pub(crate) const fn from_bits(bits: u64) -> Events {
        Events(bits)
    }

    pub(crate) const fn intersects(self, other: Events) -> bool {
        self.0 & other.0 != 0
    }

    pub(crate) const fn or(self, other: Events) -> Events {
        Events(self.0 | other.0)
    }

    pub(crate) const fn bits(self) -> u64 {
        self.0
    }

    pub(crate) const fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for Events {
    type Output = Events;

    fn bitor(self, rhs: Events) -> Events {
        self.or(rhs)
    }
}

/// What a callback asks for once it returns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub(crate) enum Action {
    /// Keep going.
    Resume = raw::UTRACE_RESUME,
    /// Detach this engine from the task (or, for a global engine, from all).
    Detach = raw::UTRACE_DETACH,
    /// Stop the task at its next safe point (or keep it stopped) until this
    /// engine resumes it (any other [`Action`] from a later callback, or a
    /// [`Control`] other than `Stop`) or detaches. Only `Stop` is sticky:
    /// returning anything else drops this engine's stop.
    Stop = raw::UTRACE_STOP,
    /// Keep going, with a QUIESCE report before the task returns to user
    /// mode.
    Report = raw::UTRACE_REPORT,
    /// Keep going, with INTERRUPT's report ([`Engine::interrupt`](super::Engine::interrupt))
    /// soon, interrupting a blocked syscall (it restarts unless a signal is
    /// delivered).
    Interrupt = raw::UTRACE_INTERRUPT,
    /// Keep going for one user instruction: its trap comes as a SIGTRAP
    /// [`Engine::signal`](super::Engine::signal) report.
    SingleStep = raw::UTRACE_SINGLESTEP,
    /// Keep going up to the next taken branch (single steps where the CPU
    /// has no block step).
    BlockStep = raw::UTRACE_BLOCKSTEP,
}

impl Action {
    /// Its `enum utrace_resume_action` value (the discriminant: no table).
    pub(super) fn raw(self) -> u32 {
        self as u32
    }
}

/// What `utrace_control()` asks of a task (see `include/utrace_rs.h`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Control {
    /// Stop at the next safe point: `Ok` if already stopped, else
    /// `EINPROGRESS` (the QUIESCE report tells when it is).
    Stop,
    /// Drop this engine's stop.
    Resume,
    /// Drop this engine's stop; INTERRUPT's report soon
    /// ([`Engine::interrupt`](super::Engine::interrupt), to engines with
    /// QUIESCE), interrupting a blocked syscall (which restarts unless a
    /// signal is delivered).
    Interrupt,
    /// Drop this engine's stop; a QUIESCE report before the task next
    /// returns to user mode (needs QUIESCE: `EINVAL`).
    Report,
    /// Drop this engine's stop and let the task run one instruction; its
    /// trap is a SIGTRAP signal report (needs QUIESCE: `EINVAL`).
    SingleStep,
    /// The same up to the next taken branch; `EOPNOTSUPP` where the CPU
    /// has no block step.
    BlockStep,
    /// Detach: `EINPROGRESS` if a callback may still be running.
    Detach,
}

impl Control {
    pub(super) fn raw(self) -> u32 {
        match self {
            Control::Stop => raw::UTRACE_STOP,
            Control::Resume => raw::UTRACE_RESUME,
            Control::Interrupt => raw::UTRACE_INTERRUPT,
            Control::Report => raw::UTRACE_REPORT,
            Control::SingleStep => raw::UTRACE_SINGLESTEP,
            Control::BlockStep => raw::UTRACE_BLOCKSTEP,
            Control::Detach => raw::UTRACE_DETACH,
        }
    }
}

/// What [`SyscallEngine::syscall_entry`](super::SyscallEngine::syscall_entry)
/// decides.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub(crate) enum SyscallEntry {
    /// Let the syscall run.
    Run = raw::UTRACE_RESUME,
    /// Do not run it; it returns what [`SyscallRegs::set_return_value`]
    /// set (`-ENOSYS` if nothing).
    ///
    /// [`SyscallRegs::set_return_value`]: super::SyscallRegs::set_return_value
    Abort = raw::UTRACE_RESUME | raw::UTRACE_SYSCALL_ABORT,
    /// Stop the task before the syscall runs, until this engine resumes it
    /// ([`Control::Resume`]) or detaches; meanwhile its registers are as at
    /// entry and may be changed ([`EngineRef::examine`]). Then the syscall
    /// runs with what they say, and its entry is reported again with
    /// [`SyscallContext::resumed`] true.
    ///
    /// [`EngineRef::examine`]: super::EngineRef::examine
    /// [`SyscallContext::resumed`]: super::SyscallContext::resumed
    Stop = raw::UTRACE_STOP,
    /// Do not run it (as [`SyscallEntry::Abort`]) and stop the task when it
    /// returns to user mode.
    AbortAndStop = raw::UTRACE_STOP | raw::UTRACE_SYSCALL_ABORT,
    /// Let it run, and keep the task stepping
    /// ([`Action::SingleStep`]): for an engine that steps the task, whose
    /// step a plain [`SyscallEntry::Run`] (a RESUME) would end when it is
    /// the last word before the task returns to user mode.
    Step = raw::UTRACE_SINGLESTEP,
    /// Let it run and detach this engine.
    Detach = raw::UTRACE_DETACH,
}

impl SyscallEntry {
    /// Its `enum utrace_resume_action` value with `UTRACE_SYSCALL_ABORT`
    /// for an abort (the discriminant: no table).
    pub(super) fn raw(self) -> u32 {
        self as u32
    }
}
