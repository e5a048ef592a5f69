//! Makespan minimisation on top of a feasibility search: the driver that the exact and the search
//! solvers share.
//!
//! It starts from a plan that is already known (the best greedy plan, so there is always an answer)
//! and a proven lower bound (L and the pinned tops), and probes capacities in between. A plan found
//! at a capacity lowers the upper end to that plan's makespan; a proof that nothing fits raises the
//! lower end; a probe that runs out of its budget proves nothing, so the driver moves on to higher
//! capacities (where plans are easier to find) and comes back to the unknown range with a doubled
//! budget once the rest is settled. Unlike a bisection that shares one deadline from capacity 0,
//! one hard probe cannot eat the whole time limit, and the best plan and bound so far are always
//! there to return.

use std::time::Duration;

use crate::model::{Problem, Solution, StatValue};
use crate::options::{Deadline, Progress, SolveOptions};

/// What one feasibility probe at a capacity found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// A plan that fits the capacity, with the order its buffers were placed in.
    Feasible { offsets: Vec<u64>, placement_order: Vec<usize> },
    /// A proof that no plan fits the capacity.
    Infeasible,
    /// The probe stopped (its budget, the deadline or a cancel) without an answer.
    Unknown,
}

/// The first budget of a probe, as a fraction of the time left, and the floor for it.
const FIRST_SLICE_DIVISOR: u32 = 8;
const MIN_SLICE: Duration = Duration::from_millis(20);
/// Without a time limit, probes still get budgets (doubling from this), so that an unknown range
/// is revisited only after the easier capacities are settled.
const UNLIMITED_FIRST_SLICE: Duration = Duration::from_secs(2);

/// Counts of what the probes found, for the solution's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeCounts {
    pub feasible: u64,
    pub infeasible: u64,
    pub unknown: u64,
}

/// Lowers `start`'s makespan by probing capacities between the proven lower bound and it.
///
/// `probe(capacity, deadline)` must return a plan whose makespan is at most `capacity`, or a proof
/// that none exists, or `Unknown` once `deadline` has expired. The returned solution keeps the
/// best plan, its `lower_bound` is the best proven bound, and `optimal` is true only when the two
/// meet. Statistics `probes_*` are added.
pub fn minimise(
    problem: &Problem,
    options: &SolveOptions,
    deadline: &Deadline,
    mut best: Solution,
    mut probe: impl FnMut(u64, &Deadline) -> Probe,
) -> Solution {
    let started = web_time::Instant::now();
    let mut proven_lower = problem.lower_bound().max(best.lower_bound);
    let mut counts = ProbeCounts::default();
    // Capacities below `search_lower` are proven infeasible or were left unknown in this round.
    let mut search_lower = proven_lower;
    let mut slice = match deadline.remaining() {
        Some(left) => (left / FIRST_SLICE_DIVISOR).max(MIN_SLICE),
        None => UNLIMITED_FIRST_SLICE,
    };
    let mut unknown_this_round = false;
    // The lower bound itself is probed once per round; after that the driver bisects, so that
    // refutations at the bound raise it by halves of the gap, not byte by byte (a gap near 2^64
    // would otherwise take that many probes).
    let mut bound_probed = false;
    while proven_lower < best.makespan && deadline.expired().is_none() {
        if search_lower >= best.makespan {
            if !unknown_this_round {
                break; // every capacity below the best plan was refuted
            }
            // Settle the ranges that timed out, with more time each.
            search_lower = proven_lower;
            slice = slice.saturating_mul(2);
            unknown_this_round = false;
            bound_probed = false;
        }
        // Probe the lower bound itself first: perfect packings are common and end the search.
        let capacity = if !bound_probed && search_lower == proven_lower {
            proven_lower
        } else {
            search_lower + (best.makespan - search_lower) / 2
        };
        bound_probed = true;
        let probe_deadline = deadline.within(slice);
        match probe(capacity, &probe_deadline) {
            Probe::Feasible { offsets, placement_order } => {
                counts.feasible += 1;
                let makespan = crate::metrics::makespan(problem.buffers(), &offsets);
                debug_assert!(makespan <= capacity, "a probe at {capacity} returned makespan {makespan}");
                if makespan < best.makespan {
                    best.plan.offsets = offsets;
                    best.placement_order = placement_order;
                    best.makespan = makespan;
                }
            }
            Probe::Infeasible => {
                counts.infeasible += 1;
                // Nothing fits in `capacity`, so nothing fits in less either.
                proven_lower = proven_lower.max(capacity + 1);
                search_lower = search_lower.max(capacity + 1);
            }
            Probe::Unknown => {
                counts.unknown += 1;
                unknown_this_round = true;
                search_lower = search_lower.max(capacity + 1);
            }
        }
        options.report(Progress {
            solver: best.solver.clone(),
            best_makespan: Some(best.makespan),
            lower_bound: proven_lower,
            nodes: counts.feasible + counts.infeasible + counts.unknown,
        });
    }
    best.lower_bound = proven_lower.min(best.makespan);
    best.optimal = best.makespan <= proven_lower;
    best.stats.insert("probes_feasible".into(), StatValue::Count(counts.feasible));
    best.stats.insert("probes_infeasible".into(), StatValue::Count(counts.infeasible));
    best.stats.insert("probes_unknown".into(), StatValue::Count(counts.unknown));
    best.stats.insert("minimise_ms".into(), StatValue::Ratio(started.elapsed().as_secs_f64() * 1000.0));
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Buffer, Plan, Stats};

    /// Two buffers alive together (sizes 3 and 5) and one alone: L = 8.
    fn problem() -> Problem {
        Problem::new(vec![Buffer::new("a", 0, 2, 3), Buffer::new("b", 0, 2, 5), Buffer::new("c", 2, 3, 4)], None)
            .unwrap()
    }

    fn stacked(problem: &Problem, offsets: Vec<u64>) -> Solution {
        Solution {
            solver: "test".into(),
            makespan: crate::metrics::makespan(problem.buffers(), &offsets),
            plan: Plan::new(offsets),
            max_load: problem.max_load(),
            lower_bound: problem.lower_bound(),
            optimal: false,
            feasible: true,
            stats: Stats::new(),
            elapsed: Duration::ZERO,
            placement_order: vec![0, 1, 2],
            seed: 0,
        }
    }

    #[test]
    fn a_plan_at_the_lower_bound_ends_the_search() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]); // makespan 15
        let mut asked = Vec::new();
        let solution = minimise(&problem, &SolveOptions::default(), &Deadline::none(), start, |capacity, _| {
            asked.push(capacity);
            Probe::Feasible { offsets: vec![0, 3, 0], placement_order: vec![0, 1, 2] }
        });
        assert_eq!(asked, vec![8]);
        assert_eq!(solution.makespan, 8);
        assert!(solution.optimal);
        assert_eq!(solution.lower_bound, 8);
    }

    #[test]
    fn refutations_raise_the_bound_and_prove_the_optimum() {
        // A pretend solver for which exactly capacities >= 11 are feasible.
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]); // makespan 15
        let solution = minimise(&problem, &SolveOptions::default(), &Deadline::none(), start, |capacity, _| {
            if capacity >= 11 {
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Infeasible
            }
        });
        assert_eq!(solution.makespan, 11);
        assert_eq!(solution.lower_bound, 11);
        assert!(solution.optimal);
    }

    #[test]
    fn refutations_at_the_bound_bisect_a_huge_gap() {
        // L = 8, a start plan near u64::MAX, and a pretend solver for which capacities >= 2^40 fit:
        // a probe per bit of the gap, not one per byte.
        let problem = problem();
        let start = stacked(&problem, vec![0, u64::MAX - 5, 0]);
        let mut probes = 0;
        let solution = minimise(&problem, &SolveOptions::default(), &Deadline::none(), start, |capacity, _| {
            probes += 1;
            if capacity >= 1 << 40 {
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Infeasible
            }
        });
        assert_eq!(solution.makespan, 1 << 40);
        assert!(solution.optimal);
        assert!(probes <= 2 * 64, "{probes} probes");
    }

    #[test]
    fn unknown_probes_never_raise_the_proven_bound() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]);
        let options = SolveOptions::default();
        let deadline = options.deadline(web_time::Instant::now());
        let mut unknown = 0;
        let solution = minimise(&problem, &options, &deadline, start, |capacity, _| {
            if capacity >= 12 {
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                // Hard: never decided. The caller stops after some tries (a count, not a clock).
                unknown += 1;
                if unknown == 20 {
                    options.cancel.cancel();
                }
                Probe::Unknown
            }
        });
        assert_eq!(solution.makespan, 12);
        assert_eq!(solution.lower_bound, 8, "nothing was refuted");
        assert!(!solution.optimal);
        assert_eq!(unknown, 20, "an unknown range is retried until the caller stops");
    }

    #[test]
    fn a_cancel_returns_the_start_plan() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]);
        let options = SolveOptions::default();
        options.cancel.cancel();
        let deadline = options.deadline(web_time::Instant::now());
        let solution = minimise(&problem, &options, &deadline, start, |_, _| unreachable!("cancelled before probing"));
        assert_eq!(solution.makespan, 15);
        assert!(!solution.optimal);
    }
}
