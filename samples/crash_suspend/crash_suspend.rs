// SPDX-License-Identifier: GPL-2.0

//! crash_suspend: "programs didn't crash, they just froze ... and waited for
//! someone to come around and debug them."
//!
//! `insmod crash_suspend.ko pid=N` watches process N and every descendant
//! (process or thread) it creates from then on. When a watched process would
//! die from a core-dumping signal with its default action (SIGQUIT, SIGILL,
//! SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS), it is
//! suspended instead: every thread stops (a real group stop), the signal stays
//! queued, and the kernel log says how to go on. `gdb -p PID` can attach and
//! show the crash; `kill -CONT PID` lets it die of the signal and dump core
//! as it would have; SIGKILL kills it. Unloading the module releases every
//! suspended process (they dump core). A process with its own handler for the
//! signal is left alone. Uses only the safe API.

use kernel::prelude::*;
use kernel::task::Task;

#[path = "../../rust/api/utrace.rs"]
mod utrace;

use utrace::{Action, Context, Events, Signal, SignalReport, TaskInfo, Tracer};

utrace::module_author! {
    type: CrashSuspend,
    name: "crash_suspend",
    author: "utrace-rs developers",
    description: "utrace-rs sample: suspend crashing processes for a debugger instead of dumping core",
    license: "GPL",
}

const UNSET: i32 = i32::MIN;

utrace::module_param_int!(
    PID,
    "pid",
    UNSET,
    "process to watch, with its new descendants (required)"
);

const EVENTS: Events = Events::CLONE.or(Events::SIGNAL_CORE);

fn signal_name(sig: i32) -> &'static str {
    match sig {
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        11 => "SIGSEGV",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => "signal",
    }
}

struct Suspend;

impl utrace::Engine for Suspend {
    fn clone(&self, cx: &Context<'_, Self>, child: &Task, _flags: u64) -> Action {
        if cx.attach(child, EVENTS).is_err() {
            let info = TaskInfo::of(child);
            pr_warn!("cannot watch pid {}: it will crash as usual\n", info.pid);
        }
        Action::Resume
    }

    fn signal(&self, cx: &Context<'_, Self>, sig: &mut SignalReport<'_>) -> Signal {
        let signr = sig.signo();
        let info = TaskInfo::of(cx.task());
        pr_info!(
            "pid {} ({}) thread {} suspended on signal {} ({}): attach a debugger (gdb -p {}) or send SIGCONT to let it dump core\n",
            info.tgid,
            utrace::Escaped(info.comm()),
            info.pid,
            signr,
            signal_name(signr),
            info.tgid
        );
        Signal::Suspend
    }
}

struct CrashSuspend {
    tracer: Tracer<Suspend>,
}

impl kernel::Module for CrashSuspend {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let pid = PID.get();
        if pid == UNSET {
            pr_err!("pid= is required: the process to watch\n");
            return Err(EINVAL);
        }
        if pid <= 0 {
            pr_err!("pid={} is not a process id\n", pid);
            return Err(EINVAL);
        }
        let tracer = Tracer::new(Suspend)?;
        if let Err(e) = tracer.attach_pid(pid, EVENTS) {
            let why = utrace::attach_error(e);
            pr_err!("pid={}: {} (errno {})\n", pid, why, e.to_errno());
            return Err(e);
        }
        pr_info!("watching pid {} and its new descendants\n", pid);
        Ok(CrashSuspend { tracer })
    }
}

impl Drop for CrashSuspend {
    fn drop(&mut self) {
        // Detaching releases every suspended process: it dumps core.
        self.tracer.detach_all();
        pr_info!("unloaded; suspended processes were released\n");
    }
}
