//! Every solver by name: the single list the CLI, the page and `memplan bench` read, so that a
//! solver added here appears everywhere. It sits above the portfolio and every solver, and none of
//! them imports it.

use serde::Serialize;

use crate::options::{Parameter, SolveError};
use crate::solvers::{
    Capabilities, Solver, executorch, greedy, idealloc, lns, minimalloc, peak, portfolio, stacking, telamalloc, tvm,
    zant,
};

/// A solver's name and description, for listings.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SolverInfo {
    pub name: String,
    pub description: String,
    pub capabilities: Capabilities,
    pub parameters: Vec<Parameter>,
}

/// The named solvers, in the order listings show them. The generic greedy combinations
/// (`greedy-<order>-<fit>`) are found by [`by_name`] too but listed once, by
/// [`greedy::describe_combinations`].
pub fn all() -> Vec<Box<dyn Solver>> {
    let mut solvers: Vec<Box<dyn Solver>> = vec![Box::new(portfolio::Auto)];
    solvers.extend(greedy::presets());
    solvers.extend(tvm::presets());
    solvers.extend(zant::presets());
    solvers.push(Box::new(executorch::ExecutorchGreedy));
    solvers.push(Box::new(minimalloc::MiniMalloc::default()));
    solvers.push(Box::new(idealloc::Idealloc));
    solvers.push(Box::new(telamalloc::Telamalloc));
    solvers.push(Box::new(stacking::Stacking));
    solvers.push(Box::new(lns::Lns));
    solvers.push(Box::new(peak::Peak));
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
