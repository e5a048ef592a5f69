//! Tiling: an exact feasibility search for *tight* capacities, where no byte may be wasted.
//!
//! When every time section that has a live buffer holds exactly `capacity` bytes of them (a
//! perfect packing probed at its lower bound L, say), a plan leaves no hole anywhere: below the
//! skyline of the buffers placed so far every byte is used. The search keeps that skyline (per
//! section, the height filled) and always covers its lowest cell. Take the lowest run of sections
//! `[a, b)` at height `x` (its neighbours are higher or full): the buffer covering `(a, x)` starts
//! at offset `x` (it cannot sit lower, and it covers `x`), so its lifetime starts exactly at `a`
//! and ends by `b` (it cannot reach over a higher neighbour); symmetrically the buffer covering
//! `(b − 1, x)` ends exactly at `b`. The search branches on whichever of the two cells has fewer
//! such buffers. Branching on "who covers this cell" is complete: every plan (there is no other
//! kind at a tight capacity) covers it with one of them. MiniMalloc's canonical search instead
//! branches over every buffer at its lowest fit and finds such dead ends late.
//!
//! Every node is also checked at every *wall* of the skyline (a section whose left or right
//! neighbour is higher): its lowest free cell must be covered by a buffer that starts (or ends)
//! right there, at that height, and never reaches over a higher section; a wall without one is a
//! dead end. And since the skyline (so the rest of the search) depends only on the set of buffers
//! placed, refuted sets are remembered by a 128-bit Zobrist hash and cut when they recur.
//!
//! Stronger dead-end tests at the walls do not pay here. Beside a left wall every free cell up to
//! the higher neighbour must be covered by buffers starting at that section, stacked without a
//! hole from the wall's height (to exactly the capacity where the neighbour is full: the buffers
//! starting at a moment fill exactly the holes those ending there leave), each at or above the
//! skyline over its lifetime; a subset-sum over those heights decides whether any stack closes
//! the column. Measured on the staircase, guillotine, pinwheel and equal-size families (200 to
//! 1,000 buffers, seeds 1 and 2), it cut the nodes to a plan by under 1 % on all but one instance
//! (a pinwheel of 600: 3.6 times fewer) while making each node 2 to 3 times dearer: the wrong
//! placements are refuted by how the buffers interlock further on, not by one column's sizes.
//! Putting first the candidates whose top meets the neighbour's height was as mixed (7 times
//! fewer nodes on one guillotine packing of 600, an equal-size one of 600 no longer solved).
//!
//! Which wall to branch on matters more than any check: the runs between restarts take turns
//! between the wall with the fewest candidates and the lowest wall among the nearly forced ones
//! (see [`Branching`]). Neither rule solves every construction (staircases only fall to the
//! second, most guillotine and pinwheel packings only to the first), and with turns, both
//! staircases of 600 and of 1,000 buffers (seeds 1 and 2) are solved, which no run of the first
//! rule alone did within 4 million nodes.
//!
//! The search is resumable (an explicit stack), so a minimisation that returns to its bound every
//! round wastes nothing. It applies only where it is exact: no pinned buffers, no gaps, and every
//! section with a live buffer loaded to exactly the capacity ([`Tiling::new`] says `None`
//! otherwise).

use std::collections::HashSet;

use crate::model::Problem;
use crate::options::Deadline;

/// How a search (or one call of it) ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// A plan: each buffer's offset (by problem index) and the order they were placed in.
    Solved { offsets: Vec<u64>, placement_order: Vec<usize> },
    /// The whole tree was explored: no plan fits the capacity (a proof).
    Exhausted,
    /// The node limit or the deadline stopped it; it resumes when run again.
    Stopped,
}

/// Refuted sets remembered at most (16 bytes each, plus the table's overhead), then forgotten.
const MEMO_LIMIT: usize = 1 << 21;
/// The first restart comes after this many nodes per buffer (see [`Tiling::restart`]). Tuned on
/// perfect packings of 600 and 1,000 buffers (guillotine, pinwheel and equal-size families, seeds
/// 1 and 2, 10 s each at their load): 3 of 12 solved without restarts, 5 of 12 with a unit of 4,
/// 16 or 64 nodes a buffer, 16 the fastest.
const RESTART_BASE: u64 = 16;
/// Under [`Branching::Lowest`], walls with at most this many candidates count as equally
/// constrained, and the lowest of them goes first. Measured on perfect packings of 600 buffers
/// (guillotine, pinwheel, staircase and equal-size families, seeds 1 and 2, 1.5 million nodes
/// each): the staircases solved with 2 or 3 (3 of 8 in all with 3, 2 of 8 with 2), none with the
/// lowest wall whatever its count, nor with the leftmost.
const LOWEST_AMONG: usize = 3;
/// How often (in nodes) the deadline is polled.
const POLL_EVERY: u64 = 256;

/// One node of the depth-first search: the buffers that may cover the cell it branches on.
struct Frame {
    candidates: Vec<u32>,
    next: usize,
    /// The hash of the node's placed set, remembered when it is refuted.
    key: u128,
    /// The candidate placed below this node.
    trying: Option<u32>,
}

/// Which wall a node branches on (see [`Tiling::expand`]); the runs between restarts take turns.
///
/// The two suit different constructions, and neither is better overall: on perfect packings of
/// 600 buffers (seeds 1 and 2, 1.5 million nodes each) branching on the fewest candidates solved
/// 4 of 8 (guillotine, pinwheel and equal-size packings, no staircase), the lowest wall among
/// the nearly forced ones 3 of 8 (both staircases, one equal-size packing), each failing where
/// the other solved within a few hundred thousand nodes. A staircase is filled in generations
/// whose boundaries do not line up: branching where the candidates are fewest jumps between
/// generations and sets up walls that only a much later generation refutes, while filling from
/// the bottom keeps each generation's bands in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Branching {
    /// The wall with the fewest candidates, then the lowest, then the leftmost.
    Fewest,
    /// The lowest wall (then the leftmost) among those with at most [`LOWEST_AMONG`] candidates.
    Lowest,
}

/// A wall cell: the section whose lowest free cell must be covered, and whether the covering
/// buffer starts there (a left wall) or ends there (a right wall).
#[derive(Clone, Copy)]
struct Wall {
    section: usize,
    starts: bool,
}

pub(crate) struct Tiling {
    capacity: u64,
    /// Per buffer (problem index): its sections `[first, last)`, size and alignment.
    first: Vec<u32>,
    last: Vec<u32>,
    size: Vec<u64>,
    alignment: Vec<u64>,
    /// Per section: the buffers whose lifetime starts there, and those whose lifetime ends just
    /// after it.
    starting: Vec<Vec<u32>>,
    ending: Vec<Vec<u32>>,
    /// Per section: the height filled (the capacity for a section no buffer is alive in).
    sky: Vec<u64>,
    placed: Vec<bool>,
    offset: Vec<u64>,
    order: Vec<u32>,
    keys: Vec<u128>,
    hash: u128,
    refuted: HashSet<u128>,
    stack: Vec<Frame>,
    started: bool,
    finished: Option<Ending>,
    /// Nodes searched (placements tried) so far, over every call.
    pub nodes: u64,
    next_poll: u64,
    /// Scratch: the candidates of one wall.
    scratch: Vec<u32>,
    /// The sky before anything is placed, to start over from.
    empty_sky: Vec<u64>,
    /// Restarts so far, the node count at which the next one happens, and the unit of the Luby
    /// sequence in nodes per buffer.
    restarts: u32,
    restart_base: u64,
    restart_at: u64,
    /// The states of the generators that reorder the candidates at each restart, one per
    /// [`Branching`] rule.
    rng: [u64; 2],
    /// The current run's branching rule.
    branching: Branching,
}

impl Tiling {
    /// The search of `problem` at `capacity`, or `None` when the capacity is not tight for it (a
    /// section with live buffers holds less or more than `capacity`), or the problem has pinned
    /// buffers, gaps or empty buffers, which the search does not model.
    pub(crate) fn new(problem: &Problem, capacity: u64) -> Option<Tiling> {
        let buffers = problem.buffers();
        if buffers.is_empty()
            || problem.max_load() != capacity
            || buffers.iter().any(|b| b.pinned.is_some() || b.has_gaps() || b.size == 0 || b.start >= b.end)
        {
            return None;
        }
        let mut times: Vec<u64> = buffers.iter().flat_map(|b| [b.start, b.end]).collect();
        times.sort_unstable();
        times.dedup();
        let sections = times.len() - 1;
        let index = |t: u64| times.partition_point(|&x| x < t) as u32;
        let first: Vec<u32> = buffers.iter().map(|b| index(b.start)).collect();
        let last: Vec<u32> = buffers.iter().map(|b| index(b.end)).collect();
        let mut load = vec![0u64; sections];
        for (i, b) in buffers.iter().enumerate() {
            for l in &mut load[first[i] as usize..last[i] as usize] {
                *l += b.size; // no overflow: at most the max load
            }
        }
        if load.iter().any(|&l| l != 0 && l != capacity) {
            return None;
        }
        let sky: Vec<u64> = load.iter().map(|&l| if l == 0 { capacity } else { 0 }).collect();
        let mut starting = vec![Vec::new(); sections];
        let mut ending = vec![Vec::new(); sections];
        for i in 0..buffers.len() {
            starting[first[i] as usize].push(i as u32);
            ending[last[i] as usize - 1].push(i as u32);
        }
        let size: Vec<u64> = buffers.iter().map(|b| b.size).collect();
        let alignment: Vec<u64> = buffers.iter().map(|b| b.alignment().max(1)).collect();
        let n = buffers.len();
        let mut tiling = Tiling {
            capacity,
            first,
            last,
            size,
            alignment,
            starting,
            ending,
            sky: sky.clone(),
            placed: vec![false; n],
            offset: vec![0; n],
            order: Vec::with_capacity(n),
            keys: (0..n as u64).map(|i| ((mix(2 * i) as u128) << 64) | mix(2 * i + 1) as u128).collect(),
            hash: 0,
            refuted: HashSet::new(),
            stack: Vec::new(),
            started: false,
            finished: None,
            nodes: 0,
            next_poll: POLL_EVERY,
            scratch: Vec::new(),
            empty_sky: sky,
            restarts: 0,
            restart_base: RESTART_BASE,
            restart_at: RESTART_BASE * n as u64,
            rng: [0x2545_F491_4F6C_DD1D, 0x9E6C_63D0_676A_9A99],
            branching: Branching::Fewest,
        };
        // Longer lifetimes first (then larger sizes): a long buffer reaches over many sections,
        // so a wrong one is refuted by the walls it makes soon (on perfect packings of 1,000
        // buffers it takes 4 to 10 times fewer nodes than largest first). Buffers alike come out
        // side by side, which lets [`Tiling::expand`] try one of them only.
        tiling.order_candidates(None);
        Some(tiling)
    }

    /// Searches until a plan, a proof, `node_limit` nodes in all (over every call) or `deadline`.
    pub(crate) fn run(&mut self, node_limit: u64, deadline: &Deadline) -> Ending {
        if let Some(outcome) = &self.finished {
            return outcome.clone();
        }
        loop {
            if !self.started {
                self.started = true;
                match self.expand() {
                    Some(frame) => self.stack.push(frame),
                    None => return self.finish(Ending::Exhausted),
                }
            }
            match self.descend(node_limit, deadline) {
                Some(ending) => return ending,
                None if self.started => return self.finish(Ending::Exhausted),
                None => {} // restarted
            }
        }
    }

    /// The depth-first search from the current stack: `Some` when it ends or stops, `None` when
    /// the stack runs out (a proof) or a restart empties it.
    fn descend(&mut self, node_limit: u64, deadline: &Deadline) -> Option<Ending> {
        while let Some(frame) = self.stack.last_mut() {
            if let Some(tried) = frame.trying.take() {
                self.unplace(tried as usize);
                continue;
            }
            if frame.next == frame.candidates.len() {
                let key = frame.key;
                self.stack.pop();
                self.remember(key);
                continue;
            }
            if self.nodes >= node_limit {
                return Some(Ending::Stopped);
            }
            if self.nodes >= self.next_poll {
                self.next_poll = self.nodes + POLL_EVERY;
                if deadline.expired().is_some() {
                    return Some(Ending::Stopped);
                }
            }
            let r = frame.candidates[frame.next];
            frame.next += 1;
            frame.trying = Some(r);
            self.place(r as usize);
            self.nodes += 1;
            if self.order.len() == self.placed.len() {
                let outcome = Ending::Solved {
                    offsets: self.offset.clone(),
                    placement_order: self.order.iter().map(|&r| r as usize).collect(),
                };
                return Some(self.finish(outcome));
            }
            if self.nodes >= self.restart_at {
                self.restart();
                continue;
            }
            if self.refuted.contains(&self.hash) {
                continue;
            }
            match self.expand() {
                Some(child) => self.stack.push(child),
                None => self.remember(self.hash),
            }
        }
        None
    }

    /// Starts the search over from the empty sky with the candidates in a new order, keeping
    /// the refuted sets (a set refuted once is refuted in any order). A depth-first search for a
    /// tiling is heavy-tailed: an early wrong placement can hold it in a subtree far larger than
    /// the whole search from a luckier order. Restarts after a Luby sequence of node counts (a
    /// multiple of the buffer count) bound that loss while still letting long runs happen, and
    /// the memo keeps what each run refuted, so an exhausted run is still a proof.
    ///
    /// The runs alternate between the two [`Branching`] rules, each on its own Luby sequence
    /// (runs 2k and 2k + 1 both last the k + 1st term), so each gets half the nodes.
    fn restart(&mut self) {
        self.restarts += 1;
        self.branching = if self.restarts % 2 == 1 { Branching::Lowest } else { Branching::Fewest };
        // The how-manieth run of this rule (from 0).
        let run = self.restarts / 2;
        self.restart_at = self
            .nodes
            .saturating_add(self.restart_base.saturating_mul(self.placed.len() as u64).saturating_mul(luby(run + 1)));
        for &r in &self.order {
            self.placed[r as usize] = false;
        }
        self.order.clear();
        self.sky.clone_from(&self.empty_sky);
        self.hash = 0;
        self.stack.clear();
        self.started = false;
        // Each rule has its own sequence of orders, so that what one rule needs to get lucky
        // does not depend on the other; the first run of each takes the lists as built.
        let stream = match self.branching {
            Branching::Fewest => &mut self.rng[0],
            Branching::Lowest => &mut self.rng[1],
        };
        let seed = if run == 0 {
            None
        } else {
            *stream = mix(*stream);
            Some(*stream)
        };
        self.order_candidates(seed);
    }

    /// Sorts each list of starting and ending buffers: longer lifetimes first (then larger
    /// sizes), as built, or with `seed` perturbed: a lifetime counts for between one and two times
    /// its length. Buffers alike (lifetime, size, alignment) draw the same perturbation, so they
    /// stay side by side and [`Tiling::expand`] still tries one of them only.
    fn order_candidates(&mut self, seed: Option<u64>) {
        let (first, last, size, alignment) = (&self.first, &self.last, &self.size, &self.alignment);
        let key = |r: u32| {
            let r = r as usize;
            let span = u64::from(last[r] - first[r]);
            let noise = seed.map_or(0, |seed| {
                let class =
                    mix(u64::from(first[r]) | u64::from(last[r]) << 32) ^ mix(size[r] ^ alignment[r].rotate_left(48));
                mix(class ^ seed)
            });
            let jitter = ((noise >> 32) * span) >> 32;
            (std::cmp::Reverse(span + jitter), std::cmp::Reverse(size[r]), alignment[r], noise, r)
        };
        for list in self.starting.iter_mut().chain(self.ending.iter_mut()) {
            list.sort_by_key(|&r| key(r));
        }
    }

    fn finish(&mut self, outcome: Ending) -> Ending {
        self.stack = Vec::new();
        self.refuted = HashSet::new();
        self.finished = Some(outcome.clone());
        outcome
    }

    fn remember(&mut self, key: u128) {
        if self.refuted.len() >= MEMO_LIMIT {
            self.refuted.clear();
        }
        self.refuted.insert(key);
    }

    /// The node's frame: the buffers that may cover the free cell of the branching wall, or
    /// `None` when some wall of the skyline cannot be covered at all.
    ///
    /// Any wall whose every candidate sits on a flat stretch (no section of its lifetime is lower
    /// than the wall) may be branched on: placing any of them leaves no hole, and one of them
    /// covers the cell in every plan. The lowest walls always qualify. Of those, the one with the
    /// fewest candidates goes first (a wall with one is a forced placement, wherever it is), then
    /// the lowest and leftmost.
    fn expand(&mut self) -> Option<Frame> {
        let sections = self.sky.len();
        let mut best: Option<((usize, u64, usize), u64, Wall)> = None;
        for s in 0..sections {
            let h = self.sky[s];
            if h == self.capacity {
                continue;
            }
            let left = s == 0 || self.sky[s - 1] > h;
            let right = s + 1 == sections || self.sky[s + 1] > h;
            for (is_wall, starts) in [(left, true), (right, false)] {
                if !is_wall {
                    continue;
                }
                let wall = Wall { section: s, starts };
                let (count, flat) = self.count(wall, h);
                if count == 0 {
                    return None;
                }
                let rank = match self.branching {
                    Branching::Fewest => (count, h, s),
                    Branching::Lowest => (count.min(LOWEST_AMONG), h, s),
                };
                if flat && best.is_none_or(|(fewest, _, _)| rank < fewest) {
                    best = Some((rank, h, wall));
                }
            }
        }
        let (_, h, wall) = best?; // the lowest walls are flat
        let mut candidates = std::mem::take(&mut self.scratch);
        self.collect(wall, h, &mut candidates);
        // Buffers alike in lifetime, size and alignment are interchangeable: try one of each.
        candidates.dedup_by(|a, b| {
            let (a, b) = (*a as usize, *b as usize);
            (self.first[a], self.last[a], self.size[a], self.alignment[a])
                == (self.first[b], self.last[b], self.size[b], self.alignment[b])
        });
        let frame = Frame { candidates: candidates.clone(), next: 0, key: self.hash, trying: None };
        candidates.clear();
        self.scratch = candidates;
        Some(frame)
    }

    /// How many unplaced buffers may cover the lowest free cell of `wall` (at height `h`), and
    /// whether each of them lies on sections filled exactly to `h`.
    fn count(&self, wall: Wall, h: u64) -> (usize, bool) {
        let list = if wall.starts { &self.starting[wall.section] } else { &self.ending[wall.section] };
        let mut count = 0;
        let mut flat = true;
        for &r in list {
            if self.fits(r as usize, h) {
                count += 1;
                flat &=
                    self.sky[self.first[r as usize] as usize..self.last[r as usize] as usize].iter().all(|&s| s == h);
            }
        }
        (count, flat)
    }

    fn collect(&self, wall: Wall, h: u64, into: &mut Vec<u32>) {
        let list = if wall.starts { &self.starting[wall.section] } else { &self.ending[wall.section] };
        into.extend(list.iter().copied().filter(|&r| self.fits(r as usize, h)));
    }

    /// Whether unplaced buffer `r` may sit at offset `h`: aligned, under the capacity, and no
    /// section of its lifetime filled above `h`.
    fn fits(&self, r: usize, h: u64) -> bool {
        !self.placed[r]
            && h.is_multiple_of(self.alignment[r])
            && h + self.size[r] <= self.capacity // no overflow: both at most the capacity
            && self.sky[self.first[r] as usize..self.last[r] as usize].iter().all(|&s| s <= h)
    }

    fn place(&mut self, r: usize) {
        // The branching wall is flat under every candidate: this is the height of each section.
        let h = self.sky[self.first[r] as usize];
        self.placed[r] = true;
        self.offset[r] = h;
        self.order.push(r as u32);
        self.hash ^= self.keys[r];
        for s in &mut self.sky[self.first[r] as usize..self.last[r] as usize] {
            *s += self.size[r];
        }
    }

    fn unplace(&mut self, r: usize) {
        self.placed[r] = false;
        self.order.pop();
        self.hash ^= self.keys[r];
        for s in &mut self.sky[self.first[r] as usize..self.last[r] as usize] {
            *s -= self.size[r];
        }
    }
}

/// The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, … (`i` from 1): restart lengths within a constant
/// factor of the best fixed length whatever the distribution of run lengths.
fn luby(i: u32) -> u64 {
    let mut i = u64::from(i);
    loop {
        // The smallest k with 2^k - 1 >= i.
        let k = 64 - i.leading_zeros();
        if i == (1u64 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

/// splitmix64's finaliser: the Zobrist keys.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod restart_tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::model::Buffer;
    use crate::validate::validate;

    /// Random buffers topped up with one-section fillers to the peak load in every section: tight,
    /// and feasible or not.
    fn filled(seed: u64) -> Problem {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let count = rng.random_range(2..=9);
        let mut buffers: Vec<Buffer> = (0..count)
            .map(|i| {
                let start = rng.random_range(0..8u64);
                Buffer::new(format!("b{i}"), start, start + rng.random_range(1..5), rng.random_range(1..8))
            })
            .collect();
        let end = buffers.iter().map(|b| b.end).max().unwrap_or(0);
        let load = |t: u64, list: &[Buffer]| list.iter().filter(|b| b.start <= t && t < b.end).map(|b| b.size).sum();
        let peak: u64 = (0..end).map(|t| load(t, &buffers)).max().unwrap_or(0);
        for t in 0..end {
            let room = peak - load(t, &buffers);
            if room > 0 {
                buffers.push(Buffer::new(format!("f{t}"), t, t + 1, room));
            }
        }
        Problem::new(buffers, None).expect("generated buffers are valid")
    }

    /// The search to the end: whether it found a plan (checked by the validator) or a proof.
    fn decide(problem: &Problem, restart_base: u64) -> bool {
        let capacity = problem.max_load();
        let mut tiling = Tiling::new(problem, capacity).expect("the instance is tight");
        tiling.restart_base = restart_base;
        tiling.restart_at = restart_base;
        match tiling.run(u64::MAX, &Deadline::none()) {
            Ending::Solved { offsets, .. } => {
                let report = validate(problem, &offsets, Some(capacity));
                assert!(report.is_valid(), "{}", report.describe(problem));
                true
            }
            Ending::Exhausted => false,
            Ending::Stopped => panic!("no limit, yet stopped"),
        }
    }

    /// Restarting after every few nodes (the refuted sets kept, the candidates reordered) finds
    /// the same answers as one uninterrupted search: plans where they exist, proofs where not.
    #[test]
    fn restarts_keep_the_answers() {
        let (mut fits, mut proofs, mut restarted) = (0, 0, 0);
        for seed in 0..1500 {
            let problem = filled(seed);
            let once = decide(&problem, u64::MAX);
            assert_eq!(decide(&problem, 1), once, "seed {seed}");
            if once {
                fits += 1;
            } else {
                proofs += 1;
            }
            let mut tiling = Tiling::new(&problem, problem.max_load()).unwrap();
            (tiling.restart_base, tiling.restart_at) = (1, 1);
            tiling.run(u64::MAX, &Deadline::none());
            restarted += usize::from(tiling.restarts > 0);
        }
        // Both answers and the restarts themselves are exercised.
        assert!(fits > 100 && proofs > 30 && restarted > 100, "{fits} plans, {proofs} proofs, {restarted} restarted");
    }

    /// A staircase packing (generations whose boundaries never line up) is out of reach of
    /// branching on the fewest candidates alone (no plan in 4 million nodes); the runs that fill
    /// the lowest nearly forced wall find one in a few thousand.
    #[test]
    fn staircases_are_solved_by_the_lowest_walls() {
        let problem = crate::generate::Shape::Family(crate::generate::families::Family::Staircase).generate(600, 1);
        let capacity = problem.max_load();
        let mut tiling = Tiling::new(&problem, capacity).expect("a perfect packing at its load is tight");
        match tiling.run(200_000, &Deadline::none()) {
            Ending::Solved { offsets, .. } => {
                let report = validate(&problem, &offsets, Some(capacity));
                assert!(report.is_valid(), "{}", report.describe(&problem));
            }
            other => panic!("no plan within 200,000 nodes: {other:?}"),
        }
        assert!(tiling.restarts > 0, "the plan came from a run that branched on the lowest walls");
    }

    #[test]
    fn luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}

/// A measurement, not a check: the tiling search alone on the generated families at their load,
/// node counts to a plan (or where it stopped). Run with
/// `TILING_MEASURE="600 1000" cargo test --release -p memplan --lib tiling::measure -- --ignored --nocapture`.
#[cfg(test)]
mod measure {
    use super::*;
    use crate::generate::Shape;

    #[test]
    #[ignore = "a measurement"]
    fn families() {
        let sizes: Vec<usize> = std::env::var("TILING_MEASURE")
            .unwrap_or_else(|_| "600".into())
            .split_whitespace()
            .filter_map(|s| s.parse().ok())
            .collect();
        let seeds: Vec<u64> = std::env::var("TILING_SEEDS")
            .unwrap_or_else(|_| "1 2".into())
            .split_whitespace()
            .filter_map(|s| s.parse().ok())
            .collect();
        let limit: u64 = std::env::var("TILING_NODES").ok().and_then(|s| s.parse().ok()).unwrap_or(4_000_000);
        let (mut solved, mut total) = (0, 0);
        let shapes =
            std::env::var("TILING_SHAPES").unwrap_or_else(|_| "guillotine pinwheel staircase equal-sizes".into());
        for name in shapes.split_whitespace() {
            let shape = Shape::parse(name).expect("a shape");
            for &size in &sizes {
                for &seed in &seeds {
                    let problem = shape.generate(size, seed);
                    let mut tiling = Tiling::new(&problem, problem.max_load()).expect("tight");
                    let started = std::time::Instant::now();
                    let outcome = tiling.run(limit, &Deadline::none());
                    let ms = started.elapsed().as_millis();
                    let result = match outcome {
                        Ending::Solved { .. } => "solved",
                        Ending::Exhausted => "EXHAUSTED",
                        Ending::Stopped => "stopped",
                    };
                    total += 1;
                    solved += usize::from(result == "solved");
                    println!(
                        "{name:>12} {size:>5} {seed}: {result:>8} nodes {:>9} restarts {:>4} {ms} ms",
                        tiling.nodes, tiling.restarts
                    );
                }
            }
        }
        println!("solved {solved} of {total}");
    }
}
