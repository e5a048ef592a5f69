//! Pinwheels: a rectangle is cut into five pieces, four turning around a centre (the bottom-left
//! piece reaches right past the centre, the right piece up past it, and so on round), which no
//! straight cut separates; each piece is cut again the same way, largest first. A planner that
//! finds packings by undoing straight cuts (bands, time slices) finds none of these.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{HEIGHT_UNITS, Rect, span_for, split_any, top_up};

pub(super) fn cut(rng: &mut ChaCha8Rng, wanted: usize) -> Vec<Rect> {
    let span = span_for(wanted);
    let mut heap = std::collections::BinaryHeap::new();
    let mut done = Vec::new();
    let mut made = 0u64;
    let start = Rect::new(0, span, 0, HEIGHT_UNITS);
    heap.push((start.area(), made, start));
    // A pinwheel adds four pieces: stop before overshooting, and let straight cuts finish.
    while heap.len() + done.len() + 4 <= wanted {
        let Some((_, _, rect)) = heap.pop() else { break };
        let pieces = match pinwheel(rng, rect) {
            Some(pieces) => pieces.to_vec(),
            None => match split_any(rng, rect, span) {
                Some((a, b)) => vec![a, b],
                None => {
                    done.push(rect);
                    continue;
                }
            },
        };
        for piece in pieces {
            made += 1;
            heap.push((piece.area(), made, piece));
        }
    }
    done.extend(heap.into_iter().map(|(_, _, r)| r));
    top_up(rng, &mut done, wanted, span);
    done.sort_unstable_by_key(|r| (r.t0, r.y0));
    done
}

/// `rect` as a pinwheel, turning one way or the other at random, or `None` when it is less than
/// three steps wide or three units high.
fn pinwheel(rng: &mut ChaCha8Rng, rect: Rect) -> Option<[Rect; 5]> {
    if rect.width() < 3 || rect.height() < 3 {
        return None;
    }
    let (a, b) = two_points(rng, rect.t0, rect.t1);
    let (c, d) = two_points(rng, rect.y0, rect.y1);
    let Rect { t0, t1, y0, y1 } = rect;
    let pieces = if rng.random_range(0..2) == 0 {
        [
            Rect::new(t0, b, y0, c), // bottom left, reaching right past the centre
            Rect::new(b, t1, y0, d), // right, reaching up past it
            Rect::new(a, t1, d, y1), // top, reaching left past it
            Rect::new(t0, a, c, y1), // left, reaching down to the bottom piece
            Rect::new(a, b, c, d),   // the centre
        ]
    } else {
        // The mirror image in time: the same pinwheel turning the other way.
        let (a, b) = (t0 + t1 - b, t0 + t1 - a);
        [
            Rect::new(a, t1, y0, c),
            Rect::new(t0, a, y0, d),
            Rect::new(t0, b, d, y1),
            Rect::new(b, t1, c, y1),
            Rect::new(a, b, c, d),
        ]
    };
    Some(pieces)
}

/// Two points `low < p < q < high` (the range holds at least three steps), about a third and two
/// thirds of the way, jittered.
fn two_points(rng: &mut ChaCha8Rng, low: u64, high: u64) -> (u64, u64) {
    let span = high - low;
    let p = low + 1 + rng.random_range(0..(span - 2).div_ceil(2).max(1));
    let q = rng.random_range(p + 1..high);
    (p, q)
}
