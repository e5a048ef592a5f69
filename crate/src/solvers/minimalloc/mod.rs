//! MiniMalloc (Moffitt, ASPLOS'23), memplan's exact solver: a depth-first search over canonical
//! partial solutions with cross-section inference, dominance pruning and dynamic temporal
//! decomposition.
//!
//! With a capacity (the options' or the problem's) it decides feasibility: a plan within it
//! ([`Stopped::Fits`]), or a proof that none exists ([`Stopped::Infeasible`], with the reason).
//! Without one it minimises the makespan: it starts from the start plan it is given (the run
//! passes the best greedy plan of the portfolio) and probes capacities between the lower bound and
//! that plan with the shared driver (`crate::solvers::minimise`).
//!
//! When the budget or the time limit ends a feasibility search without an answer, the solver
//! still returns a plan: the start plan, which may or may not fit, with the reason it stopped. A
//! compiler that asked "does it fit?" then learns how far the best known plan is from fitting
//! instead of getting nothing.

mod feasibility;
mod heights;
mod lanes;
mod orderings;
mod piecewise;
mod search;
mod sections;
mod spanning;
mod stacks;
mod transpositions;
mod windows;

use std::cell::OnceCell;
use std::sync::Arc;

use web_time::Instant;

pub use feasibility::Settings;
pub(crate) use feasibility::{Decider, Decision, Prepared, Report, Shelf, decide, quick_refutation};
pub(crate) use search::Counters;
pub use search::Rules;
pub(crate) use windows::{WindowBound, window_bound};

use super::greedy::given_or_quick_pass;
use super::minimise::{self, Deadlines, Incumbent, Probe, Schedule};
use super::view::View;
use super::{Capabilities, Solver, conclude, stop_reason};
use crate::model::{Outcome, Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{CancelFlag, Deadline, Effort, Halt, Parameter, SolveError, SolveOptions};

/// Above this many buffers minimisation keeps the start plan: every probe costs time linear in
/// the buffers per node and the search would not settle such instances anyway.
const MAX_MINIMISE_BUFFERS: usize = 4096;

/// What one search node costs on `problem`, in units that take about the same time on every
/// instance (about 0.6 ns each on the machine the budgets were set on): the searched buffers, the
/// sections each spans and the sections, which the tests at each node walk over, and no less than
/// [`MIN_NODE_COST`]. On the challenging instances (150 to 450 buffers) and on generated traces
/// of 3,000 the time per node follows it within a factor of about 1.5; a caller turns a budget of
/// time into nodes with it.
pub(crate) fn node_cost(problem: &Problem) -> u64 {
    sections::Layout::new(problem).node_cost().max(MIN_NODE_COST)
}

/// Below this, what a node costs whatever the instance (hashing, sorting candidates) dominates.
const MIN_NODE_COST: u64 = 1024;

/// The node budget at normal effort when no time limit is given, in units of [`node_cost`]:
/// about 1.2 s of search on one core of the machine it was set on, whatever the instance's size
/// (D gets 267,000 nodes, J 117,000, a trace of 3,000 buffers 9,000)...
const NORMAL_WORK: u64 = 2_000_000_000;
/// ...and no more than this many nodes per buffer: enough for every challenging instance that
/// settles (E, 215 buffers, needs 186,000 nodes of the first probe's quarter of the budget), while
/// a small instance whose optimum the search cannot prove (30 buffers: 120,000 nodes) ends in about
/// 0.1 s.
const NORMAL_NODES_PER_BUFFER: u64 = 4_000;
/// At high effort four times normal's nodes, and never fewer than this (the node budget before
/// budgets were counted in work); at low effort a quarter of normal's.
const HIGH_NODE_BUDGET: u64 = 1_000_000;

/// The node budget of a run without a time limit and without `--param budget`, by effort: a
/// count of work rather than time, so that a run ends by itself on any instance (some small ones
/// with alignment and pins would run for minutes) and gives the same answer on every machine.
/// With a time limit the clock decides instead, as for the other searches.
pub(crate) fn default_budget(problem: &Problem, effort: Effort) -> u64 {
    let cap = NORMAL_NODES_PER_BUFFER.saturating_mul(problem.len() as u64);
    let normal = (NORMAL_WORK / node_cost(problem)).min(cap);
    match effort {
        Effort::Low => normal / 4,
        Effort::Normal => normal,
        Effort::High => normal.saturating_mul(4).max(HIGH_NODE_BUDGET),
    }
}

/// Whether every moment with a live buffer holds exactly the max load (and nothing is pinned or
/// gapped): at the bound such an instance is a tiling, which the tiling search decides exactly and
/// often fast, and perfect packings (plans at the bound) are common among them. So beside a
/// bisection the descent keeps the bound's full share there: with two probes' worth a round, a
/// perfect packing of 2,000 buffers took 9.5 s instead of 6.
pub(crate) fn tight(problem: &Problem) -> bool {
    let max = problem.max_load();
    !problem.has_pinned()
        && !problem.has_gaps()
        && crate::metrics::load_profile(problem.buffers()).iter().all(|&(_, load)| load == 0 || load == max)
}

/// The exact solver. `settings` are the defaults that `--param` values override.
#[derive(Clone, Debug)]
pub struct MiniMalloc {
    pub settings: Settings,
    /// How a minimisation spreads its probes (see [`Schedule`]).
    schedule: Schedule,
    /// What its minimisation shares with a bisection beside it (see [`Incumbent`]).
    incumbent: Option<Arc<Incumbent>>,
}

impl Default for MiniMalloc {
    fn default() -> Self {
        MiniMalloc::new(Settings::default())
    }
}

impl MiniMalloc {
    pub fn new(settings: Settings) -> Self {
        MiniMalloc { settings, schedule: Schedule::EXACT, incumbent: None }
    }

    /// The solver as it runs beside a bisection of the same search on another thread, which
    /// probes the lower bound itself: its minimisation shares its best makespan and bound with the
    /// bisection through `incumbent`, and gives the bound less time, unless `problem` is tight
    /// (see [`tight`]).
    pub(crate) fn beside_bisection(problem: &Problem, incumbent: Option<Arc<Incumbent>>) -> Self {
        let schedule = if tight(problem) { Schedule::EXACT } else { Schedule::EXACT_BESIDE_BISECTION };
        MiniMalloc { schedule, incumbent, ..MiniMalloc::default() }
    }

    /// The settings with the parameters applied, once each is checked against its declared range.
    fn settings(&self, options: &SolveOptions) -> Result<Settings, Halt> {
        let params = &options.params;
        params.check(&self.parameters())?;
        let defaults = self.settings;
        let mut rules = defaults.rules;
        for (name, rule, _) in RULE_PARAMETERS {
            let on = rule(&mut rules);
            *on = params.get_or(name, *on)?;
        }
        Ok(Settings {
            rules,
            first_limit: params.get_or("nodes", defaults.first_limit)?,
            orderings: params.get_or("orderings", defaults.orderings)?,
            budget: params.get_or("budget", defaults.budget)?,
        })
    }
}

/// Where one rule is in [`Rules`].
type RuleOf = fn(&mut Rules) -> &mut bool;

/// The rules that `--param NAME=false` switches off ([`Rules`]), in the order `memplan solvers`
/// lists them: each parameter's name, its rule and what the rule does.
const RULE_PARAMETERS: [(&str, RuleOf, &str); 12] = [
    ("canonical", |r| &mut r.canonical, "offset and index monotonicity (canonical solutions only)"),
    ("dominance", |r| &mut r.dominance, "never place a buffer at or above h_min"),
    ("inference", |r| &mut r.inference, "cross-section inference (eq. 3, effective heights)"),
    ("decompose", |r| &mut r.decompose, "solve temporally independent parts separately"),
    ("memo", |r| &mut r.memo, "remember refuted states and cut them when they recur"),
    ("symmetry", |r| &mut r.symmetry, "stack buffers of the same lifetime smaller first"),
    ("hatless", |r| &mut r.hatless, "a failed buffer with no unplaced neighbour ends its node"),
    (
        "tiling",
        |r| &mut r.tiling,
        "at a tight capacity (every live section exactly full), first search by covering the lowest free cell",
    ),
    (
        "stacking",
        |r| &mut r.stacking,
        "the unplaced buffers of the fullest sections stack at aligned offsets under the capacity (with inference)",
    ),
    ("coarse-keys", |r| &mut r.coarse_keys, "remembered states hash floors rounded up to the alignment (with memo)"),
    (
        "windows",
        |r| &mut r.windows,
        "on small instances, first search the buffers of short time windows alone: what they need bounds the whole",
    ),
    (
        "spanning",
        |r| &mut r.spanning,
        "stack the buffers alive throughout at the bottom and search the rest under what they leave",
    ),
];

/// The window bound's share of a search's node budget (1/4), and the most nodes it takes.
const WINDOW_SHARE: u64 = 4;
const WINDOW_NODES: u64 = 200_000;

/// Statistics of the window bound: the windows searched and the nodes they count, and how many of
/// them an earlier solver of the run had searched (`windows_reused`: their nodes count, but took
/// no time now).
pub(crate) fn window_stats(stats: &mut Stats, found: &WindowBound) {
    stats.insert("window_bound".into(), found.bound.into());
    stats.insert("windows_searched".into(), StatValue::Count(found.searched));
    stats.insert("window_nodes".into(), StatValue::Count(found.nodes));
    if found.reused > 0 {
        stats.insert("windows_reused".into(), StatValue::Count(found.reused));
    }
}

/// Statistics of a search report.
fn search_stats(stats: &mut Stats, report: &Report) {
    let c = &report.counters;
    stats.insert("nodes".into(), StatValue::Count(c.nodes));
    stats.insert("nodes_explored".into(), StatValue::Count(report.explored));
    stats.insert("backtracks".into(), StatValue::Count(c.backtracks));
    stats.insert("pruned_canonical".into(), StatValue::Count(c.pruned_canonical));
    stats.insert("pruned_dominance".into(), StatValue::Count(c.pruned_dominance));
    stats.insert("pruned_inference".into(), StatValue::Count(c.pruned_inference));
    stats.insert("pruned_capacity".into(), StatValue::Count(c.pruned_capacity));
    stats.insert("decompositions".into(), StatValue::Count(c.decompositions));
    stats.insert("pruned_memo".into(), StatValue::Count(c.pruned_memo));
    stats.insert("pruned_symmetry".into(), StatValue::Count(c.pruned_symmetry));
    stats.insert("pruned_hatless".into(), StatValue::Count(c.pruned_hatless));
    stats.insert("tiling_nodes".into(), StatValue::Count(c.tiling_nodes));
    stats.insert("pruned_stacking".into(), StatValue::Count(c.pruned_stacking));
    stats.insert("rounds".into(), StatValue::Count(report.rounds));
    stats.insert("spanning_stacked".into(), StatValue::Count(report.stacked as u64));
    if let Some(ordering) = &report.ordering {
        stats.insert("ordering".into(), StatValue::Text(ordering.clone()));
    }
}

impl Solver for MiniMalloc {
    fn name(&self) -> &str {
        "minimalloc"
    }

    fn description(&self) -> String {
        "exact: MiniMalloc's canonical search with section inference, dominance and decomposition; \
         decides a capacity, or minimises the makespan without one"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_capacity().with_minimise().with_warm_start().with_windows()
    }

    fn parameters(&self) -> Vec<Parameter> {
        let d = self.settings;
        let mut parameters = vec![
            Parameter::at_least(
                "nodes",
                d.first_limit,
                1,
                "node limit of each pre-ordering in the first round (doubles every round)",
            ),
            Parameter::int(
                "orderings",
                d.orderings as u64,
                1,
                orderings::ORDERINGS.len() as u64,
                "how many static pre-orderings rotate",
            ),
            Parameter::at_least(
                "budget",
                d.budget,
                0,
                "total node budget of one feasibility search or minimisation (a reproducible time limit; 0 = no search; \
                 by default a budget by --effort and instance, none with a time limit)",
            ),
        ];
        let mut rules = d.rules;
        parameters
            .extend(RULE_PARAMETERS.iter().map(|&(name, rule, about)| Parameter::flag(name, *rule(&mut rules), about)));
        parameters
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        if piecewise::applies(problem) && !piecewise::takes(problem) {
            return self.run_unwindowed(problem, options);
        }
        let mut settings = self.settings(options)?;
        if options.time_limit.is_none() && options.params.get::<u64>("budget")?.is_none() {
            settings.budget = settings.budget.min(default_budget(problem, options.effort));
        }
        let deadline = options.deadline();
        match options.capacity {
            Some(capacity) => self.fit(problem, options, &settings, capacity, &deadline),
            None => self.minimise(problem, options, &settings, &deadline),
        }
    }
}

/// The start plan, or when the greedy passes refuse the instance (they keep pinned buffers apart
/// over their whole lifetimes, gaps or not) every unpinned buffer stacked above the pinned ones:
/// a plan as soon as no two pinned buffers' live pieces meet, which [`quick_refutation`] checked.
fn start_or_stack(problem: &Problem, options: &SolveOptions) -> Result<Plan, Halt> {
    match given_or_quick_pass(problem, options) {
        Err(Halt::Infeasible(_)) => Ok(stacked_plan(problem)),
        other => other,
    }
}

/// The pinned buffers at their offsets and the others one above the other over all of them, each
/// at its alignment: no two unpinned buffers share a byte, nor one a pinned buffer's.
fn stacked_plan(problem: &Problem) -> Plan {
    let buffers = problem.buffers();
    let mut top = buffers.iter().filter_map(|b| b.pinned.map(|offset| offset + b.size)).max().unwrap_or(0);
    let offsets: Vec<u64> = buffers
        .iter()
        .map(|b| match b.pinned {
            Some(offset) => offset,
            None => {
                // Within u64: a problem whose stacked buffers pass it could not be planned anyway,
                // and the validator rejects the plan rather than wrap.
                let offset = crate::alignment::align_up(top, b.alignment()).unwrap_or(u64::MAX - b.size);
                top = offset.saturating_add(b.size);
                offset
            }
        })
        .collect();
    let order = (0..buffers.len())
        .filter(|&i| buffers[i].pinned.is_some())
        .chain((0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()))
        .collect();
    Plan::new(problem, offsets, order)
}

impl MiniMalloc {
    /// Plans `problem` with its windowed gaps alive (plain gaps kept), where the search of windows
    /// does not take it ([`piecewise::takes`]: too many buffers, or alignments that would give it
    /// too many candidates): a valid plan, and nothing proven for the buffers themselves.
    fn run_unwindowed(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let started = Instant::now();
        let without = Capabilities { windows: false, ..self.capabilities() };
        let view = match View::of(problem, options, without).map_err(Halt::Unsupported)? {
            Some(view) => view,
            None => return self.run(problem, options),
        };
        let result = self.run(&view.problem, &view.options);
        let outcome =
            conclude(self.name(), &view.problem, &view.options, result, started).map_err(|error| match error {
                SolveError::Unsupported(what) => Halt::Unsupported(what),
                other => Halt::Unsupported(other.to_string()),
            })?;
        Ok(view.lift(problem, outcome))
    }

    /// Feasibility at `capacity`: a plan within it ([`Stopped::Fits`]), a proof that none exists,
    /// or, when the search stops first, the start plan with the reason (a compiler that asked
    /// "does it fit?" then learns how far the best known plan is from fitting).
    fn fit(
        &self,
        problem: &Problem,
        options: &SolveOptions,
        settings: &Settings,
        capacity: u64,
        deadline: &Deadline,
    ) -> Result<Outcome, Halt> {
        let mut stats = Stats::new();
        if settings.rules.windows && quick_refutation(problem, Some(capacity)).is_none() {
            let nodes = (settings.budget / WINDOW_SHARE).min(WINDOW_NODES);
            let windowed =
                window_bound(problem, problem.lower_bound(), capacity.saturating_add(1), settings, nodes, deadline);
            window_stats(&mut stats, &windowed);
            if windowed.bound > capacity {
                let mut outcome =
                    Outcome::new(self.name(), problem, Some(capacity), None, windowed.bound, Stopped::Infeasible);
                outcome.detail = windowed.detail(problem.semantics());
                outcome.stats = stats;
                return Ok(outcome);
            }
        }
        let report = decide(problem, capacity, settings, deadline)?;
        search_stats(&mut stats, &report);
        let mut outcome = match report.decision {
            Decision::Feasible { offsets, placement_order } => {
                let plan = Plan::new(problem, offsets, placement_order);
                Outcome::new(self.name(), problem, Some(capacity), Some(plan), 0, Stopped::Fits)
            }
            Decision::Infeasible(reason) => {
                let mut outcome = Outcome::new(
                    self.name(),
                    problem,
                    Some(capacity),
                    None,
                    report.refuted_below.max(capacity.saturating_add(1)),
                    Stopped::Infeasible,
                );
                outcome.detail = Some(reason);
                outcome
            }
            Decision::Unknown => {
                let stopped = stop_reason(deadline, Stopped::Budget);
                if stopped == Stopped::Cancelled && options.start.is_none() {
                    return Err(Halt::Cancelled);
                }
                let plan = start_or_stack(problem, options)?;
                stats.insert("start_makespan".into(), plan.makespan.into());
                Outcome::new(self.name(), problem, Some(capacity), Some(plan), 0, stopped)
            }
        };
        outcome.stats.extend(stats);
        Ok(outcome)
    }

    /// Makespan minimisation from the start plan.
    fn minimise(
        &self,
        problem: &Problem,
        options: &SolveOptions,
        settings: &Settings,
        deadline: &Deadline,
    ) -> Result<Outcome, Halt> {
        if let Some(reason) = quick_refutation(problem, None) {
            return Err(Halt::Infeasible(reason));
        }
        let start = start_or_stack(problem, options)?;
        let mut stats = Stats::new();
        stats.insert("start_makespan".into(), start.makespan.into());
        if problem.len() > MAX_MINIMISE_BUFFERS {
            stats
                .insert("search".into(), StatValue::Text(format!("skipped: more than {MAX_MINIMISE_BUFFERS} buffers")));
            let mut outcome = Outcome::new(self.name(), problem, None, Some(start), 0, Stopped::Completed);
            outcome.stats = stats;
            return Ok(outcome);
        }
        // Built at the first probe (a start plan at the bound needs none) and kept for every other.
        let prepared: OnceCell<Result<Prepared, Halt>> = OnceCell::new();
        let mut total = Counters::default();
        let mut explored = 0;
        let mut rounds = 0;
        // The driver stops on its deadline only: it gets one with a flag of its own, raised here
        // when the caller's deadline passes, the caller cancels or the node budget is spent.
        let stop = CancelFlag::new();
        let driver_options = SolveOptions { cancel: stop.clone(), ..options.clone() };
        let driver_deadline = driver_options.deadline();
        let budgeted = settings.budget != u64::MAX;
        // Searches left unknown (the bound, which the driver asks about every round, and those
        // just below the best plan): asked again, they resume instead of starting over.
        let mut shelf = Shelf::default();
        // The window bound, computed at the first probe (see [`windows`]).
        let mut windowed: Option<WindowBound> = None;
        let start_makespan = start.makespan;
        let minimised = minimise::minimise(
            self.name(),
            problem,
            options,
            Deadlines { caller: deadline, driver: &driver_deadline },
            start,
            self.schedule,
            self.incumbent.as_deref(),
            |capacity, allotment| {
                let prepared = match prepared.get_or_init(|| Prepared::new(problem, settings)) {
                    Ok(prepared) => prepared,
                    Err(_) => {
                        stop.cancel();
                        return Probe::Unknown;
                    }
                };
                let budget = settings.budget;
                if settings.rules.windows && windowed.is_none() {
                    let nodes = (budget / WINDOW_SHARE).min(WINDOW_NODES);
                    let found = window_bound(problem, problem.lower_bound(), start_makespan, settings, nodes, deadline);
                    total.nodes += found.nodes;
                    explored += found.nodes;
                    windowed = Some(found);
                }
                if let Some(found) = &windowed
                    && capacity < found.bound
                {
                    return Probe::InfeasibleBelow(found.bound);
                }
                let spent = total.nodes;
                if deadline.expired().is_some() || spent >= budget {
                    stop.cancel();
                    return Probe::Unknown;
                }
                // Without a time limit a node budget keeps every probe reproducible: no time slices.
                let probe_deadline = match allotment.deadline.remaining() {
                    Some(left) if !(budgeted && options.time_limit.is_none()) => deadline.within(left),
                    _ => deadline.clone(),
                };
                // A plan takes a node per buffer at least: a smaller allotment could never find one.
                let nodes = allotment.portion(budget).max(2 * problem.len() as u64).min(budget - spent);
                let mut decider =
                    shelf.take(capacity).unwrap_or_else(|| Decider::new(problem, prepared, capacity, settings));
                let before = decider.report.counters;
                let rounds_before = decider.report.rounds;
                let explored_before = decider.report.explored;
                decider.advance(nodes, &probe_deadline);
                total.add(&decider.report.counters.since(&before));
                explored += decider.report.explored - explored_before;
                rounds += decider.report.rounds - rounds_before;
                match &decider.report.decision {
                    Decision::Feasible { offsets, placement_order } => {
                        // The plan may be lower than the capacity asked: searches above it are moot.
                        let tops = problem.buffers().iter().zip(offsets).map(|(buffer, &offset)| offset + buffer.size);
                        shelf.settle_from(tops.max().unwrap_or(0));
                        Probe::Feasible { offsets: offsets.clone(), placement_order: placement_order.clone() }
                    }
                    Decision::Infeasible(_) => {
                        shelf.refute_below(decider.report.refuted_below);
                        Probe::InfeasibleBelow(decider.report.refuted_below)
                    }
                    Decision::Unknown => {
                        shelf.keep(decider);
                        Probe::Unknown
                    }
                }
            },
        );
        let stacked = prepared.get().and_then(|p| p.as_ref().ok()).map_or(0, Prepared::stacked);
        let report = Report { counters: total, rounds, stacked, explored, ..Report::undecided() };
        search_stats(&mut stats, &report);
        if let Some(found) = &windowed {
            window_stats(&mut stats, found);
        }
        minimised.write_stats(&mut stats);
        let mut outcome =
            Outcome::new(self.name(), problem, None, Some(minimised.plan), minimised.lower_bound, minimised.stopped);
        if let Some(Err(error)) = prepared.get() {
            outcome.detail = Some(format!("the search could not run: {error}"));
        } else if let Some(found) = &windowed
            && found.bound >= minimised.lower_bound
        {
            outcome.detail = found.detail(problem.semantics());
        }
        outcome.stats = stats;
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;

    /// Perfect packings of every construction but the towers are tight; a trace is not, nor is a
    /// tight instance with a pinned buffer; and only a tight one keeps the bound's full share
    /// beside a bisection.
    #[test]
    fn tight_instances_are_told_apart() {
        use crate::generate::Shape;
        for name in ["perfect", "guillotine", "pinwheel", "staircase", "equal-sizes", "power-of-two"] {
            let problem = Shape::parse(name).unwrap().generate(200, 3);
            assert!(tight(&problem), "{name}");
            assert_eq!(MiniMalloc::beside_bisection(&problem, None).schedule, Schedule::EXACT, "{name}");
        }
        for name in ["towers", "trace"] {
            let problem = Shape::parse(name).unwrap().generate(200, 3);
            assert!(!tight(&problem), "{name}");
            assert_eq!(MiniMalloc::beside_bisection(&problem, None).schedule, Schedule::EXACT_BESIDE_BISECTION);
        }
        let mut buffers = Shape::Perfect.generate(50, 3).buffers().to_vec();
        buffers[0].pinned = Some(0);
        assert!(!tight(&Problem::new(buffers, None).unwrap()));
    }

    /// Every rule is a parameter: switched off one by one through the table, they leave no rule
    /// on (a rule added to [`Rules`] but not to the table fails this, by the literal below).
    #[test]
    fn every_rule_is_a_parameter() {
        let mut params = Params::new();
        for (name, _, _) in RULE_PARAMETERS {
            params.set(name, "false");
        }
        let options = SolveOptions { params, ..SolveOptions::default() };
        let settings = MiniMalloc::default().settings(&options).unwrap();
        let off = Rules {
            canonical: false,
            dominance: false,
            inference: false,
            decompose: false,
            memo: false,
            symmetry: false,
            hatless: false,
            tiling: false,
            stacking: false,
            coarse_keys: false,
            windows: false,
            spanning: false,
        };
        assert_eq!(settings.rules, off);
        assert_eq!(MiniMalloc::default().settings(&SolveOptions::default()).unwrap().rules, Rules::default());
    }
}

#[cfg(test)]
mod tiling_tests;
