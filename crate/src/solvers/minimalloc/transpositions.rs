//! Remembering refuted nodes (not in the paper): two different partial solutions often leave the
//! same skyline to the buffers still unplaced (two buffers stacked in either order, say), and then
//! the same subtree below them. What the search does below a node depends only on the unplaced
//! buffers, the floor of each, the maximum offset placed and the rank last placed there, so a
//! node refuted once is refuted again whenever that state recurs.
//!
//! The state is hashed incrementally (Zobrist-style: one XOR per floor change) into 128 bits, so
//! that a collision, which would wrongly cut a node, is out of the question in practice.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hash of one unplaced buffer at one floor.
#[inline]
pub(super) fn key(rank: u32, floor: u64) -> u128 {
    let low = mix(floor ^ (rank as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let high = mix(floor.wrapping_add(0xD1B5_4A32_D192_ED03) ^ (rank as u64).rotate_left(32));
    ((high as u128) << 64) | low as u128
}

/// What the search below a node depends on: the floors of its unplaced buffers (hashed) and
/// the canonical bound, the maximum offset placed and the rank last placed at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NodeKey {
    pub floors: u128,
    /// `(max_offset, last_rank + 1)`, 0 for no rank: larger is more constrained.
    bound: (u64, u32),
}

/// The key of a node: its unplaced floors with the maximum offset and the last rank.
#[inline]
pub(super) fn node_key(floors: u128, max_offset: u64, last_rank: u32) -> NodeKey {
    NodeKey { floors, bound: (max_offset, last_rank.wrapping_add(1)) }
}

/// splitmix64's finaliser.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The keys are random already: the table hashes them by their low 64 bits.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }

    fn write_u128(&mut self, value: u128) {
        self.0 = value as u64;
    }
}

/// Refuted nodes, forgotten all at once when the table grows past its bound.
///
/// A refutation also holds for the same floors under a tighter canonical bound: such a node's
/// candidates are a subset of the refuted one's (those below the bound are cut), and each leads
/// to the very same child, so its whole tree is part of the refuted tree. The table keeps, per
/// floors, the loosest bound refuted.
pub(super) struct Refuted {
    keys: HashMap<u128, (u64, u32), BuildHasherDefault<KeyHasher>>,
    limit: usize,
}

impl Refuted {
    pub(super) fn new(limit: usize) -> Self {
        Refuted { keys: HashMap::default(), limit }
    }

    pub(super) fn contains(&self, key: NodeKey) -> bool {
        self.keys.get(&key.floors).is_some_and(|&bound| bound <= key.bound)
    }

    pub(super) fn insert(&mut self, key: NodeKey) {
        if self.keys.len() >= self.limit {
            self.keys.clear();
        }
        let bound = self.keys.entry(key.floors).or_insert(key.bound);
        *bound = (*bound).min(key.bound);
    }
}
