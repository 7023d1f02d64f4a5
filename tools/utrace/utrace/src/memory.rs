// SPDX-License-Identifier: GPL-2.0

//! Reading a traced process's memory (`process_vm_readv`, with the same
//! permission as the attach: the caller may ptrace the task; where the
//! kernel has no `process_vm_readv`, `CONFIG_CROSS_MEMORY_ATTACH` unset,
//! `/proc/PID/mem`, which the same check guards).

use nix::errno::Errno;
use nix::sys::uio::{process_vm_readv, RemoteIoVec};
use nix::unistd::Pid;
use std::fs::File;
use std::io::IoSliceMut;
use std::os::unix::fs::FileExt;

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
            Err(Errno::ENOSYS) => return read_proc_mem(pid, addr, buf),
            Ok(0) | Err(_) => break,
            Ok(got) => done += got,
        }
    }
    (done > 0).then_some(done)
}

/// [`read`] through `/proc/PID/mem`.
fn read_proc_mem(pid: i32, addr: u64, buf: &mut [u8]) -> Option<usize> {
    let mem = File::open(format!("/proc/{pid}/mem")).ok()?;
    let mut done = 0;
    while done < buf.len() {
        let at = addr.checked_add(done as u64)?;
        let page_left = 4096 - (at % 4096) as usize;
        let n = page_left.min(buf.len() - done);
        match mem.read_at(&mut buf[done..done + n], at) {
            Ok(0) | Err(_) => break,
            Ok(got) => done += got,
        }
    }
    (done > 0).then_some(done)
}

/// The NUL-terminated string at `addr`, at most `max` bytes; whether it
/// was complete (its NUL found). Read a page at a time, up to the page
/// with the NUL: a path is one short read, not `max` bytes.
pub fn read_cstr(pid: i32, addr: u64, max: usize) -> Option<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    while buf.len() < max {
        let at = addr.checked_add(buf.len() as u64)?;
        let n = (4096 - (at % 4096) as usize).min(max - buf.len());
        let start = buf.len();
        buf.resize(start + n, 0);
        let got = read(pid, at, &mut buf[start..]).unwrap_or(0);
        buf.truncate(start + got);
        if let Some(end) = buf[start..].iter().position(|&c| c == 0) {
            buf.truncate(start + end);
            return Some((buf, true));
        }
        if got < n {
            break;
        }
    }
    (!buf.is_empty()).then_some((buf, false))
}
