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
//! after some probes in a row without an answer ([`Schedule`]), and the bound then gets as much again as
//! the descent spent (a solver that resumes a search asked again, as MiniMalloc does, loses
//! nothing by the split). Each round doubles what a probe may spend (its share of the solver's
//! work budget, or of the time left), so that one hard probe cannot eat the whole budget: the best
//! plan and bound so far are always there to return.
//!
//! A proof that nothing fits a capacity raises the bound past it; then the descent bisects between
//! that capacity and the best plan, so that with probes that always answer (no budget) the driver
//! ends with a proven optimum.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::model::{Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{Deadline, Progress, SolveOptions};

/// What one feasibility probe at a capacity found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// A plan that fits the capacity, with the order its buffers were placed in.
    Feasible { offsets: Vec<u64>, placement_order: Vec<usize> },
    /// A proof that no plan fits the capacity.
    Infeasible,
    /// A proof that no plan fits any capacity below this one (which is above the capacity
    /// probed): an exact search whose cuts would all have been made up to there too.
    InfeasibleBelow(u64),
    /// The probe stopped (its budget, the deadline or a cancel) without an answer.
    Unknown,
}

/// Without a time limit, probes still get budgets (doubling from this), so that an unknown range
/// is revisited only after the easier capacities are settled.
const UNLIMITED_FIRST_SLICE: Duration = Duration::from_secs(2);
/// The shortest time slice of a probe.
const MIN_SLICE: Duration = Duration::from_millis(20);
/// How a solver's probes are placed and its budget spread over them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Rounds of a descent from the best plan (see the module doc). A descent probe of the first
    /// round may spend 1/2^`first_shift` of the solver's work budget (or of the time left), and
    /// each round doubles it; `failures_per_round` probes in a row without an answer end the
    /// descent of a round, and the bound's probe of a round gets as much as these together, except
    /// in the first round, where it gets `first_bound_weight` descent probes' worth. With
    /// `bound_catches_up` false the bound's probe gets `first_bound_weight` in every round and
    /// nothing more.
    Descent { first_shift: u32, failures_per_round: u64, first_bound_weight: u64, bound_catches_up: bool },
    /// The bound, then a bisection between the highest capacity refuted or left unknown and the
    /// best plan. The first probe may spend 1/2^`first_shift` of the budget; each probe that ends
    /// without an answer doubles what the next ones may spend.
    Bisection { first_shift: u32 },
}

impl Schedule {
    /// MiniMalloc's: its probes settle quickly just below the best plan, at a cost that varies a
    /// lot from one capacity to the next, so many cheap probes. The bound's first probe gets a
    /// quarter of the budget: perfect packings are common, and the exact search may need many
    /// nodes to find one (E: 186,000).
    pub(crate) const EXACT: Schedule =
        Schedule::Descent { first_shift: 5, failures_per_round: 6, first_bound_weight: 8, bound_catches_up: true };
    /// MiniMalloc's beside a bisection on another thread, which probes the bound itself first:
    /// the descent gives the bound two probes' worth a round and the rest to capacities just below
    /// the best plan. Where the optimum is well above the bound (challenging D: bound 963 units of
    /// 1,024 bytes, best known 994), [`Schedule::EXACT`]'s bound probes took 37 of the 45 s the
    /// descent had on D in a minute.
    pub(crate) const EXACT_BESIDE_BISECTION: Schedule =
        Schedule::Descent { first_shift: 5, failures_per_round: 6, first_bound_weight: 2, bound_catches_up: false };
    /// TelaMalloc's: its probes start afresh at every capacity and need many steps to settle
    /// anywhere, so fewer and larger ones (the descent's small probes leave it 1 to 16 % higher on
    /// eight of the eleven challenging instances).
    pub(crate) const HEURISTIC: Schedule = Schedule::Bisection { first_shift: 4 };

    fn first_shift(self) -> u32 {
        match self {
            Schedule::Descent { first_shift, .. } | Schedule::Bisection { first_shift } => first_shift,
        }
    }
}

/// What one probe may spend: a deadline (a time slice when the run has a time limit) and, for a
/// solver with a work budget, a portion of it that doubles every round.
pub(crate) struct Allotment<'a> {
    pub deadline: &'a Deadline,
    /// The share of the first round, halved every round.
    shift: u32,
    /// How many descent probes' worth the probe gets.
    weight: u64,
}

impl Allotment<'_> {
    /// The part of a work budget of `total` this probe may spend (the caller caps it by what is
    /// left).
    pub(crate) fn portion(&self, total: u64) -> u64 {
        (total >> self.shift).saturating_mul(self.weight).max(1)
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
pub(crate) struct ProbeCounts {
    pub feasible: u64,
    pub infeasible: u64,
    pub unknown: u64,
}

impl ProbeCounts {
    pub(crate) fn total(&self) -> u64 {
        self.feasible + self.infeasible + self.unknown
    }
}

/// What the bound's probes of a [`Schedule::Descent`] get.
#[derive(Clone, Copy, Debug)]
struct BoundShare {
    /// Descent probes' worth of the first round's (and, without catching up, every round's).
    first_weight: u64,
    /// Whether the bound gets as much again as the descent spent, at the end of each round.
    catches_up: bool,
}

/// What a minimisation ended with.
#[derive(Clone, Debug)]
pub(crate) struct Minimised {
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
    pub(crate) fn write_stats(&self, stats: &mut Stats) {
        stats.insert("probes_feasible".into(), StatValue::Count(self.counts.feasible));
        stats.insert("probes_infeasible".into(), StatValue::Count(self.counts.infeasible));
        stats.insert("probes_unknown".into(), StatValue::Count(self.counts.unknown));
        stats.insert("probe_rounds".into(), StatValue::Count(self.rounds as u64));
    }
}

/// The step between capacities worth probing: the greatest common divisor of the sizes, pinned
/// offsets, alignments and gap windows' bounds. Every offset of a plan rounded down to a multiple
/// of it is a plan: two pieces apart stay apart (their bounds relative to the offsets are
/// multiples), aligned and pinned offsets are multiples already, and no top rises. Then every top
/// is a multiple too, so a plan fits a capacity exactly when one fits the multiple of the unit at
/// or below it.
fn unit(problem: &Problem) -> u64 {
    use num_integer::gcd;
    let unit = problem.buffers().iter().fold(0, |unit, buffer| {
        let aligned = if buffer.alignment() > 1 { gcd(unit, buffer.alignment()) } else { unit };
        let windows = buffer.gaps.iter().filter_map(|g| g.window);
        let windowed = windows.fold(aligned, |unit, w| gcd(gcd(unit, w.lower), w.upper));
        gcd(gcd(windowed, buffer.size), buffer.pinned.unwrap_or(0))
    });
    unit.max(1)
}

/// `value` rounded up to a multiple of `unit` (saturating at the largest multiple).
fn round_up(value: u64, unit: u64) -> u64 {
    value.div_ceil(unit).checked_mul(unit).unwrap_or(u64::MAX / unit * unit)
}

/// When a minimisation stops.
pub(crate) struct Deadlines<'a> {
    /// The deadline of the solve that asked (its time limit and cancel).
    pub caller: &'a Deadline,
    /// The driver's: the caller's, with a flag of the solver's own that it raises when its work
    /// budget is spent. The driver stops when it expires; `caller` then tells a time limit or a
    /// cancel from the solver's own stop.
    pub driver: &'a Deadline,
}

/// What two minimisations of one problem running at once (the exact search's descent and its
/// bisection, on two threads) tell each other: the lowest makespan either has found and the
/// highest bound either has proven. Each probes only below the other's best plan and above its
/// bound, so that neither spends a probe on what the other has already settled. A run keeps its own
/// plan: the caller takes the better of the two outcomes, and a run never calls its own plan
/// optimal on the strength of the other's (lower) one.
#[derive(Debug)]
pub(crate) struct Incumbent {
    makespan: AtomicU64,
    lower_bound: AtomicU64,
}

impl Incumbent {
    pub(crate) fn new() -> Self {
        Incumbent { makespan: AtomicU64::new(u64::MAX), lower_bound: AtomicU64::new(0) }
    }

    /// The lowest makespan of a plan either run found (`u64::MAX` before any).
    pub(crate) fn makespan(&self) -> u64 {
        self.makespan.load(Ordering::Relaxed)
    }

    /// The highest lower bound either run proved.
    pub(crate) fn lower_bound(&self) -> u64 {
        self.lower_bound.load(Ordering::Relaxed)
    }

    fn publish(&self, makespan: u64, lower_bound: u64) {
        self.makespan.fetch_min(makespan, Ordering::Relaxed);
        self.lower_bound.fetch_max(lower_bound, Ordering::Relaxed);
    }
}

/// Lowers `start`'s makespan by probing capacities between the proven lower bound and it.
///
/// `probe(capacity, allotment)` must return a plan whose makespan is at most `capacity`, or a
/// proof that none exists, or `Unknown` once its allotment is spent. The driver stops when the plan
/// meets the bound or its deadline expires. With an `incumbent` it shares its best makespan and
/// bound with another minimisation of the same problem (see [`Incumbent`]).
#[allow(clippy::too_many_arguments)] // each is one thing the driver needs; a struct would only rename them
pub(crate) fn minimise(
    solver: &str,
    problem: &Problem,
    options: &SolveOptions,
    deadlines: Deadlines,
    start: Plan,
    schedule: Schedule,
    incumbent: Option<&Incumbent>,
    mut probe: impl FnMut(u64, &Allotment) -> Probe,
) -> Minimised {
    let Deadlines { caller, driver: deadline } = deadlines;
    let unit = unit(problem);
    // Every plan can be lowered to one whose tops are multiples of `unit` (see [`unit`]), so the
    // bound rounds up to one, and a capacity is worth as much as the multiple of `unit` below it.
    let proven_lower = round_up(problem.lower_bound(), unit).min(start.makespan);
    let slice = match deadline.remaining() {
        Some(left) => (left / (1 << schedule.first_shift())).max(MIN_SLICE),
        None => UNLIMITED_FIRST_SLICE,
    };
    let mut run = Run {
        solver,
        problem,
        options,
        deadline,
        unit,
        best: start,
        proven_lower,
        counts: ProbeCounts::default(),
        slice,
        rounds: 0,
        incumbent,
    };
    run.share();
    match schedule {
        Schedule::Descent { first_shift, failures_per_round, first_bound_weight, bound_catches_up } => {
            let bound = BoundShare { first_weight: first_bound_weight, catches_up: bound_catches_up };
            run.descend(first_shift, failures_per_round, bound, &mut probe)
        }
        Schedule::Bisection { first_shift } => run.bisect(first_shift, &mut probe),
    }
    let Run { best, proven_lower, counts, rounds, .. } = run;
    let stopped =
        if proven_lower >= best.makespan { Stopped::Optimal } else { super::stop_reason(caller, Stopped::Budget) };
    Minimised { lower_bound: proven_lower.min(best.makespan), plan: best, stopped, counts, rounds }
}

/// What a probe told the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// A plan this much below the best before it (0: none lower).
    Found(u64),
    Refuted,
    Unknown,
}

/// A minimisation in progress.
struct Run<'a> {
    solver: &'a str,
    problem: &'a Problem,
    options: &'a SolveOptions,
    deadline: &'a Deadline,
    unit: u64,
    best: Plan,
    proven_lower: u64,
    counts: ProbeCounts,
    /// A probe's time slice in the current round (with a time limit).
    slice: Duration,
    rounds: u32,
    incumbent: Option<&'a Incumbent>,
}

impl Run<'_> {
    /// The lowest makespan known: this run's best plan, or the other run's through the incumbent.
    fn best_makespan(&self) -> u64 {
        self.incumbent.map_or(self.best.makespan, |shared| shared.makespan().min(self.best.makespan))
    }

    /// Tells the incumbent this run's best plan and bound, and takes the other run's bound (a proof
    /// for the problem, so for this run's plans too).
    fn share(&mut self) {
        if let Some(shared) = self.incumbent {
            shared.publish(self.best.makespan, self.proven_lower);
            self.proven_lower = self.proven_lower.max(shared.lower_bound()).min(self.best.makespan);
        }
    }

    fn open(&self) -> bool {
        self.proven_lower < self.best_makespan() && self.deadline.expired().is_none()
    }

    /// The multiples of the unit strictly above `floor` and below the best plan known: the lowest
    /// and the highest, if any.
    fn range_above(&self, floor: u64) -> Option<(u64, u64)> {
        let top = (self.best_makespan() - 1) / self.unit * self.unit;
        let lowest = (floor / self.unit).saturating_add(1).saturating_mul(self.unit);
        (lowest <= top).then_some((lowest, top))
    }

    /// Probes `capacity` with `weight` descent probes' worth at `shift`, and keeps what it found.
    fn ask(
        &mut self,
        capacity: u64,
        shift: u32,
        weight: u64,
        probe: &mut impl FnMut(u64, &Allotment) -> Probe,
    ) -> Answer {
        let probe_deadline = self.deadline.within(self.slice.saturating_mul(weight.min(u32::MAX as u64) as u32));
        let answer = match probe(capacity, &Allotment { deadline: &probe_deadline, shift, weight }) {
            Probe::Feasible { offsets, placement_order } => {
                self.counts.feasible += 1;
                let found = Plan::new(self.problem, offsets, placement_order);
                debug_assert!(found.makespan <= capacity, "a probe at {capacity} returned makespan {}", found.makespan);
                let descent = self.best.makespan.saturating_sub(found.makespan);
                if descent > 0 {
                    self.best = found;
                }
                Answer::Found(descent)
            }
            refuted @ (Probe::Infeasible | Probe::InfeasibleBelow(_)) => {
                self.counts.infeasible += 1;
                let below = match refuted {
                    Probe::InfeasibleBelow(below) => below.max(capacity.saturating_add(1)),
                    _ => capacity.saturating_add(1),
                };
                // Nothing fits in `capacity`, so nothing fits below the next multiple of the unit.
                self.proven_lower = self.proven_lower.max(round_up(below, self.unit));
                Answer::Refuted
            }
            Probe::Unknown => {
                self.counts.unknown += 1;
                Answer::Unknown
            }
        };
        self.share();
        self.options.report(Progress {
            solver: self.solver.to_string(),
            best_makespan: Some(self.best.makespan),
            lower_bound: self.proven_lower,
            nodes: self.counts.total(),
        });
        answer
    }

    /// [`Schedule::Descent`].
    fn descend(
        &mut self,
        first_shift: u32,
        failures_per_round: u64,
        bound: BoundShare,
        probe: &mut impl FnMut(u64, &Allotment) -> Probe,
    ) {
        let unit = self.unit;
        while self.open() {
            let shift = first_shift.saturating_sub(self.rounds);
            // `floor` is the highest capacity not worth probing again in this round: the bound,
            // or one refuted.
            let mut floor = self.proven_lower;
            let bound_weight =
                if self.rounds == 0 || !bound.catches_up { bound.first_weight } else { failures_per_round };
            let mut caught_up = false;
            let mut next = Next::Bound(bound_weight);
            let mut in_a_row = 0;
            // Capacities whose probes failed in this round, not to be asked again until the next.
            let mut failed: Vec<u64> = Vec::new();
            while self.open() {
                let best = self.best_makespan();
                // The other run's plan (through the incumbent) may have passed a capacity that
                // failed here: the descent starts again just below it.
                if let Next::Between(below) | Next::Creep(below) = next
                    && below >= best
                {
                    next = Next::Below(unit);
                }
                if let Next::Between(below) = next
                    && best - below <= unit
                {
                    next = Next::Creep(below);
                }
                let range = self.range_above(floor);
                if let (Next::Creep(mut below), Some((lowest, _))) = (next, range) {
                    while below > lowest && failed.contains(&(below - unit)) {
                        below -= unit;
                    }
                    next = if below <= lowest { Next::End } else { Next::Creep(below) };
                }
                if range.is_none() && !matches!(next, Next::Bound(_)) {
                    next = Next::End;
                }
                if next == Next::End {
                    // The bound catches up with what the descent spent.
                    let spent = failed.len() as u64;
                    // (Without catching up, the bound's first probe of the round is all it gets.)
                    if caught_up || !bound.catches_up || spent <= bound_weight {
                        break;
                    }
                    caught_up = true;
                    next = Next::Bound(spent - bound_weight);
                }
                let (capacity, weight) = match (next, range) {
                    (Next::Bound(weight), _) => (self.proven_lower, weight),
                    (Next::Below(distance), Some((lowest, top))) => {
                        ((best.saturating_sub(distance) / unit * unit).clamp(lowest, top), 1)
                    }
                    (Next::Between(below), Some((lowest, _))) => {
                        let low = below.max(lowest);
                        ((low + (best - low) / 2) / unit * unit, 1)
                    }
                    (Next::Creep(below), Some(_)) => (below - unit, 1),
                    (Next::Halfway, Some((lowest, top))) => (lowest + (top - lowest) / unit / 2 * unit, 1),
                    _ => break,
                };
                next = match self.ask(capacity, shift, weight, probe) {
                    Answer::Found(_) if matches!(next, Next::Bound(_)) => Next::End,
                    Answer::Found(_) => {
                        in_a_row = 0;
                        match next {
                            // Still above a capacity that failed: halfway down to it.
                            Next::Between(below) if self.best_makespan() > below => Next::Between(below),
                            // Plans come easier just below the best: twice as far down next time.
                            _ => Next::Below(best.saturating_sub(capacity).saturating_mul(2).max(unit)),
                        }
                    }
                    Answer::Refuted => {
                        // A refutation may prove more than its capacity (see [`Probe::InfeasibleBelow`]).
                        floor = floor.max(capacity).max(self.proven_lower.saturating_sub(1));
                        if caught_up { Next::End } else { Next::Halfway }
                    }
                    Answer::Unknown => match next {
                        Next::Bound(_) if caught_up => Next::End,
                        Next::Bound(_) => Next::Below(unit),
                        _ => {
                            failed.push(capacity);
                            in_a_row += 1;
                            match next {
                                _ if in_a_row >= failures_per_round => Next::End,
                                Next::Creep(_) => Next::Creep(capacity),
                                _ => Next::Between(capacity),
                            }
                        }
                    },
                };
            }
            self.rounds += 1;
            self.slice = self.slice.saturating_mul(2);
        }
    }

    /// [`Schedule::Bisection`].
    fn bisect(&mut self, first_shift: u32, probe: &mut impl FnMut(u64, &Allotment) -> Probe) {
        let mut shift = first_shift;
        // The range still to settle in this round lies above `settled`: capacities up to it were
        // refuted or left unknown in this round.
        let mut settled: Option<u64> = None;
        let mut unknown_this_round = false;
        self.rounds = 1;
        while self.open() {
            let capacity = match settled {
                None => self.proven_lower,
                Some(floor) => match self.range_above(floor.max(self.proven_lower.saturating_sub(1))) {
                    Some((lowest, top)) => lowest + (top - lowest) / self.unit / 2 * self.unit,
                    None if unknown_this_round => {
                        // Settle the ranges that stayed unknown, with more time each.
                        self.rounds += 1;
                        self.slice = self.slice.saturating_mul(2);
                        unknown_this_round = false;
                        settled = Some(self.proven_lower.saturating_sub(1));
                        continue;
                    }
                    None => break,
                },
            };
            match self.ask(capacity, shift, 1, probe) {
                Answer::Found(_) => {}
                Answer::Refuted => settled = Some(capacity),
                Answer::Unknown => {
                    settled = Some(capacity);
                    unknown_this_round = true;
                    shift = shift.saturating_sub(1);
                }
            }
        }
    }
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
        run_with(Schedule::EXACT, problem, options, start, probe)
    }

    /// [`run`] with a work budget of `probes` probes: the driver's own deadline is cancelled as
    /// the last one is asked, as a solver's budget does.
    fn run_budgeted(
        problem: &Problem,
        start: Plan,
        probes: usize,
        probe: impl FnMut(u64, &Allotment) -> Probe,
    ) -> Minimised {
        run_budgeted_with(Schedule::EXACT, None, problem, start, probes, probe)
    }

    fn run_with(
        schedule: Schedule,
        problem: &Problem,
        options: &SolveOptions,
        start: Plan,
        probe: impl FnMut(u64, &Allotment) -> Probe,
    ) -> Minimised {
        let deadline = options.deadline();
        minimise(
            "test",
            problem,
            options,
            Deadlines { caller: &deadline, driver: &deadline },
            start,
            schedule,
            None,
            probe,
        )
    }

    /// A plan of `problem` with makespan `makespan` (b on top of a).
    fn plan_at(makespan: u64) -> Probe {
        Probe::Feasible { offsets: vec![0, makespan - 5, 0], placement_order: vec![0, 1, 2] }
    }

    /// Both schedules prove the optimum with probes that always answer, from any start.
    #[test]
    fn both_schedules_prove_the_optimum() {
        let problem = problem();
        for schedule in [Schedule::EXACT, Schedule::HEURISTIC] {
            for optimum in [8, 9, 12, 14] {
                let start = stacked(&problem, vec![0, 10, 0]); // makespan 15
                let found = run_with(schedule, &problem, &SolveOptions::default(), start, |capacity, _| {
                    if capacity >= optimum { plan_at(capacity) } else { Probe::Infeasible }
                });
                assert_eq!((found.plan.makespan, found.lower_bound), (optimum, optimum), "{schedule:?}");
                assert_eq!(found.stopped, Stopped::Optimal);
            }
        }
    }

    /// Sizes in KiB: every capacity probed is a multiple of 1,024 (between two multiples a plan fits
    /// exactly when one fits the lower), and a refuted capacity proves the next multiple.
    #[test]
    fn capacities_are_multiples_of_the_unit() {
        let problem = Problem::new(
            vec![Buffer::new("a", 0, 2, 3 << 10), Buffer::new("b", 0, 2, 5 << 10), Buffer::new("c", 2, 3, 4 << 10)],
            None,
        )
        .unwrap();
        let start = Plan::new(&problem, vec![0, 40 << 10, 0], vec![0, 1, 2]); // 45 KiB
        let optimum = 17 << 10;
        let mut asked = Vec::new();
        let found = run(&problem, &SolveOptions::default(), start, |capacity, _| {
            asked.push(capacity);
            if capacity >= optimum {
                Probe::Feasible { offsets: vec![0, capacity - (5 << 10), 0], placement_order: vec![0, 1, 2] }
            } else {
                Probe::Infeasible
            }
        });
        assert!(asked.iter().all(|capacity| capacity % 1024 == 0), "{asked:?}");
        assert_eq!((found.plan.makespan, found.lower_bound), (optimum, optimum));
    }

    /// Whether a probe settles in its budget varies from one capacity to the next: the descent goes
    /// on below capacities that did not settle, and finds the low ones that do.
    #[test]
    fn the_descent_goes_on_below_probes_that_fail() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 95, 0]); // makespan 100
        // Plans exist from 20 up; only capacities that are multiples of 3 settle, and 8 (the
        // bound) never does.
        let found = run_budgeted(&problem, start, 200, |capacity, _| {
            if capacity >= 20 && capacity % 3 == 0 { plan_at(capacity) } else { Probe::Unknown }
        });
        assert_eq!(found.plan.makespan, 21, "{:?}", found.counts);
        assert_eq!(found.lower_bound, 8);
    }

    /// Beside a bisection (which probes the bound itself) the descent gives the bound two probes'
    /// worth once a round, never more, and the rest to the capacities below the best plan.
    #[test]
    fn beside_a_bisection_the_bound_gets_two_probes_a_round() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 95, 0]); // makespan 100
        let mut bound_weights = Vec::new();
        let schedule = Schedule::EXACT_BESIDE_BISECTION;
        let found = run_budgeted_with(schedule, None, &problem, start, 300, |capacity, allotment| {
            if capacity == 8 {
                bound_weights.push(allotment.weight);
            }
            // Plans from 50 up; nothing below ever settles.
            if capacity >= 50 { plan_at(capacity) } else { Probe::Unknown }
        });
        assert_eq!(found.plan.makespan, 50);
        assert!(bound_weights.len() >= 3, "{bound_weights:?}");
        assert_eq!(bound_weights.len() as u32, found.rounds, "one bound probe a round: {bound_weights:?}");
        assert!(bound_weights.iter().all(|&w| w == 2), "{bound_weights:?}");
    }

    /// A probe may find a plan far below its capacity, even below a capacity that failed in the
    /// same round: the descent carries on below it (found by proptest: a subtraction overflowed).
    #[test]
    fn a_plan_below_a_failed_capacity_moves_the_descent_down() {
        let problem = problem();
        let start = stacked(&problem, vec![0, 95, 0]); // makespan 100
        let mut asked = Vec::new();
        let found = run_budgeted(&problem, start, 200, |capacity, _| {
            asked.push(capacity);
            match capacity {
                // The first probe that finds a plan finds one at 60, below capacities that failed
                // before it; every other one from 31 to 80 fails, and 30 and below are refuted.
                81..=99 if !asked[..asked.len() - 1].iter().any(|c| (81..=99).contains(c)) => plan_at(60),
                81..=99 => plan_at(capacity),
                31..=80 => Probe::Unknown,
                _ => Probe::Infeasible,
            }
        });
        assert!(found.plan.makespan <= 60, "{asked:?}");
        assert!(found.lower_bound >= 9 && found.lower_bound <= 31, "{}", found.lower_bound);
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
        let mut probes = 0;
        let found = run_budgeted(&problem, start, 40, |capacity, _| {
            probes += 1;
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

    /// [`run_budgeted`] on `schedule`, beside another run through `incumbent` if any.
    fn run_budgeted_with(
        schedule: Schedule,
        incumbent: Option<&Incumbent>,
        problem: &Problem,
        start: Plan,
        probes: usize,
        mut probe: impl FnMut(u64, &Allotment) -> Probe,
    ) -> Minimised {
        let options = SolveOptions::default();
        let caller = options.deadline();
        let stop = options.cancel.child();
        let driver = SolveOptions { cancel: stop.clone(), ..options.clone() }.deadline();
        let mut asked = 0;
        let deadlines = Deadlines { caller: &caller, driver: &driver };
        minimise("test", problem, &options, deadlines, start, schedule, incumbent, |capacity, allotment| {
            asked += 1;
            if asked == probes {
                stop.cancel();
            }
            probe(capacity, allotment)
        })
    }

    const BOTH_SCHEDULES: [Schedule; 2] = [Schedule::EXACT_BESIDE_BISECTION, Schedule::Bisection { first_shift: 4 }];

    /// A plan the other run found (60) bounds what this one probes: nothing at or above it is
    /// asked, where alone the descent starts one unit below its own plan (100) and the bisection
    /// halfway up to it.
    #[test]
    fn the_other_runs_plan_bounds_the_capacities_probed() {
        let problem = problem();
        for schedule in BOTH_SCHEDULES {
            let incumbent = Incumbent::new();
            incumbent.publish(60, 0);
            let mut asked = Vec::new();
            let start = stacked(&problem, vec![0, 95, 0]); // makespan 100
            let found = run_budgeted_with(schedule, Some(&incumbent), &problem, start, 30, |capacity, _| {
                asked.push(capacity);
                if capacity >= 50 { plan_at(capacity) } else { Probe::Unknown }
            });
            assert!(asked.iter().all(|&c| c < 60), "{schedule:?}: {asked:?}");
            assert!(found.plan.makespan < 60, "{schedule:?}: {}", found.plan.makespan);
            assert_eq!(incumbent.makespan(), found.plan.makespan, "{schedule:?}: the run publishes its plan");
        }
    }

    /// A bound the other run proved is taken (a proof for the problem), but a run whose own plan is
    /// above the other's never calls its plan optimal: here the other run's plan meets the bound,
    /// and this one stops without probing, with its own plan, the shared bound and no proof.
    #[test]
    fn the_other_runs_bound_is_taken_and_its_optimum_is_not_claimed() {
        let problem = problem();
        for schedule in BOTH_SCHEDULES {
            let incumbent = Incumbent::new();
            incumbent.publish(40, 40);
            let start = stacked(&problem, vec![0, 95, 0]); // makespan 100
            let found = run_budgeted_with(schedule, Some(&incumbent), &problem, start, 30, |_, _| {
                unreachable!("nothing to probe")
            });
            assert_eq!((found.plan.makespan, found.lower_bound), (100, 40), "{schedule:?}");
            assert_ne!(found.stopped, Stopped::Optimal, "{schedule:?}");
        }
        // A bound below the other's plan: the first probe is at the shared bound, and a refutation
        // there is published.
        let incumbent = Incumbent::new();
        incumbent.publish(60, 30);
        let mut asked = Vec::new();
        let start = stacked(&problem, vec![0, 95, 0]);
        let found = run_budgeted_with(
            Schedule::EXACT_BESIDE_BISECTION,
            Some(&incumbent),
            &problem,
            start,
            10,
            |capacity, _| {
                asked.push(capacity);
                if capacity <= 30 { Probe::Infeasible } else { Probe::Unknown }
            },
        );
        assert_eq!(asked[0], 30, "{asked:?}");
        assert_eq!((found.lower_bound, incumbent.lower_bound()), (31, 31), "{asked:?}");
    }

    /// The other run's plan may pass capacities this one is working below in the middle of a
    /// round (here after a few failed probes just below this run's own plan): from then on every
    /// probe is below it.
    #[test]
    fn a_plan_the_other_run_finds_mid_round_moves_the_probes_below_it() {
        let problem = problem();
        let incumbent = Incumbent::new();
        let mut asked = Vec::new();
        let start = stacked(&problem, vec![0, 95, 0]); // makespan 100
        let found = run_budgeted_with(
            Schedule::EXACT_BESIDE_BISECTION,
            Some(&incumbent),
            &problem,
            start,
            40,
            |capacity, _| {
                asked.push(capacity);
                if asked.len() == 4 {
                    incumbent.publish(40, 0); // the other thread's plan
                }
                if (30..40).contains(&capacity) { plan_at(capacity) } else { Probe::Unknown }
            },
        );
        assert!(asked[4..].iter().all(|&c| c < 40), "{asked:?}");
        assert!(found.plan.makespan < 40, "{asked:?}");
    }
}
