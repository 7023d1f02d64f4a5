// SPDX-License-Identifier: GPL-2.0

//! The module's global state: the task table, the global engines, the
//! attach sequence, the syscall probes' users, and the count of queued work
//! that must run before the module's text may go away.

use crate::engine::Engine;
use crate::engine_list::{EngineList, ListWriter};
use crate::events::Events;
use crate::table::TaskTable;
use crate::utask::ReapQueue;
use crate::work::WorkCounter;
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{new_mutex, new_spinlock, Mutex, SpinLock};
use kernel::types::Opaque;

#[pin_data]
pub(crate) struct State {
    #[pin]
    pub(crate) table: TaskTable,

    /// Writer lock of `global` (never taken by reporters).
    #[pin]
    pub(crate) global_lock: SpinLock<()>,
    /// Global engines, in attach order: every user task reports to them.
    pub(crate) global: EngineList,
    /// Union of the global engines' event masks.
    global_events: AtomicU64,
    /// Union of their [`Engine::follow_events`].
    global_follow_events: AtomicU64,
    /// Last attach sequence number handed out.
    seq: AtomicU64,
    /// Engines attached and not yet detached.
    attached: AtomicUsize,
    /// Events no engine was told of because memory ran out (`GFP_ATOMIC` in
    /// the hooks); streams turn increases into `LOST <n>` records.
    lost: AtomicU64,
    /// Task works and reap works queued and not yet finished.
    #[pin]
    pub(crate) work: WorkCounter,
    /// Engines with SYSCALL events; the syscall probes are registered while
    /// there is one (`syscall_lock` guards the registration).
    syscall_users: AtomicUsize,
    syscall_registered: AtomicBool,
    #[pin]
    syscall_lock: Mutex<()>,
    /// Unregisters the syscall probes when the last user went, from process
    /// context (the last user may go in atomic context).
    #[pin]
    syscall_off: Opaque<bindings::work_struct>,
    /// The `UTask`s of freed tasks, and the work item that reaps them.
    pub(crate) reaps: ReapQueue,
    #[pin]
    reap_work: Opaque<bindings::work_struct>,
    /// The reap worker while it runs a REAP callback, and that callback's
    /// engine: [`State::reporting`] for the worker, which has no `UTask`.
    reaper: AtomicPtr<bindings::task_struct>,
    reap_reporting: AtomicPtr<Engine>,
}

// SAFETY: Shared by every task and the module; mutable state is atomic or
// behind its locks, and the work item is the workqueue's to synchronise.
unsafe impl Send for State {}
// SAFETY: See `Send`.
unsafe impl Sync for State {}

/// Set while the module is live (before the hooks are registered until after
/// they are gone and all work has run).
static STATE: AtomicPtr<State> = AtomicPtr::new(ptr::null_mut());

/// The live state, or `None` outside the module's live window.
pub(crate) fn get() -> Option<&'static State> {
    let st = STATE.load(SeqCst);
    // SAFETY: `STATE` points to the pinned `State` owned by the module while
    // set; it is cleared before that is freed, and only after nothing that
    // calls this can run any more (hooks unregistered, work drained, engine
    // modules, which depend on this one, gone).
    (!st.is_null()).then(|| unsafe { &*st })
}

/// # Safety
///
/// Called by the workqueue with the `syscall_off` field of the live state.
unsafe extern "C" fn syscall_off_work(_work: *mut bindings::work_struct) {
    if let Some(st) = get() {
        st.syscall_off();
    }
}

impl State {
    /// The state; `reap` is the work function that drains `reaps`
    /// (reporting's, which this layer does not know).
    pub(crate) fn new(
        reap: unsafe extern "C" fn(*mut bindings::work_struct),
    ) -> impl PinInit<Self> {
        pin_init!(State {
            table <- TaskTable::new(),
            global_lock <- new_spinlock!(()),
            global: EngineList::new(),
            global_events: AtomicU64::new(0),
            global_follow_events: AtomicU64::new(0),
            seq: AtomicU64::new(0),
            attached: AtomicUsize::new(0),
            lost: AtomicU64::new(0),
            work <- WorkCounter::new(),
            syscall_users: AtomicUsize::new(0),
            syscall_registered: AtomicBool::new(false),
            syscall_lock <- new_mutex!(()),
            // SAFETY: `slot` is the field's memory, initialised in place.
            syscall_off <- Opaque::ffi_init(|slot| unsafe {
                bindings::init_work_with_key(
                    slot,
                    Some(syscall_off_work),
                    false,
                    kernel::c_str!("utrace_rs_syscall_off").as_char_ptr(),
                    static_lock_class_key!(),
                )
            }),
            reaps: ReapQueue::new(),
            // SAFETY: `slot` is the field's memory, initialised in place.
            reap_work <- Opaque::ffi_init(|slot| unsafe {
                bindings::init_work_with_key(
                    slot,
                    Some(reap),
                    false,
                    kernel::c_str!("utrace_rs_reap").as_char_ptr(),
                    static_lock_class_key!(),
                )
            }),
            reaper: AtomicPtr::new(ptr::null_mut()),
            reap_reporting: AtomicPtr::new(ptr::null_mut()),
        })
    }

    /// Queues `ut`'s reap (the free hook): one work item drains every
    /// `UTask` queued until it runs.
    pub(crate) fn queue_reap(&self, ut: &crate::utask::UTask) {
        if ut.queue_reap(&self.work, &self.reaps) {
            // SAFETY: Initialised in `new`; queueing it while it is queued
            // does nothing, and while it runs makes it run again (it drains
            // what it finds then). `wait_idle` waits for it.
            unsafe { crate::shim::queue_work(self.reap_work.get()) };
        }
    }

    /// An engine got SYSCALL events: make sure the probes are registered.
    /// Sleeps when it has to register them (the first such engine).
    pub(crate) fn syscall_user_add(&self) -> Result {
        self.syscall_users.fetch_add(1, SeqCst);
        if self.syscall_registered.load(SeqCst) {
            return Ok(());
        }
        let _guard = self.syscall_lock.lock();
        if !self.syscall_registered.load(SeqCst) {
            if let Err(e) = crate::shim::syscall_hooks(true) {
                self.syscall_users.fetch_sub(1, SeqCst);
                return Err(e);
            }
            self.syscall_registered.store(true, SeqCst);
        }
        Ok(())
    }

    /// An engine with SYSCALL events lost them or went: the last one has the
    /// probes unregistered (later, from a workqueue). Any context.
    pub(crate) fn syscall_user_sub(&self) {
        if self.syscall_users.fetch_sub(1, SeqCst) == 1 {
            // SAFETY: Initialised in `new`, cancelled in `syscall_shutdown`;
            // queueing an already queued work does nothing.
            unsafe { crate::shim::queue_work(self.syscall_off.get()) };
        }
    }

    fn syscall_off(&self) {
        let _guard = self.syscall_lock.lock();
        if self.syscall_users.load(SeqCst) == 0 && self.syscall_registered.load(SeqCst) {
            // Clear `registered` before unregistering, then look at the
            // users again: a `syscall_user_add` either sees it cleared (and
            // waits on the lock to register again) or is seen here. The
            // unregistration waits for the probes' grace periods (on 7.x
            // SRCU and RCU tasks-trace: long), a new user must not find
            // `registered` still set meanwhile and go without probes.
            self.syscall_registered.store(false, SeqCst);
            if self.syscall_users.load(SeqCst) != 0 {
                self.syscall_registered.store(true, SeqCst);
                return;
            }
            let _ = crate::shim::syscall_hooks(false);
        }
    }

    /// Module exit: no unregister work left, probes gone.
    pub(crate) fn syscall_shutdown(&self) {
        // SAFETY: Initialised in `new`.
        unsafe { bindings::cancel_work_sync(self.syscall_off.get()) };
        let _guard = self.syscall_lock.lock();
        if self.syscall_registered.load(SeqCst) {
            let _ = crate::shim::syscall_hooks(false);
            self.syscall_registered.store(false, SeqCst);
        }
    }

    /// Makes `self` the live state.
    pub(crate) fn publish(self: Pin<&Self>) {
        STATE.store((&*self as *const State).cast_mut(), SeqCst);
    }

    pub(crate) fn unpublish() {
        STATE.store(ptr::null_mut(), SeqCst);
    }

    /// The sequence bound of an event happening now: engines attached later
    /// do not get it.
    /// An event was lost (no memory to record it): counted for
    /// `utrace_lost_events()` and the streams.
    pub(crate) fn event_lost(&self) {
        self.lost.fetch_add(1, SeqCst);
    }

    /// Events lost since the module was loaded.
    pub(crate) fn lost(&self) -> u64 {
        self.lost.load(SeqCst)
    }

    pub(crate) fn seq_now(&self) -> u64 {
        self.seq.load(SeqCst)
    }

    /// A new attach sequence number. Called under the writer lock of the
    /// list the engine goes on, so lists stay sorted.
    pub(crate) fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, SeqCst) + 1
    }

    /// The engine whose callback `current` is running, or null. Only
    /// compared, or dereferenced by `current` itself (its callback pins the
    /// engine).
    pub(crate) fn reporting(&self) -> *mut Engine {
        let current = crate::task::current();
        if self.reaper.load(SeqCst) == current {
            return self.reap_reporting.load(SeqCst);
        }
        let rcu = crate::shim::RcuGuard::new();
        self.table
            .lookup(crate::task::current(), &rcu)
            .map_or(ptr::null_mut(), |ut| ut.reporting.load(SeqCst))
    }

    /// Runs `f`, the REAP callback of `engine`, as `current`'s callback to
    /// it for [`State::reporting`] (so that `utrace_barrier()` on itself
    /// returns at once and `utrace_release_engines()` refuses, as from the
    /// task's own callbacks). REAP runs in the reap worker, not in the task:
    /// the mark is the state's, and one worker at a time sets it (the reap
    /// work item does not run concurrently with itself).
    pub(crate) fn reap_callback(&self, engine: &Engine, f: impl FnOnce()) {
        self.reap_reporting.store(engine.as_ptr(), SeqCst);
        self.reaper.store(crate::task::current(), SeqCst);
        f();
        self.reaper.store(ptr::null_mut(), SeqCst);
        self.reap_reporting.store(ptr::null_mut(), SeqCst);
    }

    /// Whether any engine is attached at all: the hooks' first check.
    pub(crate) fn any_attached(&self) -> bool {
        self.attached.load(SeqCst) != 0
    }

    pub(crate) fn attached_count(&self) -> usize {
        self.attached.load(SeqCst)
    }

    pub(crate) fn engine_attached(&self) {
        self.attached.fetch_add(1, SeqCst);
    }

    pub(crate) fn engine_detached(&self) {
        self.attached.fetch_sub(1, SeqCst);
    }

    pub(crate) fn global_events(&self) -> Events {
        self.global_events.load(SeqCst)
    }

    /// The union of the global engines' [`Engine::follow_events`].
    pub(crate) fn global_follow_events(&self) -> Events {
        self.global_follow_events.load(SeqCst)
    }

    /// Recomputes the global union, with the global list's writer lock
    /// held (`list` is the proof).
    pub(crate) fn update_global_events(&self, list: &ListWriter<'_>) {
        let union = list.iter().fold(0, |acc, e: &Engine| acc | e.events());
        let follow = list
            .iter()
            .fold(0, |acc, e: &Engine| acc | e.follow_events());
        self.global_follow_events.store(follow, SeqCst);
        self.global_events.store(union, SeqCst);
    }

    /// Waits until all queued work has run (module exit).
    pub(crate) fn wait_idle(&self) {
        // Tasks sleeping in a syscall with work queued: make them run it now.
        self.table.for_each(|ut| ut.kick_if_queued(&self.work));
        self.work.wait_idle();
        // The drainer ends the count of the last reap before it returns.
        // SAFETY: Initialised in `new`; nothing queues it any more.
        unsafe { bindings::cancel_work_sync(self.reap_work.get()) };
    }
}
