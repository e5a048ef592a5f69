//! TelaMalloc (Maas et al., ASPLOS'23): a search that places one buffer at a time, picked by block
//! heuristics, each at its lowest feasible offset, judged by constraint propagation, with smart
//! backtracking. The paper's CP-SAT solver is replaced by memplan's own propagation
//! ([`propagation`]): lowest feasible offsets, wipe-outs with their causes, and cross-section
//! reasoning over the free gaps of each time segment.
//!
//! With a capacity it finds a plan within it (the paper's problem). Without one it minimises the
//! peak address with the shared driver ([`crate::solvers::minimise`]), probing capacities between
//! the lower bound and the best greedy plan with the capacity search.
//!
//! In capacity mode the answer is a plan within the capacity, or `Infeasible` only with a proof
//! (max load or a buffer above the capacity, clashing pinned buffers, a failure of the root
//! propagation, or an exhausted complete search). When the search stops without either (steps,
//! time limit or cancel), the best plan known is returned with `feasible = false`: the baseline
//! heuristic's offsets for the parts the search did not fit.

mod backtracking;
mod candidates;
mod layout;
mod phases;
mod propagation;
mod search;
mod timeline;

use web_time::Instant;

use self::propagation::Failure;
use self::search::{Limits, Outcome, Search, SearchStats, Settings};
use self::timeline::Timeline;
use super::minimise::{self, Probe};
use super::{Capabilities, Solver, finish};
use crate::model::{Problem, Solution, StatValue, Stats};
use crate::options::{CancelFlag, Effort, Parameter, SolveError, SolveOptions};

pub struct Telamalloc;

/// Parts with more (buffer, segment) pairs than this are not searched: the per-segment layout
/// would need too much memory. Their plan is the baseline heuristic's.
const SEARCH_LIMIT: u64 = 4_000_000;
/// Parts with more pairs than this are searched without cross-section reasoning, whose checks
/// visit every buffer alive in every touched segment.
const CROSS_SECTION_LIMIT: u64 = 1_000_000;
/// Complete search keeps every unplaced buffer as a candidate at every level: O(n²) memory.
const COMPLETE_LIMIT: usize = 4_000;

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
        Capabilities { alignment: true, pinned: true, capacity: true, minimise: true, randomised: true }
    }

    fn parameters(&self) -> Vec<Parameter> {
        let defaults = Settings::default();
        vec![
            Parameter {
                name: "candidates",
                kind: "int",
                default: defaults.candidates.to_string(),
                description: "heuristic candidates per decision point (3 = the three heuristics in the current phase)",
            },
            Parameter {
                name: "subtree_limit",
                kind: "int",
                default: defaults.subtree_limit.to_string(),
                description: "backtracks inside one subtree before the search jumps out of it (doubles on restarts)",
            },
            Parameter {
                name: "restarts",
                kind: "int",
                default: defaults.restarts_before_complete.to_string(),
                description: "heuristic attempts before complete ones alternate with them (0 = complete only)",
            },
            Parameter {
                name: "cross_section",
                kind: "bool",
                default: defaults.cross_section.to_string(),
                description: "cross-section reasoning over the free gaps of each time segment",
            },
            Parameter {
                name: "frontier",
                kind: "bool",
                default: defaults.frontier.to_string(),
                description: "take the three heuristics' picks among the buffers with the lowest feasible offset \
                              (false: within the current contention phase, as the paper)",
            },
            Parameter {
                name: "baseline",
                kind: "bool",
                default: "true".into(),
                description: "try the skyline baseline heuristic (3.1) before searching, as TelaMalloc does in production",
            },
            Parameter {
                name: "max_steps",
                kind: "int",
                default: "0".into(),
                description: "placements the search may try in all (0 = by effort; a time limit also stops it)",
            },
        ]
    }

    fn solve(&self, problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
        let started = Instant::now();
        let config = Config::from_options(options)?;
        match super::capacity(problem, options) {
            Some(capacity) => fit(problem, options, &config, capacity, started),
            None => minimise_peak(problem, options, &config, started),
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

impl Config {
    fn from_options(options: &SolveOptions) -> Result<Config, SolveError> {
        let params = &options.params;
        let defaults = Settings::default();
        let settings = Settings {
            candidates: params.get_or("candidates", defaults.candidates)?.max(1),
            subtree_limit: params.get_or("subtree_limit", defaults.subtree_limit)?.max(1),
            restarts_before_complete: params.get_or("restarts", defaults.restarts_before_complete)?,
            cross_section: params.get_or("cross_section", defaults.cross_section)?,
            frontier: params.get_or("frontier", defaults.frontier)?,
            seed: options.seed,
            ..defaults
        };
        let max_steps = params.get_or("max_steps", 0u64)?;
        let baseline = params.get_or("baseline", true)?;
        Ok(Config { settings, baseline, max_steps, effort: options.effort, timed: options.time_limit.is_some() })
    }

    /// Steps for a capacity search (`minimising` false) or a whole minimisation of `buffers`
    /// buffers. With a time limit the clock decides; without one a budget keeps the run finite and
    /// the result reproducible: a capacity search, which the caller asked to fit, gets much more.
    fn budget(&self, buffers: usize, minimising: bool) -> u64 {
        if self.max_steps > 0 {
            return self.max_steps;
        }
        if self.timed {
            return u64::MAX;
        }
        let per_buffer = match self.effort {
            Effort::Low => 50,
            Effort::Normal => 500,
            Effort::High => 2_000,
        };
        let steps = per_buffer * buffers.max(64) as u64;
        if minimising { steps } else { steps.saturating_mul(40) }
    }
}

/// What the search did, over all parts and probes, for the solution's statistics.
#[derive(Default)]
struct Report {
    search: SearchStats,
    propagation: std::time::Duration,
    wipe_outs: u64,
    section_failures: u64,
    parts: u64,
    searched: u64,
    by_baseline: u64,
    unsearchable: u64,
}

impl Report {
    fn absorb(&mut self, search: &Search) {
        self.search.add(&search.stats);
        let propagation = search.propagation();
        self.propagation += propagation.time;
        self.wipe_outs += propagation.wipe_outs;
        self.section_failures += propagation.section_failures;
        self.searched += 1;
    }

    fn write(&self, stats: &mut Stats) {
        let s = &self.search;
        for (name, value) in [
            ("steps", s.steps),
            ("minor_backtracks", s.minor_backtracks),
            ("major_backtracks", s.major_backtracks),
            ("subtree_jumps", s.subtree_jumps),
            ("restarts", s.restarts),
            ("wipe_outs", self.wipe_outs),
            ("section_failures", self.section_failures),
            ("parts", self.parts),
            ("parts_searched", self.searched),
            ("parts_by_baseline", self.by_baseline),
            ("parts_too_large", self.unsearchable),
        ] {
            stats.insert(name.into(), StatValue::Count(value));
        }
        stats.insert("propagation_ms".into(), StatValue::Ratio(self.propagation.as_secs_f64() * 1000.0));
    }
}

/// A part of the problem (buffers that share time only among themselves) and its best plan so far.
struct Part {
    members: Vec<usize>,
    incidences: u64,
    /// Offsets of the members (same order) and their peak, when some plan is known.
    offsets: Option<Vec<u64>>,
    order: Vec<usize>,
    makespan: u64,
    /// No plan of this part has a smaller peak.
    proven_lower: u64,
}

impl Part {
    fn split(problem: &Problem) -> Vec<Part> {
        let buffers = problem.buffers();
        phases::independent_parts(buffers)
            .into_iter()
            .map(|members| {
                let incidences = if members.len() == 1 { 1 } else { Timeline::incidences(buffers, &members) };
                let pinned_top = members.iter().filter_map(|&i| buffers[i].pinned.map(|p| p + buffers[i].size)).max();
                let proven_lower = max_load(buffers, &members).max(pinned_top.unwrap_or(0));
                Part { members, incidences, offsets: None, order: Vec::new(), makespan: u64::MAX, proven_lower }
            })
            .collect()
    }

    /// Takes the offsets a whole-problem plan gives this part.
    fn adopt(&mut self, problem: &Problem, plan: &[u64], order: &[usize], member_of: &[u32], index: usize) {
        let buffers = problem.buffers();
        let offsets: Vec<u64> = self.members.iter().map(|&i| plan[i]).collect();
        let makespan = self.members.iter().zip(&offsets).map(|(&i, &o)| o + buffers[i].size).max().unwrap_or(0);
        if makespan < self.makespan {
            self.makespan = makespan;
            self.offsets = Some(offsets);
            self.order = order.iter().copied().filter(|&i| member_of[i] as usize == index).collect();
        }
    }

    fn searchable(&self) -> bool {
        self.incidences <= SEARCH_LIMIT
    }

    /// Searches this part at `capacity`. `Ok(None)`: a plan was found and kept; `Ok(Some(why))`:
    /// the limits stopped the search (`None` = steps); `Err`: proven infeasible, with the reason.
    fn search(
        &mut self,
        problem: &Problem,
        config: &Config,
        capacity: u64,
        limits: &Limits,
        report: &mut Report,
    ) -> Result<Option<Option<SolveError>>, String> {
        let buffers = problem.buffers();
        let timeline = Timeline::new(buffers, &self.members);
        let mut settings = config.settings.clone();
        settings.cross_section &= self.incidences <= CROSS_SECTION_LIMIT;
        if self.members.len() > COMPLETE_LIMIT {
            settings.restarts_before_complete = u32::MAX;
        }
        let mut search = match Search::new(&timeline, capacity, settings) {
            Ok(search) => search,
            Err(failure) => {
                self.proven_lower = self.proven_lower.max(capacity + 1);
                return Err(explain(problem, &timeline, failure, capacity));
            }
        };
        let outcome = search.run(limits);
        report.absorb(&search);
        match outcome {
            Outcome::Found { offsets, order } => {
                self.makespan =
                    self.members.iter().zip(&offsets).map(|(&i, &o)| o + buffers[i].size).max().unwrap_or(0);
                self.order = order.iter().map(|&j| self.members[j as usize]).collect();
                self.offsets = Some(offsets);
                Ok(None)
            }
            Outcome::Infeasible(failure) => {
                self.proven_lower = self.proven_lower.max(capacity + 1);
                Err(match failure {
                    Some(failure) => explain(problem, &timeline, failure, capacity),
                    None => format!("a complete search found no plan within {capacity} bytes"),
                })
            }
            Outcome::Stopped(why) => Ok(Some(why)),
        }
    }
}

/// The most bytes alive at once among `members`, by an event sweep.
fn max_load(buffers: &[crate::Buffer], members: &[usize]) -> u64 {
    if let [only] = members {
        return buffers[*only].size;
    }
    let mut events: Vec<(u64, i128)> = members
        .iter()
        .flat_map(|&i| [(buffers[i].start, buffers[i].size as i128), (buffers[i].end, -(buffers[i].size as i128))])
        .collect();
    // Ends before starts at the same time: lifetimes are half-open.
    events.sort_unstable();
    let (mut load, mut peak) = (0i128, 0i128);
    for (_, change) in events {
        load += change;
        peak = peak.max(load);
    }
    peak as u64 // at most the problem's max load, which fits in u64
}

/// The reason for an infeasibility proof, with the buffers' own ids.
fn explain(problem: &Problem, timeline: &Timeline, failure: Failure, capacity: u64) -> String {
    let id = |j: u32| &problem.buffers()[timeline.global[j as usize]].id;
    match failure {
        Failure::WipeOut(j) => {
            format!("buffer {} fits nowhere within {capacity} bytes around the pinned buffers", id(j))
        }
        Failure::Section(t) => {
            let with = timeline.alive(t).first().map(|&j| id(j).clone()).unwrap_or_default();
            format!("around the pinned buffers, the buffers alive together with {with} cannot share {capacity} bytes")
        }
        Failure::Pinned(j) => {
            format!("pinned buffer {} overlaps another pinned buffer or ends above {capacity}", id(j))
        }
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

/// The §3.1 baseline: the greedy engine's `skyline` preset, as TelaMalloc runs it before searching.
fn baseline(problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
    let skyline = super::greedy::presets().into_iter().find(|s| s.name() == "skyline");
    let skyline = skyline.ok_or_else(|| SolveError::Unsupported("the skyline preset is missing".into()))?;
    skyline.solve(problem, &SolveOptions { capacity: None, params: Default::default(), ..options.clone() })
}

/// Which part each buffer belongs to.
fn membership(problem: &Problem, parts: &[Part]) -> Vec<u32> {
    let mut member_of = vec![0u32; problem.len()];
    for (index, part) in parts.iter().enumerate() {
        for &i in &part.members {
            member_of[i] = index as u32;
        }
    }
    member_of
}

/// Puts the parts' plans together (every part must have one).
fn assemble(problem: &Problem, parts: &[Part]) -> (Vec<u64>, Vec<usize>) {
    let mut offsets = vec![0u64; problem.len()];
    let mut order = Vec::with_capacity(problem.len());
    for part in parts {
        if let Some(part_offsets) = &part.offsets {
            for (&i, &o) in part.members.iter().zip(part_offsets) {
                offsets[i] = o;
            }
        }
        order.extend_from_slice(&part.order);
    }
    (offsets, order)
}

/// Capacity mode: a plan within `capacity`, or a proof that none exists, or the best plan known.
fn fit(
    problem: &Problem,
    options: &SolveOptions,
    config: &Config,
    capacity: u64,
    started: Instant,
) -> Result<Solution, SolveError> {
    if let Some(reason) = obviously_infeasible(problem, capacity) {
        return Err(SolveError::Infeasible(reason));
    }
    let deadline = options.deadline(started);
    let mut parts = Part::split(problem);
    let mut report = Report { parts: parts.len() as u64, ..Report::default() };
    let buffers = problem.buffers();
    // A part of one buffer fits at its pinned offset or at 0 (its size fits, checked above).
    for part in parts.iter_mut().filter(|p| p.members.len() == 1) {
        let i = part.members[0];
        part.offsets = Some(vec![buffers[i].pinned.unwrap_or(0)]);
        part.order = vec![i];
        part.makespan = buffers[i].pinned.unwrap_or(0) + buffers[i].size;
    }
    let member_of = membership(problem, &parts);
    let needs_search = |parts: &[Part]| parts.iter().any(|p| p.makespan > capacity);
    let mut baseline_run = None;
    if config.baseline && needs_search(&parts) {
        match baseline(problem, options) {
            Ok(plan) => {
                for (index, part) in parts.iter_mut().enumerate().filter(|(_, p)| p.makespan > capacity) {
                    part.adopt(problem, &plan.plan.offsets, &plan.placement_order, &member_of, index);
                    report.by_baseline += u64::from(part.makespan <= capacity);
                }
                baseline_run = Some(());
            }
            Err(SolveError::Timeout | SolveError::Cancelled) => {}
            Err(error) => return Err(error),
        }
    }
    let limits = Limits { deadline: &deadline, max_steps: config.budget(problem.len(), false) };
    let mut stopped = None;
    for part in parts.iter_mut().filter(|p| p.makespan > capacity) {
        if !part.searchable() {
            report.unsearchable += 1;
            continue;
        }
        let left =
            Limits { deadline: limits.deadline, max_steps: limits.max_steps.saturating_sub(report.search.steps) };
        match part.search(problem, config, capacity, &left, &mut report) {
            Ok(None) => {}
            Ok(Some(why)) => {
                stopped = Some(why);
                break;
            }
            Err(reason) => return Err(SolveError::Infeasible(reason)),
        }
    }
    if parts.iter().any(|p| p.offsets.is_none()) {
        // Stopped before the baseline had run or without it: a quick greedy plan for the rest.
        if baseline_run.is_none() && deadline.cancel_flag().is_cancelled() {
            return Err(SolveError::Cancelled);
        }
        let fallback = crate::run::solve(problem, "slff", &SolveOptions { capacity: None, ..SolveOptions::default() })?;
        for (index, part) in parts.iter_mut().enumerate().filter(|(_, p)| p.offsets.is_none()) {
            part.adopt(problem, &fallback.plan.offsets, &fallback.placement_order, &member_of, index);
        }
    }
    let (offsets, order) = assemble(problem, &parts);
    let mut stats = Stats::new();
    report.write(&mut stats);
    stats.insert("capacity".into(), StatValue::Count(capacity));
    if let Some(why) = stopped {
        let reason = match why {
            None => "steps".to_string(),
            Some(error) => error.to_string(),
        };
        stats.insert("stopped".into(), StatValue::Text(reason));
    }
    Ok(finish("telamalloc", problem, options, offsets, order, stats, started))
}

/// Makespan mode: the shared minimisation driver, started from the best greedy plan, with the
/// capacity search as its probe. Parts are independent, so each keeps its own best plan and
/// proven bound across probes, and a probe only searches the parts that do not fit yet.
fn minimise_peak(
    problem: &Problem,
    options: &SolveOptions,
    config: &Config,
    started: Instant,
) -> Result<Solution, SolveError> {
    // The best greedy plan; on large problems the cheaper portfolio (its normal effort takes seconds).
    let effort = if problem.len() > 10_000 { Effort::Low } else { options.effort.min(Effort::Normal) };
    let start_options =
        SolveOptions { capacity: None, effort, params: Default::default(), progress: None, ..options.clone() };
    let start = crate::run::solve(problem, "auto", &start_options)?;
    let mut parts = Part::split(problem);
    let member_of = membership(problem, &parts);
    for (index, part) in parts.iter_mut().enumerate() {
        part.adopt(problem, &start.plan.offsets, &start.placement_order, &member_of, index);
    }
    let mut report = Report { parts: parts.len() as u64, ..Report::default() };
    let mut best = Solution { solver: "telamalloc".into(), stats: Stats::new(), ..start.clone() };
    if let Some(StatValue::Text(winner)) = start.stats.get("winner") {
        best.stats.insert("start".into(), StatValue::Text(winner.clone()));
    }
    // The driver stops when this flag is set: on the caller's cancel, or when the step budget is spent.
    let stop = CancelFlag::new();
    let driver_options = SolveOptions { cancel: stop.clone(), ..options.clone() };
    let deadline = driver_options.deadline(started);
    let untimed = SolveOptions { time_limit: None, ..driver_options.clone() }.deadline(started);
    let timed = options.time_limit.is_some();
    let max_steps = config.budget(problem.len(), true);
    let mut probe_steps = (max_steps / 16).max(1);
    let solution = minimise::minimise(problem, options, &deadline, best, |capacity, probe_deadline| {
        if options.cancel.is_cancelled() {
            stop.cancel();
            return Probe::Unknown;
        }
        // Without a time limit probes are bounded by steps only, so that the result is reproducible.
        let probe_deadline = if timed { probe_deadline } else { &untimed };
        let left = max_steps.saturating_sub(report.search.steps);
        let budget = if max_steps == u64::MAX { u64::MAX } else { probe_steps.min(left) };
        let first_steps = report.search.steps;
        let mut verdict = Probe::Feasible { offsets: Vec::new(), placement_order: Vec::new() };
        for part in parts.iter_mut() {
            if part.proven_lower > capacity {
                verdict = Probe::Infeasible;
                break;
            }
            if part.makespan <= capacity {
                continue;
            }
            if !part.searchable() {
                // Nothing will ever lower this part: stop the minimisation.
                stop.cancel();
                verdict = Probe::Unknown;
                break;
            }
            let left = budget.saturating_sub(report.search.steps - first_steps);
            let limits = Limits { deadline: probe_deadline, max_steps: left };
            match part.search(problem, config, capacity, &limits, &mut report) {
                Ok(None) => {}
                Ok(Some(_)) => {
                    verdict = Probe::Unknown;
                    break;
                }
                Err(_) => {
                    verdict = Probe::Infeasible;
                    break;
                }
            }
        }
        if verdict == Probe::Unknown {
            probe_steps = probe_steps.saturating_mul(2);
        }
        if report.search.steps >= max_steps {
            stop.cancel();
        }
        match verdict {
            Probe::Feasible { .. } => {
                let (offsets, placement_order) = assemble(problem, &parts);
                Probe::Feasible { offsets, placement_order }
            }
            other => other,
        }
    });
    let mut solution = solution;
    report.write(&mut solution.stats);
    solution.elapsed = started.elapsed();
    if options.cancel.is_cancelled() && solution.makespan == start.makespan {
        // Cancelled with nothing better than the start plan: still an answer, marked as such.
        solution.stats.insert("stopped".into(), StatValue::Text("cancelled".into()));
    }
    Ok(solution)
}
