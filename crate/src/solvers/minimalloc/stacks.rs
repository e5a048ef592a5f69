//! The stacking bound inside the search's nodes (issue 20): in a section, the unplaced buffers
//! are alive together, so they take disjoint address ranges, each starting at a multiple of its
//! alignment and no lower than the lowest offset it can still take at the node (its release). The
//! least top of such a stack is found exactly by the subset programme of
//! [`crate::model::stacking`], here with a release per buffer; a node whose least top in some
//! section is above the capacity has no completion.
//!
//! Why the programme is exact with releases: sort any packing by offset and push each buffer down
//! to the lowest multiple of its alignment at or above both the top of the one below it and its
//! release; no top rises. So the least top is the least over every order of that greedy
//! stacking, and a lower top of a subset is never worse for what comes after (rounding up and
//! taking a maximum are monotone), which is what the programme over subsets needs.
//!
//! Eq. (3) and the per-class slot bound ([`super::search`]) see the total and the slots a class
//! covers; this sees the padding no smaller buffer can fill, which is where the optimum of random
//! aligned instances sits above them. It costs `2^k · k` for `k` buffers, so it runs only where
//! a quick greedy stack does not already fit, on at most [`MAX_ITEMS`] buffers (a subset still
//! bounds), and remembers its answers by the buffers and their releases.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::transpositions::{self, KeyHasher};
use crate::alignment::align_up;

/// The most buffers one programme stacks: `2^12` subsets.
pub const MAX_ITEMS: usize = 12;

/// Answers remembered at most, then forgotten all at once.
const CACHE_LIMIT: usize = 1 << 16;

/// One unplaced buffer of a section: its rank (for the cache), size, alignment and release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    pub rank: u32,
    pub size: u64,
    pub alignment: u64,
    pub release: u64,
}

impl Item {
    /// Where this buffer ends when stacked on `below`: the lowest multiple of its alignment at or
    /// above both `below` and its release, plus its size (`u64::MAX` past the address space).
    #[inline]
    fn ends_on(&self, below: u64) -> u64 {
        align_up(below.max(self.release), self.alignment)
            .and_then(|start| start.checked_add(self.size))
            .unwrap_or(u64::MAX)
    }
}

/// The programme's scratch space and its remembered answers.
#[derive(Default)]
pub struct Stacker {
    top: Vec<u64>,
    cache: HashMap<u128, u64, BuildHasherDefault<KeyHasher>>,
    /// Programmes run and answers taken from the cache (for the statistics).
    pub runs: u64,
    pub hits: u64,
}

impl Stacker {
    /// Whether the items can stack with every top at or below `capacity`; when not, the least top
    /// they need (above `capacity`). Items beyond [`MAX_ITEMS`] are dropped (the largest
    /// alignments, then sizes, are kept), which only relaxes.
    pub fn need(&mut self, items: &mut Vec<Item>, capacity: u64) -> Option<u64> {
        if items.len() > MAX_ITEMS {
            items.sort_unstable_by(|a, b| b.alignment.cmp(&a.alignment).then(b.size.cmp(&a.size)));
            items.truncate(MAX_ITEMS);
        }
        if greedy(items) <= capacity {
            return None;
        }
        let key = items.iter().fold(0u128, |hash, item| hash ^ transpositions::key(item.rank, item.release));
        let least = match self.cache.get(&key) {
            Some(&least) => {
                self.hits += 1;
                least
            }
            None => {
                self.runs += 1;
                let least = self.least_top(items);
                if self.cache.len() >= CACHE_LIMIT {
                    self.cache.clear();
                }
                self.cache.insert(key, least);
                least
            }
        };
        (least > capacity).then_some(least)
    }

    /// The least top of the items stacked in one column (see the module's doc). At most
    /// [`MAX_ITEMS`] items.
    pub fn least_top(&mut self, items: &[Item]) -> u64 {
        debug_assert!(items.len() <= MAX_ITEMS);
        let full = 1usize << items.len();
        self.top.clear();
        self.top.resize(full, u64::MAX);
        self.top[0] = 0;
        for set in 0..full {
            let below = self.top[set];
            if below == u64::MAX {
                continue;
            }
            for (i, item) in items.iter().enumerate() {
                let bit = 1 << i;
                if set & bit == 0 {
                    let reached = item.ends_on(below);
                    let slot = &mut self.top[set | bit];
                    *slot = (*slot).min(reached);
                }
            }
        }
        self.top[full - 1]
    }
}

/// The lower of two greedy stacks: largest alignment first, and lowest release first. Some order
/// reaches it, so it is at least the least top: where it fits, the programme is not needed.
fn greedy(items: &mut [Item]) -> u64 {
    let stack = |items: &[Item]| items.iter().fold(0u64, |top, item| item.ends_on(top));
    items.sort_unstable_by(|a, b| b.alignment.cmp(&a.alignment).then(a.release.cmp(&b.release)));
    let by_alignment = stack(items);
    items.sort_unstable_by(|a, b| a.release.cmp(&b.release).then(b.alignment.cmp(&a.alignment)));
    by_alignment.min(stack(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every order of the items, stacked greedily: the oracle the programme must agree with.
    fn every_order(items: &[Item]) -> u64 {
        fn walk(items: &[Item], used: &mut Vec<bool>, top: u64, best: &mut u64) {
            if used.iter().all(|&u| u) {
                *best = (*best).min(top);
                return;
            }
            for i in 0..items.len() {
                if !used[i] {
                    used[i] = true;
                    walk(items, used, items[i].ends_on(top), best);
                    used[i] = false;
                }
            }
        }
        let mut best = u64::MAX;
        walk(items, &mut vec![false; items.len()], 0, &mut best);
        best
    }

    /// Every placement on a grid of offsets (each a multiple of its alignment, at or above its
    /// release, below `limit`) with no two overlapping: the least top, from the definition.
    fn grid(items: &[Item], limit: u64) -> u64 {
        fn walk(items: &[Item], k: usize, limit: u64, placed: &mut Vec<(u64, u64)>, best: &mut u64) {
            if k == items.len() {
                *best = (*best).min(placed.iter().map(|p| p.1).max().unwrap_or(0));
                return;
            }
            let item = items[k];
            let mut offset = align_up(item.release, item.alignment).unwrap();
            while offset + item.size <= limit {
                let end = offset + item.size;
                if placed.iter().all(|&(low, high)| end <= low || high <= offset) {
                    placed.push((offset, end));
                    walk(items, k + 1, limit, placed, best);
                    placed.pop();
                }
                offset += item.alignment;
            }
        }
        let mut best = u64::MAX;
        walk(items, 0, limit, &mut Vec::new(), &mut best);
        best
    }

    /// Random items; their ranks start at `first` (the cache takes a rank for one buffer).
    fn random_items(next: &mut impl FnMut() -> u64, k: usize, first: u32) -> Vec<Item> {
        (0..k)
            .map(|i| Item {
                rank: first + i as u32,
                size: 1 + next() % 40,
                alignment: [1, 2, 4, 8, 16, 32][(next() % 6) as usize],
                release: if next().is_multiple_of(2) { 0 } else { next() % 50 },
            })
            .collect()
    }

    #[test]
    fn the_programme_agrees_with_every_order_and_the_grid() {
        let mut seed = 11u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut stacker = Stacker::default();
        for round in 0..300 {
            let k = 1 + (next() % 5) as usize;
            let items = random_items(&mut next, k, round * 8);
            let least = stacker.least_top(&items);
            assert_eq!(least, every_order(&items), "{items:?}");
            if k <= 3 {
                let limit = items.iter().map(|i| i.release + i.size + i.alignment).sum::<u64>() + 50;
                assert_eq!(least, grid(&items, limit), "{items:?}");
            }
            // `need` answers from the programme (or the greedy stack, which is never below it).
            for capacity in [least.saturating_sub(1), least, least + 7] {
                let expected = (least > capacity).then_some(least);
                assert_eq!(stacker.need(&mut items.clone(), capacity), expected, "{items:?} at {capacity}");
            }
        }
        assert!(stacker.runs > 0 && stacker.hits > 0, "the cache was never used: {} {}", stacker.runs, stacker.hits);
    }

    /// A release below the start of an aligned slot costs nothing; one just above it costs a slot.
    #[test]
    fn releases_round_up_to_the_alignment() {
        let item = |rank, size, alignment, release| Item { rank, size, alignment, release };
        let mut stacker = Stacker::default();
        assert_eq!(stacker.least_top(&[item(0, 10, 16, 0), item(1, 10, 16, 0)]), 26);
        assert_eq!(stacker.least_top(&[item(0, 10, 16, 1), item(1, 10, 16, 0)]), 26);
        assert_eq!(stacker.least_top(&[item(0, 10, 16, 1), item(1, 10, 16, 1)]), 42);
        // The unaligned one fills the padding of the first aligned one.
        assert_eq!(stacker.least_top(&[item(0, 10, 16, 0), item(1, 10, 16, 0), item(2, 6, 1, 0)]), 26);
        assert_eq!(stacker.least_top(&[]), 0);
        assert_eq!(stacker.least_top(&[item(0, 1, 1, u64::MAX)]), u64::MAX);
    }

    /// More than [`MAX_ITEMS`] items: a subset is stacked, so the answer never passes the least
    /// top of all of them (a greedy stack of all bounds that from above).
    #[test]
    fn too_many_items_are_relaxed() {
        let items: Vec<Item> =
            (0..MAX_ITEMS as u32 + 3).map(|rank| Item { rank, size: 5, alignment: 8, release: 0 }).collect();
        let all = items.len() as u64 * 8 - 3;
        let mut stacker = Stacker::default();
        let need = stacker.need(&mut items.clone(), 0).unwrap();
        assert!(need <= all, "{need} above {all}");
        assert_eq!(need, MAX_ITEMS as u64 * 8 - 3);
    }
}
