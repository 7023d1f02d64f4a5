// SPDX-License-Identifier: GPL-2.0

//! Timers: a handler called in process context (it may sleep) once a
//! deadline has passed.

use super::raw;
use core::ffi::c_void;
use core::ptr;
use kernel::error::from_err_ptr;
use kernel::prelude::*;

/// What a [`Timer`] calls.
pub(crate) trait TimerHandler: Send + Sync + 'static {
    /// The deadline passed. `timer` arms it again if wanted.
    fn fire(&self, timer: &TimerRef);
}

/// A timer owning its handler. Dropping it cancels it and waits for a
/// handler call in flight: none runs after the drop.
pub(crate) struct Timer<T: TimerHandler> {
    inner: Pin<KBox<Inner<T>>>,
}

struct Inner<T> {
    raw: TimerRef,
    handler: T,
}

/// A timer to arm (from its handler or from its owner).
pub(crate) struct TimerRef(*mut c_void);

// SAFETY: The framework's timer may be armed from any thread.
unsafe impl Send for TimerRef {}
// SAFETY: See `Send`.
unsafe impl Sync for TimerRef {}

impl TimerRef {
    /// (Re)arms it to fire in `msecs` milliseconds (replacing the deadline).
    pub(crate) fn arm(&self, msecs: u32) {
        // SAFETY: Valid until the owning `Timer` is dropped, which outlives
        // every `&TimerRef`.
        unsafe { raw::utrace_timer_arm(self.0, msecs) };
    }
}

impl<T: TimerHandler> Timer<T> {
    pub(crate) fn new(handler: T) -> Result<Self> {
        let mut inner = KBox::pin(
            Inner {
                raw: TimerRef(ptr::null_mut()),
                handler,
            },
            GFP_KERNEL,
        )?;
        let data = (&*inner as *const Inner<T>).cast_mut().cast::<c_void>();
        // SAFETY: `data` is pinned and outlives the timer (destroyed in
        // `drop` before `inner` is freed); `fire_cb` takes it as `Inner<T>`.
        let raw = from_err_ptr(unsafe { raw::utrace_timer_create(fire_cb::<T>, data) })?;
        // The timer cannot fire before it is armed, so nobody reads `raw` yet.
        inner.as_mut().set_raw(raw);
        Ok(Timer { inner })
    }

    /// Arms it (see [`TimerRef::arm`]).
    pub(crate) fn arm(&self, msecs: u32) {
        self.inner.raw.arm(msecs);
    }

    pub(crate) fn handler(&self) -> &T {
        &self.inner.handler
    }
}

impl<T> Inner<T> {
    fn set_raw(self: Pin<&mut Self>, raw: *mut c_void) {
        // SAFETY: `raw` is not structurally pinned.
        unsafe { self.get_unchecked_mut().raw = TimerRef(raw) };
    }
}

impl<T: TimerHandler> Drop for Timer<T> {
    fn drop(&mut self) {
        // SAFETY: Created in `new`, destroyed once; cancels and waits.
        unsafe { raw::utrace_timer_destroy(self.inner.raw.0) };
    }
}

/// # Safety
///
/// Called by `utrace_rs.ko` with the `data` of [`Timer::new`].
unsafe extern "C" fn fire_cb<T: TimerHandler>(data: *mut c_void) {
    // SAFETY: `data` is the pinned `Inner<T>`, alive until the timer is
    // destroyed, which waits for this call.
    let inner = unsafe { &*data.cast::<Inner<T>>() };
    inner.handler.fire(&inner.raw);
}

/// Sleeps for at least `ms` milliseconds (`msleep()`). Process context
/// only (it sleeps), as every caller of the safe API that may sleep.
pub(crate) fn msleep(ms: u32) {
    // SAFETY: A plain C call with an integer; sleeping is the caller's
    // documented context (a wrong one is a kernel warning, not a memory
    // error).
    unsafe { kernel::bindings::msleep(ms) };
}
