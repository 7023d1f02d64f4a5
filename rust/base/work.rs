// SPDX-License-Identifier: GPL-2.0

//! A count of queued work items (task_work and reap work) that must run
//! before the module's text may go away, and waiting for it to drop to
//! zero. Containers that queue work take this, not the whole state.

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{new_condvar, new_spinlock, CondVar, CondVarTimeoutResult, SpinLock};

#[pin_data]
pub(crate) struct WorkCounter {
    pending: AtomicUsize,
    /// [`WorkCounter::wait_idle`] waits (module unload): only then does the
    /// count's drop to zero take `idle_lock` to wake it.
    waiting: AtomicBool,
    #[pin]
    idle_lock: SpinLock<()>,
    #[pin]
    idle: CondVar,
}

impl WorkCounter {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(WorkCounter {
            pending: AtomicUsize::new(0),
            waiting: AtomicBool::new(false),
            idle_lock <- new_spinlock!(()),
            idle <- new_condvar!(),
        })
    }

    /// A work item was queued. Any context.
    pub(crate) fn begin(&self) {
        self.pending.fetch_add(1, SeqCst);
    }

    /// A work item ran (or was never queued after all). Any context.
    pub(crate) fn end(&self) {
        // Both SeqCst: either this sees `waiting`, or `wait_idle`, which
        // sets it before it looks, sees the count at zero.
        if self.pending.fetch_sub(1, SeqCst) == 1 && self.waiting.load(SeqCst) {
            let _guard = self.idle_lock.lock();
            self.idle.notify_all();
        }
    }

    /// Waits until every queued item has run, saying once a second how many
    /// are left (tasks that sit in the kernel run theirs only when they
    /// return towards user mode). Process context.
    pub(crate) fn wait_idle(&self) {
        self.waiting.store(true, SeqCst);
        let mut guard = self.idle_lock.lock();
        let mut waited = 0;
        while self.pending.load(SeqCst) != 0 {
            let timeout = kernel::time::msecs_to_jiffies(1000);
            match self.idle.wait_interruptible_timeout(&mut guard, timeout) {
                CondVarTimeoutResult::Timeout => {
                    waited += 1;
                    pr_info!(
                        "unload: waiting for {} queued task work item(s) ({} s)\n",
                        self.pending.load(SeqCst),
                        waited
                    );
                }
                // Module exit cannot fail: keep waiting, without spinning.
                CondVarTimeoutResult::Signal { .. } => {
                    drop(guard);
                    // SAFETY: Process context, no locks held.
                    unsafe { bindings::msleep(10) };
                    guard = self.idle_lock.lock();
                }
                CondVarTimeoutResult::Woken { .. } => {}
            }
        }
    }
}
