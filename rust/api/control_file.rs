// SPDX-License-Identifier: GPL-2.0

//! Control files: the character device `/dev/<name>`, root-only, whose
//! reads show a text the engine writes and whose writes the engine takes
//! (or refuses with an errno the writer gets). Character devices need no
//! mounted file system, and kernel lockdown (`lockdown=integrity`, Secure
//! Boot) leaves them alone.

use super::raw;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::error::from_err_ptr;
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::Arc;

/// What a control file does. Both run in process context and may sleep.
pub(crate) trait ControlHandler: Send + Sync + 'static {
    /// Whether root may write it (mode 0600, else 0400 and no `store`).
    const WRITABLE: bool = true;

    /// What a read shows (made at open; cut at 16 KiB).
    fn show(&self, out: &mut Text<'_>);

    /// A write (up to 1 KiB, one call per `write(2)`). An error is what
    /// the writer gets; `Ok` takes the whole write.
    fn store(&self, text: &[u8]) -> Result {
        let _ = text;
        Err(EPERM)
    }
}

/// A control file; removed when dropped, after reads and writes in flight
/// have returned (no handler call runs after the drop).
pub(crate) struct ControlFile<T: ControlHandler> {
    file: NonNull<c_void>,
    /// The handler the file's `data` points to, alive until the file is gone.
    _handler: Arc<T>,
}

// SAFETY: The framework's file is usable from any thread; the handler is
// `Send + Sync`.
unsafe impl<T: ControlHandler> Send for ControlFile<T> {}
// SAFETY: See `Send`.
unsafe impl<T: ControlHandler> Sync for ControlFile<T> {}

impl<T: ControlHandler> ControlFile<T> {
    /// Creates `/dev/<name>` (mode 0600: reads show, root writes store;
    /// 0400 if not [`ControlHandler::WRITABLE`]; opening it needs
    /// `CAP_SYS_ADMIN` whatever its mode). `name` is 1 to 31 letters,
    /// digits, `_` or `-` (else `EINVAL`); `EEXIST` if a stream or control
    /// file has it already.
    pub(crate) fn create(name: &CStr, handler: Arc<T>) -> Result<Self> {
        let data = (&*handler as *const T).cast_mut().cast::<c_void>();
        // SAFETY: `name` is NUL-terminated; `data` stays valid until
        // `utrace_file_destroy` returns (we keep `handler` until then), and
        // the callbacks take it as a `T`.
        let file = unsafe {
            raw::utrace_file_create(
                name.as_char_ptr(),
                data,
                Some(show_cb::<T>),
                T::WRITABLE.then_some(store_cb::<T> as raw::StoreFn),
            )
        };
        let file = from_err_ptr(file)?;
        Ok(ControlFile {
            file: NonNull::new(file).ok_or(EINVAL)?,
            _handler: handler,
        })
    }
}

impl<T: ControlHandler> Drop for ControlFile<T> {
    fn drop(&mut self) {
        // SAFETY: Created by `create`, destroyed once; waits for callbacks.
        unsafe { raw::utrace_file_destroy(self.file.as_ptr()) };
    }
}

/// The text a read shows: `write!` into it; what does not fit is cut.
pub(crate) struct Text<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Text<'_> {
    /// Whether something was cut.
    pub(crate) fn is_full(&self) -> bool {
        self.len == self.buf.len()
    }
}

impl core::fmt::Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// # Safety
///
/// Called by `utrace_rs.ko` with the `data` of [`ControlFile::create`] and a
/// buffer of `len` bytes.
unsafe extern "C" fn show_cb<T: ControlHandler>(
    data: *mut c_void,
    buf: *mut u8,
    len: usize,
) -> usize {
    // SAFETY: `data` is the handler, alive while the file exists; `buf`
    // holds `len` writable bytes for this call.
    let (handler, buf) = unsafe {
        (
            &*data.cast::<T>(),
            core::slice::from_raw_parts_mut(buf, len),
        )
    };
    let mut text = Text { buf, len: 0 };
    handler.show(&mut text);
    text.len
}

/// # Safety
///
/// Called by `utrace_rs.ko` with the `data` of [`ControlFile::create`] and a
/// NUL-terminated string.
unsafe extern "C" fn store_cb<T: ControlHandler>(data: *mut c_void, text: *const u8) -> i32 {
    // SAFETY: As for `show_cb`; `text` is NUL-terminated and alive for the call.
    let (handler, text) = unsafe { (&*data.cast::<T>(), CStr::from_char_ptr(text)) };
    match handler.store(super::cstr_bytes(text)) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}
