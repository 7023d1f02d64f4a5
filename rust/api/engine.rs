// SPDX-License-Identifier: GPL-2.0

//! The callbacks of an engine: [`Engine`] for the events reported where a
//! callback may sleep, [`SyscallEngine`] for the syscall events, reported in
//! atomic context with a context type that offers nothing that may sleep.

use super::{
    Action, CloneFlags, Context, Events, JctlReport, Signal, SignalReport, SleepingSyscall,
    SyscallContext, SyscallEntry, SyscallRegs,
};
use kernel::str::CStr;
use kernel::task::Task;

/// The callbacks of an engine. Every method has a default that does nothing.
///
/// Context: every callback but `reap` runs in process context with no lock
/// held, in the task the event belongs to (a `CLONE_VFORK` child reports its
/// parent's CLONE): it may sleep and allocate, but must not wait for user
/// space or for other tasks' progress. `reap` runs from a workqueue after
/// the task is gone and must not block. The engine value is dropped in
/// process context too, when the [`Tracer`](super::Tracer) and the last of
/// its engines are gone.
pub(crate) trait Engine: Send + Sync + Sized + 'static {
    /// QUIESCE: before each other event of this engine (`event` is that
    /// event), and with `event` empty at the safe point that
    /// [`Control::Stop`](super::Control::Stop), `Report` or `Interrupt`
    /// asked for. Return [`Action::Stop`] to stop (or stay stopped).
    fn quiesce(&self, _cx: &Context<'_, Self>, _event: Events) -> Action {
        Action::Resume
    }

    /// [`Context::task`] created `child`, which has not run yet. Engines
    /// attached to `child` from here see all its events from its first
    /// instruction. (For a `CLONE_VFORK` child the callback runs in the
    /// child, on behalf of its sleeping parent; `cx.task()` is the parent
    /// all the same.) Named `cloned`, not `clone`, so that it is never
    /// mistaken for [`Clone::clone`].
    fn cloned(&self, _cx: &Context<'_, Self>, _child: &Task, _flags: CloneFlags) -> Action {
        Action::Resume
    }

    /// The task exec'd `filename` (`None` if it could not be copied);
    /// `old_pid` is the thread id it had before (a non-leader thread that
    /// exec'd takes over the leader's).
    fn exec(&self, _cx: &Context<'_, Self>, _filename: Option<&CStr>, _old_pid: i32) -> Action {
        Action::Resume
    }

    /// The task is exiting with `orig_code` (`wait()` status format);
    /// `*code` (the same, or what an engine before this one made of it) may
    /// be changed.
    fn exit(&self, _cx: &Context<'_, Self>, _orig_code: i64, _code: &mut i64) -> Action {
        Action::Resume
    }

    /// The task is dead; `signal` is the signal its parent will be sent
    /// (`SIGCHLD` usually), `None` if none (the C ABI's -1, or 0).
    fn death(&self, _cx: &Context<'_, Self>, _group_dead: bool, _signal: Option<i32>) -> Action {
        Action::Resume
    }

    /// `task` was reaped; the engine is detached after this. Must not block.
    fn reap(&self, _task: &Task) {}

    /// SIGNAL_*: `sig` is about to be delivered to the task (its class says
    /// what would happen; its siginfo may be changed), or, with SIGNAL
    /// events, a handler frame was just set up for it
    /// ([`SignalClass::Handler`](super::SignalClass::Handler)). Not for
    /// SIGKILL, SIGCONT or a ptraced task, nor for INTERRUPT's report (see
    /// [`Engine::interrupt`]).
    fn signal(&self, _cx: &Context<'_, Self>, _sig: &mut SignalReport<'_>) -> Signal {
        Signal::Keep
    }

    /// With QUIESCE events: the report that [`Control::Interrupt`](super::Control::Interrupt)
    /// or a returned [`Action::Interrupt`] asked for, made as utrace made it:
    /// a signal report without a signal
    /// ([`SignalClass::Report`](super::SignalClass::Report), `sig.signo()`
    /// is 0), at the safe point before the kernel dequeues its pending
    /// signals (a blocked syscall was interrupted for it; it restarts unless
    /// a signal is delivered). Returns the resume action ([`Action::Stop`]
    /// stops the task; `Report` and `Interrupt` count as `Resume` here) and
    /// what to do: [`Signal::Keep`] or [`Signal::Ignore`] nothing,
    /// [`Signal::Deliver`] deliver the signal put in `sig`
    /// ([`SignalReport::set_signo`]; an artificial signal, reported to no
    /// engine), `Term`, `Core`, `Stop`, `Tstp` as a default SIGTERM, SIGQUIT,
    /// SIGSTOP, SIGTSTP would (`Hold` and `Suspend` count as `Keep`). The
    /// last engine's signal decision is done. The default is what a REPORT
    /// gets: [`Engine::quiesce`] with no event, and no signal.
    fn interrupt(&self, cx: &Context<'_, Self>, _sig: &mut SignalReport<'_>) -> (Action, Signal) {
        (self.quiesce(cx, Events::NONE), Signal::Keep)
    }

    /// JCTL: the process is about to stop for job control, or was
    /// continued ([`JctlReport::what`](super::JctlReport::what)); one
    /// thread's report per stop (continue) has
    /// [`JctlReport::notify`](super::JctlReport::notify).
    fn jctl(&self, _cx: &Context<'_, Self>, _jctl: JctlReport) -> Action {
        Action::Resume
    }
}

/// The syscall callbacks, for a tracer made with
/// [`Tracer::with_syscalls`](super::Tracer::with_syscalls). They run in
/// the syscall tracepoints, in atomic context: the [`SyscallContext`] offers
/// nothing that may sleep, and `regs` gives the syscall's number, arguments
/// and return value.
pub(crate) trait SyscallEngine: Engine {
    /// The task enters a syscall (its number and arguments are in `regs`,
    /// and may be changed). [`SyscallContext::resumed`] says it is the
    /// same entry again, after a [`SyscallEntry::Stop`].
    fn syscall_entry(&self, _cx: &SyscallContext<'_>, _regs: &mut SyscallRegs<'_>) -> SyscallEntry {
        SyscallEntry::Run
    }

    /// Instead of [`SyscallEngine::syscall_entry`], for a tracer made with
    /// [`Tracer::with_sleepable_syscalls`](super::Tracer::with_sleepable_syscalls):
    /// the task enters a syscall, reported from its own work before the
    /// syscall runs, in process context. It may sleep and read the task's
    /// memory ([`SleepingSyscall::read_user_str`], e.g. a path argument).
    /// While such an engine is attached to a task, every engine's entry
    /// callback on that task is called from there (see
    /// `Documentation/utrace-rs/api.rst`).
    fn syscall_entry_sleepable(
        &self,
        _cx: &SleepingSyscall<'_, Self>,
        _regs: &mut SyscallRegs<'_>,
    ) -> SyscallEntry {
        SyscallEntry::Run
    }

    /// The task leaves a syscall (its return value is in `regs`, and may be
    /// changed). [`Action::Stop`] takes effect as it returns to user mode.
    /// Atomic context, also for a sleepable tracer; a followed child's
    /// return from fork (= 0) comes from its task work, in process context,
    /// after its parent's CLONE callbacks.
    fn syscall_exit(&self, _cx: &SyscallContext<'_>, _regs: &mut SyscallRegs<'_>) -> Action {
        Action::Resume
    }
}
