//! The exact search for instances with windowed gaps, where a buffer occupies only bytes
//! `[offset + lower, offset + upper)` of itself during a gap. The canonical search places each
//! buffer on top of the placed ones it meets, in increasing offset; with windows that is not
//! complete: a buffer at a higher offset may have a piece below a piece of one at a lower offset,
//! and the lower one may rest on it. This search chooses the buffer as well as the offset.
//!
//! Candidates: a buffer goes where one of its pieces rests on top of a placed piece alive at the
//! same time (or near 0), at an offset a multiple of its alignment. With `L` the least common
//! multiple of the searched buffers' alignments, "rests on" means: the buffer would meet that
//! piece at some offset in `[o − L, o)`, i.e. `o` lies in `[t, t + L)` where `t` is the offset at
//! which the two pieces touch; "near 0" means `o < L`. Without alignment (`L` = 1) these are the
//! offsets where the pieces touch, and 0.
//!
//! Why it is complete: take a plan within the capacity with the least sum of offsets. Say a buffer
//! is supported by another when it would meet it at some offset in `[o − L, o)`. Every buffer not
//! below `L` is supported: otherwise the set of buffers reachable from it through supports (all
//! above `L`, and supported only inside the set) could move down by `L` together, keeping every
//! alignment and every conflict outside the set away, which lowers the sum. So from any set of
//! placed buffers of that plan some unplaced one is supported by a placed one or lies below `L`:
//! its offset in the plan is a candidate, and no conflict with the placed buffers. Placing, at each
//! step, the one of least rank among those gives a sequence of candidates the search walks.
//!
//! Pruning: in that sequence, a buffer placed right after one of higher rank was not a candidate
//! before that one was placed (else it would have gone first): the search skips a candidate of a
//! lower rank than the last buffer placed when its offset was a candidate before it. A node where
//! some unplaced buffer has no candidate that fits is cut: its lowest fit is a candidate (the
//! offset `a` below it meets a placed piece, or it is below `a`), so it has no fit at all. So is
//! one where, in some elementary time interval, the unplaced pieces need more bytes than the free
//! stretches between the placed ones hold, counting only stretches as tall as the smallest of
//! them. A buffer none of whose neighbours (buffers alive with it at some time) is unplaced is
//! free: where it goes changes nothing for the others, so it is not branched on, and once every
//! unplaced buffer is free each goes at its lowest fit. (The sequence above, with the free
//! buffers left out, is still one the search walks: a buffer that is not free is supported only
//! by placed buffers or others that are not free, and the argument runs on those.) None of these
//! rules looks at sections' totals, dominance or symmetry, which assume a buffer's bytes are all
//! alive together.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::alignment::{align_up, lcm};
use crate::model::{Buffer, Problem};

use super::search::{Allowance, Counters, Ending};
use super::transpositions::{self, KeyHasher};

/// Candidates per touching piece at most (`L` over a buffer's alignment): past it the search
/// would be slow, and the solver plans such instances with their windows alive instead.
pub(super) const MAX_LATTICE_STEPS: u64 = 256;

/// Searched buffers at most: every node keeps the fits of every unplaced buffer (quadratic memory
/// down a branch), and the search proves little on larger instances with windows.
pub(super) const MAX_BUFFERS: usize = 512;

/// Refuted nodes remembered at most (16 bytes each), then forgotten all at once.
const MEMO_LIMIT: usize = 1 << 20;

/// How often (in nodes) the deadline is polled.
const POLL_EVERY: u64 = 256;

/// Whether `problem` needs this search: some buffer has a windowed gap.
pub(super) fn applies(problem: &Problem) -> bool {
    problem.buffers().iter().any(|b| b.gaps.iter().any(|g| g.window.is_some()))
}

/// Whether this search takes `problem` (else the solver plans its windows as alive): at most
/// [`MAX_BUFFERS`] unpinned buffers, and few candidates per touch ([`lattice`]).
pub(super) fn takes(problem: &Problem) -> bool {
    problem.buffers().iter().filter(|b| b.pinned.is_none()).count() <= MAX_BUFFERS && lattice(problem).is_some()
}

/// The least common multiple of the unpinned buffers' alignments, if the search's candidates
/// stay few with it (see [`MAX_LATTICE_STEPS`]).
pub(super) fn lattice(problem: &Problem) -> Option<u64> {
    let unpinned = problem.buffers().iter().filter(|b| b.pinned.is_none());
    let step = unpinned.clone().try_fold(1u64, |step, b| lcm(step, b.alignment().max(1)))?;
    unpinned.map(|b| step / b.alignment().max(1)).max().is_none_or(|steps| steps <= MAX_LATTICE_STEPS).then_some(step)
}

/// Two pieces alive at one time: the searched buffer's bytes `[lower, upper)` and the other's
/// `[other_lower, other_upper)`, each above its own offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Contact {
    other: u32,
    lower: u64,
    upper: u64,
    other_lower: u64,
    other_upper: u64,
}

/// A piece of a pinned buffer alive with a piece `[lower, upper)` of the searched buffer: it
/// holds the absolute bytes `[low, high)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fixed {
    lower: u64,
    upper: u64,
    low: u64,
    high: u64,
}

/// The searched buffers, by rank (larger areas first), with every pair of pieces that meet in time.
#[derive(Clone, Debug)]
pub(super) struct Model {
    /// For each rank, the buffer's index in the problem.
    original: Vec<usize>,
    size: Vec<u64>,
    alignment: Vec<u64>,
    contacts: Vec<Vec<Contact>>,
    fixed: Vec<Vec<Fixed>>,
    lattice: u64,
    /// Per elementary time interval (between consecutive times where a piece starts or ends),
    /// the pieces alive in it; and per rank, the intervals where it has a piece.
    sections: Vec<Vec<Member>>,
    alive_in: Vec<Vec<u32>>,
    /// Per rank, the other unpinned buffers alive at some time with it.
    neighbours: Vec<Vec<u32>>,
}

/// A piece alive in a section: bytes `[lower, upper)` above the offset of the buffer of rank
/// `rank`, or, for a pinned buffer (`rank` = `u32::MAX`), the absolute bytes.
#[derive(Clone, Copy, Debug)]
struct Member {
    rank: u32,
    lower: u64,
    upper: u64,
}

impl Model {
    /// `None` when the search does not take the problem ([`takes`]).
    pub(super) fn new(problem: &Problem) -> Option<Model> {
        if !takes(problem) {
            return None;
        }
        let lattice = lattice(problem)?;
        let buffers = problem.buffers();
        let mut original: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
        let area = |b: &Buffer| b.size as u128 * b.lifetime() as u128;
        original.sort_by_key(|&i| (std::cmp::Reverse(area(&buffers[i])), std::cmp::Reverse(buffers[i].size), i));
        let mut rank_of = vec![u32::MAX; buffers.len()];
        for (rank, &i) in original.iter().enumerate() {
            rank_of[i] = rank as u32;
        }
        let pieces: Vec<_> = buffers.iter().map(Buffer::pieces).collect();
        let mut contacts = vec![Vec::new(); original.len()];
        let mut fixed = vec![Vec::new(); original.len()];
        for (rank, &i) in original.iter().enumerate() {
            for (j, other) in buffers.iter().enumerate() {
                if j == i || !buffers[i].overlaps_in_time(other) {
                    continue;
                }
                for p in &pieces[i] {
                    for q in pieces[j].iter().filter(|q| p.start < q.end && q.start < p.end) {
                        match other.pinned {
                            Some(offset) => fixed[rank].push(Fixed {
                                lower: p.lower,
                                upper: p.upper,
                                low: offset + q.lower,
                                high: offset + q.upper, // within u64: checked by Problem::new
                            }),
                            None => contacts[rank].push(Contact {
                                other: rank_of[j],
                                lower: p.lower,
                                upper: p.upper,
                                other_lower: q.lower,
                                other_upper: q.upper,
                            }),
                        }
                    }
                }
            }
            let own = &mut contacts[rank];
            own.sort_unstable_by_key(|c| (c.other, c.lower, c.upper, c.other_lower, c.other_upper));
            own.dedup();
            fixed[rank].sort_unstable_by_key(|f| (f.low, f.high, f.lower, f.upper));
            fixed[rank].dedup();
        }
        let mut times: Vec<u64> = pieces.iter().flatten().flat_map(|p| [p.start, p.end]).collect();
        times.sort_unstable();
        times.dedup();
        let mut sections = vec![Vec::new(); times.len().saturating_sub(1)];
        let mut alive_in = vec![Vec::new(); original.len()];
        for (i, b) in buffers.iter().enumerate() {
            for p in &pieces[i] {
                let (first, last) = (times.partition_point(|&t| t < p.start), times.partition_point(|&t| t < p.end));
                for (s, members) in sections.iter_mut().enumerate().take(last).skip(first) {
                    members.push(match b.pinned {
                        Some(offset) => Member { rank: u32::MAX, lower: offset + p.lower, upper: offset + p.upper },
                        None => {
                            alive_in[rank_of[i] as usize].push(s as u32);
                            Member { rank: rank_of[i], lower: p.lower, upper: p.upper }
                        }
                    });
                }
            }
        }
        let neighbours = contacts
            .iter()
            .map(|own: &Vec<Contact>| {
                let mut others: Vec<u32> = own.iter().map(|c| c.other).collect();
                others.dedup();
                others
            })
            .collect();
        Some(Model {
            sections,
            alive_in,
            neighbours,
            size: original.iter().map(|&i| buffers[i].size).collect(),
            alignment: original.iter().map(|&i| buffers[i].alignment().max(1)).collect(),
            original,
            contacts,
            fixed,
            lattice,
        })
    }

    pub(super) fn len(&self) -> usize {
        self.original.len()
    }
}

/// A candidate placement: a buffer (rank) at an offset.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    offset: u64,
    rank: u32,
}

/// One node: its candidates are `candidates[from..to]`, tried from `next` on; `trying` is the
/// rank placed below it, if any. `fits[fits_from..fits_to]` are every unplaced buffer's offsets
/// that are candidates and fit at this node, by rank then offset: a child's are these, less those
/// that meet the buffer just placed, and the offsets that rest on it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    from: usize,
    to: usize,
    next: usize,
    trying: Option<u32>,
    fits_from: usize,
    fits_to: usize,
    /// The node's state (see [`Piecewise::key`]), remembered when it is refuted.
    key: u128,
}

/// An offset where an unplaced buffer fits at a node.
#[derive(Clone, Copy, Debug)]
struct Fit {
    rank: u32,
    offset: u64,
}

/// A resumable depth-first search of one capacity (see the module documentation).
pub(super) struct Piecewise<'m> {
    model: &'m Model,
    capacity: u64,
    /// The rule that skips candidates a lower rank could have taken before (off: every candidate).
    ordered: bool,
    pub counters: Counters,
    placed: Vec<bool>,
    offset: Vec<u64>,
    /// Per rank, how many of its neighbours are unplaced: with none it is free (see
    /// [`Piecewise::keep`]).
    open: Vec<u32>,
    /// The ranks placed, in order.
    order: Vec<u32>,
    stack: Vec<Frame>,
    candidates: Vec<Candidate>,
    fits: Vec<Fit>,
    /// Scratch: one buffer's offsets before they are checked, with whether each was a candidate
    /// before the last placement.
    scratch: Vec<(u64, bool)>,
    /// Scratch of [`Piecewise::holes_hold`]: the placed pieces of a section, as byte ranges.
    taken: Vec<(u64, u64)>,
    /// XOR of [`transpositions::key`] over the placed buffers and their offsets.
    placed_hash: u128,
    /// Refuted nodes, by state: with `memo` off, none.
    memo: bool,
    refuted: HashSet<u128, BuildHasherDefault<KeyHasher>>,
    started: bool,
    finished: Option<Ending>,
    next_poll: u64,
    /// The lowest capacity at which a cut made so far would not have been made (see
    /// [`Piecewise::refuted_below`]).
    threshold: u64,
}

impl<'m> Piecewise<'m> {
    pub(super) fn new(model: &'m Model, capacity: u64, ordered: bool, memo: bool) -> Self {
        let n = model.len();
        Piecewise {
            model,
            capacity,
            ordered,
            counters: Counters::default(),
            placed: vec![false; n],
            offset: vec![0; n],
            open: model.neighbours.iter().map(|list| list.len() as u32).collect(),
            order: Vec::with_capacity(n),
            stack: Vec::new(),
            candidates: Vec::new(),
            fits: Vec::new(),
            scratch: Vec::new(),
            taken: Vec::new(),
            placed_hash: 0,
            memo,
            refuted: HashSet::default(),
            started: false,
            finished: None,
            next_poll: POLL_EVERY,
            threshold: u64::MAX,
        }
    }

    /// After an exhausted search: no placement fits any capacity below this. Only the tests
    /// "offset + size within the capacity" compare with it, and each cut below some value; at any
    /// capacity under the least of them the search walks the same tree.
    pub(super) fn refuted_below(&self) -> u64 {
        self.threshold.max(self.capacity.saturating_add(1))
    }

    /// The offsets by problem index (pinned buffers at theirs) and the placement order (pinned
    /// first), once solved.
    pub(super) fn plan(&self, problem: &Problem) -> (Vec<u64>, Vec<usize>) {
        let buffers = problem.buffers();
        let mut offsets: Vec<u64> = buffers.iter().map(|b| b.pinned.unwrap_or(0)).collect();
        for (rank, &i) in self.model.original.iter().enumerate() {
            offsets[i] = self.offset[rank];
        }
        let mut order: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
        order.extend(self.order.iter().map(|&rank| self.model.original[rank as usize]));
        (offsets, order)
    }

    /// Searches until solved, exhausted or stopped by `allowance`; run again, it resumes.
    pub(super) fn run(&mut self, allowance: &Allowance) -> Ending {
        if let Some(outcome) = self.finished {
            return outcome;
        }
        let outcome = self.search(allowance);
        if outcome != Ending::Stopped {
            self.finished = Some(outcome);
        }
        outcome
    }

    fn search(&mut self, allowance: &Allowance) -> Ending {
        if !self.started {
            self.started = true;
            if self.model.len() == 0 {
                return Ending::Solved;
            }
            match self.expand() {
                Some(frame) if self.finish_free(&frame) => return Ending::Solved,
                Some(frame) => self.stack.push(frame),
                None => return Ending::Exhausted,
            }
        }
        while let Some(frame) = self.stack.last_mut() {
            if let Some(rank) = frame.trying.take() {
                self.unplace(rank);
                continue;
            }
            if frame.next == frame.to {
                let key = frame.key;
                self.candidates.truncate(frame.from);
                self.fits.truncate(frame.fits_from);
                self.remember(key);
                self.stack.pop();
                self.counters.backtracks += 1;
                continue;
            }
            if self.counters.nodes >= allowance.node_limit {
                return Ending::Stopped;
            }
            if self.counters.nodes >= self.next_poll {
                self.next_poll = self.counters.nodes + POLL_EVERY;
                if allowance.deadline.expired().is_some() || (allowance.abandon)() {
                    return Ending::Stopped;
                }
            }
            let candidate = self.candidates[frame.next];
            frame.next += 1;
            frame.trying = Some(candidate.rank);
            let parent = (frame.fits_from, frame.fits_to);
            self.place(candidate.rank, candidate.offset);
            self.counters.nodes += 1;
            if self.order.len() == self.model.len() {
                return Ending::Solved;
            }
            if self.memo && self.refuted.contains(&self.key()) {
                self.counters.pruned_memo += 1;
                continue;
            }
            if let Some(child) = self.expand_child(parent) {
                if self.finish_free(&child) {
                    return Ending::Solved;
                }
                self.stack.push(child);
            }
        }
        Ending::Exhausted
    }

    /// When every unplaced buffer is free (none alive with another unplaced one), places each at
    /// its lowest fit at `frame`'s node: they meet no one else now. Returns whether it did.
    fn finish_free(&mut self, frame: &Frame) -> bool {
        if frame.from != frame.to || (0..self.model.len()).any(|r| !self.placed[r] && self.open[r] > 0) {
            return false;
        }
        let mut k = frame.fits_from;
        while k < frame.fits_to {
            let Fit { rank, offset } = self.fits[k];
            self.place(rank, offset);
            // Its other fits: the lowest one, first, is taken.
            while k < frame.fits_to && self.fits[k].rank == rank {
                k += 1;
            }
        }
        true
    }

    /// What the search below the node reached depends on: the placed buffers with their offsets
    /// (which give every unplaced buffer's fits) and the last one placed (which the ordering rule
    /// reads).
    fn key(&self) -> u128 {
        let last = self.order.last().map_or(u32::MAX, |&rank| rank);
        self.placed_hash ^ transpositions::key(last, u64::MAX)
    }

    /// Remembers a refuted node.
    fn remember(&mut self, key: u128) {
        if self.memo {
            if self.refuted.len() >= MEMO_LIMIT {
                self.refuted.clear();
            }
            self.refuted.insert(key);
        }
    }

    fn place(&mut self, rank: u32, offset: u64) {
        self.placed_hash ^= transpositions::key(rank, offset);
        for &other in &self.model.neighbours[rank as usize] {
            self.open[other as usize] -= 1;
        }
        self.placed[rank as usize] = true;
        self.offset[rank as usize] = offset;
        self.order.push(rank);
    }

    fn unplace(&mut self, rank: u32) {
        self.placed_hash ^= transpositions::key(rank, self.offset[rank as usize]);
        for &other in &self.model.neighbours[rank as usize] {
            self.open[other as usize] += 1;
        }
        self.placed[rank as usize] = false;
        self.order.pop();
    }

    /// The root's candidates: offsets near 0 and on the pinned pieces. `None` when some buffer
    /// fits nowhere.
    fn expand(&mut self) -> Option<Frame> {
        let (from, fits_from) = (self.candidates.len(), self.fits.len());
        let model = self.model;
        let mut offsets = std::mem::take(&mut self.scratch);
        let mut alive = true;
        for rank in 0..model.len() as u32 {
            let r = rank as usize;
            offsets.clear();
            offsets.extend((0..model.lattice).step_by(model.alignment[r] as usize).map(|o| (o, true)));
            for f in &model.fixed[r] {
                if f.high > f.lower {
                    self.touch(r, f.high - f.lower, true, &mut offsets);
                }
            }
            offsets.retain(|&(offset, _)| self.fits_at(r, offset));
            if !self.keep(rank, &mut offsets, None) {
                alive = false;
                break;
            }
        }
        self.scratch = offsets;
        let alive = alive && (0..model.sections.len()).all(|s| self.holes_hold(s));
        self.close(from, fits_from, alive)
    }

    /// The candidates of the node reached by the last placement, from its parent's fits
    /// `fits[parent.0..parent.1]` (see [`Frame`]).
    fn expand_child(&mut self, parent: (usize, usize)) -> Option<Frame> {
        let (from, fits_from) = (self.candidates.len(), self.fits.len());
        let model = self.model;
        let last = *self.order.last()?;
        let w = last as usize;
        let base = self.offset[w];
        let mut offsets = std::mem::take(&mut self.scratch);
        let mut alive = true;
        let mut i = parent.0;
        for rank in 0..model.len() as u32 {
            let r = rank as usize;
            if self.placed[r] {
                continue;
            }
            offsets.clear();
            while i < parent.1 && self.fits[i].rank < rank {
                i += 1;
            }
            let contacts = &model.contacts[r];
            let with_last = contacts.partition_point(|c| c.other < last)..contacts.partition_point(|c| c.other <= last);
            let meets_last = |offset: u64| {
                contacts[with_last.clone()].iter().any(|c| {
                    (offset as u128 + c.lower as u128) < (base + c.other_upper) as u128
                        && ((base + c.other_lower) as u128) < offset as u128 + c.upper as u128
                })
            };
            while i < parent.1 && self.fits[i].rank == rank {
                let offset = self.fits[i].offset;
                if !meets_last(offset) {
                    offsets.push((offset, true));
                }
                i += 1;
            }
            let kept = offsets.len();
            for c in &contacts[with_last.clone()] {
                let top = base + c.other_upper;
                if top > c.lower {
                    self.touch(r, top - c.lower, false, &mut offsets);
                }
            }
            // The new offsets must fit every placed buffer; the parent's fit all but the last.
            let mut k = kept;
            while k < offsets.len() {
                if self.fits_at(r, offsets[k].0) {
                    k += 1;
                } else {
                    offsets.swap_remove(k);
                }
            }
            if !self.keep(rank, &mut offsets, Some(last)) {
                alive = false;
                break;
            }
        }
        self.scratch = offsets;
        // Only where the last buffer is alive did the holes or the unplaced pieces change.
        let alive = alive && model.alive_in[w].iter().all(|&s| self.holes_hold(s as usize));
        self.close(from, fits_from, alive)
    }

    /// Whether the unplaced pieces of section `s` can still fit in its free bytes: they are alive
    /// together there, so each takes a free stretch (hole) of its own among the placed pieces
    /// under the capacity, and a hole smaller than the smallest of them holds none.
    fn holes_hold(&mut self, s: usize) -> bool {
        let mut taken = std::mem::take(&mut self.taken);
        taken.clear();
        let (mut needed, mut smallest) = (0u64, u64::MAX);
        for m in &self.model.sections[s] {
            if m.rank == u32::MAX {
                taken.push((m.lower, m.upper));
            } else if self.placed[m.rank as usize] {
                let base = self.offset[m.rank as usize];
                taken.push((base + m.lower, base + m.upper));
            } else {
                needed += m.upper - m.lower;
                smallest = smallest.min(m.upper - m.lower);
            }
        }
        let mut holds = true;
        if needed > 0 {
            taken.sort_unstable();
            let (mut usable, mut free_from) = (0u64, 0u64);
            for &(low, high) in taken.iter().chain(std::iter::once(&(self.capacity, self.capacity))) {
                let hole = low.min(self.capacity).saturating_sub(free_from);
                if hole >= smallest {
                    usable += hole;
                }
                free_from = free_from.max(high);
            }
            holds = needed <= usable;
            if !holds {
                // A larger capacity widens the hole at the top: it may pass from one byte up.
                self.threshold = self.threshold.min(self.capacity.saturating_add(1));
            }
        }
        self.taken = taken;
        holds
    }

    /// Ends a node's expansion: sorts its candidates, or undoes them when it is cut.
    fn close(&mut self, from: usize, fits_from: usize, alive: bool) -> Option<Frame> {
        if !alive {
            self.candidates.truncate(from);
            self.fits.truncate(fits_from);
            self.counters.pruned_inference += 1;
            let key = self.key();
            self.remember(key);
            return None;
        }
        let to = self.candidates.len();
        self.candidates[from..to].sort_unstable_by_key(|c| (c.offset, c.rank));
        let key = self.key();
        Some(Frame { from, to, next: from, trying: None, fits_from, fits_to: self.fits.len(), key })
    }

    /// Pushes the offsets at or above `t` (where a piece of buffer `r` rests on another) within
    /// the lattice's reach (see the module documentation), multiples of its alignment.
    fn touch(&self, r: usize, t: u64, earlier: bool, offsets: &mut Vec<(u64, bool)>) {
        let (alignment, lattice) = (self.model.alignment[r], self.model.lattice);
        let Some(mut o) = align_up(t, alignment) else { return };
        while o < t.saturating_add(lattice) {
            offsets.push((o, earlier));
            let Some(next) = o.checked_add(alignment) else { break };
            o = next;
        }
    }

    /// Records the offsets of `rank` that fit (each placed buffer already checked) under the
    /// capacity as its fits, and those the ordering rule lets through as candidates; `earlier`
    /// says an offset was a candidate before the last placement. Returns whether any fits.
    fn keep(&mut self, rank: u32, offsets: &mut Vec<(u64, bool)>, last: Option<u32>) -> bool {
        let size = self.model.size[rank as usize];
        offsets.sort_unstable_by_key(|&(o, earlier)| (o, !earlier));
        offsets.dedup_by_key(|&mut (o, _)| o);
        let mut fits = false;
        for &(offset, earlier) in offsets.iter() {
            match offset.checked_add(size) {
                Some(top) if top <= self.capacity => {}
                top => {
                    self.threshold = self.threshold.min(top.unwrap_or(u64::MAX));
                    self.counters.pruned_capacity += 1;
                    // Sorted: every later offset is higher still.
                    break;
                }
            }
            fits = true;
            self.fits.push(Fit { rank, offset });
            // A free buffer is placed last, at its lowest fit (see [`Piecewise::finish_free`]).
            if self.open[rank as usize] == 0 && self.ordered {
                continue;
            }
            if self.ordered && earlier && last.is_some_and(|w| rank < w) {
                self.counters.pruned_canonical += 1;
                continue;
            }
            self.candidates.push(Candidate { offset, rank });
        }
        fits
    }

    /// Whether buffer `r` at `offset` meets no placed piece nor pinned one.
    fn fits_at(&self, r: usize, offset: u64) -> bool {
        let model = self.model;
        let meets = |lower: u64, upper: u64, low: u64, high: u64| {
            (offset as u128 + lower as u128) < high as u128 && (low as u128) < offset as u128 + upper as u128
        };
        let clear_of_placed = model.contacts[r].iter().all(|c| {
            let other = c.other as usize;
            !self.placed[other] || {
                let base = self.offset[other];
                !meets(c.lower, c.upper, base + c.other_lower, base + c.other_upper)
            }
        });
        clear_of_placed && model.fixed[r].iter().all(|f| !meets(f.lower, f.upper, f.low, f.high))
    }
}
