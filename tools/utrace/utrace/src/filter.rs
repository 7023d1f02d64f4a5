// SPDX-License-Identifier: GPL-2.0

//! Which syscalls a session records (`UTRACE_IOC_SYSCALLS`): strace's
//! `-e trace=` in the kernel, and entries left out where the exit record
//! (which carries the arguments too) is all a reader needs.

use crate::event::Abi;
use crate::uapi;

/// A set of syscalls, each recorded at its entry, its exit, or both. Starts
/// empty: nothing the bitmaps can name is recorded (a syscall they cannot
/// name, x32 or a number from `UTRACE_CAPTURE_NR_MAX` on, always is).
#[derive(Clone, Debug)]
pub struct SyscallFilter {
    entry: [u64; uapi::SYSCALLS_WORDS],
    exit: [u64; uapi::SYSCALLS_WORDS],
}

impl Default for SyscallFilter {
    fn default() -> Self {
        Self::new()
    }
}

/// The bit of syscall `nr` of `abi`, if the bitmaps can name it.
fn bit(abi: Abi, nr: i64) -> Option<(usize, u64)> {
    let max = uapi::CAPTURE_NR_MAX as usize;
    let base = match abi {
        Abi::X86_64 => 0,
        Abi::I386 => max,
        _ => return None,
    };
    let n = usize::try_from(nr).ok().filter(|&n| n < max)? + base;
    Some((n / 64, 1 << (n % 64)))
}

impl SyscallFilter {
    /// Nothing recorded.
    pub fn new() -> Self {
        SyscallFilter {
            entry: [0; uapi::SYSCALLS_WORDS],
            exit: [0; uapi::SYSCALLS_WORDS],
        }
    }

    /// Records syscall `nr` of `abi` at its entry if `entry`, at its exit
    /// if `exit` (adding to what is recorded already).
    pub fn record(&mut self, abi: Abi, nr: i64, entry: bool, exit: bool) {
        if let Some((w, b)) = bit(abi, nr) {
            if entry {
                self.entry[w] |= b;
            }
            if exit {
                self.exit[w] |= b;
            }
        }
    }

    /// Whether the kernel writes a record of syscall `nr` of `abi` at its
    /// entry under this filter.
    pub fn records_entry(&self, abi: Abi, nr: i64) -> bool {
        bit(abi, nr).is_none_or(|(w, b)| self.entry[w] & b != 0)
    }

    /// Whether the kernel writes a record of syscall `nr` of `abi` at its
    /// exit under this filter.
    pub fn records_exit(&self, abi: Abi, nr: i64) -> bool {
        bit(abi, nr).is_none_or(|(w, b)| self.exit[w] & b != 0)
    }

    /// The ioctl's argument.
    pub(crate) fn to_uapi(&self) -> uapi::Syscalls {
        use uapi::IoctlArg;
        let mut a = uapi::Syscalls::new();
        a.entry = self.entry;
        a.exit = self.exit;
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits() {
        let mut f = SyscallFilter::new();
        f.record(Abi::X86_64, 110, false, true);
        f.record(Abi::I386, 64, true, true);
        assert!(!f.records_entry(Abi::X86_64, 110));
        assert!(f.records_exit(Abi::X86_64, 110));
        assert!(!f.records_exit(Abi::X86_64, 111));
        assert!(f.records_entry(Abi::I386, 64) && f.records_exit(Abi::I386, 64));
        assert!(!f.records_entry(Abi::X86_64, 64));
        // Numbers the bitmaps cannot name are always recorded.
        assert!(f.records_entry(Abi::X86_64, -1));
        assert!(f.records_exit(Abi::X86_64, 512));
        assert!(f.records_entry(Abi::X32, 0x4000_0000));
        let a = f.to_uapi();
        assert_eq!(a.exit[1], 1 << (110 - 64));
        assert_eq!(a.entry[8 + 1], 1);
        assert_eq!(a.size as usize, std::mem::size_of::<uapi::Syscalls>());
    }
}
