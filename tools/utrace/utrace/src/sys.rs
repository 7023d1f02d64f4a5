// SPDX-License-Identifier: GPL-2.0

//! The one module with `unsafe`: the ioctl calls on a session fd, and the
//! ownership of a descriptor the kernel just gave us (SCM_RIGHTS).

use crate::uapi::{Capture, CaptureItem, IoctlArg, Regs, IOC_CAPTURE, IOC_GETREGS, IOC_SETREGS};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// Takes ownership of `fd`, a descriptor `recvmsg()` installed in this
/// process for us a moment ago (an SCM_RIGHTS message), which nothing else
/// refers to.
pub(crate) fn received_fd(fd: RawFd) -> OwnedFd {
    // SAFETY: The kernel installed `fd` for this call's caller (recvmsg's
    // SCM_RIGHTS); it is open and nothing else owns or closes it.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// `ioctl(fd, request, &mut arg)`: the kernel reads and may write `arg`.
pub(crate) fn ioctl<T: IoctlArg>(
    fd: BorrowedFd<'_>,
    request: libc::c_ulong,
    arg: &mut T,
) -> io::Result<i32> {
    // SAFETY: `fd` is an open descriptor for the call's duration (borrowed);
    // `arg` is a valid, exclusively borrowed `#[repr(C)]` struct whose
    // layout is asserted equal to the header's (uapi.rs), and `request`
    // is one of the header's numbers for that struct (IoctlArg), so the
    // kernel reads and writes at most `size_of::<T>()` bytes of it, all
    // of which are plain integers valid for any bit pattern.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), request, arg as *mut T) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// `UTRACE_IOC_GETREGS` or `UTRACE_IOC_SETREGS` with `arg.buf` and
/// `arg.len` set to `ptr` and `len`; the `len` the kernel answered, at most
/// `len`.
///
/// # Safety
///
/// `ptr` is valid for `len` bytes: writable for GETREGS, readable for
/// SETREGS (which only reads them).
unsafe fn regs_call(
    fd: BorrowedFd<'_>,
    request: libc::c_ulong,
    arg: &mut Regs,
    ptr: *mut u8,
    len: usize,
) -> io::Result<usize> {
    arg.buf = ptr as u64;
    arg.len = len as u64;
    // SAFETY: `fd` is open for the call (borrowed); `arg` is an exclusively
    // borrowed `struct utrace_regs` (layout asserted in uapi.rs) that the
    // kernel reads and writes back; it reads or writes at most `arg.len`
    // bytes at `arg.buf`, valid by this function's safety requirements.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), request, arg as *mut Regs) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((arg.len as usize).min(len))
}

/// `UTRACE_IOC_GETREGS` into `buf`: the bytes of the regset written there.
pub(crate) fn getregs(fd: BorrowedFd<'_>, arg: &mut Regs, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is exclusively borrowed, writable for its length.
    unsafe { regs_call(fd, IOC_GETREGS, arg, buf.as_mut_ptr(), buf.len()) }
}

/// `UTRACE_IOC_SETREGS` from `buf`: the bytes of the regset written.
pub(crate) fn setregs(fd: BorrowedFd<'_>, arg: &mut Regs, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is readable for its length; SETREGS only reads it.
    unsafe { regs_call(fd, IOC_SETREGS, arg, buf.as_ptr().cast_mut(), buf.len()) }
}

/// `UTRACE_IOC_CAPTURE` with the list `items` (`flags`: `UTRACE_CAPTURE_F_*`).
pub(crate) fn capture(fd: BorrowedFd<'_>, flags: u32, items: &[CaptureItem]) -> io::Result<()> {
    let mut arg = Capture {
        size: std::mem::size_of::<Capture>() as u32,
        flags,
        count: u32::try_from(items.len()).map_err(|_| io::Error::from_raw_os_error(libc::E2BIG))?,
        items: items.as_ptr() as u64,
        ..Capture::default()
    };
    // SAFETY: `fd` is open for the call (borrowed); `arg` is a `struct
    // utrace_capture` (layout asserted in uapi.rs) that the kernel only
    // reads, as it reads `arg.count` `struct utrace_capture_item`s (same
    // layout as `CaptureItem`, asserted) at `arg.items`: `items`, borrowed
    // for the call.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), IOC_CAPTURE, &mut arg as *mut Capture) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The bytes of a `user_regs_struct` (27 `u64`s, no padding).
#[cfg(target_arch = "x86_64")]
pub(crate) fn user_regs_bytes(regs: &mut libc::user_regs_struct) -> &mut [u8] {
    const _: () = assert!(std::mem::size_of::<libc::user_regs_struct>() == 27 * 8);
    // SAFETY: `regs` is exclusively borrowed for the slice's life; the
    // struct is 27 `u64`s (asserted above: no padding), for which every
    // byte pattern is valid.
    unsafe {
        std::slice::from_raw_parts_mut(
            (regs as *mut libc::user_regs_struct).cast::<u8>(),
            std::mem::size_of::<libc::user_regs_struct>(),
        )
    }
}
