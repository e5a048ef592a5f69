//! Which buffers a repair step frees, and the small problem that places them again: the freed
//! buffers, with every other buffer alive beside them pinned where the plan has it.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::model::{Buffer, Problem};

/// The buffers of a problem sorted by start, to find those alive in a window without a scan of
/// all of them.
pub struct Timeline {
    by_start: Vec<usize>,
    /// The longest lifetime: a buffer alive in `[low, high)` starts at or after `low − longest`.
    longest: u64,
}

impl Timeline {
    pub fn new(problem: &Problem) -> Self {
        let buffers = problem.buffers();
        let mut by_start: Vec<usize> = (0..buffers.len()).collect();
        by_start.sort_unstable_by_key(|&i| (buffers[i].start, i));
        let longest = buffers.iter().map(|b| b.end - b.start).max().unwrap_or(0);
        Timeline { by_start, longest }
    }

    /// Every buffer whose lifetime meets `[low, high)`, in start order.
    pub fn alive_in(&self, problem: &Problem, low: u64, high: u64, into: &mut Vec<usize>) {
        let buffers = problem.buffers();
        into.clear();
        let from = low.saturating_sub(self.longest);
        let first = self.by_start.partition_point(|&i| buffers[i].start < from);
        for &i in &self.by_start[first..] {
            let b = &buffers[i];
            if b.start >= high {
                break;
            }
            if b.end > low {
                into.push(i);
            }
        }
    }
}

/// A neighbourhood: the buffers to place again and the small problem that does it.
pub struct Neighbourhood {
    /// Indices in the whole problem of the freed buffers; the small problem's first buffers.
    pub free: Vec<usize>,
    pub problem: Problem,
}

/// The two shapes of neighbourhood. A window frees everything alive in a stretch of time around
/// the buffer; a band frees, while the buffer is alive (and a little around), only the buffers
/// whose addresses meet a band from the buffer down: a long-lived buffer has too many neighbours
/// in time for a window, and a band still gives it room below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Window,
    Band,
}

/// Frees the buffers of a neighbourhood of `shape` around `seed` that holds about `wanted` of them,
/// plus every buffer above `target` that is alive beside one of them (it could not stay where it
/// is), and pins the rest of their neighbours. `None` when that is more than `most` buffers or a
/// pinned buffer of the problem itself sits above `target` beside them (no neighbourhood helps).
#[allow(clippy::too_many_arguments)]
pub fn around(
    problem: &Problem,
    timeline: &Timeline,
    offsets: &[u64],
    target: u64,
    seed: usize,
    shape: Shape,
    wanted: usize,
    most: usize,
    rng: &mut ChaCha8Rng,
) -> Option<Neighbourhood> {
    let buffers = problem.buffers();
    let above = |i: usize| offsets[i] + buffers[i].size > target;
    let centre = &buffers[seed];
    let mut scratch = Vec::new();
    match shape {
        Shape::Window => {
            // How much of the widening goes to the left: a random share, so that repeated tries
            // around the same buffer see different windows.
            let left_share = rng.random_range(0.0..=1.0f64);
            let window = |width: u64| {
                let left = (width as f64 * left_share) as u64;
                (centre.start.saturating_sub(left), centre.end.saturating_add(width - left.min(width)))
            };
            // The narrowest window (by binary search on its width) that holds `wanted` buffers.
            let (mut narrow, mut wide) = (0u64, timeline_span(problem).max(1));
            while narrow < wide {
                let width = narrow + (wide - narrow) / 2;
                let (low, high) = window(width);
                timeline.alive_in(problem, low, high, &mut scratch);
                if scratch.len() >= wanted {
                    wide = width;
                } else {
                    narrow = width + 1;
                }
            }
            let (low, high) = window(narrow);
            timeline.alive_in(problem, low, high, &mut scratch);
        }
        Shape::Band => {
            let length = centre.end - centre.start;
            let low = centre.start.saturating_sub(rng.random_range(0..=length / 2));
            let high = centre.end.saturating_add(rng.random_range(0..=length / 2));
            let mut alive = Vec::new();
            timeline.alive_in(problem, low, high, &mut alive);
            let top = offsets[seed] + centre.size;
            let in_band = |depth: u64, i: usize| {
                let floor = offsets[seed].saturating_sub(depth);
                offsets[i] < top && offsets[i] + buffers[i].size > floor
            };
            // The shallowest band (by binary search on its depth) that holds `wanted` buffers.
            let (mut shallow, mut deep) = (0u64, offsets[seed]);
            while shallow < deep {
                let depth = shallow + (deep - shallow) / 2;
                if alive.iter().filter(|&&i| in_band(depth, i)).count() >= wanted {
                    deep = depth;
                } else {
                    shallow = depth + 1;
                }
            }
            scratch = alive.into_iter().filter(|&i| in_band(shallow, i)).collect();
        }
    }
    let mut free: Vec<usize> = scratch.iter().copied().filter(|&i| buffers[i].pinned.is_none()).collect();
    let mut is_free = vec![false; buffers.len()];
    for &i in &free {
        is_free[i] = true;
    }
    if !is_free[seed] {
        return None;
    }
    // Widen to every buffer above the target that is alive beside a freed one, until none is left.
    let mut pinned: Vec<usize>;
    loop {
        if free.len() > most {
            return None;
        }
        let low = free.iter().map(|&i| buffers[i].start).min().unwrap_or(0);
        let high = free.iter().map(|&i| buffers[i].end).max().unwrap_or(0);
        timeline.alive_in(problem, low, high, &mut scratch);
        pinned = scratch
            .iter()
            .copied()
            .filter(|&i| !is_free[i] && free.iter().any(|&f| buffers[f].alive_together(&buffers[i])))
            .collect();
        let blocking: Vec<usize> = pinned.iter().copied().filter(|&i| above(i)).collect();
        if blocking.is_empty() {
            break;
        }
        for i in blocking {
            if buffers[i].pinned.is_some() {
                return None;
            }
            is_free[i] = true;
            free.push(i);
        }
    }
    let list: Vec<Buffer> = free
        .iter()
        .map(|&i| buffers[i].clone())
        .chain(pinned.iter().map(|&i| buffers[i].clone().pinned_at(offsets[i])))
        .collect();
    // The pieces of a valid problem with a valid plan make a valid problem.
    let problem = Problem::new(list, None).ok()?;
    Some(Neighbourhood { free, problem })
}

/// From the first start to the last end.
fn timeline_span(problem: &Problem) -> u64 {
    let buffers = problem.buffers();
    let low = buffers.iter().map(|b| b.start).min().unwrap_or(0);
    let high = buffers.iter().map(|b| b.end).max().unwrap_or(0);
    high - low
}
