// SPDX-License-Identifier: GPL-2.0

//! `utrace events`: the process-tree events of a process, a command or
//! every task, as text or JSON lines.

use crate::ends::Ends;
use crate::handoff::{self, Giver};
use crate::pump::{Next, Pump};
use crate::{format, target, TargetArgs};
use clap::Args;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use utrace::{uapi, Attach, Event, Payload, CLONE_THREAD};

#[derive(Args, Debug)]
pub struct EventsArgs {
    /// One JSON object a line (for log shippers) instead of text.
    #[arg(long)]
    json: bool,
    /// Every task on the machine (needs CAP_SYS_ADMIN).
    #[arg(long, conflicts_with_all = ["pid", "command"])]
    all: bool,
    /// The traced tasks wait for room in the buffer instead of records
    /// being lost (counted in a `lost` event).
    #[arg(long)]
    lossless: bool,
    /// Listen on the unix socket PATH: when `utrace events --take PATH`
    /// connects, hand the tree over to it, print the records up to the
    /// switch and end.
    #[arg(long = "handoff-socket", value_name = "PATH", requires = "pid")]
    handoff_socket: Option<PathBuf>,
    /// Take over the tree of the `utrace events --handoff-socket PATH`
    /// listening at PATH and print from the switch on.
    #[arg(
        long = "take",
        value_name = "PATH",
        conflicts_with_all = ["pid", "command", "all", "handoff_socket"]
    )]
    take: Option<PathBuf>,
    #[command(flatten)]
    target: TargetArgs,
}

fn text(ev: &Event) -> String {
    let h = &ev.header;
    let what = match &ev.payload {
        Payload::Clone {
            clone_flags: flags,
            child_pid,
            child_tid,
            ..
        } => {
            let kind = if flags & CLONE_THREAD != 0 {
                "thread"
            } else {
                "process"
            };
            format!("clone {kind} child_pid={child_pid} child_tid={child_tid} flags={flags:#x}")
        }
        Payload::Exec {
            filename, old_tid, ..
        } if *old_tid != h.tid && *old_tid != 0 => {
            format!("exec {filename} old_tid={old_tid}")
        }
        Payload::Exec { filename, .. } => format!("exec {filename}"),
        Payload::Exit { code } => format!("exit {}", status(*code as i32)),
        Payload::Death {
            exit_code,
            group_dead,
        } => {
            format!(
                "death {}{}",
                status(*exit_code),
                if *group_dead { " group_dead" } else { "" }
            )
        }
        Payload::Lost { count, first_seq } => format!("lost {count} from seq {first_seq}"),
        Payload::Attached { .. } if h.handed_in() => "attached handoff".to_string(),
        Payload::Attached { parent_tid } => format!("attached parent_tid={parent_tid}"),
        Payload::Detached { reason } => format!("detached {reason:?}"),
        Payload::Handoff { to_engine_id } => format!("handoff to_engine={to_engine_id}"),
        p => format!("{p:?}"),
    };
    format!(
        "{}.{:06} {} {} {what}",
        h.time_ns / 1_000_000_000,
        h.time_ns / 1000 % 1_000_000,
        h.pid,
        h.tid
    )
}

fn status(code: i32) -> String {
    match format::ended(code) {
        format::Ended::Exited(n) => format!("exited={n}"),
        format::Ended::Killed { sig, core } => {
            format!("killed={sig}{}", if core { " core" } else { "" })
        }
    }
}

/// How often the tree's liveness is checked.
const LIVENESS: Duration = Duration::from_secs(1);

/// `ev` as the output line: JSON or text.
fn line(ev: &Event, json: bool) -> Result<String, String> {
    if json {
        serde_json::to_string(ev).map_err(|e| e.to_string())
    } else {
        Ok(text(ev))
    }
}

pub fn run(a: EventsArgs) -> Result<ExitCode, String> {
    if !a.all && a.target.pid.is_none() && a.target.command.is_empty() && a.take.is_none() {
        return Err("events: -p PID, --all, -- COMMAND [ARGS] or --take PATH is required".into());
    }
    crate::pump::block_signals()?;
    let session = crate::open_session()?;
    let info = session.info().map_err(|e| e.to_string())?;
    if a.lossless && info.attach_flags & u64::from(uapi::ATTACH_F_LOSSLESS) == 0 {
        return Err(
            "--lossless: this kernel's /dev/utrace has no lossless mode \
(UTRACE_ATTACH_F_LOSSLESS)"
                .into(),
        );
    }
    let mut opts = Attach::new(uapi::EV_CLONE | uapi::EV_EXEC | uapi::EV_EXIT | uapi::EV_DEATH);
    opts.follow = !a.all;
    opts.lossless = a.lossless;
    let mut child = None;
    let mut live = HashSet::new();
    let mut engine = utrace::EngineId(0);
    let mut first = 0;
    if let Some(path) = &a.take {
        let taken = handoff::take(path, &session)?;
        say!(
            "utrace: process {} taken over (engine {})",
            taken.pid,
            taken.engine.0
        );
        live.extend(taken.live.iter().copied());
    } else {
        let att = target::attach(&session, a.all, &a.target, &opts)?;
        if !a.all {
            live.insert(att.pid);
        }
        if a.target.pid.is_some() {
            engine = att.engine;
            first = att.pid;
        }
        child = att.child;
    }
    let giver = a.handoff_socket.as_deref().map(Giver::bind).transpose()?;
    let mut pump = Pump::new(session)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut handed = false;
    let mut ends = Ends::default();
    'outer: loop {
        // The tree's ends come as DEATH records, which a lossy session may
        // drop: without them, its liveness (checked every second) ends
        // the loop, after what the session still holds is printed.
        let fd = giver.as_ref().map(Giver::fd);
        let next = if a.all {
            Some(pump.next_with(fd)?)
        } else {
            pump.next_with_by(fd, Instant::now() + LIVENESS)?
        };
        let Some(next) = next else {
            live.retain(|&p| target::alive(p));
            if !live.is_empty() || handed {
                continue;
            }
            for ev in pump.rest()? {
                let _ = writeln!(out, "{}", line(&ev, a.json)?);
            }
            break;
        };
        let evs = match next {
            Next::Events(evs) => evs,
            Next::Signal => {
                // What was recorded up to the signal is still shown.
                for ev in pump.drain()? {
                    if writeln!(out, "{}", line(&ev, a.json)?).is_err() {
                        break;
                    }
                }
                break;
            }
            Next::Extra => {
                let Some(g) = &giver else { continue };
                let l: Vec<i32> = live.iter().copied().collect();
                if !g.serve(&pump.session, engine, first, true, &l)? {
                    continue;
                }
                // Every record of the moved tree is queued here now.
                handed = true;
                pump.rest()?
            }
        };
        for ev in evs {
            if writeln!(out, "{}", line(&ev, a.json)?).is_err() {
                break 'outer;
            }
            let (pid, tid) = (ev.header.pid, ev.header.tid);
            match ev.payload {
                Payload::Clone {
                    clone_flags: flags,
                    child_pid,
                    ..
                } if flags & CLONE_THREAD == 0 && child_pid > 0 && !a.all => {
                    live.insert(child_pid);
                }
                // The process ends once its threads' ends are in (`Ends`).
                Payload::Death {
                    exit_code,
                    group_dead,
                } if !a.all => {
                    if ends.death(pid, tid, exit_code, group_dead).is_some() {
                        live.remove(&pid);
                        if live.is_empty() && !handed {
                            break 'outer;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            if !a.all {
                ends.record(pid, tid, &ev.payload);
            }
        }
        if out.flush().is_err() || handed {
            break;
        }
    }
    let _ = out.flush();
    drop(pump);
    if handed {
        say!("utrace: process {first} handed over");
    }
    if let Some(mut c) = child {
        let _ = c.wait();
    }
    Ok(ExitCode::SUCCESS)
}
