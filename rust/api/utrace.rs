// SPDX-License-Identifier: GPL-2.0

//! The safe Rust API for utrace-rs engine modules.
//!
//! Kbuild on 6.12 cannot link one Rust module against another's crate, so
//! this file is a thin safe layer over the C ABI of `utrace_rs.ko`
//! (`include/utrace_rs.h`) that each engine crate compiles in:
//!
//! ```ignore
//! #[path = "../../rust/api/utrace.rs"]
//! mod utrace;
//! ```
//!
//! An engine is a type implementing [`Engine`]; a [`Tracer`] owns one value
//! of it and every engine it attaches with it (per task or global). Dropping
//! the `Tracer` (typically in the module's `Drop`) detaches them all, waits
//! for callbacks in flight and drops the last references, so no callback
//! into the module can happen afterwards: a module can be unloaded while its
//! engines are attached.
//!
//! Callbacks run in the traced task's context (CLONE, EXEC, EXIT, DEATH; they
//! may sleep) or from a workqueue after the task is gone (REAP; must not
//! block). See `Documentation/utrace-rs/api.rst`.

#![allow(dead_code)]

use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use kernel::bindings;
use kernel::error::{to_result, Error};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::{new_mutex, Arc, ArcBorrow, Mutex};
use kernel::task::Task;
use kernel::types::{ARef, ForeignOwnable};

/// An event mask.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Events(u64);

impl Events {
    pub(crate) const NONE: Events = Events(0);
    pub(crate) const REAP: Events = Events(1 << 1);
    pub(crate) const CLONE: Events = Events(1 << 2);
    pub(crate) const EXEC: Events = Events(1 << 3);
    pub(crate) const EXIT: Events = Events(1 << 4);
    pub(crate) const DEATH: Events = Events(1 << 5);
    pub(crate) const SIGNAL_CORE: Events = Events(1 << 12);

    pub(crate) const fn or(self, other: Events) -> Events {
        Events(self.0 | other.0)
    }

    pub(crate) const fn bits(self) -> u64 {
        self.0
    }

    pub(crate) const fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for Events {
    type Output = Events;

    fn bitor(self, rhs: Events) -> Events {
        Events(self.0 | rhs.0)
    }
}

/// What a callback asks for once it returns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Action {
    /// Keep going.
    Resume,
    /// Detach this engine from the task (or, for a global engine, from all).
    Detach,
}

impl Action {
    fn raw(self) -> u32 {
        match self {
            Action::Resume => raw::UTRACE_RESUME,
            Action::Detach => raw::UTRACE_DETACH,
        }
    }
}

/// The callbacks of an engine. Every method has a default that does nothing.
pub(crate) trait Engine: Send + Sync + Sized + 'static {
    /// `current` created `child`, which has not run yet. Engines attached to
    /// `child` from here see all its events from its first instruction.
    fn clone(&self, _cx: &Context<'_, Self>, _child: &Task, _flags: u64) -> Action {
        Action::Resume
    }

    /// `current` exec'd `filename` (`None` if it could not be copied).
    fn exec(&self, _cx: &Context<'_, Self>, _filename: Option<&CStr>) -> Action {
        Action::Resume
    }

    /// `current` is exiting with `*code`, which may be changed.
    fn exit(&self, _cx: &Context<'_, Self>, _code: &mut i64) -> Action {
        Action::Resume
    }

    /// `current` is dead; `signal` is what its parent will be sent (-1: none).
    fn death(&self, _cx: &Context<'_, Self>, _group_dead: bool, _signal: i32) -> Action {
        Action::Resume
    }

    /// `task` was reaped; the engine is detached after this. Must not block.
    fn reap(&self, _task: &Task) {}

    /// SIGNAL_CORE: `signr`, whose default action dumps core, is about to be
    /// delivered to `current`, which leaves it at the default disposition.
    /// [`Signal::Hold`] keeps it queued and stops the process (a real group
    /// stop) until it is continued with SIGCONT or the engine detaches; then
    /// the signal is delivered as it would have been.
    fn signal(&self, _cx: &Context<'_, Self>, _signr: i32) -> Signal {
        Signal::Deliver
    }
}

/// What [`Engine::signal`] decides.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Signal {
    Deliver,
    Hold,
}

/// What a callback can reach besides its engine value.
pub(crate) struct Context<'a, E: Engine> {
    shared: ArcBorrow<'a, Shared<E>>,
    global: bool,
}

impl<E: Engine> Context<'_, E> {
    /// Whether the callback is for a global engine (else a per-task one).
    pub(crate) fn is_global(&self) -> bool {
        self.global
    }

    /// The task the callback runs for (`current`).
    pub(crate) fn task(&self) -> &Task {
        // SAFETY: Callbacks other than REAP run in the task's own context.
        unsafe { &*bindings::get_current().cast::<Task>() }
    }

    /// Attaches another engine of the same tracer to `task` (e.g. a CLONE
    /// child, to follow it).
    pub(crate) fn attach(&self, task: &Task, events: Events) -> Result {
        Shared::attach(self.shared.into(), Some(task), events)
    }
}

/// What a trace record wants to know about a task (`struct
/// utrace_task_info`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct TaskInfo {
    /// Thread id (init namespace).
    pub(crate) pid: i32,
    pub(crate) tgid: i32,
    /// Thread-group id of the real parent.
    pub(crate) ppid: i32,
    /// As `do_exit()` recorded it (`wait()` status format).
    pub(crate) exit_code: i32,
    pub(crate) comm: [u8; 16],
}

impl TaskInfo {
    pub(crate) fn of(task: &Task) -> TaskInfo {
        let mut info = TaskInfo {
            pid: 0,
            tgid: 0,
            ppid: 0,
            exit_code: 0,
            comm: [0; 16],
        };
        // SAFETY: `task` is valid, `info` is a `struct utrace_task_info`.
        unsafe { raw::utrace_task_info(task_ptr(task), &mut info) };
        info
    }

    /// `comm` up to its NUL.
    pub(crate) fn comm(&self) -> &[u8] {
        let len = self
            .comm
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.comm.len());
        &self.comm[..len]
    }
}

fn task_ptr(task: &Task) -> *mut bindings::task_struct {
    (task as *const Task).cast_mut().cast()
}

/// Owner of an engine value and of every engine attached with it.
pub(crate) struct Tracer<E: Engine> {
    shared: Arc<Shared<E>>,
}

#[pin_data]
struct Shared<T: Engine> {
    engine: T,
    #[pin]
    handles: Mutex<Handles>,
}

/// The tracer's references on its engines.
struct Handles {
    /// Set when the tracer is dropped: no more attaches.
    closed: bool,
    live: KVec<Handle>,
    /// Engines whose task was reaped: detached, waiting for their last put.
    reaped: KVec<Handle>,
}

struct Handle {
    engine: NonNull<raw::utrace_engine>,
    /// The task it is attached to (None: global), referenced.
    task: Option<ARef<Task>>,
}

// SAFETY: A handle is a counted reference on a refcounted engine and a task
// reference, both usable from any thread.
unsafe impl Send for Handle {}

impl Handle {
    fn task_ptr(&self) -> *mut bindings::task_struct {
        self.task.as_deref().map_or(ptr::null_mut(), task_ptr)
    }

    /// Detach, wait for callbacks in flight, drop the reference: the safe
    /// detach procedure. Sleeps.
    fn retire(self) {
        // SAFETY: We hold a reference on the engine and the task.
        unsafe {
            let _ = raw::utrace_control(self.task_ptr(), self.engine.as_ptr(), raw::UTRACE_DETACH);
            // Waits for the framework's own reference too, so that our put
            // below is the last one and `release` runs here.
            while raw::utrace_barrier(self.task_ptr(), self.engine.as_ptr())
                == -(bindings::ERESTARTSYS as i32)
            {
                bindings::msleep(1);
            }
            raw::utrace_engine_put(self.engine.as_ptr());
        }
    }
}

impl<E: Engine> Tracer<E> {
    pub(crate) fn new(engine: E) -> Result<Self> {
        let shared = Arc::pin_init(
            pin_init!(Shared {
                engine,
                handles <- new_mutex!(Handles {
                    closed: false,
                    live: KVec::new(),
                    reaped: KVec::new(),
                }),
            }),
            GFP_KERNEL,
        )?;
        Ok(Tracer { shared })
    }

    pub(crate) fn engine(&self) -> &E {
        &self.shared.engine
    }

    /// Attaches a new engine to `task` with `events`.
    pub(crate) fn attach(&self, task: &Task, events: Events) -> Result {
        Shared::attach(self.shared.clone(), Some(task), events)
    }

    /// Attaches a new engine to the task with thread id `pid` (init
    /// namespace). `ESRCH` if there is none.
    pub(crate) fn attach_pid(&self, pid: i32, events: Events) -> Result {
        let task = task_by_pid(pid).ok_or(ESRCH)?;
        Shared::attach(self.shared.clone(), Some(&task), events)
    }

    /// Attaches a global engine (CLONE, EXEC, EXIT, DEATH of every user task).
    pub(crate) fn attach_global(&self, events: Events) -> Result {
        Shared::attach(self.shared.clone(), None, events)
    }

    /// How many of its engines are attached (not yet reaped or detached).
    pub(crate) fn attached(&self) -> usize {
        self.shared.handles.lock().live.len()
    }

    /// Detaches every engine of this tracer and waits for their callbacks.
    pub(crate) fn detach_all(&self) {
        let (live, reaped) = {
            let mut h = self.shared.handles.lock();
            (core::mem::take(&mut h.live), core::mem::take(&mut h.reaped))
        };
        for handle in live {
            handle.retire();
        }
        for handle in reaped {
            handle.retire();
        }
    }
}

impl<E: Engine> Drop for Tracer<E> {
    fn drop(&mut self) {
        self.shared.handles.lock().closed = true;
        self.detach_all();
    }
}

/// What an attach error means, for the log line that says why.
pub(crate) fn attach_error(e: Error) -> &'static str {
    if e == ESRCH {
        "no such process (or it is exiting)"
    } else if e == EPERM {
        "it is a kernel thread or an io_uring/vhost worker"
    } else if e == ENOMEM {
        "out of memory"
    } else {
        "cannot attach"
    }
}

/// Events the framework could not report to any engine for lack of memory
/// since it was loaded (streams announce them as `LOST <n>` records).
pub(crate) fn lost_events() -> u64 {
    // SAFETY: No arguments; callable in any context.
    unsafe { raw::utrace_lost_events() }
}

/// The task with thread id `pid` in the initial pid namespace.
pub(crate) fn task_by_pid(pid: i32) -> Option<ARef<Task>> {
    if pid <= 0 {
        return None;
    }
    // SAFETY: Looks `pid` up and takes references as it goes; both pointers
    // are checked before use and the `struct pid` reference is dropped.
    unsafe {
        let p = bindings::find_get_pid(pid);
        if p.is_null() {
            return None;
        }
        let task = bindings::get_pid_task(p, bindings::pid_type_PIDTYPE_PID);
        bindings::put_pid(p);
        NonNull::new(task.cast::<Task>()).map(|t| ARef::from_raw(t))
    }
}

impl<E: Engine> Shared<E> {
    fn ops(global: bool) -> &'static raw::Ops {
        if global {
            &Ops::<E, true>::OPS.0
        } else {
            &Ops::<E, false>::OPS.0
        }
    }

    /// Attaches an engine whose `data` is the reference `arc`.
    fn attach(arc: Arc<Self>, task: Option<&Task>, events: Events) -> Result {
        let mut handles = arc.handles.lock();
        if handles.closed {
            return Err(Error::from_errno(-(bindings::ESHUTDOWN as i32)));
        }
        prune(&mut handles);
        handles.live.reserve(1, GFP_KERNEL)?;
        let data = arc.clone().into_foreign();
        let flags = if task.is_some() {
            raw::UTRACE_ATTACH_CREATE
        } else {
            raw::UTRACE_ATTACH_CREATE | raw::UTRACE_ATTACH_GLOBAL
        };
        let task_raw = task.map_or(ptr::null_mut(), task_ptr);
        // SAFETY: `ops` is a static table of this module; `data` is an `Arc`
        // reference that `release` takes back.
        let engine = unsafe {
            raw::utrace_attach_task(task_raw, flags, Self::ops(task.is_none()), data.cast_mut())
        };
        let errno = engine as isize;
        if (-4095..0).contains(&errno) {
            // SAFETY: Not attached: the reference is still ours.
            drop(unsafe { Arc::<Self>::from_foreign(data) });
            return Err(Error::from_errno(errno as i32));
        }
        // SAFETY: Not null: not an error pointer.
        let engine = unsafe { NonNull::new_unchecked(engine) };
        let handle = Handle {
            engine,
            task: task.map(ARef::from),
        };
        // SAFETY: We hold a reference on the engine (and the task).
        let ret = to_result(unsafe {
            raw::utrace_set_events(handle.task_ptr(), engine.as_ptr(), events.bits())
        });
        if let Err(e) = ret {
            drop(handles);
            handle.retire();
            return Err(e);
        }
        // Cannot fail: reserved above.
        let _ = handles.live.push(handle, GFP_KERNEL);
        Ok(())
    }
}

/// An event stream, `/sys/kernel/debug/utrace/<name>`: root-only, one line
/// per record, `<seq> <ns> <text>`; removed when dropped (readers then get
/// end of file).
pub(crate) struct Stream(NonNull<c_void>);

// SAFETY: The framework's stream is usable from any thread and context but
// hard interrupts.
unsafe impl Send for Stream {}
// SAFETY: See `Send`.
unsafe impl Sync for Stream {}

impl Stream {
    /// A stream with room for `records` records (16 to 65536).
    pub(crate) fn create(name: &CStr, records: u32) -> Result<Stream> {
        // SAFETY: `name` is NUL-terminated.
        let s = unsafe { raw::utrace_stream_create(name.as_char_ptr(), records) };
        let errno = s as isize;
        if (-4095..0).contains(&errno) {
            return Err(Error::from_errno(errno as i32));
        }
        // SAFETY: Not null: not an error pointer.
        Ok(Stream(unsafe { NonNull::new_unchecked(s) }))
    }

    /// Adds a record (cut at 256 bytes). `ENOSPC` when the ring is full:
    /// the record is dropped and the reader told.
    pub(crate) fn emit(&self, args: core::fmt::Arguments<'_>) -> Result {
        let mut buf = LineBuf {
            buf: [0; 240],
            len: 0,
        };
        let _ = core::fmt::Write::write_fmt(&mut buf, args);
        // SAFETY: A live stream; `buf` holds `len` bytes.
        to_result(unsafe { raw::utrace_stream_emit(self.0.as_ptr(), buf.buf.as_ptr(), buf.len) })
    }

    /// Records dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        // SAFETY: A live stream.
        unsafe { raw::utrace_stream_dropped(self.0.as_ptr()) }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: Created by `create`, destroyed once.
        unsafe { raw::utrace_stream_destroy(self.0.as_ptr()) };
    }
}

/// Formats a line into a fixed buffer, cutting what does not fit.
struct LineBuf {
    buf: [u8; 240],
    len: usize,
}

impl core::fmt::Write for LineBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// An `int` module parameter, declared with [`module_param_int!`] (6.12's
/// `module!` has no parameters).
pub(crate) struct IntParam(core::cell::UnsafeCell<i32>);

// SAFETY: The kernel writes the value while loading the module, before
// `init`; the parameter is read-only (0444) afterwards.
unsafe impl Sync for IntParam {}

impl IntParam {
    pub(crate) const fn new(default: i32) -> Self {
        IntParam(core::cell::UnsafeCell::new(default))
    }

    pub(crate) const fn as_ptr(&self) -> *mut c_void {
        self.0.get().cast()
    }

    pub(crate) fn get(&self) -> i32 {
        // SAFETY: No writer after load (see `Sync`).
        unsafe { ptr::read_volatile(self.0.get()) }
    }
}

/// A `struct kernel_param` placed in the `__param` section.
pub(crate) struct ParamEntry(pub(crate) bindings::kernel_param);

// SAFETY: Read-only; its pointers are to statics.
unsafe impl Sync for ParamEntry {}

/// `s` as a byte array for the `.modinfo` section.
pub(crate) const fn modinfo_bytes<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < N && i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

/// Declares an `int` module parameter: `module_param_int!(PID, "pid", -1,
/// "what it is")` makes `PID.get()` the value given to `insmod` (or -1),
/// shown by `modinfo` with its description. A value that is not an integer
/// makes `insmod` fail with `-EINVAL`, as for C modules.
#[allow(unused_macros)]
macro_rules! module_param_int {
    ($var:ident, $name:literal, $default:expr, $desc:literal) => {
        static $var: $crate::utrace::IntParam = $crate::utrace::IntParam::new($default);
        const _: () = {
            extern "C" {
                static __this_module: kernel::types::Opaque<kernel::bindings::module>;
            }
            #[link_section = "__param"]
            #[used(compiler)]
            static PARAM: $crate::utrace::ParamEntry =
                $crate::utrace::ParamEntry(kernel::bindings::kernel_param {
                    name: concat!($name, "\0").as_ptr(),
                    // SAFETY: Only addresses of kernel objects are taken.
                    mod_: unsafe { __this_module.get() },
                    // SAFETY: As above.
                    ops: unsafe { &kernel::bindings::param_ops_int },
                    perm: 0o444,
                    level: -1,
                    flags: 0,
                    __bindgen_anon_1: kernel::bindings::kernel_param__bindgen_ty_1 {
                        arg: $var.as_ptr(),
                    },
                });
            const PARM: &str = concat!("parm=", $name, ":", $desc, "\0");
            #[link_section = ".modinfo"]
            #[used(compiler)]
            static PARM_INFO: [u8; PARM.len()] = $crate::utrace::modinfo_bytes(PARM);
            const TYPE: &str = concat!("parmtype=", $name, ":int\0");
            #[link_section = ".modinfo"]
            #[used(compiler)]
            static TYPE_INFO: [u8; TYPE.len()] = $crate::utrace::modinfo_bytes(TYPE);
        };
    };
}
#[allow(unused_imports)]
pub(crate) use module_param_int;

/// Retires the handles of reaped engines once there are enough of them.
fn prune(handles: &mut Handles) {
    if handles.reaped.len() < 64 {
        return;
    }
    for handle in core::mem::take(&mut handles.reaped) {
        handle.retire();
    }
}

/// The ops table of engine type `E`, one per type and kind (global or not):
/// the callbacks learn which kind they serve from the table they come from.
struct Ops<E: Engine, const GLOBAL: bool>(PhantomData<E>);

/// `Sync` wrapper: the table is immutable and its pointers are functions.
struct OpsTable(raw::Ops);
// SAFETY: Read-only after initialisation.
unsafe impl Sync for OpsTable {}

impl<E: Engine, const GLOBAL: bool> Ops<E, GLOBAL> {
    const OPS: OpsTable = OpsTable(raw::Ops {
        // Not pinned: the `Tracer` detaches and waits for its engines.
        owner: ptr::null_mut(),
        report_clone: Some(clone_cb::<E, GLOBAL>),
        report_exec: Some(exec_cb::<E, GLOBAL>),
        report_exit: Some(exit_cb::<E, GLOBAL>),
        report_death: Some(death_cb::<E, GLOBAL>),
        report_reap: Some(reap_cb::<E>),
        release: Some(release_cb::<E>),
        report_signal: Some(signal_cb::<E, GLOBAL>),
        report_quiesce: None,
        report_syscall_entry: None,
        report_syscall_exit: None,
    });
}

/// The engine value and context behind a raw engine pointer.
///
/// # Safety
///
/// `engine` is an engine attached by [`Shared::attach`], pinned for a
/// callback (so its `data`, an `Arc<Shared<E>>` reference, is alive).
unsafe fn shared<'a, E: Engine>(engine: *mut raw::utrace_engine) -> ArcBorrow<'a, Shared<E>> {
    // SAFETY: By the function's safety requirements.
    unsafe { <Arc<Shared<E>> as ForeignOwnable>::borrow((*engine).data) }
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn clone_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    flags: u64,
    child: *mut bindings::task_struct,
) -> u32 {
    // SAFETY: Called by utrace_rs.ko for an engine we attached; `child` is a
    // live task.
    let (shared, child) = unsafe { (shared::<E>(engine), &*child.cast::<Task>()) };
    let cx = Context {
        shared,
        global: GLOBAL,
    };
    shared.engine.clone(&cx, child, flags).raw()
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn exec_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    filename: *const u8,
    _old_pid: i32,
) -> u32 {
    // SAFETY: As for `clone_cb`.
    let shared = unsafe { shared::<E>(engine) };
    // SAFETY: Null or a NUL-terminated string alive during the callback.
    let filename = (!filename.is_null()).then(|| unsafe { CStr::from_char_ptr(filename) });
    let cx = Context {
        shared,
        global: GLOBAL,
    };
    shared.engine.exec(&cx, filename).raw()
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn exit_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    _orig_code: i64,
    code: *mut i64,
) -> u32 {
    // SAFETY: As for `clone_cb`; `code` is valid during the callback.
    let (shared, code) = unsafe { (shared::<E>(engine), &mut *code) };
    let cx = Context {
        shared,
        global: GLOBAL,
    };
    shared.engine.exit(&cx, code).raw()
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn death_cb<E: Engine, const GLOBAL: bool>(
    engine: *mut raw::utrace_engine,
    group_dead: bool,
    signal: i32,
) -> u32 {
    // SAFETY: As for `clone_cb`.
    let shared = unsafe { shared::<E>(engine) };
    let cx = Context {
        shared,
        global: GLOBAL,
    };
    shared.engine.death(&cx, group_dead, signal).raw()
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn reap_cb<E: Engine>(
    engine: *mut raw::utrace_engine,
    task: *mut bindings::task_struct,
) {
    // SAFETY: As for `clone_cb`; `task` is valid during the callback.
    let (shared, task) = unsafe { (shared::<E>(engine), &*task.cast::<Task>()) };
    shared.engine.reap(task);
    // The engine is detached after this: move our handle aside so that a
    // later attach or the tracer's drop retires it.
    let mut handles = shared.handles.lock();
    if let Some(i) = handles
        .live
        .iter()
        .position(|h| h.engine.as_ptr() == engine)
    {
        let handle = swap_remove(&mut handles.live, i);
        if handles.reaped.push(handle, GFP_KERNEL).is_err() {
            // Out of memory: it stays referenced by nothing of ours but its
            // `release` still comes, so nothing is lost but the handle.
        }
    }
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn signal_cb<E: Engine, const GLOBAL: bool>(
    _action: u32,
    engine: *mut raw::utrace_engine,
    signr: i32,
) -> u32 {
    // SAFETY: As for `clone_cb`.
    let shared = unsafe { shared::<E>(engine) };
    let cx = Context {
        shared,
        global: GLOBAL,
    };
    match shared.engine.signal(&cx, signr) {
        Signal::Deliver => raw::UTRACE_RESUME,
        Signal::Hold => raw::UTRACE_STOP | raw::UTRACE_SIGNAL_HOLD,
    }
}

/// Removes element `i`, moving the last one into its place.
fn swap_remove<T>(v: &mut KVec<T>, i: usize) -> T {
    let last = v.len() - 1;
    v.as_mut_slice().swap(i, last);
    // SAFETY: Shrinks by one; the element past the new length is read out
    // exactly once and never dropped by the vector.
    unsafe {
        v.set_len(last);
        ptr::read(v.as_ptr().add(last))
    }
}

/// # Safety
///
/// Called by `utrace_rs.ko` for an engine attached by [`Shared::attach`], with
/// the arguments `include/utrace_rs.h` documents.
unsafe extern "C" fn release_cb<E: Engine>(data: *mut c_void) {
    // SAFETY: `data` is the `Arc` reference `attach` handed over.
    drop(unsafe { Arc::<Shared<E>>::from_foreign(data) });
}

/// The C ABI, as `include/utrace_rs.h` declares it.
mod raw {
    use super::*;

    pub(super) const UTRACE_STOP: u32 = 0;
    pub(super) const UTRACE_RESUME: u32 = 5;
    pub(super) const UTRACE_SIGNAL_HOLD: u32 = 0x100;
    pub(super) const UTRACE_DETACH: u32 = 6;
    pub(super) const UTRACE_ATTACH_CREATE: i32 = 0x0010;
    pub(super) const UTRACE_ATTACH_GLOBAL: i32 = 0x0100;

    #[repr(C)]
    pub(super) struct utrace_engine {
        pub(super) ops: *const Ops,
        pub(super) data: *mut c_void,
    }

    #[repr(C)]
    pub(super) struct Ops {
        pub(super) owner: *mut bindings::module,
        pub(super) report_clone: Option<
            unsafe extern "C" fn(u32, *mut utrace_engine, u64, *mut bindings::task_struct) -> u32,
        >,
        pub(super) report_exec:
            Option<unsafe extern "C" fn(u32, *mut utrace_engine, *const u8, i32) -> u32>,
        pub(super) report_exit:
            Option<unsafe extern "C" fn(u32, *mut utrace_engine, i64, *mut i64) -> u32>,
        pub(super) report_death: Option<unsafe extern "C" fn(*mut utrace_engine, bool, i32) -> u32>,
        pub(super) report_reap:
            Option<unsafe extern "C" fn(*mut utrace_engine, *mut bindings::task_struct)>,
        pub(super) release: Option<unsafe extern "C" fn(*mut c_void)>,
        pub(super) report_signal: Option<unsafe extern "C" fn(u32, *mut utrace_engine, i32) -> u32>,
        pub(super) report_quiesce:
            Option<unsafe extern "C" fn(u32, *mut utrace_engine, u64) -> u32>,
        pub(super) report_syscall_entry:
            Option<unsafe extern "C" fn(u32, *mut utrace_engine, *mut bindings::pt_regs) -> u32>,
        pub(super) report_syscall_exit:
            Option<unsafe extern "C" fn(u32, *mut utrace_engine, *mut bindings::pt_regs) -> u32>,
    }

    // `task_struct` embeds structs that are empty in some configurations;
    // only pointers cross here.
    #[allow(improper_ctypes)]
    extern "C" {
        pub(super) fn utrace_task_info(task: *mut bindings::task_struct, info: *mut TaskInfo);
        pub(super) fn utrace_stream_create(name: *const u8, records: u32) -> *mut c_void;
        pub(super) fn utrace_stream_emit(stream: *mut c_void, text: *const u8, len: usize) -> i32;
        pub(super) fn utrace_stream_dropped(stream: *mut c_void) -> u64;
        pub(super) fn utrace_lost_events() -> u64;
        pub(super) fn utrace_stream_destroy(stream: *mut c_void);
        pub(super) fn utrace_attach_task(
            task: *mut bindings::task_struct,
            flags: i32,
            ops: *const Ops,
            data: *mut c_void,
        ) -> *mut utrace_engine;
        pub(super) fn utrace_engine_put(engine: *mut utrace_engine);
        pub(super) fn utrace_set_events(
            target: *mut bindings::task_struct,
            engine: *mut utrace_engine,
            events: u64,
        ) -> i32;
        pub(super) fn utrace_control(
            target: *mut bindings::task_struct,
            engine: *mut utrace_engine,
            action: u32,
        ) -> i32;
        pub(super) fn utrace_barrier(
            target: *mut bindings::task_struct,
            engine: *mut utrace_engine,
        ) -> i32;
    }
}
