//! Large-neighbourhood search for large plans: ruin and recreate. From a plan (the caller's start
//! plan or a greedy one) it sets a target below the makespan and, move after move, frees a
//! neighbourhood around a buffer above the target ([`neighbourhood`]) and puts the freed buffers
//! back one by one at the lowest offset where they fit among the buffers that stay
//! ([`recreate`]), in one of a few orders. A move is kept when the makespan does not rise and the
//! bytes × time above the target do not grow, so moves that leave the makespan where it is but
//! lower what sits above the target (sideways moves) count as progress: all the buffers above the
//! target have to come down before the makespan can. A target met gives way to a lower one; a
//! target that no move brings nearer for a while is raised halfway back.
//!
//! Each move looks only at the buffers alive beside the freed ones, so a move costs about the
//! same on a trace of 60,000 buffers as on one of 1,000: this is the search of `auto` past the
//! exact solver's size limit. With a capacity, the capacity is the only target. Every random
//! choice comes from the seed and the effort is counted in buffers looked at ("work"), so a seed
//! gives the same plan on any machine.

mod index;
mod neighbourhood;
mod recreate;

use std::collections::BTreeSet;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::greedy::given_or_quick_pass;
use super::{Capabilities, Solver, stop_reason};
use crate::model::{Outcome, Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{Effort, Halt, Parameter, Progress, SolveOptions};
pub(crate) use index::Timeline;
use neighbourhood::{Around, Span};

/// The default work budget of a whole run (buffers looked at while putting buffers back), by
/// effort: `auto` runs it with these past the exact search's size limit. A move on a trace of
/// 20,000 buffers looks at 100,000 to a few million; on the (loaded) machine they were set on,
/// normal's budget took several seconds on idealloc's traces and high's ten times that.
fn default_budget(effort: Effort) -> u64 {
    match effort {
        Effort::Low => 5_000_000,
        Effort::Normal => 50_000_000,
        Effort::High => 500_000_000,
    }
}

/// The default budget for an instance of `buffers`: the effort's whole budget from
/// [`FULL_BUDGET_FROM`] buffers (where `auto` runs it), a share in proportion below, so that on a
/// small instance whose optimum is above its bound the search does not spend the budget of a trace
/// of thousands.
fn scaled_budget(effort: Effort, buffers: usize) -> u64 {
    let full = default_budget(effort);
    let share = u128::from(full) * buffers.min(FULL_BUDGET_FROM) as u128 / FULL_BUDGET_FROM as u128;
    (share as u64).max(full / 1_000)
}

/// See [`scaled_budget`].
const FULL_BUDGET_FROM: usize = 4_096;

/// The most buffers one move frees.
const MOST_FREE: u64 = 150;
/// Moves without progress before the target is raised halfway back to the makespan.
const PATIENCE: u64 = 300;

pub(crate) struct Lns;

impl Solver for Lns {
    fn name(&self) -> &str {
        "lns"
    }

    fn description(&self) -> String {
        "large-neighbourhood search: frees the buffers around the ones above a target and puts them back lower, \
         move after move, on plans of any size"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_capacity().with_randomised().with_warm_start().with_windows()
    }

    fn parameters(&self) -> Vec<Parameter> {
        vec![
            Parameter::at_least(
                "budget",
                default_budget(Effort::Normal),
                0,
                "buffers looked at over the whole run (default by effort: 5e6 low, 5e7 normal, 5e8 high, in proportion below 4,096 buffers; none with a time limit)",
            ),
            Parameter::int("most", MOST_FREE, 1, 100_000, "the most buffers one move frees"),
            Parameter::at_least("patience", PATIENCE, 1, "moves without progress before the target is raised"),
        ]
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let deadline = options.deadline();
        let params = &options.params;
        params.check(&self.parameters())?;
        // With a time limit the caller asked for time, not for a budget (as the other searches).
        let default =
            if options.time_limit.is_some() { u64::MAX } else { scaled_budget(options.effort, problem.len()) };
        let budget: u64 = params.get_or("budget", default)?;
        let most = params.get_or::<u64>("most", MOST_FREE)? as usize;
        let patience: u64 = params.get_or("patience", PATIENCE)?;
        let start = given_or_quick_pass(problem, options)?;
        let capacity = options.capacity;
        let mut search = Search::new(problem, start.offsets.clone(), options.seed);
        let bound = problem.lower_bound();
        let mut step = (search.makespan().saturating_sub(bound) / 4).max(1);
        let mut target = match capacity {
            Some(capacity) => capacity,
            None => search.makespan().saturating_sub(step),
        };
        search.aim(target);
        let mut idle = 0u64;
        let mut reported = search.makespan();
        loop {
            let makespan = search.makespan();
            if capacity.is_some_and(|c| makespan <= c) || makespan <= bound || search.work >= budget {
                break;
            }
            // A time limit or a cancel: `stop_reason` below says which.
            if deadline.expired().is_some() {
                break;
            }
            if capacity.is_none() {
                if makespan <= target {
                    // Met: aim further, twice as far as the last step.
                    step = step.saturating_mul(2).min(makespan - bound).max(1);
                    target = makespan - step;
                    search.aim(target);
                    idle = 0;
                } else if idle >= patience {
                    // Stuck: aim nearer (halfway back), down to one byte below the makespan.
                    step = (step / 2).max(1);
                    target = makespan - step.min(makespan - bound);
                    search.aim(target);
                    idle = 0;
                }
            }
            if search.mv(most) {
                idle = 0;
            } else {
                idle += 1;
            }
            if search.makespan() < reported {
                reported = search.makespan();
                options.report(Progress {
                    solver: self.name().into(),
                    best_makespan: Some(reported),
                    lower_bound: bound,
                    nodes: search.moves,
                });
            }
        }
        let offsets = search.offsets;
        let mut order: Vec<usize> = (0..problem.len()).collect();
        order.sort_unstable_by_key(|&i| (offsets[i], problem.buffers()[i].start));
        let plan = Plan::new(problem, offsets, order);
        let otherwise = match capacity {
            Some(capacity) if plan.makespan <= capacity => Stopped::Fits,
            _ if search.work >= budget => Stopped::Budget,
            _ => Stopped::Completed,
        };
        let stopped = stop_reason(&deadline, otherwise);
        let mut outcome = Outcome::new(self.name(), problem, capacity, Some(plan), 0, stopped);
        let mut stats = Stats::new();
        stats.insert("start_makespan".into(), start.makespan.into());
        stats.insert("moves".into(), search.moves.into());
        stats.insert("kept".into(), search.kept.into());
        stats.insert("lowered".into(), search.lowered.into());
        stats.insert("work".into(), search.work.into());
        stats.insert("search".into(), StatValue::Text("ruin and recreate around the buffers above a target".into()));
        outcome.stats = stats;
        Ok(outcome)
    }
}

/// The orders in which a move puts its buffers back.
#[derive(Clone, Copy, Debug)]
enum Refill {
    /// Bottom to top as they were: the move compacts them downwards.
    Gravity,
    /// Longest-lived first, then larger first: the long ones set the layout the short ones fill.
    Lifetime,
    /// Larger first.
    Size,
    /// At random.
    Shuffle,
    /// By start, as an allocator would meet them.
    Start,
}

const REFILLS: [Refill; 5] = [Refill::Gravity, Refill::Lifetime, Refill::Size, Refill::Shuffle, Refill::Start];

/// The plan being improved, with what a move needs to judge itself.
struct Search<'p> {
    problem: &'p Problem,
    timeline: Timeline,
    load: neighbourhood::Load,
    offsets: Vec<u64>,
    /// Every buffer's top, with its index: the makespan is the last, those above a target the tail.
    tops: BTreeSet<(u64, usize)>,
    target: u64,
    /// Bytes × time above the target, summed over buffers.
    excess: u128,
    rng: ChaCha8Rng,
    absent: Vec<bool>,
    scratch: recreate::Scratch,
    alive: Vec<usize>,
    free: Vec<usize>,
    old: Vec<(usize, u64)>,
    above: Vec<usize>,
    work: u64,
    moves: u64,
    kept: u64,
    lowered: u64,
}

impl<'p> Search<'p> {
    fn new(problem: &'p Problem, offsets: Vec<u64>, seed: u64) -> Self {
        let buffers = problem.buffers();
        let tops = (0..buffers.len()).map(|i| (offsets[i].saturating_add(buffers[i].size), i)).collect();
        Search {
            problem,
            timeline: Timeline::new(problem),
            load: neighbourhood::Load::new(problem),
            offsets,
            tops,
            target: u64::MAX,
            excess: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            absent: vec![false; buffers.len()],
            scratch: recreate::Scratch::default(),
            alive: Vec::new(),
            free: Vec::new(),
            old: Vec::new(),
            above: Vec::new(),
            work: 0,
            moves: 0,
            kept: 0,
            lowered: 0,
        }
    }

    fn makespan(&self) -> u64 {
        self.tops.last().map_or(0, |&(top, _)| top)
    }

    /// Bytes × time of buffer `i` above the target, at `offset`.
    fn excess_of(&self, i: usize, offset: u64) -> u128 {
        let b = &self.problem.buffers()[i];
        let top = offset.saturating_add(b.size);
        let above = top.saturating_sub(offset.max(self.target));
        above as u128 * b.lifetime() as u128
    }

    fn aim(&mut self, target: u64) {
        self.target = target;
        let from: Vec<usize> = self.tops.range((target.saturating_add(1), 0)..).map(|&(_, i)| i).collect();
        self.excess = from.iter().map(|&i| self.excess_of(i, self.offsets[i])).sum();
    }

    /// One move: frees a neighbourhood around a random buffer above the target and puts it back.
    /// Keeps the result when the makespan did not rise and the excess did not grow; returns
    /// whether either fell.
    fn mv(&mut self, most: usize) -> bool {
        let buffers = self.problem.buffers();
        self.moves += 1;
        self.above.clear();
        self.above.extend(self.tops.range((self.target.saturating_add(1), 0)..).map(|&(_, i)| i));
        self.above.retain(|&i| buffers[i].pinned.is_none());
        if self.above.is_empty() {
            return false;
        }
        let seed = self.above[self.rng.random_range(0..self.above.len())];
        let shape = self.rng.random_range(0..4u32);
        // Sizes spread evenly on a log scale, from a pair to `most`.
        let wanted = (2f64 * (most.max(2) as f64 / 2.0).powf(self.rng.random_range(0.0..=1.0))).round() as usize;
        let mut free = std::mem::take(&mut self.free);
        let around = Around { problem: self.problem, timeline: &self.timeline, offsets: &self.offsets, seed, wanted };
        match shape {
            0 | 1 => around.window(&self.load, &mut self.rng, &mut self.alive, &mut free),
            2 => around.choose(Span::Life, &mut self.rng, &mut self.alive, &mut free),
            _ => around.choose(Span::Moment, &mut self.rng, &mut self.alive, &mut free),
        }
        let before_makespan = self.makespan();
        let before_excess: u128 = free.iter().map(|&i| self.excess_of(i, self.offsets[i])).sum();
        self.old.clear();
        self.old.extend(free.iter().map(|&i| (i, self.offsets[i])));
        for &i in &free {
            self.tops.remove(&(self.offsets[i].saturating_add(buffers[i].size), i));
            self.absent[i] = true;
        }
        // A freed buffer keeps its offset until it is put back (the gravity order reads it).
        match REFILLS[self.rng.random_range(0..REFILLS.len())] {
            Refill::Gravity => free.sort_unstable_by_key(|&i| (self.offsets[i], i)),
            Refill::Lifetime => {
                free.sort_unstable_by_key(|&i| (std::cmp::Reverse((buffers[i].lifetime(), buffers[i].size)), i))
            }
            Refill::Size => free.sort_unstable_by_key(|&i| (std::cmp::Reverse(buffers[i].size), i)),
            Refill::Shuffle => free.shuffle(&mut self.rng),
            Refill::Start => free.sort_unstable_by_key(|&i| (buffers[i].start, std::cmp::Reverse(buffers[i].size), i)),
        }
        let mut placed = 0;
        for &i in &free {
            let Some(offset) = recreate::lowest_fit(
                self.problem,
                &self.timeline,
                &self.offsets,
                &self.absent,
                i,
                &mut self.scratch,
                &mut self.work,
            ) else {
                break;
            };
            self.offsets[i] = offset;
            self.absent[i] = false;
            self.tops.insert((offset.saturating_add(buffers[i].size), i));
            placed += 1;
        }
        let complete = placed == free.len();
        let after_excess: u128 = free.iter().map(|&i| self.excess_of(i, self.offsets[i])).sum();
        let keep = complete
            && self.makespan() <= before_makespan
            && (self.makespan() < before_makespan || after_excess <= before_excess);
        let progress = keep && (self.makespan() < before_makespan || after_excess < before_excess);
        if keep {
            self.kept += 1;
            self.excess = self.excess - before_excess + after_excess;
            if self.makespan() < before_makespan {
                self.lowered += 1;
            }
        } else {
            // Put everything back where it was.
            for &i in &free {
                if !self.absent[i] {
                    self.tops.remove(&(self.offsets[i].saturating_add(buffers[i].size), i));
                }
            }
            for &(i, offset) in &self.old {
                self.offsets[i] = offset;
                self.absent[i] = false;
                self.tops.insert((offset.saturating_add(buffers[i].size), i));
            }
        }
        self.free = free;
        progress
    }
}
