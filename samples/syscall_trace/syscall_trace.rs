// SPDX-License-Identifier: GPL-2.0

//! syscall_trace: strace for a process tree, as a utrace engine.
//!
//! `insmod syscall_trace.ko pid=N` follows process N and every process and
//! thread it creates from then on, and streams one line per syscall into
//! `/dev/syscall_trace`, with the arguments decoded as
//! strace does for the common syscalls:
//!
//! ```text
//! <seq> <ns> <pid> openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = 3
//! <seq> <ns> <pid> read(3, "guest\n", 4096) = 6
//! <seq> <ns> <pid> openat(AT_FDCWD, "/nope", O_RDONLY) = -1 ENOENT (No such file or directory)
//! <seq> <ns> <pid> exit_group(0) = ?
//! <seq> <ns> <pid> +++ exited with 0 +++
//! <seq> <ns> DROPPED <n>
//! ```
//!
//! `inject=SYSCALL:error=ERRNO[:when=N|N+|N..M]` fails chosen calls (see
//! `inject.rs`). Other engines (crash_suspend) and a ptrace debugger (gdb)
//! can work on the same process at the same time. Uses only the safe API.
//! See `Documentation/utrace-rs/syscall-trace.rst`.

use core::fmt::Write;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::task::Task;

#[path = "../../rust/api/utrace.rs"]
mod utrace;

mod errno;
mod format;
mod inject;
mod syscalls;

use format::Line;
use inject::Inject;
use utrace::{
    Action, CloneFlags, Context, Events, Stream, SyscallContext, SyscallEntry, SyscallRegs,
    TaskInfo, Tracer,
};

utrace::module_author! {
    type: SyscallTrace,
    name: "syscall_trace",
    author: "utrace-rs developers",
    description: "utrace-rs sample: strace-style syscall stream of a process tree, with fault injection",
    license: "GPL",
}

const UNSET: i32 = i32::MIN;

utrace::module_param_int!(
    PID,
    "pid",
    UNSET,
    "process to trace, with its new descendants (required)"
);
utrace::module_param_int!(
    RECORDS,
    "records",
    4096,
    "records the stream holds (16-65536)"
);
utrace::module_param_str!(
    INJECT,
    "inject",
    64,
    "fail calls: SYSCALL:error=ERRNO[:when=N|N+|N..M]"
);

const EVENTS: Events = Events::CLONE
    .or(Events::EXEC)
    .or(Events::DEATH)
    .or(Events::SYSCALL);

struct Trace {
    stream: Stream,
    inject: Option<Inject>,
    /// Calls of the injected syscall so far, by all traced tasks.
    calls: AtomicU64,
}

impl Trace {
    /// Emits `line` (begun by [`start`]); a full stream counts the loss itself
    /// and says so in a `DROPPED` record.
    fn emit(&self, line: &Line) {
        let _ = self.stream.write(line);
    }
}

/// Starts a record's text for `task`: `<pid> `. (A `Line` made and
/// returned here would be copied, 248 bytes, by the caller.)
fn start(line: &mut Line, task: &Task) {
    line.int(task.pid()).str(" ");
}

fn args_of(regs: &SyscallRegs<'_>) -> [u64; 6] {
    let mut a = [0u64; 6];
    for (i, v) in a.iter_mut().enumerate() {
        *v = regs.arg(i).unwrap_or(0);
    }
    a
}

impl utrace::Engine for Trace {
    fn cloned(&self, cx: &Context<'_, Self>, child: &Task, _flags: CloneFlags) -> Action {
        if cx.attach(child, EVENTS).is_err() {
            pr_warn!(
                "cannot follow pid {}: its syscalls are not traced\n",
                child.pid()
            );
        }
        Action::Resume
    }

    /// A successful exec: its syscall's arguments were in the memory the
    /// exec replaced, so the line is made here, with the file the kernel
    /// opened (the exit of the syscall is not shown).
    fn exec(&self, cx: &Context<'_, Self>, filename: Option<&CStr>, _old_pid: i32) -> Action {
        let mut line = Line::new();
        start(&mut line, cx.task());
        let file = filename.map_or(&b"?"[..], utrace::cstr_bytes);
        line.str("execve(\"").escaped(file).str("\", ...) = 0");
        self.emit(&line);
        Action::Resume
    }

    fn death(&self, cx: &Context<'_, Self>, _group_dead: bool, _signal: Option<i32>) -> Action {
        let code = TaskInfo::of(cx.task()).exit_code;
        let mut line = Line::new();
        start(&mut line, cx.task());
        let _ = if code & 0x7f == 0 {
            line.str("+++ exited with ")
                .int((code >> 8) & 0xff)
                .str(" +++");
            Ok(())
        } else {
            let _ = line.write_str("+++ killed by ");
            let _ = format::signal(&mut line, i64::from(code & 0x7f));
            let core = if code & 0x80 != 0 {
                " (core dumped)"
            } else {
                ""
            };
            write!(line, "{core} +++")
        };
        self.emit(&line);
        Action::Resume
    }
}

impl utrace::SyscallEngine for Trace {
    /// Calls that do not return (`exit`, `exit_group`, `rt_sigreturn`,
    /// i386's `sigreturn`) and injected failures are shown here; everything
    /// else at exit. Numbers, arguments and results are read as the
    /// syscall's ABI says (x86-64, or i386 for `int $0x80` and 32-bit
    /// tasks).
    fn syscall_entry(&self, cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> SyscallEntry {
        let (arch, nr) = (regs.arch(), regs.nr());
        let table = syscalls::table(arch);
        let sys = table.by_number(nr);
        let mut line = Line::new();
        start(&mut line, cx.task());
        if table.no_return(nr) {
            let _ = format::call(&mut line, cx, arch, nr, sys, &args_of(regs), None);
            let _ = line.write_str(" = ?");
            self.emit(&line);
            return SyscallEntry::Run;
        }
        let Some(inject) = &self.inject else {
            return SyscallEntry::Run;
        };
        if !inject.is(arch, nr) {
            return SyscallEntry::Run;
        }
        let n = self.calls.fetch_add(1, Relaxed) + 1;
        if !inject.hits(n) {
            return SyscallEntry::Run;
        }
        let ret = -i64::from(inject.errno);
        regs.set_return_value(ret);
        let _ = format::call(&mut line, cx, arch, nr, sys, &args_of(regs), None);
        let _ = format::result(&mut line, arch, sys, ret);
        let _ = line.write_str(" (INJECTED)");
        self.emit(&line);
        SyscallEntry::Abort
    }

    fn syscall_exit(&self, cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> Action {
        let (arch, nr, ret) = (regs.arch(), regs.nr(), regs.return_value());
        let table = syscalls::table(arch);
        // -1: not run (injected above, or aborted by another engine) or
        // rt_sigreturn (shown at entry). A successful exec is shown by
        // the EXEC report. A new child's return (0) from fork, vfork,
        // clone or clone3 is shown, under the child's pid, as its first
        // line (utrace-rs reports it after the CLONE callback that
        // attached us to the child; strace -f does not show it).
        if nr == -1 || (ret == 0 && table.is_exec(nr)) {
            return Action::Resume;
        }
        let sys = table.by_number(nr);
        let mut line = Line::new();
        start(&mut line, cx.task());
        let _ = format::call(&mut line, cx, arch, nr, sys, &args_of(regs), Some(ret));
        let _ = format::result(&mut line, arch, sys, ret);
        self.emit(&line);
        Action::Resume
    }
}

struct SyscallTrace {
    tracer: Tracer<Trace>,
}

impl kernel::Module for SyscallTrace {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let pid = PID.get();
        if pid == UNSET {
            pr_err!("pid= is required: the process to trace\n");
            return Err(EINVAL);
        }
        if pid <= 0 {
            pr_err!("pid={} is not a process id\n", pid);
            return Err(EINVAL);
        }
        let records = RECORDS.get();
        if !(16..=65536).contains(&records) {
            pr_err!("records={} is out of range (16-65536)\n", records);
            return Err(EINVAL);
        }
        let inject = match INJECT.get() {
            b"" => None,
            value => match inject::parse(value) {
                Ok(i) => Some(i),
                Err(why) => {
                    pr_err!("inject={}: {}\n", utrace::Escaped(value), why);
                    return Err(EINVAL);
                }
            },
        };
        let stream = Stream::create(kernel::c_str!("syscall_trace"), records as u32)?;
        let injected = inject.as_ref().map(|i| (i.name, i.errno));
        let tracer = Tracer::with_syscalls(Trace {
            stream,
            inject,
            calls: AtomicU64::new(0),
        })?;
        if let Err(e) = tracer.attach_pid(pid, EVENTS) {
            let why = utrace::attach_error(e);
            pr_err!("pid={}: {} (errno {})\n", pid, why, e.to_errno());
            return Err(e);
        }
        pr_info!("tracing pid {} and its new descendants\n", pid);
        if let Some((name, e)) = injected {
            pr_info!("injecting errno {} into {}\n", e, name);
        }
        Ok(SyscallTrace { tracer })
    }
}

impl Drop for SyscallTrace {
    fn drop(&mut self) {
        self.tracer.detach_all();
        pr_info!(
            "unloaded; {} record(s) dropped\n",
            self.tracer.engine().stream.dropped()
        );
    }
}
