//! `auto`: runs a portfolio of planners in parallel and keeps the lowest makespan.
//!
//! Ties go to the planner listed first. The list is ordered from cheap to costly, so that rule
//! mostly picks the faster one, and unlike "whichever finished first" it keeps the result the same
//! for a given seed whatever the number of threads or the machine's load.

use std::sync::Mutex;

use rayon::prelude::*;
use web_time::Instant;

use super::greedy::{Fit, Greedy, Order, Run};
use super::{Capabilities, Solver, zant};
use crate::model::{Problem, Solution, StatValue};
use crate::options::{Effort, Progress, SolveError, SolveOptions};

pub struct Auto;

/// Random-order restarts at high effort.
const RANDOM_RESTARTS: u64 = 16;

/// The portfolio for an effort level, cheapest first. Each entry carries its own seed so that a
/// random restart is reproducible on its own.
pub fn members(effort: Effort, seed: u64) -> Vec<(Box<dyn Solver>, u64)> {
    let combination = |order, fit| Box::new(Greedy::combination(Run::new(order, fit))) as Box<dyn Solver>;
    let mut members: Vec<(Box<dyn Solver>, u64)> = Vec::new();
    let deterministic_orders: Vec<Order> = Order::ALL.into_iter().filter(|&o| o != Order::Random).collect();
    let fits: &[Fit] = match effort {
        Effort::Low => &[Fit::First],
        Effort::Normal => &[Fit::First, Fit::Best],
        Effort::High => &Fit::ALL,
    };
    for &fit in fits {
        for &order in &deterministic_orders {
            members.push((combination(order, fit), seed));
        }
    }
    if effort >= Effort::Normal {
        for preset in zant::presets() {
            members.push((preset, seed));
        }
    }
    if effort == Effort::High {
        for restart in 0..RANDOM_RESTARTS {
            // Distinct, reproducible seeds derived from the user's.
            let member_seed = seed.wrapping_add(restart.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            members.push((combination(Order::Random, Fit::First), member_seed));
        }
    }
    members
}

impl Solver for Auto {
    fn name(&self) -> &str {
        "auto"
    }

    fn description(&self) -> String {
        "portfolio: runs many planners in parallel (more at higher --effort) and keeps the lowest makespan".into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { alignment: true, pinned: true, capacity: false, minimise: false, randomised: true }
    }

    fn solve(&self, problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
        let started = Instant::now();
        let members = members(options.effort, options.seed);
        let best_so_far: Mutex<Option<u64>> = Mutex::new(None);
        let results: Vec<Result<Solution, SolveError>> = members
            .par_iter()
            .enumerate()
            .map(|(position, (member, seed))| {
                let mut member_options = SolveOptions { seed: *seed, ..options.clone() };
                if position == 0 {
                    // The first member ignores the time limit, so that `auto` always has an answer; a
                    // cancel still stops it.
                    member_options.time_limit = None;
                } else if let Some(stop) = options.deadline(started).expired() {
                    return Err(stop);
                }
                let result = member.solve(problem, &member_options);
                if let Ok(solution) = &result {
                    let mut best = best_so_far.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    if best.is_none_or(|b| solution.makespan < b) {
                        *best = Some(solution.makespan);
                        options.report(Progress {
                            solver: member.name().to_string(),
                            best_makespan: *best,
                            lower_bound: problem.lower_bound(),
                            nodes: 0,
                        });
                    }
                }
                result
            })
            .collect();
        let mut best: Option<Solution> = None;
        let mut finished = 0usize;
        let mut first_error = None;
        let mut stopped = None;
        for result in results {
            match result {
                Ok(solution) => {
                    finished += 1;
                    if best.as_ref().is_none_or(|b| solution.makespan < b.makespan) {
                        best = Some(solution);
                    }
                }
                Err(stop @ (SolveError::Timeout | SolveError::Cancelled)) => stopped = stopped.or(Some(stop)),
                Err(error) => first_error = first_error.or(Some(error)),
            }
        }
        let Some(mut solution) = best else {
            return Err(first_error.or(stopped).unwrap_or(SolveError::Timeout));
        };
        let winner = std::mem::replace(&mut solution.solver, "auto".to_string());
        solution.stats.insert("winner".into(), StatValue::Text(winner));
        solution.stats.insert("members".into(), members.len().into());
        solution.stats.insert("finished".into(), finished.into());
        solution.stats.insert("effort".into(), options.effort.name().into());
        solution.elapsed = started.elapsed();
        solution.seed = options.seed;
        Ok(solution)
    }
}
