// SPDX-License-Identifier: GPL-2.0

//! Reading the memory of the task in a syscall callback without faulting
//! (`copy_from_user_nofault()`): what a tracer of syscall arguments needs in
//! the atomic syscall callbacks, where a page fault may not be taken.
//!
//! A read succeeds when the bytes are mapped and present now. At
//! SYSCALL_EXIT that is the rule for what the syscall itself just read or
//! wrote (a path, a `write()` buffer, the data `read()` returned); at
//! SYSCALL_ENTRY a page the task has not touched yet may fail.

use super::SyscallContext;
use core::ffi::c_void;
use kernel::bindings;
use kernel::prelude::*;

/// Page size for splitting reads: a read never spans a page boundary, so a
/// missing page ends a string read there instead of failing all of it.
const PAGE: u64 = 4096;

impl SyscallContext<'_> {
    /// Copies `buf.len()` bytes at user address `addr` of the task
    /// (`current`) into `buf`. `EFAULT` if any of them is not mapped and
    /// present (nothing is faulted in).
    pub(crate) fn read_user(&self, addr: u64, buf: &mut [u8]) -> Result {
        if buf.is_empty() {
            return Ok(());
        }
        // SAFETY: `buf` is a writable kernel buffer of `buf.len()` bytes;
        // the source is a user address, checked with `access_ok()` and
        // read with page faults disabled, of the current task (this
        // context is only made for `current`'s syscall callbacks).
        let left = unsafe {
            bindings::copy_from_user_nofault(
                buf.as_mut_ptr().cast::<c_void>(),
                addr as usize as *const c_void,
                buf.len(),
            )
        };
        if left == 0 {
            Ok(())
        } else {
            Err(EFAULT)
        }
    }

    /// Reads the NUL-terminated string at user address `addr` into `buf`:
    /// `Ok((len, complete))` with the string's first `len` bytes in `buf`
    /// and `complete` false if it is longer than `buf` or its tail is not
    /// present; `EFAULT` if not even its first byte is.
    pub(crate) fn read_user_str(&self, addr: u64, buf: &mut [u8]) -> Result<(usize, bool)> {
        let mut len = 0;
        while len < buf.len() {
            let at = addr.wrapping_add(len as u64);
            let in_page = (PAGE - at % PAGE) as usize;
            let n = in_page.min(buf.len() - len);
            if self.read_user(at, &mut buf[len..len + n]).is_err() {
                return if len == 0 {
                    Err(EFAULT)
                } else {
                    Ok((len, false))
                };
            }
            if let Some(nul) = buf[len..len + n].iter().position(|&b| b == 0) {
                return Ok((len + nul, true));
            }
            len += n;
        }
        Ok((len, false))
    }
}
