// SPDX-License-Identifier: GPL-2.0

//! The syscalls of x86-64 and i386 (which `int $0x80` and 32-bit tasks
//! use): every name, from the kernel's `syscall_64.tbl` and
//! `syscall_32.tbl` (copied from Linux 6.12); and for those decoded, what
//! each argument is and how the return value reads (the table of
//! samples/syscall_trace). A number is never looked up in the other ABI's
//! table; a syscall without a name shows as `syscall_<nr>`.

use crate::event::Abi;
use std::sync::OnceLock;

/// What an argument is, for its decoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A signed `int`, decimal.
    Int,
    /// A file offset or length (`off_t`, `long`: 32 bits for i386),
    /// decimal.
    Off,
    /// A 64-bit file offset that i386 passes in two registers, this
    /// argument's (the low half) and the next one's (the high half),
    /// decimal; it counts as one argument (the last).
    OffLoHi,
    /// A size or count, unsigned decimal.
    UInt,
    /// A value shown as raw hex.
    Hex,
    /// A pointer: `NULL` or hex.
    Ptr,
    /// A file descriptor.
    Fd,
    /// A directory fd of the `*at()` calls: `AT_FDCWD` or the fd.
    DirFd,
    /// A NUL-terminated path, quoted.
    Path,
    /// Data the task hands over (`write()`); its length is the next
    /// argument. Shown quoted, up to 32 bytes.
    OutBuf,
    /// Data the syscall fills in (`read()`); its length is the return
    /// value. Shown quoted, up to 32 bytes, once the syscall succeeded.
    InBuf,
    /// A file mode, octal.
    Mode,
    /// `O_*` flags of `open()`.
    OpenFlags,
    /// `O_CLOEXEC`, `O_NONBLOCK`... of `pipe2()` and `dup3()`.
    FdFlags,
    /// `AT_*` flags.
    AtFlags,
    /// `PROT_*` of `mmap()`/`mprotect()`.
    Prot,
    /// `MAP_*` of `mmap()`.
    MapFlags,
    /// `F_OK` or `R_OK|W_OK|X_OK` of `access()`.
    AccessMode,
    /// A signal number: `SIGTERM`.
    Signal,
    /// `SIG_BLOCK`, `SIG_UNBLOCK`, `SIG_SETMASK`.
    SigHow,
    /// `CLONE_*` flags and the exit signal.
    CloneFlags,
    /// `WNOHANG` and friends of `wait4()`.
    WaitOptions,
    /// `AF_*` of `socket()`.
    Domain,
    /// `SOCK_*` of `socket()`.
    SockType,
    /// A `struct __kernel_timespec *` (64-bit fields): `{tv_sec=1,
    /// tv_nsec=0}`.
    Timespec,
    /// i386's `struct old_timespec32 *` (32-bit fields), shown the same.
    Timespec32,
    /// The `int[2]` that `pipe()` fills: `[3, 4]` once it succeeded.
    PipeFds,
    /// `SEEK_SET`, `SEEK_CUR`, `SEEK_END`.
    Whence,
    /// A `clockid_t`: `CLOCK_REALTIME`, `CLOCK_MONOTONIC`...
    ClockId,
    /// The flags of `clock_nanosleep()`: `0` or `TIMER_ABSTIME`.
    TimerFlags,
}

use Arg::*;

/// How the return value reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ret {
    /// Decimal (or `-1 ERRNO (text)`).
    Dec,
    /// An address, hex (`mmap()`, `brk()`; 32 bits for i386).
    Addr,
}

/// One syscall the tracer decodes.
pub struct Syscall {
    pub nr: u16,
    pub name: &'static str,
    pub args: &'static [Arg],
    pub ret: Ret,
}

const fn sys(nr: u16, name: &'static str, args: &'static [Arg]) -> Syscall {
    Syscall {
        nr,
        name,
        args,
        ret: Ret::Dec,
    }
}

const fn sys_addr(nr: u16, name: &'static str, args: &'static [Arg]) -> Syscall {
    Syscall {
        nr,
        name,
        args,
        ret: Ret::Addr,
    }
}

/// The decoded x86-64 syscalls (`arch/x86/entry/syscalls/syscall_64.tbl`).
const SYSCALLS_64: &[Syscall] = &[
    sys(0, "read", &[Fd, InBuf, UInt]),
    sys(1, "write", &[Fd, OutBuf, UInt]),
    sys(2, "open", &[Path, OpenFlags, Mode]),
    sys(3, "close", &[Fd]),
    sys(4, "stat", &[Path, Ptr]),
    sys(5, "fstat", &[Fd, Ptr]),
    sys(6, "lstat", &[Path, Ptr]),
    sys(7, "poll", &[Ptr, UInt, Int]),
    sys(8, "lseek", &[Fd, Off, Whence]),
    sys_addr(9, "mmap", &[Ptr, UInt, Prot, MapFlags, Fd, Hex]),
    sys(10, "mprotect", &[Ptr, UInt, Prot]),
    sys(11, "munmap", &[Ptr, UInt]),
    sys_addr(12, "brk", &[Ptr]),
    sys(13, "rt_sigaction", &[Signal, Ptr, Ptr, UInt]),
    sys(14, "rt_sigprocmask", &[SigHow, Ptr, Ptr, UInt]),
    sys(15, "rt_sigreturn", &[]),
    sys(16, "ioctl", &[Fd, Hex, Hex]),
    sys(17, "pread64", &[Fd, InBuf, UInt, Off]),
    sys(18, "pwrite64", &[Fd, OutBuf, UInt, Off]),
    sys(19, "readv", &[Fd, Ptr, UInt]),
    sys(20, "writev", &[Fd, Ptr, UInt]),
    sys(21, "access", &[Path, AccessMode]),
    sys(22, "pipe", &[PipeFds]),
    sys(23, "select", &[Int, Ptr, Ptr, Ptr, Ptr]),
    sys(24, "sched_yield", &[]),
    sys_addr(25, "mremap", &[Ptr, UInt, UInt, Hex, Ptr]),
    sys(28, "madvise", &[Ptr, UInt, Int]),
    sys(32, "dup", &[Fd]),
    sys(33, "dup2", &[Fd, Fd]),
    sys(34, "pause", &[]),
    sys(35, "nanosleep", &[Timespec, Ptr]),
    sys(37, "alarm", &[UInt]),
    sys(39, "getpid", &[]),
    sys(41, "socket", &[Domain, SockType, Int]),
    sys(42, "connect", &[Fd, Ptr, UInt]),
    sys(43, "accept", &[Fd, Ptr, Ptr]),
    sys(44, "sendto", &[Fd, OutBuf, UInt, Hex, Ptr, UInt]),
    sys(45, "recvfrom", &[Fd, InBuf, UInt, Hex, Ptr, Ptr]),
    sys(48, "shutdown", &[Fd, Int]),
    sys(49, "bind", &[Fd, Ptr, UInt]),
    sys(50, "listen", &[Fd, Int]),
    sys(53, "socketpair", &[Domain, SockType, Int, Ptr]),
    sys(56, "clone", &[CloneFlags, Ptr, Ptr, Ptr, Hex]),
    sys(57, "fork", &[]),
    sys(58, "vfork", &[]),
    sys(59, "execve", &[Path, Ptr, Ptr]),
    sys(60, "exit", &[Int]),
    sys(61, "wait4", &[Int, Ptr, WaitOptions, Ptr]),
    sys(62, "kill", &[Int, Signal]),
    sys(63, "uname", &[Ptr]),
    sys(72, "fcntl", &[Fd, Int, Hex]),
    sys(74, "fsync", &[Fd]),
    sys(76, "truncate", &[Path, Off]),
    sys(77, "ftruncate", &[Fd, Off]),
    sys(78, "getdents", &[Fd, Ptr, UInt]),
    sys(79, "getcwd", &[Ptr, UInt]),
    sys(80, "chdir", &[Path]),
    sys(81, "fchdir", &[Fd]),
    sys(82, "rename", &[Path, Path]),
    sys(83, "mkdir", &[Path, Mode]),
    sys(84, "rmdir", &[Path]),
    sys(85, "creat", &[Path, Mode]),
    sys(86, "link", &[Path, Path]),
    sys(87, "unlink", &[Path]),
    sys(88, "symlink", &[Path, Path]),
    sys(89, "readlink", &[Path, Ptr, UInt]),
    sys(90, "chmod", &[Path, Mode]),
    sys(91, "fchmod", &[Fd, Mode]),
    sys(95, "umask", &[Mode]),
    sys(102, "getuid", &[]),
    sys(104, "getgid", &[]),
    sys(107, "geteuid", &[]),
    sys(108, "getegid", &[]),
    sys(109, "setpgid", &[Int, Int]),
    sys(110, "getppid", &[]),
    sys(111, "getpgrp", &[]),
    sys(112, "setsid", &[]),
    sys(158, "arch_prctl", &[Hex, Hex]),
    sys(186, "gettid", &[]),
    sys(202, "futex", &[Ptr, Int, Int, Ptr, Ptr, Int]),
    sys(217, "getdents64", &[Fd, Ptr, UInt]),
    sys(218, "set_tid_address", &[Ptr]),
    sys(228, "clock_gettime", &[ClockId, Ptr]),
    sys(
        230,
        "clock_nanosleep",
        &[ClockId, TimerFlags, Timespec, Ptr],
    ),
    sys(231, "exit_group", &[Int]),
    sys(234, "tgkill", &[Int, Int, Signal]),
    sys(257, "openat", &[DirFd, Path, OpenFlags, Mode]),
    sys(258, "mkdirat", &[DirFd, Path, Mode]),
    sys(262, "newfstatat", &[DirFd, Path, Ptr, AtFlags]),
    sys(263, "unlinkat", &[DirFd, Path, AtFlags]),
    sys(264, "renameat", &[DirFd, Path, DirFd, Path]),
    sys(267, "readlinkat", &[DirFd, Path, Ptr, UInt]),
    sys(269, "faccessat", &[DirFd, Path, AccessMode]),
    sys(270, "pselect6", &[Int, Ptr, Ptr, Ptr, Ptr, Ptr]),
    sys(271, "ppoll", &[Ptr, UInt, Ptr, Ptr, UInt]),
    sys(273, "set_robust_list", &[Ptr, UInt]),
    sys(292, "dup3", &[Fd, Fd, FdFlags]),
    sys(293, "pipe2", &[PipeFds, FdFlags]),
    sys(302, "prlimit64", &[Int, Int, Ptr, Ptr]),
    sys(318, "getrandom", &[Ptr, UInt, Hex]),
    sys(322, "execveat", &[DirFd, Path, Ptr, Ptr, AtFlags]),
    sys(332, "statx", &[DirFd, Path, AtFlags, Hex, Ptr]),
    sys(334, "rseq", &[Ptr, UInt, Int, Hex]),
    sys(435, "clone3", &[Ptr, UInt]),
    sys(439, "faccessat2", &[DirFd, Path, AccessMode, AtFlags]),
];

/// The decoded i386 syscalls (`arch/x86/entry/syscalls/syscall_32.tbl`):
/// those of x86-64 that i386 has, under the same names and with the i386
/// argument order, and the i386 ones that its C libraries use instead
/// (`mmap2`, `fstat64`, `getuid32`, the `*_time64` calls, ...).
const SYSCALLS_32: &[Syscall] = &[
    sys(1, "exit", &[Int]),
    sys(2, "fork", &[]),
    sys(3, "read", &[Fd, InBuf, UInt]),
    sys(4, "write", &[Fd, OutBuf, UInt]),
    sys(5, "open", &[Path, OpenFlags, Mode]),
    sys(6, "close", &[Fd]),
    sys(7, "waitpid", &[Int, Ptr, WaitOptions]),
    sys(8, "creat", &[Path, Mode]),
    sys(9, "link", &[Path, Path]),
    sys(10, "unlink", &[Path]),
    sys(11, "execve", &[Path, Ptr, Ptr]),
    sys(12, "chdir", &[Path]),
    sys(15, "chmod", &[Path, Mode]),
    sys(19, "lseek", &[Fd, Off, Whence]),
    sys(20, "getpid", &[]),
    sys(24, "getuid", &[]),
    sys(27, "alarm", &[UInt]),
    sys(29, "pause", &[]),
    sys(33, "access", &[Path, AccessMode]),
    sys(37, "kill", &[Int, Signal]),
    sys(38, "rename", &[Path, Path]),
    sys(39, "mkdir", &[Path, Mode]),
    sys(40, "rmdir", &[Path]),
    sys(41, "dup", &[Fd]),
    sys(42, "pipe", &[PipeFds]),
    sys_addr(45, "brk", &[Ptr]),
    sys(47, "getgid", &[]),
    sys(49, "geteuid", &[]),
    sys(50, "getegid", &[]),
    sys(54, "ioctl", &[Fd, Hex, Hex]),
    sys(55, "fcntl", &[Fd, Int, Hex]),
    sys(57, "setpgid", &[Int, Int]),
    sys(60, "umask", &[Mode]),
    sys(63, "dup2", &[Fd, Fd]),
    sys(64, "getppid", &[]),
    sys(65, "getpgrp", &[]),
    sys(66, "setsid", &[]),
    // old_select() and old_mmap(): one pointer to the arguments.
    sys(82, "select", &[Ptr]),
    sys(83, "symlink", &[Path, Path]),
    sys(85, "readlink", &[Path, Ptr, UInt]),
    sys_addr(90, "mmap", &[Ptr]),
    sys(91, "munmap", &[Ptr, UInt]),
    sys(92, "truncate", &[Path, Off]),
    sys(93, "ftruncate", &[Fd, Off]),
    sys(94, "fchmod", &[Fd, Mode]),
    sys(102, "socketcall", &[Int, Ptr]),
    sys(106, "stat", &[Path, Ptr]),
    sys(107, "lstat", &[Path, Ptr]),
    sys(108, "fstat", &[Fd, Ptr]),
    sys(114, "wait4", &[Int, Ptr, WaitOptions, Ptr]),
    sys(118, "fsync", &[Fd]),
    sys(119, "sigreturn", &[]),
    // i386's order: flags, stack, parent tid, tls, child tid.
    sys(120, "clone", &[CloneFlags, Ptr, Ptr, Hex, Ptr]),
    sys(122, "uname", &[Ptr]),
    sys(125, "mprotect", &[Ptr, UInt, Prot]),
    sys(133, "fchdir", &[Fd]),
    sys(141, "getdents", &[Fd, Ptr, UInt]),
    sys(142, "_newselect", &[Int, Ptr, Ptr, Ptr, Ptr]),
    sys(145, "readv", &[Fd, Ptr, UInt]),
    sys(146, "writev", &[Fd, Ptr, UInt]),
    sys(158, "sched_yield", &[]),
    sys(162, "nanosleep", &[Timespec32, Ptr]),
    sys_addr(163, "mremap", &[Ptr, UInt, UInt, Hex, Ptr]),
    sys(168, "poll", &[Ptr, UInt, Int]),
    sys(173, "rt_sigreturn", &[]),
    sys(174, "rt_sigaction", &[Signal, Ptr, Ptr, UInt]),
    sys(175, "rt_sigprocmask", &[SigHow, Ptr, Ptr, UInt]),
    sys(180, "pread64", &[Fd, InBuf, UInt, OffLoHi]),
    sys(181, "pwrite64", &[Fd, OutBuf, UInt, OffLoHi]),
    sys(183, "getcwd", &[Ptr, UInt]),
    sys(190, "vfork", &[]),
    sys(191, "ugetrlimit", &[Int, Ptr]),
    sys_addr(192, "mmap2", &[Ptr, UInt, Prot, MapFlags, Fd, Hex]),
    sys(193, "truncate64", &[Path, OffLoHi]),
    sys(194, "ftruncate64", &[Fd, OffLoHi]),
    sys(195, "stat64", &[Path, Ptr]),
    sys(196, "lstat64", &[Path, Ptr]),
    sys(197, "fstat64", &[Fd, Ptr]),
    sys(199, "getuid32", &[]),
    sys(200, "getgid32", &[]),
    sys(201, "geteuid32", &[]),
    sys(202, "getegid32", &[]),
    sys(219, "madvise", &[Ptr, UInt, Int]),
    sys(220, "getdents64", &[Fd, Ptr, UInt]),
    sys(221, "fcntl64", &[Fd, Int, Hex]),
    sys(224, "gettid", &[]),
    sys(240, "futex", &[Ptr, Int, Int, Ptr, Ptr, Int]),
    sys(243, "set_thread_area", &[Ptr]),
    sys(252, "exit_group", &[Int]),
    sys(258, "set_tid_address", &[Ptr]),
    sys(265, "clock_gettime", &[ClockId, Ptr]),
    sys(
        267,
        "clock_nanosleep",
        &[ClockId, TimerFlags, Timespec32, Ptr],
    ),
    sys(270, "tgkill", &[Int, Int, Signal]),
    sys(295, "openat", &[DirFd, Path, OpenFlags, Mode]),
    sys(296, "mkdirat", &[DirFd, Path, Mode]),
    sys(300, "fstatat64", &[DirFd, Path, Ptr, AtFlags]),
    sys(301, "unlinkat", &[DirFd, Path, AtFlags]),
    sys(302, "renameat", &[DirFd, Path, DirFd, Path]),
    sys(305, "readlinkat", &[DirFd, Path, Ptr, UInt]),
    sys(307, "faccessat", &[DirFd, Path, AccessMode]),
    sys(308, "pselect6", &[Int, Ptr, Ptr, Ptr, Ptr, Ptr]),
    sys(309, "ppoll", &[Ptr, UInt, Ptr, Ptr, UInt]),
    sys(311, "set_robust_list", &[Ptr, UInt]),
    sys(330, "dup3", &[Fd, Fd, FdFlags]),
    sys(331, "pipe2", &[PipeFds, FdFlags]),
    sys(340, "prlimit64", &[Int, Int, Ptr, Ptr]),
    sys(355, "getrandom", &[Ptr, UInt, Hex]),
    sys(358, "execveat", &[DirFd, Path, Ptr, Ptr, AtFlags]),
    sys(359, "socket", &[Domain, SockType, Int]),
    sys(360, "socketpair", &[Domain, SockType, Int, Ptr]),
    sys(361, "bind", &[Fd, Ptr, UInt]),
    sys(362, "connect", &[Fd, Ptr, UInt]),
    sys(363, "listen", &[Fd, Int]),
    sys(364, "accept4", &[Fd, Ptr, Ptr, FdFlags]),
    sys(369, "sendto", &[Fd, OutBuf, UInt, Hex, Ptr, UInt]),
    sys(371, "recvfrom", &[Fd, InBuf, UInt, Hex, Ptr, Ptr]),
    sys(373, "shutdown", &[Fd, Int]),
    sys(383, "statx", &[DirFd, Path, AtFlags, Hex, Ptr]),
    sys(384, "arch_prctl", &[Hex, Hex]),
    sys(386, "rseq", &[Ptr, UInt, Int, Hex]),
    sys(403, "clock_gettime64", &[ClockId, Ptr]),
    sys(
        407,
        "clock_nanosleep_time64",
        &[ClockId, TimerFlags, Timespec, Ptr],
    ),
    sys(413, "pselect6_time64", &[Int, Ptr, Ptr, Ptr, Ptr, Ptr]),
    sys(414, "ppoll_time64", &[Ptr, UInt, Ptr, Ptr, UInt]),
    sys(422, "futex_time64", &[Ptr, Int, Int, Ptr, Ptr, Int]),
    sys(435, "clone3", &[Ptr, UInt]),
    sys(439, "faccessat2", &[DirFd, Path, AccessMode, AtFlags]),
];

/// One past the highest number in either table.
const MAX_NR: usize = 440;

/// `by_nr(table)[nr]`: the index of syscall `nr` in `table` plus one, or 0.
const fn by_nr(table: &[Syscall]) -> [u8; MAX_NR] {
    let mut out = [0u8; MAX_NR];
    let mut i = 0;
    while i < table.len() {
        let nr = table[i].nr as usize;
        assert!(nr < MAX_NR && out[nr] == 0 && i < 255);
        out[nr] = (i + 1) as u8;
        i += 1;
    }
    out
}

/// The decoded syscalls of one ABI.
pub struct Table {
    syscalls: &'static [Syscall],
    by_nr: [u8; MAX_NR],
    /// Those that do not return (`exit`, `exit_group`, `rt_sigreturn`,
    /// i386's `sigreturn`): shown as they are entered.
    no_return: &'static [i64],
    /// `execve` and `execveat`.
    exec: [i64; 2],
    /// `clone`, `fork`, `vfork` and `clone3`.
    fork: [i64; 4],
    /// `restart_syscall`.
    restart: i64,
}

static X86_64: Table = Table {
    syscalls: SYSCALLS_64,
    by_nr: by_nr(SYSCALLS_64),
    no_return: &[60, 231, 15],
    exec: [59, 322],
    fork: [56, 57, 58, 435],
    restart: 219,
};

static I386: Table = Table {
    syscalls: SYSCALLS_32,
    by_nr: by_nr(SYSCALLS_32),
    no_return: &[1, 252, 173, 119],
    exec: [11, 358],
    fork: [120, 2, 190, 435],
    restart: 0,
};

/// The table of syscall ABI `abi` (x32 and unknown ABIs have none).
pub fn table(abi: Abi) -> Option<&'static Table> {
    match abi {
        Abi::X86_64 => Some(&X86_64),
        Abi::I386 => Some(&I386),
        _ => None,
    }
}

const TBL_64: &str = include_str!("syscall_64.tbl");
const TBL_32: &str = include_str!("syscall_32.tbl");

/// `(nr, name)` of the lines of a `syscall_*.tbl` whose ABI is one of
/// `abis`.
fn tbl<'a>(text: &'a str, abis: &'a [&'a str]) -> impl Iterator<Item = (u32, &'a str)> + 'a {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(move |l| {
            let mut f = l.split_whitespace();
            let nr = f.next()?.parse().ok()?;
            let abi = f.next()?;
            let name = f.next()?;
            abis.contains(&abi).then_some((nr, name))
        })
}

/// The names of an ABI's table by number, parsed once: a tracer looks a
/// name up at every syscall, and a walk of the table text costs tens of
/// thousands of instructions.
fn names(abi: Abi) -> Option<&'static [Option<&'static str>]> {
    static NAMES_64: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    static NAMES_32: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    static NAMES_X32: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    let (cell, text, abis): (_, _, &'static [&'static str]) = match abi {
        Abi::X86_64 => (&NAMES_64, TBL_64, &["common", "64"]),
        Abi::I386 => (&NAMES_32, TBL_32, &["i386"]),
        Abi::X32 => (&NAMES_X32, TBL_64, &["common", "x32"]),
        Abi::Other(_) => return None,
    };
    Some(cell.get_or_init(|| {
        let mut v = Vec::new();
        for (nr, name) in tbl(text, abis) {
            let i = nr as usize;
            if v.len() <= i {
                v.resize(i + 1, None);
            }
            v[i] = Some(name);
        }
        v
    }))
}

/// The bit x32's syscall numbers carry (`__X32_SYSCALL_BIT`).
pub const X32_BIT: i64 = 0x4000_0000;

/// The name of syscall `nr` of ABI `abi`, if the kernel's table has one
/// (x32 numbers carry [`X32_BIT`]).
pub fn name(abi: Abi, nr: i64) -> Option<&'static str> {
    let nr = if abi == Abi::X32 {
        nr.checked_sub(X32_BIT)?
    } else {
        nr
    };
    let i = usize::try_from(nr).ok()?;
    names(abi)?.get(i).copied().flatten()
}

/// The number of the syscall named `name` in ABI `abi`.
pub fn number(abi: Abi, name: &str) -> Option<i64> {
    let e = match abi {
        Abi::X86_64 => tbl(TBL_64, &["common", "64"]).find(|e| e.1 == name),
        Abi::I386 => tbl(TBL_32, &["i386"]).find(|e| e.1 == name),
        _ => None,
    };
    e.map(|e| i64::from(e.0))
}

impl Table {
    /// The syscall numbered `nr`, if decoded.
    pub fn by_number(&self, nr: i64) -> Option<&'static Syscall> {
        let i = *self.by_nr.get(usize::try_from(nr).ok()?)?;
        self.syscalls.get(usize::from(i).checked_sub(1)?)
    }

    /// Every decoded syscall.
    pub fn syscalls(&self) -> &'static [Syscall] {
        self.syscalls
    }

    /// The syscall named `name`, if decoded.
    pub fn by_name(&self, name: &[u8]) -> Option<&'static Syscall> {
        self.syscalls.iter().find(|s| s.name.as_bytes() == name)
    }

    /// Whether syscall `nr` does not return to its caller (it is shown at
    /// entry).
    pub fn no_return(&self, nr: i64) -> bool {
        self.no_return.contains(&nr)
    }

    /// Whether syscall `nr` is an exec, whose success (a 0 return) the EXEC
    /// report shows.
    pub fn is_exec(&self, nr: i64) -> bool {
        self.exec.contains(&nr)
    }

    /// Whether syscall `nr` makes a task (whose return in the new task is
    /// 0).
    pub fn is_fork(&self, nr: i64) -> bool {
        self.fork.contains(&nr)
    }

    /// Whether syscall `nr` is `restart_syscall`, which resumes a call that
    /// returned `ERESTART_RESTARTBLOCK`.
    pub fn is_restart(&self, nr: i64) -> bool {
        nr == self.restart
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_exec_restart_by_name() {
        for abi in [Abi::X86_64, Abi::I386] {
            let t = table(abi).unwrap();
            for n in ["clone", "fork", "vfork", "clone3"] {
                assert!(t.is_fork(number(abi, n).unwrap()), "{n}");
            }
            for n in ["execve", "execveat"] {
                assert!(t.is_exec(number(abi, n).unwrap()), "{n}");
            }
            assert!(t.is_restart(number(abi, "restart_syscall").unwrap()));
        }
    }

    #[test]
    fn names_from_the_kernel_tables() {
        assert_eq!(name(Abi::X86_64, 0), Some("read"));
        assert_eq!(name(Abi::X86_64, 257), Some("openat"));
        assert_eq!(name(Abi::X86_64, 435), Some("clone3"));
        assert_eq!(name(Abi::I386, 5), Some("open"));
        assert_eq!(name(Abi::I386, 192), Some("mmap2"));
        // x32-only numbers are not x86-64's.
        assert_eq!(name(Abi::X86_64, 512), None);
        assert_eq!(name(Abi::X86_64, -1), None);
        assert_eq!(name(Abi::X86_64, 100_000), None);
        assert_eq!(number(Abi::X86_64, "getppid"), Some(110));
        assert_eq!(number(Abi::I386, "getppid"), Some(64));
    }

    #[test]
    fn decoded_table_agrees_with_the_kernel_names() {
        for (abi, t) in [(Abi::X86_64, &X86_64), (Abi::I386, &I386)] {
            for s in t.syscalls {
                assert_eq!(name(abi, i64::from(s.nr)), Some(s.name), "{abi:?} {}", s.nr);
            }
        }
    }
}
