//! The summary of a run, as the CLI prints it (one JSON line) and the page receives it: the one
//! serialised form of an [`Outcome`]. Its TypeScript twin is generated from this type
//! (`web/src/generated/`), so the page never declares it again.

use serde::{Deserialize, Serialize};

use super::Run;
use crate::model::wire;
use crate::model::{Problem, Stats, Stopped};

/// A run's result in the form the edges send. Integers follow `wire`'s rule (a JSON number up
/// to 2^53 − 1, else a decimal string); `makespan`, `fragmentation` and `fragmentation_pct` are `null`
/// when no plan came back. The plan's offsets travel separately (a file, or a typed array).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Summary {
    /// The solver asked for.
    pub solver: String,
    /// For `auto`, the member whose plan this is; `warm` when the caller's warm start plan is the
    /// answer (no solver found a lower one).
    pub winner: Option<String>,
    /// The makespan of the caller's warm start plan (`solve --warm`), when one was given.
    #[serde(serialize_with = "wire::serialize_option_u64", deserialize_with = "wire::deserialize_option_u64")]
    #[cfg_attr(test, ts(type = "number | string | null"))]
    pub warm_start: Option<u64>,
    pub buffers: usize,
    /// The most bytes alive at once (L).
    #[serde(serialize_with = "wire::serialize_u64", deserialize_with = "wire::deserialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub max_load: u64,
    /// A proven lower bound on every plan's makespan.
    #[serde(serialize_with = "wire::serialize_u64", deserialize_with = "wire::deserialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub lower_bound: u64,
    #[serde(serialize_with = "wire::serialize_option_u64", deserialize_with = "wire::deserialize_option_u64")]
    #[cfg_attr(test, ts(type = "number | string | null"))]
    pub makespan: Option<u64>,
    /// The capacity the run was held to, if any.
    #[serde(serialize_with = "wire::serialize_option_u64", deserialize_with = "wire::deserialize_option_u64")]
    #[cfg_attr(test, ts(type = "number | string | null"))]
    pub capacity: Option<u64>,
    /// makespan − L.
    #[serde(serialize_with = "wire::serialize_option_u64", deserialize_with = "wire::deserialize_option_u64")]
    #[cfg_attr(test, ts(type = "number | string | null"))]
    pub fragmentation: Option<u64>,
    /// Fragmentation as a percentage of L.
    #[serde(serialize_with = "wire::serialize_option_f64")]
    pub fragmentation_pct: Option<f64>,
    /// Why the run stopped.
    pub stopped: Stopped,
    /// `stopped` in words, as shown next to a result.
    pub verdict: String,
    /// What was proven or why no plan came back, for people (never needed to act).
    pub detail: Option<String>,
    /// The plan's makespan is proven to be the lowest possible.
    pub optimal: bool,
    /// A plan came back and it is within the capacity (any plan, without one).
    pub feasible: bool,
    /// The independent validator accepted the plan and every claim about it.
    pub valid: bool,
    /// What the validator found wrong, a sentence each.
    pub violations: Vec<String>,
    #[serde(serialize_with = "wire::serialize_f64")]
    pub elapsed_ms: f64,
    #[serde(serialize_with = "wire::serialize_u64", deserialize_with = "wire::deserialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub seed: u64,
    /// Solver statistics, for people and benchmarks.
    #[cfg_attr(test, ts(type = "Record<string, number | string>"))]
    pub stats: Stats,
}

impl Summary {
    pub fn new(problem: &Problem, run: &Run) -> Summary {
        let outcome = &run.outcome;
        let fragmentation = outcome.fragmentation(problem);
        let max_load = problem.max_load();
        Summary {
            solver: outcome.solver.clone(),
            winner: outcome.winner.clone(),
            warm_start: run.warm_start,
            buffers: problem.len(),
            max_load,
            lower_bound: outcome.lower_bound,
            makespan: outcome.makespan(),
            capacity: outcome.capacity,
            fragmentation,
            fragmentation_pct: fragmentation
                .map(|f| if max_load == 0 { 0.0 } else { 100.0 * f as f64 / max_load as f64 }),
            stopped: outcome.stopped,
            verdict: outcome.verdict().to_string(),
            detail: outcome.detail.clone(),
            optimal: outcome.optimal(),
            feasible: outcome.feasible(),
            valid: run.is_valid(),
            violations: run.violations.clone(),
            elapsed_ms: outcome.elapsed.as_secs_f64() * 1000.0,
            seed: outcome.seed,
            stats: outcome.stats.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;
    use crate::options::SolveOptions;

    /// The JSON line reads back as the summary it was written from (the Python package pickles
    /// results this way): integers past 2^53 (written as strings), absent values, every stopped
    /// reason the run can give, statistics of each kind.
    #[test]
    fn the_json_line_reads_back() {
        let huge = 1u64 << 60;
        let problem = Problem::new(
            vec![Buffer::new("a", 0, 2, huge), Buffer::new("b", 1, 3, 3), Buffer::new("c", 2, 4, huge - 5)],
            None,
        )
        .unwrap();
        for (solver, capacity) in [("auto", None), ("minimalloc", Some(huge)), ("slff", Some(huge + 3))] {
            let options = SolveOptions { capacity, ..SolveOptions::default() };
            let run = super::super::solve(&problem, solver, &options).unwrap();
            let summary = run.summary(&problem);
            let text = serde_json::to_string(&summary).unwrap();
            let back: Summary = serde_json::from_str(&text).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
            assert_eq!(
                (back.max_load, back.lower_bound, back.makespan),
                (summary.max_load, summary.lower_bound, summary.makespan)
            );
            assert_eq!(back.stats.len(), summary.stats.len());
        }
    }
}
