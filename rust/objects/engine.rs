// SPDX-License-Identifier: GPL-2.0

//! The engine object (`struct utrace_engine`): reference counting, its event
//! mask, the callback-in-flight count that `utrace_barrier()` waits on, and
//! the hand-over of the implicit "attached" reference at detach.
//!
//! Life of an engine:
//! - attach: refcount 2 (the caller's and the implicit attached one), linked
//!   on one [`EngineList`](crate::engine_list::EngineList).
//! - report: [`Engine::enter`] pins it for one callback (no refcount touched),
//!   [`Engine::leave`] unpins it.
//! - detach: `DETACHED` is set and it is unlinked under the list's lock; after
//!   an RCU grace period no reporter can find it any more (`UNLINKED`), and the
//!   implicit reference is dropped as soon as no callback is in flight.
//! - the last reference: `ops->release(data)` runs in process context
//!   (see `release.rs`), the module reference is dropped and the
//!   memory freed after an RCU grace period.

use crate::compat::ARef;
use crate::events::{
    action::{MASK, RESUME},
    Events,
};
use crate::shim::{RcuGuard, SyscallRegs};
use crate::task;
use crate::wait;
use core::cell::Cell;
use core::ffi::c_void;
use core::ffi::CStr;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering::SeqCst};
use kernel::bindings;
use kernel::prelude::*;
use kernel::task::Task;
use kernel::types::Opaque;

/// `struct utrace_engine_ops` of `include/utrace_rs.h`.
#[repr(C)]
pub(crate) struct EngineOps {
    pub(crate) owner: *mut bindings::module,
    pub(crate) report_clone: Option<
        unsafe extern "C" fn(
            u32,
            *mut Engine,
            *mut bindings::task_struct,
            u64,
            *mut bindings::task_struct,
        ) -> u32,
    >,
    pub(crate) report_exec: Option<
        unsafe extern "C" fn(u32, *mut Engine, *const u8, i32, *mut bindings::pt_regs) -> u32,
    >,
    pub(crate) report_exit: Option<unsafe extern "C" fn(u32, *mut Engine, i64, *mut i64) -> u32>,
    pub(crate) report_death: Option<unsafe extern "C" fn(*mut Engine, bool, i32) -> u32>,
    pub(crate) report_reap: Option<unsafe extern "C" fn(*mut Engine, *mut bindings::task_struct)>,
    pub(crate) release: Option<unsafe extern "C" fn(*mut c_void)>,
    pub(crate) report_signal: Option<
        unsafe extern "C" fn(
            u32,
            *mut Engine,
            *mut bindings::pt_regs,
            *mut bindings::kernel_siginfo,
            *const bindings::k_sigaction,
            *mut bindings::k_sigaction,
        ) -> u32,
    >,
    pub(crate) report_quiesce: Option<unsafe extern "C" fn(u32, *mut Engine, u64) -> u32>,
    pub(crate) report_syscall_entry: Option<SyscallCallback>,
    pub(crate) report_syscall_exit: Option<SyscallCallback>,
    pub(crate) report_jctl: Option<unsafe extern "C" fn(u32, *mut Engine, i32, i32) -> u32>,
    /// `UTRACE_OPS_*` flags.
    pub(crate) flags: u32,
}

// The layout of `include/utrace_rs.h` (asserted there too, in
// `shim/exports.c`): twelve pointers, then `unsigned int flags`.
const _: () = {
    assert!(core::mem::offset_of!(EngineOps, report_clone) == 8);
    assert!(core::mem::offset_of!(EngineOps, release) == 48);
    assert!(core::mem::offset_of!(EngineOps, report_syscall_exit) == 80);
    assert!(core::mem::offset_of!(EngineOps, report_jctl) == 88);
    assert!(core::mem::offset_of!(EngineOps, flags) == 96);
    assert!(core::mem::size_of::<EngineOps>() == 104);
    assert!(core::mem::offset_of!(Engine, data) == 8);
};

/// `report_syscall_entry` / `report_syscall_exit`.
pub(crate) type SyscallCallback =
    unsafe extern "C" fn(u32, *mut Engine, *mut bindings::pt_regs) -> u32;

/// The syscall callback of an engine whose ops have none: the RESUME that
/// a missing callback answers.
extern "C" fn syscall_resume(_: u32, _: *mut Engine, _: *mut bindings::pt_regs) -> u32 {
    RESUME
}

/// `UTRACE_OPS_UNPINNED`: `owner` is not pinned by the engines; utrace-rs
/// releases them when it unloads instead.
pub(crate) const OPS_UNPINNED: u32 = 1 << 0;
/// `UTRACE_OPS_SYSCALL_SLEEPABLE`: entry is reported from the task's work.
pub(crate) const OPS_SYSCALL_SLEEPABLE: u32 = 1 << 1;

/// An engine's links on the registry.
///
/// # Invariants
///
/// Read and written only with the registry's lock held, which the
/// `release::Registry` methods prove by taking `&mut Registry`.
pub(crate) struct RegistryLinks {
    pub(crate) prev: Cell<*mut Engine>,
    pub(crate) next: Cell<*mut Engine>,
}

impl RegistryLinks {
    pub(crate) const fn new() -> Self {
        RegistryLinks {
            prev: Cell::new(ptr::null_mut()),
            next: Cell::new(ptr::null_mut()),
        }
    }
}

/// `pins`: one per callback in flight (bits 0-31; every task running a
/// callback of the engine, so far fewer than 2^32).
const CB_ONE: u64 = 1;
const CB_MASK: u64 = 0xffff_ffff;
/// `pins`: one per `utrace_barrier()` caller waiting on the engine (bits
/// 32-55).
const WAITER_ONE: u64 = 1 << 32;
const WAITER_MASK: u64 = 0xff_ffff << 32;
/// `pins`: the engine wants its task stopped (UTRACE_STOP, until a
/// callback of it returns another action, utrace_control() other than
/// STOP, or its detach). In this word so that a callback's end drops it
/// with the unpin ([`Engine::leave_in`]).
const STOP: u64 = 1 << 61;
/// `pins`: an RCU grace period has passed since it was unlinked: no
/// reporter can still find it on a list.
const UNLINKED: u64 = 1 << 62;
/// `pins`: the engine has been detached: it gets no new callbacks.
const DETACHED: u64 = 1 << 63;

/// `state`: the implicit attached reference has not been dropped yet.
const ATTACHED_REF: u32 = 1 << 2;
/// `state`: `ops->release` has been called, or is being called (see
/// `release.rs`): it is never called again.
pub(crate) const RELEASED: u32 = 1 << 3;
/// On the registry of engines with an owner module.
pub(crate) const REGISTERED: u32 = 1 << 4;
/// On an engine list (set and cleared by `ListWriter`).
const LINKED: u32 = 1 << 5;
/// Attached with `UTRACE_ATTACH_NOFOLLOW`: its CLONE callback never
/// attaches to the child, which need not be held for it.
pub(crate) const NOFOLLOW: u32 = 1 << 6;

/// An attached engine. The first two fields are the public part of
/// `struct utrace_engine`.
///
/// # Invariants
///
/// `refcount` counts the references handed out by `utrace_attach_*()` and
/// `utrace_engine_get()`, plus one while `ATTACHED_REF` is set; the engine is
/// freed when it reaches zero. `pins` holds what a callback's end must look
/// at, in one word so that the end tells the usual case (its pin alone in
/// the word) with the atomic step that ends it: the count of callbacks in
/// flight, which only grows while the engine is linked on a list and not
/// `DETACHED`; the count of `barrier` waiters; `STOP`; `UNLINKED`;
/// `DETACHED`.
#[repr(C)]
#[pin_data]
pub(crate) struct Engine {
    ops: *const EngineOps,
    data: *mut c_void,

    /// `ops->report_syscall_entry` and `_exit`, or [`syscall_resume`] for
    /// a missing one, copied at create: the syscall passes call them with
    /// one load and no test (`ops` is the module's constant table).
    syscall: [SyscallCallback; 2],
    refcount: Opaque<bindings::refcount_t>,
    state: AtomicU32,
    events: AtomicU64,
    /// Callbacks in flight, `barrier` waiters, `STOP`, `UNLINKED`,
    /// `DETACHED`.
    pins: AtomicU64,
    /// Attach order, unique across all engines; lists are sorted by it. Set
    /// once, before the engine is linked.
    seq: AtomicU64,
    /// Identity of what it is attached to (the `UTask`, or null for a global
    /// engine); compared, never dereferenced.
    pub(crate) owner: *const c_void,
    /// Next engine on the list it is linked on (RCU-published).
    pub(crate) next: AtomicPtr<Engine>,
    /// `ops->owner`, copied so that it is known without reading `ops` once
    /// `release` has run; pinned (a module reference held) unless `ops`
    /// says `UTRACE_OPS_UNPINNED`.
    module: *mut bindings::module,
    pinned: bool,
    /// `ops->flags`, copied like `module`.
    ops_flags: u32,
    /// Links on the registry of engines with an owner module; only
    /// touched with the registry's lock held (see `release.rs`).
    pub(crate) registry: RegistryLinks,
    /// Next engine on the queue of deferred releases.
    pub(crate) release_next: AtomicPtr<Engine>,
    rcu: Opaque<bindings::callback_head>,
}

// SAFETY: Engines are shared between the traced tasks and the engine module's
// threads; every mutable field is atomic, and `ops` and
// `data` are the engine module's, which promises they are usable from any
// context (include/utrace_rs.h).
unsafe impl Send for Engine {}
// SAFETY: See `Send`.
unsafe impl Sync for Engine {}

impl Engine {
    /// Allocates an engine with two references (the caller's and the implicit
    /// attached one) and takes a reference on `ops->owner` (unless it is
    /// unpinned). Dropping the [`NewEngine`] before it is linked frees it.
    ///
    /// # Safety
    ///
    /// `ops` must point to a `struct utrace_engine_ops` that stays valid while
    /// the owner module is loaded.
    pub(crate) unsafe fn create(
        ops: *const EngineOps,
        data: *mut c_void,
        owner: *const c_void,
    ) -> Result<NewEngine> {
        // SAFETY: `ops` is valid by the caller's promise.
        let (module, flags, entry, exit) = unsafe {
            (
                (*ops).owner,
                (*ops).flags,
                (*ops).report_syscall_entry,
                (*ops).report_syscall_exit,
            )
        };
        let pinned = !module.is_null() && flags & OPS_UNPINNED == 0;
        // SAFETY: `module` is null or the module that owns `ops`, in memory
        // since its code is calling us (it may be going, which is checked).
        if pinned && !unsafe { bindings::try_module_get(module) } {
            pr_err!("attach: the engine's module is being unloaded\n");
            return Err(ENODEV);
        }
        // An unpinned owner that is going is releasing its engines: no new
        // ones (they could outlive its text).
        // SAFETY: As above.
        if !pinned && !module.is_null() && !unsafe { crate::shim::module_live(module) } {
            pr_err!("attach: the engine's module is being unloaded\n");
            return Err(ENODEV);
        }
        let engine = KBox::pin_init(
            pin_init!(Engine {
                ops,
                data,
                syscall: [
                    entry.unwrap_or(syscall_resume),
                    exit.unwrap_or(syscall_resume),
                ],
                // SAFETY: Builds a counter value; no memory is touched.
                refcount: Opaque::new(unsafe { bindings::REFCOUNT_INIT(2) }),
                state: AtomicU32::new(ATTACHED_REF),
                events: AtomicU64::new(0),
                pins: AtomicU64::new(0),
                seq: AtomicU64::new(0),
                owner,
                next: AtomicPtr::new(ptr::null_mut()),
                module,
                pinned,
                ops_flags: flags,
                registry: RegistryLinks::new(),
                release_next: AtomicPtr::new(ptr::null_mut()),
                rcu: Opaque::uninit(),
            }),
            GFP_KERNEL,
        );
        let engine = match engine {
            Ok(engine) => engine,
            Err(e) => {
                if pinned {
                    // SAFETY: Drops the reference taken above.
                    unsafe { bindings::module_put(module) };
                }
                return Err(e);
            }
        };
        // SAFETY: The engine is never moved out of its allocation: it is
        // freed in place by `put`.
        let raw = KBox::into_raw(unsafe { Pin::into_inner_unchecked(engine) });
        // INVARIANT: Fresh and exclusively ours.
        Ok(NewEngine {
            // SAFETY: `KBox::into_raw` never returns null.
            engine: unsafe { NonNull::new_unchecked(raw) },
        })
    }

    /// Borrows an engine from a pointer handed to C.
    ///
    /// # Safety
    ///
    /// `ptr` must be an engine on which the caller holds a reference (or is
    /// otherwise kept alive) for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut Engine) -> &'a Engine {
        // SAFETY: By the caller's promise.
        unsafe { &*ptr }
    }

    pub(crate) fn as_ptr(&self) -> *mut Engine {
        (self as *const Engine).cast_mut()
    }

    /// The callbacks. Only called on an engine that can still be reported
    /// to (linked, or pinned for a callback).
    pub(crate) fn ops(&self) -> &EngineOps {
        // SAFETY: `ops` is valid while the owner module is loaded: a pinned
        // engine holds a reference on it, and an unpinned one is detached
        // and released before the module's memory goes (`release.rs`).
        unsafe { &*self.ops }
    }

    /// Whether the engine has a `report_signal` callback (an INTERRUPT
    /// report uses it instead of `report_quiesce`, as utrace's did).
    pub(crate) fn has_report_signal(&self) -> bool {
        self.ops().report_signal.is_some()
    }

    pub(crate) fn ops_ptr(&self) -> *const EngineOps {
        self.ops
    }

    pub(crate) fn data(&self) -> *mut c_void {
        self.data
    }

    pub(crate) fn seq(&self) -> u64 {
        self.seq.load(SeqCst)
    }

    /// Gives the engine its attach sequence number, just before linking it.
    pub(crate) fn set_seq(&self, seq: u64) {
        self.seq.store(seq, SeqCst);
    }

    /// Drops a reference (the `dec_ref` of `ARef<Engine>`, in
    /// `release.rs`): true if it was the last one.
    ///
    /// # Safety
    ///
    /// The caller owns one reference, which it gives up.
    pub(crate) unsafe fn dec_ref_is_last(&self) -> bool {
        // SAFETY: The caller owns a reference, so the count is not zero.
        unsafe { bindings::refcount_dec_and_test(self.refcount.get()) }
    }

    /// Takes a reference (the `inc_ref` of `ARef<Engine>`).
    pub(crate) fn inc_ref(&self) {
        // SAFETY: The caller holds a reference (or the engine is linked and
        // holds its attached one), so the count is not zero.
        unsafe { bindings::refcount_inc(self.refcount.get()) };
    }

    /// Marks the engine linked on a list (or not); returns whether it was.
    /// Called by `ListWriter` under the list's writer lock.
    pub(crate) fn set_linked(&self, linked: bool) -> bool {
        let old = if linked {
            self.state.fetch_or(LINKED, SeqCst)
        } else {
            self.state.fetch_and(!LINKED, SeqCst)
        };
        old & LINKED != 0
    }

    /// The owner module, if `ops` names one.
    pub(crate) fn module(&self) -> *mut bindings::module {
        self.module
    }

    /// Whether the engine is `module`'s (and carries `data`, if given): the
    /// engines `utrace_release_engines()` finishes.
    pub(crate) fn belongs_to(
        &self,
        module: *mut bindings::module,
        data: Option<*mut c_void>,
    ) -> bool {
        self.module == module && data.map_or(true, |d| self.data == d)
    }

    /// Whether its syscall entry callback wants to be called where it may
    /// sleep (`UTRACE_OPS_SYSCALL_SLEEPABLE`).
    pub(crate) fn sleepable_entry(&self) -> bool {
        self.ops_flags & OPS_SYSCALL_SLEEPABLE != 0
    }

    /// Whether the engine holds a reference on its owner module.
    pub(crate) fn pins_module(&self) -> bool {
        self.pinned
    }

    /// Sets `bit` in the state word; returns whether it was already set.
    pub(crate) fn set_flag(&self, bit: u32) -> bool {
        self.state.fetch_or(bit, SeqCst) & bit != 0
    }

    pub(crate) fn has_flag(&self, bit: u32) -> bool {
        self.state.load(SeqCst) & bit != 0
    }

    /// Frees the memory after an RCU grace period (`leave` may still read
    /// the engine inside its read-side section after its callback's pin was
    /// the last thing keeping the attached reference).
    ///
    /// # Safety
    ///
    /// The last reference is gone and `release` was dealt with.
    pub(crate) unsafe fn free(this: *mut Engine) {
        // SAFETY: `rcu` is free: `retire`'s callback, if it was queued, has
        // been taken off the RCU queue before it was called (it may still be
        // running, on its way out after it set UNLINKED): the attached
        // reference goes only once UNLINKED is set, so the head is not on
        // the queue twice.
        unsafe { bindings::call_rcu((*this).rcu.get(), Some(engine_free_rcu)) };
    }

    /// Whether no callback can come any more: detached, off every list for
    /// an RCU grace period, and none in flight.
    pub(crate) fn quiet(&self) -> bool {
        self.pins.load(SeqCst) & (DETACHED | UNLINKED | CB_MASK) == DETACHED | UNLINKED
    }

    /// Frees an engine that never got attached: no `release` call, since
    /// the caller still owns `data`.
    ///
    /// # Safety
    ///
    /// `this` came from [`Engine::create`], was never linked nor handed out.
    unsafe fn discard(this: *mut Engine) {
        // SAFETY: Exclusively owned, allocated with `KBox` by `new`.
        let engine = unsafe { KBox::from_raw(this) };
        let pinned = engine.pinned;
        let module = engine.module;
        drop(engine);
        if pinned {
            // SAFETY: Drops the reference `new` took.
            unsafe { bindings::module_put(module) };
        }
    }

    pub(crate) fn events(&self) -> Events {
        self.events.load(SeqCst)
    }

    /// The events after which a callback may attach to a new child: CLONE,
    /// unless the engine was attached with `UTRACE_ATTACH_NOFOLLOW`.
    pub(crate) fn follow_events(&self) -> Events {
        if self.has_flag(NOFOLLOW) {
            return 0;
        }
        self.events() & crate::events::CLONE
    }

    pub(crate) fn set_events(&self, events: Events) {
        self.events.store(events, SeqCst);
    }

    /// Whether the engine wants its task stopped.
    pub(crate) fn wants_stop(&self) -> bool {
        self.pins.load(SeqCst) & STOP != 0
    }

    pub(crate) fn set_stop(&self, stop: bool) {
        if stop {
            self.pins.fetch_or(STOP, SeqCst);
        } else {
            self.pins.fetch_and(!STOP, SeqCst);
        }
    }

    pub(crate) fn is_detached(&self) -> bool {
        self.pins.load(SeqCst) & DETACHED != 0
    }

    /// Marks the engine detached; false if it already was. The caller holds
    /// the lock of the list it is on and unlinks it right after.
    pub(crate) fn mark_detached(&self) -> bool {
        self.pins.fetch_or(DETACHED, SeqCst) & DETACHED == 0
    }

    pub(crate) fn callback_in_flight(&self) -> bool {
        self.pins.load(SeqCst) & CB_MASK != 0
    }

    /// Pins the engine for one callback: `None` (and nothing pinned) if it
    /// is detached. Called with the engine found on a list under RCU; the
    /// pin keeps it valid after that section ends, until dropped.
    #[inline(always)]
    pub(crate) fn enter(&self) -> Option<Pinned> {
        // One locked add that also reads `DETACHED`: a detach's `fetch_or`
        // comes before it (and is seen) or after it (and sees the pin).
        // `DETACHED` is the sign bit, which the count cannot carry into:
        // tested on the new value, a `lock inc` and a sign test.
        let new = self.pins.fetch_add(CB_ONE, SeqCst).wrapping_add(CB_ONE);
        // INVARIANT: `pins` counts this pin from here on.
        let pinned = Pinned {
            engine: NonNull::from(self),
            _not_send: PhantomData,
        };
        if (new as i64) < 0 {
            pinned.undo();
            return None;
        }
        Some(pinned)
    }

    /// Ends a callback begun with [`Engine::enter`] (the drop of its
    /// [`Pinned`]): wakes `barrier` waiters when it was the last one, and
    /// drops the attached reference if the engine was detached meanwhile.
    ///
    /// # Safety
    ///
    /// `this` was pinned by `enter`; it may be freed when this returns.
    unsafe fn leave(this: *mut Engine) {
        // Once the count of callbacks drops to zero nothing pins the
        // engine: the RCU callback of a detach may drop the attached
        // reference and a barrier waiter may put the last one at once. The
        // read-side section keeps the memory valid until we are done with
        // it (`put` frees by RCU).
        let rcu = RcuGuard::new();
        // SAFETY: Pinned by `enter`; `rcu` is held.
        unsafe { Engine::leave_in(this, &rcu, false) };
    }

    /// [`Engine::leave`] inside a read-side section the caller holds; with
    /// `drop_stop`, also ends the stop the engine wants, in the same atomic
    /// step (a report pass's callback answered something other than STOP,
    /// which it does while the callback still counts as in flight).
    ///
    /// # Safety
    ///
    /// `this` was pinned by `enter`; it may be freed once `_rcu` ends.
    unsafe fn leave_in(this: *mut Engine, _rcu: &RcuGuard, drop_stop: bool) {
        // SAFETY: Pinned by `enter` (the attached reference is not dropped
        // while callbacks are counted), then by `_rcu`.
        let engine = unsafe { &*this };
        // The usual case, the word being this pin alone (the one callback
        // in flight, no `barrier` waiter, no stop, not detached), is a
        // `lock cmpxchg` and a branch; anything else is looked at again.
        if engine
            .pins
            .compare_exchange(CB_ONE, 0, SeqCst, SeqCst)
            .is_err()
        {
            // SAFETY: As for this function.
            unsafe { Engine::left_busy(this, drop_stop) };
        }
    }

    /// The rest of [`Engine::leave_in`] when `pins` held more than its pin:
    /// the decrement (and the stop's end, with `drop_stop`) in one atomic
    /// step; then wakes `barrier` waiters (who look again whether a
    /// callback is in flight) and, if no callback is in flight and the
    /// engine is unlinked, drops the attached reference. The word is read
    /// again after the decrement: of this and the RCU callback that sets
    /// `UNLINKED` (and drops the reference if no callback is counted then),
    /// at least one sees the other, and the drop happens once
    /// ([`Engine::drop_attached_ref`]). No callback can start once
    /// `UNLINKED` is set: the engine is on no list for a grace period.
    ///
    /// # Safety
    ///
    /// As for [`Engine::leave_in`], whose pin this ends.
    #[cold]
    #[inline(never)]
    unsafe fn left_busy(this: *mut Engine, drop_stop: bool) {
        // SAFETY: Valid inside the caller's read-side section.
        let engine = unsafe { &*this };
        if drop_stop {
            // The closure always returns `Some`: the update cannot fail.
            let _ = engine.pins.fetch_update(SeqCst, SeqCst, |pins| {
                Some(pins.wrapping_sub(CB_ONE) & !STOP)
            });
        } else {
            engine.pins.fetch_sub(CB_ONE, SeqCst);
        }
        engine.wake_barrier();
        if engine.pins.load(SeqCst) & (UNLINKED | CB_MASK) == UNLINKED {
            // SAFETY: May free `this`; not touched afterwards.
            unsafe { Engine::drop_attached_ref(this) };
        }
    }

    /// Drops the implicit attached reference, once (a second call does
    /// nothing).
    ///
    /// # Safety
    ///
    /// `this` is valid: its attached reference keeps it so if not yet
    /// dropped, and otherwise the caller's read-side section (a callback's
    /// end) or being an RCU callback queued after the unlink (`retire`'s)
    /// does; it may be freed when this returns.
    unsafe fn drop_attached_ref(this: *mut Engine) {
        // SAFETY: By the function's safety requirements.
        let old = unsafe { (*this).state.fetch_and(!ATTACHED_REF, SeqCst) };
        if old & ATTACHED_REF != 0 {
            // SAFETY: Not freed before the drop below.
            unsafe { (*this).wake_barrier() };
            // SAFETY: The attached reference is ours to give up: dropped as
            // an `ARef`, whose last drop releases the engine where that may
            // run (from the release worker here: an RCU callback or a
            // report pass's read-side section cannot sleep).
            drop(unsafe { ARef::from_raw(NonNull::new_unchecked(this)) });
        }
    }

    /// Called after the engine was marked detached and unlinked: once an RCU
    /// grace period has passed, drops the attached reference as soon as no
    /// callback is in flight.
    pub(crate) fn retire(&self) {
        // SAFETY: `rcu` belongs to this engine and is queued once: only the
        // caller that won `mark_detached` calls `retire`. The attached
        // reference keeps the engine alive until the callback has run.
        unsafe { bindings::call_rcu(self.rcu.get(), Some(engine_unlinked_rcu)) };
    }

    /// Wakes `barrier` waiters, if any.
    fn wake_barrier(&self) {
        if self.pins.load(SeqCst) & WAITER_MASK != 0 {
            wait::wake(self.as_ptr().cast());
        }
    }

    /// Fully detached: no callback can come and the attached reference is
    /// gone, so the callers' references are the only ones left.
    fn fully_detached(&self) -> bool {
        self.state.load(SeqCst) & ATTACHED_REF == 0
            && self.pins.load(SeqCst) & (DETACHED | CB_MASK) == DETACHED
    }

    /// `utrace_barrier()`: waits until no callback to this engine is in
    /// flight and, for a detached engine, until the attached reference is
    /// gone too (so a `put` by the caller that drops the last reference calls
    /// `release` there and then). `ESRCH` if it was detached with no callback
    /// in flight when called.
    pub(crate) fn barrier(&self) -> Result {
        let idle = self.is_detached() && !self.callback_in_flight();
        self.pins.fetch_add(WAITER_ONE, SeqCst);
        let ret = wait::wait_interruptible(self.as_ptr().cast(), || {
            if self.is_detached() {
                self.fully_detached()
            } else {
                !self.callback_in_flight()
            }
        });
        self.pins.fetch_sub(WAITER_ONE, SeqCst);
        ret?;
        if idle {
            return Err(ESRCH);
        }
        Ok(())
    }
}

/// An engine made by [`Engine::create`] and not yet attached: dropping it
/// frees it (no `release`: the caller still owns `data`);
/// [`NewEngine::attached`] hands over the caller's reference once it is
/// linked.
///
/// # Invariants
///
/// `engine` came from `Engine::create` and is not handed out; it is linked on
/// a list only just before `attached` consumes this.
pub(crate) struct NewEngine {
    engine: NonNull<Engine>,
}

impl core::ops::Deref for NewEngine {
    type Target = Engine;

    fn deref(&self) -> &Engine {
        // SAFETY: Owned by us (type invariant).
        unsafe { self.engine.as_ref() }
    }
}

impl NewEngine {
    /// The engine is linked (the list holds its attached reference): the
    /// caller's reference, as an `ARef`.
    pub(crate) fn attached(self) -> ARef<Engine> {
        let engine = self.engine;
        core::mem::forget(self);
        // SAFETY: `Engine::create` counted the caller's reference; it is ours
        // to hand over (the attached one is the list's).
        unsafe { ARef::from_raw(engine) }
    }
}

impl Drop for NewEngine {
    fn drop(&mut self) {
        // SAFETY: Never linked nor handed out (type invariant).
        unsafe { Engine::discard(self.engine.as_ptr()) };
    }
}

/// An engine pinned for a callback by [`Engine::enter`]: it is not freed
/// and `utrace_barrier()` waits while this lives. Its methods call the
/// engine module's callbacks; dropping it ends the callback. Not `Send`:
/// it belongs to the report pass that made it.
///
/// # Invariants
///
/// `engine` is valid and its `pins` count this pin.
pub(crate) struct Pinned {
    engine: NonNull<Engine>,
    _not_send: PhantomData<*mut ()>,
}

impl core::ops::Deref for Pinned {
    type Target = Engine;

    fn deref(&self) -> &Engine {
        // SAFETY: Valid while pinned (type invariant).
        unsafe { self.engine.as_ref() }
    }
}

impl Pinned {
    /// Undoes a pin [`Engine::enter`] took on a detached engine. Out of
    /// line: rare, and kept out of the report passes' loops.
    #[cold]
    #[inline(never)]
    fn undo(self) {
        drop(self);
    }

    /// Ends the callback inside the read-side section `rcu` (saves
    /// [`Engine::leave`] a section of its own: the report passes unpin the
    /// engine they called while they look for the next one under RCU).
    /// `drop_stop`: the callback's answer ends the stop the engine wants
    /// (anything but STOP: utrace's only sticky action), as part of the
    /// unpin, so before `utrace_barrier()` can see the callback over.
    /// Returns the engine, which may be detached and released from here on
    /// but is freed only after `rcu` ends: its `next` may still be
    /// followed in `rcu` (see [`EngineList::next_to_report`]).
    ///
    /// [`EngineList::next_to_report`]: crate::engine_list::EngineList::next_to_report
    pub(crate) fn unpin_in<'a>(self, rcu: &'a RcuGuard, drop_stop: bool) -> &'a Engine {
        let engine = self.engine.as_ptr();
        core::mem::forget(self);
        // SAFETY: Pinned by `enter` (type invariant, and `self` is gone, so
        // it is unpinned once); `rcu` outlives the use of `engine`.
        unsafe { Engine::leave_in(engine, rcu, drop_stop) };
        // SAFETY: Engines are freed after a grace period that follows the
        // drop of their last reference (`leave_in`'s safety section), so
        // not before `rcu`, a read-side section, ends.
        unsafe { &*engine }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: Pinned by `enter` (type invariant); not used afterwards.
        unsafe { Engine::leave(self.engine.as_ptr()) };
    }
}

/// The callbacks, called through the pin: the engine module promises (in
/// `include/utrace_rs.h`) that they may be called while the engine is
/// attached or pinned, from the contexts the header documents, which are
/// the report passes' (`report_pass.rs`).
impl Pinned {
    pub(crate) fn call_quiesce(&self, act: u32, event: Events) -> u32 {
        match self.ops().report_quiesce {
            // SAFETY: The engine's callback, with the engine pinned.
            Some(f) => unsafe { f(act, self.as_ptr(), event) },
            None => RESUME,
        }
    }

    pub(crate) fn call_clone(&self, act: u32, parent: &Task, flags: u64, child: &Task) -> u32 {
        match self.ops().report_clone {
            // SAFETY: As above; `parent` and `child` are live tasks.
            Some(f) => unsafe {
                f(
                    act,
                    self.as_ptr(),
                    task::raw(parent),
                    flags,
                    task::raw(child),
                )
            },
            None => RESUME,
        }
    }

    pub(crate) fn call_exec(&self, act: u32, filename: Option<&CStr>, old_pid: i32) -> u32 {
        let filename = filename.map_or(ptr::null(), |f| f.as_ptr().cast::<u8>());
        match self.ops().report_exec {
            // SAFETY: As above; `filename` is null or a NUL-terminated string
            // alive for the call; the report runs in the task's own work,
            // so `user_regs()` are its registers.
            Some(f) => unsafe {
                f(
                    act,
                    self.as_ptr(),
                    filename,
                    old_pid,
                    crate::shim::user_regs(),
                )
            },
            None => RESUME,
        }
    }

    /// `report_signal` with `current`'s user registers `regs`, the
    /// signal's `info` and, but for a HANDLER report, its dispositions.
    pub(crate) fn call_signal(
        &self,
        act: u32,
        regs: *mut bindings::pt_regs,
        info: &mut bindings::kernel_siginfo,
        ka: Option<(&bindings::k_sigaction, &mut bindings::k_sigaction)>,
    ) -> u32 {
        let (orig_ka, return_ka) = match ka {
            Some((orig, ret)) => (orig as *const _, ret as *mut _),
            None => (ptr::null(), ptr::null_mut()),
        };
        match self.ops().report_signal {
            // SAFETY: As above; `regs` are `current`'s, and `info` and the
            // dispositions outlive the call.
            Some(f) => unsafe { f(act, self.as_ptr(), regs, info, orig_ka, return_ka) },
            // Leave the signal action as it was.
            None => (act & !MASK) | RESUME,
        }
    }

    /// `report_jctl`: `type_` is `CLD_STOPPED` or `CLD_CONTINUED`.
    pub(crate) fn call_jctl(&self, act: u32, type_: i32, notify: i32) -> u32 {
        match self.ops().report_jctl {
            // SAFETY: As above.
            Some(f) => unsafe { f(act, self.as_ptr(), type_, notify) },
            None => RESUME,
        }
    }

    pub(crate) fn call_exit(&self, act: u32, orig: i64, code: &mut i64) -> u32 {
        match self.ops().report_exit {
            // SAFETY: As above; `code` outlives the call.
            Some(f) => unsafe { f(act, self.as_ptr(), orig, code) },
            None => RESUME,
        }
    }

    pub(crate) fn call_death(&self, group_dead: bool, signal: i32) -> u32 {
        match self.ops().report_death {
            // SAFETY: As above.
            Some(f) => unsafe { f(self.as_ptr(), group_dead, signal) },
            None => RESUME,
        }
    }

    pub(crate) fn call_reap(&self, task: &Task) {
        if let Some(f) = self.ops().report_reap {
            // SAFETY: As above; `task` is alive during the call.
            unsafe { f(self.as_ptr(), task::raw(task)) };
        }
    }

    /// SYSCALL_ENTRY (`entry`) or SYSCALL_EXIT, with `current`'s registers.
    pub(crate) fn call_syscall(&self, entry: bool, act: u32, regs: &mut SyscallRegs) -> u32 {
        let f = self.syscall[usize::from(!entry)];
        // SAFETY: As above (or `syscall_resume`); `regs` are the registers of
        // the syscall of `current`, valid for the call.
        unsafe { f(act, self.as_ptr(), regs.as_ptr()) }
    }
}

/// RCU callback queued by [`Engine::free`]: frees the memory.
///
/// # Safety
///
/// `head` is the `rcu` field of an engine allocated by [`Engine::create`] whose
/// last reference is gone.
unsafe extern "C" fn engine_free_rcu(head: *mut bindings::callback_head) {
    // SAFETY: `head` is the `rcu` field of an `Engine`.
    let this = unsafe { crate::compat::container_of_mut!(head, Engine, rcu) };
    // SAFETY: Allocated with `KBox` by `new`; no reference and no reader
    // (a grace period has passed) is left.
    drop(unsafe { KBox::from_raw(this) });
}

/// RCU callback queued by [`Engine::retire`].
///
/// # Safety
///
/// `head` is the `rcu` field of an engine still holding its attached reference.
unsafe extern "C" fn engine_unlinked_rcu(head: *mut bindings::callback_head) {
    // SAFETY: `head` is the `rcu` field of an `Engine`.
    let this = unsafe { crate::compat::container_of_mut!(head, Engine, rcu) };
    // SAFETY: The attached reference keeps `this` alive until UNLINKED is
    // set below; after that a `leave` on another CPU may drop it and the
    // last reference, but the memory is then freed by another RCU callback
    // (`Engine::free`), whose grace period cannot end while this callback
    // runs (RCU callbacks run with bottom halves disabled).
    let engine = unsafe { &*this };
    if engine.pins.fetch_or(UNLINKED, SeqCst) & CB_MASK == 0 {
        // SAFETY: May free `this`; not touched afterwards.
        unsafe { Engine::drop_attached_ref(this) };
    }
}
