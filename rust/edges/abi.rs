// SPDX-License-Identifier: GPL-2.0

//! The C ABI (`include/utrace_rs.h`), exported by `shim/exports.c`. Each
//! function converts between C conventions (ERR_PTR, negative errno) and the
//! Rust operations in `control.rs`.

use crate::compat::ARef;
use crate::compat::ForeignPtr;
use crate::control;
use crate::engine::{Engine, EngineOps};
use crate::examine;
use crate::state::{self, State};
use crate::stream::Stream;
use crate::task;
use core::ffi::c_void;
use kernel::bindings;
use kernel::error::{Error, Result};
use kernel::prelude::*;
use kernel::sync::Arc;
use kernel::task::Task;
use kernel::types::ForeignOwnable;

/// `UTRACE_RS_API_VERSION`.
const API_VERSION: u32 = 3;

fn state() -> Result<&'static State> {
    state::get().ok_or(ENODEV)
}

fn to_errno(ret: Result) -> i32 {
    match ret {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

fn err_ptr(e: Error) -> *mut Engine {
    // ERR_PTR(): the negative errno as a pointer value.
    e.to_errno() as isize as *mut Engine
}

/// # Safety
///
/// `task` is null or a valid task.
unsafe fn task_opt<'a>(task: *mut bindings::task_struct) -> Option<&'a Task> {
    // SAFETY: By the caller's promise.
    (!task.is_null()).then(|| unsafe { task::from_raw(task) })
}

#[no_mangle]
pub(crate) extern "C" fn utrace_api_version() -> u32 {
    API_VERSION
}

/// # Safety
///
/// `task` is null (global) or a valid task; `ops` is null or a valid
/// `struct utrace_engine_ops` of a loaded module.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_attach_task(
    task: *mut bindings::task_struct,
    flags: i32,
    ops: *const EngineOps,
    data: *mut c_void,
) -> *mut Engine {
    let ret = state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let task = unsafe { task_opt(task) };
        control::attach(st, task, flags, ops, data)
    });
    match ret {
        Ok(engine) => ARef::into_raw(engine).as_ptr(),
        Err(e) => err_ptr(e),
    }
}

/// # Safety
///
/// `pid` is a valid `struct pid` the caller holds a reference on; `ops` as
/// for `utrace_attach_task`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_attach_pid(
    pid: *mut bindings::pid,
    flags: i32,
    ops: *const EngineOps,
    data: *mut c_void,
) -> *mut Engine {
    // SAFETY: `pid` is valid; `get_pid_task` returns a referenced task or null.
    let task = unsafe { bindings::get_pid_task(pid, bindings::pid_type_PIDTYPE_PID) };
    if task.is_null() {
        return err_ptr(ESRCH);
    }
    // SAFETY: `task` is valid; `ops` by the caller's promise.
    let engine = unsafe { utrace_attach_task(task, flags, ops, data) };
    // SAFETY: Drops the reference `get_pid_task` took.
    unsafe { bindings::put_task_struct(task) };
    engine
}

/// # Safety
///
/// `target` is null or a valid task; the caller holds a reference on `from`;
/// `ops` as for `utrace_attach_task`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_handoff(
    target: *mut bindings::task_struct,
    from: *mut Engine,
    ops: *const EngineOps,
    data: *mut c_void,
    events: u64,
) -> *mut Engine {
    let ret = state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, from) = unsafe { (task_opt(target), Engine::from_raw(from)) };
        control::handoff(st, task, from, ops, data, events)
    });
    match ret {
        Ok(engine) => ARef::into_raw(engine).as_ptr(),
        Err(e) => err_ptr(e),
    }
}

/// # Safety
///
/// The caller holds a reference on `engine`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_engine_get(engine: *mut Engine) {
    // SAFETY: By the caller's promise: a reference keeps `engine` valid.
    let engine = unsafe { Engine::from_raw(engine) };
    // The new reference goes to the caller.
    core::mem::forget(ARef::from(engine));
}

/// # Safety
///
/// The caller holds a reference on `engine` and gives it up.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_engine_put(engine: *mut Engine) {
    // SAFETY: By the caller's promise: the reference is the caller's, and
    // `engine` is not null.
    let engine = unsafe { ARef::from_raw(core::ptr::NonNull::new_unchecked(engine)) };
    // From inside a callback (of any engine) the release is deferred.
    if state::get().is_some_and(|st| !st.reporting().is_null()) {
        crate::release::put_deferred(engine);
    } else {
        drop(engine);
    }
}

/// # Safety
///
/// `target` is null or a valid task; the caller holds a reference on `engine`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_set_events(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    events: u64,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (task_opt(target), Engine::from_raw(engine)) };
        control::set_events(st, task, engine, events)
    }))
}

/// # Safety
///
/// As for `utrace_set_events`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_control(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    action: u32,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (task_opt(target), Engine::from_raw(engine)) };
        control::control(st, task, engine, action)
    }))
}

/// # Safety
///
/// As for `utrace_set_events`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_barrier(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (task_opt(target), Engine::from_raw(engine)) };
        control::barrier(st, task, engine)
    }))
}

/// # Safety
///
/// As for `utrace_set_events`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_wait_stopped(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    flags: u32,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (task_opt(target), Engine::from_raw(engine)) };
        control::wait_stopped(st, task, engine, flags)
    }))
}

/// # Safety
///
/// `module` is a loaded module (normally the caller's own `THIS_MODULE`).
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_release_engines(
    module: *mut bindings::module,
    flags: i32,
    data: *mut c_void,
) -> i32 {
    if module.is_null() || flags & !crate::events::attach::MATCH_DATA != 0 {
        return EINVAL.to_errno();
    }
    let Ok(st) = state() else {
        return ENODEV.to_errno();
    };
    let data = (flags & crate::events::attach::MATCH_DATA != 0).then_some(data);
    match crate::detach::release_engines(st, module, data) {
        Ok(n) => i32::try_from(n).unwrap_or(i32::MAX),
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// `task` is a valid task and `info` points to a `struct utrace_task_info`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_task_info(
    task: *mut bindings::task_struct,
    info: *mut task::Info,
) {
    // SAFETY: By the caller's promise.
    unsafe { info.write(task::info(task::from_raw(task))) };
}

/// Events the framework could not report for lack of memory since it was
/// loaded (each also announced in the streams as `LOST <n>`).
#[no_mangle]
pub(crate) extern "C" fn utrace_lost_events() -> u64 {
    state::get().map_or(0, |st| st.lost())
}

/// # Safety
///
/// `name` is a NUL-terminated string.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_stream_create(name: *const u8, records: u32) -> *mut c_void {
    // SAFETY: By the caller's promise.
    let name = unsafe { kernel::str::CStr::from_char_ptr(name) };
    match Stream::create(name, records as usize) {
        Ok(stream) => stream.into_foreign().into_mut(),
        Err(e) => e.to_errno() as isize as *mut c_void,
    }
}

/// # Safety
///
/// `stream` came from `utrace_stream_create` and is not destroyed; `text`
/// points to `len` bytes.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_stream_emit(
    stream: *mut c_void,
    text: *const u8,
    len: usize,
) -> i32 {
    // SAFETY: By the caller's promise.
    let (stream, text) = unsafe {
        (
            Arc::<Stream>::borrow(stream),
            core::slice::from_raw_parts(text, len),
        )
    };
    to_errno(stream.emit(text))
}

/// # Safety
///
/// As for `utrace_stream_emit`.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_stream_dropped(stream: *mut c_void) -> u64 {
    // SAFETY: By the caller's promise.
    unsafe { Arc::<Stream>::borrow(stream) }.dropped_total()
}

/// # Safety
///
/// `stream` came from `utrace_stream_create`; it is not used afterwards.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_stream_destroy(stream: *mut c_void) {
    // SAFETY: By the caller's promise: the creator's reference.
    Stream::destroy(unsafe { Arc::<Stream>::from_foreign(stream) });
}

/// The target of an examine call: a valid task, not null.
///
/// # Safety
///
/// `task` is null or a valid task.
unsafe fn examined<'a>(task: *mut bindings::task_struct) -> Result<&'a Task> {
    // SAFETY: By the caller's promise.
    unsafe { task_opt(task) }.ok_or(EINVAL)
}

/// # Safety
///
/// `target` is a valid task, `engine` one the caller holds a reference on,
/// `exam` valid for writes.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_prepare_examine(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    exam: *mut examine::Examiner,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (examined(target)?, Engine::from_raw(engine)) };
        let ret = examine::prepare(st, task, engine)?;
        // SAFETY: `exam` is valid for writes (the caller's promise).
        unsafe { exam.write(ret) };
        Ok(())
    }))
}

/// # Safety
///
/// As for `utrace_prepare_examine`, with `exam` valid for reads.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_finish_examine(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    exam: *const examine::Examiner,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine, exam) = unsafe { (examined(target)?, Engine::from_raw(engine), &*exam) };
        examine::finish(st, task, engine, exam)
    }))
}

/// A C result: the count, or the negative errno.
fn to_count(ret: Result<usize>) -> i32 {
    match ret {
        Ok(n) => i32::try_from(n).unwrap_or(i32::MAX),
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// As for `utrace_prepare_examine`, with `buf` valid for `size` bytes of
/// writes.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_regset_get(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    note_type: u32,
    buf: *mut c_void,
    size: u32,
) -> i32 {
    to_count(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (examined(target)?, Engine::from_raw(engine)) };
        // SAFETY: `buf` is valid for `size` bytes of writes.
        let buf = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), size as usize) };
        examine::Examinable::new(st, task, engine)?.regset_get(note_type, buf)
    }))
}

/// # Safety
///
/// As for `utrace_prepare_examine`, with `buf` valid for `size` bytes of
/// reads.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_regset_set(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    note_type: u32,
    buf: *const c_void,
    size: u32,
) -> i32 {
    to_errno(state().and_then(|st| {
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (examined(target)?, Engine::from_raw(engine)) };
        // SAFETY: `buf` is valid for `size` bytes of reads.
        let buf = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), size as usize) };
        examine::Examinable::new(st, task, engine)?.regset_set(note_type, buf)
    }))
}

/// # Safety
///
/// As for `utrace_prepare_examine`, with `buf` valid for `len` bytes
/// (writable unless `write`).
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_access_vm(
    target: *mut bindings::task_struct,
    engine: *mut Engine,
    addr: usize,
    buf: *mut c_void,
    len: i32,
    write: bool,
) -> i32 {
    to_count(state().and_then(|st| {
        let len = usize::try_from(len).map_err(|_| EINVAL)?;
        // SAFETY: By the caller's promise.
        let (task, engine) = unsafe { (examined(target)?, Engine::from_raw(engine)) };
        let exam = examine::Examinable::new(st, task, engine)?;
        // SAFETY: `buf` is valid for `len` bytes (the caller's promise).
        unsafe { exam.access_vm(addr, buf.cast(), len, write) }
    }))
}
