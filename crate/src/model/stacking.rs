//! The stacking bound: what the buffers alive at one time need when each must start at a multiple
//! of its alignment, and the exact programme that computes it, shared by the instance's bound
//! (here) and MiniMalloc's search nodes ([`crate::solvers::minimalloc`]'s `stacks`).
//!
//! At one time the buffers alive there form a one-dimensional packing: disjoint address ranges,
//! each starting at a multiple of its buffer's alignment and no lower than its release (0 for the
//! instance's bound; inside a search node, the lowest offset the buffer can still take). Sorted by
//! offset, every such packing can be pushed down so that each buffer starts at the lowest multiple
//! of its alignment at or above both the top of the one below it and its release; the top never
//! rises. So the least top over every packing is the least over every order of that greedy
//! stacking, and a dynamic programme over the subsets stacked so far finds it exactly (a lower top
//! of a subset is never worse for what comes after: rounding up and taking a maximum are
//! monotone). That least top bounds every plan's makespan from below. On random aligned instances
//! (20 to 30 buffers, alignments up to 4,096, sizes not multiples of them) it is the
//! optimum on most of them, where L and the slot count of [`super::problem::alignment_bound`] fall
//! short by tens or hundreds of bytes.
//!
//! The programme costs `2^k · k` for `k` buffers alive together, so it runs on at most
//! [`MAX_STACKED`] of them (a subset of the buffers alive still bounds: dropping buffers only
//! relaxes), only at times whose live set is maximal, only where a stacking could beat the bound
//! already known, and within [`WORK`] steps over the whole instance, so that building a problem of
//! millions of buffers stays a sweep.

use std::borrow::Borrow;

use super::Buffer;
use crate::alignment::align_up;

/// The most buffers one stacking looks at: `2^14` subsets.
pub(crate) const MAX_STACKED: usize = 14;

/// The most subset steps (subsets times buffers) over every time of one instance.
const WORK: u64 = 1 << 23;

/// Above this many buffers alive at once a time is not looked at: a subset of
/// [`MAX_STACKED`] of them would rarely bound anything, and copying the live set costs.
const MAX_ALIVE: usize = 64;

/// How many times (their live sets) are kept for the programme: those that could raise the bound
/// most.
const MAX_TIMES: usize = 256;

/// One buffer to stack: its size, its alignment and its release (the lowest offset it may take).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub size: u64,
    pub alignment: u64,
    pub release: u64,
}

impl Item {
    /// An item free to start anywhere (release 0), as at one time of the instance.
    pub(crate) fn new(size: u64, alignment: u64) -> Item {
        Item { size, alignment, release: 0 }
    }

    /// Where this buffer ends when stacked on `below`: the lowest multiple of its alignment at or
    /// above both `below` and its release, plus its size (`u64::MAX` past the address space, so a
    /// top past u64 reads as `u64::MAX`).
    #[inline]
    pub(crate) fn ends_on(&self, below: u64) -> u64 {
        align_up(below.max(self.release), self.alignment)
            .and_then(|start| start.checked_add(self.size))
            .unwrap_or(u64::MAX)
    }
}

impl From<&Buffer> for Item {
    fn from(buffer: &Buffer) -> Item {
        Item::new(buffer.size, buffer.alignment())
    }
}

/// The top of `items` stacked in the order given, each on the one before ([`Item::ends_on`]): some
/// stacking's top, so at least the least one.
pub(crate) fn stack_in_order<T: Borrow<Item>>(items: &[T]) -> u64 {
    items.iter().fold(0, |top, item| item.borrow().ends_on(top))
}

/// The subset programme (see the module's doc) with its scratch space, kept between runs: MiniMalloc
/// runs it at many search nodes.
#[derive(Debug, Default)]
pub(crate) struct Programme {
    /// The least top of each subset stacked so far (`u64::MAX`: not reached yet).
    top: Vec<u64>,
}

impl Programme {
    /// The least top of `items` stacked in one column, each at a multiple of its alignment at or
    /// above its release: the exact one-dimensional optimum (`u64::MAX` when it is past u64).
    /// `None` for more than [`MAX_STACKED`] items. `T` is an [`Item`] or a caller's item that
    /// carries one (the search's carries its buffer's rank for its cache).
    pub(crate) fn least_top<T: Borrow<Item>>(&mut self, items: &[T]) -> Option<u64> {
        if items.len() > MAX_STACKED {
            return None;
        }
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
                    let reached = item.borrow().ends_on(below);
                    let slot = &mut self.top[set | bit];
                    *slot = (*slot).min(reached);
                }
            }
        }
        Some(self.top[full - 1])
    }
}

/// [`Programme::least_top`] with scratch space of its own, for a single run (the tests' entry).
#[cfg(test)]
pub(crate) fn least_stack(items: &[Item]) -> Option<u64> {
    Programme::default().least_top(items)
}

/// A top that some order reaches: largest alignment first, each at the lowest multiple of its
/// alignment above the one before. At least the least stack, so a time whose greedy top does not
/// beat the known bound cannot raise it.
fn some_stack(items: &mut [Item]) -> u64 {
    items.sort_unstable_by(|a, b| b.alignment.cmp(&a.alignment).then(b.size.cmp(&a.size)));
    stack_in_order(items)
}

/// Calls `visit` with every maximal set of buffers (indices) alive together: the live set just
/// before a buffer ends, when buffers started since the last end. Only a buffer's pieces with its
/// whole size count (not its gaps or windows), and zero-size buffers not at all. Every set of
/// buffers alive at one time is within one of these. `visit` also gets the set's sizes plus its
/// alignments less one each, summed: no stacking of the set ends above that, so a caller can
/// skip a set in O(1).
pub(crate) fn for_each_maximal_live_set(buffers: &[Buffer], mut visit: impl FnMut(&[usize], u128)) {
    // (time, is_start, index): ends before starts at one time, as `[start, end)` asks.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(buffers.len() * 2);
    for (i, b) in buffers.iter().enumerate().filter(|(_, b)| b.size > 0) {
        for piece in b.pieces().into_iter().filter(|p| p.height() == b.size) {
            events.push((piece.start, true, i));
            events.push((piece.end, false, i));
        }
    }
    events.sort_unstable();
    // The live set, with each buffer's place in it for removal in O(1).
    let mut alive: Vec<usize> = Vec::new();
    let mut place = vec![usize::MAX; buffers.len()];
    let mut grew = false;
    let mut most: u128 = 0;
    for &(_, is_start, i) in &events {
        let most_of_i = buffers[i].size as u128 + (buffers[i].alignment() - 1) as u128;
        if is_start {
            place[i] = alive.len();
            alive.push(i);
            most += most_of_i;
            grew = true;
        } else {
            if grew {
                visit(&alive, most);
                grew = false;
            }
            most -= most_of_i;
            let at = place[i];
            alive.swap_remove(at);
            if let Some(&moved) = alive.get(at) {
                place[moved] = at;
            }
        }
    }
}

/// The stacking bound of `buffers` (see the module's doc), or `known` when it is no higher. Only a
/// buffer's pieces with its whole size count (not its gaps or windows), which only weakens it.
pub(crate) fn stacking_bound(buffers: &[Buffer], known: u64) -> u64 {
    if !buffers.iter().any(|b| b.alignment() > 1 && b.size > 0) {
        return known;
    }
    // (greedy top, live set) of the maximal live sets that could raise the bound.
    let mut times: Vec<(u64, Vec<Item>)> = Vec::new();
    for_each_maximal_live_set(buffers, |alive, most| {
        if most <= known as u128 || alive.len() > MAX_ALIVE || !alive.iter().any(|&i| buffers[i].alignment() > 1) {
            return;
        }
        let mut items: Vec<Item> = alive.iter().map(|&i| Item::from(&buffers[i])).collect();
        if items.len() > MAX_STACKED {
            // The largest alignments (their padding is what the bound is about), then sizes.
            items.sort_unstable_by(|a, b| b.alignment.cmp(&a.alignment).then(b.size.cmp(&a.size)));
            items.truncate(MAX_STACKED);
        }
        let greedy = some_stack(&mut items);
        if greedy > known {
            times.push((greedy, items));
            if times.len() >= 2 * MAX_TIMES {
                times.sort_by_key(|time| std::cmp::Reverse(time.0));
                times.truncate(MAX_TIMES);
            }
        }
    });
    times.sort_by_key(|time| std::cmp::Reverse(time.0));
    let mut best = known;
    let mut work = 0u64;
    let mut programme = Programme::default();
    for (greedy, items) in &times {
        if *greedy <= best {
            break; // sorted: no later time can raise it either
        }
        let cost = (1u64 << items.len()) * items.len() as u64;
        if work + cost > WORK {
            break;
        }
        work += cost;
        if let Some(least) = programme.least_top(items) {
            best = best.max(least);
        }
    }
    best
}

#[cfg(test)]
pub(crate) mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Every order of the items, stacked greedily: the oracle the programme must agree with.
    pub(crate) fn every_order<T: Borrow<Item>>(items: &[T]) -> u64 {
        fn walk<T: Borrow<Item>>(items: &[T], used: &mut Vec<bool>, top: u64, best: &mut u64) {
            if used.iter().all(|&u| u) {
                *best = (*best).min(top);
                return;
            }
            for i in 0..items.len() {
                if !used[i] {
                    used[i] = true;
                    walk(items, used, items[i].borrow().ends_on(top), best);
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
        grid_around(items, &[], limit)
    }

    /// [`grid`] around fixed ranges `[low, high)` (pinned buffers) that no item may overlap; the
    /// top counts the items only (the ranges may stand above it).
    pub(crate) fn grid_around(items: &[Item], fixed: &[(u64, u64)], limit: u64) -> u64 {
        fn walk(items: &[Item], k: usize, limit: u64, placed: &mut Vec<(u64, u64)>, best: &mut u64) {
            if k == items.len() {
                let ends = placed[placed.len() - k..].iter().map(|p| p.1);
                *best = (*best).min(ends.max().unwrap_or(0));
                return;
            }
            let item = items[k];
            let mut offset = align_up(item.release, item.alignment).unwrap();
            // A placement ending at or above the best top found cannot lower it.
            while offset + item.size <= limit && offset + item.size < *best {
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
        let mut placed = fixed.to_vec();
        walk(items, 0, limit, &mut placed, &mut best);
        best
    }

    /// `k` random items: sizes 1 to 40, alignments 1 to 32, and half of them released at 0 (all
    /// when `released` is false).
    pub(crate) fn random_items(rng: &mut ChaCha8Rng, k: usize, released: bool) -> Vec<Item> {
        (0..k)
            .map(|_| Item {
                size: rng.random_range(1..=40),
                alignment: [1, 2, 4, 8, 16, 32][rng.random_range(0..6)],
                release: if released && rng.random_bool(0.5) { rng.random_range(0..50) } else { 0 },
            })
            .collect()
    }

    #[test]
    fn the_programme_agrees_with_every_order_and_the_grid() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        // One programme for every round: its scratch space is reused across sizes.
        let mut programme = Programme::default();
        for round in 0..600 {
            // Even rounds as at one time of the instance (release 0), odd ones with releases.
            let k = rng.random_range(1..=6);
            let items = random_items(&mut rng, k, round % 2 == 1);
            let least = every_order(&items);
            assert_eq!(programme.least_top(&items), Some(least), "{items:?}");
            assert_eq!(least_stack(&items), Some(least), "{items:?}");
            if k <= 3 {
                let limit = items.iter().map(|i| i.release + i.size + i.alignment).sum::<u64>() + 50;
                assert_eq!(least, grid(&items, limit), "{items:?}");
            }
            // Some order reaches the least top, so no order is below it.
            assert!(stack_in_order(&items) >= least);
        }
    }

    /// A release below the start of an aligned slot costs nothing; one just above it costs a slot.
    #[test]
    fn releases_round_up_to_the_alignment() {
        let item = |size, alignment, release| Item { size, alignment, release };
        assert_eq!(least_stack(&[item(10, 16, 0), item(10, 16, 0)]), Some(26));
        assert_eq!(least_stack(&[item(10, 16, 1), item(10, 16, 0)]), Some(26));
        assert_eq!(least_stack(&[item(10, 16, 1), item(10, 16, 1)]), Some(42));
        // The unaligned one fills the padding of the first aligned one.
        assert_eq!(least_stack(&[item(10, 16, 0), item(10, 16, 0), item(6, 1, 0)]), Some(26));
        // Past the address space the top reads as u64::MAX.
        assert_eq!(least_stack(&[item(1, 1, u64::MAX)]), Some(u64::MAX));
        assert_eq!(least_stack(&[item(u64::MAX, 1, 0), item(1, 1, 0)]), Some(u64::MAX));
    }

    /// Two 4,096-aligned buffers of 100 bytes and a 1-aligned one of 5,000 (L = 5,200): the best
    /// stack is one aligned buffer at 0, the 5,000 above it and the other at 8,192 (top 8,292);
    /// both aligned ones first would end at 4,196 + 5,000 = 9,196.
    #[test]
    fn padding_that_no_buffer_fills_counts() {
        let items = [Item::new(100, 4096), Item::new(100, 4096), Item::new(5000, 1)];
        assert_eq!(least_stack(&items), Some(8292));
        let buffers: Vec<Buffer> = items
            .iter()
            .enumerate()
            .map(|(i, item)| Buffer::new(i.to_string(), 0, 2, item.size).with_alignment(item.alignment))
            .collect();
        assert_eq!(stacking_bound(&buffers, 5200), 8292);
        // A bound already higher is kept.
        assert_eq!(stacking_bound(&buffers, 9000), 9000);
        // Apart in time, nothing is forced.
        let apart: Vec<Buffer> = buffers
            .iter()
            .enumerate()
            .map(|(t, b)| Buffer::new(b.id.clone(), t as u64, t as u64 + 1, b.size).with_alignment(b.alignment()))
            .collect();
        assert_eq!(stacking_bound(&apart, 5000), 5000);
    }

    #[test]
    fn too_many_items_are_refused() {
        assert_eq!(least_stack(&vec![Item::new(1, 2); MAX_STACKED + 1]), None);
        assert_eq!(least_stack(&[]), Some(0));
    }
}
