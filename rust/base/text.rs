// SPDX-License-Identifier: GPL-2.0

//! Text for stream records without `core::fmt`: bytes, decimal and hex
//! numbers and escaped bytes appended to a fixed buffer, cutting what does
//! not fit. `core::fmt` costs a dispatch per piece and `pad_integral` per
//! number; for the short records a stream carries that was most of an
//! emit. Shared by `utrace_rs.ko` (its record slots) and the safe API
//! (`rust/api/stream.rs`, whose `Record` engines fill), each using a part
//! of it.

#![allow(dead_code)]

use core::fmt;
use core::mem::MaybeUninit;

/// `0x0101..01`: one in every byte of a word.
const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
/// `0x8080..80`: the top bit of every byte.
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Whether every byte of `w` is printable ASCII (0x20..=0x7e). Exact:
/// a byte with its top bit set is seen by `w`, a byte of 0x7f by
/// `w + ONES` (a carry out of a byte of 0xff lands in a word already
/// seen), a byte below 0x20 by the borrow of `w - 0x20` (with no such
/// byte nothing borrows, and every byte stays below 0x80).
#[inline]
fn word_printable(w: u64) -> bool {
    ((w.wrapping_sub(ONES * 0x20) & !w) | w.wrapping_add(ONES) | w) & HIGHS == 0
}

/// Whether every byte is printable ASCII (what [`Cursor::escaped`] copies
/// unchanged), eight bytes at a time.
pub(crate) fn printable(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        if !word_printable(u64::from_ne_bytes(b)) {
            return false;
        }
    }
    words.remainder().iter().all(|c| (0x20..=0x7e).contains(c))
}

/// Two decimal digits of each number below 100.
const DIGITS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `v` in decimal, right-aligned in `out`; returns where it starts.
#[inline]
fn decimal(out: &mut [u8; 20], mut v: u64) -> usize {
    let mut i = out.len();
    while v >= 100 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        out[i] = DIGITS[d];
        out[i + 1] = DIGITS[d + 1];
    }
    if v >= 10 {
        let d = v as usize * 2;
        i -= 2;
        out[i] = DIGITS[d];
        out[i + 1] = DIGITS[d + 1];
    } else {
        i -= 1;
        out[i] = b'0' + v as u8;
    }
    i
}

/// Appends to a buffer whose bytes past `len` may be uninitialised (an
/// engine's record is not zeroed first: under QEMU's `-icount`, which
/// `make bench` measures with, clearing 240 bytes costs 240 instructions).
/// What does not fit is cut, so the text is always a prefix of what was
/// appended (as `core::fmt` into a cutting writer would give).
pub(crate) struct Cursor<'a> {
    // INVARIANT: `buf[..len]` is initialised, `len <= buf.len()`; only
    // initialised bytes are ever written.
    buf: &'a mut [MaybeUninit<u8>],
    len: usize,
}

impl<'a> Cursor<'a> {
    /// Appends to `buf[len..]`, keeping `buf[..len]`.
    ///
    /// # Safety
    ///
    /// `buf[..len]` is initialised.
    pub(crate) unsafe fn new(buf: &'a mut [MaybeUninit<u8>], len: usize) -> Cursor<'a> {
        let len = len.min(buf.len());
        // INVARIANT: By the caller's promise.
        Cursor { buf, len }
    }

    /// Appends to `buf`, initialised memory (its bytes are overwritten).
    pub(crate) fn over(buf: &'a mut [u8]) -> Cursor<'a> {
        let len = buf.len();
        // SAFETY: `u8` and `MaybeUninit<u8>` have the same layout; the
        // cursor writes only initialised bytes, so `buf` stays initialised.
        let buf = unsafe { core::slice::from_raw_parts_mut(buf.as_mut_ptr().cast(), len) };
        // INVARIANT: Nothing appended yet.
        Cursor { buf, len: 0 }
    }

    /// Bytes appended so far (the buffer's first `len()` bytes).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes as they are.
    #[inline]
    pub(crate) fn bytes(&mut self, s: &[u8]) {
        let n = s.len().min(self.buf.len() - self.len);
        for (d, &c) in self.buf[self.len..self.len + n].iter_mut().zip(&s[..n]) {
            d.write(c);
        }
        // INVARIANT: `n` more bytes written, within the buffer.
        self.len += n;
    }

    /// One byte.
    #[inline]
    pub(crate) fn byte(&mut self, c: u8) {
        if let Some(d) = self.buf.get_mut(self.len) {
            d.write(c);
            // INVARIANT: One more byte written, within the buffer.
            self.len += 1;
        }
    }

    /// `v` in decimal, as `{}` formats it.
    pub(crate) fn u64(&mut self, v: u64) {
        let mut d = [0u8; 20];
        let i = decimal(&mut d, v);
        self.bytes(&d[i..]);
    }

    /// `v` in decimal, as `{}` formats it (a `-` if negative).
    pub(crate) fn i64(&mut self, v: i64) {
        if v < 0 {
            self.byte(b'-');
        }
        self.u64(v.unsigned_abs());
    }

    /// `v` in lower-case hex without a prefix, as `{:x}` formats it.
    pub(crate) fn hex(&mut self, mut v: u64) {
        let mut d = [0u8; 16];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = HEX[(v & 0xf) as usize];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        self.bytes(&d[i..]);
    }

    /// `s` as `Escaped` (`rust/base/compat.rs`) shows it: printable ASCII as
    /// is, `\t` `\n` `\r`, every other byte as `\xNN`.
    pub(crate) fn escaped(&mut self, s: &[u8]) {
        if printable(s) {
            return self.bytes(s);
        }
        escape(s, |piece| self.bytes(piece));
    }
}

/// Calls `out` with the pieces of `s` escaped: runs of printable ASCII as
/// they are, `\t` `\n` `\r`, every other byte as `\xNN` (every piece is
/// ASCII). One run is one piece: a writer that copies per call pays per
/// run, not per byte.
pub(crate) fn escape(s: &[u8], mut out: impl FnMut(&[u8])) {
    let mut rest = s;
    while let Some(&b) = rest.first() {
        let run = rest
            .iter()
            .position(|c| !(0x20..=0x7e).contains(c))
            .unwrap_or(rest.len());
        if run > 0 {
            out(&rest[..run]);
            rest = &rest[run..];
            continue;
        }
        match b {
            b'\t' => out(b"\\t"),
            b'\n' => out(b"\\n"),
            b'\r' => out(b"\\r"),
            _ => out(&[
                b'\\',
                b'x',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
        rest = &rest[1..];
    }
}

impl fmt::Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}
