// SPDX-License-Identifier: GPL-2.0

//! Which syscalls a session records (`UTRACE_IOC_SYSCALLS`): strace's
//! `-e trace=` in the kernel, and entries left out where a reader needs
//! only the exit (whose record carries the arguments too).
//!
//! A call left out is not written to the ring, not captured, not decided
//! on: it costs the traced task its callback's lookup and a bit test.
//! Whether the thread is held (a session stop) is still answered by the
//! caller, which looks the filter up under the session's lock.

use crate::utrace::device::UserArg;
use crate::utrace::uapi;
use crate::utrace::SyscallArch;

/// The session's syscall filter; lives in its locked state.
pub(crate) struct Filter {
    /// Everything is recorded (`UTRACE_SYSCALLS_F_ALL`, and the default).
    all: bool,
    entry: [u64; uapi::SYSCALLS_WORDS],
    exit: [u64; uapi::SYSCALLS_WORDS],
}

impl Default for Filter {
    fn default() -> Filter {
        Filter {
            all: true,
            entry: [0; uapi::SYSCALLS_WORDS],
            exit: [0; uapi::SYSCALLS_WORDS],
        }
    }
}

impl Filter {
    /// Whether syscall `nr` of `arch` is recorded at its exit (`exit`) or
    /// entry. A number the bitmaps cannot name is.
    #[inline]
    pub(crate) fn records(&self, exit: bool, arch: SyscallArch, nr: i64) -> bool {
        if self.all {
            return true;
        }
        let Some(n) = crate::capture::index(crate::abi_of(arch), nr) else {
            return true;
        };
        let words = if exit { &self.exit } else { &self.entry };
        words.get(n / 64).is_some_and(|w| w & (1 << (n % 64)) != 0)
    }

    /// The filter `UTRACE_IOC_SYSCALLS`'s argument `arg` describes:
    /// `EINVAL` for unknown flags or a non-zero reserved field, `EFAULT`
    /// for a bad pointer.
    pub(crate) fn from_user(arg: UserArg) -> kernel::error::Result<Filter> {
        let s: uapi::Syscalls = arg.read_struct()?;
        if s.flags & !uapi::SYSCALLS_F_ALL != 0 || s.reserved != 0 {
            return Err(kernel::error::code::EINVAL);
        }
        Ok(Filter {
            all: s.flags & uapi::SYSCALLS_F_ALL != 0,
            entry: s.entry,
            exit: s.exit,
        })
    }
}
