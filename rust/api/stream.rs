// SPDX-License-Identifier: GPL-2.0

//! Event streams: text records for a reader of `/dev/<name>`.

use super::raw;
use super::text::Cursor;
use core::ffi::c_void;
use core::mem::MaybeUninit;
use core::ptr::NonNull;
use kernel::error::{from_err_ptr, to_result};
use kernel::prelude::*;
use kernel::str::CStr;

/// An event stream, the character device `/dev/<name>` (`name`: 1 to 31
/// letters, digits, `_` or `-`): root-only, one line per record,
/// `<seq> <ns> <text>`; removed when dropped (readers then get end of
/// file).
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
    /// the record is dropped and the reader told. [`Stream::write`] with a
    /// [`Record`] gives the same text for a fraction of the instructions.
    pub(crate) fn emit(&self, args: core::fmt::Arguments<'_>) -> Result {
        let mut rec = Record::new();
        let _ = core::fmt::Write::write_fmt(&mut rec, args);
        self.write(&rec)
    }

    /// Adds `rec` as a record, as [`Stream::emit`] does.
    pub(crate) fn write(&self, rec: &Record) -> Result {
        let text = rec.as_bytes();
        // SAFETY: A live stream; `text` is `len` bytes.
        to_result(unsafe { raw::utrace_stream_emit(self.0.as_ptr(), text.as_ptr(), text.len()) })
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

/// Bytes of a record's text a [`Record`] holds (the stream adds
/// `<seq> <ns> ` before it).
pub(crate) const RECORD_TEXT: usize = 240;

/// The text of one record, built without `core::fmt` (which costs a
/// dispatch per piece and a padding pass per number): append pieces, then
/// [`Stream::write`] it. What does not fit in [`RECORD_TEXT`] bytes is cut;
/// the stream escapes bytes that are not printable ASCII (as
/// [`Record::escaped`] does). Also a `core::fmt::Write`, for the rare piece
/// that needs formatting.
///
/// ```ignore
/// let mut r = Record::new();
/// r.str("DEATH pid=").int(pid).str(" comm=").escaped(comm);
/// stream.write(&r)?;
/// ```
pub(crate) struct Record {
    /// Not cleared when made: each clear of its 240 bytes would cost 240
    /// instructions under `make bench`'s `-icount`.
    // INVARIANT: `buf[..len]` is initialised.
    buf: MaybeUninit<[u8; RECORD_TEXT]>,
    len: usize,
}

impl Record {
    /// An empty record.
    #[inline]
    pub(crate) fn new() -> Record {
        // Only `len` is written: a struct literal with an uninitialised
        // `buf` (or `[MaybeUninit::uninit(); N]`) compiles to a `memset` of
        // the whole record.
        let mut r = MaybeUninit::<Record>::uninit();
        let p = r.as_mut_ptr();
        // SAFETY: `p` points to a `Record`'s memory; `buf` needs no
        // initialisation (it is a `MaybeUninit`), so with `len` written the
        // record is initialised.
        // INVARIANT: Nothing is claimed initialised.
        unsafe {
            core::ptr::addr_of_mut!((*p).len).write(0);
            r.assume_init()
        }
    }

    #[inline]
    fn cursor(&mut self, f: impl FnOnce(&mut Cursor<'_>)) -> &mut Record {
        // SAFETY: An array of `MaybeUninit<u8>` has the layout of the
        // (maybe uninitialised) `[u8; N]`; `buf[..len]` is initialised (the
        // type's invariant).
        let mut c = unsafe {
            let buf = &mut *self
                .buf
                .as_mut_ptr()
                .cast::<[MaybeUninit<u8>; RECORD_TEXT]>();
            Cursor::new(buf, self.len)
        };
        f(&mut c);
        // INVARIANT: The cursor's first `len()` bytes are initialised.
        self.len = c.len();
        self
    }

    /// Appends `s`.
    #[inline]
    pub(crate) fn str(&mut self, s: &str) -> &mut Record {
        self.cursor(|c| c.bytes(s.as_bytes()))
    }

    /// Appends `s` as it is (the stream escapes what is not printable).
    #[inline]
    pub(crate) fn bytes(&mut self, s: &[u8]) -> &mut Record {
        self.cursor(|c| c.bytes(s))
    }

    /// Appends `v` in decimal, as `{}` formats it.
    #[inline]
    pub(crate) fn int(&mut self, v: impl Into<i64>) -> &mut Record {
        let v = v.into();
        self.cursor(|c| c.i64(v))
    }

    /// Appends `v` in decimal, as `{}` formats it.
    #[inline]
    pub(crate) fn uint(&mut self, v: impl Into<u64>) -> &mut Record {
        let v = v.into();
        self.cursor(|c| c.u64(v))
    }

    /// Appends `v` in lower-case hex, without a prefix (as `{:x}`).
    #[inline]
    pub(crate) fn hex(&mut self, v: u64) -> &mut Record {
        self.cursor(|c| c.hex(v))
    }

    /// Appends `s` as [`Escaped`](super::Escaped) shows it: printable
    /// ASCII as is, `\t` `\n` `\r`, every other byte as `\xNN`.
    #[inline]
    pub(crate) fn escaped(&mut self, s: &[u8]) -> &mut Record {
        self.cursor(|c| c.escaped(s))
    }

    /// The text so far.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: `buf[..len]` is initialised (the type's invariant), and
        // `MaybeUninit<u8>` is laid out as `u8`.
        unsafe { core::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>(), self.len) }
    }
}

impl Default for Record {
    fn default() -> Record {
        Record::new()
    }
}

impl core::fmt::Write for Record {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.str(s);
        Ok(())
    }
}
