// SPDX-License-Identifier: GPL-2.0

//! The x86-64 syscalls syscall_trace decodes: number, name, what each
//! argument is and how the return value reads. Any other syscall is shown
//! as `syscall_<nr>(<six raw hex arguments>)`.

/// What an argument is, for its decoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    /// A signed `int`, decimal.
    Int,
    /// A file offset or length (`off_t`, `long`), decimal.
    Off,
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
    /// A `struct timespec *`: `{tv_sec=1, tv_nsec=0}`.
    Timespec,
    /// The `int[2]` that `pipe()` fills: `[3, 4]` once it succeeded.
    PipeFds,
    /// `SEEK_SET`, `SEEK_CUR`, `SEEK_END`.
    Whence,
}

use Arg::*;

/// How the return value reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ret {
    /// Decimal (or `-1 ERRNO (text)`).
    Dec,
    /// An address, hex (`mmap()`, `brk()`).
    Addr,
}

/// One syscall the tracer decodes.
pub(crate) struct Syscall {
    pub(crate) nr: u16,
    pub(crate) name: &'static str,
    pub(crate) args: &'static [Arg],
    pub(crate) ret: Ret,
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

pub(crate) const RT_SIGRETURN: i64 = 15;
pub(crate) const EXECVE: i64 = 59;
pub(crate) const EXIT: i64 = 60;
pub(crate) const EXIT_GROUP: i64 = 231;
pub(crate) const EXECVEAT: i64 = 322;

/// Whether syscall `nr` is an exec, whose success (a 0 return) the EXEC
/// report shows.
pub(crate) fn is_exec(nr: i64) -> bool {
    matches!(nr, EXECVE | EXECVEAT)
}

/// The decoded syscalls (x86-64 numbers, `arch/x86/entry/syscalls/syscall_64.tbl`).
pub(crate) const SYSCALLS: &[Syscall] = &[
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
    sys(228, "clock_gettime", &[Int, Ptr]),
    sys(230, "clock_nanosleep", &[Int, Int, Timespec, Ptr]),
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

/// One past the highest number in [`SYSCALLS`].
const MAX_NR: usize = 440;

/// `BY_NR[nr]`: the index of syscall `nr` in [`SYSCALLS`] plus one, or 0.
static BY_NR: [u8; MAX_NR] = by_nr();

const fn by_nr() -> [u8; MAX_NR] {
    let mut out = [0u8; MAX_NR];
    let mut i = 0;
    while i < SYSCALLS.len() {
        let nr = SYSCALLS[i].nr as usize;
        assert!(nr < MAX_NR && out[nr] == 0 && i < 255);
        out[nr] = (i + 1) as u8;
        i += 1;
    }
    out
}

/// The syscall numbered `nr`, if decoded.
pub(crate) fn by_number(nr: i64) -> Option<&'static Syscall> {
    let i = *BY_NR.get(usize::try_from(nr).ok()?)?;
    SYSCALLS.get(usize::from(i).checked_sub(1)?)
}

/// The syscall named `name`, if decoded.
pub(crate) fn by_name(name: &[u8]) -> Option<&'static Syscall> {
    SYSCALLS.iter().find(|s| s.name.as_bytes() == name)
}
