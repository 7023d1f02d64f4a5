// SPDX-License-Identifier: GPL-2.0

use super::*;

/// The tracepoint probes of `shim/tracepoints.c`, registered while this
/// value lives. Dropping it unregisters them and waits until no probe runs.
pub(crate) struct Hooks(());

impl Hooks {
    /// Registers every probe; on failure none stays registered.
    pub(crate) fn register() -> Result<Self> {
        // SAFETY: Plain C call; the probes it registers call into `hooks.rs`,
        // whose entry points cope with being called at any time.
        to_result(unsafe { ffi::utrace_shim_hooks_register() })?;
        Ok(Hooks(()))
    }
}

impl Drop for Hooks {
    fn drop(&mut self) {
        // SAFETY: The probes were registered by `register`.
        unsafe { ffi::utrace_shim_hooks_unregister() };
    }
}
