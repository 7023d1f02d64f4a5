// SPDX-License-Identifier: GPL-2.0

//! Reading a traced process's memory (`process_vm_readv`, with the same
//! permission as the attach: the caller may ptrace the task).

use nix::sys::uio::{process_vm_readv, RemoteIoVec};
use nix::unistd::Pid;
use std::io::IoSliceMut;

/// Reads up to `buf.len()` bytes at `addr` of process `pid`; the number
/// read (short at an unmapped page), or `None` if nothing could be.
pub fn read(pid: i32, addr: u64, buf: &mut [u8]) -> Option<usize> {
    if addr == 0 || buf.is_empty() {
        return None;
    }
    let mut done = 0;
    // Page by page, so that a string ending before an unmapped page reads.
    while done < buf.len() {
        let at = addr.checked_add(done as u64)?;
        let page_left = 4096 - (at % 4096) as usize;
        let n = page_left.min(buf.len() - done);
        let remote = [RemoteIoVec {
            base: at as usize,
            len: n,
        }];
        let mut local = [IoSliceMut::new(&mut buf[done..done + n])];
        match process_vm_readv(Pid::from_raw(pid), &mut local, &remote) {
            Ok(0) | Err(_) => break,
            Ok(got) => done += got,
        }
    }
    (done > 0).then_some(done)
}

/// The NUL-terminated string at `addr`, at most `max` bytes; whether it
/// was complete (its NUL found).
pub fn read_cstr(pid: i32, addr: u64, max: usize) -> Option<(Vec<u8>, bool)> {
    let mut buf = vec![0u8; max];
    let n = read(pid, addr, &mut buf)?;
    buf.truncate(n);
    match buf.iter().position(|&c| c == 0) {
        Some(end) => {
            buf.truncate(end);
            Some((buf, true))
        }
        None => Some((buf, false)),
    }
}
