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
    /// Sends the signal kprobe shielded (`real_blocked`) whose
    /// `signal_generate` has not run yet: while any is, that probe looks
    /// even when no engine is attached any more, to take the mark off.
    shields: AtomicUsize,
    /// Task works and reap works queued and not yet finished.
    #[pin]
    pub(crate) work: WorkCounter,
    /// The syscall probes, registered while an engine has SYSCALL events.
    #[pin]
    syscall: OnDemand,
    /// The signal kprobe (`shim/kprobes.c`), armed while an engine has
    /// signal or JCTL events (`SIGNAL_HOLDING`): every other signal sent (a
    /// SIGCHLD per fork) passes it unhooked.
    #[pin]
    signal: OnDemand,
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

/// Kernel hooks put in place only while some engine needs them (the
/// syscall probes for SYSCALL events, the signal kprobe for signal events):
/// a count of those engines, the first of which puts the hooks in before
/// its events take effect, and a work item that takes them out once the
/// count fell to zero (the last one may go in atomic context).
#[pin_data]
pub(crate) struct OnDemand {
    users: AtomicUsize,
    /// The hooks are in; changed with `switch` locked.
    on: AtomicBool,
    /// An engine has asked for the hooks since the module was loaded (set
    /// by every [`OnDemand::add`], before it counts in, whether or not the
    /// hooks could be put in; never cleared).
    asked: AtomicBool,
    #[pin]
    off: Opaque<bindings::work_struct>,
    /// Puts the hooks in (`true`) or takes them out. May sleep. Inside its
    /// lock: it is called only with the lock held, one switch at a time.
    #[pin]
    switch: Mutex<fn(bool) -> Result>,
    /// Who asks for them, for the log line of a caller that may not sleep.
    what: &'static str,
}

/// # Safety
///
/// Called by the workqueue with the `off` field of a live [`OnDemand`].
unsafe extern "C" fn on_demand_off(work: *mut bindings::work_struct) {
    // SAFETY: `work` is the `off` field of an `OnDemand` (initialised in
    // `OnDemand::new`), which outlives it (`OnDemand::shutdown` cancels it).
    let hooks = unsafe { &*crate::compat::container_of_mut!(work, OnDemand, off) };
    hooks.off();
}

impl OnDemand {
    fn new(switch: fn(bool) -> Result, what: &'static str) -> impl PinInit<Self> {
        pin_init!(OnDemand {
            users: AtomicUsize::new(0),
            on: AtomicBool::new(false),
            asked: AtomicBool::new(false),
            // SAFETY: `slot` is the field's memory, initialised in place.
            off <- Opaque::ffi_init(|slot| unsafe {
                bindings::init_work_with_key(
                    slot,
                    Some(on_demand_off),
                    false,
                    kernel::c_str!("utrace_rs_hooks_off").as_char_ptr(),
                    static_lock_class_key!(),
                )
            }),
            switch <- new_mutex!(switch),
            what,
        })
    }

    /// An engine needs the hooks: they are in when this returns `Ok`.
    /// Putting them in sleeps: where the caller may not sleep (a syscall
    /// callback, a spinlock held) and they are not in, `EWOULDBLOCK` (and a
    /// log line), the count unchanged.
    fn add(&self) -> Result {
        self.asked.store(true, SeqCst);
        self.users.fetch_add(1, SeqCst);
        if self.on.load(SeqCst) {
            return Ok(());
        }
        if let Err(e) = crate::shim::sleepable(self.what) {
            self.sub();
            return Err(e);
        }
        let switch = self.switch.lock();
        if !self.on.load(SeqCst) {
            if let Err(e) = (*switch)(true) {
                self.users.fetch_sub(1, SeqCst);
                return Err(e);
            }
            self.on.store(true, SeqCst);
        }
        Ok(())
    }

    /// An engine no longer needs them: the last one has them taken out
    /// (later, from a workqueue). Any context.
    fn sub(&self) {
        if self.users.fetch_sub(1, SeqCst) == 1 {
            // SAFETY: Initialised in `new`, cancelled in `shutdown`;
            // queueing an already queued work does nothing.
            unsafe { crate::shim::queue_work(self.off.get()) };
        }
    }

    fn off(&self) {
        let switch = self.switch.lock();
        if self.users.load(SeqCst) == 0 && self.on.load(SeqCst) {
            // Clear `on` before taking the hooks out, then look at the
            // users again: an `add` either sees it cleared (and waits on
            // the lock to put them in again) or is seen here. Taking them
            // out may wait for grace periods (the syscall probes' since 6.13:
            // SRCU and RCU tasks-trace, long): a new user must not find
            // `on` still set meanwhile and go without them.
            self.on.store(false, SeqCst);
            if self.users.load(SeqCst) != 0 {
                self.on.store(true, SeqCst);
                return;
            }
            let _ = (*switch)(false);
        }
    }

    /// Module exit: no work left, hooks out.
    fn shutdown(&self) {
        // SAFETY: Initialised in `new`.
        unsafe { bindings::cancel_work_sync(self.off.get()) };
        let switch = self.switch.lock();
        if self.on.load(SeqCst) {
            let _ = (*switch)(false);
            self.on.store(false, SeqCst);
        }
    }
}

/// [`OnDemand`]'s switch of the syscall probes, whose data is the live state
/// (`hooks::utrace_rs_hook_sys_enter`/`_exit` takes it from there): they are put in
/// by an engine's events, so while the state is published, and
/// [`State::hooks_shutdown`] takes them out before the state goes.
fn switch_syscall_hooks(on: bool) -> Result {
    let st = STATE.load(SeqCst);
    if on && st.is_null() {
        return Err(EINVAL);
    }
    // SAFETY: `st` is the published state, which takes the probes out
    // (`hooks_shutdown`, from the module's exit) before it is freed.
    unsafe { crate::shim::syscall_hooks(on, st.cast_const().cast()) }
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
            shields: AtomicUsize::new(0),
            work <- WorkCounter::new(),
            syscall <- OnDemand::new(
                switch_syscall_hooks,
                "utrace_set_events() with SYSCALL events (registering the syscall probes)",
            ),
            signal <- OnDemand::new(
                crate::shim::Kprobes::arm_signal,
                "utrace_set_events() with signal events (arming the signal kprobe)",
            ),
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

    /// Counts an engine's events `events` in for the hooks they need (the
    /// syscall probes, the signal kprobe): those hooks are in place when
    /// this returns `Ok`. May sleep to put them in; `EWOULDBLOCK` where it
    /// would have to but may not (see [`OnDemand::add`]). Undone by
    /// [`State::hooks_sub`] with the same mask.
    pub(crate) fn hooks_add(&self, events: Events) -> Result {
        if events & crate::events::SYSCALL != 0 {
            self.syscall.add()?;
        }
        if events & crate::events::SIGNAL_HOLDING != 0 {
            if let Err(e) = self.signal.add() {
                if events & crate::events::SYSCALL != 0 {
                    self.syscall.sub();
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Counts an engine's events `events` out (it changed them or went):
    /// hooks no engine needs any more are taken out later, from a
    /// workqueue. Any context.
    pub(crate) fn hooks_sub(&self, events: Events) {
        if events & crate::events::SYSCALL != 0 {
            self.syscall.sub();
        }
        if events & crate::events::SIGNAL_HOLDING != 0 {
            self.signal.sub();
        }
    }

    /// Module exit, before the kprobes are unregistered: no switching work
    /// left, the hooks out.
    pub(crate) fn hooks_shutdown(&self) {
        self.syscall.shutdown();
        self.signal.shutdown();
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

    /// A send was shielded by the signal kprobe (its `signal_generate`
    /// follows under the same siglock).
    pub(crate) fn shield_begin(&self) {
        self.shields.fetch_add(1, SeqCst);
    }

    /// The `signal_generate` probe took a shield off.
    pub(crate) fn shield_end(&self) {
        self.shields.fetch_sub(1, SeqCst);
    }

    /// Whether a shielded send waits for its `signal_generate` probe.
    pub(crate) fn shields_out(&self) -> bool {
        self.shields.load(SeqCst) != 0
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

    /// Whether an engine has asked for signal events (`SIGNAL_ALL`) since
    /// the module was loaded: until one has, no signal was seen by the
    /// signal kprobe, held or wanted (see `hooks::utrace_rs_hook_signal`).
    /// Set before the first such events take effect (also by a request
    /// that failed); never cleared.
    pub(crate) fn signal_events_seen(&self) -> bool {
        self.signal.asked.load(SeqCst)
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
