//! Which buffers a move frees. On real traces the bytes above a target belong to a few buffers
//! (often long-lived ones stacked at the top) and what keeps them up is whatever sits under them
//! somewhere in their lifetime. A neighbourhood is a stretch of time around a buffer above the
//! target and the highest buffers alive in it: the buffer itself, the ones beside it at the top,
//! and, the more are freed, the deeper the band under it reaches.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::index::Timeline;
use crate::model::Problem;

/// The stretch of time a move looks at around `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Span {
    /// The seed's lifetime, widened at each end by up to half of it: all that holds it up.
    Life,
    /// A short stretch at a random time of the seed's life: fragmentation is local in time, and a
    /// narrow stretch frees buffers deeper under the seed for the same count.
    Moment,
}

/// The load (bytes alive) over time, to find the heavy moments of a buffer's life.
pub(super) struct Load {
    /// Times where the load changes, with the load from there on.
    steps: Vec<(u64, u64)>,
}

impl Load {
    pub(super) fn new(problem: &Problem) -> Self {
        let mut events: Vec<(u64, i128)> = Vec::with_capacity(2 * problem.len());
        for b in problem.buffers() {
            events.push((b.start, b.size as i128));
            events.push((b.end, -(b.size as i128)));
        }
        events.sort_unstable();
        let mut steps: Vec<(u64, u64)> = Vec::new();
        let mut load = 0i128;
        for (time, change) in events {
            load += change;
            match steps.last_mut() {
                Some(last) if last.0 == time => last.1 = load.max(0) as u64,
                _ => steps.push((time, load.max(0) as u64)),
            }
        }
        Load { steps }
    }

    /// The time of the highest load in `[low, high)` (the earliest of equals).
    pub(super) fn heaviest(&self, low: u64, high: u64) -> u64 {
        let first = self.steps.partition_point(|&(t, _)| t <= low);
        let mut best = (self.at(low), low);
        for &(t, l) in self.steps[first..].iter().take_while(|&&(t, _)| t < high) {
            if l > best.0 {
                best = (l, t);
            }
        }
        best.1
    }

    /// The load at `time`.
    pub(super) fn at(&self, time: u64) -> u64 {
        let k = self.steps.partition_point(|&(t, _)| t <= time);
        if k == 0 { 0 } else { self.steps[k - 1].1 }
    }
}

/// What a move is built around: the plan so far, the buffer above the target it starts from
/// (`seed`) and about how many buffers it frees. The two neighbourhoods below read it alike.
pub(super) struct Around<'a> {
    pub problem: &'a Problem,
    pub timeline: &'a Timeline,
    pub offsets: &'a [u64],
    pub seed: usize,
    pub wanted: usize,
}

impl Around<'_> {
    /// A time window around a heavy moment of `seed`'s life (the heaviest, or the heaviest of a few
    /// picked at random): frees every buffer that starts or ends inside it, whatever its address, with
    /// `seed` and some of the highest buffers alive across it; the other buffers alive across the
    /// whole window stay.
    /// The window widens (by binary search) until about `wanted` starts and ends fall inside it.
    /// Writes the freed buffers to `free`, seed first.
    pub(super) fn window(&self, load: &Load, rng: &mut ChaCha8Rng, alive: &mut Vec<usize>, free: &mut Vec<usize>) {
        let Around { problem, timeline, offsets, seed, wanted } = *self;
        let buffers = problem.buffers();
        let at = self.moment(load, rng);
        let (low, high) = self.stretch(at, rng);
        timeline.alive_in(problem, low, high, alive);
        alive.retain(|&i| i != seed && buffers[i].pinned.is_none());
        free.clear();
        free.push(seed);
        free.extend(alive.iter().copied().filter(|&i| buffers[i].start >= low || buffers[i].end <= high));
        // Up to as many again of the highest that cross the edges: what sits on top of the window
        // (often long-lived buffers stacked there, which can come down only once the window below
        // them is packed tighter, in the same move).
        let top = |i: usize| offsets[i].saturating_add(buffers[i].size);
        alive.retain(|&i| !(buffers[i].start >= low || buffers[i].end <= high));
        let extra = rng.random_range(0..=wanted).min(alive.len());
        if extra > 0 && extra < alive.len() {
            alive.select_nth_unstable_by_key(extra - 1, |&i| std::cmp::Reverse((top(i), i)));
        }
        free.extend_from_slice(&alive[..extra]);
    }

    /// A heavy moment of `seed`'s life: the heaviest, or the heaviest of a few picked at random.
    pub(super) fn moment(&self, load: &Load, rng: &mut ChaCha8Rng) -> u64 {
        let centre = &self.problem.buffers()[self.seed];
        let mut at = centre.start;
        if rng.random_bool(0.5) {
            at = load.heaviest(centre.start, centre.end);
        } else {
            for _ in 0..8 {
                let time = rng.random_range(centre.start..centre.end.max(centre.start + 1));
                if load.at(time) > load.at(at) {
                    at = time;
                }
            }
        }
        at
    }

    /// A stretch of time `[low, high)` holding `at`, at a random place in it, in which about
    /// `wanted` buffers start or end ([`Timeline::stretch`]).
    pub(super) fn stretch(&self, at: u64, rng: &mut ChaCha8Rng) -> (u64, u64) {
        self.timeline.stretch(at, self.wanted, rng.random_range(0.0..=1.0f64))
    }

    /// Frees `seed` and the `wanted − 1` highest buffers (by their tops) alive in a stretch of time of
    /// `span` around it, skipping pinned ones. Writes their indices to `free`, seed first.
    pub(super) fn choose(&self, span: Span, rng: &mut ChaCha8Rng, alive: &mut Vec<usize>, free: &mut Vec<usize>) {
        let Around { problem, timeline, offsets, seed, wanted } = *self;
        let buffers = problem.buffers();
        let centre = &buffers[seed];
        let length = centre.end - centre.start;
        let (low, high) = match span {
            Span::Life => (
                centre.start.saturating_sub(rng.random_range(0..=length / 2)),
                centre.end.saturating_add(rng.random_range(0..=length / 2)),
            ),
            Span::Moment => {
                let at = rng.random_range(centre.start..centre.end.max(centre.start + 1));
                let half = rng.random_range(0..=(length / 16).max(1));
                (at.saturating_sub(half), at.saturating_add(half + 1))
            }
        };
        timeline.alive_in(problem, low, high, alive);
        alive.retain(|&i| i != seed && buffers[i].pinned.is_none());
        let top = |i: usize| offsets[i].saturating_add(buffers[i].size);
        let take = wanted.saturating_sub(1).min(alive.len());
        if take < alive.len() && take > 0 {
            alive.select_nth_unstable_by_key(take - 1, |&i| std::cmp::Reverse((top(i), i)));
        }
        free.clear();
        free.push(seed);
        free.extend_from_slice(&alive[..take]);
    }
}
