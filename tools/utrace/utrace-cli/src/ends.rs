// SPDX-License-Identifier: GPL-2.0

//! When a traced process has ended, for the tools that end with their
//! processes: its group is dead (the DEATH record that says so, of the
//! thread that went last) and the DEATH records of its threads known to
//! live are in. The first may come before another thread's: a thread that
//! exited just before it (say, one `pthread_join()` returned for, which is
//! told before the thread reaches its DEATH report) may still be on its
//! way.

use crate::tids::TidMap;
use utrace::{Payload, CLONE_THREAD};

#[derive(Default)]
pub struct Ends {
    /// Threads other than their process's first seen and not dead yet:
    /// tid to pid.
    threads: TidMap<i32>,
    /// Processes whose group is dead while a thread's DEATH record is
    /// still to come: their exit status.
    ending: TidMap<i32>,
}

impl Ends {
    /// A record other than DEATH of thread `tid` of process `pid`: the
    /// thread lives, a CLONE_THREAD's child too; an exec by a thread other
    /// than the first retires the exec'ing thread's old id (it took the
    /// first one's, with no DEATH record).
    pub fn record(&mut self, pid: i32, tid: i32, payload: &Payload) {
        if pid <= 0 {
            return;
        }
        if tid != pid {
            self.threads.insert(tid, pid);
        }
        match *payload {
            Payload::Clone {
                clone_flags,
                child_tid,
                ..
            } if clone_flags & CLONE_THREAD != 0 && child_tid > 0 => {
                self.threads.insert(child_tid, pid);
            }
            Payload::Exec { old_tid, .. } if old_tid != tid => {
                self.threads.remove(&old_tid);
            }
            _ => {}
        }
    }

    /// A DEATH record of thread `tid` of process `pid`: the process's exit
    /// status once it has ended with it.
    pub fn death(&mut self, pid: i32, tid: i32, exit_code: i32, group_dead: bool) -> Option<i32> {
        self.threads.remove(&tid);
        if group_dead {
            self.ending.insert(pid, exit_code);
        }
        if self.threads.values().any(|&p| p == pid) {
            return None;
        }
        self.ending.remove(&pid)
    }

    /// Some process's group is dead and waits for a thread's DEATH.
    pub fn waiting(&self) -> bool {
        !self.ending.is_empty()
    }

    /// The processes that wait, with their exit statuses, ended now: the
    /// DEATH records they wait for are not coming (lost by a lossy
    /// session, or of a thread whose engine detached).
    pub fn overdue(&mut self) -> Vec<(i32, i32)> {
        let ended: Vec<(i32, i32)> = self.ending.drain().collect();
        for (pid, _) in &ended {
            self.threads.retain(|_, p| p != pid);
        }
        ended
    }
}
