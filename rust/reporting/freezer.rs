// SPDX-License-Identifier: GPL-2.0

//! The cgroup v2 freezer and a utrace stop. A cgroup is frozen once each of
//! its tasks went through `cgroup_enter_frozen()`, which only `get_signal()`
//! calls (not exported, and not callable through a pointer on an IBT
//! kernel). So a stopped task that the freezer asks for
//! (`JOBCTL_TRAP_FREEZE`) leaves its stop and its task work, without running
//! anything in user mode: `get_signal()` freezes it in `do_freezer_trap()`.
//! Once the freezer lets it go, `get_signal()` calls `dequeue_signal()`, and
//! a kprobe there (`shim/stop.c`) has the task take its stop again
//! ([`utrace_rs_hook_restop`]), before it returns to user mode, without a
//! new QUIESCE report: only engines that still want it stopped keep it.

use crate::shim::RcuGuard;
use crate::state;
use crate::task;
use crate::utask::UTask;
use core::sync::atomic::Ordering::SeqCst;

/// `ut`'s task (`current`) left its stop for the cgroup freezer; `rehold`
/// are the signals held (HOLD) before it, to report again once it resumes
/// (see [`take_rehold`]).
pub(crate) fn left(ut: &UTask, rehold: u64) {
    ut.sig.add_rehold(rehold);
    ut.restop.store(true, SeqCst);
}

/// The held signals that a stop left for the freezer carried: the task's
/// work reports them again once the task resumes.
pub(crate) fn take_rehold(ut: &UTask) -> u64 {
    ut.sig.take_rehold()
}

/// The `dequeue_signal()` kprobe and the `signal_deliver` probe: `current`
/// is on its way out of `get_signal()` (out of the freezer's trap, if it was
/// in it); if its stop ended for the freezer, it is taken again. Any
/// context of `current`'s, NMI included (an int3 kprobe): no lock is taken.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_restop() {
    let Some(st) = state::get() else { return };
    if !st.any_attached() {
        return;
    }
    let rcu = RcuGuard::new();
    let Some(ut) = st.table.lookup(task::current(), &rcu) else {
        return;
    };
    if ut.restop.load(SeqCst) && ut.restop.swap(false, SeqCst) {
        ut.queue_restop(&st.work);
    }
}
