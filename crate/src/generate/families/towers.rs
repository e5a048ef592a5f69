//! Long-lived towers and short-lived sand: the height is split into a few bands; along time each
//! band alternates between a tower (one buffer the band's height, alive a long while) and sand
//! (the band's space cut into many small, short-lived buffers). Then sand away from one chosen
//! moment is thinned out at random: that moment stays full, and so do the stretches where no sand
//! happened to be taken (about a tenth of the sections on 600 to 2,000 buffers); everywhere else a
//! planner has room it can waste (the other families are full at every time).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{HEIGHT_UNITS, Rect, guillotine_fill, span_for, top_up};

/// The share of the sand away from the full moment that is taken away (one in this many).
const THINNED: u64 = 4;

pub(super) fn cut(rng: &mut ChaCha8Rng, wanted: usize) -> Vec<Rect> {
    let span = span_for(wanted);
    let whole = Rect::new(0, span, 0, HEIGHT_UNITS);
    let bands = (wanted / 100).clamp(1, 6) as u64;
    // The bands' edges, then each band's segments along time: (rect, is_tower).
    let mut edges: Vec<u64> =
        (1..bands).map(|k| k * HEIGHT_UNITS / bands + rng.random_range(0..HEIGHT_UNITS / bands / 2)).collect();
    edges.insert(0, 0);
    edges.push(HEIGHT_UNITS);
    edges.dedup();
    let mut segments: Vec<(Rect, bool)> = Vec::new();
    for band in edges.windows(2) {
        let mut t = 0;
        let mut tower = rng.random_range(0..2) == 0;
        while t < span {
            let length =
                if tower { rng.random_range(span / 4..=span / 2) } else { rng.random_range(span / 8..=span / 4) };
            let end = (t + length.max(1)).min(span);
            segments.push((Rect::new(t, end, band[0], band[1]), tower));
            t = end;
            tower = !tower;
        }
    }
    let towers = segments.iter().filter(|(_, tower)| *tower).count();
    let sand_regions: Vec<Rect> = segments.iter().filter(|(_, tower)| !*tower).map(|&(r, _)| r).collect();
    if segments.len() > wanted || towers + sand_regions.len() * 2 > wanted {
        // Too few buffers for towers and sand: plain cuts.
        return guillotine_fill(rng, whole, wanted, span);
    }
    let mut rects: Vec<Rect> = segments.iter().filter(|(_, tower)| *tower).map(|&(r, _)| r).collect();
    // The sand's count shared out by area, at least one a region.
    let sand = (wanted - towers) as u64;
    let area: u64 = sand_regions.iter().map(Rect::area).sum();
    let mut given = 0u64;
    for (k, region) in sand_regions.iter().enumerate() {
        let count = if k + 1 == sand_regions.len() {
            sand - given
        } else {
            (sand * region.area() / area.max(1)).clamp(1, sand - given - (sand_regions.len() - k - 1) as u64)
        };
        given += count;
        // Short-lived: pieces count as wide early, so they are mostly cut across time.
        rects.extend(guillotine_fill(rng, *region, count as usize, (span / 16).max(1)));
    }
    // Thin the sand away from the full moment.
    let full = rng.random_range(0..span);
    let is_tower = |r: &Rect| segments.iter().any(|(s, tower)| *tower && s == r);
    rects.retain(|r| (r.t0 <= full && full < r.t1) || is_tower(r) || rng.random_range(0..THINNED) != 0);
    top_up(rng, &mut rects, wanted, span);
    rects.sort_unstable_by_key(|r| (r.t0, r.y0));
    rects
}
