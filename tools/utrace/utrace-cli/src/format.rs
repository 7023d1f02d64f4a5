// SPDX-License-Identifier: GPL-2.0

//! The strace-style text of one syscall: `openat(AT_FDCWD, "/etc/hostname",
//! O_RDONLY) = 3` (ported from samples/syscall_trace/format.rs). Arguments
//! are decoded from the record's registers and, for strings, buffers and
//! small structs, from the task's memory through a [`Mem`]; what cannot be
//! read shows as its address, never as a guess.

use std::fmt::{self, Write};
use utrace::errno;
use utrace::syscalls::{Arg, Ret, Syscall};
use utrace::Abi;

/// The task's memory: reads up to `buf.len()` bytes at an address, the
/// number read or `None`.
pub trait Mem {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Option<usize>;
}

/// No memory: every pointer shows as its address.
pub struct NoMem;

impl Mem for NoMem {
    fn read(&self, _addr: u64, _buf: &mut [u8]) -> Option<usize> {
        None
    }
}

/// A live process's memory (`process_vm_readv`).
pub struct ProcMem(pub i32);

impl Mem for ProcMem {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Option<usize> {
        utrace::memory::read(self.0, addr, buf)
    }
}

/// Reads exactly `buf.len()` bytes.
fn read_exact(m: &dyn Mem, addr: u64, buf: &mut [u8]) -> bool {
    addr != 0 && m.read(addr, buf) == Some(buf.len())
}

/// Bytes of a path shown (longer ones end in `...`).
pub const PATH_MAX_SHOWN: usize = 128;
/// Bytes of data shown, as strace's default `-s 32`.
pub const DATA_MAX_SHOWN: usize = 32;

/// The text being built.
pub type Line = String;

/// Bytes [`quoted`] shows as they are: printable ASCII but `"` and `\\`.
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x20;
    while b <= 0x7e {
        t[b] = b != b'"' as usize && b != b'\\' as usize;
        b += 1;
    }
    t
};

/// `bytes` quoted as strace quotes: `\n`, `\t`, `\"`, `\\`, octal for the
/// rest of what is not printable; `...` after the quote if `more`.
fn quoted(w: &mut Line, bytes: &[u8], more: bool) -> fmt::Result {
    w.push('"');
    let mut rest = bytes;
    while !rest.is_empty() {
        // A run of bytes shown as they are, in one copy.
        let run = rest
            .iter()
            .position(|&c| !PLAIN[usize::from(c)])
            .unwrap_or(rest.len());
        let (plain, after) = rest.split_at(run);
        // Printable ASCII only: always UTF-8.
        w.push_str(std::str::from_utf8(plain).unwrap_or("?"));
        let Some((&b, after)) = after.split_first() else {
            break;
        };
        rest = after;
        match b {
            b'"' => w.push_str("\\\""),
            b'\\' => w.push_str("\\\\"),
            b'\n' => w.push_str("\\n"),
            b'\t' => w.push_str("\\t"),
            b'\r' => w.push_str("\\r"),
            // Octal, as short as the next byte allows (strace's rule).
            _ => {
                let full = rest.first().is_some_and(|c| (b'0'..=b'7').contains(c));
                w.push('\\');
                for shift in [6, 3, 0] {
                    if full || b >> shift != 0 || shift == 0 {
                        w.push(char::from(b'0' + ((b >> shift) & 7)));
                    }
                }
            }
        }
    }
    w.push('"');
    if more {
        w.push_str("...");
    }
    Ok(())
}

/// `v` in decimal (itoa: the formatting machinery costs several times
/// more, and most arguments and results are integers).
fn int(w: &mut Line, v: impl itoa::Integer) -> fmt::Result {
    w.push_str(itoa::Buffer::new().format(v));
    Ok(())
}

fn pointer(w: &mut Line, v: u64) -> fmt::Result {
    if v == 0 {
        w.write_str("NULL")
    } else {
        write!(w, "{v:#x}")
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

/// How a thread or process ended, from a wait() status word.
pub enum Ended {
    /// exit() with this code (0..=255).
    Exited(i32),
    /// Killed by signal `sig`'s name (see [`signal`]), dumping core or not.
    Killed { sig: String, core: bool },
}

/// Decodes a wait() status word (an EXIT or DEATH record's code).
pub fn ended(status: i32) -> Ended {
    match status & 0x7f {
        0 => Ended::Exited((status >> 8) & 0xff),
        sig => {
            let mut name = String::new();
            let _ = signal(&mut name, i64::from(sig));
            Ended::Killed {
                sig: name,
                core: status & 0x80 != 0,
            }
        }
    }
}

/// Signal `sig`'s name: `SIGTERM`, `SIGRT_3`, or the number.
pub fn signal(w: &mut Line, sig: i64) -> fmt::Result {
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
        _ => int(w, v as i32),
    }
}

fn path(w: &mut Line, cx: &dyn Mem, addr: u64) -> fmt::Result {
    let mut buf = [0u8; PATH_MAX_SHOWN];
    let Some(n) = (if addr == 0 {
        None
    } else {
        cx.read(addr, &mut buf)
    }) else {
        return pointer(w, addr);
    };
    match buf[..n].iter().position(|&c| c == 0) {
        Some(len) => quoted(w, &buf[..len], false),
        None => quoted(w, &buf[..n], true),
    }
}

fn data(w: &mut Line, cx: &dyn Mem, addr: u64, len: u64) -> fmt::Result {
    let mut buf = [0u8; DATA_MAX_SHOWN];
    let n = usize::try_from(len).unwrap_or(usize::MAX).min(buf.len());
    if n == 0 && addr != 0 {
        return quoted(w, &[], false);
    }
    if read_exact(cx, addr, &mut buf[..n]) {
        quoted(w, &buf[..n], len > n as u64)
    } else {
        pointer(w, addr)
    }
}

/// A timespec at `addr`: two 64-bit fields, or two 32-bit ones
/// (`narrow`, i386's `old_timespec32`).
fn timespec(w: &mut Line, cx: &dyn Mem, addr: u64, narrow: bool) -> fmt::Result {
    let mut buf = [0u8; 16];
    let size = if narrow { 8 } else { 16 };
    if !read_exact(cx, addr, &mut buf[..size]) {
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

fn pipe_fds(w: &mut Line, cx: &dyn Mem, addr: u64, ret: Option<i64>) -> fmt::Result {
    let mut buf = [0u8; 8];
    if ret != Some(0) || !read_exact(cx, addr, &mut buf) {
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
    cx: &dyn Mem,
    arch: Abi,
    kind: Arg,
    v: u64,
    next: u64,
    ret: Option<i64>,
) -> fmt::Result {
    match kind {
        Arg::Int | Arg::Fd => int(w, v as i32),
        Arg::Off if arch == Abi::I386 => int(w, v as i32),
        Arg::Off => int(w, v as i64),
        Arg::OffLoHi => int(w, ((next << 32) | (v & 0xffff_ffff)) as i64),
        Arg::UInt if arch == Abi::I386 => int(w, v as u32),
        Arg::UInt => int(w, v),
        Arg::Hex => write!(w, "{v:#x}"),
        Arg::Ptr => pointer(w, v),
        Arg::DirFd if v as i32 == -100 => w.write_str("AT_FDCWD"),
        Arg::DirFd => int(w, v as i32),
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
pub fn call(
    w: &mut Line,
    cx: &dyn Mem,
    arch: Abi,
    nr: i64,
    sys: Option<&Syscall>,
    args: &[u64; 6],
    ret: Option<i64>,
) -> fmt::Result {
    let Some(sys) = sys else {
        match utrace::syscalls::name(arch, nr) {
            Some(name) => write!(w, "{name}(")?,
            None => write!(w, "syscall_{nr:#x}(")?,
        }
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
        if kind == Arg::Mode
            && i > 0
            && sys.args[i - 1] == Arg::OpenFlags
            && args[i - 1] & OPEN_TAKES_MODE == 0
        {
            break;
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
pub fn result(w: &mut Line, arch: Abi, sys: Option<&Syscall>, ret: i64) -> fmt::Result {
    if (-4095..0).contains(&ret) {
        let e = -ret as i32;
        let first = if errno::is_restart(e) { "?" } else { "-1" };
        match errno::describe(e) {
            Some((name, text)) => {
                for s in [" = ", first, " ", name, " (", text, ")"] {
                    w.push_str(s);
                }
            }
            None => {
                w.push_str(" = -1 errno ");
                int(w, e)?;
            }
        }
        return Ok(());
    }
    match sys.map(|s| s.ret) {
        Some(Ret::Addr) if arch == Abi::I386 => write!(w, " = {:#x}", ret as u32),
        Some(Ret::Addr) => write!(w, " = {:#x}", ret as u64),
        // Most lines end here: itoa, not the formatting machinery.
        _ if arch == Abi::I386 => {
            w.push_str(" = ");
            int(w, ret as i32)
        }
        _ => {
            w.push_str(" = ");
            int(w, ret)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_quoted_as_strace_quotes_them() {
        let mut w = String::new();
        quoted(&mut w, b"a\"b\\c\n\t\r\x00\x011\xffx", true).unwrap();
        // Octal is three digits only before an octal digit.
        assert_eq!(w, r#""a\"b\\c\n\t\r\0\0011\377x"..."#);
        let mut w = String::new();
        quoted(&mut w, b"", false).unwrap();
        assert_eq!(w, r#""""#);
        let mut w = String::new();
        quoted(&mut w, b"\x08\x7f7", false).unwrap();
        assert_eq!(w, r#""\10\1777""#);
    }

    #[test]
    fn integers_and_errors() {
        let sys = utrace::syscalls::table(Abi::X86_64).and_then(|t| t.by_number(1));
        let mut w = String::new();
        call(
            &mut w,
            &NoMem,
            Abi::X86_64,
            1,
            sys,
            &[u64::MAX, 0, 16, 0, 0, 0],
            None,
        )
        .unwrap();
        result(&mut w, Abi::X86_64, sys, -9).unwrap();
        assert_eq!(w, "write(-1, NULL, 16) = -1 EBADF (Bad file descriptor)");
        let mut w = String::new();
        result(&mut w, Abi::X86_64, sys, -4000).unwrap();
        result(&mut w, Abi::I386, sys, -512).unwrap();
        assert_eq!(
            w,
            " = -1 errno 4000 = ? ERESTARTSYS (To be restarted if SA_RESTART is set)"
        );
    }

    #[test]
    fn clocks_as_strace_names_them() {
        // The last three: a CPU-time clock (negative), an unknown one and
        // unknown flags, as strace 6.1 shows them.
        let cases: [(Abi, i64, [u64; 6], &str); 5] = [
            (
                Abi::X86_64,
                230,
                [0, 0, 0, 0, 0, 0],
                "clock_nanosleep(CLOCK_REALTIME, 0, NULL, NULL)",
            ),
            (
                Abi::X86_64,
                230,
                [1, 1, 0, 0, 0, 0],
                "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, NULL, NULL)",
            ),
            (
                Abi::I386,
                265,
                [(-6i32) as u32 as u64, 0, 0, 0, 0, 0],
                "clock_gettime(0xfffffffa /* CLOCK_??? */, NULL)",
            ),
            (
                Abi::X86_64,
                230,
                [10, 3, 0, 0, 0, 0],
                "clock_nanosleep(CLOCK_SGI_CYCLE, TIMER_ABSTIME|0x2, NULL, NULL)",
            ),
            (
                Abi::X86_64,
                230,
                [12, 2, 0, 0, 0, 0],
                "clock_nanosleep(0xc /* CLOCK_??? */, 0x2 /* TIMER_??? */, NULL, NULL)",
            ),
        ];
        for (abi, nr, args, want) in cases {
            let sys = utrace::syscalls::table(abi).and_then(|t| t.by_number(nr));
            let mut w = String::new();
            call(&mut w, &NoMem, abi, nr, sys, &args, None).unwrap();
            assert_eq!(w, want);
        }
    }
}
