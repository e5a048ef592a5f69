//! The three block heuristics of §5.1 (longest lifetime, largest size, largest area), each asked
//! within a contention phase first (§5.3).
//!
//! Each phase keeps its buffers sorted three ways, with a cursor per order before which every
//! buffer is placed: finding a heuristic's pick skips placed buffers once, and a backtrack that
//! takes a buffer back only moves the cursor back to it. Picks cost O(1) amortised, not O(n).

use super::timeline::Timeline;

/// The heuristics in the order §5.1 tries them.
pub(super) const HEURISTICS: usize = 3;

pub(super) struct Candidates {
    phase_of: Vec<u32>,
    /// Per phase and heuristic: the phase's buffers, best first.
    lists: Vec<[Vec<u32>; HEURISTICS]>,
    /// Per phase and heuristic: every buffer before the cursor is placed.
    cursor: Vec<[usize; HEURISTICS]>,
    /// Each buffer's position in its phase's list, per heuristic.
    rank: [Vec<u32>; HEURISTICS],
    /// Each buffer's position among all buffers, per heuristic (0: best), side by side. The
    /// frontier compares these instead of the keys: one u32 instead of a 128-bit area product per
    /// buffer and level, which wasm has to multiply in software.
    overall: Vec<[u32; HEURISTICS]>,
    unplaced_in_phase: Vec<u32>,
    /// The unplaced buffers, in no particular order (the frontier's picks do not depend on it),
    /// and each one's index there: the frontier visits only these, not every buffer with a test
    /// of whether it is placed. Most buffers are placed deep in the search.
    unplaced: Vec<u32>,
    position: Vec<u32>,
    /// The frontier's scratch list of the next lowest buffers, kept to avoid an allocation per
    /// decision point.
    next: Vec<(u64, u32, u32)>,
}

impl Candidates {
    pub(super) fn new(timeline: &Timeline, phase_of: Vec<u32>, phases: usize) -> Candidates {
        let n = timeline.len();
        let mut lists: Vec<[Vec<u32>; HEURISTICS]> = (0..phases).map(|_| Default::default()).collect();
        let mut unplaced_in_phase = vec![0u32; phases];
        for j in 0..n as u32 {
            let phase = phase_of[j as usize] as usize;
            unplaced_in_phase[phase] += 1;
            for list in &mut lists[phase] {
                list.push(j);
            }
        }
        let size = |j: u32| timeline.size[j as usize];
        let lifetime = |j: u32| timeline.lifetime[j as usize];
        let area = |j: u32| size(j) as u128 * lifetime(j) as u128;
        let mut rank: [Vec<u32>; HEURISTICS] = [vec![0; n], vec![0; n], vec![0; n]];
        for phase_lists in &mut lists {
            let [longest, largest, widest] = phase_lists;
            longest.sort_by_key(|&j| (std::cmp::Reverse((lifetime(j), size(j))), j));
            largest.sort_by_key(|&j| (std::cmp::Reverse((size(j), lifetime(j))), j));
            widest.sort_by_key(|&j| (std::cmp::Reverse((area(j), size(j))), j));
            for (h, list) in phase_lists.iter().enumerate() {
                for (position, &j) in list.iter().enumerate() {
                    rank[h][j as usize] = position as u32;
                }
            }
        }
        let by_heuristic: [Vec<u32>; HEURISTICS] = std::array::from_fn(|h| {
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.sort_by_key(|&j| std::cmp::Reverse(keys(timeline, j)[h]));
            ranks(&order)
        });
        let overall = (0..n).map(|j| std::array::from_fn(|h| by_heuristic[h][j])).collect();
        Candidates {
            phase_of,
            cursor: vec![[0; HEURISTICS]; phases],
            lists,
            rank,
            overall,
            unplaced_in_phase,
            unplaced: (0..n as u32).collect(),
            position: (0..n as u32).collect(),
            next: Vec::new(),
        }
    }

    pub(super) fn phases(&self) -> usize {
        self.lists.len()
    }

    pub(super) fn phase_of(&self, j: u32) -> usize {
        self.phase_of[j as usize] as usize
    }

    /// Bookkeeping when `j` is placed.
    pub(super) fn placed(&mut self, j: u32) {
        let phase = self.phase_of(j);
        self.unplaced_in_phase[phase] -= 1;
        let at = self.position[j as usize] as usize;
        debug_assert_eq!(self.unplaced[at], j, "placing a buffer that is placed");
        self.unplaced.swap_remove(at);
        if let Some(&moved) = self.unplaced.get(at) {
            self.position[moved as usize] = at as u32;
        }
    }

    /// Bookkeeping when `j` is taken back.
    pub(super) fn unplaced(&mut self, j: u32) {
        let phase = self.phase_of(j);
        self.unplaced_in_phase[phase] += 1;
        self.position[j as usize] = self.unplaced.len() as u32;
        self.unplaced.push(j);
        for h in 0..HEURISTICS {
            let rank = self.rank[h][j as usize] as usize;
            let cursor = &mut self.cursor[phase][h];
            *cursor = (*cursor).min(rank);
        }
    }

    /// The phase to take candidates from: the previous placement's, while it has unplaced
    /// buffers, else the first phase (highest contention) that does.
    pub(super) fn current_phase(&self, previous: Option<u32>) -> Option<usize> {
        if let Some(j) = previous {
            let phase = self.phase_of(j);
            if self.unplaced_in_phase[phase] > 0 {
                return Some(phase);
            }
        }
        self.unplaced_in_phase.iter().position(|&count| count > 0)
    }

    /// The best unplaced buffer of `phase` by heuristic `h`.
    fn pick(&mut self, phase: usize, h: usize, is_placed: &impl Fn(u32) -> bool) -> Option<u32> {
        let list = &self.lists[phase][h];
        let cursor = &mut self.cursor[phase][h];
        while *cursor < list.len() && is_placed(list[*cursor]) {
            *cursor += 1;
        }
        list.get(*cursor).copied()
    }

    /// Appends, without repeats, the picks of the three heuristics in `phase`, then in the other
    /// phases in order, until `out` holds `limit` buffers.
    pub(super) fn collect(&mut self, phase: usize, limit: usize, is_placed: &impl Fn(u32) -> bool, out: &mut Vec<u32>) {
        let others = (0..self.phases()).filter(|&p| p != phase);
        for p in std::iter::once(phase).chain(others) {
            if self.unplaced_in_phase[p] == 0 {
                continue;
            }
            for h in 0..HEURISTICS {
                if out.len() >= limit {
                    return;
                }
                if let Some(j) = self.pick(p, h, is_placed)
                    && !out.contains(&j)
                {
                    out.push(j);
                }
            }
        }
    }
}

/// Each buffer's position in the longest-lifetime order (ties: larger, then lower index): the
/// complete search's order among candidates at the same offset (§5.1's first heuristic).
pub(super) fn longest_first(timeline: &Timeline) -> Vec<u32> {
    let mut order: Vec<u32> = (0..timeline.len() as u32).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(keys(timeline, j)[0]));
    ranks(&order)
}

/// Each buffer's position in the order of the largest load over its lifetime (MiniMalloc §6.2's
/// section totals: the buffers of the most contended sections first), ties by longer lifetime,
/// larger area, lower index. The complete search's second order of ties: on the challenging
/// suite's F and G it finds plans where [`longest_first`] does not within seconds.
pub(super) fn most_contended_first(timeline: &Timeline) -> Vec<u32> {
    let total = |j: u32| timeline.span(j).map(|t| timeline.load[t]).max().unwrap_or(0);
    let mut order: Vec<u32> = (0..timeline.len() as u32).collect();
    order.sort_by_cached_key(|&j| {
        let area = timeline.size[j as usize] as u128 * timeline.lifetime[j as usize] as u128;
        (std::cmp::Reverse((total(j), timeline.lifetime[j as usize], area)), j)
    });
    ranks(&order)
}

/// Each buffer's position in the order of the largest load over its lifetime, ties by larger
/// area, longer lifetime, lower index (MiniMalloc's "total-area-width" pre-ordering). The order of
/// the complete search that searches the parts of a split afresh, sorted again by their own totals
/// (see `Canonical::with_fresh_parts`): that search finds the challenging suite's H within a
/// second, where the other two do not within minutes.
pub(super) fn most_contended_by_area(timeline: &Timeline) -> Vec<u32> {
    let total = |j: u32| timeline.span(j).map(|t| timeline.load[t]).max().unwrap_or(0);
    let mut order: Vec<u32> = (0..timeline.len() as u32).collect();
    order.sort_by_cached_key(|&j| {
        let area = timeline.size[j as usize] as u128 * timeline.lifetime[j as usize] as u128;
        (std::cmp::Reverse((total(j), area, timeline.lifetime[j as usize])), j)
    });
    ranks(&order)
}

fn ranks(order: &[u32]) -> Vec<u32> {
    let mut rank = vec![0u32; order.len()];
    for (position, &j) in order.iter().enumerate() {
        rank[j as usize] = position as u32;
    }
    rank
}

/// The three heuristics' keys (larger is better): longest lifetime, largest size, largest area,
/// each with the others as tie-breaks and the lower index last.
fn keys(timeline: &Timeline, j: u32) -> [(u128, u64, std::cmp::Reverse<u32>); HEURISTICS] {
    let size = timeline.size[j as usize];
    let lifetime = timeline.lifetime[j as usize];
    let area = size as u128 * lifetime as u128;
    let rev = std::cmp::Reverse(j);
    [(lifetime as u128, size, rev), (size as u128, lifetime, rev), (area, size, rev)]
}

impl Candidates {
    /// The three heuristics applied to the bottom frontier: the unplaced buffers whose lowest
    /// feasible offset is the lowest of all (which the propagation knows for every buffer). Then, up
    /// to `limit`, the next lowest buffers, longest first. The §7.2 ablation's "block that can be
    /// placed at the lowest position", combined with §5.1's three picks. One pass over the unplaced
    /// buffers.
    ///
    /// Not inlined: the search loop that calls it is one large function, and V8 (which compiles
    /// the wasm build) kept this loop's state in stack slots there; on its own it stays in
    /// registers.
    #[inline(never)]
    pub(super) fn frontier(&mut self, lowest: &[u64], limit: usize, out: &mut Vec<u32>) {
        const NO_PICK: (u32, u32) = (u32::MAX, u32::MAX);
        let mut bottom = u64::MAX;
        // Per heuristic: the best (lowest) rank at the bottom and its buffer.
        let mut best = [NO_PICK; HEURISTICS];
        // The next lowest, as (lowest, rank in the longest-first order), best first; at most
        // `limit` kept. Every key is distinct (ranks are), so the picks do not depend on the
        // order in which the unplaced buffers are visited.
        let next = &mut self.next;
        next.clear();
        // Once `next` is full, a buffer lower than its last entry is all that can change anything
        // (that entry lies at or above the bottom): one comparison for most buffers.
        let mut cutoff = u64::MAX;
        for &j in &self.unplaced {
            let low = lowest[j as usize];
            if low > cutoff {
                continue;
            }
            let ranks = self.overall[j as usize];
            if low <= bottom {
                if low < bottom {
                    bottom = low;
                    best = [NO_PICK; HEURISTICS];
                }
                for (h, slot) in best.iter_mut().enumerate() {
                    if ranks[h] < slot.0 {
                        *slot = (ranks[h], j);
                    }
                }
            }
            let entry = (low, ranks[0], j);
            if next.len() < limit || next.last().is_some_and(|last| entry < *last) {
                let at = next.partition_point(|e| *e < entry);
                next.insert(at, entry);
                next.truncate(limit);
                if next.len() == limit {
                    cutoff = next[limit - 1].0;
                }
            }
        }
        for (_, j) in best.into_iter().filter(|&pick| pick != NO_PICK) {
            if out.len() < limit && !out.contains(&j) {
                out.push(j);
            }
        }
        for &(_, _, j) in next.iter() {
            if out.len() < limit && !out.contains(&j) {
                out.push(j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;

    #[test]
    fn the_three_heuristics_pick_within_the_phase_first() {
        let buffers = vec![
            Buffer::new("long", 0, 100, 1),
            Buffer::new("big", 0, 10, 50),
            Buffer::new("wide", 0, 40, 20),
            Buffer::new("other", 200, 300, 1),
        ];
        let timeline = Timeline::new(&buffers, &[0, 1, 2, 3]);
        let mut candidates = Candidates::new(&timeline, vec![0, 0, 0, 1], 2);
        let nothing_placed = |_: u32| false;
        let mut out = Vec::new();
        candidates.collect(0, 3, &nothing_placed, &mut out);
        assert_eq!(out, vec![0, 1, 2]);
        out.clear();
        candidates.collect(0, 4, &nothing_placed, &mut out);
        assert_eq!(out, vec![0, 1, 2, 3]);
        let long_placed = |j: u32| j == 0;
        candidates.placed(0);
        out.clear();
        candidates.collect(0, 3, &long_placed, &mut out);
        // Longest lifetime is now 'wide', which largest area picks too; 'other' fills the third place.
        assert_eq!(out, vec![2, 1, 3]);
        candidates.unplaced(0);
        out.clear();
        candidates.collect(0, 1, &nothing_placed, &mut out);
        assert_eq!(out, vec![0]);
    }
}
