// SPDX-License-Identifier: GPL-2.0

//! The memory `utrace trace` has the kernel capture with each syscall
//! record (`UTRACE_IOC_CAPTURE`): every argument the formatter reads, as
//! it was when the record was written. So the traced task never waits for
//! the tracer, yet paths and buffers show as at the call. A capture that is
//! not whole (memory not present, or no room in the record) makes the
//! kernel stop the entry for a decision instead: the tracer reads the
//! memory itself meanwhile (`trace.rs`).

use crate::format::{Mem, DATA_MAX_SHOWN, PATH_MAX_SHOWN};
use utrace::event::Captures;
use utrace::syscalls::{self, Arg, Syscall, Table};
use utrace::uapi::{self, CaptureItem};
use utrace::Abi;

/// Whether the line of `s` (of `table`) can be made from its exit record
/// alone: its one memory argument is memory the call only reads (a path, a
/// buffer it writes out), which the kernel then captures as the call
/// returns (the same bytes, unless another thread changed them meanwhile,
/// as it may under strace too). Not exec, whose memory is gone at its exit.
pub fn whole_at_exit(table: &Table, s: &Syscall) -> bool {
    let mut memory = s.args.iter().filter(|a| capture(a).is_some());
    matches!(
        (memory.next(), memory.next()),
        (Some(Arg::Path | Arg::OutBuf), None)
    ) && !table.is_exec(i64::from(s.nr))
}

/// How an argument's memory is captured: the kind, at most how many bytes,
/// and whether at the call's exit (memory the call writes); `None` if the
/// argument shows no memory.
fn capture(arg: &Arg) -> Option<(u32, usize, bool)> {
    Some(match arg {
        Arg::Path => (uapi::CAPTURE_STR, PATH_MAX_SHOWN, false),
        Arg::OutBuf => (uapi::CAPTURE_MEM_ARG, DATA_MAX_SHOWN, false),
        Arg::InBuf => (uapi::CAPTURE_MEM_RET, DATA_MAX_SHOWN, true),
        Arg::Timespec => (uapi::CAPTURE_MEM, 16, false),
        Arg::Timespec32 => (uapi::CAPTURE_MEM, 8, false),
        Arg::PipeFds => (uapi::CAPTURE_MEM, 8, true),
        _ => return None,
    })
}

/// The capture list for every syscall the formatter decodes, both ABIs;
/// with `fold`, the memory of [`whole_at_exit`] calls is captured at their
/// exits (the caller then records those at their exits only).
pub fn items(fold: bool) -> Vec<CaptureItem> {
    let mut out = Vec::new();
    for (abi, raw) in [(Abi::X86_64, uapi::ABI_X86_64), (Abi::I386, uapi::ABI_I386)] {
        let Some(table) = syscalls::table(abi) else {
            continue;
        };
        for s in table.syscalls() {
            let folded = fold && whole_at_exit(table, s);
            for (i, arg) in s.args.iter().enumerate() {
                let Some((kind, max, exit)) = capture(arg) else {
                    continue;
                };
                out.push(CaptureItem {
                    nr: s.nr,
                    abi: raw as u8,
                    arg: i as u8,
                    kind: kind as u8,
                    // An OutBuf's length is the argument after it.
                    len_arg: if *arg == Arg::OutBuf { i as u8 + 1 } else { 0 },
                    flags: if exit || folded {
                        uapi::CAPTURE_AT_EXIT as u8
                    } else {
                        0
                    },
                    max: max as u16,
                    ..CaptureItem::default()
                });
            }
        }
    }
    out
}

/// A record's captures as the memory of its task: an address reads only
/// if a whole capture was taken there. Anything else shows as a pointer,
/// never as bytes read later.
pub struct Captured<'a> {
    pub args: &'a [u64; 6],
    pub captures: &'a Captures,
}

impl Mem for Captured<'_> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Option<usize> {
        let c = self
            .captures
            .iter()
            .find(|c| self.args.get(usize::from(c.arg)) == Some(&addr) && c.whole())?;
        let n = c.data.len().min(buf.len());
        buf[..n].copy_from_slice(&c.data[..n]);
        if c.string_end() && n < buf.len() {
            buf[n] = 0;
            return Some(n + 1);
        }
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use utrace::event::Capture;

    #[test]
    fn every_memory_argument_is_listed_once() {
        let items = items(false);
        let open = syscalls::number(Abi::X86_64, "openat").unwrap();
        let o: Vec<_> = items
            .iter()
            .filter(|i| i64::from(i.nr) == open && u32::from(i.abi) == uapi::ABI_X86_64)
            .collect();
        assert_eq!(o.len(), 1);
        assert_eq!((o[0].arg, u32::from(o[0].kind)), (1, uapi::CAPTURE_STR));
        let write = syscalls::number(Abi::I386, "write").unwrap();
        let w = items
            .iter()
            .find(|i| i64::from(i.nr) == write && u32::from(i.abi) == uapi::ABI_I386)
            .unwrap();
        assert_eq!((w.arg, w.len_arg, w.max), (1, 2, 32));
        // The kernel takes at most two per syscall and numbers below 512.
        for i in &items {
            let same = items
                .iter()
                .filter(|j| (j.abi, j.nr) == (i.abi, i.nr))
                .count();
            assert!(same <= uapi::REC_CAPTURES, "{} {}", i.abi, i.nr);
            assert!(u32::from(i.nr) < uapi::CAPTURE_NR_MAX);
        }
    }

    #[test]
    fn only_whole_captures_read() {
        let args = [0x1000, 0x2000, 0, 0, 0, 0];
        let caps = Captures::from_captures(&[
            Capture {
                arg: 0,
                kind: uapi::CAPTURE_STR as u8,
                flags: uapi::CAP_F_END as u8,
                data: b"/etc",
            },
            Capture {
                arg: 1,
                kind: uapi::CAPTURE_STR as u8,
                flags: uapi::CAP_F_FAULT as u8,
                data: b"/u",
            },
        ])
        .unwrap();
        let m = Captured {
            args: &args,
            captures: &caps,
        };
        let mut buf = [0xffu8; 16];
        assert_eq!(m.read(0x1000, &mut buf), Some(5));
        assert_eq!(&buf[..5], b"/etc\0");
        assert_eq!(m.read(0x2000, &mut buf), None);
        assert_eq!(m.read(0x3000, &mut buf), None);
    }
}
