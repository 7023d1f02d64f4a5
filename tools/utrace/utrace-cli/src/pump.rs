// SPDX-License-Identifier: GPL-2.0

//! Reading a session's records while SIGINT, SIGTERM and SIGHUP are taken
//! through a signalfd: they end the loop cleanly (the records already in
//! the session are still read, [`Pump::drain`]; then the session closes,
//! every engine detaches, the traced processes run on).
//!
//! Batching: the session wakes its reader at every record, and a reader
//! that drains each one as it comes costs the traced task a wake-up and a
//! context switch per record. After a drain of fewer than [`SMALL`]
//! records, none of which a thread waits on (a decision), the pump lets
//! [`BATCH`] pass before it looks again, so records gather while nobody
//! sleeps on the session (a wake-up with no waiter is cheap). Larger drains
//! (a busy or lossless session whose tasks wait for room) are followed at
//! once. A session whose engines decide syscalls turns it off
//! ([`Pump::no_batching`]): there the next record a thread writes may wait
//! for its answer.

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use std::os::fd::{AsFd, BorrowedFd};
use std::time::{Duration, Instant};
use utrace::{Event, Session};

/// A drain smaller than this is followed by a pause of [`BATCH`].
pub const SMALL: usize = 64;
/// How long records may gather after a small drain: far below what a
/// person notices on a terminal.
pub const BATCH: Duration = Duration::from_millis(2);
/// How long records are still read after a terminating signal.
pub const DRAIN: Duration = Duration::from_millis(100);
/// Records read at most per read().
const READ_MAX: usize = 1024;

pub struct Pump {
    pub session: Session,
    sfd: SignalFd,
    /// The last drain was small and no thread waits on it: pause first.
    pause: bool,
    /// Pauses at all (see the module's documentation).
    batch: bool,
}

/// What a wait brought.
pub enum Next {
    Events(Vec<Event>),
    /// A terminating signal arrived.
    Signal,
    /// The extra descriptor given to [`Pump::next_with`] is readable.
    Extra,
}

/// SIGINT, SIGTERM and SIGHUP: the signals that end a pump's loop.
fn terminating() -> SigSet {
    let mut mask = SigSet::empty();
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        mask.add(s);
    }
    mask
}

/// Blocks the terminating signals until a [`Pump`] takes them: called
/// before the attach, so that one that comes after "attached" is said ends
/// the trace cleanly instead of killing utrace. A command started after
/// this unblocks them before its exec ([`unblock_signals`]). Returns
/// them.
pub fn block_signals() -> Result<SigSet, String> {
    let mask = terminating();
    mask.thread_block()
        .map_err(|e| format!("sigprocmask: {e}"))?;
    Ok(mask)
}

/// Undoes [`block_signals`] (in the child that execs the command).
pub fn unblock_signals() -> Result<(), String> {
    terminating()
        .thread_unblock()
        .map_err(|e| format!("sigprocmask: {e}"))
}

impl Pump {
    pub fn new(session: Session) -> Result<Pump, String> {
        let mask = block_signals()?;
        let sfd = SignalFd::with_flags(&mask, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK)
            .map_err(|e| format!("signalfd: {e}"))?;
        Ok(Pump {
            session,
            sfd,
            pause: false,
            batch: true,
        })
    }

    /// Follows every drain at once: for sessions whose threads wait for
    /// decisions, where a pause would delay each decided syscall.
    pub fn no_batching(&mut self) {
        self.batch = false;
    }

    /// Every record the session holds now, without waiting: what is left
    /// after its tasks are gone or handed off.
    pub fn rest(&mut self) -> Result<Vec<Event>, String> {
        self.read_now(None)
    }

    /// The records the session holds now, read without waiting, for at
    /// most [`DRAIN`]: what was recorded up to a terminating signal while
    /// the engines are still attached (a busy process makes more
    /// meanwhile, hence the limit).
    pub fn drain(&mut self) -> Result<Vec<Event>, String> {
        self.read_now(Some(Instant::now() + DRAIN))
    }

    /// The records the session holds, read without waiting while there
    /// are any (and until `deadline`, if given).
    fn read_now(&mut self, deadline: Option<Instant>) -> Result<Vec<Event>, String> {
        let mut rest = Vec::new();
        while deadline.is_none_or(|d| Instant::now() < d)
            && self.session.wait(0).map_err(|e| e.to_string())?
        {
            rest.extend(
                self.session
                    .read_events(READ_MAX)
                    .map_err(|e| e.to_string())?,
            );
        }
        Ok(rest)
    }

    /// Waits for records or a terminating signal, and for `extra` (e.g. a
    /// listening socket) to become readable.
    pub fn next_with(&mut self, extra: Option<BorrowedFd<'_>>) -> Result<Next, String> {
        self.wait(None, extra).map(|n| n.unwrap_or(Next::Signal))
    }

    /// As [`Pump::next_with`], but `None` once `deadline` passed.
    pub fn next_with_by(
        &mut self,
        extra: Option<BorrowedFd<'_>>,
        deadline: Instant,
    ) -> Result<Option<Next>, String> {
        self.wait(Some(deadline), extra)
    }

    /// As [`Pump::next_with`] without `extra`, but `None` once `deadline`
    /// passed.
    pub fn next_by(&mut self, deadline: Instant) -> Result<Option<Next>, String> {
        self.wait(Some(deadline), None)
    }

    /// The batching pause: up to `timeout` for a terminating signal or
    /// `extra` only.
    fn pause_for(
        &mut self,
        timeout: Duration,
        extra: Option<BorrowedFd<'_>>,
    ) -> Result<Option<Next>, String> {
        let t = PollTimeout::try_from(timeout.as_millis().max(1)).unwrap_or(PollTimeout::MAX);
        let mut fds = vec![PollFd::new(self.sfd.as_fd(), PollFlags::POLLIN)];
        if let Some(fd) = extra {
            fds.push(PollFd::new(fd, PollFlags::POLLIN));
        }
        match poll(&mut fds, t) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(e) => return Err(format!("poll: {e}")),
        }
        let ev = |f: &PollFd| f.revents().unwrap_or(PollFlags::empty());
        if fds.get(1).is_some_and(|f| !ev(f).is_empty()) {
            return Ok(Some(Next::Extra));
        }
        if !ev(&fds[0]).is_empty() {
            if let Ok(Some(si)) = self.sfd.read_signal() {
                if Signal::try_from(si.ssi_signo as i32).is_ok() {
                    return Ok(Some(Next::Signal));
                }
            }
        }
        Ok(None)
    }

    fn wait(
        &mut self,
        deadline: Option<Instant>,
        extra: Option<BorrowedFd<'_>>,
    ) -> Result<Option<Next>, String> {
        if std::mem::take(&mut self.pause) {
            let mut pause = BATCH;
            if let Some(d) = deadline {
                pause = pause.min(d.saturating_duration_since(Instant::now()));
            }
            if !pause.is_zero() {
                if let Some(n) = self.pause_for(pause, extra)? {
                    return Ok(Some(n));
                }
            }
        }
        loop {
            let timeout = match deadline {
                None => PollTimeout::NONE,
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    // Rounded up: a poll that wakes early loops, not spins.
                    let ms = left.as_micros().div_ceil(1000);
                    PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)
                }
            };
            let (ready, sig, more) = {
                let mut fds = vec![
                    PollFd::new(self.session.as_fd(), PollFlags::POLLIN),
                    PollFd::new(self.sfd.as_fd(), PollFlags::POLLIN),
                ];
                if let Some(fd) = extra {
                    fds.push(PollFd::new(fd, PollFlags::POLLIN));
                }
                match poll(&mut fds, timeout) {
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(e) => return Err(format!("poll: {e}")),
                }
                let ev = |f: &PollFd| f.revents().unwrap_or(PollFlags::empty());
                (
                    !ev(&fds[0]).is_empty(),
                    !ev(&fds[1]).is_empty(),
                    fds.get(2).is_some_and(|f| !ev(f).is_empty()),
                )
            };
            if more {
                return Ok(Some(Next::Extra));
            }
            if sig {
                if let Ok(Some(si)) = self.sfd.read_signal() {
                    if Signal::try_from(si.ssi_signo as i32).is_ok() {
                        return Ok(Some(Next::Signal));
                    }
                }
            }
            if ready {
                let ev = self
                    .session
                    .read_events(READ_MAX)
                    .map_err(|e| e.to_string())?;
                if !ev.is_empty() {
                    self.pause =
                        self.batch && ev.len() < SMALL && !ev.iter().any(|e| e.header.decide());
                    return Ok(Some(Next::Events(ev)));
                }
            }
        }
    }
}
