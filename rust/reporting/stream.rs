// SPDX-License-Identifier: GPL-2.0

//! Event streams: a ring of text records that an engine fills from its
//! callbacks and a root-only reader drains through the character device
//! `/dev/<name>` (a misc device: no file system to mount, and kernel
//! lockdown leaves it alone).
//!
//! Each record is one line, `<seq> <ns> <payload>\n`: a per-stream sequence
//! number and a `ktime_get()` timestamp in nanoseconds. Reads consume
//! (like `trace_pipe`), block until data arrives (or return `-EAGAIN` with
//! `O_NONBLOCK`), and support `poll()`. When the ring is full a record is
//! dropped, never silently: the next record the reader gets is
//! `<seq> <ns> DROPPED <n>`, with the sequence number of the first record
//! lost; sequence numbers of dropped records are skipped. Events the
//! framework itself could not report (no memory in a hook) are announced the
//! same way, as `<seq> <ns> LOST <n>`: `n` events of any task went unreported
//! since the previous record, whether or not this stream was owed them.

use crate::compat::{self, ForeignPtr};
use crate::errno::eshutdown;
use crate::shim::{self, IrqOff};
use crate::text::Cursor;
use crate::wait;
use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering::SeqCst};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::lock::{spinlock::SpinLockBackend, Guard};
use kernel::sync::{new_spinlock, Arc, SpinLock};
use kernel::types::{ForeignOwnable, Opaque};

/// Bytes in one record, newline included; longer payloads are cut.
pub(crate) const RECORD: usize = 256;

#[derive(Clone, Copy)]
struct Record {
    len: u16,
    data: [u8; RECORD],
}

struct Ring {
    slots: KVVec<Record>,
    /// Index of the oldest record, and how many there are.
    head: usize,
    count: usize,
    /// Bytes of the head record already read (a short read).
    head_off: usize,
    /// Sequence number of the next record.
    seq: u64,
    /// Records dropped since the last `DROPPED` notice, and the first's seq.
    dropped: u64,
    dropped_seq: u64,
    /// Drops over the stream's life.
    dropped_total: u64,
    /// The framework's lost-event count already announced by a `LOST` record.
    lost_seen: u64,
    /// The stream is being destroyed: readers get end of file.
    closed: bool,
}

/// The ring, locked with local interrupts off. Records come from any
/// context but a hard interrupt (an engine's timer, in softirq, included),
/// so the lock is never held where an interrupt on the same CPU could
/// want it. (Interrupts off, since the 6.12 kernel crate has no
/// `SpinLockIrq`.) The guard goes before interrupts come back on.
struct RingLock<'a> {
    guard: Guard<'a, Ring, SpinLockBackend>,
    _irq: IrqOff,
}

impl core::ops::Deref for RingLock<'_> {
    type Target = Ring;

    fn deref(&self) -> &Ring {
        &self.guard
    }
}

impl core::ops::DerefMut for RingLock<'_> {
    fn deref_mut(&mut self) -> &mut Ring {
        &mut self.guard
    }
}

impl Ring {
    /// A slot is always kept for a `DROPPED` notice.
    fn full(&self) -> bool {
        self.count + 1 >= self.slots.len()
    }

    /// Writes record `seq`, `<seq> <ns> <payload>\n`, into the next slot
    /// (cut at [`RECORD`] bytes, newline included).
    #[inline]
    fn push(&mut self, seq: u64, payload: impl FnOnce(&mut Cursor<'_>)) {
        let cap = self.slots.len();
        let slot = &mut self.slots[(self.head + self.count) % cap];
        let ns = compat::ktime_get_ns();
        let (text, _) = slot.data.split_at_mut(RECORD - 1);
        let mut w = Cursor::over(text);
        w.u64(seq);
        w.byte(b' ');
        w.i64(ns);
        w.byte(b' ');
        payload(&mut w);
        let len = w.len();
        slot.data[len] = b'\n';
        slot.len = (len + 1) as u16;
        self.count += 1;
    }

    /// Writes the pending notices: `DROPPED` (into the kept slot), then
    /// `LOST` if the framework lost events since the last one and there is
    /// room for it and one more record (otherwise it waits for room).
    fn flush_notices(&mut self, lost: u64) {
        if self.dropped != 0 && self.count < self.slots.len() {
            let (n, seq) = (self.dropped, self.dropped_seq);
            self.push(seq, |w| {
                w.bytes(b"DROPPED ");
                w.u64(n);
            });
            self.dropped = 0;
        }
        if lost != self.lost_seen && self.dropped == 0 && self.count + 2 < self.slots.len() {
            let (n, seq) = (lost.wrapping_sub(self.lost_seen), self.seq);
            self.seq += 1;
            self.push(seq, |w| {
                w.bytes(b"LOST ");
                w.u64(n);
            });
            self.lost_seen = lost;
        }
    }
}

#[pin_data]
pub(crate) struct Stream {
    #[pin]
    ring: SpinLock<Ring>,
    /// Readers and pollers wait here.
    #[pin]
    wq: Opaque<bindings::wait_queue_head>,
    /// Wakes them a little after a record arrived (see [`Stream::emit`]).
    #[pin]
    wake_timer: Opaque<bindings::timer_list>,
    /// The device (the shim's `struct utrace_chardev`), and the `Arc`
    /// reference it holds (set once, right after creation).
    dev: AtomicPtr<c_void>,
    file_ref: AtomicPtr<c_void>,
}

// SAFETY: The ring is behind a lock; the wait queue head is the kernel's,
// with its own lock; the pointers are atomics.
unsafe impl Send for Stream {}
// SAFETY: See `Send`.
unsafe impl Sync for Stream {}

impl Stream {
    /// Creates `/dev/<name>` (mode 0400, root) with room for `records`
    /// records.
    pub(crate) fn create(name: &CStr, records: usize) -> Result<Arc<Stream>> {
        let records = records.clamp(16, 1 << 16);
        let mut slots = KVVec::with_capacity(records, GFP_KERNEL)?;
        slots.extend_with(
            records,
            Record {
                len: 0,
                data: [0; RECORD],
            },
            GFP_KERNEL,
        )?;
        let stream = Arc::pin_init(
            pin_init!(Stream {
                ring <- new_spinlock!(Ring {
                    slots,
                    head: 0,
                    count: 0,
                    head_off: 0,
                    seq: 1,
                    dropped: 0,
                    dropped_seq: 0,
                    dropped_total: 0,
                    lost_seen: lost_events(),
                    closed: false,
                }),
                // SAFETY: `slot` is the field's memory; the kernel initialises
                // the head in place, with a static lockdep class.
                wq <- Opaque::ffi_init(|slot| unsafe {
                    bindings::__init_waitqueue_head(
                        slot,
                        kernel::c_str!("utrace_stream").as_char_ptr(),
                        static_lock_class_key!(),
                    )
                }),
                // SAFETY: `slot` is the field's memory, pinned with the
                // stream; `destroy` shuts the timer down.
                wake_timer <- Opaque::ffi_init(|slot| unsafe {
                    shim::timer_init(slot, stream_wake_timer)
                }),
                dev: AtomicPtr::new(ptr::null_mut()),
                file_ref: AtomicPtr::new(ptr::null_mut()),
            }),
            GFP_KERNEL,
        )?;
        // The file holds a reference, given back by `destroy`.
        let data = stream.clone().into_foreign();
        // SAFETY: `data` is an `Arc<Stream>` reference for `open`, valid
        // until `destroy` removed the device; `FOPS` is static; `name` is
        // NUL-terminated.
        let dev =
            unsafe { shim::chardev_create(name.as_char_ptr(), 0o400, &FOPS.0, data.into_mut()) };
        if let Err(e) = kernel::error::from_err_ptr(dev) {
            // SAFETY: Not handed to a device: ours again.
            drop(unsafe { Arc::<Stream>::from_foreign(data) });
            pr_err!(
                "stream: cannot create /dev/{:?} (errno {})\n",
                name,
                e.to_errno()
            );
            return Err(e);
        }
        stream.dev.store(dev, SeqCst);
        stream.file_ref.store(data.into_mut(), SeqCst);
        Ok(stream)
    }

    /// The ring, locked ([`RingLock`]).
    fn lock_ring(&self) -> RingLock<'_> {
        let irq = IrqOff::new();
        RingLock {
            guard: self.ring.lock(),
            _irq: irq,
        }
    }

    /// Adds a record of `text`, escaped as [`compat::Escaped`] shows it;
    /// `Err(ENOSPC)` when the ring is full (counted, and reported to the
    /// reader). Any context but hard interrupts (softirq included).
    pub(crate) fn emit(&self, text: &[u8]) -> Result {
        self.emit_with(|w| w.escaped(text))
    }

    /// Adds a record whose payload `payload` writes into its slot, under
    /// the ring's lock (one reservation, no copy in between).
    fn emit_with(&self, payload: impl FnOnce(&mut Cursor<'_>)) -> Result {
        let lost = lost_events();
        let mut ring = self.lock_ring();
        if ring.closed {
            return Err(eshutdown());
        }
        if ring.full() {
            if ring.dropped == 0 {
                ring.dropped_seq = ring.seq;
            }
            ring.seq += 1;
            ring.dropped += 1;
            ring.dropped_total += 1;
            return Err(ENOSPC);
        }
        ring.flush_notices(lost);
        let seq = ring.seq;
        ring.seq += 1;
        ring.push(seq, payload);
        // Readers are woken by a watermark, not for every record: at once
        // when the ring is a quarter full, else by the timer, within
        // WAKE_MS (armed under the lock, so never after `destroy`).
        let now = ring.count * 4 >= ring.slots.len();
        if !now {
            // SAFETY: Set up in `create`; `closed` is false, so `destroy`
            // has not shut it down.
            unsafe { shim::timer_arm(self.wake_timer.get(), WAKE_MS) };
        }
        drop(ring);
        if now {
            wait::wake_all(self.wq.get());
        }
        Ok(())
    }

    /// Records dropped so far.
    pub(crate) fn dropped_total(&self) -> u64 {
        self.lock_ring().dropped_total
    }

    /// Removes the file: blocked readers return end of file, later reads
    /// fail. The memory goes with the last open file.
    pub(crate) fn destroy(this: Arc<Stream>) {
        this.lock_ring().closed = true;
        // SAFETY: Set up in `create`; with `closed` set nothing arms it again.
        unsafe { shim::timer_shutdown(this.wake_timer.get()) };
        wait::wake_all(this.wq.get());
        // SAFETY: Created by `create`, removed once. No `open` runs or
        // starts once it returns (readers were just woken and see `closed`).
        unsafe { shim::chardev_destroy(this.dev.load(SeqCst)) };
        // SAFETY: The device's reference from `create`, which no `open` can
        // take any more. Files already open hold their own references.
        drop(unsafe { Arc::<Stream>::from_foreign(this.file_ref.load(SeqCst)) });
    }

    fn readable(ring: &Ring) -> bool {
        ring.count != 0 || ring.dropped != 0 || ring.closed
    }

    /// Copies whole or partial records into `out`, as many bytes as fit;
    /// returns how many it copied.
    fn take(ring: &mut Ring, out: &mut [u8]) -> usize {
        ring.flush_notices(lost_events());
        let cap = ring.slots.len();
        let mut done = 0;
        while ring.count != 0 && done < out.len() {
            let slot = &ring.slots[ring.head];
            let len = usize::from(slot.len);
            let rec = &slot.data[ring.head_off..len];
            let n = rec.len().min(out.len() - done);
            out[done..done + n].copy_from_slice(&rec[..n]);
            done += n;
            ring.head_off += n;
            if ring.head_off == len {
                ring.head = (ring.head + 1) % cap;
                ring.count -= 1;
                ring.head_off = 0;
            }
        }
        done
    }
}

/// How long a record may wait before its readers are woken (when the ring
/// is less than a quarter full).
const WAKE_MS: u32 = 10;

/// The wake timer of a stream: wakes its readers and pollers.
///
/// # Safety
///
/// Called by the timer code with the `wake_timer` field of a live stream
/// (`destroy` shuts it down before the stream's last reference can go).
unsafe extern "C" fn stream_wake_timer(timer: *mut bindings::timer_list) {
    // SAFETY: `timer` is the `wake_timer` field of a live `Stream`.
    let stream = unsafe { &*crate::compat::container_of_mut!(timer, Stream, wake_timer) };
    wait::wake_all(stream.wq.get());
}

/// The framework's count of events lost for lack of memory.
fn lost_events() -> u64 {
    crate::state::get().map_or(0, |st| st.lost())
}

/// The stream behind an open file.
///
/// # Safety
///
/// `file` is open on a stream file (its `private_data` is an `Arc<Stream>`
/// reference taken by `stream_open`).
unsafe fn file_stream<'a>(file: *mut bindings::file) -> kernel::sync::ArcBorrow<'a, Stream> {
    // SAFETY: By the function's safety requirements.
    unsafe { Arc::<Stream>::borrow((*file).private_data) }
}

/// # Safety
///
/// Called by the misc layer for a stream's device: its data is the
/// device's `Arc<Stream>` reference.
unsafe extern "C" fn stream_open(inode: *mut bindings::inode, file: *mut bindings::file) -> i32 {
    // Root only, whatever the node's mode (it may have been chmod'ed): the
    // records show every user's processes.
    // SAFETY: Plain C call.
    if !unsafe { bindings::capable(bindings::CAP_SYS_ADMIN as i32) } {
        return EPERM.to_errno();
    }
    // SAFETY: The device's reference stays valid while an `open` can run
    // (`destroy` removes the device first).
    let stream = unsafe { Arc::<Stream>::borrow(shim::chardev_data(file)) };
    let arc: Arc<Stream> = stream.into();
    // SAFETY: `file` is being opened; `private_data` is ours.
    unsafe { (*file).private_data = arc.into_foreign().into_mut() };
    // SAFETY: As above; streams do not seek.
    unsafe { bindings::nonseekable_open(inode, file) }
}

/// # Safety
///
/// Called by the VFS when the last reference to an open stream file goes.
unsafe extern "C" fn stream_release(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> i32 {
    // SAFETY: The reference `stream_open` stored.
    drop(unsafe { Arc::<Stream>::from_foreign((*file).private_data) });
    0
}

/// # Safety
///
/// Called by the VFS for an open stream file, `buf` a user pointer.
unsafe extern "C" fn stream_read(
    file: *mut bindings::file,
    buf: *mut u8,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    // SAFETY: By the function's safety requirements.
    let (stream, nonblock) = unsafe {
        (
            file_stream(file),
            (*file).f_flags & bindings::O_NONBLOCK != 0,
        )
    };
    if count == 0 {
        return 0;
    }
    let count = count.min(READ_MAX);
    let mut chunk = [0u8; READ_CHUNK];
    let mut writer = compat::user_writer(buf.cast(), count);
    // Wait for the first record (or a notice).
    let mut n = loop {
        let mut ring = stream.lock_ring();
        if ring.count != 0 || ring.dropped != 0 {
            break Stream::take(&mut ring, &mut chunk[..count.min(READ_CHUNK)]);
        }
        if ring.closed {
            return 0;
        }
        drop(ring);
        if nonblock {
            return EAGAIN.to_errno() as isize;
        }
        let ret =
            wait::wait_interruptible_on(stream.wq.get(), || Stream::readable(&stream.lock_ring()));
        if let Err(e) = ret {
            return e.to_errno() as isize;
        }
    };
    // Then as many as there are and fit, a chunk at a time (the lock is
    // not held across a copy to user memory, which can fault).
    let mut done = 0;
    loop {
        if let Err(e) = writer.write_slice(&chunk[..n]) {
            // The records are gone: a bad buffer loses them, as with
            // trace_pipe.
            return if done == 0 {
                e.to_errno() as isize
            } else {
                done as isize
            };
        }
        done += n;
        if done == count {
            break;
        }
        let mut ring = stream.lock_ring();
        if ring.count == 0 && ring.dropped == 0 {
            break;
        }
        n = Stream::take(&mut ring, &mut chunk[..(count - done).min(READ_CHUNK)]);
        drop(ring);
        if n == 0 {
            break;
        }
    }
    done as isize
}

/// Bytes one `read()` returns at most.
const READ_MAX: usize = 64 * 1024;

/// Bytes taken from the ring at a time, into a buffer on the stack, then
/// copied to the reader. (A buffer of the read's size allocated for each
/// `read()`, up to 64 KB, cost more than the records: kernels that clear
/// allocations, Debian's `init_on_alloc=1`, cleared all of it.)
const READ_CHUNK: usize = 512;

/// # Safety
///
/// Called by the VFS for an open stream file.
unsafe extern "C" fn stream_poll(
    file: *mut bindings::file,
    pt: *mut bindings::poll_table_struct,
) -> bindings::__poll_t {
    // SAFETY: By the function's safety requirements.
    let stream = unsafe { file_stream(file) };
    let readable = Stream::readable(&stream.lock_ring());
    // SAFETY: `file`, the stream's wait queue and `pt` are valid.
    unsafe { shim::poll(file, stream.wq.get(), pt, readable) }
}

struct Fops(bindings::file_operations);
// SAFETY: Read-only after initialisation.
unsafe impl Sync for Fops {}

// 7.x's `struct module` has an empty `lock_class_key` member (rustc warns
// about it in an extern block); only the address is used.
#[allow(improper_ctypes)]
extern "C" {
    static __this_module: Opaque<bindings::module>;
}

/// Open stream files pin this module (the misc layer takes the reference).
static FOPS: Fops = Fops(bindings::file_operations {
    // SAFETY: Only the address of the module's own `struct module` is taken.
    owner: unsafe { __this_module.get() },
    open: Some(stream_open),
    release: Some(stream_release),
    read: Some(stream_read),
    poll: Some(stream_poll),
    // SAFETY: All other members are optional and valid when zeroed.
    ..unsafe { core::mem::MaybeUninit::zeroed().assume_init() }
});
