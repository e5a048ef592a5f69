//! MiniMalloc (Moffitt, ASPLOS'23), memplan's exact solver: a depth-first search over canonical
//! partial solutions with cross-section inference, dominance pruning and dynamic temporal
//! decomposition.
//!
//! With a capacity (the options' or the problem's) it decides feasibility: a plan within it, or
//! `Infeasible` with the reason when none exists. Without one it minimises the makespan: it starts
//! from the best greedy plan of the portfolio and probes capacities between L and that plan with
//! the shared driver ([`crate::solvers::minimise`]).
//!
//! When the time limit ends a feasibility search without an answer, the solver still returns a
//! plan: the best greedy one, marked `feasible: false` with `status: timeout` in its statistics. A
//! compiler that asked "does it fit?" then learns how far the best known plan is from fitting
//! instead of getting nothing.

mod feasibility;
mod orderings;
mod search;
mod sections;
mod transpositions;

use web_time::Instant;

pub use feasibility::{Decision, Prepared, Report, Settings, decide, decide_prepared, quick_refutation};
pub use search::{Counters, Rules};

use super::minimise::{self, Probe};
use super::{Capabilities, Solver, portfolio};
use crate::model::{Problem, Solution, StatValue, Stats};
use crate::options::{CancelFlag, Deadline, Effort, Parameter, SolveError, SolveOptions};

/// Above this many buffers minimisation keeps the greedy plan: every probe costs time linear in
/// the buffers per node and the search would not settle such instances anyway.
const MAX_MINIMISE_BUFFERS: usize = 4096;

/// The exact solver. `settings` are the defaults that `--param` values override.
#[derive(Clone, Debug, Default)]
pub struct MiniMalloc {
    pub settings: Settings,
}

impl MiniMalloc {
    pub fn new(settings: Settings) -> Self {
        MiniMalloc { settings }
    }

    /// The settings with the parameters applied, once each is checked against its declared range.
    fn settings(&self, options: &SolveOptions) -> Result<Settings, SolveError> {
        let params = &options.params;
        params.check(&self.parameters())?;
        let defaults = self.settings;
        let rules = Rules {
            canonical: params.get_or("canonical", defaults.rules.canonical)?,
            dominance: params.get_or("dominance", defaults.rules.dominance)?,
            inference: params.get_or("inference", defaults.rules.inference)?,
            decompose: params.get_or("decompose", defaults.rules.decompose)?,
            memo: params.get_or("memo", defaults.rules.memo)?,
            symmetry: params.get_or("symmetry", defaults.rules.symmetry)?,
            hatless: params.get_or("hatless", defaults.rules.hatless)?,
        };
        Ok(Settings {
            rules,
            first_limit: params.get_or("nodes", defaults.first_limit)?,
            orderings: params.get_or("orderings", defaults.orderings)?,
            budget: params.get_or("budget", defaults.budget)?,
        })
    }
}

/// Statistics of a search report.
fn search_stats(stats: &mut Stats, report: &Report) {
    let c = &report.counters;
    stats.insert("nodes".into(), StatValue::Count(c.nodes));
    stats.insert("backtracks".into(), StatValue::Count(c.backtracks));
    stats.insert("pruned_canonical".into(), StatValue::Count(c.pruned_canonical));
    stats.insert("pruned_dominance".into(), StatValue::Count(c.pruned_dominance));
    stats.insert("pruned_inference".into(), StatValue::Count(c.pruned_inference));
    stats.insert("pruned_capacity".into(), StatValue::Count(c.pruned_capacity));
    stats.insert("decompositions".into(), StatValue::Count(c.decompositions));
    stats.insert("pruned_memo".into(), StatValue::Count(c.pruned_memo));
    stats.insert("pruned_symmetry".into(), StatValue::Count(c.pruned_symmetry));
    stats.insert("pruned_hatless".into(), StatValue::Count(c.pruned_hatless));
    stats.insert("rounds".into(), StatValue::Count(report.rounds));
    if let Some(ordering) = &report.ordering {
        stats.insert("ordering".into(), StatValue::Text(ordering.clone()));
    }
}

/// The best greedy plan of the portfolio (normal effort), named as this solver's. The portfolio's
/// first member ignores the time limit, so there is always one (unless cancelled).
fn greedy_start(problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
    let greedy_options = SolveOptions { effort: Effort::Normal, capacity: None, progress: None, ..options.clone() };
    let mut start = portfolio::Auto.solve(problem, &greedy_options)?;
    let winner = std::mem::replace(&mut start.solver, "minimalloc".to_string());
    start.stats = Stats::new();
    start.stats.insert("start".into(), StatValue::Text(winner));
    start.stats.insert("start_makespan".into(), StatValue::Count(start.makespan));
    Ok(start)
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
        Capabilities { alignment: true, pinned: true, capacity: true, minimise: true, randomised: false }
    }

    fn parameters(&self) -> Vec<Parameter> {
        let d = self.settings;
        vec![
            Parameter::int(
                "nodes",
                d.first_limit,
                1,
                u64::MAX,
                "node limit of each pre-ordering in the first round (doubles every round)",
            ),
            Parameter::int(
                "orderings",
                d.orderings as u64,
                1,
                orderings::ORDERINGS.len() as u64,
                "how many static pre-orderings rotate",
            ),
            Parameter::int(
                "budget",
                d.budget,
                0,
                u64::MAX,
                "total node budget of one feasibility search (a reproducible time limit; 0 = no search)",
            ),
            Parameter::flag("canonical", d.rules.canonical, "offset and index monotonicity (canonical solutions only)"),
            Parameter::flag("dominance", d.rules.dominance, "never place a buffer at or above h_min"),
            Parameter::flag("inference", d.rules.inference, "cross-section inference (eq. 3, effective heights)"),
            Parameter::flag("decompose", d.rules.decompose, "solve temporally independent parts separately"),
            Parameter::flag("memo", d.rules.memo, "remember refuted states and cut them when they recur"),
            Parameter::flag("symmetry", d.rules.symmetry, "stack buffers of the same lifetime smaller first"),
            Parameter::flag("hatless", d.rules.hatless, "a failed buffer with no unplaced neighbour ends its node"),
        ]
    }

    fn solve(&self, problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
        let started = Instant::now();
        let settings = self.settings(options)?;
        let deadline = options.deadline(started);
        match super::capacity(problem, options) {
            Some(capacity) => self.fit(problem, options, &settings, capacity, &deadline, started),
            None => self.minimise(problem, options, &settings, &deadline, started),
        }
    }
}

impl MiniMalloc {
    /// Feasibility at `capacity`.
    fn fit(
        &self,
        problem: &Problem,
        options: &SolveOptions,
        settings: &Settings,
        capacity: u64,
        deadline: &Deadline,
        started: Instant,
    ) -> Result<Solution, SolveError> {
        let report = decide(problem, capacity, settings, deadline)?;
        let mut stats = Stats::new();
        search_stats(&mut stats, &report);
        match report.decision {
            Decision::Feasible { offsets, placement_order } => {
                stats.insert("status".into(), "feasible".into());
                let solution = super::finish("minimalloc", problem, options, offsets, placement_order, stats, started);
                Ok(solution)
            }
            Decision::Infeasible(reason) => Err(SolveError::Infeasible(reason)),
            Decision::Unknown => {
                if let Some(stop @ SolveError::Cancelled) = deadline.expired() {
                    return Err(stop);
                }
                // Out of time (or budget): the best greedy plan, which may or may not fit.
                let mut start = greedy_start(problem, &SolveOptions { time_limit: None, ..options.clone() })?;
                stats.append(&mut start.stats);
                stats.insert("status".into(), "timeout".into());
                start.stats = stats;
                start.feasible = start.makespan <= capacity;
                start.elapsed = started.elapsed();
                Ok(start)
            }
        }
    }

    /// Makespan minimisation from the best greedy plan.
    fn minimise(
        &self,
        problem: &Problem,
        options: &SolveOptions,
        settings: &Settings,
        deadline: &Deadline,
        started: Instant,
    ) -> Result<Solution, SolveError> {
        if let Some(reason) = quick_refutation(problem, None) {
            return Err(SolveError::Infeasible(reason));
        }
        let start = greedy_start(problem, options)?;
        if problem.len() > MAX_MINIMISE_BUFFERS {
            let mut start = start;
            start
                .stats
                .insert("search".into(), StatValue::Text(format!("skipped: more than {MAX_MINIMISE_BUFFERS} buffers")));
            start.elapsed = started.elapsed();
            return Ok(start);
        }
        let mut total = Counters::default();
        let mut rounds = 0;
        let mut failure = None;
        // The driver stops on its deadline only: it gets one with a flag of its own, raised here
        // when the caller's deadline passes, the caller cancels, the node budget is spent or the
        // search cannot run at all.
        let stop = CancelFlag::new();
        let driver_options = SolveOptions { cancel: stop.clone(), ..options.clone() };
        let driver_deadline = driver_options.deadline(started);
        let budgeted = settings.budget != u64::MAX;
        let mut prepared: Option<Prepared> = None;
        let mut solution = minimise::minimise(problem, &driver_options, &driver_deadline, start, |capacity, slice| {
            let spent = total.nodes;
            if deadline.expired().is_some() || spent >= settings.budget || failure.is_some() {
                stop.cancel();
                return Probe::Unknown;
            }
            // Without a time limit a node budget keeps every probe reproducible: no time slices.
            let probe_deadline = match slice.remaining() {
                Some(left) if !(budgeted && options.time_limit.is_none()) => deadline.within(left),
                _ => deadline.clone(),
            };
            let probe_settings = Settings { budget: settings.budget.saturating_sub(spent), ..*settings };
            if prepared.is_none() {
                match Prepared::new(problem, settings) {
                    Ok(ready) => prepared = Some(ready),
                    Err(error) => {
                        failure = Some(error);
                        stop.cancel();
                        return Probe::Unknown;
                    }
                }
            }
            let Some(ready) = prepared.as_ref() else { return Probe::Unknown };
            let report = decide_prepared(problem, ready, capacity, &probe_settings, &probe_deadline);
            total.add(&report.counters);
            rounds += report.rounds;
            match report.decision {
                Decision::Feasible { offsets, placement_order } => Probe::Feasible { offsets, placement_order },
                Decision::Infeasible(_) => Probe::Infeasible,
                Decision::Unknown => Probe::Unknown,
            }
        });
        let report = Report { decision: Decision::Unknown, counters: total, rounds, ordering: None };
        search_stats(&mut solution.stats, &report);
        if let Some(error) = failure {
            solution.stats.insert("search".into(), StatValue::Text(error.to_string()));
        }
        solution.elapsed = started.elapsed();
        solution.seed = options.seed;
        Ok(solution)
    }
}
