// SPDX-License-Identifier: GPL-2.0

//! Records as `read()` returns them, parsed into [`Event`]s. The parser
//! reads every field at the offset the C compiler gives it in
//! include/uapi/utrace_rs.h ([`uapi::layout`]); records of a type it does
//! not know are returned as [`Payload::Unknown`], and a later version's
//! longer records are stepped over by their `size`.

use crate::uapi::{self, layout};
use serde::Serialize;
use std::cell::RefCell;

/// A malformed record in a buffer (a kernel bug or a short read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Fewer bytes left than a header, or than the header's size.
    Short { at: usize, need: usize, have: usize },
    /// `size` smaller than a header or not a multiple of 8.
    BadSize { at: usize, size: usize },
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Short { at, need, have } => {
                write!(f, "record at byte {at}: {need} bytes needed, {have} left")
            }
            ParseError::BadSize { at, size } => write!(f, "record at byte {at}: bad size {size}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// The common header of every record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Header {
    /// `enum utrace_rec_type`.
    #[serde(skip)]
    pub rtype: u16,
    /// The whole record's size.
    #[serde(skip)]
    pub size: u16,
    /// `UTRACE_REC_F_*`.
    pub flags: u32,
    /// The session's engine that reported it.
    pub engine_id: u64,
    /// Per session, from 1, no gaps ([`Payload::Lost`] counts a gap).
    pub seq: u64,
    /// `CLOCK_MONOTONIC`, ns.
    pub time_ns: u64,
    /// Process (tgid) in the reader's pid namespace, 0 if not visible.
    pub pid: i32,
    /// Thread in the reader's pid namespace, 0 if not visible.
    pub tid: i32,
}

impl Header {
    /// Whether the thread waits for a decision on this record.
    pub fn decide(&self) -> bool {
        self.flags & uapi::REC_F_DECIDE != 0
    }
    /// Whether the thread is stopped for this engine.
    pub fn stopped(&self) -> bool {
        self.flags & uapi::REC_F_STOPPED != 0
    }
    /// A stop after one instruction (`UTRACE_CTL_SINGLESTEP`).
    pub fn stepped(&self) -> bool {
        self.flags & uapi::REC_F_STEP != 0
    }
    /// Whether a string of the payload was cut.
    pub fn truncated(&self) -> bool {
        self.flags & uapi::REC_F_TRUNCATED != 0
    }
    /// An ATTACHED record of an engine that came from another session
    /// (`UTRACE_IOC_HANDOFF`): the thread's records here start after it.
    pub fn handed_in(&self) -> bool {
        self.flags & uapi::REC_F_HANDOFF != 0
    }
}

/// Why an engine left a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DetachReason {
    Requested,
    Reaped,
    Privileged,
    Limit,
    Error,
    Other(u32),
}

impl DetachReason {
    fn from_raw(v: u32) -> Self {
        match v {
            uapi::DETACH_REQUESTED => DetachReason::Requested,
            uapi::DETACH_REAPED => DetachReason::Reaped,
            uapi::DETACH_PRIVILEGED => DetachReason::Privileged,
            uapi::DETACH_LIMIT => DetachReason::Limit,
            uapi::DETACH_ERROR => DetachReason::Error,
            v => DetachReason::Other(v),
        }
    }
}

/// What delivering a signal would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SigClass {
    Handler,
    Ignore,
    Stop,
    Term,
    Core,
    Other(u32),
}

impl SigClass {
    fn from_raw(v: u32) -> Self {
        match v {
            uapi::SIGCLASS_HANDLER => SigClass::Handler,
            uapi::SIGCLASS_IGN => SigClass::Ignore,
            uapi::SIGCLASS_STOP => SigClass::Stop,
            uapi::SIGCLASS_TERM => SigClass::Term,
            uapi::SIGCLASS_CORE => SigClass::Core,
            v => SigClass::Other(v),
        }
    }
}

/// The syscall ABI of a SYSCALL record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Abi {
    X86_64,
    I386,
    X32,
    Other(u32),
}

impl Abi {
    fn from_raw(v: u32) -> Self {
        match v {
            uapi::ABI_X86_64 => Abi::X86_64,
            uapi::ABI_I386 => Abi::I386,
            uapi::ABI_X32 => Abi::X32,
            v => Abi::Other(v),
        }
    }
}

/// User memory a syscall record carries (`UTRACE_IOC_CAPTURE`): the bytes
/// at argument `arg` when the record was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capture<'a> {
    /// The argument that held the address.
    pub arg: u8,
    /// `UTRACE_CAPTURE_*` of the item.
    pub kind: u8,
    /// `UTRACE_CAP_F_*`.
    pub flags: u8,
    /// The bytes (a string: without its NUL).
    pub data: &'a [u8],
}

impl Capture<'_> {
    /// Read whole: nothing missing (not present) or cut to fit.
    pub fn whole(&self) -> bool {
        u32::from(self.flags) & (uapi::CAP_F_FAULT | uapi::CAP_F_CUT) == 0
    }

    /// A string whose NUL was read.
    pub fn string_end(&self) -> bool {
        u32::from(self.flags) & uapi::CAP_F_END != 0
    }
}

/// One capture's place in [`Captures`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Slot {
    arg: u8,
    kind: u8,
    flags: u8,
    start: u16,
    end: u16,
}

/// The bytes of a record's captures and where each lies.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CaptureData {
    count: usize,
    slots: [Slot; uapi::REC_CAPTURES],
    data: [u8; uapi::REC_CAPTURE_DATA],
}

/// The captures of a syscall record (none if the session asked for none
/// of its syscall). A record without any costs no allocation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Captures(Option<Box<CaptureData>>);

/// Most spare [`CaptureData`] a thread keeps.
const SPARE_MAX: usize = 1024;

thread_local! {
    /// The allocations of dropped captures, for the next records parsed
    /// on this thread. A read() of hundreds of captured records allocates
    /// and frees as many, far more than malloc's per-thread cache holds:
    /// each would cost its slow path, some 400 instructions.
    // The boxes themselves are what is kept, to be handed out again.
    #[allow(clippy::vec_box)]
    static SPARE: RefCell<Vec<Box<CaptureData>>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Captures {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            // After the thread's locals are gone: freed.
            let _ = SPARE.try_with(|s| {
                let mut s = s.borrow_mut();
                if s.len() < SPARE_MAX {
                    s.push(d);
                }
            });
        }
    }
}

impl Captures {
    /// No capture.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many captures.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |d| d.count)
    }

    /// The captures in the record's order.
    pub fn iter(&self) -> impl Iterator<Item = Capture<'_>> {
        self.0.iter().flat_map(|d| {
            d.slots[..d.count].iter().map(|s| Capture {
                arg: s.arg,
                kind: s.kind,
                flags: s.flags,
                data: d
                    .data
                    .get(usize::from(s.start)..usize::from(s.end))
                    .unwrap_or(&[]),
            })
        })
    }

    /// Capture `i`.
    pub fn get(&self, i: usize) -> Option<Capture<'_>> {
        self.iter().nth(i)
    }

    /// An empty [`CaptureData`], in a spare allocation if this thread has
    /// one.
    fn data() -> Box<CaptureData> {
        let empty = CaptureData {
            count: 0,
            slots: [Slot::default(); uapi::REC_CAPTURES],
            data: [0; uapi::REC_CAPTURE_DATA],
        };
        match SPARE.try_with(|s| s.borrow_mut().pop()) {
            Ok(Some(mut d)) => {
                *d = empty;
                d
            }
            _ => Box::new(empty),
        }
    }

    /// Captures as a record would carry them (for tests and replays):
    /// `None` for more than a record holds.
    pub fn from_captures(items: &[Capture<'_>]) -> Option<Captures> {
        let mut out = Self::data();
        let mut at = 0usize;
        for c in items {
            let end = at + c.data.len();
            *out.slots.get_mut(out.count)? = Slot {
                arg: c.arg,
                kind: c.kind,
                flags: c.flags,
                start: u16::try_from(at).ok()?,
                end: u16::try_from(end).ok()?,
            };
            out.data.get_mut(at..end)?.copy_from_slice(c.data);
            out.count += 1;
            at = end;
        }
        Some(Captures(Some(out)))
    }
}

/// `CLONE_THREAD` in a CLONE record's `clone_flags`: the child is a
/// thread of the parent's process, not a process.
pub const CLONE_THREAD: u64 = 0x10000;

/// A record's payload, by type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Payload {
    /// Records were dropped (lossy mode).
    Lost { count: u64, first_seq: u64 },
    /// The engine now watches the thread (0: not added by a CLONE).
    Attached { parent_tid: i32 },
    /// The engine left the thread.
    Detached { reason: DetachReason },
    /// The thread reached a stop or a report point (`before`: the
    /// `UTRACE_EV_*` it stops before, 0 for a safe point).
    Quiesce { before: u64 },
    /// The thread made a new process or thread (a thread: [`CLONE_THREAD`]
    /// in `clone_flags`).
    Clone {
        clone_flags: u64,
        child_pid: i32,
        child_tid: i32,
        child_engine_id: u64,
    },
    /// The thread exec'd `filename`.
    Exec { old_tid: i32, filename: String },
    /// The thread is exiting (`code` in wait() format).
    Exit { code: i64 },
    /// The thread is dead (`group_dead`: it was the last of its process).
    Death { exit_code: i32, group_dead: bool },
    /// A signal is about to be delivered.
    Signal {
        signo: i32,
        disposition: SigClass,
        #[serde(skip)]
        siginfo: Vec<u8>,
    },
    /// A syscall is entered.
    SyscallEntry {
        nr: i32,
        abi: Abi,
        args: [u64; 6],
        #[serde(skip)]
        captures: Captures,
    },
    /// A syscall returns. `args`: the argument registers as the call left
    /// them (module version 4; zero before): the entry's, but for a call
    /// that replaces its registers (execve, rt_sigreturn) or an entry
    /// decision that changed them.
    SyscallExit {
        nr: i32,
        abi: Abi,
        args: [u64; 6],
        ret: i64,
        #[serde(skip)]
        captures: Captures,
    },
    /// Job control: stopping (`stop`) or continued.
    Jctl {
        stop: bool,
        signo: i32,
        notify: bool,
    },
    /// The engine moved to another session, where its id is `to_engine_id`.
    Handoff { to_engine_id: u64 },
    /// A record type this crate does not know.
    Unknown { rtype: u16 },
}

/// One record: its header and payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub payload: Payload,
}

// Inlined, so that on a fixed-size array (below) the bounds checks of
// constant offsets fold away.
#[inline(always)]
fn bytes<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(s) = b.get(at..at + N) {
        out.copy_from_slice(s);
    }
    out
}
#[inline(always)]
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes(bytes(b, at))
}
#[inline(always)]
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(bytes(b, at))
}
#[inline(always)]
fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_ne_bytes(bytes(b, at))
}
#[inline(always)]
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(bytes(b, at))
}
#[inline(always)]
fn i64_at(b: &[u8], at: usize) -> i64 {
    i64::from_ne_bytes(bytes(b, at))
}

/// The captures of a syscall payload `p` (`struct utrace_rec_syscall_cap`).
/// A descriptor whose bytes lie outside the data is kept with none.
fn captures(p: &[u8]) -> Captures {
    use layout::utrace_rec_capture as c;
    use layout::utrace_rec_syscall_cap as s;
    let mut out = Captures::data();
    // A compact record ends with its last capture's bytes.
    let d = p.get(s::DATA..).unwrap_or(&[]);
    let n = d.len().min(s::SIZEOF_DATA);
    out.data[..n].copy_from_slice(&d[..n]);
    for i in 0..uapi::REC_CAPTURES {
        let d = s::CAP + i * c::SIZEOF;
        let kind = p.get(d + c::KIND).copied().unwrap_or(0);
        if kind == 0 {
            continue;
        }
        let len = u16_at(p, d + c::LEN);
        let start = u16_at(p, d + c::OFFSET);
        let (start, end) = match start.checked_add(len) {
            Some(end) if usize::from(end) <= s::SIZEOF_DATA => (start, end),
            _ => (0, 0),
        };
        out.slots[out.count] = Slot {
            arg: p.get(d + c::ARG).copied().unwrap_or(0),
            kind,
            flags: p.get(d + c::FLAGS).copied().unwrap_or(0),
            start,
            end,
        };
        out.count += 1;
    }
    Captures(Some(out))
}

/// Parses the record at the start of `rec` (exactly its `size` bytes or
/// more); fields past the end of a short record read as 0.
fn parse_one(rec: &[u8]) -> Event {
    use layout::utrace_rec_header as h;
    // The header as an array (a short record's missing bytes zero): one
    // length check, not one per field.
    let hb: [u8; h::SIZEOF] = bytes(rec, 0);
    let header = Header {
        rtype: u16_at(&hb, h::TYPE),
        size: u16_at(&hb, h::SIZE),
        flags: u32_at(&hb, h::FLAGS),
        engine_id: u64_at(&hb, h::ENGINE_ID),
        seq: u64_at(&hb, h::SEQ),
        time_ns: u64_at(&hb, h::TIME_NS),
        pid: i32_at(&hb, h::PID),
        tid: i32_at(&hb, h::TID),
    };
    // Every payload starts where the union does.
    let p = rec.get(layout::utrace_record::LOST..).unwrap_or(&[]);
    let payload = match header.rtype {
        uapi::REC_LOST => {
            use layout::utrace_rec_lost as l;
            Payload::Lost {
                count: u64_at(p, l::COUNT),
                first_seq: u64_at(p, l::FIRST_SEQ),
            }
        }
        uapi::REC_ATTACHED => Payload::Attached {
            parent_tid: i32_at(p, layout::utrace_rec_attached::PARENT_TID),
        },
        uapi::REC_DETACHED => Payload::Detached {
            reason: DetachReason::from_raw(u32_at(p, layout::utrace_rec_detached::REASON)),
        },
        uapi::REC_QUIESCE => Payload::Quiesce {
            before: u64_at(p, layout::utrace_rec_quiesce::EVENT),
        },
        uapi::REC_CLONE => {
            use layout::utrace_rec_clone as c;
            Payload::Clone {
                clone_flags: u64_at(p, c::CLONE_FLAGS),
                child_pid: i32_at(p, c::CHILD_PID),
                child_tid: i32_at(p, c::CHILD_TID),
                child_engine_id: u64_at(p, c::CHILD_ENGINE_ID),
            }
        }
        uapi::REC_EXEC => {
            use layout::utrace_rec_exec as e;
            let field = p.get(e::FILENAME..).unwrap_or(&[]);
            let field = &field[..field.len().min(e::SIZEOF_FILENAME)];
            // filename_len, but never past the field nor the first NUL.
            let len = (u32_at(p, e::FILENAME_LEN) as usize).min(field.len());
            let name = &field[..len];
            let name = name.split(|&c| c == 0).next().unwrap_or(&[]);
            Payload::Exec {
                old_tid: i32_at(p, e::OLD_TID),
                filename: String::from_utf8_lossy(name).into_owned(),
            }
        }
        uapi::REC_EXIT => Payload::Exit {
            code: i64_at(p, layout::utrace_rec_exit::CODE),
        },
        uapi::REC_DEATH => {
            use layout::utrace_rec_death as d;
            Payload::Death {
                exit_code: i32_at(p, d::EXIT_CODE),
                group_dead: u32_at(p, d::GROUP_DEAD) != 0,
            }
        }
        uapi::REC_SIGNAL => {
            use layout::utrace_rec_signal as s;
            let info = p.get(s::SIGINFO..).unwrap_or(&[]);
            Payload::Signal {
                signo: i32_at(p, s::SIGNO),
                disposition: SigClass::from_raw(u32_at(p, s::DISPOSITION)),
                siginfo: info[..info.len().min(s::SIZEOF_SIGINFO)].to_vec(),
            }
        }
        uapi::REC_SYSCALL_ENTRY | uapi::REC_SYSCALL_EXIT => {
            use layout::utrace_rec_syscall as s;
            let captures = if header.flags & uapi::REC_F_CAPTURE != 0 {
                captures(p)
            } else {
                Captures::default()
            };
            // The syscall's fields as an array, as the header.
            let p: [u8; s::SIZEOF] = bytes(p, 0);
            let nr = i32_at(&p, s::NR);
            let abi = Abi::from_raw(u32_at(&p, s::ABI));
            let mut args = [0u64; 6];
            for (i, a) in args.iter_mut().enumerate() {
                *a = u64_at(&p, s::ARGS + 8 * i);
            }
            if header.rtype == uapi::REC_SYSCALL_ENTRY {
                Payload::SyscallEntry {
                    nr,
                    abi,
                    args,
                    captures,
                }
            } else {
                Payload::SyscallExit {
                    nr,
                    abi,
                    args,
                    ret: i64_at(&p, s::RET),
                    captures,
                }
            }
        }
        uapi::REC_JCTL => {
            use layout::utrace_rec_jctl as j;
            Payload::Jctl {
                stop: u32_at(p, j::STOP) != 0,
                signo: i32_at(p, j::SIGNO),
                notify: u32_at(p, j::NOTIFY) != 0,
            }
        }
        uapi::REC_HANDOFF => Payload::Handoff {
            to_engine_id: u64_at(p, layout::utrace_rec_handoff::TO_ENGINE_ID),
        },
        t => Payload::Unknown { rtype: t },
    };
    Event { header, payload }
}

/// Every record in `buf` (what one `read()` returned), in order.
pub fn parse(buf: &[u8]) -> Result<Vec<Event>, ParseError> {
    let hsize = layout::utrace_rec_header::SIZEOF;
    // Room for the most records the bytes can hold (compact ones may be
    // as short as a header): growing the vector copies every record.
    let mut out = Vec::with_capacity(buf.len() / hsize);
    let mut at = 0;
    while at < buf.len() {
        let rest = &buf[at..];
        if rest.len() < hsize {
            return Err(ParseError::Short {
                at,
                need: hsize,
                have: rest.len(),
            });
        }
        let size = usize::from(u16_at(rest, layout::utrace_rec_header::SIZE));
        if size < hsize || size % 8 != 0 {
            return Err(ParseError::BadSize { at, size });
        }
        if rest.len() < size {
            return Err(ParseError::Short {
                at,
                need: size,
                have: rest.len(),
            });
        }
        out.push(parse_one(&rest[..size]));
        at += size;
    }
    Ok(out)
}

/// The `UTRACE_EV_*` bits by name, as the command line spells them.
pub const EVENT_NAMES: &[(&str, u64)] = &[
    ("quiesce", uapi::EV_QUIESCE),
    ("reap", uapi::EV_REAP),
    ("clone", uapi::EV_CLONE),
    ("exec", uapi::EV_EXEC),
    ("exit", uapi::EV_EXIT),
    ("death", uapi::EV_DEATH),
    ("syscall_entry", uapi::EV_SYSCALL_ENTRY),
    ("syscall_exit", uapi::EV_SYSCALL_EXIT),
    ("syscall", uapi::EV_SYSCALL),
    ("signal", uapi::EV_SIGNAL_ALL),
    ("jctl", uapi::EV_JCTL),
];

#[cfg(test)]
mod tests {
    use super::*;
    use layout::utrace_rec_header as h;

    /// A record of `rtype` as the kernel writes it: header fields at the
    /// header's offsets, the payload at the union's.
    fn record(rtype: u16, seq: u64, fill: impl FnOnce(&mut [u8])) -> Vec<u8> {
        let mut r = vec![0u8; uapi::REC_SIZE];
        r[h::TYPE..h::TYPE + 2].copy_from_slice(&rtype.to_ne_bytes());
        r[h::SIZE..h::SIZE + 2].copy_from_slice(&(uapi::REC_SIZE as u16).to_ne_bytes());
        r[h::ENGINE_ID..h::ENGINE_ID + 8].copy_from_slice(&7u64.to_ne_bytes());
        r[h::SEQ..h::SEQ + 8].copy_from_slice(&seq.to_ne_bytes());
        r[h::TIME_NS..h::TIME_NS + 8].copy_from_slice(&123u64.to_ne_bytes());
        r[h::PID..h::PID + 4].copy_from_slice(&100i32.to_ne_bytes());
        r[h::TID..h::TID + 4].copy_from_slice(&101i32.to_ne_bytes());
        fill(&mut r[layout::utrace_record::LOST..]);
        r
    }

    fn put(p: &mut [u8], at: usize, v: &[u8]) {
        p[at..at + v.len()].copy_from_slice(v);
    }

    #[test]
    fn header_and_syscall_entry() {
        use layout::utrace_rec_syscall as s;
        let r = record(uapi::REC_SYSCALL_ENTRY, 5, |p| {
            put(p, s::NR, &257i32.to_ne_bytes());
            put(p, s::ABI, &uapi::ABI_X86_64.to_ne_bytes());
            for i in 0..6 {
                put(p, s::ARGS + 8 * i, &(i as u64 * 11).to_ne_bytes());
            }
        });
        let ev = parse(&r).unwrap();
        assert_eq!(ev.len(), 1);
        let e = &ev[0];
        assert_eq!(e.header.seq, 5);
        assert_eq!(e.header.engine_id, 7);
        assert_eq!(e.header.time_ns, 123);
        assert_eq!((e.header.pid, e.header.tid), (100, 101));
        assert_eq!(
            e.payload,
            Payload::SyscallEntry {
                nr: 257,
                abi: Abi::X86_64,
                args: [0, 11, 22, 33, 44, 55],
                captures: Captures::default(),
            }
        );
    }

    #[test]
    fn syscall_captures() {
        use layout::utrace_rec_capture as c;
        use layout::utrace_rec_syscall_cap as s;
        let mut r = record(uapi::REC_SYSCALL_ENTRY, 3, |p| {
            put(p, s::CALL, &82i32.to_ne_bytes());
            // Two paths: "/a" whole, "/bb..." cut; a third slot unused.
            let d0 = s::CAP;
            p[d0 + c::ARG] = 0;
            p[d0 + c::KIND] = uapi::CAPTURE_STR as u8;
            p[d0 + c::FLAGS] = uapi::CAP_F_END as u8;
            put(p, d0 + c::LEN, &2u16.to_ne_bytes());
            put(p, d0 + c::OFFSET, &0u16.to_ne_bytes());
            let d1 = s::CAP + c::SIZEOF;
            p[d1 + c::ARG] = 1;
            p[d1 + c::KIND] = uapi::CAPTURE_STR as u8;
            p[d1 + c::FLAGS] = uapi::CAP_F_CUT as u8;
            put(p, d1 + c::LEN, &3u16.to_ne_bytes());
            put(p, d1 + c::OFFSET, &2u16.to_ne_bytes());
            put(p, s::DATA, b"/a/bb");
        });
        // Without the flag the bytes are not captures.
        let Payload::SyscallEntry { captures, .. } = &parse(&r).unwrap()[0].payload else {
            panic!("not an entry");
        };
        assert!(captures.is_empty());
        r[h::FLAGS..h::FLAGS + 4].copy_from_slice(&uapi::REC_F_CAPTURE.to_ne_bytes());
        let Payload::SyscallEntry { captures, .. } = &parse(&r).unwrap()[0].payload else {
            panic!("not an entry");
        };
        assert_eq!(captures.len(), 2);
        let (c0, c1) = (captures.get(0).unwrap(), captures.get(1).unwrap());
        assert_eq!((c0.arg, c0.data), (0, &b"/a"[..]));
        assert!(c0.whole() && c0.string_end());
        assert_eq!((c1.arg, c1.data), (1, &b"/bb"[..]));
        assert!(!c1.whole());
        // A descriptor pointing out of the data keeps no bytes.
        let d1 = layout::utrace_record::LOST + s::CAP + c::SIZEOF;
        r[d1 + c::OFFSET..d1 + c::OFFSET + 2].copy_from_slice(&135u16.to_ne_bytes());
        let Payload::SyscallEntry { captures, .. } = &parse(&r).unwrap()[0].payload else {
            panic!("not an entry");
        };
        assert!(captures.get(1).unwrap().data.is_empty());
    }

    /// A compact record (`UTRACE_CONFIG_F_COMPACT`) ends with its last
    /// capture's bytes, and the next record follows at once.
    #[test]
    fn compact_records() {
        use layout::utrace_rec_capture as c;
        use layout::utrace_rec_syscall_cap as s;
        let mut r = record(uapi::REC_SYSCALL_ENTRY, 3, |p| {
            put(p, s::CALL, &257i32.to_ne_bytes());
            p[s::CAP + c::KIND] = uapi::CAPTURE_STR as u8;
            p[s::CAP + c::FLAGS] = uapi::CAP_F_END as u8;
            p[s::CAP + c::ARG] = 1;
            put(p, s::CAP + c::LEN, &5u16.to_ne_bytes());
            put(p, s::DATA, b"/etc/");
        });
        r[h::FLAGS..h::FLAGS + 4].copy_from_slice(&uapi::REC_F_CAPTURE.to_ne_bytes());
        let len = (layout::utrace_record::LOST + s::DATA + 5).next_multiple_of(8);
        r.truncate(len);
        r[h::SIZE..h::SIZE + 2].copy_from_slice(&(len as u16).to_ne_bytes());
        let mut exit = record(uapi::REC_SYSCALL_EXIT, 4, |p| {
            put(p, layout::utrace_rec_syscall::RET, &3i64.to_ne_bytes());
        });
        exit.truncate(layout::utrace_record::LOST + layout::utrace_rec_syscall::SIZEOF);
        let elen = exit.len() as u16;
        exit[h::SIZE..h::SIZE + 2].copy_from_slice(&elen.to_ne_bytes());
        r.extend_from_slice(&exit);
        let ev = parse(&r).unwrap();
        assert_eq!(ev.len(), 2);
        let Payload::SyscallEntry { captures, .. } = &ev[0].payload else {
            panic!("not an entry");
        };
        assert_eq!(captures.get(0).unwrap().data, &b"/etc/"[..]);
        assert_eq!(ev[1].header.seq, 4);
        assert!(matches!(ev[1].payload, Payload::SyscallExit { ret: 3, .. }));
    }

    #[test]
    fn syscall_exit_negative_ret_and_i386() {
        use layout::utrace_rec_syscall as s;
        let r = record(uapi::REC_SYSCALL_EXIT, 1, |p| {
            put(p, s::NR, &5i32.to_ne_bytes());
            put(p, s::ABI, &uapi::ABI_I386.to_ne_bytes());
            put(p, s::ARGS + 8, &0x1234u64.to_ne_bytes());
            put(p, s::RET, &(-2i64).to_ne_bytes());
        });
        let ev = parse(&r).unwrap();
        assert_eq!(
            ev[0].payload,
            Payload::SyscallExit {
                nr: 5,
                abi: Abi::I386,
                args: [0, 0x1234, 0, 0, 0, 0],
                ret: -2,
                captures: Captures::default(),
            }
        );
    }

    #[test]
    fn exec_filename_bounded_by_len_and_nul() {
        use layout::utrace_rec_exec as e;
        let r = record(uapi::REC_EXEC, 2, |p| {
            put(p, e::OLD_TID, &42i32.to_ne_bytes());
            put(p, e::FILENAME_LEN, &9u32.to_ne_bytes());
            put(p, e::FILENAME, b"/bin/true\0garbage");
        });
        assert_eq!(
            parse(&r).unwrap()[0].payload,
            Payload::Exec {
                old_tid: 42,
                filename: "/bin/true".into()
            }
        );
        // A length past the field is clamped to the field.
        let r = record(uapi::REC_EXEC, 2, |p| {
            put(p, e::FILENAME_LEN, &u32::MAX.to_ne_bytes());
            for i in 0..e::SIZEOF_FILENAME {
                p[e::FILENAME + i] = b'a';
            }
        });
        match &parse(&r).unwrap()[0].payload {
            Payload::Exec { filename, .. } => assert_eq!(filename.len(), e::SIZEOF_FILENAME),
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn clone_death_signal_lost_jctl() {
        use layout::*;
        let mut buf = record(uapi::REC_CLONE, 1, |p| {
            put(p, utrace_rec_clone::CLONE_FLAGS, &0x11u64.to_ne_bytes());
            put(p, utrace_rec_clone::CHILD_PID, &200i32.to_ne_bytes());
            put(p, utrace_rec_clone::CHILD_TID, &200i32.to_ne_bytes());
            put(p, utrace_rec_clone::CHILD_ENGINE_ID, &9u64.to_ne_bytes());
        });
        buf.extend(record(uapi::REC_DEATH, 2, |p| {
            put(p, utrace_rec_death::EXIT_CODE, &(3i32 << 8).to_ne_bytes());
            put(p, utrace_rec_death::GROUP_DEAD, &1u32.to_ne_bytes());
        }));
        buf.extend(record(uapi::REC_SIGNAL, 3, |p| {
            put(p, utrace_rec_signal::SIGNO, &11i32.to_ne_bytes());
            put(
                p,
                utrace_rec_signal::DISPOSITION,
                &uapi::SIGCLASS_CORE.to_ne_bytes(),
            );
            put(p, utrace_rec_signal::SIGINFO, &11i32.to_ne_bytes());
        }));
        buf.extend(record(uapi::REC_LOST, 10, |p| {
            put(p, utrace_rec_lost::COUNT, &6u64.to_ne_bytes());
            put(p, utrace_rec_lost::FIRST_SEQ, &4u64.to_ne_bytes());
        }));
        buf.extend(record(uapi::REC_JCTL, 11, |p| {
            put(p, utrace_rec_jctl::STOP, &1u32.to_ne_bytes());
            put(p, utrace_rec_jctl::SIGNO, &19i32.to_ne_bytes());
        }));
        let ev = parse(&buf).unwrap();
        assert_eq!(ev.len(), 5);
        assert_eq!(
            ev[0].payload,
            Payload::Clone {
                clone_flags: 0x11,
                child_pid: 200,
                child_tid: 200,
                child_engine_id: 9
            }
        );
        assert_eq!(
            ev[1].payload,
            Payload::Death {
                exit_code: 0x300,
                group_dead: true
            }
        );
        match &ev[2].payload {
            Payload::Signal {
                signo: 11,
                disposition: SigClass::Core,
                siginfo,
            } => {
                assert_eq!(siginfo.len(), utrace_rec_signal::SIZEOF_SIGINFO);
                assert_eq!(&siginfo[..4], &11i32.to_ne_bytes());
            }
            p => panic!("{p:?}"),
        }
        assert_eq!(
            ev[3].payload,
            Payload::Lost {
                count: 6,
                first_seq: 4
            }
        );
        assert_eq!(
            ev[4].payload,
            Payload::Jctl {
                stop: true,
                signo: 19,
                notify: false
            }
        );
        assert_eq!(
            ev.iter().map(|e| e.header.seq).collect::<Vec<_>>(),
            [1, 2, 3, 10, 11]
        );
    }

    #[test]
    fn unknown_type_and_longer_records_are_stepped_over() {
        // A later version: a record type of its own, twice as long.
        let mut long = record(200, 1, |_| {});
        long.resize(2 * uapi::REC_SIZE, 0xff);
        long[h::SIZE..h::SIZE + 2].copy_from_slice(&(2 * uapi::REC_SIZE as u16).to_ne_bytes());
        long.extend(record(uapi::REC_EXIT, 2, |p| {
            put(p, layout::utrace_rec_exit::CODE, &7i64.to_ne_bytes());
        }));
        let ev = parse(&long).unwrap();
        assert_eq!(ev[0].payload, Payload::Unknown { rtype: 200 });
        assert_eq!(ev[1].payload, Payload::Exit { code: 7 });
    }

    #[test]
    fn malformed_buffers_are_errors_not_panics() {
        let r = record(uapi::REC_EXIT, 1, |_| {});
        assert!(matches!(parse(&r[..10]), Err(ParseError::Short { .. })));
        assert!(matches!(parse(&r[..100]), Err(ParseError::Short { .. })));
        for bad in [0u16, 8, 41, 250] {
            let mut b = r.clone();
            b[h::SIZE..h::SIZE + 2].copy_from_slice(&bad.to_ne_bytes());
            assert!(parse(&b).is_err(), "size {bad}");
        }
        assert_eq!(parse(&[]).unwrap(), vec![]);
    }
}
