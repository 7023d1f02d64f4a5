// SPDX-License-Identifier: GPL-2.0

use super::*;

/// The kprobes of `shim/kprobes.c` (`prepare_signal()`, else
/// `send_signal_locked()`, and
/// `dequeue_signal()` for the cgroup freezer, see `shim/stop.c`), registered
/// while this value lives, if the kernel lets us.
pub(crate) struct Kprobes(());

/// Whether the signal kprobe (`prepare_signal()` or `send_signal_locked()`)
/// is in place.
static KPROBED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

impl Kprobes {
    /// Registers them; a kernel without them still loads utrace-rs (see
    /// [`Kprobes::registered`]).
    pub(crate) fn register() -> Self {
        // SAFETY: Plain C call from module init; the handlers call into
        // `hooks.rs`, whose entry points cope with being called at any time.
        let ok = unsafe { ffi::utrace_shim_kprobes_register() };
        KPROBED.store(ok, core::sync::atomic::Ordering::SeqCst);
        Kprobes(())
    }

    /// Whether the probes are in place: SIGNAL_TERM and SIGNAL_IGN need
    /// them (a signal is held before the kernel makes it a group kill or
    /// drops it as ignored).
    pub(crate) fn registered() -> bool {
        KPROBED.load(core::sync::atomic::Ordering::SeqCst)
    }

    /// Arms (`true`) or disarms the signal kprobe, registered disabled: it
    /// is armed while some engine has signal events (`State::hooks_add`).
    /// `Ok` with nothing done if the kernel refused it. May sleep.
    pub(crate) fn arm_signal(on: bool) -> Result {
        // SAFETY: Plain C call from process context, serialised by the
        // caller; the kprobe stays registered until `Kprobes` is dropped,
        // after the last call (the module's exit shuts the switching down
        // first).
        to_result(unsafe { ffi::utrace_shim_signal_kprobe_arm(on) })
    }
}

impl Drop for Kprobes {
    fn drop(&mut self) {
        KPROBED.store(false, core::sync::atomic::Ordering::SeqCst);
        // SAFETY: After `register` (which may have registered the freezer's
        // kprobe even if the signal one failed); unregisters what
        // is registered and waits until no handler runs.
        unsafe { ffi::utrace_shim_kprobes_unregister() };
    }
}
