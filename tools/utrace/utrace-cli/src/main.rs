// SPDX-License-Identifier: GPL-2.0

//! `utrace`: strace-class tracing and process-tree events on /dev/utrace
//! (Documentation/utrace-rs/utrace.rst).

#![forbid(unsafe_code)]

/// `eprintln!` that cannot panic: a message to a standard error that is
/// gone (`2>&1 | head`) is dropped. One write(2) a message, so that the
/// messages of several processes on one terminal do not mix.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut line = format!($($arg)*);
        line.push('\n');
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}

mod captured;
mod ends;
mod events;
mod format;
mod handoff;
mod hold;
mod pump;
mod siginfo;
mod target;
mod tids;
mod top;
mod trace;

use clap::{Args, Parser, Subcommand};
use std::io::{self, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "utrace",
    version,
    about = "Trace processes through /dev/utrace sessions (utrace-rs), beside gdb and other tracers",
    long_about = "Trace processes through /dev/utrace sessions (utrace-rs). Any user may trace \
the processes they could ptrace; several tools (and gdb) may trace one process at once.\n\n\
See Documentation/utrace-rs/utrace.rst."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// What to trace: a running process, or a command started under the trace.
#[derive(Args, Clone, Debug)]
pub struct TargetArgs {
    /// Attach to the running process PID (all its threads).
    #[arg(
        short = 'p',
        long = "pid",
        value_name = "PID",
        conflicts_with = "command"
    )]
    pub pid: Option<i32>,
    /// Run COMMAND with ARGS, traced from its first instruction.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the syscalls, signals and exits of a process, as strace does.
    #[command(
        long_about = "Print every syscall of a process as strace does: name(arguments) = \
result, errno names, `--- SIGNAL {siginfo} ---` and `+++ exited with N +++`. Arguments are \
decoded for the syscalls in utrace's table and printed raw (hex) otherwise. Works on a process \
that gdb or another tracer is attached to."
    )]
    Trace(trace::TraceArgs),
    /// Print the CLONE/EXEC/EXIT/DEATH events of a process tree or of every task.
    #[command(
        long_about = "Print the process-tree events (clone, exec, exit, death) of a \
process and its descendants, of a command, or with --all of every task (root), one line each \
or as JSON lines for log shippers."
    )]
    Events(events::EventsArgs),
    /// Show what the kernel's /dev/utrace offers (version, events, flags, buffer).
    Info,
    /// Freeze a crashing process for a debugger instead of letting it die.
    #[command(
        long_about = "Hold crashes of a process and its descendants, or of a command: a process \
that gets a core-dumping signal at its default action (SIGSEGV, SIGABRT, SIGBUS, ...) stops \
instead (state T), `utrace hold` prints `pid N (comm) held on SIGSEGV at ADDR: gdb -p N` and \
waits. When utrace hold ends (the processes end, Ctrl-C, SIGTERM, even SIGKILL) or after \
--timeout, or on SIGCONT, the held process dumps core as it would have. Needs no privileges \
for the user's own processes."
    )]
    Hold(hold::HoldArgs),
    /// A live table of the processes making the most syscalls.
    #[command(
        long_about = "A table, redrawn every --delay seconds, of the traced processes that make \
the most syscalls, with their signals, clones, execs and most frequent syscall: of a process and \
its descendants, of a command, or with --all of every task (root). Lossy: the traced tasks never \
wait for the table; records that did not fit are counted as lost."
    )]
    Top(top::TopArgs),
    /// Hand a traced process from one utrace to another: see trace --handoff-socket and --take.
    Handoff(StubArgs),
    /// Internal: the child side of `utrace trace -- COMMAND`.
    #[command(name = "__exec", hide = true)]
    Exec(target::ExecArgs),
}

/// The arguments of a subcommand that this version does not provide yet.
#[derive(Args)]
struct StubArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

/// A new session, or the error that says the device is missing.
pub fn open_session() -> Result<utrace::Session, String> {
    utrace::Session::open().map_err(|e| format!("{e}: is the utrace_dev module loaded?"))
}

fn info() -> Result<(), String> {
    use std::fmt::Write as _;
    use utrace::uapi;
    let s = open_session()?;
    let i = s.info().map_err(|e| e.to_string())?;
    let names: Vec<&str> = [
        (uapi::ATTACH_F_PIDFD, "pidfd"),
        (uapi::ATTACH_F_THREAD, "thread"),
        (uapi::ATTACH_F_FOLLOW, "follow"),
        (uapi::ATTACH_F_LOSSLESS, "lossless"),
        (uapi::ATTACH_F_DECIDE_SYSCALL, "decide_syscall"),
        (uapi::ATTACH_F_DECIDE_SIGNAL, "decide_signal"),
        (uapi::ATTACH_F_GLOBAL, "global"),
    ]
    .iter()
    .filter(|f| i.attach_flags & u64::from(f.0) != 0)
    .map(|f| f.1)
    .collect();
    let mut text = String::new();
    let _ = writeln!(text, "version {}", i.version);
    let _ = writeln!(text, "record_size {}", i.record_size);
    let _ = writeln!(text, "events {:#x}", i.events);
    let _ = writeln!(
        text,
        "attach_flags {:#x} {}",
        i.attach_flags,
        names.join(",")
    );
    let _ = writeln!(text, "buffer_bytes {}", i.buffer_bytes);
    let _ = writeln!(text, "buffer_max {}", i.buffer_max);
    write_out(text.as_bytes())
}

/// Writes `bytes` to standard output. A reader that is gone (`| head`)
/// ends the output quietly: Rust ignores SIGPIPE, so that write says
/// EPIPE, which `print!` would turn into a panic.
fn write_out(bytes: &[u8]) -> Result<(), String> {
    match io::stdout().lock().write_all(bytes) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("standard output: {e}")),
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Trace(a) => trace::run(a),
        Cmd::Events(a) => events::run(a),
        Cmd::Info => info().map(|()| ExitCode::SUCCESS),
        Cmd::Exec(a) => target::exec_child(a),
        Cmd::Hold(a) => hold::run(a),
        Cmd::Top(a) => top::run(a),
        Cmd::Handoff(_) => Err(
            "handoff: a trace is handed over with `utrace trace -p PID --handoff-socket PATH` \
and taken with `utrace trace --take PATH` (the same options of utrace events)"
                .into(),
        ),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            say!("utrace: {e}");
            ExitCode::from(1)
        }
    }
}
