// SPDX-License-Identifier: GPL-2.0

//! The [`Tracer`]: owner of an engine value and of every engine attached
//! with it, and the trampolines through which `utrace_rs.ko` calls it.
//!
//! Every attached engine's `data` is a reference on the tracer's [`Shared`]
//! value; `release` gives it back. The `Tracer` keeps no per-engine state:
//! the framework detaches engines whose task is reaped (or that return
//! [`Action::Detach`]) and releases them, so memory follows the number of
//! live traced tasks. To find its engines again (to detach them all), the
//! tracer names its module and its `data` to `utrace_release_engines()`.

use super::compat::{ARef, ForeignPtr};
use super::raw;
use super::task::task_ptr;
use super::{
    task_by_pid, CloneFlags, Context, Control, Engine, Events, Examined, JctlReport, SignalClass,
    SignalReport, SleepingSyscall, SyscallContext, SyscallEngine, SyscallRegs,
};
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use kernel::bindings;
use kernel::error::{from_err_ptr, to_result, Error};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::{Arc, ArcBorrow};
use kernel::task::Task;
use kernel::types::ForeignOwnable;

/// `UTRACE_WAIT_KILLABLE` of `include/utrace_rs.h`.
const WAIT_KILLABLE: u32 = 0x1;

/// Owner of an engine value and of every engine attached with it.
pub(crate) struct Tracer<E: Engine> {
    shared: Arc<Shared<E>>,
    /// The `data` pointer every engine of this tracer carries.
    key: *mut c_void,
}

// SAFETY: `key` is only compared by the framework, never dereferenced
// through the `Tracer`; the rest is `Send + Sync` since `E` is.
unsafe impl<E: Engine> Send for Tracer<E> {}
// SAFETY: See `Send`.
unsafe impl<E: Engine> Sync for Tracer<E> {}

/// What the tracer's engines share (their `data`).
pub(crate) struct Shared<E: Engine> {
    engine: E,
    /// The ops tables for per-task and global engines: with or without the
    /// syscall callbacks.
    ops: OpsPair,
    /// Set when the tracer is dropped: no more attaches.
    closed: AtomicBool,
    /// Engines attached and not yet released.
    live: AtomicUsize,
}

#[derive(Clone, Copy)]
struct OpsPair {
    task: &'static raw::Ops,
    global: &'static raw::Ops,
}

impl OpsPair {
    fn get(self, global: bool) -> &'static raw::Ops {
        if global {
            self.global
        } else {
            self.task
        }
    }

    fn has_syscalls(self) -> bool {
        self.task.report_syscall_entry.is_some()
    }
}

impl<E: Engine> Tracer<E> {
    /// A tracer for `engine`. `EINVAL` if the loaded `utrace_rs.ko` speaks
    /// another API version than this file.
    pub(crate) fn new(engine: E) -> Result<Self> {
        Self::with_ops(
            engine,
            OpsPair {
                task: &Ops::<E, false>::OPS.0,
                global: &Ops::<E, true>::OPS.0,
            },
        )
    }

    fn with_ops(engine: E, ops: OpsPair) -> Result<Self> {
        // SAFETY: No arguments; callable in any context.
        let version = unsafe { raw::utrace_api_version() };
        if version != raw::UTRACE_RS_API_VERSION {
            pr_err!(
                "utrace_rs.ko speaks API version {}, this engine was built for {}\n",
                version,
                raw::UTRACE_RS_API_VERSION
            );
            return Err(EINVAL);
        }
        let shared = Arc::new(
            Shared {
                engine,
                ops,
                closed: AtomicBool::new(false),
                live: AtomicUsize::new(0),
            },
            GFP_KERNEL,
        )?;
        // The pointer `into_foreign` hands out for this `Arc`, which every
        // engine's `data` will be.
        let foreign = shared.clone().into_foreign();
        let key = foreign.into_mut();
        // SAFETY: Just made by `into_foreign`; takes that reference back.
        drop(unsafe { Arc::<Shared<E>>::from_foreign(foreign) });
        Ok(Tracer { shared, key })
    }

    pub(crate) fn engine(&self) -> &E {
        &self.shared.engine
    }

    /// The `data` pointer every engine of this tracer carries (what
    /// `utrace_release_engines()` matches on; on 6.12 also the start of
    /// the shared value's allocation).
    pub(crate) fn data_ptr(&self) -> *const c_void {
        self.key
    }

    /// Attaches a new engine to `task` with `events`.
    pub(crate) fn attach(&self, task: &Task, events: Events) -> Result<EngineRef<E>> {
        Shared::attach(&self.shared.as_arc_borrow(), Some(task), events)
    }

    /// Attaches a new engine to the task with thread id `pid` (init
    /// namespace). `ESRCH` if there is none.
    pub(crate) fn attach_pid(&self, pid: i32, events: Events) -> Result<EngineRef<E>> {
        let task = task_by_pid(pid).ok_or(ESRCH)?;
        self.attach(&task, events)
    }

    /// Attaches a new engine to `task` unless this tracer already has one
    /// there (`EEXIST`: `UTRACE_ATTACH_EXCLUSIVE`).
    pub(crate) fn attach_exclusive(&self, task: &Task, events: Events) -> Result<EngineRef<E>> {
        Shared::attach_flags(
            &self.shared.as_arc_borrow(),
            Some(task),
            events,
            raw::UTRACE_ATTACH_EXCLUSIVE
                | raw::UTRACE_ATTACH_MATCH_OPS
                | raw::UTRACE_ATTACH_MATCH_DATA,
        )
    }

    /// Attaches a global engine (CLONE, EXEC, EXIT, DEATH of every user task).
    pub(crate) fn attach_global(&self, events: Events) -> Result<EngineRef<E>> {
        Shared::attach(&self.shared.as_arc_borrow(), None, events)
    }

    /// [`Tracer::attach_global`] for an engine whose CLONE callback never
    /// attaches to the child (`UTRACE_ATTACH_NOFOLLOW`): new children are
    /// not held for it, which makes every fork cheaper. `Context::attach`
    /// on a child from its CLONE callback may then find it already running.
    pub(crate) fn attach_global_nofollow(&self, events: Events) -> Result<EngineRef<E>> {
        Shared::attach_flags(
            &self.shared.as_arc_borrow(),
            None,
            events,
            raw::UTRACE_ATTACH_NOFOLLOW,
        )
    }

    /// This tracer's engine on `task` (the first, if several): `ENOENT` if
    /// it has none.
    pub(crate) fn lookup(&self, task: &Task) -> Result<EngineRef<E>> {
        let task_raw = task_ptr(task);
        // SAFETY: Looks up only (no CREATE); `ops` and `key` are compared.
        let engine = unsafe {
            raw::utrace_attach_task(
                task_raw,
                raw::UTRACE_ATTACH_MATCH_OPS | raw::UTRACE_ATTACH_MATCH_DATA,
                self.shared.ops.task,
                self.key,
            )
        };
        // SAFETY: A new reference (or an error pointer, which it refuses).
        unsafe { EngineRef::from_raw(engine, Some(task)) }
    }

    /// How many of its engines exist (attached, or detached and not yet
    /// released).
    pub(crate) fn attached(&self) -> usize {
        self.shared.live.load(SeqCst)
    }

    /// Detaches every engine of this tracer, waits for their callbacks in
    /// flight and runs their releases. Returns how many were attached. May
    /// sleep; not from a callback.
    pub(crate) fn detach_all(&self) -> usize {
        // SAFETY: Our own module, live (its code is running); `key` is
        // only compared.
        let n = unsafe {
            raw::utrace_release_engines(raw::this_module(), raw::UTRACE_ATTACH_MATCH_DATA, self.key)
        };
        usize::try_from(n).unwrap_or(0)
    }
}

impl<E: SyscallEngine> Tracer<E> {
    /// A tracer whose engines may also ask for SYSCALL_ENTRY and
    /// SYSCALL_EXIT ([`SyscallEngine`]).
    pub(crate) fn with_syscalls(engine: E) -> Result<Self> {
        Self::with_ops(
            engine,
            OpsPair {
                task: &SysOps::<E, false>::OPS.0,
                global: &SysOps::<E, true>::OPS.0,
            },
        )
    }

    /// As [`Tracer::with_syscalls`], but syscall entry is reported to
    /// [`SyscallEngine::syscall_entry_sleepable`], where the callback may
    /// sleep and read user memory (`UTRACE_OPS_SYSCALL_SLEEPABLE`).
    pub(crate) fn with_sleepable_syscalls(engine: E) -> Result<Self> {
        Self::with_ops(
            engine,
            OpsPair {
                task: &SleepOps::<E>::OPS.0,
                // Global engines have no syscall events.
                global: &SysOps::<E, true>::OPS.0,
            },
        )
    }
}

impl<E: Engine> Drop for Tracer<E> {
    fn drop(&mut self) {
        self.shared.closed.store(true, SeqCst);
        self.detach_all();
    }
}

/// A counted reference on one engine of a tracer, for acting on it from
/// outside its callbacks. Dropping it drops the reference (the engine stays
/// attached); keeping it keeps nothing else alive: the tracer still
/// releases the engine when it is dropped.
pub(crate) struct EngineRef<E: Engine> {
    engine: NonNull<raw::utrace_engine>,
    /// Its task (`None`: global), referenced.
    task: Option<ARef<Task>>,
    _engine: PhantomData<E>,
}

// SAFETY: A counted engine reference and a task reference, both usable
// from any thread.
unsafe impl<E: Engine> Send for EngineRef<E> {}
// SAFETY: See `Send`; every method goes through the framework's API.
unsafe impl<E: Engine> Sync for EngineRef<E> {}

impl<E: Engine> EngineRef<E> {
    /// Takes over the reference `engine` carries.
    ///
    /// # Safety
    ///
    /// `engine` is an error pointer or a new reference on an engine of
    /// this tracer type, attached to `task` (`None`: global).
    unsafe fn from_raw(engine: *mut raw::utrace_engine, task: Option<&Task>) -> Result<Self> {
        let engine = NonNull::new(from_err_ptr(engine)?).ok_or(EINVAL)?;
        Ok(EngineRef {
            engine,
            task: task.map(ARef::from),
            _engine: PhantomData,
        })
    }

    fn target(&self) -> raw::TaskPtr {
        self.task.as_deref().map_or(ptr::null_mut(), task_ptr)
    }

    /// The task it is attached to (`None`: global).
    pub(crate) fn task(&self) -> Option<&Task> {
        self.task.as_deref()
    }

    /// Changes its events (`utrace_set_events()`).
    pub(crate) fn set_events(&self, events: Events) -> Result {
        // SAFETY: We hold a reference on the engine and the task.
        to_result(unsafe {
            raw::utrace_set_events(self.target(), self.engine.as_ptr(), events.bits())
        })
    }

    /// `utrace_control()`: `EINPROGRESS` for a STOP the task has not reached
    /// yet or a DETACH while a callback may be running.
    pub(crate) fn control(&self, action: Control) -> Result {
        // SAFETY: As in `set_events`.
        to_result(unsafe { raw::utrace_control(self.target(), self.engine.as_ptr(), action.raw()) })
    }

    /// Examines the task this engine holds stopped (after a
    /// [`Control::Stop`] that reached its stop, or a
    /// [`SyscallEntry::Stop`](super::SyscallEntry::Stop)): `f` reads and
    /// changes its registers and memory through the [`Examined`] witness.
    /// `EAGAIN` if the task has not reached its stop yet, or ran while `f`
    /// ran (retry); `EINVAL` for a global engine or one that does not hold
    /// its task stopped; `ESRCH` if it is gone. May sleep.
    pub(crate) fn examine<R>(&self, f: impl FnOnce(&Examined<'_>) -> R) -> Result<R> {
        let task = self.task.as_deref().ok_or(EINVAL)?;
        // SAFETY: We hold references on the engine and its task.
        unsafe { super::examine::examine(task_ptr(task), self.engine.as_ptr(), f) }
    }

    /// Waits until no callback to it is in flight (`utrace_barrier()`);
    /// `ERESTARTSYS` if a signal came first. May sleep.
    pub(crate) fn barrier(&self) -> Result {
        // SAFETY: As in `set_events`.
        to_result(unsafe { raw::utrace_barrier(self.target(), self.engine.as_ptr()) })
    }

    /// Waits until its task sleeps in its utrace stop with this engine's
    /// stop in force (`utrace_wait_stopped()`): a debugger's
    /// [`Control::Stop`], `wait_stopped`, [`Control::Resume`]. `Ok`: the task
    /// is in its stop, no callback to this engine is in flight and the stop
    /// holds until this engine resumes it (no [`EngineRef::barrier`]
    /// needed before the resume); [`EngineRef::examine`] works. Waits on
    /// while the engine does not hold the task stopped (a callback of it
    /// that returns anything but a stop drops it). `ESRCH` if the engine is
    /// (or gets) detached or the task exits; `ERESTARTSYS` if a signal comes
    /// first (with `killable`, a fatal one only); `EINVAL` for a global
    /// engine; `EDEADLK` from its own task or callbacks. May sleep.
    pub(crate) fn wait_stopped(&self, killable: bool) -> Result {
        let flags = if killable { WAIT_KILLABLE } else { 0 };
        // SAFETY: As in `set_events`.
        to_result(unsafe { raw::utrace_wait_stopped(self.target(), self.engine.as_ptr(), flags) })
    }

    /// Replaces this engine by a new one of `to` with `events` (empty: the
    /// same events), atomically for every event of the task
    /// (`utrace_handoff()`). This engine is detached; a callback to it may
    /// still be running (wait with [`EngineRef::barrier`]).
    pub(crate) fn handoff<F: Engine>(
        &self,
        to: &Tracer<F>,
        events: Events,
    ) -> Result<EngineRef<F>> {
        let ops = to.shared.ops.get(self.task.is_none());
        Shared::new_engine(&to.shared.as_arc_borrow(), self.task.as_deref(), |data| {
            // SAFETY: We hold a reference on the engine and the task; `ops`
            // is a static table of this module and `data` a reference that
            // `release` takes back.
            unsafe {
                raw::utrace_handoff(
                    self.target(),
                    self.engine.as_ptr(),
                    ops,
                    data,
                    events.bits(),
                )
            }
        })
    }
}

impl<E: Engine> PartialEq for EngineRef<E> {
    /// The same engine.
    fn eq(&self, other: &Self) -> bool {
        self.engine == other.engine
    }
}

impl<E: Engine> Clone for EngineRef<E> {
    /// Another counted reference on the same engine (and its task): no
    /// lookup, unlike [`Tracer::lookup`], and one on a detached engine too.
    fn clone(&self) -> Self {
        // SAFETY: We hold a reference, so the engine is valid; the new one
        // is the clone's, given up by its `drop`.
        unsafe { raw::utrace_engine_get(self.engine.as_ptr()) };
        EngineRef {
            engine: self.engine,
            task: self.task.clone(),
            _engine: PhantomData,
        }
    }
}

impl<E: Engine> Drop for EngineRef<E> {
    fn drop(&mut self) {
        // SAFETY: Our reference, given up. If it is the last one and this
        // context may not sleep, the framework releases the engine from its
        // worker.
        unsafe { raw::utrace_engine_put(self.engine.as_ptr()) };
    }
}

/// `ESHUTDOWN` (the 6.12 kernel crate does not name it).
fn eshutdown() -> Error {
    Error::from_errno(-(bindings::ESHUTDOWN as i32))
}

/// What an attach error means, for the log line that says why.
pub(crate) fn attach_error(e: Error) -> &'static str {
    if e == ESRCH {
        "no such process (or it is exiting)"
    } else if e == EPERM {
        "it is a kernel thread or an io_uring/vhost worker"
    } else if e == ENOMEM {
        "out of memory"
    } else if e == eshutdown() {
        "the tracer is being dropped"
    } else if e == EBADF {
        "not an open pidfd"
    } else {
        "cannot attach"
    }
}

impl<E: Engine> Shared<E> {
    /// Attaches an engine whose `data` is a new reference on `this`.
    pub(super) fn attach(
        this: &ArcBorrow<'_, Self>,
        task: Option<&Task>,
        events: Events,
    ) -> Result<EngineRef<E>> {
        Self::attach_flags(this, task, events, 0)
    }

    /// Makes an engine of this tracer with `make`, which gets the new
    /// engine's `data` (a reference on `this`) and returns what
    /// `utrace_attach_task()` or `utrace_handoff()` returned. The engine
    /// is counted in `live` before it exists (a concurrent `detach_all`
    /// may release it as soon as it is attached); on failure the count and
    /// the reference are taken back.
    fn new_engine(
        this: &ArcBorrow<'_, Self>,
        task: Option<&Task>,
        make: impl FnOnce(*mut c_void) -> *mut raw::utrace_engine,
    ) -> Result<EngineRef<E>> {
        if this.closed.load(SeqCst) {
            return Err(eshutdown());
        }
        let data = Arc::<Self>::from(*this).into_foreign();
        this.live.fetch_add(1, SeqCst);
        // SAFETY: A new reference or an error pointer.
        let engine = unsafe { EngineRef::<E>::from_raw(make(data.into_mut()), task) };
        if engine.is_err() {
            this.live.fetch_sub(1, SeqCst);
            // SAFETY: Not attached: the reference is still ours.
            drop(unsafe { Arc::<Self>::from_foreign(data) });
        }
        // INVARIANT: Otherwise `release` will run once for this engine and
        // take back the count added above.
        engine
    }

    fn attach_flags(
        this: &ArcBorrow<'_, Self>,
        task: Option<&Task>,
        events: Events,
        flags: i32,
    ) -> Result<EngineRef<E>> {
        if this.closed.load(SeqCst) {
            return Err(eshutdown());
        }
        if events.intersects(Events::SYSCALL) && !this.ops.has_syscalls() {
            // Only a `Tracer::with_syscalls` has the syscall callbacks.
            return Err(EINVAL);
        }
        let flags = if task.is_some() {
            flags | raw::UTRACE_ATTACH_CREATE
        } else {
            flags | raw::UTRACE_ATTACH_CREATE | raw::UTRACE_ATTACH_GLOBAL
        };
        let task_raw = task.map_or(ptr::null_mut(), task_ptr);
        let ops = this.ops.get(task.is_none());
        let engine = Self::new_engine(this, task, |data| {
            // SAFETY: `ops` is a static table of this module; `data` is an
            // `Arc` reference that `release` takes back.
            unsafe { raw::utrace_attach_task(task_raw, flags, ops, data) }
        })?;
        let mut ret = engine.set_events(events);
        if ret == Err(super::device::errno(bindings::EALREADY)) {
            // The task passed its exit hook since it was linked (EXIT or
            // DEATH can no longer come): as if before, when the attach
            // itself says ESRCH.
            ret = Err(ESRCH);
        }
        if ret.is_ok() && this.closed.load(SeqCst) {
            // Dropped meanwhile: its detach may have missed this engine.
            ret = Err(eshutdown());
        }
        if let Err(e) = ret {
            let _ = engine.control(Control::Detach);
            return Err(e);
        }
        Ok(engine)
    }
}

/// The ops table of engine type `E`, one per type and kind (global or not):
/// the callbacks learn which kind they serve from the table they come from.
struct Ops<E: Engine, const GLOBAL: bool>(PhantomData<E>);

/// The same with the syscall callbacks of a [`SyscallEngine`].
struct SysOps<E: SyscallEngine, const GLOBAL: bool>(PhantomData<E>);

/// `Sync` wrapper: the table is immutable and its pointers are functions
/// and this module.
struct OpsTable(raw::Ops);
// SAFETY: Read-only after initialisation.
unsafe impl Sync for OpsTable {}

impl<E: Engine, const GLOBAL: bool> Ops<E, GLOBAL> {
    const OPS: OpsTable = OpsTable(raw::Ops {
        // Not pinned: the `Tracer` (or, if it is leaked, the framework at
        // unload) detaches and releases the engines.
        owner: raw::THIS_MODULE,
        report_clone: Some(clone_cb::<E, GLOBAL>),
        report_exec: Some(exec_cb::<E, GLOBAL>),
        report_exit: Some(exit_cb::<E, GLOBAL>),
        report_death: Some(death_cb::<E, GLOBAL>),
        report_reap: Some(reap_cb::<E>),
        release: Some(release_cb::<E>),
        report_signal: Some(signal_cb::<E, GLOBAL>),
        report_quiesce: Some(quiesce_cb::<E, GLOBAL>),
        report_syscall_entry: None,
        report_syscall_exit: None,
        report_jctl: Some(jctl_cb::<E, GLOBAL>),
        flags: raw::UTRACE_OPS_UNPINNED,
    });
}

impl<E: SyscallEngine, const GLOBAL: bool> SysOps<E, GLOBAL> {
    const OPS: OpsTable = OpsTable(raw::Ops {
        report_syscall_entry: Some(syscall_entry_cb::<E>),
        report_syscall_exit: Some(syscall_exit_cb::<E>),
        ..Ops::<E, GLOBAL>::OPS.0
    });
}

/// The per-task table of a sleepable-syscall tracer.
struct SleepOps<E: SyscallEngine>(PhantomData<E>);

impl<E: SyscallEngine> SleepOps<E> {
    const OPS: OpsTable = OpsTable(raw::Ops {
        report_syscall_entry: Some(syscall_entry_sleepable_cb::<E>),
        flags: raw::UTRACE_OPS_UNPINNED | raw::UTRACE_OPS_SYSCALL_SLEEPABLE,
        ..SysOps::<E, false>::OPS.0
    });
}

/// The tracer's shared value behind a raw engine pointer.
///
/// # Safety
///
/// `engine` is an engine attached by [`Shared::attach`], pinned for a
/// callback (so its `data`, an `Arc<Shared<E>>` reference, is alive).
unsafe fn shared<'a, E: Engine>(engine: *mut raw::utrace_engine) -> ArcBorrow<'a, Shared<E>> {
    // SAFETY: By the function's safety requirements.
    unsafe { <Arc<Shared<E>> as ForeignOwnable>::borrow((*engine).data) }
}

/// The context of a callback for the event of `task`.
///
/// # Safety
///
/// As for [`shared`]; `task` is a task alive during the callback.
unsafe fn context<'a, E: Engine, const GLOBAL: bool>(
    engine: *mut raw::utrace_engine,
    task: *mut bindings::task_struct,
) -> Context<'a, E> {
    Context {
        // SAFETY: By the function's safety requirements.
        shared: unsafe { shared::<E>(engine) },
        global: GLOBAL,
        // SAFETY: As above.
        task: unsafe { &*task.cast::<Task>() },
        // SAFETY: The framework passes a valid engine.
        engine: unsafe { NonNull::new_unchecked(engine) },
    }
}

fn current() -> *mut bindings::task_struct {
    // SAFETY: Always valid in process context.
    unsafe { bindings::get_current() }
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn clone_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    parent: *mut bindings::task_struct,
    flags: u64,
    child: *mut bindings::task_struct,
) -> u32 {
    // SAFETY: Called by utrace_rs.ko for an engine we attached; `parent`
    // and `child` are live tasks.
    let (cx, child) = unsafe { (context::<E, GLOBAL>(engine, parent), &*child.cast::<Task>()) };
    cx.shared
        .engine
        .cloned(&cx, child, CloneFlags::from_bits(flags))
        .raw()
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn exec_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    filename: *const u8,
    old_pid: i32,
    _regs: *mut bindings::pt_regs,
) -> u32 {
    // SAFETY: As for `clone_cb`; the task is `current`.
    let cx = unsafe { context::<E, GLOBAL>(engine, current()) };
    // SAFETY: Null or a NUL-terminated string alive during the callback.
    let filename = (!filename.is_null()).then(|| unsafe { CStr::from_char_ptr(filename) });
    cx.shared.engine.exec(&cx, filename, old_pid).raw()
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn exit_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    orig_code: i64,
    code: *mut i64,
) -> u32 {
    // SAFETY: As for `clone_cb`; `code` is valid during the callback.
    let (cx, code) = unsafe { (context::<E, GLOBAL>(engine, current()), &mut *code) };
    cx.shared.engine.exit(&cx, orig_code, code).raw()
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn death_cb<E: Engine, const GLOBAL: bool>(
    engine: *mut raw::utrace_engine,
    group_dead: bool,
    signal: i32,
) -> u32 {
    // SAFETY: As for `clone_cb`.
    let cx = unsafe { context::<E, GLOBAL>(engine, current()) };
    cx.shared
        .engine
        .death(&cx, group_dead, (signal > 0).then_some(signal))
        .raw()
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn reap_cb<E: Engine>(
    engine: *mut raw::utrace_engine,
    task: *mut bindings::task_struct,
) {
    // SAFETY: As for `clone_cb`; `task` is valid during the callback.
    let (shared, task) = unsafe { (shared::<E>(engine), &*task.cast::<Task>()) };
    shared.engine.reap(task);
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn signal_cb<E: Engine, const GLOBAL: bool>(
    action: u32,
    engine: *mut raw::utrace_engine,
    _regs: *mut bindings::pt_regs,
    info: *mut bindings::kernel_siginfo,
    _orig_ka: *const bindings::k_sigaction,
    return_ka: *mut bindings::k_sigaction,
) -> u32 {
    // SAFETY: As for `clone_cb`; `info` is valid and ours during the
    // callback, `return_ka` null or the same.
    let (cx, info) = unsafe { (context::<E, GLOBAL>(engine, current()), &mut *info) };
    let mut report = SignalReport {
        action,
        info,
        return_ka,
    };
    if report.class() == SignalClass::Report {
        let (act, sig) = cx.shared.engine.interrupt(&cx, &mut report);
        // Only the signal action counts (no HOLD or SUSPEND: no signal).
        return (sig.raw(action) & raw::UTRACE_SIGNAL_MASK) | act.raw();
    }
    cx.shared.engine.signal(&cx, &mut report).raw(action)
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn jctl_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    type_: i32,
    notify: i32,
) -> u32 {
    // SAFETY: As for `clone_cb`.
    let cx = unsafe { context::<E, GLOBAL>(engine, current()) };
    cx.shared
        .engine
        .jctl(&cx, JctlReport::from_raw(type_, notify))
        .raw()
}

/// # Safety
///
/// As for [`clone_cb`].
unsafe extern "C" fn quiesce_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    event: u64,
) -> u32 {
    // SAFETY: As for `clone_cb`.
    let cx = unsafe { context::<E, GLOBAL>(engine, current()) };
    cx.shared
        .engine
        .quiesce(&cx, Events::from_bits(event))
        .raw()
}

/// Calls `call` with the engine value, the atomic context and the
/// registers of a syscall callback.
///
/// # Safety
///
/// As for [`clone_cb`]; in the syscall tracepoint, with the registers of
/// `current`'s syscall.
unsafe fn syscall_cb<E: SyscallEngine>(
    engine: *mut raw::utrace_engine,
    regs: *mut bindings::pt_regs,
    resumed: bool,
    call: impl FnOnce(&E, &SyscallContext<'_>, &mut SyscallRegs<'_>) -> u32,
) -> u32 {
    // SAFETY: As for `clone_cb`; `regs` is valid and ours for the callback.
    let (shared, regs) = unsafe { (shared::<E>(engine), &mut *regs) };
    let cx = SyscallContext {
        // SAFETY: `current` is alive.
        task: unsafe { &*current().cast::<Task>() },
        resumed,
        _not_send: PhantomData,
    };
    // SAFETY: `cx.task` is `current`.
    let mut regs = unsafe { SyscallRegs::new(regs, cx.task) };
    call(&shared.engine, &cx, &mut regs)
}

/// # Safety
///
/// As for [`syscall_cb`].
unsafe extern "C" fn syscall_entry_cb<E: SyscallEngine>(
    action: u32,
    engine: *mut raw::utrace_engine,
    regs: *mut bindings::pt_regs,
) -> u32 {
    let resumed = action & raw::UTRACE_SYSCALL_RESUMED != 0;
    // SAFETY: By the function's safety requirements.
    unsafe {
        syscall_cb::<E>(engine, regs, resumed, |e, cx, r| {
            e.syscall_entry(cx, r).raw()
        })
    }
}

/// # Safety
///
/// As for [`clone_cb`]; in the task's work (process context), with the
/// registers of `current`'s syscall entry.
unsafe extern "C" fn syscall_entry_sleepable_cb<E: SyscallEngine>(
    action: u32,
    engine: *mut raw::utrace_engine,
    regs: *mut bindings::pt_regs,
) -> u32 {
    let cx = SleepingSyscall {
        // SAFETY: As for `clone_cb`; the task is `current`.
        cx: unsafe { context::<E, false>(engine, current()) },
        resumed: action & raw::UTRACE_SYSCALL_RESUMED != 0,
    };
    // SAFETY: `regs` is valid and ours for the callback; the context's
    // task is `current`.
    let mut regs = unsafe { SyscallRegs::new(&mut *regs, cx.cx.task()) };
    cx.cx
        .shared
        .engine
        .syscall_entry_sleepable(&cx, &mut regs)
        .raw()
}

/// # Safety
///
/// As for [`syscall_cb`].
unsafe extern "C" fn syscall_exit_cb<E: SyscallEngine>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    regs: *mut bindings::pt_regs,
) -> u32 {
    // SAFETY: By the function's safety requirements.
    unsafe { syscall_cb::<E>(engine, regs, false, |e, cx, r| e.syscall_exit(cx, r).raw()) }
}

/// # Safety
///
/// Called by `utrace_rs.ko` once per engine attached by [`Shared::attach`],
/// in process context, with the `data` it was attached with.
unsafe extern "C" fn release_cb<E: Engine>(data: *mut c_void) {
    // SAFETY: `data` is the `Arc` reference `attach` handed over.
    let shared = unsafe { Arc::<Shared<E>>::from_foreign(data) };
    shared.live.fetch_sub(1, SeqCst);
    // May drop the engine value: process context, where that may sleep.
    drop(shared);
}
