// SPDX-License-Identifier: GPL-2.0

//! Errno names and their texts, as strace prints them: `-1 ENOENT (No such
//! file or directory)`.

/// `(errno, name, text)`.
const ERRNOS: &[(i32, &str, &str)] = &[
    (1, "EPERM", "Operation not permitted"),
    (2, "ENOENT", "No such file or directory"),
    (3, "ESRCH", "No such process"),
    (4, "EINTR", "Interrupted system call"),
    (5, "EIO", "Input/output error"),
    (6, "ENXIO", "No such device or address"),
    (7, "E2BIG", "Argument list too long"),
    (8, "ENOEXEC", "Exec format error"),
    (9, "EBADF", "Bad file descriptor"),
    (10, "ECHILD", "No child processes"),
    (11, "EAGAIN", "Resource temporarily unavailable"),
    (12, "ENOMEM", "Cannot allocate memory"),
    (13, "EACCES", "Permission denied"),
    (14, "EFAULT", "Bad address"),
    (16, "EBUSY", "Device or resource busy"),
    (17, "EEXIST", "File exists"),
    (18, "EXDEV", "Invalid cross-device link"),
    (19, "ENODEV", "No such device"),
    (20, "ENOTDIR", "Not a directory"),
    (21, "EISDIR", "Is a directory"),
    (22, "EINVAL", "Invalid argument"),
    (23, "ENFILE", "Too many open files in system"),
    (24, "EMFILE", "Too many open files"),
    (25, "ENOTTY", "Inappropriate ioctl for device"),
    (26, "ETXTBSY", "Text file busy"),
    (27, "EFBIG", "File too large"),
    (28, "ENOSPC", "No space left on device"),
    (29, "ESPIPE", "Illegal seek"),
    (30, "EROFS", "Read-only file system"),
    (31, "EMLINK", "Too many links"),
    (32, "EPIPE", "Broken pipe"),
    (33, "EDOM", "Numerical argument out of domain"),
    (34, "ERANGE", "Numerical result out of range"),
    (35, "EDEADLK", "Resource deadlock avoided"),
    (36, "ENAMETOOLONG", "File name too long"),
    (38, "ENOSYS", "Function not implemented"),
    (39, "ENOTEMPTY", "Directory not empty"),
    (40, "ELOOP", "Too many levels of symbolic links"),
    (61, "ENODATA", "No data available"),
    (62, "ETIME", "Timer expired"),
    (75, "EOVERFLOW", "Value too large for defined data type"),
    (88, "ENOTSOCK", "Socket operation on non-socket"),
    (95, "EOPNOTSUPP", "Operation not supported"),
    (
        97,
        "EAFNOSUPPORT",
        "Address family not supported by protocol",
    ),
    (98, "EADDRINUSE", "Address already in use"),
    (104, "ECONNRESET", "Connection reset by peer"),
    (110, "ETIMEDOUT", "Connection timed out"),
    (111, "ECONNREFUSED", "Connection refused"),
    (114, "EALREADY", "Operation already in progress"),
    (115, "EINPROGRESS", "Operation now in progress"),
    (512, "ERESTARTSYS", "To be restarted if SA_RESTART is set"),
    (513, "ERESTARTNOINTR", "To be restarted"),
    (514, "ERESTARTNOHAND", "To be restarted if no handler"),
    (516, "ERESTART_RESTARTBLOCK", "Interrupted by signal"),
];

/// The name and text of `errno` (positive), if known.
pub(crate) fn describe(errno: i32) -> Option<(&'static str, &'static str)> {
    ERRNOS
        .iter()
        .find(|e| e.0 == errno)
        .map(|&(_, name, text)| (name, text))
}

/// The errno named `name` (`ENOENT`), if known.
pub(crate) fn by_name(name: &[u8]) -> Option<i32> {
    ERRNOS.iter().find(|e| e.1.as_bytes() == name).map(|e| e.0)
}

/// Whether `errno` is one of the kernel-internal restart codes (the task
/// never sees them: the syscall restarts or returns `EINTR`).
pub(crate) fn is_restart(errno: i32) -> bool {
    (512..=516).contains(&errno)
}
