//! The search of one independent part at one capacity (§4, Fig. 7): at each decision point take
//! candidates from the block heuristics, place each at its lowest feasible offset, let propagation
//! judge it, and backtrack as §5.4 says.
//!
//! The paper's search is incomplete: candidate lists hold a few heuristic picks, major backtracks
//! jump, and the subtree limit abandons regions. An attempt ends when it runs out of candidates at
//! the root; the next one doubles the subtree limit and takes its heuristic picks in a seeded
//! random order (restarts with noise cure the heavy tails of one fixed order). Turns of the
//! complete search ([`super::canonical`]) alternate with slices of work of the heuristic attempts,
//! each side resuming where it stopped, with a doubled budget each time. Only the exhausted complete
//! search (or a failure at the root) proves that nothing fits.
//!
//! Budgets count propagation work, never time, so that a run is the same on every machine until
//! the deadline cuts it.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::backtracking::{Episode, Level};
use super::candidates::{self, Candidates};
use super::canonical::{CallEnd, Canonical};
use super::phases;
use super::propagation::{Failure, Propagator};
use super::timeline::Timeline;
use crate::options::{Deadline, Halt};

/// The knobs of the search (see the solver's parameters).
#[derive(Clone, Debug)]
pub(super) struct Settings {
    /// Heuristic candidates per decision point: 3 = the three heuristics in the current phase.
    pub candidates: usize,
    /// Bound on a decision point's candidate list after failed ones are prepended.
    pub level_limit: usize,
    /// Major backtracks inside one subtree before jumping out of it.
    pub subtree_limit: u64,
    /// Heuristic attempts before turns of the complete search start to alternate with them (0:
    /// complete search only; `u32::MAX`: heuristic attempts only).
    pub restarts_before_complete: u32,
    /// Seed of the random order of heuristic picks after the first attempt.
    pub seed: u64,
    pub cross_section: bool,
    /// Step of the contention threshold, as a fraction of the peak load.
    pub phase_step: f64,
    /// Take the heuristics' picks from the bottom frontier (see [`candidates::frontier`]) instead
    /// of from the current contention phase.
    pub frontier: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            candidates: 3,
            level_limit: 8,
            subtree_limit: 100,
            restarts_before_complete: 1,
            seed: 0,
            cross_section: true,
            phase_step: 0.1,
            frontier: true,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct SearchStats {
    pub steps: u64,
    pub minor_backtracks: u64,
    pub major_backtracks: u64,
    pub subtree_jumps: u64,
    pub restarts: u64,
    pub phases: u64,
    pub splits: u64,
    pub memo_hits: u64,
}

impl SearchStats {
    pub(super) fn add(&mut self, other: &SearchStats) {
        self.steps += other.steps;
        self.minor_backtracks += other.minor_backtracks;
        self.major_backtracks += other.major_backtracks;
        self.subtree_jumps += other.subtree_jumps;
        self.restarts += other.restarts;
        self.phases += other.phases;
        self.splits += other.splits;
        self.memo_hits += other.memo_hits;
    }
}

/// When to stop: the deadline (time and cancel), a number of steps and an amount of propagation
/// work (see [`super::propagation::PropagationStats::work`]).
pub(super) struct Limits<'a> {
    pub deadline: &'a Deadline,
    pub max_steps: u64,
    pub max_work: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// Local offsets of every buffer, and the order they were placed in (pinned ones first).
    Found { offsets: Vec<u64>, order: Vec<u32> },
    /// Proven: no plan fits. The root's failure, or `None` when a complete search ran out.
    Infeasible(Option<Failure>),
    /// Out of steps (`None`), time or cancelled.
    Stopped(Option<Halt>),
}

enum Step {
    Placed,
    Exhausted,
    /// The attempt used its own work budget.
    Yield,
    Stopped(Option<Halt>),
}

/// The work budgets of the first heuristic slice and of the first complete turn, per buffer; each
/// later one gets twice the one before. A heuristic attempt that uses its slice yields and goes on
/// where it stopped after the complete turn (the first, deterministic attempt can need hundreds of
/// propagations of every buffer: the challenging suite's J, 470M work for 409 buffers); it only
/// restarts when it runs out of candidates. The complete searches get a ninth of the work: where its
/// pruning bites it succeeds or fails fast (K: 0.6M work).
const HEURISTIC_BUDGET_PER_BUFFER: u64 = 16_000;
const COMPLETE_BUDGET_PER_BUFFER: u64 = 2_000;

/// The orders of ties of the complete searches, which take turns (each complete on its own, so
/// any one's exhaustion proves infeasibility): as MiniMalloc's pre-orderings (its §7), one
/// unlucky order cannot stall the search.
const ORDERS: [fn(&Timeline) -> Vec<u32>; 3] =
    [candidates::longest_first, candidates::most_contended_first, candidates::most_contended_by_area];
/// Which of [`ORDERS`] searches the parts of a split afresh (see `Canonical::with_fresh_parts`).
const FRESH_PARTS: [bool; 3] = [false, false, true];

/// How often the deadline is polled: every this many steps, or sooner after this much propagation
/// work (a step on a large part can cost a millisecond).
const POLL_EVERY: u64 = 64;
const POLL_WORK: u64 = 1 << 18;

pub(super) struct Search<'t> {
    timeline: &'t Timeline,
    propagator: Propagator,
    candidates: Candidates,
    levels: Vec<Level>,
    level_of: Vec<u32>,
    settings: Settings,
    subtree_limit: u64,
    /// Propagation work at which the current heuristic attempt yields.
    yield_at: u64,
    /// The budgets of the next heuristic attempt and complete turn.
    heuristic_budget: u64,
    complete_budget: u64,
    /// The complete search under each order of ties (see [`ORDERS`]), set up at its first turn (a
    /// search the heuristics finish needs none); turns rotate among them.
    canonical: Vec<Canonical<'t>>,
    /// The complete search whose turn is next.
    turn: usize,
    capacity: u64,
    rng: ChaCha8Rng,
    polled_at_work: u64,
    episode: Episode,
    /// Buffers the search places (all but the pinned ones) and how many are placed now.
    to_place: usize,
    placed: usize,
    pub stats: SearchStats,
}

impl<'t> Search<'t> {
    /// Sets up the search and propagates the root; a root failure proves infeasibility.
    pub(super) fn new(timeline: &'t Timeline, capacity: u64, settings: Settings) -> Result<Search<'t>, Failure> {
        let mut propagator = Propagator::new(timeline, capacity, settings.cross_section);
        propagator.initialise(timeline)?;
        let (phase_of, phases) = phases::phases(timeline, settings.phase_step);
        let mut candidates = Candidates::new(timeline, phase_of, phases);
        let mut to_place = 0;
        for j in 0..timeline.len() as u32 {
            if propagator.is_placed(j) {
                candidates.placed(j);
            } else {
                to_place += 1;
            }
        }
        let stats = SearchStats { phases: phases as u64, ..SearchStats::default() };
        let buffers = timeline.len().max(64) as u64;
        let heuristic_budget = HEURISTIC_BUDGET_PER_BUFFER * buffers;
        Ok(Search {
            timeline,
            candidates,
            levels: Vec::new(),
            level_of: vec![u32::MAX; timeline.len()],
            subtree_limit: settings.subtree_limit.max(1),
            yield_at: heuristic_budget,
            heuristic_budget,
            complete_budget: COMPLETE_BUDGET_PER_BUFFER * buffers,
            canonical: Vec::new(),
            capacity,
            turn: 0,
            rng: ChaCha8Rng::seed_from_u64(settings.seed),
            polled_at_work: 0,
            settings,
            episode: Episode::default(),
            to_place,
            placed: 0,
            stats,
            propagator,
        })
    }

    /// Propagation statistics of both kinds of search.
    pub(super) fn propagation(&self) -> super::propagation::PropagationStats {
        let mut stats = self.propagator.stats.clone();
        stats.work += self.canonical.iter().map(|c| c.stats.work).sum::<u64>();
        stats
    }

    /// Steps and backtracks of both kinds of search.
    pub(super) fn search_stats(&self) -> SearchStats {
        let mut stats = self.stats.clone();
        for complete in self.canonical.iter().map(|c| &c.stats) {
            stats.steps += complete.steps;
            stats.minor_backtracks += complete.minor_backtracks;
            stats.major_backtracks += complete.major_backtracks;
            stats.splits += complete.splits;
            stats.memo_hits += complete.memo_hits;
        }
        stats
    }

    fn steps(&self) -> u64 {
        self.stats.steps + self.canonical.iter().map(|c| c.stats.steps).sum::<u64>()
    }

    fn work(&self) -> u64 {
        self.propagator.stats.work + self.canonical.iter().map(|c| c.stats.work).sum::<u64>()
    }

    /// Searches until a plan is found, infeasibility is proven, or the limits stop it.
    pub(super) fn run(&mut self, limits: &Limits) -> Ending {
        let heuristic_only = self.settings.restarts_before_complete == u32::MAX;
        if self.settings.restarts_before_complete == 0 {
            loop {
                match self.complete_turn(limits) {
                    Ending::Stopped(None) if self.within(limits) => {}
                    done => return done,
                }
            }
        }
        let mut resume = false;
        loop {
            match self.attempt(limits, resume) {
                Step::Placed => {
                    let pinned =
                        (0..self.timeline.len() as u32).filter(|&j| self.timeline.pinned[j as usize].is_some());
                    let order = pinned.chain(self.levels.iter().filter_map(|l| l.placed)).collect();
                    return Ending::Found { offsets: self.propagator.offset.clone(), order };
                }
                Step::Stopped(why) => return Ending::Stopped(why),
                Step::Yield => resume = true,
                Step::Exhausted => {
                    self.restart();
                    resume = false;
                }
            }
            if !heuristic_only && self.stats.restarts + 1 >= self.settings.restarts_before_complete as u64 {
                match self.complete_turn(limits) {
                    Ending::Stopped(None) if self.within(limits) => {}
                    done => return done,
                }
            }
            // Doubled once a round, as the complete searches' budget: the shares stay fixed.
            if self.turn == 0 {
                self.heuristic_budget = self.heuristic_budget.saturating_mul(2);
            }
            self.yield_at = self.propagator.stats.work.saturating_add(self.heuristic_budget);
        }
    }

    fn within(&self, limits: &Limits) -> bool {
        self.steps() < limits.max_steps && self.work() < limits.max_work
    }

    /// Resumes the complete search whose turn it is, for at most its budget of work (which
    /// doubles once every search had a turn).
    fn complete_turn(&mut self, limits: &Limits) -> Ending {
        let budget = self.complete_budget;
        if self.turn + 1 == ORDERS.len() {
            self.complete_budget = budget.saturating_mul(2);
        }
        let steps_left = limits.max_steps.saturating_sub(self.steps());
        let work_left = limits.max_work.saturating_sub(self.work()).min(budget);
        if self.turn == self.canonical.len() {
            let priority = ORDERS[self.turn](self.timeline);
            let canonical = Canonical::new(self.timeline, self.capacity, priority);
            self.canonical.push(if FRESH_PARTS[self.turn] { canonical.with_fresh_parts() } else { canonical });
        }
        let canonical = &mut self.canonical[self.turn];
        self.turn = (self.turn + 1) % ORDERS.len();
        let mut stopped = None;
        let run = canonical.run(steps_left, work_left, &mut || {
            stopped = limits.deadline.expired();
            stopped.is_some()
        });
        match run {
            CallEnd::Found => Ending::Found { offsets: canonical.offsets().to_vec(), order: canonical.order() },
            CallEnd::Infeasible => Ending::Infeasible(None),
            CallEnd::Paused => Ending::Stopped(None),
            CallEnd::Stopped => Ending::Stopped(stopped),
        }
    }

    /// Takes every placement back and starts the next heuristic attempt with a doubled subtree
    /// limit and budget.
    fn restart(&mut self) {
        self.undo_to(0);
        self.levels.clear();
        self.episode = Episode::default();
        self.stats.restarts += 1;
        self.subtree_limit = self.subtree_limit.saturating_mul(2);
    }

    fn undo_to(&mut self, mark: usize) {
        let Search { propagator, candidates, placed, timeline, .. } = self;
        propagator.undo_to(timeline, mark, |j| {
            candidates.unplaced(j);
            *placed -= 1;
        });
    }

    /// One attempt: descends from the current state until every buffer is placed (`Placed`), the
    /// root runs out of candidates (`Exhausted`) or the limits stop it.
    fn attempt(&mut self, limits: &Limits, resume: bool) -> Step {
        let mut resume = resume;
        loop {
            if !resume {
                if self.placed == self.to_place {
                    return Step::Placed;
                }
                self.open_level();
            }
            resume = false;
            loop {
                match self.descend(limits) {
                    Step::Placed => break,
                    Step::Stopped(why) => return Step::Stopped(why),
                    Step::Yield => return Step::Yield,
                    Step::Exhausted => {
                        if !self.backtrack() {
                            return Step::Exhausted;
                        }
                    }
                }
            }
        }
    }

    /// A new decision point below the current state, with its candidates.
    fn open_level(&mut self) {
        let previous = self.levels.last().and_then(|l| l.placed);
        let mut pending = Vec::new();
        let propagator = &self.propagator;
        let is_placed = |j: u32| propagator.is_placed(j);
        if self.settings.frontier {
            self.candidates.frontier(&propagator.lowest, self.settings.candidates, &mut pending);
        } else if let Some(phase) = self.candidates.current_phase(previous) {
            self.candidates.collect(phase, self.settings.candidates, &is_placed, &mut pending);
        }
        if self.stats.restarts > 0 {
            pending.shuffle(&mut self.rng);
        }
        self.levels.push(Level { pending: pending.into(), ..Level::default() });
    }

    /// Tries the pending candidates of the deepest decision point until one propagates.
    fn descend(&mut self, limits: &Limits) -> Step {
        let depth = self.levels.len() - 1;
        // The complete searches do not move while this one does.
        let complete_steps = self.steps() - self.stats.steps;
        let complete_work = self.work() - self.propagator.stats.work;
        loop {
            let level = &mut self.levels[depth];
            let Some(candidate) = level.pending.pop_front() else { return Step::Exhausted };
            if self.propagator.is_placed(candidate) {
                continue;
            }
            let work = self.propagator.stats.work + complete_work;
            if self.stats.steps + complete_steps >= limits.max_steps || work >= limits.max_work {
                level.pending.push_front(candidate);
                return Step::Stopped(None);
            }
            if self.propagator.stats.work >= self.yield_at {
                level.pending.push_front(candidate);
                return Step::Yield;
            }
            self.stats.steps += 1;
            if self.stats.steps.is_multiple_of(POLL_EVERY) || work >= self.polled_at_work + POLL_WORK {
                self.polled_at_work = work;
                if let Some(why) = limits.deadline.expired() {
                    return Step::Stopped(Some(why));
                }
            }
            let mark = self.propagator.mark();
            level.mark = mark;
            self.candidates.placed(candidate);
            self.placed += 1;
            match self.propagator.place(self.timeline, candidate) {
                Ok(()) => {
                    level.placed = Some(candidate);
                    self.level_of[candidate as usize] = depth as u32;
                    return Step::Placed;
                }
                Err(_) => {
                    for &b in &self.propagator.conflict {
                        let at = self.level_of[b as usize];
                        if b != candidate && (at as usize) < depth && self.propagator.is_placed(b) {
                            level.conflict.push(at);
                        }
                    }
                    level.failed.push(candidate);
                    self.stats.minor_backtracks += 1;
                    self.undo_to(mark);
                }
            }
        }
    }

    /// A major backtrack from the deepest decision point, whose candidates all failed. False when
    /// the root itself is exhausted.
    fn backtrack(&mut self) -> bool {
        self.stats.major_backtracks += 1;
        let depth = self.levels.len() - 1;
        if depth == 0 {
            return false;
        }
        // No earlier placement named: the explanations are coarse, so step back one level.
        let target = self.levels[depth].jump_target(depth).unwrap_or(depth - 1);
        let exhausted = self.levels.pop().unwrap_or_default(); // depth > 0: there is a level
        self.retreat_to(target);
        let level = &mut self.levels[target];
        level.conflict.extend(exhausted.conflict.iter().copied().filter(|&l| (l as usize) < target));
        level.prepend(&exhausted.failed, Some(self.settings.level_limit));
        self.episode.record(target);
        if self.episode.backtracks > self.subtree_limit {
            // Stuck in the subtree of decision point `shallowest`: change the placement above it.
            let stuck = self.episode.shallowest;
            self.episode = Episode::default();
            self.stats.subtree_jumps += 1;
            if stuck == 0 {
                return false;
            }
            self.retreat_to(stuck - 1);
        }
        true
    }

    /// Drops every decision point deeper than `target` and takes back `target`'s placement, which
    /// counts as failed there.
    fn retreat_to(&mut self, target: usize) {
        self.levels.truncate(target + 1);
        let mark = self.levels[target].mark;
        self.undo_to(mark);
        let level = &mut self.levels[target];
        if let Some(buffer) = level.placed.take() {
            level.failed.push(buffer);
        }
    }
}
