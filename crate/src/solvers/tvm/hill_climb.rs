//! TVM's hill climb (`tir/usmp/algo/hill_climb.cc`), from its source and description: start from
//! the greedy-by-size order, plan it with a first fit, then swap two buffers of the order near a
//! buffer at the peak and plan again, keeping a swap when the plan is lower (and sometimes when it
//! is higher), up to 500 attempts. Every step follows TVM's, including its draws from glibc's
//! `rand_r` (state 0 for seed 0), so that seed 0 reproduces TVM's plans:
//!
//! - a pass places the buffers in order, each at the lowest offset that clears its placed
//!   conflicts, scanned by offset (each conflict's top rounded up to the conflict's alignment);
//! - a plan is accepted when none is yet, or when it fits the pool and is lower, or else with
//!   probability `(50 * (new - old) / new / attempt) %` (integer arithmetic, one draw `% 100`).
//!   The answer is the last plan accepted, not the lowest seen (as TVM's);
//! - a rejected plan is rolled back by swapping the last swapped pair back, whether or not the
//!   attempt before swapped anything (TVM's rollback re-swaps the stale pair then: reproduced);
//! - a move: a buffer at the peak (a draw among them, in order position), its conflicts placed
//!   before it (first level) and, for every conflict, that conflict's conflicts placed before it
//!   (second level, with repeats); one from the first level, and a second one drawn until it
//!   differs, 75 % of the time from the second level (when it has any);
//! - the climb stops at TVM's memory pressure (its max load: memplan's lower bound, when
//!   `stop-at-bound` is on, as in TVM's compiler; off, as TVM's tests that pass 0, it runs every
//!   attempt).
//!
//! memplan's additions: pinned buffers are placed first and never move (TVM has none); offsets
//! are also rounded to each buffer's own alignment (TVM's buffers share one, where this changes
//! nothing); with a capacity (TVM's pool size hint), a pass does not fit when a buffer is larger
//! than it or a placed conflict's top plus the buffer's size passes it (TVM's test, which looks at
//! every placed conflict, even one above the gap used), but the buffer is still placed (TVM leaves
//! it out of the pool, and fails at the end when the last plan accepted has such a buffer): runs
//! that fit match TVM, runs that do not differ until one fits.

use super::conflicts::Graph;
use super::greedy::reach;
use super::rand_r::RandR;
use crate::alignment::align_up;
use crate::model::Buffer;
use crate::options::{Deadline, Halt};

/// TVM's `_max_attempts`.
pub(crate) const ATTEMPTS: u64 = 500;

/// The default work budget (conflict-list entries visited after the first pass): all 500 attempts
/// on instances of up to a million listed conflicts (MiniMalloc's challenging suite has at most
/// tens of thousands), about a minute's work at most on larger ones. TVM has no budget.
pub(crate) const BUDGET: u64 = 1_000_000_000;

/// How a climb is run.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub attempts: u64,
    /// Stop once a fitting plan needs at most this many bytes (TVM's memory pressure).
    pub desired: u64,
    /// The pool's size (TVM's `size_hint_bytes`): a plan above it does not fit.
    pub hint: Option<u64>,
    pub seed: u32,
    /// The most conflict-list entries the climb may visit after its first pass (a work budget:
    /// deterministic, unlike a time limit); the first pass always runs.
    pub budget: u64,
}

/// A climb's answer: the last plan accepted, and how the climb went.
#[derive(Clone, Debug)]
pub(crate) struct Climb {
    pub offsets: Vec<u64>,
    /// The order that plan was placed in (pinned buffers first).
    pub order: Vec<usize>,
    pub attempts: u64,
    pub accepted: u64,
    /// The lowest fitting peak of any pass (the answer may be above it: TVM keeps the last).
    pub best_seen: Option<u64>,
    /// Why the climb ended early, when the deadline passed.
    pub halted: Option<Halt>,
    /// The work budget ran out before the attempts did.
    pub exhausted: bool,
}

/// One pass's plan.
#[derive(Clone, Debug)]
struct Pass {
    offsets: Vec<u64>,
    peak: u64,
    fits: bool,
}

/// The buffers and their conflicts, as every pass reads them.
struct Instance<'a> {
    buffers: &'a [Buffer],
    graph: &'a Graph,
    pinned: &'a [Option<u64>],
    hint: Option<u64>,
}

impl Instance<'_> {
    /// TVM's hill-climb greedy over `order`; `Overflow` when an offset passes u64.
    fn pass(&self, order: &[usize], deadline: &Deadline) -> Result<Pass, Halt> {
        let buffers = self.buffers;
        let mut placed: Vec<Option<u64>> = self.pinned.to_vec();
        let mut fits = true;
        let mut peak = 0u64;
        for (i, at) in self.pinned.iter().enumerate() {
            if let Some(at) = at {
                let top = at + buffers[i].size; // checked when the problem was built
                peak = peak.max(top);
                fits &= self.hint.is_none_or(|hint| top <= hint);
            }
        }
        let mut below: Vec<(u64, u64)> = Vec::new();
        for (step, &i) in order.iter().enumerate() {
            deadline.poll(step)?;
            let buffer = &buffers[i];
            let size = u128::from(buffer.size);
            let overflow = || Halt::Overflow { buffer: buffer.id.to_string(), offset: u64::MAX, size: buffer.size };
            // Placed conflicts as (offset, where a buffer may start above it), by offset.
            below.clear();
            below.extend(self.graph.neighbours(i).filter_map(|j| placed[j].map(|at| (at, reach(&buffers[j], at)))));
            below.sort_unstable_by_key(|&(at, _)| at);
            let mut offset: u128 = 0;
            let mut fit = self.hint.is_none_or(|hint| size <= u128::from(hint));
            for &(at, above) in &below {
                // Rounded to this buffer's alignment too; past u64 stays past it.
                let next = align_up(above, buffer.alignment()).map_or(u128::MAX, u128::from);
                if let Some(hint) = self.hint {
                    fit &= next.saturating_add(size) <= u128::from(hint);
                }
                if next > offset && offset.saturating_add(size) > u128::from(at) {
                    offset = next;
                }
            }
            let offset = u64::try_from(offset).map_err(|_| overflow())?;
            let top = offset.checked_add(buffer.size).ok_or_else(overflow)?;
            placed[i] = Some(offset);
            peak = peak.max(top);
            fits &= fit;
        }
        let offsets = placed.into_iter().map(|at| at.unwrap_or(0)).collect();
        Ok(Pass { offsets, peak, fits })
    }
}

/// Runs the climb over the unpinned buffers of `order` (TVM's first order).
pub(crate) fn climb(
    buffers: &[Buffer],
    graph: &Graph,
    pinned: &[Option<u64>],
    mut order: Vec<usize>,
    settings: &Settings,
    deadline: &Deadline,
) -> Result<Climb, Halt> {
    let instance = Instance { buffers, graph, pinned, hint: settings.hint };
    // The position of each buffer in the order (None: pinned, never moved).
    let mut position: Vec<Option<usize>> = vec![None; buffers.len()];
    for (p, &i) in order.iter().enumerate() {
        position[i] = Some(p);
    }
    let mut rng = RandR::new(settings.seed);
    let mut result: Option<(Pass, Vec<usize>)> = None;
    let mut current: Option<Pass> = None;
    // The lowest peak accepted so far among fitting plans (TVM's `total_size`; 0: none yet).
    let mut total_size = 0u64;
    let (mut swap_1, mut swap_2) = (None::<usize>, None::<usize>);
    let mut climb = Climb {
        offsets: Vec::new(),
        order: Vec::new(),
        attempts: 0,
        accepted: 0,
        best_seen: None,
        halted: None,
        exhausted: false,
    };
    // A pass visits every entry of the conflict lists once; a move, the lists of a buffer's
    // conflicts.
    let pass_cost = graph.entries();
    let mut work = 0u64;
    let swap = |order: &mut Vec<usize>, position: &mut Vec<Option<usize>>, a: Option<usize>, b: Option<usize>| {
        if let (Some(a), Some(b)) = (a, b) {
            order.swap(a, b);
            position[order[a]] = Some(a);
            position[order[b]] = Some(b);
        }
    };
    for attempt in 0..settings.attempts {
        if let Some(halt) = deadline.expired() {
            climb.halted = Some(halt);
            break;
        }
        if attempt > 0 && work.saturating_add(pass_cost) > settings.budget {
            climb.exhausted = true;
            break;
        }
        work = work.saturating_add(pass_cost);
        climb.attempts += 1;
        let rollback = current.take();
        let pass = match instance.pass(&order, deadline) {
            Ok(pass) => Some(pass),
            Err(halt @ (Halt::Timeout | Halt::Cancelled)) => {
                climb.halted = Some(halt);
                break;
            }
            // The first order overflowing is the answer; a later one is a move to reject
            // (TVM's sizes never come near 2^64).
            Err(halt) if result.is_none() => return Err(halt),
            Err(_) => None,
        };
        let total = pass.as_ref().map_or(u64::MAX, |p| p.peak);
        if let Some(pass) = &pass
            && pass.fits
        {
            climb.best_seen = Some(climb.best_seen.map_or(total, |b| b.min(total)));
        }
        let accept = match &pass {
            None => false,
            Some(_) if total_size == 0 => true,
            Some(pass) => {
                pass.fits
                    && (total_size > total || {
                        let chance =
                            50 * u128::from(total - total_size) / u128::from(total) / u128::from(attempt.max(1));
                        u128::from(rng.draw() % 100) < chance
                    })
            }
        };
        if let (true, Some(pass)) = (accept, pass) {
            climb.accepted += 1;
            let fits = pass.fits;
            result = Some((pass.clone(), order.clone()));
            current = Some(pass);
            if fits {
                total_size = total;
                if total_size <= settings.desired {
                    break;
                }
            }
        } else {
            swap(&mut order, &mut position, swap_2, swap_1);
            current = rollback;
        }
        let Some(now) = &current else { break };
        // The buffers at the peak, by position (the order's); a draw picks one.
        let at_peak: Vec<usize> =
            order.iter().copied().filter(|&i| now.offsets[i] + buffers[i].size == now.peak).collect();
        if at_peak.is_empty() {
            // Only a pinned buffer reaches the peak: no move can lower it.
            break;
        }
        let node = at_peak[rng.below(at_peak.len())];
        let (first, second) = neighbour_levels(graph, &position, node);
        work = work.saturating_add(graph.degree(node) + second.len() as u64);
        if first.is_empty() {
            continue;
        }
        let one = first[rng.below(first.len())];
        let mut two = one;
        // Terminates (a second pick differing from `one` exists whenever a draw can repeat); the
        // bound only guards against a graph of TVM's form built to defeat it.
        for _ in 0..1_000_000 {
            if two != one {
                break;
            }
            two = if !second.is_empty() && rng.draw() % 100 > 25 {
                second[rng.below(second.len())]
            } else {
                first[rng.below(first.len())]
            };
            if second.len() < 2 && first.len() < 2 {
                break;
            }
        }
        if one == two {
            continue;
        }
        swap_1 = position[one];
        swap_2 = position[two];
        swap(&mut order, &mut position, swap_1, swap_2);
    }
    let Some((pass, order)) = result else {
        return Err(climb.halted.unwrap_or(Halt::Cancelled));
    };
    climb.offsets = pass.offsets;
    climb.order = (0..buffers.len()).filter(|&i| pinned[i].is_some()).chain(order).collect();
    Ok(climb)
}

/// The first level (conflicts of `node` placed before it) and the second (for each conflict, its
/// conflicts placed before that conflict, repeats kept), each by position; pinned buffers have
/// no position and are in neither.
fn neighbour_levels(graph: &Graph, position: &[Option<usize>], node: usize) -> (Vec<usize>, Vec<usize>) {
    let mut first = Vec::new();
    let mut second = Vec::new();
    let Some(at) = position[node] else { return (first, second) };
    for c1 in graph.neighbours(node) {
        let Some(p1) = position[c1] else { continue };
        if at > p1 {
            first.push(c1);
        }
        second.extend(graph.neighbours(c1).filter(|&c2| position[c2].is_some_and(|p2| p2 < p1)));
    }
    first.sort_by_key(|&i| position[i]);
    second.sort_by_key(|&i| position[i]);
    (first, second)
}
