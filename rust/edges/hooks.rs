// SPDX-License-Identifier: GPL-2.0

//! Entry points of the tracepoint probes (`shim/tracepoints.c`).
//!
//! They run in atomic context (preemption disabled): they never sleep and
//! allocate only with `GFP_ATOMIC`. Each one does one cheap check first (is
//! any engine attached at all?), then finds the task's state through the
//! hash table without a lock, and only then records the event for the task's
//! own work, which reports it in a context where callbacks may sleep.

use crate::compat::ARef;
use crate::events::{self, signal, Events};
use crate::report;
use crate::report_signal;
use crate::report_syscall;
use crate::shim::{self, signal::SigLocked, RcuGuard};
use crate::sighold::{self, STOP_SIGNALS};
use crate::state::{self, State};
use crate::task;
use crate::utask::{CloneReport, ExecReport, ProxyClone, UTask, JCTL_CONT, JCTL_STOP};
use core::sync::atomic::Ordering::SeqCst;
use kernel::bindings;
use kernel::prelude::*;

/// The `UTask` of `task` if it or a global engine wants one of `events`;
/// created (atomically) when only global engines do.
fn wanted(
    st: &State,
    task: *mut bindings::task_struct,
    events: Events,
    rcu: &RcuGuard,
) -> Option<ARef<UTask>> {
    let global = st.global_events() & events != 0;
    let existing = st.table.get_in(task, rcu);
    if let Some(ut) = existing {
        if global || ut.events() & events != 0 {
            return Some(ut);
        }
        return None;
    }
    if !global {
        return None;
    }
    create(st, task)
}

/// A new `UTask` for `task`, which had none, for a global engine
/// (atomically); `None` if memory is short (the event is lost) or the task
/// was released.
fn create(st: &State, task: *mut bindings::task_struct) -> Option<ARef<UTask>> {
    // SAFETY: The hooks are called with a live task.
    let task = unsafe { task::from_raw(task) };
    match report::new_utask(task, GFP_ATOMIC) {
        Ok(ut) => st.table.insert(ut),
        Err(_) => {
            st.event_lost();
            pr_warn_limited!(
                "out of memory: an event of pid {} is not reported\n",
                task::pid(task)
            );
            None
        }
    }
}

/// `task_newtask`: `child` was just created by `current` and has not run.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_newtask(
    child: *mut bindings::task_struct,
    clone_flags: u64,
) {
    let Some(st) = state::get() else { return };
    if !st.any_attached() {
        return;
    }
    // SAFETY: `current` and the new child are live tasks.
    let (parent, child) = unsafe { (task::from_raw(task::current()), task::from_raw(child)) };
    // Kernel threads have no user mode to report in, and io_uring/vhost
    // workers never run user code: neither is traced.
    if task::is_kernel_or_worker(parent) || task::is_kernel_or_worker(child) {
        return;
    }
    let seq = st.seq_now();
    // SAFETY: The probe runs with preemption off (`shim/tracepoints.c`).
    let rcu = unsafe { RcuGuard::preempt_off() };
    let Some(parent_ut) = wanted(st, task::raw(parent), events::CLONE, &rcu) else {
        return;
    };
    let vfork = clone_flags & u64::from(bindings::CLONE_VFORK) != 0;
    // The child gets state now, so engines can attach to it from the CLONE
    // callbacks before it runs a single instruction of its own, unless no
    // engine that gets the event would (UTRACE_ATTACH_NOFOLLOW): then it
    // runs at once and gets state when an event of its own needs it. A
    // vfork child always gets state: it reports for its sleeping parent.
    let follow = (parent_ut.follow_events() | st.global_follow_events()) & events::CLONE != 0;
    if !follow && !vfork {
        queue_clone(st, &parent_ut, parent, clone_flags, child, None, seq);
        return;
    }
    let child_ut = match report::new_utask(child, GFP_ATOMIC) {
        Ok(ut) => st.table.insert(ut).inspect(|ut| {
            // It has not run yet: its return from fork is reported after
            // the CLONE reports (see `sysentry.rs`).
            ut.entry_restart.fork_return();
        }),
        Err(_) => {
            pr_warn_limited!(
                "out of memory: pid {} may run before its CLONE report\n",
                task::pid(child)
            );
            None
        }
    };
    if vfork {
        // The parent sleeps in the kernel until the child execs or exits, so
        // its own work could not run first: the child reports for it.
        let proxy = ProxyClone {
            parent_ut,
            flags: clone_flags,
            seq,
        };
        match &child_ut {
            Some(child_ut) => {
                child_ut.queue(&st.work, |inner| inner.pending.proxy_clone = Some(proxy))
            }
            None => {
                st.event_lost();
                pr_warn_limited!("a CLONE event of pid {} is lost\n", task::pid(parent));
            }
        }
        return;
    }
    if let Some(child_ut) = &child_ut {
        child_ut.close_gate(&st.work);
    }
    queue_clone(st, &parent_ut, parent, clone_flags, child, child_ut, seq);
}

/// Queues the parent's CLONE report; `child_ut`, if any, is the child's
/// state, gated until the report is done.
fn queue_clone(
    st: &State,
    parent_ut: &UTask,
    parent: &kernel::task::Task,
    flags: u64,
    child: &kernel::task::Task,
    child_ut: Option<ARef<UTask>>,
    seq: u64,
) {
    let report = CloneReport {
        // SAFETY: `child` is live.
        child: unsafe { task::get(task::raw(child)) },
        child_ut,
        flags,
        seq,
    };
    if let Some(lost) = parent_ut.queue_clone(&st.work, report) {
        st.event_lost();
        pr_warn_limited!(
            "pid {}: two CLONE events pending, one lost\n",
            task::pid(parent)
        );
        drop(lost);
    }
}

/// `sched_process_exec`: `task` (current) just switched to a new image.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_exec(
    task: *mut bindings::task_struct,
    filename: *const u8,
    old_pid: i32,
) {
    let Some(st) = state::get() else { return };
    if !st.any_attached() {
        return;
    }
    let seq = st.seq_now();
    // SAFETY: The probe runs with preemption off (`shim/tracepoints.c`).
    let rcu = unsafe { RcuGuard::preempt_off() };
    let Some(ut) = wanted(st, task, events::EXEC, &rcu) else {
        return;
    };
    let filename = copy_cstr(filename);
    ut.queue(&st.work, |inner| {
        inner.pending.exec = Some(ExecReport {
            filename,
            old_pid,
            seq,
        })
    });
}

/// A NUL-terminated copy of a C string, if memory allows.
fn copy_cstr(s: *const u8) -> Option<KVec<u8>> {
    if s.is_null() {
        return None;
    }
    // SAFETY: `s` is a NUL-terminated string (the exec path) that lives for
    // the duration of the hook.
    let bytes = unsafe { core::ffi::CStr::from_ptr(s.cast()) }.to_bytes_with_nul();
    let mut copy = KVec::with_capacity(bytes.len(), GFP_ATOMIC).ok()?;
    copy.extend_from_slice(bytes, GFP_ATOMIC).ok()?;
    Some(copy)
}

/// `sched_process_exit`: `task` (current) is exiting; its task_work still
/// runs, in `exit_task_work()`.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_exit(task: *mut bindings::task_struct, group_dead: bool) {
    let Some(st) = state::get() else { return };
    if !st.any_attached() {
        return;
    }
    let seq = st.seq_now();
    // Mark the exit seen under the lock whenever there is state, so that
    // set_events() knows whether a later DEATH request can still be met.
    // SAFETY: The probe runs with preemption off (`shim/tracepoints.c`).
    let rcu = unsafe { RcuGuard::preempt_off() };
    let ut = match st.table.get_in(task, &rcu) {
        Some(ut) => ut,
        None if st.global_events() & events::EXIT_EVENTS != 0 => {
            let Some(ut) = create(st, task) else { return };
            ut
        }
        None => return,
    };
    ut.queue(&st.work, |inner| {
        ut.set_state(crate::utask::EXIT_SEEN);
        if group_dead {
            ut.set_state(crate::utask::GROUP_DEAD);
        }
        if (ut.events() | st.global_events()) & events::EXIT_EVENTS != 0 {
            inner.pending.exit = Some(seq);
        }
    });
    // utrace_wait_stopped() waiters return ESRCH. They wait on an engine of
    // the task's own: none if it has none (a record only global engines
    // use). Seen under the lock `queue` took, after any attach that linked
    // one; later attaches see `EXIT_SEEN` and refuse; an engine detached
    // meanwhile woke its waiters itself.
    if !ut.engines.is_empty() {
        ut.wake_stop_waiters();
    }
}

/// `sched_process_free`: the task is being freed (softirq context).
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_free(task: *mut bindings::task_struct) {
    let Some(st) = state::get() else { return };
    let rcu = crate::shim::RcuGuard::new();
    let Some(ut) = st.table.lookup(task, &rcu) else {
        return;
    };
    if ut.reap_now(&rcu) {
        // No engine of its own, and none can come (a record made for the
        // global engines' EXIT/DEATH, or whose engines all detached): no
        // REAP to report, so no worker. The lock is hardirq-safe; the
        // record is freed after a grace period.
        drop(st.table.remove(ut));
    } else {
        st.queue_reap(ut);
    }
}

/// `prepare_signal()` kprobe (`send_signal_locked()` where the kernel refuses
/// that one, see `shim/kprobes.c`), armed while an engine has signal events
/// (`State::hooks_add`): `sig` is about to be sent to `task`,
/// whose siglock is held; nothing is decided yet. Every sender comes here
/// (kill(), faults, a child's death signal, a POSIX timer's expiry, in a
/// hardirq for the last). If one of `task`'s engines
/// wants to be told of it, shield it (`real_blocked`) for this send, so
/// that the kernel neither makes a fatal signal a group kill nor drops an
/// ignored one; the `signal_generate` probe then hides it if it was queued.
/// May run in NMI-like context: atomics only, no lock, no log line.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_signal_send(sig: i32, task: *mut bindings::task_struct) {
    let Some(st) = state::get() else { return };
    if !st.any_attached() || !(1..=64).contains(&sig) {
        return;
    }
    // SAFETY: The kprobe's caller holds `task`'s siglock until we return.
    let lk = unsafe { SigLocked::in_probe(task) };
    let rcu = crate::shim::RcuGuard::new();
    if sig == bindings::SIGCONT as i32 {
        // The stop signals held in any thread are shown and no longer held,
        // so that the kernel's own flush takes them, and exactly them.
        // (Without the kprobe in this kernel, the SIGCONT probe cancels
        // them instead: see [`continued`].)
        lk.for_each_thread(|t| {
            if let Some(ut) = st.table.lookup(t.raw(), &rcu) {
                ut.sig.cont_sent(t);
            }
        });
        return;
    }
    let Some(ut) = st.table.lookup(task, &rcu) else {
        return;
    };
    if ut.sig.debugger_resent(&lk, sig) {
        return;
    }
    // Sent again while suspended: merged, as the kernel merges it. Counted
    // as a shield, so that the `signal_generate` probe runs and hides it
    // again even if the last engine detached in between.
    if ut.sig.show_for_merge(&lk, sig) {
        st.shield_begin();
    }
    if !wants_signal(st, ut, &lk, sig, true) {
        return;
    }
    st.shield_begin();
    ut.sig.shield(&lk, sig);
}

/// Whether an engine of `ut` (`lk`'s task's) wants to be told of `sig` and
/// it may be held (`early`: before it is queued).
fn wants_signal(st: &State, ut: &UTask, lk: &SigLocked<'_>, sig: i32, early: bool) -> bool {
    // A global engine may want every task's SIGNAL_CORE.
    let wanted = ut.events() | (st.global_events() & events::SIGNAL_CORE);
    if wanted & events::SIGNAL_ALL == 0 || (lk.raw() == task::current() && ut.sig.injecting()) {
        return false;
    }
    wanted & signal::event_of(lk.class(sig)) != 0 && lk.holdable(sig, early)
}

/// `signal_generate`: `sig` was sent to `task` (`queued`: and is pending,
/// on the group's set if `shared`). Runs with `task`'s siglock held and
/// interrupts off, in any context (an itimer's signal comes from a hardirq:
/// see [`UTask::queue_signals`]).
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_signal(
    sig: i32,
    task: *mut bindings::task_struct,
    shared: bool,
    queued: bool,
) {
    let Some(st) = state::get() else { return };
    // A send the kprobe shielded is seen to its end even when the last
    // engine detached in between: its mark is taken off below.
    if (!st.any_attached() && !st.shields_out()) || !(1..=64).contains(&sig) {
        return;
    }
    // SAFETY: The tracepoint's caller holds `task`'s siglock until we
    // return.
    let lk = unsafe { SigLocked::in_probe(task) };
    if sig == bindings::SIGCONT as i32 {
        continued(st, &lk);
        return;
    }
    // No engine has had a signal event yet: no signal is fresh (the send
    // kprobe was never armed), held or wanted. Only a stop signal is looked
    // at then, for job control (JCTL engines). The SIGCHLD of every child's
    // exit under a global CLONE/DEATH engine returns here.
    if !st.signal_events_seen() && sighold::bit(sig) & STOP_SIGNALS == 0 {
        return;
    }
    generated(st, sig, &lk, shared, queued);
}

/// [`utrace_rs_hook_signal`] for a signal an engine may want, out of line:
/// its stack frame is not set up for the signals that return before.
#[inline(never)]
fn generated(st: &State, sig: i32, lk: &SigLocked<'_>, shared: bool, queued: bool) {
    let rcu = crate::shim::RcuGuard::new();
    // A task without state (older than the global engine, and not traced
    // since) gets one here for a global SIGNAL_CORE engine, for a signal it
    // would hold (GFP_ATOMIC; the table's lock is hardirq-safe, so it may
    // be taken under the siglock, also in a hardirq).
    let found = st.table.lookup(lk.raw(), &rcu);
    // The send kprobe's merge with a suspended instance is over.
    if found.is_some_and(|ut| ut.sig.hide_merged(lk)) {
        st.shield_end();
    }
    let created = match found {
        None if queued
            && st.global_events() & events::SIGNAL_CORE != 0
            && !task::is_kernel_or_worker(lk.task())
            && lk.class(sig) == signal::CORE
            && lk.holdable(sig, false) =>
        {
            wanted(st, lk.raw(), events::SIGNAL_CORE, &rcu)
        }
        _ => None,
    };
    if let Some(ut) = created.as_deref().or(found) {
        let fresh = ut.sig.unshield(lk, sig);
        if fresh {
            st.shield_end();
        }
        // A fresh (shielded) send is held if it was queued; so is one held
        // already (another instance, hidden with the first: sent again
        // while hidden, a non-realtime signal is queued again); and one
        // sent without the kprobe (no kprobe in this kernel, or only the
        // `send_signal_locked()` one: a POSIX timer's expiry, a death
        // signal) if it is not too late: the kernel did not make it a group
        // kill or drop it already.
        if queued
            && (fresh
                || ut.sig.holds(lk, sighold::bit(sig))
                || wants_signal(st, ut, lk, sig, false))
        {
            if ut
                .sig
                .hide_queued(lk, sig, shared, || merged_in_group(st, lk, sig, &rcu))
            {
                ut.queue_signals(&st.work, sighold::bit(sig), 0);
            }
            return;
        }
    }
    if !queued {
        return;
    }
    let class = lk.class(sig);
    if (class == signal::STOP || class == signal::TSTP)
        && !report_signal::hold_for_jctl(st, lk, sig, shared)
    {
        report_signal::jctl_group(st, lk, JCTL_STOP, None);
    }
}

/// Whether the process-wide non-realtime `sig` just queued (and hidden)
/// for `lk`'s task's group merges with one that a thread of the group holds
/// hidden on the group's set already: the kernel would have merged it (a
/// non-realtime signal is pending once per set), so it is not held a
/// second time in another thread's record, which would report it and
/// then show a set bit with no instance left, a forged empty siginfo. The
/// holder shows one instance, the first, when it lets it go
/// (`shim/signal.c` `unhide()`).
fn merged_in_group(st: &State, lk: &SigLocked<'_>, sig: i32, rcu: &RcuGuard) -> bool {
    if sig >= bindings::SIGRTMIN as i32 {
        return false;
    }
    let bit = sighold::bit(sig);
    let mut merged = false;
    lk.for_each_thread(|t| {
        merged |= st
            .table
            .lookup(t.raw(), rcu)
            .is_some_and(|ut| ut.sig.holds_shared(t, bit));
    });
    merged
}

/// SIGCONT sent to `lk`'s task's process: deliver what was suspended, in
/// every thread, and tell JCTL engines it continued. Out of line, as
/// [`generated`] is.
#[inline(never)]
fn continued(st: &State, lk: &SigLocked<'_>) {
    let rcu = crate::shim::RcuGuard::new();
    lk.for_each_thread(|t| {
        if let Some(ut) = st.table.lookup(t.raw(), &rcu) {
            let stops = ut.sig.continued(t);
            if stops != 0 {
                // Reported to be discarded (see `report_signal`).
                ut.queue_signals(&st.work, stops, 0);
            }
        }
    });
    // SIGCONT took the job-control mark off the group's utrace-stopped
    // threads: have them mark themselves again.
    shim::stop::wake_threads(lk);
    if lk.group_continued() {
        report_signal::jctl_group(st, lk, JCTL_CONT, None);
    }
}

/// `signal_deliver`: `current` dequeued `sig` and a handler will run for it.
/// If its engines were told of it, they get a HANDLER report once the frame
/// is set up (the task's work runs after that, on its way to user mode).
/// Siglock held, process context.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_signal_deliver(
    sig: i32,
    info: *const bindings::kernel_siginfo,
) {
    let Some(st) = state::get() else { return };
    if !st.any_attached() || !(1..=64).contains(&sig) || info.is_null() {
        return;
    }
    let Some(ut) = st.table.get(task::current()) else {
        return;
    };
    if !ut.sig.take_handler_wanted(sighold::bit(sig)) {
        return;
    }
    // SAFETY: The probe's siginfo, valid during the call.
    ut.queue_handler(&st.work, unsafe { &*info });
}

/// `sys_enter` of `current` (`task`), which the probe's filter let through
/// (registered only while an engine has SYSCALL events). Atomic context:
/// the probe disables preemption on every kernel.
///
/// # Safety
///
/// Called by the syscall probes only: `st` is their data, `regs` the
/// registers they got, `hash` the [`shim::task_hash`] of `task`, which is
/// `current`; preemption disabled.
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_rs_hook_sys_enter(
    st: *const State,
    regs: *mut bindings::pt_regs,
    hash: u32,
    task: *mut bindings::task_struct,
) {
    // SAFETY: By the function's safety requirements.
    unsafe { hook_syscall(st, regs, hash, task, true) }
}

/// `sys_exit`: as [`utrace_rs_hook_sys_enter`].
///
/// # Safety
///
/// As for [`utrace_rs_hook_sys_enter`].
#[no_mangle]
pub(crate) unsafe extern "C" fn utrace_rs_hook_sys_exit(
    st: *const State,
    regs: *mut bindings::pt_regs,
    hash: u32,
    task: *mut bindings::task_struct,
) {
    // SAFETY: By the function's safety requirements.
    unsafe { hook_syscall(st, regs, hash, task, false) }
}

/// Both syscall hooks, inlined into each (`entry` folded).
///
/// # Safety
///
/// As for [`utrace_rs_hook_sys_enter`].
#[inline(always)]
unsafe fn hook_syscall(
    st: *const State,
    regs: *mut bindings::pt_regs,
    hash: u32,
    task: *mut bindings::task_struct,
    entry: bool,
) {
    // SAFETY: `st` is the probes' data (the function's safety
    // requirements): the state that put them in
    // (`state::switch_syscall_hooks`), which takes them out and waits for
    // the running ones before it is freed (`State::hooks_shutdown`).
    let st = unsafe { &*st };
    // SAFETY: The syscall probe calls us with preemption disabled
    // (`shim/tracepoints.c`), until we return; `rcu` does not outlive this.
    let rcu = unsafe { shim::RcuGuard::preempt_off() };
    let Some(ut) = st.table.lookup_hashed(task, hash, &rcu) else {
        return;
    };
    // Which engines want the event is `report_syscall`'s to check: a
    // syscall entry skipped to be restarted is followed through even when
    // none does any more.
    // SAFETY: The registers the probe got, used only during this call.
    let regs = unsafe { shim::SyscallRegs::new(regs, entry) };
    report_syscall::report_syscall(st, ut, regs, &rcu);
}

/// For `shim/device.c`'s `utrace_chrdev_wake_at_stop()`: keeps a reference
/// on `file` to wake it at `current`'s stop or at the end of its report
/// work (`report.rs`); false (nothing kept) if `current` is not in its
/// report work.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_defer_wake(file: *mut kernel::ffi::c_void) -> bool {
    let Some(file) = core::ptr::NonNull::new(file) else {
        return false;
    };
    let Some(st) = state::get() else { return false };
    let rcu = RcuGuard::new();
    let Some(ut) = st.table.lookup(task::current(), &rcu) else {
        return false;
    };
    // Only `current` sets `in_work`: if it is not in its work, no
    // reference is taken and the caller wakes the file now.
    ut.defer_wake(|| {
        // SAFETY: The caller (an engine callback of `current`'s) holds a
        // reference on `file`.
        unsafe { shim::stop::Reader::get(file) }
    })
}

/// For `shim/stop.c`, on SIGCONT (siglock held): wakes `task` if it sleeps in
/// a utrace stop, to count itself as stopped again.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_wake_stopped(task: *mut bindings::task_struct) {
    let Some(st) = state::get() else { return };
    let rcu = crate::shim::RcuGuard::new();
    if let Some(ut) = st.table.lookup(task, &rcu) {
        if ut.stopped.load(SeqCst) {
            ut.wake_stopped();
        }
    }
}
