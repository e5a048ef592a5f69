//! Every solver speaks one small trait: read a [`Problem`], return an [`Outcome`]: a plan (or
//! none), the proven lower bound and why the run stopped.
//!
//! This module holds what every solver shares (the trait, how a result becomes an outcome, the
//! start plan); the list of solvers by name is [`crate::run::registry`], above the portfolio, so
//! that no solver depends on it.
//!
//! Public: the trait, [`Capabilities`], and the solvers a Rust user may build and configure in
//! code, each with its settings ([`greedy::Greedy`] with its passes, [`minimalloc::MiniMalloc`]
//! with its [`minimalloc::Settings`] and [`minimalloc::Rules`], [`peak::Peak`],
//! [`portfolio::Auto`], [`stacking::Stacking`]). Every solver, these included, is reached by name
//! through [`crate::run`]; their internals are the crate's own.

mod capabilities;
pub(crate) mod executorch;
pub mod greedy;
pub(crate) mod idealloc;
pub(crate) mod lns;
pub mod minimalloc;
pub(crate) mod minimise;
pub mod peak;
pub mod portfolio;
pub mod stacking;
pub(crate) mod telamalloc;
pub(crate) mod tiling;
pub(crate) mod tvm;
mod view;
pub(crate) mod zant;

use web_time::Instant;

use crate::model::{Outcome, Plan, Problem, Stats, Stopped};
use crate::options::{Deadline, Halt, Parameter, SolveError, SolveOptions};
pub use capabilities::Capabilities;

pub trait Solver: Send + Sync {
    /// The name used on the command line (`--solver NAME`).
    fn name(&self) -> &str;
    /// One line for `memplan solvers` and the playground.
    fn description(&self) -> String;
    fn capabilities(&self) -> Capabilities;
    /// The solver-specific settings it reads from [`SolveOptions::params`].
    fn parameters(&self) -> Vec<Parameter> {
        Vec::new()
    }
    /// The solver's work: an outcome, or a halt when it ends without a plan of its own.
    /// Callers use [`Solver::solve`].
    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt>;

    /// Solves `problem`: a plan (or none) with what is proven and why the run stopped. `Err` only
    /// when the request cannot be served (see [`SolveError`]): no plan within the capacity, a time
    /// limit or a cancel are outcomes. Fills in what every outcome shares (capacity, seed, time)
    /// and settles the reason against the bound ([`Outcome::settle`]). A solver that cannot use
    /// gaps plans the hulls, and zero-size buffers are placed apart unless it asks for them
    /// (`view::View`).
    ///
    /// The options are resolved here when the caller has not ([`SolveOptions::resolve`]): the
    /// solver reads the capacity that applies from them, and its deadline counts from the run's
    /// start, not from this call.
    fn solve(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, SolveError> {
        let started = web_time::Instant::now();
        let mut resolved = options.clone();
        resolved.resolve(problem);
        let options = &resolved;
        match view::View::of(problem, options, self.capabilities()).map_err(SolveError::Unsupported)? {
            None => {
                let result = self.run(problem, options);
                conclude(self.name(), problem, options, result, started)
            }
            Some(view) => {
                let result = self.run(&view.problem, &view.options);
                let outcome = conclude(self.name(), &view.problem, &view.options, result, started)?;
                Ok(view.lift(problem, outcome))
            }
        }
    }
}

/// A solver's result as its outcome: a halt without a plan becomes an outcome without one (a
/// proof of infeasibility raises the bound past the capacity); only a refused request stays an
/// error.
pub(crate) fn conclude(
    solver: &str,
    problem: &Problem,
    options: &SolveOptions,
    result: Result<Outcome, Halt>,
    started: Instant,
) -> Result<Outcome, SolveError> {
    let capacity = options.capacity;
    let mut outcome = match result {
        Ok(outcome) => outcome,
        Err(Halt::Unsupported(what)) => return Err(SolveError::Unsupported(what)),
        Err(Halt::Request(error)) => return Err(error),
        Err(halt) => {
            let (stopped, lower_bound) = match &halt {
                // Nothing fits the capacity, or (without one, e.g. clashing pinned buffers) at all.
                Halt::Infeasible(_) => (Stopped::Infeasible, capacity.map_or(u64::MAX, |c| c.saturating_add(1))),
                Halt::Timeout => (Stopped::TimeLimit, 0),
                Halt::Cancelled => (Stopped::Cancelled, 0),
                Halt::Overflow { .. } => (Stopped::Completed, 0),
                Halt::Unsupported(_) | Halt::Request(_) => unreachable!("returned above"),
            };
            let mut outcome = Outcome::new(solver, problem, capacity, None, lower_bound, stopped);
            outcome.detail = match halt {
                Halt::Infeasible(why) => Some(why),
                Halt::Overflow { .. } => Some(halt.to_string()),
                _ => None,
            };
            outcome
        }
    };
    outcome.capacity = capacity;
    outcome.seed = options.seed;
    outcome.elapsed = started.elapsed();
    outcome.settle(problem);
    Ok(outcome)
}

/// Why a run that ended with a plan stopped: the deadline's reason when it has passed or the
/// caller cancelled, else `otherwise` (the solver's own reason: its course ran, its budget ran out).
pub(crate) fn stop_reason(deadline: &Deadline, otherwise: Stopped) -> Stopped {
    match deadline.expired() {
        Some(Halt::Cancelled) => Stopped::Cancelled,
        Some(_) => Stopped::TimeLimit,
        None => otherwise,
    }
}

/// The outcome of a heuristic's plan: it ran its course ([`Stopped::Completed`]), unless the plan
/// meets the lower bound.
pub(crate) fn finish(
    solver: &str,
    problem: &Problem,
    options: &SolveOptions,
    offsets: Vec<u64>,
    placement_order: Vec<usize>,
    stats: Stats,
) -> Outcome {
    let plan = Plan::new(problem, offsets, placement_order);
    let mut outcome =
        Outcome::new(solver, problem, options.capacity, Some(plan), problem.lower_bound(), Stopped::Completed);
    outcome.stats = stats;
    outcome
}
