//! Contention-based grouping (§5.3, Fig. 9): independent parts first, then phases of high
//! contention inside each part.
//!
//! A time point that no lifetime crosses splits the problem into parts that can be solved one at a
//! time (a plan for each part is a plan for the whole). Inside a part, phases are found by lowering
//! a contention threshold from the part's peak: every maximal run of sections whose load reaches
//! the threshold becomes a phase of the buffers overlapping it that no earlier phase took. Phases
//! come out in decreasing order of contention, which is the order the search prefers.

use super::timeline::Timeline;
use crate::model::Buffer;

/// Splits buffer indices into groups that share no time point, in time order: group `k` is
/// `members[bounds[k]..bounds[k + 1]]`, sorted. Flat, so that a million one-buffer groups cost no
/// allocation each.
pub(super) fn independent_parts(buffers: &[Buffer]) -> (Vec<usize>, Vec<usize>) {
    let mut members: Vec<usize> = (0..buffers.len()).collect();
    members.sort_unstable_by_key(|&i| (buffers[i].start, i));
    let mut bounds = Vec::new();
    let mut reach = 0u64;
    for (position, &i) in members.iter().enumerate() {
        if position == 0 || buffers[i].start >= reach {
            bounds.push(position);
        }
        reach = reach.max(buffers[i].end);
    }
    bounds.push(members.len());
    for window in bounds.windows(2) {
        members[window[0]..window[1]].sort_unstable();
    }
    (members, bounds)
}

/// The phase of every buffer of `timeline` (0 = highest contention) and the number of phases. The
/// threshold drops by `step` × the peak load each round (`step` in (0, 1]).
pub(super) fn phases(timeline: &Timeline, step: f64) -> (Vec<u32>, usize) {
    const UNASSIGNED: u32 = u32::MAX;
    let n = timeline.len();
    let mut phase_of = vec![UNASSIGNED; n];
    let mut assigned = 0usize;
    let mut count = 0u32;
    let peak = timeline.max_load() as f64;
    let step = if step.is_finite() && step > 0.0 { step.min(1.0) } else { 1.0 };
    let mut round = 0u32;
    while assigned < n {
        let fraction = 1.0 - step * round as f64;
        // The last round takes every section, so that every buffer gets a phase.
        let threshold = if fraction <= 0.0 { 0 } else { (peak * fraction) as u64 };
        let mut t = 0;
        while t < timeline.sections() {
            if timeline.load[t] < threshold || (threshold == 0 && timeline.alive(t).is_empty()) {
                t += 1;
                continue;
            }
            let run_start = t;
            while t < timeline.sections() && timeline.load[t] >= threshold {
                t += 1;
            }
            let mut grew = false;
            for section in run_start..t {
                for &j in timeline.alive(section) {
                    if phase_of[j as usize] == UNASSIGNED {
                        phase_of[j as usize] = count;
                        assigned += 1;
                        grew = true;
                    }
                }
            }
            if grew {
                count += 1;
            }
        }
        if fraction <= 0.0 {
            break;
        }
        round += 1;
    }
    (phase_of, count as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_split_where_nothing_crosses() {
        let buffers = vec![
            Buffer::new("a", 0, 4, 1),
            Buffer::new("b", 4, 6, 1),
            Buffer::new("c", 5, 9, 1),
            Buffer::new("d", 1, 3, 1),
        ];
        assert_eq!(independent_parts(&buffers), (vec![0, 3, 1, 2], vec![0, 2, 4]));
        assert_eq!(independent_parts(&[]), (vec![], vec![0]));
    }

    #[test]
    fn phases_follow_contention_peaks() {
        // Two peaks (8 at [0,2), 6 at [6,8)) separated by a trough of 1.
        let buffers = vec![
            Buffer::new("p1", 0, 2, 8),
            Buffer::new("low", 2, 6, 1),
            Buffer::new("p2", 6, 8, 6),
            Buffer::new("p2b", 7, 8, 1),
        ];
        let timeline = Timeline::new(&buffers, &[0, 1, 2, 3]);
        let (phase_of, count) = phases(&timeline, 0.1);
        assert_eq!(count, 3);
        assert_eq!(phase_of, vec![0, 2, 1, 1]);
    }
}
