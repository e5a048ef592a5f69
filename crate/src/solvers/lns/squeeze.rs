//! The squeeze: a move for plans whose makespan sits over one heavy moment. On real traces the
//! load peaks at a single instant (pangu_2.6B, S_1: the max load is reached at one time step) and
//! a plan above the max load has holes there; whatever is stacked above a hole (long-lived weights,
//! tiny workspaces alive throughout) comes down only if the hole closes. No neighbourhood of
//! [`super::neighbourhood`] frees all of those at once: they are hundreds, and each lives for most
//! of the trace.
//!
//! The squeeze closes the holes at a moment `at` directly: the buffers alive at `at` are stacked
//! from offset 0 in the order they have there (so no two of them can meet, at any time), except
//! those that start or end in a stretch around `at`, which are freed to be put back on top of the
//! stack or wherever they fit. Moving a buffer down may make it meet buffers not alive at `at`:
//! those are freed too, with every buffer that starts or ends in the stretch, and the caller puts
//! them back ([`super::recreate`]). As every stacked buffer only moves down, the move lowers the
//! bytes above a target however the refill goes, and the caller's rule (makespan no higher, excess
//! no larger) keeps it when the refill finds room below.

use super::index::Timeline;
use super::recreate::clash;
use crate::model::Problem;

/// A squeeze: where the stacked buffers go, and which buffers are freed (those alive at the
/// moment first, to be put back before the others).
#[derive(Default)]
pub struct Squeeze {
    /// Buffers alive at the moment that move (down), with their new offsets.
    pub moved: Vec<(usize, u64)>,
    /// Buffers to put back, those alive at the moment first.
    pub free: Vec<usize>,
    /// How many of `free` are alive at the moment.
    pub free_at_moment: usize,
}

/// Scratch space reused across squeezes.
#[derive(Default)]
pub struct Scratch {
    alive: Vec<usize>,
    near: Vec<usize>,
    ranges: Vec<(u64, u64)>,
    /// Per buffer: 1 when stacked at the moment, 2 when freed, 0 otherwise.
    mark: Vec<u8>,
}

const STACKED: u8 = 1;
const FREED: u8 = 2;

/// Builds the squeeze at moment `at` with the stretch `[low, high)` around it. `None` when a
/// pinned buffer would have to move (it is alive at the moment or in the way of one that moves
/// down) or an offset would pass `u64::MAX`. Adds the buffers looked at to `work`.
pub fn squeeze(
    problem: &Problem,
    timeline: &Timeline,
    offsets: &[u64],
    at: u64,
    (low, high): (u64, u64),
    scratch: &mut Scratch,
    work: &mut u64,
) -> Option<Squeeze> {
    let buffers = problem.buffers();
    let Scratch { alive, near, ranges, mark } = scratch;
    mark.clear();
    mark.resize(buffers.len(), 0);
    timeline.alive_in(problem, at, at.saturating_add(1), alive);
    *work += alive.len() as u64;
    if alive.iter().any(|&i| buffers[i].pinned.is_some()) {
        return None;
    }
    let mut out = Squeeze::default();
    // Those that start or end in the stretch are freed; the others are stacked in their order.
    let ends_near = |i: usize| buffers[i].start >= low || buffers[i].end <= high;
    alive.sort_unstable_by_key(|&i| (offsets[i], i));
    let mut top = 0u64;
    for &i in alive.iter() {
        if ends_near(i) {
            mark[i] = FREED;
            out.free.push(i);
            continue;
        }
        mark[i] = STACKED;
        let b = &buffers[i];
        let offset = top.checked_next_multiple_of(b.alignment.max(1))?;
        top = offset.checked_add(b.size)?;
        if offset != offsets[i] {
            out.moved.push((i, offset));
        }
    }
    out.free_at_moment = out.free.len();
    // Every other buffer that starts or ends in the stretch.
    timeline.alive_in(problem, low, high, near);
    *work += near.len() as u64;
    for &j in near.iter() {
        if mark[j] == 0 && ends_near(j) && buffers[j].pinned.is_none() {
            mark[j] = FREED;
            out.free.push(j);
        }
    }
    // And those a stacked buffer meets at its new offset.
    for &(i, offset) in &out.moved {
        let b = &buffers[i];
        timeline.alive_in(problem, b.start, b.end, near);
        *work += near.len() as u64;
        for &j in near.iter() {
            if mark[j] != 0 || !clash(b, offset, &buffers[j], offsets[j], ranges) {
                continue;
            }
            if buffers[j].pinned.is_some() {
                return None;
            }
            mark[j] = FREED;
            out.free.push(j);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;

    /// Two long buffers stacked over a hole left by a short one: the squeeze at the moment they
    /// share closes the hole and frees the short buffer that the lower one now meets.
    #[test]
    fn the_stack_at_the_moment_closes_its_holes_and_frees_what_it_meets() {
        let buffers = vec![
            Buffer::new("a", 0, 10, 4),
            Buffer::new("b", 0, 10, 3),
            Buffer::new("short", 0, 2, 5),
            Buffer::new("late", 8, 10, 2),
        ];
        let problem = Problem::new(buffers, None).unwrap();
        // a at 0..4, short at 4..9 (over 0..2), b at 9..12, late at 4..6.
        let offsets = vec![0, 9, 4, 4];
        let timeline = Timeline::new(&problem);
        let mut work = 0;
        let squeeze = squeeze(&problem, &timeline, &offsets, 5, (5, 6), &mut Scratch::default(), &mut work).unwrap();
        assert_eq!(squeeze.moved, vec![(1, 4)]);
        assert_eq!(squeeze.free_at_moment, 0);
        // b at 4..7 meets short (4..9 over 0..2) and late (4..6 over 8..10).
        let mut free = squeeze.free.clone();
        free.sort_unstable();
        assert_eq!(free, vec![2, 3]);
    }
}
