// SPDX-License-Identifier: GPL-2.0

//! include/uapi/utrace_rs.h in Rust: its constants (generated at build
//! time from the header by uapi-gen.c), the layout of its records
//! ([`layout`], offsets the parser reads at) and the ioctl argument
//! structs, whose every field offset and size is asserted at compile time
//! against what the C compiler says.

#![allow(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/uapi_gen.rs"));

/// `struct utrace_info`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Info {
    pub size: u32,
    pub version: u32,
    pub record_size: u32,
    pub reserved0: u32,
    pub events: u64,
    pub attach_flags: u64,
    pub buffer_bytes: u64,
    pub buffer_max: u64,
}

/// `struct utrace_config`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Config {
    pub size: u32,
    pub flags: u32,
    pub buffer_bytes: u64,
    pub reserved: [u64; 2],
}

/// `struct utrace_attach`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Attach {
    pub size: u32,
    pub flags: u32,
    pub pid: i32,
    pub pidfd: i32,
    pub events: u64,
    pub engine_id: u64,
    pub reserved: [u64; 2],
}

/// `struct utrace_detach`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Detach {
    pub size: u32,
    pub flags: u32,
    pub engine_id: u64,
    pub reserved: u64,
}

/// `struct utrace_control`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Control {
    pub size: u32,
    pub action: u32,
    pub engine_id: u64,
    pub tid: i32,
    pub flags: u32,
    pub events: u64,
    pub reserved: u64,
}

/// `struct utrace_decide`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Decide {
    pub size: u32,
    pub verdict: u32,
    pub engine_id: u64,
    pub seq: u64,
    pub flags: u32,
    pub value: i32,
    pub args: [u64; 6],
    pub siginfo: [u8; SIGINFO_SIZE],
    pub reserved: u64,
}

impl Default for Decide {
    fn default() -> Self {
        Decide {
            size: 0,
            verdict: 0,
            engine_id: 0,
            seq: 0,
            flags: 0,
            value: 0,
            args: [0; 6],
            siginfo: [0; SIGINFO_SIZE],
            reserved: 0,
        }
    }
}

/// `struct utrace_regs`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Regs {
    pub size: u32,
    pub note_type: u32,
    pub engine_id: u64,
    pub tid: i32,
    pub flags: u32,
    pub buf: u64,
    pub len: u64,
    pub reserved: u64,
}

impl Regs {
    /// The struct with `size` set. Not an [`IoctlArg`]: its `buf` is a
    /// pointer the kernel writes through, so only `sys` sets it.
    pub fn new() -> Self {
        Regs {
            size: core::mem::size_of::<Regs>() as u32,
            ..Self::default()
        }
    }
}

/// `struct utrace_handoff`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Handoff {
    pub size: u32,
    pub flags: u32,
    pub engine_id: u64,
    pub to_fd: i32,
    pub reserved0: u32,
    pub to_engine_id: u64,
    pub reserved: u64,
}

/// `struct utrace_capture`. Not an [`IoctlArg`]: its `items` is a
/// pointer the kernel reads through, so only `sys` sets it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Capture {
    pub size: u32,
    pub flags: u32,
    pub count: u32,
    pub reserved0: u32,
    pub items: u64,
    pub reserved: u64,
}

/// `struct utrace_capture_item`: one piece of user memory the session's
/// syscall records carry.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureItem {
    pub nr: u16,
    pub abi: u8,
    pub arg: u8,
    pub kind: u8,
    pub len_arg: u8,
    pub flags: u8,
    pub reserved0: u8,
    pub max: u16,
    pub reserved1: u16,
    pub reserved2: u32,
}

/// `struct utrace_syscalls`: which syscalls the session records.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Syscalls {
    pub size: u32,
    pub flags: u32,
    pub reserved: u64,
    pub entry: [u64; SYSCALLS_WORDS],
    pub exit: [u64; SYSCALLS_WORDS],
}

/// The ioctl argument structs: plain data, every bit pattern valid, no
/// padding (the generated assertions above check the layout).
pub trait IoctlArg: Copy + Default {
    /// The ioctl request number.
    const REQUEST: libc::c_ulong;
    /// The struct with `size` set to the caller's (this header's) size.
    fn new() -> Self;
}

macro_rules! ioctl_arg {
    ($t:ty, $req:expr) => {
        impl IoctlArg for $t {
            const REQUEST: libc::c_ulong = $req;
            fn new() -> Self {
                Self {
                    size: core::mem::size_of::<$t>() as u32,
                    ..Self::default()
                }
            }
        }
    };
}

ioctl_arg!(Info, IOC_INFO);
ioctl_arg!(Config, IOC_CONFIG);
ioctl_arg!(Attach, IOC_ATTACH);
ioctl_arg!(Detach, IOC_DETACH);
ioctl_arg!(Control, IOC_CONTROL);
ioctl_arg!(Decide, IOC_DECIDE);
ioctl_arg!(Handoff, IOC_HANDOFF);
ioctl_arg!(Syscalls, IOC_SYSCALLS);
