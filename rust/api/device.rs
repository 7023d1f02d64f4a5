// SPDX-License-Identifier: GPL-2.0

//! Character devices: a misc device `/dev/<name>` whose opens, reads,
//! polls and ioctls go to the engine module ([`Device`]), plus the kernel
//! facts a device that lets users attach engines needs: the kernel's own
//! ptrace permission check ([`may_ptrace`]), pidfds, the threads of a
//! process, dumpability, the caller's uid and capability.

use super::compat::{ARef, ForeignPtr};
use super::task::task_ptr;
use super::uapi::Plain;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::error::{from_err_ptr, to_result, Error};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::Arc;
use kernel::task::Task;
use kernel::types::ForeignOwnable;

type FileRaw = c_void;

#[repr(C)]
struct ChrdevOps {
    open: Option<unsafe extern "C" fn(*mut c_void, *mut FileRaw, *mut *mut c_void) -> i32>,
    release: Option<unsafe extern "C" fn(*mut c_void)>,
    read: Option<unsafe extern "C" fn(*mut c_void, u64, usize) -> isize>,
    ready: Option<unsafe extern "C" fn(*mut c_void) -> bool>,
    ioctl: Option<unsafe extern "C" fn(*mut c_void, u32, u64) -> isize>,
}

// `task_struct` has empty members on some configurations (rustc warns);
// only pointers to it cross.
#[allow(improper_ctypes)]
extern "C" {
    fn utrace_chrdev_create(
        name: *const u8,
        mode: u16,
        owner: *mut bindings::module,
        ops: *const ChrdevOps,
        data: *mut c_void,
    ) -> *mut c_void;
    fn utrace_chrdev_destroy(dev: *mut c_void);
    fn utrace_chrdev_file_get(file: *mut FileRaw);
    fn utrace_chrdev_file_put(file: *mut FileRaw);
    fn utrace_chrdev_wake(file: *mut FileRaw);
    fn utrace_chrdev_wake_at_stop(file: *mut FileRaw);
    fn utrace_chrdev_ids(
        file: *mut FileRaw,
        task: *mut bindings::task_struct,
        tgid: *mut i32,
        tid: *mut i32,
    );
    fn utrace_copy_struct_in(dst: *mut c_void, ksize: usize, src: u64, usize: usize) -> i32;
    fn utrace_copy_out(dst: u64, src: *const c_void, len: usize) -> i32;
    fn utrace_may_ptrace(task: *mut bindings::task_struct) -> i32;
    fn utrace_chrdev_fd_session(
        fd: i32,
        dev_data: *mut c_void,
        filep: *mut *mut c_void,
    ) -> *mut c_void;
    fn utrace_chrdev_fd_put(file: *mut c_void);
    fn utrace_may_ptrace_opener(task: *mut bindings::task_struct, file: *mut c_void) -> i32;
    fn utrace_pidfd_task(fd: i32) -> *mut bindings::task_struct;
    fn utrace_ns_task(nr: i32) -> *mut bindings::task_struct;
    fn utrace_process_threads(
        task: *mut bindings::task_struct,
        out: *mut *mut bindings::task_struct,
        max: i32,
    ) -> i32;
    fn utrace_task_dumpable(task: *mut bindings::task_struct) -> bool;
    fn utrace_caller_sys_admin() -> bool;
    fn utrace_caller_uid() -> u32;
}

/// One open file of a [`Device`]: what its reads, polls and ioctls do.
/// Every call is in process context, in the caller's task, and may sleep.
pub(crate) trait SessionHandler: Send + Sync + 'static {
    /// Copies whole records to `out` and returns the bytes copied;
    /// `EAGAIN` if nothing is ready (a blocking read then waits for
    /// [`FileHandle::wake`] and [`SessionHandler::ready`]).
    fn read(&self, out: &mut UserOut) -> Result<usize>;
    /// Whether a read would find something (poll's `EPOLLIN`).
    fn ready(&self) -> bool;
    /// An ioctl: its result, or the errno the caller gets.
    fn ioctl(&self, cmd: u32, arg: UserArg) -> Result<isize>;
    /// The last close of the file (also when its holder was killed).
    fn release(&self);
}

/// What a [`Device`] does at each open.
pub(crate) trait DeviceHandler: Send + Sync + 'static {
    type Session: SessionHandler;
    /// A new open file, in the opener's task: its session.
    fn open(this: &Arc<Self>, file: FileHandle) -> Result<Arc<Self::Session>>;
}

/// A counted handle on an open file of a [`Device`]: wakes its readers and
/// names tasks in its opener's pid namespace. Usable from any context but
/// hard interrupts, also after the file's release (it then reaches nobody).
pub(crate) struct FileHandle(NonNull<FileRaw>);

// SAFETY: The shim's file handle is refcounted and its operations are
// callable from any thread.
unsafe impl Send for FileHandle {}
// SAFETY: See `Send`.
unsafe impl Sync for FileHandle {}

impl FileHandle {
    /// Wakes blocked readers and pollers.
    pub(crate) fn wake(&self) {
        // SAFETY: We hold a reference on the handle.
        unsafe { utrace_chrdev_wake(self.0.as_ptr()) };
    }

    /// Wakes blocked readers and pollers when the calling task sleeps in
    /// its utrace stop, with preemption off from that wake until it sleeps
    /// (as `ptrace_stop()` wakes its tracer: a reader woken on this CPU
    /// runs once the task is off it, and finds its callback over), or when
    /// its report work ends without a stop; at once when not called from
    /// a callback of the task's report work. For a record of a stop the
    /// callback is about to return.
    pub(crate) fn wake_at_stop(&self) {
        // SAFETY: We hold a reference on the handle.
        unsafe { utrace_chrdev_wake_at_stop(self.0.as_ptr()) };
    }

    /// `task`'s process and thread ids in the opener's pid namespace (0
    /// where it is not visible).
    pub(crate) fn ids(&self, task: &Task) -> (i32, i32) {
        let (mut tgid, mut tid) = (0, 0);
        // SAFETY: We hold a reference on the handle; `task` is alive.
        unsafe { utrace_chrdev_ids(self.0.as_ptr(), task_ptr(task), &mut tgid, &mut tid) };
        (tgid, tid)
    }
}

impl Clone for FileHandle {
    fn clone(&self) -> Self {
        // SAFETY: We hold a reference, so the handle is alive.
        unsafe { utrace_chrdev_file_get(self.0.as_ptr()) };
        FileHandle(self.0)
    }
}

impl Drop for FileHandle {
    fn drop(&mut self) {
        // SAFETY: Our reference, given up.
        unsafe { utrace_chrdev_file_put(self.0.as_ptr()) };
    }
}

/// The user buffer of a read.
pub(crate) struct UserOut {
    addr: u64,
    len: usize,
    done: usize,
}

impl UserOut {
    /// Bytes still free.
    pub(crate) fn room(&self) -> usize {
        self.len - self.done
    }

    /// Appends `bytes` (`EINVAL` if they do not fit, `EFAULT` if the buffer
    /// is not writable).
    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result {
        if bytes.len() > self.room() {
            return Err(EINVAL);
        }
        // SAFETY: `bytes` is readable; the destination is a user address,
        // checked by `copy_to_user()`.
        to_result(unsafe {
            utrace_copy_out(
                self.addr.wrapping_add(self.done as u64),
                bytes.as_ptr().cast(),
                bytes.len(),
            )
        })?;
        self.done += bytes.len();
        Ok(())
    }
}

/// An ioctl's argument: a user address.
#[derive(Clone, Copy)]
pub(crate) struct UserArg(pub(crate) u64);

impl UserArg {
    /// Reads an extensible struct whose first field is its `u32` size, as
    /// `copy_struct_from_user()`: `EINVAL` for a size below the first
    /// version's or over a page, `E2BIG` if the caller's longer struct has
    /// non-zero bytes this kernel does not know, `EFAULT` for a bad pointer.
    pub(crate) fn read_struct<T: Plain>(self) -> Result<T> {
        let mut size = [0u8; 4];
        // SAFETY: `size` is 4 writable bytes; the source is a user address.
        to_result(unsafe { utrace_copy_struct_in(size.as_mut_ptr().cast(), 4, self.0, 4) })?;
        let usize = u32::from_ne_bytes(size) as usize;
        if usize < T::SIZE_VER0 || usize > 4096 {
            return Err(EINVAL);
        }
        let mut v = T::default();
        let b = v.bytes_mut();
        // SAFETY: `b` is writable, `b.len()` bytes; the source is a user
        // address of `usize` bytes, checked by the copy.
        to_result(unsafe { utrace_copy_struct_in(b.as_mut_ptr().cast(), b.len(), self.0, usize) })?;
        Ok(v)
    }

    /// Copies `buf.len()` bytes from this user address into `buf`:
    /// `EFAULT` if any of them is not readable.
    pub(crate) fn read_bytes(self, buf: &mut [u8]) -> Result {
        // SAFETY: `buf` is writable, `buf.len()` bytes; the source is a user
        // address, checked by the copy (`copy_struct_from_user()` with
        // equal sizes is `copy_from_user()`).
        to_result(unsafe {
            utrace_copy_struct_in(buf.as_mut_ptr().cast(), buf.len(), self.0, buf.len())
        })
    }

    /// Copies `bytes` to this user address: `EFAULT` if any of it is not
    /// writable.
    pub(crate) fn write_bytes(self, bytes: &[u8]) -> Result {
        // SAFETY: `bytes` is readable; the destination is a user address,
        // checked by `copy_to_user()`.
        to_result(unsafe { utrace_copy_out(self.0, bytes.as_ptr().cast(), bytes.len()) })
    }

    /// Writes `v` back (the caller's struct is at least as long: it passed
    /// [`UserArg::read_struct`]).
    pub(crate) fn write_struct<T: Plain>(self, v: &T) -> Result {
        let b = v.bytes();
        // SAFETY: `b` is readable; the destination is a user address.
        to_result(unsafe { utrace_copy_out(self.0, b.as_ptr().cast(), b.len()) })
    }
}

/// A misc device `/dev/<name>`; deregistered when dropped. Its open files
/// pin this module, so the `Device` cannot be dropped (by the module's
/// exit) while a file is open.
pub(crate) struct Device<H: DeviceHandler> {
    dev: NonNull<c_void>,
    /// The handler's `Arc`, given to the shim as its `data`.
    data: *mut c_void,
    _handler: PhantomData<H>,
}

// SAFETY: The shim's device is usable from any thread; `H` is `Send + Sync`.
unsafe impl<H: DeviceHandler> Send for Device<H> {}
// SAFETY: See `Send`.
unsafe impl<H: DeviceHandler> Sync for Device<H> {}

struct OpsTable(ChrdevOps);
// SAFETY: Read-only function pointers.
unsafe impl Sync for OpsTable {}

struct Ops<H: DeviceHandler>(PhantomData<H>);

impl<H: DeviceHandler> Ops<H> {
    const OPS: OpsTable = OpsTable(ChrdevOps {
        open: Some(open_cb::<H>),
        release: Some(release_cb::<H>),
        read: Some(read_cb::<H>),
        ready: Some(ready_cb::<H>),
        ioctl: Some(ioctl_cb::<H>),
    });
}

impl<H: DeviceHandler> Device<H> {
    /// Registers `/dev/<name>` (up to 31 bytes) with `mode`.
    pub(crate) fn create(name: &CStr, mode: u16, handler: Arc<H>) -> Result<Self> {
        let data = handler.into_foreign().into_mut();
        // SAFETY: `name` is NUL-terminated; the ops table is static; `data`
        // is an `Arc<H>` given up until `drop` takes it back, after
        // `utrace_chrdev_destroy`; the callbacks borrow it as such; the
        // files pin this module.
        let dev = unsafe {
            utrace_chrdev_create(
                name.as_char_ptr(),
                mode,
                super::raw::this_module(),
                &Ops::<H>::OPS.0,
                data,
            )
        };
        let dev = match from_err_ptr(dev).map(NonNull::new) {
            Ok(Some(dev)) => dev,
            Ok(None) | Err(_) => {
                // SAFETY: Not registered: the reference is still ours.
                drop(unsafe { Arc::<H>::from_foreign(data) });
                return Err(from_err_ptr(dev).err().unwrap_or(EINVAL));
            }
        };
        Ok(Device {
            dev,
            data,
            _handler: PhantomData,
        })
    }
}

impl<H: DeviceHandler> Drop for Device<H> {
    fn drop(&mut self) {
        // SAFETY: Created by `create`, destroyed once; no file is open (each
        // pins this module, whose exit is running).
        unsafe { utrace_chrdev_destroy(self.dev.as_ptr()) };
        // SAFETY: The `Arc` `create` gave up, taken back once; no callback
        // can use it any more.
        drop(unsafe { Arc::<H>::from_foreign(self.data) });
    }
}

/// # Safety
///
/// Called by the shim with the device's `data` (an `H`), a new file handle
/// and where to put the session.
unsafe extern "C" fn open_cb<H: DeviceHandler>(
    data: *mut c_void,
    file: *mut FileRaw,
    session: *mut *mut c_void,
) -> i32 {
    // SAFETY: `data` is the `Arc<H>` `Device::create` gave up, alive
    // until the device is gone.
    let handler: Arc<H> = unsafe { <Arc<H> as ForeignOwnable>::borrow(data) }.into();
    let Some(file) = NonNull::new(file) else {
        return EINVAL.to_errno();
    };
    // SAFETY: The shim's handle is alive during open; this takes a new
    // reference for the `FileHandle`.
    unsafe { utrace_chrdev_file_get(file.as_ptr()) };
    match H::open(&handler, FileHandle(file)) {
        Ok(s) => {
            // SAFETY: `session` is writable; `release_cb` takes it back.
            unsafe { *session = s.into_foreign().into_mut() };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// `session` is what `open_cb` stored, borrowed while the file is open.
unsafe fn session<'a, H: DeviceHandler>(session: *mut c_void) -> &'a H::Session {
    // SAFETY: By the function's safety requirements: an `Arc` given up by
    // `into_foreign`, not taken back until `release_cb`.
    let arc = unsafe { <Arc<H::Session> as ForeignOwnable>::borrow(session) };
    let p: *const H::Session = &*arc;
    // SAFETY: Alive until `release_cb`, which no other call of the file
    // overlaps.
    unsafe { &*p }
}

/// # Safety
///
/// The file's last close, with what `open_cb` stored.
unsafe extern "C" fn release_cb<H: DeviceHandler>(s: *mut c_void) {
    // SAFETY: `open_cb`'s `Arc`, taken back once.
    let s = unsafe { Arc::<H::Session>::from_foreign(s) };
    s.release();
}

/// # Safety
///
/// As for [`session`].
unsafe extern "C" fn read_cb<H: DeviceHandler>(s: *mut c_void, buf: u64, len: usize) -> isize {
    let mut out = UserOut {
        addr: buf,
        len,
        done: 0,
    };
    // SAFETY: By the function's safety requirements.
    match unsafe { session::<H>(s) }.read(&mut out) {
        Ok(n) => n as isize,
        Err(e) => e.to_errno() as isize,
    }
}

/// # Safety
///
/// As for [`session`].
unsafe extern "C" fn ready_cb<H: DeviceHandler>(s: *mut c_void) -> bool {
    // SAFETY: By the function's safety requirements.
    unsafe { session::<H>(s) }.ready()
}

/// # Safety
///
/// As for [`session`].
unsafe extern "C" fn ioctl_cb<H: DeviceHandler>(s: *mut c_void, cmd: u32, arg: u64) -> isize {
    // SAFETY: By the function's safety requirements.
    match unsafe { session::<H>(s) }.ioctl(cmd, UserArg(arg)) {
        Ok(n) => n,
        Err(e) => e.to_errno() as isize,
    }
}

/// The kernel's own ptrace attach check of the calling task on `task`
/// (`utrace_may_ptrace()` of `include/utrace_rs_device.h`): `EPERM`
/// refused, `ESRCH` no user memory (exiting, kernel thread), `ENOENT` no
/// procfs at `/proc` for the caller, `ERESTARTNOINTR` a signal while it
/// waited for an exec of `task` to finish. May sleep.
pub(crate) fn may_ptrace(task: &Task) -> Result {
    // SAFETY: `task` is alive; process context.
    to_result(unsafe { utrace_may_ptrace(task_ptr(task)) })
}

/// Another open file of a [`Device`], found by a file descriptor of the
/// calling task (e.g. one received over a unix socket): its session, and
/// the credentials it was opened with. Holds a reference on the file, so
/// its session is not released while this lives.
pub(crate) struct PeerFile<H: DeviceHandler> {
    file: NonNull<c_void>,
    session: NonNull<c_void>,
    _handler: PhantomData<H>,
}

impl<H: DeviceHandler> PeerFile<H> {
    /// The file open on the caller's `fd` if it is a file of the device
    /// whose handler is `handler`: `EBADF` if `fd` is not open, `EINVAL` if
    /// it is any other file (another device's included).
    pub(crate) fn from_fd(handler: &Arc<H>, fd: i32) -> Result<Self> {
        // The pointer `Device::create` gave the shim as the device's data:
        // the one `into_foreign` hands out for this `Arc`.
        let foreign = handler.clone().into_foreign();
        let key = foreign.into_mut();
        // SAFETY: Just made by `into_foreign`; takes that reference back.
        drop(unsafe { Arc::<H>::from_foreign(foreign) });
        let mut file = core::ptr::null_mut();
        // SAFETY: `file` is writable; `key` is only compared.
        let session = unsafe { utrace_chrdev_fd_session(fd, key, &mut file) };
        let session = NonNull::new(from_err_ptr(session)?).ok_or(EINVAL)?;
        let file = NonNull::new(file).ok_or(EINVAL)?;
        // INVARIANT: `file` is referenced and is a file of the device whose
        // data is `handler`'s `Arc`: a `Device<H>`, whose `open_cb::<H>`
        // stored `session` (an `Arc<H::Session>`), released only after the
        // file's last reference goes.
        Ok(PeerFile {
            file,
            session,
            _handler: PhantomData,
        })
    }

    /// The file's session.
    pub(crate) fn session(&self) -> &H::Session {
        // SAFETY: By the type invariant: what `open_cb::<H>` stored, alive
        // while we hold the file.
        unsafe { session::<H>(self.session.as_ptr()) }
    }

    /// [`may_ptrace`] with the credentials the file was opened with: uid,
    /// capabilities and LSM labels are its opener's (Yama's relationship
    /// rule is still judged for the calling task). May sleep.
    pub(crate) fn may_ptrace(&self, task: &Task) -> Result {
        // SAFETY: `task` is alive; we hold the file; process context.
        to_result(unsafe { utrace_may_ptrace_opener(task_ptr(task), self.file.as_ptr()) })
    }
}

impl<H: DeviceHandler> Drop for PeerFile<H> {
    fn drop(&mut self) {
        // SAFETY: The reference `from_fd` took, given back once.
        unsafe { utrace_chrdev_fd_put(self.file.as_ptr()) };
    }
}

/// Takes over a task reference (or an error pointer).
fn task_ref(t: *mut bindings::task_struct) -> Result<ARef<Task>> {
    let t = NonNull::new(from_err_ptr(t)?).ok_or(ESRCH)?;
    // SAFETY: A reference the shim took for us; `Task` is the transparent
    // wrapper of `task_struct`.
    Ok(unsafe { ARef::from_raw(t.cast::<Task>()) })
}

/// The task behind pidfd `fd`: `EBADF` if it is not a pidfd, `ESRCH` if
/// the process is gone.
pub(crate) fn pidfd_task(fd: i32) -> Result<ARef<Task>> {
    // SAFETY: Plain call; returns a reference or an error pointer.
    task_ref(unsafe { utrace_pidfd_task(fd) })
}

/// The task with thread id `nr` in the caller's pid namespace.
pub(crate) fn ns_task(nr: i32) -> Result<ARef<Task>> {
    // SAFETY: Plain call; returns a reference or null.
    task_ref(unsafe { utrace_ns_task(nr) })
}

/// The threads of `task`'s process now (each referenced), at most `max`:
/// `E2BIG` if there are more.
pub(crate) fn process_threads(task: &Task, max: usize) -> Result<KVec<ARef<Task>>> {
    let mut room = 16usize;
    loop {
        let mut raw: KVec<*mut bindings::task_struct> = KVec::with_capacity(room, GFP_KERNEL)?;
        let mut out: KVec<ARef<Task>> = KVec::with_capacity(room, GFP_KERNEL)?;
        let cap = i32::try_from(room).map_err(|_| E2BIG)?;
        // SAFETY: `raw` has room for `room` pointers; each one stored is a
        // reference we take over below.
        let n = unsafe { utrace_process_threads(task_ptr(task), raw.as_mut_ptr(), cap) };
        let n = usize::try_from(n).map_err(|_| EINVAL)?;
        for i in 0..n.min(room) {
            // SAFETY: The shim wrote `min(n, room)` referenced pointers.
            let t = unsafe { *raw.as_ptr().add(i) };
            if let Ok(t) = task_ref(t) {
                // Within the capacity: does not allocate (a failure would
                // drop, so put, the reference).
                let _ = out.push(t, GFP_KERNEL);
            }
        }
        if n <= room {
            return Ok(out);
        }
        if n > max {
            return Err(E2BIG);
        }
        room = n + 8;
    }
}

/// Whether `task` is dumpable by its owner: not after a setuid, setgid or
/// file-capability exec (nor, on 6.12, after `prctl(PR_SET_DUMPABLE, 0)`;
/// 7.x hides dumpability from modules: there it is `AT_SECURE` of the exec
/// and effective ids that differ from the real ones).
pub(crate) fn task_dumpable(task: &Task) -> bool {
    // SAFETY: `task` is alive.
    unsafe { utrace_task_dumpable(task_ptr(task)) }
}

/// Whether the caller has CAP_SYS_ADMIN in the initial user namespace
/// (an audited `capable()` check).
pub(crate) fn caller_sys_admin() -> bool {
    // SAFETY: Plain call in process context.
    unsafe { utrace_caller_sys_admin() }
}

/// The caller's real uid (initial user namespace).
pub(crate) fn caller_uid() -> u32 {
    // SAFETY: Plain call in process context.
    unsafe { utrace_caller_uid() }
}

/// An errno as an [`Error`].
pub(crate) fn errno(e: u32) -> Error {
    Error::from_errno(-(e as i32))
}

/// The first bytes of the signal's siginfo as user space's `siginfo_t`
/// starts (`si_signo`, `si_errno`, `si_code`, then the union); the rest of
/// the 128 bytes of a user `siginfo_t` is zero.
pub(crate) fn siginfo_bytes(sig: &mut super::SignalReport<'_>) -> [u8; 48] {
    const N: usize = core::mem::size_of::<bindings::kernel_siginfo>();
    const _: () = assert!(N == 48);
    let info: *const bindings::kernel_siginfo = sig.info_mut();
    let mut out = [0u8; N];
    // SAFETY: `info` points to the report's initialised `kernel_siginfo`
    // (integers and a union of integers and pointers: no padding on
    // x86-64), `N` bytes long.
    unsafe { core::ptr::copy_nonoverlapping(info.cast::<u8>(), out.as_mut_ptr(), N) };
    out
}

/// Replaces the signal's siginfo by `bytes`, as [`siginfo_bytes`] returns
/// them (the first bytes of a user `siginfo_t`). Whether the engine may
/// write them (a user may not forge a kernel siginfo) is the caller's rule.
pub(crate) fn set_siginfo_bytes(sig: &mut super::SignalReport<'_>, bytes: &[u8; 48]) {
    const N: usize = core::mem::size_of::<bindings::kernel_siginfo>();
    const _: () = assert!(N == 48);
    let info: *mut bindings::kernel_siginfo = sig.info_mut();
    // SAFETY: `info` points to the report's `kernel_siginfo`, ours for the
    // callback and `N` bytes long; any bytes are a valid value of it
    // (integers and a union of integers and pointers).
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), info.cast::<u8>(), N) };
}

/// Whether `task` is exiting or has SIGKILL pending in its own set: a
/// hint (either may become true right after the look; a task between
/// dequeuing SIGKILL and `do_exit()` shows neither).
pub(crate) fn task_dying(task: &Task) -> bool {
    let t = task_ptr(task);
    // SAFETY: `task` is alive, so both words are readable. They are read
    // once each, as the kernel's lockless looks at other tasks' flags do
    // (`READ_ONCE`): a racy but whole integer, only used as a hint.
    let (flags, pending) = unsafe {
        (
            core::ptr::read_volatile(core::ptr::addr_of!((*t).flags)),
            core::ptr::read_volatile(core::ptr::addr_of!((*t).pending.signal.sig[0])),
        )
    };
    flags & bindings::PF_EXITING != 0 || pending & (1 << (bindings::SIGKILL - 1)) != 0
}
