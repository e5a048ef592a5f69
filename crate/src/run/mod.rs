//! A run: one solve as the faces (the CLI, the wasm facade, Python, `memplan bench`) ask for it,
//! done once here. Every face translates what it was given into a [`Request`]; the request is
//! checked once ([`Request::prepare`]: the solver found by name, its parameters, the capacity's
//! text, the time limit, the thread count) and resolved against the problem once
//! ([`Prepared::run`]: the capacity that applies, the warm start, the run's clock). Then the
//! solver runs (a search solver from the portfolio's quick plan) and the outcome goes through the
//! independent validator. A caller's own warm start (e.g. a compiler's plan) is checked first, and
//! the answer is never worse than it: when no solver beats it, it is the answer, with the winner
//! [`WARM_WINNER`]. [`Summary`] is what the faces print or send.

mod moves;
pub mod registry;
mod request;
mod summary;

use std::sync::Arc;
use std::time::Duration;

use web_time::Instant;

pub use request::{Capacity, Prepared, Request};
pub use summary::Summary;

use crate::model::{Outcome, Plan, Problem, StatValue};
use crate::options::{SolveError, SolveOptions};
use crate::solvers::portfolio;
use crate::validate;

/// A finished run: the outcome and what the validator found in it.
#[derive(Clone, Debug)]
pub struct Run {
    pub outcome: Outcome,
    /// Empty when the plan is valid and every claim about it true.
    pub violations: Vec<String>,
    /// The makespan of the caller's warm start plan, when one was given.
    pub warm_start: Option<u64>,
}

/// The winner named when the caller's warm start plan is the answer: no solver found a lower one.
pub const WARM_WINNER: &str = "warm";

impl Run {
    /// The plan passed the validator (a run without a plan is valid when it claims none).
    pub fn is_valid(&self) -> bool {
        self.violations.is_empty()
    }

    pub fn summary(&self, problem: &Problem) -> Summary {
        Summary::new(problem, self)
    }
}

/// Runs the named solver on `problem` with options already in the core's types (a caller that
/// holds a [`SolveOptions`]); the same checks and resolution as [`Request::run`], which the faces
/// use. `Err` only when the request cannot be served (an unknown solver, a parameter it does not
/// declare, a value it cannot use).
///
/// ```
/// use memplan::{Buffer, Problem, SolveOptions, run};
///
/// let problem = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap();
/// let run = run::solve(&problem, "minimalloc", &SolveOptions::default()).expect("a known solver");
/// assert!(run.is_valid());
/// assert_eq!(run.outcome.makespan(), Some(8)); // alive together: one above the other
/// assert!(run.outcome.optimal()); // proven: it meets the lower bound
/// assert!(run::solve(&problem, "no-such-solver", &SolveOptions::default()).is_err());
/// ```
pub fn solve(problem: &Problem, solver: &str, options: &SolveOptions) -> Result<Run, SolveError> {
    Prepared::new(solver, options.clone())?.run(problem)
}

/// Solves with `options` resolved against `problem` ([`Prepared::run_from`]) and validates what
/// comes back. `started` is the run's one clock: the warm start phase and the search share it.
/// With `options.threads` set, natively, the solve runs in a pool of that many threads; in wasm
/// the page's global pool is used.
fn execute(
    problem: &Problem,
    solver: &dyn crate::Solver,
    options: &SolveOptions,
    warm: Option<Arc<Plan>>,
    started: Instant,
) -> Result<Run, SolveError> {
    let work = |options: &SolveOptions| -> Result<Outcome, SolveError> {
        if solver.capabilities().warm_start {
            search_with_warm_start(problem, solver, options, started)
        } else {
            solver.solve(problem, options)
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    let outcome = match options.threads {
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| SolveError::ThreadPool { threads, reason: e.to_string() })?
            .install(|| work(options))?,
        None => work(options)?,
    };
    #[cfg(target_arch = "wasm32")]
    let outcome = work(options)?;
    let outcome = match &warm {
        Some(warm) => return_unmoved(problem, keep_warm(problem, outcome, warm), warm),
        None => outcome,
    };
    let report = validate::validate_outcome(problem, &outcome);
    Ok(Run {
        violations: report.violations.iter().map(|v| v.describe(problem)).collect(),
        outcome,
        warm_start: warm.map(|plan| plan.makespan),
    })
}

/// The solver's outcome, or the warm start plan in its place when the solver found nothing lower
/// (a solver that does not search from a start may return a worse plan, or none). What the solver
/// proved (its bound, an optimality proof) stays; the reason is settled again for the plan.
fn keep_warm(problem: &Problem, mut outcome: Outcome, warm: &crate::Plan) -> Outcome {
    if outcome.makespan().is_some_and(|makespan| makespan < warm.makespan) {
        return outcome;
    }
    outcome.plan = Some(warm.clone());
    outcome.winner = Some(WARM_WINNER.to_string());
    outcome.settle(problem);
    if outcome.capacity.is_some() && outcome.feasible() && outcome.stopped == crate::Stopped::Completed {
        outcome.stopped = crate::Stopped::Fits;
    }
    outcome
}

/// The outcome with every buffer that moved from the warm start for nothing back at its warm
/// offset ([`moves::return_to_start`]): the peak stays (or drops), so what the caller learns moved
/// is what the saving needs. The count goes in the statistics (`returned_to_start`).
fn return_unmoved(problem: &Problem, mut outcome: Outcome, warm: &crate::Plan) -> Outcome {
    let Some(plan) = outcome.plan.as_mut().filter(|plan| plan.offsets != warm.offsets) else { return outcome };
    if !validate::validate(problem, &plan.offsets, None).is_valid() {
        return outcome; // the validator reports it below; nothing is moved in an invalid plan
    }
    let returned = moves::return_to_start(problem, &warm.offsets, &mut plan.offsets);
    plan.makespan = crate::model::load::makespan(problem.buffers(), &plan.offsets);
    outcome.stats.insert("returned_to_start".into(), StatValue::Count(returned as u64));
    outcome.settle(problem);
    outcome
}

/// A plan that came with the input (an offset for every buffer), checked by the validator against
/// `capacity` (else the instance's): the violations it found, and an outcome that claims nothing
/// the plan does not prove ([`Outcome::given`]: an invalid plan proves nothing at all).
pub fn given(problem: &Problem, offsets: Vec<u64>, capacity: Option<u64>) -> Run {
    let capacity = capacity.or(problem.capacity());
    let report = validate::validate(problem, &offsets, capacity);
    // Passing the capacity is the one fault that leaves a plan (a plan of a larger memory).
    let valid = report.violations.iter().all(|v| matches!(v, validate::Violation::ExceedsCapacity { .. }));
    let plan = crate::Plan::new(problem, offsets, Vec::new());
    let outcome = Outcome::given(problem, capacity, plan, valid);
    Run { outcome, violations: report.violations.iter().map(|v| v.describe(problem)).collect(), warm_start: None }
}

/// A search solver's run with the portfolio's quick phase as its warm start, timed as a whole:
/// `elapsed` covers both, and the statistics split it (`warm_start_ms`, and `search_ms` for the
/// solver's own part).
///
/// With a capacity the search runs first, from the caller's start or its own few greedy passes:
/// a search that fits the capacity or proves it cannot be met needs no better start (that is the
/// common case, and the quick phase would cost several times the search). Only when it stops
/// without an answer does the quick phase run, and its plan replaces the solver's when lower: the
/// caller then learns the best known plan, and that it fits when it does. Without a capacity the
/// start plan is the top of the range the search probes, so the quick phase runs first.
fn search_with_warm_start(
    problem: &Problem,
    solver: &dyn crate::Solver,
    options: &SolveOptions,
    started: Instant,
) -> Result<Outcome, SolveError> {
    let mut warm_start_time = Duration::ZERO;
    let mut outcome = if options.capacity.is_some() {
        let mut outcome = solver.solve(problem, options)?;
        // Settled: a plan within the capacity, or a proof that none exists.
        let open = !(outcome.feasible() || outcome.stopped == crate::Stopped::Infeasible);
        if open && outcome.stopped != crate::Stopped::Cancelled {
            let quick_started = Instant::now();
            let quick = warm_start(problem, options)?;
            warm_start_time = quick_started.elapsed();
            if let Some(quick) = quick.filter(|q| outcome.makespan().is_none_or(|m| q.makespan < m)) {
                outcome.plan = Some(Plan::clone(&quick));
                outcome.settle(problem);
                if outcome.feasible() {
                    outcome.stopped = outcome.stopped.stronger(crate::Stopped::Fits);
                }
                outcome.stats.insert("start".into(), StatValue::Text("the quick phase's plan".into()));
            }
        }
        outcome
    } else {
        let mut options = options.clone();
        // The lower of the caller's start and the quick plan: a compiler's plan can be worse than
        // the greedy one, and the search should not start higher than it must.
        let quick = warm_start(problem, &options)?;
        warm_start_time = started.elapsed();
        options.start = match (options.start.take(), quick) {
            (Some(given), Some(quick)) if quick.makespan < given.makespan => Some(quick),
            (Some(given), _) => Some(given),
            (None, quick) => quick,
        };
        // The search's deadline is the run's: the quick phase's time counts against it.
        solver.solve(problem, &options)?
    };
    let search_time = outcome.elapsed;
    outcome.elapsed = started.elapsed();
    outcome.stats.insert("warm_start_ms".into(), StatValue::Ratio(milliseconds(warm_start_time)));
    outcome.stats.insert("search_ms".into(), StatValue::Ratio(milliseconds(search_time)));
    Ok(outcome)
}

/// Milliseconds to the microsecond, for statistics.
fn milliseconds(time: Duration) -> f64 {
    (time.as_secs_f64() * 1e6).round() / 1000.0
}

/// The start plan for a search solver ([`portfolio::best_first_fit_plan`]: the best greedy order, no
/// search). A cancel before it ends leaves none (the solver then stops too).
fn warm_start(problem: &Problem, options: &SolveOptions) -> Result<Option<Arc<crate::Plan>>, SolveError> {
    match portfolio::best_first_fit_plan(problem, options) {
        Ok(plan) => Ok(plan.map(Arc::new)),
        Err(crate::Halt::Unsupported(what)) => Err(SolveError::Unsupported(what)),
        Err(crate::Halt::Request(error)) => Err(error),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests;
