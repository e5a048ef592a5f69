//! Power-of-two sizes with alignment, as a buddy allocator hands them out: every buffer is a
//! block of 2^k units at an offset that is a multiple of its size, and is aligned to its size.
//! A sweep over time frees a block (and, sometimes, its buddy with it, the two merging into the
//! block above) and splits the freed block again into halves, quarters... that start there. The
//! plan is the allocator's; alignment forbids most of the offsets a planner would try.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{HEIGHT_UNITS, Packing, Rect};

/// Aligns every block to its size, as the allocator's blocks are.
pub(super) fn align(packing: &mut Packing) {
    for b in &mut packing.buffers {
        b.set_alignment(b.size);
    }
}

pub(super) fn cut(rng: &mut ChaCha8Rng, wanted: usize) -> Vec<Rect> {
    let alive = ((wanted as f64).sqrt() as usize).clamp(1, 64);
    // The live blocks, as (offset, size, start) in units.
    let mut live: Vec<(u64, u64, u64)> =
        split(rng, 0, HEIGHT_UNITS, alive.min(wanted)).into_iter().map(|(o, s)| (o, s, 0)).collect();
    let mut made = live.len();
    let mut rects = Vec::with_capacity(wanted);
    let mut time = 0;
    while made < wanted {
        time += 1;
        let k = rng.random_range(0..live.len());
        let (mut offset, mut size, start) = live.swap_remove(k);
        rects.push(Rect::new(start, time, offset, offset + size));
        // Its buddy, when it is one block of the same size, ends too half the time: the two
        // merge into the block above.
        let buddy = offset ^ size;
        if size < HEIGHT_UNITS
            && rng.random_range(0..2) == 0
            && let Some(j) = live.iter().position(|&(o, s, _)| o == buddy && s == size)
        {
            let (o, s, st) = live.swap_remove(j);
            rects.push(Rect::new(st, time, o, o + s));
            offset = offset.min(buddy);
            size *= 2;
        }
        // Split the freed block into about as many blocks as the live count calls for.
        let pieces = if live.len() + 1 < alive { rng.random_range(2..=4usize) } else { rng.random_range(1..=2usize) };
        let new = split(rng, offset, size, pieces.min(wanted - made));
        made += new.len();
        live.extend(new.into_iter().map(|(o, s)| (o, s, time)));
        live.sort_unstable();
    }
    time += 1;
    rects.extend(live.into_iter().map(|(o, s, start)| Rect::new(start, time, o, o + s)));
    rects
}

/// The block `[offset, offset + size)` split into `pieces` buddy blocks (fewer when it is too
/// small): a random block among the largest is halved until there are enough.
fn split(rng: &mut ChaCha8Rng, offset: u64, size: u64, pieces: usize) -> Vec<(u64, u64)> {
    let mut blocks = vec![(offset, size)];
    while blocks.len() < pieces {
        let largest = blocks.iter().map(|&(_, s)| s).max().unwrap_or(1);
        if largest < 2 {
            break;
        }
        let candidates: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].1 * 2 > largest).collect();
        let i = candidates[rng.random_range(0..candidates.len())];
        let (o, s) = blocks.swap_remove(i);
        blocks.push((o, s / 2));
        blocks.push((o + s / 2, s / 2));
    }
    blocks.sort_unstable();
    blocks
}

#[cfg(test)]
mod tests {
    use crate::generate::families::UNIT;

    #[test]
    fn every_block_is_a_power_of_two_at_a_multiple_of_its_size() {
        let packing = crate::generate::families::Family::PowerOfTwo.packing(500, 3);
        for (b, &offset) in packing.buffers.iter().zip(&packing.offsets) {
            assert!(b.size.is_power_of_two() && b.size >= UNIT && b.alignment() == b.size);
            assert_eq!(offset % b.size, 0, "buffer {} at {offset}", b.id);
        }
    }
}
