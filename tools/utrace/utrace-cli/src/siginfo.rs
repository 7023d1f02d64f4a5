// SPDX-License-Identifier: GPL-2.0

//! strace's `{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}` from
//! the 128 bytes of a SIGNAL record (the x86-64 `siginfo_t`; fields not
//! known for a code are left out, never guessed).

use crate::format::{signal, Line};
use std::fmt::Write;

/// The `i32` at byte `at` of `b` (0 past its end).
pub fn i32_at(b: &[u8], at: usize) -> i32 {
    let mut v = [0u8; 4];
    if let Some(s) = b.get(at..at + 4) {
        v.copy_from_slice(s);
    }
    i32::from_ne_bytes(v)
}

/// The `u64` at byte `at` of `b` (0 past its end).
pub fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    if let Some(s) = b.get(at..at + 8) {
        v.copy_from_slice(s);
    }
    u64::from_ne_bytes(v)
}

fn code_name(signo: i32, code: i32) -> Option<&'static str> {
    Some(match (signo, code) {
        (_, 0) => "SI_USER",
        (_, 0x80) => "SI_KERNEL",
        (_, -1) => "SI_QUEUE",
        (_, -2) => "SI_TIMER",
        (_, -3) => "SI_MESGQ",
        (_, -4) => "SI_ASYNCIO",
        (_, -5) => "SI_SIGIO",
        (_, -6) => "SI_TKILL",
        (11, 1) => "SEGV_MAPERR",
        (11, 2) => "SEGV_ACCERR",
        (11, 3) => "SEGV_BNDERR",
        (11, 4) => "SEGV_PKUERR",
        (7, 1) => "BUS_ADRALN",
        (7, 2) => "BUS_ADRERR",
        (7, 3) => "BUS_OBJERR",
        (4, 1) => "ILL_ILLOPC",
        (4, 2) => "ILL_ILLOPN",
        (4, 3) => "ILL_ILLADR",
        (4, 4) => "ILL_ILLTRP",
        (4, 5) => "ILL_PRVOPC",
        (4, 6) => "ILL_PRVREG",
        (4, 7) => "ILL_COPROC",
        (4, 8) => "ILL_BADSTK",
        (8, 1) => "FPE_INTDIV",
        (8, 2) => "FPE_INTOVF",
        (8, 3) => "FPE_FLTDIV",
        (8, 4) => "FPE_FLTOVF",
        (8, 5) => "FPE_FLTUND",
        (8, 6) => "FPE_FLTRES",
        (8, 7) => "FPE_FLTINV",
        (8, 8) => "FPE_FLTSUB",
        (5, 1) => "TRAP_BRKPT",
        (5, 2) => "TRAP_TRACE",
        (17, 1) => "CLD_EXITED",
        (17, 2) => "CLD_KILLED",
        (17, 3) => "CLD_DUMPED",
        (17, 4) => "CLD_TRAPPED",
        (17, 5) => "CLD_STOPPED",
        (17, 6) => "CLD_CONTINUED",
        _ => return None,
    })
}

/// `--- SIGNAME {...} ---` for signal `signo` with `info`.
pub fn line(signo: i32, info: &[u8]) -> Line {
    let mut w = Line::new();
    let _ = w.write_str("--- ");
    let _ = signal(&mut w, i64::from(signo));
    let _ = w.write_str(" {si_signo=");
    let _ = signal(&mut w, i64::from(signo));
    let code = i32_at(info, 8);
    let _ = match code_name(signo, code) {
        Some(n) => write!(w, ", si_code={n}"),
        None => write!(w, ", si_code={code}"),
    };
    let pid_uid = |w: &mut Line| {
        let _ = write!(
            w,
            ", si_pid={}, si_uid={}",
            i32_at(info, 16),
            i32_at(info, 20) as u32
        );
    };
    match (signo, code) {
        (_, 0) | (_, -6) => pid_uid(&mut w),
        (17, 1..=6) => {
            pid_uid(&mut w);
            let status = i32_at(info, 24);
            if code == 1 {
                let _ = write!(w, ", si_status={status}");
            } else {
                let _ = w.write_str(", si_status=");
                let _ = signal(&mut w, i64::from(status));
            }
            let _ = write!(
                w,
                ", si_utime={}, si_stime={}",
                u64_at(info, 32) as i64,
                u64_at(info, 40) as i64
            );
        }
        (4 | 7 | 8 | 11, _) => {
            let addr = u64_at(info, 16);
            let _ = if addr == 0 {
                w.write_str(", si_addr=NULL")
            } else {
                write!(w, ", si_addr={addr:#x}")
            };
        }
        _ => {}
    }
    let _ = w.write_str("} ---");
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(signo: i32, code: i32, words: &[(usize, u64)]) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        b[0..4].copy_from_slice(&signo.to_ne_bytes());
        b[8..12].copy_from_slice(&code.to_ne_bytes());
        for &(at, v) in words {
            b[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        }
        b
    }

    #[test]
    fn strace_format() {
        assert_eq!(
            line(11, &info(11, 1, &[])),
            "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---"
        );
        assert_eq!(
            line(11, &info(11, 2, &[(16, 0x1000)])),
            "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x1000} ---"
        );
        assert_eq!(
            line(15, &info(15, 0, &[(16, 42 | (1000 << 32))])),
            "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=42, si_uid=1000} ---"
        );
        assert_eq!(
            line(17, &info(17, 1, &[(16, 7), (24, 3)])),
            "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_uid=0, si_status=3, \
si_utime=0, si_stime=0} ---"
        );
        // An unknown code: the number, and no fields guessed.
        assert_eq!(
            line(10, &info(10, 77, &[])),
            "--- SIGUSR1 {si_signo=SIGUSR1, si_code=77} ---"
        );
    }
}
