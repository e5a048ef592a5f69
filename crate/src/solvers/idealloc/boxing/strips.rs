//! Lemma 1 (paper, Appendix A): boxing same-height jobs that are all alive at one time into strips,
//! and the interval graph colouring that boxes the jobs Lemma 1 leaves unresolved (Theorem 2).

use super::super::jobs::{Job, all_alive_at_once, rows_of};

/// How the jobs of one critical point were boxed.
#[derive(Debug, Default)]
pub struct Strips {
    pub boxes: Vec<Job>,
    /// The jobs of the first vertical and first horizontal strip: at most 2H⌈1/ε²⌉ of them.
    pub unresolved: Vec<Job>,
}

/// Lemma 1 on `jobs`, all alive at one time and all of one height, `per_box` of them to a box of
/// height `box_height` (the box-height parameter H of the lemma is `per_box`, in job units).
///
/// The first vertical strip (the H⌈1/ε²⌉ earliest starts) and the first horizontal strip (the
/// H⌈1/ε²⌉ latest ends of the rest) stay unresolved; the rest is cut alternately into vertical and
/// horizontal strips of H⌈1/ε⌉ jobs, and each strip is boxed H jobs at a time: vertical strips by
/// decreasing end, horizontal strips by increasing start.
pub fn lemma1(jobs: Vec<Job>, per_box: usize, box_height: u64, epsilon: f64) -> Strips {
    let per_box = per_box.max(1);
    let first_strip = per_box.saturating_mul(ceil_count(1.0 / (epsilon * epsilon)));
    let strip = per_box.saturating_mul(ceil_count(1.0 / epsilon));
    let count = jobs.len();
    if count <= first_strip.saturating_mul(2) {
        return Strips { boxes: Vec::new(), unresolved: jobs };
    }
    // Both orders over indices; `taken` marks jobs already in a strip.
    let mut by_start: Vec<usize> = (0..count).collect();
    by_start.sort_by_key(|&i| (jobs[i].start, jobs[i].end));
    let mut by_end: Vec<usize> = (0..count).collect();
    by_end.sort_by_key(|&i| (std::cmp::Reverse(jobs[i].end), std::cmp::Reverse(jobs[i].start)));
    let mut taken = vec![false; count];
    let (mut next_start, mut next_end) = (0usize, 0usize);
    let mut unresolved = take(&by_start, &mut next_start, first_strip, &mut taken);
    unresolved.extend(take(&by_end, &mut next_end, first_strip, &mut taken));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    loop {
        let mut vertical = take(&by_start, &mut next_start, strip, &mut taken);
        if vertical.is_empty() {
            break;
        }
        vertical.sort_by_key(|&i| (std::cmp::Reverse(jobs[i].end), i));
        groups.extend(vertical.chunks(per_box).map(<[usize]>::to_vec));
        let mut horizontal = take(&by_end, &mut next_end, strip, &mut taken);
        if horizontal.is_empty() {
            break;
        }
        horizontal.sort_by_key(|&i| (jobs[i].start, i));
        groups.extend(horizontal.chunks(per_box).map(<[usize]>::to_vec));
    }
    // Move the jobs out by index.
    let mut slots: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
    let mut out = |i: usize| slots[i].take().expect("each job is in exactly one strip");
    let boxes =
        groups.into_iter().map(|group| Job::boxed(box_height, group.into_iter().map(&mut out).collect())).collect();
    let unresolved = unresolved.into_iter().map(&mut out).collect();
    Strips { boxes, unresolved }
}

/// Theorem 2's boxing of the unresolved jobs: an optimal packing by interval graph colouring, its
/// rows `per_box` at a time into boxes of `box_height`.
pub fn box_by_rows(mut jobs: Vec<Job>, per_box: usize, box_height: u64) -> Vec<Job> {
    let per_box = per_box.max(1);
    if all_alive_at_once(&jobs, |job| (job.start, job.end)) {
        // One row per job, by start: the rows `per_box` at a time are the jobs `per_box` at a time.
        jobs.sort_by_key(|job| job.start);
        let mut boxes = Vec::with_capacity(jobs.len().div_ceil(per_box));
        while !jobs.is_empty() {
            let rest = jobs.split_off(per_box.min(jobs.len()));
            boxes.push(Job::boxed(box_height, std::mem::replace(&mut jobs, rest)));
        }
        return boxes;
    }
    let rows = rows_of(jobs, |job| (job.start, job.end));
    let mut boxes = Vec::with_capacity(rows.len().div_ceil(per_box));
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let contents: Vec<Job> = rows.by_ref().take(per_box).flatten().collect();
        boxes.push(Job::boxed(box_height, contents));
    }
    boxes
}

/// The next `want` jobs of `order` (from `*next` on) not yet in a strip, marked as taken.
fn take(order: &[usize], next: &mut usize, want: usize, taken: &mut [bool]) -> Vec<usize> {
    let mut strip = Vec::with_capacity(want.min(order.len()));
    while strip.len() < want && *next < order.len() {
        let i = order[*next];
        *next += 1;
        if !taken[i] {
            taken[i] = true;
            strip.push(i);
        }
    }
    strip
}

/// `ceil(value)` as a count of at least 1, saturating.
fn ceil_count(value: f64) -> usize {
    if value.is_nan() { 1 } else { (value.ceil() as usize).max(1) }
}

#[cfg(test)]
mod tests {
    use super::super::super::jobs::{Contents, peak_load};
    use super::*;

    /// Jobs all alive at time 100, with spread starts and ends.
    fn live_at_100(count: usize) -> Vec<Job> {
        (0..count).map(|i| Job::buffer(i, 4, 100 - (i as u64 * 7) % 50, 101 + (i as u64 * 13) % 60)).collect()
    }

    fn buffers_in(jobs: &[Job]) -> Vec<usize> {
        let mut found = Vec::new();
        jobs.iter().for_each(|job| job.for_each_buffer(&mut |i| found.push(i)));
        found.sort_unstable();
        found
    }

    #[test]
    fn lemma1_leaves_at_most_two_first_strips_unresolved_and_boxes_fit() {
        let (per_box, epsilon) = (3usize, 0.6);
        let jobs = live_at_100(200);
        let strips = lemma1(jobs, per_box, 12, epsilon);
        // 2H⌈1/ε²⌉ = 2 · 3 · 3.
        assert_eq!(strips.unresolved.len(), 18);
        for b in &strips.boxes {
            let Contents::Boxed(inner) = &b.contents else { panic!("not a box") };
            assert!(inner.len() <= per_box);
            assert!(peak_load(inner) <= b.size as u128, "a box of height H holds its contents");
            assert!(inner.iter().all(|j| b.start <= j.start && j.end <= b.end));
        }
        let mut all = strips.boxes.clone();
        all.extend(strips.unresolved.clone());
        assert_eq!(buffers_in(&all), (0..200).collect::<Vec<_>>(), "every job once");
        // The unresolved jobs include the earliest start and the latest end.
        let earliest = strips.unresolved.iter().map(|j| j.start).min().unwrap();
        assert_eq!(earliest, 51);
        let latest = strips.unresolved.iter().map(|j| j.end).max().unwrap();
        assert_eq!(latest, 160);
    }

    #[test]
    fn few_jobs_are_all_unresolved() {
        let strips = lemma1(live_at_100(10), 2, 8, 0.5);
        assert!(strips.boxes.is_empty());
        assert_eq!(strips.unresolved.len(), 10);
    }

    #[test]
    fn rows_are_boxed_per_box_at_a_time_and_fit() {
        // Two rows' worth of short jobs and one long job overlapping them.
        let jobs = vec![
            Job::buffer(0, 2, 0, 3),
            Job::buffer(1, 2, 3, 6),
            Job::buffer(2, 2, 1, 5),
            Job::buffer(3, 2, 5, 8),
            Job::buffer(4, 2, 0, 8),
        ];
        let boxes = box_by_rows(jobs, 2, 4);
        assert_eq!(boxes.len(), 2); // three rows, two to a box
        for b in &boxes {
            let Contents::Boxed(inner) = &b.contents else { panic!("not a box") };
            assert!(peak_load(inner) <= 4);
        }
        assert_eq!(buffers_in(&boxes), vec![0, 1, 2, 3, 4]);
    }
}
