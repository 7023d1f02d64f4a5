// SPDX-License-Identifier: GPL-2.0

//! The errno values utrace's API needs that the 6.12 kernel crate does not
//! define as `Error` constants.

use kernel::bindings;
use kernel::error::Error;

fn errno(code: u32) -> Error {
    // Small positive constants from the UAPI headers: always valid errnos.
    Error::from_errno(-(code as i32))
}

/// A callback may be in flight: use `utrace_barrier()`.
pub(crate) fn einprogress() -> Error {
    errno(bindings::EINPROGRESS)
}

/// DEATH reporting has begun.
pub(crate) fn ealready() -> Error {
    errno(bindings::EALREADY)
}

pub(crate) fn eopnotsupp() -> Error {
    errno(bindings::EOPNOTSUPP)
}

/// The stream is being destroyed.
pub(crate) fn eshutdown() -> Error {
    errno(bindings::ESHUTDOWN)
}

/// `utrace_release_engines()` from a callback of one of its engines.
pub(crate) fn edeadlk() -> Error {
    errno(bindings::EDEADLK)
}
