// SPDX-License-Identifier: GPL-2.0

//! Errno names and texts as strace prints them (`ENOENT (No such file or
//! directory)`): the C library's names (through nix) and texts
//! (`strerror()`, which strace prints too; nix's own texts are the kernel
//! header's comments, "Bad file number" for EBADF), plus the kernel's
//! restart codes, which user space never sees but a syscall exit record
//! can carry.

use nix::errno::Errno;
use std::sync::OnceLock;

/// The restart code of a call that `restart_syscall` resumes.
pub const ERESTART_RESTARTBLOCK: i32 = 516;

const RESTART: &[(i32, &str, &str)] = &[
    (512, "ERESTARTSYS", "To be restarted if SA_RESTART is set"),
    (513, "ERESTARTNOINTR", "To be restarted"),
    (514, "ERESTARTNOHAND", "To be restarted if no handler"),
    (515, "ENOIOCTLCMD", "No ioctl command"),
    (
        ERESTART_RESTARTBLOCK,
        "ERESTART_RESTARTBLOCK",
        "Interrupted by signal",
    ),
];

/// Errnos below this are looked up in a table made once (the C library's
/// go up to 133).
const TABLE: usize = 256;

/// The C library's text of `e`: `strerror()`'s, as std reports it.
fn text(e: i32) -> String {
    let s = std::io::Error::from_raw_os_error(e).to_string();
    let suffix = format!(" (os error {e})");
    s.strip_suffix(&suffix).map(str::to_string).unwrap_or(s)
}

/// The C library's errno names (nix's `Errno` names them by `Debug`) and
/// texts, made once: a trace names an errno per failed call.
fn table() -> &'static [Option<(String, String)>] {
    static NAMES: OnceLock<Vec<Option<(String, String)>>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..TABLE as i32)
            .map(|e| {
                let n = Errno::from_raw(e);
                (e > 0 && n != Errno::UnknownErrno).then(|| (format!("{n:?}"), text(e)))
            })
            .collect()
    })
}

/// The name and text of `errno` (positive), if known.
pub fn describe(errno: i32) -> Option<(&'static str, &'static str)> {
    match usize::try_from(errno) {
        Ok(e) if e < TABLE => table()[e].as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
        _ => RESTART
            .iter()
            .find(|e| e.0 == errno)
            .map(|&(_, name, text)| (name, text)),
    }
}

/// Whether `errno` is one of the kernel-internal restart codes.
pub fn is_restart(errno: i32) -> bool {
    (512..=516).contains(&errno)
}

/// The errno named `name` (`ENOENT`), if known.
pub fn by_name(name: &str) -> Option<i32> {
    (1..=4095).find(|&e| describe(e).is_some_and(|(n, _)| n == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(describe(2), Some(("ENOENT", "No such file or directory")));
        assert_eq!(describe(1).map(|d| d.0), Some("EPERM"));
        // strerror()'s texts, as strace prints them.
        assert_eq!(describe(9), Some(("EBADF", "Bad file descriptor")));
        assert_eq!(
            describe(11),
            Some(("EAGAIN", "Resource temporarily unavailable"))
        );
        assert_eq!(describe(512).map(|d| d.0), Some("ERESTARTSYS"));
        assert_eq!(describe(4000), None);
        assert_eq!(by_name("EACCES"), Some(13));
        assert_eq!(by_name("ENOPE"), None);
        assert!(is_restart(516) && !is_restart(4));
    }
}
