// SPDX-License-Identifier: GPL-2.0

//! Single-stepping a thread that a session holds stopped:
//! `UTRACE_CTL_SINGLESTEP` (`Documentation/utrace-rs/sessions.rst`).
//!
//! The session drops its stop and asks the engine API for a step
//! ([`Control::SingleStep`]); the thread runs one instruction (a syscall
//! instruction: the whole syscall) and traps. The trap comes as a SIGTRAP
//! signal report marked as utrace-rs's own
//! ([`SignalReport::is_step_trap`]): the session discards it, takes its
//! stop again and makes the QUIESCE record (`STOPPED | STEP`).
//!
//! Until the trap, every callback of the thread's engine keeps the step
//! asked for ([`Thread::action`] is `SingleStep`, a syscall entry answers
//! [`SyscallEntry::Step`], a signal report asks again with
//! [`Control::SingleStep`]): the engine API steps a task when the last
//! report before it returns to user mode says so, and a report by which
//! another engine stops the task is followed by a QUIESCE report in which
//! the step is asked again. STOP, RESUME and INTERRUPT end the step
//! (`stepping` false); a trap of a step that no longer is (it was already
//! on its way) is discarded all the same: utrace-rs set the trap flag, not
//! the program.

use crate::utrace::uapi;
use crate::utrace::{Action, Control, Events, Signal, SyscallEntry};
use crate::{key, log_allowed, Core, Session, Thread, INTERNAL};
use kernel::prelude::*;
use kernel::task::Task;

/// The events an engine needs while its thread steps: QUIESCE (which
/// [`Control::SingleStep`] needs, and whose report asks for the step
/// again) and the two a step's trap can be reported as (SIGNAL_CORE:
/// SIGTRAP's default; SIGNAL: a program that handles it).
pub(crate) const STEP_EVENTS: Events = Events::QUIESCE.or(Events::SIGNAL).or(Events::SIGNAL_CORE);

impl Thread {
    /// The events its engine needs besides the user's mask and the
    /// session's own: QUIESCE while the session holds it (its stop began
    /// with a QUIESCE report), [`STEP_EVENTS`] while it steps.
    pub(crate) fn extra_events(&self) -> Events {
        if self.stepping {
            STEP_EVENTS
        } else if self.holds() {
            Events::QUIESCE
        } else {
            Events::NONE
        }
    }

    /// What resumes it when the session lets it go on from a hold (room
    /// made, a decision answered): the step it is taking, if any.
    pub(crate) fn resume_control(&self) -> Control {
        if self.stepping {
            Control::SingleStep
        } else {
            Control::Resume
        }
    }
}

/// A syscall entry callback's answer for `act` ([`Core::action`]): the
/// step kept, a session stop taken before the syscall.
pub(crate) fn entry_answer(act: Action) -> SyscallEntry {
    match act {
        Action::Stop => SyscallEntry::Stop,
        Action::SingleStep => SyscallEntry::Step,
        _ => SyscallEntry::Run,
    }
}

impl Core {
    /// Whether `task`'s thread is taking a step.
    pub(crate) fn stepping(&self, task: &Task) -> bool {
        self.state
            .lock()
            .find(key(task))
            .is_some_and(|t| t.stepping)
    }

    /// The SIGTRAP of a step utrace-rs made, reported to `task`'s engine:
    /// the end of the session's step (the thread stops, its record is
    /// made), or a trap the session did not ask for or no longer waits
    /// for, discarded with the thread's stop kept if it holds one.
    pub(crate) fn step_trap(&self, task: &Task) -> Signal {
        if self.step_end(task) || self.action(task) == Action::Stop {
            Signal::IgnoreStopped
        } else {
            Signal::Ignore
        }
    }

    /// The HANDLER report of a signal delivered while `task` steps: as
    /// with ptrace, the step ends at the handler's first instruction (the
    /// kernel ended the stepping as it set up the frame); the signal's
    /// decision is kept. `None` if the thread does not step.
    pub(crate) fn step_into_handler(&self, task: &Task) -> Option<Signal> {
        self.step_end(task).then_some(Signal::KeepStopped)
    }

    /// Ends `task`'s step, if it takes one: the session holds it stopped
    /// again, and its QUIESCE record (`STOPPED | STEP`) wakes the reader
    /// once it sleeps in the stop. Whether it was stepping.
    fn step_end(&self, task: &Task) -> bool {
        let id = {
            let mut st = self.state.lock();
            match st.find_mut(key(task)) {
                Some(t) if t.stepping => {
                    // INVARIANT: a thread that is not stepping does not ask
                    // for a step (`Thread::action`).
                    t.stepping = false;
                    t.stop = true;
                    t.engine_id
                }
                _ => return false,
            }
        };
        self.emit_new(task, id, uapi::REC_QUIESCE, true, |rec| {
            rec.h.flags |= uapi::REC_F_STOPPED | uapi::REC_F_STEP;
        });
        true
    }
}

impl Session {
    /// `UTRACE_CTL_SINGLESTEP` of thread `tid` (0: the only one) of engine
    /// `engine_id`, which the session holds in its stop (`EBUSY`
    /// otherwise, also while the thread waits for room or a decision).
    pub(crate) fn singlestep(&self, c: &uapi::ControlArg) -> Result<isize> {
        let _ctl = self.ctl.lock();
        let held = self.held(c.engine_id, c.tid, "SINGLESTEP")?;
        let engine = held.engine;
        let task = engine.task().ok_or(ESRCH)?;
        let core = self.core();
        let mask = {
            let mut st = core.state.lock();
            let t = st.find_mut(key(task)).ok_or(ESRCH)?;
            if !t.stop || t.blocked || t.deciding() {
                drop(st);
                refusal!(
                    "uid {}: SINGLESTEP of tid {} refused: it waits for room or a decision\n",
                    self.uid,
                    task.pid()
                );
                return Err(EBUSY);
            }
            t.stop = false;
            t.stepping = true;
            Events::from_bits(t.events)
                .or(INTERNAL)
                .or(t.extra_events())
        };
        // Back in the stop, as before the call.
        let undo = |e: Error| -> Error {
            if let Some(t) = core.state.lock().find_mut(key(task)) {
                if t.stepping {
                    t.stepping = false;
                    t.stop = true;
                }
            }
            e
        };
        engine.set_events(mask).map_err(undo)?;
        // A callback in flight (a signal's report made from the stop) may
        // have read the stop before this call cleared it: its Stop must
        // land before the step is asked for.
        engine.barrier().map_err(undo)?;
        engine.control(Control::SingleStep).map_err(undo)?;
        Ok(0)
    }
}
