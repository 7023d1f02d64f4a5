// SPDX-License-Identifier: GPL-2.0

//! `UTRACE_IOC_HANDOFF`: an engine of this session (A) moves to the
//! session open on another fd (B), thread by thread, with the in-kernel
//! exactly-once `utrace_handoff()`.
//!
//! The rule for every event of a moved thread: the report pass that calls
//! A's engine (before the switch, or a callback to it still running when
//! the switch happens) puts its record in A; every later event calls B's
//! engine and goes to B. A's records of the thread (a lossless record still
//! waiting for room in A's ring included: it is never dropped) come before
//! the thread's HANDOFF record in A; B's begin with an ATTACHED record
//! flagged `UTRACE_REC_F_HANDOFF`, queued before B's engine exists. The
//! ioctl waits (`barrier`) until no callback to A's engine is running before
//! it queues the HANDOFF record, so nothing of the thread follows it in A.
//!
//! The switch is a detach for A (as `UTRACE_IOC_DETACH`): a stop A held,
//! a lossless wait for room in A, end; the thread runs on. B's engine
//! starts as a new attach, holding nothing.

use super::*;

/// Lossless records that found the ring full and cannot wait in a thread:
/// of handed-off threads (a record waiting for room, and the HANDOFF
/// record after it), of a thread that cannot stop (exiting, in a signal
/// report) or is removed: read after the ring's, in order, never dropped.
pub(super) struct Kept {
    recs: KVec<Record>,
    /// The first record not yet moved to the ring.
    next: usize,
}

impl Kept {
    pub(super) fn new() -> Kept {
        Kept {
            recs: KVec::new(),
            next: 0,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.next >= self.recs.len()
    }
}

/// Moves kept records into the ring while it has room (with the lock).
pub(super) fn move_kept(st: &mut State) {
    while st.count < st.slots() && !st.kept.is_empty() {
        let rec = st.kept.recs[st.kept.next];
        st.kept.next += 1;
        st.push(rec);
    }
    if st.kept.next > 0 && st.kept.is_empty() {
        // All read: the allocation goes (kfree is fine under a spinlock).
        st.kept = Kept::new();
    }
}

/// Queues `rec` after everything queued before it: in the ring if it has
/// room and nothing is kept, else kept (counted as lost only if even that
/// allocation fails). Also the lossless records that cannot wait
/// (`Core::emit`, `State::take`).
pub(super) fn push_after(st: &mut State, rec: Record) {
    let behind = !st.kept.is_empty() || st.count >= st.slots();
    if !behind || st.kept.recs.push(rec, GFP_ATOMIC).is_err() {
        st.push(rec);
    }
}

/// One thread of an engine that moves.
struct Move {
    key: usize,
    task: ARefTask,
    old_id: u64,
    events: u64,
    process: bool,
    follow: bool,
    lossless: bool,
    parent_id: u64,
}

/// Old engine id and its new id in B ([`STAYS`]: it stays with A), sorted
/// by the old id.
type IdMap = KVec<(u64, u64)>;

/// In an [`IdMap`]: the engine stays with A.
const STAYS: u64 = u64::MAX;

/// The id in B of A's engine `old`, if it moves.
fn mapped(map: &IdMap, old: u64) -> Option<u64> {
    map.binary_search_by_key(&old, |m| m.0)
        .ok()
        .map(|i| map[i].1)
        .filter(|&id| id != STAYS)
}

/// Whether A's engine `old` is in the map (moving or staying).
fn known(map: &IdMap, old: u64) -> bool {
    map.binary_search_by_key(&old, |m| m.0).is_ok()
}

/// Sorts by engine id (an insertion sort: core's sort brings panic paths
/// that objtool on 7.x does not know as noreturn). At most
/// `tasks_per_session` pairs, outside any lock.
fn sort_pairs(v: &mut [(u64, u64)]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1].0 > v[j].0 {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Adds to `map` (new id 0: to be given) the engines followed from one in
/// it, recursively. `pairs`: (engine id, parent engine id) of A's threads,
/// sorted by engine id; a child's id is above its parent's (ids grow), so
/// one pass in that order finds grandchildren too.
fn close_tree(map: &mut IdMap, pairs: &[(u64, u64)]) -> Result {
    for &(id, parent) in pairs.iter() {
        if parent != 0 && mapped(map, parent).is_some() && !known(map, id) {
            let at = map.partition_point(|m| m.0 < id);
            map.push((id, 0), GFP_KERNEL)?;
            map.as_mut_slice()[at..].rotate_right(1);
        }
    }
    Ok(())
}

impl Session {
    /// `UTRACE_IOC_HANDOFF`.
    pub(super) fn handoff(&self, arg: UserArg) -> Result<isize> {
        let mut h: uapi::Handoff = arg.read_struct()?;
        if h.flags & !uapi::HANDOFF_F_TREE != 0
            || h.reserved0 != 0
            || h.reserved != 0
            || h.to_engine_id != 0
        {
            return Err(EINVAL);
        }
        let tree = h.flags & uapi::HANDOFF_F_TREE != 0;
        if h.engine_id != 0 && self.core().state.lock().global_id == h.engine_id {
            refusal!(
                "uid {}: handoff of engine {} refused: a global engine stays with its session\n",
                self.uid,
                h.engine_id
            );
            return Err(EINVAL);
        }
        let peer = match device::PeerFile::<Dev>::from_fd(&self.dev, h.to_fd) {
            Ok(p) => p,
            Err(e) => {
                let what = if e == EBADF {
                    "not open"
                } else {
                    "not a /dev/utrace session"
                };
                refusal!(
                    "uid {}: handoff of engine {} refused: fd {} is {}\n",
                    self.uid,
                    h.engine_id,
                    h.to_fd,
                    what
                );
                return Err(e);
            }
        };
        let to = peer.session();
        if core::ptr::eq(to, self) {
            refusal!(
                "uid {}: handoff of engine {} refused: fd {} is this session\n",
                self.uid,
                h.engine_id,
                h.to_fd
            );
            return Err(EINVAL);
        }
        if to.closed.load(SeqCst) {
            return Err(EBADF);
        }
        // B's engine-changing ioctls wait. A's own lock is not taken: two
        // sessions handing engines to each other must not wait on each
        // other; A's state is only changed under its spinlock, by key and
        // engine id, and the switch itself is atomic in the kernel.
        let _ctl = to.ctl.lock();
        let mut map: IdMap = KVec::new();
        let first = self.handoff_plan(&h, tree, &peer, &mut map)?;
        // Every thread of the engines, then those that callbacks in flight
        // added meanwhile (new threads, and with TREE followed children),
        // until none is left.
        let mut tried: KVec<usize> = KVec::new();
        let mut moved = 0usize;
        let mut err = None;
        for _round in 0..64 {
            let batch = self.handoff_batch(tree, &mut map, &tried, to)?;
            if batch.is_empty() {
                break;
            }
            for m in batch.iter() {
                // Sorted, for the lookups under A's lock.
                let at = tried.partition_point(|&k| k < m.key);
                tried.push(m.key, GFP_KERNEL)?;
                tried.as_mut_slice()[at..].rotate_right(1);
                let Some(new_id) = mapped(&map, m.old_id) else {
                    continue;
                };
                let parent = mapped(&map, m.parent_id).unwrap_or(0);
                match self.move_thread(to, m, new_id, parent) {
                    Ok(()) => moved += 1,
                    Err(e) => {
                        if e == ESRCH {
                            refusal!(
                                "uid {}: handoff of tid {} skipped: it is exiting or left \
                                 the engine\n",
                                self.uid,
                                m.task.pid()
                            );
                        }
                        err.get_or_insert(e);
                    }
                }
            }
        }
        if moved == 0 {
            return Err(err.unwrap_or(ESRCH));
        }
        h.to_engine_id = first;
        arg.write_struct(&h)?;
        Ok(0)
    }

    /// (engine id, parent engine id) of A's threads, sorted by engine id.
    fn engine_pairs(&self) -> Result<KVec<(u64, u64)>> {
        let core = self.core();
        loop {
            let n = core.state.lock().threads.len();
            let mut pairs = KVec::with_capacity(n, GFP_KERNEL)?;
            {
                let st = core.state.lock();
                if st.threads.len() > n {
                    continue;
                }
                for t in st.threads.iter() {
                    // Within the capacity: does not allocate.
                    let _ = pairs.push((t.engine_id, t.parent_id), GFP_ATOMIC);
                }
            }
            sort_pairs(pairs.as_mut_slice());
            return Ok(pairs);
        }
    }

    /// The first thread (its task) of each engine of `map` that moves.
    fn engine_tasks(&self, map: &IdMap) -> Result<KVec<(u64, ARefTask)>> {
        let core = self.core();
        let mut firsts = KVec::with_capacity(map.len(), GFP_KERNEL)?;
        let mut found = KVec::from_elem(false, map.len(), GFP_KERNEL)?;
        let st = core.state.lock();
        for t in st.threads.iter() {
            let Ok(i) = map.binary_search_by_key(&t.engine_id, |m| m.0) else {
                continue;
            };
            if found[i] || map[i].1 == STAYS {
                continue;
            }
            if let Some(task) = t.engine.as_ref().and_then(|e| e.task()) {
                found[i] = true;
                // Within the capacity (one per engine): does not allocate.
                let _ = firsts.push((t.engine_id, ARefTask::from(task)), GFP_ATOMIC);
            }
        }
        drop(st);
        Ok(firsts)
    }

    /// Checks the move of engine `h.engine_id` (with `tree`, and of its
    /// followed descendants) to B and gives each a new id in B (`map`);
    /// returns the engine's.
    fn handoff_plan(
        &self,
        h: &uapi::Handoff,
        tree: bool,
        peer: &device::PeerFile<Dev>,
        map: &mut IdMap,
    ) -> Result<u64> {
        let to = peer.session();
        map.push((h.engine_id, 0), GFP_KERNEL)?;
        if tree {
            close_tree(map, &self.engine_pairs()?)?;
        }
        let threads = {
            let st = self.core().state.lock();
            st.threads
                .iter()
                .filter(|t| mapped(map, t.engine_id).is_some())
                .count()
        };
        let firsts = self.engine_tasks(map)?;
        if threads == 0 || !firsts.iter().any(|f| f.0 == h.engine_id) {
            return Err(ENOENT);
        }
        // B's opener must be allowed to trace them, as if it attached. A
        // followed descendant B may not trace stays with A: one that is
        // exiting (no memory any more: A sees its end), or one that is
        // another user's now (an exec under way is waited for).
        for (id, task) in firsts.iter() {
            let r = peer.may_ptrace(task);
            if r == Err(ERESTARTNOINTR) {
                // A signal while it waited for an exec: nothing moved yet;
                // the call restarts.
                return Err(ERESTARTNOINTR);
            }
            if r.is_err() && *id != h.engine_id {
                if r == Err(EPERM) {
                    refusal!(
                        "uid {}: handoff of engine {}: tid {} stays with this session: the \
                         ptrace check with the receiving session's credentials says no\n",
                        self.uid,
                        id,
                        task.pid()
                    );
                }
                if let Ok(i) = map.binary_search_by_key(id, |m| m.0) {
                    map[i].1 = STAYS;
                }
                continue;
            }
            if let Err(e) = r {
                refusal!(
                    "uid {}: handoff of engine {} refused: the ptrace check of tid {} with the \
                     credentials of the receiving session (uid {}): {}\n",
                    self.uid,
                    h.engine_id,
                    task.pid(),
                    to.uid,
                    ptrace_check_says(e)
                );
                return Err(e);
            }
        }
        // B's limits.
        {
            let st = to.core().state.lock();
            if st.threads.len() + threads > param_usize(&TASKS_PER_SESSION) {
                drop(st);
                return Err(over_tasks_limit(
                    self.uid,
                    format_args!("handoff of engine {} to the receiving session", h.engine_id),
                ));
            }
        }
        Self::give_ids(map, to);
        to.core().state.lock().started = true;
        mapped(map, h.engine_id).ok_or(EINVAL)
    }

    /// Ids in B for the engines of `map` that have none yet.
    fn give_ids(map: &mut IdMap, to: &Session) {
        for m in map.iter_mut().filter(|m| m.1 == 0) {
            m.1 = to.core().state.lock().new_id();
        }
    }

    /// The threads of the engines in `map` not tried yet (with `tree`,
    /// children followed from them meanwhile join `map`).
    fn handoff_batch(
        &self,
        tree: bool,
        map: &mut IdMap,
        tried: &KVec<usize>,
        to: &Session,
    ) -> Result<KVec<Move>> {
        if tree {
            close_tree(map, &self.engine_pairs()?)?;
            Self::give_ids(map, to);
        }
        let core = self.core();
        loop {
            let n = core.state.lock().threads.len();
            let mut out: KVec<Move> = KVec::with_capacity(n, GFP_KERNEL)?;
            let st = core.state.lock();
            if st.threads.len() > n {
                continue;
            }
            for t in st.threads.iter() {
                if mapped(map, t.engine_id).is_none() || tried.binary_search(&t.key).is_ok() {
                    continue;
                }
                let Some(task) = t.engine.as_ref().and_then(|e| e.task()) else {
                    continue;
                };
                // Within the capacity: does not allocate.
                let _ = out.push(
                    Move {
                        key: t.key,
                        task: ARefTask::from(task),
                        old_id: t.engine_id,
                        events: t.events,
                        process: t.process,
                        follow: t.follow,
                        lossless: t.lossless,
                        parent_id: t.parent_id,
                    },
                    GFP_ATOMIC,
                );
            }
            return Ok(out);
        }
    }

    /// Moves one thread to B as engine `new_id` (followed from `parent`).
    fn move_thread(&self, to: &Session, m: &Move, new_id: u64, parent: u64) -> Result {
        let task = &m.task;
        // The ids A's reader knows the thread by (an exiting thread may
        // have none by the time its HANDOFF record is written).
        let (pid, tid) = self.core().file.ids(task);
        // B's entry (and its ATTACHED record) first, so that B's first
        // callback finds it.
        {
            let mut st = to.core().state.lock();
            if st.find(m.key).is_some() {
                drop(st);
                refusal!(
                    "uid {}: handoff of tid {} refused: the receiving session traces it already\n",
                    self.uid,
                    task.pid()
                );
                return Err(EEXIST);
            }
            st.threads.reserve(1, GFP_ATOMIC)?;
            // Within the capacity: does not allocate.
            let _ = st.threads.push(
                Thread {
                    key: m.key,
                    engine_id: new_id,
                    events: m.events,
                    process: m.process,
                    follow: m.follow,
                    stop: false,
                    stepping: false,
                    lossless: m.lossless,
                    blocked: false,
                    pending: None,
                    resume_due: false,
                    // B decides nothing: an open decision of A's ended
                    // as a detach ends it (the syscall runs, the signal
                    // is delivered); B asks for decisions by attaching.
                    decide: 0,
                    waiting: None,
                    decided: None,
                    engine: None,
                    parent_id: parent,
                    ids: Ids::NONE,
                },
                GFP_ATOMIC,
            );
        }
        let mut rec = Record::new(uapi::REC_ATTACHED);
        rec.h.flags |= uapi::REC_F_HANDOFF;
        to.core().emit(task, new_id, rec);
        // Lossless and B's ring full: the ATTACHED record waits, and B's
        // callbacks will hold the thread until a read makes room.
        let waited = to
            .core()
            .state
            .lock()
            .find(m.key)
            .is_some_and(|t| t.blocked);
        let old = match self.tracer.lookup(task) {
            Ok(e) => e,
            Err(_) => {
                // Gone from A meanwhile (detached, privileged exec, reaped).
                to.core().forget(task, uapi::DETACH_ERROR);
                return Err(ESRCH);
            }
        };
        let mask = Events::from_bits(m.events).or(INTERNAL);
        let new = match old.handoff(&to.tracer, mask) {
            Ok(e) => e,
            Err(e) => {
                // A keeps it (or it is exiting): B's entry goes.
                to.core().forget(task, uapi::DETACH_ERROR);
                return Err(e);
            }
        };
        let left = {
            let mut st = to.core().state.lock();
            match st.find_mut(m.key) {
                Some(t) => {
                    // A read that moved the waiting ATTACHED record before
                    // the engine was here could not resume the thread.
                    if waited && !t.blocked {
                        t.resume_due = true;
                    }
                    t.engine = Some(new);
                    None
                }
                // B's first callback already let it go (a privileged exec).
                None => Some(new),
            }
        };
        drop(left);
        if waited {
            to.resume_due();
        }
        // Callbacks to A's engine that are still running finish first:
        // their records come before the HANDOFF record.
        // `ESRCH`: detached and no callback in flight, as wanted.
        let settled = match old.barrier() {
            Ok(()) => true,
            Err(e) => e == ESRCH,
        };
        // An exec reported to A in that window may have made the task
        // privileged: B's check of it did not run. An exiting thread is
        // left to B: past its exit_mm() it has no memory to judge (it
        // read as not dumpable, and B detached before the DEATH that A no
        // longer reports: the storm's lost death), and it runs no more
        // user code.
        if !device::task_dumpable(task) && !device::task_dying(task) {
            let gone = to.core().state.lock().take(m.key);
            if let Some(t) = gone {
                if let Some(e) = &t.engine {
                    let _ = e.control(Control::Detach);
                }
                let mut rec = Record::new(uapi::REC_DETACHED);
                rec.put_u32(uapi::DETACHED_REASON, uapi::DETACH_PRIVILEGED);
                to.core().emit(task, new_id, rec);
            }
        }
        let core = self.core();
        let mut rec = Record::new(uapi::REC_HANDOFF);
        rec.h.pid = pid;
        rec.h.tid = tid;
        if tid == 0 {
            rec.h.flags |= uapi::REC_F_NO_PID;
        }
        rec.h.engine_id = m.old_id;
        rec.h.time_ns = utrace::ktime_get_ns() as u64;
        rec.put_u64(uapi::HANDOFF_TO_ENGINE, new_id);
        let gone = {
            let mut st = core.state.lock();
            // INVARIANT: With `settled`, no callback to A's engine runs or
            // will run: nothing of the thread can follow in A. Without it (a
            // signal interrupted the wait) the entry stays, so that a late
            // callback's record is still kept (after the HANDOFF record);
            // it goes with a DETACH of the engine or the session's end.
            let gone = if settled && st.find(m.key).is_some_and(|t| t.engine_id == m.old_id) {
                st.remove(m.key)
            } else {
                None
            };
            let mut gone = gone;
            if let Some(rec) = gone.as_mut().and_then(|t| t.pending.take()) {
                push_after(&mut st, rec);
            }
            push_after(&mut st, rec);
            gone
        };
        // The old engine's reference is dropped outside the lock.
        drop(gone);
        drop(old);
        core.file.wake();
        Ok(())
    }
}
