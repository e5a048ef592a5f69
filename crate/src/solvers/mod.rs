//! Every solver speaks one small trait: read a [`Problem`], return a [`Solution`].
//!
//! The registry here is the single list the CLI, the portfolio and (later) the browser read, so a
//! solver added here appears everywhere.

pub mod greedy;
pub mod idealloc;
pub mod minimalloc;
pub mod minimise;
pub mod portfolio;
pub mod telamalloc;
pub mod zant;

use serde::Serialize;
use web_time::Instant;

use crate::metrics;
use crate::model::{Plan, Problem, Solution, Stats};
use crate::options::{Parameter, SolveError, SolveOptions};

/// What a solver can honour. A solver that cannot honour a constraint of the problem refuses it
/// with [`SolveError::Unsupported`] rather than dropping it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    pub alignment: bool,
    pub pinned: bool,
    /// It uses the capacity to steer the search (greedy planners only report whether they fit).
    pub capacity: bool,
    /// It proves lower bounds beyond L.
    pub minimise: bool,
    /// Its result depends on the seed.
    pub randomised: bool,
}

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
    fn solve(&self, problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError>;
}

/// A solver's name and description, for listings.
#[derive(Clone, Debug, Serialize)]
pub struct SolverInfo {
    pub name: String,
    pub description: String,
    pub capabilities: Capabilities,
    pub parameters: Vec<Parameter>,
}

/// The named solvers, in the order listings show them. The generic greedy combinations
/// (`greedy-<order>-<fit>`) are found by [`by_name`] too but listed once, by [`greedy::describe_combinations`].
pub fn all() -> Vec<Box<dyn Solver>> {
    let mut solvers: Vec<Box<dyn Solver>> = vec![Box::new(portfolio::Auto)];
    solvers.extend(greedy::presets());
    solvers.extend(zant::presets());
    solvers.push(Box::new(minimalloc::MiniMalloc::default()));
    solvers.push(Box::new(idealloc::Idealloc));
    solvers.push(Box::new(telamalloc::Telamalloc));
    solvers
}

pub fn infos() -> Vec<SolverInfo> {
    all()
        .iter()
        .map(|s| SolverInfo {
            name: s.name().to_string(),
            description: s.description(),
            capabilities: s.capabilities(),
            parameters: s.parameters(),
        })
        .collect()
}

/// Finds a solver by its name, including every `greedy-<order>-<fit>` combination.
pub fn by_name(name: &str) -> Result<Box<dyn Solver>, SolveError> {
    if let Some(solver) = all().into_iter().find(|s| s.name() == name) {
        return Ok(solver);
    }
    if let Some(combination) = greedy::Greedy::from_name(name) {
        return Ok(Box::new(combination));
    }
    Err(SolveError::UnknownSolver(name.to_string()))
}

/// The capacity that applies: the options' when set, else the problem's.
pub fn capacity(problem: &Problem, options: &SolveOptions) -> Option<u64> {
    options.capacity.or(problem.capacity())
}

/// Wraps a finished plan with its measures. Every solver ends here, so makespan, bound,
/// feasibility and optimality are computed one way.
pub fn finish(
    solver: &str,
    problem: &Problem,
    options: &SolveOptions,
    offsets: Vec<u64>,
    placement_order: Vec<usize>,
    stats: Stats,
    started: Instant,
) -> Solution {
    let makespan = metrics::makespan(problem.buffers(), &offsets);
    let lower_bound = problem.lower_bound();
    Solution {
        solver: solver.to_string(),
        plan: Plan::new(offsets),
        makespan,
        max_load: problem.max_load(),
        lower_bound,
        optimal: makespan <= lower_bound,
        feasible: capacity(problem, options).is_none_or(|c| makespan <= c),
        stats,
        elapsed: started.elapsed(),
        placement_order,
        seed: options.seed,
    }
}
