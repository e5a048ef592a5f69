//! One independent part of a problem in compressed time: its buffers renumbered `0..n`, time cut
//! into sections (the elementary intervals between consecutive lifetime endpoints, MiniMalloc's
//! cross sections: the buffers alive in one are alive during all of it), and which buffers are
//! alive in each section. Every other module of the search speaks these local numbers and sections.

use crate::model::Buffer;

/// A group of buffers in compressed time. Buffer `j` is alive in sections `first[j]..last[j]`.
pub(super) struct Timeline {
    /// Index of each local buffer in the problem's buffer list.
    pub global: Vec<usize>,
    pub size: Vec<u64>,
    pub alignment: Vec<u64>,
    pub pinned: Vec<Option<u64>>,
    /// Real lifetime `end - start` (the heuristics compare real lengths, not section counts).
    pub lifetime: Vec<u64>,
    pub first: Vec<u32>,
    pub last: Vec<u32>,
    /// Total size alive in each section (the §3.1 contention of a time slot).
    pub load: Vec<u64>,
    /// Buffers alive in section `t`: `alive[alive_from[t]..alive_from[t + 1]]`, by size then index.
    alive_from: Vec<usize>,
    alive: Vec<u32>,
    /// Buffers by first section: those starting in section `t` are `by_first[first_from[t]..first_from[t + 1]]`.
    first_from: Vec<usize>,
    by_first: Vec<u32>,
}

impl Timeline {
    /// The number of (buffer, section) pairs a timeline over `members` would store: what building
    /// it costs in memory, and what one pass of cross-section reasoning over everything costs.
    pub(super) fn incidences(buffers: &[Buffer], members: &[usize]) -> u64 {
        let times = endpoints(buffers, members);
        members
            .iter()
            .map(|&i| {
                let b = &buffers[i];
                (times.partition_point(|&t| t < b.end) - times.partition_point(|&t| t < b.start)) as u64
            })
            .sum()
    }

    pub(super) fn new(buffers: &[Buffer], members: &[usize]) -> Timeline {
        let times = endpoints(buffers, members);
        let sections = times.len().saturating_sub(1);
        let n = members.len();
        let mut timeline = Timeline {
            global: members.to_vec(),
            size: Vec::with_capacity(n),
            alignment: Vec::with_capacity(n),
            pinned: Vec::with_capacity(n),
            lifetime: Vec::with_capacity(n),
            first: Vec::with_capacity(n),
            last: Vec::with_capacity(n),
            load: vec![0; sections],
            alive_from: Vec::new(),
            alive: Vec::new(),
            first_from: Vec::new(),
            by_first: Vec::new(),
        };
        let mut alive_count = vec![0usize; sections + 1];
        let mut first_count = vec![0usize; sections + 1];
        for &i in members {
            let b = &buffers[i];
            let first = times.partition_point(|&t| t < b.start) as u32;
            let last = times.partition_point(|&t| t < b.end) as u32;
            timeline.size.push(b.size);
            timeline.alignment.push(b.alignment().max(1));
            timeline.pinned.push(b.pinned);
            timeline.lifetime.push(b.end - b.start);
            timeline.first.push(first);
            timeline.last.push(last);
            first_count[first as usize] += 1;
            for t in first..last {
                alive_count[t as usize] += 1;
                // No overflow: the problem checked that its max load fits in u64.
                timeline.load[t as usize] += b.size;
            }
        }
        timeline.alive_from = prefix_sums(&alive_count);
        timeline.first_from = prefix_sums(&first_count);
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&j| (timeline.size[j as usize], j));
        timeline.alive = vec![0; timeline.alive_from[sections]];
        let mut fill = timeline.alive_from.clone();
        for &j in &order {
            for t in timeline.first[j as usize]..timeline.last[j as usize] {
                timeline.alive[fill[t as usize]] = j;
                fill[t as usize] += 1;
            }
        }
        timeline.by_first = vec![0; n];
        let mut fill = timeline.first_from.clone();
        for j in 0..n as u32 {
            let t = timeline.first[j as usize] as usize;
            timeline.by_first[fill[t]] = j;
            fill[t] += 1;
        }
        timeline
    }

    pub(super) fn len(&self) -> usize {
        self.size.len()
    }

    pub(super) fn sections(&self) -> usize {
        self.load.len()
    }

    /// The sections of buffer `j`.
    pub(super) fn span(&self, j: u32) -> std::ops::Range<usize> {
        self.first[j as usize] as usize..self.last[j as usize] as usize
    }

    /// The buffers alive in section `t`, smallest first.
    pub(super) fn alive(&self, t: usize) -> &[u32] {
        &self.alive[self.alive_from[t]..self.alive_from[t + 1]]
    }

    /// Calls `visit` once for every other buffer alive at some time `j` is (those alive in `j`'s
    /// first section, then those starting inside its lifetime) until it returns false; false when
    /// it stopped early. O(conflicts of `j`), no pair list.
    pub(super) fn for_each_overlapping(&self, j: u32, mut visit: impl FnMut(u32) -> bool) -> bool {
        let span = self.span(j);
        let starting = &self.by_first[self.first_from[span.start + 1]..self.first_from[span.end]];
        self.alive(span.start).iter().filter(|&&k| k != j).chain(starting).all(|&k| visit(k))
    }

    pub(super) fn max_load(&self) -> u64 {
        self.load.iter().copied().max().unwrap_or(0)
    }
}

fn endpoints(buffers: &[Buffer], members: &[usize]) -> Vec<u64> {
    let mut times: Vec<u64> = members.iter().flat_map(|&i| [buffers[i].start, buffers[i].end]).collect();
    times.sort_unstable();
    times.dedup();
    times
}

fn prefix_sums(counts: &[usize]) -> Vec<usize> {
    let mut from = Vec::with_capacity(counts.len() + 1);
    let mut total = 0;
    from.push(0);
    for &c in counts {
        total += c;
        from.push(total);
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_loads_and_overlaps() {
        let buffers = vec![Buffer::new("a", 0, 10, 4), Buffer::new("b", 2, 5, 2), Buffer::new("c", 5, 12, 1)];
        let timeline = Timeline::new(&buffers, &[0, 1, 2]);
        // endpoints 0 2 5 10 12: sections [0,2) [2,5) [5,10) [10,12)
        assert_eq!(timeline.load, vec![4, 6, 5, 1]);
        assert_eq!(timeline.alive(1), &[1, 0]);
        assert_eq!(Timeline::incidences(&buffers, &[0, 1, 2]), 3 + 1 + 2);
        for j in 0..3u32 {
            let mut seen = Vec::new();
            timeline.for_each_overlapping(j, |k| {
                seen.push(k);
                true
            });
            seen.sort();
            let expected: Vec<u32> =
                (0..3u32).filter(|&k| k != j && buffers[k as usize].overlaps_in_time(&buffers[j as usize])).collect();
            assert_eq!(seen, expected, "buffer {j}");
        }
    }
}
