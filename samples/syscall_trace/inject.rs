// SPDX-License-Identifier: GPL-2.0

//! The `inject=` parameter: `SYSCALL:error=ERRNO[:when=WHEN]` fails calls
//! of SYSCALL with ERRNO instead of running them (like strace's
//! `-e inject=openat:error=ENOENT:when=3`). ERRNO is a name (`ENOENT`) or
//! a number (1-4095). WHEN counts the calls of SYSCALL by every traced
//! task together, from 1: `N` fails only the Nth, `N+` the Nth and every
//! later one, `N..M` the Nth to the Mth; without `when=`, every call.

use super::{errno, syscalls};

/// A parsed `inject=` value.
pub(crate) struct Inject {
    pub(crate) syscall: &'static syscalls::Syscall,
    /// Positive.
    pub(crate) errno: i32,
    /// The calls failed: `first..=last` (counting from 1).
    pub(crate) first: u64,
    pub(crate) last: u64,
}

impl Inject {
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
    let syscall = syscalls::by_name(name).ok_or("unknown syscall name (see syscall-trace.rst)")?;
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
        syscall,
        errno,
        first,
        last,
    })
}
