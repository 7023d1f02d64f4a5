// SPDX-License-Identifier: GPL-2.0

//! The one module with `unsafe`: the ioctl calls on a session fd, and the
//! ownership of a descriptor the kernel just gave us (SCM_RIGHTS).

use crate::uapi::IoctlArg;
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
