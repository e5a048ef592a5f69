//! Every solver by name: the single list the CLI, the page and `memplan bench` read, so that a
//! solver added here appears everywhere. It sits above the portfolio and every solver, and none of
//! them imports it.

use std::sync::{Arc, OnceLock};

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

/// The named solvers, in the order listings show them, built once: a lookup by name reads this
/// list and builds nothing. The generic greedy combinations (`greedy-<order>-<fit>`) are found by
/// [`by_name`] too but listed once, by [`greedy::describe_combinations`].
fn catalogue() -> &'static [Arc<dyn Solver>] {
    static CATALOGUE: OnceLock<Vec<Arc<dyn Solver>>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut solvers: Vec<Arc<dyn Solver>> = vec![Arc::new(portfolio::Auto)];
        solvers.extend(greedy::presets().into_iter().map(Arc::from));
        solvers.extend(tvm::presets().into_iter().map(Arc::from));
        solvers.extend(zant::presets().into_iter().map(Arc::from));
        solvers.push(Arc::new(executorch::ExecutorchGreedy));
        solvers.push(Arc::new(minimalloc::MiniMalloc::default()));
        solvers.push(Arc::new(idealloc::Idealloc));
        solvers.push(Arc::new(telamalloc::Telamalloc));
        solvers.push(Arc::new(stacking::Stacking));
        solvers.push(Arc::new(lns::Lns));
        solvers.push(Arc::new(peak::Peak));
        solvers
    })
}

/// The named solvers, in the order listings show them.
pub fn all() -> Vec<Arc<dyn Solver>> {
    catalogue().to_vec()
}

pub fn infos() -> Vec<SolverInfo> {
    catalogue()
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
pub fn by_name(name: &str) -> Result<Arc<dyn Solver>, SolveError> {
    if let Some(solver) = catalogue().iter().find(|s| s.name() == name) {
        return Ok(solver.clone());
    }
    if let Some(combination) = greedy::Greedy::from_name(name) {
        return Ok(Arc::new(combination));
    }
    Err(SolveError::UnknownSolver(name.to_string()))
}
