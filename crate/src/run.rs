//! Solving by name with the options applied: the one entry point the CLI and the wasm facade share.

use crate::model::{Problem, Solution};
use crate::options::{SolveError, SolveOptions};
use crate::solvers;

/// Runs the named solver. With `options.threads` set, natively, the solve runs in a pool of that
/// many threads; in wasm the page's global pool is used.
pub fn solve(problem: &Problem, solver: &str, options: &SolveOptions) -> Result<Solution, SolveError> {
    options.check()?;
    let solver = solvers::by_name(solver)?;
    let declared = solver.parameters();
    let unknown: Vec<&str> = options.params.names().filter(|n| !declared.iter().any(|p| p.name == *n)).collect();
    if !unknown.is_empty() {
        let known: Vec<&str> = declared.iter().map(|p| p.name).collect();
        return Err(SolveError::Unsupported(format!(
            "{} has no parameter {} (it has: {})",
            solver.name(),
            unknown.join(", "),
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        )));
    }
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(threads) = options.threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads) // 1 to MAX_THREADS: checked above
            .build()
            .map_err(|e| SolveError::Unsupported(format!("cannot start {threads} threads: {e}")))?;
        return pool.install(|| solver.solve(problem, options));
    }
    solver.solve(problem, options)
}
