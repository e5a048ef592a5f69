//! Putting freed buffers back: each at the lowest offset (aligned) where it meets none of the
//! buffers that stay, over its whole lifetime. The buffers that stay are found through the
//! [`Timeline`], so a short-lived buffer looks only at its few neighbours in time.

use super::index::Timeline;
use crate::model::{Buffer, Problem};

/// Scratch space reused across placements.
#[derive(Default)]
pub(super) struct Scratch {
    alive: Vec<usize>,
    /// Offsets the buffer may not take, as half-open ranges.
    forbidden: Vec<(u64, u64)>,
}

/// The lowest offset for buffer `i` that is a multiple of its alignment and clashes with no buffer
/// `j` for which `absent[j]` is false, at `offsets[j]`. `None` when it would pass `u64::MAX`.
/// Adds the buffers looked at to `work`.
pub(super) fn lowest_fit(
    problem: &Problem,
    timeline: &Timeline,
    offsets: &[u64],
    absent: &[bool],
    i: usize,
    scratch: &mut Scratch,
    work: &mut u64,
) -> Option<u64> {
    let buffers = problem.buffers();
    let buffer = &buffers[i];
    timeline.alive_in(problem, buffer.start, buffer.end, &mut scratch.alive);
    *work += scratch.alive.len() as u64 + 1;
    scratch.forbidden.clear();
    for &j in &scratch.alive {
        if j == i || absent[j] {
            continue;
        }
        forbid(buffer, &buffers[j], offsets[j], &mut scratch.forbidden);
    }
    scratch.forbidden.sort_unstable();
    let alignment = buffer.alignment().max(1);
    let mut candidate = 0u64;
    for &(low, high) in &scratch.forbidden {
        if low > candidate {
            break;
        }
        if high > candidate {
            candidate = high.checked_next_multiple_of(alignment)?;
        }
    }
    candidate.checked_add(buffer.size)?;
    Some(candidate)
}

/// The offsets `buffer` may not take while `other` sits at `at`: where some live piece of each
/// meets the other's in time and in bytes.
fn forbid(buffer: &Buffer, other: &Buffer, at: u64, into: &mut Vec<(u64, u64)>) {
    if buffer.size == 0 || other.size == 0 {
        return;
    }
    if !buffer.has_gaps() && !other.has_gaps() {
        // Offsets o with o < at + other.size and at < o + buffer.size.
        into.push(((at + 1).saturating_sub(buffer.size), at.saturating_add(other.size)));
        return;
    }
    let theirs = other.pieces();
    for p in buffer.pieces() {
        for q in theirs.iter().filter(|q| p.start < q.end && q.start < p.end) {
            // o + p.lower < at + q.upper and at + q.lower < o + p.upper.
            let low = (at as u128 + q.lower as u128 + 1).saturating_sub(p.upper as u128);
            let high = (at as u128 + q.upper as u128).saturating_sub(p.lower as u128);
            if high > low {
                let clamp = |x: u128| x.min(u64::MAX as u128) as u64;
                into.push((clamp(low), clamp(high)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::{Buffer, Gap};

    /// The lowest aligned offset, by trying each in turn against every live piece of every buffer
    /// that stays.
    fn naive(problem: &Problem, offsets: &[u64], absent: &[bool], i: usize) -> u64 {
        let buffers = problem.buffers();
        let mine = buffers[i].pieces();
        let clashes = |o: u64| {
            (0..buffers.len()).filter(|&j| j != i && !absent[j]).any(|j| {
                let theirs = buffers[j].pieces();
                mine.iter().any(|p| theirs.iter().any(|q| p.meets(o, q, offsets[j])))
            })
        };
        (0..).map(|k| k * buffers[i].alignment()).find(|&o| !clashes(o)).unwrap()
    }

    proptest! {
        #[test]
        fn the_lowest_fit_is_the_lowest_offset_that_clashes_with_nothing(
            specs in prop::collection::vec((0u64..12, 1u64..8, 1u64..20, prop::sample::select(vec![1u64, 1, 2, 4]), 0u64..60, any::<bool>(), 0u64..8, 0u64..20), 2..12),
            absent_roll in prop::collection::vec(any::<bool>(), 12),
        ) {
            let buffers: Vec<Buffer> = specs
                .iter()
                .enumerate()
                .map(|(k, &(start, length, size, alignment, _, gapped, cut, window))| {
                    let mut b = Buffer::new(k.to_string(), start, start + length, size).with_alignment(alignment);
                    if gapped && length >= 3 {
                        let at = start + 1 + cut % (length - 2);
                        let lower = window % size;
                        b = b.with_gaps(vec![Gap::windowed(at, at + 1, lower, lower + 1 + (window % (size - lower)))]);
                    }
                    b
                })
                .collect();
            let problem = Problem::new(buffers, None).unwrap();
            // Offsets need not make a valid plan: the fit only looks at the buffer placed.
            let offsets: Vec<u64> = specs.iter().map(|s| s.4).collect();
            let absent: Vec<bool> = (0..problem.len()).map(|k| k > 0 && absent_roll[k]).collect();
            let timeline = Timeline::new(&problem);
            let mut scratch = Scratch::default();
            let mut work = 0;
            let found = lowest_fit(&problem, &timeline, &offsets, &absent, 0, &mut scratch, &mut work).unwrap();
            prop_assert_eq!(found, naive(&problem, &offsets, &absent, 0));
        }
    }
}
