// SPDX-License-Identifier: GPL-2.0

//! `utrace top`: a live table of the processes that make the most
//! syscalls, with their signals, clones and execs, from one session's
//! records (lossy: the traced tasks never wait for the table).

use crate::pump::{Next, Pump};
use crate::{target, TargetArgs};
use clap::Args;
use std::collections::{HashMap, HashSet};
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use utrace::{syscalls, uapi, Attach, Payload, CLONE_THREAD};

#[derive(Args, Debug)]
pub struct TopArgs {
    /// Every process the user may trace (root: every one), and the
    /// processes they start.
    #[arg(long, conflicts_with_all = ["pid", "command"])]
    all: bool,
    /// Seconds between two tables.
    #[arg(
        short = 'd',
        long = "delay",
        value_name = "SECS",
        default_value_t = 1.0
    )]
    delay: f64,
    /// Print this many tables, then end (default: until Ctrl-C, or until
    /// the traced processes are gone).
    #[arg(
        short = 'n',
        long = "iterations",
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    iterations: Option<u64>,
    /// Rows per table.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 20,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
    )]
    rows: usize,
    /// Plain tables one after the other (the default when the output is
    /// not a terminal), instead of redrawing the screen.
    #[arg(short = 'b', long)]
    batch: bool,
    #[command(flatten)]
    target: TargetArgs,
}

/// What one process did in the current interval.
#[derive(Default)]
struct Row {
    syscalls: u64,
    signals: u64,
    clones: u64,
    execs: u64,
    /// Syscall number → count, for the most frequent one.
    by_nr: HashMap<(utrace::Abi, i32), u64>,
}

/// How often the traced processes' liveness is checked.
const LIVENESS: Duration = Duration::from_secs(1);

/// What the table needs besides the rows.
struct Shown<'a> {
    args: &'a TopArgs,
    names: &'a HashMap<i32, String>,
    secs: f64,
    lost: u64,
}

/// "1 process", "2 processes".
fn processes(n: usize) -> String {
    format!("{n} process{}", if n == 1 { "" } else { "es" })
}

fn table(out: &mut impl Write, rows: &HashMap<i32, Row>, s: &Shown<'_>) -> io::Result<()> {
    let (a, secs, lost) = (s.args, s.secs, s.lost);
    let mut v: Vec<(&i32, &Row)> = rows.iter().collect();
    v.sort_by(|x, y| y.1.syscalls.cmp(&x.1.syscalls).then(x.0.cmp(y.0)));
    let total: u64 = rows.values().map(|r| r.syscalls).sum();
    writeln!(
        out,
        "utrace top: {}, {:.0} syscalls/s, {lost} records lost, every {:.1} s",
        processes(rows.len()),
        total as f64 / secs,
        a.delay
    )?;
    writeln!(
        out,
        "{:>7} {:<16} {:>10} {:>7} {:>6} {:>5}  MOST FREQUENT",
        "PID", "COMMAND", "SYSCALLS/s", "SIGNALS", "CLONES", "EXECS"
    )?;
    for (pid, r) in v.into_iter().take(a.rows) {
        let top = r
            .by_nr
            .iter()
            .max_by(|x, y| x.1.cmp(y.1).then(y.0 .1.cmp(&x.0 .1)))
            .map(|((abi, nr), n)| {
                let name = syscalls::name(*abi, i64::from(*nr))
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("syscall_{nr:#x}"));
                format!("{name} ({n})")
            })
            .unwrap_or_default();
        writeln!(
            out,
            "{pid:>7} {:<16} {:>10.0} {:>7} {:>6} {:>5}  {top}",
            s.names.get(pid).map_or("?", String::as_str),
            r.syscalls as f64 / secs,
            r.signals,
            r.clones,
            r.execs
        )?;
    }
    writeln!(out)?;
    out.flush()
}

pub fn run(a: TopArgs) -> Result<ExitCode, String> {
    if !a.all && a.target.pid.is_none() && a.target.command.is_empty() {
        return Err("top: -p PID, --all or -- COMMAND [ARGS] is required".into());
    }
    if !(a.delay.is_finite() && (0.05..=3600.0).contains(&a.delay)) {
        return Err(format!(
            "top: --delay {}: want 0.05 to 3600 seconds",
            a.delay
        ));
    }
    crate::pump::block_signals()?;
    let session = crate::open_session()?;
    let mut opts = Attach::new(
        uapi::EV_SYSCALL_ENTRY | uapi::EV_SIGNAL | uapi::EV_CLONE | uapi::EV_EXEC | uapi::EV_DEATH,
    );
    opts.follow = true;
    let mut live = HashSet::new();
    let child = if a.all {
        // Not a global engine: those report no syscalls.
        let every = target::attach_every(&session, &opts)?;
        let mut note = format!("utrace top: {} attached", processes(every.attached));
        if every.refused > 0 {
            note += &format!(", {} left out (not this user's to trace)", every.refused);
        }
        if let Some(limit) = every.limit {
            note += &format!("; then {limit}: the rest left out");
        }
        say!("{note}");
        None
    } else {
        let att = target::attach(&session, false, &a.target, &opts)?;
        live.insert(att.pid);
        att.child
    };
    let redraw = !a.batch && io::stdout().is_terminal();
    let mut pump = Pump::new(session)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let period = Duration::from_secs_f64(a.delay);
    let mut rows: HashMap<i32, Row> = HashMap::new();
    // A process's name, read when it is first seen and at each exec: it
    // may be gone when the table is drawn.
    let mut names: HashMap<i32, String> = HashMap::new();
    let (mut lost, mut tables, mut start) = (0u64, 0u64, Instant::now());
    let mut gone = false;
    loop {
        // The traced processes' ends come as DEATH records, which a lossy
        // session may drop: their liveness is also checked every second.
        let table_at = start + period;
        let next = if gone {
            None
        } else {
            pump.next_by(table_at.min(Instant::now() + LIVENESS))?
        };
        if next.is_none() && !gone && Instant::now() < table_at {
            if !a.all {
                live.retain(|&p| target::alive(p));
                gone = live.is_empty();
            }
            if !gone {
                continue;
            }
        }
        match next {
            Some(Next::Signal | Next::Extra) => break,
            Some(Next::Events(evs)) => {
                for ev in evs {
                    let pid = ev.header.pid;
                    names.entry(pid).or_insert_with(|| target::comm(pid));
                    let r = rows.entry(pid).or_default();
                    match ev.payload {
                        Payload::SyscallEntry { nr, abi, .. } => {
                            r.syscalls += 1;
                            *r.by_nr.entry((abi, nr)).or_default() += 1;
                        }
                        Payload::Signal { .. } => r.signals += 1,
                        Payload::Clone {
                            clone_flags,
                            child_pid,
                            ..
                        } => {
                            r.clones += 1;
                            if clone_flags & CLONE_THREAD == 0 && child_pid > 0 && !a.all {
                                live.insert(child_pid);
                            }
                        }
                        Payload::Exec { ref filename, .. } => {
                            r.execs += 1;
                            let base = filename.rsplit('/').next().unwrap_or(filename);
                            names.insert(pid, base.chars().take(15).collect());
                        }
                        Payload::Lost { count, .. } => lost += count,
                        Payload::Death {
                            group_dead: true, ..
                        } if !a.all => {
                            live.remove(&ev.header.pid);
                            gone = live.is_empty();
                        }
                        _ => {}
                    }
                }
            }
            None => {
                rows.retain(|_, r| r.syscalls + r.signals + r.clones + r.execs > 0);
                let secs = start.elapsed().as_secs_f64().max(1e-3);
                let s = Shown {
                    args: &a,
                    names: &names,
                    secs,
                    lost,
                };
                let shown = if redraw {
                    write!(out, "\x1b[H\x1b[2J").and_then(|()| table(&mut out, &rows, &s))
                } else {
                    table(&mut out, &rows, &s)
                };
                if shown.is_err() {
                    break;
                }
                rows.clear();
                names.retain(|p, _| live.contains(p) || a.all);
                tables += 1;
                start = Instant::now();
                if gone || a.iterations.is_some_and(|n| tables >= n) {
                    break;
                }
            }
        }
    }
    drop(pump);
    if let Some(mut c) = child {
        let _ = c.wait();
    }
    Ok(ExitCode::SUCCESS)
}
