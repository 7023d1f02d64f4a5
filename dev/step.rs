// SPDX-License-Identifier: GPL-2.0

//! `UTRACE_CTL_SINGLESTEP`: a thread the session holds stopped runs one
//! user instruction and stops again, with a STOPPED record, as
//! `PTRACE_SINGLESTEP` and the `waitpid()` after it do.
//!
//! The step is the framework's ([`Control::SingleStep`]): the thread leaves
//! its stop with the CPU's trap flag set, and the instruction's trap comes
//! as a SIGTRAP signal report (after the syscall, for a `syscall`
//! instruction). Until then every callback of the thread's engine returns
//! the step ([`Core::action`]), since any other action would end it. The
//! trap's SIGTRAP is the session's own: it is discarded, never delivered
//! (its default action would kill the program), and the thread stops there.
//! Another signal that comes first (the kernel dequeues a trap's SIGTRAP
//! before any other signal, so the instruction has not run) ends the step
//! the same way: the thread stops at that signal's report, and the signal
//! is carried out once `RESUME` ends the stop, as after ptrace's
//! signal-delivery stop. `RESUME` and `INTERRUPT` leave a stepping thread
//! alone: it stops when its step ends, and is resumed from there.
//!
//! [`Control::SingleStep`]: crate::utrace::Control::SingleStep

use kernel::bindings;

use crate::utrace::{uapi, Context, Events, Signal, SignalReport};
use crate::{key, Core};

/// A thread's single step.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// None under way.
    None,
    /// Asked: the thread runs its instruction; its trap stops it.
    Running,
}

impl Step {
    /// The events the engine needs beyond the user's while a step is under
    /// way: QUIESCE (the framework steps only engines with it) and the
    /// signal classes a SIGTRAP from a trap can have (a handler's, or the
    /// default core dump: the kernel un-ignores a forced SIGTRAP).
    pub(crate) fn events(self) -> Events {
        match self {
            Step::None => Events::NONE,
            Step::Running => Events::QUIESCE.or(Events::SIGNAL).or(Events::SIGNAL_CORE),
        }
    }
}

impl Core {
    /// The signal report `sig` (of the class `event`) of `cx`'s task while a step of it is under
    /// way: the step ends and the thread stops, announced by a STOPPED
    /// record (unless the session had stopped it already, whose QUIESCE
    /// report made one). `Some` with the decision for the step's SIGTRAP
    /// (discarded), `None` for another signal (the normal path decides, the
    /// thread now stopped) or no step. Atomic context: spinlock only.
    pub(crate) fn step_signal(
        &self,
        cx: &Context<'_, Self>,
        sig: &SignalReport<'_>,
        event: Events,
    ) -> Option<Signal> {
        let task = cx.task();
        let (id, newly_stopped) = {
            let mut st = self.state.lock();
            let t = st.find_mut(key(task))?;
            if t.step == Step::None {
                return None;
            }
            t.step = Step::None;
            let newly_stopped = !t.stop;
            t.stop = true;
            (t.engine_id, newly_stopped)
        };
        if newly_stopped {
            // The QUIESCE report of this signal came before the stop was
            // set: this is the STOPPED record.
            self.emit_new(task, id, uapi::REC_QUIESCE, true, |rec| {
                rec.put_u64(uapi::QUIESCE_EVENT, event.bits());
                rec.h.flags |= uapi::REC_F_STOPPED;
            });
        }
        (sig.signo() == bindings::SIGTRAP as i32).then_some(Signal::IgnoreStopped)
    }
}
