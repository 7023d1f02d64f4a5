// SPDX-License-Identifier: GPL-2.0

//! Signals: what [`Engine::signal`](super::Engine::signal) is told
//! ([`SignalReport`], [`SignalClass`]) and what it decides ([`Signal`]);
//! what [`Engine::jctl`](super::Engine::jctl) is told ([`JctlReport`],
//! [`JobControl`]).

use super::raw;
use kernel::bindings;

/// What will happen to a signal (`enum utrace_signal_action`): its
/// disposition's class for the first engine, what the engine before made of
/// it for the others.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SignalClass {
    /// A handler will run (event SIGNAL).
    Deliver,
    /// It will be ignored (SIGNAL_IGN).
    Ignore,
    /// It kills without a core dump (SIGNAL_TERM).
    Term,
    /// It kills with a core dump (SIGNAL_CORE).
    Core,
    /// SIGSTOP: the process stops (SIGNAL_STOP).
    Stop,
    /// SIGTSTP, SIGTTIN, SIGTTOU: a job-control stop (SIGNAL_STOP).
    Tstp,
    /// A handler frame was set up for it: the handler runs next. Only
    /// reported to engines with SIGNAL events; the decision is not used.
    Handler,
    /// No signal: the report an INTERRUPT asked for (utrace's
    /// `UTRACE_SIGNAL_REPORT`), made to [`Engine::interrupt`](super::Engine::interrupt)
    /// before the kernel dequeues the pending signals. The siginfo is zeroed
    /// ([`SignalReport::signo`] is 0); [`SignalReport::set_signo`] and
    /// [`Signal::Deliver`] deliver an artificial signal.
    Report,
}

impl SignalClass {
    fn from_raw(action: u32) -> SignalClass {
        match action & raw::UTRACE_SIGNAL_MASK {
            raw::UTRACE_SIGNAL_IGN => SignalClass::Ignore,
            raw::UTRACE_SIGNAL_TERM => SignalClass::Term,
            raw::UTRACE_SIGNAL_CORE => SignalClass::Core,
            raw::UTRACE_SIGNAL_STOP => SignalClass::Stop,
            raw::UTRACE_SIGNAL_TSTP => SignalClass::Tstp,
            raw::UTRACE_SIGNAL_HANDLER => SignalClass::Handler,
            raw::UTRACE_SIGNAL_REPORT => SignalClass::Report,
            _ => SignalClass::Deliver,
        }
    }
}

/// What [`Engine::signal`](super::Engine::signal) decides. The last engine's
/// decision is what is done.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Signal {
    /// Leave the decision as the engines before this one made it (the
    /// signal's own class for the first; an earlier engine's
    /// [`Signal::Hold`] included): the default.
    Keep,
    /// Deliver it as the disposition says (a handler, or the default action).
    Deliver,
    /// Discard it.
    Ignore,
    /// Kill the process (without a core dump).
    Term,
    /// Kill the process with a core dump.
    Core,
    /// Stop the process (as SIGSTOP).
    Stop,
    /// Job-control stop (as SIGTSTP).
    Tstp,
    /// [`Signal::Keep`]'s decision, with this engine's stop kept (utrace's
    /// `UTRACE_STOP` with the signal action unchanged): the signal is
    /// carried out once every engine that stops the task resumed it, and
    /// not reported again. For an engine that holds the task stopped
    /// across a signal report (a [`Signal::Keep`] would end its stop).
    KeepStopped,
    /// Discard it and stop the task (utrace's `UTRACE_STOP |
    /// UTRACE_SIGNAL_IGN`), until this engine resumes it: for an engine
    /// that stops after its own step's trap.
    IgnoreStopped,
    /// Push it back and stop the task (utrace's `UTRACE_STOP |
    /// UTRACE_SIGNAL_HOLD`): it is reported again once every engine that
    /// stopped the task resumed it ([`Control::Resume`](super::Control)).
    Hold,
    /// Keep it queued and stop the whole process in a real group stop
    /// (`ps` shows T, `gdb -p` can attach) until SIGCONT, which delivers it
    /// (`UTRACE_SIGNAL_SUSPEND`); detaching this engine continues it too.
    Suspend,
}

impl Signal {
    pub(super) fn raw(self, action: u32) -> u32 {
        let resume = raw::UTRACE_RESUME;
        match self {
            // An earlier engine's HOLD is part of the decision kept.
            Signal::Keep => (action & (raw::UTRACE_SIGNAL_MASK | raw::UTRACE_SIGNAL_HOLD)) | resume,
            Signal::KeepStopped => {
                (action & (raw::UTRACE_SIGNAL_MASK | raw::UTRACE_SIGNAL_HOLD)) | raw::UTRACE_STOP
            }
            Signal::Deliver => raw::UTRACE_SIGNAL_DELIVER | resume,
            Signal::Ignore => raw::UTRACE_SIGNAL_IGN | resume,
            Signal::IgnoreStopped => raw::UTRACE_SIGNAL_IGN | raw::UTRACE_STOP,
            Signal::Term => raw::UTRACE_SIGNAL_TERM | resume,
            Signal::Core => raw::UTRACE_SIGNAL_CORE | resume,
            Signal::Stop => raw::UTRACE_SIGNAL_STOP | resume,
            Signal::Tstp => raw::UTRACE_SIGNAL_TSTP | resume,
            Signal::Hold => {
                (action & raw::UTRACE_SIGNAL_MASK) | raw::UTRACE_SIGNAL_HOLD | raw::UTRACE_STOP
            }
            Signal::Suspend => raw::UTRACE_SIGNAL_SUSPEND | raw::UTRACE_STOP,
        }
    }
}

/// A signal about to be delivered (or whose handler frame was just set up,
/// or none: INTERRUPT's report): its siginfo, which the engine may change,
/// and its class.
pub(crate) struct SignalReport<'a> {
    pub(super) action: u32,
    pub(super) info: &'a mut bindings::kernel_siginfo,
    /// `return_ka`: null for a HANDLER or INTERRUPT report.
    pub(super) return_ka: *mut bindings::k_sigaction,
}

/// `si_code` values at or below this come from user space (kill(),
/// sigqueue(), tkill()): the siginfo names the sender.
const SI_USER_MAX: i32 = 0;

impl SignalReport<'_> {
    /// What will happen to it (see [`SignalClass`]).
    pub(crate) fn class(&self) -> SignalClass {
        SignalClass::from_raw(self.action)
    }

    /// The signal number.
    pub(crate) fn signo(&self) -> i32 {
        self.info.__bindgen_anon_1.si_signo
    }

    /// Whether it is the trap of a step utrace-rs made
    /// ([`Action::SingleStep`](super::Action), [`Control::SingleStep`](super::Control),
    /// or the block steps; `UTRACE_SIGNAL_STEP`): utrace-rs had set the
    /// trap flag, not the program. An engine that did not ask for a step
    /// leaves it to the one that did, or ignores it; none delivers it.
    pub(crate) fn is_step_trap(&self) -> bool {
        self.action & raw::UTRACE_SIGNAL_STEP != 0
    }

    /// `si_code`: why it was sent (`SI_USER`, `SEGV_MAPERR`, ...).
    pub(crate) fn code(&self) -> i32 {
        self.info.__bindgen_anon_1.si_code
    }

    /// `si_errno`.
    pub(crate) fn errno(&self) -> i32 {
        self.info.__bindgen_anon_1.si_errno
    }

    /// The faulting address of a fault the kernel sent (SIGSEGV, SIGBUS,
    /// SIGILL, SIGFPE, SIGTRAP with a kernel `si_code`).
    pub(crate) fn fault_addr(&self) -> Option<usize> {
        let fault = [
            bindings::SIGSEGV,
            bindings::SIGBUS,
            bindings::SIGILL,
            bindings::SIGFPE,
            bindings::SIGTRAP,
        ];
        if self.code() <= SI_USER_MAX || !fault.iter().any(|&s| s as i32 == self.signo()) {
            return None;
        }
        // SAFETY: A kernel fault's siginfo uses the `_sigfault` member.
        let addr = unsafe { self.info.__bindgen_anon_1._sifields._sigfault._addr };
        Some(addr as usize)
    }

    /// The sender's pid and uid (as the task's namespaces see them) of a
    /// signal sent from user space.
    pub(crate) fn sender(&self) -> Option<(i32, u32)> {
        if self.code() > SI_USER_MAX || self.signo() == 0 {
            return None;
        }
        // SAFETY: A user-sent siginfo uses the `_kill` member (`_rt` and
        // `_timer` start with the same fields).
        let kill = unsafe { self.info.__bindgen_anon_1._sifields._kill };
        Some((kill._pid, kill._uid))
    }

    /// Delivers `sig` instead (0: nothing). The rest of the siginfo stays.
    pub(crate) fn set_signo(&mut self, sig: i32) {
        self.info.__bindgen_anon_1.si_signo = sig;
    }

    /// The raw siginfo, to read or change anything else.
    pub(crate) fn info_mut(&mut self) -> &mut bindings::kernel_siginfo {
        self.info
    }

    /// For this delivery only, as if its disposition were the default
    /// (`return_ka`'s handler `SIG_DFL`), or ignored (`SIG_IGN`). Nothing
    /// in a HANDLER or an INTERRUPT report.
    pub(crate) fn set_disposition(&mut self, ignore: bool) {
        if self.return_ka.is_null() {
            return;
        }
        // SAFETY: `return_ka` is the framework's copy, ours during the
        // callback; `sa_handler` is its first field, a pointer-sized value
        // (SIG_DFL is 0, SIG_IGN is 1).
        unsafe { self.return_ka.cast::<usize>().write(usize::from(ignore)) };
    }
}

/// What a JCTL report is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum JobControl {
    /// The process is about to stop for job control (`CLD_STOPPED`): the
    /// task reports before it stops.
    Stopped,
    /// The process was continued (SIGCONT, `CLD_CONTINUED`).
    Continued,
}

/// A JCTL report ([`Engine::jctl`](super::Engine::jctl)): each thread with
/// a JCTL engine gets one per stop and per continue of its process.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JctlReport {
    what: JobControl,
    notify: bool,
}

impl JctlReport {
    /// From `report_jctl`'s `type` (`CLD_STOPPED` or `CLD_CONTINUED`) and
    /// `notify` (that type, or 0).
    pub(super) fn from_raw(type_: i32, notify: i32) -> JctlReport {
        JctlReport {
            what: if type_ == bindings::CLD_STOPPED as i32 {
                JobControl::Stopped
            } else {
                JobControl::Continued
            },
            notify: notify != 0,
        }
    }

    /// A stop or a continue.
    pub(crate) fn what(&self) -> JobControl {
        self.what
    }

    /// Whether it is a stop.
    pub(crate) fn stopped(&self) -> bool {
        self.what == JobControl::Stopped
    }

    /// Whether the parent's notification of this stop (continue) goes with
    /// this thread's report (utrace's `notify`): true in exactly one
    /// thread's report per stop and per continue, the thread the signal was
    /// sent to if it has a JCTL engine, else another live one that has.
    pub(crate) fn notify(&self) -> bool {
        self.notify
    }
}
