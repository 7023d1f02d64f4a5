// SPDX-License-Identifier: GPL-2.0

//! The strace-style text of one syscall: `openat(AT_FDCWD, "/etc/hostname",
//! O_RDONLY) = 3`. Arguments are decoded from the registers and, for
//! strings, buffers and small structs, from the task's memory (read without
//! faulting: what is not present shows as its address).

use super::errno;
use super::syscalls::{Arg, Ret, Syscall};
use super::utrace::{SyscallArch, SyscallContext};
use core::fmt::{self, Write};

/// Bytes of a path shown (longer ones end in `...`).
const PATH_MAX_SHOWN: usize = 128;
/// Bytes of data shown, as strace's default `-s 32`.
const DATA_MAX_SHOWN: usize = 32;

/// One record's text (`<pid> <call> = <result>`), cut at what a stream
/// record holds; numbers and plain text are appended without `core::fmt`.
pub(crate) type Line = super::utrace::Record;

/// `bytes` quoted as strace quotes: `\n`, `\t`, `\"`, `\\`, octal for the
/// rest of what is not printable; `...` after the quote if `more`.
fn quoted(w: &mut Line, bytes: &[u8], more: bool) -> fmt::Result {
    w.write_char('"')?;
    let mut rest = bytes;
    while let Some(&b) = rest.first() {
        // A run of bytes shown as they are, in one write.
        let run = rest
            .iter()
            .position(|&c| !(0x20..=0x7e).contains(&c) || c == b'"' || c == b'\\')
            .unwrap_or(rest.len());
        if run > 0 {
            w.bytes(&rest[..run]);
            rest = &rest[run..];
            continue;
        }
        rest = &rest[1..];
        match b {
            b'"' => w.write_str("\\\"")?,
            b'\\' => w.write_str("\\\\")?,
            b'\n' => w.write_str("\\n")?,
            b'\t' => w.write_str("\\t")?,
            b'\r' => w.write_str("\\r")?,
            // Octal, as short as the next byte allows (strace's rule).
            _ if rest.first().is_some_and(|c| (b'0'..=b'7').contains(c)) => write!(w, "\\{b:03o}")?,
            _ => write!(w, "\\{b:o}")?,
        }
    }
    w.write_char('"')?;
    if more {
        w.write_str("...")?;
    }
    Ok(())
}

fn pointer(w: &mut Line, v: u64) -> fmt::Result {
    if v == 0 {
        w.write_str("NULL")
    } else {
        w.str("0x").hex(v);
        Ok(())
    }
}

/// `v` as `NAME|NAME|0x...` from `names` (each a mask and its name, tried
/// in order; a name takes its bits away); `zero` if nothing is set.
fn flags(w: &mut Line, v: u64, names: &[(u64, &str)], zero: &str) -> fmt::Result {
    if v == 0 {
        return w.write_str(zero);
    }
    let mut left = v;
    let mut first = true;
    for &(mask, name) in names {
        if mask != 0 && left & mask == mask {
            if !first {
                w.write_char('|')?;
            }
            w.write_str(name)?;
            left &= !mask;
            first = false;
        }
    }
    if left != 0 {
        if !first {
            w.write_char('|')?;
        }
        write!(w, "{left:#x}")?;
    }
    Ok(())
}

const OPEN_FLAGS: &[(u64, &str)] = &[
    (0o100, "O_CREAT"),
    (0o200, "O_EXCL"),
    (0o400, "O_NOCTTY"),
    (0o1000, "O_TRUNC"),
    (0o2000, "O_APPEND"),
    (0o4000, "O_NONBLOCK"),
    (0o4010000, "O_SYNC"),
    (0o10000, "O_DSYNC"),
    (0o20000, "O_ASYNC"),
    (0o40000, "O_DIRECT"),
    (0o100000, "O_LARGEFILE"),
    (0o20200000, "O_TMPFILE"),
    (0o200000, "O_DIRECTORY"),
    (0o400000, "O_NOFOLLOW"),
    (0o1000000, "O_NOATIME"),
    (0o2000000, "O_CLOEXEC"),
    (0o10000000, "O_PATH"),
];

/// `O_CREAT` and `O_TMPFILE`: the flags after which a mode argument counts.
const OPEN_TAKES_MODE: u64 = 0o100 | 0o20200000;

fn open_flags(w: &mut Line, v: u64) -> fmt::Result {
    let v = v & 0xffff_ffff;
    w.write_str(match v & 3 {
        0 => "O_RDONLY",
        1 => "O_WRONLY",
        2 => "O_RDWR",
        _ => "O_ACCMODE",
    })?;
    if v & !3 != 0 {
        w.write_char('|')?;
        flags(w, v & !3, OPEN_FLAGS, "")?;
    }
    Ok(())
}

const AT_FLAGS: &[(u64, &str)] = &[
    (0x100, "AT_SYMLINK_NOFOLLOW"),
    (0x200, "AT_REMOVEDIR"),
    (0x400, "AT_SYMLINK_FOLLOW"),
    (0x800, "AT_NO_AUTOMOUNT"),
    (0x1000, "AT_EMPTY_PATH"),
];
const PROT: &[(u64, &str)] = &[(1, "PROT_READ"), (2, "PROT_WRITE"), (4, "PROT_EXEC")];
const MAP_FLAGS: &[(u64, &str)] = &[
    (0x1, "MAP_SHARED"),
    (0x2, "MAP_PRIVATE"),
    (0x10, "MAP_FIXED"),
    (0x20, "MAP_ANONYMOUS"),
    (0x100, "MAP_GROWSDOWN"),
    (0x800, "MAP_DENYWRITE"),
    (0x4000, "MAP_NORESERVE"),
    (0x8000, "MAP_POPULATE"),
    (0x20000, "MAP_STACK"),
    (0x100000, "MAP_FIXED_NOREPLACE"),
];
const ACCESS: &[(u64, &str)] = &[(4, "R_OK"), (2, "W_OK"), (1, "X_OK")];
const CLONE_FLAGS: &[(u64, &str)] = &[
    (0x100, "CLONE_VM"),
    (0x200, "CLONE_FS"),
    (0x400, "CLONE_FILES"),
    (0x800, "CLONE_SIGHAND"),
    (0x1000, "CLONE_PIDFD"),
    (0x2000, "CLONE_PTRACE"),
    (0x4000, "CLONE_VFORK"),
    (0x8000, "CLONE_PARENT"),
    (0x10000, "CLONE_THREAD"),
    (0x20000, "CLONE_NEWNS"),
    (0x40000, "CLONE_SYSVSEM"),
    (0x80000, "CLONE_SETTLS"),
    (0x100000, "CLONE_PARENT_SETTID"),
    (0x200000, "CLONE_CHILD_CLEARTID"),
    (0x400000, "CLONE_DETACHED"),
    (0x800000, "CLONE_UNTRACED"),
    (0x1000000, "CLONE_CHILD_SETTID"),
];
const WAIT_OPTIONS: &[(u64, &str)] = &[
    (1, "WNOHANG"),
    (2, "WUNTRACED"),
    (8, "WCONTINUED"),
    (0x20000000, "__WNOTHREAD"),
    (0x40000000, "__WALL"),
    (0x80000000, "__WCLONE"),
];
const SOCK_FLAGS: &[(u64, &str)] = &[(0o4000, "SOCK_NONBLOCK"), (0o2000000, "SOCK_CLOEXEC")];

const SIGNALS: [&str; 32] = [
    "0",
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGILL",
    "SIGTRAP",
    "SIGABRT",
    "SIGBUS",
    "SIGFPE",
    "SIGKILL",
    "SIGUSR1",
    "SIGSEGV",
    "SIGUSR2",
    "SIGPIPE",
    "SIGALRM",
    "SIGTERM",
    "SIGSTKFLT",
    "SIGCHLD",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGIO",
    "SIGPWR",
    "SIGSYS",
];

/// Signal `sig`'s name: `SIGTERM`, `SIGRT_3`, or the number.
pub(crate) fn signal(w: &mut Line, sig: i64) -> fmt::Result {
    match usize::try_from(sig) {
        Ok(i) if i < SIGNALS.len() => w.write_str(SIGNALS[i]),
        Ok(32..=64) => write!(w, "SIGRT_{}", sig - 32),
        _ => write!(w, "{sig}"),
    }
}

/// The clocks of `<linux/time.h>` by id.
const CLOCKS: &[&str] = &[
    "CLOCK_REALTIME",
    "CLOCK_MONOTONIC",
    "CLOCK_PROCESS_CPUTIME_ID",
    "CLOCK_THREAD_CPUTIME_ID",
    "CLOCK_MONOTONIC_RAW",
    "CLOCK_REALTIME_COARSE",
    "CLOCK_MONOTONIC_COARSE",
    "CLOCK_BOOTTIME",
    "CLOCK_REALTIME_ALARM",
    "CLOCK_BOOTTIME_ALARM",
    "CLOCK_SGI_CYCLE",
    "CLOCK_TAI",
];

/// A clock id as strace shows it: its name, else (a CPU-time clock of a
/// process or thread, or an unknown id) hex with a comment.
fn clock(w: &mut Line, v: u32) -> fmt::Result {
    match CLOCKS.get(v as usize) {
        Some(name) => w.write_str(name),
        None => write!(w, "{v:#x} /* CLOCK_??? */"),
    }
}

/// The flags of `clock_nanosleep()` as strace shows them: `0`,
/// `TIMER_ABSTIME`, `TIMER_ABSTIME|0x2`, or unknown bits alone as
/// `0x2 /* TIMER_??? */`.
fn timer_flags(w: &mut Line, v: u32) -> fmt::Result {
    match (v & 1, v & !1) {
        (0, 0) => w.write_char('0'),
        (_, 0) => w.write_str("TIMER_ABSTIME"),
        (0, rest) => write!(w, "{rest:#x} /* TIMER_??? */"),
        (_, rest) => write!(w, "TIMER_ABSTIME|{rest:#x}"),
    }
}

/// One from a list of names by value, else the number.
fn named(w: &mut Line, v: u64, names: &[&str]) -> fmt::Result {
    match usize::try_from(v).ok().and_then(|i| names.get(i)) {
        Some(name) if !name.is_empty() => w.write_str(name),
        _ => write!(w, "{}", v as i32),
    }
}

fn path(w: &mut Line, cx: &SyscallContext<'_>, addr: u64) -> fmt::Result {
    let mut buf = [0u8; PATH_MAX_SHOWN];
    match cx.read_user_str(addr, &mut buf) {
        Ok((len, complete)) => quoted(w, &buf[..len], !complete),
        Err(_) => pointer(w, addr),
    }
}

fn data(w: &mut Line, cx: &SyscallContext<'_>, addr: u64, len: u64) -> fmt::Result {
    let mut buf = [0u8; DATA_MAX_SHOWN];
    let n = usize::try_from(len).unwrap_or(usize::MAX).min(buf.len());
    match cx.read_user(addr, &mut buf[..n]) {
        Ok(()) => quoted(w, &buf[..n], len > n as u64),
        Err(_) => pointer(w, addr),
    }
}

/// A timespec at `addr`: two 64-bit fields, or two 32-bit ones
/// (`narrow`, i386's `old_timespec32`).
fn timespec(w: &mut Line, cx: &SyscallContext<'_>, addr: u64, narrow: bool) -> fmt::Result {
    let mut buf = [0u8; 16];
    let size = if narrow { 8 } else { 16 };
    if addr == 0 || cx.read_user(addr, &mut buf[..size]).is_err() {
        return pointer(w, addr);
    }
    let (sec, nsec) = if narrow {
        let mut sec = [0u8; 4];
        let mut nsec = [0u8; 4];
        sec.copy_from_slice(&buf[..4]);
        nsec.copy_from_slice(&buf[4..8]);
        (
            i64::from(i32::from_ne_bytes(sec)),
            i64::from(i32::from_ne_bytes(nsec)),
        )
    } else {
        let mut sec = [0u8; 8];
        let mut nsec = [0u8; 8];
        sec.copy_from_slice(&buf[..8]);
        nsec.copy_from_slice(&buf[8..]);
        (i64::from_ne_bytes(sec), i64::from_ne_bytes(nsec))
    };
    write!(w, "{{tv_sec={sec}, tv_nsec={nsec}}}")
}

fn pipe_fds(w: &mut Line, cx: &SyscallContext<'_>, addr: u64, ret: Option<i64>) -> fmt::Result {
    let mut buf = [0u8; 8];
    if ret != Some(0) || cx.read_user(addr, &mut buf).is_err() {
        return pointer(w, addr);
    }
    let mut a = [0u8; 4];
    let mut b = [0u8; 4];
    a.copy_from_slice(&buf[..4]);
    b.copy_from_slice(&buf[4..]);
    write!(w, "[{}, {}]", i32::from_ne_bytes(a), i32::from_ne_bytes(b))
}

/// One argument `v` of kind `kind` of a syscall of ABI `arch`; `next` is
/// the argument after it (the length of an [`Arg::OutBuf`], the high half
/// of an [`Arg::OffLoHi`]); `ret` the return value once known.
fn arg(
    w: &mut Line,
    cx: &SyscallContext<'_>,
    arch: SyscallArch,
    kind: Arg,
    v: u64,
    next: u64,
    ret: Option<i64>,
) -> fmt::Result {
    match kind {
        Arg::Int | Arg::Fd => {
            w.int(v as i32);
            Ok(())
        }
        Arg::Off => {
            match arch {
                SyscallArch::X86_64 => w.int(v as i64),
                SyscallArch::I386 => w.int(v as i32),
            };
            Ok(())
        }
        Arg::OffLoHi => {
            w.int(((next << 32) | (v & 0xffff_ffff)) as i64);
            Ok(())
        }
        Arg::UInt => {
            w.uint(v);
            Ok(())
        }
        Arg::Hex => {
            w.str("0x").hex(v);
            Ok(())
        }
        Arg::Ptr => pointer(w, v),
        Arg::DirFd if v as i32 == -100 => w.write_str("AT_FDCWD"),
        Arg::DirFd => {
            w.int(v as i32);
            Ok(())
        }
        Arg::Path => path(w, cx, v),
        Arg::OutBuf => data(w, cx, v, next),
        Arg::InBuf => match ret {
            Some(n) if n >= 0 => data(w, cx, v, n as u64),
            _ => pointer(w, v),
        },
        Arg::Mode => write!(w, "0{:03o}", v & 0o7777),
        Arg::FdFlags => flags(w, v & 0xffff_ffff, OPEN_FLAGS, "0"),
        Arg::OpenFlags => open_flags(w, v),
        Arg::AtFlags => flags(w, v & 0xffff_ffff, AT_FLAGS, "0"),
        Arg::Prot => flags(w, v & 0xffff_ffff, PROT, "PROT_NONE"),
        Arg::MapFlags => flags(w, v & 0xffff_ffff, MAP_FLAGS, "0"),
        Arg::AccessMode => flags(w, v & 0xffff_ffff, ACCESS, "F_OK"),
        Arg::Signal => signal(w, i64::from(v as i32)),
        Arg::SigHow => named(w, v, &["SIG_BLOCK", "SIG_UNBLOCK", "SIG_SETMASK"]),
        Arg::CloneFlags => {
            let exit_signal = v & 0xff;
            flags(w, v & !0xff, CLONE_FLAGS, "")?;
            if exit_signal != 0 {
                if v & !0xff != 0 {
                    w.write_char('|')?;
                }
                signal(w, exit_signal as i64)?;
            } else if v == 0 {
                w.write_char('0')?;
            }
            Ok(())
        }
        Arg::WaitOptions => flags(w, v & 0xffff_ffff, WAIT_OPTIONS, "0"),
        Arg::Domain => {
            let mut names = [""; 18];
            names[1] = "AF_UNIX";
            names[2] = "AF_INET";
            names[10] = "AF_INET6";
            names[16] = "AF_NETLINK";
            names[17] = "AF_PACKET";
            named(w, v, &names)
        }
        Arg::SockType => {
            let names = [
                "",
                "SOCK_STREAM",
                "SOCK_DGRAM",
                "SOCK_RAW",
                "",
                "SOCK_SEQPACKET",
            ];
            named(w, v & 0xf, &names)?;
            if v & !0xf & 0xffff_ffff != 0 {
                w.write_char('|')?;
                flags(w, v & !0xf & 0xffff_ffff, SOCK_FLAGS, "")?;
            }
            Ok(())
        }
        Arg::Timespec => timespec(w, cx, v, false),
        Arg::Timespec32 => timespec(w, cx, v, true),
        Arg::PipeFds => pipe_fds(w, cx, v, ret),
        Arg::Whence => named(w, v, &["SEEK_SET", "SEEK_CUR", "SEEK_END"]),
        Arg::ClockId => clock(w, v as u32),
        Arg::TimerFlags => timer_flags(w, v as u32),
    }
}

/// `name(arguments)` of syscall `nr` of ABI `arch` (`sys` if decoded) with
/// arguments `args`; `ret` is the return value once known (at exit).
pub(crate) fn call(
    w: &mut Line,
    cx: &SyscallContext<'_>,
    arch: SyscallArch,
    nr: i64,
    sys: Option<&Syscall>,
    args: &[u64; 6],
    ret: Option<i64>,
) -> fmt::Result {
    let Some(sys) = sys else {
        write!(w, "syscall_{nr}(")?;
        for (i, v) in args.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            write!(w, "{v:#x}")?;
        }
        return w.write_char(')');
    };
    w.write_str(sys.name)?;
    w.write_char('(')?;
    for (i, &kind) in sys.args.iter().enumerate() {
        // The mode of open(), openat() and creat() counts only with
        // O_CREAT or O_TMPFILE (strace leaves it out otherwise).
        if kind == Arg::Mode && i > 0 && sys.args[i - 1] == Arg::OpenFlags {
            if args[i - 1] & OPEN_TAKES_MODE == 0 {
                break;
            }
        }
        if i > 0 {
            w.write_str(", ")?;
        }
        let next = args.get(i + 1).copied().unwrap_or(0);
        arg(w, cx, arch, kind, args[i], next, ret)?;
    }
    w.write_char(')')
}

/// ` = <ret>`: the value, `-1 ENOENT (No such file or directory)`, or
/// `? ERESTARTSYS (...)` for the kernel's restart codes; an address as wide
/// as ABI `arch` has them.
pub(crate) fn result(
    w: &mut Line,
    arch: SyscallArch,
    sys: Option<&Syscall>,
    ret: i64,
) -> fmt::Result {
    if (-4095..0).contains(&ret) {
        let e = -ret as i32;
        let first = if errno::is_restart(e) { "?" } else { "-1" };
        match errno::describe(e) {
            Some((name, text)) => w
                .str(" = ")
                .str(first)
                .str(" ")
                .str(name)
                .str(" (")
                .str(text)
                .str(")"),
            None => w.str(" = -1 errno ").int(e),
        };
        return Ok(());
    }
    match sys.map(|s| s.ret) {
        Some(Ret::Addr) if arch == SyscallArch::I386 => w.str(" = 0x").hex(u64::from(ret as u32)),
        Some(Ret::Addr) => w.str(" = 0x").hex(ret as u64),
        _ => w.str(" = ").int(ret),
    };
    Ok(())
}
