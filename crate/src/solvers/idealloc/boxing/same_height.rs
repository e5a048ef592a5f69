//! Theorem 2: boxing jobs of one height into boxes of height H, through the simplified interface of
//! §5.8 (no free spaces: boxes come only from Lemma 1 and from the rows of the unresolved jobs).
//!
//! Each step takes the jobs X of a bounding interval and one critical point t at which some job of
//! X is alive (the injection of §3.3, drawn at random among the starts of X: the points that appear
//! in the event traversal). The jobs alive at t form R and are boxed by Lemma 1, their unresolved
//! jobs by interval graph colouring; the jobs that end by t (X₀) and those that start after it (X₁)
//! are boxed by the same construction on each side. X₀ and X₁ never meet in time, so the two sides
//! run in parallel (§5.9). Each side gets its own seed from its parent, and the boxes are listed in
//! a fixed order (the point's, then X₀'s, then X₁'s), so the result depends only on the seed.

use super::super::jobs::{Job, mix};
use super::strips::{box_by_rows, lemma1};
use crate::options::{Deadline, SolveError};

/// Below this many jobs on the two sides together, a step is not worth a parallel task.
pub const PARALLEL_MIN_JOBS: usize = 2048;
/// Parallel tasks nest at most this deep; deeper steps run from an explicit stack, so that a chain
/// of nested splits cannot overflow the thread's stack.
const PARALLEL_MAX_DEPTH: usize = 32;

/// What every step shares: H jobs per box, the box height, and Lemma 1's ε.
#[derive(Clone, Copy, Debug)]
pub struct BoxShape {
    pub per_box: usize,
    pub box_height: u64,
    pub epsilon: f64,
}

/// Boxes all `jobs` (one height, `shape.per_box` to a box); every job ends up in exactly one box.
pub fn theorem2(jobs: Vec<Job>, shape: BoxShape, seed: u64, deadline: &Deadline) -> Result<Vec<Job>, SolveError> {
    let mut boxes = Vec::new();
    split(jobs, shape, seed, 0, deadline, &mut boxes)?;
    Ok(boxes)
}

/// One critical point: boxes the jobs alive at it into `out` and returns the two sides with their
/// seeds.
fn step(jobs: Vec<Job>, shape: BoxShape, seed: u64, out: &mut Vec<Job>) -> [(Vec<Job>, u64); 2] {
    let pivot = (mix(seed) % jobs.len() as u64) as usize;
    let t = jobs[pivot].start;
    let (mut before, mut live, mut after) = (Vec::new(), Vec::new(), Vec::new());
    for job in jobs {
        if job.end <= t {
            before.push(job);
        } else if job.start > t {
            after.push(job);
        } else {
            live.push(job);
        }
    }
    let strips = lemma1(live, shape.per_box, shape.box_height, shape.epsilon);
    out.extend(strips.boxes);
    out.extend(box_by_rows(strips.unresolved, shape.per_box, shape.box_height));
    [(before, mix(seed ^ 1)), (after, mix(seed ^ 2))]
}

fn split(
    jobs: Vec<Job>,
    shape: BoxShape,
    seed: u64,
    depth: usize,
    deadline: &Deadline,
    out: &mut Vec<Job>,
) -> Result<(), SolveError> {
    if jobs.is_empty() {
        return Ok(());
    }
    if let Some(stop) = deadline.expired() {
        return Err(stop);
    }
    let [(before, before_seed), (after, after_seed)] = step(jobs, shape, seed, out);
    if depth < PARALLEL_MAX_DEPTH && before.len() + after.len() >= PARALLEL_MIN_JOBS {
        let mut after_boxes = Vec::new();
        let (left, right) = rayon::join(
            || split(before, shape, before_seed, depth + 1, deadline, out),
            || split(after, shape, after_seed, depth + 1, deadline, &mut after_boxes),
        );
        left?;
        right?;
        out.append(&mut after_boxes);
        return Ok(());
    }
    // Depth first from an explicit stack, in the same order as the recursion above: a point's
    // boxes, then those of the side before it, then those of the side after it.
    let mut stack = vec![(after, after_seed), (before, before_seed)];
    let mut steps = 0usize;
    while let Some((jobs, seed)) = stack.pop() {
        if jobs.is_empty() {
            continue;
        }
        steps += 1;
        if steps.is_multiple_of(256)
            && let Some(stop) = deadline.expired()
        {
            return Err(stop);
        }
        let [before, after] = step(jobs, shape, seed, out);
        stack.push(after);
        stack.push(before);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::super::jobs::{Contents, peak_load};
    use super::*;

    fn jobs(count: usize) -> Vec<Job> {
        (0..count)
            .map(|i| {
                let start = (i as u64 * 37) % 500;
                Job::buffer(i, 8, start, start + 1 + (i as u64 * 11) % 40)
            })
            .collect()
    }

    #[test]
    fn boxes_hold_every_job_once_within_their_height() {
        let shape = BoxShape { per_box: 4, box_height: 32, epsilon: 0.6 };
        for count in [1usize, 5, 300, 5000] {
            let boxes = theorem2(jobs(count), shape, 7, &Deadline::none()).unwrap();
            let mut seen = Vec::new();
            for b in &boxes {
                assert_eq!(b.size, 32);
                let Contents::Boxed(inner) = &b.contents else { panic!("not a box") };
                assert!(peak_load(inner) <= 32, "a box of height H holds its contents");
                assert!(inner.iter().all(|j| b.start <= j.start && j.end <= b.end));
                inner.iter().for_each(|j| j.for_each_buffer(&mut |i| seen.push(i)));
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..count).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_seed_alone_decides_the_boxing() {
        let shape = BoxShape { per_box: 3, box_height: 24, epsilon: 0.5 };
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let a = one.install(|| theorem2(jobs(6000), shape, 11, &Deadline::none()).unwrap());
        let b = theorem2(jobs(6000), shape, 11, &Deadline::none()).unwrap();
        assert_eq!(a, b);
        let c = theorem2(jobs(6000), shape, 12, &Deadline::none()).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn lifespan_one_jobs_and_a_long_chain_do_not_recurse_deeply() {
        // 100,000 disjoint jobs of lifespan 1: every point splits off one job.
        let chain: Vec<Job> = (0..100_000).map(|i| Job::buffer(i, 1, i as u64, i as u64 + 1)).collect();
        let shape = BoxShape { per_box: 2, box_height: 2, epsilon: 0.6 };
        let boxes = theorem2(chain, shape, 3, &Deadline::none()).unwrap();
        assert_eq!(boxes.len(), 100_000);
    }
}
