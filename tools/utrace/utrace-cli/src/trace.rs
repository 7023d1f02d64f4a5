// SPDX-License-Identifier: GPL-2.0

//! `utrace trace`: strace's output from a session's records.

use crate::captured::{self, Captured};
use crate::ends::Ends;
use crate::format::{self, Mem, NoMem, ProcMem};
use crate::handoff::{self, Giver};
use crate::pump::{Next, Pump};
use crate::tids::{TidMap, TidSet};
use crate::{siginfo, target, TargetArgs};
use clap::Args;
use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use utrace::event::Captures;
use utrace::syscalls::{self, Arg};
use utrace::{
    uapi, Abi, Attach, Event, Payload, Session, SyscallFilter, Target, Verdict, CLONE_THREAD,
};

#[derive(Args, Debug)]
pub struct TraceArgs {
    /// Follow new children and threads from their first instruction.
    #[arg(short = 'f', long = "follow")]
    follow: bool,
    /// Only these syscalls: comma-separated names or `%file` (those with a
    /// path argument), every one but those after `!`, `all` or `none`;
    /// `trace=` may come first, as strace spells it.
    #[arg(short = 'e', value_name = "SYSCALLS")]
    expr: Option<String>,
    /// Write the trace to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Do not read the traced process's memory: strings, buffers and
    /// structs show as their addresses.
    #[arg(long = "no-memory")]
    no_memory: bool,
    /// Make SYSCALL fail with ERRNO instead of running (every call, or
    /// from the Nth on): SYSCALL:error=ERRNO[:when=N]. Needs syscall
    /// decisions from the kernel.
    #[arg(long = "inject", value_name = "SPEC")]
    inject: Vec<String>,
    /// Listen on the unix socket PATH: when `utrace trace --take PATH`
    /// connects, hand the trace over to it (with -f, the followed
    /// descendants too), print what came up to the switch and end.
    #[arg(long = "handoff-socket", value_name = "PATH", requires = "pid")]
    handoff_socket: Option<PathBuf>,
    /// Take over the trace of the `utrace trace --handoff-socket PATH`
    /// listening at PATH: print from the switch on, until the processes
    /// it traced end.
    #[arg(
        long = "take",
        value_name = "PATH",
        conflicts_with_all = ["pid", "command", "handoff_socket", "follow"]
    )]
    take: Option<PathBuf>,
    #[command(flatten)]
    target: TargetArgs,
}

/// Syscalls whose lines need no record of their entry: they never wait
/// (the line would show when they return anyway) and the formatter reads
/// no memory they are given, so their exit record, which carries the
/// arguments too (module version 4), is all the line needs. The kernel
/// then writes one record a call instead of two.
const EXIT_ONLY: &[&str] = &[
    "arch_prctl",
    "brk",
    "close",
    "dup",
    "dup2",
    "fstat",
    "getegid",
    "geteuid",
    "getgid",
    "getpgrp",
    "getpid",
    "getppid",
    "gettid",
    "getuid",
    "lseek",
    "madvise",
    "mmap",
    "mprotect",
    "mremap",
    "munmap",
    "sched_yield",
    "umask",
];

/// The session's syscall filter (`UTRACE_IOC_SYSCALLS`): the shown
/// syscalls (`shown`: `-e`'s names; `None`, every one) at their exits,
/// and at their entries unless [`EXIT_ONLY`] or, with `fold` (their memory
/// is captured at their exits, or not shown), [`captured::whole_at_exit`];
/// execve and the `--inject` ones always at both (their entries start the
/// trace of `-- COMMAND` and take the decisions).
fn syscall_filter(shown: Option<&Shown>, inject: &[Inject], fold: bool) -> SyscallFilter {
    let mut f = SyscallFilter::new();
    for abi in [Abi::X86_64, Abi::I386] {
        let table = syscalls::table(abi);
        for nr in 0..uapi::CAPTURE_NR_MAX as i64 {
            let name = syscalls::name(abi, nr);
            let show = match (shown, name) {
                (None, _) => true,
                (Some(names), Some(n)) => names.contains(n),
                (Some(_), None) => false,
            };
            let always = table.is_some_and(|t| t.is_exec(nr))
                || name.is_some_and(|n| inject.iter().any(|r| r.name == n));
            let folded = fold
                && table
                    .zip(table.and_then(|t| t.by_number(nr)))
                    .is_some_and(|(t, s)| captured::whole_at_exit(t, s));
            let exit_only = folded || name.is_some_and(|n| EXIT_ONLY.contains(&n));
            f.record(abi, nr, always || (show && !exit_only), always || show);
        }
    }
    f
}

/// One `--inject` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Inject {
    name: String,
    errno: i32,
    when: u64,
    seen: u64,
}

fn parse_inject(spec: &str) -> Result<Inject, String> {
    let mut parts = spec.split(':');
    let name = parts
        .next()
        .filter(|n| !n.is_empty())
        .ok_or("--inject: no syscall name")?;
    if syscalls::number(Abi::X86_64, name).is_none() && syscalls::number(Abi::I386, name).is_none()
    {
        return Err(format!("--inject: unknown syscall {name}"));
    }
    let mut errno = None;
    let mut when = 1;
    for p in parts {
        if let Some(e) = p.strip_prefix("error=") {
            errno = Some(
                utrace::errno::by_name(e)
                    .or_else(|| e.parse().ok().filter(|&n: &i32| (1..4096).contains(&n)))
                    .ok_or_else(|| format!("--inject: unknown errno {e}"))?,
            );
        } else if let Some(w) = p.strip_prefix("when=") {
            when = w
                .parse()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("--inject: bad when={w}"))?;
        } else {
            return Err(format!(
                "--inject: unknown part {p} (SYSCALL:error=ERRNO[:when=N])"
            ));
        }
    }
    let errno = errno.ok_or("--inject: error=ERRNO is required")?;
    Ok(Inject {
        name: name.to_string(),
        errno,
        when,
        seen: 0,
    })
}

/// `-e`'s syscalls: those named, or (`except`) every one but those.
#[derive(Debug, Default)]
struct Shown {
    names: HashSet<String>,
    except: bool,
}

impl Shown {
    fn contains(&self, name: &str) -> bool {
        self.names.contains(name) != self.except
    }
}

/// Parses `-e` as strace spells it: `[trace=][!]LIST`, LIST being `all`,
/// `none`, or names and `%file` (every syscall with a path argument)
/// separated by commas.
fn parse_filter(expr: &str) -> Result<Shown, String> {
    let list = expr.strip_prefix("trace=").unwrap_or(expr);
    let (except, list) = match list.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, list),
    };
    match list {
        "all" => {
            return Ok(Shown {
                names: HashSet::new(),
                except: !except,
            })
        }
        "none" => {
            return Ok(Shown {
                names: HashSet::new(),
                except,
            })
        }
        _ => {}
    }
    let mut names = HashSet::new();
    for n in list.split(',').filter(|n| !n.is_empty()) {
        if n == "%file" {
            let tables = [Abi::X86_64, Abi::I386]
                .into_iter()
                .filter_map(syscalls::table);
            for s in tables.flat_map(|t| t.syscalls()) {
                if s.args.contains(&Arg::Path) {
                    names.insert(s.name.to_string());
                }
            }
            continue;
        }
        if n.starts_with('%') {
            return Err(format!(
                "-e: unknown syscall class {n} (utrace knows %file)"
            ));
        }
        if syscalls::number(Abi::X86_64, n).is_none() && syscalls::number(Abi::I386, n).is_none() {
            return Err(format!("-e: unknown syscall {n}"));
        }
        names.insert(n.to_string());
    }
    if names.is_empty() {
        return Err("-e: no syscall named".into());
    }
    Ok(Shown { names, except })
}

/// A syscall entered and not yet returned, per thread.
struct Pending {
    nr: i32,
    abi: Abi,
    args: [u64; 6],
    /// The call's text as read at entry.
    text: String,
    /// What exec'd (an EXEC record came before the exit).
    exec: Option<String>,
    injected: bool,
}

/// A memory that holds one string at one address (an exec's filename
/// from its EXEC record: the old image's memory is gone).
struct OneString(u64, Vec<u8>);

impl Mem for OneString {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Option<usize> {
        if addr != self.0 {
            return None;
        }
        let mut s = self.1.clone();
        s.push(0);
        let n = s.len().min(buf.len());
        buf[..n].copy_from_slice(&s[..n]);
        Some(n)
    }
}

/// The trace's output. Its first write error ends the trace: a reader
/// that is gone (`| head`: Rust ignores SIGPIPE, so a write says EPIPE)
/// or a full disk. Later writes are dropped.
struct Output {
    w: Box<dyn Write>,
    err: Option<io::Error>,
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.err.is_none() {
            match self.w.write(buf) {
                Err(e) if e.kind() != io::ErrorKind::Interrupted => self.err = Some(e),
                r => return r,
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.err.is_none() {
            if let Err(e) = self.w.flush() {
                self.err = Some(e);
            }
        }
        Ok(())
    }
}

struct Tracer {
    out: Output,
    follow: bool,
    memory: bool,
    /// The kernel captures the memory the lines show (`captured.rs`):
    /// read live only while a thread waits for a decision.
    capture: bool,
    filter: Option<Shown>,
    inject: Vec<Inject>,
    pending: Calls,
    /// exec calls returned 0, waiting for their EXEC record.
    exec_wait: TidMap<(Pending, i64)>,
    /// Threads whose exec returned 0 under a new id (a thread other than
    /// the first exec'd), waiting for the EXEC record that names the old.
    exec_returned: TidSet,
    /// The call a thread's next `restart_syscall` resumes.
    interrupted: TidMap<(Abi, i32)>,
    /// Processes still traced.
    live: TidSet,
    /// When each process has ended (its line waits for its threads').
    ends: Ends,
    /// `-- COMMAND`: nothing is shown before its first execve.
    started: bool,
    /// The line being written, and call texts to reuse (no allocation
    /// per line).
    line: String,
    spare: Vec<String>,
    first_pid: i32,
    /// Taken over (`--take`): a syscall exit without its entry is the end
    /// of a call the holder printed as unfinished.
    taken: bool,
    /// The session's syscall filter, if the kernel took it: a syscall
    /// whose entry it leaves out is shown whole from its exit record.
    syscalls: Option<SyscallFilter>,
}

/// The kernel's restart code of a call that `restart_syscall` resumes.
const ERESTART_RESTARTBLOCK: i64 = utrace::errno::ERESTART_RESTARTBLOCK as i64;

/// The table that numbers syscall `nr` of `abi` and its number there, for
/// the calls x32 shares with x86-64 (the kernel's "common" ones: the
/// forks and `restart_syscall`), whose x32 numbers are x86-64's with
/// [`syscalls::X32_BIT`].
fn common(abi: Abi, nr: i32) -> Option<(&'static syscalls::Table, i64)> {
    match abi {
        Abi::X32 => Some((
            syscalls::table(Abi::X86_64)?,
            i64::from(nr) - syscalls::X32_BIT,
        )),
        _ => Some((syscalls::table(abi)?, i64::from(nr))),
    }
}

/// Whether syscall `nr` of `abi` is `restart_syscall`.
fn is_restart(abi: Abi, nr: i32) -> bool {
    common(abi, nr).is_some_and(|(t, nr)| t.is_restart(nr))
}

/// How long a process whose group is dead waits for its other threads'
/// DEATH records without any record coming ([`Ends`]).
const ENDING: Duration = Duration::from_secs(1);

/// The calls under way, by thread: the latest apart, since its exit is
/// nearly always the next record (a hash map's insert and remove cost
/// about 170 instructions a line; this, a move in and out).
#[derive(Default)]
struct Calls {
    last: Option<(i32, Pending)>,
    rest: TidMap<Pending>,
}

impl Calls {
    /// `tid`'s call under way is `p` (an older one of `tid` is dropped).
    fn insert(&mut self, tid: i32, p: Pending) {
        if let Some((t, old)) = self.last.take() {
            if t != tid {
                self.rest.insert(t, old);
            }
        }
        if !self.rest.is_empty() {
            self.rest.remove(&tid);
        }
        self.last = Some((tid, p));
    }

    fn remove(&mut self, tid: i32) -> Option<Pending> {
        match self.last.take() {
            Some((t, p)) if t == tid => Some(p),
            last => {
                self.last = last;
                if self.rest.is_empty() {
                    return None;
                }
                self.rest.remove(&tid)
            }
        }
    }

    /// The threads with a call under way.
    fn tids(&self) -> impl Iterator<Item = i32> + '_ {
        self.last
            .iter()
            .map(|l| l.0)
            .chain(self.rest.keys().copied())
    }

    /// Every call, by thread id.
    fn drain_sorted(&mut self) -> Vec<(i32, Pending)> {
        let mut all: Vec<(i32, Pending)> = self.rest.drain().chain(self.last.take()).collect();
        all.sort_by_key(|p| p.0);
        all
    }
}

/// A SYSCALL_EXIT record's fields.
#[derive(Clone, Copy)]
struct ExitRec<'a> {
    abi: Abi,
    nr: i32,
    args: &'a [u64; 6],
    ret: i64,
    captures: &'a Captures,
}

/// `[pid N] ` before the lines of a thread other than the first (`-f`).
struct Prefix(Option<i32>);

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(tid) => write!(f, "[pid {tid:>5}] "),
            None => Ok(()),
        }
    }
}

impl Tracer {
    /// `[pid TID] ` on every line of a thread other than the one named
    /// (`-p` traces every thread of the process, `-f` the new ones too).
    fn prefix(&self, tid: i32) -> Prefix {
        Prefix((tid != self.first_pid).then_some(tid))
    }

    fn shown(&self, abi: Abi, nr: i32) -> bool {
        match &self.filter {
            None => true,
            Some(f) => syscalls::name(abi, i64::from(nr)).is_some_and(|n| f.contains(n)),
        }
    }

    /// A string for a call's text: a spare one (cleared) if there is one,
    /// so that a line costs no allocation.
    fn text_buf(&mut self) -> String {
        self.spare
            .pop()
            .unwrap_or_else(|| String::with_capacity(128))
    }

    /// Gives back a string of [`Tracer::text_buf`].
    fn recycle(&mut self, mut s: String) {
        if self.spare.len() < 64 {
            s.clear();
            self.spare.push(s);
        }
    }

    /// The call's text (name and arguments) appended to `w`.
    #[allow(clippy::too_many_arguments)]
    fn call_text(
        &self,
        w: &mut String,
        tid: i32,
        abi: Abi,
        nr: i32,
        args: &[u64; 6],
        ret: Option<i64>,
        mem: Option<&dyn Mem>,
    ) {
        if is_restart(abi, nr) {
            // Its registers are not the interrupted call's: strace names
            // that call instead.
            let name = self
                .interrupted
                .get(&tid)
                .and_then(|&(abi, nr)| syscalls::name(abi, i64::from(nr)))
                .unwrap_or("system call");
            for part in ["restart_syscall(<... resuming interrupted ", name, " ...>)"] {
                w.push_str(part);
            }
            return;
        }
        let table = syscalls::table(abi);
        let sys = table.and_then(|t| t.by_number(i64::from(nr)));
        let pm = ProcMem(tid);
        let mem: &dyn Mem = match mem {
            Some(m) => m,
            None if self.memory => &pm,
            None => &NoMem,
        };
        let _ = format::call(w, mem, abi, i64::from(nr), sys, args, ret);
    }

    /// Writes one line: the prefix, `text` padded to strace's 39 columns,
    /// `rest` (with the result), built in one buffer and written at once.
    fn line(&mut self, tid: i32, text: &str, rest: impl FnOnce(&mut String)) {
        use std::fmt::Write as _;
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let prefix = self.prefix(tid);
        if prefix.0.is_some() {
            let _ = write!(line, "{prefix}");
        }
        line.push_str(text);
        // The formatter writes ASCII only (quoted() escapes the rest).
        let cols = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        const SPACES: &str = "                                       ";
        line.push_str(SPACES.get(cols..).unwrap_or(""));
        rest(&mut line);
        line.push('\n');
        let _ = self.out.write_all(line.as_bytes());
        self.line = line;
    }

    fn needs_ret(abi: Abi, nr: i32) -> bool {
        syscalls::table(abi)
            .and_then(|t| t.by_number(i64::from(nr)))
            .is_some_and(|s| {
                s.args
                    .iter()
                    .any(|a| matches!(a, Arg::InBuf | Arg::PipeFds))
            })
    }

    /// A SYSCALL_ENTRY record with its `captures`; `waits`: its thread
    /// waits for a decision (its memory may be read now). Returns the
    /// verdict if it waits for one.
    fn entry(
        &mut self,
        tid: i32,
        nr: i32,
        abi: Abi,
        args: [u64; 6],
        captures: &Captures,
        waits: bool,
    ) -> Option<Verdict> {
        let table = syscalls::table(abi);
        let is_exec = table.is_some_and(|t| t.is_exec(i64::from(nr)));
        if !self.started {
            if !is_exec {
                return None;
            }
            self.started = true;
        }
        let cap = Captured {
            args: &args,
            captures,
        };
        let mem: Option<&dyn Mem> = (self.capture && !waits).then_some(&cap);
        let mut text = self.text_buf();
        self.call_text(&mut text, tid, abi, nr, &args, None, mem);
        let mut injected = None;
        let name = (!self.inject.is_empty())
            .then(|| syscalls::name(abi, i64::from(nr)))
            .flatten();
        if let Some(name) = name {
            for rule in self.inject.iter_mut().filter(|r| r.name == name) {
                rule.seen += 1;
                if rule.seen >= rule.when {
                    injected = Some(rule.errno);
                }
            }
        }
        if table.is_some_and(|t| t.no_return(i64::from(nr))) && self.shown(abi, nr) {
            self.line(tid, &text, |l| l.push_str(" = ?"));
            self.recycle(text);
        } else {
            self.pending.insert(
                tid,
                Pending {
                    nr,
                    abi,
                    args,
                    text,
                    exec: None,
                    injected: injected.is_some(),
                },
            );
        }
        Some(match injected {
            Some(e) => Verdict::Abort(e),
            None => Verdict::Run(None),
        })
    }

    fn exit(&mut self, tid: i32, e: &ExitRec<'_>) {
        let (abi, nr, ret, captures) = (e.abi, e.nr, e.ret, e.captures);
        if ret == -ERESTART_RESTARTBLOCK || is_restart(abi, nr) {
            self.note_restart(tid, abi, nr, ret);
        }
        let Some(p) = self.pending.remove(tid) else {
            let whole = self
                .syscalls
                .as_ref()
                .is_some_and(|f| !f.records_entry(abi, i64::from(nr)));
            if whole {
                self.exit_only(tid, e);
                return;
            }
            // Its entry was not seen.
            let table = syscalls::table(abi);
            if table.is_some_and(|t| t.no_return(i64::from(nr))) {
                // Shown as `= ?` at its entry (rt_sigreturn's exit).
                return;
            }
            if ret == 0 && table.is_some_and(|t| t.is_exec(i64::from(nr))) {
                // A thread other than the first exec'd: its entry waits
                // under its old id, which the EXEC record names (the
                // registers are the new program's already).
                self.exec_returned.insert(tid);
                return;
            }
            if ret == 0 && common(abi, nr).is_some_and(|(t, nr)| t.is_fork(nr)) {
                // A new child's return from its parent's call: strace
                // shows none.
                return;
            }
            if self.taken {
                if self.shown(abi, nr) {
                    self.resumed(tid, abi, nr, ret);
                }
            } else {
                // A call under way when the session attached (or whose
                // entry record was lost): its line is the exit record's.
                self.exit_only(tid, e);
            }
            return;
        };
        let is_exec = syscalls::table(p.abi).is_some_and(|t| t.is_exec(i64::from(p.nr)));
        if is_exec && ret == 0 && p.exec.is_none() {
            // The EXEC record comes after the exit (at the return to user
            // mode): the line waits for its filename.
            self.exec_wait.insert(tid, (p, ret));
            return;
        }
        self.finish(tid, p, ret, captures);
    }

    /// The EXEC record of `tid` (which had `old_tid` if a non-leader
    /// thread exec'd).
    fn exec(&mut self, tid: i32, old_tid: i32, filename: String) {
        let old = if old_tid != 0 { old_tid } else { tid };
        if let Some((mut p, ret)) = self.exec_wait.remove(&old) {
            p.exec = Some(filename);
            self.finish(tid, p, ret, &Captures::default());
        } else if let Some(mut p) = self.pending.remove(old) {
            p.exec = Some(filename);
            if self.exec_returned.remove(&tid) {
                self.finish(tid, p, 0, &Captures::default());
            } else {
                self.pending.insert(tid, p);
            }
        }
        self.exec_returned.remove(&tid);
    }

    /// Any other record of `tid`: an exec line still waiting for its
    /// filename is shown without it.
    fn flush_exec(&mut self, tid: i32) {
        if let Some((p, ret)) = self.exec_wait.remove(&tid) {
            self.finish(tid, p, ret, &Captures::default());
        }
    }

    /// The line of a call that returned `ret`, its exit record's
    /// `captures` with it.
    fn finish(&mut self, tid: i32, p: Pending, ret: i64, captures: &Captures) {
        if !self.shown(p.abi, p.nr) {
            self.recycle(p.text);
            return;
        }
        let mut text = p.text;
        if let (Some(f), 0) = (&p.exec, ret) {
            let m = OneString(p.args[0], f.clone().into_bytes());
            text.clear();
            self.call_text(&mut text, tid, p.abi, p.nr, &p.args, Some(ret), Some(&m));
        } else if Self::needs_ret(p.abi, p.nr) {
            let cap = Captured {
                args: &p.args,
                captures,
            };
            let mem: Option<&dyn Mem> = self.capture.then_some(&cap);
            text.clear();
            self.call_text(&mut text, tid, p.abi, p.nr, &p.args, Some(ret), mem);
        }
        let table = syscalls::table(p.abi);
        let sys = table.and_then(|t| t.by_number(i64::from(p.nr)));
        let inj = if p.injected { " (INJECTED)" } else { "" };
        self.line(tid, &text, |l| {
            let _ = format::result(l, p.abi, sys, ret);
            l.push_str(inj);
        });
        self.recycle(text);
    }

    /// Keeps which call of `tid` a `restart_syscall` resumes: the last
    /// one that returned `ERESTART_RESTARTBLOCK` (the restart itself may
    /// too), until the restart returns otherwise.
    fn note_restart(&mut self, tid: i32, abi: Abi, nr: i32, ret: i64) {
        if !is_restart(abi, nr) {
            self.interrupted.insert(tid, (abi, nr));
        } else if ret != -ERESTART_RESTARTBLOCK {
            self.interrupted.remove(&tid);
        }
    }

    /// The line of a call the kernel records at its exit only, or whose
    /// entry came before the attach: its arguments are the exit record's
    /// (memory as captured at the exit).
    fn exit_only(&mut self, tid: i32, e: &ExitRec<'_>) {
        let ExitRec {
            abi,
            nr,
            args,
            ret,
            captures,
        } = *e;
        if !self.started || !self.shown(abi, nr) {
            return;
        }
        let cap = Captured { args, captures };
        let mem: Option<&dyn Mem> = self.capture.then_some(&cap);
        let mut text = self.text_buf();
        self.call_text(&mut text, tid, abi, nr, args, Some(ret), mem);
        let sys = syscalls::table(abi).and_then(|t| t.by_number(i64::from(nr)));
        self.line(tid, &text, |l| {
            let _ = format::result(l, abi, sys, ret);
        });
        self.recycle(text);
    }

    /// The end of a call whose entry the holder printed (`--take`), as
    /// strace prints a call resumed: `<... name resumed>) = ret`.
    fn resumed(&mut self, tid: i32, abi: Abi, nr: i32, ret: i64) {
        let table = syscalls::table(abi);
        let sys = table.and_then(|t| t.by_number(i64::from(nr)));
        let name = syscalls::name(abi, i64::from(nr))
            .map(str::to_string)
            .unwrap_or_else(|| format!("syscall_{nr:#x}"));
        let call = format!("<... {name} resumed>)");
        self.line(tid, &call, |l| {
            let _ = format::result(l, abi, sys, ret);
        });
    }

    /// The calls under way at a handoff: the taker prints their ends.
    fn unfinished_at_switch(&mut self) {
        self.end_pending("<unfinished ...>");
    }

    /// The calls under way at a terminating signal: the session closes
    /// before they return. Those whose entry the session did not record
    /// (recorded at their exit only, or begun before the attach) are read
    /// from `/proc`, where the threads are blocked in them.
    fn detached(&mut self) {
        let recorded: TidSet = self.pending.tids().collect();
        self.end_pending("<detached ...>");
        if !self.started {
            return;
        }
        let pids: Vec<i32> = self.live.iter().copied().collect();
        for pid in pids {
            let abi = target::abi_of(pid);
            for tid in target::threads(pid) {
                if recorded.contains(&tid) {
                    continue;
                }
                let Some((nr, args)) = target::syscall_under_way(pid, tid) else {
                    continue;
                };
                if !self.shown(abi, nr) {
                    continue;
                }
                let mut text = self.text_buf();
                self.call_text(&mut text, tid, abi, nr, &args, None, None);
                let _ = writeln!(self.out, "{}{text} <detached ...>", self.prefix(tid));
                self.recycle(text);
            }
        }
    }

    /// Ends the line of every call under way with `how`.
    fn end_pending(&mut self, how: &str) {
        let tids: Vec<i32> = self.exec_wait.keys().copied().collect();
        for tid in tids {
            self.flush_exec(tid);
        }
        for (tid, p) in self.pending.drain_sorted() {
            if self.shown(p.abi, p.nr) {
                let _ = writeln!(self.out, "{}{} {how}", self.prefix(tid), p.text);
            }
        }
    }

    /// A DEATH record of thread `tid` of process `pid`; `true` once every
    /// traced process ended. A thread's end has its own line, as strace
    /// -f shows it; the process's end comes last, under its first
    /// thread's id, as strace's (to whom the kernel reports a group's
    /// first thread last), once [`Ends`] says it has ended, or after
    /// [`ENDING`] without any record ([`Tracer::end_overdue`]).
    fn death(&mut self, pid: i32, tid: i32, exit_code: i32, group_dead: bool) -> bool {
        if tid != pid {
            let _ = writeln!(self.out, "{}{}", self.prefix(tid), wait_status(exit_code));
        }
        if let Some(code) = self.ends.death(pid, tid, exit_code, group_dead) {
            self.process_end(pid, code);
        }
        self.live.is_empty()
    }

    /// The end line of process `pid`, which ended with `code`.
    fn process_end(&mut self, pid: i32, code: i32) {
        let _ = writeln!(self.out, "{}{}", self.prefix(pid), wait_status(code));
        self.live.remove(&pid);
    }

    /// [`ENDING`] passed without a record while processes wait in
    /// [`Ends`]: the DEATH records they wait for are not coming. Ends them.
    fn end_overdue(&mut self) {
        for (pid, code) in self.ends.overdue() {
            self.process_end(pid, code);
        }
    }

    /// A thread that died inside a syscall: `= ?`.
    fn unfinished(&mut self, tid: i32) {
        if let Some(p) = self.pending.remove(tid) {
            if self.shown(p.abi, p.nr) {
                self.line(tid, &p.text, |l| l.push_str(" = ?"));
            }
        }
    }
}

fn wait_status(code: i32) -> String {
    match format::ended(code) {
        format::Ended::Exited(n) => format!("+++ exited with {n} +++"),
        format::Ended::Killed { sig, core } => {
            let core = if core { " (core dumped)" } else { "" };
            format!("+++ killed by {sig}{core} +++")
        }
    }
}

/// Prints one record; `true` once every traced process ended.
fn handle(t: &mut Tracer, session: &Session, ev: Event, lossless: bool) -> bool {
    let h = ev.header;
    if !matches!(ev.payload, Payload::Exec { .. }) {
        t.flush_exec(h.tid);
    }
    if !matches!(ev.payload, Payload::Death { .. }) {
        t.ends.record(h.pid, h.tid, &ev.payload);
    }
    match ev.payload {
        Payload::SyscallEntry {
            nr,
            abi,
            args,
            captures,
        } => {
            let v = t.entry(h.tid, nr, abi, args, &captures, h.decide());
            if h.decide() {
                let v = v.unwrap_or(Verdict::Run(None));
                if let Err(e) = session.decide(utrace::EngineId(h.engine_id), h.seq, v) {
                    say!("utrace: decide: {e}");
                }
            }
        }
        Payload::SyscallExit {
            nr,
            abi,
            args,
            ret,
            captures,
        } => t.exit(
            h.tid,
            &ExitRec {
                abi,
                nr,
                args: &args,
                ret,
                captures: &captures,
            },
        ),
        Payload::Exec { old_tid, filename } => t.exec(h.tid, old_tid, filename),
        Payload::Clone {
            clone_flags: flags,
            child_pid,
            ..
        } if t.follow && flags & CLONE_THREAD == 0 && child_pid > 0 => {
            t.live.insert(child_pid);
        }
        Payload::Signal {
            signo,
            siginfo: info,
            ..
        } if t.started => {
            let line = siginfo::line(signo, &info);
            let _ = writeln!(t.out, "{}{line}", t.prefix(h.tid));
        }
        Payload::Death {
            exit_code,
            group_dead,
        } => {
            t.unfinished(h.tid);
            return t.death(h.pid, h.tid, exit_code, group_dead);
        }
        Payload::Lost { count, .. } => {
            let why = if lossless {
                ""
            } else {
                " (this kernel's /dev/utrace has no lossless mode)"
            };
            say!("utrace: {count} records lost{why}");
        }
        Payload::Detached { reason, .. }
            if h.tid == h.pid
                && t.live.contains(&h.pid)
                && !matches!(reason, utrace::DetachReason::Reaped) =>
        {
            say!("utrace: process {} detached ({reason:?})", h.pid);
            t.live.remove(&h.pid);
        }
        _ => {}
    }
    false
}

pub fn run(a: TraceArgs) -> Result<ExitCode, String> {
    let filter = a.expr.as_deref().map(parse_filter).transpose()?;
    let inject = a
        .inject
        .iter()
        .map(|s| parse_inject(s))
        .collect::<Result<Vec<_>, _>>()?;
    if a.target.pid.is_none() && a.target.command.is_empty() && a.take.is_none() {
        return Err("trace: -p PID, -- COMMAND [ARGS] or --take PATH is required".into());
    }
    crate::pump::block_signals()?;
    let session = crate::open_session()?;
    let info = session.info().map_err(|e| e.to_string())?;
    let can_decide = info.attach_flags & u64::from(uapi::ATTACH_F_DECIDE_SYSCALL) != 0;
    if !inject.is_empty() && !can_decide {
        return Err(
            "--inject: this kernel's /dev/utrace does not offer syscall decisions \
(UTRACE_ATTACH_F_DECIDE_SYSCALL)"
                .into(),
        );
    }
    // A bigger buffer if the limits allow (lossless: the tasks wait for room).
    let _ = session.config(info.buffer_max.clamp(4096, 1 << 20));
    let events = (uapi::EV_SYSCALL
        | uapi::EV_CLONE
        | uapi::EV_EXEC
        | uapi::EV_EXIT
        | uapi::EV_DEATH
        | uapi::EV_SIGNAL_ALL)
        & if info.events != 0 {
            info.events
        } else {
            u64::MAX
        };
    let mut opts = Attach::new(events);
    opts.follow = a.follow;
    // Lossless where the kernel has it, as strace users expect; else lost
    // records are counted on stderr.
    let lossless = info.attach_flags & u64::from(uapi::ATTACH_F_LOSSLESS) != 0;
    opts.lossless = lossless;
    // The memory the lines show comes with the records where the kernel
    // captures it (a thread waits only when its capture is not whole);
    // else it is read while the thread waits at each syscall's entry, if
    // the kernel can hold it there; else when the record is read.
    // From version 4 (the syscall filter) the calls whose lines need only
    // their exit records are recorded there alone, their memory captured
    // there (`captured::whole_at_exit`).
    let fold = info.version >= 4;
    let capture = !a.no_memory && info.version >= 2 && {
        match session.capture(&captured::items(fold), can_decide) {
            Ok(()) => true,
            Err(e) => {
                say!("utrace: {e}: memory read at each syscall's entry instead");
                false
            }
        }
    };
    opts.decide_syscall = can_decide && ((!a.no_memory && !capture) || !inject.is_empty());
    // The kernel records only what the lines need (before version 4,
    // everything: then every line waits for its entry record).
    let wanted = syscall_filter(filter.as_ref(), &inject, fold && (capture || a.no_memory));
    let syscalls = session
        .filter_syscalls(Some(&wanted))
        .map_err(|e| e.to_string())?
        .then_some(wanted);

    let out: Box<dyn Write> = match &a.output {
        Some(path) => Box::new(BufWriter::new(
            File::create(path).map_err(|e| format!("{path}: {e}"))?,
        )),
        None => Box::new(BufWriter::new(io::stdout())),
    };
    let mut follow = a.follow;
    let mut live = TidSet::default();
    let (child, pid, engine) = match (a.target.pid, &a.take) {
        (_, Some(path)) => {
            let taken = handoff::take(path, &session)?;
            say!(
                "utrace: process {} taken over (engine {})",
                taken.pid,
                taken.engine.0
            );
            follow = taken.follow;
            live.extend(taken.live.iter().copied());
            (None, taken.pid, taken.engine)
        }
        (Some(n), None) => {
            let pid = target::process(n)?;
            let engine = session
                .attach(Target::Pid(pid), &opts)
                .map_err(|e| format!("attach to {pid}: {e}"))?;
            say!("utrace: {}", target::attached(n, pid));
            (None, pid, engine)
        }
        (None, None) => {
            let started = target::start(&a.target.command)?;
            let pid = started.pid();
            let engine = match session.attach(Target::Pid(pid), &opts) {
                Ok(e) => e,
                Err(e) => {
                    let mut c = started.child;
                    let _ = c.kill();
                    let _ = c.wait();
                    return Err(format!("attach to {pid}: {e}"));
                }
            };
            (Some(started.go()?), pid, engine)
        }
    };
    if a.take.is_none() {
        live.insert(pid);
    }
    let giver = a.handoff_socket.as_deref().map(Giver::bind).transpose()?;
    let mut t = Tracer {
        out: Output { w: out, err: None },
        follow,
        memory: !a.no_memory,
        capture,
        filter,
        inject,
        pending: Calls::default(),
        exec_wait: TidMap::default(),
        exec_returned: TidSet::default(),
        interrupted: TidMap::default(),
        ends: Ends::default(),
        live,
        started: child.is_none(),
        line: String::with_capacity(256),
        spare: Vec::new(),
        first_pid: pid,
        taken: a.take.is_some(),
        syscalls,
    };
    let mut pump = Pump::new(session)?;
    if opts.decide_syscall {
        pump.no_batching();
    }
    let mut interrupted = false;
    let mut handed = false;
    'outer: while !t.live.is_empty() {
        let fd = giver.as_ref().map(Giver::fd);
        let next = if !t.ends.waiting() {
            pump.next_with(fd)?
        } else {
            match pump.next_with_by(fd, Instant::now() + ENDING)? {
                Some(n) => n,
                None => {
                    t.end_overdue();
                    continue;
                }
            }
        };
        let evs = match next {
            Next::Events(e) => e,
            Next::Signal => {
                // What was recorded up to the signal still has its lines
                // (the process may have ended meanwhile); the calls under
                // way then end as strace's do at a detach.
                interrupted = !pump
                    .drain()?
                    .into_iter()
                    .any(|ev| handle(&mut t, &pump.session, ev, lossless));
                if interrupted {
                    t.detached();
                }
                break;
            }
            Next::Extra => {
                let Some(g) = &giver else { continue };
                let live: Vec<i32> = t.live.iter().copied().collect();
                if !g.serve(&pump.session, engine, pid, follow, &live)? {
                    continue;
                }
                // Every record of the moved threads is queued in this
                // session now: print them, then the calls under way.
                handed = true;
                for ev in pump.rest()? {
                    handle(&mut t, &pump.session, ev, lossless);
                }
                t.unfinished_at_switch();
                break;
            }
        };
        for ev in evs {
            if handle(&mut t, &pump.session, ev, lossless) {
                break 'outer;
            }
        }
        let _ = t.out.flush();
        if t.out.err.is_some() {
            break;
        }
    }
    let _ = t.out.flush();
    drop(pump);
    if let Some(e) = t.out.err.take() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            say!("utrace: writing the trace: {e}");
        }
    }
    if handed {
        say!("utrace: process {pid} handed over");
    } else if interrupted && child.is_none() {
        say!("utrace: process {pid} detached");
    }
    target::exit_status(child)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// What a test tracer wrote.
    #[derive(Clone, Default)]
    struct Written(Rc<RefCell<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Written {
        fn lines(&self) -> Vec<String> {
            String::from_utf8_lossy(&self.0.borrow())
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    /// A tracer of process `pid` writing into `w`.
    fn tracer(pid: i32, w: &Written) -> Tracer {
        Tracer {
            out: Output {
                w: Box::new(w.clone()),
                err: None,
            },
            follow: false,
            memory: false,
            capture: false,
            filter: None,
            inject: Vec::new(),
            pending: Calls::default(),
            exec_wait: TidMap::default(),
            exec_returned: TidSet::default(),
            interrupted: TidMap::default(),
            live: TidSet::from_iter([pid]),
            ends: Ends::default(),
            started: true,
            line: String::new(),
            spare: Vec::new(),
            first_pid: pid,
            taken: false,
            syscalls: None,
        }
    }

    /// The number of x86-64 syscall `name`.
    fn nr(name: &str) -> i32 {
        syscalls::number(Abi::X86_64, name).unwrap() as i32
    }

    /// Feeds `t` an x86-64 exit record of thread 100.
    fn exit_of(t: &mut Tracer, nr: i32, args: &[u64; 6], ret: i64) {
        let c = Captures::default();
        let e = ExitRec {
            abi: Abi::X86_64,
            nr,
            args,
            ret,
            captures: &c,
        };
        t.exit(100, &e);
    }

    /// The process's end line comes last, after every thread's, whichever
    /// thread's DEATH said the group is dead and in whatever order the
    /// records came.
    #[test]
    fn process_end_last() {
        let exited = "+++ exited with 0 +++";
        // The first thread went last, but thread 103's DEATH comes after.
        let w = Written::default();
        let mut t = tracer(100, &w);
        t.ends.record(100, 101, &Payload::Exit { code: 0 });
        t.ends.record(100, 103, &Payload::Exit { code: 0 });
        assert!(!t.death(100, 101, 0, false));
        assert!(!t.death(100, 100, 0, true));
        assert!(t.death(100, 103, 0, false));
        let want = [
            format!("[pid   101] {exited}"),
            format!("[pid   103] {exited}"),
            exited.to_string(),
        ];
        assert_eq!(w.lines(), want);
        // Thread 101 went last: its line, then the process's.
        let w = Written::default();
        let mut t = tracer(100, &w);
        t.ends.record(100, 101, &Payload::Exit { code: 0 });
        assert!(!t.death(100, 100, 0, false));
        assert!(t.death(100, 101, 0, true));
        assert_eq!(
            w.lines(),
            [format!("[pid   101] {exited}"), exited.to_string()]
        );
        // A thread whose DEATH never comes: the end after ENDING.
        let w = Written::default();
        let mut t = tracer(100, &w);
        t.ends.record(100, 105, &Payload::Exit { code: 0 });
        assert!(!t.death(100, 100, 0, true));
        assert!(w.lines().is_empty());
        t.end_overdue();
        assert!(t.live.is_empty());
        assert_eq!(w.lines(), [exited]);
    }

    #[test]
    fn inject_specs() {
        let i = parse_inject("openat:error=ENOENT:when=3").unwrap();
        assert_eq!((i.name.as_str(), i.errno, i.when), ("openat", 2, 3));
        assert_eq!(parse_inject("read:error=5").unwrap().errno, 5);
        assert!(parse_inject("nosuchcall:error=EPERM").is_err());
        assert!(parse_inject("openat").is_err());
        assert!(parse_inject("openat:error=EWHAT").is_err());
        assert!(parse_inject("openat:error=EPERM:when=0").is_err());
        assert!(parse_inject("openat:error=EPERM:bogus").is_err());
    }

    /// The calls under way keep a hash map's meaning: one per thread, a
    /// new one of a thread replaces its old, whichever thread came last.
    #[test]
    fn calls_under_way() {
        let call = |nr| Pending {
            nr,
            abi: Abi::X86_64,
            args: [0; 6],
            text: String::new(),
            exec: None,
            injected: false,
        };
        let mut c = Calls::default();
        c.insert(1, call(10));
        c.insert(2, call(20));
        c.insert(3, call(30));
        assert_eq!(c.remove(1).map(|p| p.nr), Some(10));
        assert!(c.remove(1).is_none());
        // 2 again while 3 is the latest: the old 2 is gone.
        c.insert(2, call(21));
        c.insert(2, call(22));
        assert_eq!(c.remove(3).map(|p| p.nr), Some(30));
        c.insert(4, call(40));
        let all: Vec<(i32, i32)> = c.drain_sorted().iter().map(|(t, p)| (*t, p.nr)).collect();
        assert_eq!(all, [(2, 22), (4, 40)]);
        assert!(c.remove(2).is_none() && c.remove(4).is_none());
    }

    #[test]
    fn filters() {
        let f = parse_filter("trace=openat,read").unwrap();
        assert!(f.contains("openat") && f.contains("read") && f.names.len() == 2 && !f.except);
        assert!(parse_filter("openat,nosuch").is_err());
        assert!(parse_filter("trace=").is_err());
        let f = parse_filter("trace=!getppid,read").unwrap();
        assert!(!f.contains("getppid") && !f.contains("read") && f.contains("openat"));
        let f = parse_filter("%file,read").unwrap();
        assert!(f.contains("openat") && f.contains("execve") && f.contains("read"));
        assert!(!f.contains("getppid") && !f.contains("write"));
        let none = parse_filter("trace=none").unwrap();
        let all = parse_filter("all").unwrap();
        assert!(
            !none.contains("read")
                && all.contains("read")
                && !parse_filter("!all").unwrap().contains("read")
        );
        assert!(parse_filter("%network").is_err());
    }

    /// Every exit-only syscall is one the formatter decodes from its
    /// arguments and exit alone, and the filter keeps the entries of the
    /// rest, of execve and of injected calls.
    #[test]
    fn exit_only_filter() {
        let t = syscalls::table(Abi::X86_64).unwrap();
        for name in EXIT_ONLY {
            let s = t
                .by_name(name.as_bytes())
                .unwrap_or_else(|| panic!("{name}"));
            assert!(
                !s.args.iter().any(|a| matches!(
                    a,
                    Arg::Path | Arg::OutBuf | Arg::Timespec | Arg::Timespec32
                )),
                "{name} reads memory at entry"
            );
            assert!(!t.no_return(i64::from(s.nr)) && !t.is_exec(i64::from(s.nr)));
        }
        let inject = vec![parse_inject("getpid:error=EPERM").unwrap()];
        let f = syscall_filter(None, &inject, true);
        let unfolded = syscall_filter(None, &inject, false);
        let nr = |abi, n| syscalls::number(abi, n).unwrap();
        for abi in [Abi::X86_64, Abi::I386] {
            assert!(!f.records_entry(abi, nr(abi, "getppid")));
            assert!(f.records_exit(abi, nr(abi, "getppid")));
            assert!(f.records_entry(abi, nr(abi, "getpid")), "injected");
            // Memory written by the call, or two memory arguments: the
            // entry is recorded.
            assert!(f.records_entry(abi, nr(abi, "read")));
            assert!(f.records_entry(abi, nr(abi, "rename")));
            assert!(f.records_entry(abi, nr(abi, "execve")));
            // One argument the call only reads: its exit alone, with the
            // memory captured there; not if the memory is not captured.
            for n in ["write", "open", "unlink", "access"] {
                assert!(!f.records_entry(abi, nr(abi, n)), "{n}");
                assert!(f.records_exit(abi, nr(abi, n)), "{n}");
                assert!(unfolded.records_entry(abi, nr(abi, n)), "{n}");
            }
        }
        let folded = captured::items(true);
        let write = nr(Abi::X86_64, "write");
        assert!(folded.iter().any(|i| i64::from(i.nr) == write
            && u32::from(i.abi) == uapi::ABI_X86_64
            && u32::from(i.flags) & uapi::CAPTURE_AT_EXIT != 0));
        let shown = parse_filter("openat").unwrap();
        let f = syscall_filter(Some(&shown), &[], true);
        let x = |n| nr(Abi::X86_64, n);
        assert!(
            !f.records_entry(Abi::X86_64, x("openat")) && f.records_exit(Abi::X86_64, x("openat"))
        );
        assert!(
            !f.records_entry(Abi::X86_64, x("read")) && !f.records_exit(Abi::X86_64, x("read"))
        );
        assert!(f.records_entry(Abi::X86_64, x("execve")));
    }

    #[test]
    fn exit_lines() {
        assert_eq!(wait_status(0), "+++ exited with 0 +++");
        assert_eq!(wait_status(3 << 8), "+++ exited with 3 +++");
        assert_eq!(
            wait_status(11 | 0x80),
            "+++ killed by SIGSEGV (core dumped) +++"
        );
        assert_eq!(wait_status(9), "+++ killed by SIGKILL +++");
    }

    #[test]
    fn call_lines() {
        let mut w = String::new();
        let m = OneString(0x1000, b"/etc/hostname".to_vec());
        let sys = syscalls::table(Abi::X86_64).and_then(|t| t.by_number(257));
        format::call(
            &mut w,
            &m,
            Abi::X86_64,
            257,
            sys,
            &[(-100i64) as u64, 0x1000, 0o2000000, 0, 0, 0],
            None,
        )
        .unwrap();
        format::result(&mut w, Abi::X86_64, sys, -2).unwrap();
        assert_eq!(
            w,
            "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)"
        );
        // Memory that cannot be read: the address, never a guess.
        let mut w = String::new();
        format::call(
            &mut w,
            &NoMem,
            Abi::X86_64,
            257,
            sys,
            &[3, 0x2000, 0, 0, 0, 0],
            None,
        )
        .unwrap();
        assert_eq!(w, "openat(3, 0x2000, O_RDONLY)");
        // A syscall not in the decode table: its name and raw arguments.
        let mut w = String::new();
        format::call(
            &mut w,
            &NoMem,
            Abi::X86_64,
            425,
            None,
            &[1, 2, 3, 4, 5, 6],
            None,
        )
        .unwrap();
        assert_eq!(w, "io_uring_setup(0x1, 0x2, 0x3, 0x4, 0x5, 0x6)");
        let mut w = String::new();
        format::call(&mut w, &NoMem, Abi::X86_64, 99999, None, &[0; 6], None).unwrap();
        assert_eq!(w, "syscall_0x1869f(0x0, 0x0, 0x0, 0x0, 0x0, 0x0)");
        // i386: its own table (5 is open there, fstat on x86-64).
        let sys = syscalls::table(Abi::I386).and_then(|t| t.by_number(5));
        let mut w = String::new();
        format::call(
            &mut w,
            &NoMem,
            Abi::I386,
            5,
            sys,
            &[0x3000, 0o101, 0o644, 0, 0, 0],
            None,
        )
        .unwrap();
        format::result(&mut w, Abi::I386, sys, 3).unwrap();
        assert_eq!(w, "open(0x3000, O_WRONLY|O_CREAT, 0644) = 3");
    }

    /// An exit record whose entry the tracer did not see: a call under
    /// way at the attach has its line from it; a new child's return from
    /// clone and rt_sigreturn's exit have none (strace shows none; the
    /// latter's line was written at its entry).
    #[test]
    fn exit_without_entry() {
        let w = Written::default();
        let mut t = tracer(100, &w);
        let args = [0, 0, 0x1000, 0x2000, 0, 0];
        exit_of(&mut t, nr("clock_nanosleep"), &args, -516);
        exit_of(&mut t, nr("clone"), &args, 0);
        exit_of(&mut t, nr("rt_sigreturn"), &args, 0);
        exit_of(&mut t, nr("clone"), &args, 101);
        let lines = w.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("clock_nanosleep(CLOCK_REALTIME, 0, 0x1000, 0x2000)")
                && lines[0].ends_with(" = ? ERESTART_RESTARTBLOCK (Interrupted by signal)"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("clone(") && lines[1].ends_with(" = 101"),
            "{lines:?}"
        );
    }

    /// An x32 child's return from its parent's clone (x86-64's number with
    /// the x32 bit) has no line either, as for x86-64.
    #[test]
    fn x32_fork_return() {
        let w = Written::default();
        let mut t = tracer(100, &w);
        let c = Captures::default();
        let e = ExitRec {
            abi: Abi::X32,
            nr: (syscalls::X32_BIT + i64::from(nr("clone"))) as i32,
            args: &[0; 6],
            ret: 0,
            captures: &c,
        };
        t.exit(100, &e);
        assert_eq!(w.lines(), Vec::<String>::new());
    }

    /// A thread other than the first execs: its exit record comes under
    /// the process's id with the new program's registers, its entry was
    /// under its own id, and the EXEC record names both. One line, with
    /// the entry's arguments.
    #[test]
    fn exec_of_another_thread() {
        let w = Written::default();
        let mut t = tracer(100, &w);
        let c = Captures::default();
        let args = [0x1000, 0x2000, 0x3000, 0, 0, 0];
        t.entry(101, nr("execve"), Abi::X86_64, args, &c, false);
        exit_of(&mut t, nr("execve"), &[0; 6], 0);
        t.exec(100, 101, "/bin/true".to_string());
        let lines = w.lines();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("execve(\"/bin/true\", 0x2000, 0x3000)")
                && lines[0].ends_with(" = 0"),
            "{lines:?}"
        );
    }

    /// `restart_syscall` as strace shows it: the call it resumes, named.
    #[test]
    fn restart_names_the_interrupted_call() {
        let w = Written::default();
        let mut t = tracer(100, &w);
        let c = Captures::default();
        let args = [0; 6];
        t.entry(100, nr("clock_nanosleep"), Abi::X86_64, args, &c, false);
        exit_of(&mut t, nr("clock_nanosleep"), &args, -ERESTART_RESTARTBLOCK);
        t.entry(100, nr("restart_syscall"), Abi::X86_64, args, &c, false);
        exit_of(&mut t, nr("restart_syscall"), &args, 0);
        // Its resumed call's end is known no more.
        t.entry(100, nr("restart_syscall"), Abi::X86_64, args, &c, false);
        exit_of(&mut t, nr("restart_syscall"), &args, 0);
        let lines = w.lines();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[1].starts_with("restart_syscall(<... resuming interrupted clock_nanosleep ...>)")
        );
        assert!(lines[1].ends_with(" = 0"), "{lines:?}");
        assert!(lines[2].starts_with("restart_syscall(<... resuming interrupted system call ...>)"));
    }
}
