//! Staircases: the rectangle is cut across time by boundaries that are stairs, each rising (or
//! falling) a few steps at a time from the bottom of the addresses to the top, at its own
//! address points. The buffers of one generation lie between two boundaries: an address band
//! between consecutive points of either stair, alive from the one stair to the next. So no two
//! bands turn over at the same time, and sizes change from one generation to the next without
//! matching the one before: nothing lines up for a planner to follow.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{HEIGHT_UNITS, Rect, span_for, top_up};

/// One boundary: the address points where it steps (ascending, inside `(0, HEIGHT_UNITS)`) and
/// the time of each of its stretches (one more than the points).
struct Stair {
    points: Vec<u64>,
    times: Vec<u64>,
}

impl Stair {
    /// The boundary's time at address unit `y`.
    fn at(&self, y: u64) -> u64 {
        self.times[self.points.partition_point(|&p| p <= y)]
    }

    fn flat(time: u64) -> Stair {
        Stair { points: Vec::new(), times: vec![time] }
    }
}

pub(super) fn cut(rng: &mut ChaCha8Rng, wanted: usize) -> Vec<Rect> {
    let span = span_for(wanted);
    // About √wanted bands alive at once, as the other families have.
    let alive = ((wanted as f64).sqrt() as usize).clamp(1, HEIGHT_UNITS as usize / 2);
    let mut rects = Vec::with_capacity(wanted);
    let mut lower = Stair::flat(0);
    loop {
        // Each generation holds about `alive` bands; stop when the next would overshoot.
        let steps = rng.random_range(alive / 2..=alive).max(1) - 1;
        let points = distinct_points(rng, steps);
        let mut bands: Vec<u64> = lower.points.iter().chain(&points).copied().collect();
        bands.sort_unstable();
        bands.dedup();
        let top = lower.times.iter().copied().max().unwrap_or(0);
        // The last generation ends flat and needs only the lower stair's bands: the last but one
        // left room for them (the test below, one generation earlier), so the count stays within
        // `wanted`.
        let last = rects.len() + 2 * (bands.len() + 1) > wanted;
        if last {
            bands = lower.points.clone();
        }
        let upper = if last {
            Stair::flat(top + 1)
        } else {
            // A stair from `top + gap`, rising or falling by one to three steps at each point.
            let gap = rng.random_range(1..=3u64);
            let mut times = vec![0u64; points.len() + 1];
            let mut time = top + gap;
            for t in &mut times {
                *t = time;
                time += rng.random_range(1..=3u64);
            }
            if rng.random_range(0..2) == 0 {
                times.reverse();
            }
            Stair { points, times }
        };
        let edges: Vec<u64> = std::iter::once(0).chain(bands.iter().copied()).chain([HEIGHT_UNITS]).collect();
        for band in edges.windows(2) {
            let (from, to) = (lower.at(band[0]), upper.at(band[0]));
            rects.push(Rect::new(from, to, band[0], band[1]));
        }
        lower = upper;
        if last {
            break;
        }
    }
    // The count so far is at most `wanted`: cutting pieces makes up the rest.
    top_up(rng, &mut rects, wanted, span.max(lower.times[0]));
    rects
}

/// `count` distinct address points inside `(0, HEIGHT_UNITS)`, ascending.
fn distinct_points(rng: &mut ChaCha8Rng, count: usize) -> Vec<u64> {
    let mut points = Vec::with_capacity(count);
    while points.len() < count.min(HEIGHT_UNITS as usize - 1) {
        let p = rng.random_range(1..HEIGHT_UNITS);
        if !points.contains(&p) {
            points.push(p);
        }
    }
    points.sort_unstable();
    points
}
