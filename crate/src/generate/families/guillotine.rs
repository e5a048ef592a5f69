//! Guillotine cuts: the rectangle is cut in two by a straight cut, across time (every buffer
//! above the cut turns over at once) or across addresses (two bands with lives of their own), in
//! whatever order the pieces' shapes call for, largest piece first, until there are enough.
//! Every packing of this kind is re-found by cutting it the same way back, which is what a
//! planner that stacks bands and time slices can exploit.

use rand_chacha::ChaCha8Rng;

use super::{HEIGHT_UNITS, Rect, guillotine_fill, span_for};

pub(super) fn cut(rng: &mut ChaCha8Rng, wanted: usize) -> Vec<Rect> {
    let span = span_for(wanted);
    guillotine_fill(rng, Rect::new(0, span, 0, HEIGHT_UNITS), wanted, span)
}
