// SPDX-License-Identifier: GPL-2.0

//! Examining and stepping a thread that a session holds stopped:
//! `UTRACE_IOC_GETREGS`, `UTRACE_IOC_SETREGS` and `UTRACE_CTL_SINGLESTEP`
//! (`Documentation/utrace-rs/sessions.rst`).
//!
//! The registers are read and written through the thread's regset view (the
//! i386 one for a 32-bit task), as `PTRACE_GETREGSET` and
//! `PTRACE_SETREGSET` do, between the safe API's `examine` bounds: the
//! thread is in its stop and off its CPU. A step is the in-kernel
//! `Control::SingleStep`; its SIGTRAP is consumed by [`Core::step_trap`] and
//! the thread stops again, announced by a `QUIESCE` record.

use crate::utrace::{self, device::UserArg};
use crate::utrace::uapi;
use crate::utrace::{Context, Control, EngineRef, Events, Examined, Signal, SignalReport};
use crate::{key, log_allowed, ARefTask, Core, Session, INTERNAL};
use kernel::prelude::*;
use kernel::task::Task;

/// The most bytes of a regset copied by one call. x86's largest regset, the
/// XSAVE area (`NT_X86_XSTATE`) with AMX, is about 11 KiB.
const REGSET_MAX: usize = 64 * 1024;

const SIGTRAP: i32 = 5;
/// The `si_code`s of a step's SIGTRAP (x86: a #DB after an instruction;
/// after a syscall, the syscall-exit trap). An `int3` is `SI_KERNEL`.
const TRAP_BRKPT: i32 = 1;
const TRAP_TRACE: i32 = 2;

/// The trap of a step is a SIGNAL report (a handler's) or SIGNAL_CORE
/// (the default action of SIGTRAP).
const STEP_EVENTS: Events = Events::SIGNAL.or(Events::SIGNAL_CORE);

/// How many times, a millisecond apart, a call looks for a thread that the
/// session stopped to be in its stop: its QUIESCE record (STOPPED) is made
/// just before it gets there.
const REACH_TRIES: u32 = 100;

/// Times an examination is made again when the thread ran meanwhile (woken
/// in its stop for a moment: a SIGCONT, a late wake-up; it sleeps again).
const EXAMINE_TRIES: u32 = 3;

/// A thread of one of the session's engines that the session holds in its
/// stop, and that has reached it.
struct Held {
    task: ARefTask,
    engine: EngineRef<Core>,
}

/// `f` on the thread of `engine` between the safe API's examine bounds;
/// made again (at most [`EXAMINE_TRIES`] times) if the thread ran
/// meanwhile. May sleep.
fn examine<R>(engine: &EngineRef<Core>, mut f: impl FnMut(&Examined<'_>) -> R) -> Result<R> {
    let mut tries = 0;
    loop {
        match engine.examine(&mut f) {
            Err(e) if e == EAGAIN && tries < EXAMINE_TRIES => tries += 1,
            r => return r,
        }
    }
}

/// The regset calls' errors as the ioctls give them: no such regset in
/// the thread's view (or not on this CPU) is `EINVAL`, as for ptrace.
fn regset_errno(e: Error) -> Error {
    if e == ENODEV {
        EINVAL
    } else {
        e
    }
}

fn check_regs(r: &uapi::Regs) -> Result {
    if r.flags != 0 || r.reserved != 0 || r.tid < 0 {
        return Err(EINVAL);
    }
    Ok(())
}

impl Session {
    /// The thread `tid` (0: the only thread) of engine `engine_id`, once it
    /// is in the stop this session holds it in. `ENOENT`: no such engine;
    /// `EINVAL`: a global engine, or `tid` 0 and several threads; `ESRCH`:
    /// the engine has no such thread (or it is gone); `EBUSY`: the session
    /// does not hold it stopped; `EAGAIN`: not in its stop after
    /// [`REACH_TRIES`] milliseconds (a STOP it has not reached yet, a
    /// thread in a blocking syscall). May sleep.
    fn held(&self, engine_id: u64, tid: i32, what: &str) -> Result<Held> {
        let core = self.core();
        let (task, stop) = {
            let st = core.state.lock();
            if engine_id != 0 && st.global_id == engine_id {
                return Err(EINVAL);
            }
            let mut known = false;
            let mut found = None;
            for t in st.threads.iter().filter(|t| t.engine_id == engine_id) {
                known = true;
                let Some(task) = t.engine.as_ref().and_then(|e| e.task()) else {
                    continue;
                };
                if tid != 0 && core.file.ids(task).1 != tid {
                    continue;
                }
                if found.is_some() {
                    // tid 0 with several threads: which one?
                    return Err(EINVAL);
                }
                found = Some((ARefTask::from(task), t.stop));
            }
            if !known {
                return Err(ENOENT);
            }
            found.ok_or(ESRCH)?
        };
        if !stop {
            refusal!(
                "uid {}: {} of tid {} refused: the session does not hold it stopped (UTRACE_CTL_STOP first)\n",
                self.uid,
                what,
                task.pid()
            );
            return Err(EBUSY);
        }
        let engine = self.tracer.lookup(&task).map_err(|_| ESRCH)?;
        for _ in 0..REACH_TRIES {
            match engine.examine(|_| ()) {
                Ok(()) => return Ok(Held { task, engine }),
                Err(e) if e == EAGAIN => utrace::msleep(1),
                // The engine's stop is not in force (a SET_EVENTS resumed it).
                Err(e) if e == EINVAL => return Err(EBUSY),
                Err(e) => return Err(e),
            }
        }
        Err(EAGAIN)
    }

    /// `UTRACE_IOC_GETREGS`: copies the start of the regset to `buf`, at
    /// most `len` bytes; `len` out: the bytes copied.
    pub(crate) fn getregs(&self, arg: UserArg) -> Result<isize> {
        let mut r: uapi::Regs = arg.read_struct()?;
        check_regs(&r)?;
        let held = self.held(r.engine_id, r.tid, "GETREGS")?;
        let len = usize::try_from(r.len).unwrap_or(usize::MAX).min(REGSET_MAX);
        let mut buf = KVVec::from_elem(0u8, len, GFP_KERNEL)?;
        let n = examine(&held.engine, |ex| ex.regset_get(r.note_type, &mut buf))?
            .map_err(regset_errno)?;
        UserArg(r.buf).write_bytes(buf.get(..n).ok_or(EINVAL)?)?;
        r.len = n as u64;
        arg.write_struct(&r)?;
        Ok(0)
    }

    /// `UTRACE_IOC_SETREGS`: writes the first `len` bytes of `buf` to the
    /// start of the regset (bytes beyond the regset's size are not read),
    /// validated by the regset's own `set()`; `len` out: the bytes written.
    pub(crate) fn setregs(&self, arg: UserArg) -> Result<isize> {
        let mut r: uapi::Regs = arg.read_struct()?;
        check_regs(&r)?;
        let held = self.held(r.engine_id, r.tid, "SETREGS")?;
        let len = usize::try_from(r.len).unwrap_or(usize::MAX).min(REGSET_MAX);
        let mut buf = KVVec::from_elem(0u8, len, GFP_KERNEL)?;
        let n = examine(&held.engine, |ex| -> Result<usize> {
            // The regset's size (at most `len`): what ptrace writes too.
            let n = ex.regset_get(r.note_type, &mut buf)?;
            let bytes = buf.get_mut(..n).ok_or(EINVAL)?;
            UserArg(r.buf).read_bytes(bytes)?;
            ex.regset_set(r.note_type, bytes)?;
            Ok(n)
        })?
        .map_err(regset_errno)?;
        r.len = n as u64;
        arg.write_struct(&r)?;
        Ok(0)
    }

    /// `UTRACE_CTL_SINGLESTEP`: the thread (one: `tid`, or 0 if the engine
    /// has only one), held stopped, runs one instruction and stops again;
    /// a `QUIESCE` record with `UTRACE_REC_F_STOPPED` says it did.
    pub(crate) fn single_step(&self, c: &uapi::ControlArg) -> Result<isize> {
        let held = self.held(c.engine_id, c.tid, "SINGLESTEP")?;
        let _ctl = self.ctl.lock();
        let core = self.core();
        let mask = {
            let mut st = core.state.lock();
            let t = st.find_mut(key(&held.task)).ok_or(ESRCH)?;
            if t.engine_id != c.engine_id {
                return Err(ESRCH);
            }
            if !t.stop {
                // Resumed by another thread of the caller meanwhile.
                return Err(EBUSY);
            }
            t.stepping = true;
            // QUIESCE for the report that stops it again.
            Events::from_bits(t.events)
                .or(INTERNAL)
                .or(Events::QUIESCE)
                .or(STEP_EVENTS)
        };
        let stepped = held
            .engine
            .set_events(mask)
            .and_then(|()| held.engine.control(Control::SingleStep));
        if let Err(e) = stepped {
            if let Some(t) = core.state.lock().find_mut(key(&held.task)) {
                t.stepping = false;
            }
            return Err(e);
        }
        Ok(0)
    }
}

impl Core {
    /// The events a thread being single-stepped needs for its trap
    /// ([`Core::step_trap`]) beside its mask: none for another.
    pub(crate) fn step_events(&self, task: &Task) -> Events {
        let stepping = self.state.lock().find(key(task)).is_some_and(|t| t.stepping);
        if stepping {
            STEP_EVENTS
        } else {
            Events::NONE
        }
    }

    /// Whether `task` is taking a step the session asked for and holds it
    /// stopped after: every callback until its trap returns
    /// `Action::SingleStep` (a `Stop` would end the step before its
    /// instruction, a `Resume` would cancel it), without a record.
    pub(crate) fn step_in_progress(&self, task: &Task) -> bool {
        self.state
            .lock()
            .find(key(task))
            .is_some_and(|t| t.stepping && t.stop)
    }

    /// The signal report `sig` of a thread the session single-steps: the
    /// step's trap (SIGTRAP with `TRAP_TRACE`, or `TRAP_BRKPT` after a
    /// syscall) is consumed, without a `SIGNAL` record, and the thread stops
    /// again at its next safe point (a QUIESCE report, which
    /// [`utrace::Engine::quiesce`] records as the stop) if the session
    /// still holds it. Another signal is left to the caller and the step
    /// goes on (into the signal's handler, if one runs, as
    /// `PTRACE_SINGLESTEP` does). `None`: not a stepping thread's trap.
    ///
    /// [`utrace::Engine::quiesce`]: crate::utrace::Engine::quiesce
    pub(crate) fn step_trap(&self, cx: &Context<'_, Self>, sig: &SignalReport<'_>) -> Option<Signal> {
        if cx.is_global() {
            return None;
        }
        let (stop, trap) = {
            let mut st = self.state.lock();
            let t = st.find_mut(key(cx.task()))?;
            if !t.stepping {
                return None;
            }
            let trap = sig.signo() == SIGTRAP && matches!(sig.code(), TRAP_BRKPT | TRAP_TRACE);
            if trap {
                t.stepping = false;
            }
            (t.stop, trap)
        };
        if !trap {
            if stop {
                // The step's action, asked again: this report's Resume
                // would end it (the smallest action wins).
                let _ = cx.control(Control::SingleStep);
            }
            return None;
        }
        if stop {
            let _ = cx.control(Control::Report);
        }
        Some(Signal::Ignore)
    }
}
