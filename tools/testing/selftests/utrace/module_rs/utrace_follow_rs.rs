// SPDX-License-Identifier: GPL-2.0

//! A Rust engine on the safe API, for the selftests: a global engine that
//! follows every child of tasks named `spawn` with a per-task engine, and
//! counts what those followers see. At unload it detaches everything (while
//! its engines are still attached) and prints the counts; with `leak=1` it
//! forgets its `Tracer` instead (safe code), and utrace-rs must clean up;
//! with `reapdrop=1` the first REAP callback drops the `Tracer` (which must
//! neither wait for that callback nor detach the engines under it:
//! utrace-rs refuses with -EDEADLK and says so, and releases them at unload).
//! The counts so far are in `/dev/utrace_follow_rs`.

use core::fmt::Write;
use core::ptr;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering::Relaxed};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::Arc;
use kernel::task::Task;

#[path = "../../../../../rust/api/utrace.rs"]
mod utrace;

use utrace::{
    Action, CloneFlags, Context, ControlFile, ControlHandler, Events, TaskInfo, Text, Tracer,
};

utrace::module_author! {
    type: FollowModule,
    name: "utrace_follow_rs",
    author: "utrace-rs developers",
    description: "utrace-rs selftest engine written with the safe Rust API",
    license: "GPL",
}

/// What the engines saw, shared with the control file that shows it.
#[derive(Default)]
struct Counts {
    clones: AtomicU32,
    execs: AtomicU32,
    exits: AtomicU32,
    deaths: AtomicU32,
    reaps: AtomicU32,
    follow_errors: AtomicU32,
    /// DEATHs whose parent is sent SIGCHLD, and CLONEs of threads.
    sigchld_deaths: AtomicU32,
    thread_clones: AtomicU32,
}

/// A read shows the counts so far: REAP comes from a workqueue after the
/// task is freed (an RCU callback after its parent's wait), so a test waits
/// here for the REAPs it expects before it unloads (the unload detaches the
/// followers, and a REAP not reported by then never comes).
impl ControlHandler for Counts {
    const WRITABLE: bool = false;

    fn show(&self, out: &mut Text<'_>) {
        let _ = writeln!(out, "{self}");
    }
}

/// The counts as the control file and the unload line show them.
impl core::fmt::Display for Counts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "clones={} execs={} exits={} deaths={} reaps={} follow_errors={} sigchld_deaths={} \
             thread_clones={}",
            self.clones.load(Relaxed),
            self.execs.load(Relaxed),
            self.exits.load(Relaxed),
            self.deaths.load(Relaxed),
            self.reaps.load(Relaxed),
            self.follow_errors.load(Relaxed),
            self.sigchld_deaths.load(Relaxed),
            self.thread_clones.load(Relaxed)
        )
    }
}

struct Follow {
    n: Arc<Counts>,
}

const FOLLOWED: &[u8] = b"spawn";

fn is_followed_parent(task: &Task) -> bool {
    TaskInfo::of(task).comm() == FOLLOWED
}

impl utrace::Engine for Follow {
    fn cloned(&self, cx: &Context<'_, Self>, child: &Task, flags: CloneFlags) -> Action {
        if !cx.is_global() || !is_followed_parent(cx.task()) {
            return Action::Resume;
        }
        self.n.clones.fetch_add(1, Relaxed);
        if flags.thread() {
            self.n.thread_clones.fetch_add(1, Relaxed);
        }
        let events = Events::EXEC | Events::EXIT | Events::DEATH | Events::REAP;
        if cx.attach(child, events).is_err() {
            self.n.follow_errors.fetch_add(1, Relaxed);
        }
        Action::Resume
    }

    fn exec(&self, cx: &Context<'_, Self>, filename: Option<&CStr>, _old_pid: i32) -> Action {
        if !cx.is_global() && filename.is_some() {
            self.n.execs.fetch_add(1, Relaxed);
        }
        Action::Resume
    }

    fn exit(&self, cx: &Context<'_, Self>, _orig_code: i64, _code: &mut i64) -> Action {
        if !cx.is_global() {
            self.n.exits.fetch_add(1, Relaxed);
        }
        Action::Resume
    }

    fn death(&self, cx: &Context<'_, Self>, _group_dead: bool, signal: Option<i32>) -> Action {
        if !cx.is_global() {
            self.n.deaths.fetch_add(1, Relaxed);
            if signal == Some(kernel::bindings::SIGCHLD as i32) {
                self.n.sigchld_deaths.fetch_add(1, Relaxed);
            }
        }
        Action::Resume
    }

    fn reap(&self, _task: &Task) {
        // Only followers ask for REAP.
        self.n.reaps.fetch_add(1, Relaxed);
        let tracer = REAP_DROP.swap(ptr::null_mut(), Relaxed);
        if !tracer.is_null() {
            // SAFETY: Made by `KBox::into_raw` in `init`, and taken once
            // (the swap).
            drop(unsafe { KBox::from_raw(tracer) });
            pr_info!("dropped the tracer from its REAP callback\n");
        }
    }
}

/// With `reapdrop=1`: the tracer, for the first REAP callback to drop.
static REAP_DROP: AtomicPtr<Tracer<Follow>> = AtomicPtr::new(ptr::null_mut());

utrace::module_param_int!(
    LEAK,
    "leak",
    0,
    "1: forget the Tracer at unload instead of dropping it"
);
utrace::module_param_int!(
    REAPDROP,
    "reapdrop",
    0,
    "1: drop the Tracer from the first REAP callback"
);

struct FollowModule {
    tracer: Option<Tracer<Follow>>,
    _counts: ControlFile<Counts>,
}

impl kernel::Module for FollowModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let n = Arc::new(Counts::default(), GFP_KERNEL)?;
        let counts = ControlFile::create(kernel::c_str!("utrace_follow_rs"), n.clone())?;
        let tracer = Tracer::new(Follow { n })?;
        tracer.attach_global(Events::CLONE)?;
        pr_info!("following the children of `spawn`\n");
        if REAPDROP.get() == 1 {
            let tracer = KBox::into_raw(KBox::new(tracer, GFP_KERNEL)?);
            REAP_DROP.store(tracer, Relaxed);
            return Ok(FollowModule {
                tracer: None,
                _counts: counts,
            });
        }
        Ok(FollowModule {
            tracer: Some(tracer),
            _counts: counts,
        })
    }
}

impl Drop for FollowModule {
    fn drop(&mut self) {
        let tracer = REAP_DROP.swap(ptr::null_mut(), Relaxed);
        if !tracer.is_null() {
            // SAFETY: As in `Follow::reap`, which did not take it.
            drop(unsafe { KBox::from_raw(tracer) });
        }
        let Some(tracer) = self.tracer.take() else {
            return;
        };
        if LEAK.get() == 1 {
            // Forgetting leaks the tracer's shared value (memory only: its
            // engines are released at unload). Tell kmemleak this one is
            // deliberate, so that the debug kernel's leak check stays exact.
            #[cfg(CONFIG_DEBUG_KMEMLEAK)]
            {
                extern "C" {
                    fn kmemleak_not_leak(ptr: *const core::ffi::c_void);
                }
                // SAFETY: The start of a live allocation (6.12's `Arc`
                // foreign pointer is its `ArcInner`); kmemleak only marks it.
                unsafe { kmemleak_not_leak(tracer.data_ptr()) };
            }
            pr_info!(
                "forgetting the tracer with {} engine(s)\n",
                tracer.attached()
            );
            core::mem::forget(tracer);
            return;
        }
        // The global engine plus followers whose task was not reaped yet.
        let attached = tracer.attached();
        tracer.detach_all();
        // format_args!: pr_info! takes kernel::fmt on 7.x, core::fmt on 6.12.
        pr_info!(
            "attached={} remaining={} {}\n",
            attached,
            tracer.attached(),
            format_args!("{}", &*tracer.engine().n)
        );
    }
}
