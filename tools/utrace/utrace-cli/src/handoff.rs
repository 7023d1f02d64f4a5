// SPDX-License-Identifier: GPL-2.0

//! A tracer switch between two `utrace` instances over a unix socket:
//! `--handoff-socket PATH` listens; `--take PATH` connects and sends its
//! own session's descriptor (SCM_RIGHTS); the holder hands its engine to
//! that session (UTRACE_IOC_HANDOFF, with the followed descendants under
//! `-f`) and answers with one line: `ok ENGINE PID FOLLOW LIVE,...` or
//! `err MESSAGE`. Every event is then in exactly one of the two outputs:
//! the holder prints what its session read up to the switch and ends, the
//! taker prints from the switch on.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;
use utrace::{pass, EngineId, Session};

/// What the taker learns: its engine and what the holder traced.
#[derive(Debug, PartialEq, Eq)]
pub struct Taken {
    pub engine: EngineId,
    /// The first traced process (the one `-p` named).
    pub pid: i32,
    pub follow: bool,
    /// The processes traced at the switch.
    pub live: Vec<i32>,
}

impl Taken {
    fn line(&self) -> String {
        let live: Vec<String> = self.live.iter().map(i32::to_string).collect();
        format!(
            "ok {} {} {} {}\n",
            self.engine.0,
            self.pid,
            u8::from(self.follow),
            live.join(",")
        )
    }

    fn parse(line: &str) -> Result<Taken, String> {
        let line = line.trim_end();
        if let Some(msg) = line.strip_prefix("err ") {
            return Err(msg.to_string());
        }
        let bad = || format!("the holder answered {line:?}");
        let mut w = line.split(' ');
        if w.next() != Some("ok") {
            return Err(bad());
        }
        let mut num = || w.next().and_then(|x| x.parse::<i64>().ok()).ok_or_else(bad);
        let engine = EngineId(num()? as u64);
        let pid = num()? as i32;
        let follow = num()? != 0;
        let live = match w.next() {
            Some(l) if !l.is_empty() => l
                .split(',')
                .map(|p| p.parse().map_err(|_| bad()))
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        Ok(Taken {
            engine,
            pid,
            follow,
            live,
        })
    }
}

/// The holder's listening socket (removed when dropped).
pub struct Giver {
    listener: UnixListener,
    path: PathBuf,
}

impl Giver {
    pub fn bind(path: &Path) -> Result<Giver, String> {
        let listener = UnixListener::bind(path)
            .map_err(|e| format!("--handoff-socket {}: {e}", path.display()))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("--handoff-socket: {e}"))?;
        Ok(Giver {
            listener,
            path: path.to_path_buf(),
        })
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.listener.as_fd()
    }

    /// A taker knocked: hands `engine` (and with `follow` its followed
    /// descendants) to its session. `Ok(true)` once handed.
    pub fn serve(
        &self,
        session: &Session,
        engine: EngineId,
        pid: i32,
        follow: bool,
        live: &[i32],
    ) -> Result<bool, String> {
        let sock = match self.listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) => return Err(format!("accept: {e}")),
        };
        let _ = sock.set_nonblocking(false);
        let _ = sock.set_read_timeout(Some(Duration::from_secs(5)));
        let mut buf = [0u8; 16];
        let reply = match pass::recv_fd(&sock, &mut buf) {
            Ok((_, Some(fd))) => match session.handoff(engine, fd.as_fd(), follow) {
                Ok(new) => Ok(Taken {
                    engine: new,
                    pid,
                    follow,
                    live: live.to_vec(),
                }),
                Err(e) => Err(format!("handoff: {e}")),
            },
            Ok((_, None)) => Err("the taker sent no session".to_string()),
            Err(e) => Err(format!("receive: {e}")),
        };
        let (line, handed) = match &reply {
            Ok(t) => (t.line(), true),
            Err(m) => (format!("err {m}\n"), false),
        };
        let _ = (&sock).write_all(line.as_bytes());
        if let Err(m) = reply {
            say!("utrace: a taker connected; {m}: tracing on");
        }
        Ok(handed)
    }
}

impl Drop for Giver {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Connects to the holder at `path`, sends `session` and waits for the
/// switch.
pub fn take(path: &Path, session: &Session) -> Result<Taken, String> {
    let sock = UnixStream::connect(path).map_err(|e| format!("--take {}: {e}", path.display()))?;
    pass::send_fd(&sock, session, b"take\n").map_err(|e| format!("--take: send: {e}"))?;
    let mut line = String::new();
    BufReader::new(&sock)
        .read_line(&mut line)
        .map_err(|e| format!("--take: {e}"))?;
    if line.is_empty() {
        return Err("--take: the holder closed the connection".into());
    }
    Taken::parse(&line).map_err(|e| format!("--take: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_lines() {
        let t = Taken {
            engine: EngineId(7),
            pid: 42,
            follow: true,
            live: vec![42, 43],
        };
        assert_eq!(t.line(), "ok 7 42 1 42,43\n");
        assert_eq!(Taken::parse(&t.line()).unwrap(), t);
        let one = Taken {
            live: vec![],
            follow: false,
            ..t
        };
        assert_eq!(Taken::parse(&one.line()).unwrap(), one);
        assert_eq!(
            Taken::parse("err handoff: EPERM\n").unwrap_err(),
            "handoff: EPERM"
        );
        assert!(Taken::parse("ok x").is_err());
        assert!(Taken::parse("hello").is_err());
    }
}
