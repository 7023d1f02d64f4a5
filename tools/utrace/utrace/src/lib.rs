// SPDX-License-Identifier: GPL-2.0

//! `utrace`: safe, typed access to utrace-rs sessions on `/dev/utrace`
//! (include/uapi/utrace_rs.h; Documentation/utrace-rs/sessions.rst).
//!
//! ```no_run
//! use utrace::{Attach, Payload, Session, Target, uapi};
//! let mut s = Session::open()?;
//! let mut opts = Attach::new(uapi::EV_CLONE | uapi::EV_EXEC | uapi::EV_DEATH);
//! opts.follow = true;
//! let engine = s.attach(Target::Pid(1234), &opts)?;
//! for ev in s.read_events(64)? {
//!     if let Payload::Exec { filename, .. } = &ev.payload {
//!         println!("{} exec {filename}", ev.header.pid);
//!     }
//! }
//! s.detach(engine)?;
//! # Ok::<(), utrace::Error>(())
//! ```
//!
//! The only `unsafe` is in module `sys`: the ioctl call, and taking
//! ownership of a descriptor received over a unix socket.

#![deny(unsafe_code)]

pub mod errno;
pub mod event;
pub mod filter;
pub mod memory;
pub mod pass;
pub mod session;
#[allow(unsafe_code)]
mod sys;
pub mod syscalls;
pub mod uapi;

pub use event::{parse, Abi, DetachReason, Event, Header, Payload, SigClass, CLONE_THREAD};
pub use filter::SyscallFilter;
pub use session::{
    Action, Attach, EngineId, Error, Result, Session, Target, Verdict, NT_PRFPREG, NT_PRSTATUS,
};
