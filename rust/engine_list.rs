// SPDX-License-Identifier: GPL-2.0

//! An RCU-protected singly linked list of engines in attach order.
//!
//! Writers (attach, detach) hold the lock of whatever owns the list (the
//! task's `UTask`, or the global engine set) and link or unlink with release
//! stores. Reporters walk it under RCU and take no lock and no reference:
//! they pin one engine at a time with [`Engine::enter`], leave the RCU
//! section for the callback, and find their place again by attach sequence.

use crate::engine::Engine;
use crate::shim::RcuGuard;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering::Acquire, Ordering::Release};

pub(crate) struct EngineList {
    head: AtomicPtr<Engine>,
}

impl EngineList {
    pub(crate) const fn new() -> Self {
        EngineList {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Appends `engine` (whose `seq` is the largest so far).
    ///
    /// # Safety
    ///
    /// The caller holds the owner's writer lock, and `engine` is valid and
    /// on no list.
    pub(crate) unsafe fn push_back(&self, engine: *mut Engine) {
        let mut link = &self.head;
        loop {
            let next = link.load(Acquire);
            if next.is_null() {
                break;
            }
            // SAFETY: Linked engines stay valid while linked; the writer lock
            // keeps the list from changing under us.
            link = unsafe { &(*next).next };
        }
        link.store(engine, Release);
    }

    /// Unlinks `engine`. The caller must then let an RCU grace period pass
    /// before the engine's memory is reused ([`Engine::retire`]).
    ///
    /// # Safety
    ///
    /// The caller holds the owner's writer lock and `engine` is on this list.
    pub(crate) unsafe fn unlink(&self, engine: *mut Engine) {
        let mut link = &self.head;
        loop {
            let cur = link.load(Acquire);
            if cur.is_null() {
                return;
            }
            if cur == engine {
                // SAFETY: `cur` is linked, hence valid. Its own `next` stays
                // as it is, so a reporter standing on it can still move on.
                link.store(unsafe { (*cur).next.load(Acquire) }, Release);
                return;
            }
            // SAFETY: As in `push_back`.
            link = unsafe { &(*cur).next };
        }
    }

    /// Puts `new` in `old`'s place in one store: a reporter walking the list
    /// finds one or the other, never both and never neither.
    ///
    /// # Safety
    ///
    /// The caller holds the owner's writer lock, `old` is on this list and
    /// `new` is valid and on no list.
    pub(crate) unsafe fn replace(&self, old: *mut Engine, new: *mut Engine) {
        let mut link = &self.head;
        loop {
            let cur = link.load(Acquire);
            if cur.is_null() {
                return;
            }
            if cur == old {
                // SAFETY: Both valid by the function's safety requirements.
                unsafe { (*new).next.store((*old).next.load(Acquire), Release) };
                link.store(new, Release);
                return;
            }
            // SAFETY: As in `push_back`.
            link = unsafe { &(*cur).next };
        }
    }

    /// Iterates over the linked engines.
    ///
    /// # Safety
    ///
    /// The caller holds the writer lock or an RCU read-side section for as
    /// long as it uses the iterator and the engines it yields.
    pub(crate) unsafe fn iter(&self) -> Iter<'_> {
        Iter {
            next: self.head.load(Acquire),
            _list: self,
        }
    }

    /// The next engine to report an event to, pinned by [`Engine::enter`]:
    /// the first one after `prev` (the engine the reporter called last, still
    /// pinned, or `None` to start) that was attached at or before sequence
    /// `upto`, wants one of `events` and is not detached.
    ///
    /// Moving on from a still-linked `prev` is O(1); if `prev` was detached
    /// meanwhile, its successor may be gone and the walk starts over from the
    /// head, skipping what was already reported.
    pub(crate) fn next_to_report(
        &self,
        prev: Option<&Engine>,
        upto: u64,
        events: u64,
        _rcu: &RcuGuard,
    ) -> Option<*mut Engine> {
        let after = prev.map_or(0, |p| p.seq());
        let mut next = match prev {
            // A linked engine's successor is linked, or was unlinked during
            // this RCU section and is not freed before it ends.
            Some(p) if !p.is_detached() => p.next.load(Acquire),
            _ => self.head.load(Acquire),
        };
        while !next.is_null() {
            // SAFETY: Reached from the head or a linked engine under `_rcu`.
            let engine = unsafe { Engine::from_raw(next) };
            next = engine.next.load(Acquire);
            let seq = engine.seq();
            if seq <= after {
                continue;
            }
            if seq > upto {
                return None;
            }
            if engine.events() & events == 0 {
                continue;
            }
            if engine.enter() {
                return Some(engine.as_ptr());
            }
            // Detached meanwhile (detach or handoff): a replacement with the
            // same sequence may sit before `next`, so look again from the
            // head. The writer unlinks a detached engine right after marking
            // it, under its lock, so this ends.
            next = self.head.load(Acquire);
        }
        None
    }
}

pub(crate) struct Iter<'a> {
    next: *mut Engine,
    _list: &'a EngineList,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Engine;

    fn next(&mut self) -> Option<&'a Engine> {
        if self.next.is_null() {
            return None;
        }
        // SAFETY: The engine is linked, and the lock or RCU section promised
        // by `EngineList::iter`'s caller keeps it valid.
        let engine = unsafe { Engine::from_raw(self.next) };
        self.next = engine.next.load(Acquire);
        Some(engine)
    }
}
