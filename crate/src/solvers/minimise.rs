//! Makespan minimisation on top of a feasibility search: the driver that the exact and the search
//! solvers share.
//!
//! It starts from a plan that is already known (a start plan, so there is always an answer) and a
//! proven lower bound (the instance's own: L, pinned tops, alignment), and probes capacities in
//! between, in rounds. Each round probes the bound first (perfect packings are common and end the
//! search), then descends from the best plan: one unit below it first (see [`unit`]: capacities in
//! between are worth no more), twice as far each time a probe finds a plan, halfway back up after
//! a probe that overshot, and, once a probe one unit below the best fails, on down one unit at a
//! time. Plans just below the best are found quickly, while the cost of a probe varies a lot from
//! one capacity to the next (MiniMalloc settles D at 1,034,240 bytes in 900 nodes and at 1,035,264
//! not in 100,000), so a probe that fails says little about the capacity below it. A round ends
//! after [`FAILURES_PER_ROUND`] probes without an answer, and the bound then gets as much again as
//! the descent spent (a solver that resumes a search asked again, as MiniMalloc does, loses
//! nothing by the split). Each round doubles what a probe may spend (its share of the solver's
//! work budget, or of the time left), so that one hard probe cannot eat the whole budget: the best
//! plan and bound so far are always there to return.
//!
//! A proof that nothing fits a capacity raises the bound past it; then the descent bisects between
//! that capacity and the best plan, so that with probes that always answer (no budget) the driver
//! ends with a proven optimum.

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

/// Without a time limit, probes still get budgets (doubling from this), so that an unknown range
/// is revisited only after the easier capacities are settled.
const UNLIMITED_FIRST_SLICE: Duration = Duration::from_secs(2);
/// The shortest time slice of a probe.
const MIN_SLICE: Duration = Duration::from_millis(20);
/// A descent probe of the first round may spend 1/2^FIRST_SHIFT of the solver's work budget (or
/// of the time left); each round doubles it, up to all that is left.
const FIRST_SHIFT: u32 = 5;
/// Descent probes in a row that may end without an answer before the round ends; the bound's first
/// probe of a round gets as much as these together.
const FAILURES_PER_ROUND: u64 = 6;

/// What one probe may spend: a deadline (a time slice when the run has a time limit) and, for a
/// solver with a work budget, a portion of it that doubles every round.
pub struct Allotment<'a> {
    pub deadline: &'a Deadline,
    round: u32,
    /// How many descent probes' worth the probe gets.
    weight: u64,
}

impl Allotment<'_> {
    /// The part of a work budget of `total` this probe may spend (the caller caps it by what is
    /// left).
    pub fn portion(&self, total: u64) -> u64 {
        (total >> FIRST_SHIFT.saturating_sub(self.round)).saturating_mul(self.weight).max(1)
    }
}

/// Where the next probe of a round goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// The proven lower bound, with this many descent probes' worth.
    Bound(u64),
    /// This far below the best plan (rounded down to the unit, within what is left to probe).
    Below(u64),
    /// Halfway between this capacity, where a probe failed, and the best plan.
    Between(u64),
    /// One unit below this capacity, where a probe failed one unit below the best plan or below
    /// another that failed so (skipping those that failed in this round).
    Creep(u64),
    /// Halfway between the highest capacity refuted and the best plan.
    Halfway,
    /// The descent is over.
    End,
}

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
    /// Rounds begun.
    pub rounds: u32,
}

impl Minimised {
    /// Adds the probe counts to `stats`.
    pub fn write_stats(&self, stats: &mut Stats) {
        stats.insert("probes_feasible".into(), StatValue::Count(self.counts.feasible));
        stats.insert("probes_infeasible".into(), StatValue::Count(self.counts.infeasible));
        stats.insert("probes_unknown".into(), StatValue::Count(self.counts.unknown));
        stats.insert("probe_rounds".into(), StatValue::Count(self.rounds as u64));
    }
}

/// The step between capacities worth probing: the greatest common divisor of the sizes, pinned
/// offsets and alignments. A plan can always be lowered, buffer by buffer from the bottom, until
/// each buffer sits on a top below it, on 0 or on the alignment above either; then every offset and
/// top is a multiple of this unit. So a plan fits a capacity exactly when one fits the multiple of
/// the unit at or below it.
fn unit(problem: &Problem) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let unit = problem.buffers().iter().fold(0, |unit, buffer| {
        let aligned = if buffer.alignment > 1 { gcd(unit, buffer.alignment) } else { unit };
        gcd(gcd(aligned, buffer.size), buffer.pinned.unwrap_or(0))
    });
    unit.max(1)
}

/// `value` rounded up to a multiple of `unit` (saturating at the largest multiple).
fn round_up(value: u64, unit: u64) -> u64 {
    value.div_ceil(unit).checked_mul(unit).unwrap_or(u64::MAX / unit * unit)
}

/// Lowers `start`'s makespan by probing capacities between the proven lower bound and it.
///
/// `probe(capacity, allotment)` must return a plan whose makespan is at most `capacity`, or a
/// proof that none exists, or `Unknown` once its allotment is spent. The driver stops when the plan
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
    mut probe: impl FnMut(u64, &Allotment) -> Probe,
) -> Minimised {
    let unit = unit(problem);
    let mut best = start;
    // Every plan can be lowered to one whose tops are multiples of `unit` (see [`unit`]), so the
    // bound rounds up to one, and a capacity is worth as much as the multiple of `unit` below it.
    let mut proven_lower = round_up(problem.lower_bound(), unit).min(best.makespan);
    let mut counts = ProbeCounts::default();
    let mut slice = match deadline.remaining() {
        Some(left) => (left / (1 << FIRST_SHIFT)).max(MIN_SLICE),
        None => UNLIMITED_FIRST_SLICE,
    };
    let mut round = 0u32;
    while proven_lower < best.makespan && deadline.expired().is_none() {
        // `floor` is the highest capacity not worth probing again in this round: the bound, or
        // one refuted.
        let mut floor = proven_lower;
        let mut next = Next::Bound(FAILURES_PER_ROUND);
        let mut caught_up = false;
        let mut in_a_row = 0;
        // Capacities whose probes failed in this round, not to be asked again until the next.
        let mut failed: Vec<u64> = Vec::new();
        while proven_lower < best.makespan && deadline.expired().is_none() {
            // The multiples of `unit` in (floor, best) are left to probe.
            let top = (best.makespan - 1) / unit * unit;
            let lowest = (floor / unit).saturating_add(1).saturating_mul(unit);
            if let Next::Between(below) = next
                && best.makespan - below <= unit
            {
                next = Next::Creep(below);
            }
            if let Next::Creep(mut below) = next {
                while below > lowest && failed.contains(&(below - unit)) {
                    below -= unit;
                }
                next = if below <= lowest { Next::End } else { Next::Creep(below) };
            }
            if lowest > top && !matches!(next, Next::Bound(_)) {
                next = Next::End;
            }
            if next == Next::End {
                // The bound catches up with what the descent spent.
                let spent = failed.len() as u64;
                if caught_up || spent <= FAILURES_PER_ROUND {
                    break;
                }
                caught_up = true;
                next = Next::Bound(spent - FAILURES_PER_ROUND);
            }
            let (capacity, weight) = match next {
                Next::Bound(weight) => (proven_lower, weight),
                Next::Below(distance) => ((best.makespan.saturating_sub(distance) / unit * unit).clamp(lowest, top), 1),
                Next::Between(below) => {
                    let low = below.max(lowest);
                    ((low + (best.makespan - low) / 2) / unit * unit, 1)
                }
                Next::Creep(below) => (below - unit, 1),
                Next::Halfway => (lowest + (top - lowest) / unit / 2 * unit, 1),
                Next::End => break,
            };
            let probe_deadline = deadline.within(slice.saturating_mul(weight as u32));
            match probe(capacity, &Allotment { deadline: &probe_deadline, round, weight }) {
                Probe::Feasible { offsets, placement_order } => {
                    counts.feasible += 1;
                    let found = Plan::new(problem, offsets, placement_order);
                    debug_assert!(
                        found.makespan <= capacity,
                        "a probe at {capacity} returned makespan {}",
                        found.makespan
                    );
                    let distance = best.makespan.saturating_sub(capacity);
                    if found.makespan < best.makespan {
                        best = found;
                    }
                    in_a_row = 0;
                    next = match next {
                        // Still above a capacity that failed: halfway down to it.
                        Next::Between(below) if best.makespan > below => Next::Between(below),
                        // Plans come easier just below the best: go twice as far down next time.
                        _ => Next::Below(distance.saturating_mul(2).max(unit)),
                    };
                }
                Probe::Infeasible => {
                    counts.infeasible += 1;
                    // Nothing fits in `capacity`, so nothing fits below the next multiple of `unit`.
                    proven_lower = proven_lower.max(round_up(capacity.saturating_add(1), unit));
                    floor = floor.max(capacity);
                    next = if caught_up { Next::End } else { Next::Halfway };
                }
                Probe::Unknown => {
                    counts.unknown += 1;
                    next = match next {
                        Next::Bound(_) if caught_up => Next::End,
                        Next::Bound(_) => Next::Below(unit),
                        _ => {
                            failed.push(capacity);
                            in_a_row += 1;
                            match next {
                                _ if in_a_row >= FAILURES_PER_ROUND => Next::End,
                                Next::Creep(_) => Next::Creep(capacity),
                                _ => Next::Between(capacity),
                            }
                        }
                    };
                }
            }
            options.report(Progress {
                solver: solver.to_string(),
                best_makespan: Some(best.makespan),
                lower_bound: proven_lower,
                nodes: counts.total(),
            });
        }
        round += 1;
        slice = slice.saturating_mul(2);
    }
    let stopped =
        if proven_lower >= best.makespan { Stopped::Optimal } else { super::stop_reason(caller, Stopped::Budget) };
    Minimised { lower_bound: proven_lower.min(best.makespan), plan: best, stopped, counts, rounds: round }
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
        probe: impl FnMut(u64, &Allotment) -> Probe,
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
