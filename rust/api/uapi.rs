// SPDX-License-Identifier: GPL-2.0

//! The user-space ABI of session devices, `include/uapi/utrace_rs.h`, in
//! Rust: the same layouts, checked at compile time against the header's
//! numbers (its `_Static_assert`s check the C side). Keep the two in step:
//! `scripts/check-abi.py` (in `make check`) compares every constant with the
//! header's, and fails on a header name this file lacks.

use core::mem::{offset_of, size_of};

pub(crate) const UAPI_VERSION: u32 = 4;
pub(crate) const IOC_MAGIC: u32 = 0xBA;

pub(crate) const REC_LOST: u16 = 1;
pub(crate) const REC_ATTACHED: u16 = 2;
pub(crate) const REC_DETACHED: u16 = 3;
pub(crate) const REC_QUIESCE: u16 = 4;
pub(crate) const REC_CLONE: u16 = 5;
pub(crate) const REC_EXEC: u16 = 6;
pub(crate) const REC_EXIT: u16 = 7;
pub(crate) const REC_DEATH: u16 = 8;
pub(crate) const REC_SIGNAL: u16 = 9;
pub(crate) const REC_SYSCALL_ENTRY: u16 = 10;
pub(crate) const REC_SYSCALL_EXIT: u16 = 11;
pub(crate) const REC_JCTL: u16 = 12;
pub(crate) const REC_HANDOFF: u16 = 13;

pub(crate) const REC_F_STOPPED: u32 = 1 << 1;
pub(crate) const REC_F_TRUNCATED: u32 = 1 << 2;
pub(crate) const REC_F_NO_PID: u32 = 1 << 3;
pub(crate) const REC_F_HANDOFF: u32 = 1 << 4;
pub(crate) const REC_F_CAPTURE: u32 = 1 << 5;
pub(crate) const REC_F_STEP: u32 = 1 << 6;

pub(crate) const DETACH_REQUESTED: u32 = 1;
pub(crate) const DETACH_REAPED: u32 = 2;
pub(crate) const DETACH_PRIVILEGED: u32 = 3;
pub(crate) const DETACH_LIMIT: u32 = 4;
pub(crate) const DETACH_ERROR: u32 = 5;

pub(crate) const SIGCLASS_HANDLER: u32 = 1;
pub(crate) const SIGCLASS_IGN: u32 = 2;
pub(crate) const SIGCLASS_STOP: u32 = 3;
pub(crate) const SIGCLASS_TERM: u32 = 4;
pub(crate) const SIGCLASS_CORE: u32 = 5;

pub(crate) const ABI_X86_64: u32 = 1;
pub(crate) const ABI_I386: u32 = 2;
pub(crate) const ABI_X32: u32 = 3;

pub(crate) const ATTACH_F_PIDFD: u32 = 1 << 0;
pub(crate) const ATTACH_F_THREAD: u32 = 1 << 1;
pub(crate) const ATTACH_F_FOLLOW: u32 = 1 << 2;
pub(crate) const ATTACH_F_LOSSLESS: u32 = 1 << 3;
pub(crate) const ATTACH_F_DECIDE_SYSCALL: u32 = 1 << 4;
pub(crate) const ATTACH_F_DECIDE_SIGNAL: u32 = 1 << 5;
pub(crate) const ATTACH_F_GLOBAL: u32 = 1 << 6;

pub(crate) const CTL_STOP: u32 = 1;
pub(crate) const CTL_RESUME: u32 = 2;
pub(crate) const CTL_INTERRUPT: u32 = 3;
pub(crate) const CTL_SINGLESTEP: u32 = 4;
pub(crate) const CTL_SET_EVENTS: u32 = 5;

/// The `_IOC_NR` of each ioctl (the type byte is [`IOC_MAGIC`]; the size
/// bits are not matched: the struct's own `size` field counts).
pub(crate) const NR_INFO: u32 = 0x00;
pub(crate) const NR_CONFIG: u32 = 0x01;
pub(crate) const NR_ATTACH: u32 = 0x02;
pub(crate) const NR_DETACH: u32 = 0x03;
pub(crate) const NR_CONTROL: u32 = 0x04;
pub(crate) const NR_DECIDE: u32 = 0x05;
pub(crate) const NR_GETREGS: u32 = 0x06;
pub(crate) const NR_SETREGS: u32 = 0x07;
pub(crate) const NR_HANDOFF: u32 = 0x08;
pub(crate) const NR_CAPTURE: u32 = 0x09;
pub(crate) const NR_SYSCALLS: u32 = 0x0a;

/// `UTRACE_REC_SIZE`.
pub(crate) const REC_SIZE: usize = 256;
/// `UTRACE_REC_PATH_MAX`.
pub(crate) const REC_PATH_MAX: usize = 192;
pub(crate) const SIGINFO_SIZE: usize = 128;

/// `struct utrace_rec_header`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct RecHeader {
    pub(crate) type_: u16,
    pub(crate) size: u16,
    pub(crate) flags: u32,
    pub(crate) engine_id: u64,
    pub(crate) seq: u64,
    pub(crate) time_ns: u64,
    pub(crate) pid: i32,
    pub(crate) tid: i32,
}

impl RecHeader {
    /// The header of a whole record of `type_`, everything else zero.
    fn of(type_: u16) -> RecHeader {
        RecHeader {
            type_,
            size: REC_SIZE as u16,
            ..RecHeader::default()
        }
    }

    /// The header of a whole record of `type_` with its other fields;
    /// `REC_F_NO_PID` set if `tid` is 0 (not visible to the reader).
    #[inline(always)]
    pub(crate) fn with(
        type_: u16,
        engine_id: u64,
        seq: u64,
        time_ns: u64,
        pid: i32,
        tid: i32,
    ) -> RecHeader {
        RecHeader {
            type_,
            size: REC_SIZE as u16,
            flags: if tid == 0 { REC_F_NO_PID } else { 0 },
            engine_id,
            seq,
            time_ns,
            pid,
            tid,
        }
    }
}

/// The offset of `size` in the header.
pub(crate) const REC_HEADER_SIZE_AT: usize = offset_of!(RecHeader, size);

/// Bytes of a record after its header.
pub(crate) const PAYLOAD: usize = REC_SIZE - size_of::<RecHeader>();

/// `struct utrace_record`: the header and the payload as bytes, written
/// with the `put_*` helpers at the payload struct's offsets.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Record {
    pub(crate) h: RecHeader,
    pub(crate) payload: [u8; PAYLOAD],
}

impl Record {
    /// A record of `type_` with everything else zero.
    pub(crate) fn new(type_: u16) -> Record {
        Record {
            h: RecHeader::of(type_),
            payload: [0; PAYLOAD],
        }
    }

    /// Makes `self` what [`Record::new`] gives, in place (a ring slot: no
    /// record on the stack to copy in).
    pub(crate) fn reset(&mut self, type_: u16) {
        // The first 64 bytes (a syscall record without captures), a
        // constant length, are a few stores where a variable length calls
        // memset(), which costs more than the bytes; only longer records
        // (captures, EXEC, SIGNAL) call it for the rest.
        self.zero_past_syscall();
        if let Some(p) = self.payload.first_chunk_mut::<64>() {
            *p = [0; 64];
        }
        self.h = RecHeader::of(type_);
    }

    /// Zeroes the payload past its first [`SYSCALL_SIZE`] bytes (which the
    /// caller writes or zeroes), where `self` (a ring slot) may hold bytes
    /// of the record it had. A record has only zeros past its compact
    /// length (the header's promise to compact readers: each writer puts
    /// its bytes inside it, and zeroes what a capture read past a string's
    /// end), so zeroing up to that length zeroes the payload: for a syscall
    /// record without captures, the commonest, nothing.
    #[inline(always)]
    fn zero_past_syscall(&mut self) {
        let h = &self.h;
        let plain_syscall =
            matches!(h.type_, REC_SYSCALL_ENTRY | REC_SYSCALL_EXIT) && h.flags & REC_F_CAPTURE == 0;
        if plain_syscall {
            return;
        }
        let used = self.compact_len().saturating_sub(size_of::<RecHeader>());
        if used > SYSCALL_SIZE {
            if let Some(p) = self.payload.get_mut(SYSCALL_SIZE..used) {
                p.fill(0);
            }
        }
    }

    /// Makes `self` (a ring slot) a syscall record with header `h` whose
    /// payload's first [`SYSCALL_SIZE`] bytes the caller writes whole
    /// (`struct utrace_rec_syscall`), the rest zero: the ring's fast path,
    /// with no zeroing of bytes about to be written.
    #[inline(always)]
    pub(crate) fn reset_syscall(&mut self, h: RecHeader) {
        self.zero_past_syscall();
        self.h = h;
    }

    /// Writes `v` at payload offset `off` (cut at the end of the record).
    pub(crate) fn put(&mut self, off: usize, v: &[u8]) {
        let end = off.saturating_add(v.len()).min(PAYLOAD);
        if off < end {
            self.payload[off..end].copy_from_slice(&v[..end - off]);
        }
    }

    pub(crate) fn put_u64(&mut self, off: usize, v: u64) {
        self.put(off, &v.to_ne_bytes());
    }

    pub(crate) fn put_u32(&mut self, off: usize, v: u32) {
        self.put(off, &v.to_ne_bytes());
    }

    /// The record's length in a session of compact records
    /// (`UTRACE_CONFIG_F_COMPACT`): its header and its type's payload
    /// struct, a syscall record's captures up to the end of their bytes, an
    /// exec record's filename up to its NUL; a multiple of 8.
    pub(crate) fn compact_len(&self) -> usize {
        let payload = match self.h.type_ {
            REC_LOST => LOST_SIZE,
            REC_CLONE => CLONE_SIZE,
            REC_EXEC => {
                let len = u32::from_ne_bytes(self.u32_at(EXEC_FILENAME_LEN)) as usize;
                EXEC_FILENAME + len.min(REC_PATH_MAX - 1) + 1
            }
            REC_SIGNAL => SIGNAL_SIZE,
            REC_SYSCALL_ENTRY | REC_SYSCALL_EXIT if self.h.flags & REC_F_CAPTURE != 0 => {
                let mut end = 0;
                for slot in 0..REC_CAPTURES {
                    let d = SYSCALL_CAP + slot * SYSCALL_CAP_SIZE;
                    let len = u16::from_ne_bytes(self.u16_at(d + SYSCALL_CAP_LEN));
                    let off = u16::from_ne_bytes(self.u16_at(d + SYSCALL_CAP_OFFSET));
                    end = end.max(usize::from(off) + usize::from(len));
                }
                SYSCALL_CAP_DATA + end.min(REC_CAPTURE_DATA)
            }
            REC_SYSCALL_ENTRY | REC_SYSCALL_EXIT => SYSCALL_SIZE,
            REC_JCTL => JCTL_SIZE,
            // ATTACHED, DETACHED, QUIESCE, EXIT, DEATH, HANDOFF: one u64.
            REC_ATTACHED | REC_DETACHED | REC_QUIESCE | REC_EXIT | REC_DEATH | REC_HANDOFF => 8,
            _ => PAYLOAD,
        };
        (size_of::<RecHeader>() + payload)
            .next_multiple_of(8)
            .min(REC_SIZE)
    }

    fn u16_at(&self, off: usize) -> [u8; 2] {
        let mut b = [0; 2];
        if let Some(s) = self.payload.get(off..off + 2) {
            b.copy_from_slice(s);
        }
        b
    }

    fn u32_at(&self, off: usize) -> [u8; 4] {
        let mut b = [0; 4];
        if let Some(s) = self.payload.get(off..off + 4) {
            b.copy_from_slice(s);
        }
        b
    }

    /// The record's bytes as user space reads them.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        let p = (self as *const Record).cast::<u8>();
        // SAFETY: `Record` is `repr(C)` with no padding (the size assertion
        // below: 40 bytes of header fields, then bytes), so all its
        // `REC_SIZE` bytes are initialised.
        unsafe { core::slice::from_raw_parts(p, REC_SIZE) }
    }
}

/// The ioctl arguments: `repr(C)` structs of integers only, no padding
/// (their sizes below equal the sum of their fields), so any bytes are a
/// valid value and every byte of a value is initialised.
///
/// # Safety
///
/// Only for such types.
pub(crate) unsafe trait Plain: Copy + Default {
    /// The size of the first published version (`..._SIZE_VER0`).
    const SIZE_VER0: usize;

    fn bytes(&self) -> &[u8] {
        // SAFETY: By the trait's safety requirements every byte is
        // initialised.
        unsafe {
            core::slice::from_raw_parts((self as *const Self).cast::<u8>(), size_of::<Self>())
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: By the trait's safety requirements any bytes are valid.
        unsafe {
            core::slice::from_raw_parts_mut((self as *mut Self).cast::<u8>(), size_of::<Self>())
        }
    }
}

macro_rules! plain {
    ($name:ident, $size:expr, { $($f:ident: $t:ty),* $(,)? }) => {
        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        pub(crate) struct $name { $(pub(crate) $f: $t),* }
        // SAFETY: `repr(C)`, integers only; the assertion proves no padding.
        unsafe impl Plain for $name {
            const SIZE_VER0: usize = $size;
        }
        const _: () = assert!(size_of::<$name>() == $size);
        const _: () = assert!(0 $(+ size_of::<$t>())* == $size);
    };
}

plain!(Info, 48, {
    size: u32, version: u32, record_size: u32, reserved0: u32,
    events: u64, attach_flags: u64, buffer_bytes: u64, buffer_max: u64,
});
pub(crate) const CONFIG_F_COMPACT: u32 = 1 << 0;
plain!(Config, 32, { size: u32, flags: u32, buffer_bytes: u64, reserved: [u64; 2] });
plain!(Attach, 48, {
    size: u32, flags: u32, pid: i32, pidfd: i32, events: u64, engine_id: u64,
    reserved: [u64; 2],
});
plain!(Detach, 24, { size: u32, flags: u32, engine_id: u64, reserved: u64 });
plain!(ControlArg, 40, {
    size: u32, action: u32, engine_id: u64, tid: i32, flags: u32, events: u64, reserved: u64,
});
plain!(Regs, 48, {
    size: u32, note_type: u32, engine_id: u64, tid: i32, flags: u32, buf: u64, len: u64,
    reserved: u64,
});

pub(crate) const HANDOFF_F_TREE: u32 = 1 << 0;
plain!(Handoff, 40, {
    size: u32, flags: u32, engine_id: u64, to_fd: i32, reserved0: u32, to_engine_id: u64,
    reserved: u64,
});

// Offsets the payload writers use (`struct utrace_rec_*` of the header).
pub(crate) const LOST_COUNT: usize = 0;
pub(crate) const LOST_FIRST_SEQ: usize = 8;
pub(crate) const ATTACHED_PARENT_TID: usize = 0;
pub(crate) const DETACHED_REASON: usize = 0;
pub(crate) const QUIESCE_EVENT: usize = 0;
pub(crate) const CLONE_FLAGS: usize = 0;
pub(crate) const CLONE_CHILD_PID: usize = 8;
pub(crate) const CLONE_CHILD_TID: usize = 12;
pub(crate) const CLONE_CHILD_ENGINE: usize = 16;
pub(crate) const EXEC_OLD_TID: usize = 0;
pub(crate) const EXEC_FILENAME_LEN: usize = 4;
pub(crate) const EXEC_FILENAME: usize = 8;
pub(crate) const EXIT_CODE: usize = 0;
pub(crate) const DEATH_EXIT_CODE: usize = 0;
pub(crate) const DEATH_GROUP_DEAD: usize = 4;
pub(crate) const SIGNAL_SIGNO: usize = 0;
pub(crate) const SIGNAL_DISPOSITION: usize = 4;
pub(crate) const SIGNAL_SIGINFO: usize = 8;
pub(crate) const SYSCALL_NR: usize = 0;
pub(crate) const SYSCALL_ABI: usize = 4;
pub(crate) const SYSCALL_ARGS: usize = 8;
pub(crate) const SYSCALL_RET: usize = 56;
pub(crate) const JCTL_STOP: usize = 0;
pub(crate) const JCTL_SIGNO: usize = 4;
pub(crate) const JCTL_NOTIFY: usize = 8;
pub(crate) const HANDOFF_TO_ENGINE: usize = 0;

// Payload sizes (`sizeof(struct utrace_rec_*)`) compact records use.
pub(crate) const LOST_SIZE: usize = 16;
pub(crate) const CLONE_SIZE: usize = 24;
pub(crate) const SIGNAL_SIZE: usize = 136;
pub(crate) const SYSCALL_SIZE: usize = 64;
pub(crate) const JCTL_SIZE: usize = 16;

// `struct utrace_rec_syscall_cap`: the syscall payload, then the captures'
// descriptors (`struct utrace_rec_capture`), then their bytes.
pub(crate) const SYSCALL_CAP: usize = 64;
pub(crate) const SYSCALL_CAP_SIZE: usize = 8;
pub(crate) const SYSCALL_CAP_ARG: usize = 0;
pub(crate) const SYSCALL_CAP_KIND: usize = 1;
pub(crate) const SYSCALL_CAP_FLAGS: usize = 2;
pub(crate) const SYSCALL_CAP_LEN: usize = 4;
pub(crate) const SYSCALL_CAP_OFFSET: usize = 6;
pub(crate) const SYSCALL_CAP_DATA: usize = SYSCALL_CAP + REC_CAPTURES * SYSCALL_CAP_SIZE;
pub(crate) const REC_CAPTURES: usize = 2;
pub(crate) const REC_CAPTURE_DATA: usize = 136;
pub(crate) const CAP_F_END: u8 = 1 << 0;
pub(crate) const CAP_F_FAULT: u8 = 1 << 1;
pub(crate) const CAP_F_CUT: u8 = 1 << 2;

const _: () = assert!(SYSCALL_CAP_DATA + REC_CAPTURE_DATA == PAYLOAD);
const _: () = assert!(size_of::<RecHeader>() == 40);
const _: () = assert!(size_of::<Record>() == REC_SIZE);
const _: () = assert!(offset_of!(RecHeader, seq) == 16);
const _: () = assert!(offset_of!(RecHeader, tid) == 36);
const _: () = assert!(EXEC_FILENAME + REC_PATH_MAX == 200);
const _: () = assert!(SIGNAL_SIGINFO + SIGINFO_SIZE == SIGNAL_SIZE);
const _: () = assert!(SYSCALL_RET + 8 == SYSCALL_SIZE);
const _: () = assert!(CLONE_CHILD_ENGINE + 8 == CLONE_SIZE);
const _: () = assert!(LOST_FIRST_SEQ + 8 == LOST_SIZE);
const _: () = assert!(JCTL_NOTIFY + 8 == JCTL_SIZE);

// UTRACE_IOC_DECIDE (`struct utrace_decide`).
pub(crate) const REC_F_DECIDE: u32 = 1 << 0;
pub(crate) const VERDICT_RUN: u32 = 1;
pub(crate) const VERDICT_ABORT: u32 = 2;
pub(crate) const VERDICT_DELIVER: u32 = 3;
pub(crate) const VERDICT_IGNORE: u32 = 4;
pub(crate) const VERDICT_HOLD: u32 = 5;
pub(crate) const VERDICT_STOP: u32 = 6;
pub(crate) const VERDICT_SUSPEND: u32 = 7;
pub(crate) const DECIDE_F_ARGS: u32 = 1 << 0;
pub(crate) const DECIDE_F_SIGINFO: u32 = 1 << 1;

// `siginfo` as 16 u64 (the same 128 bytes, 8-aligned at offset 80).
plain!(Decide, 216, {
    size: u32, verdict: u32, engine_id: u64, seq: u64, flags: u32, value: i32,
    args: [u64; 6], siginfo: [u64; 16], reserved: u64,
});
const _: () = assert!(offset_of!(Decide, siginfo) == 80);

// UTRACE_IOC_CAPTURE (`struct utrace_capture`, `struct utrace_capture_item`).
pub(crate) const CAPTURE_STR: u8 = 1;
pub(crate) const CAPTURE_MEM: u8 = 2;
pub(crate) const CAPTURE_MEM_ARG: u8 = 3;
pub(crate) const CAPTURE_MEM_RET: u8 = 4;
pub(crate) const CAPTURE_AT_EXIT: u8 = 1 << 0;
pub(crate) const CAPTURE_NR_MAX: usize = 512;
pub(crate) const CAPTURE_F_DECIDE: u32 = 1 << 0;
pub(crate) const CAPTURE_ITEMS_MAX: usize = 1024;

plain!(Capture, 32, {
    size: u32, flags: u32, count: u32, reserved0: u32, items: u64, reserved: u64,
});
plain!(CaptureItem, 16, {
    nr: u16, abi: u8, arg: u8, kind: u8, len_arg: u8, flags: u8, reserved0: u8, max: u16,
    reserved1: u16, reserved2: u32,
});

// UTRACE_IOC_SYSCALLS (`struct utrace_syscalls`).
pub(crate) const SYSCALLS_WORDS: usize = 2 * CAPTURE_NR_MAX / 64;
pub(crate) const SYSCALLS_F_ALL: u32 = 1 << 0;
plain!(Syscalls, 272, {
    size: u32, flags: u32, reserved: u64, entry: [u64; SYSCALLS_WORDS],
    exit: [u64; SYSCALLS_WORDS],
});
