//! Large-neighbourhood search: the exact search applied to small parts of a large plan. From a
//! plan (the caller's start plan or a greedy one) it picks a target below the makespan and
//! repairs the plan down to it ([`repair`]): each buffer above the target is placed again together
//! with the buffers alive around it, by MiniMalloc's search, while everything else stays pinned.
//! A target reached becomes the new plan and the next target is set lower; a target missed is
//! raised halfway back. The whole instance never goes to the exact search, so this reaches
//! instances far beyond what it settles alone (thousands of buffers), and because every repair
//! step is exact on its part, tight instances such as perfect packings (no waste anywhere) are
//! where it does best.
//!
//! With a capacity, the capacity is the only target. Every random choice comes from the seed and
//! the effort is counted in search nodes, so a seed gives the same plan on any machine.

mod neighbourhood;
mod repair;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use web_time::Instant;

pub use repair::{Limits, Tally};

use super::greedy::start_plan;
use super::{Capabilities, Solver, stop_reason};
use crate::model::{Outcome, Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{Effort, Halt, Parameter, Progress, SolveOptions};

/// The default search-node budget of a whole run, by effort.
fn default_budget(effort: Effort) -> u64 {
    match effort {
        Effort::Low => 200_000,
        Effort::Normal => 2_000_000,
        Effort::High => 20_000_000,
    }
}

const FIRST_FREE: u64 = 24;
const MOST_FREE: u64 = 120;
const NODES_PER_TRY: u64 = 20_000;

pub struct Lns;

impl Solver for Lns {
    fn name(&self) -> &str {
        "lns"
    }

    fn description(&self) -> String {
        "large-neighbourhood search: repairs a plan under lower and lower targets, placing the \
         buffers around each buffer above the target again with the exact search"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            alignment: true,
            pinned: true,
            capacity: true,
            minimise: false,
            randomised: true,
            warm_start: true,
            gaps: true,
            windows: false,
        }
    }

    fn parameters(&self) -> Vec<Parameter> {
        vec![
            Parameter::int("budget", default_budget(Effort::Normal), 0, u64::MAX, "search nodes of the whole run (default by effort: 200k low, 2M normal, 20M high)"),
            Parameter::int("free", FIRST_FREE, 2, 10_000, "buffers a first try frees around a buffer above the target"),
            Parameter::int("most", MOST_FREE, 2, 10_000, "the most buffers one neighbourhood frees"),
            Parameter::int("nodes", NODES_PER_TRY, 1, u64::MAX, "search nodes of one neighbourhood"),
        ]
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let started = Instant::now();
        let deadline = options.deadline(started);
        let params = &options.params;
        params.check(&self.parameters())?;
        let budget: u64 = params.get_or("budget", default_budget(options.effort))?;
        let first_free = params.get_or::<u64>("free", FIRST_FREE)? as usize;
        let most_free = (params.get_or::<u64>("most", MOST_FREE)? as usize).max(first_free);
        let limits = Limits {
            first_free,
            most_free,
            tries: 6,
            nodes_per_try: params.get_or("nodes", NODES_PER_TRY)?,
            give_ups: 8,
        };
        let start = start_plan(problem, options)?;
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let timeline = neighbourhood::Timeline::new(problem);
        let bound = problem.lower_bound();
        let capacity = super::capacity(problem, options);
        let mut best = start.offsets.clone();
        let mut makespan = start.makespan;
        let mut tally = Tally::default();
        let mut targets_met = 0u64;
        let mut targets_missed = 0u64;
        // How far below the makespan the next target is, as a share of the gap to the bound.
        let mut reach = 1.0f64;
        let mut halted = None;
        loop {
            let target = match capacity {
                Some(capacity) if makespan <= capacity => break,
                Some(capacity) => capacity,
                None if makespan <= bound => break,
                None => makespan - (((makespan - bound) as f64 * reach).ceil() as u64).clamp(1, makespan - bound),
            };
            let left = budget.saturating_sub(tally.nodes);
            if left == 0 {
                break;
            }
            // A target gets half of what is left, so that a miss leaves room for a nearer one.
            let share = if capacity.is_some() { left } else { left.div_ceil(2) };
            let mut offsets = best.clone();
            let met = match repair::repair(
                problem, &timeline, &mut offsets, target, &limits, share, &mut rng, &deadline, &mut tally,
            ) {
                Ok(met) => met,
                Err(halt) => {
                    halted = Some(halt);
                    false
                }
            };
            // Even a missed target leaves a valid plan no higher than before: keep it if lower.
            let reached = crate::model::load::makespan(problem.buffers(), &offsets);
            if reached <= makespan {
                best = offsets;
                makespan = reached;
            }
            options.report(Progress {
                solver: self.name().into(),
                best_makespan: Some(makespan),
                lower_bound: bound,
                nodes: tally.nodes,
            });
            if halted.is_some() {
                break;
            }
            if met {
                targets_met += 1;
                reach = (reach * 2.0).min(1.0);
            } else {
                targets_missed += 1;
                // A miss one byte below the makespan leaves no nearer target.
                if capacity.is_some() || target + 1 >= makespan {
                    break;
                }
                reach /= 4.0;
            }
        }
        let mut order: Vec<usize> = (0..problem.len()).collect();
        order.sort_unstable_by_key(|&i| (best[i], problem.buffers()[i].start));
        let plan = Plan::new(problem, best, order);
        let otherwise = match capacity {
            Some(capacity) if plan.makespan <= capacity => Stopped::Fits,
            _ if tally.nodes >= budget => Stopped::Budget,
            _ => Stopped::Completed,
        };
        let stopped = stop_reason(&deadline, otherwise);
        let mut outcome = Outcome::new(self.name(), problem, capacity, Some(plan), 0, stopped);
        let mut stats = Stats::new();
        stats.insert("start_makespan".into(), start.makespan.into());
        stats.insert("neighbourhoods".into(), tally.neighbourhoods.into());
        stats.insert("repaired".into(), tally.repaired.into());
        stats.insert("nodes".into(), tally.nodes.into());
        stats.insert("targets_met".into(), targets_met.into());
        stats.insert("targets_missed".into(), targets_missed.into());
        stats.insert("search".into(), StatValue::Text("exact search on neighbourhoods".into()));
        outcome.stats = stats;
        Ok(outcome)
    }
}
