//! Zant's buffer-reuse planner (`shared/papers/zant-static-memory-planning-heuristics.md`,
//! `shared/docs/peers.md` A6) and the variants its note lists as open items: best and worst fit,
//! lookahead, a pool prepopulated with the peak buffers, and buddy allocation.
//!
//! The model is "shared objects": buffers walked in start order (ties: input index) reuse a free
//! object of at least their size or open a new one; objects never grow. The used objects are then
//! stacked in creation order, each aligned for the buffers it held, and every buffer takes its
//! object's offset. Pinned buffers stay where they are pinned and the objects are stacked above the
//! highest pinned top, so every plan is valid. Each step is O(log n): the whole planner is
//! O(n log n).

mod buddy;
mod free;
mod pool;
#[cfg(test)]
mod tests;

pub(crate) use free::Reuse;
use pool::{Pool, Rules};

use super::{Capabilities, Solver, finish, stop_reason};
use crate::model::{Buffer, Outcome, Problem, Stats};
use crate::options::{Halt, SolveOptions};

/// How many later buffers `zant-lookahead` sizes a new object for.
pub(crate) const LOOKAHEAD: usize = 8;

/// One of Zant's planners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// The note's base algorithm: the first free object in creation order that is large enough.
    First,
    /// The smallest free object that is large enough (Zant v1's default).
    Best,
    /// The largest free object that is large enough.
    Worst,
    /// Best fit; a new object is sized for the largest of its buffer and the next [`LOOKAHEAD`]
    /// buffers in start order that start at or after its buffer's end, i.e. the next buffers that
    /// could reuse it (the note's "lookahead ... a buffer that has a higher likelihood of being
    /// re-used").
    Lookahead,
    /// Best fit over a pool that starts with one free object per buffer alive at the peak (the
    /// first time of max load), sized like it; objects nobody takes are dropped before stacking.
    Prepopulated,
    /// Buddy allocation over power-of-two blocks that split and merge (module `buddy`).
    Buddy,
}

impl Variant {
    pub(crate) const ALL: [Variant; 6] =
        [Variant::First, Variant::Best, Variant::Worst, Variant::Lookahead, Variant::Prepopulated, Variant::Buddy];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Variant::First => "zant",
            Variant::Best => "zant-best",
            Variant::Worst => "zant-worst",
            Variant::Lookahead => "zant-lookahead",
            Variant::Prepopulated => "zant-prepopulated",
            Variant::Buddy => "zant-buddy",
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Variant::First => "Zant's buffer reuse: start order, first free object (in creation order) large enough",
            Variant::Best => "Zant's buffer reuse with best fit: the smallest free object large enough (Zant v1)",
            Variant::Worst => "Zant's buffer reuse with worst fit: the largest free object large enough",
            Variant::Lookahead => {
                "Zant's buffer reuse, best fit; a new object is sized for the next 8 buffers that could reuse it"
            }
            Variant::Prepopulated => {
                "Zant's buffer reuse, best fit over a pool prepopulated with the peak buffers' sizes"
            }
            Variant::Buddy => "buddy allocation in start order: power-of-two blocks that split and merge",
        }
    }

    fn rules(self) -> Rules {
        let reuse = match self {
            Variant::First => Reuse::First,
            Variant::Worst => Reuse::Worst,
            Variant::Best | Variant::Lookahead | Variant::Prepopulated | Variant::Buddy => Reuse::Best,
        };
        let lookahead = if self == Variant::Lookahead { LOOKAHEAD } else { 0 };
        Rules { reuse, lookahead }
    }
}

/// A Zant planner as a [`Solver`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Zant {
    variant: Variant,
}

impl Zant {
    pub(crate) const fn new(variant: Variant) -> Self {
        Zant { variant }
    }
}

/// Every variant, in the order listings show them.
pub(crate) fn presets() -> Vec<Box<dyn Solver>> {
    Variant::ALL.into_iter().map(|v| Box::new(Zant::new(v)) as Box<dyn Solver>).collect()
}

impl Solver for Zant {
    fn name(&self) -> &str {
        self.variant.name()
    }

    fn description(&self) -> String {
        self.variant.describe().to_string()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::planner()
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let deadline = options.deadline();
        let buffers = problem.buffers();
        let mut by_start: Vec<usize> = (0..buffers.len()).collect();
        by_start.sort_unstable_by_key(|&i| (buffers[i].start, i));
        let (pinned, walk): (Vec<usize>, Vec<usize>) = by_start.into_iter().partition(|&i| buffers[i].pinned.is_some());
        check_pinned(buffers, &pinned)?;
        let mut offsets = vec![0u64; buffers.len()];
        let mut base = 0u64;
        for &i in &pinned {
            let offset = buffers[i].pinned.unwrap_or(0); // partitioned on being pinned
            offsets[i] = offset;
            base = base.max(offset + buffers[i].size); // no overflow: checked by Problem::new
        }
        let mut stats = Stats::new();
        if self.variant == Variant::Buddy {
            let plan = buddy::plan(buffers, &walk, base, &deadline)?;
            for (step, &i) in walk.iter().enumerate() {
                offsets[i] = plan.offsets[step];
            }
            let arena_size = plan.top_blocks.iter().fold(0u64, |sum, b| sum.saturating_add(b.size()));
            pool_stats(&mut stats, walk.len(), plan.top_blocks.len(), plan.reused, arena_size);
            stats.insert("blocks".into(), plan.top_blocks.len().into());
            stats.insert("splits".into(), plan.splits.into());
            stats.insert("merges".into(), plan.merges.into());
        } else {
            let prepopulate =
                if self.variant == Variant::Prepopulated { pool::peak_sizes(buffers, &walk) } else { Vec::new() };
            let pool = Pool::build(buffers, &walk, &prepopulate, self.variant.rules(), &deadline)?;
            let object_offsets = pool.stack(buffers, base)?;
            for (step, &i) in walk.iter().enumerate() {
                offsets[i] = object_offsets[pool.object_of[step]];
            }
            let used = pool.used().count();
            pool_stats(&mut stats, walk.len(), used, walk.len() - used, pool.size());
        }
        let mut placement_order = pinned;
        placement_order.extend_from_slice(&walk);
        let mut outcome = finish(self.name(), problem, options, offsets, placement_order, stats);
        // A cancel (or time limit) that lands after the pool is built, while its objects are laid
        // out, still says so: the plan is the one finished, and the run was asked to stop.
        outcome.stopped = stop_reason(&deadline, outcome.stopped);
        Ok(outcome)
    }
}

/// The note's metrics: how many objects, how often each is recycled, and their total size.
/// `reused` counts the buffers that took an object (or block) an earlier buffer had opened.
fn pool_stats(stats: &mut Stats, buffers: usize, objects: usize, reused: usize, pool_size: u64) {
    let reuse_rate = if objects == 0 { 0.0 } else { buffers as f64 / objects as f64 };
    stats.insert("pool_buffers".into(), objects.into());
    stats.insert("reuse_rate".into(), reuse_rate.into());
    stats.insert("reused".into(), reused.into());
    stats.insert("pool_size".into(), pool_size.into());
}

/// Refuses pinned buffers that overlap each other: no plan can keep them all. `pinned` is sorted
/// by start. A sweep keeps the live pinned buffers by offset and checks each newcomer against its
/// neighbours in address order.
fn check_pinned(buffers: &[Buffer], pinned: &[usize]) -> Result<(), Halt> {
    use std::collections::BTreeMap;
    // (time, is_start, index): at one time ends (false) come first, as `[start, end)` asks.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * pinned.len());
    for &i in pinned {
        events.push((buffers[i].start, true, i));
        events.push((buffers[i].end, false, i));
    }
    events.sort_unstable();
    let mut alive: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    for (_, is_start, i) in events {
        let offset = buffers[i].pinned.unwrap_or(0); // only pinned buffers are swept
        if !is_start {
            alive.remove(&offset);
            continue;
        }
        let top = offset + buffers[i].size; // checked by Problem::new
        let below = alive.range(..=offset).next_back().filter(|&(_, &(other_top, _))| other_top > offset);
        let above = alive.range(offset..).next().filter(|&(&other_offset, _)| other_offset < top);
        if let Some((_, &(_, other))) = below.or(above) {
            return Err(Halt::Infeasible(format!(
                "pinned buffers {} and {} overlap",
                buffers[other].id, buffers[i].id
            )));
        }
        alive.insert(offset, (top, i));
    }
    Ok(())
}

/// The error for a buffer whose placement would pass u64.
fn overflow(buffer: &Buffer, offset: u64) -> Halt {
    Halt::Overflow { buffer: buffer.id.to_string(), offset, size: buffer.size }
}
