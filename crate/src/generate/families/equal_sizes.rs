//! Many equal sizes: the height is split into bands of one size, and a sweep over time turns
//! them over: at each step a run of one to three buffers that sit on top of each other ends, and
//! their bands are regrouped into buffers one, two or three bands high that start there. With
//! only three sizes, a planner cannot tell buffers apart by size: any buffer of the right size
//! fits a hole, but only some of them leave the rest placeable.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{HEIGHT_UNITS, Rect};

/// The bands' height in units (the height holds 32 of them).
const BAND: u64 = HEIGHT_UNITS / 32;

pub(super) fn cut(rng: &mut ChaCha8Rng, wanted: usize) -> Vec<Rect> {
    // The live buffers bottom to top, as (low, high, start) in units.
    let mut live: Vec<(u64, u64, u64)> = Vec::new();
    let mut low = 0;
    while low < HEIGHT_UNITS && live.len() + 1 < wanted {
        let high = (low + BAND * rng.random_range(1..=2u64)).min(HEIGHT_UNITS);
        live.push((low, high, 0));
        low = high;
    }
    if low < HEIGHT_UNITS {
        live.push((low, HEIGHT_UNITS, 0));
    }
    let mut made = live.len();
    let mut rects = Vec::with_capacity(wanted);
    let mut time = 0;
    while made < wanted {
        time += 1;
        let run = rng.random_range(1..=3usize).min(live.len());
        let first = rng.random_range(0..=live.len() - run);
        let ending: Vec<(u64, u64, u64)> = live.drain(first..first + run).collect();
        let (low, high) = (ending[0].0, ending[run - 1].1);
        rects.extend(ending.into_iter().map(|(y0, y1, start)| Rect::new(start, time, y0, y1)));
        let new = regroup(rng, low, high, wanted - made);
        made += new.len();
        live.splice(first..first, new.into_iter().map(|(y0, y1)| (y0, y1, time)));
    }
    time += 1;
    rects.extend(live.into_iter().map(|(y0, y1, start)| Rect::new(start, time, y0, y1)));
    rects
}

/// `[low, high)` (a whole number of bands) as at most `most` buffers, each one to three bands
/// high where `most` allows (the last takes what is left).
fn regroup(rng: &mut ChaCha8Rng, low: u64, high: u64, most: usize) -> Vec<(u64, u64)> {
    let mut pieces = Vec::new();
    let mut at = low;
    while at < high {
        let top = if pieces.len() + 1 >= most { high } else { (at + BAND * rng.random_range(1..=3u64)).min(high) };
        pieces.push((at, top));
        at = top;
    }
    pieces
}
