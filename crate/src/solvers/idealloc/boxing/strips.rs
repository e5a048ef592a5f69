//! Boxing same-height jobs that are all alive at one time into strips (Lemma 1, paper Appendix A),
//! and the interval graph colouring that boxes the jobs the strips leave unresolved (Theorem 2).

use std::cmp::Reverse;

use super::super::jobs::{Item, Jobs, Made, all_alive_at_once};

/// Boxes `live`, jobs all alive at one time and all of one height, into strips (the construction
/// of Lemma 1), `per_box` of them to a box of height `box_height` (the box-height parameter H of
/// the lemma is `per_box`, in job units). The boxes go to `made`; the unresolved jobs are moved to
/// the front of `live` and their number returned.
///
/// The first vertical strip (the H⌈1/ε²⌉ earliest starts) and the first horizontal strip (the
/// H⌈1/ε²⌉ latest ends of the rest) stay unresolved; the rest is cut alternately into vertical and
/// horizontal strips of H⌈1/ε⌉ jobs, and each strip is boxed H jobs at a time: vertical strips by
/// decreasing end, horizontal strips by increasing start.
pub(super) fn box_in_strips(
    jobs: &Jobs,
    live: &mut [Item],
    per_box: usize,
    box_height: u64,
    epsilon: f64,
    made: &mut Made,
) -> usize {
    let per_box = per_box.max(1);
    let first_strip = per_box.saturating_mul(ceil_count(1.0 / (epsilon * epsilon)));
    let strip = per_box.saturating_mul(ceil_count(1.0 / epsilon));
    let count = live.len();
    if count <= first_strip.saturating_mul(2) {
        return count;
    }
    // The boxes read every job's record (its largest buffer): asked for now, the records arrive
    // while the jobs are sorted (a few thousand at most, which the caches hold).
    if count <= Jobs::PREFETCH_AT_ONCE {
        jobs.prefetch(live.iter().map(|item| item.id));
    }
    // Both orders over positions in `live`; ties keep the given order, as do the strip sorts (by
    // position), so that the boxing depends on the seed alone. `taken` marks jobs already in a strip.
    let mut by_start: Vec<u32> = (0..count as u32).collect();
    by_start.sort_unstable_by_key(|&k| (live[k as usize].start, live[k as usize].end, k));
    let mut by_end: Vec<u32> = (0..count as u32).collect();
    by_end.sort_unstable_by_key(|&k| (Reverse(live[k as usize].end), Reverse(live[k as usize].start), k));
    let by_start = |k: usize| by_start[k];
    let by_end = |k: usize| by_end[k];
    let mut taken = vec![false; count];
    let (mut next_start, mut next_end) = (0usize, 0usize);
    let mut unresolved = Vec::with_capacity(2 * first_strip);
    take(by_start, count, &mut next_start, first_strip, &mut taken, &mut unresolved);
    take(by_end, count, &mut next_end, first_strip, &mut taken, &mut unresolved);
    let mut strip_jobs = Vec::with_capacity(strip);
    loop {
        strip_jobs.clear();
        take(by_start, count, &mut next_start, strip, &mut taken, &mut strip_jobs);
        if strip_jobs.is_empty() {
            break;
        }
        strip_jobs.sort_unstable_by_key(|&k| (Reverse(live[k as usize].end), k));
        if count > Jobs::PREFETCH_AT_ONCE {
            jobs.prefetch(strip_jobs.iter().map(|&k| live[k as usize].id));
        }
        for group in strip_jobs.chunks(per_box) {
            made.add_box(jobs, box_height, group.iter().map(|&k| live[k as usize].id));
        }
        strip_jobs.clear();
        take(by_end, count, &mut next_end, strip, &mut taken, &mut strip_jobs);
        if strip_jobs.is_empty() {
            break;
        }
        strip_jobs.sort_unstable_by_key(|&k| (live[k as usize].start, k));
        if count > Jobs::PREFETCH_AT_ONCE {
            jobs.prefetch(strip_jobs.iter().map(|&k| live[k as usize].id));
        }
        for group in strip_jobs.chunks(per_box) {
            made.add_box(jobs, box_height, group.iter().map(|&k| live[k as usize].id));
        }
    }
    // The jobs in strips are boxed: their places at the front may be overwritten.
    let kept: Vec<Item> = unresolved.iter().map(|&k| live[k as usize]).collect();
    live[..kept.len()].copy_from_slice(&kept);
    kept.len()
}

/// Theorem 2's boxing of the unresolved jobs: an optimal packing by interval graph colouring, its
/// rows `per_box` at a time into boxes of `box_height`. The jobs are all alive at one time (those
/// of a critical point), so the colouring gives each a row of its own in order of start (ties in
/// the given order).
pub(super) fn box_by_rows(jobs: &Jobs, items: &mut [Item], per_box: usize, box_height: u64, made: &mut Made) {
    debug_assert!(all_alive_at_once(items, |item| (item.start, item.end)), "jobs of one critical point");
    // (As in [`box_in_strips`]: the records arrive while the jobs are sorted.)
    if items.len() <= Jobs::PREFETCH_AT_ONCE {
        jobs.prefetch(items.iter().map(|item| item.id));
    }
    items.sort_by_key(|item| item.start);
    let per_box = per_box.max(1);
    for (k, group) in items.chunks(per_box).enumerate() {
        if items.len() > Jobs::PREFETCH_AT_ONCE
            && let Some(next) = items.chunks(per_box).nth(k + 1)
        {
            jobs.prefetch(next.iter().map(|item| item.id));
        }
        made.add_box(jobs, box_height, group.iter().map(|item| item.id));
    }
}

/// Appends to `strip` the next `want` positions of `order` (from `*next` on, of `len`) not yet in a
/// strip, marked as taken.
fn take(
    order: impl Fn(usize) -> u32,
    len: usize,
    next: &mut usize,
    want: usize,
    taken: &mut [bool],
    strip: &mut Vec<u32>,
) {
    let mut found = 0;
    while found < want && *next < len {
        let k = order(*next);
        *next += 1;
        if !taken[k as usize] {
            taken[k as usize] = true;
            strip.push(k);
            found += 1;
        }
    }
}

/// `ceil(value)` as a count of at least 1, saturating.
fn ceil_count(value: f64) -> usize {
    if value.is_nan() { 1 } else { (value.ceil() as usize).max(1) }
}

#[cfg(test)]
mod tests {
    use super::super::super::jobs::{Contents, JobId, peak_load};
    use super::*;

    /// Jobs all alive at time 100, with spread starts and ends.
    fn live_at_100(count: usize) -> (Jobs, Vec<Item>) {
        let mut jobs = Jobs::default();
        let items = (0..count)
            .map(|i| {
                let id = jobs.add_buffer(i, 4, 100 - (i as u32 * 7) % 50, 101 + (i as u32 * 13) % 60);
                Item::of(&jobs, id)
            })
            .collect();
        (jobs, items)
    }

    /// Commits the boxes and checks each: at most `per_box` jobs, within the box's lifetime, load
    /// within its height. Returns the buffers inside them.
    fn check_boxes(jobs: &mut Jobs, made: Made, per_box: usize) -> Vec<usize> {
        let mut ids: Vec<JobId> = Vec::new();
        jobs.commit(made, &mut ids);
        let mut buffers = Vec::new();
        for &id in &ids {
            let record = *jobs.get(id);
            let Contents::Boxed(inner) = jobs.contents(id) else { panic!("not a box") };
            assert!(inner.len() <= per_box);
            assert!(peak_load(jobs, inner) <= record.size as u128, "a box of height H holds its contents");
            assert!(inner.iter().all(|&j| record.start <= jobs.get(j).start && jobs.get(j).end <= record.end));
            jobs.for_each_buffer(id, &mut |i| buffers.push(i));
        }
        buffers
    }

    #[test]
    fn strips_leave_at_most_the_two_first_strips_unresolved_and_boxes_fit() {
        let (per_box, epsilon) = (3usize, 0.6);
        let (mut jobs, mut live) = live_at_100(200);
        let mut made = Made::default();
        let unresolved = box_in_strips(&jobs, &mut live, per_box, 12, epsilon, &mut made);
        // 2H⌈1/ε²⌉ = 2 · 3 · 3.
        assert_eq!(unresolved, 18);
        let unresolved = &live[..unresolved];
        let mut buffers = check_boxes(&mut jobs, made, per_box);
        buffers.extend(unresolved.iter().map(|item| item.id as usize));
        buffers.sort_unstable();
        assert_eq!(buffers, (0..200).collect::<Vec<_>>(), "every job once");
        // The unresolved jobs include the earliest start and the latest end.
        assert_eq!(unresolved.iter().map(|j| j.start).min().unwrap(), 51);
        assert_eq!(unresolved.iter().map(|j| j.end).max().unwrap(), 160);
    }

    #[test]
    fn few_jobs_are_all_unresolved() {
        let (jobs, mut live) = live_at_100(10);
        let mut made = Made::default();
        assert_eq!(box_in_strips(&jobs, &mut live, 2, 8, 0.5, &mut made), 10);
        assert_eq!(made.len(), 0);
    }

    #[test]
    fn rows_are_boxed_per_box_at_a_time_and_fit() {
        let (mut jobs, mut live) = live_at_100(5);
        let mut made = Made::default();
        box_by_rows(&jobs, &mut live, 2, 8, &mut made);
        assert_eq!(made.len(), 3); // five rows, two to a box
        let mut buffers = check_boxes(&mut jobs, made, 2);
        buffers.sort_unstable();
        assert_eq!(buffers, vec![0, 1, 2, 3, 4]);
    }
}
