//! Which addresses are taken at some time during a lifetime, without visiting every placed buffer.
//!
//! A segment tree over the elementary time intervals. A placed buffer is recorded at the O(log n)
//! canonical nodes that tile its lifetime (`own`), and in the subtree union of those nodes and their
//! ancestors (`below`). The addresses taken during a lifetime are then the union of `below` of the
//! lifetime's canonical nodes and `own` of their proper ancestors: O(log n) coalesced interval sets
//! instead of every overlapping buffer (Y_1 has 180 million overlapping pairs). A buffer overlapping
//! the lifetime is recorded at a node that shares a leaf with one of its canonical nodes, so at a
//! descendant (in `below`) or an ancestor (in `own`) of it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Disjoint address intervals `[low, high)`, sorted and merged on insertion (touching ones too).
/// A sorted vector, not a tree: the sets are small (on Y_1 and 10^6-buffer traces the median holds
/// 1–4 intervals, the largest a few hundred), and binary search over a flat array beats pointer
/// chasing and a node allocation per set.
#[derive(Clone, Debug, Default)]
struct IntervalSet {
    intervals: Vec<(u64, u64)>,
}

impl IntervalSet {
    fn insert(&mut self, low: u64, high: u64) {
        // Intervals [first, last) overlap or touch [low, high]: they start at or below `high`
        // and end at or above `low` (ends are sorted too, as the intervals are disjoint).
        let last = self.intervals.partition_point(|&(s, _)| s <= high);
        let first = self.intervals[..last].partition_point(|&(_, e)| e < low);
        if first == last {
            self.intervals.insert(first, (low, high));
            return;
        }
        let merged = (low.min(self.intervals[first].0), high.max(self.intervals[last - 1].1));
        self.intervals[first] = merged;
        self.intervals.drain(first + 1..last);
    }

    /// The end of an interval meeting `[low, high)`, if any (the last one starting below `high`).
    fn blocking(&self, low: u64, high: u64) -> Option<u64> {
        let below = self.intervals.partition_point(|&(s, _)| s < high);
        match below.checked_sub(1).map(|i| self.intervals[i]) {
            Some((_, e)) if e > low => Some(e),
            _ => None,
        }
    }

    /// `Err(end)` of an interval meeting `[low, high)`, else `Ok` with the start of the first
    /// interval at or above `high` (`u64::MAX` when there is none).
    fn probe(&self, low: u64, high: u64) -> Result<u64, u64> {
        let below = self.intervals.partition_point(|&(s, _)| s < high);
        match below.checked_sub(1).map(|i| self.intervals[i]) {
            Some((_, e)) if e > low => Err(e),
            _ => Ok(self.intervals.get(below).map_or(u64::MAX, |&(s, _)| s)),
        }
    }

    fn highest(&self) -> u64 {
        self.intervals.last().map_or(0, |&(_, e)| e)
    }
}

/// The placed buffers, indexed by time for address queries over a lifetime.
pub struct Occupancy {
    /// Distinct lifetime endpoints; leaf `i` is the time interval `[times[i], times[i + 1])`.
    times: Vec<u64>,
    /// Number of leaves, a power of two; node `1` is the root, leaf `i` is node `leaves + i`.
    leaves: usize,
    /// Per node: index into `sets` of its own / subtree set, 0 when empty (sets are made lazily so
    /// that a million buffers cost two u32 per node, not two maps).
    own: Vec<u32>,
    below: Vec<u32>,
    sets: Vec<IntervalSet>,
    /// Scratch list of nodes for `insert`, kept to save an allocation per buffer.
    nodes: Vec<(usize, bool)>,
}

/// The sets to consult for one lifetime. Reuse one across buffers ([`Occupancy::query_into`]) to
/// save an allocation per buffer.
#[derive(Default)]
pub struct Query {
    sets: Vec<u32>,
}

impl Occupancy {
    /// An empty index for lifetimes whose endpoints are among `lifetimes`.
    pub fn new(lifetimes: impl Iterator<Item = (u64, u64)>) -> Self {
        let mut times: Vec<u64> = lifetimes.flat_map(|(s, e)| [s, e]).collect();
        times.sort_unstable();
        times.dedup();
        let leaves = times.len().saturating_sub(1).max(1).next_power_of_two();
        Occupancy {
            times,
            leaves,
            own: vec![0; 2 * leaves],
            below: vec![0; 2 * leaves],
            sets: vec![IntervalSet::default()],
            nodes: Vec::new(),
        }
    }

    /// Leaf range `[first, last)` of a lifetime. Its endpoints must have been given to `new`.
    fn leaves_of(&self, start: u64, end: u64) -> (usize, usize) {
        let first = self.times.partition_point(|&t| t < start);
        let last = self.times.partition_point(|&t| t < end);
        (first, last)
    }

    /// Calls `visit(node, canonical)` for every node to touch for the lifetime: the canonical
    /// nodes tiling it (`true`), and the nodes that overlap it only in part (`false`), which are
    /// exactly the proper ancestors of the canonical nodes.
    fn for_each_node(&self, start: u64, end: u64, mut visit: impl FnMut(usize, bool)) {
        let (first, last) = self.leaves_of(start, end);
        debug_assert!(first < last, "empty lifetime");
        let (low, high) = (first + self.leaves, last + self.leaves);
        let (mut l, mut h) = (low, high);
        while l < h {
            if l & 1 == 1 {
                visit(l, true);
                l += 1;
            }
            if h & 1 == 1 {
                h -= 1;
                visit(h, true);
            }
            l >>= 1;
            h >>= 1;
        }
        // Node `low >> level` overlaps in part unless `low` is its first leaf; the same on the
        // right with `high`. When both name one node, visit it once.
        let levels = self.leaves.trailing_zeros();
        for level in 1..=levels {
            let left = (low >> level != 0 && (low >> level) << level != low).then_some(low >> level);
            let right = ((high >> level) << level != high).then_some((high - 1) >> level);
            if let Some(node) = left {
                visit(node, false);
            }
            if let Some(node) = right
                && Some(node) != left
            {
                visit(node, false);
            }
        }
    }

    fn set_of(&mut self, slot: SetSlot, node: usize) -> &mut IntervalSet {
        let table = match slot {
            SetSlot::Own => &mut self.own,
            SetSlot::Below => &mut self.below,
        };
        if table[node] == 0 {
            table[node] = self.sets.len() as u32;
            self.sets.push(IntervalSet::default());
        }
        let index = table[node] as usize;
        &mut self.sets[index]
    }

    /// Forgets every placement, keeping the allocated sets for the next round of placements (the
    /// idealloc squeeze runs first fit many times over the same lifetimes).
    pub fn clear(&mut self) {
        for set in &mut self.sets {
            set.intervals.clear();
        }
    }

    /// Records addresses `[low, high)` as taken during `[start, end)`.
    pub fn insert(&mut self, start: u64, end: u64, low: u64, high: u64) {
        let mut nodes = std::mem::take(&mut self.nodes);
        nodes.clear();
        self.for_each_node(start, end, |node, canonical| nodes.push((node, canonical)));
        for &(node, canonical) in &nodes {
            if canonical {
                self.set_of(SetSlot::Own, node).insert(low, high);
            }
            self.set_of(SetSlot::Below, node).insert(low, high);
        }
        self.nodes = nodes;
    }

    /// The sets that together hold every address taken at some time in `[start, end)`.
    pub fn query(&self, start: u64, end: u64) -> Query {
        let mut query = Query::default();
        self.query_into(start, end, &mut query);
        query
    }

    /// [`Occupancy::query`] into an existing `Query`, reusing its storage.
    pub fn query_into(&self, start: u64, end: u64, query: &mut Query) {
        query.sets.clear();
        self.for_each_node(start, end, |node, canonical| {
            let set = if canonical { self.below[node] } else { self.own[node] };
            if set != 0 {
                query.sets.push(set);
            }
        });
    }

    /// The lowest `offset >= 0`, a multiple of `alignment`, with `[offset, offset + size)` free.
    /// `None` when it would pass u64.
    ///
    /// Each set that lets a candidate pass also says where its next interval starts; it cannot
    /// block any higher candidate whose top stays below that, so after a jump only the sets whose
    /// next interval is now in reach are searched again (not every set, as a plain round robin
    /// would).
    pub fn lowest_fit(&self, query: &Query, size: u64, alignment: u64) -> Option<u64> {
        let sets = &query.sets;
        if sets.is_empty() {
            return Some(0);
        }
        // Per set: addresses below this are free of it above the candidate (0: not asked yet).
        let mut inline = [0u64; 64];
        let mut spilled = Vec::new();
        let free_until: &mut [u64] = if sets.len() <= inline.len() {
            &mut inline[..sets.len()]
        } else {
            spilled.resize(sets.len(), 0);
            &mut spilled
        };
        let mut offset = 0u64;
        'candidate: loop {
            let top = offset.checked_add(size)?;
            for (k, &set) in sets.iter().enumerate() {
                if free_until[k] >= top {
                    continue;
                }
                match self.sets[set as usize].probe(offset, top) {
                    Err(end) => {
                        offset = align_up(end, alignment)?;
                        continue 'candidate;
                    }
                    Ok(next_start) => free_until[k] = next_start,
                }
            }
            return Some(offset);
        }
    }

    /// True when some address in `[low, high)` is taken during the lifetime.
    pub fn is_taken(&self, query: &Query, low: u64, high: u64) -> bool {
        query.sets.iter().any(|&set| self.sets[set as usize].blocking(low, high).is_some())
    }

    /// Every free gap `[low, high)` in address order; the last is `[low, None)`, open above.
    /// A k-way merge of the sets' intervals by start: O(intervals × log sets).
    pub fn gaps(&self, query: &Query, mut visit: impl FnMut(u64, Option<u64>)) {
        let mut cursors: Vec<_> = query.sets.iter().map(|&set| self.sets[set as usize].intervals.iter()).collect();
        let mut heads: BinaryHeap<Reverse<(u64, u64, usize)>> = BinaryHeap::with_capacity(cursors.len());
        for (k, cursor) in cursors.iter_mut().enumerate() {
            if let Some(&(low, high)) = cursor.next() {
                heads.push(Reverse((low, high, k)));
            }
        }
        let mut covered = 0u64;
        while let Some(Reverse((low, high, k))) = heads.pop() {
            if low > covered {
                visit(covered, Some(low));
            }
            covered = covered.max(high);
            if let Some(&(low, high)) = cursors[k].next() {
                heads.push(Reverse((low, high, k)));
            }
        }
        visit(covered, None);
    }

    /// The highest address taken during the lifetime (0 when nothing is).
    pub fn highest(&self, query: &Query) -> u64 {
        query.sets.iter().map(|&set| self.sets[set as usize].highest()).max().unwrap_or(0)
    }
}

#[derive(Clone, Copy)]
enum SetSlot {
    Own,
    Below,
}

/// The smallest multiple of `alignment` at or above `value`, or `None` past u64.
pub fn align_up(value: u64, alignment: u64) -> Option<u64> {
    // Alignments are powers of two in practice (1 most of all): a mask, not a division, in the
    // first-fit loop.
    if alignment.is_power_of_two() {
        return value.checked_add(alignment - 1).map(|v| v & !(alignment - 1));
    }
    match value % alignment {
        0 => Some(value),
        rest => value.checked_add(alignment - rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_set_merges_overlapping_and_touching() {
        let mut set = IntervalSet::default();
        set.insert(10, 20);
        set.insert(30, 40);
        set.insert(20, 25);
        assert_eq!(set.intervals, vec![(10, 25), (30, 40)]);
        set.insert(50, 60);
        set.insert(0, 2);
        assert_eq!(set.intervals, vec![(0, 2), (10, 25), (30, 40), (50, 60)]);
        set.insert(5, 35);
        assert_eq!(set.intervals, vec![(0, 2), (5, 40), (50, 60)]);
        assert_eq!(set.blocking(0, 1), Some(2));
        assert_eq!(set.blocking(2, 5), None);
        assert_eq!(set.blocking(2, 6), Some(40));
        assert_eq!(set.blocking(40, 50), None);
        assert_eq!(set.blocking(40, 51), Some(60));
    }

    /// Against a direct scan of placed rectangles, on every lifetime of a small grid.
    #[test]
    fn queries_see_exactly_the_overlapping_placements() {
        let placed = [(0u64, 3u64, 0u64, 4u64), (2, 6, 4, 6), (5, 9, 0, 2), (7, 8, 10, 12), (1, 2, 20, 21)];
        let mut endpoints: Vec<(u64, u64)> = placed.iter().map(|&(s, e, _, _)| (s, e)).collect();
        for s in 0..9 {
            for e in s + 1..=9 {
                endpoints.push((s, e));
            }
        }
        let mut occupancy = Occupancy::new(endpoints.iter().copied());
        for &(s, e, low, high) in &placed {
            occupancy.insert(s, e, low, high);
        }
        for s in 0..9u64 {
            for e in s + 1..=9u64 {
                let query = occupancy.query(s, e);
                for size in 1..5u64 {
                    let expected = (0..)
                        .find(|&x| {
                            placed.iter().all(|&(ps, pe, low, high)| !(ps < e && s < pe && low < x + size && x < high))
                        })
                        .unwrap();
                    assert_eq!(occupancy.lowest_fit(&query, size, 1), Some(expected), "[{s},{e}) size {size}");
                }
                let expected_top =
                    placed.iter().filter(|&&(ps, pe, _, _)| ps < e && s < pe).map(|p| p.3).max().unwrap_or(0);
                assert_eq!(occupancy.highest(&query), expected_top);
            }
        }
    }
}
