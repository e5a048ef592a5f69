//! The propagation that replaces TelaMalloc's CP-SAT solver (§4, §5.2): after each placement,
//! every unplaced buffer's lowest feasible offset, wipe-outs with the placements that cause them,
//! and cross-section reasoning over the sections the placement touched.
//!
//! Everything is incremental and undoable. Placing buffer `i` only visits the buffers alive at the
//! same time as `i` (its conflicts): a lowest feasible offset can only rise, and only when `i` covers
//! it, so the others keep theirs. Cross-section reasoning looks at the sections whose free space or
//! candidate buffers changed. Every inference is sound (it never rules out a state that has a
//! completion), so a root failure proves infeasibility and an exhausted complete search does too.

use super::layout::{Interval, Layout};
use super::timeline::Timeline;
use crate::alignment::align_up;
use num_integer::gcd;

/// `offset` of a buffer not placed yet.
pub(super) const UNPLACED: u64 = u64::MAX;

/// One undoable change.
#[derive(Clone, Copy, Debug)]
enum Change {
    Placed(u32),
    Raised { buffer: u32, old: u64 },
}

/// Why a placement (or the root) failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// The buffer has no offset left within the capacity.
    WipeOut(u32),
    /// In this section the free space that the unplaced buffers can use is smaller than they need.
    Section(usize),
    /// Two pinned buffers overlap, or a pinned buffer ends above the capacity.
    Pinned(u32),
}

#[derive(Clone, Debug, Default)]
pub(super) struct PropagationStats {
    pub placements: u64,
    pub raised: u64,
    pub wipe_outs: u64,
    pub section_failures: u64,
    pub sections_checked: u64,
    /// A machine-independent measure of the propagation's effort: buffers and intervals visited.
    /// Budgets without a time limit count it, so that they stop at the same point on every run.
    pub work: u64,
}

pub(super) struct Propagator {
    pub capacity: u64,
    /// Offset of each placed buffer, [`UNPLACED`] otherwise.
    pub offset: Vec<u64>,
    /// The lowest feasible offset of each unplaced buffer given everything placed.
    pub lowest: Vec<u64>,
    /// `lowest` of the unplaced buffers and `u64::MAX` for the placed ones: the one array the
    /// common case of cross-section reasoning reads per buffer ([`Propagator::all_fit_on_top`]).
    open_lowest: Vec<u64>,
    pub layout: Layout,
    placed_load: Vec<u64>,
    trail: Vec<Change>,
    cross_section: bool,
    /// The maximum offset: no buffer will be placed below it (a search over canonical solutions
    /// places by increasing offset), so free space below it is lost. Always 0 outside tests.
    pub max_offset: u64,
    /// The placed buffers that explain the last failure.
    pub conflict: Vec<u32>,
    /// The buffers whose lowest offset the last successful placement raised.
    pub raised: Vec<u32>,
    dirty: Vec<usize>,
    dirty_mark: Vec<u32>,
    mark_now: u32,
    unplaced_here: Vec<Unplaced>,
    fill: GapFill,
    pub stats: PropagationStats,
}

impl Propagator {
    pub(super) fn new(timeline: &Timeline, capacity: u64, cross_section: bool) -> Propagator {
        Propagator {
            capacity,
            offset: vec![UNPLACED; timeline.len()],
            lowest: vec![0; timeline.len()],
            open_lowest: vec![0; timeline.len()],
            layout: Layout::new(timeline.sections()),
            placed_load: vec![0; timeline.sections()],
            trail: Vec::new(),
            cross_section,
            max_offset: 0,
            conflict: Vec::new(),
            raised: Vec::new(),
            dirty: Vec::new(),
            dirty_mark: vec![0; timeline.sections()],
            mark_now: 0,
            unplaced_here: Vec::new(),
            fill: GapFill::new(timeline.size.iter().copied()),
            stats: PropagationStats::default(),
        }
    }

    /// Places the pinned buffers and computes every lowest offset and every section from scratch.
    /// A failure here holds whatever the search does: the problem is infeasible at this capacity.
    pub(super) fn initialise(&mut self, timeline: &Timeline) -> Result<(), Failure> {
        for i in 0..timeline.len() as u32 {
            let Some(at) = timeline.pinned[i as usize] else { continue };
            let fits = at.checked_add(timeline.size[i as usize]).is_some_and(|top| top <= self.capacity);
            if !fits || self.layout.lowest_fit(timeline, i, at, self.capacity) != Some(at) {
                return Err(Failure::Pinned(i));
            }
            self.record(timeline, i, at);
        }
        for j in 0..timeline.len() as u32 {
            if self.offset[j as usize] != UNPLACED {
                continue;
            }
            match self.layout.lowest_fit(timeline, j, 0, self.capacity) {
                Some(lowest) => {
                    self.lowest[j as usize] = lowest;
                    self.open_lowest[j as usize] = lowest;
                }
                None => return Err(Failure::WipeOut(j)),
            }
        }
        if self.cross_section {
            for t in 0..timeline.sections() {
                if !self.section_holds(timeline, t) {
                    return Err(Failure::Section(t));
                }
            }
        }
        self.trail.clear(); // the root is never undone
        Ok(())
    }

    pub(super) fn is_placed(&self, j: u32) -> bool {
        self.offset[j as usize] != UNPLACED
    }

    /// A point to come back to with [`Propagator::undo_to`].
    pub(super) fn mark(&self) -> usize {
        self.trail.len()
    }

    fn record(&mut self, timeline: &Timeline, i: u32, at: u64) {
        let size = timeline.size[i as usize];
        self.offset[i as usize] = at;
        self.open_lowest[i as usize] = u64::MAX;
        self.layout.insert(timeline.span(i), Interval { low: at, high: at + size, buffer: i });
        for t in timeline.span(i) {
            self.placed_load[t] += size;
        }
        self.trail.push(Change::Placed(i));
    }

    /// Places unplaced buffer `i` at its lowest feasible offset and propagates. On failure the
    /// state is left half-updated for [`Propagator::undo_to`] and `conflict` holds the placed
    /// buffers responsible (including `i`).
    ///
    /// Not inlined into the search loop, for the same reason as `Candidates::frontier`: V8
    /// allocates registers per function, and the loop's own state crowded this one's out.
    #[inline(never)]
    pub(super) fn place(&mut self, timeline: &Timeline, i: u32) -> Result<(), Failure> {
        // Not timed: a clock read per placement cost more than the placement itself in wasm, where
        // `Instant::now` is a call out to JavaScript. `work` measures the propagation's effort.
        self.stats.placements += 1;
        self.place_and_propagate(timeline, i)
    }

    fn place_and_propagate(&mut self, timeline: &Timeline, i: u32) -> Result<(), Failure> {
        let at = self.lowest[i as usize];
        let top = at + timeline.size[i as usize]; // within capacity: `lowest` only holds fitting offsets
        self.record(timeline, i, at);
        self.raised.clear();
        self.conflict.clear();
        self.mark_now = self.mark_now.wrapping_add(1);
        if self.mark_now == 0 {
            self.dirty_mark.fill(0);
            self.mark_now = 1;
        }
        self.dirty.clear();
        if self.cross_section {
            self.mark_dirty(timeline, i);
        }
        // Raise the lowest offset of every unplaced buffer whose lowest position `i` now covers.
        let mut wiped = None;
        self.stats.work += 1;
        timeline.for_each_overlapping(i, |j| {
            self.stats.work += 1;
            // Placed buffers read as `u64::MAX`, at or above `top`: one array read decides most.
            let lowest = self.open_lowest[j as usize];
            if lowest >= top || at >= lowest + timeline.size[j as usize] {
                return true;
            }
            self.stats.work += timeline.span(j).len() as u64;
            match self.layout.lowest_fit(timeline, j, top, self.capacity) {
                Some(raised) => {
                    self.trail.push(Change::Raised { buffer: j, old: lowest });
                    self.lowest[j as usize] = raised;
                    self.open_lowest[j as usize] = raised;
                    self.raised.push(j);
                    self.stats.raised += 1;
                    if self.cross_section {
                        self.mark_dirty(timeline, j);
                    }
                    true
                }
                None => {
                    wiped = Some(j);
                    false
                }
            }
        });
        if let Some(j) = wiped {
            self.stats.wipe_outs += 1;
            let highest = self.capacity - timeline.size[j as usize]; // sizes fit the capacity
            self.layout.blockers(timeline, j, highest + 1, &mut self.conflict);
            self.conflict.push(i);
            return Err(Failure::WipeOut(j));
        }
        for k in 0..self.dirty.len() {
            let t = self.dirty[k];
            if !self.section_holds(timeline, t) {
                // The placements that shape the section. A sound explanation would add why each
                // unplaced buffer there sits no lower (its blockers), which costs more than the
                // search it saves: the backjumps it steers are heuristic anyway (§5.4).
                self.stats.section_failures += 1;
                self.conflict.extend(self.layout.intervals(t).iter().map(|iv| iv.buffer));
                self.conflict.push(i);
                return Err(Failure::Section(t));
            }
        }
        Ok(())
    }

    #[inline]
    fn mark_dirty(&mut self, timeline: &Timeline, j: u32) {
        for t in timeline.span(j) {
            if self.dirty_mark[t] != self.mark_now {
                self.dirty_mark[t] = self.mark_now;
                self.dirty.push(t);
            }
        }
    }

    /// Cross-section reasoning in section `t`. The unplaced buffers alive in `t` (`total` bytes
    /// in all) must each lie inside one free gap of `t`, at or above their lowest feasible offset.
    /// A gap can hold at most its length above the lowest offset any of them could start at, and
    /// at most the total size of those that fit in it; what no unplaced buffer can use stays empty
    /// in every completion, and `t` can leave only `capacity - load(t)` bytes empty. MiniMalloc's
    /// cross-section inference (its eq. 3, with the effective height) is the special case of one
    /// gap open to the capacity.
    fn section_holds(&mut self, timeline: &Timeline, t: usize) -> bool {
        self.stats.sections_checked += 1;
        self.stats.work += (timeline.alive(t).len() + self.layout.intervals(t).len()) as u64;
        let load = timeline.load[t];
        if load == self.placed_load[t] {
            return true;
        }
        self.all_fit_on_top(timeline, t) || self.gaps_hold(timeline, t)
    }

    /// [`Propagator::section_holds`] gap by gap, for a section with unplaced buffers.
    fn gaps_hold(&mut self, timeline: &Timeline, t: usize) -> bool {
        let slack = self.capacity - timeline.load[t]; // capacity >= max load is checked before any search
        let alive = timeline.alive(t);
        // Every buffer alive here is written and only the unplaced ones are kept (the count
        // advances by whether it is placed): no branch on a pattern no predictor learns, which
        // matters most in wasm. The list only grows, so nothing is cleared per check.
        if self.unplaced_here.len() < alive.len() {
            self.unplaced_here.resize(alive.len(), Unplaced::default());
        }
        let mut count = 0;
        for &j in alive {
            let index = j as usize;
            let (size, alignment, lowest) = (timeline.size[index], timeline.alignment[index], self.lowest[index]);
            self.unplaced_here[count] = Unplaced { buffer: j, size, lowest, alignment };
            count += usize::from(self.offset[index] == UNPLACED);
        }
        let unplaced_here = &self.unplaced_here[..count];
        let intervals = self.layout.intervals(t);
        let mut dead = 0u64;
        let mut low = 0u64;
        let (layout, capacity) = (&self.layout, self.capacity);
        // Whether buffer j, whose lowest offset lies below the hole, fits in it in all its sections.
        let fits_in_hole = |j: u32, low: u64, high: u64| {
            layout.lowest_fit(timeline, j, low, capacity).is_some_and(|at| at + timeline.size[j as usize] <= high)
        };
        for k in 0..=intervals.len() {
            let high = intervals.get(k).map_or(self.capacity, |iv| iv.low);
            if high > low {
                let from = low.max(self.max_offset).min(high);
                dead += (high - low) - self.fill.usable(unplaced_here, from, high, &fits_in_hole);
                if dead > slack {
                    return false;
                }
            }
            if let Some(iv) = intervals.get(k) {
                low = iv.high;
            }
        }
        true
    }

    /// The common case of [`Propagator::section_holds`] (over 90 % of the checks on the
    /// challenging suite), decided exactly in one pass over one array instead of a gather and a
    /// pass per gap: every unplaced buffer alive in `t` has its lowest feasible offset at or above
    /// the top of the highest placed interval (and the maximum offset), and they need no more than the room
    /// above the lowest of them. Then each fits in the top gap and none in a gap below, so the
    /// top gap can take all of them, the dead space is exactly `capacity - load(t)`, and the
    /// section holds. False means only "not decided here".
    ///
    /// Not inlined, and the loop reads one array: V8 compiles a small function's loop to a few
    /// registers, where inside the large caller it spilled the running minimum to the stack.
    #[inline(never)]
    fn all_fit_on_top(&self, timeline: &Timeline, t: usize) -> bool {
        let top = self.layout.intervals(t).last().map_or(0, |iv| iv.high);
        if top >= self.capacity {
            return false;
        }
        let from = top.max(self.max_offset).min(self.capacity);
        let open_lowest = &self.open_lowest;
        let lowest_unplaced = timeline.alive(t).iter().map(|&j| open_lowest[j as usize]).min().unwrap_or(u64::MAX);
        // `total <= load <= capacity`, and some unplaced buffer has a size when `total > 0`.
        let total = timeline.load[t] - self.placed_load[t];
        lowest_unplaced >= from && lowest_unplaced <= self.capacity - total
    }

    /// Undoes every change after `mark`, calling `unplaced` for each buffer taken back.
    pub(super) fn undo_to(&mut self, timeline: &Timeline, mark: usize, mut unplaced: impl FnMut(u32)) {
        while self.trail.len() > mark {
            match self.trail.pop() {
                Some(Change::Raised { buffer, old }) => {
                    self.lowest[buffer as usize] = old;
                    self.open_lowest[buffer as usize] = old;
                }
                Some(Change::Placed(i)) => {
                    let size = timeline.size[i as usize];
                    self.layout.remove(timeline.span(i), self.offset[i as usize]);
                    for t in timeline.span(i) {
                        self.placed_load[t] -= size;
                    }
                    self.offset[i as usize] = UNPLACED;
                    self.open_lowest[i as usize] = self.lowest[i as usize];
                    unplaced(i);
                }
                None => break,
            }
        }
    }
}

/// An unplaced buffer alive in the section being checked.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Unplaced {
    pub buffer: u32,
    pub size: u64,
    pub lowest: u64,
    pub alignment: u64,
}

/// The most bytes the unplaced buffers `(size, lowest, alignment)` (sorted by size) can put into
/// the gap `[low, high)` of one section: only those that fit in it above their lowest feasible
/// offset count, all of them lie above the lowest start any of them can have, and what they put
/// there is a sum of some of their sizes. The last bound (a subset sum, by a bitset over multiples
/// of `unit`, the sizes' common divisor) is what finds the gaps no combination fills exactly, which
/// matters where a section may leave nothing empty.
pub(super) struct GapFill {
    unit: u64,
    fitting: Vec<u64>,
    bits: Vec<u64>,
}

/// Gaps longer than this many units get the length bound only.
const SUBSET_SUM_UNITS: u64 = 1 << 13;

impl GapFill {
    pub(super) fn new(sizes: impl Iterator<Item = u64>) -> GapFill {
        let unit = sizes.fold(0, gcd).max(1);
        GapFill { unit, fitting: Vec::new(), bits: Vec::new() }
    }

    /// `fits_in_hole(j, low, high)` says whether `j` fits inside `[low, high)` over its whole
    /// lifetime; it is asked only for buffers whose lowest offset lies below `low`.
    ///
    /// Not inlined (nor the subset sum): small functions get V8's registers to themselves.
    #[inline(never)]
    pub(super) fn usable(
        &mut self,
        unplaced: &[Unplaced],
        low: u64,
        high: u64,
        fits_in_hole: &impl Fn(u32, u64, u64) -> bool,
    ) -> u64 {
        let length = high - low;
        let mut start = u64::MAX;
        let mut total = 0u64;
        self.fitting.clear();
        for &Unplaced { buffer, size, lowest, alignment } in unplaced {
            if size > length {
                break;
            }
            let Some(at) = align_up(low.max(lowest), alignment) else { continue };
            if at <= high - size && (lowest >= low || fits_in_hole(buffer, low, high)) {
                start = start.min(at);
                total = total.saturating_add(size);
                self.fitting.push(size);
            }
        }
        if start == u64::MAX {
            return 0;
        }
        let room = high - start;
        if total <= room {
            return total;
        }
        let units = room / self.unit;
        if units > SUBSET_SUM_UNITS {
            return room;
        }
        self.best_subset_sum(units) * self.unit
    }

    /// The largest sum of some of `fitting` (in units) that is at most `units`.
    #[inline(never)]
    fn best_subset_sum(&mut self, units: u64) -> u64 {
        let words = (units / 64 + 1) as usize;
        self.bits.clear();
        self.bits.resize(words, 0);
        self.bits[0] = 1;
        let top_word = words - 1;
        let top_mask = if units % 64 == 63 { u64::MAX } else { (1u64 << (units % 64 + 1)) - 1 };
        // The highest sum reachable so far: words above it are still zero and shift into zero.
        let mut reach = 0usize;
        let unit_is_power_of_two = self.unit.is_power_of_two();
        for &size in &self.fitting {
            // At most `units`: a fitting size fits the room. A shift, not a division, for the
            // usual power-of-two unit.
            let shift =
                if unit_is_power_of_two { size >> self.unit.trailing_zeros() } else { size / self.unit } as usize;
            let (word_shift, bit_shift) = (shift / 64, shift % 64);
            reach = (reach + shift).min(units as usize);
            // From the top down, so each word reads words below it that are not updated yet.
            let bits = &mut self.bits[..=reach / 64];
            if bit_shift == 0 {
                for w in (word_shift..bits.len()).rev() {
                    bits[w] |= bits[w - word_shift];
                }
            } else {
                for w in (word_shift + 1..bits.len()).rev() {
                    bits[w] |= bits[w - word_shift] << bit_shift | bits[w - word_shift - 1] >> (64 - bit_shift);
                }
                if let Some(first) = bits.get(word_shift).copied() {
                    bits[word_shift] = first | bits[0] << bit_shift;
                }
            }
            self.bits[top_word] &= top_mask;
            if self.bits[top_word] >> (units % 64) & 1 == 1 {
                return units; // the whole room can be filled
            }
        }
        let w = self.bits.iter().rposition(|&word| word != 0).unwrap_or(0); // bit 0 is always set
        (w as u64) * 64 + (63 - self.bits[w].leading_zeros() as u64)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::Buffer;

    fn timeline(buffers: &[Buffer]) -> Timeline {
        Timeline::new(buffers, &(0..buffers.len()).collect::<Vec<_>>())
    }

    #[test]
    fn a_placement_raises_only_the_lowest_offsets_it_covers() {
        let buffers = vec![
            Buffer::new("a", 0, 10, 4),
            Buffer::new("b", 0, 5, 4),
            Buffer::new("c", 5, 10, 2),
            Buffer::new("d", 20, 30, 1),
        ];
        let timeline = timeline(&buffers);
        let mut propagator = Propagator::new(&timeline, 8, true);
        propagator.initialise(&timeline).unwrap();
        let mark = propagator.mark();
        propagator.place(&timeline, 0).unwrap();
        assert_eq!(propagator.lowest[1..].to_vec(), vec![4, 4, 0]);
        propagator.place(&timeline, 1).unwrap();
        assert_eq!(propagator.offset[1], 4);
        propagator.undo_to(&timeline, mark, |_| {});
        assert_eq!(propagator.lowest[1..].to_vec(), vec![0, 0, 0]);
        assert!(!propagator.is_placed(0));
    }

    #[test]
    fn wipe_outs_name_the_blocking_placements() {
        // c spans both a and b; after a at 0 and b at 4 (capacity 8) c fits nowhere.
        let buffers = vec![Buffer::new("a", 0, 5, 4), Buffer::new("b", 3, 10, 4), Buffer::new("c", 2, 6, 1)];
        let timeline = timeline(&buffers);
        let mut propagator = Propagator::new(&timeline, 8, false);
        propagator.initialise(&timeline).unwrap();
        propagator.place(&timeline, 0).unwrap();
        assert_eq!(propagator.place(&timeline, 1), Err(Failure::WipeOut(2)));
        let mut conflict = propagator.conflict.clone();
        conflict.sort();
        conflict.dedup();
        assert_eq!(conflict, vec![0, 1]);
    }

    #[test]
    fn cross_sections_see_gaps_nobody_can_fill() {
        // Capacity 10 = the load of both sections [0,4) and [4,8): no byte may stay empty.
        let buffers = vec![
            Buffer::new("a", 0, 8, 5),
            Buffer::new("d", 4, 8, 3),
            Buffer::new("e", 4, 8, 2),
            Buffer::new("b", 0, 4, 5),
        ];
        let timeline = timeline(&buffers);
        let mut propagator = Propagator::new(&timeline, 10, true);
        propagator.initialise(&timeline).unwrap();
        propagator.place(&timeline, 0).unwrap(); // a at 0..5
        let mark = propagator.mark();
        // d at 5..8 leaves 8..10 in [4,8): e (size 2) fits exactly.
        propagator.place(&timeline, 1).unwrap();
        propagator.undo_to(&timeline, mark, |_| {});
        // Pretend e's lowest offset were 9: then the gap 5..10 in [4,8) cannot take e (9 + 2 > 10),
        // so only d's 3 bytes of it are usable and 2 stay empty with no slack.
        propagator.lowest[2] = 9;
        propagator.open_lowest[2] = 9;
        assert_eq!(propagator.place(&timeline, 1), Err(Failure::Section(1)));
    }

    #[test]
    fn buffers_all_above_the_placed_ones_are_decided_at_once() {
        // a at 0..4 over [0,10); b (size 3) and c (size 2) unplaced above it in capacity 10.
        let buffers = vec![Buffer::new("a", 0, 10, 4), Buffer::new("b", 0, 10, 3), Buffer::new("c", 0, 10, 2)];
        let timeline = timeline(&buffers);
        let mut propagator = Propagator::new(&timeline, 10, true);
        propagator.initialise(&timeline).unwrap();
        propagator.place(&timeline, 0).unwrap();
        assert!(propagator.all_fit_on_top(&timeline, 0));
        assert!(propagator.gaps_hold(&timeline, 0));
        // Nothing below 6 any more: b and c need 5 bytes and only 4 are left above 6.
        propagator.max_offset = 6;
        for j in [1, 2] {
            propagator.lowest[j] = 6;
            propagator.open_lowest[j] = 6;
        }
        assert!(!propagator.all_fit_on_top(&timeline, 0));
        assert!(!propagator.gaps_hold(&timeline, 0));

        // p pinned at 4..6 leaves a gap below it that b and c may still use: not decided here.
        let mut buffers = buffers;
        buffers[0] = Buffer::new("p", 0, 10, 2);
        buffers[0].pinned = Some(4);
        let timeline = super::tests::timeline(&buffers);
        let mut propagator = Propagator::new(&timeline, 10, true);
        propagator.initialise(&timeline).unwrap();
        assert!(!propagator.all_fit_on_top(&timeline, 0));
        assert!(propagator.gaps_hold(&timeline, 0));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Along random placements and undos, `open_lowest` mirrors `lowest` for the unplaced
        /// buffers, and the shortcut never says a section holds when the gap-by-gap reasoning
        /// says it does not (it claims to compute the same answer), whatever the maximum offset.
        #[test]
        fn the_shortcut_agrees_with_the_gaps(
            specs in prop::collection::vec((0u64..6, 1u64..5, 1u64..6, prop::sample::select(vec![1u64, 1, 2, 4])), 1..=7),
            slack in 0u64..5,
            picks in prop::collection::vec(0usize..7, 1..12),
            max_offsets in prop::collection::vec(0u64..12, 1..4),
        ) {
            let buffers: Vec<Buffer> = specs
                .iter()
                .enumerate()
                .map(|(i, &(start, length, size, alignment))| {
                    Buffer::new(format!("b{i}"), start, start + length, size).with_alignment(alignment)
                })
                .collect();
            let timeline = timeline(&buffers);
            let capacity = timeline.max_load() + slack;
            let mut propagator = Propagator::new(&timeline, capacity, true);
            if propagator.initialise(&timeline).is_err() {
                return Ok(());
            }
            let mut marks = Vec::new();
            for &pick in &picks {
                let unplaced: Vec<u32> = (0..timeline.len() as u32).filter(|&j| !propagator.is_placed(j)).collect();
                if unplaced.is_empty() || pick % 3 == 2 {
                    match marks.pop() {
                        Some(mark) => propagator.undo_to(&timeline, mark, |_| {}),
                        None => continue,
                    }
                } else {
                    let mark = propagator.mark();
                    if propagator.place(&timeline, unplaced[pick % unplaced.len()]).is_err() {
                        propagator.undo_to(&timeline, mark, |_| {});
                        continue;
                    }
                    marks.push(mark);
                }
                for j in 0..timeline.len() {
                    let expected = if propagator.is_placed(j as u32) { u64::MAX } else { propagator.lowest[j] };
                    prop_assert_eq!(propagator.open_lowest[j], expected, "buffer {}", j);
                }
                for &max_offset in &max_offsets {
                    propagator.max_offset = max_offset.min(capacity);
                    for t in 0..timeline.sections() {
                        if timeline.load[t] != propagator.placed_load[t] && propagator.all_fit_on_top(&timeline, t) {
                            prop_assert!(propagator.gaps_hold(&timeline, t), "section {} max offset {}", t, max_offset);
                        }
                    }
                }
                propagator.max_offset = 0;
            }
        }
    }

    fn unplaced(list: &[(u64, u64, u64)]) -> Vec<Unplaced> {
        let mut list: Vec<Unplaced> = list
            .iter()
            .enumerate()
            .map(|(j, &(size, lowest, alignment))| Unplaced { buffer: j as u32, size, lowest, alignment })
            .collect();
        list.sort_by_key(|u| u.size);
        list
    }

    const ANYWHERE: &dyn Fn(u32, u64, u64) -> bool = &|_, _, _| true;

    #[test]
    fn usable_space_of_a_gap() {
        let mut fill = GapFill::new([2u64, 3, 8].into_iter());
        let list = unplaced(&[(2, 0, 1), (3, 7, 1), (8, 0, 1)]);
        assert_eq!(fill.usable(&list, 4, 10, &ANYWHERE), 5, "from 4: size 2 at 4, size 3 at 7; 8 is too big");
        assert_eq!(fill.usable(&list, 4, 5, &ANYWHERE), 0);
        assert_eq!(fill.usable(&unplaced(&[(2, 0, 4)]), 1, 6, &ANYWHERE), 2, "aligned to 4: starts at 4");
        let nowhere = |_: u32, _: u64, _: u64| false;
        assert_eq!(
            fill.usable(&list, 4, 10, &nowhere),
            3,
            "only the size 3 buffer, whose lowest is 7, is asked no more"
        );
    }

    #[test]
    fn subset_sums_bound_what_a_gap_can_hold() {
        let mut fill = GapFill::new([4u64, 6, 10].into_iter());
        // Units of 2: sizes 2, 3, 5 units. A gap of 7 bytes (3 units) holds 6 (one size 6 buffer).
        assert_eq!(fill.usable(&unplaced(&[(4, 0, 1), (6, 0, 1)]), 0, 7, &ANYWHERE), 6);
        assert_eq!(fill.usable(&unplaced(&[(4, 0, 1), (6, 0, 1)]), 0, 10, &ANYWHERE), 10);
        assert_eq!(fill.usable(&unplaced(&[(6, 0, 1), (6, 0, 1)]), 0, 11, &ANYWHERE), 6, "two 6s need 12");
        // Brute force over many sets and rooms, across word boundaries: a unit of 2 (a shift),
        // of 6 (a division), and shifts of whole words (64 and 128 units).
        let sets: [&[u64]; 3] =
            [&[2, 2, 6, 14, 62, 66, 130, 198], &[6, 6, 18, 42, 186, 198, 390, 594], &[1, 3, 64, 64, 128, 70, 5, 200]];
        for sizes in sets {
            let mut fill = GapFill::new(sizes.iter().copied());
            let list = unplaced(&sizes.iter().map(|&s| (s, 0, 1)).collect::<Vec<_>>());
            for room in 0..sizes.iter().sum::<u64>() + 2 {
                let mut best = 0;
                for mask in 0u32..(1 << sizes.len()) {
                    let sum: u64 = (0..sizes.len()).filter(|&k| mask >> k & 1 == 1).map(|k| sizes[k]).sum();
                    if sum <= room {
                        best = best.max(sum);
                    }
                }
                assert_eq!(fill.usable(&list, 0, room, &ANYWHERE), best, "sizes {sizes:?} room {room}");
            }
        }
    }
}
