// SPDX-License-Identifier: GPL-2.0

//! Decisions from user space: `UTRACE_IOC_DECIDE`.
//!
//! An engine attached with `UTRACE_ATTACH_F_DECIDE_SYSCALL` (or `_SIGNAL`)
//! writes its SYSCALL_ENTRY (SIGNAL) records with `UTRACE_REC_F_DECIDE` and
//! stops the thread in a utrace stop until the session answers with that
//! record's seq: before the syscall runs ([`SyscallEntry::Stop`]), or with
//! the signal pushed back ([`Signal::Hold`]). The open decision is in the
//! thread's entry ([`Waiting`]); the answer replaces it ([`Decided`]) and
//! resumes the thread; the entry (signal) is reported again and the verdict
//! carried out there (SUSPEND: [`Signal::Suspend`], the framework's group
//! stop with the signal kept until SIGCONT or the engine's detach). A
//! thread has at most one decision open; other signals reported meanwhile
//! are pushed back unrecorded and come again once it is answered.
//!
//! Nothing waits for user space but the traced thread, in its killable
//! utrace stop: SIGKILL ends it; a detach (also the session's end) lets
//! the syscall run and the signal be delivered, as without the session.

use crate::utrace::device::{self, UserArg};
use crate::utrace::uapi::{self, Record};
use crate::utrace::{Context, Signal, SignalReport, SyscallContext, SyscallEntry, SyscallRegs};
use crate::{key, ARefTask, Core, Session, Thread};
use kernel::prelude::*;
use kernel::task::Task;

/// `ESTALE`: the record is not waiting for an answer (the 6.12 kernel
/// crate does not name it).
fn estale() -> kernel::error::Error {
    device::errno(kernel::bindings::ESTALE)
}

/// The largest errno an ABORT may return (the kernel's `MAX_ERRNO`).
const MAX_ERRNO: i32 = 4095;
/// `SI_TKILL`: the `si_code` of tkill() and tgkill().
const SI_TKILL: i32 = -6;
/// Bytes of the kernel's siginfo (`kernel_siginfo`) at the start of a
/// user `siginfo_t`; the rest must be zero.
const SIGINFO_KERNEL: usize = 48;

/// What a decision is about.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Syscall,
    Signal,
}

/// The verdict on an open decision, carried out when the thread reports
/// the syscall entry (signal) again.
#[derive(Clone, Copy)]
enum Verdict {
    /// Run the syscall, with these arguments if given.
    Run(Option<[u64; 6]>),
    /// Do not run it: it returns `-errno`.
    Abort(i32),
    /// Deliver the signal as its disposition says, with this siginfo if
    /// given.
    Deliver(Option<[u8; SIGINFO_KERNEL]>),
    /// Discard the signal.
    Ignore,
    /// Stop the process in a group stop with the signal kept, until
    /// SIGCONT (or the engine's detach) delivers it.
    Suspend,
}

/// A thread's open decision: its record was written, the answer has not
/// come (or was HOLD). The thread stays stopped meanwhile.
pub(crate) struct Waiting {
    /// The record's seq; 0 while it waits for room in the ring (lossless).
    seq: u64,
    kind: Kind,
    /// The signal and its siginfo as recorded.
    signo: i32,
    info: [u8; SIGINFO_KERNEL],
    /// Answered with HOLD: open for a final verdict.
    held: bool,
}

/// An answered decision, to carry out when the thread reports the syscall
/// entry (signal) again.
pub(crate) struct Decided {
    kind: Kind,
    signo: i32,
    verdict: Verdict,
}

impl Thread {
    /// Whether an open decision keeps the thread stopped.
    pub(crate) fn deciding(&self) -> bool {
        self.waiting.is_some()
    }

    /// Its waiting record went to the ring as `seq`.
    pub(crate) fn numbered(&mut self, seq: u64) {
        if let Some(w) = self.waiting.as_mut().filter(|w| w.seq == 0) {
            w.seq = seq;
        }
    }

    /// Whether its engine decides `kind`.
    pub(crate) fn decides(&self, kind: Kind) -> bool {
        let bit = match kind {
            Kind::Syscall => uapi::ATTACH_F_DECIDE_SYSCALL,
            Kind::Signal => uapi::ATTACH_F_DECIDE_SIGNAL,
        };
        self.decide & bit != 0
    }
}

impl Core {
    /// Emits `rec` (the SYSCALL_ENTRY or SIGNAL record of `task`'s event)
    /// for engine `engine_id`; when the engine decides `kind` and the
    /// thread has no decision open, with `UTRACE_REC_F_DECIDE` and the
    /// decision opened in the same section. Returns whether the thread is
    /// to wait for the answer: not when the record was dropped (lossy mode,
    /// buffer full: counted in LOST), nor without a decision.
    fn emit_decide(
        &self,
        task: &Task,
        engine_id: u64,
        mut rec: Record,
        kind: Kind,
        force: bool,
    ) -> bool {
        self.stamp(task, engine_id, &mut rec);
        let mut waiting = Waiting {
            seq: 0,
            kind,
            signo: 0,
            info: [0; SIGINFO_KERNEL],
            held: false,
        };
        if kind == Kind::Signal {
            waiting.signo = i32::from_ne_bytes(word(&rec.payload, uapi::SIGNAL_SIGNO));
            let at = uapi::SIGNAL_SIGINFO;
            waiting
                .info
                .copy_from_slice(&rec.payload[at..at + SIGINFO_KERNEL]);
        }
        let mut st = self.state.lock();
        let full = st.count >= st.slots();
        let Some(t) = st.find_mut(key(task)) else {
            drop(st);
            // Not (or no longer) the session's: as any record.
            self.emit(task, engine_id, rec);
            return false;
        };
        let decides = (t.decides(kind) || force) && t.waiting.is_none();
        if decides {
            rec.h.flags |= uapi::REC_F_DECIDE;
        }
        if full {
            if t.lossless && t.pending.is_none() {
                // It waits for room with the thread stopped (see
                // `Core::emit`); a decision is numbered when a read moves
                // it to the ring.
                t.pending = Some(rec);
                t.blocked = true;
                if decides {
                    t.waiting = Some(waiting);
                }
                return decides;
            }
            // Dropped and counted: no answer can come, no wait.
            st.push(rec);
            drop(st);
            self.file.wake();
            return false;
        }
        st.push(rec);
        if decides {
            // There was room: `push` stored it with the last seq.
            waiting.seq = st.seq - 1;
            if let Some(t) = st.find_mut(key(task)) {
                t.waiting = Some(waiting);
            }
        }
        drop(st);
        self.file.wake();
        decides
    }

    /// Emits the SYSCALL_ENTRY record `rec`, to be decided on if its
    /// engine decides syscalls or `incomplete` (its capture is not whole:
    /// `UTRACE_CAPTURE_F_DECIDE`). With a decision to wait for,
    /// [`Core::action`] stops the entry.
    pub(crate) fn emit_syscall_entry(
        &self,
        task: &Task,
        engine_id: u64,
        rec: Record,
        incomplete: bool,
    ) {
        self.emit_decide(task, engine_id, rec, Kind::Syscall, incomplete);
    }

    /// SYSCALL_ENTRY of `cx`'s task, reported again after its stop: carries
    /// out the answer to its decision, unless a session stop holds it.
    /// Called first in the entry callback (atomic context: spinlock only).
    pub(crate) fn syscall_decided(
        &self,
        cx: &SyscallContext<'_>,
        regs: &mut SyscallRegs<'_>,
    ) -> Option<SyscallEntry> {
        if !cx.resumed() {
            return None;
        }
        let verdict = {
            let mut st = self.state.lock();
            let t = st.find_mut(key(cx.task()))?;
            let d = t.decided.as_ref()?;
            if d.kind != Kind::Syscall || t.stop || t.blocked || t.waiting.is_some() {
                return None;
            }
            let v = d.verdict;
            t.decided = None;
            v
        };
        Some(match verdict {
            Verdict::Run(Some(args)) => {
                for (i, a) in args.iter().enumerate() {
                    // `i` is below 6: cannot fail.
                    let _ = regs.set_arg(i, *a);
                }
                SyscallEntry::Run
            }
            Verdict::Abort(errno) => {
                regs.set_return_value(-i64::from(errno));
                SyscallEntry::Abort
            }
            _ => SyscallEntry::Run,
        })
    }

    /// SIGNAL of `cx`'s task (a per-task engine's), whose record the
    /// session wants (`id`: its engine) or not (`None`): carries out the
    /// answer to a decision on this signal; keeps the signal back
    /// (unrecorded, it comes again) while a decision is open; else emits
    /// the record `rec` makes and, for an engine that decides signals,
    /// holds the signal until the answer.
    pub(crate) fn signal_decide(
        &self,
        cx: &Context<'_, Self>,
        sig: &mut SignalReport<'_>,
        id: Option<u64>,
        rec: impl FnOnce(&mut SignalReport<'_>) -> Record,
    ) -> Signal {
        let signo = sig.signo();
        let (verdict, stopped) = {
            let mut st = self.state.lock();
            match st.find_mut(key(cx.task())) {
                Some(t) => {
                    let mine = t
                        .decided
                        .as_ref()
                        .is_some_and(|d| d.kind == Kind::Signal && d.signo == signo);
                    if t.waiting.is_some() || mine && (t.stop || t.blocked) {
                        // The answer (or the session's RESUME) resumes the
                        // thread; the signal is reported again then.
                        return Signal::Hold;
                    }
                    let verdict = if mine {
                        t.decided.take().map(|d| d.verdict)
                    } else {
                        None
                    };
                    (verdict, t.stop)
                }
                None => (None, false),
            }
        };
        match verdict {
            Some(Verdict::Deliver(Some(info))) => {
                device::set_siginfo_bytes(sig, &info);
                return Signal::Keep;
            }
            Some(Verdict::Ignore) => return Signal::Ignore,
            Some(Verdict::Suspend) => return Signal::Suspend,
            Some(_) => return Signal::Keep,
            None => {}
        }
        // A session stop stays in force across the report (Keep's RESUME
        // would end it): the signal is recorded now and carried out once
        // RESUME ends the stop.
        let keep = if stopped {
            Signal::KeepStopped
        } else {
            Signal::Keep
        };
        let Some(id) = id else {
            return keep;
        };
        let r = rec(sig);
        if self.emit_decide(cx.task(), id, r, Kind::Signal, false) {
            Signal::Hold
        } else {
            keep
        }
    }
}

/// The `i32` at `off` of `b`.
fn word(b: &[u8], off: usize) -> [u8; 4] {
    let mut w = [0; 4];
    if let Some(s) = b.get(off..off + 4) {
        w.copy_from_slice(s);
    }
    w
}

/// A `UTRACE_IOC_DECIDE` argument, checked for what does not depend on
/// the record it answers.
struct Answer {
    verdict: u32,
    flags: u32,
    errno: i32,
    args: [u64; 6],
    info: [u8; SIGINFO_KERNEL],
}

impl Answer {
    fn parse(d: &uapi::Decide) -> Result<Answer> {
        if d.reserved != 0 || d.flags & !(uapi::DECIDE_F_ARGS | uapi::DECIDE_F_SIGINFO) != 0 {
            return Err(EINVAL);
        }
        let args_ok = matches!(d.verdict, uapi::VERDICT_RUN | uapi::VERDICT_STOP);
        let info_ok = matches!(d.verdict, uapi::VERDICT_DELIVER | uapi::VERDICT_STOP);
        if d.flags & uapi::DECIDE_F_ARGS != 0 && !args_ok
            || d.flags & uapi::DECIDE_F_SIGINFO != 0 && !info_ok
            || d.flags == uapi::DECIDE_F_ARGS | uapi::DECIDE_F_SIGINFO
        {
            return Err(EINVAL);
        }
        // What a flag does not announce must be zero.
        if d.flags & uapi::DECIDE_F_ARGS == 0 && d.args != [0; 6] {
            return Err(EINVAL);
        }
        if d.flags & uapi::DECIDE_F_SIGINFO == 0 && d.siginfo != [0; 16] {
            return Err(EINVAL);
        }
        match d.verdict {
            uapi::VERDICT_ABORT if !(1..=MAX_ERRNO).contains(&d.value) => return Err(EINVAL),
            uapi::VERDICT_ABORT => {}
            uapi::VERDICT_RUN
            | uapi::VERDICT_DELIVER
            | uapi::VERDICT_IGNORE
            | uapi::VERDICT_HOLD
            | uapi::VERDICT_STOP
            | uapi::VERDICT_SUSPEND
                if d.value == 0 => {}
            _ => return Err(EINVAL),
        }
        let mut bytes = [0u8; uapi::SIGINFO_SIZE];
        for (i, w) in d.siginfo.iter().enumerate() {
            bytes[8 * i..8 * i + 8].copy_from_slice(&w.to_ne_bytes());
        }
        // The kernel's siginfo ends at 48 bytes; a longer one is refused as
        // copy_siginfo_from_user() refuses it.
        if bytes[SIGINFO_KERNEL..].iter().any(|&b| b != 0) {
            return Err(E2BIG);
        }
        let mut info = [0u8; SIGINFO_KERNEL];
        info.copy_from_slice(&bytes[..SIGINFO_KERNEL]);
        Ok(Answer {
            verdict: d.verdict,
            flags: d.flags,
            errno: d.value,
            args: d.args,
            info,
        })
    }

    /// Checked against the open decision `w`: the verdict fits its kind
    /// (`EINVAL`), HOLD only once (`ESTALE`), a new siginfo is one the
    /// caller may send (`EINVAL`, `EPERM`). Returns the verdict (`None`
    /// for HOLD) and whether the thread stays stopped (STOP).
    fn check(&self, w: &Waiting) -> Result<(Option<Verdict>, bool)> {
        let syscall = w.kind == Kind::Syscall;
        let fits = match self.verdict {
            uapi::VERDICT_RUN | uapi::VERDICT_ABORT => syscall,
            uapi::VERDICT_DELIVER
            | uapi::VERDICT_IGNORE
            | uapi::VERDICT_HOLD
            | uapi::VERDICT_SUSPEND => !syscall,
            _ => true,
        };
        if !fits
            || syscall && self.flags & uapi::DECIDE_F_SIGINFO != 0
            || !syscall && self.flags & uapi::DECIDE_F_ARGS != 0
        {
            return Err(EINVAL);
        }
        if self.verdict == uapi::VERDICT_HOLD {
            if w.held {
                return Err(estale());
            }
            return Ok((None, false));
        }
        let info = if self.flags & uapi::DECIDE_F_SIGINFO != 0 {
            check_siginfo(w, &self.info)?;
            Some(self.info)
        } else {
            None
        };
        let args = (self.flags & uapi::DECIDE_F_ARGS != 0).then_some(self.args);
        let v = match self.verdict {
            uapi::VERDICT_ABORT => Verdict::Abort(self.errno),
            uapi::VERDICT_IGNORE => Verdict::Ignore,
            uapi::VERDICT_SUSPEND => Verdict::Suspend,
            _ if syscall => Verdict::Run(args),
            _ => Verdict::Deliver(info),
        };
        Ok((Some(v), self.verdict == uapi::VERDICT_STOP))
    }
}

/// The rule of rt_sigqueueinfo() for a sender that is not the target: the
/// new siginfo is the recorded one unchanged, or one a user could queue:
/// the same signal (`EINVAL`), and an `si_code` below 0 other than
/// `SI_TKILL` (`EPERM`): no kernel siginfo (`si_code` > 0: a fault, a
/// timer, SIGCHLD) and no kill() or tkill() whose sender the kernel names.
fn check_siginfo(w: &Waiting, info: &[u8; SIGINFO_KERNEL]) -> Result {
    if *info == w.info {
        return Ok(());
    }
    let signo = i32::from_ne_bytes(word(info, 0));
    let code = i32::from_ne_bytes(word(info, 8));
    if signo != w.signo {
        return Err(EINVAL);
    }
    if code >= 0 || code == SI_TKILL {
        return Err(EPERM);
    }
    Ok(())
}

impl Session {
    /// `UTRACE_IOC_DECIDE`.
    pub(crate) fn decide(&self, arg: UserArg) -> Result<isize> {
        let d: uapi::Decide = arg.read_struct()?;
        let answer = Answer::parse(&d)?;
        let _ctl = self.ctl.lock();
        let core = self.core();
        // The thread of the engine whose open decision has this seq.
        let open = |t: &Thread| {
            t.engine_id == d.engine_id
                && t.waiting
                    .as_ref()
                    .is_some_and(|w| w.seq == d.seq && w.seq != 0)
        };
        let (k, task) = {
            let st = core.state.lock();
            let t = st.threads.iter().find(|t| open(t)).ok_or_else(estale)?;
            let w = t.waiting.as_ref().ok_or_else(estale)?;
            answer.check(w)?;
            let task = t.engine.as_ref().and_then(|e| e.task()).map(ARefTask::from);
            (t.key, task.ok_or_else(estale)?)
        };
        if device::task_dying(&task) {
            // SIGKILL ended the wait: the syscall or signal went on.
            return Err(estale());
        }
        let engine = self.tracer.lookup(&task).map_err(|_| estale())?;
        // The callback that opened the decision has returned: a resume
        // before its stop would leave the thread stopped for good.
        engine.barrier()?;
        let (stop, resume) = {
            let mut st = core.state.lock();
            let t = st.find_mut(k).filter(|t| open(t)).ok_or_else(estale)?;
            let w = t.waiting.as_mut().ok_or_else(estale)?;
            let (verdict, stop) = answer.check(w)?;
            let Some(verdict) = verdict else {
                // HOLD: the decision stays open.
                w.held = true;
                return Ok(0);
            };
            t.decided = Some(Decided {
                kind: w.kind,
                signo: w.signo,
                verdict,
            });
            t.waiting = None;
            t.stop |= stop;
            // A STOP verdict ends a step under way (as a session STOP).
            t.stepping &= !stop;
            (stop, (!t.stop && !t.blocked).then(|| t.resume_control()))
        };
        if stop {
            // As a session STOP that finds the thread stopped.
            core.emit_new(&task, d.engine_id, uapi::REC_QUIESCE, false, |rec| {
                rec.h.flags |= uapi::REC_F_STOPPED;
            });
        }
        if let Some(ctl) = resume {
            let _ = engine.control(ctl);
        }
        Ok(0)
    }
}

/// The attach flags that ask for decisions.
pub(crate) const DECIDE_FLAGS: u32 = uapi::ATTACH_F_DECIDE_SYSCALL | uapi::ATTACH_F_DECIDE_SIGNAL;
