// SPDX-License-Identifier: GPL-2.0

//! Safe wrappers over the C shim (`shim/*.c`): the only place that declares
//! its functions. See `shim/shim.h` for the C side.

use core::marker::PhantomData;
use kernel::bindings;
use kernel::error::{to_result, Result};
use kernel::ffi::{c_int, c_void};

mod ffi {
    use super::*;

    // `task_struct` embeds structs that are empty in some configurations
    // (lockdep or schedstats off); only pointers cross here.
    #[allow(improper_ctypes)]
    extern "C" {
        pub(super) fn utrace_shim_hooks_register() -> c_int;
        pub(super) fn utrace_shim_hooks_unregister();
        pub(super) fn utrace_shim_task_work_add(
            task: *mut bindings::task_struct,
            work: *mut bindings::callback_head,
            notify_signal: bool,
        ) -> c_int;
        pub(super) fn utrace_shim_sig_class(task: *mut bindings::task_struct, sig: c_int) -> u32;
        pub(super) fn utrace_shim_sig_default_class(sig: c_int) -> u32;
        pub(super) fn utrace_shim_sig_holdable(
            task: *mut bindings::task_struct,
            sig: c_int,
            early: bool,
        ) -> bool;
        pub(super) fn utrace_shim_sig_shield(
            task: *mut bindings::task_struct,
            sig: c_int,
            on: bool,
        );
        pub(super) fn utrace_shim_sig_hide(
            task: *mut bindings::task_struct,
            sig: c_int,
            shared: bool,
        );
        pub(super) fn utrace_shim_sig_debugger_owns(task: *mut bindings::task_struct) -> bool;
        pub(super) fn utrace_shim_signal_peek(
            sig: c_int,
            private: bool,
            shared: bool,
            nth: u32,
            info: *mut bindings::kernel_siginfo,
            ka: *mut bindings::k_sigaction,
        ) -> c_int;
        pub(super) fn utrace_shim_signal_count(sig: c_int, private: bool, shared: bool) -> u32;
        pub(super) fn utrace_shim_signal_rewrite(
            sig: c_int,
            private: bool,
            shared: bool,
            nth: u32,
            info: *const bindings::kernel_siginfo,
        );
        pub(super) fn utrace_shim_signal_discard(sig: c_int, private: bool, shared: bool, nth: u32);
        pub(super) fn utrace_shim_signal_release(
            sig: c_int,
            unhold: unsafe extern "C" fn(*mut c_void) -> u32,
            data: *mut c_void,
            discard: bool,
        );
        pub(super) fn utrace_shim_signal_release_locked(
            t: *mut bindings::task_struct,
            private: u64,
            shared: u64,
        );
        pub(super) fn utrace_shim_sig_mark_pending(
            t: *mut bindings::task_struct,
            private: u64,
            shared: u64,
            on: bool,
        );
        pub(super) fn utrace_shim_stop_self();
        pub(super) fn utrace_shim_stop_unmark();
        pub(super) fn utrace_shim_stop_marked() -> bool;
        pub(super) fn utrace_shim_wake_stopped_threads(task: *mut bindings::task_struct);
        pub(super) fn utrace_shim_stop_sleep_prepare(cleared: *mut u32, mark: bool) -> c_int;
        pub(super) fn utrace_shim_stop_sleep_done(cleared: u32);
        pub(super) fn utrace_shim_stop_killed() -> bool;
        pub(super) fn utrace_shim_stop_queue_current(work: *mut bindings::callback_head) -> c_int;
        pub(super) fn utrace_shim_stop_schedule_waking(waiters: *mut c_void, reader: *mut c_void);
        pub(super) fn utrace_chrdev_file_get(file: *mut c_void);
        pub(super) fn utrace_chrdev_file_put(file: *mut c_void);
        pub(super) fn utrace_chrdev_wake(file: *mut c_void);
        pub(super) fn utrace_shim_task_work_cancel(
            task: *mut bindings::task_struct,
            cb: *mut bindings::callback_head,
        ) -> bool;
        pub(super) fn utrace_shim_blockstep_supported() -> bool;
        pub(super) fn utrace_shim_step_enable(block: bool);
        pub(super) fn utrace_shim_step_disable();
        pub(super) fn utrace_shim_ka_kind(ka: *const bindings::k_sigaction) -> c_int;
        pub(super) fn utrace_shim_send_self(sig: c_int, info: *mut bindings::kernel_siginfo);
        pub(super) fn utrace_shim_set_default_action(sig: c_int);
        pub(super) fn utrace_shim_user_regs() -> *mut bindings::pt_regs;
        pub(super) fn utrace_shim_for_each_thread(
            task: *mut bindings::task_struct,
            f: unsafe extern "C" fn(*mut bindings::task_struct, *mut c_void),
            data: *mut c_void,
        );
        pub(super) fn utrace_shim_with_siglock(
            task: *mut bindings::task_struct,
            f: unsafe extern "C" fn(*mut c_void),
            data: *mut c_void,
        ) -> bool;
        pub(super) fn utrace_shim_group_continued(task: *mut bindings::task_struct) -> bool;
        pub(super) fn utrace_shim_kprobes_register() -> bool;
        pub(super) fn utrace_shim_kprobes_unregister();
        pub(super) fn utrace_shim_signal_kprobe_arm(on: bool) -> c_int;
        pub(super) fn utrace_shim_syscall_hooks(on: bool, state: *mut c_void) -> c_int;
        pub(super) fn utrace_shim_task_hash(task: *mut bindings::task_struct) -> u32;
        pub(super) fn utrace_shim_syscall_abort(regs: *mut bindings::pt_regs);
        pub(super) fn utrace_shim_syscall_filter(task: *mut bindings::task_struct, add: bool);
        pub(super) fn utrace_shim_entry_skip(regs: *mut bindings::pt_regs) -> usize;
        pub(super) fn utrace_shim_entry_skipped_exit(
            regs: *mut bindings::pt_regs,
            ip: usize,
            nr: isize,
        ) -> bool;
        pub(super) fn utrace_shim_entry_regs(ip: usize, nr: isize) -> *mut bindings::pt_regs;
        pub(super) fn utrace_shim_entry_leave(regs: *mut bindings::pt_regs, restart: bool);
        pub(super) fn utrace_shim_task_state(t: *mut bindings::task_struct) -> u32;
        pub(super) fn utrace_shim_wait_inactive(t: *mut bindings::task_struct, state: u32)
            -> usize;
        pub(super) fn utrace_shim_regset_get(
            t: *mut bindings::task_struct,
            note_type: u32,
            buf: *mut c_void,
            size: u32,
        ) -> c_int;
        pub(super) fn utrace_shim_regset_set(
            t: *mut bindings::task_struct,
            note_type: u32,
            buf: *const c_void,
            size: u32,
        ) -> c_int;
        pub(super) fn utrace_shim_access_vm(
            t: *mut bindings::task_struct,
            addr: usize,
            buf: *mut c_void,
            len: c_int,
            write: bool,
        ) -> c_int;
        pub(super) fn utrace_shim_continue(task: *mut bindings::task_struct);
        pub(super) fn utrace_shim_set_exit_code(
            task: *mut bindings::task_struct,
            code: c_int,
            group_dead: bool,
        );
        pub(super) fn utrace_shim_rcu_read_lock();
        pub(super) fn utrace_shim_rcu_read_unlock();
        pub(super) fn utrace_shim_irq_save() -> core::ffi::c_ulong;
        pub(super) fn utrace_shim_irq_restore(flags: core::ffi::c_ulong);
        pub(super) fn utrace_shim_synchronize_tasks();
        pub(super) fn utrace_shim_cache_create(
            name: *const kernel::ffi::c_char,
            size: core::ffi::c_uint,
            align: core::ffi::c_uint,
        ) -> *mut bindings::kmem_cache;
        pub(super) fn utrace_shim_cache_alloc(
            cache: *mut bindings::kmem_cache,
            gfp: bindings::gfp_t,
        ) -> *mut c_void;
        pub(super) fn utrace_shim_task_comm(
            buf: *mut u8,
            len: usize,
            task: *mut bindings::task_struct,
        );
        pub(super) fn utrace_shim_may_sleep() -> bool;
        pub(super) fn utrace_shim_timer_init(
            timer: *mut bindings::timer_list,
            f: unsafe extern "C" fn(*mut bindings::timer_list),
        );
        pub(super) fn utrace_shim_timer_arm(timer: *mut bindings::timer_list, ms: u32);
        pub(super) fn utrace_shim_timer_shutdown(timer: *mut bindings::timer_list);
        pub(super) fn utrace_shim_atomic() -> bool;
        pub(super) fn utrace_shim_module_live(module: *mut bindings::module) -> bool;
        pub(super) fn utrace_shim_module_notifier(on: bool) -> c_int;
        pub(super) fn utrace_shim_chardev_create(
            name: *const u8,
            mode: bindings::umode_t,
            fops: *const bindings::file_operations,
            data: *mut c_void,
        ) -> *mut c_void;
        pub(super) fn utrace_shim_chardev_destroy(c: *mut c_void);
        pub(super) fn utrace_shim_chardev_data(file: *mut bindings::file) -> *mut c_void;
        pub(super) fn utrace_shim_poll(
            file: *mut bindings::file,
            wq: *mut bindings::wait_queue_head,
            pt: *mut bindings::poll_table_struct,
            readable: bool,
        ) -> bindings::__poll_t;
    }
}

/// The tracepoint probes (`shim/tracepoints.c`).
mod tracepoints;
pub(crate) use tracepoints::Hooks;

/// An RCU read-side critical section: one begun by [`RcuGuard::new`] ends
/// when the guard is dropped; one that preemption or interrupts off make
/// ([`RcuGuard::preempt_off`], [`IrqOff::rcu`]) lasts as long as they are
/// off, and the guard only witnesses it. Not `Send`: it must end on the
/// CPU/task that began it. Nothing may sleep while one is held.
pub(crate) struct RcuGuard {
    locked: bool,
    _not_send: PhantomData<*mut ()>,
}

impl RcuGuard {
    pub(crate) fn new() -> Self {
        // SAFETY: Begins a read-side section; `Drop` ends it.
        unsafe { ffi::utrace_shim_rcu_read_lock() };
        RcuGuard {
            locked: true,
            _not_send: PhantomData,
        }
    }

    /// The read-side section of code that runs with preemption disabled,
    /// which holds off RCU grace periods (consolidated RCU): no
    /// `rcu_read_lock()` call. The syscall, fork, exec and exit hooks',
    /// whose probes disable preemption on every kernel
    /// (`shim/tracepoints.c`), and [`IrqOff`]'s.
    ///
    /// # Safety
    ///
    /// Preemption is disabled for as long as the value is used (its drop
    /// ends nothing, and may come after preemption is enabled again).
    pub(crate) unsafe fn preempt_off() -> Self {
        RcuGuard {
            locked: false,
            _not_send: PhantomData,
        }
    }
}

impl Drop for RcuGuard {
    fn drop(&mut self) {
        if self.locked {
            // SAFETY: Ends the section begun in `new`.
            unsafe { ffi::utrace_shim_rcu_read_unlock() };
        }
    }
}

/// Local interrupts off until dropped (`local_irq_save()`), and restored
/// as they were. Not `Send` (its `RcuGuard` is not): it must end on the
/// CPU that began it.
pub(crate) struct IrqOff {
    flags: core::ffi::c_ulong,
    /// The read-side section that interrupts off make (see [`IrqOff::rcu`]).
    rcu: RcuGuard,
}

impl IrqOff {
    pub(crate) fn new() -> Self {
        IrqOff {
            // SAFETY: Disables local interrupts; `Drop` restores them.
            flags: unsafe { ffi::utrace_shim_irq_save() },
            // SAFETY: Interrupts, so preemption, are off until `self` is
            // dropped; the guard is reached only by borrowing `self`
            // (`rcu`), so no use of it outlives them, and its own drop,
            // after `IrqOff::drop`, ends nothing (it began nothing).
            rcu: unsafe { RcuGuard::preempt_off() },
        }
    }

    /// Code with interrupts off is an RCU read-side section (consolidated
    /// RCU): for as long as this borrow lasts, no `rcu_read_lock()` call.
    pub(crate) fn rcu(&self) -> &RcuGuard {
        &self.rcu
    }
}

impl Drop for IrqOff {
    fn drop(&mut self) {
        // SAFETY: The flags `new` saved, on the same CPU (not `Send`).
        unsafe { ffi::utrace_shim_irq_restore(self.flags) };
    }
}

/// Queues `work` to run in `task`'s context before it next returns to user
/// mode, or in `do_exit()`. Fails with `ESRCH` once the task is past
/// `exit_task_work()`.
///
/// # Safety
///
/// `task` must be a valid task and `work` a `callback_head` whose `func` is
/// set and that stays valid, and is not queued anywhere else, until the
/// callback has run.
pub(crate) unsafe fn task_work_add(
    task: *mut bindings::task_struct,
    work: *mut bindings::callback_head,
    notify_signal: bool,
) -> Result {
    // SAFETY: By the function's safety requirements.
    to_result(unsafe { ffi::utrace_shim_task_work_add(task, work, notify_signal) })
}

/// Held signals (`shim/signal.c`). Functions taking `locked` or documented
/// "siglock held" run in the signal probes.
pub(crate) mod signal;

/// The signal and freezer kprobes (`shim/kprobes.c`).
mod kprobes;
pub(crate) use kprobes::Kprobes;

/// The utrace stop and job control (`shim/stop.c`): `current` only.
pub(crate) mod stop;

/// Single-step and block-step of `current` (`shim/step.c`).
pub(crate) mod step;

/// Sets the exit code of `current`, and its process's when `group_dead`
/// (it is the thread that made its process dead: what `wait()` reports).
/// Meant for `current`'s EXIT report, before `exit_notify()`; elsewhere
/// `do_exit()` overwrites it.
pub(crate) fn set_current_exit_code(code: i32, group_dead: bool) {
    // SAFETY: `current` is valid; the shim takes the siglock it needs.
    unsafe { ffi::utrace_shim_set_exit_code(bindings::get_current(), code, group_dead) }
}

/// Waits until every task has passed a voluntary context switch, so none can
/// still be executing this module's text. May sleep.
pub(crate) fn synchronize_tasks() {
    // SAFETY: Plain C call from process context (module exit).
    unsafe { ffi::utrace_shim_synchronize_tasks() };
}

/// A slab cache for objects of type `T` (`kmem_cache`), destroyed when
/// dropped: every object must have been freed by then.
pub(crate) struct Cache<T> {
    cache: *mut bindings::kmem_cache,
    _type: PhantomData<T>,
}

// SAFETY: A `kmem_cache` may be used from any CPU and context.
unsafe impl<T> Send for Cache<T> {}
// SAFETY: As above.
unsafe impl<T> Sync for Cache<T> {}

impl<T> Cache<T> {
    /// A new cache named `name`. May sleep.
    pub(crate) fn new(name: &'static kernel::str::CStr) -> Result<Self> {
        // `as_char_ptr` is a trait method on 7.x (the prelude's `CStrExt`).
        #[allow(unused_imports)]
        use kernel::prelude::*;
        let size =
            u32::try_from(core::mem::size_of::<T>()).map_err(|_| kernel::error::code::EINVAL)?;
        let align =
            u32::try_from(core::mem::align_of::<T>()).map_err(|_| kernel::error::code::EINVAL)?;
        // SAFETY: `name` is a NUL-terminated string that lives forever.
        let cache = unsafe { ffi::utrace_shim_cache_create(name.as_char_ptr(), size, align) };
        if cache.is_null() {
            return Err(kernel::error::code::ENOMEM);
        }
        Ok(Cache {
            cache,
            _type: PhantomData,
        })
    }

    /// Room for one `T` (uninitialised), or `None` if memory is short.
    /// `gfp` is `GFP_KERNEL` (may sleep) or else taken as `GFP_ATOMIC`
    /// (the kernel crate does not hand out the raw value of other flags).
    pub(crate) fn alloc(&self, gfp: kernel::alloc::Flags) -> Option<core::ptr::NonNull<T>> {
        let raw = if gfp == kernel::alloc::flags::GFP_KERNEL {
            bindings::GFP_KERNEL
        } else {
            bindings::GFP_ATOMIC
        };
        // SAFETY: The cache is live (`self`); `raw` fits the caller's context.
        core::ptr::NonNull::new(unsafe { ffi::utrace_shim_cache_alloc(self.cache, raw) }.cast())
    }

    /// Gives `obj`'s room back.
    ///
    /// # Safety
    ///
    /// `obj` came from [`Cache::alloc`] of this cache, holds no live `T`
    /// (dropped or never initialised), and is not used again.
    pub(crate) unsafe fn free(&self, obj: *mut T) {
        // SAFETY: By the function's safety requirements.
        unsafe { bindings::kmem_cache_free(self.cache, obj.cast()) };
    }
}

impl<T> Drop for Cache<T> {
    fn drop(&mut self) {
        // SAFETY: Created by `new`; its objects are all freed (type doc).
        unsafe { bindings::kmem_cache_destroy(self.cache) };
    }
}

/// Queues `work` on the system workqueue (`system_dfl_wq` on 7.x), on any
/// CPU. Any context.
///
/// # Safety
///
/// `work` is initialised and stays valid until it has run or been
/// cancelled or flushed.
pub(crate) unsafe fn queue_work(work: *mut bindings::work_struct) {
    // SAFETY: By the function's safety requirements.
    unsafe {
        bindings::queue_work_on(
            bindings::wq_misc_consts_WORK_CPU_UNBOUND as i32,
            crate::compat::system_dfl_wq(),
            work,
        )
    };
}

/// Waits for every RCU callback queued so far to have run. May sleep.
pub(crate) fn rcu_barrier() {
    // SAFETY: Plain C call; process context is the caller's contract.
    unsafe { bindings::rcu_barrier() };
}

/// Sleeps for at least `ms` milliseconds. May sleep.
pub(crate) fn msleep(ms: u32) {
    // SAFETY: Plain C call; process context is the caller's contract.
    unsafe { bindings::msleep(ms) };
}

/// Whether the caller may sleep: process context, preemption and
/// interrupts enabled, outside any RCU read-side section. False where the
/// kernel cannot tell (no `CONFIG_PREEMPT_COUNT`).
pub(crate) fn may_sleep() -> bool {
    // SAFETY: Reads the current context; callable anywhere.
    unsafe { ffi::utrace_shim_may_sleep() }
}

/// Whether the caller certainly may not sleep (interrupt, softirq, irqs or
/// preemption off, an RCU read-side section): calls that would sleep refuse
/// with `EWOULDBLOCK` then instead of hanging or splatting.
pub(crate) fn atomic() -> bool {
    // SAFETY: Reads the current context; callable anywhere.
    unsafe { ffi::utrace_shim_atomic() }
}

/// Refuses a call that may sleep from where it may not (a syscall
/// callback, a spinlock held, an interrupt): `EWOULDBLOCK` and a log line,
/// rather than a hang or a splat.
pub(crate) fn sleepable(what: &str) -> Result {
    if atomic() {
        pr_warn_limited!(
            "{} called where it may not sleep: refused (-EWOULDBLOCK)\n",
            what
        );
        return Err(kernel::error::code::EAGAIN);
    }
    Ok(())
}

/// Whether `module` is not being unloaded (`module_is_live()`).
///
/// # Safety
///
/// `module` is a module in memory (its code or data is in use).
pub(crate) unsafe fn module_live(module: *mut bindings::module) -> bool {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_module_live(module) }
}

/// The module notifier, registered while this value lives: it calls
/// `release::utrace_rs_module_going()` for every module being unloaded.
pub(crate) struct ModuleNotifier(());

impl ModuleNotifier {
    pub(crate) fn register() -> Result<Self> {
        // SAFETY: Plain C call from module init.
        to_result(unsafe { ffi::utrace_shim_module_notifier(true) })?;
        Ok(ModuleNotifier(()))
    }
}

impl Drop for ModuleNotifier {
    fn drop(&mut self) {
        // SAFETY: Registered by `register`; unregistering waits for a
        // notification in progress.
        unsafe { ffi::utrace_shim_module_notifier(false) };
    }
}

/// Registers the character device `/dev/<name>` (a misc device, mode
/// `mode`) with `fops`, whose `open` gets `data` from [`chardev_data`]; an
/// `ERR_PTR` on failure (`EINVAL`: not a plain name; `EEXIST`: ours already).
/// May sleep.
///
/// # Safety
///
/// `name` is NUL-terminated; `fops` is static; `data` stays valid until
/// [`chardev_destroy`] returns.
pub(crate) unsafe fn chardev_create(
    name: *const u8,
    mode: u16,
    fops: *const bindings::file_operations,
    data: *mut c_void,
) -> *mut c_void {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_chardev_create(name, mode, fops, data) }
}

/// Removes a device made by [`chardev_create`]: no `open` of it runs or
/// starts after this returns (files already open stay open). May sleep.
///
/// # Safety
///
/// `c` came from [`chardev_create`] and is destroyed once.
pub(crate) unsafe fn chardev_destroy(c: *mut c_void) {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_chardev_destroy(c) };
}

/// The `data` of the device `file` is being opened on.
///
/// # Safety
///
/// Called from the device's `open` (the misc layer holds its lock: the
/// device is registered, its `data` valid).
pub(crate) unsafe fn chardev_data(file: *mut bindings::file) -> *mut c_void {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_chardev_data(file) }
}

/// `poll_wait()` on `wq` and the mask for a readable (or not) file.
///
/// # Safety
///
/// Called from a `poll` file operation with its arguments.
pub(crate) unsafe fn poll(
    file: *mut bindings::file,
    wq: *mut bindings::wait_queue_head,
    pt: *mut bindings::poll_table_struct,
    readable: bool,
) -> bindings::__poll_t {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_poll(file, wq, pt, readable) }
}

/// Sets up `timer` to call `f` when it fires.
///
/// # Safety
///
/// `timer` is memory for a `timer_list` that stays put until
/// [`timer_shutdown`] has returned.
pub(crate) unsafe fn timer_init(
    timer: *mut bindings::timer_list,
    f: unsafe extern "C" fn(*mut bindings::timer_list),
) {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_timer_init(timer, f) }
}

/// Arms `timer` to fire in about `ms` milliseconds, unless it is pending.
/// Any context.
///
/// # Safety
///
/// `timer` was set up by [`timer_init`] and not shut down.
pub(crate) unsafe fn timer_arm(timer: *mut bindings::timer_list, ms: u32) {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_timer_arm(timer, ms) }
}

/// Stops `timer` for good (later arms do nothing) and waits for its
/// function to return. May sleep.
///
/// # Safety
///
/// `timer` was set up by [`timer_init`].
pub(crate) unsafe fn timer_shutdown(timer: *mut bindings::timer_list) {
    // SAFETY: By the function's safety requirements.
    unsafe { ffi::utrace_shim_timer_shutdown(timer) }
}

/// Registers (`true`) or unregisters the syscall probes, which hand `state`
/// to `hooks::utrace_rs_hook_sys_enter`/`_exit` (unregistering ignores it: the probes
/// go with the data they were registered with). May sleep.
///
/// # Safety
///
/// With `on`, `state` must stay valid until the probes were unregistered
/// again (unregistering waits for the probes that are running).
pub(crate) unsafe fn syscall_hooks(on: bool, state: *const c_void) -> Result {
    // SAFETY: Plain C call from process context; what the probes do with
    // `state` is the caller's to keep valid.
    to_result(unsafe { ffi::utrace_shim_syscall_hooks(on, state.cast_mut()) })
}

/// The bucket of `task` in the syscall probes' filter (`hash_ptr()`), which
/// they hand to `hooks::utrace_rs_hook_sys_enter`/`_exit`: `table.rs` checks at load
/// that its own buckets are the same.
pub(crate) fn task_hash(task: *mut bindings::task_struct) -> u32 {
    // SAFETY: Pure arithmetic on the pointer's value.
    unsafe { ffi::utrace_shim_task_hash(task) }
}

/// Counts `task` in (`add`) or out of the syscall probes' filter: the probes
/// call `hooks::utrace_rs_hook_sys_enter`/`_exit` only for a task whose hash bucket
/// counts one (a shared bucket only costs a lookup that misses).
pub(crate) fn syscall_filter(task: *mut bindings::task_struct, add: bool) {
    // SAFETY: An atomic counter update; `task` is only hashed.
    unsafe { ffi::utrace_shim_syscall_filter(task, add) }
}

/// The registers of `current`'s syscall, as a syscall tracepoint passes
/// them to its probe, or as its task work finds them at a syscall entry
/// skipped for a restart ([`entry_regs`]). Not `Send`.
///
/// # Invariants
///
/// `regs` are `current`'s syscall registers, valid while this lives (the
/// probe's or the task work's duration).
pub(crate) struct SyscallRegs {
    regs: *mut bindings::pt_regs,
    entry: bool,
}

impl SyscallRegs {
    /// # Safety
    ///
    /// `regs` are the registers the `sys_enter` (`entry`) or `sys_exit`
    /// probe got, and the value does not outlive the probe; or `current`'s
    /// user registers in its task work, at the end of a syscall (`!entry`),
    /// and the value does not outlive the work.
    pub(crate) unsafe fn new(regs: *mut bindings::pt_regs, entry: bool) -> Self {
        // INVARIANT: By the function's safety requirements.
        SyscallRegs { regs, entry }
    }

    /// Whether the syscall is being entered (else left).
    pub(crate) fn entry(&self) -> bool {
        self.entry
    }

    /// For the engines' callbacks, which get `struct pt_regs *`.
    pub(crate) fn as_ptr(&mut self) -> *mut bindings::pt_regs {
        self.regs
    }

    /// The instruction pointer (after the syscall instruction).
    pub(crate) fn ip(&self) -> usize {
        // SAFETY: Valid registers (type invariant).
        unsafe { (*self.regs).ip }
    }

    /// The syscall number (`orig_ax`; -1 for none).
    pub(crate) fn nr(&self) -> isize {
        // SAFETY: Valid registers (type invariant).
        unsafe { (*self.regs).orig_ax as isize }
    }

    /// In `sys_enter`: skips the syscall so that it can be restarted
    /// (`shim/sysentry.c`); returns its instruction pointer.
    pub(crate) fn skip_for_restart(&mut self) -> usize {
        // SAFETY: The registers of the syscall being entered (type
        // invariant; callers are in `sys_enter`).
        unsafe { ffi::utrace_shim_entry_skip(self.regs) }
    }

    /// In `sys_exit`: if this is the pass skipped at `ip` (entered as
    /// `nr`), shows it as syscall `nr` returning `-ERESTARTNOINTR`; true if
    /// it was.
    pub(crate) fn skipped_exit(&mut self, ip: usize, nr: isize) -> bool {
        // SAFETY: The registers of the syscall being left (type invariant).
        !self.entry && unsafe { ffi::utrace_shim_entry_skipped_exit(self.regs, ip, nr) }
    }

    /// Leaves the task work with these registers (from [`entry_regs`]):
    /// restarts the syscall they name, or (`!restart`) returns what `ax`
    /// holds from it.
    pub(crate) fn leave(self, restart: bool) {
        // SAFETY: `current`'s user registers, in its task work (type
        // invariant; only `entry_regs` makes a value used so).
        unsafe { ffi::utrace_shim_entry_leave(self.regs, restart) }
    }

    /// Makes the syscall being entered not run (its return value is `ax`).
    /// Nothing at exit.
    pub(crate) fn abort(&mut self) {
        if self.entry {
            // SAFETY: The registers of the syscall being entered, in
            // `sys_enter` (type invariant).
            unsafe { ffi::utrace_shim_syscall_abort(self.regs) }
        }
    }
}

/// In `current`'s task work: if its registers are those of the syscall
/// entry skipped at `ip` (entered as `nr`), puts them as at entry and
/// returns them.
pub(crate) fn entry_regs(ip: usize, nr: isize) -> Option<SyscallRegs> {
    // SAFETY: Called by the task work (the only caller, `sysentry.rs`);
    // reads and writes `current`'s user registers.
    let regs = unsafe { ffi::utrace_shim_entry_regs(ip, nr) };
    // INVARIANT: `current`'s user registers, alive while it runs its work.
    (!regs.is_null()).then_some(SyscallRegs { regs, entry: true })
}

/// `current`'s user registers (`task_pt_regs(current)`), for callbacks in
/// its own context. Never null for a user task.
pub(crate) fn user_regs() -> *mut bindings::pt_regs {
    // SAFETY: Plain C call in task context.
    unsafe { ffi::utrace_shim_user_regs() }
}

/// `task`'s comm, NUL-padded.
///
/// # Safety
///
/// `task` is a valid task.
pub(crate) unsafe fn task_comm(buf: &mut [u8; 16], task: *mut bindings::task_struct) {
    // SAFETY: `buf` has the 16 bytes it is said to have; `task` is valid.
    unsafe { ffi::utrace_shim_task_comm(buf.as_mut_ptr(), buf.len(), task) };
}

/// A task's scheduling state, registers and memory (`shim/examine.c`).
pub(crate) mod examine;
