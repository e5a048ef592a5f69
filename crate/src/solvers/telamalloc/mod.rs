//! TelaMalloc (Maas et al., ASPLOS'23): a search that places one buffer at a time, picked by block
//! heuristics, each at its lowest feasible offset, judged by constraint propagation, with smart
//! backtracking. The paper's CP-SAT solver is replaced by memplan's own propagation
//! ([`propagation`]): lowest feasible offsets, wipe-outs with their causes, and cross-section
//! reasoning over the free gaps of each section.
//!
//! With a capacity it finds a plan within it (the paper's problem). Without one it minimises the
//! peak address with the shared driver ([`crate::solvers::minimise`]), probing capacities between
//! the lower bound and the best greedy plan with the capacity search.
//!
//! In capacity mode the answer is a plan within the capacity, or `Infeasible` only with a proof
//! (max load or a buffer above the capacity, clashing pinned buffers, a failure of the root
//! propagation, or an exhausted complete search). When the search stops without either (steps,
//! time limit or cancel), the best plan known is returned: for the parts the search did not fit,
//! the better of the baseline's and the greedy portfolio's plans, with `feasible = false` unless
//! those happen to fit. Parts too large for the search's per-section layout get only those.
//!
//! Beyond the paper: the heuristics pick among the buffers with the lowest feasible offset (the
//! "frontier"; `--param frontier=false` restores the paper's phase-restricted picks), restarts
//! randomise the picks, and turns of complete searches over canonical placement orders
//! ([`canonical`], under three orders of ties, one of which searches the parts of a split afresh)
//! alternate with slices of the heuristic attempts, so that a plan is found whenever one exists,
//! given time (see [`search`]).

mod backtracking;
mod candidates;
mod canonical;
mod layout;
mod parts;
mod phases;
mod propagation;
mod report;
mod search;
mod timeline;

use self::parts::{Parts, Searched};
use self::report::Report;
use self::search::{Limits, Settings};
use super::minimise::{self, Deadlines, Probe, Schedule};
use super::{Capabilities, Solver, greedy};
use crate::model::{Outcome, Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{Deadline, Effort, Halt, Parameter, SolveOptions};

pub(crate) struct Telamalloc;

impl Solver for Telamalloc {
    fn name(&self) -> &str {
        "telamalloc"
    }

    fn description(&self) -> String {
        "TelaMalloc: heuristic search (three block heuristics, contention phases, smart backtracking) guided by \
         memplan's own propagation; fits --capacity, else minimises the peak"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_capacity().with_minimise().with_randomised().with_warm_start()
    }

    fn parameters(&self) -> Vec<Parameter> {
        let defaults = Settings::default();
        vec![
            Parameter::int(
                "candidates",
                defaults.candidates as u64,
                1,
                MAX_CANDIDATES,
                "heuristic candidates per decision point (3 = the three heuristics in the current phase)",
            ),
            Parameter::at_least(
                "subtree-limit",
                defaults.subtree_limit,
                1,
                "backtracks inside one subtree before the search jumps out of it (doubles on restarts)",
            ),
            Parameter::int(
                "restarts",
                defaults.restarts_before_complete.into(),
                0,
                u32::MAX.into(),
                "heuristic attempts before turns of the complete search alternate with them \
                 (0 = complete search only)",
            ),
            Parameter::flag(
                "cross-section",
                defaults.cross_section,
                "cross-section reasoning over the free gaps of each section",
            ),
            Parameter::flag(
                "frontier",
                defaults.frontier,
                "take the three heuristics' picks among the buffers with the lowest feasible offset \
                 (false: within the current contention phase, as the paper)",
            ),
            Parameter::flag(
                "baseline",
                true,
                "try the skyline baseline heuristic (3.1) before searching, as TelaMalloc does in production",
            ),
            Parameter::at_least(
                "max-steps",
                0,
                0,
                "placements the search may try in all (0 = a budget of propagation work by effort, \
                 unless a time limit is set)",
            ),
        ]
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let config = Config::from_options(options)?;
        match options.capacity {
            Some(capacity) => fit(problem, options, &config, capacity),
            None => minimise_peak(problem, options, &config),
        }
    }
}

/// The solver's settings as read from the options.
struct Config {
    settings: Settings,
    baseline: bool,
    /// Step budget set by the caller (0: by effort and size, see [`Config::budget`]).
    max_steps: u64,
    effort: Effort,
    timed: bool,
}

/// The most heuristic candidates per decision point: the frontier keeps that many sorted by a
/// shift per insertion, and a list longer than a few dozen is no longer a heuristic's pick.
const MAX_CANDIDATES: u64 = 64;

impl Config {
    /// The settings, once every parameter is checked against its declared range.
    fn from_options(options: &SolveOptions) -> Result<Config, Halt> {
        let params = &options.params;
        params.check(&Telamalloc.parameters())?;
        let defaults = Settings::default();
        let settings = Settings {
            candidates: params.get_or("candidates", defaults.candidates)?,
            subtree_limit: params.get_or("subtree-limit", defaults.subtree_limit)?,
            restarts_before_complete: params.get_or("restarts", defaults.restarts_before_complete)?,
            cross_section: params.get_or("cross-section", defaults.cross_section)?,
            frontier: params.get_or("frontier", defaults.frontier)?,
            seed: options.seed,
            ..defaults
        };
        let max_steps = params.get_or("max-steps", 0u64)?;
        let baseline = params.get_or("baseline", true)?;
        Ok(Config { settings, baseline, max_steps, effort: options.effort, timed: options.time_limit.is_some() })
    }

    /// The budget of a capacity search (`minimising` false) or of a whole minimisation of
    /// `buffers` buffers. With a time limit the clock decides. Without one, a budget keeps the run
    /// finite and its result reproducible: steps in proportion to the buffers, and propagation work
    /// (which, unlike steps, costs about the same time on every instance). A capacity search,
    /// which the caller asked to fit, gets ten times more.
    fn budget(&self, buffers: usize, minimising: bool) -> Budget {
        if self.max_steps > 0 {
            return Budget { steps: self.max_steps, work: u64::MAX };
        }
        if self.timed {
            return Budget::UNLIMITED;
        }
        let (per_buffer, work): (u64, u64) = match self.effort {
            Effort::Low => (50, 10_000_000),
            // Within 1 MiB, challenging B needs 731,000 steps (170 buffers) and H 972,000 (316
            // buffers); a capacity search gets ten times this, so 500 a buffer fits all eleven.
            Effort::Normal => (500, 100_000_000),
            Effort::High => (1_000, 400_000_000),
        };
        let budget = Budget { steps: per_buffer * buffers.max(64) as u64, work };
        if minimising { budget } else { Budget { steps: budget.steps * 10, work: budget.work * 10 } }
    }
}

/// How much searching is allowed: steps and propagation work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Budget {
    steps: u64,
    work: u64,
}

impl Report {
    fn used(&self) -> Budget {
        Budget { steps: self.search.steps, work: self.work }
    }
}

impl Budget {
    const UNLIMITED: Budget = Budget { steps: u64::MAX, work: u64::MAX };

    /// What is left after `used`.
    fn left(self, used: Budget) -> Budget {
        Budget { steps: self.steps.saturating_sub(used.steps), work: self.work.saturating_sub(used.work) }
    }

    fn covers(self, used: Budget) -> bool {
        used.steps < self.steps && used.work < self.work
    }

    fn limits(self, deadline: &Deadline) -> Limits<'_> {
        Limits { deadline, max_steps: self.steps, max_work: self.work }
    }
}

/// Static proofs that nothing fits in `capacity`.
fn obviously_infeasible(problem: &Problem, capacity: u64) -> Option<String> {
    if problem.max_load() > capacity {
        return Some(format!("the max load {} exceeds the capacity {capacity}", problem.max_load()));
    }
    problem.buffers().iter().find_map(|b| {
        let top = b.pinned.unwrap_or(0).checked_add(b.size);
        top.is_none_or(|top| top > capacity).then(|| {
            format!(
                "buffer {} ({} bytes{}) does not fit in the capacity {capacity}",
                b.id,
                b.size,
                match b.pinned {
                    Some(p) => format!(" pinned at {p}"),
                    None => String::new(),
                }
            )
        })
    })
}

/// The §3.1 baseline: the greedy engine's skyline pass (highest contention first, on top), as
/// TelaMalloc runs it before searching.
fn baseline(problem: &Problem, options: &SolveOptions) -> Result<Plan, Halt> {
    let run = greedy::Pass::new(greedy::Order::Contention, greedy::Fit::Top);
    let order = run.order.arrange(problem.buffers(), options.seed);
    let placement = greedy::place(problem, &order, run.fit, &options.deadline())?;
    Ok(Plan::new(problem, placement.offsets, placement.order))
}

/// Capacity mode: a plan within `capacity`, or a proof that none exists, or the best plan known.
fn fit(problem: &Problem, options: &SolveOptions, config: &Config, capacity: u64) -> Result<Outcome, Halt> {
    if let Some(reason) = obviously_infeasible(problem, capacity) {
        return Err(Halt::Infeasible(reason));
    }
    let name = "telamalloc";
    let deadline = options.deadline();
    let mut parts = Parts::split(problem);
    parts.place_singles(problem);
    let mut report = Report { parts: parts.len() as u64, ..Report::default() };
    let misfits = |parts: &Parts| (0..parts.len()).filter(|&k| !parts.fits(k, capacity)).collect::<Vec<_>>();
    if config.baseline && !misfits(&parts).is_empty() {
        match baseline(problem, options) {
            Ok(plan) => {
                parts.adopt(problem, &plan.offsets, &plan.placement_order, |_| true);
                report.by_baseline =
                    (0..parts.len()).filter(|&k| parts.members(k).len() > 1 && parts.fits(k, capacity)).count() as u64;
            }
            // No baseline plan (its skyline may pass u64 where the search still finds room).
            Err(Halt::Timeout | Halt::Cancelled | Halt::Overflow { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    let budget = config.budget(problem.len(), false);
    let mut stopped = None;
    for k in misfits(&parts) {
        if !parts.searchable(k) {
            report.too_large += 1;
            continue;
        }
        let limits = budget.left(report.used()).limits(&deadline);
        match parts.search(k, problem, &config.settings, capacity, &limits, &mut report) {
            Searched::Found => {}
            Searched::Stopped(why) => {
                stopped = Some(why);
                break;
            }
            Searched::Infeasible(reason) => return Err(Halt::Infeasible(reason)),
        }
    }
    let mut stats = Stats::new();
    let unsolved = misfits(&parts);
    if !unsolved.is_empty() {
        // The best plan known for what the search did not fit (its partial plans are not plans):
        // the better of the baseline's and the start plan's. Parts too large to search may fit
        // that way too.
        if unsolved.iter().any(|&k| parts.makespan[k].is_none()) && deadline.cancel_flag().is_cancelled() {
            return Err(Halt::Cancelled);
        }
        let start = greedy::given_or_quick_pass(problem, options)?;
        parts.adopt(problem, &start.offsets, &start.placement_order, |k| unsolved.contains(&k));
        let fitted = unsolved.iter().filter(|&&k| parts.fits(k, capacity)).count();
        stats.insert("parts_by_start_plan".into(), StatValue::Count(fitted as u64));
    }
    let (offsets, order) = parts.assemble();
    report.write(&mut stats);
    let plan = Plan::new(problem, offsets, order);
    let stopped = if plan.makespan <= capacity {
        Stopped::Fits
    } else {
        match stopped {
            Some(Some(Halt::Cancelled)) => Stopped::Cancelled,
            Some(Some(_)) => Stopped::TimeLimit,
            // Out of steps, or parts too large for the search's layout.
            _ => Stopped::Budget,
        }
    };
    let mut outcome = Outcome::new(name, problem, Some(capacity), Some(plan), 0, stopped);
    outcome.stats = stats;
    Ok(outcome)
}

/// Makespan mode: [`improve`] the start plan.
fn minimise_peak(problem: &Problem, options: &SolveOptions, config: &Config) -> Result<Outcome, Halt> {
    let start = greedy::given_or_quick_pass(problem, options)?;
    Ok(improve(problem, options, config, start))
}

/// The shared minimisation driver with the capacity search as its probe. Parts are independent,
/// so each keeps its own best plan and proven bound across probes, and a probe only searches the
/// parts that do not fit yet.
fn improve(problem: &Problem, options: &SolveOptions, config: &Config, start: Plan) -> Outcome {
    let mut parts = Parts::split(problem);
    parts.adopt(problem, &start.offsets, &start.placement_order, |_| true);
    let mut report = Report { parts: parts.len() as u64, ..Report::default() };
    let mut stats = Stats::new();
    stats.insert("start_makespan".into(), start.makespan.into());
    // The driver stops when this flag is set: on the caller's cancel (a child of it, so that the
    // search inside a probe sees that cancel within a poll, not only between probes: a portfolio
    // race that MiniMalloc has won must not wait for the probe running beside it), or when the step
    // budget is spent.
    let stop = options.cancel.child();
    let driver_options = SolveOptions { cancel: stop.clone(), ..options.clone() };
    let deadline = driver_options.deadline();
    let untimed = SolveOptions { time_limit: None, ..driver_options.clone() }.deadline();
    let timed = options.time_limit.is_some();
    let budget = config.budget(problem.len(), true);
    let caller = options.deadline();
    let minimised = minimise::minimise(
        "telamalloc",
        problem,
        options,
        Deadlines { caller: &caller, driver: &deadline },
        start,
        Schedule::HEURISTIC,
        None,
        |capacity, allotment| {
            if options.cancel.is_cancelled() {
                stop.cancel();
                return Probe::Unknown;
            }
            // Without a time limit probes are bounded by steps only, so that the result is reproducible.
            let probe_deadline = if timed { allotment.deadline } else { &untimed };
            let left = budget.left(report.used());
            // The driver's portion of the budget for this round, within what is left.
            let share =
                |total: u64, left: u64| if total == u64::MAX { u64::MAX } else { allotment.portion(total).min(left) };
            let probe = Budget { steps: share(budget.steps, left.steps), work: share(budget.work, left.work) };
            let before = report.used();
            let mut verdict = Probe::Feasible { offsets: Vec::new(), placement_order: Vec::new() };
            for k in 0..parts.len() {
                if parts.proven_lower[k] > capacity {
                    verdict = Probe::Infeasible;
                    break;
                }
                if parts.fits(k, capacity) {
                    continue;
                }
                if !parts.searchable(k) {
                    // Nothing will ever lower this part: stop the minimisation.
                    stop.cancel();
                    verdict = Probe::Unknown;
                    break;
                }
                let now = report.used();
                let used = Budget { steps: now.steps - before.steps, work: now.work - before.work };
                let limits = probe.left(used).limits(probe_deadline);
                match parts.search(k, problem, &config.settings, capacity, &limits, &mut report) {
                    Searched::Found => {}
                    Searched::Stopped(_) => {
                        verdict = Probe::Unknown;
                        break;
                    }
                    Searched::Infeasible(_) => {
                        verdict = Probe::Infeasible;
                        break;
                    }
                }
            }
            if !budget.covers(report.used()) {
                stop.cancel();
            }
            match verdict {
                Probe::Feasible { .. } => {
                    let (offsets, placement_order) = parts.assemble();
                    Probe::Feasible { offsets, placement_order }
                }
                other => other,
            }
        },
    );
    report.write(&mut stats);
    minimised.write_stats(&mut stats);
    let mut outcome =
        Outcome::new("telamalloc", problem, None, Some(minimised.plan), minimised.lower_bound, minimised.stopped);
    outcome.stats = stats;
    outcome
}
