// SPDX-License-Identifier: GPL-2.0

use super::*;

/// Proof that the siglock of `task`'s thread group (`task->sighand`) is
/// held, and `task` valid, for as long as this value lives: what every
/// function that reads or changes a task's signal state needs. Made only
/// where the lock is really held: a signal probe, whose caller holds it
/// ([`SigLocked::in_probe`], the one promise taken on trust), inside
/// [`with_siglock`] (which takes it), for each thread of a group
/// ([`SigLocked::for_each_thread`]) and for `current` inside
/// [`release`]'s section. Neither `Send` nor `Clone`: it cannot leave the
/// section (or CPU) the lock is held in.
///
/// # Invariants
///
/// `task` is valid and its group's siglock is held while the value lives.
pub(crate) struct SigLocked<'a> {
    task: *mut bindings::task_struct,
    _held: PhantomData<(&'a (), *mut ())>,
}

impl<'a> SigLocked<'a> {
    /// The witness a signal probe gets: the kernel calls it (the
    /// `prepare_signal()` kprobe, `signal_generate`, `signal_deliver`)
    /// with `task`'s siglock held.
    ///
    /// # Safety
    ///
    /// `task` is valid and its siglock is held until the value is
    /// dropped.
    pub(crate) unsafe fn in_probe(task: *mut bindings::task_struct) -> Self {
        // INVARIANT: By the function's safety requirements.
        SigLocked {
            task,
            _held: PhantomData,
        }
    }

    /// The task whose group's siglock is held.
    pub(crate) fn raw(&self) -> *mut bindings::task_struct {
        self.task
    }

    /// The task whose group's siglock is held.
    pub(crate) fn task(&self) -> &kernel::task::Task {
        // SAFETY: `task` is valid while `self` lives (type invariant),
        // for as long as the borrow; `Task` is a transparent wrapper of
        // `task_struct`.
        unsafe { &*self.task.cast::<kernel::task::Task>() }
    }

    /// The `UTRACE_SIGNAL_*` class of `sig` under the task's disposition.
    pub(crate) fn class(&self, sig: i32) -> u32 {
        // SAFETY: `task` is valid and its siglock held (type invariant).
        unsafe { ffi::utrace_shim_sig_class(self.task, sig) }
    }

    /// Whether `sig` may be held for the task (`early`: before it is
    /// queued).
    pub(crate) fn holdable(&self, sig: i32, early: bool) -> bool {
        // SAFETY: As in `class`.
        unsafe { ffi::utrace_shim_sig_holdable(self.task, sig, early) }
    }

    /// Whether the task is ptraced: its debugger owns its signals.
    pub(crate) fn debugger_owns(&self) -> bool {
        // SAFETY: As in `class`.
        unsafe { ffi::utrace_shim_sig_debugger_owns(self.task) }
    }

    /// Marks (`on`) or unmarks `sig` in the `real_blocked` of every
    /// thread of the group, for one send.
    pub(crate) fn shield(&self, sig: i32, on: bool) {
        // SAFETY: As in `class`.
        unsafe { ffi::utrace_shim_sig_shield(self.task, sig, on) }
    }

    /// Hides the task's queued `sig` (`shared`: on the group's set).
    pub(crate) fn hide(&self, sig: i32, shared: bool) {
        // SAFETY: As in `class`.
        unsafe { ffi::utrace_shim_sig_hide(self.task, sig, shared) }
    }

    /// Shows hidden signals again (bit `sig - 1`, on the task's own set
    /// and on the group's) and has the threads look at them.
    pub(crate) fn show(&self, private: u64, shared: u64) {
        if private | shared != 0 {
            // SAFETY: As in `class`.
            unsafe { ffi::utrace_shim_signal_release_locked(self.task, private, shared) }
        }
    }

    /// Sets (`on`) or clears the pending bits of held signals (bit
    /// `sig - 1`, on the task's own set and on the group's) for the
    /// length of one send, so that the kernel merges it with them; no
    /// thread is made to look.
    pub(crate) fn mark_pending(&self, private: u64, shared: u64, on: bool) {
        if private | shared != 0 {
            // SAFETY: As in `class`.
            unsafe { ffi::utrace_shim_sig_mark_pending(self.task, private, shared, on) }
        }
    }

    /// Whether the process was stopped (or stopping) when the SIGCONT
    /// being sent continued it.
    pub(crate) fn group_continued(&self) -> bool {
        // SAFETY: As in `class`.
        unsafe { ffi::utrace_shim_group_continued(self.task) }
    }

    /// Calls `f` with a witness for every thread of the group (same
    /// sighand, same lock). `f` must not sleep (a spinlock is held).
    pub(crate) fn for_each_thread<F: FnMut(&SigLocked<'_>)>(&self, mut f: F) {
        /// # Safety
        ///
        /// `data` is the `&mut F` below, alive for the call; `t` is a
        /// thread of the group whose siglock the caller holds.
        unsafe extern "C" fn tramp<F: FnMut(&SigLocked<'_>)>(
            t: *mut bindings::task_struct,
            data: *mut c_void,
        ) {
            // SAFETY: `data` is the `&mut F` passed below, alive for the call.
            let f = unsafe { &mut *data.cast::<F>() };
            // SAFETY: `t` is a thread of the group (`for_each_thread()`
            // under the siglock, which keeps it listed and valid), and
            // threads share the sighand: its siglock is held for the call.
            let lk = unsafe { SigLocked::in_probe(t) };
            f(&lk)
        }
        // SAFETY: The siglock is held (type invariant); `f` outlives
        // the call.
        unsafe {
            ffi::utrace_shim_for_each_thread(self.task, tramp::<F>, (&mut f as *mut F).cast())
        }
    }
}

/// Runs `f` with `task`'s siglock held (taken here, interrupts off);
/// `None` if `task` has no sighand any more (released). Not to be called
/// with a siglock held; `f` must not sleep.
pub(crate) fn with_siglock<R, F: FnOnce(&SigLocked<'_>) -> R>(
    task: &kernel::task::Task,
    f: F,
) -> Option<R> {
    struct Call<F, R> {
        task: *mut bindings::task_struct,
        f: Option<F>,
        ret: Option<R>,
    }
    /// # Safety
    ///
    /// `data` is the `Call` below, alive for the call, which the shim
    /// makes with `task`'s siglock held.
    unsafe extern "C" fn tramp<R, F: FnOnce(&SigLocked<'_>) -> R>(data: *mut c_void) {
        // SAFETY: By the function's safety requirements.
        let call = unsafe { &mut *data.cast::<Call<F, R>>() };
        // SAFETY: The shim holds `task`'s siglock for this call, and
        // `task` is valid (a reference of the caller's).
        let lk = unsafe { SigLocked::in_probe(call.task) };
        call.ret = call.f.take().map(|f| f(&lk));
    }
    let mut call = Call {
        task: (task as *const kernel::task::Task).cast_mut().cast(),
        f: Some(f),
        ret: None,
    };
    // SAFETY: `task` is valid; `call` lives across the call, in which
    // the shim calls `tramp` once, under the lock, or not at all.
    unsafe {
        ffi::utrace_shim_with_siglock(
            call.task,
            tramp::<R, F>,
            (&mut call as *mut Call<F, R>).cast(),
        )
    };
    call.ret
}

/// The `UTRACE_SIGNAL_*` class of `sig` under `current`'s disposition
/// (read without the siglock, as `get_signal()`'s callers may).
pub(crate) fn class_current(sig: i32) -> u32 {
    // SAFETY: `current` is valid; its own `sighand` does not go away
    // under it.
    unsafe { ffi::utrace_shim_sig_class(bindings::get_current(), sig) }
}

/// The `UTRACE_SIGNAL_*` class of `sig`'s default action.
pub(crate) fn default_class(sig: i32) -> u32 {
    // SAFETY: Pure function of `sig`.
    unsafe { ffi::utrace_shim_sig_default_class(sig) }
}

/// Where a hidden signal of `current` is queued: its own set, the
/// group's, or both.
#[derive(Clone, Copy)]
pub(crate) struct Hidden {
    pub(crate) private: bool,
    pub(crate) shared: bool,
}

/// `current`'s hidden `sig`, instance `nth` (counted from 0 in the order
/// `get_signal()` dequeues them): its siginfo into `info` (a signal
/// queued without one gets what the kernel would make), the disposition
/// into `ka`, and its class; `None` if `current` is dying.
pub(crate) fn peek(
    sig: i32,
    at: Hidden,
    nth: u32,
    info: &mut bindings::kernel_siginfo,
    ka: &mut bindings::k_sigaction,
) -> Option<u32> {
    // SAFETY: Task context; `info` and `ka` are valid for writes.
    let class = unsafe { ffi::utrace_shim_signal_peek(sig, at.private, at.shared, nth, info, ka) };
    u32::try_from(class).ok()
}

/// How many instances of `current`'s hidden `sig` are queued.
pub(crate) fn count(sig: i32, at: Hidden) -> u32 {
    // SAFETY: Task context; takes `current`'s siglock.
    unsafe { ffi::utrace_shim_signal_count(sig, at.private, at.shared) }
}

/// Replaces the siginfo of instance `nth` of `current`'s hidden `sig` by
/// `info` (same signal).
pub(crate) fn rewrite(sig: i32, at: Hidden, nth: u32, info: &bindings::kernel_siginfo) {
    // SAFETY: Task context; `info` is valid.
    unsafe { ffi::utrace_shim_signal_rewrite(sig, at.private, at.shared, nth, info) }
}

/// Takes instance `nth` of `current`'s hidden `sig` out of its queue
/// (the others stay hidden).
pub(crate) fn discard(sig: i32, at: Hidden, nth: u32) {
    // SAFETY: Task context; takes `current`'s siglock.
    unsafe { ffi::utrace_shim_signal_discard(sig, at.private, at.shared, nth) }
}

/// Shows `current`'s hidden `sig` again (delivered as usual), or
/// (`discard`) takes it out of the queues. `unhold` stops holding it
/// and says where it is hidden: it runs under `current`'s siglock, in
/// the same section as the showing, so that a signal probe (which runs
/// under that lock) never finds the hold gone while the signal is still
/// hidden. It must not sleep.
pub(crate) fn release<F: FnOnce(&SigLocked<'_>) -> Hidden>(sig: i32, discard: bool, unhold: F) {
    /// `unhold`, called by the shim with `data` pointing to it.
    ///
    /// # Safety
    ///
    /// `data` is the `Option<F>` `release` passes, alive for the call,
    /// which the shim makes with `current`'s siglock held.
    unsafe extern "C" fn call<F: FnOnce(&SigLocked<'_>) -> Hidden>(data: *mut c_void) -> u32 {
        // SAFETY: By the function's safety requirements.
        let f = unsafe { &mut *data.cast::<Option<F>>() };
        // SAFETY: `current` is valid and the shim holds its siglock for
        // this call.
        let lk = unsafe { SigLocked::in_probe(bindings::get_current()) };
        f.take().map_or(0, |f| {
            let at = f(&lk);
            (u32::from(at.private) * HID_PRIVATE) | (u32::from(at.shared) * HID_SHARED)
        })
    }
    let mut f = Some(unhold);
    // SAFETY: Task context; takes `current`'s siglock and calls `call`
    // once under it, with `f`, which lives across the call.
    unsafe {
        ffi::utrace_shim_signal_release(sig, call::<F>, (&mut f as *mut Option<F>).cast(), discard)
    }
}

/// `shim.h`'s `UTRACE_SHIM_HID_*`.
const HID_PRIVATE: u32 = 1;
const HID_SHARED: u32 = 2;

/// Stops the calling thread's group (SIGSTOP to this thread).
pub(crate) fn stop_self() {
    // SAFETY: Task context.
    unsafe { ffi::utrace_shim_stop_self() }
}

/// Sends SIGCONT to `task`'s process. Takes its siglock: not to be
/// called with one held.
pub(crate) fn continue_group(task: &kernel::task::Task) {
    // SAFETY: `task` is valid (a reference); the shim takes the locks.
    unsafe { ffi::utrace_shim_continue((task as *const kernel::task::Task).cast_mut().cast()) }
}

/// What `ka`'s handler is: default, ignore or a function.
pub(crate) fn ka_kind(ka: &bindings::k_sigaction) -> Handler {
    // SAFETY: `ka` is valid.
    match unsafe { ffi::utrace_shim_ka_kind(ka) } {
        0 => Handler::Default,
        1 => Handler::Ignore,
        _ => Handler::Function,
    }
}

/// A disposition's handler.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handler {
    Default,
    Ignore,
    Function,
}

/// Sends `sig` to `current` with `info` (`None`: as the kernel).
pub(crate) fn send_self(sig: i32, info: Option<&mut bindings::kernel_siginfo>) {
    let info = info.map_or(core::ptr::null_mut(), |i| i as *mut _);
    // SAFETY: Task context; `info` is null or valid.
    unsafe { ffi::utrace_shim_send_self(sig, info) }
}

/// Makes `sig`'s disposition the default in `current`'s process.
pub(crate) fn set_default_action(sig: i32) {
    // SAFETY: Task context; takes the siglock.
    unsafe { ffi::utrace_shim_set_default_action(sig) }
}
