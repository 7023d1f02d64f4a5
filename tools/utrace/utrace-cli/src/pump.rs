// SPDX-License-Identifier: GPL-2.0

//! Reading a session's records while SIGINT, SIGTERM and SIGHUP are taken
//! through a signalfd: they end the loop cleanly (the session closes, every
//! engine detaches, the traced processes run on).

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use std::os::fd::AsFd;
use std::time::Instant;
use utrace::{Event, Session};

pub struct Pump {
    pub session: Session,
    sfd: SignalFd,
}

/// What a wait brought.
pub enum Next {
    Events(Vec<Event>),
    /// A terminating signal arrived.
    Signal,
}

impl Pump {
    pub fn new(session: Session) -> Result<Pump, String> {
        let mut mask = SigSet::empty();
        for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            mask.add(s);
        }
        mask.thread_block()
            .map_err(|e| format!("sigprocmask: {e}"))?;
        let sfd = SignalFd::with_flags(&mask, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK)
            .map_err(|e| format!("signalfd: {e}"))?;
        Ok(Pump { session, sfd })
    }

    pub fn next(&mut self) -> Result<Next, String> {
        self.wait(None).map(|n| n.unwrap_or(Next::Signal))
    }

    /// As [`Pump::next`], but `None` once `deadline` passed.
    pub fn next_by(&mut self, deadline: Instant) -> Result<Option<Next>, String> {
        self.wait(Some(deadline))
    }

    fn wait(&mut self, deadline: Option<Instant>) -> Result<Option<Next>, String> {
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
            let (ready, sig) = {
                let mut fds = [
                    PollFd::new(self.session.as_fd(), PollFlags::POLLIN),
                    PollFd::new(self.sfd.as_fd(), PollFlags::POLLIN),
                ];
                match poll(&mut fds, timeout) {
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(e) => return Err(format!("poll: {e}")),
                }
                let ev = |f: &PollFd| f.revents().unwrap_or(PollFlags::empty());
                (!ev(&fds[0]).is_empty(), !ev(&fds[1]).is_empty())
            };
            if sig {
                if let Ok(Some(si)) = self.sfd.read_signal() {
                    if Signal::try_from(si.ssi_signo as i32).is_ok() {
                        return Ok(Some(Next::Signal));
                    }
                }
            }
            if ready {
                let ev = self.session.read_events(256).map_err(|e| e.to_string())?;
                if !ev.is_empty() {
                    return Ok(Some(Next::Events(ev)));
                }
            }
        }
    }
}
