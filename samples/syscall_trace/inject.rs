// SPDX-License-Identifier: GPL-2.0

//! The `inject=` parameter: `SYSCALL:error=ERRNO[:when=WHEN]` fails calls
//! of SYSCALL with ERRNO instead of running them (like strace's
//! `-e inject=openat:error=ENOENT:when=3`). ERRNO is a name (`ENOENT`) or
//! a number (1-4095). WHEN counts the calls of SYSCALL by every traced
//! task together, from 1: `N` fails only the Nth, `N+` the Nth and every
//! later one, `N..M` the Nth to the Mth; without `when=`, every call.
//! SYSCALL is a name, looked up in each syscall ABI's table: `getpid` fails
//! x86-64's 39 and i386's 20 (`int $0x80`), together counted; `mmap2` only
//! i386's.

use super::utrace::SyscallArch;
use super::{errno, syscalls};

/// A parsed `inject=` value.
pub(crate) struct Inject {
    /// The syscall's name.
    pub(crate) name: &'static str,
    /// Its number for x86-64 and for i386, where it has one.
    nr_64: Option<i64>,
    nr_32: Option<i64>,
    /// Positive.
    pub(crate) errno: i32,
    /// The calls failed: `first..=last` (counting from 1).
    pub(crate) first: u64,
    pub(crate) last: u64,
}

impl Inject {
    /// Whether syscall `nr` of ABI `arch` is the one to fail.
    pub(crate) fn is(&self, arch: SyscallArch, nr: i64) -> bool {
        let want = match arch {
            SyscallArch::X86_64 => self.nr_64,
            SyscallArch::I386 => self.nr_32,
        };
        want == Some(nr)
    }

    /// Whether the `n`th call (from 1) is failed.
    pub(crate) fn hits(&self, n: u64) -> bool {
        (self.first..=self.last).contains(&n)
    }
}

fn number(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    s.iter().try_fold(0u64, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + u64::from(c - b'0'))
    })
}

/// Parses `N`, `N+` or `N..M` (N >= 1, M >= N) into `(first, last)`.
fn when(s: &[u8]) -> Option<(u64, u64)> {
    if let Some(n) = s.strip_suffix(b"+") {
        let n = number(n).filter(|&n| n >= 1)?;
        return Some((n, u64::MAX));
    }
    if let Some(dots) = s.windows(2).position(|w| w == b"..") {
        let n = number(&s[..dots]).filter(|&n| n >= 1)?;
        let m = number(&s[dots + 2..]).filter(|&m| m >= n)?;
        return Some((n, m));
    }
    let n = number(s).filter(|&n| n >= 1)?;
    Some((n, n))
}

/// Parses an `inject=` value; the error says what is wrong with it.
pub(crate) fn parse(s: &[u8]) -> Result<Inject, &'static str> {
    let mut parts = s.split(|&c| c == b':');
    let name = parts.next().unwrap_or(b"");
    let sys_64 = syscalls::table(SyscallArch::X86_64).by_name(name);
    let sys_32 = syscalls::table(SyscallArch::I386).by_name(name);
    let sys = sys_64
        .or(sys_32)
        .ok_or("unknown syscall name (see syscall-trace.rst)")?;
    let (mut err, mut range) = (None, None);
    for part in parts {
        if let Some(v) = part.strip_prefix(b"error=") {
            let e = match errno::by_name(v) {
                Some(e) => e,
                None => number(v)
                    .filter(|e| (1..4096).contains(e))
                    .ok_or("error= is not a known errno name or a number 1-4095")?
                    as i32,
            };
            err = Some(e);
        } else if let Some(v) = part.strip_prefix(b"when=") {
            range = Some(when(v).ok_or("when= is not N, N+ or N..M (N >= 1, M >= N)")?);
        } else {
            return Err("expected SYSCALL:error=ERRNO[:when=N|N+|N..M]");
        }
    }
    let errno = err.ok_or("error=ERRNO is required")?;
    let (first, last) = range.unwrap_or((1, u64::MAX));
    Ok(Inject {
        name: sys.name,
        nr_64: sys_64.map(|s| i64::from(s.nr)),
        nr_32: sys_32.map(|s| i64::from(s.nr)),
        errno,
        first,
        last,
    })
}
