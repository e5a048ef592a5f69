//! Makespan minimisation on top of a feasibility search: the driver that the exact and the search
//! solvers share.
//!
//! It starts from a plan that is already known (a start plan, so there is always an answer) and a
//! proven lower bound (the instance's own: L, pinned tops, alignment), and probes capacities in
//! between. It probes the bound itself first (perfect packings are common and end the search),
//! then bisects: a plan found at a capacity lowers the upper end to that plan's makespan; a proof
//! that nothing fits raises the lower end (and the proven bound) past it; a probe that runs out of
//! its budget proves nothing, so the bisection moves on above it, and once the range is settled
//! the driver comes back to what stayed unknown with a doubled budget. Each round therefore takes
//! O(log(makespan − bound)) probes, and one hard probe cannot eat the whole time limit: the best
//! plan and bound so far are always there to return.

use std::time::Duration;

use crate::model::{Plan, Problem, StatValue, Stats, Stopped};
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

/// Counts of what the probes found, for the outcome's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeCounts {
    pub feasible: u64,
    pub infeasible: u64,
    pub unknown: u64,
}

impl ProbeCounts {
    pub fn total(&self) -> u64 {
        self.feasible + self.infeasible + self.unknown
    }
}

/// What a minimisation ended with.
#[derive(Clone, Debug)]
pub struct Minimised {
    /// The best plan: the start plan or a lower one.
    pub plan: Plan,
    /// The best proven lower bound (at most the plan's makespan).
    pub lower_bound: u64,
    /// [`Stopped::Optimal`] when plan and bound met; else why the driver stopped.
    pub stopped: Stopped,
    pub counts: ProbeCounts,
}

impl Minimised {
    /// Adds the probe counts to `stats`.
    pub fn write_stats(&self, stats: &mut Stats) {
        stats.insert("probes_feasible".into(), StatValue::Count(self.counts.feasible));
        stats.insert("probes_infeasible".into(), StatValue::Count(self.counts.infeasible));
        stats.insert("probes_unknown".into(), StatValue::Count(self.counts.unknown));
    }
}

/// Lowers `start`'s makespan by probing capacities between the proven lower bound and it.
///
/// `probe(capacity, deadline)` must return a plan whose makespan is at most `capacity`, or a proof
/// that none exists, or `Unknown` once `deadline` has expired. The driver stops when the plan
/// meets the bound or `deadline` expires; `caller` is the deadline of the solve that asked (its
/// time limit and cancel), which tells a time limit or a cancel from the solver's own stop (its
/// work budget, raised on `deadline`'s flag).
pub fn minimise(
    solver: &str,
    problem: &Problem,
    options: &SolveOptions,
    caller: &Deadline,
    deadline: &Deadline,
    start: Plan,
    mut probe: impl FnMut(u64, &Deadline) -> Probe,
) -> Minimised {
    let mut best = start;
    let mut proven_lower = problem.lower_bound().min(best.makespan);
    let mut counts = ProbeCounts::default();
    // The range still to settle in this round is [search_lower, best.makespan): capacities below
    // `search_lower` are refuted or were left unknown in this round.
    let mut search_lower = proven_lower;
    let mut slice = match deadline.remaining() {
        Some(left) => (left / FIRST_SLICE_DIVISOR).max(MIN_SLICE),
        None => UNLIMITED_FIRST_SLICE,
    };
    let mut unknown_this_round = false;
    let mut bound_probed = false;
    while proven_lower < best.makespan && deadline.expired().is_none() {
        if search_lower >= best.makespan {
            if !unknown_this_round {
                break; // every capacity below the best plan was refuted
            }
            // Settle the ranges that stayed unknown, with more time each.
            search_lower = proven_lower;
            slice = slice.saturating_mul(2);
            unknown_this_round = false;
            bound_probed = false;
        }
        let capacity = if bound_probed {
            search_lower + (best.makespan - 1 - search_lower) / 2
        } else {
            bound_probed = true;
            proven_lower
        };
        let probe_deadline = deadline.within(slice);
        match probe(capacity, &probe_deadline) {
            Probe::Feasible { offsets, placement_order } => {
                counts.feasible += 1;
                let found = Plan::new(problem, offsets, placement_order);
                debug_assert!(found.makespan <= capacity, "a probe at {capacity} returned makespan {}", found.makespan);
                if found.makespan < best.makespan {
                    best = found;
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
            solver: solver.to_string(),
            best_makespan: Some(best.makespan),
            lower_bound: proven_lower,
            nodes: counts.total(),
        });
    }
    let stopped =
        if proven_lower >= best.makespan { Stopped::Optimal } else { super::stop_reason(caller, Stopped::Budget) };
    Minimised { lower_bound: proven_lower.min(best.makespan), plan: best, stopped, counts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;

    /// Two buffers alive together (sizes 3 and 5) and one alone: L = 8.
    fn problem() -> Problem {
        Problem::new(vec![Buffer::new("a", 0, 2, 3), Buffer::new("b", 0, 2, 5), Buffer::new("c", 2, 3, 4)], None)
            .unwrap()
    }

    fn stacked(problem: &Problem, offsets: Vec<u64>) -> Plan {
        Plan::new(problem, offsets, vec![0, 1, 2])
    }

    fn run(
        problem: &Problem,
        options: &SolveOptions,
        start: Plan,
        probe: impl FnMut(u64, &Deadline) -> Probe,
    ) -> Minimised {
        let deadline = options.deadline(web_time::Instant::now());
        minimise("test", problem, options, &deadline, &deadline, start, probe)
    }

    #[test]
    fn a_plan_at_the_lower_bound_ends_the_search() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]); // makespan 15
        let mut asked = Vec::new();
        let found = run(&problem, &SolveOptions::default(), start, |capacity, _| {
            asked.push(capacity);
            Probe::Feasible { offsets: vec![0, 3, 0], placement_order: vec![0, 1, 2] }
        });
        assert_eq!(asked, vec![8]);
        assert_eq!(found.plan.makespan, 8);
        assert_eq!(found.stopped, Stopped::Optimal);
        assert_eq!(found.lower_bound, 8);
    }

    #[test]
    fn refutations_raise_the_bound_and_prove_the_optimum() {
        // A pretend solver for which exactly capacities >= 11 are feasible.
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]); // makespan 15
        let found = run(&problem, &SolveOptions::default(), start, |capacity, _| {
            if capacity >= 11 {
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Infeasible
            }
        });
        assert_eq!(found.plan.makespan, 11);
        assert_eq!(found.lower_bound, 11);
        assert_eq!(found.stopped, Stopped::Optimal);
    }

    /// The optimum is 2^40 bytes above L: a driver that raised its bound a byte (or a constant)
    /// per refuted probe would never end; bisection needs about 2 × 41 probes.
    #[test]
    fn byte_scale_gaps_take_logarithmically_many_probes() {
        let problem = problem();
        let optimum = 8 + (1u64 << 40) + 12_345;
        let start = stacked(&problem, vec![0, (1 << 50) - 5, 0]); // makespan 2^50
        let mut probes = 0u64;
        let found = run(&problem, &SolveOptions::default(), start, |capacity, _| {
            probes += 1;
            if capacity >= optimum {
                // A plan that uses all of the capacity: the worst a feasible probe can return.
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Infeasible
            }
        });
        assert_eq!(found.plan.makespan, optimum);
        assert_eq!(found.lower_bound, optimum);
        assert_eq!(found.stopped, Stopped::Optimal);
        assert!(probes <= 2 * 52, "{probes} probes for a range of 2^50");
    }

    #[test]
    fn refutations_at_the_bound_bisect_a_huge_gap() {
        // L = 8, a start plan near u64::MAX, and a pretend solver for which capacities >= 2^40 fit:
        // a probe per bit of the gap, not one per byte.
        let problem = problem();
        let start = stacked(&problem, vec![0, u64::MAX - 5, 0]);
        let mut probes = 0;
        let solution = run(&problem, &SolveOptions::default(), start, |capacity, _| {
            probes += 1;
            if capacity >= 1 << 40 {
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Infeasible
            }
        });
        assert_eq!(solution.plan.makespan, 1 << 40);
        assert_eq!(solution.stopped, Stopped::Optimal);
        assert!(probes <= 2 * 64, "{probes} probes");
    }

    #[test]
    fn unknown_probes_never_raise_the_proven_bound() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]);
        // The caller's deadline never passes; the driver's own stops after a number of probes
        // (as a solver's work budget does).
        let options = SolveOptions::default();
        let caller = options.deadline(web_time::Instant::now());
        let stop = options.cancel.child();
        let deadline = SolveOptions { cancel: stop.clone(), ..options.clone() }.deadline(web_time::Instant::now());
        let mut probes = 0;
        let found = minimise("test", &problem, &options, &caller, &deadline, start, |capacity, _| {
            probes += 1;
            if probes == 40 {
                stop.cancel();
            }
            if capacity >= 12 {
                Probe::Feasible { offsets: vec![0, capacity - 5, 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Unknown // hard: never decided
            }
        });
        assert_eq!(found.plan.makespan, 12);
        assert_eq!(found.lower_bound, 8, "nothing was refuted");
        assert_eq!(found.stopped, Stopped::Budget, "the driver's own stop is its budget");
        assert_eq!(probes, 40, "an unknown range is retried until the budget is spent");
    }

    #[test]
    fn a_cancel_returns_the_start_plan() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 10, 0]);
        let options = SolveOptions::default();
        options.cancel.cancel();
        let found = run(&problem, &options, start, |_, _| unreachable!("cancelled before probing"));
        assert_eq!(found.plan.makespan, 15);
        assert_eq!(found.stopped, Stopped::Cancelled);
    }
}
