// SPDX-License-Identifier: GPL-2.0

//! crash_suspend: "programs didn't crash, they just froze ... and waited for
//! someone to come around and debug them."
//!
//! `modprobe crash_suspend` (or `insmod crash_suspend.ko`) watches every user process (`pid=N`: only
//! process N and its descendants). When a watched process would die from a
//! core-dumping signal with its default action (SIGQUIT, SIGILL, SIGTRAP,
//! SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS), it is
//! suspended instead: every thread stops (a real group stop), the signal
//! stays queued, a record goes to the stream and the kernel log says how to
//! go on. `gdb -p PID` can attach and show the crash; `kill -CONT PID` lets
//! it die of the signal and dump core as it would have; SIGKILL kills it.
//!
//! Bounds: after `timeout` seconds a suspended process is continued (it
//! dumps core); at most `max` are suspended at once (the next crashing one
//! dumps core); an orphan (its parent is init) dumps core unless
//! `orphans=suspend`. Root changes the selectors (uid, comm, tree, cgroup) and the
//! bounds at run time by writing `key=value` words to
//! `/dev/crash_suspend_control`; the suspended processes are listed in
//! `/dev/crash_suspend_list` and each suspension and release is a record
//! in the stream `/dev/crash_suspend` (character devices: they need no
//! debugfs and work under kernel lockdown). Unloading the module
//! releases every suspended process (they dump core). Uses only the safe
//! API. See `Documentation/utrace-rs/crash-suspend.rst`.

use core::fmt::Write;
use kernel::prelude::*;
use kernel::sync::{new_mutex, Arc, Mutex};
use kernel::task::Task;

#[path = "../../rust/api/utrace.rs"]
mod utrace;

use utrace::{
    ARef, Action, Cgroup, Context, Control as EngineControl, ControlFile, ControlHandler, Escaped,
    Events, Pid, Signal, SignalReport, Stream, TaskIds, TaskInfo, Text, Timer, TimerHandler,
    TimerRef, Tracer,
};

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
    "watch only this process and its descendants (default: every user process)"
);
utrace::module_param_int!(
    TIMEOUT,
    "timeout",
    300,
    "seconds after which a suspended process dumps core (0: never; default 300)"
);
utrace::module_param_int!(
    MAX,
    "max",
    8,
    "most processes suspended at once; the next one dumps core (default 8)"
);

/// The global engine: every user task's core-dumping signals (those of
/// tasks older than the module too: utrace-rs creates their state when
/// such a signal comes).
const GLOBAL_EVENTS: Events = Events::SIGNAL_CORE;
/// The engine on a suspended thread: when it dies, the suspension is over.
const WATCH_EVENTS: Events = Events::DEATH;
/// Most seconds `timeout` may be (a day).
const TIMEOUT_MAX: u32 = 86400;
/// Most suspensions `max` may allow.
const MAX_MAX: u32 = 64;

fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => "signal",
    }
}

/// A `tree=` (or `pid=`) selector: the process (held by identity, so the
/// selection never moves to a process that gets its number later) and the
/// number it was given as (in the writer's pid namespace).
struct TreeSel {
    process: Pid,
    nr: i32,
}

/// A `cgroup=` selector: the cgroup (held) and the path it was given as.
struct CgroupSel {
    cgroup: Cgroup,
    path: KVec<u8>,
}

/// Which crashes are suspended, and the bounds. Every selector that is set
/// must match.
#[derive(Clone)]
struct Config {
    /// Real uid.
    uid: Option<u32>,
    /// Exact `comm` (up to 15 bytes).
    comm: Option<([u8; 16], usize)>,
    /// This process and its descendants.
    tree: Option<Arc<TreeSel>>,
    /// Tasks in this cgroup v2 cgroup or below it.
    cgroup: Option<Arc<CgroupSel>>,
    /// Seconds; 0: never.
    timeout: u32,
    max: u32,
    /// Suspend orphans (parent is init) too, instead of letting them dump core.
    orphans_suspend: bool,
}

impl Config {
    fn comm(&self) -> Option<&[u8]> {
        self.comm.as_ref().map(|(c, n)| &c[..*n])
    }
}

/// One suspended process.
struct Suspension {
    /// The crashing thread.
    task: ARef<Task>,
    pid: i32,
    tid: i32,
    ns_pid: i32,
    uid: u32,
    comm: [u8; 16],
    signal: i32,
    /// When (monotonic ns), for the timeout and the list.
    since_ns: i64,
    /// A timeout continued it (not again).
    timed_out: bool,
}

impl Suspension {
    fn comm(&self) -> &[u8] {
        let n = self.comm.iter().position(|&b| b == 0).unwrap_or(16);
        &self.comm[..n]
    }

    fn waited_s(&self, now: i64) -> i64 {
        (now - self.since_ns).max(0) / 1_000_000_000
    }
}

/// What the engine, the control file, the list and the timer share.
struct State {
    config: Pin<KBox<Mutex<Config>>>,
    suspended: Pin<KBox<Mutex<KVec<Suspension>>>>,
    stream: Stream,
}

impl State {
    /// A record in the stream (`<seq> <ns> <text>`); a full ring drops it,
    /// and the reader is told.
    fn record(&self, args: core::fmt::Arguments<'_>) {
        let _ = self.stream.emit(args);
    }

    /// Continues the processes past the timeout (they dump core; their
    /// death removes them). Returns whether any remain.
    fn expire(&self) -> bool {
        let timeout = self.config.lock().timeout;
        let now = utrace::ktime_get_ns();
        let mut list = self.suspended.lock();
        for s in list.iter_mut() {
            if timeout != 0
                && !s.timed_out
                && !TaskIds::of(&s.task).is_ptraced()
                && s.waited_s(now) >= i64::from(timeout)
            {
                s.timed_out = true;
                pr_info!(
                    "pid {} ({}) waited {}s (timeout={}): it dumps core\n",
                    s.pid,
                    Escaped(s.comm()),
                    s.waited_s(now),
                    timeout
                );
                self.record(format_args!(
                    "timeout pid={} tid={} comm={} waited={}s",
                    s.pid,
                    s.tid,
                    Escaped(s.comm()),
                    s.waited_s(now)
                ));
                let _ = utrace::signal_process(&s.task, SIGCONT);
            }
        }
        !list.is_empty()
    }
}

const SIGCONT: i32 = 18;

/// A fault address from the siginfo, or `-` for a signal that has none
/// (e.g. sent by `kill`).
struct Addr(Option<usize>);

impl core::fmt::Display for Addr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(a) => write!(f, "{:#x}", a),
            None => f.write_str("-"),
        }
    }
}

/// Removes entry `i` (order does not matter).
fn take(list: &mut KVec<Suspension>, i: usize) -> Option<Suspension> {
    let last = list.len().checked_sub(1)?;
    list.as_mut_slice().swap(i, last);
    utrace::kvec_pop(list)
}

/// Why a selected crash is not suspended.
#[derive(Clone, Copy)]
enum NotHeld {
    Orphan,
    Max(u32),
}

impl core::fmt::Display for NotHeld {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NotHeld::Orphan => f.write_str("it is an orphan (its parent is init) and orphans=core"),
            NotHeld::Max(max) => write!(f, "{} processes are suspended already (max={})", max, max),
        }
    }
}

/// The engine value (global and per-thread engines share it).
struct Suspend {
    state: Arc<State>,
    timer: Timer<Expiry>,
}

/// Once a second while anything is suspended: the timeouts.
struct Expiry {
    state: Arc<State>,
}

impl TimerHandler for Expiry {
    fn fire(&self, timer: &TimerRef) {
        if self.state.expire() {
            timer.arm(1000);
        }
    }
}

impl Suspend {
    /// Whether the crash of `task` is selected: `Ok(max)` with the cap to
    /// check when it takes its slot; else why not (for the log), or `None`
    /// if it is not selected at all.
    fn decide(&self, task: &Task, info: &TaskInfo, ids: &TaskIds) -> Result<u32, Option<NotHeld>> {
        let cfg = self.state.config.lock().clone();
        if cfg.uid.is_some_and(|uid| uid != ids.uid())
            || cfg.comm().is_some_and(|c| c != info.comm())
            || cfg
                .tree
                .as_ref()
                .is_some_and(|sel| !sel.process.is_ancestor_of(task))
            || cfg
                .cgroup
                .as_ref()
                .is_some_and(|sel| !sel.cgroup.contains(task))
        {
            return Err(None);
        }
        if info.ppid == 1 && !cfg.orphans_suspend {
            return Err(Some(NotHeld::Orphan));
        }
        Ok(cfg.max)
    }

    /// Logs and records why a selected crash is not suspended.
    fn not_held(&self, info: &TaskInfo, ids: &TaskIds, signr: i32, why: NotHeld) {
        pr_info!(
            "pid {} ({}) thread {} gets signal {} ({}): not suspended, {}: it dumps core\n",
            info.tgid,
            Escaped(info.comm()),
            info.pid,
            signr,
            signal_name(signr),
            // 7.x's pr_*! take kernel::fmt::Display, which
            // core::fmt::Arguments has on both kernels.
            format_args!("{}", why)
        );
        self.state.record(format_args!(
            "core pid={} tid={} comm={} uid={} signal={} why=\"{}\"",
            info.tgid,
            info.pid,
            Escaped(info.comm()),
            ids.uid(),
            signal_name(signr),
            why
        ));
    }

    fn suspend(&self, cx: &Context<'_, Self>, sig: &SignalReport<'_>) -> Signal {
        let signr = sig.signo();
        let code = sig.code();
        let addr = Addr(sig.fault_addr());
        let task = cx.task();
        let info = TaskInfo::of(task);
        let ids = TaskIds::of(task);
        let max = match self.decide(task, &info, &ids) {
            Ok(max) => max,
            Err(None) => return Signal::Deliver,
            Err(Some(why)) => {
                self.not_held(&info, &ids, signr, why);
                return Signal::Deliver;
            }
        };
        // A suspension is listed until the thread's death says it is over:
        // without the engine that reports it there is no suspension. The
        // framework refuses it (ESRCH) for a thread that is exiting (the
        // signal came while it was in exit(): its report runs on its way
        // out, and the thread's end discards the signal anyway), or when
        // memory is short: the signal then goes on as without the module.
        // The thread is `current`, so it cannot begin to exit meanwhile: once
        // attached, its death is reported.
        let watch = match cx.attach(task, WATCH_EVENTS) {
            Ok(watch) => watch,
            Err(e) => {
                if e != ESRCH {
                    pr_warn!(
                        "pid {}: cannot watch thread {} ({}): it dumps core\n",
                        info.tgid,
                        info.pid,
                        utrace::attach_error(e)
                    );
                }
                return Signal::Deliver;
            }
        };
        let entry = Suspension {
            task: ARef::from(task),
            pid: info.tgid,
            tid: info.pid,
            ns_pid: ids.ns_tgid(),
            uid: ids.uid(),
            comm: info.comm,
            signal: signr,
            since_ns: utrace::ktime_get_ns(),
            timed_out: false,
        };
        // The cap and the slot are one decision, under the list's lock.
        let taken = {
            let mut list = self.state.suspended.lock();
            if list.len() >= max as usize {
                Err(Some(NotHeld::Max(max)))
            } else {
                list.push(entry, GFP_KERNEL).map_err(|_| None)
            }
        };
        if let Err(why) = taken {
            // Its death is no business of ours any more.
            let _ = watch.control(EngineControl::Detach);
            match why {
                Some(why) => self.not_held(&info, &ids, signr, why),
                None => pr_warn!("pid {}: out of memory: it dumps core\n", info.tgid),
            }
            return Signal::Deliver;
        }
        pr_info!(
            "pid {} ({}) thread {} suspended on signal {} ({}, code {}, address {}): attach a debugger (gdb -p {}) or send SIGCONT to let it dump core\n",
            info.tgid,
            Escaped(info.comm()),
            info.pid,
            signr,
            signal_name(signr),
            code,
            format_args!("{}", addr),
            info.tgid
        );
        self.state.record(format_args!(
            "suspend pid={} tid={} nspid={} comm={} uid={} signal={} code={} addr={} time={} attach=\"gdb -p {}\"",
            info.tgid,
            info.pid,
            ids.ns_tgid(),
            Escaped(info.comm()),
            ids.uid(),
            signal_name(signr),
            code,
            addr,
            utrace::wall_seconds(),
            info.tgid
        ));
        self.timer.arm(1000);
        Signal::Suspend
    }
}

impl utrace::Engine for Suspend {
    fn signal(&self, cx: &Context<'_, Self>, sig: &mut SignalReport<'_>) -> Signal {
        if !cx.is_global() {
            return Signal::Deliver;
        }
        self.suspend(cx, sig)
    }

    fn death(&self, cx: &Context<'_, Self>, _group_dead: bool, _signal: Option<i32>) -> Action {
        let info = TaskInfo::of(cx.task());
        let now = utrace::ktime_get_ns();
        let mut list = self.state.suspended.lock();
        let found = list
            .iter()
            .position(|s| core::ptr::eq::<Task>(&*s.task, cx.task()));
        if let Some(s) = found.and_then(|i| take(&mut list, i)) {
            drop(list);
            let code = info.exit_code;
            let sig = code & 0x7f;
            let mut how = HowBuf::default();
            let _ = if sig == 0 {
                write!(how, "exit {}", (code >> 8) & 0xff)
            } else if code & 0x80 != 0 {
                write!(how, "core {}", signal_name(sig))
            } else {
                write!(how, "killed {}", signal_name(sig))
            };
            self.state.record(format_args!(
                "release pid={} tid={} comm={} how=\"{}\" waited={}s",
                s.pid,
                s.tid,
                Escaped(s.comm()),
                how.as_str(),
                s.waited_s(now)
            ));
        }
        Action::Detach
    }
}

/// A short text built with `write!`.
#[derive(Default)]
struct HowBuf {
    buf: [u8; 32],
    len: usize,
}

impl HowBuf {
    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("?")
    }
}

impl Write for HowBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// `crash_suspend_control`: shows the settings; root writes `key=value`
/// words, all or none applied.
struct Control {
    state: Arc<State>,
}

/// Why a control write is refused: the errno and what the log says.
struct Refused(Error, &'static str);

fn parse_u32(v: &[u8]) -> Result<u32, Refused> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return Err(Refused(EINVAL, "not a decimal number"));
    }
    let mut n = 0u32;
    for &d in v {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u32::from(d - b'0')))
            .ok_or(Refused(ERANGE, "too large"))?;
    }
    Ok(n)
}

/// The process `pid` names in the calling task's pid namespace (the
/// writer's, or insmod's), held, as `tree=` and `pid=` want.
fn tree_sel(pid: i32) -> Result<Arc<TreeSel>, Refused> {
    let process = Pid::of_number(pid).map_err(|e| {
        if e == EPERM {
            Refused(e, "it is a kernel thread")
        } else {
            Refused(ESRCH, "no such process")
        }
    })?;
    Arc::new(TreeSel { process, nr: pid }, GFP_KERNEL).map_err(|_| Refused(ENOMEM, "out of memory"))
}

/// Applies one `key=value` word to `cfg`.
fn apply(cfg: &mut Config, word: &[u8]) -> Result<(), Refused> {
    let Some(eq) = word.iter().position(|&b| b == b'=') else {
        return Err(Refused(EINVAL, "not key=value"));
    };
    let (key, value) = (&word[..eq], &word[eq + 1..]);
    let any = value == b"any";
    match key {
        b"uid" => cfg.uid = if any { None } else { Some(parse_u32(value)?) },
        b"comm" => {
            cfg.comm = if any {
                None
            } else if value.is_empty() || value.len() > 15 {
                return Err(Refused(EINVAL, "a comm is 1 to 15 bytes"));
            } else {
                let mut c = [0u8; 16];
                c[..value.len()].copy_from_slice(value);
                Some((c, value.len()))
            }
        }
        b"tree" | b"pid" => {
            cfg.tree = if any {
                None
            } else {
                let pid = parse_u32(value)?;
                let pid = i32::try_from(pid).map_err(|_| Refused(ERANGE, "too large"))?;
                if pid == 0 {
                    return Err(Refused(EINVAL, "0 is not a process"));
                }
                Some(tree_sel(pid)?)
            }
        }
        b"cgroup" => cfg.cgroup = if any { None } else { Some(cgroup(value)?) },
        b"timeout" => {
            let t = parse_u32(value)?;
            if t > TIMEOUT_MAX {
                return Err(Refused(ERANGE, "timeout is at most 86400 seconds"));
            }
            cfg.timeout = t;
        }
        b"max" => {
            let m = parse_u32(value)?;
            if m > MAX_MAX {
                return Err(Refused(ERANGE, "max is at most 64"));
            }
            cfg.max = m;
        }
        b"orphans" => {
            cfg.orphans_suspend = match value {
                b"core" => false,
                b"suspend" => true,
                _ => return Err(Refused(EINVAL, "orphans is core or suspend")),
            }
        }
        _ => {
            return Err(Refused(
                EINVAL,
                "unknown key (uid, comm, tree, cgroup, timeout, max, orphans)",
            ))
        }
    }
    Ok(())
}

/// Resolves a `cgroup=` path now (the cgroup is held until the selector
/// changes or the module unloads).
fn cgroup(path: &[u8]) -> Result<Arc<CgroupSel>, Refused> {
    let cgroup = Cgroup::get(path).map_err(|e| {
        let why = if e == EINVAL {
            "a cgroup path is absolute (starts with /), without NUL"
        } else if e == ENOENT {
            "no such cgroup v2 cgroup (the path is from the cgroup2 root, e.g. /system.slice)"
        } else if e == ENOTDIR {
            "not a cgroup (a file of one)"
        } else if e.to_errno() == -(kernel::bindings::EOPNOTSUPP as i32) {
            "this kernel has no cgroups (CONFIG_CGROUPS is off)"
        } else if e == ENOMEM {
            "out of memory"
        } else {
            "the path is too long"
        };
        Refused(e, why)
    })?;
    let mut copy = KVec::with_capacity(path.len(), GFP_KERNEL)
        .map_err(|_| Refused(ENOMEM, "out of memory"))?;
    copy.extend_from_slice(path, GFP_KERNEL)
        .map_err(|_| Refused(ENOMEM, "out of memory"))?;
    Arc::new(CgroupSel { cgroup, path: copy }, GFP_KERNEL)
        .map_err(|_| Refused(ENOMEM, "out of memory"))
}

fn show_config(cfg: &Config, out: &mut Text<'_>) {
    let _ = match cfg.uid {
        Some(uid) => writeln!(out, "uid={}", uid),
        None => writeln!(out, "uid=any"),
    };
    let _ = match cfg.comm() {
        Some(c) => writeln!(out, "comm={}", Escaped(c)),
        None => writeln!(out, "comm=any"),
    };
    let _ = match &cfg.tree {
        // As the reader's pid namespace numbers it.
        Some(sel) => match sel.process.number_here() {
            Some(nr) => writeln!(out, "tree={}", nr),
            None if sel.process.is_alive() => {
                writeln!(out, "tree={} (in another pid namespace)", sel.nr)
            }
            None => writeln!(out, "tree={} (exited)", sel.nr),
        },
        None => writeln!(out, "tree=any"),
    };
    let _ = match &cfg.cgroup {
        Some(sel) => writeln!(out, "cgroup={}", Escaped(&sel.path)),
        None => writeln!(out, "cgroup=any"),
    };
    let _ = writeln!(out, "timeout={}", cfg.timeout);
    let _ = writeln!(out, "max={}", cfg.max);
    let _ = writeln!(
        out,
        "orphans={}",
        if cfg.orphans_suspend {
            "suspend"
        } else {
            "core"
        }
    );
}

impl ControlHandler for Control {
    fn show(&self, out: &mut Text<'_>) {
        let cfg = self.state.config.lock().clone();
        show_config(&cfg, out);
    }

    fn store(&self, text: &[u8]) -> Result {
        let mut cfg = self.state.config.lock().clone();
        for word in text
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
        {
            if let Err(Refused(e, why)) = apply(&mut cfg, word) {
                pr_warn!(
                    "control: '{}' refused: {}; nothing changed\n",
                    Escaped(word),
                    why
                );
                return Err(e);
            }
        }
        // Another write may have come between; the last one wins whole.
        *self.state.config.lock() = cfg;
        let end = text
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        pr_info!("control: {}\n", Escaped(&text[..end]));
        Ok(())
    }
}

/// `crash_suspend_list`: the suspended processes, one a line.
struct List {
    state: Arc<State>,
}

impl ControlHandler for List {
    const WRITABLE: bool = false;

    fn show(&self, out: &mut Text<'_>) {
        let now = utrace::ktime_get_ns();
        let _ = writeln!(out, "# pid tid nspid uid signal waited state comm");
        for s in self.state.suspended.lock().iter() {
            let _ = writeln!(
                out,
                "{} {} {} {} {} {} {} {}",
                s.pid,
                s.tid,
                s.ns_pid,
                s.uid,
                signal_name(s.signal),
                s.waited_s(now),
                TaskIds::of(&s.task).state(),
                Escaped(s.comm())
            );
        }
    }
}

struct CrashSuspend {
    // Dropped in this order: no more control writes or list reads, then
    // the engines (and their timer).
    _control: ControlFile<Control>,
    _list: ControlFile<List>,
    state: Arc<State>,
    tracer: Tracer<Suspend>,
}

fn param_u32(name: &str, v: i32, max: u32) -> Result<u32> {
    match u32::try_from(v) {
        Ok(v) if v <= max => Ok(v),
        _ => {
            pr_err!("{}={}: from 0 to {}\n", name, v, max);
            Err(EINVAL)
        }
    }
}

impl kernel::Module for CrashSuspend {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let mut config = Config {
            uid: None,
            comm: None,
            tree: None,
            cgroup: None,
            timeout: param_u32("timeout", TIMEOUT.get(), TIMEOUT_MAX)?,
            max: param_u32("max", MAX.get(), MAX_MAX)?,
            orphans_suspend: false,
        };
        let pid = PID.get();
        if pid != UNSET {
            if pid <= 0 {
                pr_err!("pid={} is not a process id\n", pid);
                return Err(EINVAL);
            }
            match tree_sel(pid) {
                Ok(sel) => config.tree = Some(sel),
                Err(Refused(e, why)) => {
                    pr_err!("pid={}: {} (errno {})\n", pid, why, e.to_errno());
                    return Err(e);
                }
            }
        }
        let (timeout, max) = (config.timeout, config.max);
        let state = Arc::new(
            State {
                config: KBox::pin_init(new_mutex!(config), GFP_KERNEL)?,
                suspended: KBox::pin_init(new_mutex!(KVec::new()), GFP_KERNEL)?,
                stream: Stream::create(kernel::c_str!("crash_suspend"), 1024)?,
            },
            GFP_KERNEL,
        )?;
        let timer = Timer::new(Expiry {
            state: state.clone(),
        })?;
        let tracer = Tracer::new(Suspend {
            state: state.clone(),
            timer,
        })?;
        tracer.attach_global(GLOBAL_EVENTS)?;
        let control = ControlFile::create(
            kernel::c_str!("crash_suspend_control"),
            Arc::new(
                Control {
                    state: state.clone(),
                },
                GFP_KERNEL,
            )?,
        )?;
        let list = ControlFile::create(
            kernel::c_str!("crash_suspend_list"),
            Arc::new(
                List {
                    state: state.clone(),
                },
                GFP_KERNEL,
            )?,
        )?;
        match pid {
            UNSET => pr_info!(
                "watching every user process (timeout={}s, max={}); see /dev/crash_suspend_control\n",
                timeout,
                max
            ),
            _ => pr_info!(
                "watching pid {} and its descendants (timeout={}s, max={})\n",
                pid,
                timeout,
                max
            ),
        }
        Ok(CrashSuspend {
            _control: control,
            _list: list,
            state,
            tracer,
        })
    }
}

impl Drop for CrashSuspend {
    fn drop(&mut self) {
        // Every suspended process dumps core, as it would have.
        for s in self.state.suspended.lock().iter() {
            self.state.record(format_args!(
                "unload pid={} tid={} comm={}",
                s.pid,
                s.tid,
                Escaped(s.comm())
            ));
            let _ = utrace::signal_process(&s.task, SIGCONT);
        }
        // Detaching releases what is still held (utrace-rs continues it).
        self.tracer.detach_all();
        pr_info!("unloaded; suspended processes were released\n");
    }
}
