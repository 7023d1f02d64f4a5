// SPDX-License-Identifier: GPL-2.0

//! Where and when an engine's `ops->release` runs: the last reference of
//! an `ARef<Engine>` (this file implements `AlwaysRefCounted` for
//! [`Engine`]), the release worker, and the registry through which an
//! engine module's engines are found and finished before its memory goes
//! (`detach::release_engines`).
//!
//! The rules (`include/utrace_rs.h`):
//! - `release` runs exactly once, in process context, where it may sleep:
//!   at an engine module's last `utrace_engine_put()` when that caller may
//!   sleep, else from the release worker (the last reference dropped by an
//!   RCU callback, by a report pass, or by a caller in atomic context).
//! - An engine whose ops name an owner module is on the registry until its
//!   release has run. `detach::release_engines` (`utrace_release_engines()`,
//!   and the module notifier at `MODULE_STATE_GOING`) detaches a module's
//!   engines, waits until no callback can come, and runs the releases still
//!   due right there ([`Releaser::next_step`]): afterwards no code of that
//!   module is called for them, whoever still holds references (their puts
//!   then only free memory).
//!
//! Whoever sets [`RELEASED`] first (under the registry lock for registered
//! engines) runs the release and drops the module reference; whoever drops
//! the last reference frees the memory. The two may be different callers.

use crate::compat::{ARef, AlwaysRefCounted};
use crate::engine::{Engine, REGISTERED, RELEASED};
use crate::wait;
use core::ffi::c_void;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::SeqCst};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{new_spinlock, SpinLock};
use kernel::types::Opaque;

/// The engines with an owner module whose release has not run yet: a
/// doubly linked list through [`Engine::registry`]. Only reachable through
/// its lock, so `&mut Registry` is the proof that the lock is held.
pub(crate) struct Registry {
    head: *mut Engine,
}

// SAFETY: The engines it links are `Send + Sync`; the list is only touched
// under its lock.
unsafe impl Send for Registry {}

impl Registry {
    fn add(&mut self, e: &Engine) {
        e.registry.prev.set(ptr::null_mut());
        e.registry.next.set(self.head);
        if !self.head.is_null() {
            // SAFETY: Registered engines are valid until they are removed,
            // which needs this lock.
            unsafe { (*self.head).registry.prev.set(e.as_ptr()) };
        }
        // INVARIANT: Links change only here and in `remove`, under the lock.
        self.head = e.as_ptr();
    }

    fn remove(&mut self, e: &Engine) {
        let (prev, next) = (e.registry.prev.get(), e.registry.next.get());
        if prev.is_null() {
            self.head = next;
        } else {
            // SAFETY: A registered neighbour, valid (see `add`).
            unsafe { (*prev).registry.next.set(next) };
        }
        if !next.is_null() {
            // SAFETY: As above.
            unsafe { (*next).registry.prev.set(prev) };
        }
        e.registry.prev.set(ptr::null_mut());
        e.registry.next.set(ptr::null_mut());
    }

    fn iter(&self) -> impl Iterator<Item = &Engine> + '_ {
        let mut cur = self.head;
        core::iter::from_fn(move || {
            if cur.is_null() {
                return None;
            }
            // SAFETY: Registered, so valid while `self` (the lock) is held.
            let e = unsafe { Engine::from_raw(cur) };
            cur = e.registry.next.get();
            Some(e)
        })
    }
}

/// A release claimed by one caller: what it needs to run it, copied while
/// the engine was certainly valid.
pub(crate) struct Claimed {
    release: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
    module: *mut bindings::module,
    pinned: bool,
}

#[pin_data]
pub(crate) struct Releaser {
    #[pin]
    registry: SpinLock<Registry>,
    /// Engines whose last reference went where `release` may not run, for
    /// the worker (a lock-free stack through [`Engine::release_next`]).
    deferred: AtomicPtr<Engine>,
    #[pin]
    work: Opaque<bindings::work_struct>,
    /// Releases claimed and not finished yet.
    releasing: AtomicUsize,
}

// SAFETY: The registry is behind its lock, the rest is atomic, and the work
// item is the workqueue's to synchronise.
unsafe impl Send for Releaser {}
// SAFETY: See `Send`.
unsafe impl Sync for Releaser {}

/// The live releaser (set while `utrace_rs` is loaded, from before the
/// first engine exists until after the last deferred release ran).
static RELEASER: AtomicPtr<Releaser> = AtomicPtr::new(ptr::null_mut());

/// The live releaser, if any.
pub(crate) fn get() -> Option<&'static Releaser> {
    let r = RELEASER.load(SeqCst);
    // SAFETY: `RELEASER` points to the pinned `Releaser` owned by the module
    // while set; it is cleared before that is freed, after its work was
    // flushed and no engine is left.
    (!r.is_null()).then(|| unsafe { &*r })
}

/// # Safety
///
/// Called by the workqueue with the `work` field of the live [`Releaser`].
unsafe extern "C" fn release_work(_work: *mut bindings::work_struct) {
    if let Some(r) = get() {
        r.run_deferred();
    }
}

// SAFETY: `inc_ref`/`dec_ref` are the engine's reference count: the last
// `dec_ref` releases the engine (once, see `Releaser::claim`) and frees it
// after an RCU grace period, never earlier.
unsafe impl AlwaysRefCounted for Engine {
    fn inc_ref(&self) {
        Engine::inc_ref(self);
    }

    unsafe fn dec_ref(obj: NonNull<Self>) {
        let this = obj.as_ptr();
        // SAFETY: The caller owns a reference and gives it up.
        if unsafe { obj.as_ref().dec_ref_is_last() } {
            if crate::shim::may_sleep() {
                // SAFETY: That was the last reference.
                unsafe { finish(this) };
            } else {
                // SAFETY: As above.
                unsafe { defer(this) };
            }
        }
    }
}

impl Releaser {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Releaser {
            registry <- new_spinlock!(Registry { head: ptr::null_mut() }),
            deferred: AtomicPtr::new(ptr::null_mut()),
            // SAFETY: `slot` is the field's memory, initialised in place.
            work <- Opaque::ffi_init(|slot| unsafe {
                bindings::init_work_with_key(
                    slot,
                    Some(release_work),
                    false,
                    kernel::c_str!("utrace_rs_release").as_char_ptr(),
                    static_lock_class_key!(),
                )
            }),
            releasing: AtomicUsize::new(0),
        })
    }

    /// Makes `self` the live releaser.
    pub(crate) fn publish(self: Pin<&Self>) {
        RELEASER.store((&*self as *const Releaser).cast_mut(), SeqCst);
    }

    pub(crate) fn unpublish() {
        RELEASER.store(ptr::null_mut(), SeqCst);
    }

    /// Puts a newly attached engine with an owner module on the registry.
    /// The caller holds a reference, so it cannot be released meanwhile.
    pub(crate) fn register(&self, e: &Engine) {
        if e.module().is_null() {
            return;
        }
        let mut reg = self.registry.lock();
        e.set_flag(REGISTERED);
        reg.add(e);
    }

    /// Takes the release of `e` for the caller, if nobody did before.
    fn claim(&self, e: &Engine) -> Option<Claimed> {
        if e.has_flag(REGISTERED) {
            let mut reg = self.registry.lock();
            return self.claim_locked(&mut reg, e);
        }
        if e.set_flag(RELEASED) {
            return None;
        }
        self.releasing.fetch_add(1, SeqCst);
        Some(Self::claimed(e))
    }

    fn claim_locked(&self, reg: &mut Registry, e: &Engine) -> Option<Claimed> {
        if e.set_flag(RELEASED) {
            return None;
        }
        reg.remove(e);
        self.releasing.fetch_add(1, SeqCst);
        Some(Self::claimed(e))
    }

    fn claimed(e: &Engine) -> Claimed {
        Claimed {
            release: e.ops().release,
            data: e.data(),
            module: e.module(),
            pinned: e.pins_module(),
        }
    }

    /// Runs a claimed release. Process context; may sleep.
    pub(crate) fn run(&self, c: Claimed) {
        if let Some(release) = c.release {
            // SAFETY: The engine module's release callback, called once (the
            // claim), with the data it attached with; its module is pinned
            // or is not gone yet (it is unloaded only after its engines are
            // released, see `release_engines`).
            unsafe { release(c.data) };
        }
        if c.pinned {
            // SAFETY: Drops the reference `Engine::create` took.
            unsafe { bindings::module_put(c.module) };
        }
        self.releasing.fetch_sub(1, SeqCst);
        wait::wake((&self.releasing as *const AtomicUsize).cast());
    }

    fn run_deferred(&self) {
        let mut cur = self.deferred.swap(ptr::null_mut(), SeqCst);
        while !cur.is_null() {
            // SAFETY: Queued by `defer` with its last reference gone; freed
            // only by the `finish` below.
            let next = unsafe { (*cur).release_next.load(SeqCst) };
            // SAFETY: As above.
            unsafe { self.finish(cur) };
            cur = next;
        }
    }

    /// The last reference to `this` is gone: release (unless somebody did)
    /// and free it. Process context.
    ///
    /// # Safety
    ///
    /// `this` is valid and its last reference was dropped.
    unsafe fn finish(&self, this: *mut Engine) {
        // SAFETY: Valid until `free` below.
        if let Some(c) = self.claim(unsafe { Engine::from_raw(this) }) {
            self.run(c);
        }
        // SAFETY: No reference left, release dealt with.
        unsafe { Engine::free(this) };
    }

    /// Waits until every deferred release queued so far has run.
    pub(crate) fn flush(&self) {
        // SAFETY: Initialised in `new`; process context.
        unsafe { bindings::flush_work(self.work.get()) };
    }

    /// The next thing `detach::release_engines` must do about the engines
    /// of `module` (with data `data`, if given) still on the registry:
    /// claim the release of one that no callback can reach any more, wait
    /// for one still busy, detach one attached meanwhile, or nothing left.
    pub(crate) fn next_step(
        &self,
        module: *mut bindings::module,
        data: Option<*mut c_void>,
    ) -> Step {
        let mut reg = self.registry.lock();
        let mut step = Step::Done;
        let mut found = ptr::null_mut();
        for e in reg.iter().filter(|e| e.belongs_to(module, data)) {
            if !e.is_detached() {
                return Step::Attached;
            }
            if !e.quiet() {
                step = Step::Busy;
                continue;
            }
            found = e.as_ptr();
            break;
        }
        if found.is_null() {
            return step;
        }
        // SAFETY: Registered, so valid while the lock is held.
        let e = unsafe { Engine::from_raw(found) };
        match self.claim_locked(&mut reg, e) {
            Some(c) => Step::Claimed(c),
            None => Step::Busy,
        }
    }

    /// Whether any engine of `module` (with data `data`, if given) is on
    /// the registry: the module notifier's quick way out for the many
    /// modules that never had one.
    pub(crate) fn has_engines(
        &self,
        module: *mut bindings::module,
        data: Option<*mut c_void>,
    ) -> bool {
        let reg = self.registry.lock();
        let found = reg.iter().any(|e| e.belongs_to(module, data));
        found
    }

    /// Waits until no release claimed by anyone is still running. Not
    /// interruptible, not even by SIGKILL: the caller (a module's exit or
    /// the module notifier) must not return while a release still runs
    /// the module's code.
    pub(crate) fn wait_releasing(&self) {
        let releasing = &self.releasing;
        wait::wait_uninterruptible_idle((releasing as *const AtomicUsize).cast(), || {
            releasing.load(SeqCst) == 0
        });
    }
}

/// What [`Releaser::next_step`] found.
pub(crate) enum Step {
    Claimed(Claimed),
    Busy,
    Attached,
    Done,
}

/// The last reference to `this` is gone, in a context that may sleep:
/// release and free it now.
///
/// # Safety
///
/// `this` is valid and its last reference was dropped by the caller.
unsafe fn finish(this: *mut Engine) {
    match get() {
        // SAFETY: By the function's safety requirements.
        Some(r) => unsafe { r.finish(this) },
        // SAFETY: As above; utrace-rs is unloading and every engine module
        // is gone: nothing is left to call.
        None => unsafe { Engine::free(this) },
    }
}

/// Drops a reference; if it was the last, the release goes to the worker
/// whatever the context (for puts from inside a callback, where a release
/// must not run even if the caller may sleep).
pub(crate) fn put_deferred(engine: ARef<Engine>) {
    let this = ARef::into_raw(engine).as_ptr();
    // SAFETY: We own that reference and give it up.
    if unsafe { (*this).dec_ref_is_last() } {
        // SAFETY: That was the last reference.
        unsafe { defer(this) };
    }
}

/// The last reference to `this` is gone where `release` may not run: hand
/// it to the release worker. Any context.
///
/// # Safety
///
/// As for [`finish`].
unsafe fn defer(this: *mut Engine) {
    let Some(r) = get() else {
        // SAFETY: As in `finish`.
        unsafe { Engine::free(this) };
        return;
    };
    let mut head = r.deferred.load(SeqCst);
    loop {
        // SAFETY: `this` is valid and exclusively ours now.
        unsafe { (*this).release_next.store(head, SeqCst) };
        match r.deferred.compare_exchange(head, this, SeqCst, SeqCst) {
            Ok(_) => break,
            Err(now) => head = now,
        }
    }
    // SAFETY: Initialised in `new`, flushed before the releaser goes;
    // queueing a queued work does nothing, and the worker takes the whole
    // stack each time it runs.
    unsafe { crate::shim::queue_work(r.work.get()) };
}
