// SPDX-License-Identifier: GPL-2.0

use super::*;
use kernel::error::code::EINVAL;
use kernel::task::Task;

fn raw(task: &Task) -> *mut bindings::task_struct {
    (task as *const Task).cast_mut().cast()
}

/// Its `__state` (0: running).
pub(crate) fn task_state(task: &Task) -> u32 {
    // SAFETY: `task` is valid (a reference); a plain read.
    unsafe { ffi::utrace_shim_task_state(raw(task)) }
}

/// Waits until `task`, seen in `state`, is off its CPU: its
/// context-switch count then (never 0), or 0 if its state changed.
/// May sleep.
pub(crate) fn wait_inactive(task: &Task, state: u32) -> usize {
    // SAFETY: `task` is valid; process context is the caller's.
    unsafe { ffi::utrace_shim_wait_inactive(raw(task), state) }
}

/// Copies up to `buf.len()` bytes of its regset `note_type`; returns
/// how many.
///
/// # Safety
///
/// `task` is `current`, or held stopped and off its CPU. May sleep.
pub(crate) unsafe fn regset_get(task: &Task, note_type: u32, buf: &mut [u8]) -> Result<usize> {
    let size = u32::try_from(buf.len()).map_err(|_| EINVAL)?;
    // SAFETY: `buf` is writable for `size` bytes; the task is examinable
    // (the caller's promise).
    let ret =
        unsafe { ffi::utrace_shim_regset_get(raw(task), note_type, buf.as_mut_ptr().cast(), size) };
    to_result(ret)?;
    Ok(ret as usize)
}

/// Writes `buf` to the start of its regset `note_type`.
///
/// # Safety
///
/// As for [`regset_get`].
pub(crate) unsafe fn regset_set(task: &Task, note_type: u32, buf: &[u8]) -> Result {
    let size = u32::try_from(buf.len()).map_err(|_| EINVAL)?;
    // SAFETY: `buf` is readable for `size` bytes; as above.
    to_result(unsafe {
        ffi::utrace_shim_regset_set(raw(task), note_type, buf.as_ptr().cast(), size)
    })
}

/// Reads (or, `write`, writes) `len` bytes of its memory at `addr`
/// from (into) `buf`: the bytes done, `EFAULT` for none.
///
/// # Safety
///
/// As for [`regset_get`]; `buf` is valid for `len` bytes (writable
/// unless `write`).
pub(crate) unsafe fn access_vm(
    task: &Task,
    addr: usize,
    buf: *mut u8,
    len: usize,
    write: bool,
) -> Result<usize> {
    let len = c_int::try_from(len).map_err(|_| EINVAL)?;
    // SAFETY: By the function's safety requirements.
    let ret = unsafe { ffi::utrace_shim_access_vm(raw(task), addr, buf.cast(), len, write) };
    to_result(ret)?;
    Ok(ret as usize)
}
