// SPDX-License-Identifier: GPL-2.0

//! Examining and changing a task: its registers (general and FP, x86-64)
//! and its memory, through an [`Examined`] witness that only
//! [`EngineRef::examine`](super::EngineRef::examine) (a task this engine
//! holds stopped) and [`Context::examine`](super::Context::examine) (the
//! task of a callback, which is `current`) hand out.

use super::raw::{self, TaskPtr};
use super::SyscallArch;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::mem::{offset_of, size_of};
use kernel::error::to_result;
use kernel::prelude::*;

/// The proof, for the duration of one `examine` closure, that the task
/// may be read and changed: it is `current`, or this engine holds it in its
/// stop and it is off its CPU. Not `Send`.
pub(crate) struct Examined<'a> {
    task: TaskPtr,
    engine: *mut raw::utrace_engine,
    _scope: PhantomData<&'a ()>,
}

/// Runs `f` between `utrace_prepare_examine()` and
/// `utrace_finish_examine()` of `task` by `engine`: `EAGAIN` if the task is
/// not (yet) in its stop, or ran meanwhile (then what `f` read may be
/// stale and what it wrote may have been seen: retry); `EINVAL` if the
/// engine does not hold it stopped, `ESRCH` if it is gone. May sleep.
///
/// # Safety
///
/// `task` is a task the caller holds a reference on; `engine` an engine
/// attached to it that the caller holds a reference on (or pinned for its
/// callback).
pub(super) unsafe fn examine<R>(
    task: TaskPtr,
    engine: *mut raw::utrace_engine,
    f: impl FnOnce(&Examined<'_>) -> R,
) -> Result<R> {
    let mut exam = raw::utrace_examiner::default();
    // SAFETY: By the function's safety requirements; `exam` is ours.
    to_result(unsafe { raw::utrace_prepare_examine(task, engine, &mut exam) })?;
    let ret = f(&Examined {
        task,
        engine,
        _scope: PhantomData,
    });
    // SAFETY: As above.
    to_result(unsafe { raw::utrace_finish_examine(task, engine, &exam) })?;
    Ok(ret)
}

/// A count or a negative errno, from the C ABI.
fn to_count(ret: i32) -> Result<usize> {
    to_result(ret)?;
    Ok(ret as usize)
}

impl Examined<'_> {
    /// Reads the regset `note_type` into `buf`: the bytes read.
    fn get(&self, note_type: u32, buf: *mut c_void, size: usize) -> Result<usize> {
        // SAFETY: The task and engine are valid for the witness's life
        // (see `examine`); `buf` is writable for `size` bytes.
        to_count(unsafe {
            raw::utrace_regset_get(self.task, self.engine, note_type, buf, size as u32)
        })
    }

    fn set(&self, note_type: u32, buf: *const c_void, size: usize) -> Result {
        // SAFETY: As in `get`; `buf` is readable for `size` bytes.
        to_result(unsafe {
            raw::utrace_regset_set(self.task, self.engine, note_type, buf, size as u32)
        })
    }

    /// Reads the start of regset `note_type` (an ELF note type:
    /// `NT_PRSTATUS`, `NT_PRFPREG`, `NT_X86_XSTATE`...) of the task's regset
    /// view, the i386 one for a 32-bit task, as `PTRACE_GETREGSET` does:
    /// at most `buf.len()` bytes; the bytes read. `ENODEV` if the view has
    /// no such regset or the CPU lacks it.
    pub(crate) fn regset_get(&self, note_type: u32, buf: &mut [u8]) -> Result<usize> {
        let size = buf.len().min(u32::MAX as usize);
        self.get(note_type, buf.as_mut_ptr().cast(), size)
    }

    /// Writes `buf` to the start of regset `note_type`, validated by the
    /// regset's own `set()` as for `PTRACE_SETREGSET`: `EINVAL` if `buf` is
    /// longer than the regset or not a whole number of its elements,
    /// `ENODEV` as for [`Examined::regset_get`], or what `set()` refuses
    /// (`EIO` for a bad segment selector, ...).
    pub(crate) fn regset_set(&self, note_type: u32, buf: &[u8]) -> Result {
        if u32::try_from(buf.len()).is_err() {
            return Err(EINVAL);
        }
        self.set(note_type, buf.as_ptr().cast(), buf.len())
    }

    /// The ABI of the syscall the task is in (stopped before it runs or at
    /// its exit, or in a syscall callback), as `syscall_get_arch()` says:
    /// how [`UserRegs::arg`] reads its arguments. `X86_64` in none.
    pub(crate) fn syscall_arch(&self) -> SyscallArch {
        // SAFETY: The task is valid for the witness's life, and `current`
        // or off its CPU in its stop (see `examine`).
        unsafe { SyscallArch::of(self.task) }
    }

    /// The general registers (as at syscall entry while stopped there:
    /// `orig_ax` the number, `ax` -ENOSYS).
    pub(crate) fn regs(&self) -> Result<UserRegs> {
        let mut regs = UserRegs::default();
        let n = self.get(
            raw::NT_PRSTATUS,
            (&mut regs as *mut UserRegs).cast(),
            size_of::<UserRegs>(),
        )?;
        if n != size_of::<UserRegs>() {
            // A 32-bit task's view is smaller.
            return Err(EINVAL);
        }
        Ok(regs)
    }

    /// Sets the general registers (read them with [`Examined::regs`]
    /// first).
    pub(crate) fn set_regs(&self, regs: &UserRegs) -> Result {
        self.set(
            raw::NT_PRSTATUS,
            (regs as *const UserRegs).cast(),
            size_of::<UserRegs>(),
        )
    }

    /// The FP and SSE registers.
    pub(crate) fn fp_regs(&self) -> Result<FpRegs> {
        let mut fp = FpRegs([0; 512]);
        let n = self.get(raw::NT_PRFPREG, fp.0.as_mut_ptr().cast(), fp.0.len())?;
        if n != fp.0.len() {
            return Err(EINVAL);
        }
        Ok(fp)
    }

    /// Sets the FP and SSE registers (read them with
    /// [`Examined::fp_regs`] first).
    pub(crate) fn set_fp_regs(&self, fp: &FpRegs) -> Result {
        self.set(raw::NT_PRFPREG, fp.0.as_ptr().cast(), fp.0.len())
    }

    fn access(&self, addr: u64, buf: *mut c_void, len: usize, write: bool) -> Result<usize> {
        let len = i32::try_from(len).map_err(|_| EINVAL)?;
        // SAFETY: As in `get`; `buf` is valid for `len` bytes (writable
        // unless `write`).
        to_count(unsafe {
            raw::utrace_access_vm(self.task, self.engine, addr as usize, buf, len, write)
        })
    }

    /// Reads the task's memory at `addr` into `buf`: the bytes read
    /// (fewer at an unmapped page), `EFAULT` if none.
    pub(crate) fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<usize> {
        self.access(addr, buf.as_mut_ptr().cast(), buf.len(), false)
    }

    /// Writes `buf` into the task's memory at `addr`, as a debugger does
    /// (read-only mappings too): the bytes written, `EFAULT` if none.
    pub(crate) fn write_memory(&self, addr: u64, buf: &[u8]) -> Result<usize> {
        // `utrace_access_vm` only reads from `buf` when writing.
        self.access(addr, buf.as_ptr().cast_mut().cast(), buf.len(), true)
    }
}

/// The general registers of an x86-64 task (`struct user_regs_struct`).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct UserRegs {
    pub(crate) r15: u64,
    pub(crate) r14: u64,
    pub(crate) r13: u64,
    pub(crate) r12: u64,
    pub(crate) bp: u64,
    pub(crate) bx: u64,
    pub(crate) r11: u64,
    pub(crate) r10: u64,
    pub(crate) r9: u64,
    pub(crate) r8: u64,
    pub(crate) ax: u64,
    pub(crate) cx: u64,
    pub(crate) dx: u64,
    pub(crate) si: u64,
    pub(crate) di: u64,
    pub(crate) orig_ax: u64,
    pub(crate) ip: u64,
    pub(crate) cs: u64,
    pub(crate) flags: u64,
    pub(crate) sp: u64,
    pub(crate) ss: u64,
    pub(crate) fs_base: u64,
    pub(crate) gs_base: u64,
    pub(crate) ds: u64,
    pub(crate) es: u64,
    pub(crate) fs: u64,
    pub(crate) gs: u64,
}

const _: () = {
    assert!(size_of::<UserRegs>() == 27 * 8);
    assert!(offset_of!(UserRegs, orig_ax) == 15 * 8);
};

impl UserRegs {
    /// The register of syscall argument `n` (0 to 5) in ABI `arch`.
    fn arg_slot(&mut self, arch: SyscallArch, n: usize) -> Option<&mut u64> {
        Some(match (arch, n) {
            (SyscallArch::X86_64, 0) => &mut self.di,
            (SyscallArch::X86_64, 1) => &mut self.si,
            (SyscallArch::X86_64, 2) => &mut self.dx,
            (SyscallArch::X86_64, 3) => &mut self.r10,
            (SyscallArch::X86_64, 4) => &mut self.r8,
            (SyscallArch::X86_64, 5) => &mut self.r9,
            (SyscallArch::I386, 0) => &mut self.bx,
            (SyscallArch::I386, 1) => &mut self.cx,
            (SyscallArch::I386, 2) => &mut self.dx,
            (SyscallArch::I386, 3) => &mut self.si,
            (SyscallArch::I386, 4) => &mut self.di,
            (SyscallArch::I386, 5) => &mut self.bp,
            _ => return None,
        })
    }

    /// Syscall argument `n` (0 to 5) in syscall ABI `arch`
    /// ([`Examined::syscall_arch`]): for i386 the low 32 bits of its
    /// register, as the syscall sees it.
    pub(crate) fn arg(&self, arch: SyscallArch, n: usize) -> Option<u64> {
        let mut copy = *self;
        let value = *copy.arg_slot(arch, n)?;
        Some(match arch {
            SyscallArch::X86_64 => value,
            SyscallArch::I386 => u64::from(value as u32),
        })
    }

    /// Sets syscall argument `n` (0 to 5) in syscall ABI `arch` (for i386
    /// the low 32 bits of `value`, zero-extended); `EINVAL` for another
    /// `n`.
    pub(crate) fn set_arg(&mut self, arch: SyscallArch, n: usize, value: u64) -> Result {
        let value = match arch {
            SyscallArch::X86_64 => value,
            SyscallArch::I386 => u64::from(value as u32),
        };
        *self.arg_slot(arch, n).ok_or(EINVAL)? = value;
        Ok(())
    }
}

/// The FP and SSE registers of an x86-64 task (`struct user_i387_struct`,
/// the `fxsave` layout).
#[derive(Clone, Copy)]
pub(crate) struct FpRegs(pub(crate) [u8; 512]);

/// Where `xmm0` starts in the `fxsave` layout; each register is 16 bytes.
const XMM_OFFSET: usize = 160;

impl FpRegs {
    /// The low 64 bits of `xmm<n>` (0 to 15).
    pub(crate) fn xmm_low(&self, n: usize) -> Option<u64> {
        let at = XMM_OFFSET + 16 * n;
        let bytes = self.0.get(at..at + 8)?;
        let mut low = [0u8; 8];
        low.copy_from_slice(bytes);
        (n < 16).then(|| u64::from_le_bytes(low))
    }

    /// Sets the low 64 bits of `xmm<n>` (0 to 15); `EINVAL` for another `n`.
    pub(crate) fn set_xmm_low(&mut self, n: usize, value: u64) -> Result {
        if n >= 16 {
            return Err(EINVAL);
        }
        let at = XMM_OFFSET + 16 * n;
        self.0[at..at + 8].copy_from_slice(&value.to_le_bytes());
        Ok(())
    }
}
