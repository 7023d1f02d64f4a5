// SPDX-License-Identifier: GPL-2.0

//! Entry points of the tracepoint probes (`shim/tracepoints.c`).
//!
//! They run in atomic context (preemption disabled): they never sleep and
//! allocate only with `GFP_ATOMIC`. Each one does one cheap check first (is
//! any engine attached at all?), then finds the task's state through the
//! hash table without a lock, and only then records the event for the task's
//! own work, which reports it in a context where callbacks may sleep.

use crate::compat::ARef;
use crate::events::{self, Events};
use crate::report;
use crate::shim;
use crate::state::{self, State};
use crate::task;
use crate::utask::{CloneReport, ExecReport, ProxyClone, UTask};
use kernel::bindings;
use kernel::prelude::*;

/// The `UTask` of `task` if it or a global engine wants one of `events`;
/// created (atomically) when only global engines do.
fn wanted(st: &State, task: *mut bindings::task_struct, events: Events) -> Option<ARef<UTask>> {
    let global = st.global_events() & events != 0;
    let existing = st.table.get(task);
    if let Some(ut) = existing {
        if global || ut.events() & events != 0 {
            return Some(ut);
        }
        return None;
    }
    if !global {
        return None;
    }
    // SAFETY: The hooks are called with a live task.
    let task = unsafe { task::from_raw(task) };
    match report::new_utask(task, GFP_ATOMIC) {
        Ok(ut) => Some(st.table.insert(ut)),
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
    let Some(parent_ut) = wanted(st, task::raw(parent), events::CLONE) else {
        return;
    };
    // The child gets state now, so engines can attach to it from the CLONE
    // callbacks before it runs a single instruction of its own.
    let child_ut = match report::new_utask(child, GFP_ATOMIC) {
        Ok(ut) => Some(st.table.insert(ut)),
        Err(_) => {
            pr_warn_limited!(
                "out of memory: pid {} may run before its CLONE report\n",
                task::pid(child)
            );
            None
        }
    };
    if clone_flags & u64::from(bindings::CLONE_VFORK) != 0 {
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
    let report = CloneReport {
        // SAFETY: `child` is live.
        child: unsafe { task::get(task::raw(child)) },
        child_ut,
        flags: clone_flags,
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
    let Some(ut) = wanted(st, task, events::EXEC) else {
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
    let ut = st
        .table
        .get(task)
        .or_else(|| wanted(st, task, events::EXIT_EVENTS));
    let Some(ut) = ut else { return };
    ut.queue(&st.work, |inner| {
        ut.set_state(crate::utask::EXIT_SEEN);
        if group_dead {
            ut.set_state(crate::utask::GROUP_DEAD);
        }
        if (ut.events() | st.global_events()) & events::EXIT_EVENTS != 0 {
            inner.pending.exit = Some(seq);
        }
    });
}

/// `sched_process_free`: the task is being freed (softirq context).
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_free(task: *mut bindings::task_struct) {
    let Some(st) = state::get() else { return };
    let rcu = crate::shim::RcuGuard::new();
    if let Some(ut) = st.table.lookup(task, &rcu) {
        ut.queue_reap(&st.work);
    }
}

/// `signal_generate`: `sig` was queued for `task` (or it is a SIGCONT). Runs
/// with `task`'s siglock held and interrupts off.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_signal(sig: i32, task: *mut bindings::task_struct) {
    let Some(st) = state::get() else { return };
    if !st.any_attached() {
        return;
    }
    // SAFETY: The probe's task is live, and so is its group leader while
    // the siglock is held.
    let leader = unsafe { (*task).group_leader };
    if sig == bindings::SIGCONT as i32 {
        // Continued: deliver what was held, in every thread.
        let rcu = crate::shim::RcuGuard::new();
        if let Some(lut) = st.table.lookup(leader, &rcu) {
            let held = lut.held.swap(0, core::sync::atomic::Ordering::SeqCst);
            if held != 0 {
                // SAFETY: The siglock is held by our caller.
                unsafe { shim::signal::unblock(task, held, true) };
            }
        }
        // SIGCONT took the job-control mark off the group's utrace-stopped
        // threads: have them mark themselves again.
        // SAFETY: The siglock is held by our caller.
        unsafe { shim::stop::wake_threads(task) };
        return;
    }
    let Some(ut) = st.table.get(task) else { return };
    let wants = ut.events() & (events::SIGNAL | events::SIGNAL_CORE);
    // SAFETY: The siglock is held by our caller.
    if wants == 0 || !unsafe { shim::signal::holdable(task, sig) } {
        return;
    }
    // SAFETY: As above.
    let core = unsafe { shim::signal::core_default(task, sig) };
    if wants & events::SIGNAL == 0 && !core {
        return;
    }
    // The group's held set lives on its leader's state.
    let lut = match st.table.get(leader) {
        Some(lut) => lut,
        // SAFETY: `leader` is live (see above).
        None => match report::new_utask(unsafe { task::from_raw(leader) }, GFP_ATOMIC) {
            Ok(lut) => st.table.insert(lut),
            Err(_) => {
                st.event_lost();
                pr_warn_limited!("out of memory: signal {} is not reported\n", sig);
                return;
            }
        },
    };
    let bit = 1u64 << (sig - 1);
    if lut.held.fetch_or(bit, core::sync::atomic::Ordering::SeqCst) & bit != 0 {
        return;
    }
    // SAFETY: The siglock is held by our caller.
    unsafe { shim::signal::hold(task, sig) };
    let seq = st.seq_now();
    ut.queue(&st.work, |inner| {
        inner.pending.signals |= bit;
        if core {
            inner.pending.core_signals |= bit;
        }
        inner.pending.signal_seq = seq;
    });
}

/// `sys_enter` / `sys_exit` of `current` (`task`), which the probe's filter
/// let through (registered only while an engine has SYSCALL events).
/// Atomic context.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_hook_syscall(
    task: *mut bindings::task_struct,
    regs: *mut bindings::pt_regs,
    entry: bool,
) {
    let Some(st) = state::get() else { return };
    // SAFETY: The syscall probe calls us; `probe` does not outlive this.
    let probe = unsafe { shim::InProbe::new() };
    let rcu = shim::RcuGuard::in_probe(probe);
    let Some(ut) = st.table.lookup(task, &rcu) else {
        return;
    };
    // Which engines want the event is `report_syscall`'s to check: a
    // syscall entry skipped to be restarted is followed through even when
    // none does any more.
    // SAFETY: The registers the probe got, used only during this call.
    let mut regs = unsafe { shim::SyscallRegs::new(regs, entry) };
    report::report_syscall(st, ut, &mut regs, probe);
}

/// For `shim/stop.c`, on SIGCONT (siglock held): wakes `task` if it sleeps in
/// a utrace stop, to count itself as stopped again.
#[no_mangle]
pub(crate) extern "C" fn utrace_rs_wake_stopped(task: *mut bindings::task_struct) {
    let Some(st) = state::get() else { return };
    let rcu = crate::shim::RcuGuard::new();
    if let Some(ut) = st.table.lookup(task, &rcu) {
        if ut.stopped.load(core::sync::atomic::Ordering::SeqCst) {
            ut.wake_stopped();
        }
    }
}
