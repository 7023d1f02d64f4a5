// SPDX-License-Identifier: GPL-2.0

//! Examining a thread that a session holds stopped: `UTRACE_IOC_GETREGS`
//! and `UTRACE_IOC_SETREGS` (`Documentation/utrace-rs/sessions.rst`).
//!
//! The registers are read and written through the thread's regset view (the
//! i386 one for a 32-bit task), as `PTRACE_GETREGSET` and
//! `PTRACE_SETREGSET` do, between the safe API's `examine` bounds: the
//! thread is in its stop and off its CPU.

use crate::utrace::uapi;
use crate::utrace::{self, device::UserArg};
use crate::utrace::{EngineRef, Examined};
use crate::{log_allowed, ARefTask, Core, Session};
use kernel::prelude::*;

/// The most bytes of a regset copied by one call. x86's largest regset, the
/// XSAVE area (`NT_X86_XSTATE`) with AMX, is about 11 KiB.
const REGSET_MAX: usize = 64 * 1024;

/// How many times, a millisecond apart, a call looks for a thread that the
/// session stopped to be in its stop: its QUIESCE record (STOPPED) is made
/// just before it gets there.
const REACH_TRIES: u32 = 100;

/// Times an examination is made again when the thread ran meanwhile (woken
/// in its stop for a moment: a SIGCONT, a late wake-up; it sleeps again).
const EXAMINE_TRIES: u32 = 3;

/// A thread of one of the session's engines that the session holds in its
/// stop, and that has reached it.
pub(crate) struct Held {
    pub(crate) engine: EngineRef<Core>,
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
    pub(crate) fn held(&self, engine_id: u64, tid: i32, what: &str) -> Result<Held> {
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
        let mut last = EAGAIN;
        for _ in 0..REACH_TRIES {
            match engine.examine(|_| ()) {
                Ok(()) => return Ok(Held { engine }),
                Err(e) if e == EAGAIN => {}
                // The engine's stop is not in force: not yet (the callback
                // that made the record, a signal's report outside the
                // task's work, has not returned its Stop), or no longer
                // (a SET_EVENTS resumed it).
                Err(e) if e == EINVAL => {
                    let stop = core
                        .state
                        .lock()
                        .find(crate::key(&task))
                        .is_some_and(|t| t.stop);
                    if !stop {
                        return Err(EBUSY);
                    }
                    last = EBUSY;
                }
                Err(e) => return Err(e),
            }
            utrace::msleep(1);
        }
        Err(last)
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
}
