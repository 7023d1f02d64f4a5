// SPDX-License-Identifier: GPL-2.0

//! Starting a command traced from its first instruction: `utrace` runs
//! itself as `utrace __exec -- COMMAND`, which stops itself (SIGSTOP)
//! before it execs COMMAND; the parent waits for that stop, attaches, and
//! continues it (SIGCONT). The trace shows COMMAND from its execve on. If
//! the parent dies first, the stopped child's process group is orphaned
//! and the kernel ends it with SIGHUP.

use clap::Args;
use nix::errno::Errno;
use nix::sys::signal::{kill, raise, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode};
use utrace::{Abi, Attach, EngineId, Session, Target};

#[derive(Args)]
pub struct ExecArgs {
    /// The program's path (argv[0] is the command's first word).
    path: PathBuf,
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

/// A started command, stopped before its execve until [`Started::go`].
pub struct Started {
    pub child: Child,
}

impl Started {
    /// The command's pid.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Lets the command exec.
    pub fn go(self) -> Result<Child, String> {
        kill(Pid::from_raw(self.pid()), Signal::SIGCONT)
            .map_err(|e| format!("cannot continue the command: {e}"))?;
        Ok(self.child)
    }
}

/// `name` as execvp() would find it: itself if it has a slash (and is
/// there), else the first executable file of that name in `$PATH`. A
/// command that is not there is refused before anything starts, so that
/// no trace shows the failing exec of utrace's own helper.
fn resolve(name: &str) -> Result<PathBuf, String> {
    if name.contains('/') {
        return match std::fs::metadata(name) {
            Ok(m) if executable(&m) => Ok(PathBuf::from(name)),
            Ok(_) => Err(format!(
                "{name}: Permission denied (not an executable file)"
            )),
            Err(e) => Err(format!("{name}: {e}")),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    for dir in std::env::split_paths(&path) {
        let p = dir.join(name);
        if p.metadata().is_ok_and(|m| executable(&m)) {
            return Ok(p);
        }
    }
    Err(format!("{name}: command not found"))
}

/// Whether execve() may run the file `m` describes (root too needs an x
/// bit).
fn executable(m: &std::fs::Metadata) -> bool {
    m.is_file() && m.permissions().mode() & 0o111 != 0
}

/// Starts `command`, stopped before its exec.
pub fn start(command: &[String]) -> Result<Started, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let path = resolve(&command[0])?;
    let child = Command::new(me)
        .arg("__exec")
        .arg(&path)
        .arg("--")
        .args(command)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command[0]))?;
    let pid = Pid::from_raw(child.id() as i32);
    loop {
        match waitpid(pid, Some(WaitPidFlag::WUNTRACED)) {
            Ok(WaitStatus::Stopped(_, _)) => return Ok(Started { child }),
            Ok(WaitStatus::Exited(_, code)) => {
                return Err(format!("the command's start failed ({code})"))
            }
            Ok(WaitStatus::Signaled(_, sig, _)) => {
                return Err(format!("the command's start was killed by {sig}"))
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(format!("waitpid: {e}")),
        }
    }
}

/// The child side: stops, then execs.
pub fn exec_child(a: ExecArgs) -> Result<ExitCode, String> {
    // The command gets them as it would without utrace.
    crate::pump::unblock_signals()?;
    raise(Signal::SIGSTOP).map_err(|e| format!("__exec: {e}"))?;
    let err = Command::new(&a.path)
        .arg0(&a.command[0])
        .args(&a.command[1..])
        .exec();
    say!("utrace: exec {}: {err}", a.path.display());
    Ok(ExitCode::from(127))
}

/// Whether process `pid` still runs (not gone, not a zombie): the check of
/// the tools that end with their processes, whose DEATH records a lossy
/// session may drop.
pub fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|st| st.alive())
}

/// What `/proc/PID/stat` says of a task that [`alive`] and
/// [`attach_every`] read.
struct Stat {
    /// The state letter (`R`, `S`, `Z`, ...).
    state: char,
    /// `PF_*` flags.
    flags: u64,
}

impl Stat {
    /// Not gone, not a zombie.
    fn alive(&self) -> bool {
        !matches!(self.state, 'Z' | 'X')
    }
}

/// `/proc/PID/stat`'s state and flags (fields 3 and 9, after the name,
/// which may hold spaces and parentheses); `None` once the task is gone.
fn stat(pid: i32) -> Option<Stat> {
    stat_at(&format!("/proc/{pid}/stat"))
}

/// [`stat`] of the `stat` file at `path`.
fn stat_at(path: &str) -> Option<Stat> {
    let s = std::fs::read_to_string(path).ok()?;
    let mut f = s.rsplit_once(") ")?.1.split(' ');
    let state = f.next()?.chars().next()?;
    let flags = f.nth(5)?.parse().ok()?;
    Some(Stat { state, flags })
}

/// The exit status of a run with `child` (the command started under the
/// tool, waited for): its own, 128 + the signal that killed it, or 0
/// without a command.
pub fn exit_status(child: Option<Child>) -> Result<ExitCode, String> {
    use std::os::unix::process::ExitStatusExt;
    let Some(mut c) = child else {
        return Ok(ExitCode::SUCCESS);
    };
    let st = c.wait().map_err(|e| format!("wait: {e}"))?;
    Ok(match (st.code(), st.signal()) {
        (Some(code), _) => ExitCode::from(code as u8),
        (None, Some(sig)) => ExitCode::from(128u8.wrapping_add(sig as u8)),
        _ => ExitCode::FAILURE,
    })
}

/// The process's name, as `ps` shows it (`?` once it is gone).
pub fn comm(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_else(|_| "?".into())
}

/// What [`attach_every`] attached to, and what it left out.
pub struct Every {
    /// Processes attached.
    pub attached: usize,
    /// Processes the caller may not trace (`EPERM`).
    pub refused: usize,
    /// Set when the session's `tasks_per_session` limit ended the walk.
    pub limit: Option<String>,
}

/// Attaches to every process the caller may trace (`top --all`), each
/// with `opts` (`follow` then covers the processes they start): walks
/// `/proc`, leaving out utrace itself, kernel threads, zombies and, for a
/// caller without CAP_SYS_PTRACE, processes of other users (which the
/// kernel would refuse, with a log line each). A process that ends or is
/// followed already meanwhile is skipped; `tasks_per_session` ends the walk.
pub fn attach_every(session: &Session, opts: &Attach) -> Result<Every, String> {
    use std::os::unix::fs::MetadataExt;
    const PF_KTHREAD: u64 = 0x0020_0000;
    let my_uid = std::fs::metadata("/proc/self")
        .map_err(|e| format!("/proc/self: {e}"))?
        .uid();
    let mut every = Every {
        attached: 0,
        refused: 0,
        limit: None,
    };
    let dir = std::fs::read_dir("/proc").map_err(|e| format!("/proc: {e}"))?;
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if is_me(pid) {
            continue;
        }
        match stat(pid) {
            Some(st) if st.alive() && st.flags & PF_KTHREAD == 0 => {}
            _ => continue,
        }
        if my_uid != 0 && entry.metadata().map(|m| m.uid()).ok() != Some(my_uid) {
            every.refused += 1;
            continue;
        }
        match session.attach(Target::Pid(pid), opts) {
            Ok(_) => every.attached += 1,
            Err(e) => match e.errno() {
                Some(Errno::ESRCH | Errno::EEXIST) => {}
                Some(Errno::EPERM) => every.refused += 1,
                Some(Errno::ENOSPC) => {
                    every.limit = Some(format!("attach to {pid}: {e}"));
                    break;
                }
                _ => return Err(format!("attach to {pid}: {e}")),
            },
        }
    }
    Ok(every)
}

/// The process `-p N` names: `N` itself, or the process of thread `N`
/// (the engine attaches to every thread of the process, and its records
/// name the process by its first thread's id, as the tools' ends and
/// prefixes must). `N` as given where `/proc/N` says nothing: the attach
/// then says why. Refuses utrace itself: its own syscalls would make
/// records, whose reading makes more, without end (and a thread deciding
/// on its own syscalls would wait for itself).
pub fn process(n: i32) -> Result<i32, String> {
    let pid = tgid(n).unwrap_or(n);
    if is_me(pid) {
        return Err(format!("-p {n}: that is this utrace itself"));
    }
    Ok(pid)
}

fn is_me(pid: i32) -> bool {
    u32::try_from(pid).is_ok_and(|p| p == std::process::id())
}

/// The `Tgid:` of `/proc/TID/status` (a thread's directory is there
/// though `ls /proc` does not list it).
fn tgid(tid: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

/// The threads of process `pid` (`/proc/PID/task`), in order.
pub fn threads(pid: i32) -> Vec<i32> {
    let mut tids: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    tids.sort_unstable();
    tids
}

/// The syscall thread `tid` of process `pid` is blocked in, as
/// `/proc/PID/task/TID/syscall` shows it (the kernel's ptrace check
/// decides, as for the attach): its number and arguments (of the ABI
/// [`abi_of`] the process). `None` if the thread runs, is not in a
/// syscall, or is gone. Only a thread asleep (`S` or `D`) counts: a stopped one
/// (`T`, `t`, or a utrace stop's `I`) shows the last syscall it made,
/// which has returned.
pub fn syscall_under_way(pid: i32, tid: i32) -> Option<(i32, [u64; 6])> {
    let dir = format!("/proc/{pid}/task/{tid}");
    if !stat_at(&format!("{dir}/stat")).is_some_and(|st| matches!(st.state, 'S' | 'D')) {
        return None;
    }
    let text = std::fs::read_to_string(format!("{dir}/syscall")).ok()?;
    let mut words = text.split_whitespace();
    // "running", or -1 for a thread blocked outside any syscall.
    let nr = words.next()?.parse::<i32>().ok().filter(|&nr| nr >= 0)?;
    let mut args = [0u64; 6];
    for a in &mut args {
        *a = u64::from_str_radix(words.next()?.strip_prefix("0x")?, 16).ok()?;
    }
    Some((nr, args))
}

/// The ABI of process `pid`'s executable: from its ELF header's class
/// and machine (i386: 32-bit `EM_386`; x32: 32-bit `EM_X86_64`), x86-64
/// otherwise.
pub fn abi_of(pid: i32) -> Abi {
    const EM_386: u16 = 3;
    const EM_X86_64: u16 = 62;
    let mut head = [0u8; 20];
    let read =
        std::fs::File::open(format!("/proc/{pid}/exe")).and_then(|mut f| f.read_exact(&mut head));
    let machine = u16::from_le_bytes([head[18], head[19]]);
    match (read.is_ok() && head[..4] == *b"\x7fELF", head[4], machine) {
        (true, 1, EM_386) => Abi::I386,
        (true, 1, EM_X86_64) => Abi::X32,
        _ => Abi::X86_64,
    }
}

/// What to say of `-p N` attached as process `pid`.
pub fn attached(n: i32, pid: i32) -> String {
    if n == pid {
        format!("process {pid} attached")
    } else {
        format!("process {pid} attached (thread {n} is one of its threads)")
    }
}

/// What [`attach`] made.
pub struct Attached {
    /// The engine (0 with `all`).
    pub engine: EngineId,
    /// The traced process (0 with `all`).
    pub pid: i32,
    /// The command started under the trace, to wait for.
    pub child: Option<Child>,
}

/// Attaches `opts` to every task (`all`), to `-p PID`, or to the command
/// of `t`, started stopped and let go once the engine is attached (killed
/// if the attach fails).
pub fn attach(
    session: &Session,
    all: bool,
    t: &crate::TargetArgs,
    opts: &Attach,
) -> Result<Attached, String> {
    if all {
        session
            .attach(Target::All, opts)
            .map_err(|e| format!("attach --all: {e}"))?;
        return Ok(Attached {
            engine: EngineId(0),
            pid: 0,
            child: None,
        });
    }
    if let Some(n) = t.pid {
        let pid = process(n)?;
        let engine = session
            .attach(Target::Pid(pid), opts)
            .map_err(|e| format!("attach to {pid}: {e}"))?;
        return Ok(Attached {
            engine,
            pid,
            child: None,
        });
    }
    let started = start(&t.command)?;
    let pid = started.pid();
    match session.attach(Target::Pid(pid), opts) {
        Ok(engine) => Ok(Attached {
            engine,
            pid,
            child: Some(started.go()?),
        }),
        Err(e) => {
            let mut c = started.child;
            let _ = c.kill();
            let _ = c.wait();
            Err(format!("attach to {pid}: {e}"))
        }
    }
}
