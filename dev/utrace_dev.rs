// SPDX-License-Identifier: GPL-2.0

//! utrace_dev: `/dev/utrace`, user-space sessions.
//!
//! Each open of the device is a session: a [`Tracer`] whose engines the
//! session's ioctls attach to tasks the caller may ptrace, and a bounded
//! ring of fixed binary records (`include/uapi/utrace_rs.h`) that `read()`
//! drains. Closing the last fd of the session (or its holder dying)
//! detaches every engine: the tasks it stopped run on. Uses only the safe
//! API. See `Documentation/utrace-rs/sessions.rst`.

use core::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering::Relaxed, Ordering::SeqCst};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::{new_mutex, new_spinlock, Arc, Mutex, SpinLock};
use kernel::task::Task;

#[path = "../rust/api/utrace.rs"]
mod utrace;

mod capture;
mod decide;
mod filter;

use utrace::device::{self, DeviceHandler, FileHandle, SessionHandler, UserArg, UserOut};
use utrace::uapi::{self, RecHeader, Record};
use utrace::{
    Action, CloneFlags, Context, Control, EngineRef, Events, JctlReport, Signal, SignalClass,
    SignalReport, SyscallArch, SyscallContext, SyscallEntry, SyscallRegs, Tracer,
};

utrace::module_author! {
    type: UtraceDev,
    name: "utrace_dev",
    author: "utrace-rs developers",
    description: "utrace-rs: /dev/utrace, tracing sessions for user space",
    license: "GPL",
}

utrace::module_param_int!(
    MODE,
    "mode",
    0o666,
    "mode of /dev/utrace (default 0666; e.g. 0660 with a group set by udev)"
);
utrace::module_param_int!(
    SESSIONS_PER_USER,
    "sessions_per_user",
    64,
    "open sessions a user (real uid) may have"
);
utrace::module_param_int!(
    TASKS_PER_SESSION,
    "tasks_per_session",
    1024,
    "threads a session may be attached to"
);
utrace::module_param_int!(
    BUFFER_KIB_PER_USER,
    "buffer_kib_per_user",
    16384,
    "KiB of record buffers a user's sessions may hold together"
);
utrace::module_param_int!(
    BUFFER_KIB_MAX,
    "buffer_kib_max",
    4096,
    "KiB of record buffer one session may have"
);

/// Records a read copies out per section of the session's lock.
const READ_BATCH: usize = 16;

/// A session's buffer unless UTRACE_IOC_CONFIG says otherwise.
const DEFAULT_BUFFER: usize = 64 * 1024;
const PAGE: usize = 4096;

/// The events a per-task engine of a session may ask for.
const TASK_EVENTS: u64 = (1 << 14) - 1;
/// The events a global engine may ask for.
const GLOBAL_EVENTS: u64 = Events::CLONE
    .or(Events::EXEC)
    .or(Events::EXIT)
    .or(Events::DEATH)
    .or(Events::SIGNAL_CORE)
    .bits();
/// What the session adds to every per-task engine's mask: EXEC for the
/// privilege check, CLONE for new threads and followed children, REAP to
/// forget the thread.
const INTERNAL: Events = Events::EXEC.or(Events::CLONE).or(Events::REAP);
const ATTACH_FLAGS: u32 = uapi::ATTACH_F_PIDFD
    | uapi::ATTACH_F_THREAD
    | uapi::ATTACH_F_LOSSLESS
    | uapi::ATTACH_F_FOLLOW
    | uapi::ATTACH_F_GLOBAL
    | decide::DECIDE_FLAGS;

/// Refusal log lines allowed per second: users can trigger them at will.
const LOG_PER_SECOND: u32 = 20;
static LOG_WINDOW: AtomicI64 = AtomicI64::new(0);
static LOG_COUNT: AtomicU32 = AtomicU32::new(0);

/// Whether a refusal may be logged now (at most [`LOG_PER_SECOND`] a
/// second, for all users together; the rest are counted and said later).
fn log_allowed() -> bool {
    let now = utrace::ktime_get_ns() / 1_000_000_000;
    let window = LOG_WINDOW.load(Relaxed);
    if now != window
        && LOG_WINDOW
            .compare_exchange(window, now, Relaxed, Relaxed)
            .is_ok()
    {
        let missed = LOG_COUNT.swap(0, Relaxed).saturating_sub(LOG_PER_SECOND);
        if missed > 0 {
            pr_info!("{} more refusals not logged\n", missed);
        }
    }
    LOG_COUNT.fetch_add(1, Relaxed) < LOG_PER_SECOND
}

/// `pr_info!` for a refusal a user caused, rate-limited.
macro_rules! refusal {
    ($($arg:tt)*) => {
        if log_allowed() {
            pr_info!($($arg)*);
        }
    };
}

/// `ENOSPC` for `what` ("attach to tid 12"), which would take a session
/// past `tasks_per_session`, with its log line.
fn over_tasks_limit(uid: u32, what: core::fmt::Arguments<'_>) -> kernel::error::Error {
    refusal!(
        "uid {}: {} refused: tasks_per_session={} reached\n",
        uid,
        what,
        TASKS_PER_SESSION.get()
    );
    ENOSPC
}

/// Why [`device::may_ptrace`] said `e`, for a refusal's log line.
fn ptrace_check_says(e: kernel::error::Error) -> &'static str {
    if e == EPERM {
        "EPERM: the kernel's ptrace access check (credentials, dumpable, Yama, LSMs) says no"
    } else if e == ESRCH {
        "ESRCH: it is exiting"
    } else if e == ENOENT {
        "ENOENT: the caller has no procfs at /proc to run the ptrace check through"
    } else {
        "the ptrace check failed"
    }
}

// After `refusal!`, which it uses.
mod examine;
mod handoff;
mod step;

fn param_usize(p: &utrace::IntParam) -> usize {
    usize::try_from(p.get()).unwrap_or(0)
}

/// One attached thread.
struct Thread {
    /// The task's address: its identity while the engine holds it.
    key: usize,
    engine_id: u64,
    /// The user's mask.
    events: u64,
    /// Process-wide: new threads join the engine.
    process: bool,
    /// New child processes get engines of their own.
    follow: bool,
    /// The session wants it stopped.
    stop: bool,
    /// It runs one instruction for `UTRACE_CTL_SINGLESTEP`, then stops
    /// (`stop` false meanwhile; `step.rs`).
    stepping: bool,
    /// Lossless: a record that finds the ring full waits in `pending`, the
    /// thread stopped (`blocked`) until a read makes room.
    lossless: bool,
    blocked: bool,
    pending: Option<Record>,
    /// Its pending record went to the ring: the reader resumes it.
    resume_due: bool,
    /// `UTRACE_ATTACH_F_DECIDE_*` of its engine; the decision open (the
    /// thread waits for the answer) and the one answered, to carry out
    /// (`decide.rs`).
    decide: u32,
    waiting: Option<decide::Waiting>,
    decided: Option<decide::Decided>,
    /// `None` while the attach that made the entry is under way.
    engine: Option<EngineRef<Core>>,
    /// The engine whose CLONE made this one by following (0: attached).
    parent_id: u64,
    /// Its ids as the reader sees them, for its records.
    ids: Ids,
}

/// Fills `rec`'s header with the ids `pid`/`tid` the reader knows the thread
/// by (`NO_PID` if none: not visible there), `engine_id` and the time.
fn set_header(rec: &mut Record, pid: i32, tid: i32, engine_id: u64) {
    rec.h.pid = pid;
    rec.h.tid = tid;
    if tid == 0 {
        rec.h.flags |= uapi::REC_F_NO_PID;
    }
    rec.h.engine_id = engine_id;
    rec.h.time_ns = utrace::ktime_get_ns() as u64;
}

impl Thread {
    /// Its ids as the reader sees them (`task` is its task), looked up
    /// again only once `de_thread()` changed the task's kernel pid.
    fn ids(&mut self, file: &FileHandle, task: &Task) -> (i32, i32) {
        let now = task.pid();
        if self.ids.for_pid != now {
            let (pid, tid) = file.ids(task);
            self.ids = Ids {
                for_pid: now,
                pid,
                tid,
            };
        }
        (self.ids.pid, self.ids.tid)
    }

    /// Whether the session holds the thread: stopped by it, waiting for
    /// room (lossless) or for a decision.
    fn holds(&self) -> bool {
        self.stop || self.blocked || self.deciding()
    }

    /// What a callback of its engine returns: a hold stays in force (any
    /// other action would drop it), a step under way stays asked for.
    fn action(&self) -> Action {
        if self.holds() {
            Action::Stop
        } else if self.stepping {
            Action::SingleStep
        } else {
            Action::Resume
        }
    }
}

/// A thread's process and thread ids in the reader's pid namespace, kept
/// with the kernel's own pid of the task they were looked up for: that
/// pid changes only when a non-leader thread execs and takes over its
/// leader's ids (`de_thread()`), which makes them be looked up again.
#[derive(Clone, Copy)]
struct Ids {
    for_pid: i32,
    pid: i32,
    tid: i32,
}

impl Ids {
    /// Not looked up yet (no user task has pid 0).
    const NONE: Ids = Ids {
        for_pid: 0,
        pid: 0,
        tid: 0,
    };
}

/// Everything under the session's lock.
struct State {
    /// The ring: `slots` records, `count` of them from `head` on.
    ring: KVVec<Record>,
    head: usize,
    count: usize,
    /// The next record's seq (from 1).
    seq: u64,
    /// Records dropped and not yet reported by a LOST record.
    lost: u64,
    lost_first: u64,
    threads: KVec<Thread>,
    next_id: u64,
    /// The global engine's id, 0 if none.
    global_id: u64,
    global_events: u64,
    global: Option<EngineRef<Core>>,
    /// An attach was made: the buffer size is fixed.
    started: bool,
    /// Records of threads handed to another session, waiting for room.
    kept: handoff::Kept,
    /// The user memory syscall records carry (`UTRACE_IOC_CAPTURE`).
    capture: capture::Table,
    /// Reads return compact records (`UTRACE_CONFIG_F_COMPACT`).
    compact: bool,
    /// The syscalls recorded (`UTRACE_IOC_SYSCALLS`).
    syscalls: filter::Filter,
}

impl State {
    fn slots(&self) -> usize {
        self.ring.len()
    }

    /// The ring index after the last record (`head` and `count` are below
    /// the number of slots: no division).
    fn tail(&self) -> usize {
        // Both below the number of slots: no overflow.
        let i = self.head.wrapping_add(self.count);
        if i >= self.slots() {
            i - self.slots()
        } else {
            i
        }
    }

    fn push(&mut self, mut rec: Record) {
        let slots = self.slots();
        if self.lost > 0 && self.count + 1 < slots {
            self.push_lost();
        }
        if self.count >= slots {
            if self.lost == 0 {
                self.lost_first = self.seq;
            }
            self.lost += 1;
            self.seq += 1;
            return;
        }
        rec.h.seq = self.seq;
        self.seq += 1;
        let i = self.tail();
        self.ring[i] = rec;
        self.count += 1;
    }

    /// The next ring slot as a new numbered record of `type_`, for a record
    /// written in place: the common case, room and nothing dropped or kept
    /// before it (as [`State::push`] would store it). `None` otherwise,
    /// nothing changed.
    fn slot_in_place(&mut self, type_: u16) -> Option<&mut Record> {
        let slots = self.slots();
        if self.count >= slots || self.lost > 0 || !self.kept.is_empty() {
            return None;
        }
        let i = self.tail();
        let seq = self.seq;
        let rec = self.ring.get_mut(i)?;
        rec.reset(type_);
        rec.h.seq = seq;
        self.seq += 1;
        self.count += 1;
        Some(rec)
    }

    /// [`State::slot_in_place`] for a syscall record whose header `header`
    /// makes from the record's seq (called only once there is room), and
    /// whose first [`uapi::SYSCALL_SIZE`] payload bytes the caller writes
    /// whole ([`fill_syscall`]): the per-syscall path, with no zeroing of
    /// bytes about to be written.
    #[inline(always)]
    fn syscall_slot(&mut self, header: impl FnOnce(u64) -> RecHeader) -> Option<&mut Record> {
        if self.count >= self.slots() || self.lost > 0 || !self.kept.is_empty() {
            return None;
        }
        let i = self.tail();
        let seq = self.seq;
        let rec = self.ring.get_mut(i)?;
        rec.reset_syscall(header(seq));
        // INVARIANT: `count` stays at most the number of slots (below it,
        // checked above); `seq` is a u64 counted from 1, never wrapping.
        self.seq = self.seq.wrapping_add(1);
        self.count = self.count.wrapping_add(1);
        Some(rec)
    }

    /// Takes back the slot [`State::syscall_slot`] just gave (nothing
    /// else changed the ring since).
    fn unslot(&mut self) {
        self.seq -= 1;
        self.count -= 1;
    }

    /// The LOST record for the records dropped so far (room for it checked).
    fn push_lost(&mut self) {
        let mut rec = Record::new(uapi::REC_LOST);
        rec.put_u64(uapi::LOST_COUNT, self.lost);
        rec.put_u64(uapi::LOST_FIRST_SEQ, self.lost_first);
        rec.h.time_ns = utrace::ktime_get_ns() as u64;
        rec.h.seq = self.seq;
        self.seq += 1;
        self.lost = 0;
        let i = self.tail();
        self.ring[i] = rec;
        self.count += 1;
    }

    /// Moves waiting records of lossless threads into the ring while it
    /// has room; their threads are due to be resumed.
    fn move_pending(&mut self) {
        // The kept records first: they are older than any thread's
        // waiting record (see `Core::emit`).
        handoff::move_kept(self);
        let mut i = 0;
        while self.kept.is_empty() && self.count < self.slots() && i < self.threads.len() {
            if let Some(rec) = self.threads[i].pending.take() {
                self.threads[i].blocked = false;
                self.threads[i].resume_due = true;
                self.push(rec);
                self.threads[i].numbered(self.seq - 1);
            }
            i += 1;
        }
    }

    fn find(&self, key: usize) -> Option<&Thread> {
        self.threads.iter().find(|t| t.key == key)
    }

    fn find_mut(&mut self, key: usize) -> Option<&mut Thread> {
        self.threads.iter_mut().find(|t| t.key == key)
    }

    /// Removes the thread with `key` (order does not matter).
    fn remove(&mut self, key: usize) -> Option<Thread> {
        let i = self.threads.iter().position(|t| t.key == key)?;
        let last = self.threads.len() - 1;
        self.threads.as_mut_slice().swap(i, last);
        utrace::kvec_pop(&mut self.threads)
    }

    /// Removes the thread with `key`; its waiting record (lossless) goes to
    /// the ring first, or is counted as lost.
    fn take(&mut self, key: usize) -> Option<Thread> {
        let mut t = self.remove(key)?;
        if let Some(rec) = t.pending.take() {
            // Lossless: behind the ring, never dropped.
            handoff::push_after(self, rec);
        }
        Some(t)
    }

    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// The engine value of a session's tracer.
struct Core {
    file: FileHandle,
    state: Pin<KBox<SpinLock<State>>>,
}

/// What a new thread's entry copies from its parent's.
#[derive(Clone, Copy)]
struct Proto {
    engine_id: u64,
    events: u64,
    process: bool,
    follow: bool,
    lossless: bool,
    decide: u32,
    parent_id: u64,
}

fn key(task: &Task) -> usize {
    task as *const Task as usize
}

impl Core {
    /// Fills `rec`'s header for `task`'s event of engine `engine_id`: ids in
    /// the reader's pid namespace (`NO_PID` if not visible there), time.
    fn stamp(&self, task: &Task, engine_id: u64, rec: &mut Record) {
        let (pid, tid) = self.file.ids(task);
        set_header(rec, pid, tid, engine_id);
    }

    /// Adds `rec` for `task`'s event.
    fn emit(&self, task: &Task, engine_id: u64, rec: Record) {
        self.emit_waking(task, engine_id, rec, false);
    }

    /// [`Core::emit`]; `at_stop`: the reader is woken when the task sleeps
    /// in the stop its callback is about to return (`wake_at_stop`), so
    /// that it does not run while the callback is still under way (where a
    /// RESUME's barrier would wait for it).
    fn emit_waking(&self, task: &Task, engine_id: u64, mut rec: Record, at_stop: bool) {
        self.stamp(task, engine_id, &mut rec);
        {
            let mut st = self.state.lock();
            if st.count >= st.slots() || !st.kept.is_empty() {
                // Lossless: the record waits, the thread stops (see
                // `action`) until a read makes room. A second record while
                // one waits (a thread that cannot stop: a signal report,
                // an exiting thread) goes behind the ring with the first,
                // in order, and the thread is no longer held for room;
                // `move_pending` takes the kept records before any
                // thread's waiting one. (A waiting decision record stays:
                // its seq is given when it enters the ring.)
                let mut keep = None;
                if let Some(t) = st.find_mut(key(task)) {
                    if t.lossless && t.pending.is_none() {
                        t.pending = Some(rec);
                        t.blocked = true;
                        return;
                    }
                    if t.lossless && !t.deciding() {
                        keep = t.pending.take();
                        t.blocked = false;
                        t.resume_due = true;
                    }
                }
                if let Some(first) = keep {
                    handoff::push_after(&mut st, first);
                    handoff::push_after(&mut st, rec);
                    drop(st);
                    self.wake(at_stop);
                    return;
                }
            }
            st.push(rec);
        }
        self.wake(at_stop);
    }

    /// [`Core::emit_waking`] of a new record of `type_` that `fill`
    /// completes, written in its ring slot where [`State::slot_in_place`]
    /// gives one: a record made on the stack is zeroed and copied whole
    /// (256 bytes, each a counted step of `rep movsb`).
    fn emit_new(
        &self,
        task: &Task,
        engine_id: u64,
        type_: u16,
        at_stop: bool,
        fill: impl FnOnce(&mut Record),
    ) {
        {
            let mut st = self.state.lock();
            let (pid, tid) = match st.find_mut(key(task)) {
                Some(t) => t.ids(&self.file, task),
                None => self.file.ids(task),
            };
            if let Some(rec) = st.slot_in_place(type_) {
                set_header(rec, pid, tid, engine_id);
                fill(rec);
                drop(st);
                self.wake(at_stop);
                return;
            }
        }
        let mut rec = Record::new(type_);
        fill(&mut rec);
        self.emit_waking(task, engine_id, rec, at_stop);
    }

    fn wake(&self, at_stop: bool) {
        if at_stop {
            self.file.wake_at_stop();
        } else {
            self.file.wake();
        }
    }

    /// The engine id and user mask of `task`'s engine, if the session
    /// watches `event` there.
    fn wants(&self, task: &Task, event: Events) -> Option<u64> {
        let st = self.state.lock();
        let t = st.find(key(task))?;
        (t.events & event.bits() != 0).then_some(t.engine_id)
    }

    /// The engine id of `task`'s engine, if the session records the
    /// syscall of `regs` at its exit (`exit`) or entry there.
    fn wants_syscall(&self, task: &Task, regs: &SyscallRegs<'_>, exit: bool) -> Option<u64> {
        let event = if exit {
            Events::SYSCALL_EXIT
        } else {
            Events::SYSCALL_ENTRY
        };
        let st = self.state.lock();
        let t = st.find(key(task))?;
        (t.events & event.bits() != 0 && st.syscalls.records(exit, regs.arch(), regs.nr()))
            .then_some(t.engine_id)
    }

    fn global_wants(&self, event: Events) -> Option<u64> {
        let st = self.state.lock();
        (st.global_id != 0 && st.global_events & event.bits() != 0).then_some(st.global_id)
    }

    fn id_for(&self, cx: &Context<'_, Self>, event: Events) -> Option<u64> {
        if cx.is_global() {
            self.global_wants(event)
        } else {
            self.wants(cx.task(), event)
        }
    }

    /// Forgets `task` and says why in a DETACHED record.
    fn forget(&self, task: &Task, reason: u32) {
        let t = self.state.lock().take(key(task));
        if let Some(t) = t {
            let mut rec = Record::new(uapi::REC_DETACHED);
            rec.put_u32(uapi::DETACHED_REASON, reason);
            self.emit(task, t.engine_id, rec);
            // `t.engine` is dropped here, outside the lock.
        }
    }

    /// Attaches an engine of `cx`'s tracer to `child` for the thread entry
    /// `proto` (its id, mask and flags), announced by an ATTACHED record.
    fn follow(&self, cx: &Context<'_, Self>, child: &Task, proto: Proto) -> bool {
        let Proto {
            engine_id,
            events,
            process,
            follow,
            lossless,
            decide,
            parent_id,
        } = proto;
        if self.state.lock().threads.len() >= param_usize(&TASKS_PER_SESSION) {
            refusal!(
                "session: not following tid {}: tasks_per_session={} reached\n",
                child.pid(),
                TASKS_PER_SESSION.get()
            );
            return false;
        }
        let Ok(engine) = cx.attach(child, Events::from_bits(events).or(INTERNAL)) else {
            return false;
        };
        let mut t = Thread {
            key: key(child),
            engine_id,
            events,
            process,
            follow,
            stop: false,
            stepping: false,
            lossless,
            blocked: false,
            pending: None,
            resume_due: false,
            decide,
            waiting: None,
            decided: None,
            engine: None,
            parent_id,
            ids: Ids::NONE,
        };
        let widen = {
            let mut st = self.state.lock();
            // A new thread of an engine that an attach admitted since its
            // parent's entry was read (`admit`, which may have looked
            // before this entry was in): the parent's mask and follow now.
            let widen = st
                .find(key(cx.task()))
                .filter(|p| p.engine_id == engine_id && p.events != events)
                .map(|p| (p.events, p.follow));
            if let Some((ev, fo)) = widen {
                t.events = ev;
                t.follow = fo;
            }
            let widen = widen.map(|(ev, _)| (ev, engine.clone()));
            if st.threads.reserve(1, GFP_ATOMIC).is_ok() {
                // Within the capacity: does not allocate.
                let _ = st.threads.push(
                    Thread {
                        engine: Some(engine),
                        ..t
                    },
                    GFP_ATOMIC,
                );
            } else {
                drop(st);
                let _ = engine.control(Control::Detach);
                return false;
            }
            widen
        };
        if let Some((ev, e)) = widen {
            // ESRCH: it exited meanwhile; another failure leaves it with
            // the session's own events, as a failed SET_EVENTS would.
            let _ = e.set_events(Events::from_bits(ev).or(INTERNAL));
        }
        let mut rec = Record::new(uapi::REC_ATTACHED);
        let (_, ptid) = self.file.ids(cx.task());
        rec.put_u32(uapi::ATTACHED_PARENT_TID, ptid as u32);
        self.emit(child, engine_id, rec);
        true
    }
}

impl Core {
    /// What a callback returns ([`Thread::action`]).
    fn action(&self, task: &Task) -> Action {
        self.state
            .lock()
            .find(key(task))
            .map_or(Action::Resume, Thread::action)
    }
}

impl utrace::Engine for Core {
    fn quiesce(&self, cx: &Context<'_, Self>, event: Events) -> Action {
        if cx.is_global() {
            return Action::Resume;
        }
        let (id, stop, report, blocked, act) = {
            let st = self.state.lock();
            match st.find(key(cx.task())) {
                Some(t) => (
                    t.engine_id,
                    t.stop,
                    t.events & Events::QUIESCE.bits() != 0,
                    t.blocked || t.deciding(),
                    t.action(),
                ),
                None => return Action::Resume,
            }
        };
        if blocked && !stop {
            // Waiting for room (lossless): no record of that stop.
            return Action::Stop;
        }
        if stop || (report && event == Events::NONE) {
            self.emit_new(cx.task(), id, uapi::REC_QUIESCE, stop, |rec| {
                rec.put_u64(uapi::QUIESCE_EVENT, event.bits());
                if stop {
                    rec.h.flags |= uapi::REC_F_STOPPED;
                }
            });
        }
        act
    }

    fn cloned(&self, cx: &Context<'_, Self>, child: &Task, flags: CloneFlags) -> Action {
        if cx.is_global() {
            if let Some(id) = self.global_wants(Events::CLONE) {
                self.emit(
                    cx.task(),
                    id,
                    clone_record(&self.file, child, flags.bits(), 0),
                );
            }
            return Action::Resume;
        }
        let proto = {
            let st = self.state.lock();
            match st.find(key(cx.task())) {
                Some(t) => Proto {
                    engine_id: t.engine_id,
                    events: t.events,
                    process: t.process,
                    follow: t.follow,
                    lossless: t.lossless,
                    decide: t.decide,
                    parent_id: t.parent_id,
                },
                None => return Action::Resume,
            }
        };
        let (id, events, process, follow) =
            (proto.engine_id, proto.events, proto.process, proto.follow);
        let thread = flags.thread();
        let mut child_id = 0;
        if thread && process {
            if self.follow(cx, child, proto) {
                child_id = id;
            }
        } else if !thread && follow {
            let new_id = self.state.lock().new_id();
            let p = Proto {
                engine_id: new_id,
                process: true,
                follow: true,
                parent_id: id,
                ..proto
            };
            if self.follow(cx, child, p) {
                child_id = new_id;
            }
        }
        if events & Events::CLONE.bits() != 0 {
            self.emit(
                cx.task(),
                id,
                clone_record(&self.file, child, flags.bits(), child_id),
            );
        }
        self.action(cx.task())
    }

    fn exec(&self, cx: &Context<'_, Self>, filename: Option<&CStr>, old_pid: i32) -> Action {
        if !cx.is_global() && !device::task_dumpable(cx.task()) {
            // A setuid, setgid or file-capability exec: the caller's right
            // to trace was decided for the process before.
            refusal!(
                "session: tid {} exec'd a privileged program: detached\n",
                cx.task().pid()
            );
            self.forget(cx.task(), uapi::DETACH_PRIVILEGED);
            return Action::Detach;
        }
        if let Some(id) = self.id_for(cx, Events::EXEC) {
            let mut rec = Record::new(uapi::REC_EXEC);
            rec.put_u32(uapi::EXEC_OLD_TID, old_pid as u32);
            let name = filename.map_or(&b""[..], utrace::cstr_bytes);
            let n = name.len().min(uapi::REC_PATH_MAX - 1);
            if n < name.len() {
                rec.h.flags |= uapi::REC_F_TRUNCATED;
            }
            rec.put_u32(uapi::EXEC_FILENAME_LEN, n as u32);
            rec.put(uapi::EXEC_FILENAME, &name[..n]);
            self.emit(cx.task(), id, rec);
        }
        self.action(cx.task())
    }

    fn exit(&self, cx: &Context<'_, Self>, orig_code: i64, _code: &mut i64) -> Action {
        if let Some(id) = self.id_for(cx, Events::EXIT) {
            let mut rec = Record::new(uapi::REC_EXIT);
            rec.put_u64(uapi::EXIT_CODE, orig_code as u64);
            self.emit(cx.task(), id, rec);
        }
        self.action(cx.task())
    }

    fn death(&self, cx: &Context<'_, Self>, group_dead: bool, _signal: Option<i32>) -> Action {
        if let Some(id) = self.id_for(cx, Events::DEATH) {
            let mut rec = Record::new(uapi::REC_DEATH);
            let code = utrace::TaskInfo::of(cx.task()).exit_code;
            rec.put_u32(uapi::DEATH_EXIT_CODE, code as u32);
            rec.put_u32(uapi::DEATH_GROUP_DEAD, u32::from(group_dead));
            self.emit(cx.task(), id, rec);
        }
        self.action(cx.task())
    }

    fn reap(&self, task: &Task) {
        let t = self.state.lock().take(key(task));
        if let Some(t) = t {
            // No ids any more (the task is gone): the reader matches the
            // engine id and the last tid it saw.
            let mut rec = Record::new(uapi::REC_DETACHED);
            rec.put_u32(uapi::DETACHED_REASON, uapi::DETACH_REAPED);
            rec.h.engine_id = t.engine_id;
            rec.h.flags |= uapi::REC_F_NO_PID;
            rec.h.time_ns = utrace::ktime_get_ns() as u64;
            {
                let mut st = self.state.lock();
                if t.lossless {
                    handoff::push_after(&mut st, rec);
                } else {
                    st.push(rec);
                }
            }
            self.file.wake();
        }
    }

    fn signal(&self, cx: &Context<'_, Self>, sig: &mut SignalReport<'_>) -> Signal {
        let (event, class) = match sig.class() {
            SignalClass::Deliver | SignalClass::Handler => (Events::SIGNAL, uapi::SIGCLASS_HANDLER),
            SignalClass::Ignore => (Events::SIGNAL_IGN, uapi::SIGCLASS_IGN),
            SignalClass::Term => (Events::SIGNAL_TERM, uapi::SIGCLASS_TERM),
            SignalClass::Core => (Events::SIGNAL_CORE, uapi::SIGCLASS_CORE),
            SignalClass::Stop | SignalClass::Tstp => (Events::SIGNAL_STOP, uapi::SIGCLASS_STOP),
            SignalClass::Report => return Signal::Keep,
        };
        if sig.is_step_trap() {
            // Not the program's: utrace-rs set the trap flag. Neither
            // recorded nor delivered.
            return if cx.is_global() {
                Signal::Keep
            } else {
                self.step_trap(cx.task())
            };
        }
        if !cx.is_global() {
            if sig.class() == SignalClass::Handler {
                if let Some(end) = self.step_into_handler(cx.task()) {
                    return end;
                }
            } else if self.stepping(cx.task()) {
                // A signal's report while the thread steps: asked again,
                // as the answer below is the last word of the report.
                let _ = cx.control(Control::SingleStep);
            }
        }
        if sig.class() == SignalClass::Handler {
            // The frame for a signal reported before: not a new event. A
            // session stop stays in force (Keep's RESUME would end it
            // before the handler runs).
            return if self.action(cx.task()) == Action::Stop {
                Signal::KeepStopped
            } else {
                Signal::Keep
            };
        }
        let record = |sig: &mut SignalReport<'_>| {
            let mut rec = Record::new(uapi::REC_SIGNAL);
            rec.put_u32(uapi::SIGNAL_SIGNO, sig.signo() as u32);
            rec.put_u32(uapi::SIGNAL_DISPOSITION, class);
            rec.put(uapi::SIGNAL_SIGINFO, &device::siginfo_bytes(sig));
            rec
        };
        if !cx.is_global() {
            return self.signal_decide(cx, sig, self.wants(cx.task(), event), record);
        }
        if let Some(id) = self.global_wants(event) {
            let rec = record(sig);
            self.emit(cx.task(), id, rec);
        }
        Signal::Keep
    }

    fn jctl(&self, cx: &Context<'_, Self>, jctl: JctlReport) -> Action {
        if let Some(id) = self.id_for(cx, Events::JCTL) {
            let mut rec = Record::new(uapi::REC_JCTL);
            rec.put_u32(uapi::JCTL_STOP, u32::from(jctl.stopped()));
            rec.put_u32(uapi::JCTL_NOTIFY, u32::from(jctl.notify()));
            self.emit(cx.task(), id, rec);
        }
        // A session stop stays in force across the job-control stop.
        self.action(cx.task())
    }
}

fn clone_record(file: &FileHandle, child: &Task, flags: u64, child_id: u64) -> Record {
    let mut rec = Record::new(uapi::REC_CLONE);
    let (pid, tid) = file.ids(child);
    rec.put_u64(uapi::CLONE_FLAGS, flags);
    rec.put_u32(uapi::CLONE_CHILD_PID, pid as u32);
    rec.put_u32(uapi::CLONE_CHILD_TID, tid as u32);
    rec.put_u64(uapi::CLONE_CHILD_ENGINE, child_id);
    rec
}

/// The `UTRACE_ABI_*` of a syscall ABI.
pub(crate) fn abi_of(arch: SyscallArch) -> u32 {
    match arch {
        SyscallArch::X86_64 => uapi::ABI_X86_64,
        SyscallArch::I386 => uapi::ABI_I386,
    }
}

/// The record type of a syscall event: its exit's or its entry's.
fn syscall_type(exit: bool) -> u16 {
    if exit {
        uapi::REC_SYSCALL_EXIT
    } else {
        uapi::REC_SYSCALL_ENTRY
    }
}

/// The payload of a syscall record, its first [`uapi::SYSCALL_SIZE`] bytes
/// written whole (an entry's return value 0).
#[inline(always)]
fn fill_syscall(rec: &mut Record, regs: &SyscallRegs<'_>, exit: bool) {
    rec.put_u32(uapi::SYSCALL_NR, regs.nr() as u32);
    rec.put_u32(uapi::SYSCALL_ABI, abi_of(regs.arch()));
    let mut args = [0u8; 48];
    for (to, a) in args.chunks_exact_mut(8).zip(regs.args()) {
        to.copy_from_slice(&a.to_ne_bytes());
    }
    rec.put(uapi::SYSCALL_ARGS, &args);
    let ret = if exit { regs.return_value() as u64 } else { 0 };
    rec.put_u64(uapi::SYSCALL_RET, ret);
}

impl Core {
    /// A syscall record in the common case, under one lock: the thread is
    /// the session's, decides nothing on this event, and the ring has room
    /// with nothing dropped or kept before the record, which is then
    /// written in its ring slot. An entry whose capture is not whole and to
    /// be decided on takes its slot back and is emitted, as it is, with its
    /// decision. Returns the callback's action (as [`Core::action`]: there
    /// was room, so a record in place changed nothing it reads), or `None`,
    /// having done nothing, when it is not the common case (the caller goes
    /// the general way).
    #[inline(always)]
    fn syscall_in_place(
        &self,
        cx: &SyscallContext<'_>,
        event: Events,
        regs: &SyscallRegs<'_>,
        exit: bool,
    ) -> Option<Action> {
        let task = cx.task();
        let mut st = self.state.lock();
        let recorded = st.syscalls.records(exit, regs.arch(), regs.nr());
        let t = st.find_mut(key(task))?;
        let action = t.action();
        if t.events & event.bits() == 0 || !recorded {
            return Some(action);
        }
        if !exit && t.decides(decide::Kind::Syscall) {
            return None;
        }
        let engine_id = t.engine_id;
        let (pid, tid) = t.ids(&self.file, task);
        let items = st.capture.get(regs.arch(), regs.nr());
        let decide_incomplete = !exit && st.capture.decide;
        let rec = st.syscall_slot(|seq| {
            let time_ns = utrace::ktime_get_ns() as u64;
            RecHeader::with(syscall_type(exit), engine_id, seq, time_ns, pid, tid)
        })?;
        fill_syscall(rec, regs, exit);
        if let Some(items) = items {
            if !capture::fill(rec, cx, regs, &items, exit) && decide_incomplete {
                // It waits for a decision, numbered when it is emitted.
                let rec = *rec;
                st.unslot();
                drop(st);
                self.emit_syscall_entry(task, engine_id, rec, true);
                return Some(self.action(task));
            }
        }
        drop(st);
        self.file.wake();
        Some(action)
    }

    /// The record of a syscall event of `cx`'s task the general way, with
    /// its captures; and whether it is an entry to decide on because its
    /// capture is not whole (`UTRACE_CAPTURE_F_DECIDE`).
    fn syscall_record(
        &self,
        cx: &SyscallContext<'_>,
        regs: &SyscallRegs<'_>,
        exit: bool,
    ) -> (Record, bool) {
        let mut rec = Record::new(syscall_type(exit));
        fill_syscall(&mut rec, regs, exit);
        let (items, decide) = {
            let st = self.state.lock();
            (st.capture.get(regs.arch(), regs.nr()), st.capture.decide)
        };
        let whole = match items {
            Some(items) => capture::fill(&mut rec, cx, regs, &items, exit),
            None => true,
        };
        (rec, !whole && decide && !exit)
    }
}

impl utrace::SyscallEngine for Core {
    // Into the framework's callback: one frame a record.
    #[inline(always)]
    fn syscall_entry(&self, cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> SyscallEntry {
        // A resumed entry (after a stop before it) was recorded already.
        if !cx.resumed() {
            if let Some(act) = self.syscall_in_place(cx, Events::SYSCALL_ENTRY, regs, false) {
                // Run would drop a session stop (stop before the syscall
                // instead) or a step.
                return step::entry_answer(act);
            }
        }
        self.syscall_entry_general(cx, regs)
    }

    // Into the framework's callback: one frame a record.
    #[inline(always)]
    fn syscall_exit(&self, cx: &SyscallContext<'_>, regs: &mut SyscallRegs<'_>) -> Action {
        match self.syscall_in_place(cx, Events::SYSCALL_EXIT, regs, true) {
            Some(act) => act,
            None => self.syscall_exit_general(cx, regs),
        }
    }
}

impl Core {
    /// [`Core::syscall_entry`] after a stop before it, or where
    /// [`Core::syscall_in_place`] did not make the record: out of line, as
    /// [`Core::syscall_exit_general`].
    #[cold]
    #[inline(never)]
    fn syscall_entry_general(
        &self,
        cx: &SyscallContext<'_>,
        regs: &mut SyscallRegs<'_>,
    ) -> SyscallEntry {
        // The answer to a decision on it (after a stop before it).
        if let Some(entry) = self.syscall_decided(cx, regs) {
            if entry == SyscallEntry::Run && self.stepping(cx.task()) {
                return SyscallEntry::Step;
            }
            return entry;
        }
        // A resumed entry was recorded already.
        if !cx.resumed() {
            if let Some(id) = self.wants_syscall(cx.task(), regs, false) {
                let (rec, incomplete) = self.syscall_record(cx, regs, false);
                self.emit_syscall_entry(cx.task(), id, rec, incomplete);
            }
        }
        step::entry_answer(self.action(cx.task()))
    }

    /// [`Core::syscall_exit`] where [`Core::syscall_in_place`] did not
    /// make the record: out of line, so that the common case's frame has
    /// no record on the stack.
    #[cold]
    #[inline(never)]
    fn syscall_exit_general(&self, cx: &SyscallContext<'_>, regs: &SyscallRegs<'_>) -> Action {
        if let Some(id) = self.wants_syscall(cx.task(), regs, true) {
            let (rec, _) = self.syscall_record(cx, regs, true);
            self.emit(cx.task(), id, rec);
        }
        // A syscall exit callback's Resume would drop a session stop.
        self.action(cx.task())
    }
}

/// Copies the oldest records of the ring into `to` as a read returns them
/// (whole, or compact in a compact session) while they fit; returns how
/// many and their bytes.
fn copy_out(st: &State, to: &mut [u8]) -> (usize, usize) {
    let slots = st.slots();
    let (mut n, mut len) = (0, 0);
    while n < st.count {
        let Some(rec) = st.ring.get((st.head + n) % slots) else {
            break;
        };
        let size = if st.compact {
            rec.compact_len()
        } else {
            uapi::REC_SIZE
        };
        let (Some(dst), Some(src)) = (to.get_mut(len..len + size), rec.as_bytes().get(..size))
        else {
            break;
        };
        dst.copy_from_slice(src);
        // A compact record's header says its own size.
        dst[uapi::REC_HEADER_SIZE_AT..uapi::REC_HEADER_SIZE_AT + 2]
            .copy_from_slice(&(size as u16).to_ne_bytes());
        len += size;
        n += 1;
    }
    (n, len)
}

/// Per-user accounting of sessions and buffer bytes.
struct Usage {
    uid: u32,
    sessions: usize,
    bytes: usize,
}

struct Users(KVec<Usage>);

impl Users {
    fn get(&mut self, uid: u32) -> Result<&mut Usage> {
        let i = match self.0.iter().position(|u| u.uid == uid) {
            Some(i) => i,
            None => {
                self.0.push(
                    Usage {
                        uid,
                        sessions: 0,
                        bytes: 0,
                    },
                    GFP_KERNEL,
                )?;
                self.0.len() - 1
            }
        };
        Ok(&mut self.0[i])
    }

    fn drop_empty(&mut self) {
        if let Some(i) = self.0.iter().position(|u| u.sessions == 0) {
            let last = self.0.len() - 1;
            self.0.as_mut_slice().swap(i, last);
            let _ = utrace::kvec_pop(&mut self.0);
        }
    }
}

/// The device's state: the users' accounting.
struct Dev {
    users: Pin<KBox<Mutex<Users>>>,
}

/// The threads `UTRACE_IOC_CONTROL` works on, kept from call to call
/// (empty between calls) so that a STOP/RESUME round trip allocates
/// nothing once they have grown to the engine's thread count.
#[derive(Default)]
struct CtlLists {
    /// Key and user mask of each thread of the engine.
    targets: KVec<(usize, u64)>,
    /// Their engines, referenced for the calls that may sleep.
    tasks: KVec<(EngineRef<Core>, u64)>,
}

/// One open of `/dev/utrace`.
struct Session {
    tracer: Tracer<Core>,
    /// Serialises readers (records are copied out, then taken), with the
    /// room for [`READ_BATCH`] whole records a read copies the ring's into
    /// under the session's lock, to copy them to the reader without it.
    reader: Pin<KBox<Mutex<KVec<u8>>>>,
    /// Serialises ioctls that change the engines, with the lists
    /// `UTRACE_IOC_CONTROL` works on.
    ctl: Pin<KBox<Mutex<CtlLists>>>,
    dev: Arc<Dev>,
    uid: u32,
    bytes: core::sync::atomic::AtomicUsize,
    closed: AtomicBool,
}

fn ring(bytes: usize) -> Result<KVVec<Record>> {
    let slots = bytes / uapi::REC_SIZE;
    let mut v = KVVec::with_capacity(slots, GFP_KERNEL)?;
    for _ in 0..slots {
        v.push(Record::new(0), GFP_KERNEL)?;
    }
    Ok(v)
}

impl DeviceHandler for Dev {
    type Session = Session;

    fn open(this: &Arc<Self>, file: FileHandle) -> Result<Arc<Session>> {
        let uid = device::caller_uid();
        let per_user = param_usize(&BUFFER_KIB_PER_USER) * 1024;
        {
            let mut users = this.users.lock();
            let u = users.get(uid)?;
            if u.sessions >= param_usize(&SESSIONS_PER_USER) {
                refusal!(
                    "open refused for uid {}: sessions_per_user={} reached\n",
                    uid,
                    SESSIONS_PER_USER.get()
                );
                return Err(EMFILE);
            }
            if u.bytes + DEFAULT_BUFFER > per_user {
                refusal!(
                    "open refused for uid {}: buffer_kib_per_user={} reached\n",
                    uid,
                    BUFFER_KIB_PER_USER.get()
                );
                return Err(ENOSPC);
            }
            u.sessions += 1;
            u.bytes += DEFAULT_BUFFER;
        }
        let made = Self::make_session(this, file, uid);
        if made.is_err() {
            this.unaccount(uid, DEFAULT_BUFFER);
        }
        made
    }
}

impl Dev {
    fn unaccount(&self, uid: u32, bytes: usize) {
        let mut users = self.users.lock();
        if let Ok(u) = users.get(uid) {
            u.sessions = u.sessions.saturating_sub(1);
            u.bytes = u.bytes.saturating_sub(bytes);
        }
        users.drop_empty();
    }

    fn make_session(this: &Arc<Self>, file: FileHandle, uid: u32) -> Result<Arc<Session>> {
        let state = KBox::pin_init(
            new_spinlock!(State {
                ring: ring(DEFAULT_BUFFER)?,
                head: 0,
                count: 0,
                seq: 1,
                lost: 0,
                lost_first: 0,
                threads: KVec::new(),
                next_id: 0,
                global_id: 0,
                global_events: 0,
                global: None,
                started: false,
                kept: handoff::Kept::new(),
                capture: capture::Table::default(),
                compact: false,
                syscalls: filter::Filter::default(),
            }),
            GFP_KERNEL,
        )?;
        let tracer = Tracer::with_syscalls(Core { file, state })?;
        Ok(Arc::new(
            Session {
                tracer,
                reader: KBox::pin_init(
                    new_mutex!(KVec::from_elem(
                        0u8,
                        READ_BATCH * uapi::REC_SIZE,
                        GFP_KERNEL
                    )?),
                    GFP_KERNEL,
                )?,
                ctl: KBox::pin_init(new_mutex!(CtlLists::default()), GFP_KERNEL)?,
                dev: this.clone(),
                uid,
                bytes: core::sync::atomic::AtomicUsize::new(DEFAULT_BUFFER),
                closed: AtomicBool::new(false),
            },
            GFP_KERNEL,
        )?)
    }
}

impl Session {
    fn core(&self) -> &Core {
        self.tracer.engine()
    }

    fn info(&self, arg: UserArg) -> Result<isize> {
        let mut info: uapi::Info = arg.read_struct()?;
        let size = info.size;
        info = uapi::Info {
            size,
            version: uapi::UAPI_VERSION,
            record_size: uapi::REC_SIZE as u32,
            reserved0: 0,
            events: TASK_EVENTS,
            attach_flags: u64::from(ATTACH_FLAGS),
            buffer_bytes: self.bytes.load(SeqCst) as u64,
            buffer_max: (param_usize(&BUFFER_KIB_MAX) * 1024) as u64,
        };
        arg.write_struct(&info)?;
        Ok(0)
    }

    /// `UTRACE_IOC_CAPTURE`: replaces the session's capture list.
    fn capture(&self, arg: UserArg) -> Result<isize> {
        let mut table = capture::Table::from_user(arg)?;
        core::mem::swap(&mut self.core().state.lock().capture, &mut table);
        // The old list is freed here, out of the lock.
        drop(table);
        Ok(0)
    }

    /// `UTRACE_IOC_SYSCALLS`: replaces the session's syscall filter.
    fn syscalls(&self, arg: UserArg) -> Result<isize> {
        let filter = filter::Filter::from_user(arg)?;
        self.core().state.lock().syscalls = filter;
        Ok(0)
    }

    fn config(&self, arg: UserArg) -> Result<isize> {
        let c: uapi::Config = arg.read_struct()?;
        if c.flags & !uapi::CONFIG_F_COMPACT != 0 || c.reserved != [0; 2] {
            return Err(EINVAL);
        }
        let max = param_usize(&BUFFER_KIB_MAX) * 1024;
        let want = usize::try_from(c.buffer_bytes).map_err(|_| EINVAL)?;
        if want < PAGE {
            return Err(EINVAL);
        }
        if want > max {
            refusal!(
                "uid {}: buffer of {} bytes refused: buffer_kib_max={}\n",
                self.uid,
                want,
                BUFFER_KIB_MAX.get()
            );
            return Err(EINVAL);
        }
        let want = want.div_ceil(uapi::REC_SIZE) * uapi::REC_SIZE;
        let _ctl = self.ctl.lock();
        if self.core().state.lock().started {
            return Err(EBUSY);
        }
        let old = self.bytes.load(SeqCst);
        {
            let per_user = param_usize(&BUFFER_KIB_PER_USER) * 1024;
            let mut users = self.dev.users.lock();
            let u = users.get(self.uid)?;
            if u.bytes.saturating_sub(old) + want > per_user {
                refusal!(
                    "uid {}: buffer of {} bytes refused: buffer_kib_per_user={} reached\n",
                    self.uid,
                    want,
                    BUFFER_KIB_PER_USER.get()
                );
                return Err(ENOSPC);
            }
            u.bytes = u.bytes.saturating_sub(old) + want;
        }
        let new = match ring(want) {
            Ok(r) => r,
            Err(e) => {
                let mut users = self.dev.users.lock();
                if let Ok(u) = users.get(self.uid) {
                    u.bytes = u.bytes.saturating_sub(want) + old;
                }
                return Err(e);
            }
        };
        self.bytes.store(want, SeqCst);
        let old_ring = {
            let mut st = self.core().state.lock();
            st.head = 0;
            st.count = 0;
            st.compact = c.flags & uapi::CONFIG_F_COMPACT != 0;
            core::mem::replace(&mut st.ring, new)
        };
        drop(old_ring);
        Ok(0)
    }

    fn target(a: &uapi::Attach) -> Result<ARefTask> {
        if a.flags & uapi::ATTACH_F_PIDFD != 0 {
            if a.pid != 0 {
                return Err(EINVAL);
            }
            device::pidfd_task(a.pidfd)
        } else {
            if a.pidfd != 0 {
                return Err(EINVAL);
            }
            device::ns_task(a.pid)
        }
    }

    fn attach(&self, arg: UserArg) -> Result<isize> {
        let mut a: uapi::Attach = arg.read_struct()?;
        if a.flags & !ATTACH_FLAGS != 0 || a.reserved != [0; 2] || a.engine_id != 0 {
            return Err(EINVAL);
        }
        if a.flags & uapi::ATTACH_F_GLOBAL != 0 {
            let _ctl = self.ctl.lock();
            return self.attach_global(arg, a);
        }
        if a.events & !TASK_EVENTS != 0 {
            return Err(EINVAL);
        }
        let task = match Self::target(&a) {
            Ok(t) => t,
            Err(e) => {
                let (what, n) = if a.flags & uapi::ATTACH_F_PIDFD != 0 {
                    ("pidfd", a.pidfd)
                } else {
                    ("pid", a.pid)
                };
                refusal!(
                    "uid {}: attach to {} {} refused: {}\n",
                    self.uid,
                    what,
                    n,
                    utrace::attach_error(e)
                );
                return Err(e);
            }
        };
        let thread_only = a.flags & uapi::ATTACH_F_THREAD != 0;
        if let Err(e) = device::may_ptrace(&task) {
            if e == ERESTARTNOINTR {
                // A signal: the call restarts, nothing was refused.
                return Err(e);
            }
            refusal!(
                "uid {}: attach to tid {} refused: {}\n",
                self.uid,
                task.pid(),
                ptrace_check_says(e)
            );
            return Err(e);
        }
        // After the check, which may wait for an exec of the task to
        // finish: the session's other calls do not wait with it.
        let ctl = self.ctl.lock();
        let threads = if thread_only {
            let mut v = KVec::new();
            v.push(task.clone(), GFP_KERNEL)?;
            v
        } else {
            match device::process_threads(&task, param_usize(&TASKS_PER_SESSION)) {
                Err(e) if e == E2BIG => {
                    return Err(over_tasks_limit(
                        self.uid,
                        format_args!("attach to tid {}", task.pid()),
                    ));
                }
                r => r?,
            }
        };
        let core = self.core();
        {
            let mut st = core.state.lock();
            if st.threads.len() + threads.len() > param_usize(&TASKS_PER_SESSION) {
                drop(st);
                return Err(over_tasks_limit(
                    self.uid,
                    format_args!("attach to tid {}", task.pid()),
                ));
            }
            for t in threads.iter() {
                if st.find(key(t)).is_some() {
                    return Err(EEXIST);
                }
            }
            st.started = true;
        }
        let id = core.state.lock().new_id();
        let mut attached = 0;
        // Linked with the session's own events only (an exec, a new thread,
        // the reap), no record, no followed child, until the check below
        // admits them: the check ran before, and the task may have exec'd a
        // program the caller may not trace since.
        for t in threads.iter() {
            // The entry first, so that the engine's first events find it.
            {
                let mut st = core.state.lock();
                st.threads.reserve(1, GFP_ATOMIC)?;
                // Within the capacity: does not allocate.
                let _ = st.threads.push(
                    Thread {
                        key: key(t),
                        engine_id: id,
                        events: 0,
                        process: !thread_only,
                        follow: false,
                        stop: false,
                        stepping: false,
                        lossless: a.flags & uapi::ATTACH_F_LOSSLESS != 0,
                        blocked: false,
                        pending: None,
                        resume_due: false,
                        decide: a.flags & decide::DECIDE_FLAGS,
                        waiting: None,
                        decided: None,
                        engine: None,
                        parent_id: 0,
                        ids: Ids::NONE,
                    },
                    GFP_ATOMIC,
                );
            }
            match self.tracer.attach_exclusive(t, INTERNAL) {
                Ok(e) => {
                    let mut st = core.state.lock();
                    if let Some(th) = st.find_mut(key(t)) {
                        th.engine = Some(e);
                    }
                    attached += 1;
                }
                Err(e) => {
                    let gone = core.state.lock().remove(key(t));
                    drop(gone);
                    // The target itself must attach; a thread exiting
                    // meanwhile is skipped.
                    if thread_only || key(t) == key(&task) {
                        self.detach_id(id);
                        if e == EEXIST {
                            return Err(EEXIST);
                        }
                        refusal!(
                            "uid {}: attach to tid {} failed: {}\n",
                            self.uid,
                            t.pid(),
                            utrace::attach_error(e)
                        );
                        return Err(e);
                    }
                }
            }
        }
        if attached == 0 {
            refusal!(
                "uid {}: attach to tid {} failed: its threads exited meanwhile\n",
                self.uid,
                task.pid()
            );
            return Err(ESRCH);
        }
        // The check ran before the engines were linked: an exec in between
        // (of a setuid program, say) was reported to none of them, so the
        // session's own EXEC check (`exec`) did not run for it. Judged
        // again now that they are linked (an exec from here on is reported
        // to them), with `ctl` held: no control call reaches them before
        // they are admitted.
        if let Err(e) = device::may_ptrace(&task) {
            self.detach_id(id);
            if e != ERESTARTNOINTR {
                refusal!(
                    "uid {}: attach to tid {} refused: {} (the second look, once linked)\n",
                    self.uid,
                    task.pid(),
                    ptrace_check_says(e)
                );
            }
            return Err(e);
        }
        if let Err(e) = self.admit(id, a.events, a.flags & uapi::ATTACH_F_FOLLOW != 0) {
            self.detach_id(id);
            return Err(e);
        }
        drop(ctl);
        a.engine_id = id;
        arg.write_struct(&a)?;
        Ok(0)
    }

    /// Gives the threads of engine `id`, linked with the session's own
    /// events only, the caller's `events` and `follow`. New threads take
    /// them from their entry's from here on; the engines linked already
    /// get the mask. May sleep (the mask may put hooks in).
    fn admit(&self, id: u64, events: u64, follow: bool) -> Result {
        let core = self.core();
        let n = {
            let mut st = core.state.lock();
            let mut n = 0;
            for t in st.threads.iter_mut().filter(|t| t.engine_id == id) {
                t.events = events;
                t.follow = follow;
                n += 1;
            }
            n
        };
        // Room for them, made outside the lock; a thread made since (which
        // has its engine's mask from its entry already) may need more.
        let mut engines = KVec::with_capacity(n, GFP_KERNEL)?;
        {
            let st = core.state.lock();
            for t in st.threads.iter().filter(|t| t.engine_id == id) {
                if let Some(e) = &t.engine {
                    engines.push(e.clone(), GFP_ATOMIC)?;
                }
            }
        }
        let mask = Events::from_bits(events).or(INTERNAL);
        for e in engines.iter() {
            match e.set_events(mask) {
                // The thread exited meanwhile (EALREADY: past its exit
                // hook, for exit events).
                Err(err) if err == ESRCH || err == device::errno(kernel::bindings::EALREADY) => {}
                // The mask's hooks could not be put in (EOPNOTSUPP for
                // SIGNAL_TERM or SIGNAL_IGN without the signal kprobe,
                // ENOMEM): the attach fails, as it did when the engines
                // were linked with the whole mask.
                r => r?,
            }
        }
        Ok(())
    }

    fn attach_global(&self, arg: UserArg, mut a: uapi::Attach) -> Result<isize> {
        if !device::caller_sys_admin() {
            refusal!(
                "uid {}: global attach refused: needs CAP_SYS_ADMIN in the initial user namespace\n",
                self.uid
            );
            return Err(EPERM);
        }
        if a.flags != uapi::ATTACH_F_GLOBAL || a.pid != 0 || a.pidfd != 0 {
            return Err(EINVAL);
        }
        if a.events & !GLOBAL_EVENTS != 0 || a.events == 0 {
            refusal!(
                "uid {}: global attach refused: events {:#x}: a global engine reports \
CLONE, EXEC, EXIT, DEATH and SIGNAL_CORE only\n",
                self.uid,
                a.events
            );
            return Err(EINVAL);
        }
        let core = self.core();
        if core.state.lock().global_id != 0 {
            return Err(EEXIST);
        }
        let id = {
            let mut st = core.state.lock();
            st.started = true;
            let id = st.new_id();
            st.global_id = id;
            st.global_events = a.events;
            id
        };
        match self
            .tracer
            .attach_global_nofollow(Events::from_bits(a.events))
        {
            Ok(e) => core.state.lock().global = Some(e),
            Err(e) => {
                let mut st = core.state.lock();
                st.global_id = 0;
                st.global_events = 0;
                return Err(e);
            }
        }
        a.engine_id = id;
        arg.write_struct(&a)?;
        Ok(0)
    }

    /// Detaches every thread of engine `id`; how many there were.
    fn detach_id(&self, id: u64) -> usize {
        let mut n = 0;
        loop {
            let t = {
                let mut st = self.core().state.lock();
                let k = st.threads.iter().find(|t| t.engine_id == id).map(|t| t.key);
                k.and_then(|k| st.take(k))
            };
            let Some(t) = t else { break };
            if let Some(e) = &t.engine {
                let _ = e.control(Control::Detach);
            }
            n += 1;
        }
        let g = {
            let mut st = self.core().state.lock();
            if st.global_id == id && id != 0 {
                st.global_id = 0;
                st.global.take()
            } else {
                None
            }
        };
        if let Some(g) = g {
            let _ = g.control(Control::Detach);
            n += 1;
        }
        n
    }

    fn detach(&self, arg: UserArg) -> Result<isize> {
        let d: uapi::Detach = arg.read_struct()?;
        if d.flags != 0 || d.reserved != 0 {
            return Err(EINVAL);
        }
        let _ctl = self.ctl.lock();
        if d.engine_id == 0 || self.detach_id(d.engine_id) == 0 {
            return Err(ENOENT);
        }
        Ok(0)
    }

    fn control(&self, arg: UserArg) -> Result<isize> {
        let c: uapi::ControlArg = arg.read_struct()?;
        if c.flags != 0 || c.reserved != 0 || c.tid < 0 {
            return Err(EINVAL);
        }
        if c.action != uapi::CTL_SET_EVENTS && c.events != 0 {
            return Err(EINVAL);
        }
        if c.action == uapi::CTL_SET_EVENTS && c.events & !TASK_EVENTS != 0 {
            return Err(EINVAL);
        }
        // SET_EVENTS changes the mask only: a thread the session holds
        // (stopped, deciding, waiting for room) stays held.
        let (stop, ctl) = match c.action {
            uapi::CTL_STOP => (true, Some(Control::Stop)),
            uapi::CTL_RESUME => (false, Some(Control::Resume)),
            uapi::CTL_INTERRUPT => (false, Some(Control::Interrupt)),
            uapi::CTL_SET_EVENTS => (false, None),
            uapi::CTL_SINGLESTEP => return self.singlestep(&c),
            _ => return Err(EINVAL),
        };
        let mut lists = self.ctl.lock();
        let CtlLists { targets, tasks } = &mut *lists;
        let ret = self.control_locked(&c, stop, ctl, targets, tasks);
        // Emptied for the next call (capacity kept); the task references
        // are dropped here, under the mutex.
        while utrace::kvec_pop(targets).is_some() {}
        while utrace::kvec_pop(tasks).is_some() {}
        ret
    }

    /// `UTRACE_IOC_CONTROL` with the session's control mutex held; its
    /// lists (empty) to fill.
    fn control_locked(
        &self,
        c: &uapi::ControlArg,
        stop: bool,
        ctl: Option<Control>,
        targets: &mut KVec<(usize, u64)>,
        tasks: &mut KVec<(EngineRef<Core>, u64)>,
    ) -> Result<isize> {
        let core = self.core();
        // The threads concerned (the lists keep their capacity from call to
        // call: the lock is taken once more only when they grow).
        loop {
            let n = {
                let st = core.state.lock();
                let n = st.threads.len();
                if n <= targets.capacity() {
                    for t in st.threads.iter().filter(|t| t.engine_id == c.engine_id) {
                        // Room reserved: cannot fail.
                        let _ = targets.push((t.key, t.events), GFP_ATOMIC);
                    }
                    break;
                }
                n
            };
            targets.reserve(n, GFP_KERNEL)?;
        }
        if targets.is_empty() {
            return Err(ENOENT);
        }
        for &(k, events) in targets.iter() {
            // Find the engine again, by key, with the lock dropped for
            // every call that may sleep.
            let found = {
                let mut st = core.state.lock();
                match st.find_mut(k) {
                    Some(t) => match t.engine.as_ref().and_then(|e| e.task()) {
                        Some(task) if c.tid == 0 || core.file.ids(task).1 == c.tid => {
                            if c.action == uapi::CTL_SET_EVENTS {
                                t.events = c.events;
                            } else {
                                // STOP, RESUME and INTERRUPT end a step.
                                t.stop = stop;
                                t.stepping = false;
                            }
                            t.engine.clone()
                        }
                        _ => None,
                    },
                    None => None,
                }
            };
            let Some(engine) = found else { continue };
            tasks.push((engine, events), GFP_KERNEL)?;
        }
        if tasks.is_empty() {
            return Err(ESRCH);
        }
        for (engine, events) in tasks.iter() {
            let Some(task) = engine.task() else { continue };
            let mut mask = Events::from_bits(*events).or(INTERNAL);
            if c.action == uapi::CTL_SET_EVENTS {
                mask = Events::from_bits(c.events).or(INTERNAL);
            }
            let Some(ctl) = ctl else {
                // A held thread keeps QUIESCE, with which its stop began;
                // a stepping one what its step needs.
                let extra = core
                    .state
                    .lock()
                    .find(key(task))
                    .map_or(Events::NONE, Thread::extra_events);
                let _ = engine.set_events(mask.or(extra));
                continue;
            };
            if stop {
                // The stop is reported by a QUIESCE callback.
                let _ = engine.set_events(mask.or(Events::QUIESCE));
                match engine.control(ctl) {
                    Ok(()) => {
                        // Already in a stop: no report will come.
                        core.emit_new(task, c.engine_id, uapi::REC_QUIESCE, false, |rec| {
                            rec.h.flags |= uapi::REC_F_STOPPED;
                        });
                    }
                    Err(e) if e == device::errno(kernel::bindings::EINPROGRESS) => {}
                    // Detached since the thread was read (its record is on
                    // the way): nothing to stop. Only a live engine's
                    // ESRCH (an exiting task) is the call's.
                    Err(e) if e == ESRCH && self.tracer.lookup(task).is_err() => {}
                    Err(e) => return Err(e),
                }
            } else {
                // The mask first: its ESRCH says the engine was detached
                // since the thread was read (a handoff under way), which
                // has nothing to resume and whose barrier would wait for
                // the detach to finish.
                if engine.set_events(mask) == Err(ESRCH) {
                    continue;
                }
                // A callback in flight may have read the stop before this
                // call cleared it: its Stop must land before the Resume,
                // else it would hold the thread for good.
                match engine.barrier() {
                    Ok(()) => {}
                    Err(e) if e == ESRCH => {}
                    // Interrupted: the call restarts, the stop is already
                    // cleared, and the Resume comes then.
                    Err(e) => return Err(e),
                }
                let _ = engine.control(ctl);
            }
        }
        Ok(0)
    }

    fn do_read(&self, out: &mut UserOut) -> Result<usize> {
        if out.room() < uapi::REC_SIZE {
            return Err(EINVAL);
        }
        let mut batch = self.reader.lock();
        let core = self.core();
        let mut done = 0;
        while out.room() >= uapi::REC_SIZE {
            let room = out.room().min(batch.len());
            let (n, len) = {
                let mut st = core.state.lock();
                if st.count == 0 {
                    if st.lost > 0 && st.slots() > 0 {
                        st.push_lost();
                    } else {
                        break;
                    }
                }
                copy_out(&st, &mut batch[..room])
            };
            let Some(bytes) = batch.get(..len).filter(|_| n > 0) else {
                break;
            };
            if let Err(e) = out.write(bytes) {
                if done == 0 {
                    return Err(e);
                }
                break;
            }
            let mut st = core.state.lock();
            // Only a read takes records, so the `n` are still there.
            let n = n.min(st.count);
            st.head = (st.head + n) % st.slots();
            st.count -= n;
            // Room: waiting records go in, in the same section, so that a
            // thread's later records cannot overtake its waiting one.
            st.move_pending();
            done += len;
            if st.count == 0 && st.lost == 0 {
                // Nothing left: no need to lock again to find that out.
                break;
            }
        }
        self.resume_due();
        if done == 0 {
            return Err(EAGAIN);
        }
        Ok(done)
    }

    /// Resumes the lossless threads whose waiting record went to the ring.
    fn resume_due(&self) {
        let core = self.core();
        loop {
            let next = {
                let mut st = core.state.lock();
                match st.threads.iter_mut().find(|t| t.resume_due) {
                    Some(t) => {
                        t.resume_due = false;
                        Some(t.engine.as_ref().and_then(|e| e.task()).map(ARefTask::from))
                    }
                    None => None,
                }
            };
            let Some(task) = next else { break };
            let Some(task) = task else { continue };
            let Ok(engine) = self.tracer.lookup(&task) else {
                continue;
            };
            // The callback that stopped it has returned (else its Stop
            // would come after this Resume and hold it for good).
            if engine.barrier().is_err() {
                // A signal for the reader: the next read resumes it.
                if let Some(t) = core.state.lock().find_mut(key(&task)) {
                    t.resume_due = true;
                }
                break;
            }
            let free = core
                .state
                .lock()
                .find(key(&task))
                .and_then(|t| (!t.blocked && !t.stop).then(|| t.resume_control()));
            if let Some(ctl) = free {
                let _ = engine.control(ctl);
            }
        }
    }
}

type ARefTask = utrace::ARef<Task>;

impl SessionHandler for Session {
    fn read(&self, out: &mut UserOut) -> Result<usize> {
        self.do_read(out)
    }

    fn ready(&self) -> bool {
        let st = self.core().state.lock();
        st.count > 0 || st.lost > 0
    }

    fn ioctl(&self, cmd: u32, arg: UserArg) -> Result<isize> {
        if self.closed.load(SeqCst) {
            return Err(EBADF);
        }
        // _IOC_TYPE and _IOC_NR; the size bits are not matched (the
        // struct's own size field counts).
        if (cmd >> 8) & 0xff != uapi::IOC_MAGIC {
            return Err(ENOTTY);
        }
        match cmd & 0xff {
            uapi::NR_INFO => self.info(arg),
            uapi::NR_CONFIG => self.config(arg),
            uapi::NR_ATTACH => self.attach(arg),
            uapi::NR_DETACH => self.detach(arg),
            uapi::NR_CONTROL => self.control(arg),
            uapi::NR_DECIDE => self.decide(arg),
            uapi::NR_HANDOFF => self.handoff(arg),
            uapi::NR_GETREGS => self.getregs(arg),
            uapi::NR_SETREGS => self.setregs(arg),
            uapi::NR_CAPTURE => self.capture(arg),
            uapi::NR_SYSCALLS => self.syscalls(arg),
            _ => Err(ENOTTY),
        }
    }

    fn release(&self) {
        self.closed.store(true, SeqCst);
        // Every engine detaches (the tasks it stopped run on), callbacks in
        // flight finish and releases run before this returns.
        let n = self.tracer.detach_all();
        let (threads, global) = {
            let mut st = self.core().state.lock();
            let mut threads = KVec::new();
            core::mem::swap(&mut threads, &mut st.threads);
            (threads, st.global.take())
        };
        drop(threads);
        drop(global);
        self.dev.unaccount(self.uid, self.bytes.load(SeqCst));
        if n > 0 {
            pr_debug!(
                "session of uid {} closed: {} engines detached\n",
                self.uid,
                n
            );
        }
    }
}

struct UtraceDev {
    _device: device::Device<Dev>,
}

impl kernel::Module for UtraceDev {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let mode = MODE.get();
        if !(0..=0o666).contains(&mode) {
            pr_err!("mode={:o}: must be within 0666\n", mode);
            return Err(EINVAL);
        }
        let dev = Arc::new(
            Dev {
                users: KBox::pin_init(new_mutex!(Users(KVec::new())), GFP_KERNEL)?,
            },
            GFP_KERNEL,
        )?;
        let device = device::Device::create(kernel::c_str!("utrace"), mode as u16, dev)?;
        pr_info!("/dev/utrace ready (mode {:o})\n", mode);
        Ok(UtraceDev { _device: device })
    }
}
