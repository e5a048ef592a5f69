//! `auto`: a portfolio that races planners on all cores and keeps the lowest makespan.
//!
//! It works in two phases:
//! 1. The quick members, in parallel (rayon): every greedy order × fit the effort asks for, Zant's
//!    planners, random restarts, and idealloc for inputs large enough to need it. Ties go to the
//!    member listed first. The list runs from cheap to costly, so that rule mostly picks the faster
//!    one, and unlike "whichever finished first" it keeps the result the same for a given seed
//!    whatever the number of threads or the machine's load.
//! 2. At high effort, on inputs small enough for search, the search solvers race from the best
//!    plan of phase 1: MiniMalloc's exact search and TelaMalloc's heuristic search run side by side;
//!    the first to prove its plan optimal stops the other. Without a capacity they lower the
//!    makespan and prove bounds; with a capacity the quick plan does not meet, they try to meet it.
//!    The better plan wins (ties: MiniMalloc's), and the bound is the best either proved.
//!
//! Without a time limit every member works to a budget counted in work, not time (iterations,
//! nodes, steps), so a seed gives the same plan on any machine. With a time limit, phase 2 uses
//! whatever time phase 1 left.

use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;
use web_time::Instant;

use super::greedy::{Fit, Greedy, Order, Run};
use super::{Capabilities, Solver, idealloc, minimalloc, telamalloc, zant};
use crate::model::{Problem, Solution, StatValue};
use crate::options::{Effort, Params, Progress, SolveError, SolveOptions};

pub struct Auto;

/// Random-order restarts at high effort.
const RANDOM_RESTARTS: u64 = 16;
/// idealloc joins at normal effort from this many buffers (below it, the greedy members match it
/// at a fraction of the cost), and at high effort on every input up to [`IDEALLOC_MAX`].
const IDEALLOC_MIN_NORMAL: usize = 5_000;
/// Above this, idealloc's iterations cost more than they return on the traces measured; it joins
/// only when a time limit bounds it.
const IDEALLOC_MAX: usize = 200_000;
/// The search solvers of phase 2 run on inputs up to this size (MiniMalloc's own limit for
/// minimisation; TelaMalloc's layout grows with buffers × time segments).
const SEARCH_MAX: usize = 4_096;
/// MiniMalloc's node budget per feasibility search in phase 2 when no time limit is given.
const SEARCH_NODE_BUDGET: u64 = 1_000_000;

/// One planner of the portfolio with the seed and parameters it runs with.
pub struct Member {
    pub solver: Box<dyn Solver>,
    pub seed: u64,
    pub params: Params,
    /// Much slower than the others (idealloc's iterations): it starts first, so that on several
    /// threads the cheap members run beside it instead of before it.
    pub slow: bool,
}

impl Member {
    fn new(solver: Box<dyn Solver>, seed: u64) -> Self {
        Member { solver, seed, params: Params::new(), slow: false }
    }

    /// The options this member runs with: the caller's, with its own seed and parameters.
    pub fn options(&self, options: &SolveOptions) -> SolveOptions {
        SolveOptions { seed: self.seed, params: self.params.clone(), ..options.clone() }
    }
}

/// Phase 1's members for an effort level and input, cheapest first. Each carries its own seed so
/// that a random restart is reproducible on its own.
pub fn members(effort: Effort, seed: u64, buffers: usize, timed: bool) -> Vec<Member> {
    let combination = |order, fit| Box::new(Greedy::combination(Run::new(order, fit))) as Box<dyn Solver>;
    let mut members = Vec::new();
    let deterministic_orders: Vec<Order> = Order::ALL.into_iter().filter(|&o| o != Order::Random).collect();
    let fits: &[Fit] = match effort {
        Effort::Low => &[Fit::First],
        Effort::Normal => &[Fit::First, Fit::Best],
        Effort::High => &Fit::ALL,
    };
    for &fit in fits {
        for &order in &deterministic_orders {
            members.push(Member::new(combination(order, fit), seed));
        }
    }
    if effort >= Effort::Normal {
        for preset in zant::presets() {
            members.push(Member::new(preset, seed));
        }
    }
    if effort == Effort::High {
        for restart in 0..RANDOM_RESTARTS {
            // Distinct, reproducible seeds derived from the user's.
            let member_seed = seed.wrapping_add(restart.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            members.push(Member::new(combination(Order::Random, Fit::First), member_seed));
        }
    }
    let idealloc_iterations = match effort {
        Effort::Normal if (IDEALLOC_MIN_NORMAL..=IDEALLOC_MAX).contains(&buffers) => Some(10),
        Effort::High if buffers <= IDEALLOC_MAX || timed => Some(100),
        _ => None,
    };
    if let Some(iterations) = idealloc_iterations {
        let mut member = Member::new(Box::new(idealloc::Idealloc), seed);
        member.params.set("iterations", iterations.to_string());
        member.slow = true;
        members.push(member);
    }
    members
}

impl Solver for Auto {
    fn name(&self) -> &str {
        "auto"
    }

    fn description(&self) -> String {
        "portfolio: races greedy planners, Zant and idealloc on all cores (more at higher --effort); at high \
         effort MiniMalloc and TelaMalloc then search from the best plan; keeps the lowest makespan"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { alignment: true, pinned: true, capacity: true, minimise: true, randomised: true }
    }

    fn solve(&self, problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
        let started = Instant::now();
        let members = members(options.effort, options.seed, problem.len(), options.time_limit.is_some());
        let (mut solution, finished) = quick_phase(problem, options, &members, started)?;
        let winner = std::mem::replace(&mut solution.solver, "auto".to_string());
        solution.stats.insert("winner".into(), StatValue::Text(winner));
        solution.stats.insert("members".into(), members.len().into());
        solution.stats.insert("finished".into(), finished.into());
        // Where the time went: the quick phase, and the rest (the search) by difference.
        let quick_ms = started.elapsed().as_secs_f64() * 1000.0;
        solution.stats.insert("quick_phase_ms".into(), StatValue::Ratio(quick_ms));
        if options.effort == Effort::High && problem.len() <= SEARCH_MAX {
            solution = search_phase(problem, options, solution, started);
        }
        solution.stats.insert("effort".into(), options.effort.name().into());
        solution.elapsed = started.elapsed();
        solution.seed = options.seed;
        Ok(solution)
    }
}

/// Phase 1: every member in parallel; the lowest makespan, ties to the first listed. Returns it
/// with the number of members that finished.
fn quick_phase(
    problem: &Problem,
    options: &SolveOptions,
    members: &[Member],
    started: Instant,
) -> Result<(Solution, usize), SolveError> {
    let best_so_far: Mutex<Option<u64>> = Mutex::new(None);
    // Slow members first: rayon hands out the list front to back, and a slow member taken last
    // would leave the other threads idle while it runs. The results are put back in listed order,
    // so ties still go to the member listed first, on any number of threads.
    let mut schedule: Vec<usize> = (0..members.len()).collect();
    schedule.sort_by_key(|&position| !members[position].slow);
    let mut scheduled: Vec<(usize, Result<Solution, SolveError>)> = schedule
        .into_par_iter()
        .map(|position| {
            let member = &members[position];
            let mut member_options = member.options(options);
            member_options.progress = None;
            if position == 0 {
                // The first member ignores the time limit, so that `auto` always has an answer; a
                // cancel still stops it.
                member_options.time_limit = None;
            } else if let Some(stop) = options.deadline(started).expired() {
                return (position, Err(stop));
            } else {
                // What is left of the caller's limit, not the whole of it again.
                member_options.time_limit = options.deadline(started).remaining();
            }
            let result = member.solver.solve(problem, &member_options);
            if let Ok(solution) = &result {
                let mut best = best_so_far.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if best.is_none_or(|b| solution.makespan < b) {
                    *best = Some(solution.makespan);
                    options.report(Progress {
                        solver: member.solver.name().to_string(),
                        best_makespan: *best,
                        lower_bound: problem.lower_bound(),
                        nodes: 0,
                    });
                }
            }
            (position, result)
        })
        .collect();
    scheduled.sort_by_key(|&(position, _)| position);
    let results = scheduled.into_iter().map(|(_, result)| result);
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
    match best {
        Some(solution) => Ok((solution, finished)),
        None => Err(first_error.or(stopped).unwrap_or(SolveError::Timeout)),
    }
}

/// Phase 2: MiniMalloc and TelaMalloc search from `quick`, racing on two threads or taking turns
/// on one; the first proof of optimality (or plan within the capacity) ends the search. Keeps
/// `quick` when neither improves on it or when the caller cancels.
fn search_phase(problem: &Problem, options: &SolveOptions, quick: Solution, started: Instant) -> Solution {
    let capacity = super::capacity(problem, options);
    let settled = match capacity {
        Some(capacity) => quick.makespan <= capacity,
        None => quick.makespan <= quick.lower_bound,
    };
    if settled || options.deadline(started).expired().is_some() {
        return quick;
    }
    let results = if options.time_limit.is_some() && rayon::current_num_threads() == 1 {
        take_turns(problem, options, &quick, capacity, started)
    } else {
        race(problem, options, &quick, capacity, started)
    };
    let mut best = quick;
    let mut proven = best.lower_bound;
    let mut searched = Vec::new();
    for (name, found) in results {
        proven = proven.max(found.lower_bound);
        // A racer's plan replaces the quick one only when it is lower, or when it meets a capacity
        // that the quick one misses.
        let better = found.makespan < best.makespan && (capacity.is_none() || found.feasible || !best.feasible);
        searched.push(format!("{name} {}", found.makespan));
        if better {
            // The winner's own statistics, with the portfolio's counts carried over.
            let portfolio: Vec<_> =
                ["members", "finished", "quick_phase_ms"].iter().filter_map(|&k| best.stats.remove_entry(k)).collect();
            best = Solution { solver: "auto".into(), ..found };
            best.stats.extend(portfolio);
            best.stats.insert("winner".into(), StatValue::Text(name.into()));
        }
    }
    // Both bounds are proofs, so the better one holds for whichever plan won.
    best.lower_bound = proven.min(best.makespan);
    best.optimal = best.makespan <= proven;
    best.feasible = capacity.is_none_or(|c| best.makespan <= c);
    best.stats.insert("search".into(), StatValue::Text(searched.join(", ")));
    best
}

/// The searches of phase 2, by name.
const SEARCHERS: [&str; 2] = ["minimalloc", "telamalloc"];

/// Whether a searcher's result ends the search: a plan proven optimal or within the capacity
/// asked for, or a proof that nothing fits the capacity.
fn conclusive(result: &Result<Solution, SolveError>, capacity: Option<u64>) -> bool {
    match result {
        Ok(solution) => solution.optimal || capacity.is_some_and(|c| solution.makespan <= c),
        Err(error) => matches!(error, SolveError::Infeasible(_)),
    }
}

/// One run of a phase-2 searcher. TelaMalloc lowers the makespan of `start` when no capacity is
/// given; MiniMalloc minimises on its own (its bound proofs need its own probes).
fn search(
    name: &str,
    problem: &Problem,
    options: &SolveOptions,
    start: &Solution,
    capacity: Option<u64>,
) -> Result<Solution, SolveError> {
    match (name, capacity) {
        ("minimalloc", _) => minimalloc::MiniMalloc::default().solve(problem, options),
        (_, Some(_)) => telamalloc::Telamalloc.solve(problem, options),
        (_, None) => telamalloc::improve(problem, options, start.clone()),
    }
}

/// Both searchers at once (`rayon::join`): a conclusive result stops the other, whose partial
/// result is then dropped. Without a time limit only MiniMalloc may stop TelaMalloc: its answer
/// under a node budget does not depend on timing, so neither does the outcome. Each racer's time
/// limit is what is left of the caller's when it starts (on one thread they run one after the
/// other).
fn race(
    problem: &Problem,
    options: &SolveOptions,
    quick: &Solution,
    capacity: Option<u64>,
    started: Instant,
) -> Vec<(&'static str, Solution)> {
    let race = options.cancel.child();
    let timed = options.time_limit.is_some();
    let stopper: OnceLock<&str> = OnceLock::new();
    let run = |name: &'static str| {
        let params = if name == "minimalloc" && !timed {
            Params::new().with("budget", SEARCH_NODE_BUDGET.to_string())
        } else {
            Params::new()
        };
        let racer_options = SolveOptions {
            time_limit: options.deadline(started).remaining(),
            cancel: race.child(),
            params,
            ..options.clone()
        };
        let result = search(name, problem, &racer_options, quick, capacity);
        if conclusive(&result, capacity) && (timed || name == "minimalloc") && stopper.set(name).is_ok() {
            race.cancel();
        }
        result
    };
    let (exact, heuristic) = rayon::join(|| run(SEARCHERS[0]), || run(SEARCHERS[1]));
    [(SEARCHERS[0], exact), (SEARCHERS[1], heuristic)]
        .into_iter()
        .filter(|(name, _)| stopper.get().is_none_or(|winner| winner == name))
        .filter_map(|(name, result)| result.ok().map(|solution| (name, solution)))
        .collect()
}

/// First time slice of [`take_turns`]; each round doubles it.
const FIRST_TURN: std::time::Duration = std::time::Duration::from_millis(100);

/// One thread with a time limit: the searchers take turns with doubling time slices, TelaMalloc
/// first (its heuristic attempts are quick to find plans that exist), so that neither stalls
/// the other the way running them one after the other would. Each turn restarts its solver; the
/// doubling bounds the repeated work by the time of the last turn. Ends at the first conclusive
/// result, the deadline or a cancel.
fn take_turns(
    problem: &Problem,
    options: &SolveOptions,
    quick: &Solution,
    capacity: Option<u64>,
    started: Instant,
) -> Vec<(&'static str, Solution)> {
    let deadline = options.deadline(started);
    let mut results: Vec<(&'static str, Solution)> = Vec::new();
    let mut best = quick.clone();
    let mut slice = FIRST_TURN;
    loop {
        for name in [SEARCHERS[1], SEARCHERS[0]] {
            let Some(remaining) = deadline.remaining() else { return results };
            if deadline.expired().is_some() {
                return results;
            }
            let turn_options = SolveOptions { time_limit: Some(slice.min(remaining)), ..options.clone() };
            let result = search(name, problem, &turn_options, &best, capacity);
            let done = conclusive(&result, capacity);
            let Ok(found) = result else {
                if done {
                    return results;
                }
                continue;
            };
            if found.makespan < best.makespan {
                best = found.clone();
            }
            results.push((name, found));
            if done {
                return results;
            }
        }
        slice = slice.saturating_mul(2);
    }
}
