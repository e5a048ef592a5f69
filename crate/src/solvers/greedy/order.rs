//! The orders in which the greedy engine visits buffers. Each sort ends with the input index so
//! that every order is total and every run reproducible.

use std::cmp::Reverse;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::metrics;
use crate::model::Buffer;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Size descending, ties by longer lifetime: idealloc's SLFF "big rocks first", XLA's spatial.
    Size,
    /// Lifetime descending, ties by larger size: XLA's temporal order.
    Lifetime,
    /// Size × lifetime descending.
    Area,
    /// Start ascending: the order an online allocator sees.
    Start,
    /// Contention descending (the most bytes alive at once during the buffer's life), ties by
    /// alignment, size × lifetime², lifetime: TelaMalloc's baseline (§3.1).
    Contention,
    /// Number of time-overlapping buffers descending, ties by size: TVM's `greedy_by_conflicts`.
    Conflicts,
    /// Size descending, ties by number of conflicts: TVM's `greedy_by_size`.
    SizeConflicts,
    /// Buffers alive for the whole run first, then size descending, ties by earlier start:
    /// TFLite's arena planner.
    TfliteArena,
    /// As given.
    Input,
    /// A seeded random permutation.
    Random,
}

impl Order {
    pub const ALL: [Order; 10] = [
        Order::Size,
        Order::Lifetime,
        Order::Area,
        Order::Start,
        Order::Contention,
        Order::Conflicts,
        Order::SizeConflicts,
        Order::TfliteArena,
        Order::Input,
        Order::Random,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Order::Size => "size",
            Order::Lifetime => "lifetime",
            Order::Area => "area",
            Order::Start => "start",
            Order::Contention => "contention",
            Order::Conflicts => "conflicts",
            Order::SizeConflicts => "size-conflicts",
            Order::TfliteArena => "tflite-arena",
            Order::Input => "input",
            Order::Random => "random",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Order::Size => "size descending, ties by longer lifetime",
            Order::Lifetime => "lifetime descending, ties by larger size",
            Order::Area => "size x lifetime descending",
            Order::Start => "start ascending",
            Order::Contention => "contention descending (TelaMalloc 3.1)",
            Order::Conflicts => "number of conflicts descending, ties by size",
            Order::SizeConflicts => "size descending, ties by number of conflicts",
            Order::TfliteArena => "whole-run buffers first by index, then size descending, ties by start",
            Order::Input => "input order",
            Order::Random => "seeded random permutation",
        }
    }

    pub fn from_name(name: &str) -> Option<Order> {
        Order::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Buffer indices in this order.
    pub fn arrange(self, buffers: &[Buffer], seed: u64) -> Vec<usize> {
        let mut indices: Vec<usize> = (0..buffers.len()).collect();
        let b = buffers;
        let n = b.len();
        match self {
            Order::Size => indices = by_size(b),
            Order::Lifetime => indices = sorted_by_key(n, |i| (Reverse(b[i].lifetime()), Reverse(b[i].size), i)),
            Order::Area => indices = sorted_by_key(n, |i| (Reverse(b[i].size as u128 * b[i].lifetime() as u128), i)),
            Order::Start => indices = sorted_by_key(n, |i| (b[i].start, i)),
            Order::Contention => {
                let contention = metrics::contention_per_buffer(b);
                indices = sorted_by_key(n, |i| {
                    let lifetime = b[i].lifetime() as u128;
                    // size × lifetime² can pass u128 only beyond 2^128; saturate rather than wrap.
                    let weight = (b[i].size as u128).saturating_mul(lifetime.saturating_mul(lifetime));
                    (Reverse(contention[i]), Reverse(b[i].alignment()), Reverse(weight), Reverse(b[i].lifetime()), i)
                })
            }
            Order::Conflicts => {
                let conflicts = metrics::conflicts_per_buffer(b);
                indices = sorted_by_key(n, |i| (Reverse(conflicts[i]), Reverse(b[i].size), i))
            }
            Order::SizeConflicts => {
                let conflicts = metrics::conflicts_per_buffer(b);
                indices = sorted_by_key(n, |i| (Reverse(b[i].size), Reverse(conflicts[i]), i))
            }
            Order::TfliteArena => {
                let first = b.iter().map(|x| x.start).min().unwrap_or(0);
                let last = b.iter().map(|x| x.end).max().unwrap_or(0);
                let whole_run = |i: usize| b[i].start == first && b[i].end == last;
                // Whole-run buffers by index alone, as LiteRT's arena sorts them (found with two
                // graph inputs of different sizes, `crate/tests/import_tflite.rs`); the rest by size.
                let size_key = |i: usize| if whole_run(i) { Reverse(0) } else { Reverse(b[i].size) };
                indices = sorted_by_key(n, |i| (!whole_run(i), size_key(i), b[i].start, i))
            }
            Order::Input => {}
            Order::Random => indices.shuffle(&mut ChaCha8Rng::seed_from_u64(seed)),
        }
        indices
    }
}

/// Size descending, ties by longer lifetime, then by index. While every lifetime and index fits
/// in 32 bits the whole key is packed in one u128 (size, lifetime and index, each complemented or
/// not so that ascending order is the one asked for): half the bytes of the keyed tuple, one
/// comparison instead of three; on 2·10^6 buffers this sort was 4 % of an SLFF solve.
fn by_size(b: &[Buffer]) -> Vec<usize> {
    let n = b.len();
    let narrow = u32::try_from(n).is_ok() && b.iter().all(|x| x.lifetime() <= u32::MAX as u64);
    if !narrow {
        return sorted_by_key(n, |i| (Reverse(b[i].size), Reverse(b[i].lifetime()), i));
    }
    let mut keys: Vec<u128> = b
        .iter()
        .enumerate()
        .map(|(i, x)| (!x.size as u128) << 64 | ((u32::MAX as u64 - x.lifetime()) as u128) << 32 | i as u128)
        .collect();
    keys.sort_unstable();
    keys.iter().map(|&key| key as u32 as usize).collect()
}

/// `0..n` sorted by `key` (which must end with the index, so that the order is total). Each key is
/// computed once and sorted with its index: a sort that read the buffers at every comparison
/// jumped across them at random, a cache miss each time on millions of buffers.
fn sorted_by_key<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut keyed: Vec<(K, usize)> = (0..n).map(|i| (key(i), i)).collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    // (By reference: collected from `into_iter`, the indices would reuse the keys' allocation in
    // place, four times their size, for as long as the order lives.)
    keyed.iter().map(|&(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// The packed size order is the keyed tuple's, with sizes and lifetimes crowded together
        /// (many ties) near 0 or at the top of their ranges, and lifetimes past 32 bits (the tuple
        /// path) when `wide`.
        #[test]
        fn the_size_order_is_the_tuple_order(
            raw in prop::collection::vec((0u64..4, 0u64..4, 0u64..3), 1..200),
            high in any::<bool>(),
            wide in any::<bool>(),
        ) {
            let top = if wide { u64::MAX / 2 } else { u32::MAX as u64 };
            let buffers: Vec<Buffer> = raw
                .iter()
                .enumerate()
                .map(|(i, &(size, length, start))| {
                    let size = if high { u64::MAX - size } else { size + 1 };
                    let length = if high { top - length } else { length + 1 };
                    Buffer::new(i.to_string(), start, start + length, size)
                })
                .collect();
            let b = &buffers;
            let expected = sorted_by_key(b.len(), |i| (Reverse(b[i].size), Reverse(b[i].lifetime()), i));
            prop_assert_eq!(by_size(b), expected);
        }
    }
}
