//! TVM's Unified Static Memory Planner (USMP), its three planners as TVM defines them
//! (`src/tir/usmp/algo/greedy.cc` and `hill_climb.cc`, read as facts; memplan's own code):
//! - `tvm-greedy-by-size`, TVM's default: size descending, then conflicts, then name descending,
//!   each buffer on top of its highest placed conflict ([`greedy`]). `tvm` is its alias (it was a
//!   preset keeping the better of two greedy runs, which TVM never does);
//! - `tvm-greedy-by-conflicts`: conflicts descending, then size, then name ([`greedy`]);
//! - `tvm-hill-climb`: TVM's seeded hill climb over the greedy order ([`hill_climb`]), with its
//!   random generator (glibc's `rand_r`, [`rand_r`]), so that seed 0 reproduces TVM. Its work
//!   is bounded by a budget (TVM has none: 500 passes over a conflict graph of 10^7 entries take
//!   minutes), and an instance with more conflicting pairs than [`MAX_ENTRIES`] allows gets the
//!   climb's first plan alone.
//!
//! TVM plans a conflict graph; memplan's conflicts are lifetimes alive together, over the hull
//! (gaps are not used: the view plans hulls). Names: TVM breaks its last tie by `name_hint`, and
//! memplan by the buffer's `id`. One pool: the capacity is TVM's pool size hint. Each planner
//! honours pinned offsets (placed first, as conflicts the others go around, never moved); the
//! greedy ones only report whether the plan fits a capacity (TVM fails where the plan passes it),
//! the hill climb rejects plans above it, as TVM's does.
//!
//! Two behaviours of TVM's, checked against TVM USMP itself (`crate/tests/fixtures/tvm/usmp/`):
//! - zero-size buffers are buffers like the others: they count among a buffer's conflicts (the
//!   tie-break after size), take their place in the order, and are placed as any buffer (by the
//!   greedy planners on top of their highest placed conflict, so that a later buffer alive with
//!   one starts no lower than it; by the climb's first fit where they fit). Exported models
//!   have many (BatchNorm's empty outputs), and the plans of the other buffers change with them,
//!   so these planners ask to be given them ([`Capabilities::zero_size`]);
//! - alignment, the one deliberate difference: TVM starts a buffer where its highest conflict
//!   ends, rounded up to that conflict's alignment, not its own, so with mixed alignments its
//!   plans are misaligned. memplan rounds that offset up to the buffer's own alignment too: with
//!   one alignment for all buffers (TVM's compilers use one per pool) it changes nothing and the
//!   plans are TVM's; with mixed ones they are valid, and differ from TVM's.

mod conflicts;
mod greedy;
mod hill_climb;
mod rand_r;

pub(crate) use conflicts::{Conflicts, Graph, MAX_ENTRIES, Placed, Timeline};
pub(crate) use greedy::{Priority, place_on_top};
pub(crate) use hill_climb::{ATTEMPTS, BUDGET, Settings, climb};

use super::{Capabilities, Solver, finish, stop_reason};
use crate::model::{Buffer, Outcome, Problem, Stats, Stopped};
use crate::options::{Halt, Parameter, SolveOptions};

/// The three planners and the `tvm` alias, in the order listings show them.
pub(crate) fn presets() -> Vec<Box<dyn Solver>> {
    vec![
        Box::new(TvmGreedy::by_size("tvm")),
        Box::new(TvmGreedy::by_size("tvm-greedy-by-size")),
        Box::new(TvmGreedy::by_conflicts()),
        Box::new(HillClimb),
    ]
}

/// `tvm-greedy-by-size` (or its alias) and `tvm-greedy-by-conflicts`.
#[derive(Clone, Debug)]
pub(crate) struct TvmGreedy {
    name: &'static str,
    priority: Priority,
}

impl TvmGreedy {
    pub(crate) fn by_size(name: &'static str) -> Self {
        TvmGreedy { name, priority: Priority::Size }
    }

    pub(crate) fn by_conflicts() -> Self {
        TvmGreedy { name: "tvm-greedy-by-conflicts", priority: Priority::Conflicts }
    }
}

impl Solver for TvmGreedy {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> String {
        let what = match self.priority {
            Priority::Size => "TVM USMP's greedy_by_size (its default): size, then conflicts, then name descending",
            Priority::Conflicts => "TVM USMP's greedy_by_conflicts: conflicts, then size, then name descending",
        };
        let alias = if self.name == "tvm" { " (alias of tvm-greedy-by-size)" } else { "" };
        format!("{what}, each on top of its highest placed conflict{alias}; {DIFFERENCE}")
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_zero_size()
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let deadline = options.deadline();
        let buffers = problem.buffers();
        let mut timeline = Timeline::new(buffers);
        let mut offsets = vec![0u64; buffers.len()];
        let pinned = pin(buffers, &mut timeline, &mut offsets)?;
        let free: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
        let order = self.priority.arrange(buffers, &timeline, &free);
        place_on_top(buffers, &order, &mut timeline, &mut offsets, &deadline)?;
        let placement = pinned.into_iter().chain(order).collect();
        let mut stats = Stats::new();
        stats.insert("order".into(), format!("{:?}", self.priority).to_lowercase().into());
        Ok(finish(self.name, problem, options, offsets, placement, stats))
    }
}

/// What every preset's description says of zero-size buffers and of its one deliberate difference
/// from TVM.
const DIFFERENCE: &str = "zero-size buffers count as conflicts, as in TVM; offsets are also rounded up to each \
     buffer's own alignment (TVM rounds to the alignment of the buffer below, misaligning mixed alignments)";

/// Places the pinned buffers at their offsets in `conflicts` and `offsets`: their indices, or
/// `Infeasible` naming two that overlap.
fn pin(buffers: &[Buffer], conflicts: &mut impl Conflicts, offsets: &mut [u64]) -> Result<Vec<usize>, Halt> {
    let mut pinned: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
    pinned.sort_unstable_by_key(|&i| buffers[i].start);
    // A sweep by start over the pinned buffers still alive.
    let mut alive: Vec<usize> = Vec::new();
    for &i in &pinned {
        let b = &buffers[i];
        let at = b.pinned.unwrap_or(0); // filtered above
        alive.retain(|&j| buffers[j].end > b.start);
        // A zero-size buffer shares no byte with any other, wherever it is pinned.
        let meet = |j: usize| {
            b.size > 0 && buffers[j].size > 0 && offsets[j] < at + b.size && at < offsets[j] + buffers[j].size
        };
        if let Some(&j) = alive.iter().find(|&&j| meet(j)) {
            return Err(Halt::Infeasible(format!("pinned buffers {} and {} overlap", buffers[j].id, b.id)));
        }
        alive.push(i);
        offsets[i] = at;
        conflicts.place(i, greedy::reach(b, at));
    }
    pinned.sort_unstable();
    Ok(pinned)
}

/// `tvm-hill-climb`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HillClimb;

impl HillClimb {
    fn settings(problem: &Problem, options: &SolveOptions) -> Result<Settings, Halt> {
        options.params.check(&HillClimb.parameters())?;
        let attempts = options.params.get_or("attempts", ATTEMPTS)?;
        let desired = if options.params.get_or("stop-at-bound", true)? { problem.lower_bound() } else { 0 };
        // Seed 0 is TVM's state; a seed's high half is folded in rather than dropped.
        let seed = (options.seed ^ (options.seed >> 32)) as u32;
        let budget = options.params.get_or("budget", BUDGET)?;
        Ok(Settings { attempts, desired, hint: options.capacity, seed, budget })
    }
}

impl Solver for HillClimb {
    fn name(&self) -> &str {
        "tvm-hill-climb"
    }

    fn description(&self) -> String {
        format!(
            "TVM USMP's hill_climb: greedy by size, then seeded swaps near the peak (glibc rand_r; seed 0 is \
             TVM's), 500 attempts, keeping the last plan accepted; {DIFFERENCE}"
        )
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner().with_capacity().with_randomised().with_zero_size()
    }

    fn parameters(&self) -> Vec<Parameter> {
        vec![
            Parameter::int("attempts", ATTEMPTS, 1, 1 << 40, "plans tried (TVM's _max_attempts)"),
            Parameter::at_least(
                "budget",
                BUDGET,
                0,
                "conflict-list entries the climb may visit after its first pass (a pass visits them all once)",
            ),
            Parameter::flag(
                "stop-at-bound",
                true,
                "stop at the lower bound (TVM's memory pressure); false runs every attempt, as TVM given 0",
            ),
        ]
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let settings = HillClimb::settings(problem, options)?;
        let deadline = options.deadline();
        let buffers = problem.buffers();
        let free: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
        let entries: u64 = crate::metrics::conflicts_per_buffer(buffers).iter().sum();
        if entries > MAX_ENTRIES {
            return first_pass_only(problem, options, &free, entries);
        }
        let graph = Graph::from_lifetimes(buffers, &deadline)?;
        let mut offsets = vec![0u64; buffers.len()];
        let mut placed = Placed::new(&graph);
        pin(buffers, &mut placed, &mut offsets)?;
        let pinned: Vec<Option<u64>> = buffers.iter().map(|b| b.pinned).collect();
        let order = Priority::Size.arrange(buffers, &placed, &free);
        let climbed = climb(buffers, &graph, &pinned, order, &settings, &deadline)?;
        let mut stats = Stats::new();
        stats.insert("attempts".into(), climbed.attempts.into());
        stats.insert("accepted".into(), climbed.accepted.into());
        if let Some(best) = climbed.best_seen {
            stats.insert("best_seen".into(), best.into());
        }
        let stopped = match (climbed.halted, climbed.exhausted) {
            (Some(_), _) => stop_reason(&deadline, Stopped::Completed),
            (None, true) => Stopped::Budget,
            (None, false) => Stopped::Completed,
        };
        let mut outcome = finish(self.name(), problem, options, climbed.offsets, climbed.order, stats);
        outcome.stopped = outcome.stopped.stronger(stopped);
        Ok(outcome)
    }
}

/// The climb's first plan alone, for an instance whose conflict pairs are too many to list: TVM's
/// greedy-by-size order placed by first fit (the climb's pass, which with one alignment is a
/// first fit), by the greedy engine, which needs no list. The climb itself does not run: the
/// outcome says so, with [`Stopped::Budget`].
fn first_pass_only(problem: &Problem, options: &SolveOptions, free: &[usize], entries: u64) -> Result<Outcome, Halt> {
    use crate::solvers::greedy::{Fit, place};
    let deadline = options.deadline();
    let timeline = Timeline::new(problem.buffers());
    let order = Priority::Size.arrange(problem.buffers(), &timeline, free);
    let placement = place(problem, &order, Fit::First, &deadline)?;
    let mut stats = Stats::new();
    stats.insert("attempts".into(), 1u64.into());
    let mut outcome = finish("tvm-hill-climb", problem, options, placement.offsets, placement.order, stats);
    outcome.stopped = outcome.stopped.stronger(Stopped::Budget);
    outcome.detail = Some(format!("{}: the first plan only, the climb did not run", conflicts::too_many(entries)));
    Ok(outcome)
}

#[cfg(test)]
mod tests;
