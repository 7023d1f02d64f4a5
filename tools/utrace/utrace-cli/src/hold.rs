// SPDX-License-Identifier: GPL-2.0

//! `utrace hold`: a crash in a user's own process tree freezes the
//! crashing process for a debugger instead of killing it (crash_suspend's
//! hold, without root). Each core-dumping signal at its default action is
//! a SIGNAL decision answered with SUSPEND: the process stops in a group
//! stop (state T, `gdb -p` attaches) with the signal kept. SIGCONT lets it
//! dump core as it would have: sent by `utrace hold` after `--timeout` or
//! when it ends, by the kernel module when the session closes (also when
//! `utrace hold` is killed), or by the user (`kill -CONT`, a shell's `fg`).

use crate::format::{self, signal};
use crate::pump::{Next, Pump};
use crate::{siginfo, target, TargetArgs};
use clap::Args;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use utrace::{uapi, Attach, EngineId, Event, Payload, SigClass, Verdict, CLONE_THREAD};

#[derive(Args, Debug)]
pub struct HoldArgs {
    /// Let a held process dump core after SECS seconds (0: hold it until
    /// utrace hold ends).
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    timeout: u64,
    #[command(flatten)]
    target: TargetArgs,
}

/// A held process.
struct Held {
    comm: String,
    since: Instant,
}

/// `at ADDR` for a fault the kernel raised (`si_code` > 0 of SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGTRAP: `si_addr` is the faulting address);
/// else who sent it.
fn origin(signo: i32, info: &[u8]) -> String {
    let code = siginfo::i32_at(info, 8);
    let fault = matches!(signo, 4 | 5 | 7 | 8 | 11) && code > 0;
    if fault {
        return format!(" at {:#x}", siginfo::u64_at(info, 16));
    }
    if code <= 0 {
        // kill(), tgkill(), sigqueue(): si_pid at 16.
        return format!(" from pid {}", siginfo::i32_at(info, 16));
    }
    String::new()
}

fn signame(signo: i32) -> String {
    let mut s = String::new();
    let _ = signal(&mut s, i64::from(signo));
    s
}

/// Lets `pid` go on: SIGCONT delivers its held signal. ESRCH (it is gone)
/// is no error.
fn release(pid: i32) {
    let _ = kill(Pid::from_raw(pid), Signal::SIGCONT);
}

pub fn run(a: HoldArgs) -> Result<ExitCode, String> {
    if a.target.pid.is_none() && a.target.command.is_empty() {
        return Err("hold: -p PID or -- COMMAND [ARGS] is required".into());
    }
    crate::pump::block_signals()?;
    let session = crate::open_session()?;
    let info = session.info().map_err(|e| e.to_string())?;
    if info.attach_flags & u64::from(uapi::ATTACH_F_DECIDE_SIGNAL) == 0 {
        return Err("hold: this kernel's /dev/utrace has no signal decisions \
(UTRACE_ATTACH_F_DECIDE_SIGNAL)"
            .into());
    }
    // Lossless: a decision or a death is never dropped for room.
    let mut opts = Attach::new(uapi::EV_SIGNAL_CORE | uapi::EV_CLONE | uapi::EV_DEATH);
    opts.follow = true;
    opts.lossless = true;
    opts.decide_signal = true;
    let att = target::attach(&session, false, &a.target, &opts)?;
    say!(
        "utrace: holding crashes of process {} and its descendants",
        att.pid
    );
    let mut child = att.child;
    let mut pump = Pump::new(session)?;
    pump.no_batching();
    let timeout = (a.timeout > 0).then(|| Duration::from_secs(a.timeout));
    let mut live = HashSet::from([att.pid]);
    let mut held: HashMap<i32, Held> = HashMap::new();
    // Released by their timeout (pid, comm): a crash reported again is
    // delivered.
    let mut released: HashMap<i32, String> = HashMap::new();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    'outer: loop {
        let deadline = timeout.and_then(|t| held.values().map(|h| h.since + t).min());
        let next = match deadline {
            Some(d) => pump.next_by(d)?,
            None => Some(pump.next_with(None)?),
        };
        let evs = match next {
            Some(Next::Events(evs)) => evs,
            Some(Next::Signal) => break,
            Some(Next::Extra) => continue,
            None => {
                let now = Instant::now();
                let due: Vec<i32> = held
                    .iter()
                    .filter(|(_, h)| timeout.is_some_and(|t| h.since + t <= now))
                    .map(|(p, _)| *p)
                    .collect();
                for pid in due {
                    if let Some(h) = held.remove(&pid) {
                        let _ = writeln!(
                            out,
                            "pid {pid} ({}) released after {} s: it dumps core",
                            h.comm, a.timeout
                        );
                        release(pid);
                        released.insert(pid, h.comm);
                    }
                }
                let _ = out.flush();
                continue;
            }
        };
        for ev in evs {
            if on_event(&pump, &mut out, &ev, &mut held, &released)? {
                // A process of the tree.
                if let Payload::Clone { child_pid, .. } = ev.payload {
                    live.insert(child_pid);
                }
            }
            if let Payload::Death {
                exit_code,
                group_dead: true,
            } = ev.payload
            {
                let pid = ev.header.pid;
                let comm = held.remove(&pid).map(|h| h.comm);
                if let Some(comm) = comm.or_else(|| released.remove(&pid)) {
                    let how = match format::ended(exit_code) {
                        format::Ended::Exited(n) => format!("exited with {n}"),
                        format::Ended::Killed { sig, core } => {
                            format!(
                                "killed by {sig}{}",
                                if core { " (core dumped)" } else { "" }
                            )
                        }
                    };
                    let _ = writeln!(out, "pid {pid} ({comm}) {how}");
                }
                live.remove(&pid);
                if live.is_empty() {
                    break 'outer;
                }
            }
        }
        let _ = out.flush();
    }
    let _ = out.flush();
    // The session's end continues what it suspended; a process whose
    // suspension a debugger took over is continued here.
    drop(pump);
    for pid in held.keys() {
        say!("utrace: pid {pid} released: it dumps core");
        release(*pid);
    }
    target::exit_status(child.take())
}

/// Handles one record; returns whether it is the CLONE of a new process.
fn on_event(
    pump: &Pump,
    out: &mut impl Write,
    ev: &Event,
    held: &mut HashMap<i32, Held>,
    released: &HashMap<i32, String>,
) -> Result<bool, String> {
    let h = &ev.header;
    match &ev.payload {
        Payload::Clone { clone_flags, .. } => Ok(clone_flags & CLONE_THREAD == 0),
        Payload::Signal {
            signo,
            disposition,
            siginfo,
        } if h.decide() => {
            let engine = EngineId(h.engine_id);
            let hold = *disposition == SigClass::Core && !released.contains_key(&h.pid);
            if !hold {
                decide(pump, engine, h.seq, Verdict::Deliver)?;
                return Ok(false);
            }
            match pump.session.decide(engine, h.seq, Verdict::Suspend) {
                Ok(()) => {}
                Err(e) if e.errno() == Some(nix::errno::Errno::EINVAL) => {
                    decide(pump, engine, h.seq, Verdict::Deliver)?;
                    return Err("hold: this kernel's /dev/utrace has no SUSPEND verdict: \
the crash goes on"
                        .into());
                }
                // The thread was killed meanwhile.
                Err(e) if e.errno() == Some(nix::errno::Errno::ESTALE) => return Ok(false),
                Err(e) => return Err(format!("decide: {e}")),
            }
            if let Entry::Vacant(v) = held.entry(h.pid) {
                let comm = target::comm(h.pid);
                let _ = writeln!(
                    out,
                    "pid {} ({comm}) held on {}{}: gdb -p {}",
                    h.pid,
                    signame(*signo),
                    origin(*signo, siginfo),
                    h.pid
                );
                v.insert(Held {
                    comm,
                    since: Instant::now(),
                });
            }
            Ok(false)
        }
        _ => Ok(false),
    }
}

/// Answers a decision; ESTALE (the thread was killed) is no error.
fn decide(pump: &Pump, engine: EngineId, seq: u64, v: Verdict) -> Result<(), String> {
    match pump.session.decide(engine, seq, v) {
        Err(e) if e.errno() != Some(nix::errno::Errno::ESTALE) => Err(format!("decide: {e}")),
        _ => Ok(()),
    }
}
