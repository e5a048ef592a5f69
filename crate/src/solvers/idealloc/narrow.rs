//! The squeeze's placements with addresses stored as u32: the sets of
//! [`crate::occupancy::Routes`], as [`crate::occupancy::RoutedSets`] keeps them, in half the bytes.
//!
//! On 2·10^6-buffer traces the interval sets of the concurrent squeezes were most of the solve's
//! heap, and reading them most of a squeeze's time. Every address of a plan whose makespan stays
//! below 4 GiB fits in u32, and a squeeze against a bound at or below 2^32 never records a higher
//! one (it gives up first); the squeeze falls back to the u64 sets only when a top would pass
//! [`LIMIT`]. The answers are those of the u64 sets for the same placements: the addresses are
//! the same, only stored narrower.

use crate::alignment::align_up;

/// The highest address these sets record.
pub const LIMIT: u64 = u32::MAX as u64;

/// An address interval `[low, high)`.
type Interval = (u32, u32);

/// Sets up to this long are searched by a count, whose comparisons do not wait on each other as
/// a binary search's do (the sets near the forest's roots hold about a hundred intervals).
const LINEAR: usize = 128;

/// The smallest block in the pool: sets that outgrow their inline interval usually stay below four.
const FIRST_CLASS: u32 = 2;

/// How many leading intervals satisfy `below` (true on a prefix).
#[inline]
fn rank(items: &[Interval], below: impl Fn(&Interval) -> bool) -> usize {
    if items.len() <= LINEAR {
        items.iter().map(|item| below(item) as usize).sum()
    } else {
        items.partition_point(below)
    }
}

/// One set of disjoint intervals, sorted, merged on insertion (touching ones too). One interval
/// stays inline; more live in a block of the shared [`Pool`], whose capacity class (`1 << class`
/// intervals) is then kept in the unused inline slot: 16 bytes a set.
#[derive(Clone, Copy, Debug, Default)]
struct Set {
    /// The only interval while `len <= 1`; `(class, 0)` of the block once `len > 1`.
    inline: Interval,
    block: u32,
    len: u32,
}

/// The blocks of every set longer than one interval, by power-of-two capacity, with free lists.
#[derive(Debug, Default)]
struct Pool {
    intervals: Vec<Interval>,
    free: Vec<Vec<u32>>,
}

impl Pool {
    fn alloc(&mut self, class: u32) -> u32 {
        if let Some(block) = self.free.get_mut(class as usize).and_then(Vec::pop) {
            return block;
        }
        let block = self.intervals.len();
        let needed = 1usize << class;
        if self.intervals.capacity() - block < needed {
            // An eighth more at a time rather than double: the pool is most of the index.
            self.intervals.reserve_exact(needed.max(block / 8));
        }
        self.intervals.resize(block + needed, (0, 0));
        u32::try_from(block).expect("interval pool below 2^32 entries")
    }

    fn release(&mut self, block: u32, class: u32) {
        if self.free.len() <= class as usize {
            self.free.resize(class as usize + 1, Vec::new());
        }
        self.free[class as usize].push(block);
    }
}

impl Set {
    #[inline]
    fn view<'a>(&'a self, pool: &'a Pool) -> &'a [Interval] {
        if self.len <= 1 {
            &std::slice::from_ref(&self.inline)[..self.len as usize]
        } else {
            &pool.intervals[self.block as usize..][..self.len as usize]
        }
    }

    /// `Err((end, next))` of an interval meeting `[low, high)` and the start of the one after it,
    /// else `Ok` with the start of the first interval at or above `high` (`u64::MAX`: none).
    #[inline]
    fn probe(&self, pool: &Pool, low: u64, high: u64) -> Result<u64, (u64, u64)> {
        let items = self.view(pool);
        let below = rank(items, |&(s, _)| (s as u64) < high);
        let next = items.get(below).map_or(u64::MAX, |&(s, _)| s as u64);
        match below.checked_sub(1).map(|i| items[i].1 as u64) {
            Some(e) if e > low => Err((e, next)),
            _ => Ok(next),
        }
    }

    /// Adds `[low, high)`.
    fn insert(&mut self, pool: &mut Pool, low: u32, high: u32) {
        let len = self.len as usize;
        let items = self.view(pool);
        // Intervals [first, last) overlap or touch [low, high].
        let last = rank(items, |&(s, _)| s <= high);
        let first = rank(&items[..last], |&(_, e)| e < low);
        if first < last {
            let merged = (low.min(items[first].0), high.max(items[last - 1].1));
            if len == 1 {
                self.inline = merged;
            } else {
                let block = &mut pool.intervals[self.block as usize..][..len];
                block[first] = merged;
                if last > first + 1 {
                    block.copy_within(last.., first + 1);
                    self.len -= (last - first - 1) as u32;
                    if self.len == 1 {
                        // Back inline: the block is free again.
                        let class = self.inline.0;
                        pool.release(self.block, class);
                        self.inline = merged;
                    }
                }
            }
            return;
        }
        match len {
            0 => {
                self.inline = (low, high);
                self.len = 1;
            }
            1 => {
                let block = pool.alloc(FIRST_CLASS);
                let pair = if first == 0 { [(low, high), self.inline] } else { [self.inline, (low, high)] };
                pool.intervals[block as usize..][..2].copy_from_slice(&pair);
                *self = Set { inline: (FIRST_CLASS, 0), block, len: 2 };
            }
            _ => {
                let class = self.inline.0;
                if len == 1 << class {
                    let old = self.block;
                    let block = pool.alloc(class + 1);
                    pool.intervals.copy_within(old as usize..old as usize + len, block as usize);
                    pool.release(old, class);
                    self.block = block;
                    self.inline.0 = class + 1;
                }
                let block = &mut pool.intervals[self.block as usize..][..len + 1];
                block.copy_within(first..len, first + 1);
                block[first] = (low, high);
                self.len += 1;
            }
        }
    }
}

/// Interval sets named by set ids (those of one [`crate::occupancy::Routes`]), addresses below
/// [`LIMIT`].
#[derive(Debug, Default)]
pub struct NarrowSets {
    sets: Vec<Set>,
    pool: Pool,
}

impl NarrowSets {
    /// `count` empty sets.
    pub fn new(count: usize) -> Self {
        NarrowSets { sets: vec![Set::default(); count], pool: Pool::default() }
    }

    /// Records `[low, high)` in each of the sets `ids`; `high` must be at most [`LIMIT`].
    pub fn insert(&mut self, ids: impl Iterator<Item = u32>, low: u64, high: u64) {
        let (low, high) = (
            u32::try_from(low).expect("an address below the narrow limit"),
            u32::try_from(high).expect("an address below the narrow limit"),
        );
        for id in ids {
            self.sets[id as usize].insert(&mut self.pool, low, high);
        }
    }

    /// True when some address in `[low, high)` is taken in one of the sets `reads`.
    pub fn is_taken(&self, reads: &[u32], low: u64, high: u64) -> bool {
        reads.iter().any(|&id| self.sets[id as usize].probe(&self.pool, low, high).is_err())
    }

    /// The lowest `offset >= floor`, a multiple of `alignment`, with `[offset, offset + size)`
    /// free in every set of `reads`, or `None` past u64.
    ///
    /// The sets are asked in turn, round and round, until all of them in a row let the candidate
    /// pass (a jump to the end of a blocking interval never passes a free offset, so the order
    /// does not change the answer). A set that lets a candidate pass also says where its next
    /// interval starts: it is not searched again until a candidate's top passes that.
    pub fn lowest_fit_from(&self, reads: &[u32], size: u64, alignment: u64, floor: u64) -> Option<u64> {
        let mut offset = align_up(floor, alignment)?;
        let mut top = offset.checked_add(size)?;
        let mut inline = [0u64; 64];
        let mut spilled = Vec::new();
        let free_until: &mut [u64] = if reads.len() <= inline.len() {
            &mut inline[..reads.len()]
        } else {
            spilled.resize(reads.len(), 0);
            &mut spilled
        };
        let (mut k, mut passed) = (0, 0);
        while passed < reads.len() {
            if free_until[k] >= top {
                passed += 1;
            } else {
                match self.sets[reads[k] as usize].probe(&self.pool, offset, top) {
                    Err((end, next)) => {
                        offset = align_up(end, alignment)?;
                        top = offset.checked_add(size)?;
                        free_until[k] = next;
                        passed = 0;
                    }
                    Ok(next) => {
                        free_until[k] = next;
                        passed += 1;
                    }
                }
            }
            k += 1;
            if k == reads.len() {
                k = 0;
            }
        }
        Some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::Occupancy;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// Along the routes of random lifetimes, first-fit placements at random sizes,
        /// alignments and floors get the answers of the u64 routed sets (addresses up to the
        /// narrow limit, so that the blocks grow, shrink back inline and are reused).
        #[test]
        fn narrow_sets_answer_as_the_u64_sets(
            raw in prop::collection::vec((0u64..200, 1u64..30, 0u64..4, 1u64..40, 0u32..4, any::<bool>()), 1..200),
            high in any::<bool>(),
        ) {
            let lifetimes: Vec<(u64, u64)> =
                raw.iter().map(|&(s, l, long, ..)| (s, s + if long == 0 { l * 10 } else { l })).collect();
            let routes = Occupancy::new(lifetimes.iter().copied()).routes();
            let mut wide = routes.sets();
            let mut narrow = NarrowSets::new(routes.readers().len());
            let base = if high { LIMIT - 2000 } else { 0 };
            for (step, &(_, _, _, size, align, low_floor)) in raw.iter().enumerate() {
                let (reads, writes) = routes.route(step);
                let floor = if low_floor { base } else { base + (step as u64 * 7) % 50 };
                let expected = wide.lowest_fit_from(reads, size, 1 << align, floor);
                prop_assert_eq!(narrow.lowest_fit_from(reads, size, 1 << align, floor), expected);
                let offset = expected.unwrap();
                let top = offset + size;
                prop_assert_eq!(narrow.is_taken(reads, base, top), wide.is_taken(reads, base, top));
                if top > LIMIT {
                    continue;
                }
                wide.insert(writes.iter().copied(), offset, top);
                narrow.insert(writes.iter().copied(), offset, top);
                // Every few steps a wide placement merges many intervals into one.
                if step % 17 == 16 {
                    wide.insert(writes.iter().copied(), base, top);
                    narrow.insert(writes.iter().copied(), base, top);
                }
            }
        }
    }

    #[test]
    fn sets_merge_touching_intervals_and_shrink_back_inline() {
        let mut pool = Pool::default();
        let mut set = Set::default();
        for (low, high) in [(10, 20), (30, 40), (50, 60), (0, 2), (70, 80), (64, 66)] {
            set.insert(&mut pool, low, high);
        }
        assert_eq!(set.view(&pool), &[(0, 2), (10, 20), (30, 40), (50, 60), (64, 66), (70, 80)]);
        set.insert(&mut pool, 20, 30);
        assert_eq!(set.view(&pool), &[(0, 2), (10, 40), (50, 60), (64, 66), (70, 80)]);
        assert_eq!(set.probe(&pool, 40, 50), Ok(50));
        assert_eq!(set.probe(&pool, 39, 50), Err((40, 50)));
        set.insert(&mut pool, 0, 100);
        assert_eq!(set.view(&pool), &[(0, 100)]);
        assert_eq!(set.len, 1, "inline again");
        // The freed block (of class 3) is reused by the next set that needs one that large.
        let mut other = Set::default();
        for k in 0..5 {
            other.insert(&mut pool, 10 * k, 10 * k + 1);
        }
        assert_eq!(other.inline.0, 3);
        assert!(pool.intervals.len() <= 4 + 8 + 8, "{} intervals", pool.intervals.len());
    }
}
