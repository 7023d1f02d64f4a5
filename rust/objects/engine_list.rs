// SPDX-License-Identifier: GPL-2.0

//! An RCU-protected singly linked list of engines in attach order.
//!
//! Writers (attach, detach) hold the lock of whatever owns the list (the
//! task's `UTask`, or the global engine set) and link or unlink with release
//! stores. Reporters walk it under RCU and take no lock and no reference:
//! they pin one engine at a time with [`Engine::enter`], leave the RCU
//! section for the callback, and find their place again by attach sequence.

use crate::engine::{Engine, Pinned};
use crate::shim::RcuGuard;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering::Acquire, Ordering::Release};
use kernel::prelude::*;

pub(crate) struct EngineList {
    head: AtomicPtr<Engine>,
}

impl EngineList {
    pub(crate) const fn new() -> Self {
        EngineList {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Whether no engine is linked (a snapshot; nothing is dereferenced, so
    /// no RCU read-side section is needed).
    pub(crate) fn is_empty(&self) -> bool {
        self.head.load(Acquire).is_null()
    }

    /// Iterates over the linked engines inside the RCU read-side section
    /// `_rcu` (engines unlinked meanwhile stay valid until it ends).
    pub(crate) fn iter_rcu<'a>(&'a self, _rcu: &'a RcuGuard) -> Iter<'a> {
        Iter {
            next: self.head.load(Acquire),
            _list: self,
        }
    }

    /// The next engine to report an event to, pinned by [`Engine::enter`]:
    /// the first one after `prev` (the engine the reporter called last, or
    /// `None` to start) that was attached at or before sequence `upto`,
    /// wants one of `events` and is not detached. `prev` is still pinned,
    /// or, with `one_section`, was unpinned inside `rcu` (which keeps it
    /// readable: `Pinned::unpin_in`).
    ///
    /// Moving on from a still-linked `prev` is O(1); if `prev` was detached
    /// meanwhile, its successor may be gone and the walk starts over from the
    /// head, skipping what was already reported. With `one_section` (the
    /// caller found `prev` inside `rcu`, the section it still holds: the
    /// syscall probe's walk) `prev`'s successor cannot be gone, and the walk
    /// moves on from it whether or not `prev` was detached meanwhile.
    #[inline(always)]
    pub(crate) fn next_to_report(
        &self,
        prev: Option<&Engine>,
        upto: u64,
        events: u64,
        one_section: bool,
        rcu: &RcuGuard,
    ) -> Option<Pinned> {
        let mut next = match prev {
            // A linked engine's successor is linked, or was unlinked during
            // this RCU section and is not freed before it ends. Every engine
            // from there on was attached after `prev` (lists are sorted by
            // sequence: `push_back` appends the largest, a replacement takes
            // its predecessor's), so none was reported yet.
            //
            // So is the successor of an engine unlinked during the section
            // (`one_section`): an unlinked engine's `next` is written no
            // more (a writer only writes the links it finds from the head),
            // so it points at what followed it when it was unlinked, during
            // the section. That one is reported if it is still not
            // detached; a detached one fails `enter` and the walk looks
            // from the head for what took its place. A replacement of
            // `prev` itself has `prev`'s sequence: reported already.
            Some(p) if one_section || !p.is_detached() => p.next.load(Acquire),
            Some(p) => return self.next_from_head(p.seq(), upto, events, rcu),
            None => self.head.load(Acquire),
        };
        while !next.is_null() {
            // SAFETY: Reached from the head or a linked engine under `rcu`.
            let engine = unsafe { Engine::from_raw(next) };
            // The syscall passes have no bound (`u64::MAX`): no load.
            if upto != u64::MAX && engine.seq() > upto {
                return None;
            }
            if engine.events() & events == 0 {
                next = engine.next.load(Acquire);
                continue;
            }
            if let Some(pinned) = engine.enter() {
                return Some(pinned);
            }
            // Detached meanwhile (detach or handoff): a replacement with the
            // same sequence may sit before its successor.
            return self.next_from_head(prev.map_or(0, |p| p.seq()), upto, events, rcu);
        }
        None
    }

    /// [`EngineList::next_to_report`] where the walk has lost its place
    /// (`prev`, or the engine after it, was detached meanwhile): looks again
    /// from the head, skipping the engines attached at or before `after`
    /// (reported already). The writer unlinks a detached engine right after
    /// marking it, under its lock, so this ends. Out of line: rare.
    #[cold]
    #[inline(never)]
    fn next_from_head(
        &self,
        after: u64,
        upto: u64,
        events: u64,
        _rcu: &RcuGuard,
    ) -> Option<Pinned> {
        let mut next = self.head.load(Acquire);
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
            if let Some(pinned) = engine.enter() {
                return Some(pinned);
            }
            // Detached meanwhile: a replacement may sit before `next`.
            next = self.head.load(Acquire);
        }
        None
    }
}

/// Write access to an [`EngineList`]: the proof that its owner's writer
/// lock is held, made only where that lock is taken (`detach::Target`).
///
/// # Invariants
///
/// The owner's writer lock is held for `'a`; every linked engine holds its
/// attached reference (so it stays valid while linked, and for an RCU grace
/// period after it is unlinked).
pub(crate) struct ListWriter<'a> {
    list: &'a EngineList,
}

impl<'a> ListWriter<'a> {
    /// # Safety
    ///
    /// The caller holds the writer lock of `list`'s owner for `'a`.
    pub(crate) unsafe fn new(list: &'a EngineList) -> Self {
        // INVARIANT: By the function's safety requirements.
        ListWriter { list }
    }

    /// The link (the head or an engine's `next`) that points at `target`;
    /// for a null `target`, the last link (the list's end). `None` if
    /// `target` is not on the list.
    fn link_to(&self, target: *mut Engine) -> Option<&AtomicPtr<Engine>> {
        let mut link = &self.list.head;
        loop {
            let cur = link.load(Acquire);
            if cur == target {
                return Some(link);
            }
            if cur.is_null() {
                return None;
            }
            // SAFETY: Linked engines stay valid while linked (type
            // invariant); the writer lock keeps the list from changing.
            link = unsafe { &(*cur).next };
        }
    }

    /// Appends `engine` (whose `seq` is the largest so far). `EBUSY` (and
    /// nothing changed) if it is on a list already.
    pub(crate) fn push_back(&self, engine: &Engine) -> Result {
        if engine.set_linked(true) {
            return Err(EBUSY);
        }
        // The end always has a link.
        if let Some(end) = self.link_to(ptr::null_mut()) {
            end.store(engine.as_ptr(), Release);
        }
        Ok(())
    }

    /// Unlinks `engine` if it is on this list. Its memory must then outlive
    /// an RCU grace period (`Engine::retire`).
    pub(crate) fn unlink(&self, engine: &Engine) {
        if let Some(link) = self.link_to(engine.as_ptr()) {
            // Its own `next` stays as it is, so a reporter standing on it
            // can still move on.
            link.store(engine.next.load(Acquire), Release);
            engine.set_linked(false);
        }
    }

    /// Puts `new` in `old`'s place in one store: a reporter walking the list
    /// finds one or the other, never both and never neither. `EBUSY` if
    /// `new` is on a list already, `ENOENT` if `old` is not on this one
    /// (nothing changed either way).
    pub(crate) fn replace(&self, old: &Engine, new: &Engine) -> Result {
        if new.set_linked(true) {
            return Err(EBUSY);
        }
        let Some(link) = self.link_to(old.as_ptr()) else {
            new.set_linked(false);
            return Err(ENOENT);
        };
        new.next.store(old.next.load(Acquire), Release);
        link.store(new.as_ptr(), Release);
        old.set_linked(false);
        Ok(())
    }

    /// Iterates over the linked engines.
    pub(crate) fn iter(&self) -> Iter<'_> {
        Iter {
            next: self.list.head.load(Acquire),
            _list: self.list,
        }
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
        // SAFETY: The engine is linked, and the writer lock or the RCU
        // section the iterator was made under keeps it valid.
        let engine = unsafe { Engine::from_raw(self.next) };
        self.next = engine.next.load(Acquire);
        Some(engine)
    }
}
