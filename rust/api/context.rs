// SPDX-License-Identifier: GPL-2.0

//! What a callback can reach besides its engine value: [`Context`] where it
//! may sleep, [`SyscallContext`] and [`SyscallRegs`] in atomic context,
//! [`SleepingSyscall`] for a syscall entry reported where it may sleep.

use super::raw::{self, TaskPtr};
use super::tracer::{EngineRef, Shared};
use super::{Control, Engine, Events, Examined};
use core::marker::PhantomData;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::error::to_result;
use kernel::prelude::*;
use kernel::sync::ArcBorrow;
use kernel::task::Task;

/// The context of one callback: the task the event belongs to, the engine
/// called and the tracer it belongs to. Lives only for the callback.
pub(crate) struct Context<'a, E: Engine> {
    pub(super) shared: ArcBorrow<'a, Shared<E>>,
    pub(super) global: bool,
    pub(super) task: &'a Task,
    /// The engine called, pinned by the framework for the callback.
    pub(super) engine: NonNull<raw::utrace_engine>,
}

impl<E: Engine> Context<'_, E> {
    /// Whether the callback is for a global engine (else a per-task one).
    pub(crate) fn is_global(&self) -> bool {
        self.global
    }

    /// The task the event belongs to: for CLONE the parent, else the task
    /// that exec'd, exits, died, gets the signal or quiesces.
    pub(crate) fn task(&self) -> &Task {
        self.task
    }

    /// The target `utrace_*()` calls name for this engine: its task, or
    /// none for a global engine.
    fn target(&self) -> TaskPtr {
        if self.global {
            core::ptr::null_mut()
        } else {
            super::task::task_ptr(self.task)
        }
    }

    /// Attaches another engine of the same tracer to `task` (e.g. a CLONE
    /// child, to follow it). `ESHUTDOWN` once the tracer is being dropped.
    pub(crate) fn attach(&self, task: &Task, events: Events) -> Result<EngineRef<E>> {
        Shared::attach(&self.shared, Some(task), events)
    }

    /// Changes this engine's events (`utrace_set_events()`).
    pub(crate) fn set_events(&self, events: Events) -> Result {
        // SAFETY: The engine is pinned for the callback; the target is its
        // task (or null for a global engine).
        to_result(unsafe {
            raw::utrace_set_events(self.target(), self.engine.as_ptr(), events.bits())
        })
    }

    /// `utrace_control()` on this engine's task, from its own callback.
    pub(crate) fn control(&self, action: Control) -> Result {
        // SAFETY: As in `set_events`.
        to_result(unsafe { raw::utrace_control(self.target(), self.engine.as_ptr(), action.raw()) })
    }

    /// Examines the task of this callback, which is `current` (every
    /// callback but a `CLONE_VFORK` child's CLONE report for its parent and
    /// global-engine ones of another task: `EINVAL`): its registers (for
    /// EXEC, the new image's) and memory, through the [`Examined`] witness.
    pub(crate) fn examine<R>(&self, f: impl FnOnce(&Examined<'_>) -> R) -> Result<R> {
        let current = super::task::task_ptr(self.task);
        // SAFETY: Reads `current`, always valid in process context.
        if current != unsafe { bindings::get_current() } {
            return Err(EINVAL);
        }
        // SAFETY: The task is alive during the callback and the engine is
        // pinned for it.
        unsafe { super::examine::examine(current, self.engine.as_ptr(), f) }
    }
}

/// The context of a syscall callback: atomic, so it offers nothing that may
/// sleep (no attach, no `set_events`, no barrier). Not `Send`: it belongs
/// to the callback.
pub(crate) struct SyscallContext<'a> {
    pub(super) task: &'a Task,
    /// The entry is reported again after a stop before it.
    pub(super) resumed: bool,
    pub(super) _not_send: PhantomData<*mut ()>,
}

impl SyscallContext<'_> {
    /// The task in the syscall (`current`).
    pub(crate) fn task(&self) -> &Task {
        self.task
    }

    /// At entry: whether this entry was reported before, and the task
    /// stopped before running it ([`SyscallEntry::Stop`]) and was resumed
    /// (`UTRACE_SYSCALL_RESUMED`). False at exit.
    ///
    /// [`SyscallEntry::Stop`]: super::SyscallEntry::Stop
    pub(crate) fn resumed(&self) -> bool {
        self.resumed
    }
}

/// The context of a syscall entry reported where the callback may sleep
/// (a tracer made with
/// [`Tracer::with_sleepable_syscalls`](super::Tracer::with_sleepable_syscalls)):
/// everything a [`Context`] offers (it derefs to one), and the task's
/// memory, which is `current`'s.
pub(crate) struct SleepingSyscall<'a, E: Engine> {
    pub(super) cx: Context<'a, E>,
    pub(super) resumed: bool,
}

impl<'a, E: Engine> core::ops::Deref for SleepingSyscall<'a, E> {
    type Target = Context<'a, E>;

    fn deref(&self) -> &Context<'a, E> {
        &self.cx
    }
}

impl<E: Engine> SleepingSyscall<'_, E> {
    /// As [`SyscallContext::resumed`].
    pub(crate) fn resumed(&self) -> bool {
        self.resumed
    }

    /// Reads `buf.len()` bytes of the task's memory at `addr` into `buf`,
    /// faulting pages in as needed: `EFAULT` if not all of it could be read
    /// (the same contract as [`SyscallContext::read_user`], which may not
    /// fault). May sleep.
    pub(crate) fn read_user(&self, addr: u64, buf: &mut [u8]) -> Result {
        // SAFETY: The task is `current` and this runs in its own context
        // where it may fault (the sleepable report); `buf` is writable for
        // its length.
        let left = unsafe {
            bindings::copy_from_user(buf.as_mut_ptr().cast(), addr as usize as _, buf.len() as _)
        };
        if left == 0 {
            Ok(())
        } else {
            Err(EFAULT)
        }
    }

    /// Reads the NUL-terminated string at `addr` into `buf`, faulting pages
    /// in as needed: `Ok((len, complete))` with its first `len` bytes in
    /// `buf` (no NUL), `complete` false if it is longer than `buf`; `EFAULT`
    /// if it cannot be read (the contract of
    /// [`SyscallContext::read_user_str`]). May sleep.
    pub(crate) fn read_user_str(&self, addr: u64, buf: &mut [u8]) -> Result<(usize, bool)> {
        let len = buf.len();
        // SAFETY: As in `read_user`.
        let n = unsafe {
            bindings::strncpy_from_user(buf.as_mut_ptr().cast(), addr as usize as _, len as _)
        };
        let n = usize::try_from(n).map_err(|_| EFAULT)?;
        Ok((n.min(len), n < len))
    }
}

/// The syscall ABI of a syscall (`syscall_get_arch()`): which table its
/// number is from and which registers hold its arguments and result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SyscallArch {
    /// x86-64 (`syscall` in a 64-bit task): the number in `orig_ax`
    /// (`arch/x86/entry/syscalls/syscall_64.tbl`), the arguments in `rdi`,
    /// `rsi`, `rdx`, `r10`, `r8`, `r9`, the result in `rax`.
    X86_64,
    /// i386 (`int $0x80` from any task, and every syscall of a 32-bit task:
    /// `in_ia32_syscall()`): the number in `orig_ax`
    /// (`arch/x86/entry/syscalls/syscall_32.tbl`), the arguments in `ebx`,
    /// `ecx`, `edx`, `esi`, `edi`, `ebp`, the result in `eax`; every value
    /// 32 bits wide.
    I386,
}

impl SyscallArch {
    /// The ABI of the syscall `task` is in (or whose exit it is about to
    /// leave for user mode, in its task work, where utrace stops it): the
    /// kernel's `syscall_get_arch(task)`; `X86_64` in none.
    ///
    /// # Safety
    ///
    /// `task` is valid, and is `current` or off its CPU for the call (its
    /// `thread_info.status` is only written by itself: the syscall entry
    /// sets `TS_COMPAT`, the return to user mode clears it, after the task
    /// work).
    pub(super) unsafe fn of(task: *mut bindings::task_struct) -> Self {
        // SAFETY: By the function's safety requirements.
        let status = unsafe { (*task).thread_info.status };
        if status & bindings::TS_COMPAT != 0 {
            SyscallArch::I386
        } else {
            SyscallArch::X86_64
        }
    }

    /// Its `AUDIT_ARCH_*` value, as `syscall_get_arch()` returns it and
    /// seccomp's `struct seccomp_data` carries it.
    pub(crate) fn audit_arch(self) -> u32 {
        match self {
            SyscallArch::X86_64 => bindings::AUDIT_ARCH_X86_64,
            SyscallArch::I386 => bindings::AUDIT_ARCH_I386,
        }
    }
}

/// The registers of a syscall being entered or left, read and written as
/// its ABI ([`SyscallArch`]) says: `nr()`, `arg(n)` and `return_value()`
/// are what the syscall sees and the task gets, for either ABI.
pub(crate) struct SyscallRegs<'a> {
    regs: &'a mut bindings::pt_regs,
    arch: SyscallArch,
}

impl<'a> SyscallRegs<'a> {
    /// The registers `regs` of the syscall of `current`, in a syscall
    /// callback (which has `current` already: its context's task).
    ///
    /// # Safety
    ///
    /// `current` is the task running this code.
    pub(super) unsafe fn new(regs: &'a mut bindings::pt_regs, current: &Task) -> Self {
        // SAFETY: By the function's safety requirements.
        let arch = unsafe { SyscallArch::of(super::task::task_ptr(current)) };
        SyscallRegs { regs, arch }
    }
}

impl SyscallRegs<'_> {
    /// The syscall's ABI: [`SyscallArch::I386`] for `int $0x80` and 32-bit
    /// tasks, whose numbers are the i386 table's (20 is `getpid` there,
    /// `writev` on x86-64).
    pub(crate) fn arch(&self) -> SyscallArch {
        self.arch
    }

    /// The syscall number, in the table of [`Self::arch`]: the low 32 bits
    /// of `orig_ax`, sign-extended, which is what the kernel runs for
    /// either ABI (`syscall_get_nr()` is an `int`: `syscall` with rax
    /// 0x1_0000_0027 runs x86-64's 39); -1 when an engine aborted it.
    pub(crate) fn nr(&self) -> i64 {
        i64::from(self.regs.orig_ax as i32)
    }

    /// The register that holds argument `n` (0 to 5) in this ABI.
    fn arg_slot(&mut self, n: usize) -> Option<&mut usize> {
        let r = &mut *self.regs;
        Some(match (self.arch, n) {
            (SyscallArch::X86_64, 0) => &mut r.di,
            (SyscallArch::X86_64, 1) => &mut r.si,
            (SyscallArch::X86_64, 2) => &mut r.dx,
            (SyscallArch::X86_64, 3) => &mut r.r10,
            (SyscallArch::X86_64, 4) => &mut r.r8,
            (SyscallArch::X86_64, 5) => &mut r.r9,
            (SyscallArch::I386, 0) => &mut r.bx,
            (SyscallArch::I386, 1) => &mut r.cx,
            (SyscallArch::I386, 2) => &mut r.dx,
            (SyscallArch::I386, 3) => &mut r.si,
            (SyscallArch::I386, 4) => &mut r.di,
            (SyscallArch::I386, 5) => &mut r.bp,
            _ => return None,
        })
    }

    /// The six arguments, each as [`SyscallRegs::arg`] gives it (one
    /// look at the ABI instead of six: the syscall records' hot path).
    pub(crate) fn args(&self) -> [u64; 6] {
        let r = &*self.regs;
        // `unsigned long` is 64 bits wide on x86-64.
        let v = match self.arch {
            SyscallArch::X86_64 => [r.di, r.si, r.dx, r.r10, r.r8, r.r9],
            SyscallArch::I386 => [r.bx, r.cx, r.dx, r.si, r.di, r.bp].map(|v| v as u32 as usize),
        };
        v.map(|v| v as u64)
    }

    /// Argument `n` (0 to 5), as the syscall sees it: for i386 the low 32
    /// bits of its register, zero-extended (the kernel's ia32 entry
    /// truncates them; a signed argument is `as i32`).
    pub(crate) fn arg(&self, n: usize) -> Option<u64> {
        let r = &*self.regs;
        // `unsigned long` is 64 bits wide on x86-64.
        let value = match (self.arch, n) {
            (SyscallArch::X86_64, 0) => r.di,
            (SyscallArch::X86_64, 1) => r.si,
            (SyscallArch::X86_64, 2) => r.dx,
            (SyscallArch::X86_64, 3) => r.r10,
            (SyscallArch::X86_64, 4) => r.r8,
            (SyscallArch::X86_64, 5) => r.r9,
            (SyscallArch::I386, 0) => r.bx as u32 as usize,
            (SyscallArch::I386, 1) => r.cx as u32 as usize,
            (SyscallArch::I386, 2) => r.dx as u32 as usize,
            (SyscallArch::I386, 3) => r.si as u32 as usize,
            (SyscallArch::I386, 4) => r.di as u32 as usize,
            (SyscallArch::I386, 5) => r.bp as u32 as usize,
            _ => return None,
        };
        Some(value as u64)
    }

    /// Changes argument `n` (0 to 5) before the syscall runs. `EINVAL` for
    /// another `n`. For i386 the register gets the low 32 bits of `value`,
    /// zero-extended (as a 32-bit ptracer's write does).
    pub(crate) fn set_arg(&mut self, n: usize, value: u64) -> Result {
        let value = match self.arch {
            SyscallArch::X86_64 => value as usize,
            SyscallArch::I386 => value as u32 as usize,
        };
        *self.arg_slot(n).ok_or(EINVAL)? = value;
        Ok(())
    }

    /// The return value (at exit; a negative errno on failure): for i386
    /// `eax`, sign-extended (an address above 2 GiB reads negative: take
    /// it `as u32`).
    pub(crate) fn return_value(&self) -> i64 {
        match self.arch {
            SyscallArch::X86_64 => self.regs.ax as i64,
            SyscallArch::I386 => i64::from(self.regs.ax as i32),
        }
    }

    /// Sets the return value: at exit, what the task sees; at entry, what
    /// an aborted syscall returns. For i386 the task sees its low 32 bits
    /// in `eax` (stored sign-extended, as the kernel stores an ia32
    /// syscall's result).
    pub(crate) fn set_return_value(&mut self, value: i64) {
        let value = match self.arch {
            SyscallArch::X86_64 => value,
            SyscallArch::I386 => i64::from(value as i32),
        };
        self.regs.ax = value as usize;
    }
}
