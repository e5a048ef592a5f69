//! Boxing jobs of one height into boxes of height H (Theorem 2), through the simplified interface
//! of §5.8 (no free spaces: boxes come only from Lemma 1's strips and from the rows of the
//! unresolved jobs).
//!
//! Each step takes the jobs X of a bounding interval and one critical point t at which some job of
//! X is alive (the injection of §3.3, drawn at random among the starts of X: the points that appear
//! in the event traversal). The jobs alive at t form R and are boxed in strips (Lemma 1), their
//! unresolved jobs by interval graph colouring; the jobs that end by t (X₀) and those that start
//! after it (X₁) are boxed by the same construction on each side. X₀ and X₁ never meet in time, so
//! the two sides run in parallel (§5.9). Each side gets its own seed from its parent, and the boxes are listed in
//! a fixed order (the point's, then X₀'s, then X₁'s), so the result depends only on the seed.

use super::super::jobs::{Item, Jobs, Made, mix};
use super::strips::{box_by_rows, box_in_strips};
use crate::options::{Deadline, Halt};

/// Below this many jobs on the two sides together, a step is not worth a parallel task.
pub(super) const PARALLEL_MIN_JOBS: usize = 2048;
/// Parallel tasks nest at most this deep; deeper steps run from an explicit stack, so that a chain
/// of nested splits cannot overflow the thread's stack.
const PARALLEL_MAX_DEPTH: usize = 32;

/// What every step shares: H jobs per box, the box height, and Lemma 1's ε.
#[derive(Clone, Copy, Debug)]
pub(super) struct BoxShape {
    pub per_box: usize,
    pub box_height: u64,
    pub epsilon: f64,
}

/// Boxes all `items` (jobs of `jobs`, one height, `shape.per_box` to a box) into `made`, the
/// construction of Theorem 2; every job ends up in exactly one box. The items are reordered.
pub(super) fn box_one_height(
    jobs: &Jobs,
    items: &mut [Item],
    shape: BoxShape,
    seed: u64,
    deadline: &Deadline,
    made: &mut Made,
) -> Result<(), Halt> {
    // Boxing reads a record per job in time order, which scatters the reads across the arena; a
    // group small enough is boxed before its records, asked for at once, leave the cache.
    if items.len() <= Jobs::PREFETCH_AT_ONCE {
        jobs.prefetch(items.iter().map(|item| item.id));
    }
    split(jobs, items, shape, seed, 0, deadline, made)
}

/// One critical point: boxes the jobs alive at it into `made` and returns the two sides, the jobs
/// that end by it and those that start after it, with their seeds. `items` must not be empty.
fn step<'a>(
    jobs: &Jobs,
    items: &'a mut [Item],
    shape: BoxShape,
    seed: u64,
    scratch: &mut Vec<Item>,
    made: &mut Made,
) -> [(&'a mut [Item], u64); 2] {
    let t = items[(mix(seed) % items.len() as u64) as usize].start;
    // Stable three-way partition in place: [ends by t | alive at t | starts after t], each side
    // in the given order (which the pivots of later steps and Lemma 1's ties depend on). The job
    // chosen is alive at t, so both sides are smaller than `items`. The jobs that do not end by t
    // wait in `scratch` (reused from step to step, not allocated in each). Each job is written to
    // both places and the count of one advances: no branch on which side a job falls, which the
    // processor could not predict (the sides interleave at random).
    if scratch.len() < items.len() {
        scratch.resize(items.len(), items[0]);
    }
    let (mut before, mut rest) = (0, 0);
    for k in 0..items.len() {
        let item = items[k];
        items[before] = item;
        scratch[rest] = item;
        let ends = (item.end <= t) as usize;
        before += ends;
        rest += 1 - ends;
    }
    // The rest: those alive at t go straight after the first side, those starting after it are
    // gathered at the front of `scratch` (never ahead of where they are read) and follow.
    let (mut after, mut later) = (before, 0);
    for k in 0..rest {
        let item = scratch[k];
        items[after] = item;
        scratch[later] = item;
        let live = (item.start <= t) as usize;
        after += live;
        later += 1 - live;
    }
    items[after..].copy_from_slice(&scratch[..later]);
    let whole = items.len();
    let (ends_before, rest) = items.split_at_mut(before);
    let (live, starts_after) = rest.split_at_mut(after - before);
    // A side small enough for the caches has its records asked for once: each of its jobs is
    // boxed (its record read) by one of the steps below, which partition it first.
    if whole > Jobs::PREFETCH_AT_ONCE {
        for side in [&*ends_before, &*starts_after] {
            if side.len() <= Jobs::PREFETCH_AT_ONCE {
                jobs.prefetch(side.iter().map(|item| item.id));
            }
        }
    }
    let unresolved = box_in_strips(jobs, live, shape.per_box, shape.box_height, shape.epsilon, made);
    box_by_rows(jobs, &mut live[..unresolved], shape.per_box, shape.box_height, made);
    [(ends_before, mix(seed ^ 1)), (starts_after, mix(seed ^ 2))]
}

fn split(
    jobs: &Jobs,
    items: &mut [Item],
    shape: BoxShape,
    seed: u64,
    depth: usize,
    deadline: &Deadline,
    made: &mut Made,
) -> Result<(), Halt> {
    if items.is_empty() {
        return Ok(());
    }
    if let Some(stop) = deadline.expired() {
        return Err(stop);
    }
    let mut scratch = Vec::new();
    let [(before, before_seed), (after, after_seed)] = step(jobs, items, shape, seed, &mut scratch, made);
    if depth < PARALLEL_MAX_DEPTH && before.len() + after.len() >= PARALLEL_MIN_JOBS {
        let mut after_boxes = Made::default();
        let (left, right) = rayon::join(
            || split(jobs, before, shape, before_seed, depth + 1, deadline, made),
            || split(jobs, after, shape, after_seed, depth + 1, deadline, &mut after_boxes),
        );
        left?;
        right?;
        made.append(after_boxes);
        return Ok(());
    }
    // Depth first from an explicit stack, in the same order as the recursion above: a point's
    // boxes, then those of the side before it, then those of the side after it.
    let mut stack = vec![(after, after_seed), (before, before_seed)];
    let mut steps = 0usize;
    while let Some((items, seed)) = stack.pop() {
        if items.is_empty() {
            continue;
        }
        steps += 1;
        if steps.is_multiple_of(256)
            && let Some(stop) = deadline.expired()
        {
            return Err(stop);
        }
        let [before, after] = step(jobs, items, shape, seed, &mut scratch, made);
        stack.push(after);
        stack.push(before);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::super::jobs::{Contents, JobId, peak_load};
    use super::*;

    fn jobs(count: usize) -> (Jobs, Vec<Item>) {
        let mut jobs = Jobs::default();
        let items = (0..count)
            .map(|i| {
                let start = (i as u32 * 37) % 500;
                let id = jobs.add_buffer(i, 8, start, start + 1 + (i as u32 * 11) % 40);
                Item::of(&jobs, id)
            })
            .collect();
        (jobs, items)
    }

    fn boxed(count: usize, shape: BoxShape, seed: u64) -> (Jobs, Vec<JobId>) {
        let (mut jobs, mut items) = self::jobs(count);
        let mut made = Made::default();
        box_one_height(&jobs, &mut items, shape, seed, &Deadline::none(), &mut made).unwrap();
        let mut ids = Vec::new();
        jobs.commit(made, &mut ids);
        (jobs, ids)
    }

    #[test]
    fn boxes_hold_every_job_once_within_their_height() {
        let shape = BoxShape { per_box: 4, box_height: 32, epsilon: 0.6 };
        for count in [1usize, 5, 300, 5000] {
            let (jobs, boxes) = boxed(count, shape, 7);
            let mut seen = Vec::new();
            for &b in &boxes {
                let record = *jobs.get(b);
                assert_eq!(record.size, 32);
                let Contents::Boxed(inner) = jobs.contents(b) else { panic!("not a box") };
                assert!(peak_load(&jobs, inner) <= 32, "a box of height H holds its contents");
                assert!(inner.iter().all(|&j| record.start <= jobs.get(j).start && jobs.get(j).end <= record.end));
                let (last_start, first_end) =
                    inner.iter().fold((0, u32::MAX), |(s, e), &j| (s.max(jobs.get(j).start), e.min(jobs.get(j).end)));
                assert!(last_start < first_end, "the contents of a box are alive at one time");
                jobs.for_each_buffer(b, &mut |i| seen.push(i));
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..count).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_seed_alone_decides_the_boxing() {
        let shape = BoxShape { per_box: 3, box_height: 24, epsilon: 0.5 };
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let a = one.install(|| boxed(6000, shape, 11));
        let b = boxed(6000, shape, 11);
        assert_eq!(a, b);
        let c = boxed(6000, shape, 12);
        assert_ne!(a, c);
    }

    #[test]
    fn lifespan_one_jobs_and_a_long_chain_do_not_recurse_deeply() {
        // 100,000 disjoint jobs of lifespan 1: every point splits off one job.
        let mut jobs = Jobs::default();
        let mut chain: Vec<Item> = (0..100_000)
            .map(|i| Item { start: i as u32, end: i as u32 + 1, id: jobs.add_buffer(i, 1, i as u32, i as u32 + 1) })
            .collect();
        let shape = BoxShape { per_box: 2, box_height: 2, epsilon: 0.6 };
        let mut made = Made::default();
        box_one_height(&jobs, &mut chain, shape, 3, &Deadline::none(), &mut made).unwrap();
        assert_eq!(made.len(), 100_000);
    }
}
