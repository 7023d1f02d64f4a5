// SPDX-License-Identifier: GPL-2.0

//! global_trace: every CLONE, EXEC and DEATH of every user task (or, with
//! `pid=N`, of N and the descendants it creates from now on) as a stream of
//! records in `/dev/global_trace`:
//!
//! ```text
//! <seq> <ns> CLONE pid=<child> tgid=<t> ppid=<parent tgid> comm=<c> parent=<pid> [thread]
//! <seq> <ns> EXEC pid=<p> tgid=<t> ppid=<pp> comm=<c> file=<path>
//! <seq> <ns> DEATH pid=<p> tgid=<t> ppid=<pp> comm=<c> exit=<code> | signal=<n>[ core]
//! <seq> <ns> DROPPED <n>
//! ```
//!
//! `tools/utrace-top` shows it as a live table. Uses only the safe API.

use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::task::Task;

#[path = "../../rust/api/utrace.rs"]
mod utrace;

use utrace::{Action, CloneFlags, Context, Events, Record, Stream, TaskInfo, Tracer};

utrace::module_author! {
    type: GlobalTrace,
    name: "global_trace",
    author: "utrace-rs developers",
    description: "utrace-rs sample: CLONE/EXEC/DEATH of every user task as an event stream",
    license: "GPL",
}

/// Not given: trace every user task.
const ALL: i32 = i32::MIN;

utrace::module_param_int!(
    PID,
    "pid",
    ALL,
    "trace only this pid and its new descendants"
);
utrace::module_param_int!(
    RECORDS,
    "records",
    4096,
    "records the stream holds (16-65536)"
);

const EVENTS: Events = Events::CLONE.or(Events::EXEC).or(Events::DEATH);

struct Trace {
    stream: Stream,
    /// Only this process and its new descendants (engines follow CLONEs).
    follow: bool,
    dropped: AtomicU64,
}

impl Trace {
    /// Adds `rec` (built without `core::fmt`: a record costs a fraction
    /// of `format_args!`'s instructions), counting it if it is dropped.
    fn emit(&self, rec: &Record) {
        if self.stream.write(rec).is_err() {
            self.dropped.fetch_add(1, Relaxed);
        }
    }
}

/// `<EVENT> pid=<p> tgid=<t> ppid=<pp> comm=<c>`, the start of every record.
fn head(rec: &mut Record, event: &str, info: &TaskInfo) {
    rec.str(event)
        .str(" pid=")
        .int(info.pid)
        .str(" tgid=")
        .int(info.tgid)
        .str(" ppid=")
        .int(info.ppid)
        .str(" comm=")
        .escaped(info.comm());
}

impl utrace::Engine for Trace {
    fn cloned(&self, cx: &Context<'_, Self>, child: &Task, flags: CloneFlags) -> Action {
        let info = TaskInfo::of(child);
        let mut rec = Record::new();
        head(&mut rec, "CLONE", &info);
        rec.str(" parent=").int(cx.task().pid());
        if flags.thread() {
            rec.str(" thread");
        }
        self.emit(&rec);
        if self.follow && cx.attach(child, EVENTS).is_err() {
            pr_warn!("cannot follow pid {}: its events are lost\n", info.pid);
        }
        Action::Resume
    }

    fn exec(&self, cx: &Context<'_, Self>, filename: Option<&CStr>, _old_pid: i32) -> Action {
        let info = TaskInfo::of(cx.task());
        let file = filename.map_or(&b"?"[..], utrace::cstr_bytes);
        let mut rec = Record::new();
        head(&mut rec, "EXEC", &info);
        rec.str(" file=").escaped(file);
        self.emit(&rec);
        Action::Resume
    }

    fn death(&self, cx: &Context<'_, Self>, _group_dead: bool, _signal: Option<i32>) -> Action {
        let info = TaskInfo::of(cx.task());
        let code = info.exit_code;
        let mut rec = Record::new();
        head(&mut rec, "DEATH", &info);
        if code & 0x7f == 0 {
            rec.str(" exit=").int((code >> 8) & 0xff);
        } else {
            rec.str(" signal=").int(code & 0x7f);
            if code & 0x80 != 0 {
                rec.str(" core");
            }
        }
        self.emit(&rec);
        Action::Resume
    }
}

struct GlobalTrace {
    tracer: Tracer<Trace>,
}

impl kernel::Module for GlobalTrace {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let pid = PID.get();
        if pid != ALL && pid <= 0 {
            pr_err!("pid={} is not a process id\n", pid);
            return Err(EINVAL);
        }
        let records = RECORDS.get();
        if !(16..=65536).contains(&records) {
            pr_err!("records={} is out of range (16-65536)\n", records);
            return Err(EINVAL);
        }
        let stream = Stream::create(kernel::c_str!("global_trace"), records as u32)?;
        let tracer = Tracer::new(Trace {
            stream,
            follow: pid != ALL,
            dropped: AtomicU64::new(0),
        })?;
        if pid == ALL {
            // Every task is traced already: children are never attached to
            // from CLONE, so they need not be held for it.
            tracer.attach_global_nofollow(EVENTS)?;
            pr_info!("tracing every user task into /dev/global_trace\n");
            return Ok(GlobalTrace { tracer });
        }
        match tracer.attach_pid(pid, EVENTS) {
            Ok(_) => {
                pr_info!("tracing pid {} and its new descendants\n", pid);
                Ok(GlobalTrace { tracer })
            }
            Err(e) => {
                let why = utrace::attach_error(e);
                pr_err!("pid={}: {} (errno {})\n", pid, why, e.to_errno());
                Err(e)
            }
        }
    }
}

impl Drop for GlobalTrace {
    fn drop(&mut self) {
        self.tracer.detach_all();
        pr_info!(
            "unloaded; {} record(s) dropped\n",
            self.tracer.engine().dropped.load(Relaxed)
        );
    }
}
