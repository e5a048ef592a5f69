//! The stacking bound inside the search's nodes: in a section, the unplaced buffers
//! are alive together, so they take disjoint address ranges, each starting at a multiple of its
//! alignment and no lower than the lowest offset it can still take at the node (its release). The
//! least top of such a stack is found exactly by the subset programme of
//! [`crate::model::stacking`] (which says why it is exact with releases); a node whose least top
//! in some section is above the capacity has no completion.
//!
//! Eq. (3) and the per-class slot bound ([`super::search`]) see the total and the slots a class
//! covers; this sees the padding no smaller buffer can fill, which is where the optimum of random
//! aligned instances sits above them. It costs `2^k · k` for `k` buffers, so it runs only where
//! a quick greedy stack does not already fit, on at most [`MAX_ITEMS`] buffers (a subset still
//! bounds), and remembers its answers by the buffers and their releases.

use std::borrow::Borrow;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::transpositions::{self, KeyHasher};
use crate::model::stacking::{self, MAX_STACKED, Programme, stack_in_order};

/// The most buffers one programme stacks: `2^8` subsets. The programme runs inside the nodes and
/// costs `2^k · k`; past the 8 buffers of largest alignment (then size) of a section, the others
/// add little to the least top, while each one more doubles what every call costs.
pub const MAX_ITEMS: usize = 8;
const _: () = assert!(MAX_ITEMS <= MAX_STACKED, "the programme refuses more than MAX_STACKED items");

/// Answers remembered at most, then forgotten all at once.
const CACHE_LIMIT: usize = 1 << 16;

/// One unplaced buffer of a section: its rank (for the cache) and what the programme stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    pub rank: u32,
    pub stacked: stacking::Item,
}

impl Item {
    pub fn new(rank: u32, size: u64, alignment: u64, release: u64) -> Item {
        Item { rank, stacked: stacking::Item { size, alignment, release } }
    }
}

impl Borrow<stacking::Item> for Item {
    fn borrow(&self) -> &stacking::Item {
        &self.stacked
    }
}

/// The programme's scratch space and its remembered answers.
#[derive(Default)]
pub struct Stacker {
    programme: Programme,
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
            items.sort_unstable_by(|a, b| {
                b.stacked.alignment.cmp(&a.stacked.alignment).then(b.stacked.size.cmp(&a.stacked.size))
            });
            items.truncate(MAX_ITEMS);
        }
        if greedy(items) <= capacity {
            return None;
        }
        let key = items.iter().fold(0u128, |hash, item| hash ^ transpositions::key(item.rank, item.stacked.release));
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

    /// The least top of the items stacked in one column ([`Programme::least_top`]). At most
    /// [`MAX_ITEMS`] items (0, no bound, for more).
    pub fn least_top(&mut self, items: &[Item]) -> u64 {
        debug_assert!(items.len() <= MAX_ITEMS);
        self.programme.least_top(items).unwrap_or(0)
    }
}

/// The lower of two greedy stacks: largest alignment first, and lowest release first. Some order
/// reaches it, so it is at least the least top: where it fits, the programme is not needed.
fn greedy(items: &mut [Item]) -> u64 {
    items.sort_unstable_by_key(|item| (Reverse(item.stacked.alignment), item.stacked.release));
    let by_alignment = stack_in_order(items);
    items.sort_unstable_by_key(|item| (item.stacked.release, Reverse(item.stacked.alignment)));
    by_alignment.min(stack_in_order(items))
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::model::stacking::tests::{every_order, random_items};

    /// `need` answers from the programme (or the greedy stack, which is never below it), the same
    /// when it runs the programme and when it takes the answer from its cache.
    #[test]
    fn need_agrees_with_every_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut stacker = Stacker::default();
        for round in 0..300u32 {
            // Ranks of their own each round: the cache takes a rank for one buffer.
            let k = rng.random_range(1..=5);
            let items: Vec<Item> = random_items(&mut rng, k, true)
                .into_iter()
                .zip(round * 8..)
                .map(|(stacked, rank)| Item { rank, stacked })
                .collect();
            let least = every_order(&items);
            assert_eq!(stacker.least_top(&items), least, "{items:?}");
            for capacity in [least.saturating_sub(1), least, least + 7] {
                let expected = (least > capacity).then_some(least);
                assert_eq!(stacker.need(&mut items.clone(), capacity), expected, "{items:?} at {capacity}");
            }
        }
        assert!(stacker.runs > 0 && stacker.hits > 0, "the cache was never used: {} {}", stacker.runs, stacker.hits);
    }

    /// More than [`MAX_ITEMS`] items: a subset is stacked, so the answer never passes the least
    /// top of all of them (a greedy stack of all bounds that from above).
    #[test]
    fn too_many_items_are_relaxed() {
        let items: Vec<Item> = (0..MAX_ITEMS as u32 + 3).map(|rank| Item::new(rank, 5, 8, 0)).collect();
        let all = items.len() as u64 * 8 - 3;
        let mut stacker = Stacker::default();
        let need = stacker.need(&mut items.clone(), 0).unwrap();
        assert!(need <= all, "{need} above {all}");
        assert_eq!(need, MAX_ITEMS as u64 * 8 - 3);
    }
}
