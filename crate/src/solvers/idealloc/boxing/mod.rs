//! The boxing algorithm of Buchsbaum et al. ("BA", §3): Theorem 16 repeatedly boxes the smallest
//! jobs (Corollary 15) until the heights are close, then boxes everything once more; Corollary 15
//! rounds heights to powers of (1 + ε) and boxes each size class by Theorem 2, which boxes jobs of
//! one height with Lemma 1 and interval graph colouring. The result is a set of nested boxes
//! (Matryoshkas) of one height, which unboxing turns into loose offsets (§4).

mod same_height;
mod schedule;
mod strips;

use rayon::prelude::*;

pub use schedule::{MIN_RATIO, MU_MAX, Schedule, epsilon_range};

use super::jobs::{Job, mix};
use crate::options::{Deadline, SolveError};
use same_height::{BoxShape, PARALLEL_MIN_JOBS, theorem2};

/// Theorem 16 run along `schedule`: each round boxes the jobs of height at most its threshold by
/// Corollary 15; the last call boxes all that is left. Every input job ends up in exactly one
/// top-level job, and every box holds its contents (their load never exceeds its height).
pub fn theorem16(jobs: Vec<Job>, schedule: &Schedule, seed: u64, deadline: &Deadline) -> Result<Vec<Job>, SolveError> {
    let mut jobs = jobs;
    for (k, round) in schedule.rounds.iter().enumerate() {
        let (small, mut large): (Vec<Job>, Vec<Job>) = jobs.into_iter().partition(|job| job.size <= round.threshold);
        large.extend(corollary15(small, round.box_height, round.mu, mix(seed ^ k as u64), deadline)?);
        jobs = large;
    }
    let last = schedule.last;
    corollary15(jobs, last.box_height, last.mu, mix(seed ^ u64::MAX), deadline)
}

/// The power of (1 + ε) that a height rounds up to: the smallest i with h ≤ (1 + ε)^i.
fn size_class(height: u64, base: f64) -> i64 {
    let h = height as f64;
    let mut i = (h.ln() / base.ln()).ceil() as i64;
    // Correct the float estimate so that (1 + ε)^(i−1) < h ≤ (1 + ε)^i.
    while i > 0 && base.powf((i - 1) as f64) >= h {
        i -= 1;
    }
    while base.powf(i as f64) < h {
        i += 1;
    }
    i
}

/// Corollary 15: rounds each height up to ⌊(1 + ε)^i⌋, boxes each size class h by Theorem 2 with
/// ⌊H/h⌋ jobs to a box of height H (§5.8's interface: no rescaling), the classes in parallel (§5.9).
/// A class whose rounded height exceeds H (which the invariants of §3.2 rule out) is left unboxed.
pub fn corollary15(
    jobs: Vec<Job>,
    box_height: u64,
    epsilon: f64,
    seed: u64,
    deadline: &Deadline,
) -> Result<Vec<Job>, SolveError> {
    if jobs.is_empty() {
        return Ok(jobs);
    }
    let count = jobs.len();
    // A floor on ε keeps the number of classes and the float exponents sane.
    let base = 1.0 + epsilon.max(1e-6);
    // One class computation per distinct height; jobs keep their order within a class.
    let mut heights: Vec<u64> = jobs.iter().map(|job| job.size).collect();
    heights.sort_unstable();
    heights.dedup();
    let class_of: Vec<i64> = heights.iter().map(|&h| size_class(h, base)).collect();
    let mut classed: Vec<(i64, Job)> =
        jobs.into_iter().map(|job| (class_of[heights.partition_point(|&h| h < job.size)], job)).collect();
    classed.sort_by_key(|&(class, _)| class);
    let mut classes: Vec<(i64, Vec<Job>)> = Vec::new();
    for (class, job) in classed {
        match classes.last_mut() {
            Some((last, members)) if *last == class => members.push(job),
            _ => classes.push((class, vec![job])),
        }
    }
    let box_class = |(class, mut members): (i64, Vec<Job>)| -> Result<Vec<Job>, SolveError> {
        let tallest = members.iter().map(|job| job.size).max().unwrap_or(1);
        let rounded = (base.powf(class as f64).floor() as u64).max(tallest);
        if rounded > box_height {
            return Ok(members);
        }
        for job in &mut members {
            job.size = rounded;
        }
        let per_box = usize::try_from(box_height / rounded).unwrap_or(usize::MAX);
        let shape = BoxShape { per_box, box_height, epsilon };
        theorem2(members, shape, mix(seed ^ mix(class as u64)), deadline)
    };
    // Small inputs are not worth the tasks; either way the classes come back in class order.
    let boxed: Vec<Result<Vec<Job>, SolveError>> = if count >= PARALLEL_MIN_JOBS {
        classes.into_par_iter().map(box_class).collect()
    } else {
        classes.into_iter().map(box_class).collect()
    };
    let mut out = Vec::new();
    for class in boxed {
        out.extend(class?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::jobs::{Contents, peak_load};
    use super::*;

    #[test]
    fn size_classes_are_powers_of_one_plus_epsilon() {
        let base: f64 = 1.5;
        for h in 1u64..2000 {
            let i = size_class(h, base);
            assert!(base.powf(i as f64) >= h as f64);
            assert!(i == 0 || base.powf((i - 1) as f64) < h as f64, "h {h} class {i}");
        }
    }

    /// Checks that every box of `job` holds its contents, recursively, and collects the buffers.
    fn check_nesting(job: &Job, buffers: &mut Vec<usize>) {
        match &job.contents {
            Contents::Buffer(i) => buffers.push(*i),
            Contents::Dummy => {}
            Contents::Boxed(inner) => {
                assert!(peak_load(inner) <= job.size as u128, "box of {} overfull", job.size);
                for child in inner {
                    assert!(job.start <= child.start && child.end <= job.end);
                    check_nesting(child, buffers);
                }
            }
        }
    }

    #[test]
    fn corollary15_boxes_every_class_into_boxes_of_height_h() {
        let jobs: Vec<Job> =
            (0..400).map(|i| Job::buffer(i, 1 + (i as u64 * 7919) % 50, (i as u64 * 3) % 200, 220)).collect();
        let boxes = corollary15(jobs, 100, 0.5, 1, &Deadline::none()).unwrap();
        let mut buffers = Vec::new();
        for b in &boxes {
            assert_eq!(b.size, 100);
            check_nesting(b, &mut buffers);
        }
        buffers.sort_unstable();
        assert_eq!(buffers, (0..400).collect::<Vec<_>>());
    }

    #[test]
    fn theorem16_ends_with_boxes_of_one_height_holding_every_job() {
        let sizes = [1u64, 3, 40, 900, 20_000, 1 << 22];
        let jobs: Vec<Job> = (0..3000)
            .map(|i| {
                let start = (i as u64 * 31) % 2000;
                Job::buffer(i, sizes[i % sizes.len()] + i as u64 % 5, start, start + 1 + (i as u64 * 17) % 90)
            })
            .collect();
        let heights: Vec<u64> = jobs.iter().map(|j| j.size).collect();
        let ratio = *heights.iter().max().unwrap() as f64 / *heights.iter().min().unwrap() as f64;
        let range = epsilon_range(ratio).unwrap();
        let schedule = Schedule::calibrated(&heights, range);
        let top = theorem16(jobs, &schedule, 5, &Deadline::none()).unwrap();
        let mut buffers = Vec::new();
        for job in &top {
            assert_eq!(job.size, schedule.last.box_height);
            check_nesting(job, &mut buffers);
        }
        buffers.sort_unstable();
        assert_eq!(buffers, (0..3000).collect::<Vec<_>>());
    }

    #[test]
    fn a_cancel_stops_the_boxing() {
        let options = crate::SolveOptions::default();
        options.cancel.cancel();
        let deadline = options.deadline(web_time::Instant::now());
        let jobs: Vec<Job> = (0..100).map(|i| Job::buffer(i, 4, i as u64, i as u64 + 3)).collect();
        assert_eq!(corollary15(jobs, 16, 0.5, 0, &deadline), Err(SolveError::Cancelled));
    }
}
