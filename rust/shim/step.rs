// SPDX-License-Identifier: GPL-2.0

use super::*;

/// Whether this CPU takes block steps (DEBUGCTL.BTF). Process context.
pub(crate) fn block_supported() -> bool {
    // SAFETY: Reads and writes back this CPU's DEBUGCTL, fault-checked.
    unsafe { ffi::utrace_shim_blockstep_supported() }
}

/// Steps `current` (one instruction, or one block) once it returns to
/// user mode (a trap flag the program set itself stays when [`disable`]
/// ends the stepping). In `current`'s task work.
pub(crate) fn enable(block: bool) {
    // SAFETY: Acts on `current`, in its own context.
    unsafe { ffi::utrace_shim_step_enable(block) }
}

/// Stops stepping `current`, discarding a step trap nobody consumed
/// (its engine detached while it stepped).
pub(crate) fn disable() {
    // SAFETY: As for `enable`.
    unsafe { ffi::utrace_shim_step_disable() }
}
