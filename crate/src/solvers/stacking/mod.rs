//! `stacking`: plans for small instances with alignment that meet the stacking bound.
//!
//! The instance's lower bound knows alignment (`crate::model::stacking`): at its tightest time
//! the buffers alive there cannot end lower than their least stack, and on random aligned
//! instances of 20 to 30 buffers that is the optimum most of the time. A plan that meets it must
//! stack that live set as tightly as alignment allows, and those stackings are few (four on the
//! issue's instance). So this solver enumerates them (`stacks`), pins the tightest live set at
//! each in turn, and places the other buffers first fit in an order that simulated annealing
//! improves (moves: take a buffer out of the order and put it back elsewhere; a worse makespan is
//! accepted with a probability that falls as the temperature does). Without such a stacking (the
//! target is below the bound, or the live set is too large) it anneals the whole order.
//!
//! It is a heuristic: it proves nothing beyond the instance's bound, which settles the run as
//! optimal when a plan meets it ([`crate::Stopped::LowerBound`]). Seeded: the same seed gives the
//! same plan. First fit over every order reaches every optimum (the tests' oracle relies on it),
//! so nothing is lost by searching orders. Pinned buffers stay where they are and the stackings
//! are not tried then (they would have to respect the pins). Work is capped by the neighbours
//! visited, so a large instance gets few orders (and above `MAX_BUFFERS` the start plan alone).

mod stacks;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::greedy::given_or_quick_pass;
use super::minimalloc::{Decision, Settings, decide, window_bound, window_stats};
use super::{Capabilities, Solver, stop_reason};
use crate::alignment::align_up;
use crate::model::stacking::{self, MAX_STACKED, Programme, for_each_maximal_live_set};
use crate::model::{Buffer, Outcome, Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{Halt, Parameter, SolveOptions};

/// The node budget of the window bound (see [`crate::solvers::minimalloc::window_bound`]).
const WINDOW_NODES: u64 = 100_000;
/// The node budget of the exact search at the window bound.
const SEARCH_NODES: u64 = 20_000;
/// Orders tried per stacking in the first round; the slice doubles every round.
const FIRST_SLICE: u64 = 256;
/// How many tight stackings of the tightest live set are tried in turn.
const MAX_STACKINGS: usize = 16;
/// How often (in orders tried) the deadline is looked at.
const CHECK_EVERY: u64 = 64;
/// The most neighbours (buffers alive together, summed over the buffers, plus the buffers) that
/// the orders tried may visit in one run: about 40,000 orders of a 30-buffer instance.
const MAX_WORK: u64 = 1 << 23;
/// Above this many buffers the solver returns the start plan without searching: its neighbour
/// lists grow with the square of the buffers alive together.
const MAX_BUFFERS: usize = 4096;

pub struct Stacking;

impl Solver for Stacking {
    fn name(&self) -> &str {
        "stacking"
    }

    fn description(&self) -> String {
        "heuristic for small aligned instances: stacks the buffers alive at the tightest time as tightly as \
         alignment allows (each such stacking in turn) and anneals the first-fit order of the rest; optimal \
         when it meets the stacking bound"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_capacity().with_randomised()
    }

    fn parameters(&self) -> Vec<Parameter> {
        vec![
            Parameter::at_least("orders", 20_000, 1, "how many orders are tried (first fit each) at most"),
            Parameter::flag(
                "windows",
                true,
                "when the first orders miss the instance's bound, aim at the window bound (MiniMalloc's) and prove it",
            ),
        ]
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        options.params.check(&self.parameters())?;
        let budget: u64 = options.params.get_or("orders", 20_000)?;
        let windows: bool = options.params.get_or("windows", true)?;
        let deadline = options.deadline();
        let capacity = options.capacity;
        let mut target = capacity.unwrap_or(problem.lower_bound()).max(problem.lower_bound());
        // The proven bound: the instance's, or the window bound once it is computed.
        let mut proven = problem.lower_bound();
        let mut windowed = None;
        let mut searched: (Option<Found>, u64) = (None, 0);
        let buffers = problem.buffers();
        if let Some(reason) = crate::solvers::minimalloc::quick_refutation(problem, None) {
            return Err(Halt::Infeasible(reason)); // pinned buffers that overlap
        }
        if buffers.len() > MAX_BUFFERS {
            let plan = given_or_quick_pass(problem, options)?;
            let mut outcome = Outcome::new(self.name(), problem, capacity, Some(plan), 0, Stopped::Completed);
            outcome.stats.insert("search".into(), format!("skipped: more than {MAX_BUFFERS} buffers").into());
            return Ok(outcome);
        }
        let placer = Placer::new(buffers);
        let budget = budget.min(MAX_WORK / placer.work).max(1);
        let pinned: Vec<(usize, u64)> = buffers.iter().enumerate().filter_map(|(i, b)| Some((i, b.pinned?))).collect();
        let mut starts = vec![Start { order: free_order(buffers, &pinned), pins: pinned.clone() }];
        if let Some(set) = tightest_set(buffers).filter(|_| pinned.is_empty()) {
            for pins in stacks::stackings(buffers, &set, target, MAX_STACKINGS) {
                let order = free_order(buffers, &pins);
                starts.push(Start { pins, order });
            }
        }
        // The stackings first (they reach the target when anything does); the free order last.
        starts.rotate_left(1);
        let stackings = starts.len() - 1;
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut annealers: Vec<Annealer> = starts.into_iter().map(|start| Annealer::new(&placer, start)).collect();
        let mut best = annealers.iter().min_by_key(|a| a.best.0).map(|a| a.best.clone()).unwrap_or_default();
        let mut tried = annealers.len() as u64;
        let mut slice = FIRST_SLICE;
        let mut interrupted = false;
        'rounds: while best.0 > target && tried < budget {
            for annealer in annealers.iter_mut() {
                let mut left = slice.min(budget - tried);
                while left > 0 {
                    let steps = left.min(CHECK_EVERY);
                    annealer.anneal(&placer, steps, target, &mut rng);
                    tried += steps;
                    left -= steps;
                    if annealer.best.0 < best.0 {
                        best = annealer.best.clone();
                    }
                    if best.0 <= target || tried >= budget {
                        break 'rounds;
                    }
                    if deadline.expired().is_some() {
                        interrupted = true;
                        break 'rounds;
                    }
                }
            }
            slice = slice.saturating_mul(2);
            // After a first round that missed the instance's bound, without a capacity: the window
            // bound may prove the optimum higher, and then the search can stop when it gets there.
            if windows && capacity.is_none() && windowed.is_none() && best.0 > target {
                let found = window_bound(problem, proven, best.0, &Settings::default(), WINDOW_NODES, &deadline);
                proven = proven.max(found.bound);
                target = target.max(proven);
                windowed = Some(found);
                // Above the instance's bound, the tightest live set's stackings are not what binds:
                // the exact search at the window bound is the better way to a plan there.
                if best.0 > target && proven > problem.lower_bound() {
                    searched = search_at(problem, target, &deadline);
                    if let Some(found) = searched.0.take() {
                        best = found;
                    }
                }
            }
        }
        let (makespan, offsets, order) = best;
        if makespan == u64::MAX {
            let b = &buffers[order.first().copied().unwrap_or(0)];
            return Err(Halt::Overflow { buffer: b.id.to_string(), offset: u64::MAX, size: b.size });
        }
        let plan = Plan::new(problem, offsets, order);
        let reached = capacity.is_some_and(|c| plan.makespan <= c);
        let stopped = match () {
            _ if reached => Stopped::Fits,
            _ if interrupted => stop_reason(&deadline, Stopped::Completed),
            _ => Stopped::Completed,
        };
        let mut outcome = Outcome::new(self.name(), problem, capacity, Some(plan), proven, stopped);
        let mut stats = Stats::new();
        if let Some(found) = &windowed {
            window_stats(&mut stats, found);
            stats.insert("search_nodes".into(), StatValue::Count(searched.1));
            if found.bound > problem.lower_bound() {
                outcome.detail = found.detail(problem.semantics());
            }
        }
        stats.insert("orders".into(), StatValue::Count(tried));
        stats.insert("stackings".into(), StatValue::Count(stackings as u64));
        stats.insert("target".into(), target.into());
        outcome.stats = stats;
        Ok(outcome)
    }
}

/// MiniMalloc's feasibility search at `capacity`, within [`SEARCH_NODES`]: its plan, if it found
/// one, and the nodes it took.
fn search_at(problem: &Problem, capacity: u64, deadline: &crate::options::Deadline) -> (Option<Found>, u64) {
    let settings = Settings { budget: SEARCH_NODES, ..Settings::default() };
    let Ok(report) = decide(problem, capacity, &settings, deadline) else { return (None, 0) };
    let plan = match report.decision {
        Decision::Feasible { offsets, placement_order } => {
            let buffers = problem.buffers();
            let makespan = buffers.iter().zip(&offsets).map(|(b, &o)| o.saturating_add(b.size)).max().unwrap_or(0);
            Some((makespan, offsets, placement_order))
        }
        _ => None,
    };
    (plan, report.counters.nodes)
}

/// The maximal live set whose least stack is highest (the one the bound comes from), among those
/// small enough for the subset programme; `None` when no live set holds a buffer aligned above 1.
fn tightest_set(buffers: &[Buffer]) -> Option<Vec<usize>> {
    let mut best: Option<(u64, Vec<usize>)> = None;
    let mut programme = Programme::default();
    let mut items: Vec<stacking::Item> = Vec::new();
    for_each_maximal_live_set(buffers, |alive, _| {
        if alive.len() > MAX_STACKED || !alive.iter().any(|&i| buffers[i].alignment() > 1) {
            return;
        }
        items.clear();
        items.extend(alive.iter().map(|&i| stacking::Item::from(&buffers[i])));
        let least = programme.least_top(&items).unwrap_or(0); // at most MAX_STACKED items: always Some
        if best.as_ref().is_none_or(|(top, _)| least > *top) {
            let mut set = alive.to_vec();
            set.sort_unstable();
            best = Some((least, set));
        }
    });
    best.map(|(_, set)| set)
}

/// The buffers not pinned, largest alignment first, then largest size, then index: the order the
/// annealing starts from.
fn free_order(buffers: &[Buffer], pins: &[(usize, u64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..buffers.len()).filter(|i| !pins.iter().any(|&(p, _)| p == *i)).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(buffers[i].alignment()), std::cmp::Reverse(buffers[i].size), i));
    order
}

/// A stacking to pin and the order of the rest to start from.
struct Start {
    pins: Vec<(usize, u64)>,
    order: Vec<usize>,
}

/// (makespan, offsets, placement order) of a plan; makespan `u64::MAX` when an offset overflowed.
type Found = (u64, Vec<u64>, Vec<usize>);

/// First fit around what is placed: each buffer at the lowest multiple of its alignment where it
/// meets no placed buffer alive with it.
struct Placer<'a> {
    buffers: &'a [Buffer],
    /// Each buffer's neighbours: the buffers alive with it.
    neighbours: Vec<Vec<usize>>,
    /// What placing every buffer once visits: the buffers and their neighbours.
    work: u64,
}

impl<'a> Placer<'a> {
    fn new(buffers: &'a [Buffer]) -> Self {
        let n = buffers.len();
        let mut neighbours = vec![Vec::new(); n];
        // A sweep by start: each buffer meets the earlier-starting buffers still alive.
        let mut by_start: Vec<usize> = (0..n).filter(|&i| buffers[i].size > 0).collect();
        by_start.sort_by_key(|&i| (buffers[i].start, i));
        let mut alive: Vec<usize> = Vec::new();
        for &i in &by_start {
            alive.retain(|&j| buffers[j].end > buffers[i].start);
            for &j in &alive {
                if buffers[i].alive_together(&buffers[j]) {
                    neighbours[i].push(j);
                    neighbours[j].push(i);
                }
            }
            alive.push(i);
        }
        let work = (n + neighbours.iter().map(Vec::len).sum::<usize>()).max(1) as u64;
        Placer { buffers, neighbours, work }
    }

    /// The plan of `pins` with `order` placed first fit after them; `taken` is scratch space.
    fn place(&self, pins: &[(usize, u64)], order: &[usize], taken: &mut Vec<(u64, u64)>) -> Found {
        const UNPLACED: u64 = u64::MAX;
        let mut offsets = vec![UNPLACED; self.buffers.len()];
        let mut makespan = 0u64;
        for &(i, offset) in pins {
            offsets[i] = offset;
            makespan = makespan.max(offset.saturating_add(self.buffers[i].size));
        }
        for &i in order {
            let b = &self.buffers[i];
            taken.clear();
            taken.extend(
                self.neighbours[i]
                    .iter()
                    .filter(|&&j| offsets[j] != UNPLACED)
                    .map(|&j| (offsets[j], offsets[j].saturating_add(self.buffers[j].size))),
            );
            taken.sort_unstable();
            let mut offset = 0u64;
            for &(low, high) in taken.iter() {
                if offset.saturating_add(b.size) <= low {
                    break;
                }
                if high > offset {
                    offset = align_up(high, b.alignment()).unwrap_or(u64::MAX);
                }
            }
            let top = offset.checked_add(b.size);
            offsets[i] = offset;
            makespan = match top {
                Some(top) if offset != UNPLACED => makespan.max(top),
                _ => return (u64::MAX, offsets, vec![i]),
            };
        }
        let placement: Vec<usize> = pins.iter().map(|&(i, _)| i).chain(order.iter().copied()).collect();
        (makespan, offsets, placement)
    }
}

/// Simulated annealing over the order of the buffers that are not pinned.
struct Annealer {
    pins: Vec<(usize, u64)>,
    order: Vec<usize>,
    makespan: u64,
    best: Found,
    temperature: f64,
    taken: Vec<(u64, u64)>,
}

impl Annealer {
    fn new(placer: &Placer, start: Start) -> Self {
        let mut taken = Vec::new();
        let best = placer.place(&start.pins, &start.order, &mut taken);
        // A move that costs about a small buffer's padding is taken often at first.
        let temperature = (best.0.min(1 << 40) as f64 / 300.0).max(1.0);
        Annealer { pins: start.pins, order: start.order, makespan: best.0, best, temperature, taken }
    }

    fn anneal(&mut self, placer: &Placer, steps: u64, target: u64, rng: &mut ChaCha8Rng) {
        let n = self.order.len();
        if n < 2 {
            return;
        }
        for _ in 0..steps {
            let from = rng.random_range(0..n);
            let to = rng.random_range(0..n);
            if from == to {
                continue;
            }
            let moved = self.order.remove(from);
            self.order.insert(to, moved);
            let found = placer.place(&self.pins, &self.order, &mut self.taken);
            let accept = found.0 <= self.makespan || {
                let worse = (found.0 - self.makespan) as f64;
                rng.random::<f64>() < (-worse / self.temperature).exp()
            };
            if accept {
                self.makespan = found.0;
                if found.0 < self.best.0 {
                    self.best = found;
                    if self.best.0 <= target {
                        return;
                    }
                }
            } else {
                let moved = self.order.remove(to);
                self.order.insert(from, moved);
            }
            self.temperature = (self.temperature * 0.999).max(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The issue's instance: its stacking bound (61,456) is met.
    #[test]
    fn the_issue_instance_meets_its_bound() {
        let text = include_str!("../../../tests/fixtures/aligned/issue20.csv");
        let problem = crate::format::read(text, &crate::format::ReadOptions::default()).unwrap().problem;
        assert_eq!(problem.lower_bound(), 61_456);
        let outcome = Stacking.solve(&problem, &SolveOptions::default()).unwrap();
        assert_eq!(outcome.makespan(), Some(61_456));
        assert_eq!(outcome.stopped, Stopped::LowerBound);
        assert!(crate::validate::validate_outcome(&problem, &outcome).is_valid());
    }
}
