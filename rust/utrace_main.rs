// SPDX-License-Identifier: GPL-2.0

//! utrace-rs: utrace-style task-tracing engines as a loadable module.
//!
//! Engine modules attach to user tasks through the C ABI of
//! `include/utrace_rs.h` (Rust engines use the safe layer over it) and get
//! callbacks at safe points of the tasks' lives. See
//! `Documentation/utrace-rs/`.
//!
//! How the parts fit: the C shim's tracepoint probes call `hooks`, which
//! record events on the task's `utask` state and queue its task_work; the
//! work (`report`) runs reporting passes (`report_pass`, `report_syscall`,
//! `report_signal`) over the task's and the global `engine_list`s;
//! `control` implements the API that `abi` exports.
//!
//! The modules in layers, one folder each; a module imports only from its
//! own folder and the ones above it here, without a cycle
//! (`scripts/check-imports.py` checks both as part of `make check` and
//! prints the order inside each folder):
//!
//! 1. `base/`, the leaves: `compat` (every kernel-version difference),
//!    `errno`, `events`, `text` (stream record text without `core::fmt`,
//!    shared with the safe API), `work` (the queued-work counter);
//! 2. `shim.rs` and `shim/`: the C shim (what Rust on 6.12 cannot reach)
//!    and its safe wrappers;
//! 3. `objects/`: `engine` (refcount, pin for a callback, callback
//!    dispatch), `task`, `wait` (the stop's sleep), `sysentry` (a syscall
//!    entry skipped to be restarted), `sighold` (the held-signal protocol;
//!    its siglock steps take a `shim::signal::SigLocked` witness), then
//!    `engine_list` (RCU list; writers need a `ListWriter`, the lock's
//!    proof) and `release` (where `ops->release` runs; the registry);
//! 4. `containers/`: `utask` (per-task state), then `table`, then `state`;
//! 5. `reporting/`: `detach`, `stream`, `freezer` (a stop and the cgroup
//!    freezer), then `report_pass` (a pass over the engines), then
//!    `report_syscall` and `report_signal` (the passes of those events),
//!    then `report` (the task's work: the passes in order, the stop; REAP);
//! 6. `edges/`, where calls come in: `control` (the API's operations),
//!    `examine` (prepare/finish_examine, regsets, memory), `hooks` (the
//!    probes' entry points) and `abi` (the exported C ABI).

// `pin_init!` of `UTask`, a struct with many fields, nests deeply.
#![recursion_limit = "512"]

use kernel::prelude::*;

/// `pr_warn!`, but only the first ten times per call site: for conditions
/// that could otherwise flood the log from a hot path.
macro_rules! pr_warn_limited {
    ($($arg:tt)*) => {{
        static COUNT: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
        if COUNT.fetch_add(1, core::sync::atomic::Ordering::Relaxed) < 10 {
            kernel::pr_warn!($($arg)*);
        }
    }};
}

/// A `*mut lock_class_key` for a lock or work item initialised by hand: a
/// static key per call site, as lockdep wants.
macro_rules! static_lock_class_key {
    () => {{
        struct Key(kernel::types::Opaque<kernel::bindings::lock_class_key>);
        // SAFETY: Only lockdep touches the key, with its own locking.
        unsafe impl Sync for Key {}
        static KEY: Key = Key(kernel::types::Opaque::uninit());
        KEY.0.get()
    }};
}

// The layers, one folder each (a module imports only from its own folder
// and those listed before it; `scripts/check-imports.py` checks it). The
// crate root names every module, so `crate::<module>` paths stay short.
mod base {
    pub(crate) mod compat;
    pub(crate) mod errno;
    pub(crate) mod events;
    pub(crate) mod text;
    pub(crate) mod work;
}
mod shim;
mod objects {
    pub(crate) mod engine;
    pub(crate) mod engine_list;
    pub(crate) mod release;
    pub(crate) mod sighold;
    pub(crate) mod sysentry;
    pub(crate) mod task;
    pub(crate) mod wait;
}
mod containers {
    pub(crate) mod state;
    pub(crate) mod table;
    pub(crate) mod utask;
}
mod reporting {
    pub(crate) mod detach;
    pub(crate) mod freezer;
    pub(crate) mod report;
    pub(crate) mod report_pass;
    pub(crate) mod report_signal;
    pub(crate) mod report_syscall;
    pub(crate) mod stream;
}
mod edges {
    pub(crate) mod abi;
    pub(crate) mod control;
    pub(crate) mod examine;
    pub(crate) mod hooks;
}
use base::{compat, errno, events, text, work};
use containers::{state, table, utask};
use edges::{abi, control, examine};
use objects::{engine, engine_list, release, sighold, sysentry, task, wait};
use reporting::{detach, freezer, report, report_pass, report_signal, report_syscall, stream};

compat::module_author! {
    type: UtraceModule,
    name: "utrace_rs",
    author: "utrace-rs developers",
    description: "utrace-style task tracing engines (attach, events, control, barrier)",
    license: "GPL",
}

struct UtraceModule {
    state: Pin<KBox<state::State>>,
    releaser: Pin<KBox<release::Releaser>>,
    hooks: Option<shim::Hooks>,
    kprobes: Option<shim::Kprobes>,
    notifier: Option<shim::ModuleNotifier>,
    /// Last: destroyed after every `UTask` was freed (see `drop`).
    _utask_cache: utask::UTaskCache,
}

impl kernel::Module for UtraceModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        if !table::hash_agrees_with_shim() {
            pr_err!("the C shim hashes tasks unlike rust/containers/table.rs (UTRACE_TASK_HASH_BITS?)\n");
            return Err(EINVAL);
        }
        let utask_cache = utask::UTaskCache::new()?;
        let state = KBox::pin_init(state::State::new(report::reap_queued), GFP_KERNEL)?;
        let releaser = KBox::pin_init(release::Releaser::new(), GFP_KERNEL)?;
        releaser.as_ref().publish();
        state.as_ref().publish();
        let notifier = match shim::ModuleNotifier::register() {
            Ok(notifier) => notifier,
            Err(e) => {
                state::State::unpublish();
                release::Releaser::unpublish();
                pr_err!(
                    "cannot register a module notifier (errno {})\n",
                    e.to_errno()
                );
                return Err(e);
            }
        };
        let hooks = match shim::Hooks::register() {
            Ok(hooks) => hooks,
            Err(e) => {
                drop(notifier);
                state::State::unpublish();
                release::Releaser::unpublish();
                pr_err!(
                    "cannot hook the kernel's tracepoints (errno {})\n",
                    e.to_errno()
                );
                return Err(e);
            }
        };
        let kprobes = shim::Kprobes::register();
        pr_info!("loaded (API version {})\n", abi::utrace_api_version());
        Ok(UtraceModule {
            state,
            releaser,
            hooks: Some(hooks),
            kprobes: Some(kprobes),
            notifier: Some(notifier),
            _utask_cache: utask_cache,
        })
    }
}

impl Drop for UtraceModule {
    fn drop(&mut self) {
        // Engine modules depend on our symbols, so they are gone and their
        // engines with them; a leaked engine would still be linked here.
        let leaked = self.state.attached_count();
        if leaked != 0 {
            pr_err!(
                "unload: {} engine(s) still attached (leaked by an engine module)\n",
                leaked
            );
        }
        // 1. No probe or notification runs after this.
        drop(self.notifier.take());
        self.state.hooks_shutdown();
        drop(self.kprobes.take());
        drop(self.hooks.take());
        // 2. Every queued task_work and reap work has run (or, a task's
        //    work it may never run, a stopped process's, was taken back),
        //    and the engines they detached are released.
        let st = &self.state;
        st.table.for_each(|ut| ut.cancel_queued_work(&st.work));
        self.state.wait_idle();
        // SAFETY: Plain C calls from process context.
        unsafe {
            kernel::bindings::synchronize_rcu();
            kernel::bindings::rcu_barrier();
        }
        self.releaser.flush();
        state::State::unpublish();
        // 3. Free the per-task state; RCU callbacks (engine retirement,
        //    `UTask` frees) point into our text: wait for them.
        let tasks = self.state.table.clear();
        // SAFETY: Plain C calls from process context.
        unsafe {
            kernel::bindings::synchronize_rcu();
            kernel::bindings::rcu_barrier();
        }
        // Releases those RCU callbacks deferred, then no more; the memory
        // they free goes by RCU callbacks in our text: wait for those too.
        self.releaser.flush();
        release::Releaser::unpublish();
        // SAFETY: Plain C call from process context.
        unsafe { kernel::bindings::rcu_barrier() };
        // 4. No task is still executing the tail of one of our callbacks.
        shim::synchronize_tasks();
        pr_info!("unloaded (freed the state of {} task(s))\n", tasks);
    }
}
