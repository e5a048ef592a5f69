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

use super::sections::Obstacle;
use super::transpositions::{self, KeyHasher};
use crate::alignment::align_up;
use crate::model::stacking::{self, MAX_STACKED, Programme, stack_in_order};

/// The most buffers one programme stacks: `2^8` subsets. The programme runs inside the nodes and
/// costs `2^k · k`; past the 8 buffers of largest alignment (then size) of a section, the others
/// add little to the least top, while each one more doubles what every call costs.
pub(super) const MAX_ITEMS: usize = 8;
const _: () = assert!(MAX_ITEMS <= MAX_STACKED, "the programme refuses more than MAX_STACKED items");

/// Answers remembered at most, then forgotten all at once.
const CACHE_LIMIT: usize = 1 << 16;

/// One unplaced buffer of a section: its rank (for the cache) and what the programme stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Item {
    pub rank: u32,
    pub stacked: stacking::Item,
}

impl Item {
    pub(super) fn new(rank: u32, size: u64, alignment: u64, release: u64) -> Item {
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
pub(super) struct Stacker {
    programme: Programme,
    /// The least top of each subset, for [`Stacker::least_top_around`].
    tops: Vec<u64>,
    cache: HashMap<u128, u64, BuildHasherDefault<KeyHasher>>,
    /// Programmes run and answers taken from the cache (for the statistics).
    pub runs: u64,
    pub hits: u64,
}

impl Stacker {
    /// Whether the items can stack with every top at or below `capacity`; when not, the least top
    /// they need (above `capacity`). Items beyond [`MAX_ITEMS`] are dropped (the largest
    /// alignments, then sizes, are kept), which only relaxes.
    #[cfg(test)]
    pub(super) fn need(&mut self, items: &mut Vec<Item>, capacity: u64) -> Option<u64> {
        self.need_around(items, &[], 0, capacity)
    }

    /// [`Stacker::need`] in a section whose pinned buffers hold `pins` (disjoint, sorted by
    /// offset; `section` names them for the cache): no item may cut through one, so an item that
    /// does not fit the hole below a pin goes above it, and the hole's bytes are lost to it.
    pub(super) fn need_around(
        &mut self,
        items: &mut Vec<Item>,
        pins: &[Obstacle],
        section: u32,
        capacity: u64,
    ) -> Option<u64> {
        if items.len() > MAX_ITEMS {
            items.sort_unstable_by(|a, b| {
                b.stacked.alignment.cmp(&a.stacked.alignment).then(b.stacked.size.cmp(&a.stacked.size))
            });
            items.truncate(MAX_ITEMS);
        }
        if greedy(items, pins) <= capacity {
            return None;
        }
        let mut key =
            items.iter().fold(0u128, |hash, item| hash ^ transpositions::key(item.rank, item.stacked.release));
        if !pins.is_empty() {
            // Around pins the answer above the capacity depends on it (see `least_top_around`).
            key ^= transpositions::key(u32::MAX, section as u64) ^ transpositions::key(u32::MAX - 1, capacity);
        }
        let least = match self.cache.get(&key) {
            Some(&least) => {
                self.hits += 1;
                least
            }
            None => {
                self.runs += 1;
                let least =
                    if pins.is_empty() { self.least_top(items) } else { self.least_top_around(items, pins, capacity) };
                if self.cache.len() >= CACHE_LIMIT {
                    self.cache.clear();
                }
                self.cache.insert(key, least);
                least
            }
        };
        (least > capacity).then_some(least)
    }

    /// The least top of the items stacked in one column around `pins`: the subset programme of
    /// [`crate::model::stacking`] with each item at its lowest fit around the pins
    /// ([`ends_around`]). Still exact: sorted by offset, a packing that avoids the pins pushes
    /// down to those lowest fits, and a lower top below is never worse for what comes after (the
    /// lowest fit at or above an offset rises with it).
    ///
    /// Subsets whose least top passes `cutoff` are not stacked on (a node asks only whether the
    /// items fit its capacity): when the whole set passes it, the answer is the lowest top that
    /// passed it, which is still no more than the least top. Why: in a stacking with the least
    /// top, take the first item whose subset's least top passes `cutoff`; stacked on the least
    /// top of the subset before it (which did not), it reached a top above `cutoff` and no higher
    /// than where it ends in that stacking, so no higher than the least top.
    pub(super) fn least_top_around(&mut self, items: &[Item], pins: &[Obstacle], cutoff: u64) -> u64 {
        debug_assert!(items.len() <= MAX_ITEMS);
        let full = 1usize << items.len();
        self.tops.clear();
        self.tops.resize(full, u64::MAX);
        self.tops[0] = 0;
        let mut passed = u64::MAX;
        for set in 0..full {
            let below = self.tops[set];
            if below == u64::MAX {
                continue;
            }
            for (i, item) in items.iter().enumerate() {
                let bit = 1 << i;
                if set & bit == 0 {
                    let reached = ends_around(&item.stacked, below, pins);
                    if reached > cutoff {
                        passed = passed.min(reached);
                        continue;
                    }
                    let slot = &mut self.tops[set | bit];
                    *slot = (*slot).min(reached);
                }
            }
        }
        match self.tops[full - 1] {
            u64::MAX => passed,
            least => least,
        }
    }

    /// The least top of the items stacked in one column ([`Programme::least_top`]). At most
    /// [`MAX_ITEMS`] items (0, no bound, for more).
    pub(super) fn least_top(&mut self, items: &[Item]) -> u64 {
        debug_assert!(items.len() <= MAX_ITEMS);
        self.programme.least_top(items).unwrap_or(0)
    }
}

/// Where `item` ends when stacked on `below` around `pins` (disjoint, sorted by offset): at the
/// lowest multiple of its alignment at or above `below` and its release where it cuts through no
/// pin, plus its size (`u64::MAX` past u64).
fn ends_around(item: &stacking::Item, below: u64, pins: &[Obstacle]) -> u64 {
    let Some(mut start) = align_up(below.max(item.release), item.alignment) else { return u64::MAX };
    for pin in pins {
        let Some(top) = start.checked_add(item.size) else { return u64::MAX };
        if pin.offset >= top {
            break;
        }
        if pin.top > start {
            let Some(above) = align_up(pin.top, item.alignment) else { return u64::MAX };
            start = above;
        }
    }
    start.saturating_add(item.size)
}

/// The top of `items` stacked in the order given around `pins`, each on the one before.
fn stack_around(items: &[Item], pins: &[Obstacle]) -> u64 {
    if pins.is_empty() {
        return stack_in_order(items);
    }
    items.iter().fold(0, |top, item| ends_around(&item.stacked, top, pins))
}

/// The lower of two greedy stacks: largest alignment first, and lowest release first. Some order
/// reaches it, so it is at least the least top: where it fits, the programme is not needed.
fn greedy(items: &mut [Item], pins: &[Obstacle]) -> u64 {
    items.sort_unstable_by_key(|item| (Reverse(item.stacked.alignment), item.stacked.release));
    let by_alignment = stack_around(items, pins);
    items.sort_unstable_by_key(|item| (item.stacked.release, Reverse(item.stacked.alignment)));
    by_alignment.min(stack_around(items, pins))
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::model::stacking::tests::{every_order, random_items};
    use crate::solvers::minimalloc::sections::top_around;

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

    /// Every placement of the items on their alignment lattices (at or above their releases,
    /// below `limit`) that overlaps neither another item nor a pin: the least top, from the
    /// definition.
    fn grid_around(items: &[Item], pins: &[Obstacle], limit: u64) -> u64 {
        let stacked: Vec<stacking::Item> = items.iter().map(|i| i.stacked).collect();
        let fixed: Vec<(u64, u64)> = pins.iter().map(|p| (p.offset, p.top)).collect();
        stacking::tests::grid_around(&stacked, &fixed, limit)
    }

    /// Around pinned ranges the programme finds the least top of every placement that avoids
    /// them (holes below a pin that an item's size or alignment cannot use are lost), and the
    /// section total bound around the same pins ([`top_around`]) never passes it.
    #[test]
    fn the_programme_around_pins_agrees_with_the_grid() {
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        let mut stacker = Stacker::default();
        let mut lifted = 0;
        for _ in 0..400 {
            let k = rng.random_range(1..=3);
            let items: Vec<Item> = random_items(&mut rng, k, true)
                .into_iter()
                .zip(0..)
                .map(|(stacked, rank)| Item { rank, stacked })
                .collect();
            let mut pins = Vec::new();
            let mut at = 0;
            for _ in 0..rng.random_range(0..=3) {
                let offset = at + rng.random_range(0..40);
                let top = offset + rng.random_range(1..20);
                pins.push(Obstacle { offset, top });
                at = top;
            }
            let limit =
                items.iter().map(|i| i.stacked.release + i.stacked.size + i.stacked.alignment).sum::<u64>() + at + 50;
            let least = stacker.least_top_around(&items, &pins, u64::MAX);
            let expected = grid_around(&items, &pins, limit);
            assert_eq!(least, expected, "{items:?} around {pins:?}");
            // Cut off below the least top, it answers a top above the cutoff and no higher.
            assert_eq!(stacker.least_top_around(&items, &pins, least), least);
            for cutoff in [least.saturating_sub(1), least / 2] {
                let passed = stacker.least_top_around(&items, &pins, cutoff);
                assert!(passed > cutoff && passed <= least, "{passed} for cutoff {cutoff}, least {least}");
            }
            if least > every_order(&items) {
                lifted += 1;
            }
            let total: u64 = items.iter().map(|i| i.stacked.size).sum();
            let release = items.iter().map(|i| i.stacked.release).min().unwrap_or(0);
            let top = top_around(&pins, release, total);
            assert!(top <= least, "{top} above {least}: {items:?} around {pins:?}");
        }
        assert!(lifted > 20, "pins rarely mattered ({lifted}): the test sees too little");
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
