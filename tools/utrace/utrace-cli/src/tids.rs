// SPDX-License-Identifier: GPL-2.0

//! Maps and sets keyed by thread ids, with a hasher fit for per-record use.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes thread ids for the per-record maps: one multiplication, where
/// the default SipHash costs a few hundred instructions per record. The
/// kernel hands out the ids, so they are not chosen to collide.
#[derive(Default)]
pub struct TidHasher(u64);

impl Hasher for TidHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_i32(&mut self, v: i32) {
        self.0 = u64::from(v as u32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub type TidMap<V> = HashMap<i32, V, BuildHasherDefault<TidHasher>>;
pub type TidSet = HashSet<i32, BuildHasherDefault<TidHasher>>;
