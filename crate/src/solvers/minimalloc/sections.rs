//! The problem as the search sees it: cross sections (MiniMalloc §6.2), each buffer's span of
//! sections, who overlaps whom, and the pinned buffers as fixed obstacles.
//!
//! A cross section is one elementary time interval between two consecutive event times: every
//! buffer alive in it is alive during all of it, so the buffers of one section are pairwise in
//! conflict and must be stacked. That is what makes eq. (3) a valid bound.
//!
//! Gaps (without windows: the solver is given windowed gaps as alive, see
//! [`crate::solvers::Capabilities::windows`]) start and end sections too. A buffer in a gap is
//! not counted in that section's total, and is no neighbour of a buffer it is never alive with;
//! it still spans its whole lifetime for the rest (members, crossings), which only weakens those
//! tests.

use crate::model::Problem;

/// A pinned buffer, as an obstacle the searched buffers must avoid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Obstacle {
    pub offset: u64,
    pub top: u64,
}

/// The searched (unpinned) buffers, numbered by rank: rank 0 is the first of the static
/// pre-ordering, and ranks break ties of the dynamic ordering and define index monotonicity (§5).
#[derive(Clone, Debug)]
pub(super) struct RankedBuffers {
    /// For each rank, the buffer's index in the problem.
    pub original: Vec<usize>,
    pub size: Vec<u64>,
    pub alignment: Vec<u64>,
    /// The buffer's sections are `first[r]..last[r]`.
    pub first: Vec<u32>,
    pub last: Vec<u32>,
    /// The section ranges where it is alive (one, `first..last`, without gaps):
    /// `live[live_start[r]..live_start[r + 1]]`.
    pub live_start: Vec<u32>,
    pub live: Vec<(u32, u32)>,
    /// Ranks of the buffers alive at the same time as `r`: `neighbours[neighbour_start[r]..neighbour_start[r + 1]]`.
    pub neighbour_start: Vec<u32>,
    pub neighbours: Vec<u32>,
    /// Pinned buffers overlapping `r` in time, sorted by offset: `obstacles[obstacle_start[r]..obstacle_start[r + 1]]`.
    pub obstacle_start: Vec<u32>,
    pub obstacles: Vec<Obstacle>,
    /// The total size of the searched buffers alive in each section.
    pub section_total: Vec<u64>,
    /// The bytes pinned buffers hold in each section, as disjoint ranges sorted by offset:
    /// `pins[pin_start[s]..pin_start[s + 1]]`. Every searched buffer alive in the section must
    /// avoid them, so the section's unplaced buffers stack in what they leave free.
    pub pin_start: Vec<u32>,
    pub pins: Vec<Obstacle>,
    /// The alignment classes: the distinct alignments above 1 of the searched buffers, the
    /// largest [`MAX_CLASSES`] of them, ascending. A buffer belongs to every class whose alignment
    /// divides its own.
    pub classes: Vec<u64>,
    /// Per rank and class (`r * classes + k`): the class's slots the buffer covers wherever it
    /// starts (`⌈size / a⌉`), 0 outside the class.
    pub rank_slots: Vec<u64>,
    /// Per section and class (`s * classes + k`): the slots the searched buffers alive in it
    /// cover, and the largest padding (`a·⌈size / a⌉ − size`) among them.
    pub class_slots: Vec<u64>,
    pub class_pad: Vec<u64>,
    /// The smallest size among the buffers overlapping `r` in time (`u64::MAX` for none).
    pub smallest_neighbour: Vec<u64>,
    /// Other unaligned buffers with exactly the same lifetime as `r` (for symmetry breaking):
    /// `twins[twin_start[r]..twin_start[r + 1]]`.
    pub twin_start: Vec<u32>,
    pub twins: Vec<u32>,
    /// The ranks alive in each section `s`: `members[member_start[s]..member_start[s + 1]]`.
    pub member_start: Vec<u32>,
    pub members: Vec<u32>,
    /// Each rank's pre-ordering key values, and which of them is the section total (see
    /// [`super::orderings::preorder_keys`]); empty when parts keep their ranks' order.
    pub preorder_key: Vec<[u128; 3]>,
    pub total_key: Option<usize>,
}

/// The per-buffer keys the static pre-orderings sort by (MiniMalloc's heuristics).
#[derive(Clone, Debug)]
pub(super) struct Keys {
    /// The largest section total over the buffer's lifetime: buffers in the most contended
    /// sections first.
    pub total: Vec<u64>,
    /// The length of the lifetime.
    pub width: Vec<u64>,
    /// Size times lifetime.
    pub area: Vec<u128>,
    pub size: Vec<u64>,
}

/// How many alignment classes the section bounds follow (the largest alignments): each costs a
/// counter per section that every placement updates along its span.
pub(super) const MAX_CLASSES: usize = 4;

/// More overlapping pairs than this and the exact search refuses the instance (the neighbour lists
/// would take gigabytes, and such a search would not finish anyway).
pub(super) const MAX_PAIRS: usize = 1 << 26;

/// The section layout of a problem, independent of any ordering.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    /// The unpinned buffers, by problem index.
    pub searched: Vec<usize>,
    /// Section span per problem index (meaningful for every buffer, pinned or not).
    pub first: Vec<u32>,
    pub last: Vec<u32>,
    /// Live section ranges per problem index (see [`RankedBuffers::live`]).
    pub live: Vec<Vec<(u32, u32)>>,
    pub section_total: Vec<u64>,
}

impl Layout {
    /// Sections are the intervals between consecutive distinct start/end times.
    pub(super) fn new(problem: &Problem) -> Layout {
        let buffers = problem.buffers();
        let mut times: Vec<u64> = buffers
            .iter()
            .flat_map(|b| [b.start, b.end].into_iter().chain(b.gaps.iter().flat_map(|g| [g.start, g.end])))
            .collect();
        times.sort_unstable();
        times.dedup();
        let section_of = |time: u64| times.partition_point(|&t| t < time) as u32;
        let first: Vec<u32> = buffers.iter().map(|b| section_of(b.start)).collect();
        let last: Vec<u32> = buffers.iter().map(|b| section_of(b.end)).collect();
        let live: Vec<Vec<(u32, u32)>> = buffers
            .iter()
            .map(|b| b.pieces().iter().map(|p| (section_of(p.start), section_of(p.end))).collect())
            .collect();
        let section_count = times.len().saturating_sub(1);
        let searched: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
        // Section totals by a difference array: one add at the first section, one subtract after the last.
        let mut delta = vec![0i128; section_count + 1];
        for &i in &searched {
            for &(from, to) in &live[i] {
                delta[from as usize] += buffers[i].size as i128;
                delta[to as usize] -= buffers[i].size as i128;
            }
        }
        let mut running = 0i128;
        let section_total = delta[..section_count]
            .iter()
            .map(|d| {
                running += d;
                running as u64 // no overflow: the max load fits in u64 (checked by Problem::new)
            })
            .collect();
        Layout { searched, first, last, live, section_total }
    }

    /// Roughly what a search node costs: the tests at each node walk over the unplaced buffers,
    /// each one's sections and the sections (see [`super::node_cost`]).
    pub(super) fn node_cost(&self) -> u64 {
        let spans: u64 = self.searched.iter().map(|&i| (self.last[i] - self.first[i]) as u64).sum();
        self.searched.len() as u64 + spans + self.section_total.len() as u64
    }

    /// The keys of the static pre-orderings, by problem index.
    pub(super) fn keys(&self, problem: &Problem) -> Keys {
        let buffers = problem.buffers();
        let total = (0..buffers.len())
            .map(|i| {
                let (a, b) = (self.first[i] as usize, self.last[i] as usize);
                self.section_total[a..b].iter().copied().max().unwrap_or(0)
            })
            .collect();
        Keys {
            total,
            width: buffers.iter().map(|b| b.lifetime()).collect(),
            area: buffers.iter().map(|b| b.size as u128 * b.lifetime() as u128).collect(),
            size: buffers.iter().map(|b| b.size).collect(),
        }
    }

    /// Counts the overlapping pairs of searched buffers (by a sweep), to refuse hopeless inputs
    /// before building the lists.
    pub(super) fn overlapping_pairs(&self) -> usize {
        let mut events: Vec<(u32, bool)> =
            self.searched.iter().flat_map(|&i| [(self.first[i], true), (self.last[i], false)]).collect();
        // Ends before starts at one section boundary: half-open lifetimes that touch do not overlap.
        events.sort_unstable_by_key(|&(section, is_start)| (section, is_start));
        let (mut alive, mut pairs) = (0usize, 0usize);
        for (_, is_start) in events {
            if is_start {
                pairs += alive;
                alive += 1;
            } else {
                alive -= 1;
            }
        }
        pairs
    }

    /// The instance for one ordering: `order` lists the searched buffers' problem indices by rank.
    pub(super) fn instance(&self, problem: &Problem, order: &[usize]) -> RankedBuffers {
        let buffers = problem.buffers();
        let n = order.len();
        let mut rank_of = vec![u32::MAX; buffers.len()];
        for (rank, &i) in order.iter().enumerate() {
            rank_of[i] = rank as u32;
        }
        // Neighbours by a sweep over sections: each start meets every buffer still alive.
        let mut by_start: Vec<u32> = (0..n as u32).collect();
        by_start.sort_unstable_by_key(|&r| self.first[order[r as usize]]);
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut alive: Vec<u32> = Vec::new();
        for &r in &by_start {
            let start = self.first[order[r as usize]];
            alive.retain(|&other| self.last[order[other as usize]] > start);
            let buffer = &buffers[order[r as usize]];
            for &other in &alive {
                if buffer.alive_together(&buffers[order[other as usize]]) {
                    lists[r as usize].push(other);
                    lists[other as usize].push(r);
                }
            }
            alive.push(r);
        }
        let mut neighbour_start = Vec::with_capacity(n + 1);
        let mut neighbours = Vec::new();
        for list in &mut lists {
            neighbour_start.push(neighbours.len() as u32);
            list.sort_unstable();
            neighbours.extend_from_slice(list);
        }
        neighbour_start.push(neighbours.len() as u32);
        // Obstacles: pinned buffers overlapping in time (rare; a plain scan).
        let pinned: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
        let mut obstacle_start = Vec::with_capacity(n + 1);
        let mut obstacles = Vec::new();
        for &i in order {
            obstacle_start.push(obstacles.len() as u32);
            let from = obstacles.len();
            for &p in &pinned {
                if buffers[p].alive_together(&buffers[i]) {
                    let offset = buffers[p].pinned.unwrap_or(0); // filtered above
                    obstacles.push(Obstacle { offset, top: offset + buffers[p].size });
                }
            }
            obstacles[from..].sort_unstable_by_key(|o| o.offset);
        }
        obstacle_start.push(obstacles.len() as u32);
        debug_assert!(order.iter().all(|&i| rank_of[i] != u32::MAX));
        let (twin_start, twins) = twins(buffers, order);
        let smallest_neighbour = (0..n)
            .map(|r| {
                neighbours[neighbour_start[r] as usize..neighbour_start[r + 1] as usize]
                    .iter()
                    .map(|&o| buffers[order[o as usize]].size)
                    .min()
                    .unwrap_or(u64::MAX)
            })
            .collect();
        let (member_start, members) = self.members(order);
        let mut live_start = Vec::with_capacity(n + 1);
        let mut live = Vec::new();
        for &i in order {
            live_start.push(live.len() as u32);
            live.extend_from_slice(&self.live[i]);
        }
        live_start.push(live.len() as u32);
        let (classes, rank_slots, class_slots, class_pad) = self.classes(problem, order);
        let (pin_start, pins) = self.pins(problem);
        RankedBuffers {
            original: order.to_vec(),
            size: order.iter().map(|&i| buffers[i].size).collect(),
            alignment: order.iter().map(|&i| buffers[i].alignment()).collect(),
            first: order.iter().map(|&i| self.first[i]).collect(),
            last: order.iter().map(|&i| self.last[i]).collect(),
            live_start,
            live,
            neighbour_start,
            neighbours,
            obstacle_start,
            obstacles,
            section_total: self.section_total.clone(),
            pin_start,
            pins,
            classes,
            rank_slots,
            class_slots,
            class_pad,
            smallest_neighbour,
            twin_start,
            twins,
            member_start,
            members,
            preorder_key: Vec::new(),
            total_key: None,
        }
    }

    /// The alignment classes and their slot counts (see [`RankedBuffers::classes`]).
    #[allow(clippy::type_complexity)]
    fn classes(&self, problem: &Problem, order: &[usize]) -> (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>) {
        let buffers = problem.buffers();
        let mut classes: Vec<u64> = order.iter().map(|&i| buffers[i].alignment()).filter(|&a| a > 1).collect();
        classes.sort_unstable();
        classes.dedup();
        let drop = classes.len().saturating_sub(MAX_CLASSES);
        classes.drain(..drop);
        let k = classes.len();
        let sections = self.section_total.len();
        let mut rank_slots = vec![0u64; order.len() * k];
        let mut class_slots = vec![0u64; sections * k];
        let mut class_pad = vec![0u64; sections * k];
        for (rank, &i) in order.iter().enumerate() {
            let b = &buffers[i];
            for (c, &a) in classes.iter().enumerate() {
                if !b.alignment().is_multiple_of(a) || b.size == 0 {
                    continue;
                }
                let slots = b.size.div_ceil(a);
                // At most a − 1; past u64 (sizes near 2^64) that bound stands in for it.
                let pad = slots.checked_mul(a).map_or(a - 1, |padded| padded - b.size);
                rank_slots[rank * k + c] = slots;
                for &(from, to) in &self.live[i] {
                    for s in from as usize..to as usize {
                        class_slots[s * k + c] += slots;
                        class_pad[s * k + c] = class_pad[s * k + c].max(pad);
                    }
                }
            }
        }
        (classes, rank_slots, class_slots, class_pad)
    }

    /// The bytes the pinned buffers hold in each section, merged into disjoint ranges sorted by
    /// offset (see [`RankedBuffers::pins`]): each live piece of a pinned buffer holds its window of
    /// bytes (all of them outside gaps) in the sections the piece spans.
    fn pins(&self, problem: &Problem) -> (Vec<u32>, Vec<Obstacle>) {
        let buffers = problem.buffers();
        let sections = self.section_total.len();
        let mut held: Vec<Vec<Obstacle>> = vec![Vec::new(); sections];
        for (i, b) in buffers.iter().enumerate() {
            let Some(offset) = b.pinned else { continue };
            // `live` keeps the pieces in the order `pieces` gives them, one range each.
            for (piece, &(from, to)) in b.pieces().iter().zip(&self.live[i]) {
                let range =
                    Obstacle { offset: offset.saturating_add(piece.lower), top: offset.saturating_add(piece.upper) };
                for section in &mut held[from as usize..to as usize] {
                    section.push(range);
                }
            }
        }
        let mut pin_start = Vec::with_capacity(sections + 1);
        let mut pins: Vec<Obstacle> = Vec::new();
        for mut section in held {
            pin_start.push(pins.len() as u32);
            section.sort_unstable_by_key(|o| o.offset);
            for range in section {
                match pins[*pin_start.last().unwrap_or(&0) as usize..].last_mut() {
                    Some(last) if range.offset <= last.top => last.top = last.top.max(range.top),
                    _ => pins.push(range),
                }
            }
        }
        pin_start.push(pins.len() as u32);
        (pin_start, pins)
    }

    /// The ranks alive in each section, as flat lists (see [`RankedBuffers::members`]).
    fn members(&self, order: &[usize]) -> (Vec<u32>, Vec<u32>) {
        let sections = self.section_total.len();
        let mut count = vec![0u32; sections + 1];
        for &i in order {
            for s in self.first[i]..self.last[i] {
                count[s as usize + 1] += 1;
            }
        }
        for s in 0..sections {
            count[s + 1] += count[s];
        }
        let mut fill = count.clone();
        let mut members = vec![0u32; count[sections] as usize];
        for (rank, &i) in order.iter().enumerate() {
            for s in self.first[i]..self.last[i] {
                members[fill[s as usize] as usize] = rank as u32;
                fill[s as usize] += 1;
            }
        }
        (count, members)
    }
}

/// The lowest top of `bytes` bytes laid from `from` up around `pins` (disjoint, sorted by offset):
/// each pin that starts below the top reached so far pushes it up by the bytes it holds above
/// `from` (`u64::MAX` past u64).
pub(super) fn top_around(pins: &[Obstacle], from: u64, bytes: u64) -> u64 {
    let mut top = from.saturating_add(bytes);
    for pin in pins {
        if pin.offset >= top {
            break;
        }
        if pin.top > from {
            top = top.saturating_add(pin.top - pin.offset.max(from));
        }
    }
    top
}

/// Groups of unaligned buffers with the same lifetime (and the same gaps), as lists per rank.
fn twins(buffers: &[crate::Buffer], order: &[usize]) -> (Vec<u32>, Vec<u32>) {
    let mut by_lifetime: Vec<u32> =
        (0..order.len() as u32).filter(|&r| buffers[order[r as usize]].alignment() == 1).collect();
    by_lifetime.sort_unstable_by_key(|&r| (buffers[order[r as usize]].start, buffers[order[r as usize]].end, r));
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); order.len()];
    for group in by_lifetime.chunk_by(|&a, &b| {
        let (x, y) = (&buffers[order[a as usize]], &buffers[order[b as usize]]);
        (x.start, x.end) == (y.start, y.end) && x.gaps == y.gaps
    }) {
        for &r in group {
            lists[r as usize] = group.iter().copied().filter(|&t| t != r).collect();
        }
    }
    let mut start = Vec::with_capacity(order.len() + 1);
    let mut flat = Vec::new();
    for list in lists {
        start.push(flat.len() as u32);
        flat.extend(list);
    }
    start.push(flat.len() as u32);
    (start, flat)
}

impl RankedBuffers {
    pub(super) fn len(&self) -> usize {
        self.size.len()
    }

    pub(super) fn neighbours(&self, rank: usize) -> &[u32] {
        &self.neighbours[self.neighbour_start[rank] as usize..self.neighbour_start[rank + 1] as usize]
    }

    pub(super) fn twins(&self, rank: usize) -> &[u32] {
        &self.twins[self.twin_start[rank] as usize..self.twin_start[rank + 1] as usize]
    }

    pub(super) fn members(&self, section: usize) -> &[u32] {
        &self.members[self.member_start[section] as usize..self.member_start[section + 1] as usize]
    }

    /// The bytes pinned buffers hold in section `s` (see [`RankedBuffers::pins`]).
    pub(super) fn pins(&self, s: usize) -> &[Obstacle] {
        &self.pins[self.pin_start[s] as usize..self.pin_start[s + 1] as usize]
    }

    /// The lowest top of `bytes` bytes laid from `from` up in section `s`, around the bytes its
    /// pinned buffers hold (`u64::MAX` past u64).
    pub(super) fn top_around_pins(&self, s: usize, from: u64, bytes: u64) -> u64 {
        top_around(self.pins(s), from, bytes)
    }

    /// The section ranges where buffer `rank` is alive.
    pub(super) fn live(&self, rank: usize) -> &[(u32, u32)] {
        &self.live[self.live_start[rank] as usize..self.live_start[rank + 1] as usize]
    }

    pub(super) fn obstacles(&self, rank: usize) -> &[Obstacle] {
        &self.obstacles[self.obstacle_start[rank] as usize..self.obstacle_start[rank + 1] as usize]
    }

    /// The lowest aligned offset at or above `floor` where buffer `rank` does not cut through a
    /// pinned buffer, or `None` past u64.
    pub(super) fn lowest_fit(&self, rank: usize, floor: u64) -> Option<u64> {
        let alignment = self.alignment[rank];
        let size = self.size[rank];
        let mut offset = crate::alignment::align_up(floor, alignment)?;
        // Obstacles are sorted by offset: one pass pushes the offset above each one it hits.
        for obstacle in self.obstacles(rank) {
            if obstacle.offset >= offset.checked_add(size)? {
                break;
            }
            if obstacle.top > offset {
                offset = crate::alignment::align_up(obstacle.top, alignment)?;
            }
        }
        Some(offset)
    }
}
