// SPDX-License-Identifier: GPL-2.0

//! Event streams: text records for a reader in debugfs.

use super::raw;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::error::{from_err_ptr, to_result};
use kernel::prelude::*;
use kernel::str::CStr;

/// An event stream, `/sys/kernel/debug/utrace/<name>`: root-only, one line
/// per record, `<seq> <ns> <text>`; removed when dropped (readers then get
/// end of file).
pub(crate) struct Stream(NonNull<c_void>);

// SAFETY: The framework's stream is usable from any thread and context but
// hard interrupts.
unsafe impl Send for Stream {}
// SAFETY: See `Send`.
unsafe impl Sync for Stream {}

impl Stream {
    /// A stream with room for `records` records (16 to 65536).
    pub(crate) fn create(name: &CStr, records: u32) -> Result<Stream> {
        // SAFETY: `name` is NUL-terminated.
        let s = unsafe { raw::utrace_stream_create(name.as_char_ptr(), records) };
        let s = from_err_ptr(s)?;
        Ok(Stream(NonNull::new(s).ok_or(EINVAL)?))
    }

    /// Adds a record (cut at 256 bytes). `ENOSPC` when the ring is full:
    /// the record is dropped and the reader told.
    pub(crate) fn emit(&self, args: core::fmt::Arguments<'_>) -> Result {
        let mut buf = LineBuf {
            buf: [0; 240],
            len: 0,
        };
        let _ = core::fmt::Write::write_fmt(&mut buf, args);
        // SAFETY: A live stream; `buf` holds `len` bytes.
        to_result(unsafe { raw::utrace_stream_emit(self.0.as_ptr(), buf.buf.as_ptr(), buf.len) })
    }

    /// Records dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        // SAFETY: A live stream.
        unsafe { raw::utrace_stream_dropped(self.0.as_ptr()) }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: Created by `create`, destroyed once.
        unsafe { raw::utrace_stream_destroy(self.0.as_ptr()) };
    }
}

/// Formats a line into a fixed buffer, cutting what does not fit.
struct LineBuf {
    buf: [u8; 240],
    len: usize,
}

impl core::fmt::Write for LineBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}
