// SPDX-License-Identifier: GPL-2.0

//! Every difference between the kernels utrace-rs builds for, in one place.
//!
//! The top-level `Kbuild` computes cfg flags from the version of the kernel
//! it builds against and gives them to every crate:
//!
//! - `utrace_kernel_7`: kernel 7.0 or later (Debian 13's trixie-backports
//!   7.3.4): `ARef` in `kernel::sync::aref`, `UserPtr` a newtype, no
//!   `Ktime::ktime_get()`, `BStr` without `core::fmt::Display` (and `pr_*!`
//!   formatting through `kernel::fmt::Display`), `into_foreign()` returning
//!   `*mut c_void`, `container_of!` checking the field type, `module!`'s
//!   `authors: [..]`, `KVec::pop()` instead of `set_len()`. (Its tracepoint
//!   probes are preemptible, the syscall probes faultable: the C shim's
//!   syscall, fork, exec and exit probes disable preemption for the Rust
//!   hook themselves.)
//!
//! The C side (tracepoint prototypes, `__get_task_comm()`) tests
//! `UTRACE_KERNEL_7` of `shim/shim.h`, the same threshold. Included by the
//! crate root and by `api/utrace.rs` (so the sample and test engines get it
//! too); not every user needs every item.
#![allow(dead_code, unused_imports, unused_macros)]

use core::ffi::c_void;
use core::fmt;
use kernel::bindings;

#[cfg(utrace_kernel_7)]
pub(crate) use kernel::sync::aref::{ARef, AlwaysRefCounted};
#[cfg(not(utrace_kernel_7))]
pub(crate) use kernel::types::{ARef, AlwaysRefCounted};

/// The containing `$type` of a pointer to its field `$field`, as `*mut`
/// (7.x's `container_of!` wants a pointer of the field's exact type and
/// returns `*mut`; 6.12's takes any pointer and returns `*const`).
///
/// # Safety
///
/// Use in an `unsafe` block: `$ptr` must point at the `$field` of a `$type`.
macro_rules! container_of_mut {
    ($ptr:expr, $type:ty, $field:ident) => {
        ($ptr)
            .cast::<u8>()
            .sub(::core::mem::offset_of!($type, $field))
            .cast::<$type>()
    };
}
pub(crate) use container_of_mut;

/// What `ForeignOwnable::into_foreign()` returns (`*const c_void` on 6.12,
/// `*mut c_void` on 7.x), as the `*mut c_void` that C stores.
pub(crate) trait ForeignPtr {
    fn into_mut(self) -> *mut c_void;
}
impl ForeignPtr for *const c_void {
    fn into_mut(self) -> *mut c_void {
        self.cast_mut()
    }
}
impl ForeignPtr for *mut c_void {
    fn into_mut(self) -> *mut c_void {
        self
    }
}

/// A writer to the user buffer `buf` of `len` bytes.
pub(crate) fn user_writer(buf: *mut u8, len: usize) -> kernel::uaccess::UserSliceWriter {
    #[cfg(utrace_kernel_7)]
    let ptr = kernel::uaccess::UserPtr::from_ptr(buf.cast());
    #[cfg(not(utrace_kernel_7))]
    let ptr = buf as usize;
    kernel::uaccess::UserSlice::new(ptr, len).writer()
}

/// CLOCK_MONOTONIC now, in nanoseconds (`ktime_get()`).
pub(crate) fn ktime_get_ns() -> i64 {
    // SAFETY: Plain C call, any context.
    unsafe { bindings::ktime_get() }
}

/// Bytes formatted as 6.12's `BStr` does with `{}`: printable ASCII as is,
/// `\t` `\n` `\r` and the rest escaped (`\xNN`). 7.x's `BStr` has no
/// `core::fmt::Display`.
pub(crate) struct Escaped<'a>(pub(crate) &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut res = Ok(());
        super::text::escape(self.0, |piece| {
            if res.is_ok() {
                // Every piece is ASCII: always UTF-8.
                res = core::str::from_utf8(piece)
                    .map_err(|_| fmt::Error)
                    .and_then(|s| f.write_str(s));
            }
        });
        res
    }
}

/// 7.x's `pr_*!` format through `kernel::fmt::Display`.
#[cfg(utrace_kernel_7)]
impl kernel::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The workqueue for work that may run on any CPU: 7.x deprecates
/// `system_wq` (and warns when work is queued on it) for `system_dfl_wq`.
pub(crate) fn system_dfl_wq() -> *mut bindings::workqueue_struct {
    // SAFETY: Set once at boot, before modules load; only read here.
    #[cfg(utrace_kernel_7)]
    return unsafe { bindings::system_dfl_wq };
    // SAFETY: As above.
    #[cfg(not(utrace_kernel_7))]
    return unsafe { bindings::system_wq };
}

/// The bytes of a `kernel::str::CStr`, without the NUL (6.12's own type has
/// `as_bytes()`; 7.x's is `core::ffi::CStr`, with `to_bytes()`).
pub(crate) fn cstr_bytes(s: &kernel::str::CStr) -> &[u8] {
    #[cfg(utrace_kernel_7)]
    return s.to_bytes();
    #[cfg(not(utrace_kernel_7))]
    return s.as_bytes();
}

/// Removes and returns the last element (6.12's `KVec` has no `pop()`, 7.x's
/// no public `set_len()`).
pub(crate) fn kvec_pop<T>(v: &mut kernel::alloc::KVec<T>) -> Option<T> {
    #[cfg(utrace_kernel_7)]
    return v.pop();
    #[cfg(not(utrace_kernel_7))]
    {
        let last = v.len().checked_sub(1)?;
        // SAFETY: Shrinks by one; the element past the new length is read
        // out exactly once and never dropped by the vector.
        unsafe {
            v.set_len(last);
            Some(core::ptr::read(v.as_ptr().add(last)))
        }
    }
}

/// `module!` with one author: 6.12 spells it `author: "..."`, 7.x
/// `authors: ["..."]`. Use as `compat::module_author! { type: T, name: "n",
/// author: "a", description: "d", license: "GPL", }` (the keys in that order).
macro_rules! module_author {
    (type: $t:tt, name: $n:tt, author: $a:tt, $($rest:tt)*) => {
        #[cfg(utrace_kernel_7)]
        ::kernel::prelude::module! { type: $t, name: $n, authors: [$a], $($rest)* }
        #[cfg(not(utrace_kernel_7))]
        ::kernel::prelude::module! { type: $t, name: $n, author: $a, $($rest)* }
    };
}
pub(crate) use module_author;

/// Initialises `slot` with `init` (`PinInit::__pinned_init` up to 7.2,
/// `PinInit::__init` from 7.3: the pin-init crate renamed it).
///
/// # Safety
///
/// As `PinInit`'s: `slot` is valid, uninitialised memory for a `T` that
/// does not move until dropped; on `Err` it may only be deallocated.
pub(crate) unsafe fn pin_init_in<T, E>(
    init: impl kernel::prelude::PinInit<T, E>,
    slot: *mut T,
) -> core::result::Result<(), E> {
    // SAFETY: By the function's safety requirements.
    #[cfg(utrace_kernel_7_3)]
    let ret = unsafe { init.__init(slot) };
    // SAFETY: As above.
    #[cfg(not(utrace_kernel_7_3))]
    let ret = unsafe { init.__pinned_init(slot) };
    ret
}
