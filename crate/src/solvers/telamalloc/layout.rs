//! Which addresses the placed buffers take in each section, with removal for backtracking.
//!
//! Buffers alive in the same section never overlap in address, so each section holds a sorted
//! vector of disjoint intervals: insertion and removal are a binary search and a short shift, and
//! the lowest free position of a buffer is found by hopping over blocking intervals section by
//! section (§5.2: "the lowest valid location", which may lie underneath placed buffers). The shared
//! occupancy index ([`crate::occupancy`]) merges intervals and cannot remove one, which a search
//! must do.

use super::timeline::Timeline;
use crate::alignment::align_up;

/// Addresses `[low, high)` taken by `buffer` in some section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Interval {
    pub low: u64,
    pub high: u64,
    pub buffer: u32,
}

pub(super) struct Layout {
    sections: Vec<Vec<Interval>>,
}

impl Layout {
    pub(super) fn new(sections: usize) -> Layout {
        Layout { sections: vec![Vec::new(); sections] }
    }

    /// The placed intervals of section `t`, by address.
    pub(super) fn intervals(&self, t: usize) -> &[Interval] {
        &self.sections[t]
    }

    /// Records `buffer` at `[low, high)` in its sections; the caller guarantees the space is free.
    pub(super) fn insert(&mut self, span: std::ops::Range<usize>, interval: Interval) {
        for list in &mut self.sections[span] {
            let at = list.partition_point(|iv| iv.low < interval.low);
            debug_assert!(at == list.len() || list[at].low >= interval.high, "overlapping placement");
            debug_assert!(at == 0 || list[at - 1].high <= interval.low, "overlapping placement");
            list.insert(at, interval);
        }
    }

    /// Removes what [`Layout::insert`] recorded.
    pub(super) fn remove(&mut self, span: std::ops::Range<usize>, low: u64) {
        for list in &mut self.sections[span] {
            let at = list.partition_point(|iv| iv.low < low);
            debug_assert!(at < list.len() && list[at].low == low, "removing an interval that is not there");
            list.remove(at);
        }
    }

    /// The lowest aligned offset `>= from` at which buffer `j` is free in all its sections and ends
    /// within `capacity`; `None` when there is none (a wipe-out).
    pub(super) fn lowest_fit(&self, timeline: &Timeline, j: u32, from: u64, capacity: u64) -> Option<u64> {
        let size = timeline.size[j as usize];
        let alignment = timeline.alignment[j as usize];
        let highest = capacity.checked_sub(size)?;
        let mut offset = align_up(from, alignment)?;
        if offset > highest {
            return None;
        }
        let span = timeline.span(j);
        let count = span.len();
        // Round robin: the offset is free once `count` sections in a row let it pass.
        let (mut passed, mut k) = (0usize, 0usize);
        while passed < count {
            let list = &self.sections[span.start + k];
            let mut at = list.partition_point(|iv| iv.high <= offset);
            let mut moved = false;
            while at < list.len() && list[at].low < offset + size {
                offset = align_up(list[at].high, alignment)?;
                if offset > highest {
                    return None;
                }
                moved = true;
                at += 1;
                while at < list.len() && list[at].high <= offset {
                    at += 1;
                }
            }
            passed = if moved { 1 } else { passed + 1 };
            k = if k + 1 == count { 0 } else { k + 1 };
        }
        Some(offset)
    }

    /// Why buffer `j` has no free offset below `below`: a chain of placed buffers that together
    /// block every offset from 0 up, found by always hopping over the blocker that reaches highest.
    /// With `below` = the highest offset within the capacity + 1 it explains a wipe-out; with
    /// `below` = the buffer's lowest feasible offset, why it cannot go lower.
    pub(super) fn blockers(&self, timeline: &Timeline, j: u32, below: u64, out: &mut Vec<u32>) {
        let size = timeline.size[j as usize];
        let alignment = timeline.alignment[j as usize];
        let mut offset = 0u64;
        while offset < below {
            let mut best: Option<Interval> = None;
            for t in timeline.span(j) {
                let list = &self.sections[t];
                let at = list.partition_point(|iv| iv.high <= offset);
                if let Some(&iv) = list.get(at)
                    && iv.low < offset.saturating_add(size)
                    && best.is_none_or(|b| iv.high > b.high)
                {
                    best = Some(iv);
                }
            }
            let Some(blocker) = best else { return }; // free here: nothing more to explain
            out.push(blocker.buffer);
            match align_up(blocker.high, alignment) {
                Some(next) => offset = next,
                None => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;

    #[test]
    fn lowest_fit_goes_underneath_and_respects_alignment_and_capacity() {
        // a [0,10) over all time at 0..4; b [0,5) at 8..12; c (to place) spans all time, size 4.
        let buffers = vec![
            Buffer::new("a", 0, 10, 4),
            Buffer::new("b", 0, 5, 4),
            Buffer::new("c", 0, 10, 4),
            Buffer::new("d", 5, 10, 3).with_alignment(4),
        ];
        let timeline = Timeline::new(&buffers, &[0, 1, 2, 3]);
        let mut layout = Layout::new(timeline.sections());
        layout.insert(timeline.span(0), Interval { low: 0, high: 4, buffer: 0 });
        layout.insert(timeline.span(1), Interval { low: 8, high: 12, buffer: 1 });
        assert_eq!(layout.lowest_fit(&timeline, 2, 0, 100), Some(4));
        assert_eq!(layout.lowest_fit(&timeline, 2, 5, 100), Some(12));
        assert_eq!(layout.lowest_fit(&timeline, 2, 5, 15), None);
        assert_eq!(layout.lowest_fit(&timeline, 3, 1, 100), Some(4));
        let mut why = Vec::new();
        layout.insert(timeline.span(2), Interval { low: 4, high: 8, buffer: 2 });
        // d (alive in [5,10), size 3) in capacity 10: a blocks 0..4, c blocks 4..8, and 8 + 3 > 10.
        assert_eq!(layout.lowest_fit(&timeline, 3, 0, 10), None);
        layout.blockers(&timeline, 3, 10 - 3 + 1, &mut why);
        assert_eq!(why, vec![0, 2]);
        layout.remove(timeline.span(2), 4);
        assert_eq!(layout.lowest_fit(&timeline, 2, 0, 100), Some(4));
    }
}
