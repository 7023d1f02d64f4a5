// SPDX-License-Identifier: GPL-2.0

//! Per-task state (utrace's `struct utrace`): the task's engines, the union of
//! their event masks for the hooks' fast check, and the events waiting to be
//! reported from the task's own context.
//!
//! A `UTask` is created on a task's first attach, or by a hook when a global
//! engine (or a parent's CLONE engine) needs one, and lives until the task is
//! reaped. It holds a reference on its task. The hash table holds one
//! reference on it; hooks use it under RCU without one; API calls take one.

use crate::compat::{container_of_mut, ARef, AlwaysRefCounted};
use crate::engine::Engine;
use crate::engine_list::{EngineList, ListWriter};
use crate::events::Events;
use crate::shim;
use crate::sighold::SigHold;
use crate::sysentry::EntryRestart;
use crate::task;
use crate::work::WorkCounter;
use core::ffi::c_void;
use core::ptr::{self, NonNull};
use core::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::SeqCst,
};
use kernel::alloc::Flags;
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{new_condvar, new_spinlock, CondVar, SpinLock};
use kernel::task::Task;
use kernel::types::Opaque;

/// `do_exit()` has passed the exit hook for this task.
pub(crate) const EXIT_SEEN: u32 = 1 << 0;
/// DEATH reporting has begun.
pub(crate) const DEATH_BEGUN: u32 = 1 << 1;
/// The task is being reaped: its engines are being detached.
pub(crate) const REAP_BEGUN: u32 = 1 << 2;
/// Its exit made its process dead (the last thread to exit): set at the
/// exit hook, from the kernel's own verdict.
pub(crate) const GROUP_DEAD: u32 = 1 << 3;

/// A CLONE event waiting for the parent's report.
pub(crate) struct CloneReport {
    pub(crate) child: ARef<Task>,
    /// The child's `UTask`, gated until this report is done.
    pub(crate) child_ut: Option<ARef<UTask>>,
    pub(crate) flags: u64,
    pub(crate) seq: u64,
}

impl Drop for CloneReport {
    /// The child may go on once its parent's CLONE report is done, or will
    /// never be (the report was lost): either way, this is the moment.
    fn drop(&mut self) {
        if let Some(child_ut) = &self.child_ut {
            child_ut.open_gate();
        }
    }
}

/// A CLONE_VFORK clone: the parent sleeps until the child execs or exits,
/// so the child reports the parent's CLONE event on its behalf.
pub(crate) struct ProxyClone {
    pub(crate) parent_ut: ARef<UTask>,
    pub(crate) flags: u64,
    pub(crate) seq: u64,
}

pub(crate) struct ExecReport {
    /// The path given to execve(), if it could be copied in the hook.
    pub(crate) filename: Option<KVec<u8>>,
    pub(crate) old_pid: i32,
    pub(crate) seq: u64,
}

/// A HANDLER report waiting: the signal a handler frame was set up for.
pub(crate) struct HandlerReport {
    pub(crate) info: bindings::kernel_siginfo,
    pub(crate) seq: u64,
}

/// JCTL: the process is about to stop for job control.
pub(crate) const JCTL_STOP: u32 = 1 << 0;
/// JCTL: the process was continued.
pub(crate) const JCTL_CONT: u32 = 1 << 1;
/// Not a report: the stop that the cgroup freezer ended is to be taken
/// again (see `freezer.rs`), before the task returns to user mode.
pub(crate) const RESTOP: u32 = 1 << 2;
/// With [`JCTL_STOP`] ([`JCTL_CONT`]): this thread's report carries the
/// group's `notify`, one thread per stop (continue).
pub(crate) const JCTL_STOP_NOTIFY: u32 = 1 << 3;
pub(crate) const JCTL_CONT_NOTIFY: u32 = 1 << 4;
/// Not a report by itself: stop signals this thread hides until its JCTL
/// report is made ([`UTask::jctl_held`]); see
/// `report_signal::hold_for_jctl`.
pub(crate) const JCTL_HOLD: u32 = 1 << 5;

/// Events waiting to be reported by the task's work.
#[derive(Default)]
pub(crate) struct Pending {
    pub(crate) clone: Option<CloneReport>,
    pub(crate) proxy_clone: Option<ProxyClone>,
    pub(crate) exec: Option<ExecReport>,
    /// Sequence bound of a pending EXIT+DEATH report.
    pub(crate) exit: Option<u64>,
    /// Held signals to report (bit `sig - 1`), and their sequence bound.
    pub(crate) signals: u64,
    pub(crate) signal_seq: u64,
    /// A HANDLER report: a handler frame was set up for this signal.
    pub(crate) handler: Option<HandlerReport>,
    /// JCTL reports to make ([`JCTL_STOP`], [`JCTL_CONT`]).
    pub(crate) jctl: u32,
    /// A QUIESCE report at the return-to-user point was asked for (REPORT,
    /// INTERRUPT, STOP), and whether it must interrupt a sleep (INTERRUPT).
    pub(crate) quiesce: bool,
    pub(crate) interrupt: bool,
    /// A syscall entry was skipped to be restarted (see `sysentry.rs`).
    pub(crate) syscall_entry: bool,
    /// A new child's return from fork, whose SYSCALL_EXIT is reported
    /// after the CLONE reports (set by the work, see `sysentry.rs`).
    pub(crate) fork_return: bool,
    /// A resume action other than STOP and RESUME asked for (by a callback's
    /// return or utrace_control(); the smallest): INTERRUPT, REPORT,
    /// SINGLESTEP or BLOCKSTEP, applied as the task leaves its work; RESUME
    /// to have it look again whether it still steps (a detach).
    pub(crate) resume: Option<u32>,
}

impl Pending {
    pub(crate) fn is_empty(&self) -> bool {
        self.clone.is_none()
            && self.proxy_clone.is_none()
            && self.exec.is_none()
            && self.exit.is_none()
            && self.signals == 0
            && self.handler.is_none()
            && self.jctl == 0
            && !self.quiesce
            && !self.syscall_entry
            && !self.fork_return
            && self.resume.is_none()
    }

    /// Moves what `self` holds into `into` and leaves `self` empty. `into`
    /// holds no event: a fresh buffer, or one that the work's reports
    /// emptied (`report.rs`). The reports are moved only if present, not
    /// the whole `Pending` (about 220 bytes, most of it the rare HANDLER
    /// and EXEC reports); the bits and flags are merged into `into`'s. A
    /// report `into` held already would stay in `self`, not be lost.
    fn move_into(&mut self, into: &mut Pending) {
        /// `from`'s value, if any, goes to `to` (whose `None` comes back).
        fn move_some<T>(from: &mut Option<T>, to: &mut Option<T>) {
            if from.is_some() {
                core::mem::swap(from, to);
            }
        }
        let Pending {
            clone,
            proxy_clone,
            exec,
            exit,
            signals,
            signal_seq,
            handler,
            jctl,
            quiesce,
            interrupt,
            syscall_entry,
            fork_return,
            resume,
        } = self;
        move_some(clone, &mut into.clone);
        move_some(proxy_clone, &mut into.proxy_clone);
        move_some(exec, &mut into.exec);
        move_some(handler, &mut into.handler);
        move_some(exit, &mut into.exit);
        into.signals |= core::mem::take(signals);
        into.signal_seq = into.signal_seq.max(core::mem::take(signal_seq));
        into.jctl |= core::mem::take(jctl);
        into.quiesce |= core::mem::take(quiesce);
        into.interrupt |= core::mem::take(interrupt);
        into.syscall_entry |= core::mem::take(syscall_entry);
        into.fork_return |= core::mem::take(fork_return);
        if let Some(act) = resume.take() {
            into.ask_resume(act);
        }
    }

    /// Asks for resume action `act` (the smallest asked for wins).
    pub(crate) fn ask_resume(&mut self, act: u32) {
        self.resume = Some(self.resume.map_or(act, |r| r.min(act)));
    }
}

pub(crate) struct Inner {
    pub(crate) pending: Pending,
    work_queued: bool,
    kick_queued: bool,
    /// The child waits here until its parent's CLONE report is done.
    gated: bool,
}

/// # Invariants
///
/// `task` is the task this state belongs to; the table maps it to at most
/// one `UTask`. `refcount` counts [`ARef<UTask>`]s; at zero the `UTask` is off
/// the table and freed after an RCU grace period.
#[pin_data]
pub(crate) struct UTask {
    task: ARef<Task>,
    /// Next `UTask` on the hash chain.
    pub(crate) hnext: AtomicPtr<UTask>,
    refcount: AtomicUsize,
    /// Per-task engines, in attach order. Writers hold `inner`'s lock.
    pub(crate) engines: EngineList,
    /// Union of the engines' event masks.
    events: AtomicU64,
    /// Union of their [`Engine::follow_events`]: whether a child of this
    /// task must be held until its CLONE report is done.
    follow_events: AtomicU64,
    state: AtomicU32,
    /// The engine whose callback this task is running, if any.
    pub(crate) reporting: AtomicPtr<Engine>,
    /// The held-signal protocol's record (`sighold.rs`).
    pub(crate) sig: SigHold,
    /// Signals and JCTL reports recorded by the signal probes, for
    /// `sig_work` to queue ([`UTask::queue_signals`]).
    ///
    /// Ordering: SeqCst, not an Acquire/Release pair. A recorder writes
    /// `incoming_*` and then reads `sig_work_queued` (`swap`); `sig_work`
    /// writes `sig_work_queued` (false) and then reads `incoming_*`
    /// (`swap`). Each side's store must be seen before its own load (a
    /// store-load order, which only SeqCst gives), or both could miss the
    /// other: the recorder finds the work queued, the work finds nothing,
    /// and the record waits for the next signal. The recorder's SeqCst
    /// `fetch_or` also publishes its held-signal changes (`sighold.rs`) to
    /// the work, whose `swap` reads it.
    incoming_signals: AtomicU64,
    incoming_jctl: AtomicU32,
    /// `sig_work` is on the task's task_work list.
    sig_work_queued: AtomicBool,
    /// A HANDLER report's siginfo, written by the `signal_deliver` probe
    /// and read by `sig_work`, both in the task itself (never at once).
    handler_info: Opaque<bindings::kernel_siginfo>,
    handler_pending: AtomicBool,
    /// The task sleeps in a utrace stop.
    pub(crate) stopped: AtomicBool,
    /// Of `stopped`: the task went to sleep in it (set right before its
    /// first sleep, which wakes [`UTask::stop_waiters`]; cleared when the
    /// stop ends). `utrace_wait_stopped()` waits for it.
    pub(crate) parked: AtomicBool,
    /// Its stop ended for the cgroup freezer and is to be taken again
    /// (`freezer.rs`).
    pub(crate) restop: AtomicBool,
    /// The task runs its report work (`report.rs`'s `run_work`): a reader
    /// to wake may wait for its stop ([`UTask::defer_wake`]).
    pub(crate) in_work: AtomicBool,
    /// The reader to wake at the task's stop, or at the end of its report
    /// work: an owned [`shim::stop::Reader`] (`into_raw`), or null. Only
    /// the task itself sets and takes it.
    stop_wake: AtomicPtr<c_void>,
    /// An engine with SYSCALL_ENTRY wants entry reported where it may
    /// sleep (`UTRACE_OPS_SYSCALL_SLEEPABLE`).
    sleepable_entry: AtomicBool,
    /// A syscall entry skipped to be restarted.
    pub(crate) entry_restart: EntryRestart,
    /// utrace-rs set the task stepping (single or block); only the task
    /// itself changes it.
    pub(crate) stepping: AtomicBool,
    /// This run of the task's work restarts a skipped syscall while
    /// utrace-rs steps the task: the step's trap at the skipped pass's exit
    /// (`TRAP_BRKPT`) is not a step's end, the restart traps again
    /// (`report_signal`). Read and written by the task's work only.
    pub(crate) skipped_trap: AtomicBool,
    /// A report or a resume action was asked of the task's work and not
    /// yet taken: it ends a stop for the report (which may stop again).
    asked: AtomicBool,
    /// Something may have been recorded in `pending` since the work last
    /// took it: set by [`UTask::queue`] under `inner`'s lock, cleared when
    /// the work takes `pending`. Lets [`UTask::steal_pending`] skip the
    /// lock when nothing came while the reports ran (the usual case).
    recorded: AtomicBool,
    work: Opaque<bindings::callback_head>,
    kick: Opaque<bindings::callback_head>,
    sig_work: Opaque<bindings::callback_head>,
    /// Next on the [`ReapQueue`], once the task is freed.
    reap_next: AtomicPtr<UTask>,
    rcu: Opaque<bindings::callback_head>,
    #[pin]
    pub(crate) inner: SpinLock<Inner>,
    #[pin]
    gate: CondVar,
}

// SAFETY: Shared between the task and whoever attaches to it; mutable state
// is atomic or behind `inner`.
unsafe impl Send for UTask {}
// SAFETY: See `Send`.
unsafe impl Sync for UTask {}

// SAFETY: `refcount` is the count `ARef<UTask>` manages: `inc_ref` adds
// one, `dec_ref` takes one and frees the `UTask` (after an RCU grace period,
// since readers find it on the table under RCU) when it was the last.
unsafe impl AlwaysRefCounted for UTask {
    fn inc_ref(&self) {
        self.refcount.fetch_add(1, SeqCst);
    }

    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The caller owns a reference, so `obj` is valid.
        let ut = unsafe { obj.as_ref() };
        if ut.refcount.fetch_sub(1, SeqCst) == 1 {
            // SAFETY: The last reference is gone; readers that found it on
            // the table under RCU may still look, so free after a grace
            // period.
            unsafe { bindings::call_rcu(ut.rcu.get(), Some(utask_free_rcu)) };
        }
    }
}

/// Frees a `UTask` whose last reference is gone.
///
/// # Safety
///
/// Called by RCU with the `rcu` field of a `UTask` whose last reference was
/// dropped.
unsafe extern "C" fn utask_free_rcu(head: *mut bindings::callback_head) {
    // SAFETY: `head` is the `rcu` field of a `UTask` allocated by `UTask::create`.
    let ut = unsafe { container_of_mut!(head, UTask, rcu) };
    // SAFETY: Nobody can reach it any more: drop it in place.
    unsafe { ptr::drop_in_place(ut) };
    if let Some(cache) = cache() {
        // SAFETY: From `UTask::create`'s `cache.alloc()`, dropped above.
        unsafe { cache.free(ut) };
    }
}

/// The slab cache of `UTask`s: a record is made per task (at its first
/// event for a global engine, or attach) and freed at its reap, on every
/// fork under a global engine. Set for the module's life (`UTaskCache`).
static CACHE: AtomicPtr<shim::Cache<UTask>> = AtomicPtr::new(ptr::null_mut());

fn cache() -> Option<&'static shim::Cache<UTask>> {
    // SAFETY: Set by `UTaskCache::new` to a cache that stays until its drop,
    // after every `UTask` is freed (the module's exit).
    unsafe { CACHE.load(SeqCst).as_ref() }
}

/// Owns the `UTask` cache: made at module init, destroyed when dropped,
/// which the module does last, after its RCU callbacks (the frees) ran.
pub(crate) struct UTaskCache {
    _cache: KBox<shim::Cache<UTask>>,
}

impl UTaskCache {
    pub(crate) fn new() -> Result<Self> {
        let cache = KBox::new(
            shim::Cache::new(kernel::c_str!("utrace_rs_task"))?,
            GFP_KERNEL,
        )?;
        CACHE.store((&*cache as *const shim::Cache<UTask>).cast_mut(), SeqCst);
        Ok(UTaskCache { _cache: cache })
    }
}

impl Drop for UTaskCache {
    fn drop(&mut self) {
        // `_cache` is destroyed when this returns.
        CACHE.store(ptr::null_mut(), SeqCst);
    }
}

/// The functions a `UTask`'s work items run: reporting's, which installs
/// them (`report::new_utask`), so that this container does not depend on
/// what the work does.
pub(crate) struct WorkFns {
    /// The task's own work (`work`): reports what is pending.
    pub(crate) work: unsafe extern "C" fn(*mut bindings::callback_head),
    /// The kick (`kick`): makes the task run its task_work list promptly.
    pub(crate) kick: unsafe extern "C" fn(*mut bindings::callback_head),
    /// What the signal probes recorded (`sig_work`), in the task.
    pub(crate) signal: unsafe extern "C" fn(*mut bindings::callback_head),
}

/// The `UTask`s of freed tasks, waiting for their reap in process context:
/// a lock-free stack, pushed by the free hook (softirq) and drained by one
/// work item (`State::reap_work`), which a push onto an empty queue
/// queues. Tasks freed together (an RCU callback batch frees many) are
/// reaped by one worker run instead of one work item each.
///
/// # Invariants
///
/// Every queued `UTask` has `REAP_BEGUN` set (so it is queued once) and is
/// kept alive by the table's reference, which only the drainer drops.
pub(crate) struct ReapQueue {
    head: AtomicPtr<UTask>,
}

impl ReapQueue {
    pub(crate) const fn new() -> Self {
        ReapQueue {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Pushes `ut`; true if the queue was empty (the caller queues the
    /// drainer).
    fn push(&self, ut: &UTask) -> bool {
        let new = (ut as *const UTask).cast_mut();
        let mut head = self.head.load(SeqCst);
        loop {
            ut.reap_next.store(head, SeqCst);
            match self.head.compare_exchange(head, new, SeqCst, SeqCst) {
                Ok(_) => return head.is_null(),
                Err(now) => head = now,
            }
        }
    }

    /// Takes every queued `UTask` and calls `f` on each, in the order they
    /// were pushed. `f` may drop the table's reference (the `UTask`'s next
    /// link is read before).
    pub(crate) fn drain(&self, mut f: impl FnMut(&UTask)) {
        // Reverse the stack: oldest first.
        let mut cur = self.head.swap(ptr::null_mut(), SeqCst);
        let mut oldest: *mut UTask = ptr::null_mut();
        while !cur.is_null() {
            // SAFETY: Queued, so alive (type invariant); now ours alone.
            let ut = unsafe { &*cur };
            let next = ut.reap_next.load(SeqCst);
            ut.reap_next.store(oldest, SeqCst);
            oldest = cur;
            cur = next;
        }
        while !oldest.is_null() {
            // SAFETY: As above; `f` may free it, so its link is read first.
            let ut = unsafe { &*oldest };
            oldest = ut.reap_next.load(SeqCst);
            f(ut);
        }
    }
}

impl UTask {
    /// A new `UTask` for `task`, with one reference, not yet on the table;
    /// its work items run `fns`.
    pub(crate) fn create(task: &Task, gfp: Flags, fns: &WorkFns) -> Result<ARef<UTask>> {
        let cache = cache().ok_or(ENOMEM)?;
        let slot = cache.alloc(gfp).ok_or(ENOMEM)?.as_ptr();
        let init = pin_init!(UTask {
                task: ARef::from(task),
                hnext: AtomicPtr::new(ptr::null_mut()),
                refcount: AtomicUsize::new(1),
                engines: EngineList::new(),
                events: AtomicU64::new(0),
                follow_events: AtomicU64::new(0),
                state: AtomicU32::new(0),
                reporting: AtomicPtr::new(ptr::null_mut()),
                sig: SigHold::new(),
                incoming_signals: AtomicU64::new(0),
                incoming_jctl: AtomicU32::new(0),
                sig_work_queued: AtomicBool::new(false),
                handler_info: Opaque::uninit(),
                handler_pending: AtomicBool::new(false),
                stopped: AtomicBool::new(false),
                parked: AtomicBool::new(false),
                restop: AtomicBool::new(false),
                in_work: AtomicBool::new(false),
                stop_wake: AtomicPtr::new(ptr::null_mut()),
                sleepable_entry: AtomicBool::new(false),
                entry_restart: EntryRestart::new(),
                stepping: AtomicBool::new(false),
                skipped_trap: AtomicBool::new(false),
                asked: AtomicBool::new(false),
                recorded: AtomicBool::new(false),
                work: Opaque::uninit(),
                kick: Opaque::uninit(),
                sig_work: Opaque::uninit(),
                reap_next: AtomicPtr::new(ptr::null_mut()),
                rcu: Opaque::uninit(),
                inner <- new_spinlock!(Inner {
                    pending: Pending::default(),
                    work_queued: false,
                    kick_queued: false,
                    gated: false,
                }),
                gate <- new_condvar!(),
        });
        // SAFETY: `slot` is fresh room for a `UTask` (the cache's objects
        // have its size and alignment), never moved: freed in place by
        // `utask_free_rcu`.
        if let Err(e) = unsafe { crate::compat::pin_init_in(init, slot) } {
            // SAFETY: From `cache.alloc()` above; nothing was left in it.
            unsafe { cache.free(slot) };
            return Err(e.into());
        }
        // SAFETY: `slot` is a fresh, exclusively owned `UTask`.
        unsafe {
            (*(*slot).work.get()).func = Some(fns.work);
            (*(*slot).kick.get()).func = Some(fns.kick);
            (*(*slot).sig_work.get()).func = Some(fns.signal);
        }
        // SAFETY: Not null (from the cache), and the count of one it
        // was made with is this reference.
        Ok(unsafe { ARef::from_raw(NonNull::new_unchecked(slot)) })
    }

    /// A new reference, unless the count already dropped to zero (the
    /// `UTask` is on its way out) or reaping began.
    pub(crate) fn try_get(&self) -> Option<ARef<UTask>> {
        if self.state() & REAP_BEGUN != 0 {
            return None;
        }
        let mut count = self.refcount.load(SeqCst);
        loop {
            if count == 0 {
                return None;
            }
            match self
                .refcount
                .compare_exchange(count, count + 1, SeqCst, SeqCst)
            {
                // SAFETY: The increment just made is this reference.
                Ok(_) => return Some(unsafe { ARef::from_raw(NonNull::from(self)) }),
                Err(now) => count = now,
            }
        }
    }

    pub(crate) fn task(&self) -> &Task {
        &self.task
    }

    pub(crate) fn task_ptr(&self) -> *mut bindings::task_struct {
        task::raw(&self.task)
    }

    pub(crate) fn events(&self) -> Events {
        self.events.load(SeqCst)
    }

    /// The union of its engines' [`Engine::follow_events`].
    pub(crate) fn follow_events(&self) -> Events {
        self.follow_events.load(SeqCst)
    }

    pub(crate) fn state(&self) -> u32 {
        self.state.load(SeqCst)
    }

    /// Whether its exit made its process dead (the kernel's verdict, taken
    /// at the exit hook).
    pub(crate) fn group_dead(&self) -> bool {
        self.state() & GROUP_DEAD != 0
    }

    /// Sets a state bit; returns whether it was already set.
    pub(crate) fn set_state(&self, bit: u32) -> bool {
        self.state.fetch_or(bit, SeqCst) & bit != 0
    }

    /// Recomputes the union of the engines' masks. Called with `inner` held
    /// after any change to the list or a mask.
    ///
    /// If utrace-rs steps the task and no engine is left that could take a
    /// step's trap (SIGNAL or SIGNAL_CORE events), the task's work is
    /// queued to turn the stepping off, before the new union shows: a trap
    /// sent once it shows is not held for any engine, and the work must
    /// then be on the task's list already, so that `get_signal()` runs it
    /// (and it takes the trap back) before it dequeues the trap. False if
    /// it could not be queued: the caller calls [`UTask::drop_lost`] once
    /// `inner` is released.
    pub(crate) fn update_events(
        &self,
        list: &ListWriter<'_>,
        inner: &mut Inner,
        work: &WorkCounter,
    ) -> bool {
        let union = list.iter().fold(0, |acc, e| acc | e.events());
        let takes_traps = crate::events::SIGNAL | crate::events::SIGNAL_CORE;
        let mut queued = true;
        if self.stepping.load(SeqCst)
            && union & takes_traps == 0
            && self.events() & takes_traps != 0
        {
            inner.pending.ask_resume(crate::events::action::RESUME);
            queued = self.queue_locked(work, inner);
        }
        let follow = list.iter().fold(0, |acc, e| acc | e.follow_events());
        self.follow_events.store(follow, SeqCst);
        // The syscall probes' filter counts the task while its union has a
        // SYSCALL event: in before the events show, out after they went.
        let had = self.events() & crate::events::SYSCALL != 0;
        let has = union & crate::events::SYSCALL != 0;
        if has && !had {
            shim::syscall_filter(self.task_ptr(), true);
        }
        self.events.store(union, SeqCst);
        if had && !has {
            shim::syscall_filter(self.task_ptr(), false);
            // Its probes are no longer called: a restart they were to
            // recognise would be taken for a later syscall.
            self.entry_restart.forget();
        }
        let sleepable = list
            .iter()
            .any(|e| e.events() & crate::events::SYSCALL_ENTRY != 0 && e.sleepable_entry());
        self.sleepable_entry.store(sleepable, SeqCst);
        queued
    }

    /// Whether syscall entry is reported from the task's work, where
    /// callbacks may sleep.
    pub(crate) fn sleepable_entry(&self) -> bool {
        self.sleepable_entry.load(SeqCst)
    }

    /// Records events for the task's work and queues it if needed. Called
    /// from the hooks (atomic context) and the CLONE path. Whatever `fill`
    /// returns is dropped after the lock is released (it may hold another
    /// `UTask`'s gate).
    pub(crate) fn queue<R>(&self, work: &WorkCounter, fill: impl FnOnce(&mut Inner) -> R) -> R {
        let mut inner = self.inner.lock();
        let ret = fill(&mut inner);
        let queued = self.queue_locked(work, &mut inner);
        drop(inner);
        if !queued {
            self.drop_lost(work);
        }
        ret
    }

    /// [`UTask::queue`] once `fill` ran, under the lock (`inner`). False if
    /// the task is past its last task_work: what is pending can no longer
    /// be reported, and the caller calls [`UTask::drop_lost`] once it has
    /// released the lock.
    #[inline(always)]
    fn queue_locked(&self, work: &WorkCounter, inner: &mut Inner) -> bool {
        // Before `asked` (a stopped task woken for it steals what was
        // recorded).
        self.recorded.store(true, SeqCst);
        let asked = inner.pending.quiesce || inner.pending.resume.is_some();
        if asked && !self.asked.swap(true, SeqCst) && self.stopped.load(SeqCst) {
            // The stop wakes for the report (its waker takes no lock of ours).
            self.wake_stopped();
        }
        // A held signal or an INTERRUPT must be handled soon, even by a
        // task sleeping in a syscall.
        let notify_signal =
            inner.pending.signals != 0 || inner.pending.jctl != 0 || inner.pending.interrupt;
        if inner.work_queued {
            if notify_signal {
                self.kick(work, inner);
            }
            return true;
        }
        if inner.pending.is_empty() && !inner.gated {
            return true;
        }
        work.begin();
        // SAFETY: `work` is this `UTask`'s and not queued (`work_queued` is
        // false under the lock); the `UTask` outlives the work because the
        // table's reference is only dropped at reap, after the task ran its
        // last task_work.
        match unsafe { shim::task_work_add(self.task_ptr(), self.work.get(), notify_signal) } {
            Ok(()) => {
                inner.work_queued = true;
                true
            }
            Err(_) => {
                inner.gated = false;
                false
            }
        }
    }

    /// Past exit_task_work() nothing runs in the task's context any more,
    /// so what was pending cannot be reported: dropped (without the lock:
    /// it may hold another `UTask`'s gate), and the count of the work that
    /// could not be queued ended.
    #[cold]
    pub(crate) fn drop_lost(&self, work: &WorkCounter) {
        let lost = core::mem::take(&mut self.inner.lock().pending);
        drop(lost);
        work.end();
    }

    /// Makes the task run its queued work promptly: an empty work queued
    /// with `TWA_SIGNAL` interrupts an interruptible sleep (the syscall is
    /// restarted afterwards), and the task then runs its whole task_work list.
    fn kick(&self, work: &WorkCounter, inner: &mut Inner) {
        if inner.kick_queued {
            return;
        }
        work.begin();
        // SAFETY: `kick` is this `UTask`'s and not queued (`kick_queued` is
        // false under the lock); the `UTask` outlives it as it does `work`.
        match unsafe { shim::task_work_add(self.task_ptr(), self.kick.get(), true) } {
            Ok(()) => inner.kick_queued = true,
            Err(_) => work.end(),
        }
    }

    /// Kicks the task if its work is queued (module unload: have it run).
    pub(crate) fn kick_if_queued(&self, work: &WorkCounter) {
        let mut inner = self.inner.lock();
        if inner.work_queued {
            self.kick(work, &mut inner);
        }
    }

    /// Module unload, once the hooks are out and no engine is left: takes
    /// back the work items queued on the task that it has not started (a
    /// process in a group or ptrace stop runs its task_work only once
    /// continued, which may never come), dropping what they carried as the
    /// engines' detach would have left it: the events (no engine is left to
    /// be told of them) and the hidden signals, shown again for the kernel
    /// to deliver. Left queued, to be waited for, is the work of a task
    /// that must run it (a syscall entry to restart, stepping to stop):
    /// such a task is on its way back to user mode. Any context but NMI.
    pub(crate) fn cancel_queued_work(&self, work: &WorkCounter) {
        if self.entry_restart.skipped() || self.stepping.load(SeqCst) {
            return;
        }
        let cancel = |cb: &Opaque<bindings::callback_head>| {
            // SAFETY: `cb` is one of this `UTask`'s work items, alive as
            // long as it (the caller holds a reference or RCU).
            unsafe { shim::stop::task_work_cancel(self.task_ptr(), cb.get()) }
        };
        let mut inner = self.inner.lock();
        let mut lost = None;
        if inner.work_queued && cancel(&self.work) {
            inner.work_queued = false;
            lost = Some(core::mem::take(&mut inner.pending));
            work.end();
        }
        if inner.kick_queued && cancel(&self.kick) {
            inner.kick_queued = false;
            work.end();
        }
        let queued = inner.work_queued;
        drop(inner);
        // Outside the lock: a CLONE report opens its child's gate.
        drop(lost);
        if self.sig_work_queued.load(SeqCst) && cancel(&self.sig_work) {
            self.sig_work_queued.store(false, SeqCst);
            self.incoming_signals.store(0, SeqCst);
            self.incoming_jctl.store(0, SeqCst);
            self.handler_pending.store(false, SeqCst);
            work.end();
        }
        if queued || self.sig_work_queued.load(SeqCst) {
            // Its work runs after all and reports them.
            return;
        }
        // Stop signals a SIGCONT cancelled stay out of the pending set.
        // Nothing to show if the task has no sighand any more (released).
        let _ = shim::signal::with_siglock(self.task(), |lk| self.sig.unload(lk));
    }

    /// Holds the (new) task at its first return to user mode until
    /// [`UTask::open_gate`].
    pub(crate) fn close_gate(&self, work: &WorkCounter) {
        self.queue(work, |inner| inner.gated = true);
    }

    /// Queues the parent's CLONE report; hands `report` back if one is
    /// already pending (one clone per return to user mode is the most a
    /// task can do).
    pub(crate) fn queue_clone(
        &self,
        work: &WorkCounter,
        report: CloneReport,
    ) -> Option<CloneReport> {
        self.queue(work, |inner| {
            if inner.pending.clone.is_some() {
                return Some(report);
            }
            inner.pending.clone = Some(report);
            None
        })
    }

    pub(crate) fn open_gate(&self) {
        let mut inner = self.inner.lock();
        inner.gated = false;
        self.gate.notify_all();
        drop(inner);
    }

    /// Moves what is pending into `into` (a fresh buffer), for the task's
    /// work, which `task_work_run()` took off the task's list before calling
    /// it: it may be queued again from here on, and events that arrive
    /// while it runs queue it anew (`work_queued` is clear) and are reported
    /// by that next run. It must not be cleared again later in the same
    /// run: the work could then be added while it is on the list,
    /// corrupting it.
    ///
    /// A new task held until its parent's CLONE report is done waits for
    /// that first (see [`UTask::close_gate`]), under the same lock.
    pub(crate) fn take_pending(&self, into: &mut Pending) {
        let mut inner = self.inner.lock();
        inner.work_queued = false;
        self.asked.store(false, SeqCst);
        self.recorded.store(false, SeqCst);
        inner.pending.move_into(into);
        while inner.gated {
            // The parent reports CLONE on its way back to user mode and
            // callbacks may not wait for other tasks, so this ends soon.
            self.gate.wait(&mut inner);
        }
    }

    /// Whether a report or resume action waits for the task's work.
    pub(crate) fn asked(&self) -> bool {
        self.asked.load(SeqCst)
    }

    /// What was asked for while the task's work ran (a STOP, REPORT or
    /// INTERRUPT queued the work anew, behind the run in progress), moved
    /// into `into` now so that its report comes before the task stops. The
    /// work stays queued (`work_queued` is left alone: it is on the task's
    /// list) and finds nothing, or what comes later, when it runs. Returns
    /// whether anything was pending; if not (the usual case: no lock taken,
    /// and no copy of the whole `Pending`, when nothing was recorded since
    /// the work last took it), `into` is left as it was.
    ///
    /// `into` is the work's buffer, which its reports emptied.
    ///
    /// Without the lock, an event being recorded right now may be missed:
    /// it queues the work anew (which then reports it), and a request for
    /// a report (`asked`, set after `recorded`) ends a stop, after which
    /// this is called again.
    ///
    /// The look at `recorded` is inlined (nothing recorded is the usual
    /// answer); the locked part is not.
    #[inline(always)]
    pub(crate) fn steal_pending(&self, into: &mut Pending) -> bool {
        if !self.recorded.load(SeqCst) {
            return false;
        }
        self.steal_recorded(into)
    }

    /// [`UTask::steal_pending`] once something was recorded.
    #[inline(never)]
    fn steal_recorded(&self, into: &mut Pending) -> bool {
        let mut inner = self.inner.lock();
        self.asked.store(false, SeqCst);
        self.recorded.store(false, SeqCst);
        if inner.pending.is_empty() {
            return false;
        }
        inner.pending.move_into(into);
        true
    }

    /// The `UTask` whose `work` is `head`.
    ///
    /// # Safety
    ///
    /// `head` is the `work` field of a live `UTask` (the task_work callback
    /// installed by [`UTask::create`]), alive for `'a`.
    pub(crate) unsafe fn from_work<'a>(head: *mut bindings::callback_head) -> &'a UTask {
        // SAFETY: By the function's safety requirements.
        unsafe { &*container_of_mut!(head, UTask, work) }
    }

    /// The `UTask` whose `kick` is `head`.
    ///
    /// # Safety
    ///
    /// As for [`UTask::from_work`], with the `kick` field.
    pub(crate) unsafe fn from_kick<'a>(head: *mut bindings::callback_head) -> &'a UTask {
        // SAFETY: By the function's safety requirements.
        unsafe { &*container_of_mut!(head, UTask, kick) }
    }

    /// The kick ran: it may be queued again.
    pub(crate) fn kick_done(&self) {
        self.inner.lock().kick_queued = false;
    }

    /// Whether an engine of the task wants it stopped. The look at an
    /// empty list (a task only global engines see) is inlined.
    #[inline(always)]
    pub(crate) fn stop_wanted(&self) -> bool {
        !self.engines.is_empty() && self.engine_stops()
    }

    /// [`UTask::stop_wanted`]'s look at the engines.
    #[inline(never)]
    fn engine_stops(&self) -> bool {
        let rcu = shim::RcuGuard::new();
        self.engines
            .iter_rcu(&rcu)
            .any(|e| e.wants_stop() && !e.is_detached())
    }

    /// An engine let go of its stop: wakes the task if it sleeps in a stop
    /// that no engine holds any more, or that has a report to make (what
    /// ends the stop: see `report::maybe_stop`). A task another engine
    /// still holds sleeps on: woken, it would only run for a moment and
    /// sleep again, and an examiner of the other engine's
    /// (`utrace_prepare_examine()`) could find it running.
    ///
    /// The caller cleared its engine's stop before (SeqCst): of two engines
    /// letting go at once, the second to look sees neither stop.
    pub(crate) fn release_stop(&self) {
        if !self.stop_wanted() || self.asked() {
            self.wake_stopped();
        }
    }

    /// Keeps the reader `reader()` gives to wake at the task's stop's first
    /// sleep, or at the end of its report work if it does not stop (a
    /// reader kept before is woken now); false, `reader` not called, if the
    /// task is not in its report work. Only the task itself calls it.
    pub(crate) fn defer_wake(&self, reader: impl FnOnce() -> shim::stop::Reader) -> bool {
        if !self.in_work.load(SeqCst) {
            return false;
        }
        // INVARIANT: `stop_wake` holds an owned reader or null.
        let old = self.stop_wake.swap(reader().into_raw(), SeqCst);
        // SAFETY: `stop_wake` holds readers from `into_raw` only, each
        // taken back once (by the swap).
        if let Some(old) = unsafe { shim::stop::Reader::from_raw(old) } {
            old.wake();
        }
        true
    }

    /// The reader [`UTask::defer_wake`] kept, if any.
    pub(crate) fn take_stop_wake(&self) -> Option<shim::stop::Reader> {
        // SAFETY: As in `defer_wake`.
        unsafe { shim::stop::Reader::from_raw(self.stop_wake.swap(ptr::null_mut(), SeqCst)) }
    }

    /// Wakes the task if it sleeps in a utrace stop, to check whether it
    /// still has to.
    pub(crate) fn wake_stopped(&self) {
        crate::wait::wake((self as *const UTask).cast());
    }

    /// The var key `utrace_wait_stopped()` waiters of the task whose
    /// `UTask` is `ut` (an engine's owner) sleep on: one byte past its
    /// address, a key of its own (the stop itself sleeps on the address).
    /// Only hashed and compared, never dereferenced.
    pub(crate) fn stop_waiters_key(ut: *const c_void) -> *const c_void {
        ut.cast::<u8>().wrapping_add(1).cast()
    }

    /// The task's stop waiters' key ([`UTask::stop_waiters_key`]).
    pub(crate) fn stop_waiters(&self) -> *const c_void {
        Self::stop_waiters_key((self as *const UTask).cast())
    }

    /// Wakes `utrace_wait_stopped()` waiters to look again (the task is
    /// exiting, or an engine of it detached).
    pub(crate) fn wake_stop_waiters(&self) {
        crate::wait::wake(self.stop_waiters());
    }

    /// Records signals to report (bit `sig - 1`) and JCTL reports
    /// (`JCTL_*`) for the task's work. For the signal probes: any context,
    /// also with a siglock held (hardirq-safe) or in a hardirq, so `inner`
    /// (taken with interrupts on) is not taken here: `sig_work`, queued
    /// lock-free, moves them to `pending` from the task itself.
    pub(crate) fn queue_signals(&self, work: &WorkCounter, signals: u64, jctl: u32) {
        self.incoming_signals.fetch_or(signals, SeqCst);
        self.incoming_jctl.fetch_or(jctl, SeqCst);
        self.queue_sig_work(work);
    }

    /// Records a HANDLER report for `info`. Called by the `signal_deliver`
    /// probe in the task itself.
    pub(crate) fn queue_handler(&self, work: &WorkCounter, info: &bindings::kernel_siginfo) {
        // SAFETY: Only the task itself touches `handler_info`, here and in
        // `sig_work`, which never run at once (see the field).
        unsafe { self.handler_info.get().write(*info) };
        self.handler_pending.store(true, SeqCst);
        self.queue_sig_work(work);
    }

    fn queue_sig_work(&self, work: &WorkCounter) {
        if self.sig_work_queued.swap(true, SeqCst) {
            return;
        }
        work.begin();
        // SAFETY: `sig_work` is this `UTask`'s and not queued
        // (`sig_work_queued` was clear); the `UTask` outlives it as it
        // does `work`.
        if unsafe { shim::task_work_add(self.task_ptr(), self.sig_work.get(), true) }.is_err() {
            // Past exit_task_work(): nothing more is reported.
            self.sig_work_queued.store(false, SeqCst);
            work.end();
        }
    }

    /// Has the task (`current`) take its stop again ([`RESTOP`]), from any
    /// context of its own, an int3 kprobe (NMI) included: `sig_work`, queued
    /// lock-free, moves it to `pending` before the task returns to user mode.
    pub(crate) fn queue_restop(&self, work: &WorkCounter) {
        self.incoming_jctl.fetch_or(RESTOP, SeqCst);
        if self.sig_work_queued.swap(true, SeqCst) {
            return;
        }
        work.begin();
        // SAFETY: As in `queue_sig_work`; the caller runs in the task.
        if unsafe { shim::stop::queue_current(self.sig_work.get()) }.is_err() {
            // Only past exit_task_work(), which the task in get_signal()
            // is not: nothing more is reported then. (So `end`, which may
            // take a lock, is not reached from the kprobe's NMI path.)
            self.sig_work_queued.store(false, SeqCst);
            work.end();
        }
    }

    /// `sig_work`: queues what the signal probes recorded for the task's
    /// work (which then runs next, in the same `task_work_run()`).
    pub(crate) fn signals_arrived(&self, work: &WorkCounter, seq: u64) {
        self.sig_work_queued.store(false, SeqCst);
        let any = self.incoming_signals.load(SeqCst) != 0
            || self.incoming_jctl.load(SeqCst) != 0
            || self.handler_pending.load(SeqCst);
        if any {
            self.queue(work, |inner| self.take_incoming(&mut inner.pending, seq));
        }
    }

    /// Moves what the signal probes recorded into `into`. Also called by
    /// the task's work as it begins, into the buffer it took `pending`
    /// into: `task_work_run()` runs the work queued last first, so a work
    /// queued after `sig_work` (a detach's look at the stepping, a STOP)
    /// would otherwise run, and apply its resume action, before the
    /// signals held earlier were recorded for it (a step's trap, reported
    /// only once the stepping was off, went to no engine and was
    /// delivered). `sig_work` stays queued then (its flag is left alone:
    /// it is on the task's list) and finds nothing, or what came since.
    pub(crate) fn take_incoming(&self, into: &mut Pending, seq: u64) {
        let signals = self.incoming_signals.swap(0, SeqCst);
        let jctl = self.incoming_jctl.swap(0, SeqCst);
        into.signals |= signals;
        into.jctl |= jctl;
        if signals != 0 {
            into.signal_seq = seq;
        }
        if self.handler_pending.swap(false, SeqCst) {
            into.handler = Some(HandlerReport {
                // SAFETY: Written by `queue_handler` before `handler_pending`
                // was set; only the task itself (this) touches it.
                info: unsafe { self.handler_info.get().read() },
                seq,
            });
        }
    }

    /// The `UTask` whose `sig_work` is `head`.
    ///
    /// # Safety
    ///
    /// As for [`UTask::from_work`], with the `sig_work` field.
    pub(crate) unsafe fn from_sig_work<'a>(head: *mut bindings::callback_head) -> &'a UTask {
        // SAFETY: By the function's safety requirements.
        unsafe { &*container_of_mut!(head, UTask, sig_work) }
    }

    /// For the free hook: whether the record can be taken off the table at
    /// once, with no REAP to report. True (and reaping begun) if the task's
    /// exit was seen and it has no engine: attach refuses a task whose
    /// exit was seen (`EXIT_SEEN`, set under `inner`, which attach checks
    /// under the same lock before it links an engine), and a handoff needs
    /// an engine on the list, so none can be linked from then on; global
    /// engines get no REAP.
    pub(crate) fn reap_now(&self, rcu: &shim::RcuGuard) -> bool {
        // Seeing `EXIT_SEEN` (set after any attach that linked an engine,
        // under the same lock) makes such an engine's link visible.
        if self.state() & EXIT_SEEN == 0 || self.engines.iter_rcu(rcu).next().is_some() {
            return false;
        }
        !self.set_state(REAP_BEGUN)
    }

    /// Queues the reap of this task's engines on `queue` (from
    /// `sched_process_free`, softirq context): reporting happens in process
    /// context. True if the queue's drainer must be queued.
    pub(crate) fn queue_reap(&self, work: &WorkCounter, queue: &ReapQueue) -> bool {
        if self.set_state(REAP_BEGUN) {
            return false;
        }
        work.begin();
        // INVARIANT: `REAP_BEGUN` was just set, once; the table's reference
        // keeps the `UTask` alive until the drainer removes it.
        queue.push(self)
    }
}
