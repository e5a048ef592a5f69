//! `auto`: a portfolio that races planners on all cores and keeps the lowest makespan. Its
//! promise: at each effort it is never worse than any of its members run alone at that effort.
//! Each member runs as it runs alone (the same start, budget and seed), or a run that covers it,
//! wherever that is cheap; where it is not, the member joins only where it can win (see the
//! constants below, with the figures behind them).
//!
//! It works in two phases:
//! 1. The quick members, in parallel (rayon): every greedy order × fit the effort asks for, the
//!    greedy presets' own passes, Zant's planners, TVM's passes, random restarts, idealloc, TVM's
//!    hill climb and the stacking search where the input's size calls for them. Ties go to the
//!    member listed first. The list runs from cheap to costly, so that rule mostly picks the faster
//!    one, and unlike "whichever finished first" it keeps the result the same for a given seed
//!    whatever the number of threads or the machine's load. A member whose plan meets the lower
//!    bound stops the members listed after it (none of them could win), so a large trace that a
//!    greedy order packs perfectly does not wait for idealloc's iterations.
//! 2. At every effort, on inputs of at most `SEARCH_MAX` buffers, the search solvers race from
//!    the start plan each has alone (`best_first_fit_plan`): MiniMalloc's exact search, TelaMalloc's
//!    heuristic search and `peak` (as it runs alone, where it plans the input) run side by side;
//!    the first to settle the question stops the others; on small inputs the large-neighbourhood
//!    search follows when none settled it. Without a
//!    capacity they lower the makespan and prove bounds; with a capacity the quick plan does not
//!    meet, they try to meet it. The better plan wins (ties: MiniMalloc's), and the bound is the
//!    best either proved. Each works to its own budget for the effort.
//!
//! Without a time limit every member works to a budget counted in work, not time (iterations,
//! nodes, steps), so a seed gives the same plan on any machine. With a time limit, phase 2 uses
//! whatever time phase 1 left.

mod bisection;

use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use web_time::Instant;

use super::greedy::{self, Ceiling, Fit, Greedy, Order, Pass};
use super::minimise::Incumbent;
use super::{Capabilities, Solver, idealloc, lns, minimalloc, peak, stacking, telamalloc, tvm, zant};
use crate::model::{Outcome, Plan, Problem, StatValue, Stopped};
use crate::options::{CancelFlag, Effort, Halt, Params, Progress, SolveError, SolveOptions};

pub struct Auto;

/// Random-order restarts at high effort.
const RANDOM_RESTARTS: u64 = 16;
/// idealloc joins at normal effort from this many buffers (below it, the greedy members match it
/// at a fraction of the cost), and at high effort on every input up to [`IDEALLOC_MAX`].
const IDEALLOC_MIN_NORMAL: usize = 5_000;
/// Above this, idealloc's iterations cost more than they return on the traces measured; it joins
/// only when a time limit bounds it.
const IDEALLOC_MAX: usize = 200_000;
/// TVM's hill climb joins up to this many buffers: its passes replay the greedy over the
/// conflict graph, which grows with the square of the buffers alive together.
const CLIMB_MAX: usize = SEARCH_MAX;
/// The hill climb joins every effort up to this many buffers, where its 500 attempts are cheap...
const SMALL_MAX: usize = 64;
/// ...and at normal and high effort from this many, where the exact search no longer settles
/// the instance and the climb's plan can be the best (ResNet-50, 1,042 buffers: 0.064 % above the
/// max load, the greedy members 0.305 %). Between the two, on MiniMalloc's challenging instances
/// (154 to 454 buffers), its plans end 17 to 35 % above the max load where the exact search's end
/// within 5 %, and its 500 attempts cost up to half a second.
const CLIMB_MIN: usize = 512;
/// The large-neighbourhood search joins phase 2 up to this many buffers (past [`SEARCH_MAX`] it is
/// phase 2): from the greedy start it ends 12 to 20 % above the exact search's plan on the
/// challenging instances, but on small ones with windows, alignment and pins it often finds the
/// lowest plan.
const LNS_SMALL_MAX: usize = 128;
/// At high effort a second, longer climb joins (conflict-list entries visited, and attempts): on
/// ResNet-50 the climb's plan keeps falling past TVM's 500 attempts. Not on tight instances
/// (every moment with a live buffer at the max load, as in perfect packings): there the plan at
/// the bound is a tiling, which the exact search of phase 2 finds and no climb does, and the
/// longer climb held phase 2 back (5.5 s of a 10 s limit on a staircase packing of 1,000
/// buffers, for a plan 15 % above the search's).
const HIGH_CLIMB: (u64, u64) = (300_000_000, 10_000);
/// idealloc at its own defaults (as it runs alone) joins every effort up to this many buffers,
/// where its iterations are cheap.
const IDEALLOC_SMALL_MAX: usize = 256;
/// The search solvers of phase 2 run on inputs up to this size (MiniMalloc's own limit for
/// minimisation; TelaMalloc's layout grows with buffers × time segments).
pub(crate) const SEARCH_MAX: usize = 4_096;
/// The stacking search joins `auto` up to this many buffers: each order it tries costs about
/// buffers × neighbours, and larger instances are the greedy members' and the searches' ground.
const STACKING_MAX: usize = 64;
/// One planner of the portfolio with the seed and parameters it runs with.
pub(crate) struct Member {
    pub solver: Box<dyn Solver>,
    pub seed: u64,
    pub params: Params,
    /// Much slower than the others (idealloc's iterations): it starts first, so that on several
    /// threads the cheap members run beside it instead of before it.
    pub slow: bool,
    /// For a greedy member: the makespan above which it gives up, lowered as the others finish
    /// (see [`quick_phase`]).
    pub ceiling: Option<Ceiling>,
}

impl Member {
    fn new(solver: Box<dyn Solver>, seed: u64) -> Self {
        Member { solver, seed, params: Params::new(), slow: false, ceiling: None }
    }

    /// A greedy order × fit, with a ceiling of its own.
    fn greedy(order: Order, fit: Fit, seed: u64) -> Self {
        let ceiling = Ceiling::default();
        let solver = Greedy::combination(Pass::new(order, fit)).under(ceiling.clone());
        Member { ceiling: Some(ceiling), ..Member::new(Box::new(solver), seed) }
    }

    /// The options this member runs with: the caller's, with its own seed and parameters.
    pub(crate) fn options(&self, options: &SolveOptions) -> SolveOptions {
        SolveOptions { seed: self.seed, params: self.params.clone(), ..options.clone() }
    }
}

/// Phase 1's members for an effort level and input, cheapest first. Each carries its own seed so
/// that a random restart is reproducible on its own.
pub(crate) fn members(problem: &Problem, effort: Effort, seed: u64, timed: bool) -> Vec<Member> {
    let buffers = problem.len();
    let mut members = Vec::new();
    let deterministic_orders: Vec<Order> = Order::ALL.into_iter().filter(|&o| o != Order::Random).collect();
    let fits: &[Fit] = match effort {
        Effort::Low => &[Fit::First],
        Effort::Normal => &[Fit::First, Fit::Best],
        Effort::High => &Fit::ALL,
    };
    let mut idealloc = idealloc_member(effort, seed, buffers, timed);
    for &fit in fits {
        for &order in &deterministic_orders {
            members.push(Member::greedy(order, fit, seed));
        }
        // idealloc comes after the first-fit passes and before the others: on inputs large enough
        // for it, a best-fit pass costs more than its iterations (Y_1: 1.0 to 2.6 s a pass,
        // 0.15 s an iteration), and once it meets the bound the members after it stop.
        if fit == Fit::First {
            // `peak` first: when it meets the bound (pangu_2.6B, S_1) it stops idealloc's
            // iterations, which at high effort cost more than the rest of the run.
            members.extend(peak_member(problem, effort, seed));
            members.extend(idealloc.take());
        }
    }
    // Each greedy preset's own passes that the effort's grid leaves out (TFLite's and XLA's best
    // fit at low effort, the skyline's top fit below high): no preset alone beats `auto`.
    for run in greedy::preset_planners().iter().flat_map(|preset| preset.passes().to_vec()) {
        let covered = fits.contains(&run.fit) && run.order != Order::Random;
        let listed = members.iter().any(|m| m.solver.name() == run.name());
        if !covered && !listed {
            members.push(Member::greedy(run.order, run.fit, seed));
        }
    }
    // Zant's planners and TVM's greedy passes: one pass each, at every effort.
    for preset in zant::presets() {
        members.push(Member::new(preset, seed));
    }
    if buffers <= CLIMB_MAX {
        for preset in tvm::presets().into_iter().filter(|p| p.name() != tvm::HillClimb.name()) {
            members.push(Member::new(preset, seed));
        }
    }
    if buffers <= SMALL_MAX || (effort >= Effort::Normal && (CLIMB_MIN..=CLIMB_MAX).contains(&buffers)) {
        members.extend(climb_members(problem, effort, seed));
    }
    if effort < Effort::High && buffers <= IDEALLOC_SMALL_MAX && idealloc.is_none() {
        members.push(Member { slow: true, ..Member::new(Box::new(idealloc::Idealloc), seed) });
    }
    if effort == Effort::High {
        for restart in 0..RANDOM_RESTARTS {
            // Distinct, reproducible seeds derived from the user's.
            let member_seed = seed.wrapping_add(restart.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            members.push(Member::greedy(Order::Random, Fit::First, member_seed));
        }
    }
    members.extend(stacking_member(problem, effort, seed));
    members
}

/// TVM's hill climb (its seeded swaps of the greedy order near the peak) exactly as it runs alone
/// (TVM's 500 attempts): the climb keeps the last plan it accepted, not the lowest, so a longer or
/// shorter climb can end above it, and only the same run is sure to match it. Its seed is the
/// user's, so seed 0 is TVM's own sequence. At high effort a longer climb joins it.
fn climb_members(problem: &Problem, effort: Effort, seed: u64) -> Vec<Member> {
    let alone = Member { slow: true, ..Member::new(Box::new(tvm::HillClimb), seed) };
    let mut members = vec![alone];
    if effort == Effort::High && !minimalloc::tight(problem) {
        let (work, attempts) = HIGH_CLIMB;
        let mut longer = Member { slow: true, ..Member::new(Box::new(tvm::HillClimb), seed) };
        longer.params.set("budget", work.to_string());
        longer.params.set("attempts", attempts.to_string());
        members.push(longer);
    }
    members
}

/// `peak` (the stretch around the heaviest moment solved exactly, the rest greedily) joins from
/// [`CLIMB_MIN`] buffers, where the exact search no longer settles the whole input (at low effort
/// only up to [`SEARCH_MAX`], where its budget is small), on inputs it takes (no alignment, pinned
/// buffers or gaps). On pangu_2.6B it meets
/// the max load (the greedy members: 0.758 % above it), which stops the members listed after it;
/// on ResNet-50 too (the hill climb: 0.064 % above). Up to [`SEARCH_MAX`] buffers, where the
/// searches of phase 2 take the whole input, it gets [`PEAK_STRETCH_NODES`] a stretch: enough
/// to meet the bound where a stretch settles quickly, and at most a few tenths of a second where
/// none does (its own default spent 8 to 15 s on challenging D and J for plans 0.3 to 0.7 % lower
/// than the exact search's).
fn peak_member(problem: &Problem, effort: Effort, seed: u64) -> Option<Member> {
    let fits = (effort >= Effort::Normal || problem.len() <= SEARCH_MAX)
        && problem.len() >= CLIMB_MIN
        && !problem.has_alignment()
        && !problem.has_pinned()
        && !problem.has_gaps();
    fits.then(|| {
        let mut member = Member { slow: true, ..Member::new(Box::new(peak::Peak), seed) };
        if problem.len() <= SEARCH_MAX {
            member.params.set("budget", PEAK_STRETCH_NODES.to_string());
        }
        member
    })
}

/// See [`peak_member`].
const PEAK_STRETCH_NODES: u64 = 20_000;

/// The stacking search joins on small instances, at every effort: with alignment its plans meet
/// the stacking bound where the greedy members' do not, and with pinned buffers too it can find
/// the optimum the other searches miss (145 on a 24-buffer instance with two pins where they stop
/// at 153). Listed last, it wins only with a strictly lower plan.
fn stacking_member(problem: &Problem, effort: Effort, seed: u64) -> Option<Member> {
    let fits = problem.len() <= STACKING_MAX;
    fits.then(|| {
        let mut member = Member::new(Box::new(stacking::Stacking), seed);
        // Below high effort, its own default (as it runs alone); more orders at high.
        if effort == Effort::High {
            member.params.set("orders", "100000");
        }
        member
    })
}

/// idealloc as a member, when the effort and the input's size call for it.
fn idealloc_member(effort: Effort, seed: u64, buffers: usize, timed: bool) -> Option<Member> {
    let iterations = match effort {
        Effort::Normal if (IDEALLOC_MIN_NORMAL..=IDEALLOC_MAX).contains(&buffers) => 10,
        Effort::High if buffers <= IDEALLOC_MAX || timed => 100,
        _ => return None,
    };
    let mut member = Member::new(Box::new(idealloc::Idealloc), seed);
    member.params.set("iterations", iterations.to_string());
    member.slow = true;
    Some(member)
}

impl Solver for Auto {
    fn name(&self) -> &str {
        "auto"
    }

    fn description(&self) -> String {
        "portfolio: races greedy planners, Zant, TVM's passes and hill climb, idealloc, stacking and (past 4,096 buffers) peak \
         on all cores (more at higher --effort), then, up to 4,096 buffers, MiniMalloc, TelaMalloc and peak (and lns on \
         small inputs) search from the start they have alone, and above that the large-neighbourhood search; keeps the lowest \
         makespan, never above a member's alone"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_capacity().with_minimise().with_randomised().with_windows()
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let started = Instant::now();
        let members = members(problem, options.effort, options.seed, options.time_limit.is_some());
        let quick = quick_phase(problem, options, &members)?;
        let mut outcome = quick.best;
        // A caller's start plan (a compiler's, say) that beats every quick member is where the
        // search starts; the run names it the winner if the search finds nothing lower.
        if let Some(start) = options.start.as_ref().filter(|s| outcome.makespan().is_none_or(|m| s.makespan < m)) {
            let capacity = outcome.capacity;
            let mut from_start =
                Outcome::new("auto", problem, capacity, Some((**start).clone()), 0, Stopped::Completed);
            from_start.stats = std::mem::take(&mut outcome.stats);
            if from_start.feasible() && capacity.is_some() && from_start.stopped == Stopped::Completed {
                from_start.stopped = Stopped::Fits;
            }
            outcome = from_start;
        }
        outcome.stats.insert("members".into(), members.len().into());
        outcome.stats.insert("finished".into(), quick.finished.into());
        // Where the time went: the quick phase, and the rest (the search) by difference.
        outcome.stats.insert("quick_phase_ms".into(), StatValue::Ratio(round_ms(started.elapsed())));
        if outcome.plan.is_some() {
            outcome = if problem.len() <= SEARCH_MAX {
                search_phase(problem, options, outcome)
            } else {
                lns_phase(problem, options, outcome)
            };
        }
        outcome.stats.insert("effort".into(), options.effort.name().into());
        Ok(outcome)
    }
}

/// Milliseconds to the microsecond, for statistics.
fn round_ms(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 1e6).round() / 1000.0
}

/// What phase 1 found.
pub(crate) struct Quick {
    /// The best plan, named as `auto`'s with the member that made it as the winner.
    pub best: Outcome,
    /// Members that returned a plan.
    pub finished: usize,
}

/// The best plan of phase 1 at the options' effort, for the tests that hold `auto`'s answer to it.
#[cfg(test)]
pub(crate) fn quick_phase_outcome(problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
    let members = members(problem, options.effort, options.seed, options.time_limit.is_some());
    Ok(quick_phase(problem, options, &members)?.best)
}

/// The plan a search solver starts from when the caller gives none (the run passes it in, and
/// phase 2 starts its searchers from it): the best of the greedy orders with first fit, a few
/// milliseconds on the challenging instances, where the whole quick phase (the hill climb, Zant,
/// best fit) costs several times the exact search it would start. `None` after a cancel.
pub(crate) fn best_first_fit_plan(problem: &Problem, options: &SolveOptions) -> Result<Option<Plan>, Halt> {
    let members: Vec<Member> = Order::ALL
        .into_iter()
        .filter(|&order| order != Order::Random)
        .map(|order| Member::greedy(order, Fit::First, options.seed))
        .collect();
    let options = SolveOptions { capacity: None, params: Params::new(), progress: None, ..options.clone() };
    Ok(quick_phase(problem, &options, &members)?.best.plan)
}

/// The start of a phase-2 searcher, as [`crate::run::solve`] gives it when the searcher runs
/// alone: the lower of the caller's start and [`best_first_fit_plan`]. Starting from the same plan, with
/// the same budget and seed, each searcher finds here what it finds alone, so `auto` is never
/// worse than it (a start from the quick phase's best plan would be lower, but a search from a
/// lower start can end higher).
fn searcher_start(problem: &Problem, options: &SolveOptions, quick: &Outcome) -> Option<Arc<Plan>> {
    let own = best_first_fit_plan(problem, options).ok().flatten();
    let given = options.start.as_deref().cloned();
    let start = match (given, own) {
        (Some(given), Some(own)) if own.makespan < given.makespan => own,
        (Some(given), _) => given,
        (None, Some(own)) => own,
        (None, None) => quick.plan.clone()?,
    };
    Some(Arc::new(start))
}

/// Phase 1: every member in parallel; the lowest makespan, ties to the first listed.
fn quick_phase(problem: &Problem, options: &SolveOptions, members: &[Member]) -> Result<Quick, Halt> {
    let best_so_far: Mutex<Option<u64>> = Mutex::new(None);
    let lower_bound = problem.lower_bound();
    // The first member (by listed position) whose plan met the lower bound, and a cancel flag per
    // member: when a member meets the bound, every member listed after it is stopped. Those
    // before it run on, so the winner is still the first listed among the best, on any number
    // of threads.
    let at_bound: Mutex<usize> = Mutex::new(usize::MAX);
    let flags: Vec<CancelFlag> = members.iter().map(|_| options.cancel.child()).collect();
    // Slow members first: rayon hands out the list front to back, and a slow member taken last
    // would leave the other threads idle while it runs. The results are put back in listed order,
    // so ties still go to the member listed first, on any number of threads.
    let mut schedule: Vec<usize> = (0..members.len()).collect();
    schedule.sort_by_key(|&position| !members[position].slow);
    let mut scheduled: Vec<(usize, Result<Outcome, SolveError>)> = schedule
        .into_par_iter()
        .map(|position| {
            let member = &members[position];
            let mut member_options = member.options(options);
            member_options.progress = None;
            member_options.cancel = flags[position].clone();
            if position == 0 {
                // The first member ignores the time limit, so that `auto` always has an answer; a
                // cancel still stops it.
                member_options.time_limit = None;
            } else if flags[position].is_cancelled() || options.deadline().expired().is_some() {
                let stopped = if flags[position].is_cancelled() { Stopped::Cancelled } else { Stopped::TimeLimit };
                return (position, Ok(Outcome::new(member.solver.name(), problem, None, None, 0, stopped)));
            }
            let result = member.solver.solve(problem, &member_options);
            if let Some(makespan) = result.as_ref().ok().and_then(Outcome::makespan) {
                // A greedy member can win only below this plan if listed after it, or at it if
                // listed before: it gives up once its plan rises above that.
                for (other, ceiling) in members.iter().enumerate().filter_map(|(k, m)| Some((k, m.ceiling.as_ref()?))) {
                    match other.cmp(&position) {
                        std::cmp::Ordering::Less => ceiling.lower_to(makespan),
                        std::cmp::Ordering::Greater => ceiling.lower_to(makespan.saturating_sub(1)),
                        std::cmp::Ordering::Equal => {}
                    }
                }
                if makespan <= lower_bound {
                    let mut first = at_bound.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    if position < *first {
                        *first = position;
                        flags.iter().skip(position + 1).for_each(CancelFlag::cancel);
                    }
                }
                let mut best = best_so_far.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if best.is_none_or(|b| makespan < b) {
                    *best = Some(makespan);
                    options.report(Progress {
                        solver: member.solver.name().to_string(),
                        best_makespan: *best,
                        lower_bound,
                        nodes: 0,
                    });
                }
            }
            (position, result)
        })
        .collect();
    scheduled.sort_by_key(|&(position, _)| position);
    let mut best: Option<Outcome> = None;
    let mut finished = 0usize;
    // The first listed member without a plan, for when none has one: the first member ignores
    // the time limit, so its reason (a cancel, clashing pinned buffers, offsets past u64) holds.
    let mut first_planless: Option<Outcome> = None;
    // Why members without a plan stopped (a time limit or a cancel makes the portfolio's answer
    // one of a cut-short run).
    let mut interrupted: Option<Stopped> = None;
    let stopped_early = *at_bound.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // A greedy member that stopped without a plan while the caller had not cancelled gave up
    // above its ceiling: another member's plan beats any it could have finished.
    let outclassed = |position: usize, outcome: &Outcome| {
        outcome.stopped == Stopped::Cancelled
            && !options.cancel.is_cancelled()
            && members[position].ceiling.as_ref().is_some_and(|ceiling| ceiling.get() < u64::MAX)
    };
    // The first refusal, for when every member refused.
    let mut refused: Option<SolveError> = None;
    // Every member's bound is a proof (the stacking member's window bound, say), whichever plan
    // wins: the portfolio's bound is the best of them.
    let mut proven = 0u64;
    for (position, result) in scheduled {
        // A member that cannot honour the instance (pinned buffers, say) is left out of the race.
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(error) => {
                refused.get_or_insert(error);
                continue;
            }
        };
        proven = proven.max(outcome.lower_bound);
        if outcome.plan.is_some() {
            finished += 1;
            if best.as_ref().is_none_or(|b| outcome.makespan() < b.makespan()) {
                best = Some(outcome);
            }
        } else if position <= stopped_early && !outclassed(position, &outcome) {
            // (A member stopped because an earlier one met the bound, or one that gave up above
            // its ceiling, is no loss.)
            if outcome.stopped.is_interrupted() {
                interrupted = Some(interrupted.map_or(outcome.stopped, |s| s.stronger(outcome.stopped)));
            }
            first_planless.get_or_insert(outcome);
        }
    }
    let capacity = options.capacity;
    let Some(member) = best else {
        let first = match (first_planless, refused) {
            (Some(first), _) => first,
            (None, Some(error)) => return Err(Halt::from(error)),
            (None, None) => return Err(Halt::Unsupported("the portfolio has no members".into())),
        };
        let mut outcome = Outcome::new("auto", problem, capacity, None, proven.max(first.lower_bound), first.stopped);
        outcome.detail = first.detail;
        return Ok(Quick { best: outcome, finished });
    };
    let winner = member.solver.clone();
    let stopped = interrupted.map_or(Stopped::Completed, |s| s.stronger(Stopped::Completed));
    let mut outcome = Outcome::new("auto", problem, capacity, member.plan, proven, stopped);
    outcome.stats = member.stats;
    outcome.winner = Some(winner);
    if outcome.feasible() && capacity.is_some() && outcome.stopped == Stopped::Completed {
        outcome.stopped = Stopped::Fits;
    }
    Ok(Quick { best: outcome, finished })
}

/// Phase 2: MiniMalloc and TelaMalloc search from `quick`'s plan, racing on two threads or taking
/// turns on one; the first to settle the question ends the search. Keeps `quick` when neither
/// improves on it.
fn search_phase(problem: &Problem, options: &SolveOptions, quick: Outcome) -> Outcome {
    let capacity = quick.capacity;
    let settled = quick.optimal() || (capacity.is_some() && quick.feasible());
    if settled || options.deadline().expired().is_some() {
        return quick;
    }
    let Some(start) = searcher_start(problem, options, &quick) else { return quick };
    let mut results = if options.time_limit.is_some() && rayon::current_num_threads() == 1 {
        take_turns(problem, options, &start, capacity)
    } else {
        race(problem, options, &start, capacity)
    };
    // The large-neighbourhood search, from the same start, when the exact and heuristic searches
    // left the question open: on small instances with windows, alignment and pins it often finds
    // lower plans than either.
    let open = problem.len() <= LNS_SMALL_MAX && !results.iter().any(|(_, found)| conclusive(found));
    if open && options.deadline().expired().is_none() {
        let lns_options = SolveOptions {
            params: Params::new(),
            start: Some(start.clone()),
            capacity,
            progress: None,
            ..options.clone()
        };
        if let Ok(found) = lns::Lns.solve(problem, &lns_options) {
            results.push(("lns", found));
        }
    }
    let mut best = quick;
    let mut proven = best.lower_bound;
    let mut searched = Vec::new();
    // Why the search ended, when it did not settle the question: the strongest of the racers'.
    let mut stopped: Option<Stopped> = None;
    for (name, found) in results {
        proven = proven.max(found.lower_bound);
        stopped = Some(stopped.map_or(found.stopped, |s| s.stronger(found.stopped)));
        if found.stopped == Stopped::Infeasible {
            // The searcher's proof, in its words.
            best.detail = found.detail.clone();
        }
        let Some(makespan) = found.makespan() else {
            searched.push(format!("{name}: {}", found.verdict()));
            continue;
        };
        searched.push(format!("{name} {makespan}"));
        // A racer's plan replaces the quick one only when it is lower.
        if best.makespan().is_none_or(|m| makespan < m) {
            // The winner's own statistics, with the portfolio's counts carried over.
            let portfolio: Vec<_> =
                ["members", "finished", "quick_phase_ms"].iter().filter_map(|&k| best.stats.remove_entry(k)).collect();
            best.plan = found.plan;
            best.stats = found.stats;
            best.stats.extend(portfolio);
            best.winner = Some(name.to_string());
        }
    }
    // Both bounds are proofs, so the better one holds for whichever plan won.
    best.lower_bound = proven;
    best.stopped = match stopped {
        Some(reason) if capacity.is_some() && best.feasible() => reason.stronger(Stopped::Fits),
        Some(reason) => reason,
        None => best.stopped,
    };
    best.settle(problem);
    best.stats.insert("search".into(), StatValue::Text(searched.join(", ")));
    best
}

/// Phase 2 past [`SEARCH_MAX`] buffers: the large-neighbourhood search from `quick`'s plan, with
/// its work budget for the effort (a count of work, so the plan does not depend on the machine),
/// or without one when a time limit bounds it (then it searches until the limit or the lower
/// bound). Keeps `quick` when it finds nothing lower.
fn lns_phase(problem: &Problem, options: &SolveOptions, quick: Outcome) -> Outcome {
    let capacity = quick.capacity;
    let settled = quick.optimal() || (capacity.is_some() && quick.feasible());
    if settled || options.deadline().expired().is_some() {
        return quick;
    }
    // Without a time limit lns works to its budget for the effort; with one, until the limit.
    let lns_options =
        SolveOptions { params: Params::new(), start: quick.plan.clone().map(Arc::new), capacity, ..options.clone() };
    let Ok(found) = lns::Lns.solve(problem, &lns_options) else { return quick };
    let mut best = quick;
    if found.makespan().is_some_and(|m| best.makespan().is_none_or(|b| m < b)) {
        let portfolio: Vec<_> =
            ["members", "finished", "quick_phase_ms"].iter().filter_map(|&k| best.stats.remove_entry(k)).collect();
        best.plan = found.plan.clone();
        best.stats = found.stats.clone();
        best.stats.extend(portfolio);
        best.winner = Some("lns".into());
    }
    let stopped = best.stopped.stronger(found.stopped);
    best.stopped = match capacity {
        Some(_) if best.feasible() => stopped.stronger(Stopped::Fits),
        _ => stopped,
    };
    best.settle(problem);
    best.stats.insert("search".into(), StatValue::Text(format!("lns: {}", found.verdict())));
    best
}

/// The exact search's descent as it runs beside [`bisection`] (which probes the bound itself):
/// reported as the exact search.
const BESIDE_BISECTION: &str = "minimalloc beside the bisection";

/// The searches of phase 2, by name: the exact search, TelaMalloc's, and `peak` where it races
/// ([`peak_races`]).
const SEARCHERS: [&str; 3] = ["minimalloc", "telamalloc", "peak"];

/// Whether a searcher's outcome ends the search: a plan proven optimal or within the capacity
/// asked for, or a proof that nothing fits the capacity.
fn conclusive(outcome: &Outcome) -> bool {
    outcome.optimal() || outcome.stopped == Stopped::Infeasible || (outcome.capacity.is_some() && outcome.feasible())
}

/// One run of a phase-2 searcher from `start`, with its default budget for the effort (none with
/// a time limit). The descent beside the bisection and the bisection share `incumbent`, if any.
fn search(
    name: &str,
    problem: &Problem,
    options: &SolveOptions,
    start: &Arc<Plan>,
    incumbent: Option<&Arc<Incumbent>>,
) -> Option<Outcome> {
    let searcher_options =
        SolveOptions { params: Params::new(), start: Some(start.clone()), progress: None, ..options.clone() };
    if name == bisection::NAME {
        return bisection::minimise(problem, &searcher_options, (**start).clone(), incumbent.map(|shared| &**shared))
            .ok();
    }
    let result = match name {
        "minimalloc" => minimalloc::MiniMalloc::default().solve(problem, &searcher_options),
        BESIDE_BISECTION => {
            minimalloc::MiniMalloc::beside_bisection(problem, incumbent.cloned()).solve(problem, &searcher_options)
        }
        // `peak` takes no start plan: alone, it searches its stretch from its own.
        "peak" => peak::Peak.solve(problem, &SolveOptions { start: None, ..searcher_options }),
        _ => telamalloc::Telamalloc.solve(problem, &searcher_options),
    };
    result.ok()
}

/// Whether `peak` races in phase 2: wherever it plans the input (no alignment, no pinned
/// buffers). On inputs whose stretch around the peak is the whole input (every challenging
/// instance) it is MiniMalloc's search of the input with the buffers alive throughout merged into
/// one, from its own greedy start and with its own budget (high effort's at normal effort): on D
/// and J that budget found plans 0.3 and 0.7 % below the exact search's at its normal budget
/// (1,031,168 and 1,029,120 bytes against 1,034,240 and 1,036,288), for about five times the
/// nodes. It costs nothing where the exact search settles the input, which stops it.
fn peak_races(problem: &Problem) -> bool {
    !problem.has_alignment() && !problem.has_pinned()
}

/// The searchers at once (`rayon::join`): a conclusive result stops the others, whose partial
/// results are then dropped. Without a time limit only MiniMalloc may stop TelaMalloc: its answer
/// under a node budget does not depend on timing, so neither does the outcome. Each racer stops at
/// the run's deadline (on one thread they run one after the other, the second with what the first
/// left).
fn race(
    problem: &Problem,
    options: &SolveOptions,
    start: &Arc<Plan>,
    capacity: Option<u64>,
) -> Vec<(&'static str, Outcome)> {
    let race = options.cancel.child();
    let timed = options.time_limit.is_some();
    let stopper: OnceLock<&str> = OnceLock::new();
    let incumbent = Arc::new(Incumbent::new());
    let run = |name: &'static str| {
        let racer_options = SolveOptions { cancel: race.child(), capacity, ..options.clone() };
        let result = search(name, problem, &racer_options, start, Some(&incumbent));
        let name = if name == BESIDE_BISECTION { SEARCHERS[0] } else { name };
        if result.as_ref().is_some_and(conclusive) && (timed || name == "minimalloc") && stopper.set(name).is_ok() {
            race.cancel();
        }
        result
    };
    // A timed minimisation: the exact search's descent on one thread and its bisection on the
    // other (see [`bisection`]), which found lower plans of D and J in a minute than TelaMalloc
    // and `peak` there (whose high-effort budget outlasts a minute on D and J).
    if timed && capacity.is_none() && bisection::takes(problem) {
        let (exact, bisected) = rayon::join(|| run(BESIDE_BISECTION), || run(bisection::NAME));
        return [(SEARCHERS[0], exact), (bisection::NAME, bisected)]
            .into_iter()
            .filter(|(name, _)| stopper.get().is_none_or(|winner| winner == name))
            .filter_map(|(name, result)| result.map(|outcome| (name, outcome)))
            .collect();
    }
    // The exact search on one thread; TelaMalloc, then `peak` on the other (or on the first once
    // it is free). With a time limit TelaMalloc comes first: with a capacity it is often the one
    // that fits it, and `peak`, whose node budget holds under a time limit, would hold the
    // thread for that long. Without one the order changes only when each runs, not what it finds.
    let with_peak = peak_races(problem);
    let (exact, (heuristic, stretch)) = rayon::join(
        || run(SEARCHERS[0]),
        || rayon::join(|| run(SEARCHERS[1]), || with_peak.then(|| run(SEARCHERS[2])).flatten()),
    );
    [(SEARCHERS[0], exact), (SEARCHERS[1], heuristic), (SEARCHERS[2], stretch)]
        .into_iter()
        .filter(|(name, _)| stopper.get().is_none_or(|winner| winner == name))
        .filter_map(|(name, result)| result.map(|outcome| (name, outcome)))
        .collect()
}

/// First time slice of [`take_turns`]; each round doubles it.
const FIRST_TURN: std::time::Duration = std::time::Duration::from_millis(100);

/// One thread with a time limit: MiniMalloc and TelaMalloc take turns with doubling time slices
/// (`peak`, which cannot resume from the best plan so far, sits out), TelaMalloc first (its heuristic attempts are quick to find plans that exist), so that neither stalls
/// the other the way running them one after the other would. Each turn restarts its solver from
/// the best plan so far; the doubling bounds the repeated work by the time of the last turn. Ends
/// at the first conclusive result, the deadline or a cancel.
fn take_turns(
    problem: &Problem,
    options: &SolveOptions,
    start: &Arc<Plan>,
    capacity: Option<u64>,
) -> Vec<(&'static str, Outcome)> {
    let deadline = options.deadline();
    let mut results: Vec<(&'static str, Outcome)> = Vec::new();
    let mut best = start.clone();
    let mut slice = FIRST_TURN;
    loop {
        for name in [SEARCHERS[1], SEARCHERS[0]] {
            let Some(remaining) = deadline.remaining() else { return results };
            if deadline.expired().is_some() {
                return results;
            }
            let turn_options = SolveOptions { capacity, ..options.within(slice.min(remaining)) };
            let Some(found) = search(name, problem, &turn_options, &best, None) else { continue };
            if let Some(plan) = &found.plan
                && plan.makespan < best.makespan
            {
                best = Arc::new(plan.clone());
            }
            let done = conclusive(&found);
            results.push((name, found));
            if done {
                return results;
            }
        }
        slice = slice.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Shape, families::Family};

    fn climbs(problem: &Problem, effort: Effort) -> usize {
        members(problem, effort, 1, true).iter().filter(|m| m.solver.name() == tvm::HillClimb.name()).count()
    }

    /// At high effort the longer climb joins on a trace, but not on perfect packings loaded to
    /// the max load at every live moment, where it only held the exact search back.
    #[test]
    fn the_longer_climb_leaves_tight_instances_to_the_search() {
        let trace = Shape::Trace.generate(800, 1);
        assert!(!minimalloc::tight(&trace));
        assert_eq!((climbs(&trace, Effort::Normal), climbs(&trace, Effort::High)), (1, 2));
        for family in [Family::Staircase, Family::Guillotine] {
            let packing = Shape::Family(family).generate(800, 1);
            assert!(minimalloc::tight(&packing), "{family:?}");
            assert_eq!(climbs(&packing, Effort::High), 1, "{family:?}");
        }
    }
}
