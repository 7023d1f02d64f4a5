// SPDX-License-Identifier: GPL-2.0

//! task → [`UTask`] lookup: a fixed hash table of RCU-protected chains.
//! Lookups (every hook) take no lock; inserts and removals (first attach or
//! first event of a task, and reap) take the table's writer lock, always
//! with local interrupts off: it is hardirq-safe, so that the
//! `signal_generate` probe may insert under a task's siglock (which is
//! hardirq-safe too, and is taken before it). It is a leaf lock: nothing is
//! taken while it is held.

use crate::compat::ARef;
use crate::shim::{IrqOff, RcuGuard};
use crate::utask::UTask;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering::Acquire, Ordering::Release};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{new_spinlock, SpinLock};

/// `shim.h`'s `UTRACE_TASK_HASH_BITS`: the syscall probes' filter shares
/// these buckets and hands its hash on (see [`TaskTable::lookup_hashed`]).
const BITS: u32 = 10;
const SIZE: usize = 1 << BITS;

#[pin_data]
pub(crate) struct TaskTable {
    buckets: [AtomicPtr<UTask>; SIZE],
    #[pin]
    lock: SpinLock<()>,
}

fn hash_of(task: *mut bindings::task_struct) -> u32 {
    // Fibonacci hashing of the pointer (as hash_ptr() does); task_structs
    // are cache-line aligned, so the low bits carry nothing.
    let h = (task as usize as u64).wrapping_mul(0x61c8_8646_80b5_83eb);
    (h >> (64 - BITS)) as u32
}

/// Whether the C shim hashes tasks as the table does (checked at load: the
/// syscall probes hand their hash to [`TaskTable::lookup_hashed`], where a
/// different one would find no task), on 64 addresses a page and a cache
/// line apart: a shim with other bits or another multiplier differs on
/// nearly all of them.
pub(crate) fn hash_agrees_with_shim() -> bool {
    (0..64usize).all(|i| {
        let task = (0xffff_8880_0000_0000usize + i * 0x1040) as *mut bindings::task_struct;
        crate::shim::task_hash(task) == hash_of(task)
    })
}

impl TaskTable {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(TaskTable {
            buckets: [const { AtomicPtr::new(ptr::null_mut()) }; SIZE],
            lock <- new_spinlock!(()),
        })
    }

    /// The chain of the tasks whose hash is `hash` (any `u32`: only its
    /// low `BITS` count, so a hash from the shim indexes in bounds).
    fn bucket(&self, hash: u32) -> &AtomicPtr<UTask> {
        &self.buckets[hash as usize % SIZE]
    }

    /// The `UTask` of `task`, valid for the RCU section `_rcu`.
    pub(crate) fn lookup<'a>(
        &self,
        task: *mut bindings::task_struct,
        rcu: &'a RcuGuard,
    ) -> Option<&'a UTask> {
        self.lookup_hashed(task, hash_of(task), rcu)
    }

    /// [`TaskTable::lookup`] with `task`'s hash already computed (by the
    /// syscall probes' filter, `shim::task_hash()`); another hash finds
    /// nothing.
    #[inline(always)]
    pub(crate) fn lookup_hashed<'a>(
        &self,
        task: *mut bindings::task_struct,
        hash: u32,
        _rcu: &'a RcuGuard,
    ) -> Option<&'a UTask> {
        let mut cur = self.bucket(hash).load(Acquire);
        while !cur.is_null() {
            // SAFETY: Chained `UTask`s are freed only after an RCU grace period
            // that follows their removal, and `_rcu` is a read-side section.
            let ut = unsafe { &*cur };
            if ut.task_ptr() == task {
                return Some(ut);
            }
            cur = ut.hnext.load(Acquire);
        }
        None
    }

    /// The `UTask` of `task` with a reference, if it has one and reaping has
    /// not begun.
    pub(crate) fn get(&self, task: *mut bindings::task_struct) -> Option<ARef<UTask>> {
        self.get_in(task, &RcuGuard::new())
    }

    /// [`TaskTable::get`] inside the caller's read-side section.
    pub(crate) fn get_in(
        &self,
        task: *mut bindings::task_struct,
        rcu: &RcuGuard,
    ) -> Option<ARef<UTask>> {
        self.lookup(task, rcu).and_then(UTask::try_get)
    }

    /// Inserts `ut` unless its task already has one; returns the one in the
    /// table (a new reference either way), or `None` if the task was
    /// released (or its `UTask` is being reaped): its `sched_process_free`
    /// may have run already, and a `UTask` inserted now would never be
    /// reaped (it stayed until unload, with its task, attached engines and
    /// all).
    pub(crate) fn insert(&self, ut: ARef<UTask>) -> Option<ARef<UTask>> {
        let task = ut.task_ptr();
        let irq = IrqOff::new();
        let _guard = self.lock.lock();
        // One read side from the check to the publication (interrupts off
        // make one): `release_task()` unhashes the task before it queues
        // the RCU callback that runs `sched_process_free`, so if the check
        // saw it hashed, that callback runs after this section ends and
        // its lookup finds `ut`.
        let rcu = irq.rcu();
        if let Some(existing) = self.lookup(task, rcu).and_then(UTask::try_get) {
            return Some(existing);
        }
        if crate::task::is_released(ut.task()) {
            return None;
        }
        let head = self.bucket(hash_of(task));
        ut.hnext.store(head.load(Acquire), Release);
        // INVARIANT: The table now holds the reference `ut` carried; `remove`
        // gives it back.
        head.store(ARef::into_raw(ut.clone()).as_ptr(), Release);
        Some(ut)
    }

    /// Unlinks `ut` and returns the table's reference on it. Readers may see
    /// it until a grace period has passed; `UTask`s are freed after one.
    pub(crate) fn remove(&self, ut: &UTask) -> Option<ARef<UTask>> {
        let _irq = IrqOff::new();
        let _guard = self.lock.lock();
        let mut link = self.bucket(hash_of(ut.task_ptr()));
        loop {
            let cur = link.load(Acquire);
            if cur.is_null() {
                return None;
            }
            // SAFETY: Chained, so valid; the writer lock keeps the chain.
            let cur_ut = unsafe { &*cur };
            if ptr::eq(cur_ut, ut) {
                link.store(cur_ut.hnext.load(Acquire), Release);
                // SAFETY: The table's reference, taken over from `insert`.
                return Some(unsafe { ARef::from_raw(core::ptr::NonNull::new_unchecked(cur)) });
            }
            link = &cur_ut.hnext;
        }
    }

    /// Calls `f` on every `UTask` (under RCU: `f` must not sleep).
    pub(crate) fn for_each(&self, mut f: impl FnMut(&UTask)) {
        let _rcu = RcuGuard::new();
        for bucket in &self.buckets {
            let mut cur = bucket.load(Acquire);
            while !cur.is_null() {
                // SAFETY: Chained under `_rcu`.
                let ut = unsafe { &*cur };
                f(ut);
                cur = ut.hnext.load(Acquire);
            }
        }
    }

    /// Removes every `UTask` (module exit, after the hooks are gone and no
    /// work is pending) and returns how many there were.
    pub(crate) fn clear(&self) -> usize {
        let mut n = 0;
        for bucket in &self.buckets {
            loop {
                let first = bucket.load(Acquire);
                if first.is_null() {
                    break;
                }
                // SAFETY: Chained, so valid.
                let ut = unsafe { &*first };
                drop(self.remove(ut));
                n += 1;
            }
        }
        n
    }
}
