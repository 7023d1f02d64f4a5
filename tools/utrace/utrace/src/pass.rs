// SPDX-License-Identifier: GPL-2.0

//! Passing a session between processes over a unix socket (SCM_RIGHTS),
//! for a handoff: the taker sends its session's descriptor, the holder
//! hands its engine to it ([`Session::handoff`](crate::Session::handoff))
//! and answers with a line of text.

use crate::sys;
use nix::sys::socket::{recvmsg, sendmsg, ControlMessage, ControlMessageOwned, MsgFlags};
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

fn nix_err(e: nix::errno::Errno) -> io::Error {
    io::Error::from_raw_os_error(e as i32)
}

/// Sends `fd` (e.g. a [`Session`](crate::Session)) with the bytes `msg`
/// (at least one byte) over `sock`.
pub fn send_fd(sock: &UnixStream, fd: impl AsFd, msg: &[u8]) -> io::Result<()> {
    if msg.is_empty() {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let raw = [fd.as_fd().as_raw_fd()];
    let cmsg = [ControlMessage::ScmRights(&raw)];
    let iov = [IoSlice::new(msg)];
    let n =
        sendmsg::<()>(sock.as_raw_fd(), &iov, &cmsg, MsgFlags::empty(), None).map_err(nix_err)?;
    if n != msg.len() {
        return Err(io::Error::new(io::ErrorKind::WriteZero, "short sendmsg"));
    }
    Ok(())
}

/// Receives bytes into `buf` and the descriptor sent with them, if any
/// (close-on-exec). Extra descriptors are closed.
pub fn recv_fd(sock: &UnixStream, buf: &mut [u8]) -> io::Result<(usize, Option<OwnedFd>)> {
    let mut cspace = nix::cmsg_space!([std::os::fd::RawFd; 4]);
    let mut iov = [IoSliceMut::new(buf)];
    let msg = recvmsg::<()>(
        sock.as_raw_fd(),
        &mut iov,
        Some(&mut cspace),
        MsgFlags::MSG_CMSG_CLOEXEC,
    )
    .map_err(nix_err)?;
    let n = msg.bytes;
    let mut got: Option<OwnedFd> = None;
    for c in msg.cmsgs().map_err(nix_err)? {
        if let ControlMessageOwned::ScmRights(fds) = c {
            for fd in fds {
                // Owned from here on: dropped (closed) unless it is the first.
                let owned = sys::received_fd(fd);
                if got.is_none() {
                    got = Some(owned);
                }
            }
        }
    }
    Ok((n, got))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_descriptor_crosses() {
        let (a, b) = UnixStream::pair().unwrap();
        let (mut r, w) = UnixStream::pair().unwrap();
        send_fd(&a, &w, b"x").unwrap();
        drop(w);
        let mut buf = [0u8; 8];
        let (n, fd) = recv_fd(&b, &mut buf).unwrap();
        assert_eq!((n, buf[0]), (1, b'x'));
        let fd = fd.expect("a descriptor");
        let w2 = UnixStream::from(fd);
        use std::io::Write;
        (&w2).write_all(b"hi").unwrap();
        drop(w2);
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert_eq!(s, "hi");
        assert!(send_fd(&a, &r, b"").is_err());
    }
}
