// SPDX-License-Identifier: GPL-2.0

//! The safe Rust API for utrace-rs engine modules.
//!
//! Kbuild cannot link one out-of-tree Rust module against another's crate,
//! so this is a thin safe layer over the C ABI of `utrace_rs.ko`
//! (`include/utrace_rs.h`) that each engine crate compiles in:
//!
//! ```ignore
//! #[path = "../../rust/api/utrace.rs"]
//! mod utrace;
//! ```
//!
//! An engine is a type implementing [`Engine`]; a [`Tracer`] owns one value
//! of it and every engine it attaches with it (per task or global). The
//! framework, not the `Tracer`, keeps the engines: nothing is pinned by an
//! engine whose task died. Dropping the `Tracer` (typically in the module's
//! `Drop`) detaches them all, waits for callbacks in flight and runs their
//! releases before it returns, so no engine code runs after the module's
//! exit. A `Tracer` that is never dropped (leaked, forgotten, in a cycle)
//! is cleaned up the same way when its module unloads.
//!
//! Files, one concern each: [`events`] (event masks, actions), [`signal`]
//! (signal reports and decisions), [`engine`]
//! (the callback trait), [`context`] (what a callback can reach),
//! [`examine`] (a stopped task's registers and memory),
//! [`tracer`] (attaching, the callback trampolines), [`task`] (task
//! facts), [`process`] (users, namespaces, ancestry, signals), [`pid`]
//! (a process held by identity),
//! [`stream`] (event streams), [`control_file`] (root-only control files),
//! [`device`] (character devices for user sessions), [`uapi`] (their ABI),
//! [`timer`] (deadlines), [`param`] (module parameters), `usermem`
//! (reading the task's memory in syscall callbacks) and `raw` (the C ABI).
//! See `Documentation/utrace-rs/api.rst`.

#![allow(dead_code, unused_imports)]

#[path = "../base/compat.rs"]
mod compat;
#[path = "../base/text.rs"]
mod text;

pub(crate) mod clone;
pub(crate) mod context;
pub(crate) mod control_file;
pub(crate) mod device;
pub(crate) mod engine;
pub(crate) mod events;
pub(crate) mod examine;
pub(crate) mod param;
pub(crate) mod pid;
pub(crate) mod process;
mod raw;
pub(crate) mod signal;
pub(crate) mod stream;
pub(crate) mod task;
pub(crate) mod timer;
pub(crate) mod tracer;
pub(crate) mod uapi;
mod usermem;

pub(crate) use clone::CloneFlags;
pub(crate) use compat::{cstr_bytes, ktime_get_ns, kvec_pop, module_author, ARef, Escaped};
pub(crate) use context::{Context, SleepingSyscall, SyscallArch, SyscallContext, SyscallRegs};
pub(crate) use control_file::{ControlFile, ControlHandler, Text};
pub(crate) use engine::{Engine, SyscallEngine};
pub(crate) use events::{Action, Control, Events, SyscallEntry};
pub(crate) use examine::{Examined, FpRegs, UserRegs};
pub(crate) use param::{modinfo_bytes, module_param_entry, module_param_int, IntParam, ParamEntry};
pub(crate) use param::{module_param_str, KparamString, StrParam};
pub(crate) use pid::Pid;
pub(crate) use process::{descends_from, signal_process, wall_seconds, Cgroup, TaskIds};
pub(crate) use signal::{JctlReport, JobControl, Signal, SignalClass, SignalReport};
pub(crate) use stream::{Record, Stream};
pub(crate) use task::{lost_events, task_by_pid, TaskInfo};
pub(crate) use timer::{msleep, Timer, TimerHandler, TimerRef};
pub(crate) use tracer::{attach_error, EngineRef, Tracer};
