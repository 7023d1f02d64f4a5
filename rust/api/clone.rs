// SPDX-License-Identifier: GPL-2.0

//! The flags of a CLONE report, as `clone(2)` took them.

use kernel::bindings;

/// `clone(2)`'s flags of a new task ([`Engine::cloned`](super::Engine::cloned)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CloneFlags(u64);

impl CloneFlags {
    /// From the raw flags the C ABI reports.
    pub(crate) const fn from_bits(bits: u64) -> Self {
        CloneFlags(bits)
    }

    /// The raw flags (`CLONE_*`), for a record or a decoder.
    pub(crate) const fn bits(self) -> u64 {
        self.0
    }

    /// A new thread of the same process (`CLONE_THREAD`), not a new process.
    pub(crate) const fn thread(self) -> bool {
        self.0 & bindings::CLONE_THREAD as u64 != 0
    }

    /// The parent sleeps until the child execs or exits (`CLONE_VFORK`).
    pub(crate) const fn vfork(self) -> bool {
        self.0 & bindings::CLONE_VFORK as u64 != 0
    }
}
