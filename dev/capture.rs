// SPDX-License-Identifier: GPL-2.0

//! Captures: the user memory a session's syscall records carry
//! (`UTRACE_IOC_CAPTURE`, `struct utrace_rec_syscall_cap`).
//!
//! The session gives a list of (ABI, syscall, argument, kind) items; a
//! SYSCALL_ENTRY or SYSCALL_EXIT record of a listed syscall then carries the
//! bytes at that argument as they were when the record was written: a path
//! before the syscall ran, the data `read()` returned after it. So a reader
//! decodes what the task passed without stopping it for every call.
//!
//! The callbacks run in the syscall probe (atomic context): the bytes are
//! read without faulting pages in. What is not present, or does not fit
//! the record, is flagged; with `UTRACE_CAPTURE_F_DECIDE` such an entry
//! waits for a decision instead, so that the reader reads the memory
//! itself while the thread waits (`Core::syscall_entry`).

use crate::utrace::device::UserArg;
use crate::utrace::uapi::{self, Record};
use crate::utrace::{SyscallArch, SyscallContext, SyscallRegs};
use kernel::prelude::*;

/// One item as the record writer reads it (`kind` 0: none).
#[derive(Clone, Copy, Default)]
pub(crate) struct Item {
    arg: u8,
    kind: u8,
    len_arg: u8,
    exit: bool,
    /// At most [`uapi::REC_CAPTURE_DATA`].
    max: u8,
}

/// The items of one syscall (entry and exit together).
pub(crate) type Items = [Item; uapi::REC_CAPTURES];

/// A session's capture list, by ABI and syscall number. Empty until
/// `UTRACE_IOC_CAPTURE` gives one; lives in the session's locked state,
/// replaced whole.
pub(crate) struct Table {
    /// `2 * CAPTURE_NR_MAX` entries (x86-64, then i386), or none.
    items: KVVec<Items>,
    /// `UTRACE_CAPTURE_F_DECIDE`.
    pub(crate) decide: bool,
}

impl Default for Table {
    fn default() -> Table {
        Table {
            items: KVVec::new(),
            decide: false,
        }
    }
}

/// The index of syscall `nr` of `UTRACE_ABI_*` `abi` in the per-syscall
/// tables of a session (x86-64's numbers, then i386's: [`Table::items`],
/// the bitmaps of `filter.rs`): `None` for another ABI or a number from
/// `CAPTURE_NR_MAX` on.
pub(crate) fn index(abi: u32, nr: i64) -> Option<usize> {
    let base = match abi {
        uapi::ABI_X86_64 => 0,
        uapi::ABI_I386 => uapi::CAPTURE_NR_MAX,
        _ => return None,
    };
    let nr = usize::try_from(nr)
        .ok()
        .filter(|&n| n < uapi::CAPTURE_NR_MAX)?;
    Some(base + nr)
}

impl Table {
    /// The items of the syscall `nr` of `arch`, if it has any.
    #[inline]
    pub(crate) fn get(&self, arch: SyscallArch, nr: i64) -> Option<Items> {
        if self.items.is_empty() {
            return None;
        }
        let items = *self.items.get(index(crate::abi_of(arch), nr)?)?;
        (items[0].kind != 0).then_some(items)
    }

    /// The table `UTRACE_IOC_CAPTURE`'s argument `arg` describes: `EINVAL`
    /// for unknown flags, non-zero reserved fields or an item out of the
    /// rules of the header, `E2BIG` for more than `CAPTURE_ITEMS_MAX`
    /// items, `EFAULT` for a bad pointer.
    pub(crate) fn from_user(arg: UserArg) -> Result<Table> {
        let c: uapi::Capture = arg.read_struct()?;
        if c.flags & !uapi::CAPTURE_F_DECIDE != 0 || c.reserved0 != 0 || c.reserved != 0 {
            return Err(EINVAL);
        }
        let count = c.count as usize;
        if count > uapi::CAPTURE_ITEMS_MAX {
            return Err(E2BIG);
        }
        let mut t = Table {
            decide: c.flags & uapi::CAPTURE_F_DECIDE != 0,
            ..Table::default()
        };
        if count == 0 {
            return Ok(t);
        }
        t.items = KVVec::with_capacity(2 * uapi::CAPTURE_NR_MAX, GFP_KERNEL)?;
        for _ in 0..2 * uapi::CAPTURE_NR_MAX {
            t.items.push(Items::default(), GFP_KERNEL)?;
        }
        let size = core::mem::size_of::<uapi::CaptureItem>() as u64;
        for i in 0..count as u64 {
            let mut it = uapi::CaptureItem::default();
            let at = c.items.checked_add(i * size).ok_or(EFAULT)?;
            UserArg(at).read_bytes(uapi::Plain::bytes_mut(&mut it))?;
            t.add(&it)?;
        }
        Ok(t)
    }

    fn add(&mut self, it: &uapi::CaptureItem) -> Result {
        let exit = it.flags & uapi::CAPTURE_AT_EXIT != 0;
        let at = index(u32::from(it.abi), i64::from(it.nr)).ok_or(EINVAL)?;
        let ok = it.arg < 6
            && (uapi::CAPTURE_STR..=uapi::CAPTURE_MEM_RET).contains(&it.kind)
            && (it.len_arg < 6 && (it.kind == uapi::CAPTURE_MEM_ARG || it.len_arg == 0))
            && it.flags & !uapi::CAPTURE_AT_EXIT == 0
            && (it.kind != uapi::CAPTURE_MEM_RET || exit)
            && (1..=uapi::REC_CAPTURE_DATA).contains(&usize::from(it.max))
            && it.reserved0 == 0
            && it.reserved1 == 0
            && it.reserved2 == 0;
        if !ok {
            return Err(EINVAL);
        }
        let slot = self.items.get_mut(at).ok_or(EINVAL)?;
        let free = slot.iter_mut().find(|s| s.kind == 0).ok_or(EINVAL)?;
        *free = Item {
            arg: it.arg,
            kind: it.kind,
            len_arg: it.len_arg,
            exit,
            // `max` is at most REC_CAPTURE_DATA (136): checked above.
            max: it.max as u8,
        };
        Ok(())
    }
}

/// Reads the items of `items` for this phase (`exit`) of the syscall in
/// `regs` into `rec` (a syscall record, zeroed past the syscall's fields)
/// and flags it `UTRACE_REC_F_CAPTURE`. Returns whether every item was read
/// whole: false if one was not present or was cut to fit the record.
/// Atomic context: nothing is faulted in.
pub(crate) fn fill(
    rec: &mut Record,
    cx: &SyscallContext<'_>,
    regs: &SyscallRegs<'_>,
    items: &Items,
    exit: bool,
) -> bool {
    let mut whole = true;
    let mut used = 0usize;
    let mut slot = 0usize;
    for it in items.iter().filter(|it| it.kind != 0 && it.exit == exit) {
        let addr = regs.arg(usize::from(it.arg)).unwrap_or(0);
        let max = usize::from(it.max);
        let want = match it.kind {
            uapi::CAPTURE_MEM_ARG => {
                let len = regs.arg(usize::from(it.len_arg)).unwrap_or(0);
                usize::try_from(len).unwrap_or(usize::MAX).min(max)
            }
            uapi::CAPTURE_MEM_RET => usize::try_from(regs.return_value()).unwrap_or(0).min(max),
            _ => max,
        };
        let room = uapi::REC_CAPTURE_DATA - used;
        let n = want.min(room);
        let at = uapi::SYSCALL_CAP_DATA + used;
        let mut flags = 0u8;
        let mut len = 0usize;
        // A NULL pointer or nothing to read is whole: nothing is shown.
        if addr != 0 && want > 0 {
            let buf = &mut rec.payload[at..at + n];
            if it.kind == uapi::CAPTURE_STR {
                match cx.read_user_str(addr, buf) {
                    Ok((l, true)) => {
                        len = l;
                        flags |= uapi::CAP_F_END;
                    }
                    Ok((l, false)) if l < n => {
                        len = l;
                        flags |= uapi::CAP_F_FAULT;
                    }
                    Ok((l, false)) => len = l,
                    Err(_) => flags |= uapi::CAP_F_FAULT,
                }
                // Bytes after the NUL (read with the page) are not the
                // string's: the record shows none of them.
                buf[len..].fill(0);
            } else {
                match cx.read_user(addr, buf) {
                    Ok(()) => len = n,
                    Err(_) => {
                        buf.fill(0);
                        flags |= uapi::CAP_F_FAULT;
                    }
                }
            }
            if n < want && flags & (uapi::CAP_F_END | uapi::CAP_F_FAULT) == 0 {
                flags |= uapi::CAP_F_CUT;
            }
        }
        whole &= flags & (uapi::CAP_F_FAULT | uapi::CAP_F_CUT) == 0;
        let d = uapi::SYSCALL_CAP + slot * uapi::SYSCALL_CAP_SIZE;
        rec.payload[d + uapi::SYSCALL_CAP_ARG] = it.arg;
        rec.payload[d + uapi::SYSCALL_CAP_KIND] = it.kind;
        rec.payload[d + uapi::SYSCALL_CAP_FLAGS] = flags;
        // `len` and `used` are at most REC_CAPTURE_DATA (136).
        rec.put(d + uapi::SYSCALL_CAP_LEN, &(len as u16).to_ne_bytes());
        rec.put(d + uapi::SYSCALL_CAP_OFFSET, &(used as u16).to_ne_bytes());
        used += len;
        slot += 1;
    }
    if slot > 0 {
        rec.h.flags |= uapi::REC_F_CAPTURE;
    }
    whole
}
