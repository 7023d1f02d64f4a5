// SPDX-License-Identifier: GPL-2.0

//! The C ABI, as `include/utrace_rs.h` declares it. The layout assertions
//! below, `UTRACE_RS_API_VERSION` (checked by
//! [`Tracer::new`](super::Tracer::new)) and `scripts/check-abi.py` (every
//! `UTRACE_*` number here, run by `make check`) catch a drift.

use super::TaskInfo;
use core::ffi::c_void;
use core::mem::{offset_of, size_of};
use kernel::bindings;

pub(super) const UTRACE_RS_API_VERSION: u32 = 3;

pub(super) const UTRACE_STOP: u32 = 0;
pub(super) const UTRACE_INTERRUPT: u32 = 1;
pub(super) const UTRACE_REPORT: u32 = 2;
pub(super) const UTRACE_SINGLESTEP: u32 = 3;
pub(super) const UTRACE_BLOCKSTEP: u32 = 4;
pub(super) const UTRACE_RESUME: u32 = 5;
pub(super) const UTRACE_DETACH: u32 = 6;
pub(super) const UTRACE_SIGNAL_DELIVER: u32 = 0x00;
pub(super) const UTRACE_SIGNAL_IGN: u32 = 0x10;
pub(super) const UTRACE_SIGNAL_TERM: u32 = 0x20;
pub(super) const UTRACE_SIGNAL_CORE: u32 = 0x30;
pub(super) const UTRACE_SIGNAL_STOP: u32 = 0x40;
pub(super) const UTRACE_SIGNAL_TSTP: u32 = 0x50;
pub(super) const UTRACE_SIGNAL_REPORT: u32 = 0x60;
pub(super) const UTRACE_SIGNAL_HANDLER: u32 = 0x70;
pub(super) const UTRACE_SIGNAL_MASK: u32 = 0xf0;
pub(super) const UTRACE_SIGNAL_HOLD: u32 = 0x100;
pub(super) const UTRACE_SIGNAL_SUSPEND: u32 = 0x200;
pub(super) const UTRACE_SIGNAL_STEP: u32 = 0x400;
pub(super) const UTRACE_SYSCALL_ABORT: u32 = 0x10;
pub(super) const UTRACE_SYSCALL_RESUMED: u32 = 0x100;
pub(super) const UTRACE_ATTACH_MATCH_OPS: i32 = 0x0001;
pub(super) const UTRACE_ATTACH_MATCH_DATA: i32 = 0x0002;
pub(super) const UTRACE_ATTACH_CREATE: i32 = 0x0010;
pub(super) const UTRACE_ATTACH_EXCLUSIVE: i32 = 0x0020;
pub(super) const UTRACE_ATTACH_GLOBAL: i32 = 0x0100;
pub(super) const UTRACE_ATTACH_NOFOLLOW: i32 = 0x0200;
pub(super) const UTRACE_OPS_UNPINNED: u32 = 0x1;
pub(super) const UTRACE_OPS_SYSCALL_SLEEPABLE: u32 = 0x2;
/// ELF note types of the regsets (`include/uapi/linux/elf.h`).
pub(super) const NT_PRSTATUS: u32 = 1;
pub(super) const NT_PRFPREG: u32 = 2;

// 7.x's `struct module` has an empty `lock_class_key` member (rustc warns
// about it in an extern block); only the address is used.
#[allow(improper_ctypes)]
extern "C" {
    /// This module (`THIS_MODULE`): every engine crate compiles this file.
    static __this_module: kernel::types::Opaque<bindings::module>;
}

/// `THIS_MODULE` of the engine crate, usable in constant tables.
// SAFETY: Only the address of the module's own `struct module` is taken.
pub(super) const THIS_MODULE: *mut bindings::module = unsafe { __this_module.get() };

/// `THIS_MODULE` of the engine crate.
pub(super) fn this_module() -> *mut bindings::module {
    THIS_MODULE
}

#[repr(C)]
pub(super) struct utrace_engine {
    pub(super) ops: *const Ops,
    pub(super) data: *mut c_void,
}

pub(super) type Regs = *mut bindings::pt_regs;

/// `struct utrace_examiner`.
#[repr(C)]
#[derive(Default)]
pub(super) struct utrace_examiner {
    pub(super) state: isize,
    pub(super) ncsw: usize,
}
pub(super) type TaskPtr = *mut bindings::task_struct;

#[repr(C)]
pub(super) struct Ops {
    pub(super) owner: *mut bindings::module,
    pub(super) report_clone:
        Option<unsafe extern "C" fn(u32, *mut utrace_engine, TaskPtr, u64, TaskPtr) -> u32>,
    pub(super) report_exec:
        Option<unsafe extern "C" fn(u32, *mut utrace_engine, *const u8, i32, Regs) -> u32>,
    pub(super) report_exit:
        Option<unsafe extern "C" fn(u32, *mut utrace_engine, i64, *mut i64) -> u32>,
    pub(super) report_death: Option<unsafe extern "C" fn(*mut utrace_engine, bool, i32) -> u32>,
    pub(super) report_reap: Option<unsafe extern "C" fn(*mut utrace_engine, TaskPtr)>,
    pub(super) release: Option<unsafe extern "C" fn(*mut c_void)>,
    pub(super) report_signal: Option<
        unsafe extern "C" fn(
            u32,
            *mut utrace_engine,
            Regs,
            *mut bindings::kernel_siginfo,
            *const bindings::k_sigaction,
            *mut bindings::k_sigaction,
        ) -> u32,
    >,
    pub(super) report_quiesce: Option<unsafe extern "C" fn(u32, *mut utrace_engine, u64) -> u32>,
    pub(super) report_syscall_entry:
        Option<unsafe extern "C" fn(u32, *mut utrace_engine, Regs) -> u32>,
    pub(super) report_syscall_exit:
        Option<unsafe extern "C" fn(u32, *mut utrace_engine, Regs) -> u32>,
    pub(super) report_jctl: Option<unsafe extern "C" fn(u32, *mut utrace_engine, i32, i32) -> u32>,
    pub(super) flags: u32,
}

// The layout of `include/utrace_rs.h` on 64-bit: eleven pointers, then
// `unsigned int flags` (padded to 8).
const _: () = {
    assert!(offset_of!(Ops, report_clone) == 8);
    assert!(offset_of!(Ops, release) == 48);
    assert!(offset_of!(Ops, report_syscall_exit) == 80);
    assert!(offset_of!(Ops, report_jctl) == 88);
    assert!(offset_of!(Ops, flags) == 96);
    assert!(size_of::<Ops>() == 104);
    assert!(offset_of!(utrace_engine, data) == 8);
    assert!(offset_of!(TaskInfo, exit_code) == 12);
    assert!(size_of::<utrace_examiner>() == 16);
    assert!(size_of::<TaskInfo>() == 32);
};

// `task_struct` embeds structs that are empty in some configurations;
// only pointers cross here.
#[allow(improper_ctypes)]
extern "C" {
    pub(super) fn utrace_api_version() -> u32;
    pub(super) fn utrace_task_info(task: TaskPtr, info: *mut TaskInfo);
    pub(super) fn utrace_stream_create(name: *const u8, records: u32) -> *mut c_void;
    pub(super) fn utrace_stream_emit(stream: *mut c_void, text: *const u8, len: usize) -> i32;
    pub(super) fn utrace_stream_dropped(stream: *mut c_void) -> u64;
    pub(super) fn utrace_lost_events() -> u64;
    pub(super) fn utrace_stream_destroy(stream: *mut c_void);
    pub(super) fn utrace_attach_task(
        task: TaskPtr,
        flags: i32,
        ops: *const Ops,
        data: *mut c_void,
    ) -> *mut utrace_engine;
    pub(super) fn utrace_engine_get(engine: *mut utrace_engine);
    pub(super) fn utrace_engine_put(engine: *mut utrace_engine);
    pub(super) fn utrace_handoff(
        target: TaskPtr,
        from: *mut utrace_engine,
        ops: *const Ops,
        data: *mut c_void,
        events: u64,
    ) -> *mut utrace_engine;
    pub(super) fn utrace_set_events(
        target: TaskPtr,
        engine: *mut utrace_engine,
        events: u64,
    ) -> i32;
    pub(super) fn utrace_control(target: TaskPtr, engine: *mut utrace_engine, action: u32) -> i32;
    pub(super) fn utrace_barrier(target: TaskPtr, engine: *mut utrace_engine) -> i32;
    pub(super) fn utrace_wait_stopped(
        target: TaskPtr,
        engine: *mut utrace_engine,
        flags: u32,
    ) -> i32;
    pub(super) fn utrace_release_engines(
        module: *mut bindings::module,
        flags: i32,
        data: *mut c_void,
    ) -> i32;
    pub(super) fn utrace_prepare_examine(
        target: TaskPtr,
        engine: *mut utrace_engine,
        exam: *mut utrace_examiner,
    ) -> i32;
    pub(super) fn utrace_finish_examine(
        target: TaskPtr,
        engine: *mut utrace_engine,
        exam: *const utrace_examiner,
    ) -> i32;
    pub(super) fn utrace_regset_get(
        target: TaskPtr,
        engine: *mut utrace_engine,
        note_type: u32,
        buf: *mut c_void,
        size: u32,
    ) -> i32;
    pub(super) fn utrace_regset_set(
        target: TaskPtr,
        engine: *mut utrace_engine,
        note_type: u32,
        buf: *const c_void,
        size: u32,
    ) -> i32;
    pub(super) fn utrace_access_vm(
        target: TaskPtr,
        engine: *mut utrace_engine,
        addr: usize,
        buf: *mut c_void,
        len: i32,
        write: bool,
    ) -> i32;
}

/// `struct utrace_task_ids`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct TaskIds {
    pub(super) uid: u32,
    pub(super) euid: u32,
    pub(super) ns_pid: i32,
    pub(super) ns_tgid: i32,
    pub(super) flags: u32,
    pub(super) held: u64,
}

pub(super) const UTRACE_TASK_KERNEL: u32 = 0x1;
pub(super) const UTRACE_TASK_PTRACED: u32 = 0x2;
pub(super) const UTRACE_TASK_STOPPED: u32 = 0x4;
pub(super) const UTRACE_TASK_TRACED: u32 = 0x8;
pub(super) const UTRACE_TASK_EXITING: u32 = 0x10;

const _: () = assert!(size_of::<TaskIds>() == 32);

/// `size_t (*show)(void *data, char *buf, size_t len)`.
pub(super) type ShowFn = unsafe extern "C" fn(*mut c_void, *mut u8, usize) -> usize;
/// `int (*store)(void *data, const char *text)`.
pub(super) type StoreFn = unsafe extern "C" fn(*mut c_void, *const u8) -> i32;

// Task ids, control files and timers (`include/utrace_rs.h`).
#[allow(improper_ctypes)]
extern "C" {
    pub(super) fn utrace_task_ids(task: TaskPtr, ids: *mut TaskIds);
    pub(super) fn utrace_task_descends_from(task: TaskPtr, tgid: i32) -> bool;
    pub(super) fn utrace_cgroup_get(path: *const u8) -> *mut c_void;
    pub(super) fn utrace_cgroup_put(cgrp: *mut c_void);
    pub(super) fn utrace_task_in_cgroup(task: TaskPtr, cgrp: *mut c_void) -> bool;
    pub(super) fn utrace_file_create(
        name: *const u8,
        data: *mut c_void,
        show: Option<ShowFn>,
        store: Option<StoreFn>,
    ) -> *mut c_void;
    pub(super) fn utrace_file_destroy(file: *mut c_void);
    pub(super) fn utrace_timer_create(
        f: unsafe extern "C" fn(*mut c_void),
        data: *mut c_void,
    ) -> *mut c_void;
    pub(super) fn utrace_timer_arm(timer: *mut c_void, msecs: u32);
    pub(super) fn utrace_timer_destroy(timer: *mut c_void);
}
