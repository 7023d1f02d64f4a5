// SPDX-License-Identifier: GPL-2.0

//! A session on /dev/utrace: engines attached to tasks, their events read
//! as [`Event`]s, their threads controlled.

use crate::event::{self, Event, ParseError};
use crate::filter::SyscallFilter;
use crate::sys;
use crate::uapi::{self, IoctlArg};
use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// An error of a session call: which call, and the errno the kernel
/// answered.
#[derive(Debug)]
pub enum Error {
    /// A call failed with `errno`.
    Sys { op: &'static str, errno: Errno },
    /// `read()` returned bytes that are not whole records.
    Parse(ParseError),
}

impl Error {
    fn sys(op: &'static str, e: io::Error) -> Self {
        Error::Sys {
            op,
            errno: Errno::from_raw(e.raw_os_error().unwrap_or(0)),
        }
    }

    /// The errno, if the kernel answered one.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            Error::Sys { errno, .. } => Some(*errno),
            Error::Parse(_) => None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Sys { op, errno } => write!(f, "{op}: {} ({errno:?})", errno.desc()),
            Error::Parse(e) => write!(f, "read: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// A result of a session call.
pub type Result<T> = std::result::Result<T, Error>;

/// An engine of this session (the id the kernel gave it, never 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct EngineId(pub u64);

/// What an attach is to.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A process (or with [`Attach::thread`], a thread) by pid in the
    /// caller's pid namespace.
    Pid(i32),
    /// A process by pidfd.
    Pidfd(BorrowedFd<'a>),
    /// Every task on the machine (CAP_SYS_ADMIN in the initial user
    /// namespace).
    All,
}

/// The options of one attach; [`Attach::new`] takes the event mask.
#[derive(Debug, Clone, Copy, Default)]
pub struct Attach {
    /// `UTRACE_EV_*` bits.
    pub events: u64,
    /// This thread only, not its process.
    pub thread: bool,
    /// And new children, from their first instruction.
    pub follow: bool,
    /// The thread waits (killably) for room instead of records being lost.
    pub lossless: bool,
    /// SYSCALL_ENTRY records wait for [`Session::decide`].
    pub decide_syscall: bool,
    /// SIGNAL records wait for [`Session::decide`].
    pub decide_signal: bool,
}

impl Attach {
    /// An attach with event mask `events` and no flags.
    pub fn new(events: u64) -> Self {
        Attach {
            events,
            ..Default::default()
        }
    }
    fn flags(&self) -> u32 {
        let mut f = 0;
        for (on, bit) in [
            (self.thread, uapi::ATTACH_F_THREAD),
            (self.follow, uapi::ATTACH_F_FOLLOW),
            (self.lossless, uapi::ATTACH_F_LOSSLESS),
            (self.decide_syscall, uapi::ATTACH_F_DECIDE_SYSCALL),
            (self.decide_signal, uapi::ATTACH_F_DECIDE_SIGNAL),
        ] {
            if on {
                f |= bit;
            }
        }
        f
    }
}

/// A control action on an engine's threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Stop at the next safe point (a QUIESCE record with the STOPPED flag
    /// says when).
    Stop,
    /// Drop this engine's stop.
    Resume,
    /// Resume and report soon, interrupting a blocked syscall.
    Interrupt,
    /// Run one instruction (the thread must be stopped).
    SingleStep,
    /// Replace the engine's event mask.
    SetEvents(u64),
}

/// The answer to a record that waits for a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// SYSCALL_ENTRY: run it, with these arguments if given.
    Run(Option<[u64; 6]>),
    /// SYSCALL_ENTRY: do not run it, return `-errno`.
    Abort(i32),
    /// SIGNAL: as the disposition says.
    Deliver,
    /// SIGNAL: as the disposition says, with this `siginfo_t` (the kernel
    /// refuses, `EPERM`, one a user could not send with
    /// `rt_sigqueueinfo()`: `si_code` >= 0 or `SI_TKILL`, unless unchanged).
    DeliverInfo([u8; uapi::SIGINFO_SIZE]),
    /// SIGNAL: drop it.
    Ignore,
    /// SIGNAL: not yet: the signal stays pending, the thread stopped; the
    /// same record takes a later `Deliver`, `Ignore` or `Stop`.
    Hold,
    /// Either: run the syscall (deliver the signal) once the thread is
    /// resumed ([`Action::Resume`]); it stays stopped until then.
    Stop,
    /// SIGNAL: the process stops in a group stop (`ps` state T; `gdb -p`
    /// attaches) with the signal kept; SIGCONT, or the engine's detach
    /// (the session's end), delivers it as its disposition then says.
    Suspend,
}

/// The regset of the general registers (`PTRACE_GETREGSET`'s).
pub const NT_PRSTATUS: u32 = 1;
/// The regset of the FP and SSE registers (x86-64: `user_fpregs_struct`).
pub const NT_PRFPREG: u32 = 2;

/// A `user_regs_struct` of zeroes.
#[cfg(target_arch = "x86_64")]
fn zeroed_user_regs() -> libc::user_regs_struct {
    libc::user_regs_struct {
        r15: 0,
        r14: 0,
        r13: 0,
        r12: 0,
        rbp: 0,
        rbx: 0,
        r11: 0,
        r10: 0,
        r9: 0,
        r8: 0,
        rax: 0,
        rcx: 0,
        rdx: 0,
        rsi: 0,
        rdi: 0,
        orig_rax: 0,
        rip: 0,
        cs: 0,
        eflags: 0,
        rsp: 0,
        ss: 0,
        fs_base: 0,
        gs_base: 0,
        ds: 0,
        es: 0,
        fs: 0,
        gs: 0,
    }
}

/// One session: closing it (drop) detaches every engine and lets every
/// thread it stopped run on.
#[derive(Debug)]
pub struct Session {
    file: File,
    record_size: usize,
    /// The session reads compact records (`UTRACE_CONFIG_F_COMPACT`).
    compact: bool,
    /// The module's `UTRACE_UAPI_VERSION`.
    version: u32,
    /// read_events' buffer, kept: zeroing a fresh one per read cost more
    /// than the read when a read brings one record.
    rbuf: Vec<u8>,
}

impl AsFd for Session {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}

impl Session {
    /// Opens a session on /dev/utrace.
    pub fn open() -> Result<Session> {
        Self::open_path(uapi::DEV_PATH)
    }

    /// Opens a session on the device at `path`.
    pub fn open_path(path: impl AsRef<Path>) -> Result<Session> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| Error::sys("open", e))?;
        let mut s = Session {
            file,
            record_size: uapi::REC_SIZE,
            compact: false,
            version: 0,
            rbuf: Vec::new(),
        };
        let info = s.info()?;
        s.version = info.version;
        s.record_size = (info.record_size as usize).max(uapi::REC_SIZE);
        // Compact records where the module has them (version 3): fewer
        // bytes copied per record; the parser takes both forms.
        if info.version >= 3 {
            s.compact = s
                .set_config(info.buffer_bytes, uapi::CONFIG_F_COMPACT)
                .is_ok();
        }
        Ok(s)
    }

    fn call<T: IoctlArg>(&self, op: &'static str, req: libc::c_ulong, arg: &mut T) -> Result<i32> {
        sys::ioctl(self.file.as_fd(), req, arg).map_err(|e| Error::sys(op, e))
    }

    /// What the kernel speaks: version, record size, events and flags.
    pub fn info(&self) -> Result<uapi::Info> {
        let mut a = uapi::Info::new();
        self.call("info", uapi::Info::REQUEST, &mut a)?;
        Ok(a)
    }

    /// Sizes the session's buffer (before the first attach).
    pub fn config(&self, buffer_bytes: u64) -> Result<()> {
        let flags = if self.compact {
            uapi::CONFIG_F_COMPACT
        } else {
            0
        };
        self.set_config(buffer_bytes, flags)
    }

    /// Whether reads return compact records (`UTRACE_CONFIG_F_COMPACT`,
    /// asked for at open where the module has them).
    pub fn compact(&self) -> bool {
        self.compact
    }

    fn set_config(&self, buffer_bytes: u64, flags: u32) -> Result<()> {
        let mut a = uapi::Config::new();
        a.buffer_bytes = buffer_bytes;
        a.flags = flags;
        self.call("config", uapi::Config::REQUEST, &mut a).map(drop)
    }

    /// Attaches a new engine to `target`.
    pub fn attach(&self, target: Target<'_>, opts: &Attach) -> Result<EngineId> {
        let mut a = uapi::Attach::new();
        a.flags = opts.flags();
        a.events = opts.events;
        match target {
            Target::Pid(pid) => a.pid = pid,
            Target::Pidfd(fd) => {
                a.flags |= uapi::ATTACH_F_PIDFD;
                a.pidfd = fd.as_raw_fd();
            }
            Target::All => a.flags |= uapi::ATTACH_F_GLOBAL,
        }
        self.call("attach", uapi::Attach::REQUEST, &mut a)?;
        Ok(EngineId(a.engine_id))
    }

    /// Detaches an engine from every thread it watches.
    pub fn detach(&self, engine: EngineId) -> Result<()> {
        let mut a = uapi::Detach::new();
        a.engine_id = engine.0;
        self.call("detach", uapi::Detach::REQUEST, &mut a).map(drop)
    }

    /// Acts on `engine`'s thread `tid`, or all its threads (`tid` 0).
    pub fn control(&self, engine: EngineId, tid: i32, action: Action) -> Result<()> {
        let mut a = uapi::Control::new();
        a.engine_id = engine.0;
        a.tid = tid;
        a.action = match action {
            Action::Stop => uapi::CTL_STOP,
            Action::Resume => uapi::CTL_RESUME,
            Action::Interrupt => uapi::CTL_INTERRUPT,
            Action::SingleStep => uapi::CTL_SINGLESTEP,
            Action::SetEvents(ev) => {
                a.events = ev;
                uapi::CTL_SET_EVENTS
            }
        };
        self.call("control", uapi::Control::REQUEST, &mut a)
            .map(drop)
    }

    /// Answers the record `seq` of `engine` that waits for a decision.
    pub fn decide(&self, engine: EngineId, seq: u64, verdict: Verdict) -> Result<()> {
        let mut a = uapi::Decide::new();
        a.engine_id = engine.0;
        a.seq = seq;
        a.verdict = match verdict {
            Verdict::Run(args) => {
                if let Some(args) = args {
                    a.flags |= uapi::DECIDE_F_ARGS;
                    a.args = args;
                }
                uapi::VERDICT_RUN
            }
            Verdict::Abort(errno) => {
                a.value = errno;
                uapi::VERDICT_ABORT
            }
            Verdict::Deliver => uapi::VERDICT_DELIVER,
            Verdict::DeliverInfo(info) => {
                a.flags |= uapi::DECIDE_F_SIGINFO;
                a.siginfo = info;
                uapi::VERDICT_DELIVER
            }
            Verdict::Ignore => uapi::VERDICT_IGNORE,
            Verdict::Hold => uapi::VERDICT_HOLD,
            Verdict::Stop => uapi::VERDICT_STOP,
            Verdict::Suspend => uapi::VERDICT_SUSPEND,
        };
        self.call("decide", uapi::Decide::REQUEST, &mut a).map(drop)
    }

    fn regs_arg(engine: EngineId, tid: i32, note_type: u32) -> uapi::Regs {
        let mut a = uapi::Regs::new();
        a.engine_id = engine.0;
        a.tid = tid;
        a.note_type = note_type;
        a
    }

    /// Reads the start of regset `note_type` ([`NT_PRSTATUS`],
    /// [`NT_PRFPREG`], `NT_X86_XSTATE`..., as `PTRACE_GETREGSET`) of thread
    /// `tid` (0: the engine's only thread), which the session holds stopped,
    /// into `buf`; returns the bytes read (at most the regset's size).
    pub fn get_regs(
        &self,
        engine: EngineId,
        tid: i32,
        note_type: u32,
        buf: &mut [u8],
    ) -> Result<usize> {
        let mut a = Self::regs_arg(engine, tid, note_type);
        sys::getregs(self.file.as_fd(), &mut a, buf).map_err(|e| Error::sys("getregs", e))
    }

    /// Writes `buf` to the start of regset `note_type` of thread `tid`,
    /// held stopped (the kernel's regset code validates it, as for
    /// `PTRACE_SETREGSET`); returns the bytes written.
    pub fn set_regs(
        &self,
        engine: EngineId,
        tid: i32,
        note_type: u32,
        buf: &[u8],
    ) -> Result<usize> {
        let mut a = Self::regs_arg(engine, tid, note_type);
        sys::setregs(self.file.as_fd(), &mut a, buf).map_err(|e| Error::sys("setregs", e))
    }

    /// The general registers of thread `tid` (x86-64), held stopped.
    /// `EINVAL` for a 32-bit thread, whose regset is `user_regs_struct`
    /// of i386 (read it with [`Session::get_regs`]).
    #[cfg(target_arch = "x86_64")]
    pub fn user_regs(&self, engine: EngineId, tid: i32) -> Result<libc::user_regs_struct> {
        let mut regs = zeroed_user_regs();
        let n = self.get_regs(engine, tid, NT_PRSTATUS, sys::user_regs_bytes(&mut regs))?;
        if n != std::mem::size_of::<libc::user_regs_struct>() {
            return Err(Error::Sys {
                op: "getregs",
                errno: Errno::EINVAL,
            });
        }
        Ok(regs)
    }

    /// Sets the general registers of thread `tid` (x86-64), held stopped
    /// (read them with [`Session::user_regs`] first).
    #[cfg(target_arch = "x86_64")]
    pub fn set_user_regs(
        &self,
        engine: EngineId,
        tid: i32,
        regs: &libc::user_regs_struct,
    ) -> Result<()> {
        let mut copy = *regs;
        self.set_regs(engine, tid, NT_PRSTATUS, sys::user_regs_bytes(&mut copy))
            .map(drop)
    }

    /// Moves `engine` to the session open on `to` (with its followed
    /// descendants if `tree`); returns its id there.
    pub fn handoff(&self, engine: EngineId, to: BorrowedFd<'_>, tree: bool) -> Result<EngineId> {
        let mut a = uapi::Handoff::new();
        a.engine_id = engine.0;
        a.to_fd = to.as_raw_fd();
        if tree {
            a.flags |= uapi::HANDOFF_F_TREE;
        }
        self.call("handoff", uapi::Handoff::REQUEST, &mut a)?;
        Ok(EngineId(a.to_engine_id))
    }

    /// Sets which user memory the session's syscall records carry
    /// (`UTRACE_IOC_CAPTURE`, replacing the list; empty: none). With
    /// `decide`, a syscall entry whose capture is not whole (memory not
    /// present, or no room in the record) waits for a decision
    /// ([`Event::header`]'s `decide()`): read the memory while it waits.
    pub fn capture(&self, items: &[uapi::CaptureItem], decide: bool) -> Result<()> {
        let flags = if decide { uapi::CAPTURE_F_DECIDE } else { 0 };
        sys::capture(self.file.as_fd(), flags, items).map_err(|e| Error::sys("capture", e))
    }

    /// Sets which syscalls the session records (`UTRACE_IOC_SYSCALLS`;
    /// `None`: every one, the default). `Ok(false)`, nothing changed,
    /// from a module before version 4, which records every syscall and
    /// whose exit records carry no arguments.
    pub fn filter_syscalls(&self, filter: Option<&SyscallFilter>) -> Result<bool> {
        if self.version < 4 {
            return Ok(false);
        }
        let mut a = match filter {
            Some(f) => f.to_uapi(),
            None => {
                let mut a = uapi::Syscalls::new();
                a.flags = uapi::SYSCALLS_F_ALL;
                a
            }
        };
        self.call("syscalls", uapi::Syscalls::REQUEST, &mut a)?;
        Ok(true)
    }

    /// Waits up to `timeout_ms` (-1: for ever) for records; whether some
    /// are ready.
    pub fn wait(&self, timeout_ms: i32) -> Result<bool> {
        let mut fds = [PollFd::new(self.file.as_fd(), PollFlags::POLLIN)];
        let t = if timeout_ms < 0 {
            PollTimeout::NONE
        } else {
            PollTimeout::try_from(timeout_ms).unwrap_or(PollTimeout::MAX)
        };
        match poll(&mut fds, t) {
            Ok(n) => Ok(n > 0),
            Err(Errno::EINTR) => Ok(false),
            Err(e) => Err(Error::Sys {
                op: "poll",
                errno: e,
            }),
        }
    }

    /// Reads the records ready (blocking until one is), at most `max` whole
    /// records' bytes of them (more records if compact); an empty result
    /// if interrupted by a signal.
    pub fn read_events(&mut self, max: usize) -> Result<Vec<Event>> {
        let want = self.record_size * max.max(1);
        if self.rbuf.len() < want {
            self.rbuf.resize(want, 0);
        }
        let buf = &mut self.rbuf[..want];
        let n = match self.file.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(Vec::new()),
            Err(e) => return Err(Error::sys("read", e)),
        };
        event::parse(&buf[..n]).map_err(Error::Parse)
    }
}
