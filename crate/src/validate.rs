//! The one independent validator. It shares no placement code with any solver: a single sweep over
//! time keeps the buffers alive at the moment ordered by offset and checks each newcomer against its
//! two neighbours in address order, which is enough because the alive set stays disjoint. O(n log n)
//! in the number of live pieces (a buffer with gaps counts by its pieces and windows).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashSet};

use crate::metrics;
use crate::model::{Buffer, Outcome, Problem, Stopped};

/// One way a plan is wrong. Buffers are named by their index in the problem.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Violation {
    WrongLength {
        expected: usize,
        found: usize,
    },
    Overlap {
        first: usize,
        first_offset: u64,
        second: usize,
        second_offset: u64,
    },
    ExceedsCapacity {
        buffer: usize,
        top: u64,
        capacity: u64,
    },
    Misaligned {
        buffer: usize,
        offset: u64,
        alignment: u64,
    },
    PinnedMoved {
        buffer: usize,
        pinned: u64,
        offset: u64,
    },
    Overflow {
        buffer: usize,
        offset: u64,
    },
    /// A solution states something of its plan that is not true: `claimed` is the number it
    /// states, `actual` the one it is held to (see [`Claim`] for which is which).
    WrongClaim {
        what: Claim,
        claimed: u64,
        actual: u64,
    },
}

/// What a solution claimed falsely, with the two numbers a [`Violation::WrongClaim`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Claim {
    /// A makespan (claimed) that the plan does not have (actual).
    Makespan,
    /// A lower bound (claimed) below the max load (actual), which every plan reaches.
    BoundBelowMaxLoad,
    /// A lower bound (claimed) above the makespan of its own plan (actual).
    BoundAboveMakespan,
    /// An optimal plan, at its lower bound (claimed), whose makespan is higher (actual).
    OptimalAboveBound,
    /// That nothing fits the capacity (claimed), beside a plan whose makespan fits it (actual).
    NothingFits,
    /// A plan (optimal, or within the capacity) where there is none; its bound is `claimed`.
    MissingPlan,
}

impl Violation {
    /// A sentence naming the buffers by their ids.
    pub fn describe(&self, problem: &Problem) -> String {
        let b = problem.buffers();
        let name = |i: usize| {
            let buffer = &b[i];
            format!("{} [{}, {}) size {}", buffer.id, buffer.start, buffer.end, buffer.size)
        };
        match *self {
            Violation::WrongLength { expected, found } => {
                format!("the plan has {found} offsets for {expected} buffers")
            }
            Violation::Overlap { first, first_offset, second, second_offset } => format!(
                "buffer {} at offset {first_offset} overlaps buffer {} at offset {second_offset}",
                name(first),
                name(second),
            ),
            Violation::ExceedsCapacity { buffer, top, capacity } => {
                format!("buffer {} ends at address {top}, beyond the capacity {capacity}", name(buffer))
            }
            Violation::Misaligned { buffer, offset, alignment } => {
                format!("buffer {} at offset {offset} is not aligned to {alignment}", name(buffer))
            }
            Violation::PinnedMoved { buffer, pinned, offset } => {
                format!("buffer {} is pinned at {pinned} but placed at {offset}", name(buffer))
            }
            Violation::Overflow { buffer, offset } => {
                format!("buffer {} at offset {offset}: offset + size overflows u64", name(buffer))
            }
            Violation::WrongClaim { what, claimed, actual } => match what {
                Claim::Makespan => format!("the solution claims a makespan of {claimed} but its plan's is {actual}"),
                Claim::BoundBelowMaxLoad => {
                    format!("the solution claims a lower bound of {claimed}, below the max load {actual}")
                }
                Claim::BoundAboveMakespan => {
                    format!("the solution claims a lower bound of {claimed}, above its plan's makespan {actual}")
                }
                Claim::OptimalAboveBound => format!(
                    "the solution claims its plan is optimal, but its makespan {actual} is above its lower bound \
                     {claimed}"
                ),
                Claim::NothingFits => format!(
                    "the solution claims that nothing fits the capacity {claimed}, but its plan's makespan is {actual}"
                ),
                Claim::MissingPlan => {
                    format!(
                        "the solution claims a plan (optimal or within the capacity) but has none (lower bound {claimed})"
                    )
                }
            },
        }
    }
}

/// Every violation found (at most [`Report::LIMIT`]), and the makespan the validator measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub violations: Vec<Violation>,
    pub makespan: u64,
}

impl Report {
    /// Enough to act on; a plan with more violations is reported as having "at least" these.
    pub const LIMIT: usize = 100;

    pub fn is_valid(&self) -> bool {
        self.violations.is_empty()
    }

    /// Every violation as a sentence, one per line.
    pub fn describe(&self, problem: &Problem) -> String {
        self.violations.iter().map(|v| v.describe(problem)).collect::<Vec<_>>().join("\n")
    }
}

/// Checks a plan: no two buffers alive at the same time overlap in memory, alignment, pinned
/// offsets, and (when given) the capacity.
pub fn validate(problem: &Problem, offsets: &[u64], capacity: Option<u64>) -> Report {
    validate_measuring(problem, offsets, capacity).0
}

/// [`validate`], with the max load its sweep over time measured on the way (`None` when some
/// buffer could not be swept: an offset past u64, or a plan of the wrong length).
fn validate_measuring(problem: &Problem, offsets: &[u64], capacity: Option<u64>) -> (Report, Option<u128>) {
    let buffers = problem.buffers();
    let mut violations = Vec::new();
    if offsets.len() != buffers.len() {
        violations.push(Violation::WrongLength { expected: buffers.len(), found: offsets.len() });
        return (Report { violations, makespan: 0 }, None);
    }
    let mut makespan = 0u64;
    let mut placeable = vec![true; buffers.len()];
    for (i, (buffer, &offset)) in buffers.iter().zip(offsets).enumerate() {
        let Some(top) = offset.checked_add(buffer.size) else {
            violations.push(Violation::Overflow { buffer: i, offset });
            placeable[i] = false;
            continue;
        };
        makespan = makespan.max(top);
        if offset % buffer.alignment() != 0 {
            violations.push(Violation::Misaligned { buffer: i, offset, alignment: buffer.alignment() });
        }
        if let Some(pinned) = buffer.pinned
            && pinned != offset
        {
            violations.push(Violation::PinnedMoved { buffer: i, pinned, offset });
        }
        if let Some(capacity) = capacity
            && top > capacity
        {
            violations.push(Violation::ExceedsCapacity { buffer: i, top, capacity });
        }
    }
    let max_load = find_overlaps(problem, offsets, &placeable, &mut violations);
    violations.truncate(Report::LIMIT);
    let swept_all = placeable.iter().all(|&p| p);
    (Report { violations, makespan }, swept_all.then_some(max_load))
}

/// One live piece (a buffer without gaps is one): its lifetime, address range and owner.
struct Piece {
    start: u64,
    end: u64,
    low: u64,
    high: u64,
    buffer: usize,
}

/// What the sweep reads of a piece once it has its place in start order: when it ends and the
/// addresses it occupies.
#[derive(Clone, Copy)]
struct Extent {
    end: u64,
    low: u64,
    high: u64,
}

/// Reports every pair of buffers that meet, and returns the most bytes alive at once among the
/// placeable buffers (the sweep passes every start and end in time order anyway).
fn find_overlaps(problem: &Problem, offsets: &[u64], placeable: &[bool], violations: &mut Vec<Violation>) -> u128 {
    let buffers = problem.buffers();
    // The pieces renumbered by start: the sweep then reads them in the order they start, where in
    // input order it waited on a cache miss at nearly every event on millions of buffers.
    let (starts, extents) = if problem.has_gaps() {
        pieces_by_start(buffers, offsets, placeable)
    } else {
        whole_buffers_by_start(buffers, offsets, placeable)
    };
    // Alive pieces by low address: low -> (high, buffer). Kept disjoint: a piece that overlaps is
    // reported and left out, so the neighbour checks stay exact for the rest. A pair of buffers
    // is reported once, however many of their pieces meet. (A sorted array while few pieces were
    // alive, with the B-tree beyond, saved nothing measurable on 2·10^6 buffers and about 1 % of
    // an SLFF solve on 250,000: not worth a second store in the code every test trusts.)
    let mut alive: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    // The started pieces that have not ended yet, by (end, number), each with whether it went
    // into `alive`: they end in that order. (Only the pieces alive at once are held, where a
    // sorted list of every end took 16 bytes a piece and a sort of them all.)
    let mut ending: BinaryHeap<Reverse<(u64, usize, bool)>> = BinaryHeap::new();
    let mut reported: HashSet<(usize, usize)> = HashSet::new();
    // The bytes alive, and the most at any time: ends come before starts at each time (as
    // `[start, end)` asks), so the load after each start is a load the plan has at that time.
    let (mut load, mut max_load) = (0u128, 0u128);
    for (k, (&(start, i), &Extent { end, low, high })) in starts.iter().zip(&extents).enumerate() {
        while let Some(&Reverse((ended, p, inserted))) = ending.peek()
            && ended <= start
        {
            ending.pop();
            let Extent { low, high, .. } = extents[p];
            load -= (high - low) as u128;
            if inserted {
                alive.remove(&low);
            }
        }
        load += (high - low) as u128;
        max_load = max_load.max(load);
        // The alive piece starting last below `high` meets the newcomer when any does (they are
        // disjoint): one search for a plan that passes. When one meets it, the piece named is the
        // one below it, else the first above, whichever piece was found.
        let meets = alive.range(..high).next_back().is_some_and(|(_, &(other_high, _))| other_high > low);
        let met = meets.then(|| {
            // (`low` < `high`, so `low + 1` does not overflow.)
            let below = alive.range(..low + 1).next_back().filter(|&(_, &(other_high, _))| other_high > low);
            let above = alive.range(low + 1..).next().filter(|&(&other_low, _)| other_low < high);
            below.or(above).map(|(_, &(_, other))| other)
        });
        if let Some(other) = met.flatten() {
            let (first, second) = (other.min(i), other.max(i));
            if violations.len() < Report::LIMIT && reported.insert((first, second)) {
                violations.push(Violation::Overlap {
                    first,
                    first_offset: offsets[first],
                    second,
                    second_offset: offsets[second],
                });
            }
            ending.push(Reverse((end, k, false)));
            continue;
        }
        alive.insert(low, (high, i));
        ending.push(Reverse((end, k, true)));
    }
    max_load
}

/// What the sweep reads: the `(start, buffer)` of every piece sorted by start (ties in the order
/// of the pieces), and each one's [`Extent`] in that order.
type Sorted = (Vec<(u64, usize)>, Vec<Extent>);

/// Every live piece of the placeable buffers, for a problem with gaps: a buffer occupies only its
/// pieces, and a zero-size buffer has none, so it meets nothing.
fn pieces_by_start(buffers: &[Buffer], offsets: &[u64], placeable: &[bool]) -> Sorted {
    let mut pieces: Vec<Piece> = Vec::with_capacity(buffers.len());
    for (i, buffer) in buffers.iter().enumerate() {
        if !placeable[i] {
            continue;
        }
        // offset + size fits in u64 (placeable), and a piece lies within the size.
        for piece in buffer.pieces() {
            let (low, high) = (offsets[i] + piece.lower, offsets[i] + piece.upper);
            pieces.push(Piece { start: piece.start, end: piece.end, low, high, buffer: i });
        }
    }
    let mut starts: Vec<(u64, usize)> = pieces.iter().enumerate().map(|(p, piece)| (piece.start, p)).collect();
    starts.sort_unstable();
    let mut extents: Vec<Extent> = Vec::with_capacity(pieces.len());
    for (_, p) in &mut starts {
        let piece = &pieces[*p];
        extents.push(Extent { end: piece.end, low: piece.low, high: piece.high });
        *p = piece.buffer;
    }
    (starts, extents)
}

/// [`pieces_by_start`] for a problem without gaps, where each buffer of some size is one piece:
/// numbered by the buffer itself, with no list of pieces beside the two the sweep reads.
fn whole_buffers_by_start(buffers: &[Buffer], offsets: &[u64], placeable: &[bool]) -> Sorted {
    let mut starts: Vec<(u64, usize)> = buffers
        .iter()
        .enumerate()
        .filter(|&(i, b)| placeable[i] && b.size > 0 && b.start < b.end)
        .map(|(i, b)| (b.start, i))
        .collect();
    starts.sort_unstable();
    let extents = starts
        .iter()
        .map(|&(_, i)| {
            let buffer = &buffers[i];
            // (offset + size fits in u64: the buffer is placeable.)
            Extent { end: buffer.end, low: offsets[i], high: offsets[i] + buffer.size }
        })
        .collect();
    (starts, extents)
}

/// Checks an outcome: its plan against the problem (and the capacity when the outcome says its
/// plan fits), and that what it states of the plan is true: the makespan, a lower bound no higher
/// than the plan and no lower than L, a plan that fits when the reason says so, an optimal
/// reason only at the bound, and no plan within the capacity beside a proof that none exists.
pub fn validate_outcome(problem: &Problem, outcome: &Outcome) -> Report {
    let capacity = outcome.capacity.filter(|_| outcome.stopped == Stopped::Fits);
    let Some(plan) = &outcome.plan else {
        let mut report = Report { violations: Vec::new(), makespan: 0 };
        if outcome.stopped.is_optimal() || outcome.stopped == Stopped::Fits {
            report.violations.push(Violation::WrongClaim {
                what: Claim::MissingPlan,
                claimed: outcome.lower_bound,
                actual: 0,
            });
        }
        return report;
    };
    let (mut report, swept_load) = validate_measuring(problem, &plan.offsets, capacity);
    if report.violations.iter().any(|v| matches!(v, Violation::WrongLength { .. })) {
        return report;
    }
    // (The sweep's own measure when it passed every buffer: a second sort of every start and end
    // cost a tenth of a check on millions of buffers.)
    let max_load = swept_load.unwrap_or_else(|| metrics::max_load_wide(problem.buffers()));
    let mut claim = |what, claimed, actual| report.violations.push(Violation::WrongClaim { what, claimed, actual });
    if plan.makespan != report.makespan {
        claim(Claim::Makespan, plan.makespan, report.makespan);
    }
    if (outcome.lower_bound as u128) < max_load {
        claim(Claim::BoundBelowMaxLoad, outcome.lower_bound, max_load as u64);
    }
    if outcome.lower_bound > report.makespan {
        claim(Claim::BoundAboveMakespan, outcome.lower_bound, report.makespan);
    }
    if outcome.stopped.is_optimal() && report.makespan > outcome.lower_bound {
        claim(Claim::OptimalAboveBound, outcome.lower_bound, report.makespan);
    }
    if let Some(capacity) = outcome.capacity
        && outcome.stopped == Stopped::Infeasible
        && report.makespan <= capacity
    {
        claim(Claim::NothingFits, capacity, report.makespan);
    }
    report
}
