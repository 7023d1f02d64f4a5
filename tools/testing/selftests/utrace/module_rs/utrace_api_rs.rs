// SPDX-License-Identifier: GPL-2.0

//! A Rust engine for the selftests that exercises the whole safe API:
//! syscall callbacks (counting, aborting, changing arguments), exit-code
//! rewriting, QUIESCE, STOP from a callback and RESUME from another task's
//! callback through an [`EngineRef`], SIGNAL (ignore/deliver), lookup,
//! exclusive attach, `set_events` after attach and handoff.
//!
//! `insmod utrace_api_rs.ko pid=N [abort=K] [exit=C] [ctl=M]`:
//! - N's getppid() calls are counted at entry and exit; with `abort=K`
//!   every K-th fails with EPERM without running;
//! - with `exit=C`, N exits with status C whatever it asked for;
//! - N's first SIGUSR1 is ignored, the second delivered, the third ignored
//!   and N stopped (Control::Report from the signal callback, then
//!   Action::Stop from the QUIESCE report it asks for: only a returned
//!   Stop is sticky), the rest delivered (and each delivery's HANDLER
//!   report counted);
//! - with `ctl=M`, a SIGUSR1 to task M (ignored) resumes N;
//! - with `jctl=P jctl_t1=T1 jctl_t2=T2` (the threads of a `jobctl`
//!   process, P its main thread), instead of all the above: JCTL engines on
//!   the three threads, logging each report (`jctl tid=T stop|cont
//!   notify=0|1`) and counting their stop and continue reports, those with
//!   `notify`, and those with `notify` in P (`jctl_*=` at unload);
//! - with `stopwait=1`, at load: Control::Stop, EngineRef::wait_stopped,
//!   examine and Control::Resume of N (a debugger's stop, no barrier), and
//!   wait_stopped on a detached engine (ESRCH);
//! - with `step=1` (N is the stepper program): Action::SingleStep from the
//!   SYSCALL_EXIT of its start marker, then each SIGTRAP ignored with a
//!   Control::SingleStep from the signal callback, until the SYSCALL_ENTRY
//!   of its end marker (`steps=` at unload; the end marker's syscall-exit
//!   trap is `late_traps=`).
//!
//! Checks made at load are logged as `check <name> ok` or `check <name>
//! FAILED`; the counts are logged at unload.

use core::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, Ordering::Relaxed};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::{new_mutex, new_spinlock, Mutex, SpinLock};

#[path = "../../../../../rust/api/utrace.rs"]
mod utrace;

use utrace::{
    Action, Context, Control, EngineRef, Events, JctlReport, JobControl, Signal, SignalClass,
    SignalReport, SyscallArch, SyscallContext, SyscallEntry, SyscallRegs, Tracer,
};

utrace::module_author! {
    type: ApiModule,
    name: "utrace_api_rs",
    author: "utrace-rs developers",
    description: "utrace-rs selftest engine exercising the whole safe Rust API",
    license: "GPL",
}

utrace::module_param_int!(PID, "pid", 0, "the task to trace");
utrace::module_param_int!(ABORT, "abort", 0, "abort every K-th getppid() with EPERM");
utrace::module_param_int!(EXIT, "exit", -1, "make the task exit with this status");
utrace::module_param_int!(STEP, "step", 0, "single-step between the stepper's markers");
utrace::module_param_int!(
    INTERRUPT,
    "interrupt",
    0,
    "Control::Interrupt at load; its report delivers a SIGUSR1"
);
utrace::module_param_int!(
    JCTL,
    "jctl",
    0,
    "JCTL engines on this process's main thread"
);
utrace::module_param_int!(JCTL_T1, "jctl_t1", 0, "and on this thread of it");
utrace::module_param_int!(JCTL_T2, "jctl_t2", 0, "and on this one");
utrace::module_param_int!(
    STOPWAIT,
    "stopwait",
    0,
    "at load: Control::Stop, wait_stopped, examine, Control::Resume"
);
utrace::module_param_int!(
    CTL,
    "ctl",
    0,
    "a SIGUSR1 to this task resumes the traced one"
);

const SYS_GETPPID: i64 = 110;
const SIGUSR1: i32 = 10;
const SIGTRAP: i32 = 5;
/// The stepper program's markers (first argument of getppid()).
const STEP_START: u64 = 0x53_5445_5030;
const STEP_END: u64 = 0x53_5445_5031;
const EPERM: i64 = 1;

#[derive(Default)]
struct Counts {
    entries: AtomicU32,
    exits: AtomicU32,
    aborted: AtomicU32,
    quiesce: AtomicU32,
    quiesce_stopped: AtomicU32,
    usr1: AtomicU32,
    ignored: AtomicU32,
    delivered: AtomicU32,
    /// HANDLER reports: a handler frame was set up.
    handler: AtomicU32,
    resumed: AtomicU32,
    orig_exit: AtomicI64,
    /// What `EngineRef::barrier` on a detached engine of the traced task
    /// answered from a syscall callback (atomic): 0 until tried.
    barrier_in_atomic: AtomicI32,
    /// With `step=1`: SIGTRAPs of single steps between the markers, and
    /// after the end marker.
    steps: AtomicU32,
    late_traps: AtomicU32,
    /// INTERRUPT reports (`Engine::interrupt`), and in how many the
    /// siginfo was as documented (class Report, no signal, no sender).
    interrupts: AtomicU32,
    interrupts_empty: AtomicU32,
    /// With `jctl=P`: JCTL reports of stops and continues, how many of
    /// them had `notify`, and how many of those were P's.
    jctl_stops: AtomicU32,
    jctl_stop_notify: AtomicU32,
    jctl_stop_notify_main: AtomicU32,
    jctl_conts: AtomicU32,
    jctl_cont_notify: AtomicU32,
    jctl_cont_notify_main: AtomicU32,
}

struct Api {
    counts: Counts,
    /// The traced task is to stay stopped (until the controller resumes it).
    hold: AtomicBool,
    /// `step=1`: single-stepping between the markers.
    step: bool,
    stepping: AtomicBool,
    abort_every: u32,
    exit_status: i32,
    ctl: i32,
    /// The traced task's engine, for the controller's callback to resume.
    target: Pin<KBox<Mutex<Option<EngineRef<Api>>>>>,
    /// A detached engine of the traced task, for a barrier from atomic
    /// context (which must be refused, not sleep).
    detached: Pin<KBox<SpinLock<Option<EngineRef<Api>>>>>,
}

fn tid(cx_task: &kernel::task::Task) -> i32 {
    utrace::TaskInfo::of(cx_task).pid
}

impl utrace::Engine for Api {
    fn quiesce(&self, _cx: &Context<'_, Self>, event: Events) -> Action {
        self.counts.quiesce.fetch_add(1, Relaxed);
        if event == Events::NONE {
            // The safe point the REPORT asked for.
            self.counts.quiesce_stopped.fetch_add(1, Relaxed);
        }
        // Only a returned Stop is sticky (utrace): while the engine wants
        // the task held, every callback says so.
        if self.hold.load(Relaxed) {
            return Action::Stop;
        }
        Action::Resume
    }

    fn interrupt(&self, _cx: &Context<'_, Self>, sig: &mut SignalReport<'_>) -> (Action, Signal) {
        self.counts.interrupts.fetch_add(1, Relaxed);
        if sig.class() == SignalClass::Report && sig.signo() == 0 && sig.sender().is_none() {
            self.counts.interrupts_empty.fetch_add(1, Relaxed);
        }
        // An artificial signal: the task's SIGUSR1 handler runs.
        sig.set_signo(SIGUSR1);
        (Action::Resume, Signal::Deliver)
    }

    fn jctl(&self, cx: &Context<'_, Self>, jctl: JctlReport) -> Action {
        let c = &self.counts;
        let (all, notify, main) = match jctl.what() {
            JobControl::Stopped => (&c.jctl_stops, &c.jctl_stop_notify, &c.jctl_stop_notify_main),
            JobControl::Continued => (&c.jctl_conts, &c.jctl_cont_notify, &c.jctl_cont_notify_main),
        };
        all.fetch_add(1, Relaxed);
        pr_info!(
            "jctl tid={} {} notify={}\n",
            tid(cx.task()),
            if jctl.stopped() { "stop" } else { "cont" },
            u8::from(jctl.notify())
        );
        if jctl.notify() {
            notify.fetch_add(1, Relaxed);
            if tid(cx.task()) == JCTL.get() {
                main.fetch_add(1, Relaxed);
            }
        }
        Action::Resume
    }

    fn exec(&self, _cx: &Context<'_, Self>, _filename: Option<&CStr>, _old_pid: i32) -> Action {
        Action::Resume
    }

    fn exit(&self, _cx: &Context<'_, Self>, orig_code: i64, code: &mut i64) -> Action {
        self.counts.orig_exit.store(orig_code, Relaxed);
        if self.exit_status >= 0 {
            *code = i64::from(self.exit_status) << 8;
        }
        Action::Resume
    }

    fn signal(&self, cx: &Context<'_, Self>, sig: &mut SignalReport<'_>) -> Signal {
        if sig.class() == SignalClass::Handler {
            self.counts.handler.fetch_add(1, Relaxed);
            return Signal::Keep;
        }
        let signr = sig.signo();
        if tid(cx.task()) == self.ctl {
            if signr == SIGUSR1 {
                if let Some(target) = self.target.lock().as_ref() {
                    self.hold.store(false, Relaxed);
                    if target.control(Control::Resume).is_ok() {
                        self.counts.resumed.fetch_add(1, Relaxed);
                    }
                }
                return Signal::Ignore;
            }
            return Signal::Deliver;
        }
        if self.step && signr == SIGTRAP {
            // A step's trap: consume it and take the next step (or, after
            // the end marker, stop stepping: the Ignore's Resume does).
            if self.stepping.load(Relaxed) {
                self.counts.steps.fetch_add(1, Relaxed);
                let _ = cx.control(Control::SingleStep);
            } else {
                self.counts.late_traps.fetch_add(1, Relaxed);
            }
            return Signal::Ignore;
        }
        if signr != SIGUSR1 {
            return Signal::Deliver;
        }
        match self.counts.usr1.fetch_add(1, Relaxed) + 1 {
            1 => {
                self.counts.ignored.fetch_add(1, Relaxed);
                Signal::Ignore
            }
            3 => {
                self.counts.ignored.fetch_add(1, Relaxed);
                // A QUIESCE report at the safe point after this one, which
                // stops the task (returning Stop there).
                self.hold.store(true, Relaxed);
                let _ = cx.control(Control::Report);
                Signal::Ignore
            }
            _ => {
                self.counts.delivered.fetch_add(1, Relaxed);
                Signal::Deliver
            }
        }
    }
}

impl utrace::SyscallEngine for Api {
    fn syscall_entry(&self, _cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> SyscallEntry {
        if regs.arch() != SyscallArch::X86_64 || regs.nr() != SYS_GETPPID {
            return SyscallEntry::Run;
        }
        if self.stepping.load(Relaxed) && regs.arg(0) == Some(STEP_END) {
            self.stepping.store(false, Relaxed);
        }
        let n = self.counts.entries.fetch_add(1, Relaxed) + 1;
        if n == 10 {
            if let Some(engine) = self.detached.lock().as_ref() {
                let ret = engine.barrier().map_or_else(|e| e.to_errno(), |()| 1);
                self.counts.barrier_in_atomic.store(ret, Relaxed);
            }
        }
        if self.abort_every != 0 && n % self.abort_every == 0 {
            self.counts.aborted.fetch_add(1, Relaxed);
            regs.set_return_value(-EPERM);
            return SyscallEntry::Abort;
        }
        SyscallEntry::Run
    }

    fn syscall_exit(&self, _cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> Action {
        if regs.arch() == SyscallArch::X86_64 && regs.nr() == SYS_GETPPID {
            self.counts.exits.fetch_add(1, Relaxed);
            if self.step && regs.arg(0) == Some(STEP_START) {
                // Step from the instruction after the marker's syscall.
                self.stepping.store(true, Relaxed);
                return Action::SingleStep;
            }
        }
        Action::Resume
    }
}

fn check(name: &str, ok: bool) {
    if ok {
        pr_info!("check {} ok\n", name);
    } else {
        pr_err!("check {} FAILED\n", name);
    }
}

/// Attaches to `pid` the long way round, checking the API's answers: a
/// first engine handed off to a second one, exclusive attach refused,
/// lookup finding the survivor, events set after attach.
fn attach_checked(tracer: &Tracer<Api>, pid: i32) -> Result<EngineRef<Api>> {
    let task = utrace::task_by_pid(pid).ok_or(ESRCH)?;
    check(
        "lookup before attach",
        tracer.lookup(&task).err() == Some(ENOENT),
    );
    let first = tracer.attach(&task, Events::EXEC)?;
    check(
        "exclusive attach refused",
        tracer.attach_exclusive(&task, Events::EXEC).err() == Some(EEXIST),
    );
    // SIGNAL_CORE: the step traps (SIGTRAP at its default disposition).
    let events =
        Events::QUIESCE | Events::SIGNAL | Events::SIGNAL_CORE | Events::EXIT | Events::SYSCALL;
    let second = first.handoff(tracer, Events::EXEC)?;
    check(
        "handed-off engine detached",
        first.control(Control::Detach).err() == Some(ESRCH),
    );
    check(
        "barrier on the handed-off engine",
        matches!(first.barrier(), Ok(()) | Err(ESRCH)),
    );
    drop(first);
    check(
        "lookup finds the new engine",
        tracer.lookup(&task).is_ok_and(|e| e == second),
    );
    second.set_events(events)?;
    check("syscall events refused without with_syscalls", {
        let plain = Tracer::new(Plain).ok();
        plain.is_some_and(|t| t.attach(&task, Events::SYSCALL_ENTRY).err() == Some(EINVAL))
    });
    Ok(second)
}

/// A debugger's stop (`stopwait=1`): STOP, wait until stopped, examine,
/// RESUME, with no barrier (the QUIESCE callback returns Stop while `hold`).
fn stop_wait(tracer: &Tracer<Api>, engine: &EngineRef<Api>) {
    const EINPROGRESS: i32 = -115;
    tracer.engine().hold.store(true, Relaxed);
    check(
        "Control::Stop of a running task: EINPROGRESS",
        engine.control(Control::Stop).err().map(|e| e.to_errno()) == Some(EINPROGRESS),
    );
    check("wait_stopped", engine.wait_stopped(false).is_ok());
    check("examine after wait_stopped", engine.examine(|_| ()).is_ok());
    check(
        "wait_stopped again: still stopped",
        engine.wait_stopped(false).is_ok(),
    );
    tracer.engine().hold.store(false, Relaxed);
    check(
        "Control::Resume after wait_stopped",
        engine.control(Control::Resume).is_ok(),
    );
}

/// An engine without syscall callbacks.
struct Plain;
impl utrace::Engine for Plain {}

struct ApiModule {
    tracer: Tracer<Api>,
}

impl kernel::Module for ApiModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let pid = PID.get();
        let target = KBox::pin_init(new_mutex!(None), GFP_KERNEL)?;
        let detached = KBox::pin_init(new_spinlock!(None), GFP_KERNEL)?;
        let tracer = Tracer::with_syscalls(Api {
            counts: Counts::default(),
            hold: AtomicBool::new(false),
            step: STEP.get() != 0,
            stepping: AtomicBool::new(false),
            abort_every: u32::try_from(ABORT.get()).unwrap_or(0),
            exit_status: EXIT.get(),
            ctl: CTL.get(),
            target,
            detached,
        })?;
        if JCTL.get() > 0 {
            for tid in [JCTL.get(), JCTL_T1.get(), JCTL_T2.get()] {
                tracer.attach_pid(tid, Events::JCTL)?;
            }
            pr_info!(
                "JCTL on {} {} {}\n",
                JCTL.get(),
                JCTL_T1.get(),
                JCTL_T2.get()
            );
            return Ok(ApiModule { tracer });
        }
        let engine = match attach_checked(&tracer, pid) {
            Ok(engine) => engine,
            Err(e) => {
                pr_err!(
                    "pid={}: {} (errno {})\n",
                    pid,
                    utrace::attach_error(e),
                    e.to_errno()
                );
                return Err(e);
            }
        };
        if INTERRUPT.get() != 0 {
            let ret = engine.control(Control::Interrupt);
            check("Control::Interrupt", ret.is_ok());
        }
        if STOPWAIT.get() != 0 {
            stop_wait(&tracer, &engine);
        }
        *tracer.engine().target.lock() = Some(engine);
        // A second engine on the task, detached at once: its reference stays.
        if let Some(task) = utrace::task_by_pid(pid) {
            let spare = tracer.attach(&task, Events::NONE)?;
            let _ = spare.control(Control::Detach);
            if STOPWAIT.get() != 0 {
                check(
                    "wait_stopped on a detached engine: ESRCH",
                    spare.wait_stopped(true).err() == Some(ESRCH),
                );
            }
            *tracer.engine().detached.lock() = Some(spare);
        }
        if CTL.get() > 0 {
            tracer.attach_pid(CTL.get(), Events::SIGNAL)?;
        }
        pr_info!("tracing pid {}\n", pid);
        Ok(ApiModule { tracer })
    }
}

impl Drop for ApiModule {
    fn drop(&mut self) {
        let c = &self.tracer.engine().counts;
        pr_info!(
            "entries={} exits={} aborted={} quiesce={} quiesce_stopped={} ignored={} delivered={} handler={} resumed={} orig_exit={} barrier_in_atomic={} steps={} late_traps={} interrupts={} interrupts_empty={}\n",
            c.entries.load(Relaxed),
            c.exits.load(Relaxed),
            c.aborted.load(Relaxed),
            c.quiesce.load(Relaxed),
            c.quiesce_stopped.load(Relaxed),
            c.ignored.load(Relaxed),
            c.delivered.load(Relaxed),
            c.handler.load(Relaxed),
            c.resumed.load(Relaxed),
            c.orig_exit.load(Relaxed),
            c.barrier_in_atomic.load(Relaxed),
            c.steps.load(Relaxed),
            c.late_traps.load(Relaxed),
            c.interrupts.load(Relaxed),
            c.interrupts_empty.load(Relaxed)
        );
        if JCTL.get() > 0 {
            pr_info!(
                "jctl_stops={} jctl_stop_notify={} jctl_stop_notify_main={} jctl_conts={} jctl_cont_notify={} jctl_cont_notify_main={}\n",
                c.jctl_stops.load(Relaxed),
                c.jctl_stop_notify.load(Relaxed),
                c.jctl_stop_notify_main.load(Relaxed),
                c.jctl_conts.load(Relaxed),
                c.jctl_cont_notify.load(Relaxed),
                c.jctl_cont_notify_main.load(Relaxed)
            );
        }
    }
}
